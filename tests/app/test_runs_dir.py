"""Outputs of the replay and the benches go outside the checkout by default (voicecoach.core.runs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from voicecoach.core.runs import RUNS_ENV, run_dir, runs_root


def test_the_runs_root_is_the_users_cache_or_the_environments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(RUNS_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert runs_root() == tmp_path / "cache" / "voicecoach" / "runs"
    first = run_dir("replay")
    assert first.parent == tmp_path / "cache" / "voicecoach" / "runs" / "replay"
    assert first.name[:8].isdigit() and not first.exists()  # a timestamp; made by whoever writes
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert runs_root() == tmp_path / "home" / ".cache" / "voicecoach" / "runs"
    monkeypatch.setenv(RUNS_ENV, str(tmp_path / "mine"))
    assert run_dir("coachbench", "default") == tmp_path / "mine" / "coachbench" / "default"


def test_the_dialogue_bench_writes_under_the_runs_root_not_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from voicecoach.pipelines.bench import dialogue

    monkeypatch.setenv(RUNS_ENV, str(tmp_path / "runs"))
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    assert dialogue.main(["--pack", "pet_arena"]) == 0
    [out] = (tmp_path / "runs" / "dialogue").iterdir()
    assert (out / "pet_arena.jsonl").stat().st_size > 0
    assert f"turns written to {out}/" in "".join(capsys.readouterr().out.split("\n"))
    assert list((tmp_path / "cwd").iterdir()) == []
