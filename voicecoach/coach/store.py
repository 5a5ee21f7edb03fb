"""Session store: answer.meta, turn records and live state, persisted per turn.

W3 reads the answer.meta of the prior K turns (s_sh) to schedule guidance across turns, so
that history must outlive the process: a restarted coach resumes a session where it left
off. `SessionStore` is the interface; `SQLiteSessionStore` (an embedded file, the default),
`RedisSessionStore` (shared by several server workers behind a load balancer, so a session
resumes on another worker) and `MemorySessionStore` (persistence disabled, tests) implement it.

Ownership: the connection that serves a session holds its `Lease` (`acquire`, `renew`, `release`).
Every acquisition grows the session's fence and names a new owner; a write made with a lease lands
only while that lease's owner is still the session's owner (else `FencedError`), so a worker that
lost its session (stopped, then resumed after the player moved to another worker) cannot write it.

Everything is stored as pydantic JSON and validated again on load, so what comes back is
exactly what was saved: `load_history` returns AnswerMeta whose ``model_dump_json`` is
byte-identical to the saved one, which W3's replay guarantee depends on.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, with_config

# pydantic validates only typing_extensions' TypedDict on Python < 3.12 (a pydantic dependency).
from typing_extensions import TypedDict

from voicecoach.core.state import SESSION_HISTORY_K, AnswerMeta, LiveState

SCHEMA_VERSION = 1
DEFAULT_STORE_PATH = Path("~/.local/state/voicecoach/sessions.sqlite3")
STORE_ENV = "VOICECOACH_STORE"


# What went wrong with a store, for a program to act on (the server answers `unavailable` with a
# retry, the CLI says the rest in one line): `unavailable` the store did not answer or refused a
# write (Redis down, disk full, a locked file); `open` it cannot be opened at all (a bad path, a
# bad URL); `foreign` / `schema` the file is not ours / of another version; `closed` used after close.
# `fenced`: a write made with a lease the session's owner no longer holds (another connection took it).
StoreErrorCode = Literal["unavailable", "open", "foreign", "schema", "closed", "fenced"]
# How long a lease lives unless renewed; its holder renews it every LEASE_RENEW_S. Only a live lease
# makes an acquisition a takeover (`Lease.took_over`): ownership itself moves at once either way.
LEASE_TTL_S = 5.0
LEASE_RENEW_S = 1.0


class StoreError(RuntimeError):
    """The store cannot be opened or used; the message names the file (never a password)."""

    def __init__(self, message: str, code: StoreErrorCode = "unavailable") -> None:
        super().__init__(message)
        self.code: StoreErrorCode = code


class FencedError(StoreError):
    """A write with a lease that is no longer the session's: another connection owns it now."""

    def __init__(self, session_id: str, fence: int) -> None:
        super().__init__(
            f"session {session_id}: lease {fence} was taken over by a newer connection", "fenced"
        )
        self.session_id = session_id
        self.fence = fence


@dataclass(frozen=True)
class Lease:
    """One connection's ownership of one session.

    `fence` grows by one with every acquisition (it orders owners); `token` is this acquisition's
    own random name, which writes are checked against, so even a store that lost its counter (a
    Redis without persistence) never lets two owners share one. `took_over`: another owner held a
    live lease when this one was taken."""

    session_id: str
    fence: int
    token: str
    took_over: bool = False


def _new_token() -> str:
    return secrets.token_hex(12)


class StoreNotSupportedError(ValueError):
    """A store URL names a backend this build does not provide."""


@with_config(ConfigDict(extra="forbid"))
class ToolCall(TypedDict):
    """One tool invocation of a turn, as the trace shows it."""

    tool: str
    args: dict[str, Any]
    ok: bool
    ms: float


class TurnRecord(BaseModel):
    """Everything one finished turn produced, for resume, replay and inspection."""

    model_config = ConfigDict(extra="forbid")

    session_id: str = Field(min_length=1)
    turn_index: int = Field(ge=0)
    utterance: str = ""
    intent: str = ""
    sub_intent: str | None = None
    narration: str = ""
    reply: str = ""
    tools: list[ToolCall] = Field(default_factory=list)
    c2: dict[str, Any] = Field(default_factory=dict, description="C2 summary")
    c3: dict[str, Any] = Field(default_factory=dict, description="C3 summary")
    meta: AnswerMeta | None = Field(default=None, description="None when W3 issued nothing")
    latency: dict[str, float] = Field(default_factory=dict, description="milestone name -> ms")
    labelled_by: str = Field(default="", description="whose labels opened W1's stream: prior / llm")
    reply_source: str = Field(default="", description="llm / guarded llm / realization ('' baselines)")
    guard_drops: dict[str, int] = Field(default_factory=dict, description="rule -> reply sentences dropped")
    repaired: list[list[str]] = Field(
        default_factory=list, description="[misheard span, name] the lexicon repair put in the utterance"
    )
    completed: bool = Field(
        default=True, description="the player heard the reply to the end; False: failed, cut or interrupted"
    )
    heard: str | None = Field(
        default=None, description="what the player heard of a turn that was not completed (None: all of it)"
    )
    failure: str | None = Field(default=None, description="why the turn was not completed")
    fence: int | None = Field(
        default=None, description="the lease (its fence) the turn was served under; None: no lease"
    )
    created_at: str = Field(default="", description="ISO 8601 UTC; the store sets it if empty")


@runtime_checkable
class SessionStore(Protocol):
    def save_turn(self, session_id: str, record: TurnRecord, lease: Lease | None = None) -> None:
        """Persist one finished turn and its meta atomically; same turn again replaces it.
        With `lease`: only while it is the session's (else FencedError, nothing written)."""
        ...

    def load_history(self, session_id: str, k: int = SESSION_HISTORY_K) -> list[AnswerMeta]:
        """The metas of the last k completed turns that have one, oldest first (the guidance of a
        turn the player did not hear to the end was not delivered: it goes on no cooldown)."""
        ...

    def load_turns(self, session_id: str, limit: int | None = None) -> list[TurnRecord]:
        """All turns, or the last `limit`, oldest first."""
        ...

    def save_state(self, session_id: str, state: LiveState, lease: Lease | None = None) -> None:
        """Persist the live state; with `lease`, as save_turn."""
        ...

    def load_state(self, session_id: str) -> LiveState | None: ...

    def next_turn_index(self, session_id: str) -> int:
        """The index after every turn stored or in progress: an index is never given twice."""
        ...

    def begin_turn(self, session_id: str, record: TurnRecord, lease: Lease) -> None:
        """Note a turn as in progress (its question; not a stored turn: `load_turns` leaves it out)
        until `save_turn` stores its end: its index is taken, and if its owner never ends it (killed),
        the next owner finds it in `turns_in_progress` and stores it as cut. Fenced as save_turn."""
        ...

    def turns_in_progress(self, session_id: str) -> list[TurnRecord]:
        """The turns begun and not stored, oldest first."""
        ...

    def acquire(self, session_id: str, ttl_s: float = LEASE_TTL_S) -> Lease:
        """Make the caller the session's owner, now: the fence grows, the previous owner's writes
        are refused from here on (a takeover: the newest connection wins, as a player reconnecting
        from a new network must)."""
        ...

    def renew(self, lease: Lease, ttl_s: float = LEASE_TTL_S) -> bool:
        """Extend `lease`; False when it is no longer the session's (taken over)."""
        ...

    def release(self, lease: Lease) -> None:
        """End `lease` if it is still the session's (its connection closed); the fence stays."""
        ...

    def sessions(self) -> list[str]: ...

    def ping(self) -> None:
        """Raise StoreError (`unavailable`) unless the store answers now (the health check)."""
        ...

    def purge(self, now: float | None = None) -> int:
        """Forget the sessions idle for longer than the store's retention (`retain_s`); how many.
        Redis needs none (its keys expire); 0 without a retention."""
        ...

    def close(self) -> None: ...


def _prepare(session_id: str, record: TurnRecord) -> TurnRecord:
    # The session id is passed twice; a mismatch would silently file the turn under the
    # wrong session, so it is a caller bug we refuse.
    if record.session_id != session_id:
        raise ValueError(f"turn record is for session {record.session_id!r}, not {session_id!r}")
    if record.created_at:
        return record
    now = datetime.now(UTC).isoformat(timespec="milliseconds")
    return record.model_copy(update={"created_at": now})


# --- SQLite -------------------------------------------------------------------------------

_SCHEMA = (
    "CREATE TABLE schema_version (version INTEGER NOT NULL)",
    # record_json is the TurnRecord without its meta; meta_json is the AnswerMeta exactly as
    # dumped, kept apart so load_history reads it back verbatim without parsing whole turns.
    """CREATE TABLE turns (
        session_id  TEXT NOT NULL,
        turn_index  INTEGER NOT NULL,
        created_at  TEXT NOT NULL,
        completed   INTEGER NOT NULL,
        record_json TEXT NOT NULL,
        meta_json   TEXT,
        PRIMARY KEY (session_id, turn_index)
    )""",
    "CREATE TABLE states (session_id TEXT PRIMARY KEY, state_json TEXT NOT NULL)",
)


# When each session last changed (a turn or a state), for `purge`. Created when missing, so a file
# written before it opens as it was (its sessions count as active from then on).
_ACTIVITY = "CREATE TABLE IF NOT EXISTS activity (session_id TEXT PRIMARY KEY, updated_at REAL NOT NULL)"
# Turns begun and not ended yet (`begin_turn`), created when missing.
_IN_PROGRESS = (
    "CREATE TABLE IF NOT EXISTS in_progress (session_id TEXT NOT NULL, turn_index INTEGER NOT NULL,"
    " record_json TEXT NOT NULL, PRIMARY KEY (session_id, turn_index))"
)
# Who owns each session (`Lease`), created when missing as `activity` is. expires_at: wall clock.
_LEASES = (
    "CREATE TABLE IF NOT EXISTS leases (session_id TEXT PRIMARY KEY, fence INTEGER NOT NULL,"
    " token TEXT NOT NULL, expires_at REAL NOT NULL)"
)


class SQLiteSessionStore:
    """The default backend: one SQLite file shared by all sessions of a machine.

    The file holds what players said and own: it is created readable by its owner only (0600,
    its folder 0700); SQLite gives its -wal and -shm files the same mode. `retain_s`: `purge`
    forgets sessions idle longer than that (the server runs it periodically)."""

    def __init__(self, path: str | Path, retain_s: float | None = None) -> None:
        self.path = Path(path).expanduser()
        self.retain_s = retain_s
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            if not self.path.exists():
                os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
            # check_same_thread=False: the asyncio app may call us from worker threads;
            # self._lock serialises access instead. isolation_level=None: we issue
            # BEGIN/COMMIT ourselves so each write is exactly one transaction.
            self._conn: sqlite3.Connection | None = sqlite3.connect(
                self.path, check_same_thread=False, isolation_level=None
            )
        except (OSError, sqlite3.Error) as err:
            raise StoreError(f"cannot open session store {self.path}: {err}", "open") from err
        try:
            self._open_schema()
        except BaseException:
            self.close()
            raise

    def _open_schema(self) -> None:
        with self._locked() as conn:
            # WAL: readers do not block the per-turn write. synchronous=NORMAL is safe with
            # WAL (a power cut may lose the last turn, never corrupt the file) and keeps an
            # fsync off the turn's critical path.
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
        # Checked and created inside one write transaction, so two processes opening a
        # fresh file at once do not both create the schema.
        with self._locked(write=True) as conn:
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if not tables:
                for statement in _SCHEMA:
                    conn.execute(statement)
                conn.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
                conn.execute(_ACTIVITY)
                conn.execute(_LEASES)
                conn.execute(_IN_PROGRESS)
                return
            if "schema_version" not in tables:
                raise StoreError(
                    f"{self.path} is an SQLite database but not a voicecoach session store", "foreign"
                )
            row = conn.execute("SELECT version FROM schema_version").fetchone()
            if row is None or row[0] != SCHEMA_VERSION:
                found = None if row is None else row[0]
                raise StoreError(
                    f"session store {self.path} has schema version {found}; "
                    f"this build reads version {SCHEMA_VERSION}",
                    "schema",
                )
            conn.execute(_ACTIVITY)
            conn.execute(_LEASES)
            conn.execute(_IN_PROGRESS)

    @contextmanager
    def _locked(self, write: bool = False) -> Iterator[sqlite3.Connection]:
        """The connection under the lock; with write=True, inside one transaction.

        sqlite3 errors (corrupt file, disk full, ...) become StoreError naming the file.
        """
        with self._lock:
            conn = self._conn
            if conn is None:
                raise StoreError(f"session store {self.path} is closed", "closed")
            try:
                if write:
                    # IMMEDIATE takes the write lock up front, so a concurrent writer waits
                    # at BEGIN instead of failing halfway through our transaction.
                    conn.execute("BEGIN IMMEDIATE")
                yield conn
                if write:
                    conn.execute("COMMIT")
            except BaseException as err:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                if isinstance(err, sqlite3.DatabaseError) and "not a database" in str(err):
                    raise StoreError(f"session store {self.path}: {err}", "foreign") from err
                if isinstance(err, sqlite3.Error):
                    raise StoreError(f"session store {self.path}: {err}") from err
                raise

    def save_turn(self, session_id: str, record: TurnRecord, lease: Lease | None = None) -> None:
        record = _prepare(session_id, record)
        meta_json = record.meta.model_dump_json() if record.meta is not None else None
        with self._locked(write=True) as conn:
            _check_lease(conn, session_id, lease)
            # OR REPLACE on the (session_id, turn_index) key: a retried save is idempotent.
            conn.execute(
                "INSERT OR REPLACE INTO turns"
                " (session_id, turn_index, created_at, completed, record_json, meta_json)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    record.turn_index,
                    record.created_at,
                    int(record.completed),
                    record.model_dump_json(exclude={"meta"}),
                    meta_json,
                ),
            )
            conn.execute(
                "DELETE FROM in_progress WHERE session_id = ? AND turn_index = ?",
                (session_id, record.turn_index),
            )
            _touch(conn, session_id)

    def begin_turn(self, session_id: str, record: TurnRecord, lease: Lease) -> None:
        record = _prepare(session_id, record)
        with self._locked(write=True) as conn:
            _check_lease(conn, session_id, lease)
            done = conn.execute(
                "SELECT 1 FROM turns WHERE session_id = ? AND turn_index = ?", (session_id, record.turn_index)
            ).fetchone()
            if done is None:  # its end may have been stored already
                conn.execute(
                    "INSERT OR REPLACE INTO in_progress (session_id, turn_index, record_json)"
                    " VALUES (?, ?, ?)",
                    (session_id, record.turn_index, record.model_dump_json()),
                )

    def turns_in_progress(self, session_id: str) -> list[TurnRecord]:
        with self._locked() as conn:
            rows = conn.execute(
                "SELECT record_json FROM in_progress WHERE session_id = ? ORDER BY turn_index", (session_id,)
            ).fetchall()
        return [TurnRecord.model_validate_json(row[0]) for row in rows]

    def load_history(self, session_id: str, k: int = SESSION_HISTORY_K) -> list[AnswerMeta]:
        if k <= 0:  # SQLite reads a negative LIMIT as "no limit"
            return []
        with self._locked() as conn:
            rows = conn.execute(
                "SELECT meta_json FROM turns WHERE session_id = ? AND meta_json IS NOT NULL AND completed = 1"
                " ORDER BY turn_index DESC LIMIT ?",
                (session_id, k),
            ).fetchall()
        return [AnswerMeta.model_validate_json(row[0]) for row in reversed(rows)]

    def load_turns(self, session_id: str, limit: int | None = None) -> list[TurnRecord]:
        if limit is not None and limit <= 0:
            return []
        with self._locked() as conn:
            rows = conn.execute(
                "SELECT record_json, meta_json FROM turns WHERE session_id = ?"
                " ORDER BY turn_index DESC LIMIT ?",
                (session_id, -1 if limit is None else limit),
            ).fetchall()
        turns = []
        for record_json, meta_json in reversed(rows):
            record = TurnRecord.model_validate_json(record_json)
            if meta_json is not None:
                record = record.model_copy(update={"meta": AnswerMeta.model_validate_json(meta_json)})
            turns.append(record)
        return turns

    def save_state(self, session_id: str, state: LiveState, lease: Lease | None = None) -> None:
        with self._locked(write=True) as conn:
            _check_lease(conn, session_id, lease)
            conn.execute(
                "INSERT OR REPLACE INTO states (session_id, state_json) VALUES (?, ?)",
                (session_id, state.model_dump_json()),
            )
            _touch(conn, session_id)

    def load_state(self, session_id: str) -> LiveState | None:
        with self._locked() as conn:
            row = conn.execute("SELECT state_json FROM states WHERE session_id = ?", (session_id,)).fetchone()
        return None if row is None else LiveState.model_validate_json(row[0])

    def next_turn_index(self, session_id: str) -> int:
        with self._locked() as conn:
            row = conn.execute(
                "SELECT COALESCE(MAX(turn_index) + 1, 0) FROM"
                " (SELECT turn_index FROM turns WHERE session_id = ?"
                " UNION ALL SELECT turn_index FROM in_progress WHERE session_id = ?)",
                (session_id, session_id),
            ).fetchone()
        return int(row[0])

    def sessions(self) -> list[str]:
        with self._locked() as conn:
            rows = conn.execute(
                "SELECT session_id FROM turns UNION SELECT session_id FROM states ORDER BY 1"
            ).fetchall()
        return [row[0] for row in rows]

    def acquire(self, session_id: str, ttl_s: float = LEASE_TTL_S) -> Lease:
        now = time.time()
        with self._locked(write=True) as conn:
            row = conn.execute(
                "SELECT fence, expires_at FROM leases WHERE session_id = ?", (session_id,)
            ).fetchone()
            lease = Lease(session_id, (row[0] if row else 0) + 1, _new_token(), bool(row and row[1] > now))
            conn.execute(
                "INSERT OR REPLACE INTO leases (session_id, fence, token, expires_at) VALUES (?, ?, ?, ?)",
                (session_id, lease.fence, lease.token, now + ttl_s),
            )
        return lease

    def renew(self, lease: Lease, ttl_s: float = LEASE_TTL_S) -> bool:
        with self._locked(write=True) as conn:
            cursor = conn.execute(
                "UPDATE leases SET expires_at = ? WHERE session_id = ? AND token = ?",
                (time.time() + ttl_s, lease.session_id, lease.token),
            )
        return cursor.rowcount == 1

    def release(self, lease: Lease) -> None:
        with self._locked(write=True) as conn:
            conn.execute(
                "UPDATE leases SET expires_at = 0 WHERE session_id = ? AND token = ?",
                (lease.session_id, lease.token),
            )

    def ping(self) -> None:
        with self._locked() as conn:
            conn.execute("SELECT 1 FROM schema_version").fetchone()

    def purge(self, now: float | None = None) -> int:
        if self.retain_s is None:
            return 0
        cutoff = (time.time() if now is None else now) - self.retain_s
        with self._locked(write=True) as conn:
            idle = [
                r[0] for r in conn.execute("SELECT session_id FROM activity WHERE updated_at < ?", (cutoff,))
            ]
            for table in ("turns", "states", "activity", "leases", "in_progress"):
                conn.executemany(f"DELETE FROM {table} WHERE session_id = ?", [(s,) for s in idle])
        return len(idle)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def _check_lease(conn: sqlite3.Connection, session_id: str, lease: Lease | None) -> None:
    """Inside a write's transaction: FencedError unless `lease` (if any) is the session's owner."""
    if lease is None:
        return
    row = conn.execute("SELECT token FROM leases WHERE session_id = ?", (session_id,)).fetchone()
    if row is None or row[0] != lease.token:
        raise FencedError(session_id, lease.fence)


def _touch(conn: sqlite3.Connection, session_id: str) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO activity (session_id, updated_at) VALUES (?, ?)", (session_id, time.time())
    )


# --- memory -------------------------------------------------------------------------------


class MemorySessionStore:
    """Same contract, nothing on disk. Keeps JSON rather than objects, so a caller mutating
    a model after saving cannot change what was stored, and loads validate like SQLite's."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._turns: dict[str, dict[int, str]] = {}  # session -> turn index -> TurnRecord JSON
        self._states: dict[str, str] = {}  # session -> LiveState JSON
        self._leases: dict[str, tuple[int, str, float]] = {}  # session -> fence, token, expires (monotonic)
        self._begun: dict[str, dict[int, str]] = {}  # session -> turn index -> TurnRecord JSON, in progress

    def _check(self, session_id: str, lease: Lease | None) -> None:
        if lease is not None and self._leases.get(session_id, (0, "", 0.0))[1] != lease.token:
            raise FencedError(session_id, lease.fence)

    def save_turn(self, session_id: str, record: TurnRecord, lease: Lease | None = None) -> None:
        record = _prepare(session_id, record)
        with self._lock:
            self._check(session_id, lease)
            self._turns.setdefault(session_id, {})[record.turn_index] = record.model_dump_json()
            self._begun.get(session_id, {}).pop(record.turn_index, None)

    def begin_turn(self, session_id: str, record: TurnRecord, lease: Lease) -> None:
        record = _prepare(session_id, record)
        with self._lock:
            self._check(session_id, lease)
            if record.turn_index not in self._turns.get(session_id, {}):
                self._begun.setdefault(session_id, {})[record.turn_index] = record.model_dump_json()

    def turns_in_progress(self, session_id: str) -> list[TurnRecord]:
        with self._lock:
            begun = dict(self._begun.get(session_id, {}))
        return [TurnRecord.model_validate_json(begun[i]) for i in sorted(begun)]

    def load_history(self, session_id: str, k: int = SESSION_HISTORY_K) -> list[AnswerMeta]:
        if k <= 0:
            return []
        metas = [t.meta for t in self.load_turns(session_id) if t.meta is not None and t.completed]
        return metas[-k:]

    def load_turns(self, session_id: str, limit: int | None = None) -> list[TurnRecord]:
        if limit is not None and limit <= 0:
            return []
        with self._lock:
            by_index = dict(self._turns.get(session_id, {}))
        rows = [by_index[i] for i in sorted(by_index)]
        if limit is not None:
            rows = rows[-limit:]
        return [TurnRecord.model_validate_json(row) for row in rows]

    def save_state(self, session_id: str, state: LiveState, lease: Lease | None = None) -> None:
        with self._lock:
            self._check(session_id, lease)
            self._states[session_id] = state.model_dump_json()

    def acquire(self, session_id: str, ttl_s: float = LEASE_TTL_S) -> Lease:
        now = time.monotonic()
        with self._lock:
            fence, _, expires = self._leases.get(session_id, (0, "", 0.0))
            lease = Lease(session_id, fence + 1, _new_token(), expires > now)
            self._leases[session_id] = (lease.fence, lease.token, now + ttl_s)
        return lease

    def renew(self, lease: Lease, ttl_s: float = LEASE_TTL_S) -> bool:
        with self._lock:
            fence, token, _ = self._leases.get(lease.session_id, (0, "", 0.0))
            if token != lease.token:
                return False
            self._leases[lease.session_id] = (fence, token, time.monotonic() + ttl_s)
        return True

    def release(self, lease: Lease) -> None:
        with self._lock:
            fence, token, _ = self._leases.get(lease.session_id, (0, "", 0.0))
            if token == lease.token:
                self._leases[lease.session_id] = (fence, token, 0.0)

    def load_state(self, session_id: str) -> LiveState | None:
        with self._lock:
            state_json = self._states.get(session_id)
        return None if state_json is None else LiveState.model_validate_json(state_json)

    def next_turn_index(self, session_id: str) -> int:
        with self._lock:
            return max([*self._turns.get(session_id, {}), *self._begun.get(session_id, {})], default=-1) + 1

    def sessions(self) -> list[str]:
        with self._lock:
            return sorted(set(self._turns) | set(self._states))

    def ping(self) -> None:
        """Always answers."""

    def purge(self, now: float | None = None) -> int:
        return 0

    def close(self) -> None:
        """Nothing to release; the data lives as long as the object."""


# --- Redis -------------------------------------------------------------------------------

# The lease and the fenced writes as Lua scripts: Redis runs each atomically, so a write is checked
# against the owner and lands (or not) with nothing in between. KEYS[1] is the session's `owner`
# hash (fence, token); it persists (AOF) and only grows, `lease` is the expiring liveness key.
_ACQUIRE = """
local free = redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2])
if not free then redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2]) end
local fence = redis.call('HINCRBY', KEYS[1], 'fence', 1)
redis.call('HSET', KEYS[1], 'token', ARGV[1])
if tonumber(ARGV[3]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
if free then return {fence, 0} end
return {fence, 1}
"""
# An owner hash that is gone (a Redis without persistence restarted, and nobody acquired since) is
# the caller's again: no one else owns the session. With AOF (deploy/redis.conf) it is never gone.
_CLAIM = """
local owner = redis.call('HGET', KEYS[1], 'token')
if owner == false then
  redis.call('HSET', KEYS[1], 'fence', ARGV[2], 'token', ARGV[1])
elseif owner ~= ARGV[1] then
  return 0
end
"""
_RENEW = (
    _CLAIM
    + """
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3])
return 1
"""
)
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""
# KEYS: owner, turns, state, sessions, in_progress. ARGV: token ('' = no lease), fence, session id,
# retain ms (0: none), then 'turn' index json (a turn's end), 'begin' index json (a turn in progress)
# or 'state' json.
_WRITE = (
    "if ARGV[1] ~= '' then\n"
    + _CLAIM
    + """
end
if ARGV[5] == 'turn' then
  redis.call('HSET', KEYS[2], ARGV[6], ARGV[7])
  redis.call('HDEL', KEYS[5], ARGV[6])
elseif ARGV[5] == 'begin' then
  if redis.call('HEXISTS', KEYS[2], ARGV[6]) == 0 then redis.call('HSET', KEYS[5], ARGV[6], ARGV[7]) end
else
  redis.call('SET', KEYS[3], ARGV[6])
end
redis.call('SADD', KEYS[4], ARGV[3])
local ms = tonumber(ARGV[4])
if ms > 0 then
  for i = 1, 5 do
    if i ~= 4 then redis.call('PEXPIRE', KEYS[i], ms) end
  end
end
return 1
"""
)


class RedisSessionStore:
    """The same contract on a Redis server, so several `voicecoach serve` workers share sessions.

    Keys, under `prefix` (default ``voicecoach:``): ``turns:<session>`` a hash of turn index ->
    TurnRecord JSON (meta included, dumped once so `load_history` returns it byte for byte),
    ``state:<session>`` the LiveState JSON, ``in_progress:<session>`` the turns begun and not ended
    (index -> TurnRecord JSON), ``sessions`` a set of session ids, ``owner:<session>``
    (fence, token) and ``lease:<session>`` (the owner's token, expiring). A write is one Lua script
    (the owner check, the turn or state, its session-set entry), so a worker killed mid-save leaves
    either the whole turn or none of it, and a worker that lost the session writes nothing.
    `retain_s`: every write sets the session's keys to expire that long after it (Redis forgets an
    idle session itself); `sessions` then drops the ids whose keys are gone.
    """

    def __init__(
        self, url: str, prefix: str = "voicecoach:", timeout_s: float = 2.0, retain_s: float | None = None
    ) -> None:
        import redis  # the client is needed only by this backend

        # Messages and logs name the store without its password (redis://:secret@host).
        self.url = redact_url(url)
        self._prefix = prefix
        self.retain_s = retain_s
        self._errors: tuple[type[BaseException], ...] = (redis.RedisError,)
        try:
            self._redis: Any = redis.Redis.from_url(
                url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s, decode_responses=True
            )
            self._redis.ping()
        except (redis.RedisError, ValueError) as err:
            raise StoreError(f"cannot open session store {self.url}: {err}", "open") from err
        # Script objects run EVALSHA and load the script again after a Redis restart emptied its cache.
        self._acquire = self._redis.register_script(_ACQUIRE)
        self._renew = self._redis.register_script(_RENEW)
        self._release = self._redis.register_script(_RELEASE)
        self._write = self._redis.register_script(_WRITE)

    def _key(self, kind: str, session_id: str = "") -> str:
        return f"{self._prefix}{kind}:{session_id}" if session_id else f"{self._prefix}{kind}"

    @contextmanager
    def _errors_named(self) -> Iterator[None]:
        try:
            yield
        except self._errors as err:
            raise StoreError(f"session store {self.url}: {err}") from err

    def save_turn(self, session_id: str, record: TurnRecord, lease: Lease | None = None) -> None:
        record = _prepare(session_id, record)
        self._write_fenced(session_id, lease, "turn", str(record.turn_index), record.model_dump_json())

    def begin_turn(self, session_id: str, record: TurnRecord, lease: Lease) -> None:
        record = _prepare(session_id, record)
        self._write_fenced(session_id, lease, "begin", str(record.turn_index), record.model_dump_json())

    def turns_in_progress(self, session_id: str) -> list[TurnRecord]:
        with self._errors_named():
            rows = self._redis.hgetall(self._key("in_progress", session_id))
        return [TurnRecord.model_validate_json(rows[i]) for i in sorted(rows, key=int)]

    def _write_fenced(self, session_id: str, lease: Lease | None, *what: str) -> None:
        keys = [self._key(k, session_id) for k in ("owner", "turns", "state")] + [self._key("sessions")]
        keys.append(self._key("in_progress", session_id))
        retain_ms = max(1, int(self.retain_s * 1000)) if self.retain_s is not None else 0
        with self._errors_named():
            args: list[str | int] = [lease.token, lease.fence] if lease is not None else ["", 0]
            landed = self._write(keys, [*args, session_id, retain_ms, *what])
        if not landed and lease is not None:
            raise FencedError(session_id, lease.fence)

    def acquire(self, session_id: str, ttl_s: float = LEASE_TTL_S) -> Lease:
        token = _new_token()
        retain_ms = max(1, int(self.retain_s * 1000)) if self.retain_s is not None else 0
        keys = [self._key("owner", session_id), self._key("lease", session_id)]
        with self._errors_named():
            fence, held = self._acquire(keys, [token, max(1, int(ttl_s * 1000)), retain_ms])
        return Lease(session_id, int(fence), token, bool(held))

    def renew(self, lease: Lease, ttl_s: float = LEASE_TTL_S) -> bool:
        keys = [self._key("owner", lease.session_id), self._key("lease", lease.session_id)]
        with self._errors_named():
            return bool(self._renew(keys, [lease.token, lease.fence, max(1, int(ttl_s * 1000))]))

    def release(self, lease: Lease) -> None:
        with self._errors_named():
            self._release([self._key("lease", lease.session_id)], [lease.token])

    def _records(self, session_id: str) -> list[TurnRecord]:
        with self._errors_named():
            rows = self._redis.hgetall(self._key("turns", session_id))
        return [TurnRecord.model_validate_json(rows[i]) for i in sorted(rows, key=int)]

    def load_history(self, session_id: str, k: int = SESSION_HISTORY_K) -> list[AnswerMeta]:
        if k <= 0:
            return []
        metas = [t.meta for t in self._records(session_id) if t.meta is not None and t.completed]
        return metas[-k:]

    def load_turns(self, session_id: str, limit: int | None = None) -> list[TurnRecord]:
        if limit is not None and limit <= 0:
            return []
        turns = self._records(session_id)
        return turns if limit is None else turns[-limit:]

    def save_state(self, session_id: str, state: LiveState, lease: Lease | None = None) -> None:
        self._write_fenced(session_id, lease, "state", state.model_dump_json())

    def load_state(self, session_id: str) -> LiveState | None:
        with self._errors_named():
            state_json = self._redis.get(self._key("state", session_id))
        return None if state_json is None else LiveState.model_validate_json(state_json)

    def next_turn_index(self, session_id: str) -> int:
        with self._errors_named():
            indices = self._redis.hkeys(self._key("turns", session_id))
            indices += self._redis.hkeys(self._key("in_progress", session_id))
        return max((int(i) for i in indices), default=-1) + 1

    def sessions(self) -> list[str]:
        self.purge()
        with self._errors_named():
            return sorted(self._redis.smembers(self._key("sessions")))

    def ping(self) -> None:
        with self._errors_named():
            self._redis.ping()

    def purge(self, now: float | None = None) -> int:
        """The keys expire by themselves; this drops the ids of expired sessions from the set."""
        if self.retain_s is None:
            return 0
        with self._errors_named():
            gone = [
                s
                for s in self._redis.smembers(self._key("sessions"))
                if not self._redis.exists(self._key("turns", s), self._key("state", s))
            ]
            if gone:
                self._redis.srem(self._key("sessions"), *gone)
        return len(gone)

    def close(self) -> None:
        self._redis.close()


def redact_url(url: str) -> str:
    """`url` without its password, to be said in messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


# --- choosing a backend -------------------------------------------------------------------


def open_store(url: str | None = None, retain_days: float | None = None) -> SessionStore:
    """Open the store a URL names.

    None means $VOICECOACH_STORE, else the default file under ~/.local/state. Accepted:
    ``sqlite:///relative.db`` / ``sqlite:////absolute.db`` (SQLAlchemy's spelling), a plain
    file path, ``redis://host:port/db`` (or ``rediss://``), and ``memory:``. `retain_days`: a
    session idle that long is forgotten (Redis: its keys expire; SQLite: `purge`).
    """
    if url is None:
        url = os.environ.get(STORE_ENV) or str(DEFAULT_STORE_PATH.expanduser())
    retain_s = retain_days * 86400.0 if retain_days is not None else None
    if url == "memory:":
        return MemorySessionStore()
    if url.startswith("sqlite:///"):
        path = url.removeprefix("sqlite:///")
        if not path:
            raise ValueError(f"store URL {url!r} has no file path")
        return SQLiteSessionStore(path, retain_s=retain_s)
    if url.startswith(("redis://", "rediss://")):
        return RedisSessionStore(url, retain_s=retain_s)
    if "://" in url:
        raise StoreNotSupportedError(
            f"store URL {redact_url(url)!r}: unknown backend; use sqlite:///path, redis://host:port/db,"
            " a file path, or memory:"
        )
    return SQLiteSessionStore(url, retain_s=retain_s)
