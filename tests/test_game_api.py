"""Whole games through the JSON API: every rule of spec §2–§5 and seed 000's rulings.

The ``new_table`` fixture (tests/conftest.py) plays a game through the Flask test client.
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers.table import NewTable, Table, core

pytestmark = pytest.mark.usefixtures("no_advice")


def test_created_game_has_the_documented_shape(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"])
    s = t.state
    assert [p["name"] for p in s["players"]] == ["Ann", "Bob"]
    assert set(s["players"][0]) >= {"name", "score", "on_board", "farkle_streak", "team", "active"}
    assert s["current"] == 0 and s["phase"] == "throw"
    assert set(s["turn"]) >= {
        "total",
        "dice_left",
        "throw",
        "keeps",
        "kept",
        "must_roll",
        "can_bank",
        "bank_refusal",
        "opening_needed",
        "advice",
    }
    assert s["turn"]["dice_left"] == 6 and s["turn"]["opening_needed"] == 500
    assert s["final_round"] is False and s["to_beat"] is None and s["winner"] is None
    assert s["history"] == [] and s["last_event"]["type"] == "created"


def test_opening_minimum_refused_then_met(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"])
    t.throw(1, 5, 2, 3, 4, 4)
    assert [k["keep"] for k in t.state["turn"]["keeps"]] == [[1, 5], [1], [5]]
    t.keep(1, 5)
    assert t.state["turn"]["can_bank"] is False
    assert t.state["turn"]["opening_needed"] == 350
    refused = t.bank(status=422)
    assert refused["error"] == "not_allowed"
    assert "Ann needs 500 in one turn to get on the board; the turn has 150" in refused["message"]
    t.throw(1, 1, 1, 2)
    t.keep(1, 1, 1)
    assert t.state["turn"]["total"] == 1150 and t.state["turn"]["can_bank"]
    t.bank()
    assert t.score("Ann") == 1150 and t.state["players"][0]["on_board"]
    assert t.current == "Bob" and t.event == "bank"
    assert t.state["history"][-1]["outcome"] == "bank"


def test_bank_minimum_applies_to_every_turn(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], opening_minimum=0, bank_minimum=300)
    t.throw(1, 2, 3, 4, 6, 6)
    t.keep(1)
    assert "at least 300" in t.bank(status=422)["message"]
    t.throw(5, 5, 5, 2, 3)
    t.keep(5, 5, 5)
    t.bank()
    assert t.score("Ann") == 600


def test_hot_dice_optional_may_bank(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"])
    t.throw(1, 1, 1, 5, 5, 5)
    t.keep(1, 1, 1, 5, 5, 5)
    assert t.event == "hot_dice"
    assert t.state["turn"]["dice_left"] == 6 and t.state["turn"]["total"] == 2500  # two triplets
    assert t.state["turn"]["must_roll"] is False and t.state["turn"]["can_bank"]
    t.bank()
    assert t.score("Ann") == 2500
    assert t.state["stats"][0]["hot_dice"] == 1


def test_hot_dice_must_roll(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], hot_dice="must_roll")
    t.throw(1, 1, 1, 5, 2, 3)
    t.keep(1, 1, 1, 5)
    t.throw(5, 5)
    t.keep(5, 5)
    assert t.event == "hot_dice" and t.state["turn"]["must_roll"]
    assert "must throw all six" in t.bank(status=422)["message"]
    t.throw(1, 2, 3, 4, 6, 6)
    assert t.state["turn"]["must_roll"] is False
    t.keep(1)
    t.bank()
    assert t.score("Ann") == 1250


def _bank_points(t: Table, points: int) -> None:
    """The current player banks exactly ``points`` (a multiple of 50) by quick score."""
    t.quick(points)


def test_final_round_leader_passed_gets_no_more_turns(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob", "Cy"], opening_minimum=0, target=1000)
    _bank_points(t, 1100)
    assert t.state["final_round"] and t.event == "final_round"
    assert t.state["to_beat"] == 1100 and t.state["leader"] == "Ann"
    assert t.state["final_turns_left"] == ["Bob", "Cy"]
    assert t.current == "Bob"
    _bank_points(t, 1200)
    assert t.state["leader"] == "Bob" and t.state["to_beat"] == 1200
    assert t.current == "Cy" and t.state["final_turns_left"] == ["Cy"]
    t.farkle()
    assert t.state["over"] and t.state["winner"] == "Bob" and t.event == "win"
    assert t.score("Ann") == 1100  # Ann got no further turn
    assert "game is over" in t.throw(1, 2, 3, 4, 5, 6, status=422)["message"]


def test_final_round_must_beat_a_tie_keeps_rolling(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], opening_minimum=0, target=1000)
    _bank_points(t, 1000)
    t.throw(1, 1, 1, 2, 3, 4)
    t.keep(1, 1, 1)
    assert t.state["turn"]["can_bank"] is False
    assert "must beat 1,000" in t.state["turn"]["bank_refusal"]
    refused = t.bank(status=422)
    assert "keep rolling" in refused["message"]
    t.throw(5, 2, 3)
    t.keep(5)
    t.bank()
    assert t.state["winner"] == "Bob" and t.score("Bob") == 1050


def test_tie_break_extra_round(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob", "Cy"], opening_minimum=0, target=1000, final_round_must_beat=False)
    _bank_points(t, 1000)
    _bank_points(t, 1000)
    t.farkle()  # Cy
    assert t.state["tie_break"] and t.event == "tie_break"
    assert t.state["final_turns_left"] == ["Ann", "Bob"] and t.current == "Ann"
    t.farkle()
    t.farkle()
    assert t.state["tie_break"] and t.current == "Ann"  # still tied: another round
    t.farkle()
    _bank_points(t, 50)
    assert t.state["winner"] == "Bob" and t.state["winners"] == ["Bob"]


def test_tie_shared(new_table: NewTable) -> None:
    t = new_table(
        ["Ann", "Bob"],
        opening_minimum=0,
        target=1000,
        final_round_must_beat=False,
        tie_break="shared",
    )
    _bank_points(t, 1000)
    _bank_points(t, 1000)
    assert t.state["over"] and t.state["winners"] == ["Ann", "Bob"]
    assert t.state["winner"] == "Ann and Bob"


def test_no_final_round_first_to_target_wins(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], opening_minimum=0, target=1000, final_round=False)
    _bank_points(t, 1000)
    assert t.state["winner"] == "Ann"


def test_exact_target_overshoot_goes_to_lowest(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob", "Cy"], opening_minimum=0, target=1000, exact_target=True)
    _bank_points(t, 900)
    _bank_points(t, 200)
    _bank_points(t, 100)
    t.throw(1, 1, 1, 5, 2, 3)  # Ann: 1050 would overshoot; she may keep just a 5 (seed 000)
    t.keep(1, 1, 1)
    t.bank()
    assert t.event == "overshoot"
    assert t.score("Ann") == 900 and t.score("Cy") == 1100
    t.throw(1, 5, 2, 3, 4, 4)  # Bob
    t.keep(5)
    t.bank()
    assert t.score("Bob") == 250
    t.throw(5, 2, 3, 4, 6, 6)  # Cy is over the target already: his points go to the lowest
    t.keep(5)
    t.bank()
    assert t.score("Bob") == 300
    t.throw(1, 2, 3, 4, 6, 6)  # Ann lands exactly on 1000
    t.keep(1)
    t.bank()
    assert t.state["over"] and t.state["winner"] == "Ann" and t.score("Ann") == 1000


def test_three_farkle_penalty(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], opening_minimum=0, farkle_streak_penalty=500)
    _bank_points(t, 1000)
    _bank_points(t, 100)
    for _ in range(2):
        t.farkle()  # Ann
        t.farkle()  # Bob
    assert t.state["players"][0]["farkle_streak"] == 2 and t.score("Ann") == 1000
    t.farkle()
    assert t.event == "farkle_penalty"
    assert t.score("Ann") == 500 and t.state["players"][0]["farkle_streak"] == 0
    t.farkle()
    assert t.score("Bob") == -400  # scores may go negative
    assert t.state["stats"][1]["penalties"] == 1


def test_bank_resets_the_farkle_streak(new_table: NewTable) -> None:
    t = new_table(["Ann"], opening_minimum=0, farkle_streak_penalty=500)
    t.farkle()
    t.farkle()
    _bank_points(t, 50)
    t.farkle()
    assert t.state["players"][0]["farkle_streak"] == 1 and t.score("Ann") == 50


def test_toxic_twos_wipe_the_banked_score(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], opening_minimum=0, toxic_twos=True)
    _bank_points(t, 1500)
    t.farkle()
    t.throw(2, 2, 2, 2, 3, 4)
    assert t.event == "toxic_twos"
    assert t.score("Ann") == 0 and t.current == "Bob"
    assert t.state["history"][-1]["outcome"] == "toxic_twos"


def test_six_ones_win_outright(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], six_ones_win=True)
    t.throw(1, 1, 1, 1, 1, 1)
    assert t.state["over"] and t.state["winner"] == "Ann" and t.event == "win"
    assert "six 1s" in t.state["last_event"]["message"].lower()


def test_six_dice_farkle_bonus(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], "zilch-online")
    t.throw(2, 3, 4, 6, 6, 2)
    assert t.event == "six_dice_bonus"
    turn = t.state["turn"]
    assert turn["total"] == 500 and turn["dice_left"] == 6 and turn["must_roll"]
    t.throw(1, 2, 3, 4, 6, 6)
    t.keep(1)
    t.bank()
    assert t.score("Ann") == 600


def test_quick_score(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"])
    refused = t.quick(300, status=422)
    assert "Ann needs 500 in one turn" in refused["message"]
    assert "enter 500 or more, or 0 if the turn ended in a farkle" in refused["message"]
    t.quick(600)
    assert t.score("Ann") == 600 and t.current == "Bob" and t.event == "quick_score"
    t.quick(0)
    assert t.state["players"][1]["farkle_streak"] == 1 and t.current == "Ann"
    assert t.state["last_event"]["message"] == "Farkle! Bob scored nothing."  # nothing to lose
    t.throw(1, 2, 3, 4, 6, 6)
    assert "whole turn" in t.quick(100, status=422)["message"]
    assert t.act("quick_score", 400, points=75)["error"] == "bad_request"


def test_a_farkle_says_what_the_turn_lost(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"])
    t.throw(2, 2, 3, 4, 6, 6)  # a farkle on the first throw: nothing to lose
    assert t.state["last_event"]["message"] == "Farkle! Ann threw 2 2 3 4 6 6: no scoring dice."
    t.throw(1, 5, 2, 3, 4, 6)
    t.keep(1, 5)
    t.throw(2, 3, 4, 6)
    assert t.state["last_event"]["message"].endswith("Bob loses the turn's 150.")


def test_quick_score_in_the_final_round_says_what_may_be_entered(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], opening_minimum=0, target=1000, bank_minimum=300)
    assert "enter 300 or more" in t.quick(250, status=422)["message"]
    t.quick(1050)  # Ann reaches the target: Bob's last turn, from 0
    refused = t.quick(1050, status=422)  # a tie does not end a must-beat turn
    assert refused["message"] == (
        "Bob cannot score 1,050: in the final round Bob must beat 1,050 (the turn ends by"
        " beating it or in a farkle); enter more than 1,050, or 0 if the turn ended in a farkle"
    )
    t.quick(1100)
    assert t.state["over"] and t.state["winner"] == "Bob"


_without_event = core


@pytest.mark.parametrize(
    "action",
    [
        ("throw", {"dice": [1, 5, 2, 3, 4, 6]}),
        ("throw", {"dice": [2, 3, 4, 6, 6, 2]}),
        ("quick_score", {"points": 650}),
        ("join", {"name": "Dee"}),
        ("leave", {"player": "Bob"}),
        ("leave", {"player": "Ann"}),
        ("end", {}),
    ],
)
def test_undo_restores_the_state_before_each_action(
    new_table: NewTable, action: tuple[str, dict[str, Any]]
) -> None:
    t = new_table(["Ann", "Bob", "Cy"])
    t.throw(1, 1, 1, 2, 3, 4)
    t.keep(1, 1, 1)
    before = _without_event(t.state)
    kind, fields = action
    if kind in ("throw", "quick_score"):
        t.bank()
        before = _without_event(t.state)
    t.act(kind, **fields)
    assert _without_event(t.state) != before
    t.undo()
    assert _without_event(t.state) == before
    assert t.event == "undo" and t.state["last_event"]["undone"] == kind


def test_undo_keep_and_bank_and_undo_twice(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"])
    t.throw(1, 1, 1, 2, 3, 4)
    after_throw = _without_event(t.state)
    t.keep(1, 1, 1)
    after_keep = _without_event(t.state)
    t.bank()
    t.undo()
    assert _without_event(t.state) == after_keep
    assert t.state["last_event"]["message"] == "Undid: Ann banked 1,000."
    t.undo()  # a second undo removes the action before
    assert _without_event(t.state) == after_throw
    t.undo()
    t.undo(status=422)  # nothing left
    assert t.version == 6


def test_player_leaving_mid_game_keeps_the_order(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob", "Cy", "Dee"], opening_minimum=0)
    _bank_points(t, 300)
    t.throw(1, 2, 3, 4, 6, 6)
    t.keep(1)
    t.act("leave", player="Bob")  # Bob leaves during his own turn: it is discarded
    assert t.current == "Cy" and t.event == "leave"
    assert t.state["players"][1]["active"] is False and t.score("Bob") == 0
    t.act("leave", player="Dee")  # Dee leaves before her turn: she is skipped
    _bank_points(t, 200)
    assert t.current == "Ann"
    t.act("join", name="Eve")
    _bank_points(t, 50)
    assert t.current == "Cy"
    _bank_points(t, 50)
    assert t.current == "Eve"
    assert t.act("leave", 422, player="Bob")["message"] == "Bob has already left the game"
    assert "already in this game" in t.act("join", 422, name="ann")["message"]


def test_teams_add_their_members_scores(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob", "Cy"], opening_minimum=0, teams={"Red": ["Ann", "Cy"]})
    _bank_points(t, 300)
    _bank_points(t, 200)
    _bank_points(t, 100)
    assert t.state["teams"] == [{"name": "Red", "score": 400, "members": ["Ann", "Cy"]}]
    assert t.state["players"][1]["team"] is None


def test_seed000_original_rules(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], "original")
    t.throw(6, 6, 6, 6, 6, 6)  # six 6s under the original rules: 1200 and must roll again
    assert t.state["turn"]["keeps"][0]["points"] == 1200
    t.keep(6, 6, 6, 6, 6, 6)
    assert t.state["turn"]["must_roll"] and t.state["turn"]["total"] == 1200
    t.throw(6, 6, 6, 5, 5, 4)  # keep the 6s and throw the rest (no need to keep every 5)
    t.keep(6, 6, 6)
    assert t.state["turn"]["dice_left"] == 3
    t.throw(1, 5, 2)
    assert "must first set aside a keep" in t.bank(status=422)["message"]
    t.keep(1)
    t.bank()
    assert t.score("Ann") == 1900
    t.throw(1, 1, 1, 1, 2, 3)  # four 1s under the original rules: 1000 + 100
    assert t.state["turn"]["keeps"][0] == {
        "keep": [1, 1, 1, 1],
        "points": 1100,
        "combos": [
            {"name": "three_of_a_kind", "dice": [1, 1, 1], "points": 1000},
            {"name": "single", "dice": [1], "points": 100},
        ],
    }


def test_keep_must_come_from_the_throw_and_score(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"])
    t.throw(1, 5, 2, 3, 4, 4)
    assert "not a legal keep" in t.keep(1, 4, status=422)["message"]
    assert "not all in the throw" in t.keep(1, 1, status=422)["message"]
    assert "must set aside a keep" in t.throw(1, 2, 3, 4, 5, 6, status=422)["message"]
    t.keep(1)
    assert "has 5 dice to throw; 6 were entered" in t.throw(1, 2, 3, 4, 5, 6, status=422)["message"]
    assert "no throw to keep from" in t.keep(5, status=422)["message"]


def test_leave_by_seat_and_camera_source(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob", "Cy"])
    t.act("throw", dice=[1, 2, 3, 4, 6, 6], source="camera")
    assert t.state["turn"]["source"] == "camera"
    assert t.state["history"] == [] and t.state["turn"]["throw"] == [1, 2, 3, 4, 6, 6]
    t.act("leave", player=2)
    assert [p["active"] for p in t.state["players"]] == [True, True, False]
    assert "no seat 7" in t.act("leave", 422, player=7)["message"]
    t.act("end")
    assert t.state["over"] and t.state["winners"] == ["Ann", "Bob"]
    assert "game is over" in t.act("join", 422, name="Dee")["message"]


def test_solo_game_ends_when_the_target_is_reached(new_table: NewTable) -> None:
    t = new_table(["Ann"], opening_minimum=0, target=500)
    _bank_points(t, 300)
    assert t.current == "Ann" and not t.state["over"]
    _bank_points(t, 250)
    assert t.state["winner"] == "Ann" and t.state["final_round"] is False
