"""Where the replay and the benchmarks write their outputs when no --out is given.

Not the current folder: run from a checkout, outputs landed in the repository (runs/, coachbench-out/).
They go under $VOICECOACH_RUNS if set, else the user's cache (`$XDG_CACHE_HOME/voicecoach/runs`,
~/.cache/voicecoach/runs), one folder per kind of run; each command prints where it wrote.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

RUNS_ENV = "VOICECOACH_RUNS"


def runs_root() -> Path:
    if os.environ.get(RUNS_ENV):
        return Path(os.environ[RUNS_ENV]).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache).expanduser() / "voicecoach" / "runs"


def run_dir(kind: str, name: str | None = None) -> Path:
    """`<runs root>/<kind>/<name>`, by default a new timestamped folder (not created here)."""
    return runs_root() / kind / (name or datetime.now().strftime("%Y%m%d-%H%M%S"))
