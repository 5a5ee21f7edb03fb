"""The tools the coach calls: in-process builtins over the catalog, the game's HTTP and MCP tools, and
the runner."""
