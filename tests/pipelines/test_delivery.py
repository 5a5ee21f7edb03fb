"""No phantom turns: a turn completes only when the player heard its reply to the end.

The real server (Silero, Whisper, piper) against the scripted LLM: a reply whose LLM stream
is cut mid-reply, an LLM that is down, one that stalls, and a barge-in while the reply's audio
plays are each stored as not completed (with what was heard), keep their answer.meta out of
s_sh and of `load_history` (the guidance goes on no cooldown), and send `turn-failed` (`failed:
interrupted` for the barge-in: the player cut the reply, nothing failed).
A reply heard to the end completes, and only after its audio was sent.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from tests.live_server import GAME_STATE, LiveServer
from tests.pipelines.test_server import FIXTURE, wait_until
from tests.pipelines.test_turn import NARRATION
from voicecoach.app.client import CoachClient
from voicecoach.coach import protocol
from voicecoach.coach.store import MemorySessionStore, TurnRecord
from voicecoach.testing.scripted_llm import Script

REPLY = "Keep Sparkwing in and lead with Emberfox against their water tank."
# A team question W3 has advice for: not the evaluate pair, whose team read already says what its
# counter tip would (w3.json unsaid_after), nor a counter pick (the pick is the advice).
COMPARE = ["<INTENT>lineup</INTENT>", "<SUB_INTENT>compare</SUB_INTENT>"]
# Long enough to still be playing when the player speaks over it (piper: ~2.5 words a second).
LONG_REPLY = " ".join([REPLY] * 6)


@pytest_asyncio.fixture
async def live() -> AsyncIterator[LiveServer]:
    async with LiveServer(store=MemorySessionStore()) as server:
        yield server


async def failed_turn(
    live: LiveServer, client: CoachClient, n: int
) -> tuple[protocol.TurnFailedEvent, TurnRecord]:
    event = await client.wait_event("turn-failed", timeout=30, after=n)
    assert isinstance(event, protocol.TurnFailedEvent)
    records = live.store.load_turns(client_session(client))
    record = next(r for r in records if r.turn_index == event.turn_index)
    return event, record


def client_session(client: CoachClient) -> str:
    assert client.session is not None
    return client.session.session_id


def live_history(live: LiveServer, session_id: str) -> list[object]:
    assert live.server is not None
    connection = live.server.connections[session_id]
    assert connection.session is not None
    return list(connection.session.state.sh.metas)


async def ask_and_fail(
    live: LiveServer, session_id: str, talker: Script
) -> tuple[protocol.TurnFailedEvent, TurnRecord]:
    live.router.set("talker", talker)
    client = await live.connect(session_id)
    await client.push_state(snapshot=GAME_STATE)
    n = len(client.messages)
    await client.ask("how do I beat their team?")
    event, record = await failed_turn(live, client, n)
    # The turn is kept, as not completed, and its guidance was not delivered: no cooldown.
    assert record.completed is False and record.failure == event.reason
    assert record.meta is not None, "W3 issued an answer.meta for this turn (kept for inspection)"
    assert live.store.load_history(session_id) == []
    assert live_history(live, session_id) == []
    return event, record


async def test_a_reply_heard_to_the_end_completes_after_its_audio(live: LiveServer) -> None:
    live.router.set("talker", Script(REPLY, inter_token_s=0.01))
    live.router.set("w1", Script(chunks=[*COMPARE, *NARRATION, "<PLAN>none</PLAN>"], inter_token_s=0.01))
    client = await live.connect("heard")
    await client.push_state(snapshot=GAME_STATE)
    n = len(client.messages)
    await client.ask("how's my lineup looking?")
    await client.wait_event("turn-completed", timeout=30, after=n)
    await wait_until(lambda: live.store.load_turns("heard"), timeout_s=30)
    [record] = live.store.load_turns("heard")
    assert record.completed and record.failure is None and record.heard is None
    assert record.meta is not None and live.store.load_history("heard") == [record.meta]
    # The store is written first, then the session's memory (commit_turn runs on another thread).
    await wait_until(lambda: live_history(live, "heard"), timeout_s=5)
    assert live_history(live, "heard") == [record.meta]
    assert not any(isinstance(e, protocol.TurnFailedEvent) for e in client.events())
    # Committed once the reply's audio was sent: the client has all of it by then.
    assert len(client.audio_bytes()) > protocol.OUTPUT_SAMPLE_RATE * 2  # over a second of speech
    # Narration and reply play as one TTS turn: one start and one stop, not one per phrase (a
    # context per phrase waited out the TTS's 3 s idle timeout between every two phrases).
    kinds = [m.rtvi.type for m in client.messages[n:]]
    assert kinds.count("bot-tts-started") == 1 and kinds.count("bot-tts-stopped") == 1, kinds
    # Delivered guidance cools down: the next turn's W3 sees it (the control for the tests below).
    assert record.c3["guidance"] is not None
    n = len(client.messages)
    await client.ask("how's my lineup looking?")
    c3 = await client.wait_event("interaction", timeout=30, after=n)
    assert isinstance(c3, protocol.InteractionEvent) and record.c3["guidance"] in c3.cooling


async def test_llm_dying_mid_reply_is_stored_cut_with_what_was_heard(live: LiveServer) -> None:
    event, record = await ask_and_fail(live, "cut", Script(REPLY, fail="cut", cut_after=4))
    assert event.failed == "reply" and event.reason.startswith("reply: LLM"), event.reason
    assert record.reply == "Keep Sparkwing in and"  # what the LLM said before it died
    assert event.heard.endswith("Keep Sparkwing in and") and record.heard == event.heard


async def test_llm_down_is_stored_failed_and_its_guidance_not_cooled(live: LiveServer) -> None:
    event, record = await ask_and_fail(live, "down", Script(fail="http_error", status=503))
    assert event.failed == "reply" and "503" in event.reason, event.reason
    assert "Sorry" in event.heard  # the fallback line is all the player heard of a reply
    # The next turn is free to give the same guidance: nothing of the failed one is cooling.
    live.router.set("talker", Script(REPLY, inter_token_s=0.01))
    client = live.clients[-1]
    n = len(client.messages)
    await client.ask("how do I beat their team?")
    c3 = await client.wait_event("interaction", timeout=30, after=n)
    done = await client.wait_event("turn-completed", timeout=30, after=n)
    await wait_until(lambda: len(live.store.load_turns("down")) == 2, timeout_s=30)
    second = live.store.load_turns("down")[1]
    assert second.completed and done.turn_index == 1
    assert isinstance(c3, protocol.InteractionEvent) and c3.cooling == []
    assert live.store.load_history("down") == [second.meta]


async def test_llm_stalling_mid_reply_is_stored_failed(live: LiveServer) -> None:
    event, record = await ask_and_fail(live, "stall", Script(REPLY, fail="stall", stall_after=2))
    assert event.failed == "reply" and "stalled" in event.reason, event.reason
    assert record.reply == "Keep Sparkwing"


async def test_barge_in_while_the_reply_plays_stores_what_was_heard(live: LiveServer) -> None:
    live.router.set("talker", Script(LONG_REPLY, inter_token_s=0.01))
    client = await live.connect("barge")
    await client.push_state(snapshot=GAME_STATE)
    n = len(client.messages)
    await client.ask("how do I beat their team?")
    await client.wait_event("turn-completed", timeout=30, after=n)  # the reply is made ...
    await client.wait_message("bot-started-speaking", timeout=30, after=n)  # ... and playing
    live.router.set("talker", Script(REPLY, inter_token_s=0.01))
    await client.stream_wav(FIXTURE, tail_silence_s=2.0)  # the player speaks over it
    event, record = await failed_turn(live, client, n)
    assert event.turn_index == 0 and event.failed == "interrupted" and "player" in event.reason
    assert record.completed is False and record.heard == event.heard
    # What was heard is the start of what was said, not all of it.
    spoken = " ".join(t for t in (record.narration, record.reply) if t)
    assert len(event.heard) < len(spoken)
    assert " ".join(spoken.split()).startswith(" ".join(event.heard.split())[:20])
    # The question spoken over it is a turn of its own, heard to the end; only its meta counts.
    await wait_until(lambda: len(live.store.load_turns("barge")) == 2, timeout_s=40)
    second = live.store.load_turns("barge")[1]
    assert second.completed and "beat" in second.utterance.lower()
    assert live.store.load_history("barge") == [second.meta]


async def test_barge_in_while_the_reply_still_streams_stores_the_cut_turn(live: LiveServer) -> None:
    slow = Script(LONG_REPLY, inter_token_s=0.3)  # ~18 s of tokens: the Talker is mid-stream
    live.router.set("talker", slow, Script(REPLY, inter_token_s=0.01))
    client = await live.connect("barge-streaming")
    await client.push_state(snapshot=GAME_STATE)
    n = len(client.messages)
    await client.ask("how do I beat their team?")
    await client.wait_event("text", where=lambda e: e.kind == "reply", timeout=30, after=n)
    await client.wait_message("bot-started-speaking", timeout=30, after=n)
    await client.stream_wav(FIXTURE, tail_silence_s=2.0)  # the player speaks over it
    event, record = await failed_turn(live, client, n)
    assert event.turn_index == 0 and event.failed == "interrupted"
    assert not any(isinstance(e, protocol.TurnCompletedEvent) and e.turn_index == 0 for e in client.events())
    assert record.completed is False and record.heard == event.heard and record.meta is not None
    assert 0 < len(record.reply) < len(LONG_REPLY) and LONG_REPLY.startswith(record.reply)
    await wait_until(lambda: len(live.store.load_turns("barge-streaming")) == 2, timeout_s=40)
    second = live.store.load_turns("barge-streaming")[1]
    assert second.completed and live.store.load_history("barge-streaming") == [second.meta]
