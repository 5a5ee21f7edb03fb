"""W2 Grounding (paper section 5): QuerySlots from rules or the LLM, conflicts against the live state,
the paragraph plan."""
