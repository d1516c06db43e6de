"""Players across the stored games: games, wins, turn averages, farkle rate, accuracy and luck.

Names are matched case-insensitively; ``merge_names`` makes one name an alias of another (kept
in the game database's own ``player_aliases`` table), so "bob" and "Bobby" can be one player.
Only finished games count (the latest ``MAX_GAMES``); accuracy and luck come from each game's
review (``stored_review``: computed once, then kept).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scorekeeper.errors import PlayerMergeError
from scorekeeper.game import replay
from scorekeeper.review.service import stored_review
from scorekeeper.store import read_log

MAX_GAMES = 200
ALIASES_TABLE = (
    "CREATE TABLE IF NOT EXISTS player_aliases (alias TEXT PRIMARY KEY, name TEXT NOT NULL)"
)


@dataclass
class PlayerHistory:
    """One player's record over the finished games (under their canonical name)."""

    name: str
    games: int = 0
    wins: int = 0
    turns: int = 0
    farkles: int = 0
    points: int = 0
    names: set[str] = field(default_factory=set)
    series: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """JSON form: totals, rates, and one entry per game (oldest first)."""
        judged = [g for g in self.series if g["accuracy"] is not None]
        return {
            "name": self.name,
            "names": sorted(self.names),
            "games": self.games,
            "wins": self.wins,
            "turns": self.turns,
            "average_turn_score": round(self.points / self.turns, 1) if self.turns else None,
            "farkle_rate": round(self.farkles / self.turns, 4) if self.turns else None,
            "accuracy": (
                round(sum(g["accuracy"] for g in judged) / len(judged), 1) if judged else None
            ),
            "luck": round(sum(g["luck"] for g in self.series), 1),
            "series": self.series,
        }


def _aliases(conn: sqlite3.Connection) -> dict[str, str]:
    conn.execute(ALIASES_TABLE)
    return {str(a): str(n) for a, n in conn.execute("SELECT alias, name FROM player_aliases")}


def canonical(name: str, aliases: dict[str, str]) -> str:
    """The name a player is recorded under, following merges (case-insensitive)."""
    seen: set[str] = set()
    while name.casefold() in aliases and name.casefold() not in seen:
        seen.add(name.casefold())
        name = aliases[name.casefold()]
    return name


def _finished_games(conn: sqlite3.Connection) -> list[str]:
    rows = conn.execute(
        "SELECT id FROM games WHERE over=1 ORDER BY created_at DESC, rowid DESC LIMIT ?",
        (MAX_GAMES,),
    ).fetchall()
    return [str(r[0]) for r in reversed(rows)]


def player_histories(
    conn: sqlite3.Connection, cache_dir: str | Path | None = None
) -> list[PlayerHistory]:
    """Every player of the finished games, most games first."""
    aliases = _aliases(conn)
    players: dict[str, PlayerHistory] = {}
    for game_id in _finished_games(conn):
        _version, created, events = read_log(conn, game_id)
        game = replay(events)
        review = stored_review(conn, game_id, cache_dir)
        for seat, p in enumerate(game.players):
            name = canonical(p.name, aliases)
            rec = players.setdefault(name.casefold(), PlayerHistory(name))
            rec.names.add(p.name)
            rec.games += 1
            rec.wins += seat in game.winners
            rec.turns += p.stats.turns
            rec.farkles += p.stats.farkles
            rec.points += p.stats.banked_points
            pr = review["players"][seat]
            rec.series.append(
                {
                    "game": game_id,
                    "at": created,
                    "won": seat in game.winners,
                    "accuracy": pr["accuracy"],
                    "luck": pr["luck"],
                    "points_lost": pr["points_lost"],
                }
            )
    return sorted(players.values(), key=lambda r: (-r.games, r.name.casefold()))


def _names(events: list[dict[str, Any]]) -> list[str]:
    joined = [str(e["name"]) for e in events if e.get("type") == "join"]
    return [str(n) for n in events[0]["players"]] + joined


def merge_names(conn: sqlite3.Connection, name: str, into: str) -> str:
    """Record ``name`` as the same player as ``into``; returns the canonical name.

    :raises PlayerMergeError: when either name is in no finished game, or both are one player.
    """
    aliases = _aliases(conn)
    known: dict[str, str] = {}
    for game_id in _finished_games(conn):
        for n in _names(read_log(conn, game_id)[2]):
            known.setdefault(canonical(n, aliases).casefold(), canonical(n, aliases))
    for given in (name, into):
        if canonical(given, aliases).casefold() not in known:
            raise PlayerMergeError(f"no finished game has a player called {given!r}")
    target = known[canonical(into, aliases).casefold()]
    if canonical(name, aliases).casefold() == target.casefold():
        raise PlayerMergeError(f"{name!r} and {into!r} are already the same player")
    conn.execute(
        "INSERT OR REPLACE INTO player_aliases (alias, name) VALUES (?, ?)",
        (canonical(name, aliases).casefold(), target),
    )
    return target
