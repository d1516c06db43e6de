"""The event store: schema version, append-only events, replay from disk, group commit."""

from __future__ import annotations

import secrets
import sqlite3
import threading
from pathlib import Path

import pytest

from scorekeeper import store
from scorekeeper.errors import GameNotFoundError, GameRuleError, StaleVersionError
from scorekeeper.game import replay
from scorekeeper.game.actions import parse_setup


def _new(tmp_path: Path) -> tuple[sqlite3.Connection, str]:
    conn = store.connect(tmp_path / "g.sqlite3")
    setup = parse_setup({"players": ["Ann", "Bob"], "rules": {"overrides": {"opening_minimum": 0}}})
    game_id, _ = store.create_game(conn, setup)
    return conn, game_id


def test_schema_version_wal_and_full_sync(tmp_path: Path) -> None:
    conn, _ = _new(tmp_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == store.SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    conn.close()


def test_events_are_append_only(tmp_path: Path) -> None:
    conn, game_id = _new(tmp_path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("UPDATE events SET type='bank' WHERE game_id=?", (game_id,))
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("DELETE FROM events")
    conn.close()


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite3"
    raw = sqlite3.connect(path)
    raw.execute(f"PRAGMA user_version={store.SCHEMA_VERSION + 1}")
    raw.close()
    with pytest.raises(sqlite3.DatabaseError, match="upgrade scorekeeper"):
        store.connect(path)


def test_append_checks_the_version_and_the_rules(tmp_path: Path) -> None:
    conn, game_id = _new(tmp_path)
    snap = store.append(conn, game_id, 0, {"type": "quick_score", "points": 300})
    assert snap.version == 1 and snap.state["players"][0]["score"] == 300
    with pytest.raises(StaleVersionError) as stale:
        store.append(conn, game_id, 0, {"type": "quick_score", "points": 300})
    assert stale.value.current == 1
    with pytest.raises(GameRuleError):
        store.append(conn, game_id, 1, {"type": "keep", "dice": [1]})
    with pytest.raises(GameNotFoundError):
        store.append(conn, "nope", 0, {"type": "bank"})
    assert store.version_of(conn, game_id) == 1  # nothing refused was stored
    store.CACHE.clear()  # a fresh process: the state comes back by replay
    assert store.snapshot(conn, game_id).state == snap.state
    conn.close()


def test_group_commit_keeps_each_action_separate(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    conn, game_id = _new(tmp_path)
    results: list[object] = []
    lock = threading.Lock()

    def act(i: int) -> None:
        own = store.connect(path)
        kind = (
            {"type": "keep", "dice": [1]} if i % 3 == 0 else {"type": "quick_score", "points": 50}
        )
        for _ in range(10):
            version = store.version_of(own, game_id)
            try:
                out: object = store.append(own, game_id, version, kind).version
            except (StaleVersionError, GameRuleError) as exc:
                out = type(exc).__name__
            with lock:
                results.append(out)
        own.close()

    threads = [threading.Thread(target=act, args=(i,)) for i in range(9)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    won = sorted(r for r in results if isinstance(r, int))
    assert won == list(range(1, len(won) + 1))
    assert "GameRuleError" in results  # refused keeps did not spoil their batches
    _, _, events = store.read_log(conn, game_id)
    assert len(events) == len(won) + 1
    assert replay(events).to_json() == store.snapshot(conn, game_id).state
    conn.close()


def test_game_ids_never_start_with_a_dash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A leading dash would make ``scorekeeper export ID`` read the id as an option."""
    from scorekeeper.cli import main

    drawn = iter(["-dash1", "-dash2", "ok_id1"])
    real = secrets.token_urlsafe
    monkeypatch.setattr(secrets, "token_urlsafe", lambda n: next(drawn) if n == 6 else real(n))
    conn, game_id = _new(tmp_path)
    conn.close()
    assert game_id == "ok_id1"
    db = str(tmp_path / "g.sqlite3")
    assert main(["export", game_id, "--db", db]) == 0
    assert capsys.readouterr().out.startswith("turn,")
