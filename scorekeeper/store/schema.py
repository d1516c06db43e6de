"""The database schema: its version and the statements that create it.

- ``games(id, created_at, updated_at, token_hash, preset, players, version, over, winner)``:
  one row per game, a summary for listing, updated with each append.
- ``events(game_id, seq, type, data, created_at)``: ``seq`` 0 is ``create``; triggers refuse
  UPDATE, and DELETE while the game's row exists (a game is deleted whole: its row first, then
  its events, in one transaction).
- ``rulesets(name, preset, overrides, created_at, updated_at)``: a table's saved house rules.

Version 2 (from 1): the delete trigger allows deleting a deleted game's events; ``rulesets``.
"""

from __future__ import annotations

import sqlite3

SCHEMA_VERSION = 2
"""The schema this code writes, kept in ``PRAGMA user_version``."""

SCHEMA = (
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
    """CREATE TRIGGER IF NOT EXISTS events_no_delete_live BEFORE DELETE ON events
WHEN EXISTS (SELECT 1 FROM games WHERE id = OLD.game_id)
BEGIN SELECT RAISE(ABORT, 'events are append-only while their game exists'); END""",
    """CREATE TABLE IF NOT EXISTS rulesets (
    name TEXT PRIMARY KEY,
    preset TEXT NOT NULL,
    overrides TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
)""",
)
"""The statements that create the schema at :data:`SCHEMA_VERSION` (each idempotent)."""


def migrate(conn: sqlite3.Connection) -> None:
    """Bring the database to :data:`SCHEMA_VERSION` in one transaction.

    :raises sqlite3.DatabaseError: when the database has a newer schema than this code knows.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise sqlite3.DatabaseError(
                f"the database has schema version {version}; this scorekeeper knows up to"
                f" {SCHEMA_VERSION}: upgrade scorekeeper"
            )
        if version < SCHEMA_VERSION:
            # version 1 refused every delete of events; version 2 deletes a deleted game's
            conn.execute("DROP TRIGGER IF EXISTS events_no_delete")
            for statement in SCHEMA:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
