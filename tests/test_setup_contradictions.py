"""Issue 30's bad input at setup: option combinations that contradict each other are refused
with a message naming both options (the API's 400, a saved rule set, the CLI's exit code 2);
the refusals of an adjustment on a finished game or by a read-only client are in
tests/test_table_actions.py."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from scorekeeper.cli import main
from scorekeeper.rules import Rules, check_playable

NOTHING_SCORES = {
    "single_one": 0,
    "single_five": 0,
    "three_ones": 0,
    "triple_multiplier": 0,
    "multiples": "none",
    "straight": 0,
    "three_pairs": 0,
    "four_kind_pair": 0,
    "two_triplets": 0,
}

# (overrides, the words of the refusal, the options it must name)
CONTRADICTIONS: list[tuple[dict[str, Any], str, tuple[str, ...]]] = [
    ({"exact_overshoot": "bust"}, "exact_overshoot=bust needs exact_target", ()),
    (
        {"final_round": False, "final_round_defend": True},
        "final_round_defend needs final_round=true",
        (),
    ),
    (
        {"six_dice_farkle_bonus_first_throw": True},
        "six_dice_farkle_bonus_first_throw=true needs six_dice_farkle_bonus",
        (),
    ),
    (
        {"bank_max_dice_left": 0, "hot_dice": "must_roll"},
        "bank_max_dice_left=0 needs hot_dice=optional",
        (),
    ),
    ({"dice": 5, "six_ones_win": True}, "six_ones_win=true needs dice=6", ()),
    (
        {"final_round": False, "tie_break": "full_round"},
        "tie_break=full_round needs final_round",
        (),
    ),
    (
        {"full_house": 250, "three_ones": 0, "triple_multiplier": 0},
        "full_house=250 needs triples that score",
        ("three_ones", "triple_multiplier"),
    ),
    (
        {"singles_until_open": True, "single_one": 0, "single_five": 0},
        "singles_until_open=true needs single_one or single_five",
        (),
    ),
    (
        {**NOTHING_SCORES, "single_one": 100, "triple_addon": 100},
        "triple_addon=100 needs three of a kind to score",
        ("triple_multiplier", "three_ones"),
    ),
    (
        NOTHING_SCORES,
        "single_one=0 and single_five=0 leave nothing that scores",
        ("three_ones", "triple_multiplier"),
    ),
    (
        {"exact_target": True, "target": 1000, "opening_minimum": 1500},
        "opening_minimum=1500 is above the target=1000",
        ("exact_target",),
    ),
    (
        {"exact_target": True, "target": 1000, "opening_minimum": 0, "bank_minimum": 1050},
        "bank_minimum=1050 is above the target=1000",
        ("exact_target",),
    ),
]


@pytest.mark.parametrize(("overrides", "words", "names"), CONTRADICTIONS)
def test_contradicting_options_are_refused_at_setup_naming_both(
    client: FlaskClient, overrides: dict[str, Any], words: str, names: tuple[str, ...]
) -> None:
    rules = {"preset": "standard", "overrides": overrides}
    r = client.post("/api/games", json={"players": ["Ann", "Bob"], "rules": rules})
    body = r.get_json()
    assert r.status_code == 400 and body["error"] == "bad_request", body
    assert words in body["message"]
    for name in names:
        assert name in body["message"]
    saved = client.post("/api/rulesets", json={"name": "Bad night", "overrides": overrides})
    assert saved.status_code == 400 and words in saved.get_json()["message"]
    assert client.get("/api/rulesets").get_json()["rulesets"] == []


@pytest.mark.parametrize(("overrides", "words", "names"), CONTRADICTIONS)
def test_the_cli_refuses_them_with_exit_code_2(
    capsys: pytest.CaptureFixture[str], overrides: dict[str, Any], words: str, names: object
) -> None:
    args = ["rules", "standard"]
    for key, value in overrides.items():
        args += ["--set", f"{key}={str(value).lower() if isinstance(value, bool) else value}"]
    assert main(args) == 2
    assert words in capsys.readouterr().err


def test_the_edges_are_allowed() -> None:
    # a bank of exactly the target may open; a non-exact target is reached by any bank
    check_playable(Rules(exact_target=True, target=1000, opening_minimum=1000))
    check_playable(Rules(target=1000, opening_minimum=1500, bank_minimum=1500))
    # only 1s score, or only a combination: still a game
    check_playable(Rules().with_overrides({**NOTHING_SCORES, "single_one": 100}))
    check_playable(Rules().with_overrides({**NOTHING_SCORES, "three_pairs": 1500}))
    # a six-dice combination alone cannot score with five dice
    five = Rules().with_overrides({**NOTHING_SCORES, "three_pairs": 1500, "dice": 5})
    with pytest.raises(ValueError, match="no combination of 5 dice scores"):
        check_playable(five)
    # a stored game is replayed as it was played: the Rules value itself is not refused
    Rules().with_overrides(NOTHING_SCORES)


def test_passing_dice_needs_two_players(client: FlaskClient) -> None:
    rules = {"overrides": {"pass_dice": True}}
    r = client.post("/api/games", json={"players": ["Ann"], "rules": rules})
    message = r.get_json()["message"]
    assert r.status_code == 400
    assert "pass_dice needs two or more players, but this game has one (Ann)" in message
    ok = client.post("/api/games", json={"players": ["Ann", "Bob"], "rules": rules})
    assert ok.status_code == 201


@pytest.mark.parametrize(
    ("teams", "words"),
    [
        ({"teams": {"Red": ["Ann", "Bob"], "Blue": []}}, "team 'Blue' has nobody in it"),
        ({"team_draw": {"teams": 3}}, "cannot draw 3 teams from 2 players"),
        ({"team_draw": {"teams": 1}}, "a team draw needs the number of teams: 2 or more"),
    ],
)
def test_a_team_of_nobody_is_refused(
    client: FlaskClient, teams: dict[str, Any], words: str
) -> None:
    r = client.post("/api/games", json={"players": ["Ann", "Bob"], **teams})
    assert r.status_code == 400 and words in r.get_json()["message"]
