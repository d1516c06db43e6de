"""The chance model of one throw for the solver: exact outcomes, weights and useful keeps.

Turn totals are multiples of 50, so the solver counts them in *units* of 50 points. For each
number of dice ``n`` every distinct outcome of a throw (as counts, with its exact probability
from ``scoring.throw_outcomes``) is classified as a farkle, a toxic-twos wipe, six 1s (when
they win outright) or a scoring throw. A scoring throw keeps every distinct
(dice left, points) pair its keeps give (1..5 dice left, or 0 for hot dice). Keeping fewer
points for the same dice can be right: a turn banks on reaching the target, so just below it
a smaller keep that stays under the target and throws on may be worth more; and under an
exact target a smaller keep can land on it. Without a target a keep with the most points
would do, but a pair more per outcome costs the solver little (about a quarter more entries).

>>> from scorekeeper.rules import find_rules
>>> m = chance_model(find_rules("minimal"))
>>> round(m.farkle[6] * 46656), round(m.farkle[1] * 6)
(1440, 4)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import product

import numpy as np
import numpy.typing as npt

from scorekeeper.rules import Rules
from scorekeeper.scoring import (
    Counts,
    ScoreTable,
    is_six_ones,
    is_toxic,
    reroll_pair_probability,
    table_for,
    throw_outcomes,
)

UNIT = 50  # points per unit: both solvers count turn totals and scores in these
HOT = 0  # the state column for "all the dice set aside: a fresh hand (six, or five) in hand"

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class ChanceModel:
    """Every throw of 1..``dice`` dice for one rules value (``rules.dice``: 6, or 5), flattened
    into arrays for numpy.

    Scoring outcomes of all dice counts are concatenated (``n = 1`` first); ``n_starts[n - 1]``
    is the first scoring outcome of ``n`` dice. Outcome ``o`` owns the useful keeps
    ``entry_*[o_starts[o]:o_starts[o + 1]]``: the points in units, and the state column the keep
    leads to (dice left, or ``HOT``). ``farkle[n]``, ``toxic[n]`` and ``six_ones[n]`` are the
    probabilities of the other outcome kinds; on six dice with a farkle bonus the farkle mass is
    in ``bonus_farkle`` instead of ``farkle[6]``, except under
    ``six_dice_farkle_bonus_first_throw``: there it stays in ``farkle[6]`` and is also
    ``first_throw_bonus``, which the solver adds to the turn's first throw only (total 0).
    """

    rules: Rules
    dice: int
    weights: FloatArray
    o_starts: IntArray
    n_starts: IntArray
    outcome_n: IntArray
    entry_units: IntArray
    entry_col: IntArray
    best_units: IntArray
    has_hot: npt.NDArray[np.bool_]
    farkle: tuple[float, ...]
    toxic: tuple[float, ...]
    six_ones: tuple[float, ...]
    bonus_farkle: float
    first_throw_bonus: float
    bonus_units: int
    six_ones_units: int
    max_units: int

    def loss_probability(self, n: int) -> float:
        """The chance that a throw of ``n`` dice ends the turn with nothing (farkle or wipe)."""
        return self.farkle[n] + self.toxic[n]


def _useful_keeps(table: ScoreTable, counts: Counts) -> set[tuple[int, int]]:
    """Every distinct (dice a keep leaves, 0 = hot dice; its points in units) of a throw."""
    n = sum(counts)
    out: set[tuple[int, int]] = set()
    for sub in product(*(range(c + 1) for c in counts)):
        size = sum(sub)
        if size == 0:
            continue
        points = table.points((sub[0], sub[1], sub[2], sub[3], sub[4], sub[5]))
        if points is not None:
            out.add((n - size, points // UNIT))
    return out


@lru_cache(maxsize=64)
def chance_model(rules: Rules) -> ChanceModel:
    """The (cached) chance model of a rules value."""
    table = table_for(rules)
    weights: list[float] = []
    o_starts: list[int] = []
    n_starts: list[int] = []
    outcome_n: list[int] = []
    e_units: list[int] = []
    e_cols: list[int] = []
    best: list[int] = []
    has_hot: list[bool] = []
    farkle = [0.0] * 7
    toxic = [0.0] * 7
    six = [0.0] * 7
    bonus_farkle = first_bonus = 0.0
    dice = rules.dice
    for n in range(1, dice + 1):
        n_starts.append(len(weights))
        total = 6.0**n
        for counts, mult in throw_outcomes(n):
            p = mult / total
            if is_toxic(counts, rules):
                toxic[n] += p
                continue
            if is_six_ones(counts, rules):
                six[n] += p
                continue
            keeps = _useful_keeps(table, counts)
            if not keeps:
                if n == 6 and rules.six_dice_farkle_bonus_first_throw:
                    farkle[n] += p
                    first_bonus += p
                elif n == 6 and rules.six_dice_farkle_bonus > 0:
                    bonus_farkle += p
                else:
                    farkle[n] += p
                continue
            weights.append(p)
            o_starts.append(len(e_units))
            outcome_n.append(n)
            for col, units in sorted(keeps):
                e_units.append(units)
                e_cols.append(col)
            best.append(max(units for _col, units in keeps))
            has_hot.append(any(col == HOT for col, _units in keeps))
    again = float(reroll_pair_probability(rules))
    if again:  # reroll_last_pair: a non-scoring pair of two dice is thrown once more
        lo, hi = n_starts[1], n_starts[2]
        weights[lo:hi] = [w * (1 + again) for w in weights[lo:hi]]
        farkle[2] = farkle[2] - again + again * farkle[2]
    six_points = table.points((6, 0, 0, 0, 0, 0)) or 0
    bonus_units = rules.six_dice_farkle_bonus // UNIT
    return ChanceModel(
        rules=rules,
        dice=dice,
        weights=np.array(weights),
        o_starts=np.array(o_starts, dtype=np.int64),
        n_starts=np.array(n_starts, dtype=np.int64),
        outcome_n=np.array(outcome_n, dtype=np.int64),
        entry_units=np.array(e_units, dtype=np.int64),
        entry_col=np.array(e_cols, dtype=np.int64),
        best_units=np.array(best, dtype=np.int64),
        has_hot=np.array(has_hot, dtype=np.bool_),
        farkle=tuple(farkle),
        toxic=tuple(toxic),
        six_ones=tuple(six),
        bonus_farkle=bonus_farkle,
        first_throw_bonus=first_bonus,
        bonus_units=bonus_units,
        six_ones_units=six_points // UNIT,
        max_units=max(max(e_units), bonus_units, six_points // UNIT),
    )
