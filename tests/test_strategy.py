"""The turn solver: spec §7 thresholds and farkle chances, sanity properties, every preset."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from scorekeeper.rules import PRESETS, Rules, find_rules
from scorekeeper.scoring import farkle_probability
from scorekeeper.strategy import solve_rules
from scorekeeper.strategy.model import UNIT, chance_model
from scorekeeper.strategy.policy import solve_policy, streak_values, turn_value
from scorekeeper.strategy.solver import Context, solve_turn
from scorekeeper.strategy.summary import bank_thresholds

SPEC_BANK_AT = {1: 250, 2: 250, 3: 400, 4: 1000, 5: 2900, 6: 10050}
SPEC_FARKLE = {1: 4 / 6, 2: 16 / 36, 3: 60 / 216, 4: 204 / 1296, 5: 600 / 7776}


def test_minimal_bank_at_is_the_published_thresholds() -> None:
    summary = solve_rules(find_rules("minimal"))
    assert summary.bank_at == SPEC_BANK_AT
    assert summary.to_dict()["bank_at"] == {str(n): v for n, v in SPEC_BANK_AT.items()}


def test_minimal_rolls_below_and_banks_at_or_above_each_threshold() -> None:
    table = solve_turn(chance_model(find_rules("minimal")), Context(), (0.0,))
    for n, at in SPEC_BANK_AT.items():
        i = at // UNIT
        rolls = table.R[:i, n, 0] > np.arange(i) * UNIT
        banks = table.R[i : table.top, n, 0] <= np.arange(i, table.top) * UNIT + 1e-9
        assert rolls.all() and banks.all(), n


@pytest.mark.parametrize(
    ("preset", "six"), [("minimal", Fraction(1440, 46656)), ("standard", Fraction(1080, 46656))]
)
def test_farkle_probabilities_are_the_spec_values(preset: str, six: Fraction) -> None:
    rules = find_rules(preset)
    summary = solve_rules(rules)
    for n, p in SPEC_FARKLE.items():
        assert farkle_probability(n, rules) == Fraction(p).limit_denominator(10**6)
        assert summary.farkle_probability[n] == pytest.approx(p, abs=1e-15)
    assert farkle_probability(6, rules) == six
    assert summary.farkle_probability[6] == pytest.approx(float(six), abs=1e-15)


@pytest.mark.parametrize("preset", ["standard", "original", "zilch-online", "playmonster"])
def test_more_turn_total_never_makes_rolling_more_attractive(preset: str) -> None:
    rules = find_rules(preset)
    table = solve_turn(chance_model(rules), Context(), (0.0,))
    totals = np.arange(table.top) * UNIT
    for n in range(1, 7):
        advantage = table.R[: table.top, n, 0] - totals
        assert (np.diff(advantage) <= 1e-9).all(), n
    # and the state values never fall when the total rises
    assert (np.diff(table.D[: table.top], axis=0) >= -1e-9).all()


@pytest.mark.parametrize("preset", ["standard", "original", "zilch-online"])
def test_win_probabilities_lie_in_unit_interval_and_grow_with_the_total(preset: str) -> None:
    rules = find_rules(preset)
    for need in (50, 650, 2000):
        ctx = Context(kind="win", win_units=need // UNIT, min_units=rules.bank_minimum // UNIT)
        table = solve_turn(chance_model(rules), ctx, (0.0,))
        values = table.D[: table.top, :, 0]
        assert values.min() >= 0.0 and values.max() <= 1.0 + 1e-12
        assert (np.diff(values, axis=0) >= -1e-12).all()
        assert 0.0 < table.R[0, 6, 0] < 1.0


def test_a_bigger_lead_is_harder_to_beat() -> None:
    m = chance_model(find_rules("standard"))
    chances = [
        solve_turn(m, Context(kind="win", win_units=u), (0.0,)).R[0, 6, 0]
        for u in (1, 5, 10, 20, 40, 80)
    ]
    assert all(a > b for a, b in itertools.pairwise(chances))


_TOGGLES: list[dict[str, object]] = [
    {"hot_dice": "must_roll"},
    {"hot_dice": "optional"},
    {"toxic_twos": True},
    {"six_ones_win": True},
    {"six_dice_farkle_bonus": 500},
    {"six_dice_farkle_bonus": 0},
    {"farkle_streak_penalty": 1000},
    {"farkle_streak_penalty": 0},
    {"bank_minimum": 350},
    {"opening_minimum": 1000},
    {"exact_target": True},
]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_solves_with_and_without_each_special_rule(preset: str) -> None:
    base = find_rules(preset)
    seen: set[Rules] = set()
    for change in [{}, *_TOGGLES]:
        rules = base.with_overrides(change)
        if rules in seen:
            continue
        seen.add(rules)
        policy = solve_policy(rules)
        assert 300 < policy.expected_turn_score < 1000, change
        assert policy.points_per_turn <= policy.expected_turn_score + 1e-9
        for table in (policy.on_board, policy.off_board):
            assert np.isfinite(table.D).all() and np.isfinite(table.R).all()
        assert policy.off_board.R[0, 6, 0] <= policy.on_board.R[0, 6, 0] + 1e-9
        thresholds = bank_thresholds(solve_turn(chance_model(rules), Context(), (0.0,)))
        assert all(thresholds[n] is not None for n in range(1, 6))
        if rules.six_dice_farkle_bonus and not rules.toxic_twos:
            assert thresholds[6] is None  # six dice can never lose: always throw them
        else:
            assert thresholds[6] is not None


def test_the_streak_average_satisfies_the_relative_value_equations() -> None:
    rules = find_rules("zilch-online")
    g, (f0, f1, f2) = streak_values(rules)
    assert f2 == -rules.farkle_streak_penalty
    # g + h(k) = V(f_k) with h(0) = 0, h(1) = f0, h(2) = f1
    assert turn_value(rules, f0) == pytest.approx(g, abs=1e-7)
    assert turn_value(rules, f1) == pytest.approx(g + f0, abs=1e-7)
    assert turn_value(rules, f2) == pytest.approx(g + f1, abs=1e-7)
    assert g < turn_value(rules, 0.0)
    harsher = streak_values(rules.with_overrides({"farkle_streak_penalty": 2000}))[0]
    assert harsher < g


def test_expected_scores_order_as_the_rules_suggest() -> None:
    minimal = solve_policy(find_rules("minimal")).expected_turn_score
    standard = solve_policy(find_rules("standard")).expected_turn_score
    playmonster = solve_policy(find_rules("playmonster")).expected_turn_score
    assert minimal < playmonster < standard
    # the farkle bonus only ever helps
    bonus = solve_policy(find_rules("standard", {"six_dice_farkle_bonus": 500}))
    assert bonus.expected_turn_score > standard


def test_toxic_twos_with_a_banked_score_plays_safer() -> None:
    rules = find_rules("standard", {"toxic_twos": True})
    m = chance_model(rules)
    free = solve_turn(m, Context(), (0.0,))
    rich = solve_turn(m, Context(toxic_value=-8000.0), (0.0,))
    assert rich.R[0, 6, 0] < free.R[0, 6, 0]
    assert bank_thresholds(rich)[4] is not None
    assert bank_thresholds(rich)[4] <= bank_thresholds(free)[4]  # type: ignore[operator]


_CAP_CONTEXTS = [
    (Context(), (0.0,)),
    (
        Context(min_units=10, toxic_value=-3000.0, six_ones_floor=9000.0, target_units=160),
        (-50.0,),
    ),
    (Context(min_units=6), (-50.0, 20.0)),
    (Context(kind="win", win_units=40, min_units=10), (0.0,)),
]


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"hot_dice": "must_roll"},
        {"six_dice_farkle_bonus": 500},
        {"six_dice_farkle_bonus": 500, "toxic_twos": True, "six_ones_win": True},
        {"six_dice_farkle_bonus": 1000, "hot_dice": "must_roll", "toxic_twos": True},
    ],
)
def test_the_turn_total_cap_loses_nothing(overrides: dict[str, object]) -> None:
    """Solving on a grid twice as tall gives the same values: the cap is exact."""
    m = chance_model(find_rules("standard", overrides))
    for ctx, farkle_values in _CAP_CONTEXTS:
        low = solve_turn(m, ctx, farkle_values)
        high = solve_turn(m, ctx, farkle_values, min_top=2 * low.top + 40)
        top = low.top
        assert np.abs(low.R[:top] - high.R[:top]).max() < 1e-6
        assert np.abs(low.D[:top] - high.D[:top]).max() < 1e-6
        # and beyond the cap the closed form agrees with the taller solve
        for i in (top, top + 7, top + 30):
            for n in range(1, 7):
                assert low.roll(i, n, 0) == pytest.approx(float(high.R[i, n, 0]), abs=1e-6)
