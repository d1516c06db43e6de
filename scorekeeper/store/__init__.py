"""The durable event log: SQLite (WAL, ``synchronous=FULL``), one append-only events table.

A game is loaded by replaying its events (:func:`scorekeeper.game.replay`); a per-process
cache keeps the latest replay of each game so an action costs one small transaction. Every
action is checked and appended inside ``BEGIN IMMEDIATE``, so of several writers that saw the
same version exactly one succeeds and the others get :class:`StaleVersionError`. A success is
reported only after the commit, which ``synchronous=FULL`` makes durable (it survives a
``kill -9`` of the server or a power cut).

The version of a game is the number of events after its ``create`` event.

- :mod:`~scorekeeper.store.schema`: the tables (``PRAGMA user_version`` = ``SCHEMA_VERSION``);
- :mod:`~scorekeeper.store.pool`: opening databases, each thread's connections, writer locks;
- :mod:`~scorekeeper.store.games`: creating, reading, listing and deleting games;
- :mod:`~scorekeeper.store.rulesets`: a table's saved house rules;
- :mod:`~scorekeeper.store.commit`: appending actions by group commit;
- :mod:`~scorekeeper.store.cache`: the replay cache and the commit counter streams wait on.
"""

from scorekeeper.store.cache import CACHE, CHANGES
from scorekeeper.store.commit import append
from scorekeeper.store.games import (
    Snapshot,
    check_token,
    create_game,
    delete_game,
    hash_token,
    list_games,
    load_events,
    new_game_id,
    read_log,
    snapshot,
    version_of,
)
from scorekeeper.store.pool import BUSY_TIMEOUT_S, connect, default_db_path, thread_connection
from scorekeeper.store.schema import SCHEMA_VERSION

__all__ = [
    "BUSY_TIMEOUT_S",
    "CACHE",
    "CHANGES",
    "SCHEMA_VERSION",
    "Snapshot",
    "append",
    "check_token",
    "connect",
    "create_game",
    "default_db_path",
    "delete_game",
    "hash_token",
    "list_games",
    "load_events",
    "new_game_id",
    "read_log",
    "snapshot",
    "thread_connection",
    "version_of",
]
