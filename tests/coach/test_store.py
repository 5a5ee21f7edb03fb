"""Session store: round trips, history order, idempotent saves, restart, bad files and URLs."""

from __future__ import annotations

import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path

import pytest

from voicecoach.coach.store import (
    FencedError,
    MemorySessionStore,
    RedisSessionStore,
    SessionStore,
    SQLiteSessionStore,
    StoreError,
    StoreNotSupportedError,
    TurnRecord,
    open_store,
)
from voicecoach.core.state import SESSION_HISTORY_K, AnswerMeta, LiveState

REPO = Path(__file__).resolve().parents[2]


def meta(turn_index: int) -> AnswerMeta:
    # Unsorted dict keys and an optional field left None: both must survive byte for byte.
    return AnswerMeta(
        turn_index=turn_index,
        branch="recommend",
        guidance_type="lineup",
        candidate_id=f"cand_{turn_index}",
        cooldown_writeback={"zeta": turn_index + 2, "alpha": turn_index + 1},
        seed=1234,
        candidate_pool_hash="3f2a9c",
    )


def turn(session_id: str, turn_index: int, *, with_meta: bool = True, reply: str = "go") -> TurnRecord:
    return TurnRecord(
        session_id=session_id,
        turn_index=turn_index,
        utterance="who should I bring against voltail?",
        intent="recommend",
        sub_intent="counter_pick",
        narration="Let me check your roster.",
        reply=reply,
        tools=[{"tool": "counter_lookup", "args": {"target": "voltail"}, "ok": True, "ms": 12.5}],
        c2={"verdict": "pass", "checked": 3},
        c3={"violations": []},
        meta=meta(turn_index) if with_meta else None,
        latency={"asr_final": 120.0, "first_audio": 0.1 + 0.2},
        completed=True,
        created_at="2025-01-01T00:00:00.000+00:00",
    )


@pytest.fixture(params=["sqlite", "memory", "redis"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SessionStore]:
    s: SessionStore
    if request.param == "redis":
        # One server for the test session; a prefix per test keeps the tests apart.
        s = RedisSessionStore(request.getfixturevalue("redis_url"), prefix=f"t{uuid.uuid4().hex}:")
    elif request.param == "sqlite":
        s = SQLiteSessionStore(tmp_path / "s.sqlite3")
    else:
        s = MemorySessionStore()
    yield s
    s.close()


def test_backends_satisfy_protocol(store: SessionStore) -> None:
    assert isinstance(store, SessionStore)


def test_turn_round_trip(store: SessionStore) -> None:
    saved = [turn("s1", 0), turn("s1", 1, with_meta=False)]
    for record in saved:
        store.save_turn("s1", record)
    loaded = store.load_turns("s1")
    assert [t.model_dump_json() for t in loaded] == [t.model_dump_json() for t in saved]
    assert loaded[1].meta is None


def test_created_at_set_only_when_empty(store: SessionStore) -> None:
    store.save_turn("s1", turn("s1", 0).model_copy(update={"created_at": ""}))
    store.save_turn("s1", turn("s1", 1))
    stamped, given = store.load_turns("s1")
    assert datetime.fromisoformat(stamped.created_at).tzinfo is not None
    assert given.created_at == "2025-01-01T00:00:00.000+00:00"


def test_state_round_trip(store: SessionStore, state: LiveState) -> None:
    assert store.load_state("s1") is None
    store.save_state("s1", state)
    loaded = store.load_state("s1")
    assert loaded is not None and loaded.model_dump_json() == state.model_dump_json()
    newer = state.model_copy(update={"version": state.version + 1})
    store.save_state("s1", newer)
    reloaded = store.load_state("s1")
    assert reloaded is not None and reloaded.version == state.version + 1


def test_load_history_returns_last_k_metas_oldest_first(store: SessionStore) -> None:
    # 30 turns, every fifth without a meta: history skips those and keeps the last K metas.
    for i in range(30):
        store.save_turn("s1", turn("s1", i, with_meta=i % 5 != 0))
    with_meta = [i for i in range(30) if i % 5 != 0]
    history = store.load_history("s1")
    assert [m.turn_index for m in history] == with_meta[-SESSION_HISTORY_K:]
    assert [m.model_dump_json() for m in history] == [meta(i).model_dump_json() for i in with_meta[-20:]]
    assert [m.turn_index for m in store.load_history("s1", k=3)] == [27, 28, 29]
    assert store.load_history("s1", k=0) == [] and store.load_history("s1", k=-1) == []


def test_load_history_skips_turns_not_completed(store: SessionStore) -> None:
    # A turn the player did not hear to the end keeps its record and meta, but its guidance was
    # not delivered: it is no part of the history W3 cools down from, on this process or a resumed one.
    store.save_turn("s1", turn("s1", 0))
    cut = turn("s1", 1).model_copy(
        update={"completed": False, "failure": "reply: LLM stalled", "heard": "Let"}
    )
    store.save_turn("s1", cut)
    store.save_turn("s1", turn("s1", 2))
    assert [m.turn_index for m in store.load_history("s1")] == [0, 2]
    assert [m.turn_index for m in store.load_history("s1", k=1)] == [2]
    saved = store.load_turns("s1")[1]
    assert not saved.completed and saved.failure == "reply: LLM stalled" and saved.heard == "Let"
    assert saved.meta == cut.meta
    assert store.next_turn_index("s1") == 3


def test_load_turns_limit_keeps_the_latest(store: SessionStore) -> None:
    for i in range(5):
        store.save_turn("s1", turn("s1", i))
    assert [t.turn_index for t in store.load_turns("s1", limit=2)] == [3, 4]
    assert len(store.load_turns("s1")) == 5


def test_next_turn_index_increments(store: SessionStore) -> None:
    assert store.next_turn_index("s1") == 0
    store.save_turn("s1", turn("s1", 0))
    assert store.next_turn_index("s1") == 1
    store.save_turn("s1", turn("s1", 1, with_meta=False))
    assert store.next_turn_index("s1") == 2


def test_saving_same_turn_twice_keeps_one(store: SessionStore) -> None:
    store.save_turn("s1", turn("s1", 0, reply="first"))
    store.save_turn("s1", turn("s1", 0, reply="retry"))
    turns = store.load_turns("s1")
    assert [(t.turn_index, t.reply) for t in turns] == [(0, "retry")]
    assert len(store.load_history("s1")) == 1
    assert store.next_turn_index("s1") == 1


def test_sessions_are_isolated(store: SessionStore, state: LiveState) -> None:
    store.save_turn("a", turn("a", 0))
    store.save_turn("a", turn("a", 1))
    store.save_turn("b", turn("b", 0, reply="b-only"))
    store.save_state("c", state)
    assert store.sessions() == ["a", "b", "c"]
    assert [t.reply for t in store.load_turns("b")] == ["b-only"]
    assert store.next_turn_index("a") == 2 and store.next_turn_index("b") == 1
    assert store.load_state("a") is None and store.load_turns("c") == []


def test_session_id_mismatch_is_refused(store: SessionStore) -> None:
    with pytest.raises(ValueError, match="'other'"):
        store.save_turn("s1", turn("other", 0))
    assert store.load_turns("s1") == [] and store.load_turns("other") == []


def test_a_lease_fences_out_the_owner_it_replaced(store: SessionStore, state: LiveState) -> None:
    # Issue 29 item 3: every acquisition grows the fence and makes a new owner; from then on the old
    # owner's writes land nowhere (FencedError, code fenced), the new owner's do.
    first = store.acquire("s1")
    assert first.fence == 1 and not first.took_over
    store.save_turn("s1", turn("s1", 0).model_copy(update={"fence": first.fence}), first)
    store.save_state("s1", state, first)
    second = store.acquire("s1")  # another worker, while the first one's lease is live
    assert second.fence == 2 and second.took_over and second.token != first.token
    with pytest.raises(FencedError) as fenced:
        store.save_turn("s1", turn("s1", 1, reply="stale"), first)
    assert fenced.value.code == "fenced" and "taken over" in str(fenced.value)
    with pytest.raises(FencedError):
        store.save_state("s1", state.model_copy(update={"version": 99}), first)
    assert not store.renew(first) and store.renew(second)
    store.save_turn("s1", turn("s1", 1, reply="owner"), second)
    assert [(t.turn_index, t.reply) for t in store.load_turns("s1")] == [(0, "go"), (1, "owner")]
    saved = store.load_state("s1")
    assert saved is not None and saved.version == state.version
    # The replaced owner's release does not end the new owner's lease; the owner's own does, and a
    # reconnect after it is no takeover (no live lease), with the fence still growing.
    store.release(first)
    assert store.renew(second)
    store.release(second)
    third = store.acquire("s1")
    assert third.fence == 3 and not third.took_over
    # A write with no lease (tools, benchmarks) is not fenced; other sessions have their own fence.
    store.save_turn("s1", turn("s1", 2))
    assert store.acquire("s2").fence == 1


def test_a_turn_in_progress_takes_its_index_and_is_no_stored_turn(store: SessionStore) -> None:
    # Issue 29 item 5: a turn begun takes its index for good (a worker killed mid-turn leaves it for
    # the next owner to store as cut), but it is not a stored turn until its end is saved.
    lease = store.acquire("s1")
    store.save_turn("s1", turn("s1", 0), lease)
    begun = turn("s1", 1).model_copy(update={"completed": False, "failure": "in progress", "reply": ""})
    store.begin_turn("s1", begun, lease)
    assert [t.turn_index for t in store.load_turns("s1")] == [0]
    assert [t.turn_index for t in store.turns_in_progress("s1")] == [1]
    assert store.next_turn_index("s1") == 2
    store.save_turn("s1", turn("s1", 1), lease)  # its end: stored, no longer in progress
    assert store.turns_in_progress("s1") == [] and store.next_turn_index("s1") == 2
    store.begin_turn("s1", begun, lease)  # a late begin after the end changes nothing
    assert store.turns_in_progress("s1") == [] and store.load_turns("s1")[1].completed
    # Fenced like any write: a replaced owner begins nothing.
    store.acquire("s1")
    with pytest.raises(FencedError):
        store.begin_turn("s1", begun.model_copy(update={"turn_index": 2}), lease)
    assert store.next_turn_index("s1") == 2


def test_an_expired_lease_is_no_takeover(tmp_path: Path) -> None:
    store = SQLiteSessionStore(tmp_path / "s.sqlite3")
    first = store.acquire("s1", ttl_s=0.0)
    second = store.acquire("s1")
    assert second.fence == first.fence + 1 and not second.took_over
    store.close()


def test_sqlite_same_turn_twice_is_one_row(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    store = SQLiteSessionStore(path)
    store.save_turn("s1", turn("s1", 0))
    store.save_turn("s1", turn("s1", 0))
    store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM turns").fetchone() == (1,)


def test_sqlite_schema_version_and_wal(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    SQLiteSessionStore(path).close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(1,)]
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_sqlite_usable_from_other_threads(tmp_path: Path) -> None:
    # The asyncio app may hand calls to worker threads; a default sqlite3 connection refuses that.
    store = SQLiteSessionStore(tmp_path / "s.sqlite3")
    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(lambda i: store.save_turn("s1", turn("s1", i)), range(16)))
    assert [m.turn_index for m in store.load_history("s1", k=16)] == list(range(16))
    store.close()


_WRITER = """
import json, sys
from voicecoach.core.state import AnswerMeta, LiveState
from voicecoach.coach.store import SQLiteSessionStore, TurnRecord

store = SQLiteSessionStore(sys.argv[1])
metas = []
for i in range(3):
    m = AnswerMeta(turn_index=i, branch="teaching", guidance_type="skill_tip", candidate_id=f"tip_{i}",
                   cooldown_writeback={"z": i + 3, "a": i + 1}, seed=99, candidate_pool_hash="abc")
    store.save_turn("resume-me", TurnRecord(session_id="resume-me", turn_index=i, reply=f"r{i}", meta=m))
    metas.append(m.model_dump_json())
store.save_turn("resume-me", TurnRecord(session_id="resume-me", turn_index=3, completed=False))
state = LiveState.model_validate({"version": 7, "turn_index": 3, "ic": {"match": {"round": 2}}})
store.save_state("resume-me", state)
store.close()
print(json.dumps({"metas": metas, "state": state.model_dump_json()}))
"""


def test_restarted_process_resumes_history_and_state(tmp_path: Path) -> None:
    path = tmp_path / "sessions.sqlite3"
    # The child imports voicecoach from this checkout even if the venv lacks the editable install.
    pythonpath = [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(pythonpath)}
    done = subprocess.run(
        [sys.executable, "-c", _WRITER, str(path)], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    written = json.loads(done.stdout)

    store = SQLiteSessionStore(path)
    try:
        assert [m.model_dump_json() for m in store.load_history("resume-me")] == written["metas"]
        state = store.load_state("resume-me")
        assert state is not None and state.model_dump_json() == written["state"]
        assert store.next_turn_index("resume-me") == 4
        assert [t.completed for t in store.load_turns("resume-me")] == [True, True, True, False]
    finally:
        store.close()


def test_corrupt_file_raises_store_error_naming_path(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.sqlite3"
    path.write_bytes(b"definitely not an SQLite database\n" * 64)
    with pytest.raises(StoreError, match=re.escape(str(path))):
        SQLiteSessionStore(path)
    with pytest.raises(StoreError, match=re.escape(str(path))):
        open_store(str(path))


def test_foreign_sqlite_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other_app.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE notes (body TEXT)")
    with pytest.raises(StoreError, match="not a voicecoach session store"):
        SQLiteSessionStore(path)


def test_newer_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    SQLiteSessionStore(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE schema_version SET version = 2")
    with pytest.raises(StoreError, match="schema version 2"):
        SQLiteSessionStore(path)


def test_open_store_unknown_backend_is_a_clear_error() -> None:
    with pytest.raises(StoreNotSupportedError, match="unknown backend"):
        open_store("postgres://db/coach")


def test_open_store_redis(redis_url: str) -> None:
    store = open_store(redis_url)
    assert isinstance(store, RedisSessionStore)
    store.close()


def test_redis_down_is_a_store_error_naming_the_url() -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"redis://127.0.0.1:{port}/0"
    with pytest.raises(StoreError, match=re.escape(url)):
        open_store(url)


def test_redis_turns_survive_another_client(redis_url: str) -> None:
    """Two workers share sessions through Redis: what one saves, a fresh client reads back."""
    prefix = f"t{uuid.uuid4().hex}:"
    first = RedisSessionStore(redis_url, prefix=prefix)
    first.save_turn("s1", turn("s1", 0))
    first.close()
    second = RedisSessionStore(redis_url, prefix=prefix)
    assert [t.model_dump_json() for t in second.load_turns("s1")] == [turn("s1", 0).model_dump_json()]
    assert second.load_history("s1")[0].model_dump_json() == meta(0).model_dump_json()
    assert second.next_turn_index("s1") == 1
    second.close()


def test_open_store_picks_backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(open_store("memory:"), MemorySessionStore)

    for url, path in [
        (f"sqlite:///{tmp_path}/by_url.sqlite3", tmp_path / "by_url.sqlite3"),
        (str(tmp_path / "plain.sqlite3"), tmp_path / "plain.sqlite3"),
    ]:
        store = open_store(url)
        assert isinstance(store, SQLiteSessionStore) and store.path == path
        store.close()
        assert path.exists()

    env_path = tmp_path / "nested" / "from_env.sqlite3"
    monkeypatch.setenv("VOICECOACH_STORE", str(env_path))
    store = open_store(None)
    assert isinstance(store, SQLiteSessionStore) and store.path == env_path
    store.close()
    assert env_path.exists()


def test_open_store_default_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VOICECOACH_STORE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    store = open_store(None)
    assert isinstance(store, SQLiteSessionStore)
    assert store.path == tmp_path / ".local/state/voicecoach/sessions.sqlite3"
    store.close()
