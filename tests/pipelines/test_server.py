"""The live coach server over a real websocket: bad input, lost clients, takeover, access control.

Each test runs the real server app (uvicorn, FastAPI, one Pipecat pipeline per connection,
embedded Silero / Whisper / piper) against the scripted LLM server, and talks to it through
`voicecoach.app.client.CoachClient` or a bare `websockets` connection. What is asserted is what
the protocol promises (docs/PROTOCOL.md): every bad message is answered with its error code
and the session goes on; a bad state update names the field and keeps the previous state; a
client that vanishes mid-turn leaves its state saved and no half turn, and other sessions
do not notice; a second connection takes the session over; refused connections are closed
with a code and a reason.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pipecat.frames.protobufs.frames_pb2 as frame_protos
import pytest
import pytest_asyncio
import websockets
from pipecat.frames.frames import OutputAudioRawFrame
from pipecat.serializers.protobuf import ProtobufFrameSerializer

from tests.live_server import GAME_STATE, TOKEN, LiveServer
from voicecoach.app.client import CoachClient, CoachClosed, CoachError
from voicecoach.bench.fixtures import load_session
from voicecoach.coach import protocol
from voicecoach.coach.store import SQLiteSessionStore
from voicecoach.pipelines.server import CUT_DISCONNECTED
from voicecoach.testing.scripted_llm import Script

ROOT = Path(__file__).resolve().parents[2]
# "How do I beat their water team?", and where its last speech sample is (the fixture says).
_S01 = load_session(ROOT / "audio_fixtures" / "s01.json")
FIXTURE = _S01.audio_path(_S01.turns[0])
FIXTURE_SPEECH_END_S = float(_S01.turns[0].speech_end_s or 0.0)
SLOW_REPLY = Script("Keep Sparkwing in and lead with Emberfox against their water tank.", inter_token_s=0.25)


@pytest_asyncio.fixture
async def live() -> AsyncIterator[LiveServer]:
    async with LiveServer() as server:
        yield server


async def error_after(client: CoachClient, index: int, timeout: float = 5.0) -> str:
    """The text of the first RTVI `error` message at or after message `index`."""
    message = await client.wait_message("error", timeout=timeout, after=index)
    return str(message.data["error"])


async def still_serves(client: CoachClient) -> None:
    """The session answers requests: whatever went before did not break it."""
    state = await client.get_state()
    assert state.version >= 0


def protobuf_message(data: str) -> bytes:
    proto = frame_protos.Frame()  # type: ignore[attr-defined]
    proto.message.data = data
    return proto.SerializeToString()


# --- bad input ---------------------------------------------------------------------------------


async def test_malformed_json_is_answered_and_the_session_goes_on(live: LiveServer) -> None:
    client = await live.connect("json")
    n = len(client.messages)
    await client.send_raw(protobuf_message('{"label": "rtvi-ai", "type": '))  # cut short
    error = await error_after(client, n)
    assert error.startswith("bad-json: "), error

    n = len(client.messages)
    await client.send_raw("{not json at all")  # a text websocket message, taken as RTVI JSON
    error = await error_after(client, n)
    assert error.startswith("bad-json: "), error

    n = len(client.messages)
    await client.send_raw('["an", "array"]')
    assert (await error_after(client, n)).startswith("bad-message: ")
    await still_serves(client)


async def test_unknown_message_types_are_refused_by_name(live: LiveServer) -> None:
    client = await live.connect("unknown")
    with pytest.raises(CoachError) as err:
        await client.request("launch-missiles", {"target": "moon"})
    assert err.value.code == "unknown-type"
    assert "launch-missiles" in err.value.text and "state-update" in err.value.text

    # An RTVI message type nobody handles: Pipecat's RTVI processor answers it.
    n = len(client.messages)
    await client.send_json({"label": "rtvi-ai", "type": "teleport", "id": "t1", "data": {}})
    response = await client.wait_message("error-response", after=n)
    assert response.id == "t1" and "teleport" in response.data["error"]

    # A known request with a payload of the wrong shape.
    with pytest.raises(CoachError) as err:
        await client.request("state-update", {"snapshot": {}, "patch": {}})
    assert err.value.code == "bad-message" and "exactly one" in err.value.text
    await still_serves(client)


async def test_state_patch_with_wrong_types_names_the_field_and_keeps_the_state(live: LiveServer) -> None:
    client = await live.connect("types")
    before = await client.push_state(snapshot=GAME_STATE)
    n = len(client.messages)
    with pytest.raises(CoachError) as err:
        await client.push_state(patch={"fs": {"player_level": "very high"}})
    assert err.value.code == "bad-state"
    assert "fs.player_level" in err.value.text, err.value.text
    with pytest.raises(CoachError) as err:
        await client.push_state(patch={"ic": {"match": {"round": 0, "player_lineup": "emberfox"}}})
    assert "ic.match.round" in err.value.text and "ic.match.player_lineup" in err.value.text

    after = await client.get_state()
    assert after == before  # same version, same inventory: nothing of the bad patches got in
    assert live.server is not None
    session = live.server.connections["types"].session
    assert session is not None and session.state.fs.player_level == GAME_STATE["fs"]["player_level"]
    # Only the accepted update was announced.
    assert not [m for m in client.messages[n:] if m.event is not None and m.event.type == "state"]
    # And the next good patch applies on top of the kept state.
    good = await client.push_state(patch={"fs": {"player_level": 19}})
    assert good.version == before.version + 1 and good.fs.player_level == 19


async def test_binary_garbage_on_the_audio_channel_is_refused_and_the_coach_still_listens(
    live: LiveServer,
) -> None:
    client = await live.connect("garbage")
    await client.push_state(snapshot=GAME_STATE)
    for garbage in (b"\xff\xfe\xfd" + bytes(range(256)) * 4, b"\x08\x96\x01\x12\x07garbage"):
        n = len(client.messages)
        await client.send_raw(garbage)
        error = await error_after(client, n)
        assert error.startswith("bad-frame: "), error

    # Well-formed frames of kinds a client may not send: words for the coach's mouth, a transcript.
    for kind, payload in (("text", {"text": "say this"}), ("transcription", {"text": "hi", "user_id": "x"})):
        proto = frame_protos.Frame()  # type: ignore[attr-defined]
        for key, value in payload.items():
            setattr(getattr(proto, kind), key, value)
        n = len(client.messages)
        await client.send_raw(proto.SerializeToString())
        error = await error_after(client, n)
        assert error.startswith("bad-frame: ") and kind in error, error

    serializer = ProtobufFrameSerializer()
    bad_audio = {
        "48 kHz": OutputAudioRawFrame(audio=b"\x00\x01" * 960, sample_rate=48000, num_channels=1),
        "stereo": OutputAudioRawFrame(audio=b"\x00\x01" * 640, sample_rate=16000, num_channels=2),
        "odd bytes": OutputAudioRawFrame(audio=b"\x00\x01\x02", sample_rate=16000, num_channels=1),
    }
    for label, frame in bad_audio.items():
        n = len(client.messages)
        data = await serializer.serialize(frame)
        assert isinstance(data, bytes)
        await client.send_raw(data)
        error = await error_after(client, n)
        assert error.startswith("bad-audio: "), (label, error)

    # The pipeline survived all of it: a turn still runs end to end.
    n = len(client.messages)
    await client.ask("how do I beat their team?")
    done = await client.wait_event("turn-completed", timeout=20, after=n)
    assert done.reply


async def test_oversized_messages(live: LiveServer) -> None:
    assert live.server is not None
    limit = live.server.config.max_message_bytes
    client = await live.connect("big")
    n = len(client.messages)
    await client.send_raw(b"\x00" * (limit + 1))
    error = await error_after(client, n)
    assert error.startswith("too-large: ") and str(limit) in error
    await still_serves(client)

    # Past the hard cap the websocket layer itself gives up on the connection.
    await client.send_raw(b"\x00" * (limit * 4 + 1))
    with pytest.raises(CoachClosed) as closed:
        await client.wait_for(lambda: False, timeout=5)
    assert closed.value.close_code == protocol.CloseCode.TOO_BIG


async def test_state_update_during_a_turn_is_answered_at_once(live: LiveServer) -> None:
    live.router.set("talker", SLOW_REPLY)
    client = await live.connect("midturn")
    await client.push_state(snapshot=GAME_STATE)
    n = len(client.messages)
    await client.ask("how do I beat their team?")
    await client.wait_event("text", where=lambda e: e.kind == "reply", timeout=20, after=n)
    state = await client.push_state(patch={"ic": {"match": {"round": 3}}})  # mid-reply
    assert state.ic.match is not None and state.ic.match.round == 3
    done = await client.wait_event("turn-completed", timeout=20, after=n)
    answered = next(i for i, m in enumerate(client.messages) if m.rtvi.type == "server-response" and i >= n)
    completed = next(i for i, m in enumerate(client.messages) if m.event is done)
    assert answered < completed  # the update did not wait for the turn


# --- lost clients and second clients ------------------------------------------------------------


async def test_client_vanishing_mid_turn_keeps_its_state_and_spares_other_sessions(tmp_path: Path) -> None:
    store = SQLiteSessionStore(tmp_path / "sessions.sqlite3")
    async with LiveServer(store=store) as live:
        live.router.set("talker", SLOW_REPLY)
        a = await live.connect("vanishing")
        b = await live.connect("bystander")
        owned = GAME_STATE["fs"]["inventory"]["owned"][:5]
        pushed = await a.push_state(snapshot={"ic": GAME_STATE["ic"], "fs": {"inventory": {"owned": owned}}})
        await b.push_state(snapshot=GAME_STATE)

        await a.ask("how do I beat their team?")
        await b.ask("how do I beat their team?")
        await a.wait_event("text", where=lambda e: e.kind == "reply", timeout=20)  # a is mid-reply
        a._ws.transport.abort()  # the game crashed: no close frame, the socket just dies

        assert live.server is not None
        await wait_until(lambda: "vanishing" not in live.server.connections, timeout_s=10)
        # The state the game pushed is in the store; the cut turn is stored as cut (issue 29 item 5):
        # not completed, why, what was heard of it.
        saved = store.load_state("vanishing")
        assert saved is not None and saved.version == pushed.version
        assert [o.creature_id for o in saved.fs.inventory.owned] == [o["creature_id"] for o in owned]
        [cut] = store.load_turns("vanishing")
        assert (cut.turn_index, cut.completed, cut.failure) == (0, False, CUT_DISCONNECTED)
        assert cut.utterance == "how do I beat their team?" and cut.heard is not None
        assert store.load_history("vanishing") == []  # its guidance was not delivered

        # The other session did not notice: its turn completes, and it goes on.
        done = await b.wait_event("turn-completed", timeout=20)
        assert done.reply.startswith("Keep Sparkwing")
        assert "bystander" in live.server.connections
        await still_serves(b)

        # The vanished game comes back: its session resumes where the store has it.
        again = await live.connect("vanishing")
        assert again.session is not None and again.session.resumed
        assert again.session.state.version == pushed.version
        assert len(again.session.state.fs.inventory.owned) == 5
        assert again.session.turns == 1  # the cut turn's index is taken: the next one is 1


async def test_second_client_takes_the_session_over(tmp_path: Path) -> None:
    store = SQLiteSessionStore(tmp_path / "sessions.sqlite3")
    async with LiveServer(store=store) as live:
        first = await live.connect("shared")
        pushed = await first.push_state(snapshot=GAME_STATE)
        n = len(first.messages)
        await first.ask("how do I beat their team?")
        await first.wait_event("turn-completed", timeout=20, after=n)
        # Stored once its reply was played to the end (a takeover before that would cut it).
        await wait_until(lambda: store.load_turns("shared"), timeout_s=20)

        second = await live.connect("shared")
        # The older connection was closed with the takeover code and a reason it can show.
        await first.wait_for(lambda: first.closed, timeout=5)
        assert first.closed is not None
        assert first.closed.close_code == protocol.CloseCode.TAKEN_OVER
        assert "taken over" in first.closed.reason
        # The newer one has the whole session: state and history.
        assert second.session is not None and second.session.took_over and second.session.resumed
        assert second.session.state.version == pushed.version and second.session.turns == 1
        assert live.server is not None and len(live.server.connections) == 1
        n = len(second.messages)
        await second.ask("how do I beat their team?")
        done = await second.wait_event("turn-completed", timeout=20, after=n)
        assert done.turn_index == 1  # the turn clock went on from the first connection's turn
        with pytest.raises(CoachClosed):
            await first.get_state()


# --- access control --------------------------------------------------------------------------


async def closed_with(url: str, **connect: object) -> tuple[int | None, str]:
    """Connect with a bare websocket and return the close code and reason the server sent (after
    the RTVI `error` that says them too, `closed: <code> <reason>`)."""
    async with websockets.connect(url, **connect) as ws:  # type: ignore[arg-type]
        with pytest.raises(websockets.ConnectionClosed):
            while True:
                await asyncio.wait_for(ws.recv(), timeout=5)
        return ws.close_code, ws.close_reason or ""


async def test_no_or_invalid_token_is_closed_with_the_reason(live: LiveServer) -> None:
    code, reason = await closed_with(f"{live.url}?session=x")
    assert code == protocol.CloseCode.UNAUTHORIZED and "token is required" in reason
    code, reason = await closed_with(f"{live.url}?session=x&token=wrong")
    assert code == protocol.CloseCode.UNAUTHORIZED and "invalid token" in reason
    code, reason = await closed_with(
        f"{live.url}?session=x", additional_headers={"Authorization": "Bearer nope"}
    )
    assert code == protocol.CloseCode.UNAUTHORIZED and "invalid token" in reason
    with pytest.raises(CoachClosed) as closed:
        await live.connect("x", token="wrong")
    assert closed.value.close_code == protocol.CloseCode.UNAUTHORIZED
    # The right token in the query (what the browser transport sends) gets in.
    client = await live.connect("x", token_in_query=True)
    assert client.session is not None and client.session.session_id == "x"
    assert live.server is not None and list(live.server.connections) == ["x"]


async def test_bad_origin_is_rejected(live: LiveServer) -> None:
    url = f"{live.url}?session=o&token={TOKEN}"
    code, reason = await closed_with(url, origin=websockets.Origin("http://evil.example"))
    assert code == protocol.CloseCode.FORBIDDEN_ORIGIN and "evil.example" in reason
    # The server's own pages may connect, and so may clients that send no Origin (games).
    client = await live.connect("o", origin=live.http)
    assert client.session is not None
    code, reason = await closed_with(f"{live.url}?session=bad%20id&token={TOKEN}")
    assert code == protocol.CloseCode.BAD_REQUEST and "session id" in reason


# --- turns through the websocket -----------------------------------------------------------


async def test_typed_turn_streams_decisions_text_and_latency(live: LiveServer) -> None:
    client = await live.connect("typed")
    assert client.session is not None
    assert client.session.audio.output_sample_rate == protocol.OUTPUT_SAMPLE_RATE
    assert {c.id for c in client.session.pack.creatures} >= {"emberfox", "hexmoth"}
    await client.push_state(snapshot=GAME_STATE)
    n = len(client.messages)
    await client.ask("how do I beat their team?")
    done = await client.wait_event("turn-completed", timeout=20, after=n)
    latency = await client.wait_event("latency", timeout=20, after=n)
    kinds = [m.event.type for m in client.messages[n:] if m.event is not None]
    for kind in ("intent", "tool-dispatch", "tool-results", "grounding", "interaction", "text"):
        assert kind in kinds, kinds
    assert kinds.index("tool-dispatch") < kinds.index("turn-completed")
    assert done.utterance == "how do I beat their team?" and done.tools == ["find_counters", "suggest_lineup"]
    assert isinstance(latency, protocol.LatencyEvent) and latency.origin == "text"
    assert latency.s2fa_ms is not None and latency.s2fa_ms > 0
    assert abs(sum(s.ms for s in latency.stages) - latency.s2fa_ms) < 1.0
    # Pipecat's standard RTVI events came too: a stock client sees the reply as bot-llm-text.
    types = {m.rtvi.type for m in client.messages}
    assert {"bot-ready", "bot-llm-text", "bot-started-speaking"} <= types
    assert client.audio_bytes(), "no coach audio"


async def test_spoken_turn_through_the_websocket(live: LiveServer) -> None:
    """Real Whisper and piper: the fixture is heard, answered aloud, and S2FA measured end to end."""
    client = await live.connect("spoken")
    await client.push_state(snapshot=GAME_STATE)
    n = len(client.messages)
    streamed = await client.stream_wav(FIXTURE, tail_silence_s=2.0)
    done = await client.wait_event("turn-completed", timeout=30, after=n)
    words = done.utterance.lower()
    assert "beat" in words and "team" in words, done.utterance
    latency = await client.wait_event("latency", timeout=30, after=n)
    assert isinstance(latency, protocol.LatencyEvent) and latency.origin == "speech"

    speech_end = streamed.clock(FIXTURE_SPEECH_END_S)
    first_audio = client.first_audible(after=speech_end)
    assert first_audio is not None, "no audible coach audio"
    s2fa_ms = (first_audio - speech_end) * 1000.0
    print(
        f"\nS2FA through the websocket: client {s2fa_ms:.0f} ms, server {latency.s2fa_ms} ms; "
        f"stages {[(s.label, s.ms) for s in latency.stages]}"
    )
    assert 0 < s2fa_ms < 8000
    assert latency.s2fa_ms is not None and abs(latency.s2fa_ms - s2fa_ms) < 250


async def test_push_to_talk_release_ends_the_turn_without_waiting_for_silence(live: LiveServer) -> None:
    client = await live.connect("ptt")
    await client.push_state(snapshot=GAME_STATE)
    n = len(client.messages)
    await client.push_to_talk(True)
    # Only the speech: the key is released right where the fixture's speech ends.
    await client.stream_pcm(_speech(FIXTURE, FIXTURE_SPEECH_END_S + 0.05))
    await client.push_to_talk(False)
    done = await client.wait_event("turn-completed", timeout=30, after=n)
    assert "beat" in done.utterance.lower()


def _speech(path: Path, seconds: float) -> bytes:
    import soundfile as sf

    data, rate = sf.read(str(path), dtype="int16")
    return bytes(data[: int(seconds * rate)].tobytes())


async def wait_until(condition: object, timeout_s: float = 5.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():  # type: ignore[operator]
            await asyncio.sleep(0.02)
