"""A session applies a state update only once the store took it, and logs no player's words above
DEBUG. The store is real: a private redis-server the test kills."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from loguru import logger

from tests.conftest import STATE
from tests.redis_server import RedisServer
from voicecoach.coach.session import ORPHANED, Session
from voicecoach.coach.store import RedisSessionStore, StoreError
from voicecoach.core.state import load_state
from voicecoach.domain.pack import Pack


def test_a_state_update_the_store_refuses_changes_nothing(pack: Pack, tmp_path: Path) -> None:
    server = RedisServer(tmp_path, None, "--save", "", "--appendonly", "no").start()
    try:
        store = RedisSessionStore(server.url, timeout_s=0.5)
        session = Session.open("p", store=store, pack=pack)
        session.update_state(snapshot=STATE)
        before = session.state
        server.kill()
        with pytest.raises(StoreError):
            session.update_state(patch={"fs": {"player_level": 30}})
        # The session answers from the state it had stored, not the refused one.
        assert session.state == before and session.state.fs.player_level == 18
        assert session.begin_turn("what now?").snapshot.fs.player_level == 18
        server.start()  # the same port: the client reconnects
        session.update_state(patch={"fs": {"player_level": 30}})
        assert session.state.version == before.version + 1
        stored = store.load_state("p")
        assert stored is not None and stored.fs.player_level == 30
        store.close()
    finally:
        server.stop()


def test_what_the_player_said_is_logged_at_debug_only(pack: Pack) -> None:
    lines: list[tuple[str, str]] = []
    sink = logger.add(lambda m: lines.append((m.record["level"].name, m.record["message"])), level="DEBUG")
    try:
        session = Session.open("p", pack=pack)
        session.update_state(snapshot=STATE)
        first = session.begin_turn("my secret plan is emberfox", speech_started=time.monotonic())
        # Spoken again within a second: the rest of the same utterance, a line is logged about it.
        session.begin_turn("and then oakhorn", speech_started=first.started + 0.2)
    finally:
        logger.remove(sink)
    assert any(level == "INFO" and "continues" in text for level, text in lines)
    said = [(level, text) for level, text in lines if "secret plan" in text]
    assert said and all(level == "DEBUG" for level, _ in said), lines


def test_a_turn_its_killed_owner_left_in_progress_is_stored_as_cut_by_the_next(
    pack: Pack, redis_url: str
) -> None:
    # Issue 29 item 5: a worker killed mid-turn (kill -9: nothing of it runs again) left its turn in
    # progress; the next owner stores it as cut and goes on from the next index, never the same one.
    store = RedisSessionStore(redis_url, prefix=f"t{time.monotonic_ns()}:")
    first = Session.open("p", store=store, pack=pack, lease=store.acquire("p"))
    turn = first.begin_turn("how do I beat their team?")
    first._write(lambda: None).result()  # the begun turn has reached the store (the writer keeps order)
    assert [t.turn_index for t in store.turns_in_progress("p")] == [turn.index] and store.load_turns(
        "p"
    ) == []

    second = Session.open("p", store=store, pack=pack, lease=store.acquire("p"))
    [cut] = store.load_turns("p")
    assert (cut.turn_index, cut.completed, cut.failure) == (turn.index, False, ORPHANED)
    assert cut.utterance == "how do I beat their team?" and cut.fence == 1
    assert store.turns_in_progress("p") == [] and second.next_turn == turn.index + 1
    # The first owner's end of that turn, should it ever run, lands nowhere and says so.
    lost: list[bool] = []
    first.on_lost = lambda: lost.append(True)
    with pytest.raises(StoreError) as refused:
        first.commit_turn(cut.model_copy(update={"completed": True}))
    assert refused.value.code == "fenced" and lost == [True]
    assert not store.load_turns("p")[0].completed
    first.close()
    second.close()
    store.close()


def test_an_owner_keeps_a_session_its_redis_forgot(tmp_path: Path) -> None:
    # A Redis without persistence restarted empty: nobody else acquired the session, so its owner
    # renews and writes on (it is not 'taken over'); one that acquires after is the owner from then.
    server = RedisServer(tmp_path, None, "--save", "", "--appendonly", "no").start()
    try:
        store = RedisSessionStore(server.url, timeout_s=0.5)
        lease = store.acquire("p")
        server.kill()
        server.start()
        assert store.renew(lease)
        store.save_state("p", load_state(STATE), lease)
        newer = store.acquire("p")
        assert newer.fence == lease.fence + 1 and not store.renew(lease)
        with pytest.raises(StoreError) as fenced:
            store.save_state("p", load_state(STATE), lease)
        assert fenced.value.code == "fenced"
        store.close()
    finally:
        server.stop()
