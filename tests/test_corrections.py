"""Correcting a past throw: an event in the log, the totals after it replayed, refusals shown by
a preview before saving, the turn marked in the history and the exports, undo and redo."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from flask.testing import FlaskClient
from helpers.table import NewTable, Table, core

from scorekeeper.game import effective_actions, replay

THROW_KEEP_BANK = [
    {"type": "throw", "dice": [1, 1, 5, 2, 3, 4]},
    {"type": "keep", "dice": [1, 1, 5]},
    {"type": "bank"},
]


def _played(new_table: NewTable, **overrides: Any) -> Table:
    """Ann banks 150 (1 5 of 1 5 2 3 4 6), Bob quick-scores 300, Ann banks 1,000 (three 1s)."""
    t = new_table(["Ann", "Bob"], **{"opening_minimum": 0, **overrides})
    t.throw(1, 5, 2, 3, 4, 6)
    t.keep(1, 5)
    t.bank()
    t.quick(300)
    t.throw(1, 1, 1, 2, 3, 4)
    t.keep(1, 1, 1)
    t.bank()
    return t


def _preview(t: Table, body: dict[str, Any], status: int = 200) -> dict[str, Any]:
    r = t.client.post(
        f"/api/games/{t.id}/corrections/preview",
        json=body,
        headers={"Authorization": f"Bearer {t.token}"},
    )
    assert r.status_code == status, r.json
    return dict(r.get_json())


def test_a_correction_replays_the_totals_after_it(new_table: NewTable) -> None:
    t = _played(new_table)
    assert [t.score("Ann"), t.score("Bob")] == [1150, 300]
    t.act("correct", turn=1, actions=THROW_KEEP_BANK)
    assert [t.score("Ann"), t.score("Bob")] == [1250, 300]
    first, _, third = t.state["history"]
    assert first["banked"] == 250 and first["throws"][0]["dice"] == [1, 1, 2, 3, 4, 5]
    assert first["corrected"] == {
        "version": 8,
        "was": {
            "throws": "1 2 3 4 5 6 kept 1 5 (150)",
            "outcome": "bank",
            "points": 150,
            "banked": 150,
        },
    }
    assert third["score"] == 1250 and "corrected" not in third
    assert t.state["last_event"]["type"] == "correct"
    assert "Turn 1 (Ann) corrected" in t.state["last_event"]["message"]
    assert t.state["undoable"]["text"] == "the correction of Ann's turn 1"
    events = t.client.get(f"/api/games/{t.id}/events").json["events"]
    assert events[-1]["type"] == "correct" and events[-1]["turn"] == 1


def test_the_preview_shows_the_change_and_stores_nothing(new_table: NewTable) -> None:
    t = _played(new_table)
    before = core(t.state)
    body = _preview(t, {"turn": 1, "actions": THROW_KEEP_BANK})
    assert body["ok"] is True and body["refusal"] is None and body["version"] == t.version
    assert body["players"] == [
        {"name": "Ann", "before": 1150, "after": 1250},
        {"name": "Bob", "before": 300, "after": 300},
    ]
    assert body["before"]["banked"] == 150 and body["after"]["banked"] == 250
    assert body["changed_turns"] == []
    again = t.client.get(f"/api/games/{t.id}", headers={"Authorization": f"Bearer {t.token}"})
    assert again.json["version"] == t.version and core(again.json["state"]) == before


@pytest.mark.parametrize(
    ("turn", "actions", "words"),
    [
        (1, [{"type": "throw", "dice": [1, 5, 2, 3, 4, 6]}, {"type": "keep", "dice": [2]}],
         "not a legal keep"),
        (1, [{"type": "throw", "dice": [1, 5, 2, 3, 4]}], "has 6 dice to throw"),
        (1, [{"type": "throw", "dice": [1, 5, 2, 3, 4, 6]}, {"type": "keep", "dice": [1]}],
         "does not end"),
        (1, [{"type": "throw", "dice": [2, 2, 3, 4, 6, 6]}, {"type": "bank"}],
         "is over after its action 1"),
        (4, [{"type": "bank"}], "still in play"),
        (9, [{"type": "bank"}], "no finished turn 9"),
    ],
)  # fmt: skip
def test_an_illegal_correction_is_refused_by_the_preview_and_changes_nothing(
    new_table: NewTable, turn: int, actions: list[dict[str, Any]], words: str
) -> None:
    t = _played(new_table)
    body = _preview(t, {"turn": turn, "actions": actions})
    assert body["ok"] is False and words in body["refusal"], body["refusal"]
    version, before = t.version, core(t.state)
    refused = t.act("correct", status=422, turn=turn, actions=actions)
    assert refused["error"] == "not_allowed" and words in refused["message"]
    state = t.client.get(f"/api/games/{t.id}").json
    assert state["version"] == version and core(state["state"]) == before


def test_a_correction_that_a_later_turn_no_longer_fits_is_refused(new_table: NewTable) -> None:
    # with a 500 opening minimum, Ann's later 150 bank needs her first turn's 500
    t = new_table(["Ann", "Bob"], opening_minimum=500)
    t.throw(1, 5, 5, 2, 3, 4)  # 1 5 5 -> 200 ... then a three 1s keep to pass 500
    t.keep(1, 5, 5)
    t.throw(1, 1, 1)
    t.keep(1, 1, 1)
    t.bank()  # 1,200: on the board
    t.farkle()  # Bob
    t.throw(1, 5, 2, 3, 4, 6)
    t.keep(1, 5)
    t.bank()  # 150 more for Ann, allowed because she is on the board
    farkled = [{"type": "throw", "dice": [2, 3, 4, 6, 2, 3]}]
    body = _preview(t, {"turn": 1, "actions": farkled})
    assert body["ok"] is False
    assert "turn 3, Ann's bank would be refused" in body["refusal"]
    assert "needs 500 in one turn" in body["refusal"]
    t.act("correct", status=422, turn=1, actions=farkled)


def test_malformed_corrections_are_400(new_table: NewTable) -> None:
    t = _played(new_table)
    for fields in (
        {"turn": 0, "actions": THROW_KEEP_BANK},
        {"turn": "1", "actions": THROW_KEEP_BANK},
        {"turn": 1, "actions": []},
        {"turn": 1, "actions": [{"type": "join", "name": "Cy"}]},
        {"turn": 1, "actions": [{"type": "throw", "dice": [7]}]},
        {"turn": 1, "actions": [{"type": "bank", "extra": 1}]},
    ):
        assert t.act("correct", status=400, **fields)["error"] == "bad_request"
        assert _preview(t, fields, status=400)["error"] == "bad_request"
    assert _preview(t, {"turn": 1, "actions": THROW_KEEP_BANK, "x": 1}, 400)["message"]


def test_the_preview_needs_the_control_token(client: FlaskClient, new_table: NewTable) -> None:
    t = _played(new_table)
    r = client.post(f"/api/games/{t.id}/corrections/preview", json={"turn": 1, "actions": []})
    assert r.status_code == 401


def test_undo_and_redo_of_a_correction(new_table: NewTable) -> None:
    t = _played(new_table)
    before = core(t.state)
    t.act("correct", turn=1, actions=THROW_KEEP_BANK)
    corrected = core(t.state)
    t.act("undo", undoes=t.state["undoable"]["version"])
    assert core(t.state) == before
    assert t.state["last_event"]["message"] == "Undid: the correction of Ann's turn 1."
    t.act("redo", redoes=t.state["redoable"]["version"])
    assert core(t.state) == corrected


def test_a_second_correction_keeps_what_the_turn_first_was(new_table: NewTable) -> None:
    t = _played(new_table)
    t.act("correct", turn=1, actions=THROW_KEEP_BANK)
    t.act("correct", turn=3, actions=[{"type": "quick_score", "points": 0}])
    t.act("correct", turn=1, actions=[{"type": "quick_score", "points": 500}])
    first, _, third = t.state["history"]
    assert first["points"] == 500 and first["corrected"]["was"]["banked"] == 150
    assert third["outcome"] == "farkle" and third["corrected"]["was"]["banked"] == 1000
    assert [t.score("Ann"), t.score("Bob")] == [500, 300]
    # the later play replays on top: Bob's next turn still comes next
    assert t.current == "Bob"


def test_exports_show_the_corrected_turn(client: FlaskClient, new_table: NewTable) -> None:
    t = _played(new_table)
    t.act("correct", turn=1, actions=THROW_KEEP_BANK)
    rows = list(csv.reader(io.StringIO(client.get(f"/api/games/{t.id}/export.csv").text)))
    header = rows[0]
    assert header[8] == "corrected"
    assert rows[1][6] == "1 1 2 3 4 5 kept 1 1 5 (250)"
    assert rows[1][8] == "was 1 2 3 4 5 6 kept 1 5 (150), bank 150"
    assert rows[2][8] == "" and rows[3][header.index("Ann")] == "1250"
    data = client.get(f"/api/games/{t.id}/export.json").json
    assert data["events"][-1]["type"] == "correct"
    assert data["state"]["history"][0]["corrected"]["was"]["banked"] == 150
    assert core(replay(data["events"]).to_json()) == core(data["state"])


def test_the_log_as_the_game_replays_it_holds_the_corrected_turn(new_table: NewTable) -> None:
    t = _played(new_table)
    t.act("correct", turn=1, actions=THROW_KEEP_BANK)
    events = t.client.get(f"/api/games/{t.id}/events").json["events"]
    actions = effective_actions(events)
    assert [a["type"] for a in actions][:3] == ["throw", "keep", "bank"]
    assert actions[0]["dice"] == [1, 1, 5, 2, 3, 4] and len(actions) == 7
