"""The camera log: every proposal shown, and the throw finally recorded (or dismissed) for it.

Kept in its own small SQLite file beside the game database (``<db>-camera.sqlite3``) so the
game's event store and schema stay untouched. ``scorekeeper camera-stats`` reads it.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scorekeeper.errors import CameraError

SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS proposals (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    source TEXT NOT NULL,
    frame_id INTEGER NOT NULL,
    dice TEXT NOT NULL,
    confidence REAL NOT NULL,
    dice_left INTEGER,
    truth TEXT,
    outcome TEXT,
    recorded TEXT,
    game TEXT,
    decided REAL
);
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def log_path_for(database: str | Path) -> Path:
    """The camera log's path beside a game database file.

    >>> log_path_for("/data/games.sqlite3").name
    'games-camera.sqlite3'
    """
    db = Path(database)
    return db.with_name(f"{db.stem}-camera.sqlite3")


class CameraLog:
    """Append proposals and their outcomes; summarise them. Thread-safe."""

    def __init__(self, path: str | Path) -> None:
        """Open (creating) the log at ``path``."""
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=10)
        with self._lock, self._db:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(_SCHEMA)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()

    def add_proposal(
        self,
        pid: str,
        *,
        source: str,
        frame_id: int,
        dice: Sequence[int],
        confidence: float,
        dice_left: int | None = None,
        truth: Sequence[int] | None = None,
    ) -> bool:
        """Log a proposal once (True when it was new)."""
        with self._lock, self._db:
            cur = self._db.execute(
                "INSERT OR IGNORE INTO proposals (id, created, source, frame_id, dice, confidence,"
                " dice_left, truth) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    pid,
                    time.time(),
                    source,
                    frame_id,
                    json.dumps(sorted(dice)),
                    confidence,
                    dice_left,
                    json.dumps(sorted(truth)) if truth is not None else None,
                ),
            )
            return cur.rowcount == 1

    def set_outcome(
        self, pid: str, recorded: Sequence[int] | None, game: str | None = None
    ) -> dict[str, Any]:
        """Note what was recorded for proposal ``pid`` (None: the player dismissed it).

        :raises CameraError: no such proposal in the log.
        """
        outcome = "dismissed" if recorded is None else "recorded"
        with self._lock, self._db:
            cur = self._db.execute(
                "UPDATE proposals SET outcome=?, recorded=?, game=?, decided=? WHERE id=?",
                (
                    outcome,
                    json.dumps(sorted(recorded)) if recorded is not None else None,
                    game,
                    time.time(),
                    pid,
                ),
            )
            if cur.rowcount != 1:
                raise CameraError(f"no camera proposal {pid!r} in the log")
            row = self._db.execute("SELECT dice FROM proposals WHERE id=?", (pid,)).fetchone()
        proposed = json.loads(row[0])
        return {
            "id": pid,
            "outcome": outcome,
            "proposed": proposed,
            "recorded": sorted(recorded) if recorded is not None else None,
            "exact": recorded is not None and sorted(recorded) == proposed,
        }

    def get_setting(self, key: str) -> Any:
        """A stored setting (JSON value) or None."""
        with self._lock:
            row = self._db.execute("SELECT value FROM settings WHERE key=?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def set_setting(self, key: str, value: Any) -> None:
        """Store a setting (JSON value); None deletes it."""
        with self._lock, self._db:
            if value is None:
                self._db.execute("DELETE FROM settings WHERE key=?", (key,))
            else:
                self._db.execute(
                    "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                    (key, json.dumps(value)),
                )

    def rows(self) -> list[dict[str, Any]]:
        """Every proposal, oldest first."""
        with self._lock:
            cur = self._db.execute(
                "SELECT id, created, source, frame_id, dice, confidence, dice_left, truth,"
                " outcome, recorded, game, decided FROM proposals ORDER BY created"
            )
            names = [c[0] for c in cur.description]
            out = [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
        for r in out:
            for k in ("dice", "truth", "recorded"):
                r[k] = json.loads(r[k]) if r[k] is not None else None
        return out

    def stats(self, *, include_demo: bool = False) -> dict[str, Any]:
        """Accuracy at the table: totals and per source (see :func:`summarise`). The demo
        camera's proposals are left out (its dice are no real table's, ``demo_left_out`` counts
        them) unless ``include_demo``."""
        rows = self.rows()
        demo = sum(1 for r in rows if r["source"] == "demo")
        if not include_demo:
            rows = [r for r in rows if r["source"] != "demo"]
        by_source: dict[str, list[dict[str, Any]]] = {}
        for r in rows:
            by_source.setdefault(r["source"], []).append(r)
        return {
            "log": str(self.path),
            **summarise(rows),
            "demo_left_out": 0 if include_demo else demo,
            "sources": {s: summarise(rs) for s, rs in sorted(by_source.items())},
        }


def _overlap(a: Sequence[int], b: Sequence[int]) -> int:
    return sum((Counter(a) & Counter(b)).values())


def summarise(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Counts and accuracy of a list of log rows.

    ``exact``: recorded throws equal to the proposal; ``dice_accuracy``: dice of the recorded
    throws that the proposal had right (multiset overlap over the larger of the two);
    ``count_wrong``: proposals whose number of dice differed from what was recorded.
    ``truth_exact`` compares proposals with known true values (the demo scenes).
    """
    recorded = [r for r in rows if r["outcome"] == "recorded"]
    exact = sum(1 for r in recorded if r["recorded"] == r["dice"])
    dice_total = sum(max(len(r["recorded"]), len(r["dice"])) for r in recorded)
    dice_right = sum(_overlap(r["recorded"], r["dice"]) for r in recorded)
    truthful = [r for r in rows if r["truth"] is not None]
    return {
        "proposals": len(rows),
        "recorded": len(recorded),
        "dismissed": sum(1 for r in rows if r["outcome"] == "dismissed"),
        "pending": sum(1 for r in rows if r["outcome"] is None),
        "exact": exact,
        "exact_share": round(exact / len(recorded), 4) if recorded else None,
        "dice_accuracy": round(dice_right / dice_total, 4) if dice_total else None,
        "count_wrong": sum(1 for r in recorded if len(r["recorded"]) != len(r["dice"])),
        "with_truth": len(truthful),
        "truth_exact_share": (
            round(sum(1 for r in truthful if r["truth"] == r["dice"]) / len(truthful), 4)
            if truthful
            else None
        ),
    }
