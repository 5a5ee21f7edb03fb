"""Chaos: two workers behind HAProxy on one Redis, players asking by text and by voice, and faults.

Everything is real but the LLM (scripted, as in tests/pipelines/test_deploy.py): two `voicecoach
serve` processes, Debian's HAProxy with deploy/haproxy.cfg, Debian's redis-server with
deploy/redis.conf (AOF). Eight players, each with its own session and a token minted for it, ask
in a loop (six type, two stream a recorded question at a microphone's pace) while a schedule
SIGSTOPs the busier worker (and SIGCONTs it 6 s later), kill -9s it and starts it again, kill -9s Redis
and starts it again. A player whose turn goes unanswered for 3.5 s reconnects through HAProxy as a
game would, leaving the silent socket open, as a second tab would; that socket
must then be closed 4409 with its reason once its worker runs again (issue 29: "two workers can
serve one session"). Every few connects a player also tries another player's session with its own
token.

The checker (`Figures`), from what the players saw and what Redis holds at the end:
- lost: a turn a player heard (turn-completed, its audio to the end, no turn-failed) that is not
  stored as completed under its index with the same question and reply. A worker stopped or killed
  between sending a reply's end and storing it leaves the turn in progress; the next owner stores it
  as cut and says so on the player's next connection (`turn-failed`, `closed`, ORPHANED): such a
  turn is "told cut", not lost, since the player is not left believing it stored;
- duplicated: a turn index a player saw completed twice (on any of its sockets);
- fence violations: a heard turn stored under another connection's fence, or a session whose
  stored turns' fences go down as their indices go up (an older owner wrote after a newer one);
- cross-session reads: a session event or state carrying another player's session or marker, or
  another player's session opened with one's own token;
- refusals without a reason: a connection refused, or closed by the server, with no reason.
Targets (issue 29): 0 of each, over at least 100 heard turns and 10 faults. Its figures are printed
and are in docs/BENCHMARKS.md ("Chaos").
"""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest_asyncio
import websockets

from tests.live_server import GAME_STATE, free_port
from tests.pipelines.test_deploy import HAPROXY_CFG, SIGNING_KEY, health, wait_port
from tests.pipelines.test_turn import HIT_HEAD, HIT_PLAN, Router
from tests.processes import stop_all
from tests.redis_server import RedisServer
from voicecoach.app.client import CoachClient, CoachClosed, CoachError
from voicecoach.bench.fixtures import load_session
from voicecoach.coach import protocol
from voicecoach.coach.session import ORPHANED
from voicecoach.coach.store import RedisSessionStore, TurnRecord
from voicecoach.coach.tokens import mint
from voicecoach.domain.pack import load_pack
from voicecoach.pipelines.server import LOST_REASON
from voicecoach.testing.scripted_llm import Script, ScriptedLLMServer

ROOT = Path(__file__).resolve().parents[2]
REDIS_CONF = ROOT / "deploy" / "redis.conf"
# Short words: a turn's length is mostly its audio played in real time.
NARRATE = Script(
    chunks=[*HIT_HEAD, "<NARRATION>", "Checking.", "</NARRATION>", *HIT_PLAN], inter_token_s=0.01
)
REPLY = Script("Lead with Emberfox.", inter_token_s=0.01)
QUESTION = "how do I beat their team?"
_S01 = load_session(ROOT / "audio_fixtures" / "s01.json")
SPOKEN = _S01.audio_path(_S01.turns[0])  # "How do I beat their water team?"
TEXT_PLAYERS, VOICE_PLAYERS = 6, 2
MIN_TURNS, MIN_FAULTS = 100, 10
TURN_TIMEOUT_S = 3.5  # no turn-completed (nor audio) this long: the player reconnects
VOICE_TIMEOUT_S = 6.0  # ... after a spoken question (the VAD, then Whisper on two busy cores)
DEADLINE_S = 150.0  # the chaos phase's hard end, whatever the counts
STOP_S = 6.0  # a SIGSTOP lasts this long: HAProxy marks the worker down after ~1 s, its players move


@dataclass
class Heard:
    session: str
    index: int
    utterance: str
    reply: str
    fence: int | None
    at: float = field(default_factory=time.monotonic)


@dataclass
class Figures:
    heard: list[Heard] = field(default_factory=list)
    completed_seen: Counter[tuple[str, int]] = field(default_factory=Counter)
    cross_reads: list[str] = field(default_factory=list)
    refusals: list[tuple[object, str]] = field(default_factory=list)
    connects: int = 0
    reconnects: int = 0
    connect_errors: int = 0
    stale_sockets: list[CoachClient] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)
    fault_times: list[float] = field(default_factory=list)
    by_mode: Counter[str] = field(default_factory=Counter)
    why: list[str] = field(default_factory=list)  # each lost or duplicated turn, for the failure message
    clients: list[CoachClient] = field(default_factory=list)  # every connection opened, for its events


class Cluster:
    """Redis, two workers and HAProxy; the test's own processes, killed and restarted by it."""

    def __init__(self, llm_url: str, log_dir: Path) -> None:
        self.log_dir = log_dir
        (log_dir / "redis").mkdir()
        self.redis = RedisServer(log_dir / "redis", REDIS_CONF).start()
        self.llm_url = llm_url
        self.ports = {name: free_port() for name in ("worker1", "worker2")}
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.starts = Counter[str]()
        for name in self.ports:
            self.start_worker(name)
        lb_env = {
            **os.environ,
            "VOICECOACH_LB_BIND": f"127.0.0.1:{(lb := free_port())}",
            "VOICECOACH_WORKER_1": f"127.0.0.1:{self.ports['worker1']}",
            "VOICECOACH_WORKER_2": f"127.0.0.1:{self.ports['worker2']}",
            "VOICECOACH_LB_STATS": f"127.0.0.1:{free_port()}",
        }
        self.lb = lb
        haproxy = shutil.which("haproxy")
        assert haproxy is not None
        log = (log_dir / "haproxy.log").open("wb")
        self.procs["haproxy"] = subprocess.Popen(
            [haproxy, "-db", "-f", str(HAPROXY_CFG)], env=lb_env, stdout=log, stderr=subprocess.STDOUT
        )
        for name in self.ports:
            self.wait_healthy(name)
        wait_port(lambda: health(self.lb) is not None, "haproxy", self.procs["haproxy"])

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.lb}/ws"

    def start_worker(self, name: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "VOICECOACH_SIGNING_KEY": SIGNING_KEY}
        command = [
            sys.executable, "-m", "voicecoach.app.cli", "serve", "--port", str(self.ports[name]),
            "--llm-url", self.llm_url, "--store", self.redis.url, "--no-warm", "--log-level", "WARNING",
        ]  # fmt: skip
        self.starts[name] += 1
        log = (self.log_dir / f"{name}.{self.starts[name]}.log").open("wb")
        self.procs[name] = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)

    def wait_healthy(self, name: str, timeout_s: float = 90.0) -> None:
        port = self.ports[name]
        wait_port(lambda: (h := health(port)) is not None and h.get("ok"), name, self.procs[name], timeout_s)

    def busiest(self) -> str:
        """The worker serving the most sessions now (sessions move with every failover, so a fault
        aimed at a fixed worker would often hit an idle one)."""
        load = {name: (health(port) or {}).get("sessions", -1) for name, port in self.ports.items()}
        return max(load, key=lambda name: int(load[name]))  # type: ignore[arg-type]

    def signal(self, name: str, sig: signal.Signals) -> None:
        self.procs[name].send_signal(sig)
        if sig == signal.SIGKILL:
            self.procs[name].wait(timeout=10)

    def stop(self) -> None:
        stop_all(self.procs.values())
        self.redis.stop()


@pytest_asyncio.fixture
async def cluster(haproxy: str, tmp_path: Path) -> AsyncIterator[Cluster]:
    router = Router(load_pack())
    router.set("talker", REPLY)
    router.set("w1", NARRATE)
    async with ScriptedLLMServer(router=router) as llm:
        # Started off the loop: the scripted LLM runs on it and must answer while the workers start.
        started = await asyncio.to_thread(Cluster, llm.base_url, tmp_path)
        try:
            yield started
        finally:
            await asyncio.to_thread(started.stop)


# --- a player ---------------------------------------------------------------------------------


class Player:
    def __init__(self, number: int, voice: bool, cluster: Cluster, figures: Figures) -> None:
        self.session = f"chaos-{number}"
        self.voice = voice
        self.token = mint(SIGNING_KEY, self.session, ttl_s=3600)
        self.marker = 20 + number  # its state's player level: whose state a session shows
        self.cluster = cluster
        self.figures = figures
        self.others: list[Player] = []
        self.connects = 0

    def snapshot(self) -> dict[str, object]:
        return {"ic": GAME_STATE["ic"], "fs": {**GAME_STATE["fs"], "player_level": self.marker}}

    def _check_state(self, where: str, session_id: str, version: int, level: int) -> None:
        if session_id != self.session or (version > 0 and level != self.marker):
            self.figures.cross_reads.append(f"{self.session} {where}: {session_id} level {level}")

    async def connect(self, deadline: float) -> CoachClient | None:
        """A connection through HAProxy, retried until one opens; every refusal noted with its reason."""
        while time.monotonic() < deadline:
            self.connects += 1
            self.figures.connects += 1
            if self.connects % 4 == 0:
                await self.try_another_session()
            try:
                client = await CoachClient.connect(
                    self.cluster.url, token=self.token, session=self.session, timeout_s=5.0
                )
            except CoachClosed as refused:
                self.figures.refusals.append((refused.close_code, refused.reason))
            except websockets.InvalidStatus as refused:  # HAProxy: no worker can take it now
                body = refused.response.body.decode(errors="replace") if refused.response.body else ""
                self.figures.refusals.append((refused.response.status_code, body.strip()))
            except (OSError, TimeoutError, websockets.InvalidHandshake, websockets.ConnectionClosed):
                self.figures.connect_errors += 1  # no answer at all (a stopped worker): not a refusal
            else:
                assert client.session is not None
                self.figures.clients.append(client)
                s = client.session
                self._check_state("session event", s.session_id, s.state.version, s.state.fs.player_level)
                return client
            await asyncio.sleep(0.3)
        return None

    async def try_another_session(self) -> None:
        """Another player's session id with one's own token: it must not open."""
        victim = self.others[self.connects % len(self.others)]
        try:
            stolen = await CoachClient.connect(
                self.cluster.url, token=self.token, session=victim.session, timeout_s=5.0
            )
        except CoachClosed as refused:
            self.figures.refusals.append((refused.close_code, refused.reason))
        except (OSError, TimeoutError, websockets.InvalidHandshake, websockets.ConnectionClosed):
            pass
        else:
            self.figures.cross_reads.append(f"{self.session} opened {victim.session}")
            await stolen.close()

    async def run(self, until: asyncio.Event, deadline: float) -> None:
        while not until.is_set() and time.monotonic() < deadline:
            client = await self.connect(deadline)
            if client is None:
                return
            gave_up = False
            try:
                await self.push(client)
                while not until.is_set():
                    if not await self.turn(client):
                        gave_up = True
                        break
            except (CoachError, TimeoutError):
                gave_up = True
            if not gave_up:  # the run is over
                await client.close()
                return
            self.figures.reconnects += 1
            # A socket that went silent (its worker stopped) is left open, as a second tab would be:
            # its worker must close it once it runs again and finds the session owned elsewhere.
            if client.closed is None:
                self.figures.stale_sockets.append(client)  # as a second tab: left open
            else:
                await client.close()
            self.check_close(client)

    def check_close(self, client: CoachClient) -> None:
        closed = client.closed
        # 1006: the worker died (no close frame); 1000 with our own close. Any other close is the
        # server's, and must say why.
        if closed is not None and closed.close_code not in (None, 1000, 1006) and not closed.reason:
            self.figures.refusals.append((closed.close_code, ""))

    async def push(self, client: CoachClient) -> None:
        for _ in range(20):  # the store may be restarting: store-unavailable, retried
            try:
                state = await client.push_state(snapshot=self.snapshot())
                self._check_state("state", self.session, state.version, state.fs.player_level)
                return
            except CoachError as err:
                if isinstance(err, CoachClosed) or err.code != "store-unavailable":
                    raise
                await asyncio.sleep(0.3)
        raise TimeoutError("the store did not come back")

    async def turn(self, client: CoachClient) -> bool:
        """One question, and whether it was heard; False: the connection is given up on."""
        n = len(client.messages)
        if self.voice:
            await client.stream_wav(SPOKEN, realtime=True, tail_silence_s=0.5)
        else:
            await client.ask(QUESTION)
        try:
            timeout = VOICE_TIMEOUT_S if self.voice else TURN_TIMEOUT_S
            done = await client.wait_event("turn-completed", timeout=timeout, after=n)
        except (TimeoutError, CoachClosed):
            return False
        assert isinstance(done, protocol.TurnCompletedEvent)
        self.figures.completed_seen[(self.session, done.turn_index)] += 1

        def latest() -> protocol.TurnCompletedEvent:
            """The last turn completed since the question: a spoken question cut at a pause is two
            turns (the first cut once the rest is heard, `continues`), and the reply played is the
            second's; the first's turn-failed may come late (its record waits for the store)."""
            events = [m.event for m in client.messages[n:]]
            return [e for e in events if isinstance(e, protocol.TurnCompletedEvent)][-1]

        # Heard: its reply's last words were played (RTVI bot-output, spoken), then its audio ended
        # (bot-stopped-speaking after them, nothing since for 0.3 s), and no turn-failed for it.
        def played() -> bool:
            done = latest()
            last_word = done.reply.rstrip(" .!?").split()[-1] if done.reply.strip() else ""
            spoken = [
                i
                for i, m in enumerate(client.messages[n:], n)
                if m.rtvi.type == "bot-output"
                and (m.rtvi.data or {}).get("spoken")
                and last_word in str((m.rtvi.data or {}).get("text", ""))
            ]
            if not spoken:
                return False
            speaking = [m for m in client.messages[spoken[0] :] if m.rtvi.type.startswith("bot-st")]
            last = speaking[-1] if speaking else None
            return (
                last is not None
                and last.rtvi.type == "bot-stopped-speaking"
                and time.monotonic() - last.received > 0.3
            )

        # A worker that goes silent mid-reply (stopped) is given up on as one that never answers.
        while not played():
            last_heard = max(client.messages[-1].received, client.audio[-1].received if client.audio else 0.0)
            if client.closed is not None or time.monotonic() - last_heard > TURN_TIMEOUT_S:
                return False
            await asyncio.sleep(0.1)
        if (last := latest()).turn_index != done.turn_index:
            done = last
            self.figures.completed_seen[(self.session, done.turn_index)] += 1
        failed = [
            m.event
            for m in client.messages[n:]
            if isinstance(m.event, protocol.TurnFailedEvent) and m.event.turn_index == done.turn_index
        ]
        if not failed:
            fence = client.session.fence if client.session is not None else None
            self.figures.heard.append(Heard(self.session, done.turn_index, done.utterance, done.reply, fence))
            self.figures.by_mode["voice" if self.voice else "text"] += 1
        return True


# --- the faults -------------------------------------------------------------------------------


async def faults(cluster: Cluster, figures: Figures, until: asyncio.Event) -> None:
    """SIGSTOP/SIGCONT and kill -9 (and restart) of the busier worker, kill -9 and restart of Redis."""

    async def stop_worker() -> None:
        name = await asyncio.to_thread(cluster.busiest)
        cluster.signal(name, signal.SIGSTOP)
        await asyncio.sleep(STOP_S)
        cluster.signal(name, signal.SIGCONT)
        figures.faults.append(f"SIGSTOP {name} {STOP_S:g} s")

    async def kill_worker() -> None:
        name = await asyncio.to_thread(cluster.busiest)
        cluster.signal(name, signal.SIGKILL)
        figures.faults.append(f"kill -9 {name}")
        cluster.start_worker(name)
        await asyncio.to_thread(cluster.wait_healthy, name)

    async def restart_redis() -> None:
        cluster.redis.kill()
        figures.faults.append("kill -9 redis")
        await asyncio.sleep(0.5)
        await asyncio.to_thread(cluster.redis.start)

    # A killed worker takes ~10 s to load its models again (on cores the players' turns need), so
    # two kills; a Redis restart costs the players about a second.
    schedule = [stop_worker, restart_redis, kill_worker, restart_redis, stop_worker, restart_redis]
    await asyncio.sleep(4.0)  # the players' first turns, undisturbed
    for fault in itertools.cycle(schedule):
        if until.is_set() or len(figures.faults) >= 2 * len(schedule):
            return
        figures.fault_times.append(time.monotonic())
        await fault()
        await asyncio.sleep(1.5)


# --- the checker ------------------------------------------------------------------------------


def check(figures: Figures, stored: dict[str, list[TurnRecord]]) -> dict[str, int]:
    by_index = {(s, t.turn_index): t for s, turns in stored.items() for t in turns}
    told_cut = {
        (c.session.session_id, e.turn_index)
        for c in figures.clients
        if c.session is not None
        for e in c.events()
        if isinstance(e, protocol.TurnFailedEvent) and e.reason == ORPHANED
    }
    told = [
        h
        for h in figures.heard
        if (h.session, h.index) in told_cut
        and (t := by_index.get((h.session, h.index))) is not None
        and (t.completed, t.failure) == (False, ORPHANED)
    ]
    lost = [
        h
        for h in figures.heard
        if h not in told
        and (
            (t := by_index.get((h.session, h.index))) is None
            or not t.completed
            or (t.utterance, t.reply) != (h.utterance, h.reply)
        )
    ]
    fenced = [
        f"FENCE {h.session} #{h.index}: heard under {h.fence}, stored under {t.fence}"
        for h in figures.heard
        if (t := by_index.get((h.session, h.index))) is not None and t.fence != h.fence
    ]
    for session, turns in stored.items():
        fenced += [
            f"FENCE {session} #{b.turn_index}: stored under {b.fence} after #{a.turn_index} under {a.fence}"
            for a, b in itertools.pairwise(turns)
            if (b.fence or 0) < (a.fence or 0)
        ]
    fence_violations = len(fenced)
    figures.why += fenced
    for h in lost:
        t = by_index.get((h.session, h.index))
        since = [round(h.at - f, 1) for f in figures.fault_times if f < h.at][-1:]
        what = (
            (t.completed, t.failure, t.heard, t.fence, t.created_at, t.utterance) if t is not None else None
        )
        figures.why.append(
            f"LOST {h.session} #{h.index} {h.utterance!r} fence {h.fence} {since} s after a fault: "
            f"stored {what}"
        )
    duplicated = [key for key, seen in figures.completed_seen.items() if seen > 1]
    for key in duplicated:
        figures.why.append(f"DUPLICATED {key}: {[h for h in figures.heard if (h.session, h.index) == key]}")
    for line in figures.why:
        print(f"  {line}")
    cut = sum(1 for turns in stored.values() for t in turns if not t.completed)
    return {
        "turns heard": len(figures.heard),
        "heard by text": figures.by_mode["text"],
        "heard by voice": figures.by_mode["voice"],
        "turns stored": len(by_index),
        "stored as cut": cut,
        "heard, then told cut": len(told),
        "faults": len(figures.faults),
        "connections": figures.connects,
        "reconnects": figures.reconnects,
        "refusals": len(figures.refusals),
        "stale sockets closed 4409": 0,  # filled in by the test
        "lost": len(lost),
        "duplicated": len(duplicated),
        "fence violations": fence_violations,
        "cross-session reads": len(figures.cross_reads),
        "refusals without a reason": sum(1 for _, reason in figures.refusals if not reason),
    }


async def test_chaos_loses_nothing_and_no_two_workers_write_one_session(cluster: Cluster) -> None:
    figures = Figures()
    players = [Player(i, i >= TEXT_PLAYERS, cluster, figures) for i in range(TEXT_PLAYERS + VOICE_PLAYERS)]
    for p in players:
        p.others = [o for o in players if o is not p]
    until = asyncio.Event()
    started = time.monotonic()
    deadline = started + DEADLINE_S

    async def enough() -> None:
        while time.monotonic() < deadline:
            if len(figures.heard) >= MIN_TURNS + 10 and len(figures.faults) >= 12:
                break
            await asyncio.sleep(0.5)
        until.set()

    await asyncio.gather(
        enough(), faults(cluster, figures, until), *(p.run(until, deadline) for p in players)
    )
    chaos_s = time.monotonic() - started

    # Stale sockets (left open as a second tab would): each was closed by its worker once it ran
    # again and found the session taken over, with the reason, unless that worker was killed.
    await asyncio.sleep(3.0)
    stale = Counter[str]()
    for client in figures.stale_sockets:
        closed = client.closed
        if closed is None:
            stale["still open"] += 1
        elif closed.close_code == protocol.CloseCode.TAKEN_OVER and "taken over" in closed.reason:
            stale["closed 4409"] += 1
            stale["lost lease" if closed.reason == LOST_REASON else "taken over in-process"] += 1
        elif closed.close_code in (1006, protocol.CloseCode.GOING_AWAY):
            stale["worker gone"] += 1
        else:
            stale[f"closed {closed.close_code} {closed.reason}"] += 1
        await client.close()

    store = RedisSessionStore(cluster.redis.url)
    stored = {p.session: await asyncio.to_thread(store.load_turns, p.session) for p in players}
    store.close()
    result = check(figures, stored)
    result["stale sockets closed 4409"] = stale["closed 4409"]
    print(f"\nchaos: {chaos_s:.0f} s, faults: {', '.join(figures.faults)}")
    for name, value in result.items():
        print(f"  {name}: {value}")
    print(f"  stale sockets: {dict(stale)}")
    print(f"  refusals: {Counter(f'{code} {reason[:60]}' for code, reason in figures.refusals)}")
    if figures.cross_reads:
        print("  cross reads:", figures.cross_reads[:5])
    assert set(stale) <= {"closed 4409", "lost lease", "taken over in-process", "worker gone"}, stale
    assert stale["lost lease"] > 0, stale  # the SIGSTOP case happened and was caught
    # CI shows only the failing line: the counts that matter first, then each turn's story.
    failing = {k: result[k] for k in ("lost", "duplicated", "fence violations", "cross-session reads")}
    assert not any(failing.values()), f"{failing} {figures.why} {figures.cross_reads[:3]}"

    assert result["refusals without a reason"] == 0, figures.refusals
    assert result["turns heard"] >= MIN_TURNS and result["faults"] >= MIN_FAULTS, result
    assert result["heard by voice"] > 0 and result["refusals"] > 0, (
        result
    )  # voices were heard, thieves refused
