"""Seeded play of the solved policy earns what the solver says (within three standard errors)."""

from __future__ import annotations

import numpy as np
import pytest

from scorekeeper.rules import find_rules
from scorekeeper.strategy.model import chance_model
from scorekeeper.strategy.policy import solve_policy, streak_values
from scorekeeper.strategy.simulate import simulate, simulate_streaks
from scorekeeper.strategy.solver import Context, solve_turn

TURNS = 4000


def _within_three_se(values: np.ndarray, expected: float) -> None:
    se = values.std(ddof=1) / np.sqrt(len(values))
    assert abs(values.mean() - expected) < 3 * se, (values.mean(), expected, se)


@pytest.mark.parametrize(
    ("preset", "overrides"),
    [
        ("minimal", {}),
        ("standard", {}),
        ("original", {}),
        ("zilch-online", {"farkle_streak_penalty": 0}),
        ("playmonster", {"toxic_twos": True, "six_ones_win": True}),
    ],
)
def test_simulated_turns_match_the_solved_expectation(
    preset: str, overrides: dict[str, object]
) -> None:
    rules = find_rules(preset, overrides)
    table = solve_turn(chance_model(rules), Context(min_units=rules.bank_minimum // 50), (0.0,))
    _within_three_se(simulate(table, TURNS, seed=7), float(table.R[0, 6, 0]))


def test_an_off_board_turn_matches_its_expectation() -> None:
    policy = solve_policy(find_rules("original"))
    _within_three_se(simulate(policy.off_board, TURNS, seed=11), float(policy.off_board.R[0, 6, 0]))


def test_final_round_win_chance_matches_simulation() -> None:
    rules = find_rules("standard")
    table = solve_turn(chance_model(rules), Context(kind="win", win_units=30), (0.0,))
    _within_three_se(simulate(table, TURNS, seed=3), float(table.R[0, 6, 0]))


def test_the_streak_average_matches_a_long_seeded_run() -> None:
    rules = find_rules("zilch-online")
    g, farkle_values = streak_values(rules)
    table = solve_turn(
        chance_model(rules), Context(min_units=rules.bank_minimum // 50), farkle_values
    )
    run = simulate_streaks(table, rules.farkle_streak_penalty, 3 * TURNS, seed=5)
    _within_three_se(run, g)


def test_an_exact_target_turn_matches_simulation() -> None:
    rules = find_rules("standard", {"exact_target": True})
    table = solve_turn(chance_model(rules), Context(exact_units=20), (0.0,))
    _within_three_se(simulate(table, TURNS, seed=13), float(table.R[0, 6, 0]))
