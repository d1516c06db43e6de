"""The two-player win-probability solver: exact values at the start of every turn.

``P[i, j]`` is the chance that the player about to throw, with ``i`` units banked, beats an
opponent on ``j`` units when both play to win. Scores only grow, so the score pairs are solved
in order of decreasing total ``i + j``; a farkle passes the turn with the scores unchanged, so
the pairs ``(i, j)`` and ``(j, i)`` depend on each other. Each total is solved by a secant
(Newton) iteration on the two farkle values: a turn's value is piecewise linear in the value of
farkling, so once the policy stops changing the linear solve is exact. Within a turn the
values are computed by backward induction over the absolute score ``u = i + turn total``,
vectorised over every pair of the same total.

Score 0 means "not on the board" when the rules have an opening minimum.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from scorekeeper.rules import Rules
from scorekeeper.strategy.model import UNIT
from scorekeeper.winprob.model import (
    MUST_ROLL,
    FloatArray,
    IntArray,
    TurnModel,
    chase_table,
    check_supported,
    threshold,
    turn_values,
)
from scorekeeper.winprob.tiebreak import play_off_value

DEFAULT_MARGIN = 5000  # points beyond the target where a leader in a final-round game banks
TOLERANCE = 1e-13
MAX_ITERATIONS = 100


@dataclass
class Geometry:
    """Sizes and end-of-game values shared by the solver and the advice lookups."""

    rules: Rules
    model: TurnModel
    target: int  # units
    cap: int  # units: from this score up, a player banks (the game-end cap)
    rows: int  # rows of a turn's value array: cap + the largest keep + 1
    chase_beat: FloatArray  # chaser's chance, ties not bankable (see chase_table)
    chase_tie: FloatArray  # chaser's chance, ties bankable (equals chase_beat when not)

    @classmethod
    def build(cls, rules: Rules, margin: int = DEFAULT_MARGIN) -> Geometry:
        """The geometry of ``rules``; ``margin`` (points) only matters with a final round.

        :raises UnsupportedRulesError: see ``check_supported``.
        """
        check_supported(rules)
        model = TurnModel.build(rules)
        target = rules.target // UNIT
        least = threshold(rules, on_board=False)
        extra = max(least, margin // UNIT) if rules.final_round else least
        cap = target + extra
        rows = cap + model.max_points + 1
        size = rows + least + 1
        beat = chase_table(model, size, None)
        tie_value: float | None = None
        if rules.final_round and not rules.final_round_must_beat:
            if rules.tie_break == "shared":
                tie_value = 0.5
            else:  # a banked tie starts a play-off round that the leader begins
                tie_value = 1.0 - play_off_value(rules, model, margin // UNIT)
        tie = beat if tie_value is None else chase_table(model, size, tie_value)
        return cls(rules, model, target, cap, rows, beat, tie)

    def on_board(self, score: IntArray) -> IntArray:
        """Whether players on these scores are on the board (score 0 is not, with a minimum)."""
        if self.rules.opening_minimum == 0:
            return np.ones_like(score)
        return (score > 0).astype(np.intp)

    def thresholds(self, score: IntArray) -> IntArray:
        """The least bankable turn total (units) of players on these scores."""
        on = threshold(self.rules, True)
        off = threshold(self.rules, False)
        return np.where(self.on_board(score) == 1, on, off)

    def chase(
        self,
        chaser: IntArray,
        leader: IntArray,
        turn: IntArray,
        state: IntArray,
        least: IntArray | None = None,
    ) -> FloatArray:
        """The final-round chaser's chance to win, at a turn total and dice state.

        ``least``: the chasers' least bankable turn totals (default: by their scores).
        """
        if least is None:
            least = self.thresholds(chaser)
        gap = leader - chaser  # > 0
        binding = gap < least
        tie_ok = ~binding
        table_row = np.where(binding, least - 1 - turn, gap - turn) + 1
        table_row = np.clip(table_row, 0, self.chase_beat.shape[0] - 1)
        beat = self.chase_beat[table_row, state]
        tie = self.chase_tie[table_row, state]
        out: FloatArray = np.where(tie_ok, tie, beat)
        return out

    def bank_values(self, table: FloatArray, me: IntArray, opp: IntArray) -> FloatArray:
        """(rows, batch): the value of banking to reach score ``u`` for each (me, opp) pair."""
        u = np.arange(self.rows)[:, None]
        below = np.minimum(u, self.target - 1)
        out = 1.0 - table[opp[None, :], below]
        top = u >= self.target
        if self.rules.final_round:
            chase = self.chase(
                np.broadcast_to(opp[None, :], out.shape),
                np.broadcast_to(u, out.shape),
                np.zeros(out.shape, dtype=np.intp),
                np.full(out.shape, MUST_ROLL, dtype=np.intp),
            )
            out = np.where(top, 1.0 - chase, out)
        else:
            out = np.where(top, 1.0, out)
        return out

    def allowed(self, me: IntArray) -> np.ndarray:
        """(rows, batch): whether a player who started the turn on ``me`` may bank at ``u``."""
        u = np.arange(self.rows)[:, None]
        res: np.ndarray = (u - me[None, :]) >= self.thresholds(me)[None, :]
        return res


def turn_pass(
    geo: Geometry,
    me: IntArray,
    bank: FloatArray,
    allowed: np.ndarray,
    farkle_value: FloatArray,
    values: FloatArray,
    stop: int | None = None,
) -> FloatArray:
    """Backward induction over one turn for players starting on the sorted scores ``me``.

    ``bank`` and ``allowed`` are (rows, batch) from ``Geometry.bank_values`` and
    ``Geometry.allowed``; ``values`` (rows, 7, batch) receives every state's value. Returns the
    turn-start values. ``stop`` ends the induction early at that score (advice in a turn).
    """
    model = geo.model
    batch = len(me)
    values[geo.cap :] = bank[geo.cap :, None, :]
    flat = values.reshape(geo.rows * 7, batch)
    farkle = model.farkle[1:, None]
    win = model.win[1:, None]
    start = np.empty(batch)
    last = int(me[0]) if stop is None else max(int(me[0]), stop)
    active = np.searchsorted(me, np.arange(geo.cap), side="right")
    starting = np.searchsorted(me, np.arange(geo.cap), side="left")
    for u in range(geo.cap - 1, last - 1, -1):
        k = int(active[u])
        roll = model.weights @ model.best_keeps(flat, u, k)
        roll += farkle * farkle_value[None, :k] + win
        bk = bank[u, :k]
        values[u, 1:, :k] = np.where(allowed[u, :k], np.maximum(roll, bk), roll)
        values[u, MUST_ROLL, :k] = roll[model.dice - 1]
        first = int(starting[u])
        if first < k:  # the players whose turn starts on u
            start[first:k] = roll[model.dice - 1, first:k]
    return start


def turn_single(
    geo: Geometry, me: int, bank: FloatArray, allowed: np.ndarray, farkle_value: float
) -> FloatArray:
    """Every state's value (rows, 7) of one player's turn: ``turn_pass`` for a batch of one.

    ``bank`` and ``allowed`` are the (rows,) columns of ``bank_values`` and ``allowed``.
    """
    return turn_values(geo.model, geo.cap, geo.rows, me, bank, allowed, farkle_value)


@dataclass
class _Batch:
    """The pairs of one total: evaluates a turn pass for a subset of them."""

    geo: Geometry
    me: IntArray
    bank: FloatArray
    allowed: np.ndarray
    passes: int = 0

    def __call__(self, farkle_value: FloatArray, idx: IntArray) -> FloatArray:
        """Turn-start values of the players ``me[idx]`` given their farkle values."""
        self.passes += 1
        values = np.zeros((self.geo.rows, 7, len(idx)))
        return turn_pass(
            self.geo,
            self.me[idx],
            self.bank[:, idx],
            self.allowed[:, idx],
            farkle_value[idx],
            values,
        )


def solve_table(geo: Geometry) -> tuple[FloatArray, int]:
    """The turn-start win probabilities ``P[i, j]`` and the number of turn passes used."""
    size = geo.target
    table = np.zeros((size, size))
    slopes = np.full((size, size), 0.5)
    passes = 0
    for total in range(2 * size - 2, -1, -1):
        lo = max(0, total - size + 1)
        hi = min(total, size - 1)
        me = np.arange(lo, hi + 1)
        opp = total - me
        batch = _Batch(geo, me, geo.bank_values(table, me, opp), geo.allowed(me))
        warm, slope = _guess(table, slopes, me, opp)
        table[me, opp], slopes[me, opp] = fixed_point(batch, warm, slope)
        passes += batch.passes
    return table, passes


def _guess(
    table: FloatArray, slopes: FloatArray, me: IntArray, opp: IntArray
) -> tuple[FloatArray, FloatArray]:
    """A first guess of a total's values (and farkle slopes) from the totals above it."""
    size = table.shape[0]
    up_opp = np.minimum(opp + 1, size - 1)
    up_me = np.minimum(me + 1, size - 1)
    a = table[me, up_opp]
    b = table[up_me, opp]
    c = table[up_me, up_opp]
    has_opp = opp + 1 < size
    has_me = me + 1 < size
    guess = np.where(has_opp & has_me, a + b - c, np.where(has_opp, a, np.where(has_me, b, 0.5)))
    slope = np.where(has_opp, slopes[me, up_opp], slopes[up_me, opp])
    return np.clip(guess, 0.0, 1.0), slope


def _newton(y: FloatArray, farkle: FloatArray, slope: FloatArray) -> FloatArray:
    """Solve the linearised pair equations ``x_i = y_i + slope_i (1 - x_partner - farkle_i)``."""
    slope = np.clip(slope, 0.0, 1.0)
    c = y + slope * (1.0 - farkle)
    x = (c - slope * c[::-1]) / (1.0 - slope * slope[::-1])
    out: FloatArray = np.clip(x, 0.0, 1.0)
    return out


def fixed_point(
    f: Callable[[FloatArray, IntArray], FloatArray], x0: FloatArray, slope0: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Solve ``x = f(1 - reversed(x))`` by Newton-secant steps on each pair of partners.

    ``f(farkle, idx)`` evaluates the elements ``idx`` only; a pair whose values stop changing
    is frozen and no longer evaluated.
    """
    idx = np.arange(len(x0))
    f_a = 1.0 - x0[::-1]
    y_a = f(f_a, idx)
    slope = slope0
    f_b = 1.0 - _newton(y_a, f_a, slope)[::-1]
    y_b = f(f_b, idx)
    for _ in range(MAX_ITERATIONS):
        x_b = 1.0 - f_b[::-1]  # the guess that produced f_b
        close = np.abs(y_b - x_b) <= TOLERANCE
        open_ = ~(close & close[::-1])
        if not open_.any():
            break
        step = f_b - f_a
        ok = (np.abs(step) > 1e-14) & open_
        slope = np.where(ok, (y_b - y_a) / np.where(ok, step, 1.0), slope)
        f_a, y_a = f_b, y_b
        f_b = np.where(open_, 1.0 - _newton(y_b, f_b, slope)[::-1], f_b)
        idx = np.flatnonzero(open_)
        y_b = y_b.copy()
        y_b[idx] = f(f_b, idx)
    return y_b, np.clip(slope, 0.0, 1.0)
