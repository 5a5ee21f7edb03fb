"""Issue 29 items 3 and 5: one owner per session across workers, and cut turns stored as cut.

The real server app (two of them where two workers are meant, each with its own Redis client on
one real redis-server, as two `voicecoach serve` processes have), the real store, the scripted
LLM. What is asserted is what docs/PROTOCOL.md and docs/DEPLOY.md promise: a second worker that
opens a live session takes it over, and the first one closes 4409 with its reason and can write
the session no more; a turn the connection ends in the middle of (a takeover, a shutdown) is told
to the client as `turn-failed` (`closed`) and stored as not completed, and its index is never given
again; typed questions are each their own turn, however close together or long.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from pathlib import Path

from tests.live_server import GAME_STATE, LiveServer
from tests.redis_server import RedisServer
from voicecoach.app.client import CoachClient
from voicecoach.coach import protocol
from voicecoach.coach.session import MAX_UTTERANCE_CHARS, ORPHANED, Session
from voicecoach.coach.store import FencedError, RedisSessionStore, SQLiteSessionStore
from voicecoach.domain.pack import load_pack
from voicecoach.pipelines.server import CUT_SHUTDOWN, CUT_TAKEN_OVER, LOST_REASON
from voicecoach.testing.scripted_llm import Script

SLOW_REPLY = Script("Keep Sparkwing in and lead with Emberfox against their water tank.", inter_token_s=0.25)


async def wait_until(condition: Callable[[], object], timeout_s: float = 10.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.05)


def completed_indices(client: CoachClient) -> list[int]:
    return [e.turn_index for e in client.events() if isinstance(e, protocol.TurnCompletedEvent)]


async def test_a_second_worker_takes_the_session_over_and_fences_the_first(redis_url: str) -> None:
    prefix = f"t{uuid.uuid4().hex}:"
    one, two = RedisSessionStore(redis_url, prefix=prefix), RedisSessionStore(redis_url, prefix=prefix)
    async with LiveServer(store=one) as worker1, LiveServer(store=two) as worker2:
        first = await worker1.connect("roaming")
        assert first.session is not None and first.session.fence == 1 and not first.session.took_over
        pushed = await first.push_state(snapshot=GAME_STATE)
        await first.ask("how do I beat their team?")
        await first.wait_event("turn-completed", timeout=20)
        await wait_until(lambda: [t.completed for t in one.load_turns("roaming")] == [True])

        # The player's next connection lands on the other worker (HAProxy failed over): it takes
        # the session over, as a second connection on one worker does.
        second = await worker2.connect("roaming")
        assert second.session is not None
        assert second.session.took_over and second.session.resumed and second.session.fence == 2
        assert second.session.state.version == pushed.version and second.session.turns == 1
        # The first worker learns it at its next lease renewal (every second) and closes with the reason.
        await first.wait_for(lambda: first.closed, timeout=5)
        assert first.closed is not None
        assert (first.closed.close_code, first.closed.reason) == (protocol.CloseCode.TAKEN_OVER, LOST_REASON)
        assert worker1.server is not None
        await wait_until(lambda: "roaming" not in worker1.server.connections)

        # The first worker's session object can write nothing now: state and turns are fenced.
        n = len(second.messages)
        await second.ask("how do I beat their team?")
        done = await second.wait_event("turn-completed", timeout=20, after=n)
        assert done.turn_index == 1
        await wait_until(
            lambda: len(two.load_turns("roaming")) == 2 and two.load_turns("roaming")[1].completed
        )
        stale = one.acquire("elsewhere")  # a lease of another session is no lease of this one
        try:
            one.save_state("roaming", one.load_state("roaming"), stale)  # type: ignore[arg-type]
            raise AssertionError("a write with another session's lease landed")
        except FencedError as err:
            assert err.code == "fenced"
        turns = two.load_turns("roaming")
        assert [(t.turn_index, t.completed, t.fence) for t in turns] == [(0, True, 1), (1, True, 2)]


async def test_a_turn_an_older_owner_left_in_progress_is_told_cut_on_the_next_connection(
    redis_url: str,
) -> None:
    # A worker stopped (or killed) after sending a reply's end but before storing it: its player may
    # have heard the turn to the end, and nothing of that worker will say otherwise. The next owner
    # stores it as cut and tells the client so, right after the session event.
    prefix = f"t{uuid.uuid4().hex}:"
    old = RedisSessionStore(redis_url, prefix=prefix)
    frozen = Session.open("frozen", store=old, pack=load_pack("pet_arena"), lease=old.acquire("frozen"))
    begun = frozen.begin_turn("how do I beat their team?")
    frozen._write(lambda: None).result()  # its in-progress record has landed; its end never will
    async with LiveServer(store=RedisSessionStore(redis_url, prefix=prefix)) as worker:
        client = await worker.connect("frozen")
        failed = await client.wait_event("turn-failed", timeout=5)
        assert isinstance(failed, protocol.TurnFailedEvent)
        assert (failed.turn_index, failed.failed, failed.reason, failed.heard) == (
            begun.index, "closed", ORPHANED, ""
        )  # fmt: skip
        assert client.session is not None and client.session.turns == begun.index + 1
        [cut] = old.load_turns("frozen")
        assert (cut.turn_index, cut.completed, cut.failure) == (begun.index, False, ORPHANED)
        # Told once: a later connection finds nothing left in progress.
        await client.close()
        again = await worker.connect("frozen")
        await again.push_state(snapshot=GAME_STATE)
        assert [e for e in again.events() if isinstance(e, protocol.TurnFailedEvent)] == []
    frozen.close()


async def test_a_takeover_mid_turn_stores_the_turn_as_cut_and_never_reuses_its_index(tmp_path: Path) -> None:
    store = SQLiteSessionStore(tmp_path / "s.sqlite3")
    async with LiveServer(store=store) as live:
        live.router.set("talker", SLOW_REPLY)
        first = await live.connect("shared")
        await first.push_state(snapshot=GAME_STATE)
        await first.ask("how do I beat their team?")
        await first.wait_event("text", where=lambda e: e.kind == "reply", timeout=20)  # mid-reply

        second = await live.connect("shared")
        await first.wait_for(lambda: first.closed, timeout=5)
        # Told before the close: the turn in flight was cut, with why.
        failed = [e for e in first.events() if isinstance(e, protocol.TurnFailedEvent)]
        assert [(e.turn_index, e.failed, e.reason) for e in failed] == [(0, "closed", CUT_TAKEN_OVER)]
        assert first.closed is not None and first.closed.close_code == protocol.CloseCode.TAKEN_OVER
        [cut] = store.load_turns("shared")
        assert (cut.turn_index, cut.completed, cut.failure) == (0, False, CUT_TAKEN_OVER)
        assert cut.utterance == "how do I beat their team?"
        assert store.load_history("shared") == []  # its guidance was not delivered

        assert second.session is not None and second.session.took_over and second.session.turns == 1
        live.router.set("talker", Script("Lead with Emberfox.", inter_token_s=0.01))
        await second.ask("how do I beat their team?")
        done = await second.wait_event("turn-completed", timeout=20)
        assert done.turn_index == 1  # never 0 again: the client sees each index once
        assert completed_indices(first) == [] and completed_indices(second) == [1]
        # Stored as completed once its reply was played to the end (in progress till then).
        await wait_until(
            lambda: (
                [(t.turn_index, t.completed) for t in store.load_turns("shared")] == [(0, False), (1, True)]
            )
        )


async def test_turn_completed_waits_until_the_store_holds_the_turns_index(tmp_path: Path) -> None:
    """Redis down mid-session: the reply is made and played, but the client is told the turn
    completed only once its index is stored. Told first, a worker killed before the store came
    back would leave the index to the next owner, and the client would see it completed twice."""
    redis = RedisServer(tmp_path, None, "--appendonly", "yes", "--save", "").start()
    try:
        async with LiveServer(store=RedisSessionStore(redis.url)) as live:
            client = await live.connect("store-down")
            await client.push_state(snapshot=GAME_STATE)
            await asyncio.to_thread(redis.kill)
            await client.ask("how do I beat their team?")
            await client.wait_event("text", where=lambda e: e.kind == "reply", timeout=20)
            await asyncio.sleep(1.5)  # the reply went out; its index is not stored yet
            assert completed_indices(client) == []
            await asyncio.to_thread(redis.start)
            done = await client.wait_event("turn-completed", timeout=10)
            assert done.turn_index == 0 and completed_indices(client) == [0]
            store = RedisSessionStore(redis.url)
            await wait_until(
                lambda: [(t.turn_index, t.completed) for t in store.load_turns("store-down")] == [(0, True)]
            )
            store.close()
    finally:
        redis.stop()


async def test_a_shutdown_mid_turn_stores_the_turn_as_cut(tmp_path: Path) -> None:
    store = SQLiteSessionStore(tmp_path / "s.sqlite3")
    async with LiveServer(store=store) as live:
        live.router.set("talker", SLOW_REPLY)
        client = await live.connect("stopping")
        await client.push_state(snapshot=GAME_STATE)
        await client.ask("how do I beat their team?")
        await client.wait_event("text", where=lambda e: e.kind == "reply", timeout=20)
        assert live.server is not None
        await live.server.shutdown()  # what SIGTERM runs
        await client.wait_for(lambda: client.closed, timeout=5)
        assert client.closed is not None and client.closed.close_code == protocol.CloseCode.GOING_AWAY
        failed = [e for e in client.events() if isinstance(e, protocol.TurnFailedEvent)]
        assert [(e.failed, e.reason) for e in failed] == [("closed", CUT_SHUTDOWN)]
        [cut] = store.load_turns("stopping")
        assert (cut.completed, cut.failure, cut.heard) == (False, CUT_SHUTDOWN, failed[0].heard)


async def test_typed_questions_are_never_merged_and_a_long_one_loses_no_other() -> None:
    async with LiveServer() as live:
        client = await live.connect("typing")
        await client.push_state(snapshot=GAME_STATE)

        async def asked(*questions: str) -> list[tuple[int, str, bool]]:
            """Send the questions 0.1 s apart; the stored turns once the last one completed (a
            question cut before its first event still has its record)."""
            n = len(client.messages)
            for i, question in enumerate(questions):
                if i:
                    await asyncio.sleep(0.1)
                await client.ask(question)
            done = await client.wait_event("turn-completed", timeout=20, after=n)
            await wait_until(
                lambda: any(t.turn_index == done.turn_index for t in live.store.load_turns("typing"))
            )
            return [(t.turn_index, t.utterance, t.completed) for t in live.store.load_turns("typing")]

        # Two questions typed 0.1 s apart (spoken ones would be one utterance): two turns, each
        # exactly what was typed; the first was cut by the second (a typed question runs at once).
        turns = await asked("how do I beat their team?", "who counters Voltail?")
        assert turns == [(0, "how do I beat their team?", False), (1, "who counters Voltail?", True)]

        # A question over the limit is cut to it, alone; the one typed right after it is whole.
        long = "how do I beat their team " + "and what about their tank " * 40
        assert len(long) > MAX_UTTERANCE_CHARS
        turns = await asked(long, "who counters Voltail?")
        (cut_index, cut, _), (index, whole, completed) = turns[-2:]
        # (Stored as the coach read it, names resolved; the cut itself: tests/coach/test_session.py.)
        assert cut.startswith("how do I beat their team") and cut != whole
        assert (index, whole, completed) == (cut_index + 1, "who counters Voltail?", True)
