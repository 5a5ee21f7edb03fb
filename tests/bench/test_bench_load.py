"""`voicecoach bench load`: its arithmetic, its /proc reading, its chart, and that the CLI has it.

The benchmark itself (a real server under several sessions for minutes) is run by hand; its
figures and commands are in docs/BENCHMARKS.md, "Load".
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import pytest

from voicecoach.app.cli import build_parser
from voicecoach.app.client import AudioChunk, CoachClient, Received
from voicecoach.coach import protocol
from voicecoach.pipelines.bench.load import (
    Player,
    ProcSample,
    TurnSample,
    chart,
    machine_busy_s,
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


def test_an_interrupted_reply_is_counted_apart_from_the_errors() -> None:
    cut = turn(1200.0)
    cut.interrupted = 1  # the question's first half was answered, its second half cut that reply
    summary = summarize([cut, turn(1300.0), turn(None, "turn-failed: playback")])
    assert summary["errors"] == 1 and summary["interrupted"] == 1 and summary["answered"] == 2


def completed(index: int) -> protocol.TurnCompletedEvent:
    return protocol.TurnCompletedEvent(
        turn_index=index, t_ms=0.0, utterance="", intent="match", sub_intent=None, narration="",
        reply="", tools=[], guidance=None, latency={},
    )  # fmt: skip


def failed(index: int, why: str) -> protocol.TurnFailedEvent:
    return protocol.TurnFailedEvent(turn_index=index, t_ms=0.0, failed=why, reason=why, heard="")  # type: ignore[arg-type]


class FakeServer:
    """A CoachClient fed by hand, as the server would: events, RTVI messages, audio."""

    def __init__(self) -> None:
        self.client = CoachClient(None, None)  # type: ignore[arg-type]

    def send(self, rtvi_type: str, event: Any = None) -> None:
        rtvi = protocol.RTVIMessage(type=rtvi_type, data=None)
        self.client.messages.append(Received(rtvi, event, time.monotonic()))
        self.client._changed.set()

    def audio(self) -> None:
        self.client.audio.append(AudioChunk(b"\x00\x10" * 160, 24000, time.monotonic()))


async def test_the_answer_of_a_question_with_a_pause_inside_is_the_turn_after_the_cut_one() -> None:
    """ "We took round one. [pause] Keep the same team?": turn 0 answers the first half and the
    player's second half cuts it; turn 1 answers the whole question. The bench waits for turn 1,
    and counts turn 0 as an interruption, not an error."""
    server = FakeServer()
    player = Player("p-0", server.client, 10.0)
    sample = turn(900.0)

    async def play() -> None:
        server.send("server-message", completed(0))
        server.audio()
        await asyncio.sleep(0.05)
        server.send("bot-stopped-speaking")
        server.send("server-message", failed(0, "interrupted"))  # the second half cut it
        await asyncio.sleep(0.8)  # quiet: the bench must not take turn 0 for the answer
        server.send("server-message", completed(1))
        server.audio()
        await asyncio.sleep(0.05)
        server.send("bot-stopped-speaking")

    speech_end = time.monotonic() - 1.0
    feeder = asyncio.create_task(play())
    answer = await player._answered(0, time.monotonic() + 10.0)
    await feeder
    assert answer == 1
    # The cut reply's audio came after the question's speech; the answer's audio is what follows
    # that reply's turn-failed, not the first audio after the speech.
    [cut_audio, answer_audio] = server.client.audio
    assert server.client.first_audible(after=speech_end) == pytest.approx(cut_audio.received, abs=0.01)
    start = player._answer_audio_from(0, answer, speech_end)
    assert server.client.first_audible(after=start) == pytest.approx(answer_audio.received, abs=0.01)
    player.samples[answer] = sample
    player.mark_failed(sample, after=0)
    assert sample.interrupted == 1 and sample.error is None
    player.mark_failed()  # counted once, however often the messages are read again
    assert sample.interrupted == 1


def test_a_reply_that_failed_stays_an_error_and_the_players_cut_does_not() -> None:
    server = FakeServer()
    player = Player("p-0", server.client, 10.0)
    first, second = turn(900.0), turn(950.0)
    player.samples = {0: first, 1: second}
    server.send("server-message", failed(0, "playback"))
    server.send("server-message", failed(1, "interrupted"))  # the next question cut it
    player.mark_failed()
    assert first.error == "turn-failed: playback" and first.interrupted == 0
    assert second.error is None and second.interrupted == 1


def test_machine_busy_time_grows() -> None:
    before = machine_busy_s()
    sum(i * i for i in range(200_000))
    assert machine_busy_s() >= before > 0


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


async def test_players_that_join_at_the_same_moment_get_sessions_of_their_own() -> None:
    """The soak replaces players as they leave; two replaced at once once got one session id, so
    the second took the first's session over (4409) and the benchmark died 30 minutes in."""
    from tests.live_server import TOKEN, LiveServer
    from voicecoach.bench.fixtures import discover
    from voicecoach.pipelines.bench.load import LoadRun

    sessions, _ = discover(Path("audio_fixtures"))
    options = options_from_args(build_parser().parse_args(["bench", "load"]))
    async with LiveServer() as live:
        run = LoadRun(options, sessions, console=None)
        run.port, run.token, run.phase = live.port, TOKEN, "poisson"
        joined = await asyncio.gather(run.connect(1), run.connect(1), run.connect(1))
        players = [p for [p] in joined]
        try:
            assert len({p.name for p in players}) == 3
            await asyncio.sleep(0.5)  # a takeover would close the older socket by now
            assert [p.client.closed for p in players] == [None, None, None]
        finally:
            for p in players:
                await p.client.close()
