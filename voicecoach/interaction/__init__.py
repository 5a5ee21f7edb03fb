"""W3 Interaction (paper section 6): which guidance this turn may carry, across turns."""
