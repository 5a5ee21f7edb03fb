"""The console every command prints its tables and progress bars on."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from rich.console import Console


def report_console() -> Console:
    """A terminal keeps its width; a log file (not a terminal) gets the whole table, not 80 columns."""
    return Console(width=None if sys.stdout.isatty() else 180)


def _process_age_s() -> float:
    """Seconds since this process started (Linux's /proc; 0 where it cannot be read)."""
    try:
        ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0.0
    return max(0.0, uptime - ticks / os.sysconf("SC_CLK_TCK"))


class Startup:
    """A command's start as it happens (`chat`, `serve`): each step with a spinner while it loads,
    then its line with its time, and one "ready" line once the command can answer. A script
    waiting on the output waits for the line that starts with "ready"."""

    def __init__(self, console: Console) -> None:
        self.console = console
        # "ready in" counts from the process's start: the interpreter and the imports are part of
        # what a user waits for.
        self.started = time.monotonic() - _process_age_s()

    @contextlib.contextmanager
    def step(self, what: str) -> Iterator[None]:
        began = time.monotonic()
        with self.console.status(f"{what} …"):
            yield
        took = time.monotonic() - began
        self.console.print(f"  {what}" + (f" [dim]{took:.1f} s[/]" if took >= 0.05 else ""), soft_wrap=True)

    def ready(self, text: str) -> None:
        elapsed = time.monotonic() - self.started
        self.console.print(f"[bold green]ready[/] in {elapsed:.1f} s: {text}", soft_wrap=True)


class DefaultsHelpFormatter(argparse.RawDescriptionHelpFormatter):
    """--help shows each option's default, as "(default: X)", unless its help already says one.

    argparse's own ArgumentDefaultsHelpFormatter also prints "(default: None)" and "(default:
    False)" for options whose absence means something the help explains; this one leaves those out.
    The description keeps its line breaks (the commands' docstrings are laid out by hand).
    """

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (
            not action.option_strings
            or action.nargs == 0  # a flag: its default is "not given"
            or default is None
            or default is False
            or default is argparse.SUPPRESS
            or default in ("", [], ())
            or "default" in text.lower()
        ):
            return action.help
        return f"{text} (default: %(default)s)" if text else "default: %(default)s"


def show_defaults(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """`parser` and every subcommand's parser under it print their defaults in --help."""
    parser.formatter_class = DefaultsHelpFormatter
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                show_defaults(sub)
    return parser
