"""Pipecat's RTVI events from the coach's pipeline, as an RTVI 2.2.0 client (voicecoach.app.client)
gets them, on the live server with the embedded default coach (no LLM call).

The official web client's view (RTVI 2.1.0) is tests/pipelines/test_official_client.py; here,
what only 2.2.0 clients are sent (`bot-interrupted`, `user-input`), and the close notice on the
raw wire.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path

import pipecat.frames.protobufs.frames_pb2 as frame_protos
import websockets

from tests.live_server import GAME_STATE, LiveServer
from voicecoach.app.client import CoachClient
from voicecoach.bench.fixtures import load_session

ROOT = Path(__file__).resolve().parents[2]
_S01 = load_session(ROOT / "audio_fixtures" / "s01.json")
FIXTURE = _S01.audio_path(_S01.turns[0])  # "How do I beat their water team?"
QUESTION = "what beats their water creature?"
SPOKEN = "How do I beat their water team?"

USER_TURN = {"user-started-speaking", "user-stopped-speaking", "user-transcription"}


def kinds(client: CoachClient, after: int = 0) -> list[str]:
    return [m.rtvi.type for m in client.messages[after:]]


def bracketed(seq: list[str]) -> bool:
    """Every bot-llm-text between a bot-llm-started and its bot-llm-stopped."""
    open_ = False
    for t in seq:
        if t in ("bot-llm-started", "bot-llm-stopped"):
            if open_ == (t == "bot-llm-started"):
                return False
            open_ = not open_
        elif t == "bot-llm-text" and not open_:
            return False
    return not open_


async def test_spoken_and_typed_turns_events_for_an_rtvi_2_2_client() -> None:
    async with LiveServer(embedded=True) as live:
        coach = await live.connect("rtvi-events")
        await coach.push_state(snapshot=GAME_STATE)

        # The fixture's words typed first: a typed question is not reported as a transcription, and
        # that must not hide the same words spoken later.
        start = len(coach.messages)
        await coach.ask(SPOKEN)
        await coach.wait_for(lambda: "bot-stopped-speaking" in kinds(coach, start), timeout=30)
        assert "user-transcription" not in kinds(coach, start)

        # Spoken: one final transcript (and one user-input), trimmed; nothing played: no bot-interrupted.
        start = len(coach.messages)
        await coach.stream_wav(FIXTURE, tail_silence_s=1.5)
        await coach.wait_event("turn-completed", timeout=30, after=start)
        await coach.wait_message("bot-stopped-speaking", timeout=30, after=start)
        spoken = kinds(coach, start)
        transcripts = [m.rtvi.data for m in coach.messages[start:] if m.rtvi.type == "user-transcription"]
        assert len(transcripts) == 1 and transcripts[0]["final"] is True, transcripts
        assert transcripts[0]["text"] == SPOKEN, transcripts  # what Whisper hears in the fixture
        inputs = [m.rtvi.data for m in coach.messages[start:] if m.rtvi.type == "user-input"]
        assert [i["input_type"] for i in inputs] == ["transcription"], inputs
        assert spoken.count("user-started-speaking") == 1 and spoken.count("user-stopped-speaking") == 1
        assert "bot-interrupted" not in spoken, spoken
        assert bracketed(spoken) and spoken.index("bot-llm-started") < spoken.index("bot-llm-text"), spoken

        # Typed while nothing plays: no speaking events, no transcription, no bot-interrupted.
        start = len(coach.messages)
        await coach.ask(QUESTION)
        await coach.wait_message("bot-started-speaking", timeout=30, after=start)
        typed = kinds(coach, start)
        assert not USER_TURN & set(typed), typed
        assert "bot-interrupted" not in typed, typed
        inputs = [m.rtvi.data for m in coach.messages[start:] if m.rtvi.type == "user-input"]
        assert [(i["input_type"], i["text"]) for i in inputs] == [("chat", QUESTION)], inputs

        # Typed while the answer plays: one bot-interrupted, before the cut answer's speaking stops.
        cut = len(coach.messages)
        await coach.ask(QUESTION)
        await coach.wait_event("turn-failed", timeout=30, after=cut)
        await coach.wait_for(lambda: kinds(coach, cut).count("bot-stopped-speaking") >= 2, timeout=30)
        barge = kinds(coach, cut)
        assert barge.count("bot-interrupted") == 1, barge
        assert barge.index("bot-interrupted") < barge.index("bot-stopped-speaking"), barge
        assert not USER_TURN & set(barge), barge
        assert bracketed(kinds(coach, start)), kinds(coach, start)
        assert coach.errors() == []


async def test_a_refused_connection_is_told_why_before_the_close() -> None:
    async with LiveServer(embedded=True) as live:
        frames = []
        async with websockets.connect(f"{live.url}?session=x&token=wrong") as ws:
            with contextlib.suppress(websockets.ConnectionClosed):
                while True:  # until the server closes
                    frames.append(await ws.recv())
            assert ws.close_code == 4401 and ws.close_reason == "unauthorized: invalid token"
        assert len(frames) == 1
        proto = frame_protos.Frame.FromString(frames[0])  # type: ignore[attr-defined]
        message = json.loads(proto.message.data)
        assert message == {
            "label": "rtvi-ai",
            "type": "error",
            "data": {"error": "closed: 4401 unauthorized: invalid token", "fatal": True},
        }

        # In a session: a takeover's close carries its notice too, as the last message.
        first = await live.connect("taken")
        second = await live.connect("taken")
        await first.wait_for(lambda: first.closed, timeout=10)
        assert first.closed is not None and first.closed.close_code == 4409
        assert first.errors() == ["closed: 4409 session taken over by a newer connection"]
        assert first.messages[-1].rtvi.type == "error"
        await second.close()
        await asyncio.sleep(0)
