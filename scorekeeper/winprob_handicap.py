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

from scorekeeper.winprob_model import FloatArray, IntArray, threshold
from scorekeeper.winprob_solver import Geometry, _fixed_point, turn_pass


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
    rules = geo.rules
    if rules.opening_minimum == 0:
        out: FloatArray = table[0, comps]
        return out
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
        values, slope = _fixed_point(_Pairs(geo, me, bank, allowed), warm, slope)
        q1[x] = values[:k]
        q2[x] = values[k:][::-1]
        warm = values
    result: FloatArray = q1[0]
    return result
