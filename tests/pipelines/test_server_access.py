"""Issue 29 on one server: per-session tokens, the protocol boundary, a store that goes down.

The real server app (uvicorn, FastAPI, real speech engines) against the scripted LLM server; the
store is real (a private redis-server the test kills and restarts).
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import websockets

from tests.live_server import GAME_STATE, TOKEN, LiveServer
from tests.pipelines.test_server import closed_with, still_serves
from tests.redis_server import RedisServer
from voicecoach.app.client import CoachClient, CoachClosed, CoachError
from voicecoach.coach import protocol
from voicecoach.coach.store import RedisSessionStore
from voicecoach.coach.tokens import mint
from voicecoach.pipelines.server import ServerConfig, SessionLimits, overlay_url

KEY = "signing-key-for-tests-0123456789abcdef"


async def test_a_signed_token_opens_its_own_session_and_no_other() -> None:
    async with LiveServer(server={"signing_key": KEY, "token": None}) as live:
        alice_token = mint(KEY, "alice", ttl_s=600)
        alice = await live.connect("alice", token=alice_token)
        assert alice.session is not None and alice.session.session_id == "alice"
        pushed = await alice.push_state(snapshot=GAME_STATE)

        # Alice's session id without her token: the static token is off, Bob's token is Bob's,
        # an expired one of hers has expired, and no token is none.
        refused = [
            (TOKEN, "unauthorized: invalid token"),
            (mint(KEY, "bob", ttl_s=600), "unauthorized: the token is for another session"),
            (mint(KEY, "alice", ttl_s=60, now=time.time() - 3600), "unauthorized: the token has expired"),
        ]
        for token, reason in refused:
            with pytest.raises(CoachClosed) as closed:
                await live.connect("alice", token=token)
            assert closed.value.close_code == protocol.CloseCode.UNAUTHORIZED
            assert closed.value.reason == reason
        code, reason = await closed_with(f"{live.url}?session=alice")
        assert code == protocol.CloseCode.UNAUTHORIZED and "token is required" in reason
        assert alice.closed is None  # never taken over
        await still_serves(alice)

        # The token alone names the session, presented as a subprotocol (no query, no header): it
        # takes Alice's session over, as her own reconnect does.
        again = await CoachClient.connect(live.url, token=alice_token, token_in_subprotocol=True)
        live.clients.append(again)
        assert again.session is not None and again.session.session_id == "alice"
        assert again.session.took_over and again.session.state.version == pushed.version
        assert again._ws.subprotocol == "voicecoach"  # ours echoed back, never the token


def test_a_configured_token_is_not_in_the_printed_overlay_url() -> None:
    configured = ServerConfig(token="my-fixed-token-123")
    assert "my-fixed-token-123" not in overlay_url(configured, with_token=False)
    assert overlay_url(ServerConfig(token="gen-abc")).endswith("#session=player&token=gen-abc")


async def test_the_protocol_boundary_refuses_bad_strings_and_answers_every_request_id() -> None:
    async with LiveServer(max_message_bytes=16 * 1024) as live:
        client = await live.connect("edge")
        before = await client.push_state(snapshot=GAME_STATE)

        with pytest.raises(CoachError) as err:  # a lone surrogate in a patch
            await client.push_state(patch={"ic": {"match": {"mode": "\ud800"}}})
        assert err.value.code == "bad-state" and "ic.match.mode: not valid UTF-8" in err.value.text
        with pytest.raises(CoachError) as err:  # a boolean is no level
            await client.push_state(patch={"fs": {"player_level": True}})
        assert err.value.code == "bad-state" and "fs.player_level" in err.value.text
        with pytest.raises(CoachError) as err:  # nor is a 400-digit round a round
            await client.push_state(patch={"ic": {"match": {"round": 10**400}}})
        assert err.value.code == "bad-state" and "ic.match.round" in err.value.text
        assert await client.get_state() == before  # nothing of them got in, and reads still work

        # A typed question with a lone surrogate: refused by name, answered to its id, no turn.
        n = len(client.messages)
        await client.send_json(protocol.send_text("typed-1", "what beats \udc00 water?"))
        response = await client.wait_message("error-response", after=n)
        assert response.id == "typed-1"
        assert response.data["error"].startswith("bad-frame: data.content: not valid UTF-8")
        await asyncio.sleep(0.5)
        assert not [e for e in client.events() if e.type in ("intent", "turn-completed")]
        assert live.server is not None
        session = live.server.connections["edge"].session
        assert session is not None and session.next_turn == 0  # no turn index taken

        # JSON cut short: answered to the id its envelope shows.
        n = len(client.messages)
        await client.send_raw('{"label": "rtvi-ai", "type": "client-message", "id": "cut-1", "data": {"t": ')
        response = await client.wait_message("error-response", after=n)
        assert response.id == "cut-1" and response.data["error"].startswith("bad-json: ")

        # A message over the size limit is dropped, and the request waiting on it answered at once.
        started = time.monotonic()
        with pytest.raises(CoachError) as err:
            await client.request("state-update", {"snapshot": {**GAME_STATE, "pad": "x" * 20000}})
        assert err.value.code == "too-large" and time.monotonic() - started < 5
        await still_serves(client)


def _health(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, dict(json.loads(response.read()))
    except urllib.error.HTTPError as err:
        return err.code, dict(json.loads(err.read()))


async def test_with_the_store_down_health_is_503_updates_are_refused_and_the_old_state_serves(
    tmp_path: Path,
) -> None:
    redis = RedisServer(tmp_path, None, "--save", "", "--appendonly", "no").start()
    store = RedisSessionStore(redis.url, timeout_s=0.5)
    try:
        async with LiveServer(store=store) as live:
            health = f"{live.http}/api/health"
            assert (await asyncio.to_thread(_health, health))[0] == 200
            client = await live.connect("steady")
            before = await client.push_state(snapshot=GAME_STATE)

            redis.kill()
            status, body = await asyncio.to_thread(_health, health)
            assert status == 503 and body["ready"] is True and body["store"].startswith("unavailable")
            with pytest.raises(CoachError) as err:
                await client.push_state(patch={"fs": {"player_level": 30}})
            assert err.value.code == "store-unavailable" and "previous state is kept" in err.value.text
            assert await client.get_state() == before  # memory kept the stored state
            with pytest.raises(CoachClosed) as closed:
                await live.connect("newcomer")
            assert closed.value.close_code == protocol.CloseCode.TRY_AGAIN_LATER
            assert closed.value.reason == "the session store is unreachable; retry in a few seconds"

            redis.start()
            async with asyncio.timeout(10):
                while (await asyncio.to_thread(_health, health))[0] != 200:
                    await asyncio.sleep(0.2)
            after = await client.push_state(patch={"fs": {"player_level": 30}})
            assert after.version == before.version + 1 and after.fs.player_level == 30
    finally:
        store.close()
        redis.stop()


async def test_a_browser_offering_the_token_subprotocol_gets_ours_back() -> None:
    async with LiveServer() as live:
        protocols = [
            websockets.Subprotocol("voicecoach"),
            websockets.Subprotocol(f"voicecoach.token.{TOKEN}"),
        ]
        async with websockets.connect(f"{live.url}?session=tab", subprotocols=protocols) as ws:
            assert ws.subprotocol == "voicecoach"
            await ws.send(json.dumps(protocol.client_ready()))
            assert await asyncio.wait_for(ws.recv(), timeout=10)  # bot-ready: the token let it in


async def test_silent_sockets_free_the_cap_after_the_grace_and_half_sent_headers_are_dropped() -> None:
    limits = SessionLimits(
        max_sessions=2, handshake_timeout_s=5.0, handshake_grace_s=0.5, header_timeout_s=0.5
    )
    async with LiveServer(limits=limits) as live:
        # Two sockets with the token that never say client-ready: within the grace they count.
        silent = [await websockets.connect(f"{live.url}?session=mute{i}&token={TOKEN}") for i in range(2)]
        with pytest.raises(CoachClosed) as closed:
            await live.connect("player")
        assert closed.value.close_code == protocol.CloseCode.TRY_AGAIN_LATER and "full" in closed.value.reason
        await asyncio.sleep(0.7)  # past the grace: they no longer count
        player = await live.connect("player")
        await still_serves(player)
        for ws in silent:  # and they are still closed at the handshake timeout
            code, _ = await asyncio.wait_for(_close_of(ws), timeout=10)
            assert code == protocol.CloseCode.HANDSHAKE_TIMEOUT

        # A slowloris: connected, part of a request's headers, then nothing.
        reader, writer = await asyncio.open_connection("127.0.0.1", live.port)
        writer.write(b"GET /ws?session=slow HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        await writer.drain()
        started = time.monotonic()
        assert await asyncio.wait_for(reader.read(), timeout=5) == b""  # the server hung up
        assert time.monotonic() - started < 3
        writer.close()
        await still_serves(player)


async def _close_of(ws: websockets.ClientConnection) -> tuple[int | None, str]:
    with pytest.raises(websockets.ConnectionClosed):
        while True:
            await ws.recv()
    return ws.close_code, ws.close_reason or ""
