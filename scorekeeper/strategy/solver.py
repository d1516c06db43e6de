"""The exact turn solver: backward induction over turn totals, vectorised over the outcomes.

A state is the turn total ``t`` (in units of 50 points) and the dice in hand: a column ``1..5``
for dice left after a keep, or ``HOT`` for six fresh dice after hot dice. ``D[i, col]`` is the
value of standing in that state before choosing to bank or throw; ``R[i, n]`` is the value of
throwing ``n`` dice with turn total ``i``. Every keep adds at least 50 points, so ``R[i]`` only
needs rows above ``i`` and one pass from the top down solves the turn exactly. A batch axis
``K`` solves several farkle values at once (the streak states of the farkle penalty).

Why the grid may stop at ``top`` (the turn-total cap). Above ``top`` we use the closed-form
values ``W`` of "bank at the first moment banking is allowed": a plain state is worth its
total ``t``; a *forced* throw of six dice (hot dice under ``must_roll``, a throw after the
six-dice farkle bonus, or hot dice when six dice can never lose) is worth ``F(t) = a t + b``,
where the keep choice for large ``t`` is decided by the coefficient of ``t`` first and then by
the constant, solved as a small fixed point (see ``_asymptote``). ``W`` satisfies the Bellman
optimality equation on ``[top, inf)``:

* Throwing ``n`` dice from ``t`` (then playing ``W``) is worth at most
  ``(1 - q_n) t + C_n``, where ``q_n`` is the chance that the throw loses the turn (farkle or
  toxic twos) and ``C_n`` adds up, over the outcomes, the best keep's points, the gain ``G``
  of a forced six-dice chain (``G = max(0, b)`` as ``F(t) - t = (a - 1) t + b <= b``), the
  six-1s and bonus terms, and any positive farkle value. So banking (worth ``t``) is at least
  as good as throwing whenever ``t >= C_n / q_n``; ``top`` is above every such bound (six dice
  whose throw can never lose are exempt: they are forced states in ``W``).
* For ``t >= s1`` the large-``t`` keep choice of ``F`` is the optimal one (``s1`` is where
  ``t + p_plain`` and ``a (t + p_hot) + b`` cross), and ``top >= s1``.
* Banking is allowed above ``top`` (``top`` exceeds the bank and opening minimums), and in
  the target-aware mode ``top`` exceeds the target.

Hence ``W`` is the optimal value above ``top`` (it is the value of a policy that stops with
probability one and ``W(t) - t`` is bounded), and the values below ``top`` are exact.
In the final-round (win-probability) mode the cap is simply the least total that is bankable
and beats the leader: from there on a plain state banks a certain win.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

import numpy as np

from scorekeeper.rules import Rules
from scorekeeper.strategy.model import HOT, UNIT, ChanceModel, FloatArray, chance_model

Kind = Literal["points", "win"]


@dataclass(frozen=True)
class Context:
    """What a bank is worth and when it is allowed, besides the throw probabilities.

    ``kind="points"``: a bank is worth the turn total; ``toxic_value`` is what a toxic-twos
    wipe is worth (minus the banked score); six 1s end the turn worth ``max(t + points,
    six_ones_floor)``; with ``target_units`` a bankable total at or above it banks at once;
    with ``exact_units`` (``exact_target``) a bank exactly there wins and banks at once, and
    any larger total overshoots and is worth nothing to the player.
    ``kind="win"``: a bank at or above ``win_units`` is a win (1), at ``tie_units`` a tie
    (``tie_value``), else it is not allowed; farkles and wipes are worth 0, six 1s 1.
    """

    kind: Kind = "points"
    min_units: int = 0
    toxic_value: float = 0.0
    six_ones_floor: float | None = None
    target_units: int | None = None
    exact_units: int | None = None
    win_units: int = 0
    tie_units: int | None = None
    tie_value: float = 0.5

    def bank_ok(self, i: int) -> bool:
        """Whether a turn total of ``i`` units may be banked."""
        if i < self.min_units:
            return False
        if self.kind == "win":
            return i >= self.win_units or i == self.tie_units
        return True

    def bank_value(self, i: int) -> float:
        """What banking ``i`` units is worth (when allowed)."""
        if self.kind == "win":
            return 1.0 if i >= self.win_units else (self.tie_value if i == self.tie_units else 0.0)
        if self.overshoots(i):
            return 0.0
        return float(i * UNIT)

    def overshoots(self, i: int) -> bool:
        """Whether ``i`` units overshoot an exact target (the turn is then worth nothing)."""
        return self.kind == "points" and self.exact_units is not None and i > self.exact_units

    def bank_forced(self, i: int) -> bool:
        """Whether a bankable total of ``i`` units banks at once (target reached, or a win)."""
        if self.kind == "win":
            return i >= self.win_units
        if self.exact_units is not None and i >= self.exact_units:
            return True
        return self.target_units is not None and i >= self.target_units

    def six_ones_value(self, i: int, six_units: int) -> float:
        """What six 1s on a throw are worth at a turn total of ``i`` units."""
        if self.kind == "win":
            return 1.0
        value = float((i + six_units) * UNIT)
        return value if self.six_ones_floor is None else max(value, self.six_ones_floor)


@dataclass
class TurnTable:
    """A solved turn: ``D`` and ``R`` over totals ``0 .. top + pad`` for each of ``K`` batches."""

    rules: Rules
    ctx: Context
    farkle_values: FloatArray
    top: int
    D: FloatArray
    R: FloatArray
    a: float
    b: FloatArray
    hot_forced_top: bool
    _forced: dict[tuple[int, int], FloatArray] = field(
        default_factory=dict, repr=False, compare=False
    )

    @property
    def model(self) -> ChanceModel:
        """The chance model of the rules (cached per process)."""
        return chance_model(self.rules)

    @property
    def must_roll(self) -> bool:
        """Whether hot dice must be thrown again before banking."""
        return self.rules.hot_dice == "must_roll"

    def _far(self, rows: np.ndarray, cols: np.ndarray) -> FloatArray:
        """``W`` for rows at or above ``top`` (shape ``(len(rows), K)``)."""
        k = len(self.farkle_values)
        out = np.empty((len(rows), k))
        for j, (i, col) in enumerate(zip(rows.tolist(), cols.tolist(), strict=True)):
            out[j] = self._far_one(int(i), int(col))
        return out

    def _far_one(self, i: int, col: int) -> FloatArray:
        k = len(self.farkle_values)
        if self.ctx.overshoots(i):
            return np.zeros(k)
        if self.keeps_on_farkle:
            return np.full(k, i * UNIT + float(keep_gains(self.rules)[col]))
        if HOT < col <= 5 and col > self.rules.bank_max_dice_left:
            return self._far_throw(i, col)
        if self.ctx.kind == "win":
            if col == HOT and self.must_roll:
                return np.full(k, self.a)
            return np.ones(k)
        if col == HOT and self.hot_forced_top:
            return self.a * i * UNIT + self.b
        return np.full(k, float(i * UNIT))

    def _far_throw(self, i: int, col: int) -> FloatArray:
        """``W`` of ``col`` dice that may not bank (``bank_max_dice_left``) at ``i >= top``
        units: they must be thrown, and every keep leads to fewer dice (or hot dice), whose
        ``W`` is known, so this recursion ends. Each state that may bank does (see ``_cap``:
        a forced throw above it is worth no more than its total)."""
        key = (i, col)
        found = self._forced.get(key)
        if found is not None:
            return found
        m = self.model
        first = int(m.n_starts[col - 1])
        last = int(m.n_starts[col]) if col < m.dice else len(m.weights)
        lo = int(m.o_starts[first])
        hi = int(m.o_starts[last]) if last < len(m.o_starts) else len(m.entry_units)
        vals = np.array(
            [
                self._far_one(i + int(u), int(c))
                for u, c in zip(m.entry_units[lo:hi], m.entry_col[lo:hi], strict=True)
            ]
        )
        best = np.maximum.reduceat(vals, m.o_starts[first:last] - lo, axis=0)
        out: FloatArray = (best * m.weights[first:last, None]).sum(axis=0)
        out += _constants(self, i)[col - 1]
        self._forced[key] = out
        return out

    def forced_six(self, i: int) -> FloatArray:
        """The value of a throw of a whole hand (six dice, or five under ``dice=5``) that must
        be made at a total of ``i`` units."""
        if i < self.top:
            row: FloatArray = self.R[i, self.model.dice]
            return row
        if self.ctx.kind == "win":
            return np.full(len(self.farkle_values), self.a)
        if self.ctx.overshoots(i):
            return np.zeros(len(self.farkle_values))
        if self.keeps_on_farkle:
            return self._far_one(i, HOT)
        return self.a * i * UNIT + self.b

    @property
    def keeps_on_farkle(self) -> bool:
        """Whether ``W`` above the cap is ``t + keep_gains`` (``farkle_keeps_points`` in the
        points objective with no target: a bankable turn never banks, see ``keep_gains``)."""
        ctx = self.ctx
        return (
            self.rules.farkle_keeps_points
            and ctx.kind == "points"
            and ctx.target_units is None
            and ctx.exact_units is None
        )

    def state(self, i: int, col: int, k: int = 0) -> float:
        """The value of holding ``col`` dice (``HOT`` for six after hot dice) at ``i`` units."""
        if i < len(self.D):
            return float(self.D[i, col, k])
        return float(self._far_one(i, col)[k])

    def roll(self, i: int, n: int, k: int = 0) -> float:
        """The value of throwing ``n`` dice at a turn total of ``i`` units, then playing best."""
        if i < self.top:
            return float(self.R[i, n, k])
        if self.ctx.overshoots(i):
            return 0.0
        return float(self._row(i)[n - 1, k])

    def _row(self, i: int) -> FloatArray:
        """``R[i, 1..dice]`` computed from the stored rows above (or ``W``); shape
        ``(dice, K)``."""
        m = self.model
        rows = i + m.entry_units
        inside = rows < len(self.D)
        vals = np.empty((len(rows), len(self.farkle_values)))
        vals[inside] = self.D[rows[inside], m.entry_col[inside]]
        if not inside.all():
            vals[~inside] = self._far(rows[~inside], m.entry_col[~inside])
        return _combine(self, vals, i)


def _combine(t: TurnTable, vals: FloatArray, i: int) -> FloatArray:
    m = t.model
    best = np.maximum.reduceat(vals, m.o_starts, axis=0)
    sums: FloatArray = np.add.reduceat(best * m.weights[:, None], m.n_starts, axis=0)
    sums += _constants(t, i)
    six = np.array(m.six_ones[1 : m.dice + 1])
    if six.any():
        sums += six[:, None] * t.ctx.six_ones_value(i, m.six_ones_units)
    if m.bonus_farkle:
        sums[-1] += m.bonus_farkle * t.forced_six(i + m.bonus_units)
    if i == 0 and m.first_throw_bonus:
        sums[-1] += _first_throw_bonus(t, t.forced_six(m.bonus_units))
    return sums


def _first_throw_bonus(t: TurnTable, forced: FloatArray) -> FloatArray:
    """What the six-dice farkle bonus of a turn's first throw adds to throwing six dice at
    total 0 (``six_dice_farkle_bonus_first_throw``): the farkle's value becomes a forced throw
    of six dice from the bonus. Only the first throw has total 0, and no state leads back to
    it, so this one entry changes nothing else."""
    m = t.model
    farkle = t.farkle_values if t.ctx.kind == "points" else np.zeros(len(t.farkle_values))
    out: FloatArray = m.first_throw_bonus * (forced - farkle)
    return out


def _constants(t: TurnTable, i: int) -> FloatArray:
    """What the farkles and wipes of a throw at ``i`` units add, by dice thrown (shape
    ``(dice, K)``); under ``farkle_keeps_points`` a farkle on a bankable total banks it."""
    m = t.model
    far = np.array(m.farkle[1 : m.dice + 1])[:, None]
    tox = np.array(m.toxic[1 : m.dice + 1])[:, None]
    kept = t.rules.farkle_keeps_points and i > 0 and t.ctx.bank_ok(i)
    if t.ctx.kind == "win":
        out = np.zeros((m.dice, len(t.farkle_values)))
        return out + far * t.ctx.bank_value(i) if kept else out
    farkle = np.full(len(t.farkle_values), t.ctx.bank_value(i)) if kept else t.farkle_values
    result: FloatArray = far * farkle[None, :] + tox * t.ctx.toxic_value
    return result


@lru_cache(maxsize=64)
def keep_gains(rules: Rules) -> FloatArray:
    """Under ``farkle_keeps_points`` (without toxic twos):
    ``c[n]``, the expected points still to come from throwing ``n`` dice on a bankable
    total when the turn never banks (``c[0]``: a whole hand after hot dice). A farkle then loses
    nothing, so throwing on is never worse than banking, and a bankable total ``t`` holding
    ``n`` dice is worth exactly ``t + c[n]``: every choice adds a constant to ``t``, so
    ``c = max over keeps (points + c[dice left])`` averaged over the throws, solved by value
    iteration (each throw may farkle and stop, so it converges)."""
    m = chance_model(rules)
    n = m.dice
    c = np.zeros(7)
    col_index = np.where(m.entry_col == HOT, n, m.entry_col)
    six = np.array(m.six_ones[1 : n + 1]) * m.six_ones_units * UNIT
    for _ in range(100_000):
        vals = m.entry_units * UNIT + c[col_index]
        best = np.maximum.reduceat(vals, m.o_starts)
        new = np.zeros(7)
        new[1 : n + 1] = np.add.reduceat(best * m.weights, m.n_starts) + six
        new[n] += m.bonus_farkle * (m.bonus_units * UNIT + c[n])  # the throw after a bonus
        new[0] = new[n]
        if np.max(np.abs(new - c)) <= 1e-12 * max(1.0, float(np.max(new))):
            return new
        c = new
    return c


def _six_entries(m: ChanceModel) -> list[tuple[float, list[tuple[int, int]]]]:
    """The scoring outcomes of a whole hand (six dice, or five) as (weight, [(units, col)])."""
    out = []
    first = int(m.n_starts[m.dice - 1])
    ends = [*m.o_starts.tolist()[first + 1 :], len(m.entry_units)]
    for o, end in zip(range(first, len(m.weights)), ends, strict=True):
        start = int(m.o_starts[o])
        ents = list(
            zip(m.entry_units[start:end].tolist(), m.entry_col[start:end].tolist(), strict=True)
        )
        out.append((float(m.weights[o]), ents))
    return out


def _asymptote(
    m: ChanceModel, ctx: Context, fv: FloatArray, hot_forced: bool
) -> tuple[float, FloatArray, float]:
    """``F(t) = a t + b`` of a forced six-dice throw far above the cap, and its crossing ``s1``.

    In the win mode ``a`` is the (constant) chance that the forced throw ends in a win.
    """
    outcomes = _six_entries(m)
    six = m.six_ones[m.dice]
    if ctx.kind == "win":
        good = six
        loop = m.bonus_farkle
        for w, ents in outcomes:
            if any(col != HOT for _, col in ents) or not hot_forced:
                good += w
            else:
                loop += w
        return good / (1.0 - loop), np.zeros(len(fv)), 0.0
    six_pts = m.six_ones_units * UNIT
    a, b = 1.0, np.zeros(len(fv))
    choice: list[bool] = []
    for _ in range(100):
        new_choice = []
        for _w, ents in outcomes:
            plain = max((u for u, c in ents if c != HOT), default=None)
            hot = max((u for u, c in ents if c == HOT), default=None)
            if hot is None or not hot_forced:
                new_choice.append(False)
            elif plain is None:
                new_choice.append(True)
            elif a < 1.0 - 1e-12:
                new_choice.append(False)
            else:
                new_choice.append(hot * UNIT + float(b.max()) > plain * UNIT)
        if new_choice == choice:
            break
        choice = new_choice
        n_plain = s_plain = loop = s_hot = 0.0
        for (w, ents), hot_pick in zip(outcomes, choice, strict=True):
            if hot_pick:
                loop += w
                s_hot += w * max(u for u, c in ents if c == HOT) * UNIT
            else:
                n_plain += w
                s_plain += (
                    w * max(u for u, _c in ents) * UNIT
                    if not hot_forced
                    else (w * max(u for u, c in ents if c != HOT) * UNIT)
                )
        denom = 1.0 - loop - m.bonus_farkle
        # farkle_keeps_points: far up a farkle banks the total, like a keep of no points
        kept = m.farkle[m.dice] if m.rules.farkle_keeps_points else 0.0
        a = (n_plain + six + kept) / denom
        b = (
            s_plain
            + a * s_hot
            + a * m.bonus_farkle * m.bonus_units * UNIT
            + six * six_pts
            + (m.farkle[m.dice] - kept) * fv
            + m.toxic[m.dice] * ctx.toxic_value
        ) / denom
    s1 = 0.0
    if hot_forced and a < 1.0 - 1e-12:
        for w, ents in outcomes:
            plain = max((u for u, c in ents if c != HOT), default=None)
            hot = max((u for u, c in ents if c == HOT), default=None)
            if plain is not None and hot is not None and w > 0:
                s1 = max(s1, float(((a * hot * UNIT + b - plain * UNIT) / (1.0 - a)).max()))
    return a, b, s1


def _cap(m: ChanceModel, ctx: Context, fv: FloatArray, hot_forced: bool, b: FloatArray) -> float:
    """A turn total (points) from which banking beats throwing in every plain state."""
    chain = max(0.0, float(b.max()))  # F(t) - t <= b: the gain of a forced six-dice chain
    gain = chain if hot_forced else 0.0
    six_pts = float(m.six_ones_units * UNIT)
    if ctx.six_ones_floor is not None:
        six_pts = max(six_pts, ctx.six_ones_floor)
    cap = 0.0
    for n in range(1, m.dice + 1):
        q = m.farkle[n] + m.toxic[n]
        if q <= 0.0:
            continue
        lo, hi = int(m.n_starts[n - 1]), int(m.n_starts[n]) if n < m.dice else len(m.weights)
        w = m.weights[lo:hi]
        c = float((w * (m.best_units[lo:hi] * UNIT + gain * m.has_hot[lo:hi])).sum())
        c += m.six_ones[n] * six_pts
        if n == m.dice:
            c += m.bonus_farkle * (m.bonus_units * UNIT + chain)
        c += m.farkle[n] * max(0.0, float(fv.max())) + m.toxic[n] * max(0.0, ctx.toxic_value)
        cap = max(cap, c / q)
    return cap


# Units solved above the cap when six dice may have to be thrown there under
# ``bank_max_dice_left`` (see ``_forced_sixes_limited``).
FORCED_EXTENSION = 1200


def _forced_sixes_limited(m: ChanceModel) -> bool:
    """Whether six dice may have to be thrown above the cap (must-roll hot dice, a six-dice
    bonus on any throw) while ``bank_max_dice_left`` stops some keeps from banking.

    The closed form of such a throw (``_asymptote``) takes every plain keep as a bank, which
    a keep that leaves too many dice is not. So the grid runs ``FORCED_EXTENSION`` units (60,000
    points) above the cap by backward induction, every state exact, and only beyond it uses
    the closed form: a value there reaches a state below the cap only through a chain of
    forced throws that climbs all that way without a bank or a farkle, far below 1e-12 (a
    test doubles the extension and sees no change)."""
    rules = m.rules
    forced = rules.hot_dice == "must_roll" or m.bonus_farkle > 0
    return rules.bank_max_dice_left < m.dice and forced


def solve_turn(
    m: ChanceModel, ctx: Context, farkle_values: Sequence[float] = (0.0,), min_top: int = 0
) -> TurnTable:
    """Solve one turn exactly for each farkle value in ``farkle_values`` (the batch axis)."""
    fv = np.asarray(farkle_values, dtype=np.float64)
    must_roll = m.rules.hot_dice == "must_roll"
    # a six-dice hand is a forced throw above the cap under must_roll, or when it can't lose
    never_lose = (m.farkle[m.dice] + m.toxic[m.dice]) == 0.0
    # (unless a target makes every bankable total above the cap bank at once)
    hot_forced = must_roll or (ctx.kind == "points" and never_lose and ctx.target_units is None)
    a, b, s1 = _asymptote(m, ctx, fv, hot_forced)
    if ctx.kind == "win":
        top = max(ctx.win_units, ctx.min_units, 1)
    elif ctx.exact_units is not None:
        top = ctx.exact_units + 1  # every larger total overshoots: worth 0 whatever follows
    else:
        bound = max(_cap(m, ctx, fv, hot_forced, b), s1, ctx.six_ones_floor or 0.0)
        top = max(math.ceil(bound / UNIT), ctx.min_units, ctx.target_units or 0) + 1
    top = max(top, min_top)
    if _forced_sixes_limited(m) and ctx.exact_units is None:
        top += FORCED_EXTENSION
    n_rows = top + m.max_units + 1
    k = len(fv)
    D = np.zeros((n_rows, 6, k))
    R = np.zeros((n_rows, 7, k))
    table = TurnTable(m.rules, ctx, fv, top, D, R, a, b, hot_forced)
    pad = np.arange(top, n_rows)
    for col in range(6):
        D[top:, col] = table._far(pad, np.full(len(pad), col))
    for i in range(top, n_rows):
        R[i, m.dice] = table.forced_six(i) if ctx.kind == "points" else a
    _backward(table)
    return table


def _backward(t: TurnTable) -> None:
    m, ctx, D, R = t.model, t.ctx, t.D, t.R
    flat = D.reshape(-1, D.shape[2])
    base = m.entry_units * 6 + m.entry_col
    const = _constants(t, 0)
    per_row = t.rules.farkle_keeps_points
    six = np.array(m.six_ones[1 : m.dice + 1])[:, None]
    has_six = bool(six.any())
    weights = m.weights[:, None]
    must_roll = t.must_roll
    bonus = m.bonus_farkle
    bu = m.bonus_units
    most = t.rules.bank_max_dice_left
    n = m.dice  # a whole hand; the columns 1..n-1 hold dice left after a keep
    o_starts, n_starts = m.o_starts, m.n_starts
    for i in range(t.top - 1, -1, -1):
        vals = flat.take(base + 6 * i, axis=0)
        best = np.maximum.reduceat(vals, o_starts, axis=0)
        sums = np.add.reduceat(best * weights, n_starts, axis=0)
        sums += _constants(t, i) if per_row else const
        if has_six:
            sums += six * ctx.six_ones_value(i, m.six_ones_units)
        if bonus:
            sums[n - 1] += bonus * R[i + bu, n]
        if i == 0 and m.first_throw_bonus:
            sums[n - 1] += _first_throw_bonus(t, R[bu, n])
        R[i, 1 : n + 1] = sums
        if ctx.bank_ok(i):
            bv = ctx.bank_value(i)
            if ctx.bank_forced(i):
                D[i, 1:n] = bv
            else:
                D[i, 1:n] = np.maximum(sums[: n - 1], bv)
            if most < n - 1:  # bank_max_dice_left: more dice than that must be thrown
                D[i, most + 1 : n] = sums[most : n - 1]
            if must_roll:
                D[i, HOT] = sums[n - 1]
            elif ctx.bank_forced(i):
                D[i, HOT] = bv
            else:
                D[i, HOT] = np.maximum(sums[n - 1], bv)
        else:
            D[i, 1:n] = sums[: n - 1]
            D[i, HOT] = sums[n - 1]
