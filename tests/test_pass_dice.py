"""Passing dice (``pass_dice``): played through the API, refused with reasons, advised exactly.

The golden test checks the advice against an independent brute force: a memoised recursion
over every ordered throw (``itertools.product``), sharing nothing with the solver but the
legal keeps of a throw.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import product

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers.table import NewTable

from scorekeeper.errors import StrategyError
from scorekeeper.rules import Rules, find_rules
from scorekeeper.scoring import table_for
from scorekeeper.strategy import advise_pass


def test_a_bank_passes_the_total_and_dice_and_the_next_player_takes_over(
    new_table: NewTable, no_advice: None
) -> None:
    t = new_table(["Ann", "Bob", "Cy"], opening_minimum=0, pass_dice=True)
    t.throw(1, 5, 2, 3, 4, 6)
    t.keep(1, 5)
    t.bank()
    assert t.state["phase"] == "pass" and t.current == "Bob"
    assert t.state["turn"]["passed"] == {"total": 150, "dice": 4, "from": "Ann"}
    assert "Bob may take over Ann's 150" in t.state["last_event"]["message"]
    # before choosing, no throw, quick score or bank
    refused = t.throw(1, 2, 3, 4, 5, 6, status=422)
    assert "must first choose" in refused["message"] and "take over Ann's 150" in refused["message"]
    assert "must first choose" in t.quick(500, status=422)["message"]
    assert t.state["turn"]["can_bank"] is False
    t.act("pass_choice", choice="take_over")
    assert t.state["turn"]["total"] == 150 and t.state["turn"]["dice_left"] == 4
    assert t.state["turn"]["took_over"] == {"total": 150, "dice": 4, "from": "Ann"}
    assert "must throw them before banking" in t.state["turn"]["bank_refusal"]
    assert "must throw them" in t.bank(status=422)["message"]
    t.throw(5, 2, 3, 4)
    t.keep(5)
    t.bank()
    assert t.score("Ann") == 150 and t.score("Bob") == 200  # Ann keeps hers; Bob banks it all
    assert t.state["history"][-1]["took_over"] == {"total": 150, "dice": 4, "from": "Ann"}
    # Cy declines and throws six fresh dice; a quick score is then allowed
    assert t.state["turn"]["passed"] == {"total": 200, "dice": 3, "from": "Bob"}
    t.act("pass_choice", choice="fresh")
    assert t.state["turn"]["total"] == 0 and t.state["turn"]["dice_left"] == 6
    again = t.act("pass_choice", 422, choice="take_over")
    assert "Cy already chose to throw fresh" in again["message"]
    assert t.event == "pass_fresh"
    t.quick(300)
    assert t.score("Cy") == 300
    # Ann takes over Cy's quick score? No: a quick score passes no dice
    assert t.state["turn"]["passed"] is None and t.state["phase"] == "throw"
    assert "no passed dice" in t.act("pass_choice", 422, choice="take_over")["message"]


def test_a_farkle_loses_the_passed_total_and_hot_dice_pass_six(
    new_table: NewTable, no_advice: None
) -> None:
    t = new_table(["Ann", "Bob"], opening_minimum=0, pass_dice=True)
    t.throw(1, 1, 1, 5, 5, 5)  # hot dice: two triplets, 2,500
    t.keep(1, 1, 1, 5, 5, 5)
    t.bank()
    assert t.state["turn"]["passed"] == {"total": 2500, "dice": 6, "from": "Ann"}
    t.act("pass_choice", choice="take_over")
    t.throw(2, 3, 4, 6, 2, 3)
    last = t.state["history"][-1]
    assert last["outcome"] == "farkle" and last["points"] == 2500 and t.score("Bob") == 0
    assert t.score("Ann") == 2500
    assert "loses the turn's 2,500" in t.state["last_event"]["message"]
    # a farkle passes nothing
    assert t.state["turn"]["passed"] is None and t.current == "Ann"


def test_undo_and_export_record_the_choice(
    client: FlaskClient, new_table: NewTable, no_advice: None
) -> None:
    t = new_table(["Ann", "Bob"], opening_minimum=0, pass_dice=True)
    t.throw(1, 5, 2, 3, 4, 6)
    t.keep(1)
    t.bank()
    t.act("pass_choice", choice="take_over")
    assert t.state["undoable"]["text"] == "Bob took over Ann's 100"
    t.undo()
    assert t.state["phase"] == "pass" and t.state["turn"]["passed"]["total"] == 100
    t.act("pass_choice", choice="take_over")
    t.throw(5, 5, 5, 2, 3)
    t.keep(5, 5, 5)
    t.bank()
    csv = client.get(f"/api/games/{t.id}/export.csv").get_data(as_text=True)
    assert "took over Ann's 100 and 5 dice; 2 3 5 5 5 kept 5 5 5 (500)" in csv
    exported = client.get(f"/api/games/{t.id}/export.json").get_json()
    assert {"type": "pass_choice", "choice": "take_over"}.items() <= exported["events"][4].items()
    assert exported["state"]["history"][1]["took_over"]["from"] == "Ann"


def test_bad_choices_and_a_one_player_game_are_refused(
    client: FlaskClient, new_table: NewTable, no_advice: None
) -> None:
    r = client.post(
        "/api/games", json={"players": ["Ann"], "rules": {"overrides": {"pass_dice": True}}}
    )
    assert r.status_code == 400
    assert "pass_dice" in r.json["message"] and "one (Ann)" in r.json["message"]
    t = new_table(["Ann", "Bob"], opening_minimum=0)
    assert "pass_dice is off" in t.act("pass_choice", 422, choice="fresh")["message"]
    bad = t.act("pass_choice", 400, choice="steal")
    assert "take_over" in bad["message"] and "fresh" in bad["message"]


def test_the_play_state_carries_exact_advice_on_the_choice(app: Flask, new_table: NewTable) -> None:
    app.config["ADVICE_WAIT_S"] = 30.0
    t = new_table(["Ann", "Bob"], opening_minimum=0, pass_dice=True)
    t.throw(1, 1, 1, 2, 3, 4)
    t.keep(1, 1, 1)
    t.bank()
    advice = t.state["turn"]["advice"]
    assert advice is None or advice["kind"] == "pass"
    got = t.client.get(f"/api/games/{t.id}").get_json()["state"]["turn"]["advice"]
    assert got["kind"] == "pass" and got["best"] == "take_over"
    assert got["take_over"] > got["fresh"] and got["message"].startswith("Take over 1000")
    r = t.client.get("/api/suggest?passed=350&passed_dice=2&set=pass_dice=true")
    assert r.status_code == 200 and r.json["advice"]["best"] == "fresh"
    assert t.client.get("/api/suggest?passed=350&passed_dice=2").status_code == 400


# ----- golden test: the choice against an independent brute force ----------------------------


def _brute(rules: Rules) -> tuple[object, object]:
    """Exact values by plain recursion: ``state(t, n)`` holding ``n`` dice at turn total ``t``
    (``n = 6`` after hot dice), ``roll(t, n)`` throwing them; a total at the target banks.
    Every legal keep of every throw is tried (a smaller keep that stays under the target and
    throws on can be worth more than the biggest).
    """
    table = table_for(rules)
    outcomes: dict[int, Counter[tuple[int, ...]]] = {}
    for n in range(1, 7):
        c: Counter[tuple[int, ...]] = Counter()
        for faces in product(range(1, 7), repeat=n):
            c[tuple(faces.count(v) for v in range(1, 7))] += 1
        outcomes[n] = c

    @cache
    def state(t: int, n: int) -> float:
        if t >= rules.target:
            return float(t)
        return max(float(t) if t > 0 else 0.0, roll(t, n))

    @cache
    def roll(t: int, n: int) -> float:
        total = 0.0
        for counts, ways in outcomes[n].items():
            # every keep (a keep of every die is hot dice: six fresh dice)
            values = [state(t + k.points, n - len(k.dice) or 6) for k in table.keeps(counts)]
            if values:
                total += ways * max(values)
        return total / 6**n

    return state, roll


def test_pass_advice_matches_a_brute_force_on_a_small_target(tmp_path: object) -> None:
    rules = find_rules("minimal", {"target": 500, "pass_dice": True, "opening_minimum": 0})
    _, roll = _brute(rules)
    fresh = roll(0, 6)
    choices = set()
    for total in range(50, 500, 50):
        for dice in range(1, 7):
            advice = advise_pass(rules, total, dice, cache_dir=str(tmp_path))
            take = roll(total, dice)
            assert advice.take_value == pytest.approx(take, abs=1e-9), (total, dice)
            assert advice.fresh_value == pytest.approx(fresh, abs=1e-9)
            assert advice.best == ("take_over" if take > fresh + 1e-9 else "fresh")
            choices.add(advice.best)
    assert choices == {"take_over", "fresh"}  # the target is small enough to see both


def test_pass_advice_refuses_impossible_states(tmp_path: object) -> None:
    rules = find_rules("standard", {"pass_dice": True})
    with pytest.raises(StrategyError, match="passed dice 7"):
        advise_pass(rules, 300, 7, cache_dir=str(tmp_path))
    with pytest.raises(StrategyError, match="passed total 30"):
        advise_pass(rules, 30, 2, cache_dir=str(tmp_path))


def test_the_review_values_a_taken_over_turn_from_the_passed_dice(tmp_path: object) -> None:
    from scorekeeper.game.actions import parse_setup
    from scorekeeper.review.evaluate import review_events
    from scorekeeper.strategy import policy_for

    setup = parse_setup({"players": ["Ann", "Bob"], "rules": {"overrides": {"pass_dice": True}}})
    rules = Rules.from_dict(setup["rules"])
    events = [
        setup,
        {"type": "throw", "dice": [1, 1, 1, 5, 2, 3]},
        {"type": "keep", "dice": [1, 1, 1, 5]},
        {"type": "bank"},
        {"type": "pass_choice", "choice": "take_over"},
        {"type": "throw", "dice": [5, 2]},
        {"type": "keep", "dice": [5]},
        {"type": "bank"},
    ]
    policy = policy_for(rules, str(tmp_path))
    review = review_events(events, policy)
    fresh = policy.off_board.roll(0, 6)
    taken = review.turns[1]
    assert taken.seat == 1 and taken.expected > fresh  # 1,050 with two dice in hand
    assert taken.expected == pytest.approx(policy.off_board.roll(1050 // 50, 2))
    choice = taken.decisions[0]
    assert choice.kind == "take_over_or_fresh" and choice.cost == 0 and choice.grade == "best"
    assert choice.words.startswith("Turn 2: Bob was passed 1050 with 2 dice and took over")
    # declining it costs the gap, and the turn's luck and choices still add up
    declined = [*events[:4], {"type": "pass_choice", "choice": "fresh"}]
    declined += [{"type": "throw", "dice": [1, 5, 2, 3, 4, 6]}, {"type": "keep", "dice": [1, 5]}]
    turn = review_events(declined, policy).turns[1]
    wrong = turn.decisions[0]
    take = policy.off_board.roll(1050 // 50, 2)
    assert wrong.cost == pytest.approx(take - fresh) and wrong.cost > 0
    assert "best was to take over Ann's 1050 with 2 dice" in wrong.words
    assert turn.result - turn.expected == pytest.approx(turn.dice + turn.choices)


def test_a_taken_over_turn_can_be_corrected_and_a_correction_that_unpasses_is_refused(
    client: FlaskClient, new_table: NewTable, no_advice: None
) -> None:
    t = new_table(["Ann", "Bob"], opening_minimum=0, pass_dice=True)
    t.throw(1, 5, 2, 3, 4, 6)
    t.keep(1, 5)
    t.bank()
    t.act("pass_choice", choice="take_over")
    t.throw(5, 2, 3, 4)
    t.keep(5)
    t.bank()
    fix = [
        {"type": "throw", "dice": [5, 5, 3, 4]},
        {"type": "keep", "dice": [5, 5]},
        {"type": "bank"},
    ]
    t.act("correct", turn=2, actions=fix)
    assert t.score("Bob") == 250 and t.state["history"][1]["took_over"]["total"] == 150
    # Ann's turn corrected to a farkle passes nothing: Bob's take-over no longer fits
    farkle = [{"type": "throw", "dice": [2, 3, 4, 6, 2, 3]}]
    refused = t.act("correct", 422, turn=1, actions=farkle)
    assert "no longer fits" in refused["message"] and "no passed dice" in refused["message"]
