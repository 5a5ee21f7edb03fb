"""`voicecoach bench load`: many players on one server: S2FA, errors and the server's resources.

    voicecoach bench load [--sessions 5] [--duration 120] [--interval 20] [--burst 5] [--single 5]
        [--fixtures audio_fixtures] [--out DIR]

Starts a real `voicecoach serve` process (its own process, so its RSS, file descriptors and
threads are the server's alone; real Silero, Whisper and piper; `--store memory:`) against the
scripted LLM server (fixed W1 / W2 / Talker outputs with a known time to first token, in this
process), and talks to it over websockets as games do, speaking the audio fixtures' WAVs in
real time. Three phases, one after the other:

1. `single`: one session asks `--single` questions one after another: the unloaded S2FA;
2. `poisson`: `--sessions` sessions are connected; each asks at Poisson arrivals (one question
   every `--interval` s on average, the next only after the last reply was heard) for
   `--duration` s: a soak when the duration is long; with `--reconnect-every K` a session
   closes after K questions and a new one takes its place (sessions opening and closing);
3. `burst`: `--burst` sessions speak at the same instant.

S2FA is measured by the client: from the fixture's last speech sample to the first audible
sample of the reply. An error is a question with no audible reply within `--turn-timeout`, a
`turn-failed` event for a reply that failed (`reply`, `playback`), an RTVI error, or a connection
the server closed. A reply the player's own speech cut (`turn-failed` with `failed: interrupted`:
an utterance with a pause inside has its first half answered, and its second half stops that
reply; the whole question is then answered) is counted as an interruption, not an error: the
server did what a barge-in asks, and the question's answer is the turn after it. Every `--sample` s a
progress row shows the turns so far, S2FA p50 / p95, errors and the server's RSS, fds, threads
and CPU. Writes `results.json` and `load.png` (S2FA per question over time above the server's
RSS, threads and fds) under `--out`. Module level imports no Pipecat (the CLI builds its
parser instantly).

Why one module of ~750 lines: one run object, `LoadRun`, whose three phases, sampler and result
share the server process, its port and token, the players and the sample lists; the rest is its
client side (`Player`, `TurnSample`), its /proc reader and its outputs. The seam: the client side
and the /proc sampling, each into a module of its own.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import platform
import random
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voicecoach.core import latency
from voicecoach.core.console import DefaultsHelpFormatter
from voicecoach.core.latency import percentile
from voicecoach.core.runs import run_dir

if TYPE_CHECKING:
    from voicecoach.app.client import CoachClient
    from voicecoach.bench.fixtures import FixtureSession, FixtureTurn

PHASES = ("single", "poisson", "burst")
# A reply is over once the server said the bot stopped speaking (after the turn completed) and no
# audio came for this long since (the server paces its audio in real time).
QUIET_S = 0.5


@dataclass
class LoadOptions:
    sessions: int = 5
    duration_s: float = 120.0
    interval_s: float = 20.0  # mean seconds between one session's questions (Poisson arrivals)
    burst: int = 5
    single: int = 5
    fixtures: Path = Path("audio_fixtures")
    out: Path = field(default_factory=lambda: run_dir("bench_load"))
    llm_ttft_s: float = 0.05  # the scripted LLM's time to first token, every role
    sample_s: float = 5.0
    turn_timeout_s: float = 60.0
    seed: int = 0
    reconnect_every: int = 0  # questions before a Poisson session closes and a new one replaces it
    server_log_level: str = "WARNING"  # the server's log (server.log in the output folder)


# --- the server's resources, from /proc ------------------------------------------------------


@dataclass
class ProcSample:
    t_s: float  # since the start of the run
    phase: str
    sessions: int
    rss_mb: float
    fds: int
    threads: int
    cpu_pct: float  # of one core, over the last interval (200 = two cores busy)
    # The whole machine's busy CPU over the interval, of one core: server, this benchmark (the
    # players and the scripted LLM) and whatever else runs; what is left over says if the run
    # shared the cores with other jobs.
    machine_pct: float = 0.0
    bench_pct: float = 0.0  # this process: the players' clients and the scripted LLM
    # How late the server's event loop woke over the last 10 s (its /api/health): the wait every
    # frame shares, which no S2FA stage times.
    loop_lag_p99_ms: float | None = None
    bench_lag_p99_ms: float | None = None  # the same of this process's loop: the players' clocks


def machine_busy_s() -> float:
    """CPU seconds the machine's cores spent busy so far, all cores summed (Linux /proc/stat)."""
    fields = Path("/proc/stat").read_text(encoding="utf-8").splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def read_proc(pid: int) -> tuple[float, int, int, float]:
    """(RSS in MB, open fds, threads, CPU seconds used so far) of process `pid` (Linux /proc)."""
    status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    rss_mb = int(fields["VmRSS"].split()[0]) / 1024.0
    threads = int(fields["Threads"])
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    # /proc/PID/stat: fields 14 and 15 (utime, stime) in clock ticks, after the ")" of the name.
    stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()
    cpu_s = (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")
    return rss_mb, fds, threads, cpu_s


# --- one question ------------------------------------------------------------------------------


@dataclass
class TurnSample:
    phase: str
    session: str
    t_s: float  # when the question's speech ended, since the start of the run
    fixture: str
    s2fa_ms: float | None  # None: no audible reply
    server_s2fa_ms: float | None = None  # the server's own figure (its latency event)
    stages: dict[str, float] = field(default_factory=dict)  # the server's S2FA stages (label -> ms)
    error: str | None = None
    interrupted: int = 0  # replies of this question's turns the player's own speech cut


def summarize(turns: Sequence[TurnSample]) -> dict[str, Any]:
    """S2FA p50 / p95 / max and the errors of some questions."""
    heard = [t.s2fa_ms for t in turns if t.s2fa_ms is not None and t.error is None]
    server = [t.server_s2fa_ms for t in turns if t.server_s2fa_ms is not None]
    errors = [t.error for t in turns if t.error is not None]

    def stats(values: list[float]) -> dict[str, float | None]:
        if not values:
            return {"p50": None, "p95": None, "max": None}
        return {
            "p50": round(percentile(values, 50)),
            "p95": round(percentile(values, 95)),
            "max": round(max(values)),
        }

    return {
        "questions": len(turns),
        "answered": len(heard),
        "errors": len(errors),
        "error_kinds": sorted(set(errors)),
        "interrupted": sum(t.interrupted for t in turns),
        "s2fa_ms": stats(heard),
        "server_s2fa_ms": stats(server),
    }


class Player:
    """One session: a websocket client that speaks fixture WAVs and times the replies."""

    def __init__(self, name: str, client: CoachClient, connect_ms: float):
        self.name = name
        self.client = client
        self.connect_ms = connect_ms
        self.seen_errors = 0
        self.samples: dict[int, TurnSample] = {}  # turn index -> its question
        self.counted: set[int] = set()  # turns whose `turn-failed` is counted already

    def mark_failed(self, current: TurnSample | None = None, after: int = 0) -> None:
        """Count each `turn-failed` once, on the question whose turn it was (it may come after the
        question's reply seemed over, e.g. when the next question cut it), or on `current`, the
        question asked since message `after`, for a turn of its own that it did not end on (its
        first half, cut by its second). A reply the player cut is an interruption; any other
        failure an error."""
        from voicecoach.coach import protocol

        for i, m in enumerate(self.client.messages):
            event = m.event
            if not isinstance(event, protocol.TurnFailedEvent) or event.turn_index in self.counted:
                continue
            sample = self.samples.get(event.turn_index)
            if sample is None and current is not None and i >= after:
                sample = current
            if sample is None:
                continue
            self.counted.add(event.turn_index)
            if event.failed == "interrupted":
                sample.interrupted += 1
            else:
                sample.error = sample.error or f"turn-failed: {event.failed}"

    async def ask(
        self, session: FixtureSession, turn: FixtureTurn, phase: str, t0: float, timeout_s: float
    ) -> TurnSample:
        from voicecoach.coach import protocol

        client = self.client
        client.audio.clear()  # only this question's audio (a soak would otherwise keep every reply)
        n = len(client.messages)
        streamed = await client.stream_wav(session.audio_path(turn), tail_silence_s=1.0)
        speech_end = streamed.clock(float(turn.speech_end_s or 0.0))
        sample = TurnSample(phase, self.name, round(speech_end - t0, 2), turn.audio, None)
        index: int | None = None
        try:
            index = await self._answered(n, time.monotonic() + timeout_s)
        except TimeoutError:
            sample.error = "no reply in time"
        except Exception as err:  # the connection closed: CoachClosed, or the socket's own error
            sample.error = f"connection: {type(err).__name__}"
        first = client.first_audible(after=self._answer_audio_from(n, index, speech_end))
        if first is not None:
            sample.s2fa_ms = round((first - speech_end) * 1000.0, 1)
        elif sample.error is None:
            sample.error = "no audible reply"
        for m in client.messages[n:]:  # the answer's own latency (a cut turn has none)
            event = m.event
            if isinstance(event, protocol.LatencyEvent) and event.turn_index == index and event.s2fa_ms:
                sample.server_s2fa_ms = event.s2fa_ms
                sample.stages = {stage.label: stage.ms for stage in event.stages}
        if index is not None:
            self.samples[index] = sample
        self.mark_failed(sample, after=n)
        errors = client.errors()
        if len(errors) > self.seen_errors and sample.error is None:
            sample.error = f"error: {errors[-1].split(':', 1)[0]}"
        self.seen_errors = len(errors)
        return sample

    def _answer_audio_from(self, after: int, answer: int | None, speech_end: float) -> float:
        """When the answer's audio can begin: the end of the question's speech, or later when a
        reply the player cut was still arriving then (its audio sent before the barge-in reached
        the server). What comes after that reply's `turn-failed` is the answer's: the server sends
        nothing of a cut reply once it reports the cut."""
        from voicecoach.coach import protocol

        cuts = [
            m.received
            for m in self.client.messages[after:]
            if isinstance(m.event, protocol.TurnFailedEvent)
            and m.event.failed == "interrupted"
            and m.event.turn_index != answer
        ]
        return max([speech_end, *cuts])

    async def _answered(self, after: int, deadline: float) -> int:
        """The turn that answers the question asked since message `after`, once its reply played.

        The first turn completed since is the answer unless the player's own speech cut it: the
        first half of a question with a pause inside is answered, then the second half stops that
        reply (`turn-failed`, `interrupted`) and the whole question is answered as a later turn.
        """
        from voicecoach.coach import protocol

        client = self.client

        def cut() -> set[int]:
            return {
                m.event.turn_index
                for m in client.messages[after:]
                if isinstance(m.event, protocol.TurnFailedEvent) and m.event.failed == "interrupted"
            }

        while True:
            done = await client.wait_event(
                "turn-completed", timeout=max(deadline - time.monotonic(), 0.0), after=after,
                where=lambda e: e.turn_index not in cut(),
            )  # fmt: skip
            assert isinstance(done, protocol.TurnCompletedEvent)  # the event of kind "turn-completed"
            at = next(i for i in range(after, len(client.messages)) if client.messages[i].event is done)
            await self._played(at, max(deadline - time.monotonic(), 0.0))
            if done.turn_index not in cut():
                return done.turn_index

    async def _played(self, completed_at: int, timeout_s: float) -> None:
        """Until the reply has played (the next question would otherwise be a barge-in): the bot
        stopped speaking after the turn completed, and no audio came for QUIET_S since."""
        await self.client.wait_message("bot-stopped-speaking", timeout=timeout_s, after=completed_at)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            last = self.client.audio[-1].received if self.client.audio else 0.0
            if self.client.closed is not None:
                raise self.client.closed
            if last and time.monotonic() - last > QUIET_S:
                return
            await asyncio.sleep(0.1)
        raise TimeoutError


# --- the run -----------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _health(port: int) -> dict[str, Any] | None:
    """The server's /api/health body, or None while it is not ready (or not answering)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=1) as response:
            return dict(json.load(response)) if response.status == 200 else None
    except (OSError, ValueError):
        return None


class LoadRun:
    def __init__(self, options: LoadOptions, sessions: list[FixtureSession], console: Any):
        self.options = options
        self.console = console
        self.questions = [(s, t) for s in sessions for t in s.turns]
        self.rng = random.Random(options.seed)
        self.token = secrets.token_urlsafe(18)
        self.port = _free_port()
        self.turns: list[TurnSample] = []
        self.samples: list[ProcSample] = []
        self.connects: dict[str, list[float]] = {p: [] for p in PHASES}
        self.phase = "start"
        self.players: list[Player] = []
        self._numbers = itertools.count()  # the players' session ids, in the order they connect
        self.t0 = time.monotonic()
        self.server: subprocess.Popen[bytes] | None = None
        self.settled_s: float | None = None
        self.load_average = {"start": os.getloadavg(), "end": os.getloadavg()}
        self.lag = latency.LoopLag()  # this process's loop, started with the sampler

    def start_server(self, llm_url: str) -> None:
        command = [
            sys.executable, "-m", "voicecoach.app.cli", "serve", "--port", str(self.port),
            "--llm-url", llm_url,
            "--store", "memory:", "--no-warm", "--log-level", self.options.server_log_level,
            # Room for every session the phases open, and for sessions that closed a moment ago
            # and are still being let go while their replacements connect (--reconnect-every).
            "--max-sessions", str(max(self.options.sessions, self.options.burst, 1) + 8),
        ]  # fmt: skip
        env = {**os.environ, "VOICECOACH_TOKEN": self.token}
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
        log = (self.options.out / "server.log").open("wb")
        self.server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)

    async def wait_server(self, timeout_s: float = 120.0) -> None:
        assert self.server is not None
        deadline = time.monotonic() + timeout_s
        while await asyncio.to_thread(_health, self.port) is None:
            if self.server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start (see {self.options.out / 'server.log'})")
            await asyncio.sleep(0.2)

    async def settle(self, idle_pct: float = 15.0, timeout_s: float = 240.0) -> float:
        """Wait until the server is idle (CPU under `idle_pct` of a core for 2 s running): at start
        it synthesises the pack's narration phrases on its TTS thread, which would otherwise fall
        on the single-session baseline. Returns the seconds waited."""
        assert self.server is not None
        started = time.monotonic()
        calm, last = 0, read_proc(self.server.pid)[3]
        while calm < 2 and time.monotonic() - started < timeout_s:
            await asyncio.sleep(1.0)
            now = read_proc(self.server.pid)[3]
            calm, last = (calm + 1 if (now - last) * 100.0 < idle_pct else 0), now
        return round(time.monotonic() - started, 1)

    def stop_server(self) -> None:
        if self.server is not None and self.server.poll() is None:
            self.server.send_signal(signal.SIGTERM)
            try:
                self.server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.server.kill()

    async def connect(self, n: int) -> list[Player]:
        """`n` new sessions at once (the server loads each session's engines as it connects)."""
        from voicecoach.app.client import CoachClient

        async def one(i: int) -> Player:
            # Numbered before any await: players replaced at the same moment must not share a
            # session id (the second would take the first's session over).
            name = f"{self.phase}-{next(self._numbers)}"
            started = time.monotonic()
            client = await CoachClient.connect(
                f"ws://127.0.0.1:{self.port}/ws", token=self.token, session=name, timeout_s=120
            )
            player = Player(name, client, round((time.monotonic() - started) * 1000.0))
            session = self.questions[0][0]
            await client.push_state(
                snapshot={k: session.initial_state[k] for k in ("ic", "fs") if k in session.initial_state}
            )
            return player

        players = list(await asyncio.gather(*(one(i) for i in range(n))))
        self.players.extend(players)
        self.connects[self.phase].extend(p.connect_ms for p in players)
        return players

    async def ask(self, player: Player) -> None:
        session, turn = self.rng.choice(self.questions)
        sample = await player.ask(session, turn, self.phase, self.t0, self.options.turn_timeout_s)
        self.turns.append(sample)

    async def sampler(self) -> None:
        assert self.server is not None
        last: tuple[float, float, float] | None = None  # server, machine, bench CPU seconds
        last_t = time.monotonic()
        self.console.print(_ROW.format("t s", "phase", "sessions", "turns", "errors", "p50 ms", "p95 ms",
                                       "RSS MB", "fds", "threads", "CPU %", "machine %",
                                       "lag p99", "bench lag"))  # fmt: skip
        while True:
            try:
                rss, fds, threads, cpu_s = await asyncio.to_thread(read_proc, self.server.pid)
            except (FileNotFoundError, ProcessLookupError):
                return
            health = await asyncio.to_thread(_health, self.port)
            now = time.monotonic()
            used = (cpu_s, machine_busy_s(), time.process_time())
            span = max(now - last_t, 1e-6)
            pct = [100.0 * (a - b) / span for a, b in zip(used, last or used, strict=True)]
            last, last_t = used, now
            open_sessions = sum(1 for p in self.players if p.client.closed is None)
            t_s = round(now - self.t0, 1)
            lag = (health or {}).get("loop_lag_ms") or {}
            sample = ProcSample(t_s, self.phase, open_sessions, round(rss, 1), fds, threads, round(pct[0]),
                                machine_pct=round(pct[1]), bench_pct=round(pct[2]),
                                loop_lag_p99_ms=lag.get("p99"),
                                bench_lag_p99_ms=self.lag.summary()["p99"])  # fmt: skip
            self.samples.append(sample)
            self._progress(sample)
            await asyncio.sleep(self.options.sample_s)

    def _progress(self, s: ProcSample) -> None:
        turns = [t for t in self.turns if t.phase == s.phase]
        summary = summarize(turns)
        p50, p95 = summary["s2fa_ms"]["p50"], summary["s2fa_ms"]["p95"]
        self.console.print(_ROW.format(f"{s.t_s:.0f}", s.phase, s.sessions, len(turns), summary["errors"],
                                       "-" if p50 is None else p50, "-" if p95 is None else p95,
                                       f"{s.rss_mb:.0f}", s.fds, s.threads, s.cpu_pct,
                                       s.machine_pct, _or_dash(s.loop_lag_p99_ms),
                                       _or_dash(s.bench_lag_p99_ms)))  # fmt: skip

    async def run_single(self) -> None:
        self.phase = "single"
        [player] = await self.connect(1)
        for _ in range(self.options.single):
            await self.ask(player)
            await asyncio.sleep(1.0)
        await player.client.close()

    async def run_poisson(self) -> list[Player]:
        self.phase = "poisson"
        players = await self.connect(self.options.sessions)
        end = time.monotonic() + self.options.duration_s

        async def speak(player: Player) -> None:
            asked = 0
            while True:
                gap = self.rng.expovariate(1.0 / self.options.interval_s)
                await asyncio.sleep(min(gap, max(end - time.monotonic(), 0.0)))
                if time.monotonic() >= end or player.client.closed is not None:
                    return
                await self.ask(player)
                asked += 1
                if self.options.reconnect_every and asked % self.options.reconnect_every == 0:
                    await player.client.close()  # the player leaves; a new one joins
                    try:
                        [player] = await self.connect(1)
                    except Exception as err:  # counted, and the run goes on without this player
                        t_s = round(time.monotonic() - self.t0, 2)
                        failed = TurnSample(self.phase, "-", t_s, "-", None, error=f"connect: {err}")
                        self.turns.append(failed)
                        return

        await asyncio.gather(*(speak(p) for p in players))
        return players

    async def run_burst(self, players: list[Player]) -> None:
        self.phase = "burst"
        ready = [p for p in players if p.client.closed is None][: self.options.burst]
        if len(ready) < self.options.burst:
            ready += await self.connect(self.options.burst - len(ready))
        await asyncio.sleep(2.0)  # let the connections settle: the burst is of questions, not of sessions
        await asyncio.gather(*(self.ask(p) for p in ready))

    async def close_all(self) -> None:
        self.phase = "closed"
        for player in self.players:
            player.mark_failed()
        await asyncio.gather(*(p.client.close() for p in self.players), return_exceptions=True)
        await asyncio.sleep(max(self.options.sample_s * 2, 5.0))  # the server lets go of the sessions

    def result(self) -> dict[str, Any]:
        phases = {}
        for phase in PHASES:
            turns = [t for t in self.turns if t.phase == phase]
            samples = [s for s in self.samples if s.phase == phase]
            connects = self.connects[phase]
            phases[phase] = {
                **summarize(turns),
                "connect_ms": _connect_stats(connects),
                "stages_p50_ms": _stages_p50(turns),
                "rss_mb_peak": max((s.rss_mb for s in samples), default=None),
                "threads_peak": max((s.threads for s in samples), default=None),
                "fds_peak": max((s.fds for s in samples), default=None),
                # first and last sample of the phase: a soak's growth
                "rss_mb_first_last": [samples[0].rss_mb, samples[-1].rss_mb] if samples else None,
                "threads_first_last": [samples[0].threads, samples[-1].threads] if samples else None,
                "fds_first_last": [samples[0].fds, samples[-1].fds] if samples else None,
                # mean CPU of one core over the phase: the server, this process, the whole machine
                "cpu_pct_mean": {
                    "server": _mean([s.cpu_pct for s in samples]),
                    "bench": _mean([s.bench_pct for s in samples]),
                    "machine": _mean([s.machine_pct for s in samples]),
                },
                # the worst 10 s of the phase: the server's event-loop lag p99 (ms), and this process's
                "loop_lag_p99_ms_max": max(
                    (s.loop_lag_p99_ms for s in samples if s.loop_lag_p99_ms is not None), default=None
                ),
                "bench_lag_p99_ms_max": max(
                    (s.bench_lag_p99_ms for s in samples if s.bench_lag_p99_ms is not None), default=None
                ),
            }  # fmt: skip
        first = self.samples[0] if self.samples else None
        last = self.samples[-1] if self.samples else None
        single, poisson = phases["single"]["s2fa_ms"]["p95"], phases["poisson"]["s2fa_ms"]["p95"]
        return {
            "meta": {
                "options": {k: str(v) if isinstance(v, Path) else v for k, v in asdict(self.options).items()},
                "host": platform.node(), "cpus": os.cpu_count(), "python": platform.python_version(),
                "when": datetime.now().isoformat(timespec="seconds"),
                "settled_s": self.settled_s,  # the server's start-up work, before the first phase
                # the machine's 1 / 5 / 15 min load averages as the phases began and ended
                "load_average": {k: [round(v, 2) for v in avg] for k, avg in self.load_average.items()},
            },
            "phases": phases,
            "poisson_p95_over_single_p95": round(poisson / single, 2) if single and poisson else None,
            "server": {
                "rss_mb_start": first.rss_mb if first else None, "rss_mb_end": last.rss_mb if last else None,
                "fds_start": first.fds if first else None, "fds_end": last.fds if last else None,
                "threads_start": first.threads if first else None,
                "threads_end": last.threads if last else None,
            },
            "samples": [asdict(s) for s in self.samples],
            "turns": [asdict(t) for t in self.turns],
        }  # fmt: skip


def _stages_p50(turns: Sequence[TurnSample]) -> dict[str, float]:
    """The server's S2FA stages, p50 of each over the questions that have it: where the time went."""
    labels = dict.fromkeys(label for t in turns for label in t.stages)
    return {
        label: round(percentile([t.stages[label] for t in turns if label in t.stages], 50))
        for label in labels
    }


def _or_dash(value: float | None) -> float | str:
    return "-" if value is None else value


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values)) if values else None


def _connect_stats(connects: list[float]) -> dict[str, float] | None:
    """How long the session event took after connecting (the server builds the session's pipeline)."""
    return {"p50": round(percentile(connects, 50)), "max": round(max(connects))} if connects else None


_ROW = "{:>6} {:>8} {:>8} {:>6} {:>6} {:>7} {:>7} {:>7} {:>5} {:>7} {:>6} {:>9} {:>7} {:>9}"


async def run_load(options: LoadOptions, console: Any) -> dict[str, Any]:
    from voicecoach.bench.fixtures import discover
    from voicecoach.pipelines.bench.latency import scripted_router
    from voicecoach.testing.scripted_llm import ScriptedLLMServer

    sessions, errors = discover(options.fixtures)
    if not sessions:
        raise SystemExit("; ".join(errors) or f"no fixture sessions in {options.fixtures}")
    run = LoadRun(options, sessions, console)
    router = scripted_router(sessions[0].pack_id, options.llm_ttft_s)
    async with ScriptedLLMServer(router=router) as llm:
        run.start_server(llm.base_url)
        watchers: list[asyncio.Task[None]] = []
        try:
            await run.wait_server()
            watchers = [asyncio.create_task(run.sampler()), asyncio.create_task(run.lag.run())]
            run.settled_s = await run.settle()
            run.load_average["start"] = os.getloadavg()
            if options.single:
                await run.run_single()
            players = await run.run_poisson() if options.sessions and options.duration_s > 0 else []
            if options.burst:
                await run.run_burst(players)
            run.load_average["end"] = os.getloadavg()
            await run.close_all()
        finally:
            for task in watchers:
                task.cancel()
            run.stop_server()
    return run.result()


def chart(result: dict[str, Any], path: Path) -> None:
    """S2FA of each question over time (by phase) above the server's RSS, threads and fds."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 6.5), sharex=True, height_ratios=[3, 2])
    colors = {"single": "tab:green", "poisson": "tab:blue", "burst": "tab:red"}
    for phase, color in colors.items():
        turns = [t for t in result["turns"] if t["phase"] == phase and t["s2fa_ms"] is not None]
        top.scatter([t["t_s"] for t in turns], [t["s2fa_ms"] for t in turns], s=14, color=color, label=phase)
        failed = [t for t in result["turns"] if t["phase"] == phase and t["error"]]
        top.scatter([t["t_s"] for t in failed], [0] * len(failed), marker="x", color=color)
    top.set_ylabel("S2FA (ms)")
    top.set_ylim(bottom=0)
    top.legend(loc="upper left", fontsize=8)
    top.grid(alpha=0.3)
    opts = result["meta"]["options"]
    top.set_title(
        f"{opts['sessions']} sessions, one question / {opts['interval_s']:g} s each; burst of {opts['burst']}"
    )
    samples = result["samples"]
    t = [s["t_s"] for s in samples]
    bottom.plot(t, [s["rss_mb"] for s in samples], color="black", label="RSS (MB)")
    bottom.set_ylabel("RSS (MB)")
    bottom.set_xlabel("time since start (s)")
    right = bottom.twinx()
    right.plot(t, [s["threads"] for s in samples], color="tab:orange", label="threads")
    right.plot(t, [s["fds"] for s in samples], color="tab:purple", label="fds")
    right.set_ylabel("threads, fds")
    lines = bottom.get_lines() + right.get_lines()
    bottom.legend(lines, [str(line.get_label()) for line in lines], loc="upper left", fontsize=8)
    bottom.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def summary_table(result: dict[str, Any]) -> Any:
    from rich.table import Table

    table = Table(title="load: client-measured S2FA (ms) per phase")
    for col in ("phase", "questions", "answered", "errors", "interrupted", "S2FA p50", "S2FA p95", "max",
                "server p50", "connect p50/max", "RSS peak MB", "threads peak", "fds peak",
                "loop lag p99 max", "bench lag p99 max"):  # fmt: skip
        table.add_column(col, justify="left" if col == "phase" else "right")
    for phase, p in result["phases"].items():
        s, srv, c = p["s2fa_ms"], p["server_s2fa_ms"], p["connect_ms"]
        connect = f"{c['p50']}/{c['max']}" if c else "-"
        cells = [p["questions"], p["answered"], p["errors"], p["interrupted"], s["p50"], s["p95"], s["max"],
                 srv["p50"], connect, p["rss_mb_peak"], p["threads_peak"], p["fds_peak"],
                 p["loop_lag_p99_ms_max"], p["bench_lag_p99_ms_max"]]  # fmt: skip
        table.add_row(phase, *(str(cell) for cell in cells))
    return table


# --- command ------------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sessions", type=int, default=5, help="sessions of the Poisson phase (0: skip it)")
    parser.add_argument(
        "--duration", type=float, default=120.0, help="seconds of the Poisson phase (a soak: long)"
    )
    parser.add_argument(
        "--interval", type=float, default=20.0, help="mean seconds between a session's questions"
    )
    parser.add_argument(
        "--burst", type=int, default=5, help="sessions speaking at the same instant (0: skip)"
    )
    parser.add_argument(
        "--single", type=int, default=5, help="questions of the one-session baseline (0: skip)"
    )
    parser.add_argument(
        "--fixtures", default="audio_fixtures", help="folder of fixture sessions (their WAVs)"
    )
    parser.add_argument(
        "--llm-ttft", type=float, default=0.05, help="the scripted LLM's time to first token (s)"
    )
    parser.add_argument("--sample", type=float, default=5.0, help="seconds between progress rows")
    parser.add_argument("--turn-timeout", type=float, default=60.0, help="seconds for a reply to be heard")
    parser.add_argument("--seed", type=int, default=0, help="arrivals and question choice")
    parser.add_argument(
        "--reconnect-every", type=int, default=0,
        help="questions before a Poisson session closes and a new one replaces it (0: never)",
    )  # fmt: skip
    parser.add_argument("--server-log", default="WARNING", help="the server's log level (server.log)")
    parser.add_argument(
        "--out", default=None, help="output folder (default: ~/.cache/voicecoach/runs/bench_load/<timestamp>)"
    )


def options_from_args(args: argparse.Namespace) -> LoadOptions:
    options = LoadOptions(
        sessions=args.sessions, duration_s=args.duration, interval_s=args.interval, burst=args.burst,
        single=args.single, fixtures=Path(args.fixtures), llm_ttft_s=args.llm_ttft, sample_s=args.sample,
        turn_timeout_s=args.turn_timeout, seed=args.seed, server_log_level=args.server_log,
        reconnect_every=args.reconnect_every,
    )  # fmt: skip
    if args.out:
        options.out = Path(args.out)
    return options


async def run(args: argparse.Namespace) -> int:
    from loguru import logger

    from voicecoach.core.console import report_console

    console = report_console()
    main_task = asyncio.current_task()
    if main_task is not None:  # SIGTERM cancels like Ctrl-C: the server process is stopped, not orphaned
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, main_task.cancel)
    options = options_from_args(args)
    options.out.mkdir(parents=True, exist_ok=True)
    logger.remove()
    logger.add(options.out / "bench.log", level="INFO")
    result = await run_load(options, console)
    (options.out / "results.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    chart(result, options.out / "load.png")
    console.print(summary_table(result))
    for phase, p in result["phases"].items():
        if p["stages_p50_ms"]:
            stages = ", ".join(f"{label} {ms}" for label, ms in p["stages_p50_ms"].items())
            console.print(f"{phase}: server S2FA stages p50 (ms): {stages}")
        cpu = p["cpu_pct_mean"]
        console.print(f"{phase}: CPU % of one core, mean: server {cpu['server']}, bench {cpu['bench']}, "
                      f"machine {cpu['machine']} (200: both cores)")  # fmt: skip
    meta = result["meta"]
    console.print(f"settled {meta['settled_s']} s before the first phase; load average "
                  f"{meta['load_average']['start']} → {meta['load_average']['end']}")  # fmt: skip
    srv = result["server"]
    console.print(
        f"server: RSS {srv['rss_mb_start']} → {srv['rss_mb_end']} MB, threads {srv['threads_start']} → "
        f"{srv['threads_end']}, fds {srv['fds_start']} → {srv['fds_end']} (start → after all closed); "
        f"poisson p95 / single p95 = {result['poisson_p95_over_single_p95']}"
    )
    console.print(f"written to {options.out} (results.json, load.png, server.log)")
    return 0 if all(p["errors"] == 0 for p in result["phases"].values()) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        formatter_class=DefaultsHelpFormatter,
        prog="voicecoach bench load",
        description=__doc__.splitlines()[0],
    )
    add_arguments(parser)
    try:
        return asyncio.run(run(parser.parse_args(argv)))
    except (KeyboardInterrupt, asyncio.CancelledError):
        return 130


if __name__ == "__main__":
    sys.exit(main())
