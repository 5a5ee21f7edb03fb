"""Test doubles that ship with the package, for the tests and the benchmarks alike.

- `scripted_llm`: a scripted OpenAI-compatible chat-completions server (SSE streaming, scripted
  timing and failures) on loopback; the latency and load benchmarks run the coach against it to
  measure the framework's own overhead.

Never imported by the coach at run time.
"""
