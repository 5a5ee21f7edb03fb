"""The console every command prints its tables and progress bars on."""

from __future__ import annotations

import sys

from rich.console import Console


def report_console() -> Console:
    """A terminal keeps its width; a log file (not a terminal) gets the whole table, not 80 columns."""
    return Console(width=None if sys.stdout.isatty() else 180)
