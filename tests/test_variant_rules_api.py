"""Issue 30's turn-changing rule options played through the API: a bust on an exact target,
a tie played off by a full round, the six-dice farkle bonus on the first throw only, banking
only with few dice left, only singles before the board, and a farkle that keeps its points."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from helpers.table import NewTable

pytestmark = pytest.mark.usefixtures("no_advice")


def test_an_overshoot_of_an_exact_target_busts(new_table: NewTable) -> None:
    t = new_table(
        ["Ann", "Bob"], target=1000, exact_target=True, exact_overshoot="bust", opening_minimum=0
    )
    t.throw(5, 5, 5, 2, 3, 4)
    t.keep(5, 5, 5)
    t.bank()
    t.quick(0)
    t.throw(1, 1, 1, 2, 3, 4)
    t.keep(1, 1, 1)
    assert "would be lost (bust)" in t.state["turn"]["bank_warning"]
    t.bank()
    assert [t.score("Ann"), t.score("Bob")] == [500, 0]  # welfare would give Bob the 1,000
    last = t.state["history"][-1]
    assert (last["outcome"], last["banked"], last["points"]) == ("overshoot", 0, 1000)
    assert "bust, the turn's 1,000 are lost" in last["note"]
    assert t.current == "Bob" and not t.state["over"]


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        ({"exact_overshoot": "bust"}, "exact_overshoot=bust needs exact_target"),
        (
            {"six_dice_farkle_bonus_first_throw": True},
            "six_dice_farkle_bonus_first_throw=true needs six_dice_farkle_bonus",
        ),
        ({"bank_max_dice_left": 7}, "bank_max_dice_left: it accepts a whole number from 0 to 6"),
        (
            {"bank_max_dice_left": 0, "hot_dice": "must_roll"},
            "bank_max_dice_left=0 needs hot_dice=optional",
        ),
        ({"tie_break": "coin"}, "one of extra_round, shared, full_round"),
        (
            {"tie_break": "full_round", "final_round": False},
            "tie_break=full_round needs final_round=true",
        ),
        (
            {"full_house": 250, "three_ones": 0, "triple_multiplier": 0},
            "full_house=250 needs triples that score",
        ),
        (
            {"singles_until_open": True, "single_one": 0, "single_five": 0},
            "singles_until_open=true needs single_one or single_five",
        ),
        (
            {"triple_addon": 100, "three_ones": 0, "triple_multiplier": 0, "multiples": "none"}
            | {"two_triplets": 0, "four_kind_pair": 0},
            "triple_addon=100 needs three of a kind to score",
        ),
        ({"final_round": False, "final_round_defend": True}, "needs final_round=true"),
    ],
)
def test_contradicting_or_bad_options_are_refused_at_setup(
    client: FlaskClient, overrides: dict[str, Any], words: str
) -> None:
    rules = {"preset": "standard", "overrides": overrides}
    r = client.post("/api/games", json={"players": ["Ann", "Bob"], "rules": rules})
    assert r.status_code == 400 and words in r.json["message"], r.json


def _final_round_tie(new_table: NewTable, tie_break: str) -> Any:
    t = new_table(
        ["Ann", "Bob", "Cat"],
        target=1000,
        opening_minimum=0,
        final_round_must_beat=False,
        tie_break=tie_break,
    )
    t.quick(1000)  # Ann reaches the target: the final round
    t.quick(1000)  # Bob ties her
    t.quick(500)
    return t


def test_a_full_round_tie_break_lets_everyone_play(new_table: NewTable) -> None:
    t = _final_round_tie(new_table, "full_round")
    assert (
        t.state["tie_break"] and "everyone plays one more round" in t.state["last_event"]["message"]
    )
    t.quick(0)  # Ann
    t.quick(0)  # Bob
    assert t.current == "Cat"  # not tied, she plays the round too
    t.quick(600)
    assert t.state["over"] and t.state["winner"] == "Cat"


def test_a_tied_players_tie_break_leaves_the_others_out(new_table: NewTable) -> None:
    t = _final_round_tie(new_table, "extra_round")
    t.quick(0)  # Ann
    t.quick(50)  # Bob
    assert t.state["over"] and t.state["winner"] == "Bob"


def test_the_six_dice_farkle_bonus_on_the_first_throw_only(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], six_dice_farkle_bonus=500, six_dice_farkle_bonus_first_throw=True)
    t.throw(2, 3, 4, 6, 6, 2)
    assert t.event == "six_dice_bonus" and t.state["turn"]["total"] == 500
    t.throw(2, 3, 4, 6, 6, 2)  # the second throw of six: a plain farkle
    assert t.event == "farkle" and t.current == "Bob"
    t.throw(1, 1, 1, 5, 5, 5)
    t.keep(1, 1, 1, 5, 5, 5)  # hot dice: six dice again, but not the first throw
    t.throw(2, 3, 4, 6, 6, 2)
    assert t.event == "farkle" and t.score("Bob") == 0


def test_banking_only_with_few_dice_left(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], opening_minimum=0, bank_max_dice_left=2)
    t.throw(1, 5, 2, 3, 4, 6)
    offered = {tuple(k["keep"]): r for k, r in zip(
        t.state["turn"]["keeps"], t.state["turn"]["keep_then_bank"], strict=True)}  # fmt: skip
    assert "only with 2 dice or fewer left to throw (5 dice left)" in offered[(1,)]["refusal"]
    t.keep(1)
    refused = t.bank(status=422)
    assert (
        "may be banked only with 2 dice or fewer left to throw (5 dice left)" in refused["message"]
    )
    t.throw(1, 5, 5, 2, 3)
    t.keep(1, 5, 5)
    t.bank()  # two dice left
    assert t.score("Ann") == 300
    t.throw(1, 1, 1, 5, 5, 5)
    t.keep(1, 1, 1, 5, 5, 5)  # hot dice count as no dice left
    assert t.state["turn"]["can_bank"]
    t.bank()
    assert t.score("Bob") == 2500


def test_only_singles_score_before_the_board(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], opening_minimum=300, singles_until_open=True)
    t.throw(2, 2, 2, 3, 4, 6)
    assert t.event == "farkle" and "only single 1s and 5s score" in t.state["history"][-1]["note"]
    t.throw(1, 1, 1, 5, 3, 4)
    assert t.state["turn"]["keeps"][0]["points"] == 350  # three single 1s and a 5, no triple
    t.keep(1, 1, 1, 5)
    t.bank()
    assert t.score("Bob") == 350 and t.state["players"][1]["on_board"]
    t.quick(0)
    t.throw(1, 1, 1, 5, 3, 4)
    assert t.state["turn"]["keeps"][0]["points"] == 1050  # on the board: the triple counts


def test_a_farkle_keeps_its_points_when_they_could_be_banked(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], opening_minimum=300, farkle_keeps_points=True)
    t.throw(1, 5, 2, 3, 4, 6)
    t.keep(1, 5)
    t.throw(2, 3, 4, 6)
    assert t.event == "farkle" and t.score("Ann") == 0  # 150 is below the opening minimum
    t.throw(1, 1, 1, 2, 3, 4)
    t.keep(1, 1, 1)
    t.throw(2, 3, 4)
    last = t.state["history"][-1]
    assert (last["outcome"], last["banked"], t.score("Bob")) == ("farkle_kept", 1000, 1000)
    assert "keeps the turn's 1,000" in t.state["last_event"]["message"]
    assert t.state["stats"][1]["farkles"] == 1 and t.state["players"][1]["farkle_streak"] == 0
