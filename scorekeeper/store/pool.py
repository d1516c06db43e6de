"""Connections: opening a database (WAL, ``synchronous=FULL``), each thread's kept connections,
and this process's writer lock per database file."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from scorekeeper.store.schema import migrate

BUSY_TIMEOUT_S = 10.0
"""How long a connection waits for another process's write lock."""

MAX_OPEN_PER_THREAD = 4
"""How many databases one thread keeps open; the least recently opened is closed beyond."""

_init_lock = threading.Lock()
_initialised: set[str] = set()
_local = threading.local()
_writer_locks_lock = threading.Lock()
_writer_locks: dict[str, threading.Lock] = {}


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
                migrate(conn)
                _initialised.add(key)
    return conn


def thread_connection(path: str | Path) -> sqlite3.Connection:
    """This thread's long-lived connection to ``path`` (opened on first use, kept open).

    Reusing connections spares a request the open, and keeps SQLite from checkpointing the
    WAL on every close. Each thread keeps at most :data:`MAX_OPEN_PER_THREAD` databases open.
    """
    conns: dict[str, sqlite3.Connection] | None = getattr(_local, "conns", None)
    if conns is None:
        conns = _local.conns = {}
    key = str(path)
    conn = conns.get(key)
    if conn is None:
        while len(conns) >= MAX_OPEN_PER_THREAD:
            conns.pop(next(iter(conns))).close()
        conn = conns[key] = connect(key)
    elif conn.in_transaction:  # never expected: every write commits or rolls back
        conn.rollback()
    return conn


def database_file(conn: sqlite3.Connection) -> str:
    """The file the connection's main database lives in."""
    return str(conn.execute("PRAGMA database_list").fetchone()[2])


def writer_lock(conn: sqlite3.Connection) -> threading.Lock:
    """This process's lock for writing to the connection's database file.

    Writers in one process queue on it (woken at once, in turn) instead of on SQLite's busy
    handler, which sleeps in steps of up to 100 ms; ``BEGIN IMMEDIATE`` still guards against
    other processes.
    """
    path = database_file(conn)
    with _writer_locks_lock:
        lock = _writer_locks.get(path)
        if lock is None:
            lock = _writer_locks[path] = threading.Lock()
    return lock
