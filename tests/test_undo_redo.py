"""Undo that names what it undoes, and redo: a repeated or stale undo takes nothing back."""

from __future__ import annotations

import random
from typing import Any

import pytest
from helpers.table import NewTable, Table, core

from scorekeeper.errors import GameRuleError, StaleUndoError
from scorekeeper.game import advance, replay
from scorekeeper.game.actions import parse_action, parse_setup
from scorekeeper.game.log import resolve


def _post(t: Table, body: dict[str, Any]) -> Any:
    return t.client.post(
        f"/api/games/{t.id}/actions", json=body, headers={"Authorization": f"Bearer {t.token}"}
    )


def test_the_state_says_what_the_next_undo_takes_back(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"])
    assert t.state["undoable"] is None and t.state["redoable"] is None
    t.throw(1, 5, 2, 3, 4, 6)
    assert t.state["undoable"] == {"version": 1, "type": "throw", "text": "Ann threw 1 2 3 4 5 6"}
    t.keep(1, 5)
    assert t.state["undoable"] == {"version": 2, "type": "keep", "text": "Ann kept 1 5, 150"}


def test_undo_names_the_action_and_a_repeat_undoes_nothing(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"])
    t.throw(1, 5, 2, 3, 4, 6)
    after_throw = core(t.state)
    t.keep(1, 5)
    undoes = t.state["undoable"]["version"]
    t.act("undo", undoes=undoes)
    assert core(t.state) == after_throw
    assert t.state["last_event"]["message"] == "Undid: Ann kept 1 5, 150."
    assert t.state["redoable"] == {"version": 2, "type": "keep", "text": "Ann kept 1 5, 150"}
    version = t.version
    # the same undo again (a double tap that reached the server after the first one's answer)
    r = _post(t, {"version": version, "type": "undo", "undoes": undoes})
    assert r.status_code == 409, r.json
    body = r.get_json()
    assert body["error"] == "stale_undo" and "nothing was undone" in body["message"]
    assert "Ann threw 1 2 3 4 5 6" in body["message"]  # what the next undo would take back
    assert body["version"] == version and core(body["state"]) == after_throw
    events = t.client.get(f"/api/games/{t.id}/events").json["events"]
    assert [e["type"] for e in events] == ["create", "throw", "keep", "undo"]
    assert events[-1]["undoes"] == 2


def test_an_undo_naming_an_action_that_is_not_the_latest_is_refused(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"])
    t.throw(1, 5, 2, 3, 4, 6)
    t.keep(1, 5)
    for undoes in (1, 3, 99):
        body = t.act("undo", status=409, undoes=undoes)
        assert body["error"] == "stale_undo"
    assert t.version == 2 and t.state["undoable"]["version"] == 2


def test_an_undo_without_undoes_still_takes_back_the_latest(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"])
    t.throw(1, 5, 2, 3, 4, 6)
    t.undo()
    assert t.state["turn"]["throw"] is None and t.state["redoable"]["version"] == 1
    t.undo(status=422)  # nothing left to undo
    body = t.act("undo", status=409, undoes=1)  # naming the undone throw: already undone
    assert body["error"] == "stale_undo"


@pytest.mark.parametrize("undoes", ["2", True, 0, -1, 1.5, [2]])
def test_a_malformed_undoes_is_a_400(new_table: NewTable, undoes: Any) -> None:
    t = new_table(["Ann", "Bob"])
    t.throw(1, 5, 2, 3, 4, 6)
    body = t.act("undo", status=400, undoes=undoes)
    assert "undoes must be the version" in body["message"]


def test_redo_applies_the_undone_action_again_exactly(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], opening_minimum=0)
    t.act("throw", dice=[1, 5, 2, 3, 4, 6], source="camera")
    t.keep(1, 5)
    t.bank()
    after_bank = core(t.state)
    t.act("undo", undoes=3)
    t.act("undo", undoes=2)
    assert t.state["redoable"]["text"] == "Ann kept 1 5, 150"
    t.act("redo", redoes=2)
    assert t.state["last_event"]["message"] == "Redid: Ann kept 1 5, 150."
    assert t.state["redoable"] == {"version": 3, "type": "bank", "text": "Ann banked 150"}
    t.act("redo", redoes=3)
    assert core(t.state) == after_bank and t.state["redoable"] is None
    assert t.state["history"][0]["throws"][0]["source"] == "camera"
    # undo and redo again: the redone bank is undone by its own version
    t.act("undo", undoes=3)
    t.act("redo", redoes=3)
    assert core(t.state) == after_bank


def test_redo_is_refused_once_the_game_moved_on(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"])
    t.throw(1, 5, 2, 3, 4, 6)
    t.keep(1, 5)
    t.act("undo", undoes=2)
    t.keep(1)  # the next action: the undone keep can no longer be redone
    assert t.state["redoable"] is None
    before = core(t.state)
    body = t.act("redo", status=409, redoes=2)
    assert body["error"] == "stale_undo" and "the game moved on" in body["message"]
    assert core(body["state"]) == before and body["version"] == t.version
    t.act("undo", undoes=4)
    body = t.act("redo", status=409, redoes=2)  # not what the latest undo took back
    assert "version 4" in body["message"]
    t.act("redo", redoes=4)
    assert t.state["turn"]["kept"][0]["keep"] == [1]


def test_redo_needs_the_version_it_redoes(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"])
    t.throw(1, 5, 2, 3, 4, 6)
    t.undo()
    assert "redoes must be" in t.act("redo", status=400)["message"]


def test_a_redo_with_nothing_to_redo_replays_as_nothing() -> None:
    setup = parse_setup({"players": ["Ann", "Bob"], "rules": {"preset": "standard"}})
    log: list[dict[str, Any]] = [setup, parse_action({"type": "throw", "dice": [1, 5, 2, 3, 4, 6]})]
    # the store never keeps such a redo (advance refuses it), but a replay shrugs it off
    game = replay([*log, {"type": "redo", "redoes": 7}])
    assert game.turn.throw is not None and resolve([*log, {"type": "redo"}]).undone == []
    assert game.undoable == {"version": 1, "type": "throw", "text": "Ann threw 1 2 3 4 5 6"}


def _play_or_log_event(st: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A random next event: an undo or redo of what the state offers, a correction of a
    finished turn into a quick score, or a throw, keep, bank or quick score."""
    turn, roll = st["turn"], rng.random()
    if roll < 0.7 and st["redoable"]:
        return {"type": "redo", "redoes": st["redoable"]["version"]}
    if roll < 0.1 and st["undoable"]:
        return {"type": "undo", "undoes": st["undoable"]["version"]}
    if roll < 0.25 and st["history"]:
        points = rng.choice([0, 300, 500, 1000])
        number = rng.choice(st["history"])["turn"]
        return {
            "type": "correct",
            "turn": number,
            "actions": [{"type": "quick_score", "points": points}],
        }
    if st["phase"] == "keep":
        return {"type": "keep", "dice": rng.choice(turn["keeps"])["keep"]}
    if turn["can_bank"] and roll < 0.55:
        return {"type": "bank"}
    return {"type": "throw", "dice": [rng.randint(1, 6) for _ in range(turn["dice_left"])]}


@pytest.mark.parametrize("seed", range(3))
def test_random_undos_redos_and_corrections_replay_to_the_live_state(seed: int) -> None:
    rules = {"preset": "standard", "overrides": {"opening_minimum": 0, "target": 10000}}
    rng = random.Random(seed)
    events: list[dict[str, Any]] = [parse_setup({"players": ["Ann", "Bob"], "rules": rules})]
    game = replay(events)
    kinds: set[str] = set()
    for step in range(120):
        if game.over:
            break
        st = game.to_json()
        event = parse_action(_play_or_log_event(st, rng))
        try:
            after = advance(game, events, event)
        except GameRuleError:
            assert event["type"] in ("bank", "correct")
            continue
        events.append(event)
        kinds.add(event["type"])
        if event["type"] == "undo":
            # the same undo again takes nothing back; a redo puts back exactly what it took
            with pytest.raises(StaleUndoError):
                advance(after, events, event)
            redo = {"type": "redo", "redoes": event["undoes"]}
            assert core(advance(after, events, redo).to_json()) == core(st)
        game = after
        if step % 8 == 0 or event["type"] in ("undo", "redo", "correct"):
            assert replay(events).to_json() == game.to_json()
    assert replay(events).to_json() == game.to_json()
    assert {"undo", "redo", "correct"} <= kinds
