"""Creating, reading and listing games: the SQL of the ``games`` and ``events`` tables."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import sqlite3
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scorekeeper.errors import GameNotFoundError
from scorekeeper.game import replay
from scorekeeper.rules import Rules
from scorekeeper.store.cache import CACHE, CHANGES, game_key
from scorekeeper.store.pool import writer_lock

GAME_ID_BYTES = 6
"""Random bytes in a game id (8 URL-safe characters)."""

CONTROL_TOKEN_BYTES = 24
"""Random bytes in a control token (32 URL-safe characters)."""

DEFAULT_LIST_LIMIT = 50
"""How many games :func:`list_games` returns unless asked."""


@dataclass(frozen=True)
class Snapshot:
    """A game's current version and state JSON (shared: do not modify), rules and set-up."""

    id: str
    version: int
    state: dict[str, Any]
    rules: Rules
    preset: str
    created_at: float


@dataclass(frozen=True)
class Summary:
    """A game's row in ``games``: its version, creation time and control-token hash."""

    version: int
    created_at: float
    token_hash: str


def hash_token(token: str) -> str:
    """The stored form of a control token (SHA-256, hex)."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_game_id() -> str:
    """A fresh, URL-safe, hard-to-guess game id that never starts with ``-``.

    A leading dash would make ``scorekeeper export ID`` read the id as an option.
    """
    while True:
        game_id = secrets.token_urlsafe(GAME_ID_BYTES)
        if not game_id.startswith("-"):
            return game_id


def create_game(conn: sqlite3.Connection, create: Mapping[str, Any]) -> tuple[str, str]:
    """Store a new game from its checked ``create`` event; returns (id, control token)."""
    game = replay([create])
    token = secrets.token_urlsafe(CONTROL_TOKEN_BYTES)
    now = time.time()
    game_id = new_game_id()
    with writer_lock(conn):
        game_id = _insert_game(conn, game_id, token, create, now)
    CACHE.put(game_key(conn, game_id), 0, game)
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


def summary(conn: sqlite3.Connection, game_id: str) -> Summary:
    """A game's version, creation time and token hash.

    :raises GameNotFoundError: when there is no such game.
    """
    row = conn.execute(
        "SELECT version, created_at, token_hash FROM games WHERE id=?", (game_id,)
    ).fetchone()
    if row is None:
        raise GameNotFoundError(f"no game has the id {game_id!r}")
    return Summary(int(row[0]), float(row[1]), str(row[2]))


def version_of(conn: sqlite3.Connection, game_id: str) -> int:
    """The current version of a game.

    :raises GameNotFoundError: when there is no such game.
    """
    return summary(conn, game_id).version


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


def snapshot(conn: sqlite3.Connection, game_id: str) -> Snapshot:
    """The current state of a game, from the cache when it is up to date.

    :raises GameNotFoundError: when there is no such game.
    """
    key = game_key(conn, game_id)
    conn.execute("BEGIN")
    try:
        row = summary(conn, game_id)
        cached = CACHE.state(key, row.version)
        if cached is None:
            game = replay(load_events(conn, game_id))
            cached = (game.to_json(), game)
            fresh = True
        else:
            fresh = False
    finally:
        conn.execute("COMMIT")
    if fresh:
        CACHE.put(key, row.version, cached[1], cached[0])
    state, game = cached
    return Snapshot(game_id, row.version, state, game.rules, game.preset, row.created_at)


def check_token(conn: sqlite3.Connection, game_id: str, token: str | None) -> bool:
    """Whether ``token`` is the game's control token (constant-time compare).

    :raises GameNotFoundError: when there is no such game.
    """
    stored = summary(conn, game_id).token_hash
    return token is not None and hmac.compare_digest(stored, hash_token(token))


def list_games(conn: sqlite3.Connection, limit: int = DEFAULT_LIST_LIMIT) -> list[dict[str, Any]]:
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
        row = summary(conn, game_id)
        events = load_events(conn, game_id)
    finally:
        conn.execute("COMMIT")
    return row.version, row.created_at, events


def delete_game(conn: sqlite3.Connection, game_id: str) -> None:
    """Delete a game whole: its row, its events and its stored review, in one transaction.

    :raises GameNotFoundError: when there is no such game.
    """
    with writer_lock(conn):
        conn.execute("BEGIN IMMEDIATE")
        try:
            summary(conn, game_id)
            conn.execute("PRAGMA defer_foreign_keys=ON")  # the row goes before its events
            conn.execute("DELETE FROM games WHERE id=?", (game_id,))
            conn.execute("DELETE FROM events WHERE game_id=?", (game_id,))
            has_reviews = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='game_reviews'"
            ).fetchone()
            if has_reviews:
                conn.execute("DELETE FROM game_reviews WHERE game_id=?", (game_id,))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    CACHE.forget(game_key(conn, game_id))
    CHANGES.bump()
