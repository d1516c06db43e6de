"""The engine alone: a game is a pure function of its events, undo really goes back, bad set-ups."""

from __future__ import annotations

import random
from typing import Any

import pytest

from scorekeeper.errors import ActionError, GameRuleError, RulesError
from scorekeeper.game import Game, advance, effective_actions, replay
from scorekeeper.game.actions import (
    Action,
    Bank,
    End,
    Join,
    KeepDice,
    Leave,
    QuickScore,
    Throw,
    Undo,
    action_from_json,
    parse_action,
    parse_setup,
)
from scorekeeper.game.export import game_csv
from scorekeeper.rules import PRESETS


def _random_action(game: Game, rng: random.Random) -> dict[str, Any]:
    state = game.to_json()
    turn = state["turn"]
    roll = rng.random()
    if roll < 0.06:
        return {"type": "undo"}
    if state["phase"] == "keep":
        keep = rng.choice(turn["keeps"])["keep"]
        return {"type": "keep", "dice": keep}
    if turn["can_bank"] and roll < 0.5:
        return {"type": "bank"}
    if turn["total"] == 0 and not turn["throw"] and roll < 0.12:
        return {"type": "quick_score", "points": rng.choice([0, 300, 550, 1200, 2500])}
    dice = [rng.randint(1, 6) for _ in range(turn["dice_left"])]
    return {"type": "throw", "dice": dice, "source": rng.choice(["manual", "camera"])}


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_random_games_replay_to_the_live_state(preset: str) -> None:
    rng = random.Random(preset)
    overrides: dict[str, Any] = {"target": 3000}
    if preset == "standard":
        overrides.update(toxic_twos=True, six_ones_win=True, exact_target=False)
    if preset == "minimal":
        overrides.update(exact_target=True, tie_break="shared", final_round_must_beat=False)
    if preset == "playmonster":
        overrides.update(farkle_streak_penalty=1000, hot_dice="must_roll")
    for _ in range(6):
        setup = parse_setup(
            {"players": ["Ann", "Bob", "Cy"], "rules": {"preset": preset, "overrides": overrides}}
        )
        events: list[dict[str, Any]] = [setup]
        game = replay(events)
        for step in range(160):
            if game.over:
                break
            event = parse_action(_random_action(game, rng))
            try:
                game = advance(game, events, event)
            except GameRuleError:
                assert event["type"] in ("bank", "quick_score", "undo")
                continue
            events.append(event)
            if step % 16 == 0 or event["type"] == "undo":
                assert replay(events).to_json() == game.to_json()
        final = game.to_json()
        assert replay(events).to_json() == final
        scores = [p["score"] for p in final["players"]]
        given = sum(h["points"] for h in final["history"] if h["outcome"] == "overshoot")
        assert sum(scores) == sum(h["banked"] for h in final["history"]) + given
        standing_rows = len(final["players"]) if final["over"] else 0
        assert len(game_csv(game).splitlines()) == len(final["history"]) + 1 + standing_rows


def test_undo_pops_the_latest_action_in_effect() -> None:
    setup = parse_setup({"players": ["Ann"], "rules": {"overrides": {"opening_minimum": 0}}})
    a = {"type": "quick_score", "points": 100}
    b = {"type": "quick_score", "points": 200}
    undo = {"type": "undo"}
    assert effective_actions([setup, a, b, undo]) == [a]
    assert effective_actions([setup, a, b, undo, undo]) == []
    assert effective_actions([setup, a, undo, b]) == [b]
    assert replay([setup, a, b, undo]).players[0].score == 100
    with pytest.raises(GameRuleError, match="nothing to undo"):
        advance(replay([setup]), [setup], undo)


def test_replay_needs_a_create_event() -> None:
    with pytest.raises(GameRuleError):
        replay([{"type": "bank"}])


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"players": []}, "non-empty list"),
        ({"players": "Ann"}, "non-empty list"),
        ({"players": ["Ann", "ann"]}, "distinct name"),
        ({"players": ["Ann", ""]}, "must not be empty"),
        ({"players": ["A" * 41]}, "at most 40"),
        ({"players": ["Ann\x07"]}, "control characters"),
        ({"players": [3]}, "must be text"),
        ({"players": ["Ann"] * 0 + [f"P{i}" for i in range(87)]}, "1 to 86"),
        ({"players": ["Ann"], "teams": ["Red", "Blue"]}, "one team name"),
        ({"players": ["Ann"], "teams": {"Red": ["Bob"]}}, "not a player"),
        ({"players": ["Ann"], "colour": "red"}, "unknown field"),
        ([], "JSON object"),
    ],
)
def test_bad_setups_say_what_is_wrong(body: Any, words: str) -> None:
    with pytest.raises(ActionError, match=words):
        parse_setup(body)


def test_bad_rules_in_a_setup() -> None:
    with pytest.raises(RulesError, match="opening_minimum"):
        parse_setup({"players": ["Ann"], "rules": {"overrides": {"opening_minimum": 75}}})


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"type": "rol"}, "unknown action type"),
        ({"type": "throw"}, "needs dice"),
        ({"type": "throw", "dice": "115"}, "needs dice"),
        ({"type": "throw", "dice": [1, 7]}, "bad die 7"),
        ({"type": "throw", "dice": [1, True]}, "bad die True"),
        ({"type": "throw", "dice": [1] * 7}, "1 to 6 faces"),
        ({"type": "throw", "dice": [1], "source": "phone"}, "manual or camera"),
        ({"type": "bank", "points": 5}, "unknown field"),
        ({"type": "quick_score", "points": "50"}, "whole number"),
        ({"type": "quick_score", "points": -50}, "multiple of 50"),
        ({"type": "leave"}, "leaving player's name"),
        ({"type": "join", "name": ""}, "must not be empty"),
    ],
)
def test_bad_actions_say_what_is_wrong(body: Any, words: str) -> None:
    with pytest.raises(ActionError, match=words):
        parse_action(body)


def test_names_stay_plain_text() -> None:
    setup = parse_setup({"players": ["<b>Ann</b>", "Bob & Co"]})
    state = replay([setup]).to_json()
    assert [p["name"] for p in state["players"]] == ["<b>Ann</b>", "Bob & Co"]


@pytest.mark.parametrize(
    "action",
    [
        Throw((1, 5, 2, 3, 4, 6)),
        Throw((2, 2), "camera"),
        KeepDice((1, 5)),
        Bank(),
        QuickScore(0),
        QuickScore(1250),
        Join("Cy"),
        Join("Dee", "Red"),
        Leave("Bob"),
        Leave(2),
        End(),
        Undo(),
    ],
)
def test_actions_round_trip_through_json(action: Action) -> None:
    event = action.to_json()
    assert action_from_json(event) == action
    assert parse_action(event) == event
    assert action_from_json({**event, "at": 1.5}) == action  # the store's time is not a field


def test_parse_action_gives_the_stored_event_of_an_action() -> None:
    assert action_from_json(parse_action({"type": "join", "name": " Cy  Dee "})) == Join("Cy Dee")
    assert parse_action({"type": "throw", "dice": [6, 1]}) == Throw((6, 1)).to_json()


def _table(events: list[dict[str, Any]], **overrides: Any) -> Game:
    rules = {"preset": "standard", "overrides": overrides}
    return replay([parse_setup({"players": ["Ann", "Bob"], "rules": rules}), *events])


def _throw(*dice: int) -> dict[str, Any]:
    return {"type": "throw", "dice": list(dice), "source": "manual"}


def test_the_state_gives_each_keeps_bank_refusal_in_the_engines_words() -> None:
    game = _table([_throw(1, 5, 2, 3, 4, 4)])
    turn = game.to_json()["turn"]
    assert [k["keep"] for k in turn["keeps"]] == [[1, 5], [1], [5]]
    assert [k["refusal"] for k in turn["keep_then_bank"]] == [
        "Ann needs 500 in one turn to get on the board; the turn would have 150",
        "Ann needs 500 in one turn to get on the board; the turn would have 100",
        "Ann needs 500 in one turn to get on the board; the turn would have 50",
    ]
    assert turn["bank_warning"] is None and turn["can_bank"] is False
    assert "must first set aside a keep" in turn["bank_refusal"]
    game.apply(KeepDice((1, 5)))
    with pytest.raises(GameRuleError, match="the turn has 150"):
        game.apply(Bank())

    hot = _table([_throw(1, 1, 1, 5, 5, 1)], hot_dice="must_roll", opening_minimum=0)
    refusals = [k["refusal"] for k in hot.to_json()["turn"]["keep_then_bank"]]
    assert refusals[0] == "hot dice: Ann must throw all six dice again before banking"
    assert refusals[1:] == [None] * (len(refusals) - 1)

    banks = [_throw(1, 1, 1, 1, 2, 3), {"type": "keep", "dice": [1, 1, 1, 1]}]
    final = _table(
        [*banks, {"type": "bank"}, _throw(1, 2, 3, 4, 6, 6)], target=1000, opening_minimum=0
    )
    state = final.to_json()
    assert state["final_round"] and state["to_beat"] == 1100
    assert state["turn"]["keep_then_bank"] == [
        {
            "refusal": "in the final round Bob must beat 1,100; banking now makes 100,"
            " so keep rolling",
            "warning": None,
        }
    ]


def test_the_state_warns_of_a_bank_that_overshoots_an_exact_target() -> None:
    events = [_throw(1, 1, 1, 1, 2, 3), {"type": "keep", "dice": [1, 1, 1, 1]}]
    game = _table([*events], target=1000, exact_target=True, opening_minimum=0)
    turn = game.to_json()["turn"]
    assert turn["can_bank"] and turn["bank_refusal"] is None
    assert turn["bank_warning"] == (
        "careful: 1,100 overshoots the exact target of 1,000, so these points would go to the"
        " lowest score"
    )
    game.apply(Throw((5, 2)))
    turn = game.to_json()["turn"]
    assert turn["keep_then_bank"] == [
        {
            "refusal": None,
            "warning": "careful: 1,150 overshoots the exact target of 1,000, so these points"
            " would go to the lowest score",
        }
    ]
