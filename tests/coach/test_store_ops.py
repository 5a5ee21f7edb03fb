"""The store as operators run it: Redis with deploy/redis.conf survives kill -9, the SQLite file is
private, sessions are forgotten after --retain-days, and every store error says what kind it is.

Real stores only: SQLite files in tmp_path, Debian's redis-server (a private one where the test
kills it)."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.coach.test_store import turn
from tests.redis_server import RedisServer
from voicecoach.coach.store import RedisSessionStore, SQLiteSessionStore, StoreError, open_store
from voicecoach.core.state import LiveState

ROOT = Path(__file__).resolve().parents[2]


def test_redis_with_the_deploy_config_keeps_sessions_across_kill_9(tmp_path: Path, state: LiveState) -> None:
    server = RedisServer(tmp_path, ROOT / "deploy" / "redis.conf").start()
    try:
        store = RedisSessionStore(server.url)
        store.save_state("p1", state)
        store.save_turn("p1", turn("p1", 0))
        store.close()
        server.kill()  # no shutdown save: only the append-only file has the writes
        server.start()
        again = RedisSessionStore(server.url)
        assert [t.turn_index for t in again.load_turns("p1")] == [0]
        assert again.load_state("p1") == state
        again.close()
    finally:
        server.stop()


def test_the_sqlite_file_is_readable_by_its_owner_only(tmp_path: Path, state: LiveState) -> None:
    path = tmp_path / "private" / "sessions.sqlite3"
    store = SQLiteSessionStore(path)
    store.save_state("p1", state)
    for file in (path, path.with_name(path.name + "-wal")):
        assert stat.S_IMODE(file.stat().st_mode) == 0o600, file
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    store.close()


def test_sqlite_purge_forgets_only_sessions_idle_past_the_retention(tmp_path: Path, state: LiveState) -> None:
    store = SQLiteSessionStore(tmp_path / "s.sqlite3", retain_s=3600.0)
    store.save_state("old", state)
    store.save_turn("old", turn("old", 0))
    store.save_turn("new", turn("new", 0))
    assert store.purge() == 0  # both just written
    # Two hours on, "new" is written again: only "old" has been idle past the hour.
    later = time.time() + 7200
    with sqlite3.connect(store.path) as conn:
        conn.execute("UPDATE activity SET updated_at = ? WHERE session_id = 'new'", (later - 60,))
    assert store.purge(now=later) == 1
    assert store.load_state("old") is None and store.load_turns("old") == []
    assert [t.turn_index for t in store.load_turns("new")] == [0]
    assert store.sessions() == ["new"]
    store.close()


def test_redis_retention_expires_a_sessions_keys(redis_url: str, state: LiveState) -> None:
    prefix = f"t{uuid.uuid4().hex}:"
    store = RedisSessionStore(redis_url, prefix=prefix, retain_s=0.5)
    store.save_state("brief", state)
    store.save_turn("brief", turn("brief", 0))
    assert 0 < store._redis.pttl(f"{prefix}state:brief") <= 500
    assert store.sessions() == ["brief"]
    time.sleep(0.8)
    assert store.load_state("brief") is None and store.load_turns("brief") == []
    assert store.sessions() == []  # the id went with its keys
    forever = RedisSessionStore(redis_url, prefix=prefix)
    forever.save_state("kept", state)
    assert forever._redis.pttl(f"{prefix}state:kept") == -1  # no --retain-days: no expiry
    store.close()
    forever.close()


def test_store_errors_carry_a_code(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE t (x)")
    with pytest.raises(StoreError) as err:
        SQLiteSessionStore(foreign)
    assert err.value.code == "foreign"
    (tmp_path / "a-file").touch()
    with pytest.raises(StoreError) as err:
        SQLiteSessionStore(tmp_path / "a-file" / "below-it.db")  # no folder below a file
    assert err.value.code == "open"
    store = SQLiteSessionStore(tmp_path / "ok.db")
    store.close()
    with pytest.raises(StoreError) as err:
        store.ping()
    assert err.value.code == "closed"


def test_a_redis_store_that_stops_answering_is_unavailable_and_hides_its_password(tmp_path: Path) -> None:
    server = RedisServer(tmp_path, None, "--save", "", "--appendonly", "no").start()
    try:
        store = RedisSessionStore(server.url)
        store.ping()
        server.kill()
        with pytest.raises(StoreError) as err:
            store.ping()
        assert err.value.code == "unavailable"
    finally:
        server.stop()
    with pytest.raises(StoreError) as err:
        open_store(f"redis://:hunter2-secret@127.0.0.1:{server.port}/0")
    assert err.value.code == "open" and "hunter2" not in str(err.value) and "***" in str(err.value)


def test_a_bad_store_path_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    bad = tmp_path / "a-file" / "sessions.sqlite3"  # below a file: no folder can be made there
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "voicecoach.app.cli", "serve", "--port", "0", "--store", str(bad)]
    result = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("session store: cannot open session store") and str(bad) in last, result.stderr
