"""The engine alone: a game is a pure function of its events, undo really goes back, bad set-ups."""

from __future__ import annotations

import random
from typing import Any

import pytest

from scorekeeper.errors import ActionError, GameRuleError, RulesError
from scorekeeper.game import Game, advance, effective_actions, replay
from scorekeeper.game.actions import parse_action, parse_setup
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
        assert len(game_csv(game).splitlines()) == len(final["history"]) + 1


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
        ({"type": "roll"}, "unknown action type"),
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
