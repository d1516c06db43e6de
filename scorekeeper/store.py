"""The durable event log: SQLite (WAL, ``synchronous=FULL``), one append-only events table.

A game is loaded by replaying its events (:func:`scorekeeper.game.replay`); a per-process
cache keeps the latest replay of each game so an action costs one small transaction. Every
action is checked and appended inside ``BEGIN IMMEDIATE``, so of several writers that saw the
same version exactly one succeeds and the others get :class:`StaleVersionError`. A success is
reported only after the commit, which ``synchronous=FULL`` makes durable (it survives a
``kill -9`` of the server or a power cut).

The version of a game is the number of events after its ``create`` event.

Schema (``PRAGMA user_version`` = :data:`SCHEMA_VERSION`):

- ``games(id, created_at, updated_at, token_hash, preset, players, version, over, winner)``:
  one row per game, a summary for listing, updated with each append.
- ``events(game_id, seq, type, data, created_at)``: ``seq`` 0 is ``create``; triggers refuse
  UPDATE and DELETE.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scorekeeper.errors import GameNotFoundError, StaleVersionError
from scorekeeper.game import Game, advance, replay
from scorekeeper.rules import Rules

SCHEMA_VERSION = 1
BUSY_TIMEOUT_S = 10.0

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    token_hash TEXT NOT NULL,
    preset TEXT NOT NULL,
    players TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 0,
    over INTEGER NOT NULL DEFAULT 0,
    winner TEXT
)""",
    """CREATE TABLE IF NOT EXISTS events (
    game_id TEXT NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS games_by_time ON games(created_at DESC)",
    """CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END""",
    """CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END""",
)

_init_lock = threading.Lock()
_initialised: set[str] = set()


def default_db_path() -> Path:
    """The default database file, in the user's data directory."""
    from platformdirs import user_data_path

    return user_data_path("scorekeeper", appauthor=False) / "games.sqlite3"


def connect(path: str | Path) -> sqlite3.Connection:
    """A new connection (one per request or thread), with the schema in place.

    :raises sqlite3.DatabaseError: when the file is not a database of a known schema.
    """
    key = str(path)
    if key != ":memory:":
        Path(key).parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(
        key, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
    )
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")
    if key not in _initialised:
        with _init_lock:
            if key not in _initialised:
                _migrate(conn)
                _initialised.add(key)
    return conn


_local = threading.local()
_PER_THREAD = 4


def thread_connection(path: str | Path) -> sqlite3.Connection:
    """This thread's long-lived connection to ``path`` (opened on first use, kept open).

    Reusing connections spares a request the open, and keeps SQLite from checkpointing the
    WAL on every close. Each thread keeps at most a few databases open.
    """
    conns: dict[str, sqlite3.Connection] | None = getattr(_local, "conns", None)
    if conns is None:
        conns = _local.conns = {}
    key = str(path)
    conn = conns.get(key)
    if conn is None:
        while len(conns) >= _PER_THREAD:
            conns.pop(next(iter(conns))).close()
        conn = conns[key] = connect(key)
    elif conn.in_transaction:  # never expected: every write commits or rolls back
        conn.rollback()
    return conn


def _migrate(conn: sqlite3.Connection) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise sqlite3.DatabaseError(
                f"the database has schema version {version}; this scorekeeper knows up to"
                f" {SCHEMA_VERSION}: upgrade scorekeeper"
            )
        if version < SCHEMA_VERSION:
            for statement in _SCHEMA:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


_writer_locks: dict[str, threading.Lock] = {}


def _writer_lock(conn: sqlite3.Connection) -> threading.Lock:
    """This process's lock for writing to the connection's database file.

    Writers in one process queue on it (woken at once, in turn) instead of on SQLite's busy
    handler, which sleeps in steps of up to 100 ms; ``BEGIN IMMEDIATE`` still guards against
    other processes.
    """
    path = str(conn.execute("PRAGMA database_list").fetchone()[2])
    with _init_lock:
        lock = _writer_locks.get(path)
        if lock is None:
            lock = _writer_locks[path] = threading.Lock()
    return lock


def hash_token(token: str) -> str:
    """The stored form of a control token (SHA-256, hex)."""
    return hashlib.sha256(token.encode()).hexdigest()


class _Cache:
    """The latest replay of each game in this process, keyed by (database, game id).

    At most ``size`` games are kept; the least recently stored are forgotten (and replayed
    from the database when asked for again).
    """

    def __init__(self, size: int = 256) -> None:
        self._lock = threading.Lock()
        self._size = size
        self._games: dict[tuple[str, str], tuple[int, Game]] = {}
        self._states: OrderedDict[tuple[str, str], tuple[int, dict[str, Any], Game]] = OrderedDict()

    def take(self, key: tuple[str, str], version: int) -> Game | None:
        """Remove and return the cached game if it is at ``version`` (writers own it)."""
        with self._lock:
            entry = self._games.pop(key, None)
        return entry[1] if entry and entry[0] == version else None

    def put(
        self,
        key: tuple[str, str],
        version: int,
        game: Game,
        state: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Cache a game at ``version`` with its state JSON for readers; returns the JSON.

        The caller hands the game over: it must not read or change it afterwards. An older
        version than the one cached is not stored.
        """
        if state is None:
            state = game.to_json()
        with self._lock:
            held = self._states.get(key)
            if held is None or held[0] <= version:
                self._games[key] = (version, game)
                self._states[key] = (version, state, game)
                self._states.move_to_end(key)
                while len(self._states) > self._size:
                    old, _ = self._states.popitem(last=False)
                    self._games.pop(old, None)
        return state

    def state(self, key: tuple[str, str], version: int) -> tuple[dict[str, Any], Game] | None:
        """The cached state JSON (do not modify it) of the game at ``version``, and the game.

        The game is for reading its rules and set-up only: a writer may be changing it.
        """
        with self._lock:
            entry = self._states.get(key)
        return (entry[1], entry[2]) if entry and entry[0] == version else None

    def clear(self) -> None:
        """Forget everything (tests)."""
        with self._lock:
            self._games.clear()
            self._states.clear()


CACHE = _Cache()


class _Changes:
    """A counter bumped after every commit in this process; event streams wait on it."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._count = 0

    @property
    def count(self) -> int:
        """The number of commits so far."""
        with self._cond:
            return self._count

    def bump(self) -> None:
        """Record a commit and wake every waiting stream."""
        with self._cond:
            self._count += 1
            self._cond.notify_all()

    def wait(self, seen: int, timeout: float) -> int:
        """Wait until the count differs from ``seen`` or ``timeout`` seconds pass; the count."""
        with self._cond:
            self._cond.wait_for(lambda: self._count != seen, timeout)
            return self._count


CHANGES = _Changes()


def _key(conn: sqlite3.Connection, game_id: str) -> tuple[str, str]:
    row = conn.execute("PRAGMA database_list").fetchone()
    return (str(row[2]), game_id)


def new_game_id() -> str:
    """A fresh, URL-safe, hard-to-guess game id that never starts with ``-``.

    A leading dash would make ``scorekeeper export ID`` read the id as an option.
    """
    while True:
        game_id = secrets.token_urlsafe(6)
        if not game_id.startswith("-"):
            return game_id


def create_game(conn: sqlite3.Connection, create: Mapping[str, Any]) -> tuple[str, str]:
    """Store a new game from its checked ``create`` event; returns (id, control token)."""
    game = replay([create])
    token = secrets.token_urlsafe(24)
    now = time.time()
    game_id = new_game_id()
    with _writer_lock(conn):
        game_id = _insert_game(conn, game_id, token, create, now)
    CACHE.put(_key(conn, game_id), 0, game)
    CHANGES.bump()
    return game_id, token


def _insert_game(
    conn: sqlite3.Connection, game_id: str, token: str, create: Mapping[str, Any], now: float
) -> str:
    conn.execute("BEGIN IMMEDIATE")
    try:
        while conn.execute("SELECT 1 FROM games WHERE id=?", (game_id,)).fetchone():
            game_id = new_game_id()
        conn.execute(
            "INSERT INTO games(id, created_at, updated_at, token_hash, preset, players)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (game_id, now, now, hash_token(token), create["preset"], json.dumps(create["players"])),
        )
        conn.execute(
            "INSERT INTO events(game_id, seq, type, data, created_at) VALUES (?, 0, ?, ?, ?)",
            (game_id, "create", json.dumps(create), now),
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return game_id


def _summary(conn: sqlite3.Connection, game_id: str) -> tuple[int, float, str]:
    row = conn.execute(
        "SELECT version, created_at, token_hash FROM games WHERE id=?", (game_id,)
    ).fetchone()
    if row is None:
        raise GameNotFoundError(f"no game has the id {game_id!r}")
    return int(row[0]), float(row[1]), str(row[2])


def version_of(conn: sqlite3.Connection, game_id: str) -> int:
    """The current version of a game.

    :raises GameNotFoundError: when there is no such game.
    """
    return _summary(conn, game_id)[0]


def load_events(conn: sqlite3.Connection, game_id: str) -> list[dict[str, Any]]:
    """Every event of a game in order, as dicts (each with ``at``, its Unix time).

    :raises GameNotFoundError: when there is no such game.
    """
    rows = conn.execute(
        "SELECT data, created_at FROM events WHERE game_id=? ORDER BY seq", (game_id,)
    ).fetchall()
    if not rows:
        raise GameNotFoundError(f"no game has the id {game_id!r}")
    return [{**json.loads(data), "at": at} for data, at in rows]


@dataclass(frozen=True)
class Snapshot:
    """A game's current version and state JSON (shared: do not modify), rules and set-up."""

    id: str
    version: int
    state: dict[str, Any]
    rules: Rules
    preset: str
    created_at: float


def snapshot(conn: sqlite3.Connection, game_id: str) -> Snapshot:
    """The current state of a game, from the cache when it is up to date.

    :raises GameNotFoundError: when there is no such game.
    """
    key = _key(conn, game_id)
    conn.execute("BEGIN")
    try:
        version, created, _ = _summary(conn, game_id)
        cached = CACHE.state(key, version)
        if cached is None:
            game = replay(load_events(conn, game_id))
            cached = (game.to_json(), game)
            fresh = True
        else:
            fresh = False
    finally:
        conn.execute("COMMIT")
    if fresh:
        CACHE.put(key, version, cached[1], cached[0])
    state, game = cached
    return Snapshot(game_id, version, state, game.rules, game.preset, created)


def check_token(conn: sqlite3.Connection, game_id: str, token: str | None) -> bool:
    """Whether ``token`` is the game's control token (constant-time compare).

    :raises GameNotFoundError: when there is no such game.
    """
    _, _, stored = _summary(conn, game_id)
    return token is not None and hmac.compare_digest(stored, hash_token(token))


class _Pending:
    """One action waiting to be committed, and its outcome once a batch has run."""

    __slots__ = ("done", "error", "event", "key", "result", "seen")

    def __init__(self, key: tuple[str, str], seen: int, event: Mapping[str, Any]) -> None:
        self.key = key
        self.seen = seen
        self.event = event
        self.done = False
        self.result: Snapshot | None = None
        self.error: BaseException | None = None


_queues: dict[str, list[_Pending]] = {}


def append(
    conn: sqlite3.Connection, game_id: str, seen_version: int, event: Mapping[str, Any]
) -> Snapshot:
    """Check an action against the game at ``seen_version`` and append it, atomically.

    Returns the game just after the action (its state is shared with the cache: do not
    modify it).

    Group commit: actions that arrive while a commit is running wait for the writer lock;
    the next thread to get it commits all that are waiting in ONE transaction (one fsync),
    each action in its own savepoint, checked in arrival order. So a refused or stale action
    never affects the others, and every answer comes after its commit.

    :raises GameNotFoundError: when there is no such game.
    :raises StaleVersionError: when the game is no longer at ``seen_version``.
    :raises GameRuleError: when the rules refuse the action (nothing is stored).
    """
    key = _key(conn, game_id)
    item = _Pending(key, seen_version, event)
    lock = _writer_lock(conn)
    with _init_lock:
        _queues.setdefault(key[0], []).append(item)
    with lock:
        if not item.done:
            with _init_lock:
                batch = _queues.pop(key[0], [])
            _commit_batch(conn, batch)
    if item.error is not None:
        raise item.error
    assert item.result is not None
    return item.result


def _commit_batch(conn: sqlite3.Connection, batch: list[_Pending]) -> None:
    """Check and append a batch of actions in one transaction; fill in each outcome."""
    games: dict[tuple[str, str], tuple[int, Game, dict[str, Any]]] = {}
    ok: list[tuple[_Pending, Snapshot]] = []
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            for item in batch:
                conn.execute("SAVEPOINT action")
                try:
                    version, game, created = _append_one(conn, item, games)
                    state = game.to_json()
                except Exception as exc:
                    conn.execute("ROLLBACK TO action")
                    conn.execute("RELEASE action")
                    games.pop(item.key, None)
                    item.error = exc
                    continue
                conn.execute("RELEASE action")
                games[item.key] = (version, game, state)
                snap = Snapshot(item.key[1], version, state, game.rules, game.preset, created)
                ok.append((item, snap))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    except BaseException as exc:
        for item in batch:
            item.error = item.error or exc
        ok = []
        games = {}
    finally:
        for item in batch:
            item.done = True
    for key, (version, game, state) in games.items():
        CACHE.put(key, version, game, state)
    for item, snap in ok:
        item.result = snap
    if ok:
        CHANGES.bump()


def _append_one(
    conn: sqlite3.Connection,
    item: _Pending,
    games: dict[tuple[str, str], tuple[int, Game, dict[str, Any]]],
) -> tuple[int, Game, float]:
    game_id = item.key[1]
    version, created, _ = _summary(conn, game_id)
    if item.seen != version:
        raise StaleVersionError(
            f"the game has moved on to version {version} (another device acted after"
            f" version {item.seen}); here is the current state, try again",
            version,
        )
    held = games.get(item.key)
    game = held[1] if held and held[0] == version else CACHE.take(item.key, version)
    events: list[dict[str, Any]] = []
    if game is None or item.event["type"] == "undo":
        events = load_events(conn, game_id)
        game = game or replay(events)
    game = advance(game, events, item.event)
    now = time.time()
    conn.execute(
        "INSERT INTO events(game_id, seq, type, data, created_at) VALUES (?, ?, ?, ?, ?)",
        (game_id, version + 1, item.event["type"], json.dumps(dict(item.event)), now),
    )
    playing = [p.name for p in game.players if p.active] or [p.name for p in game.players]
    conn.execute(
        "UPDATE games SET version=?, updated_at=?, over=?, winner=?, players=? WHERE id=?",
        (version + 1, now, int(game.over), game.winner_text(), json.dumps(playing), game_id),
    )
    return version + 1, game, created


def list_games(conn: sqlite3.Connection, limit: int = 50) -> list[dict[str, Any]]:
    """Summaries of the latest games, newest first."""
    rows = conn.execute(
        "SELECT id, created_at, updated_at, preset, players, version, over, winner"
        " FROM games ORDER BY created_at DESC, rowid DESC LIMIT ?",
        (limit,),
    ).fetchall()
    return [
        {
            "id": r[0],
            "created_at": r[1],
            "updated_at": r[2],
            "preset": r[3],
            "players": json.loads(r[4]),
            "version": r[5],
            "over": bool(r[6]),
            "winner": r[7],
        }
        for r in rows
    ]


def read_log(conn: sqlite3.Connection, game_id: str) -> tuple[int, float, list[dict[str, Any]]]:
    """A consistent read of a game's version, creation time and full event log.

    :raises GameNotFoundError: when there is no such game.
    """
    conn.execute("BEGIN")
    try:
        version, created, _ = _summary(conn, game_id)
        events = load_events(conn, game_id)
    finally:
        conn.execute("COMMIT")
    return version, created, events
