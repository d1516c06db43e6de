"""A table's saved house rules: named rule sets in the ``rulesets`` table, exported and
imported as JSON (``{"format": "scorekeeper-rules", "version": 1, "name", "preset",
"overrides"}``), checked like the rules of a new game."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Mapping
from typing import Any

from scorekeeper.errors import RulesError, RulesetNotFoundError
from scorekeeper.game.actions import clean_name
from scorekeeper.rules import PRESETS, rules_from_json

FORMAT = "scorekeeper-rules"
"""The ``format`` of an exported rule set."""

FORMAT_VERSION = 1
"""The ``version`` of the exported form this code writes and reads."""

MAX_RULESETS = 200
"""How many rule sets one server keeps (a new name beyond it is refused)."""

FIELDS = ("format", "version", "name", "preset", "overrides")


def parse_ruleset(body: Any) -> dict[str, Any]:
    """A rule set from JSON (a save or an import): its name, preset and the overrides that
    differ from the preset, checked like any rules.

    :raises RulesError: on a malformed body, an unknown option or a value of the wrong type,
        naming it.
    """
    if not isinstance(body, Mapping):
        raise RulesError(
            'a rule set must be a JSON object like {"name": "Friday night", "preset":'
            ' "standard", "overrides": {"opening_minimum": 350}}'
        )
    extra = set(body) - set(FIELDS)
    if extra:
        raise RulesError(
            f"unknown rule set field(s) {sorted(extra)}; accepted: {', '.join(FIELDS)}"
        )
    if body.get("format", FORMAT) != FORMAT:
        raise RulesError(f"format {body.get('format')!r} is not a rule set: expected {FORMAT!r}")
    version = body.get("version", FORMAT_VERSION)
    if version != FORMAT_VERSION:
        raise RulesError(f"rule set version {version!r} is not known: this server reads 1")
    try:
        name = clean_name(body.get("name"), "a rule set's name")
    except ValueError as exc:
        raise RulesError(str(exc)) from exc
    preset, rules = rules_from_json(
        {"preset": body.get("preset", "standard"), "overrides": body.get("overrides") or {}}
    )
    base = PRESETS[preset].to_dict()
    overrides = {k: v for k, v in rules.to_dict().items() if base.get(k) != v}
    return {"name": name, "preset": preset, "overrides": overrides}


def exported(ruleset: Mapping[str, Any]) -> dict[str, Any]:
    """A stored rule set in its export form."""
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "name": ruleset["name"],
        "preset": ruleset["preset"],
        "overrides": ruleset["overrides"],
    }


def save_ruleset(conn: sqlite3.Connection, ruleset: Mapping[str, Any]) -> bool:
    """Store a checked rule set under its name, replacing one of the same name; returns
    whether one was replaced.

    :raises RulesError: when the server already keeps :data:`MAX_RULESETS` others.
    """
    now = time.time()
    conn.execute("BEGIN IMMEDIATE")
    try:
        had = conn.execute("SELECT 1 FROM rulesets WHERE name=?", (ruleset["name"],)).fetchone()
        count = conn.execute("SELECT COUNT(*) FROM rulesets").fetchone()[0]
        if not had and count >= MAX_RULESETS:
            raise RulesError(
                f"this server keeps {MAX_RULESETS} rule sets already: delete one to save another"
            )
        conn.execute(
            "INSERT INTO rulesets(name, preset, overrides, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET preset=excluded.preset,"
            " overrides=excluded.overrides, updated_at=excluded.updated_at",
            (ruleset["name"], ruleset["preset"], json.dumps(ruleset["overrides"]), now, now),
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return bool(had)


def list_rulesets(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every saved rule set, by name: ``{"name", "preset", "overrides", "updated_at"}``."""
    rows = conn.execute(
        "SELECT name, preset, overrides, updated_at FROM rulesets ORDER BY name COLLATE NOCASE"
    ).fetchall()
    return [
        {"name": r[0], "preset": r[1], "overrides": json.loads(r[2]), "updated_at": r[3]}
        for r in rows
    ]


def get_ruleset(conn: sqlite3.Connection, name: str) -> dict[str, Any]:
    """One saved rule set.

    :raises RulesetNotFoundError: when none has that name.
    """
    for ruleset in list_rulesets(conn):
        if ruleset["name"] == name:
            return ruleset
    raise RulesetNotFoundError(f"no saved rule set is called {name!r}")


def delete_ruleset(conn: sqlite3.Connection, name: str) -> None:
    """Forget a saved rule set.

    :raises RulesetNotFoundError: when none has that name.
    """
    cur = conn.execute("DELETE FROM rulesets WHERE name=?", (name,))
    if cur.rowcount == 0:
        raise RulesetNotFoundError(f"no saved rule set is called {name!r}")
