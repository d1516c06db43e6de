"""Seeded Monte Carlo play of a solved turn table, to check the solver's expectations.

The solver never samples; this module exists so tests and benchmarks can check that playing
the solved policy with real (pseudo-random) dice earns what the solver says it earns.
"""

from __future__ import annotations

import numpy as np

from scorekeeper.scoring import Counts, is_six_ones, is_toxic, table_for
from scorekeeper.strategy.model import HOT, UNIT, chance_model
from scorekeeper.strategy.solver import TurnTable


def _counts(faces: np.ndarray) -> Counts:
    c = np.bincount(faces, minlength=7)[1:].tolist()
    return (c[0], c[1], c[2], c[3], c[4], c[5])


def play_turn(table: TurnTable, k: int, rng: np.random.Generator) -> tuple[float, bool]:
    """Play one turn from zero with a whole hand (six dice, or five) by the table's policy.

    Returns what the turn was worth in the table's terms and whether it ended in a farkle
    (or a toxic-twos wipe).
    """
    rules, ctx = table.rules, table.ctx
    scores = table_for(rules)
    six_units = chance_model(rules).six_ones_units
    fv = float(table.farkle_values[k])
    i, n = 0, rules.dice
    while True:
        counts = _counts(rng.integers(1, 7, size=n))
        if is_toxic(counts, rules):
            return (ctx.toxic_value if ctx.kind == "points" else 0.0), True
        if is_six_ones(counts, rules):
            return ctx.six_ones_value(i, six_units), False
        keeps = scores.keeps(counts)
        if not keeps:
            if n == 6 and rules.six_dice_farkle_bonus:
                i += rules.six_dice_farkle_bonus // UNIT
                continue
            return (fv if ctx.kind == "points" else 0.0), True
        keep = max(
            keeps,
            key=lambda kp: table.state(i + kp.points // UNIT, n - len(kp.dice), k),
        )
        i += keep.points // UNIT
        col = n - len(keep.dice)
        hot_locked = col == HOT and table.must_roll
        if ctx.bank_ok(i) and not hot_locked:
            value = ctx.bank_value(i)
            if ctx.bank_forced(i) or value >= table.state(i, col, k) - 1e-9:
                return value, False
        n = rules.dice if col == HOT else col


def simulate(table: TurnTable, turns: int, seed: int, k: int = 0) -> np.ndarray:
    """The values of ``turns`` seeded turns played by the table's policy."""
    rng = np.random.default_rng(seed)
    return np.array([play_turn(table, k, rng)[0] for _ in range(turns)])


def simulate_streaks(tables: TurnTable, penalty: float, turns: int, seed: int) -> np.ndarray:
    """Points per turn of a long run with the farkle streak penalty (batch ``k`` = streak)."""
    rng = np.random.default_rng(seed)
    out = np.empty(turns)
    streak = 0
    for j in range(turns):
        value, farkled = play_turn(tables, streak, rng)
        if farkled:
            streak += 1
            out[j] = -penalty if streak == 3 else 0.0
            streak %= 3
        else:
            out[j] = value
            streak = 0
    return out
