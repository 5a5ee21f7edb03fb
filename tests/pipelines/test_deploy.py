"""Scale-out: two `voicecoach serve` workers behind HAProxy (deploy/haproxy.cfg), sharing Redis.

Everything is the real thing but the LLM: the CLI's workers (real Whisper / piper per session),
Debian's HAProxy with the committed config, Debian's redis-server; the scripted LLM server runs
in the test, routed by system prompt as in tests/pipelines/test_turn.py. A player's session is killed
with its worker (SIGKILL, mid-session), the client reconnects through the load balancer and
lands on the other worker, which resumes the session from Redis: the next turn goes on from
the right index, and no turn is lost or duplicated. Players hold tokens minted per session
(VOICECOACH_SIGNING_KEY, as docs/DEPLOY.md); none of them, nor the workers' static token, is in a log.

A second case takes the store away (a private redis-server with deploy/redis.conf, killed -9):
every worker's /api/health says 503, HAProxy marks them all down and answers a new connection
itself with its 503 (deploy/haproxy.cfg's `http-error`), at once; once Redis is back the workers
are healthy again, a new player gets a session and the old one resumes with every turn.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
import websockets

from tests.live_server import GAME_STATE, TOKEN, free_port
from tests.pipelines.test_turn import Router
from tests.processes import stop_all
from tests.redis_server import RedisServer
from voicecoach.app.client import CoachClient, CoachClosed
from voicecoach.coach import protocol
from voicecoach.coach.store import RedisSessionStore
from voicecoach.coach.tokens import mint
from voicecoach.domain.pack import load_pack
from voicecoach.testing.scripted_llm import Script, ScriptedLLMServer

ROOT = Path(__file__).resolve().parents[2]
HAPROXY_CFG = ROOT / "deploy" / "haproxy.cfg"
REDIS_CONF = ROOT / "deploy" / "redis.conf"
REPLY = Script("Keep Sparkwing in and lead with Emberfox.", inter_token_s=0.01)
SIGNING_KEY = "deploy-test-signing-key-0123456789abcdef"


def health(port: int) -> dict[str, object] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=1) as response:
            return dict(json.loads(response.read()))
    except OSError:
        return None


def wait_port(check: object, what: str, proc: subprocess.Popen[bytes], timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():  # type: ignore[operator]
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not come up in {timeout_s:.0f} s")
        time.sleep(0.1)


class Deployment:
    """Two workers, HAProxy in front, Redis behind; the processes are this test's to stop."""

    def __init__(self, redis_url: str, llm_url: str, log_dir: Path) -> None:
        self.redis_url = redis_url
        self.workers = {name: free_port() for name in ("worker1", "worker2")}
        self.lb = free_port()
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.log_dir = log_dir
        # A static token configured too (an operator's tool may use one): no worker may print it.
        env = {**os.environ, "PYTHONPATH": str(ROOT), "VOICECOACH_TOKEN": TOKEN}
        env["VOICECOACH_SIGNING_KEY"] = SIGNING_KEY
        for name, port in self.workers.items():
            command = [
                sys.executable, "-m", "voicecoach.app.cli", "serve", "--port", str(port),
                "--llm-url", llm_url,
                "--store", redis_url, "--no-warm", "--log-level", "WARNING",
            ]  # fmt: skip
            log = (log_dir / f"{name}.log").open("wb")
            self.procs[name] = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
        haproxy = shutil.which("haproxy")
        assert haproxy is not None
        lb_env = {
            **os.environ,
            "VOICECOACH_LB_BIND": f"127.0.0.1:{self.lb}",
            "VOICECOACH_WORKER_1": f"127.0.0.1:{self.workers['worker1']}",
            "VOICECOACH_WORKER_2": f"127.0.0.1:{self.workers['worker2']}",
            "VOICECOACH_LB_STATS": f"127.0.0.1:{free_port()}",
        }
        log = (log_dir / "haproxy.log").open("wb")
        self.procs["haproxy"] = subprocess.Popen(
            [haproxy, "-db", "-f", str(HAPROXY_CFG)], env=lb_env, stdout=log, stderr=subprocess.STDOUT
        )
        for name, port in self.workers.items():
            wait_port(lambda port=port: health(port) is not None, name, self.procs[name])
        wait_port(lambda: health(self.lb) is not None, "haproxy", self.procs["haproxy"])

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.lb}/ws"

    def serving(self, session_count: int = 1) -> str:
        """The worker that holds the (only) open session."""
        live = [n for n, p in self.workers.items() if (h := health(p)) and h.get("sessions") == session_count]
        assert len(live) == 1, {n: health(p) for n, p in self.workers.items()}
        return live[0]

    def kill(self, name: str) -> None:
        self.procs[name].send_signal(signal.SIGKILL)
        self.procs[name].wait(timeout=10)

    def stop(self) -> None:
        stop_all(self.procs.values())


@pytest_asyncio.fixture
async def llm() -> AsyncIterator[tuple[ScriptedLLMServer, Router]]:
    router = Router(load_pack())
    router.set("talker", REPLY)
    async with ScriptedLLMServer(router=router) as server:
        yield server, router


@pytest_asyncio.fixture
async def deployment(
    haproxy: str, redis_url: str, llm: tuple[ScriptedLLMServer, Router], tmp_path: Path
) -> AsyncIterator[Deployment]:
    # Started off the loop: the scripted LLM runs on it and must answer while the workers start.
    deployed = await asyncio.to_thread(Deployment, redis_url, llm[0].base_url, tmp_path)
    try:
        yield deployed
    finally:
        await asyncio.to_thread(deployed.stop)


@pytest_asyncio.fixture
async def outage(
    haproxy: str, llm: tuple[ScriptedLLMServer, Router], tmp_path: Path
) -> AsyncIterator[tuple[Deployment, RedisServer]]:
    """A deployment on a private Redis (deploy/redis.conf, AOF) that the test may kill and restart."""
    (tmp_path / "redis").mkdir()
    redis = await asyncio.to_thread(RedisServer(tmp_path / "redis", REDIS_CONF).start)
    try:
        deployed = await asyncio.to_thread(Deployment, redis.url, llm[0].base_url, tmp_path)
        try:
            yield deployed, redis
        finally:
            await asyncio.to_thread(deployed.stop)
    finally:
        await asyncio.to_thread(redis.stop)


async def ask(
    client: CoachClient, store: RedisSessionStore, session: str, turns: int
) -> protocol.TurnCompletedEvent:
    """One typed turn, answered and stored (a turn is stored once its reply was played)."""
    n = len(client.messages)
    await client.ask("how do I beat their team?")
    done = await client.wait_event("turn-completed", timeout=60, after=n)
    assert isinstance(done, protocol.TurnCompletedEvent)
    async with asyncio.timeout(60):
        while len(await asyncio.to_thread(store.load_turns, session)) < turns:
            await asyncio.sleep(0.1)
    return done


async def test_killed_worker_session_resumes_on_the_other_with_nothing_lost(deployment: Deployment) -> None:
    store = RedisSessionStore(deployment.redis_url)
    session = "failover-player"
    token = mint(SIGNING_KEY, session, ttl_s=600)
    # As a browser can: the token as a subprotocol, which no proxy logs.
    client = await CoachClient.connect(
        deployment.url, token=token, session=session, token_in_subprotocol=True
    )
    try:
        assert client.session is not None and not client.session.resumed
        pushed = await client.push_state(snapshot=GAME_STATE)
        for index in range(2):
            done = await ask(client, store, session, turns=index + 1)
            assert done.turn_index == index
        first = await asyncio.to_thread(deployment.serving)

        deployment.kill(first)  # mid-session: the socket is open, the player about to ask again
        killed = time.monotonic()
        await client.wait_for(lambda: client.closed, timeout=10)
    finally:
        await client.close()

    # Another player's token does not open this session on the worker that now serves it.
    with pytest.raises(CoachClosed) as refused:
        await CoachClient.connect(deployment.url, token=mint(SIGNING_KEY, "intruder", 600), session=session)
    assert refused.value.close_code == protocol.CloseCode.UNAUTHORIZED
    assert refused.value.reason == "unauthorized: the token is for another session"

    # The game reconnects through the load balancer, with the same session id (the token in the
    # query this time, as Pipecat's JS transport sends it: HAProxy's log must not keep it).
    again = await CoachClient.connect(
        deployment.url, token=token, session=session, timeout_s=60, token_in_query=True
    )
    failover_ms = (time.monotonic() - killed) * 1000.0
    print(f"\nfailover: kill -9 -> session event on the other worker: {failover_ms:.0f} ms")
    try:
        assert again.session is not None and again.session.resumed and again.session.turns == 2
        assert again.session.state.version == pushed.version
        second = await asyncio.to_thread(deployment.serving)
        assert second != first
        done = await ask(again, store, session, turns=3)
        assert done.turn_index == 2
    finally:
        await again.close()

    turns = await asyncio.to_thread(store.load_turns, session)
    assert [t.turn_index for t in turns] == [0, 1, 2]  # contiguous: none lost, none twice
    assert all(t.completed for t in turns)
    history = await asyncio.to_thread(store.load_history, session)
    assert [m.turn_index for m in history] == [0, 1, 2]  # s_sh intact across the failover
    saved = await asyncio.to_thread(store.load_state, session)
    assert saved is not None and saved.version == pushed.version
    store.close()

    # Nothing secret in any log: HAProxy logs the request without its query, the workers print no
    # configured token.
    logs = {p.name: p.read_text(errors="replace") for p in deployment.log_dir.glob("*.log")}
    assert "GET /ws" in logs["haproxy.log"], logs["haproxy.log"][-2000:]
    for name, text in logs.items():
        assert token not in text and TOKEN not in text, name


def store_status(port: int) -> str | None:
    """A worker's /api/health `store` (its body comes with a 503 too); None if it does not answer."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=1) as response:
            return str(json.loads(response.read())["store"])
    except urllib.error.HTTPError as err:
        assert err.code == 503
        return str(json.loads(err.read())["store"])
    except OSError:
        return None


def lb_health(deployment: Deployment) -> int:
    """The status HAProxy answers /api/health with (a worker's, or its own 503 when none is up)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{deployment.lb}/api/health", timeout=2) as response:
            return int(response.status)
    except urllib.error.HTTPError as err:
        return err.code


async def test_store_down_haproxy_refuses_at_once_and_all_comes_back(
    outage: tuple[Deployment, RedisServer],
) -> None:
    deployment, redis = outage
    store = RedisSessionStore(redis.url)
    session = "outage-player"
    token = mint(SIGNING_KEY, session, ttl_s=600)
    client = await CoachClient.connect(
        deployment.url, token=token, session=session, token_in_subprotocol=True
    )
    try:
        pushed = await client.push_state(snapshot=GAME_STATE)
        assert (await ask(client, store, session, turns=1)).turn_index == 0
    finally:
        await client.close()
    store.close()

    redis.kill()  # kill -9: no shutdown save; the AOF (appendfsync always) has every acknowledged write
    down = time.monotonic()
    workers = list(deployment.workers.values())
    async with asyncio.timeout(15):
        while not all("unavailable" in (store_status(port) or "") for port in workers):
            await asyncio.sleep(0.1)
    workers_503_ms = (time.monotonic() - down) * 1000.0

    # Until HAProxy has marked both down (fall 2, inter 500ms) a worker refuses with a reason
    # (1013); after that HAProxy answers the upgrade itself. Either way a refusal, never a hang.
    before_lb: list[tuple[int | None, str]] = []
    refused: websockets.InvalidStatus | None = None
    async with asyncio.timeout(15):
        while refused is None:
            asked = time.monotonic()
            try:
                opened = await CoachClient.connect(deployment.url, token=token, session=session, timeout_s=5)
            except CoachClosed as closed:
                before_lb.append((closed.close_code, closed.reason))
            except websockets.InvalidStatus as status:
                refused = status
            else:
                await opened.close()
                raise AssertionError("a session opened while its store was down")
            answered_ms = (time.monotonic() - asked) * 1000.0
            assert answered_ms < 2000, f"a refusal took {answered_ms:.0f} ms"
            await asyncio.sleep(0.1)
    lb_503_ms = (time.monotonic() - down) * 1000.0
    assert all(
        r == (protocol.CloseCode.TRY_AGAIN_LATER, "the session store is unreachable; retry in a few seconds")
        for r in before_lb
    ), before_lb
    response = refused.response
    body = response.body.decode() if response.body else ""
    assert response.status_code == 503
    assert response.headers.get("Retry-After") == "5"
    assert body.startswith("no-worker: ") and "retry in a few seconds" in body, body
    assert lb_health(deployment) == 503

    await asyncio.to_thread(redis.start)  # the same port and data directory: its AOF is replayed
    back = time.monotonic()
    async with asyncio.timeout(15):
        while not all(store_status(port) == "ok" for port in workers):
            await asyncio.sleep(0.1)
        workers_ok_ms = (time.monotonic() - back) * 1000.0
        while lb_health(deployment) != 200:
            await asyncio.sleep(0.1)
    lb_ok_ms = (time.monotonic() - back) * 1000.0
    # HAProxy marks a worker up after two passing checks (rise 2): a connection may still get its
    # 503 for a moment, which the game retries as told.
    async with asyncio.timeout(15):
        while True:
            try:
                newcomer = await CoachClient.connect(
                    deployment.url, token=mint(SIGNING_KEY, "newcomer", 600), session="newcomer", timeout_s=10
                )
                break
            except websockets.InvalidStatus as status:
                assert status.response.status_code == 503
                await asyncio.sleep(0.2)
    new_ms = (time.monotonic() - back) * 1000.0
    print(
        f"\nstore down: workers 503 after {workers_503_ms:.0f} ms, HAProxy 503 after {lb_503_ms:.0f} ms "
        f"({len(before_lb)} worker refusals 1013 before it); store back: workers 200 after "
        f"{workers_ok_ms:.0f} ms, HAProxy 200 after {lb_ok_ms:.0f} ms, a new session after {new_ms:.0f} ms"
    )
    try:
        assert newcomer.session is not None and not newcomer.session.resumed
    finally:
        await newcomer.close()

    store = RedisSessionStore(redis.url)
    again = await CoachClient.connect(deployment.url, token=token, session=session, token_in_subprotocol=True)
    try:
        assert again.session is not None and again.session.resumed and again.session.turns == 1
        assert again.session.state.version == pushed.version
        assert (await ask(again, store, session, turns=2)).turn_index == 1
    finally:
        await again.close()
    turns = await asyncio.to_thread(store.load_turns, session)
    assert [t.turn_index for t in turns] == [0, 1] and all(t.completed for t in turns)
    store.close()
