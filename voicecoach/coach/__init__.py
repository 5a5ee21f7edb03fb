"""One coach run: its configuration, session, store, engines, speech settings and wire protocol."""
