"""The review of a stored game, cached per game version (an undo is a new version).

Reviews are kept in memory (the latest ``MEMORY_REVIEWS``) and, for finished games, in the
game database's own ``game_reviews`` table (created here; the event log is untouched), so the
players page does not review old games again in a new process.

``stored_review(conn, game_id, cache_dir)`` reads the log, reviews it with the rules' solved
policy (from the policy cache, solved once if missing) and, for two players, the win table
only when it is already cached (it never starts a win-probability solve).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path
from typing import Any

from scorekeeper.cache import LRU
from scorekeeper.review.evaluate import review_events
from scorekeeper.rules import Rules
from scorekeeper.store import read_log
from scorekeeper.strategy import policy_for
from scorekeeper.winprob import cached_winprob

MEMORY_REVIEWS = 64
REVIEWS_TABLE = (
    "CREATE TABLE IF NOT EXISTS game_reviews (game_id TEXT PRIMARY KEY, version INTEGER NOT NULL,"
    " win INTEGER NOT NULL, body TEXT NOT NULL)"
)
IN_PROGRESS = "The game is still in play: this is the review so far."
WIN_WORDS = {
    "available": None,
    "not_yet_available": (
        "Win chance not yet available: the two-player win tables for these rules have not"
        " been solved yet (the play page solves them in the background)."
    ),
    "two_players_only": "Win chance is reviewed for two-player games only.",
}

_reviews: LRU[tuple[str, ...], dict[str, Any]] = LRU(MEMORY_REVIEWS)


def _database(conn: sqlite3.Connection) -> str:
    row = conn.execute("PRAGMA database_list").fetchone()
    return str(row[2]) if row else ""


def stored_review(
    conn: sqlite3.Connection, game_id: str, cache_dir: str | Path | None = None
) -> dict[str, Any]:
    """The review JSON of a stored game (``id`` and ``version`` first), cached per version.

    ``cache_dir``: the base cache folder (policies in it, win tables under ``winprob/``);
    None for the user cache folders.

    :raises GameNotFoundError: when there is no such game.
    """
    version, _created, events = read_log(conn, game_id)
    rules = Rules.from_stored(events[0]["rules"])
    win_folder = Path(cache_dir) / "winprob" if cache_dir else None
    players = {str(p).casefold() for p in events[0]["players"]}
    players |= {str(e["name"]).casefold() for e in events if e.get("type") == "join"}
    win = cached_winprob(rules, win_folder) if len(players) == 2 else None
    key = (_database(conn), game_id, str(version), str(cache_dir), str(win is not None))
    found = _reviews.get(key)
    if found is not None:
        return found
    body = _stored(conn, game_id, version, win is not None)
    if body is None:
        review = review_events(events, policy_for(rules, cache_dir), win)
        body = {"id": game_id, "version": version, **review.to_json()}
        body["win_chance_message"] = WIN_WORDS.get(review.win_chance)
        if not review.over and body["message"] is None:
            body["message"] = IN_PROGRESS
        if review.over:
            _store(conn, game_id, version, win is not None, body)
    _reviews.put(key, body)
    return body


def _table(conn: sqlite3.Connection) -> None:
    conn.execute(REVIEWS_TABLE)


def _stored(
    conn: sqlite3.Connection, game_id: str, version: int, win: bool
) -> dict[str, Any] | None:
    """The stored review of a finished game at this version, or None (also when the database
    cannot take the reviews table: a read-only file)."""
    try:
        _table(conn)
        row = conn.execute(
            "SELECT body FROM game_reviews WHERE game_id=? AND version=? AND win=?",
            (game_id, version, int(win)),
        ).fetchone()
    except sqlite3.OperationalError:
        return None
    return None if row is None else dict(json.loads(row[0]))


def _store(
    conn: sqlite3.Connection, game_id: str, version: int, win: bool, body: dict[str, Any]
) -> None:
    """Keep the review of a finished game (a busy database only costs a recomputation)."""
    with contextlib.suppress(sqlite3.OperationalError):
        conn.execute(
            "INSERT OR REPLACE INTO game_reviews (game_id, version, win, body) VALUES (?,?,?,?)",
            (game_id, version, int(win), json.dumps(body)),
        )


def clear_reviews() -> None:
    """Forget every cached review."""
    _reviews.clear()
