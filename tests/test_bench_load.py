"""`voicecoach bench load`: its arithmetic, its /proc reading, its chart, and that the CLI has it.

The benchmark itself (a real server under several sessions for minutes) is run by hand; its
figures and commands are in docs/BENCHMARKS.md, "Load".
"""

from __future__ import annotations

import os
from pathlib import Path

from voicecoach.cli import build_parser
from voicecoach.pipelines.bench_load import (
    ProcSample,
    TurnSample,
    chart,
    options_from_args,
    read_proc,
    summarize,
)


def turn(
    s2fa: float | None, error: str | None = None, phase: str = "poisson", t_s: float = 1.0
) -> TurnSample:
    return TurnSample(phase, "p-0", t_s, "s01/turn1.wav", s2fa, server_s2fa_ms=s2fa, error=error)


def test_summary_counts_errors_and_leaves_them_out_of_s2fa() -> None:
    turns = [turn(float(ms)) for ms in range(1000, 2000, 50)] + [
        turn(None, "no reply in time"),
        turn(9000.0, "turn-failed: playback"),  # audible, but cut: an error, not a latency figure
    ]
    summary = summarize(turns)
    assert summary["questions"] == 22 and summary["answered"] == 20 and summary["errors"] == 2
    assert summary["error_kinds"] == ["no reply in time", "turn-failed: playback"]
    assert summary["s2fa_ms"] == {"p50": 1475, "p95": 1902, "max": 1950}
    assert summarize([])["s2fa_ms"] == {"p50": None, "p95": None, "max": None}


def test_read_proc_sees_this_process_open_a_file(tmp_path: Path) -> None:
    rss, fds, threads, cpu_s = read_proc(os.getpid())
    assert rss > 10 and threads >= 1 and cpu_s > 0
    with (tmp_path / "x").open("w"):
        assert read_proc(os.getpid())[1] == fds + 1


def test_chart_is_written(tmp_path: Path) -> None:
    samples = [ProcSample(t, "poisson", 2, 400.0 + t, 12, 18, 50) for t in (0.0, 5.0, 10.0)]
    result = {
        "meta": {"options": {"sessions": 2, "interval_s": 20.0, "burst": 2}},
        "samples": [s.__dict__ for s in samples],
        "turns": [turn(1500.0).__dict__, turn(None, "no audible reply", t_s=6.0).__dict__,
                  turn(1700.0, phase="burst", t_s=9.0).__dict__],
    }  # fmt: skip
    chart(result, tmp_path / "load.png")
    assert (tmp_path / "load.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_has_bench_load() -> None:
    args = build_parser().parse_args(
        ["bench", "load", "--sessions", "20", "--duration", "1800", "--burst", "10"]
    )
    options = options_from_args(args)
    assert (options.sessions, options.duration_s, options.burst, options.interval_s) == (20, 1800.0, 10, 20.0)
    assert args.fn.__name__ == "cmd_bench_load"
