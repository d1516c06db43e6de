"""``dice=5``: a five-dice game as Greed plays it. The rules option and its contradictions,
the game through the API (five dice a throw, hot dice re-roll five, the virtual dice throw
five), and the advisor exact against an independent brute force."""

from __future__ import annotations

import csv
import io
import json
import time
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from itertools import product

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers.table import NewTable, core

from scorekeeper.cli import main
from scorekeeper.errors import RulesError, StrategyError
from scorekeeper.game.log import replay
from scorekeeper.rules import Rules, find_rules
from scorekeeper.scoring import Dice, farkle_probability, legal_keeps, table_for
from scorekeeper.strategy import advise, advise_pass
from scorekeeper.strategy.model import chance_model
from scorekeeper.strategy.policy import solve_policy
from scorekeeper.winprob import solve_winprob
from scorekeeper.winprob.words import option as option_words

FIVE = {"dice": 5, "opening_minimum": 0}


def test_the_option_takes_5_or_6_and_defaults_to_6() -> None:
    assert Rules().dice == 6
    assert find_rules("standard", {"dice": "5"}).dice == 5
    for bad in (4, 7, "six"):
        with pytest.raises(RulesError, match=r"bad value .* for dice: it accepts 5 or 6"):
            find_rules("standard", {"dice": bad})


@pytest.mark.parametrize(
    ("option", "value"), [("six_ones_win", True), ("six_dice_farkle_bonus", 500)]
)
def test_six_dice_specials_contradict_five_dice_naming_both(option: str, value: object) -> None:
    with pytest.raises(RulesError) as err:
        find_rules("standard", {"dice": 5, option: value})
    message = str(err.value)
    assert f"{option}=" in message and "needs dice=6" in message and "dice=5" not in message
    assert "set dice=6 or turn" in message


def test_six_dice_combinations_simply_never_apply() -> None:
    """The standard preset's three pairs, straight, two triplets and four-and-a-pair need six
    dice: with five they never score, and a rule set that differs only in them shares the
    solver's caches."""
    five = find_rules("standard", {"dice": 5})
    assert five.three_pairs == 1500  # kept as set, never applies
    plain = five.with_overrides(
        {"three_pairs": 0, "straight": 0, "two_triplets": 0, "four_kind_pair": 0}
    )
    assert five.content_key() == plain.content_key()
    assert five.content_key() != Rules().content_key()


def test_five_dice_farkle_chances_are_the_spec_table() -> None:
    rules = find_rules("minimal", {"dice": 5})
    for n, bad in ((1, 4), (2, 16), (3, 60), (4, 204), (5, 600)):
        assert farkle_probability(n, rules) == Fraction(bad, 6**n)
    # the five-dice straight is the partial straight
    greed = find_rules("standard", {"dice": 5, "partial_straight": 750})
    assert legal_keeps(Dice.parse("2 3 4 5 6"), greed)[0].points == 750
    assert chance_model(greed).dice == 5 and len(chance_model(greed).n_starts) == 5


def test_a_game_throws_five_dice_and_hot_dice_rethrow_five(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], **FIVE)
    assert t.state["turn"]["dice_left"] == 5
    body = t.throw(1, 5, 2, 3, 4, 6, status=422)
    assert "this table plays with 5 dice" in body["message"]
    t.throw(1, 5, 5, 2, 3)
    t.keep(1, 5, 5)
    t.throw(1, 1)
    t.keep(1, 1)
    assert t.state["turn"]["dice_left"] == 5
    assert "throw all five again" in t.state["last_event"]["message"]
    t.act("roll")
    assert len(t.state["turn"]["throw"] or t.state["history"][-1]["throws"][-1]["dice"]) == 5


def test_a_bank_passes_five_fresh_dice(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], **FIVE, pass_dice=True)
    t.throw(1, 5, 2, 3, 4)
    t.keep(1, 5, 2, 3, 4, status=422)  # 2 3 4 do not score with five dice
    t.keep(1, 5)
    t.bank()
    assert "throw five fresh dice" in t.state["last_event"]["message"]


def _brute(rules: Rules) -> Callable[[int, int], float]:
    """``roll(t, n)``: throwing ``n`` of five dice at turn total ``t`` by plain recursion over
    every ordered throw and every keep; a total at the target banks; hot dice throw five; a
    bank needs at most ``bank_max_dice_left`` dice left (hot dice count as none)."""
    table = table_for(rules)

    @cache
    def state(t: int, n: int, hot: bool) -> float:
        may = hot or n <= rules.bank_max_dice_left
        if may and t >= rules.target:
            return float(t)
        return max(float(t), roll(t, n)) if may else roll(t, n)

    @cache
    def roll(t: int, n: int) -> float:
        throws = Counter(
            tuple(faces.count(v) for v in range(1, 7)) for faces in product(range(1, 7), repeat=n)
        )
        total = 0.0
        for counts, ways in throws.items():
            keeps = table.keeps(counts)
            if keeps:
                total += ways * max(
                    state(t + k.points, n - len(k.dice) or 5, len(k.dice) == n) for k in keeps
                )
        return total / 6**n

    return roll


@pytest.mark.parametrize(
    ("preset", "extra"),
    [("standard", {}), ("minimal", {}), ("standard", {"bank_max_dice_left": 2})],
)
def test_the_advisor_is_exact_for_five_dice_against_a_brute_force(
    preset: str, extra: dict[str, object]
) -> None:
    rules = find_rules(preset, {"target": 1000, "partial_straight": 750, **FIVE, **extra})
    roll = _brute(rules)
    table = solve_policy(rules).on_board
    for units in range(0, 20):
        for n in range(1, 6):
            assert table.R[units, n, 0] == pytest.approx(roll(units * 50, n), abs=1e-9), (units, n)
    # five dice are worth less than six under the same rules
    six = solve_policy(rules.with_overrides({"dice": 6, "bank_max_dice_left": 6})).on_board
    assert table.R[0, 5, 0] < six.R[0, 6, 0]


def test_advice_and_passed_dice_speak_of_five() -> None:
    rules = find_rules("standard", FIVE)
    advice = advise(rules, Dice.parse("1 1 5 5 5"))
    assert advice.best is not None
    hot = [o for o in advice.options if len(o.keep) == 5 and o.action == "roll"]
    assert hot and hot[0].dice_to_throw == 5
    with pytest.raises(StrategyError, match="this table plays with 5 dice"):
        advise(rules, Dice.parse("1 1 5 5 5 2"))
    with pytest.raises(StrategyError, match="this table plays with 5 dice"):
        advise_pass(rules, 300, 6)
    assert "five fresh dice" in advise_pass(rules, 300, 1).message


def test_cli_solve_prints_the_five_dice_expected_turn_score(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["solve", "--rules", "minimal", "--set", "dice=5"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["farkle_probability"]) == {"1", "2", "3", "4", "5"}
    assert (
        200 < out["expected_turn_score"] < solve_policy(find_rules("minimal")).expected_turn_score
    )


def test_a_five_dice_game_exports_reviews_and_gives_win_chances(
    client: FlaskClient, new_table: NewTable, app: Flask
) -> None:
    """A whole five-dice game to 1,000: its exports replay, its review judges five-dice
    decisions, and its win chances are the five-dice solver's."""
    rules = find_rules("standard", {**FIVE, "target": 1000})
    table = solve_winprob(rules, app.config["CACHE_DIR"] + "/winprob")
    t = new_table(["Ann", "Bob"], "standard", **FIVE, target=1000)
    t.throw(1, 5, 2, 3, 4)
    t.keep(1)
    chances = client.get(f"/api/games/{t.id}/winprob").get_json()
    assert chances["status"] == "ready", chances
    assert chances["chances"]["Ann"] == pytest.approx(table.p_win(0, 0, 100, 4))
    hot = [o for o in table.option_values(0, 0, 0, [1, 1, 1, 5, 5]) if len(o.keep) == 5]
    assert hot[0].hot and hot[0].dice_left == 5
    assert "Throw 5 dice again" in option_words(hot[0])
    t.bank()
    t.throw(1, 1, 1, 5, 5)
    t.keep(1, 1, 1, 5, 5)  # hot dice: five again
    assert t.state["turn"]["dice_left"] == 5
    t.bank()
    assert t.state["final_round"] and t.state["to_beat"] == 1100
    t.throw(2, 3, 4, 6, 6)  # Ann's last turn farkles on five dice
    assert t.state["over"] and t.state["winner"] == "Bob"
    rows = list(
        csv.reader(io.StringIO(client.get(f"/api/games/{t.id}/export.csv").get_data(as_text=True)))
    )
    assert rows[2][6].startswith("1 1 1 5 5 kept 1 1 1 5 5 (1100)")
    body = client.get(f"/api/games/{t.id}/export.json").json
    assert body["rules"]["dice"] == 5
    assert core(replay(body["events"]).to_json()) == core(body["state"])
    review = client.get(f"/api/games/{t.id}/review")
    for _ in range(100):
        if review.status_code == 200 and review.json["status"] == "final":
            break
        time.sleep(0.1)
        review = client.get(f"/api/games/{t.id}/review")
    assert review.status_code == 200 and review.json["status"] == "final", review.json
    ann = review.json["players"][0]
    assert ann["judged_decisions"] >= 2
    first = review.json["turns"][0]["decisions"]
    assert first[-1]["taken"] == "banked 100" and first[-1]["best"] == "throw 4 dice"
    for turn in review.json["turns"]:
        assert turn["dice"] + turn["choices"] == pytest.approx(turn["difference"], abs=1e-9)


def test_cli_rules_shows_the_option_and_refuses_a_contradiction(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["rules", "minimal", "--set", "dice=5"]) == 0
    assert json.loads(capsys.readouterr().out)["dice"] == 5
    assert main(["rules", "--set", "dice=5", "--set", "six_ones_win=true"]) == 2
    assert "six_ones_win=true needs dice=6" in capsys.readouterr().err


def test_suggest_api_counts_five_dice(client: FlaskClient) -> None:
    five = "set=dice=5&set=opening_minimum=0"
    r = client.get(f"/api/suggest?dice=1+1+5+5+5&{five}")
    assert r.status_code == 200, r.json
    hot = [o for o in r.json["advice"]["options"] if len(o["keep"]) == 5 and o["action"] == "roll"]
    assert hot and hot[0]["dice_to_throw"] == 5
    r = client.get(f"/api/suggest?dice=1+1+5+5+5+2&{five}")
    assert r.status_code in (400, 422) and "this table plays with 5 dice" in r.json["message"]
    r = client.get(f"/api/suggest?passed=350&set=pass_dice=true&{five}")
    assert r.status_code == 200 and "five fresh dice" in r.json["advice"]["message"]
    r = client.get(f"/api/suggest?passed=350&passed_dice=6&set=pass_dice=true&{five}")
    assert r.status_code in (400, 422) and "this table plays with 5 dice" in r.json["message"]
