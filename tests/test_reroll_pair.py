"""reroll_last_pair (seed 000's comments): a non-scoring pair on the last two dice is thrown
again once; the game, the refusals, the farkle chance and the advisor's exact values."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from itertools import product

import pytest
from helpers.table import Table

from scorekeeper.rules import Rules, find_rules
from scorekeeper.scoring import farkle_probability, is_reroll_pair, table_for
from scorekeeper.strategy.policy import solve_policy

NewTable = Callable[..., Table]


def _two_left(t: Table) -> None:
    t.throw(1, 1, 1, 5, 2, 3)
    t.keep(1, 1, 1, 5)
    assert t.state["turn"]["dice_left"] == 2


def test_a_pair_is_thrown_again_once(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], reroll_last_pair=True)
    _two_left(t)
    t.throw(3, 3)
    assert t.event == "pair_reroll"
    assert "thrown again, once" in t.state["last_event"]["message"]
    turn = t.state["turn"]
    assert turn["reroll"] is True and turn["dice_left"] == 2 and turn["total"] == 1050
    assert turn["can_bank"] is False
    assert "throws the two dice again first" in turn["bank_refusal"]
    assert turn["farkle_chance"] == pytest.approx(16 / 36)  # the throw again has no re-roll
    refused = t.bank(status=422)
    assert "throws the two dice again first" in refused["message"]
    t.throw(4, 4)  # a second pair: the re-roll is spent, a farkle
    entry = t.state["history"][-1]
    assert entry["outcome"] == "farkle" and entry["result"] == "farkle, 1,050 lost"
    assert [th.get("result") for th in entry["throws"]][-2:] == ["pair_reroll", "farkle"]


def test_the_throw_again_can_score_and_the_turn_goes_on(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], reroll_last_pair=True)
    _two_left(t)
    t.throw(6, 6)
    t.undo()  # the pair taken back: two dice to throw, no re-roll pending
    assert t.state["turn"]["reroll"] is False and t.state["turn"]["dice_left"] == 2
    t.throw(6, 6)
    t.throw(1, 2)
    t.keep(1)
    t.bank()
    assert t.score("Ann") == 1150


def test_only_a_pair_of_the_last_two_dice_and_only_when_on(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], reroll_last_pair=True)
    _two_left(t)
    t.throw(2, 3)  # not a pair
    assert t.state["history"][-1]["outcome"] == "farkle"
    plain = new_table(["Ann", "Bob"])
    _two_left(plain)
    plain.throw(3, 3)
    assert plain.state["history"][-1]["outcome"] == "farkle"
    assert plain.state["turn"]["reroll"] is False


def test_which_throws_are_thrown_again_and_the_farkle_chance() -> None:
    on = Rules(reroll_last_pair=True)
    assert is_reroll_pair((0, 0, 2, 0, 0, 0), on)
    assert not is_reroll_pair((0, 0, 2, 0, 0, 0), Rules())
    assert not is_reroll_pair((2, 0, 0, 0, 0, 0), on)  # two 1s score
    assert not is_reroll_pair((0, 0, 3, 0, 0, 0), on)  # three dice
    # plain: 16 of 36 throws of two dice score nothing; 4 of them are pairs thrown again
    assert farkle_probability(2, Rules()) == Fraction(16, 36)
    assert farkle_probability(2, on) == Fraction(12, 36) + Fraction(4, 36) * Fraction(16, 36)


def _brute(rules: Rules) -> Callable[[int, int], float]:
    """``roll(t, n)``: throwing ``n`` dice at turn total ``t`` by plain recursion over every
    ordered throw and every keep; a total at the target banks; a non-scoring pair of two dice
    is thrown once more (no re-roll on that throw)."""
    table = table_for(rules)

    @cache
    def state(t: int, n: int) -> float:
        if t >= rules.target:
            return float(t)
        return max(float(t) if t > 0 else 0.0, roll(t, n, True))

    @cache
    def roll(t: int, n: int, again: bool) -> float:
        throws = Counter(
            tuple(faces.count(v) for v in range(1, 7)) for faces in product(range(1, 7), repeat=n)
        )
        total = 0.0
        for counts, ways in throws.items():
            keeps = table.keeps(counts)
            if keeps:
                total += ways * max(state(t + k.points, n - len(k.dice) or 6) for k in keeps)
            elif again and n == 2 and max(counts) == 2:
                total += ways * roll(t, 2, False)
        return total / 6**n

    return lambda t, n: roll(t, n, True)


def test_the_advisor_is_exact_with_the_reroll_against_a_brute_force() -> None:
    rules = find_rules("minimal", {"target": 500, "opening_minimum": 0, "reroll_last_pair": True})
    roll = _brute(rules)
    table = solve_policy(rules).on_board
    for units in range(0, 10):
        for n in range(1, 7):
            assert table.R[units, n, 0] == pytest.approx(roll(units * 50, n), abs=1e-9), (units, n)
    # the re-roll is worth something: two dice at 300 are worth more with it than without
    plain = solve_policy(find_rules("minimal", {"target": 500, "opening_minimum": 0})).on_board
    assert table.R[6, 2, 0] > plain.R[6, 2, 0] + 1
