"""Bounded sessions: the cap, the handshake and idle timeouts, the takeover wait, access details.

The real server app (uvicorn, FastAPI, real speech engines) against the scripted LLM server,
with its limits set small so that each one is reached within the test. Every refusal or close
is checked for the close code docs/PROTOCOL.md gives it and a reason a person can read.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import urllib.request
from pathlib import Path

import pytest
import websockets

from tests.live_server import TOKEN, LiveServer, free_port
from tests.pipelines.test_server import closed_with, still_serves, wait_until
from tests.pipelines.test_turn import Router
from voicecoach.app.client import CoachClient, CoachClosed
from voicecoach.coach import protocol
from voicecoach.domain.pack import load_pack
from voicecoach.pipelines.server import SessionLimits
from voicecoach.testing.scripted_llm import ScriptedLLMServer

ROOT = Path(__file__).resolve().parents[2]


async def test_a_full_server_refuses_new_sessions_with_a_reason_but_lets_takeovers_in() -> None:
    async with LiveServer(limits=SessionLimits(max_sessions=2)) as live:
        a = await live.connect("a")
        await live.connect("b")
        with pytest.raises(CoachClosed) as closed:
            await live.connect("c")
        assert closed.value.close_code == protocol.CloseCode.TRY_AGAIN_LATER
        assert "full" in closed.value.reason and "2 sessions" in closed.value.reason

        # A reconnecting game takes its own session over even when the server is full.
        again = await live.connect("a")
        assert again.session is not None and again.session.took_over
        await a.wait_for(lambda: a.closed, timeout=5)

        # Once a session ends, there is room again.
        await again.close()
        assert live.server is not None
        await wait_until(lambda: "a" not in live.server.connections, timeout_s=10)
        c = await live.connect("c")
        await still_serves(c)
        assert live.server._takeovers == {}  # the per-session lock map holds no finished session


async def close_of(ws: websockets.ClientConnection, timeout_s: float = 10.0) -> tuple[int | None, str]:
    """Read whatever the server sends until it closes; its close code and reason."""
    async with asyncio.timeout(timeout_s):
        with pytest.raises(websockets.ConnectionClosed):
            while True:
                await ws.recv()
    return ws.close_code, ws.close_reason or ""


async def test_a_client_that_never_says_client_ready_is_closed_with_the_reason() -> None:
    async with LiveServer(limits=SessionLimits(handshake_timeout_s=0.5)) as live:
        async with websockets.connect(f"{live.url}?session=mute&token={TOKEN}") as ws:
            code, reason = await close_of(ws)
        assert code == protocol.CloseCode.HANDSHAKE_TIMEOUT
        assert "client-ready" in reason and "0.5 s" in reason
        assert live.server is not None
        await wait_until(lambda: not live.server.connections, timeout_s=10)
        # A client that does the handshake is not affected.
        client = await live.connect("talker")
        await asyncio.sleep(0.8)
        await still_serves(client)


async def test_an_idle_client_is_closed_and_a_busy_one_is_not() -> None:
    async with LiveServer(limits=SessionLimits(idle_timeout_s=1.5)) as live:
        busy = await live.connect("busy")
        idle = await live.connect("idle")
        for _ in range(8):  # 2.4 s of a message every 0.3 s
            await busy.get_state()
            await asyncio.sleep(0.3)
        await idle.wait_for(lambda: idle.closed, timeout=5)
        assert idle.closed is not None
        assert idle.closed.close_code == protocol.CloseCode.IDLE
        assert "no message from the client for 1.5 s" in idle.closed.reason
        assert busy.closed is None
        await still_serves(busy)


async def test_a_takeover_that_cannot_get_the_session_gives_up_with_a_reason() -> None:
    async with LiveServer(limits=SessionLimits(takeover_timeout_s=0.5)) as live:
        assert live.server is not None
        # Another takeover of the session holds it (as a stuck older connection would).
        async with live.server._takeover_lock("stuck"):
            code, reason = await closed_with(f"{live.url}?session=stuck&token={TOKEN}")
        assert code == protocol.CloseCode.TRY_AGAIN_LATER and "did not close within 0.5 s" in reason
        assert live.server._takeovers == {}
        client = await live.connect("stuck")  # nothing holds it now
        await still_serves(client)


async def test_an_empty_query_token_does_not_hide_the_authorization_header() -> None:
    async with LiveServer() as live:
        url = f"{live.url}?session=hdr&token="
        async with websockets.connect(url, additional_headers={"Authorization": f"Bearer {TOKEN}"}) as ws:
            await ws.send(_client_ready())
            reply = await asyncio.wait_for(ws.recv(), timeout=10)
            assert reply  # bot-ready: the header's token let it in
        code, reason = await closed_with(url)
        assert code == protocol.CloseCode.UNAUTHORIZED and "token is required" in reason


def _client_ready() -> bytes:
    import pipecat.frames.protobufs.frames_pb2 as frame_protos

    proto = frame_protos.Frame()  # type: ignore[attr-defined]
    proto.message.data = json.dumps(protocol.client_ready())
    return bytes(proto.SerializeToString())


async def test_sigterm_closes_every_session_with_1001_and_a_reason() -> None:
    """`voicecoach serve` as a process (scripted LLM, real speech engines), stopped as an operator does."""
    llm = ScriptedLLMServer(router=Router(load_pack()))
    await llm.start()
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "voicecoach.pipelines.server", "--port", str(port), "--token", TOKEN,
        "--llm-url", llm.base_url, "--store", "memory:", "--no-warm", "--log-level", "WARNING",
        env=env, cwd=ROOT, stdout=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    try:
        await until_ready(f"http://127.0.0.1:{port}/healthz", timeout_s=90)
        client = await CoachClient.connect(f"ws://127.0.0.1:{port}/ws", token=TOKEN, session="bye")
        proc.send_signal(signal.SIGTERM)
        await client.wait_for(lambda: client.closed, timeout=20)
        assert client.closed is not None
        assert client.closed.close_code == protocol.CloseCode.GOING_AWAY
        assert client.closed.reason == "server shutting down"
        assert await asyncio.wait_for(proc.wait(), timeout=30) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        await llm.stop()


async def until_ready(url: str, timeout_s: float) -> None:
    """Poll `/healthz` until it says ready (503 while the engines load; refused before it listens)."""
    async with asyncio.timeout(timeout_s):
        while True:
            try:
                health = await asyncio.to_thread(_get_json, url)
                if health.get("ready"):
                    return
            except OSError:  # not listening yet, or 503
                pass
            await asyncio.sleep(0.2)


def _get_json(url: str) -> dict[str, object]:
    with urllib.request.urlopen(url, timeout=2) as response:
        return dict(json.loads(response.read()))


async def test_disconnect_bot_closes_with_1000_and_a_reason() -> None:
    async with LiveServer() as live:
        client = await live.connect("leaving")
        await client.send_json({"label": "rtvi-ai", "type": "disconnect-bot", "id": "bye"})
        await client.wait_for(lambda: client.closed, timeout=10)
        assert client.closed is not None
        assert client.closed.close_code == protocol.CloseCode.NORMAL
        assert client.closed.reason == "the client ended the session (disconnect-bot)"
