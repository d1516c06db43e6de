"""This process's memory of the games: the latest replay of each, and a commit counter."""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from typing import Any

from scorekeeper.game import Game
from scorekeeper.store.pool import database_file

CACHED_GAMES = 256
"""How many games the replay cache keeps; the least recently stored are replayed again."""

GameKey = tuple[str, str]
"""A game in this process: (database file, game id)."""


def game_key(conn: sqlite3.Connection, game_id: str) -> GameKey:
    """The cache key of a game in the connection's database."""
    return (database_file(conn), game_id)


class ReplayCache:
    """The latest replay of each game in this process, keyed by (database, game id).

    At most ``size`` games are kept; the least recently stored are forgotten (and replayed
    from the database when asked for again).
    """

    def __init__(self, size: int = CACHED_GAMES) -> None:
        self._lock = threading.Lock()
        self._size = size
        self._games: dict[GameKey, tuple[int, Game]] = {}
        self._states: OrderedDict[GameKey, tuple[int, dict[str, Any], Game]] = OrderedDict()

    def take(self, key: GameKey, version: int) -> Game | None:
        """Remove and return the cached game if it is at ``version`` (writers own it)."""
        with self._lock:
            entry = self._games.pop(key, None)
        return entry[1] if entry and entry[0] == version else None

    def put(
        self,
        key: GameKey,
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

    def state(self, key: GameKey, version: int) -> tuple[dict[str, Any], Game] | None:
        """The cached state JSON (do not modify it) of the game at ``version``, and the game.

        The game is for reading its rules and set-up only: a writer may be changing it.
        """
        with self._lock:
            entry = self._states.get(key)
        return (entry[1], entry[2]) if entry and entry[0] == version else None

    def forget(self, key: GameKey) -> None:
        """Drop one game (it was deleted)."""
        with self._lock:
            self._games.pop(key, None)
            self._states.pop(key, None)

    def clear(self) -> None:
        """Forget everything (tests)."""
        with self._lock:
            self._games.clear()
            self._states.clear()


CACHE = ReplayCache()
"""This process's replay cache."""


class Changes:
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


CHANGES = Changes()
"""This process's commit counter."""
