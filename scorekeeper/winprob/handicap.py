"""Handicaps: the first player's chance when the second starts with points but off the board.

With an opening minimum a compensation does not put its player on the board: they still need
the minimum in one turn, with their starting points kept. Those positions are outside the
main table (where only score 0 is off the board), so they are solved here for every
compensation at once: for each score ``x`` of the first player (from the top down), the pair
"first player on ``x`` to throw against the second off the board on ``C``" and its partner
"second player to throw", coupled by farkles like the main solver's pairs.
"""

from __future__ import annotations

import numpy as np

from scorekeeper.winprob.model import FloatArray, IntArray, threshold
from scorekeeper.winprob.solver import Geometry, fixed_point, turn_pass, turn_single


class _Pairs:
    """Turn passes for a batch whose start scores are not sorted (``turn_pass`` wants them so)."""

    def __init__(self, geo: Geometry, me: IntArray, bank: FloatArray, allowed: np.ndarray):
        self.geo = geo
        self.order = np.argsort(me, kind="stable")
        self.me = me[self.order]
        self.bank = bank[:, self.order]
        self.allowed = allowed[:, self.order]

    def __call__(self, farkle_value: FloatArray, idx: IntArray) -> FloatArray:
        """Turn-start values of the elements ``idx`` (in the caller's order)."""
        pos = np.empty_like(self.order)
        pos[self.order] = np.arange(len(self.order))
        cols = np.sort(pos[idx])
        values = np.zeros((self.geo.rows, 7, len(cols)))
        got = turn_pass(
            self.geo,
            self.me[cols],
            self.bank[:, cols],
            self.allowed[:, cols],
            farkle_value[self.order[cols]],
            values,
        )
        out = np.empty(len(farkle_value))
        out[self.order[cols]] = got
        result: FloatArray = out[idx]
        return result


def start_chances(geo: Geometry, table: FloatArray, comps: IntArray) -> FloatArray:
    """The first player's chance at the start, for each compensation ``comps`` (units).

    Without an opening minimum this is ``table[0, comps]``.
    """
    if geo.rules.opening_minimum == 0:
        out: FloatArray = table[0, comps]
        return out
    first: FloatArray = handicap_positions(geo, table, comps)[0][0]
    return first


def handicap_positions(
    geo: Geometry, table: FloatArray, comps: IntArray
) -> tuple[FloatArray, FloatArray]:
    """Every turn-start position against a player off the board on starting points.

    Returns ``(q1, q2)``, each (target units, len(comps)): ``q1[x, k]`` is the chance of the
    player on ``x`` (0: off the board) about to throw against one off the board on
    ``comps[k]``; ``q2[x, k]`` the chance of that player off the board, about to throw
    against the one on ``x``. Needs an opening minimum (without one, see ``table``).
    """
    rules = geo.rules
    size = geo.target
    k = len(comps)
    off = threshold(rules, on_board=False)
    q1 = np.zeros((size, k))  # first player on x to throw, second off the board on C
    q2 = np.zeros((size, k))  # second player (off the board on C) to throw, first on x
    u = np.arange(geo.rows)[:, None]
    top = u >= size
    slope = np.full(2 * k, 0.5)
    warm = np.full(2 * k, 0.5)
    for x in range(size - 1, -1, -1):
        xs = np.full(k, x)
        # the first player banks to u: the second (off the board on C) throws next
        if rules.final_round:
            chase_c = geo.chase(
                np.broadcast_to(comps[None, :], (geo.rows, k)),
                np.broadcast_to(u, (geo.rows, k)),
                np.zeros((geo.rows, k), dtype=np.intp),
                np.zeros((geo.rows, k), dtype=np.intp),
                np.full((geo.rows, k), off),
            )
            chase_x = geo.chase(
                np.broadcast_to(xs[None, :], (geo.rows, k)),
                np.broadcast_to(u, (geo.rows, k)),
                np.zeros((geo.rows, k), dtype=np.intp),
                np.zeros((geo.rows, k), dtype=np.intp),
            )
        else:
            chase_c = chase_x = np.zeros((geo.rows, k))
        below = np.minimum(u, size - 1)
        bank1 = np.where(top, 1.0 - chase_c, 1.0 - q2[below, np.arange(k)[None, :]])
        bank2 = np.where(top, 1.0 - chase_x, 1.0 - table[x, below])
        bank2 = np.broadcast_to(bank2, (geo.rows, k))
        least_x = int(geo.thresholds(np.array([x]))[0])
        allowed1 = np.broadcast_to(u - x >= least_x, (geo.rows, k))
        allowed2 = (u - comps[None, :]) >= off
        me = np.concatenate([xs, comps[::-1]])
        bank = np.concatenate([bank1, bank2[:, ::-1]], axis=1)
        allowed = np.concatenate([allowed1, allowed2[:, ::-1]], axis=1)
        values, slope = fixed_point(_Pairs(geo, me, bank, allowed), warm, slope)
        q1[x] = values[:k]
        q2[x] = values[k:][::-1]
        warm = values
    return q1, q2


def handicap_turn(
    geo: Geometry,
    table: FloatArray,
    q: FloatArray,
    x: int,
    c: int,
    handicapped: bool,
) -> tuple[FloatArray, FloatArray, float, int]:
    """One turn in a handicap position: its values (rows, 7), bank values (rows,), farkle
    value and least bankable total (units).

    ``q`` is ``(q1, q2)`` stacked, with columns by compensation in units. ``handicapped``: the
    player off the board on ``c`` throws against the one on ``x``; else the one on ``x``
    throws against them. Exactly the turns whose starts ``handicap_positions`` solved.
    """
    rules = geo.rules
    q1, q2 = q[0], q[1]
    u = np.arange(geo.rows)
    top = u >= geo.target
    below = np.minimum(u, geo.target - 1)
    off = threshold(rules, on_board=False)
    zeros = np.zeros(geo.rows, dtype=np.intp)
    if handicapped:
        me, least, farkle = c, off, 1.0 - float(q1[x, c])
        chase = geo.chase(np.full(geo.rows, x), u, zeros, zeros) if rules.final_round else 0.0
        bank = np.where(top, 1.0 - chase, 1.0 - table[x, below])
    else:
        me, farkle = x, 1.0 - float(q2[x, c])
        least = int(geo.thresholds(np.array([x]))[0])
        chase = (
            geo.chase(np.full(geo.rows, c), u, zeros, zeros, np.full(geo.rows, off))
            if rules.final_round
            else 0.0
        )
        bank = np.where(top, 1.0 - chase, 1.0 - q2[below, c])
    allowed = (u - me) >= least
    return turn_single(geo, me, bank, allowed, farkle), bank, farkle, least
