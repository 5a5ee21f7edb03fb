"""The one streaming adapter to an OpenAI-compatible LLM (embedded llama.cpp or any endpoint)."""
