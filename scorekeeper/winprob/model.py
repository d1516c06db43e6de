"""The chance model of one turn for the win-probability solver, in 50-point units.

Every throw of ``n`` dice is grouped into classes of outcomes that offer the same choices: the
distinct (dice left to throw, points) pairs of its legal keeps. Fewer points for the same dice
are kept as a choice too: near the solver's cap on turn totals more points need not be better.
Dice states are indexed 0 to 6: 1 to 6 are "``n`` dice left, may bank", and 0 is "a whole hand
that must be thrown" (six dice, or five under ``dice=5``: the start of a turn, hot dice under
``hot_dice=must_roll``, or the throw again after a six-dice farkle bonus). With five dice the
state 6 is never reached and a throw of six dice has no outcomes.

>>> from scorekeeper.rules import find_rules
>>> model = TurnModel.build(find_rules("minimal"))
>>> round(float(model.farkle[6]), 6), model.options.size > 0
(0.030864, True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from scorekeeper.errors import UnsupportedRulesError
from scorekeeper.rules import Rules
from scorekeeper.scoring import table_for, throw_outcomes
from scorekeeper.strategy.model import UNIT

MUST_ROLL = 0
FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]


def check_supported(rules: Rules) -> None:
    """Raise when the win-probability solver cannot play these rules exactly.

    :raises UnsupportedRulesError: for rules under which a score can fall (``toxic_twos``,
        ``farkle_streak_penalty``), ``exact_target``, ``pass_dice`` and issue 30's
        ``singles_until_open``, ``bank_max_dice_left``, ``farkle_keeps_points`` and
        ``six_dice_farkle_bonus_first_throw``, ``reroll_last_pair`` and ``triple_addon``.
    """
    bad = []
    if rules.farkle_streak_penalty:
        bad.append("farkle_streak_penalty (scores can fall; set it to 0)")
    if rules.toxic_twos:
        bad.append("toxic_twos (scores can fall; set it to false)")
    if rules.exact_target:
        bad.append("exact_target (set it to false)")
    if rules.final_round_defend:
        bad.append("final_round_defend (the lead passes back and forth; set it to false)")
    if rules.singles_until_open:
        bad.append("singles_until_open (set it to false)")
    if rules.bank_max_dice_left < rules.dice:
        bad.append(f"bank_max_dice_left (set it to {rules.dice})")
    if rules.farkle_keeps_points:
        bad.append("farkle_keeps_points (set it to false)")
    if rules.six_dice_farkle_bonus_first_throw:
        bad.append("six_dice_farkle_bonus_first_throw (set it to false)")
    if rules.pass_dice:
        bad.append("pass_dice (a bank's dice passed to the opponent; set it to false)")
    if rules.reroll_last_pair:
        bad.append("reroll_last_pair (set it to false)")
    if rules.triple_addon:
        bad.append(
            "triple_addon (a die's value depends on the turn's earlier triples; set it to 0)"
        )
    if bad:
        raise UnsupportedRulesError("the win-probability solver does not support " + "; ".join(bad))


@dataclass(frozen=True)
class TurnModel:
    """Flattened keep options of every throw, for vectorised Bellman updates."""

    rules: Rules
    dice: int  # a whole hand: 6, or 5 under ``dice=5``
    options: IntArray  # row offset of each option: points * 7 + dice state after the keep
    points: IntArray  # points of each option, in units
    states: IntArray  # dice state after each option (0..6)
    starts: IntArray  # index of the first option of each outcome class
    slots: tuple[IntArray, ...]  # slot s: the s-th option of every class that has one
    weights: FloatArray  # (6, classes): chance of each class on a throw of n = 1..6 dice
    farkle: FloatArray  # (7,): chance that a throw of n dice farkles (index 0 = six dice)
    win: FloatArray  # (7,): chance that a throw of n dice wins outright (six 1s)
    max_points: int  # the largest option, in units

    @classmethod
    def build(cls, rules: Rules) -> TurnModel:
        """The model of ``rules`` (keeps from ``table_for``, chances from ``throw_outcomes``)."""
        table = table_for(rules)
        dice = rules.dice
        hot = MUST_ROLL if rules.hot_dice == "must_roll" else dice
        bonus = rules.six_dice_farkle_bonus // UNIT
        classes: list[tuple[tuple[tuple[int, int], ...], int, float]] = []
        farkle = np.zeros(7)
        win = np.zeros(7)
        for n in range(1, dice + 1):
            total = 6**n
            groups: dict[tuple[tuple[int, int], ...], int] = {}
            for counts, ways in throw_outcomes(n):
                if n == 6 and rules.six_ones_win and counts[0] == 6:
                    win[n] += ways / total
                    continue
                choices: set[tuple[int, int]] = set()
                for keep in table.keeps(counts):
                    left = n - len(keep.dice)
                    choices.add((hot if left == 0 else left, keep.points // UNIT))
                if not choices:
                    if n == 6 and bonus:
                        choices.add((MUST_ROLL, bonus))
                    else:
                        farkle[n] += ways / total
                        continue
                key = tuple(sorted(choices))
                groups[key] = groups.get(key, 0) + ways
            for key, ways in sorted(groups.items()):
                classes.append((key, n, ways / total))
        farkle[MUST_ROLL] = farkle[dice]
        win[MUST_ROLL] = win[dice]
        classes.sort(key=lambda item: -len(item[0]))  # most options first, for the slots
        weights = np.zeros((6, len(classes)))
        pts: list[int] = []
        nxt: list[int] = []
        starts: list[int] = []
        for c, (key, n, w) in enumerate(classes):
            weights[n - 1, c] = w
            starts.append(len(pts))
            for state, p in key:
                pts.append(p)
                nxt.append(state)
        p_arr = np.array(pts, dtype=np.intp)
        s_arr = np.array(nxt, dtype=np.intp)
        offsets = p_arr * 7 + s_arr
        slots = tuple(
            np.array(
                [offsets[starts[c] + s] for c, (key, _, _) in enumerate(classes) if len(key) > s],
                dtype=np.intp,
            )
            for s in range(max(len(key) for key, _, _ in classes))
        )
        return cls(
            rules=rules,
            dice=dice,
            options=offsets,
            points=p_arr,
            states=s_arr,
            starts=np.array(starts, dtype=np.intp),
            slots=slots,
            weights=weights,
            farkle=farkle,
            win=win,
            max_points=int(p_arr.max()),
        )

    def roll_values(self, rows: FloatArray, base: int) -> FloatArray:
        """Roll values (6, batch) for n = 1..6 dice from the rows above ``base``.

        ``rows`` is the value array shaped (units * 7, batch) flattened over (score, dice
        state); the farkle and outright-win terms are added by the caller.
        """
        return self.weights @ self.best_keeps(rows, base, rows.shape[1])

    def best_keeps(self, rows: FloatArray, base: int, k: int) -> FloatArray:
        """(classes, k): each outcome class's best keep value, for the first ``k`` columns."""
        start = base * 7
        if k <= 2:
            gathered = rows[start + self.options, :k]
            small: FloatArray = np.maximum.reduceat(gathered, self.starts, axis=0)
            return small
        best: FloatArray = rows[start + self.slots[0], :k]
        for slot in self.slots[1:]:
            head = best[: len(slot)]
            np.maximum(head, rows[start + slot, :k], out=head)
        return best


def threshold(rules: Rules, on_board: bool) -> int:
    """The least turn total (units, at least 1) that a player may bank."""
    least = max(1, rules.bank_minimum // UNIT)
    if not on_board:
        least = max(least, rules.opening_minimum // UNIT)
    return least


def chase_table(model: TurnModel, size: int, tie_value: float | None) -> FloatArray:
    """Final-round chaser: the chance to finish above the leader, by margin and dice state.

    Row ``k + 1`` holds the states where the leader is ``k`` units ahead of the chaser's score
    plus turn total (row 0: already ahead). Banking is assumed allowed at every total that
    beats the leader (the caller handles a binding bank or opening minimum). ``tie_value`` is
    the value of banking a tie, or None when a tie may not be banked.
    """
    rows = np.zeros((size + 1, 7))
    ahead = np.ones(7)
    for _ in range(200):  # six dice that must be thrown while already ahead: a tiny fixed point
        flat = np.tile(ahead, (model.max_points + 1, 1)).reshape(-1, 1)
        roll = model.roll_values(flat, 0)[:, 0] + model.win[1:]
        new = np.ones(7)
        new[MUST_ROLL] = roll[model.dice - 1]
        if np.max(np.abs(new - ahead)) < 1e-16:
            break
        ahead = new
    rows[0] = ahead
    pad = model.max_points
    work = np.zeros((size + 1 + pad, 7))
    work[: pad + 1] = ahead  # index pad + r  <->  row r; rows below 0 are "already ahead"
    for r in range(1, size + 1):
        # row r depends on rows r - p (p >= 1): a flipped window puts row r - p at offset p
        window = work[r : r + pad + 1][::-1].reshape(-1, 1)
        roll = model.roll_values(window, 0)[:, 0] + model.win[1:]
        vals = np.empty(7)
        vals[1:] = roll
        vals[MUST_ROLL] = roll[model.dice - 1]
        if r == 1 and tie_value is not None:
            vals[1:] = np.maximum(roll, tie_value)
        work[pad + r] = vals
        rows[r] = vals
    return rows


def turn_values(
    model: TurnModel,
    cap: int,
    rows: int,
    me: int,
    bank: FloatArray,
    allowed: np.ndarray,
    farkle_value: float,
) -> FloatArray:
    """Every state's value (rows, 7) of one turn started on ``me``, by backward induction.

    From ``cap`` up the player banks (``bank``, by score reached); below it they bank where
    ``allowed`` and it beats throwing on. A farkle is worth ``farkle_value``.
    """
    values = np.empty((rows, 7))
    values[cap:] = bank[cap:, None]
    flat = values.reshape(-1)
    extra = model.farkle[1:] * farkle_value + model.win[1:]
    options = model.options
    starts = model.starts
    weights = model.weights
    for u in range(cap - 1, me - 1, -1):
        roll = weights @ np.maximum.reduceat(flat[u * 7 + options], starts) + extra
        row = values[u]
        row[1:] = np.maximum(roll, bank[u]) if allowed[u] else roll
        row[MUST_ROLL] = roll[model.dice - 1]
    return values
