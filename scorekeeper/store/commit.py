"""Appending actions: each checked and stored inside ``BEGIN IMMEDIATE``, by group commit."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Mapping
from typing import Any

from scorekeeper.errors import StaleVersionError
from scorekeeper.game import LOG_EVENTS, Game, advance, replay, rolled_event
from scorekeeper.store.cache import CACHE, CHANGES, GameKey, game_key
from scorekeeper.store.games import Snapshot, load_events, summary
from scorekeeper.store.pool import writer_lock

_queues_lock = threading.Lock()
_queues: dict[str, list[_Pending]] = {}
_Held = dict[GameKey, tuple[int, Game, dict[str, Any]]]


class _Pending:
    """One action waiting to be committed, and its outcome once a batch has run."""

    __slots__ = ("done", "error", "event", "key", "result", "seen")

    def __init__(self, key: GameKey, seen: int, event: Mapping[str, Any]) -> None:
        self.key = key
        self.seen = seen
        self.event = event
        self.done = False
        self.result: Snapshot | None = None
        self.error: BaseException | None = None


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
    key = game_key(conn, game_id)
    # Versions only grow, so an action based on any other version than the committed one is
    # stale whatever commits next: answer it at once, without waiting for the writer lock.
    _check_seen(seen_version, summary(conn, game_id).version)
    item = _Pending(key, seen_version, event)
    lock = writer_lock(conn)
    with _queues_lock:
        _queues.setdefault(key[0], []).append(item)
    with lock:
        if not item.done:
            with _queues_lock:
                batch = _queues.pop(key[0], [])
            _commit_batch(conn, batch)
    if item.error is not None:
        raise item.error
    assert item.result is not None
    return item.result


def _commit_batch(conn: sqlite3.Connection, batch: list[_Pending]) -> None:
    """Check and append a batch of actions in one transaction; fill in each outcome."""
    games: _Held = {}
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


def _check_seen(seen: int, version: int) -> None:
    if seen != version:
        raise StaleVersionError(
            f"the game has moved on to version {version} (another device acted after"
            f" version {seen}); here is the current state, try again",
            version,
        )


def _append_one(conn: sqlite3.Connection, item: _Pending, games: _Held) -> tuple[int, Game, float]:
    game_id = item.key[1]
    row = summary(conn, game_id)
    version = row.version
    _check_seen(item.seen, version)
    held = games.get(item.key)
    game = held[1] if held and held[0] == version else CACHE.take(item.key, version)
    events: list[dict[str, Any]] = []
    if game is None or item.event["type"] in LOG_EVENTS:
        events = load_events(conn, game_id)
        game = game or replay(events)
    event = rolled_event(game, item.event)  # a roll is stored as the throw it rolled
    game = advance(game, events, event)
    now = time.time()
    conn.execute(
        "INSERT INTO events(game_id, seq, type, data, created_at) VALUES (?, ?, ?, ?, ?)",
        (game_id, version + 1, event["type"], json.dumps(dict(event)), now),
    )
    playing = [p.name for p in game.players if p.active] or [p.name for p in game.players]
    conn.execute(
        "UPDATE games SET version=?, updated_at=?, over=?, winner=?, players=? WHERE id=?",
        (version + 1, now, int(game.over), game.winner_text(), json.dumps(playing), game_id),
    )
    return version + 1, game, row.created_at
