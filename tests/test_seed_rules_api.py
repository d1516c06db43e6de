"""Every rule of the table in docs/rules-engine.md ("The seed rules and their options"), played
through the API: each case sets the rule's option, plays the throws the rule is about, and
checks the scores, the refusal or the winner the rule's wording asks for.

A play step is ``"t D D D"`` (a throw), ``"k D D"`` (a keep), ``"b"`` (a bank), ``"q N"`` (a
quick score), ``"f"`` (a farkle on a fresh turn), ``"p CHOICE"`` (``pass_dice``: ``take_over``
or ``fresh``), or ``"B"`` (a bank the rules refuse: the case's ``refused`` words must be in the
message). A case with ``team_draw`` deals its players into teams by their throws at setup.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from helpers.table import NewTable, Table

pytestmark = pytest.mark.usefixtures("no_advice")

ZERO = {"opening_minimum": 0}
FLAT_TARGET = {"target": 1000, "opening_minimum": 0}
CASES: dict[str, dict[str, Any]] = {
    # seed 001, a two-player rules card
    "single_1_and_5": {"set": ZERO, "play": ["t 1 5 2 3 4 6", "k 1 5", "b"], "scores": [150, 0]},
    "triples": {
        "set": ZERO,
        "play": ["t 2 2 2 3 4 6", "k 2 2 2", "b", "t 1 1 1 3 4 6", "k 1 1 1", "b"],
        "scores": [200, 1000],
    },
    "four_five_six_of_a_kind": {
        "set": ZERO,
        "play": ["t 3 3 3 3 2 6", "k 3 3 3 3", "b", "t 4 4 4 4 4 2", "k 4 4 4 4 4", "b"],
        "scores": [1000, 2000],
    },
    "three_pairs": {
        "set": ZERO,
        "play": ["t 2 2 3 3 4 4", "k 2 2 3 3 4 4", "b"],
        "scores": [1500, 0],
    },
    "straight": {"set": ZERO, "play": ["t 1 2 3 4 5 6", "k 1 2 3 4 5 6", "b"], "scores": [1500, 0]},
    "two_triplets": {
        "set": ZERO,
        "play": ["t 2 2 2 3 3 3", "k 2 2 2 3 3 3", "b"],
        "scores": [2500, 0],
    },
    "combinations_in_one_throw": {
        "set": ZERO,
        "play": ["t 1 1 2 3 4 6", "k 1 1", "t 1 2 3 4", "k 1", "b"],
        "scores": [300, 0],
    },
    "opening_500": {"play": ["t 1 5 2 3 4 6", "k 1 5", "B"], "refused": "needs 500 in one turn"},
    "hot_dice_may_bank": {
        "set": ZERO,
        "play": ["t 1 5 2 3 4 6", "k 1 5", "t 1 1 1 5", "k 1 1 1 5", "b"],
        "scores": [1200, 0],
    },
    "tie_full_round": {
        "players": ["Ann", "Bob", "Cat"],
        "set": {**FLAT_TARGET, "final_round_must_beat": False, "tie_break": "full_round"},
        "play": ["q 1000", "q 1000", "q 500", "q 0", "q 0", "q 600"],
        "scores": [1000, 1000, 1100],
        "winner": "Cat",
    },
    "multiples_doubling": {
        "set": {**ZERO, "multiples": "doubling"},
        "play": ["t 3 3 3 3 2 6", "k 3 3 3 3", "b"],
        "scores": [600, 0],
    },
    "six_1s_win": {"set": {"six_ones_win": True}, "play": ["t 1 1 1 1 1 1"], "winner": "Ann"},
    "straight_2500_three_pairs_750": {
        "set": {**ZERO, "straight": 2500, "three_pairs": 750},
        "play": ["t 1 2 3 4 5 6", "k 1 2 3 4 5 6", "b", "t 2 2 3 3 4 4", "k 2 2 3 3 4 4", "b"],
        "scores": [2500, 750],
    },
    "four_kind_and_a_pair": {
        "set": ZERO,
        "play": ["t 2 2 2 2 3 3", "k 2 2 2 2 3 3", "b"],
        "scores": [1500, 0],
    },
    "three_farkles_lose_1000": {
        "set": {**ZERO, "farkle_streak_penalty": 1000},
        "play": [
            "t 1 2 3 4 5 6",
            "k 1 2 3 4 5 6",
            "b",
            "q 0",
            "t 2 3 4 6 6 2",
            "q 300",
            "t 2 3 4 6 6 2",
            "q 300",
            "t 2 3 4 6 6 2",
        ],
        "scores": [500, 600],
    },
    "minimum_every_turn": {
        "set": {**ZERO, "bank_minimum": 350},
        "play": ["t 1 5 2 3 4 6", "k 1 5", "B"],
        "refused": "at least 350 to bank",
    },
    "welfare": {
        "set": {**FLAT_TARGET, "exact_target": True},
        "play": ["t 5 5 5 2 3 4", "k 5 5 5", "b", "q 0", "t 1 1 1 2 3 4", "k 1 1 1", "b"],
        "scores": [500, 1000],
    },
    "toxic_twos": {
        "set": {**ZERO, "toxic_twos": True},
        "play": ["t 1 2 3 4 5 6", "k 1 2 3 4 5 6", "b", "q 0", "t 2 2 2 2 1 5"],
        "scores": [0, 0],
    },
    # seed 002, a rules guide after the PlayMonster box
    "exact_bust": {
        "set": {**FLAT_TARGET, "exact_target": True, "exact_overshoot": "bust"},
        "play": ["t 5 5 5 2 3 4", "k 5 5 5", "b", "q 0", "t 1 1 1 2 3 4", "k 1 1 1", "b"],
        "scores": [500, 0],
    },
    "pass_the_leader": {
        "set": FLAT_TARGET,
        "play": ["t 1 1 1 2 3 4", "k 1 1 1", "b", "t 1 1 1 2 3 4", "k 1 1 1", "B"],
        "refused": "must beat 1,000",
    },
    "playmonster_three_1s": {
        "preset": "playmonster",
        "set": ZERO,
        "play": ["t 1 1 1 2 3 4", "k 1 1 1", "b"],
        "scores": [300, 0],
    },
    # seed 004, a pass-the-device score keeper
    "four_1s_best_split": {
        "set": ZERO,
        "play": ["t 1 1 1 1 2 3", "k 1 1 1 1", "b"],
        "scores": [1100, 0],
    },
    "best_split_example": {
        "set": ZERO,
        "play": ["t 1 5 5 3 3 3", "k 1 5 5 3 3 3", "b"],
        "scores": [500, 0],
    },
    "six_dice_combos_off": {
        "preset": "no-combos",
        "play": ["t 2 2 3 3 4 4"],
        "scores": [0, 0],
        "event": "farkle",
    },
    # seed 000, the "official" original rules and its readers' comments
    "original_1000_to_enter": {
        "preset": "original",
        "play": ["t 3 3 3 3 2 6", "k 3 3 3", "B"],
        "refused": "needs 1,000 in one turn",
    },
    "original_hot_dice_must_roll": {
        "preset": "original",
        "play": ["t 1 1 1 5 5 5", "k 1 1 1 5 5 5", "B"],
        "refused": "must throw all six dice again",
    },
    "nursing_home_keeps_points": {
        "set": {**ZERO, "farkle_keeps_points": True},
        "play": ["t 1 5 2 3 4 6", "k 1 5", "t 2 3 4 6"],
        "scores": [150, 0],
        "event": "farkle_kept",
    },
    "reroll_last_pair": {
        "set": {**ZERO, "reroll_last_pair": True},
        "play": ["t 1 1 1 5 2 3", "k 1 1 1 5", "t 3 3", "t 1 2", "k 1", "b"],
        "scores": [1150, 0],
    },
    "die_matching_an_earlier_triple_adds_100": {
        "set": {**ZERO, "triple_addon": 100},
        "play": ["t 6 6 6 1 2 3", "k 6 6 6", "t 6 6 4", "k 6 6", "b"],
        "scores": [800, 0],  # 600 + 100 for each later 6, not a doubling of the 600
    },
    "pass_dice_take_over": {
        "set": {**ZERO, "pass_dice": True},
        "play": ["t 1 5 2 3 4 6", "k 1 5", "b", "p take_over", "t 5 2 3 4", "k 5", "b"],
        "scores": [150, 200],  # Bob banks Ann's passed 150 plus his 50; Ann keeps hers
    },
    "pass_dice_farkle_loses_the_passed_total": {
        "set": {**ZERO, "pass_dice": True},
        "play": ["t 1 5 2 3 4 6", "k 1 5", "b", "p take_over", "t 2 3 4 6"],
        "scores": [150, 0],
        "event": "farkle",
    },
    "pass_dice_fresh": {
        "set": {**ZERO, "pass_dice": True},
        "play": ["t 1 5 2 3 4 6", "k 1 5", "b", "p fresh", "t 1 2 3 4 6 6", "k 1", "b"],
        "scores": [150, 100],
    },
    "zilch_350_every_turn": {
        "preset": "zilch",
        "play": ["t 1 1 5 2 3 4", "k 1 1 5", "B"],
        "refused": "at least 350 to bank",
    },
    "zilch_three_zilches_lose_1000": {
        "preset": "zilch",
        "play": ["t 1 1 5 2 3 4", "k 1 1 5", "t 5 2 3", "k 5", "t 1 2", "k 1", "b"]
        + ["q 350", "f"] * 3,
        "scores": [400 - 1000, 1050],
        "event": "farkle_penalty",
    },
    "teams_drawn_by_dice": {
        "players": ["Ann", "Bob", "Cy", "Dee"],
        "team_draw": {"teams": 2, "throws": [[3], [6], [5, 2], [5, 4]], "names": ["Red", "Blue"]},
        "set": FLAT_TARGET,
        "teams": ["Blue", "Red", "Red", "Blue"],  # order Bob 6, Dee 5 4, Cy 5 2, Ann 3
        "play": ["q 1000", "q 0", "q 0", "q 0"],
        "team_winner": "Blue",
    },
    "defend_your_win": {
        "players": ["Ann", "Bob", "Cy"],
        "set": {**FLAT_TARGET, "final_round_defend": True},
        "play": ["q 1000", "q 0", "q 1100", "q 200", "f"],  # Bob out; Cy leads; Ann back
        "scores": [1200, 0, 1100],
        "winner": "Ann",
    },
    # other keepers' and games' tests (issue 30)
    "full_house_plus_250": {
        "set": {**ZERO, "full_house": 250},
        "play": ["t 3 3 3 4 4 2", "k 3 3 3 4 4", "b"],
        "scores": [550, 0],
    },
    "triples_times_50": {
        "set": {**ZERO, "triple_multiplier": 50, "single_one": 150},
        "play": ["t 4 4 4 1 2 3", "k 4 4 4 1", "b"],
        "scores": [350, 0],
    },
    "singles_until_on_the_board": {
        "set": {"singles_until_open": True},
        "play": ["t 2 2 2 3 4 6"],
        "event": "farkle",
    },
    "bank_with_one_or_two_dice_left": {
        "set": {**ZERO, "bank_max_dice_left": 2},
        "play": ["t 1 5 2 3 4 6", "k 1", "B"],
        "refused": "only with 2 dice or fewer left",
    },
    "six_dice_bonus_first_throw": {
        "set": {"six_dice_farkle_bonus": 500, "six_dice_farkle_bonus_first_throw": True},
        "play": ["t 2 3 4 6 6 2", "t 2 3 4 6 6 2"],
        "scores": [0, 0],
        "event": "farkle",
    },
    "full_straight_not_split": {
        "set": {**ZERO, "partial_straight": 1500},
        "play": ["t 1 2 3 4 5 6", "k 1 2 3 4 5 6", "b"],
        "scores": [1500, 0],
    },
    "greed_five_dice_300_to_start": {
        "preset": "minimal",
        "set": {"dice": 5, "opening_minimum": 300, "target": 3000},
        "play": ["t 1 1 1 5 1", "k 1 1 1 5 1", "b", "t 3 4 5 3 3", "k 3 3 3 5", "b", "t 2 3 4 6 2"],
        "scores": [1150, 350],
        "event": "farkle",
    },
    "five_dice_greed": {
        "set": {**ZERO, "dice": 5, "partial_straight": 750},
        "play": ["t 2 3 4 5 6", "k 2 3 4 5 6", "t 1 1 1 2 3", "k 1 1 1", "b"],
        "scores": [1750, 0],
    },
    "four_kind_pair_is_three_pairs": {
        "set": {**ZERO, "four_kind_pair": "three_pairs", "three_pairs": 2000},
        "play": ["t 2 2 2 2 6 6", "k 2 2 2 2 6 6", "b"],
        "scores": [2000, 0],
    },
}


def _play(t: Table, step: str, refused: str | None) -> None:
    kind, *rest = step.split()
    dice = [int(d) for d in rest] if kind != "p" else []
    if kind == "t":
        t.throw(*dice)
    elif kind == "k":
        t.keep(*dice)
    elif kind == "b":
        t.bank()
    elif kind == "q":
        t.quick(dice[0])
    elif kind == "f":
        t.farkle()
    elif kind == "p":
        t.act("pass_choice", choice=rest[0])
    else:
        assert refused is not None and refused in t.bank(status=422)["message"]


@pytest.mark.parametrize("name", list(CASES))
def test_seed_rule(client: FlaskClient, new_table: NewTable, name: str) -> None:
    case = CASES[name]
    players = case.get("players", ["Ann", "Bob"])
    preset = case.get("preset", "standard")
    if "team_draw" in case:
        rules = {"preset": preset, "overrides": case.get("set", {})}
        body = {"players": players, "team_draw": case["team_draw"], "rules": rules}
        r = client.post("/api/games", json=body)
        assert r.status_code == 201, r.json
        t = Table(client, r.get_json())
        assert [p["team"] for p in t.state["players"]] == case["teams"]
    else:
        t = new_table(players, preset, **case.get("set", {}))
    for step in case["play"]:
        _play(t, step, case.get("refused"))
    if "scores" in case:
        assert [t.score(p) for p in players] == case["scores"]
    if "winner" in case:
        assert t.state["over"] and t.state["winner"] == case["winner"]
    if "event" in case:
        assert t.event == case["event"]
    if "team_winner" in case:
        assert t.state["over"] and t.state["team_winner"] == case["team_winner"]


DOC = Path(__file__).resolve().parents[1] / "docs" / "rules-engine.md"


def test_the_docs_table_lists_every_case() -> None:
    section = DOC.read_text().split("## The seed rules and their options", 1)[1]
    named = set(re.findall(r"`test_seed_rule\[([a-z0-9_]+)\]`", section))
    assert named == set(CASES)
    # a row played by a test elsewhere names a test that exists
    for path, name in re.findall(r"`(tests/[a-z0-9_/]+\.py)::([a-z0-9_]+)`", section):
        assert f"def {name}(" in (DOC.parents[1] / path).read_text(), (path, name)
