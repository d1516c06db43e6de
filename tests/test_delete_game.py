"""Deleting a game: control token and confirmation, gone from the list, the board and the
store; the v1 -> v2 schema migration; the CLI's ``games --delete``."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers.table import NewTable

from scorekeeper import store
from scorekeeper.cli import main
from scorekeeper.game.actions import parse_setup


def _delete(client: FlaskClient, game_id: str, token: str | None, body: object) -> tuple[int, dict]:  # type: ignore[type-arg]
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = client.delete(f"/api/games/{game_id}", json=body, headers=headers)
    return r.status_code, r.get_json()


def test_delete_needs_the_token_and_the_confirmation(
    app: Flask, client: FlaskClient, new_table: NewTable
) -> None:
    t = new_table(["Ann", "Bob"], opening_minimum=0)
    t.quick(300)
    keep = new_table(["Cy"], opening_minimum=0)
    assert _delete(client, t.id, None, {"confirm": t.id})[0] == 401
    assert _delete(client, t.id, "x" * 32, {"confirm": t.id})[0] == 403
    status, body = _delete(client, t.id, t.token, {"confirm": "wrong"})
    assert status == 400 and f'{{"confirm": "{t.id}"}}' in body["message"]
    r = client.delete(f"/api/games/{t.id}", headers={"Authorization": f"Bearer {t.token}"})
    assert r.status_code == 400 and "cannot be undone" in r.get_json()["message"]
    assert _delete(client, t.id, t.token, {"confirm": t.id}) == (200, {"deleted": t.id})
    assert client.get(f"/api/games/{t.id}").status_code == 404
    assert client.get(f"/api/games/{t.id}/export.csv").status_code == 404
    assert [g["id"] for g in client.get("/api/games").json["games"]] == [keep.id]
    status, body = _delete(client, t.id, t.token, {"confirm": t.id})
    assert status == 404 and t.id in body["message"]
    conn = sqlite3.connect(app.config["DATABASE"])
    assert conn.execute("SELECT COUNT(*) FROM events WHERE game_id=?", (t.id,)).fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM events WHERE game_id=?", (keep.id,)).fetchone()[0]
    conn.close()
    keep.quick(200)  # the other game plays on


def test_a_live_games_events_stay_append_only(tmp_path: Path) -> None:
    conn = store.connect(tmp_path / "g.sqlite3")
    game_id, _ = store.create_game(conn, parse_setup({"players": ["Ann"]}))
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("DELETE FROM events WHERE game_id=?", (game_id,))
    conn.close()


def test_a_version_1_database_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    raw = sqlite3.connect(path)
    raw.executescript(
        """CREATE TABLE games (id TEXT PRIMARY KEY, created_at REAL NOT NULL,
        updated_at REAL NOT NULL, token_hash TEXT NOT NULL, preset TEXT NOT NULL,
        players TEXT NOT NULL, version INTEGER NOT NULL DEFAULT 0,
        over INTEGER NOT NULL DEFAULT 0, winner TEXT);
        CREATE TABLE events (game_id TEXT NOT NULL REFERENCES games(id), seq INTEGER NOT NULL,
        type TEXT NOT NULL, data TEXT NOT NULL, created_at REAL NOT NULL,
        PRIMARY KEY (game_id, seq)) WITHOUT ROWID;
        CREATE TRIGGER events_no_delete BEFORE DELETE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
        PRAGMA user_version=1;"""
    )
    raw.close()
    conn = store.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
    game_id, _ = store.create_game(conn, parse_setup({"players": ["Ann"]}))
    store.delete_game(conn, game_id)
    assert store.list_games(conn) == []
    conn.close()


def test_cli_deletes_a_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "g.sqlite3"
    conn = store.connect(db)
    game_id, _ = store.create_game(conn, parse_setup({"players": ["Ann"]}))
    conn.close()
    assert main(["games", "--db", str(db), "--delete", game_id]) == 0
    assert json.loads(capsys.readouterr().out) == {"deleted": game_id}
    assert main(["games", "--db", str(db)]) == 0
    assert json.loads(capsys.readouterr().out) == {"games": []}
    assert main(["games", "--db", str(db), "--delete", game_id]) == 2
    assert f"no game has the id {game_id!r}" in capsys.readouterr().err
