"""Final-round ties played off (``final_round_must_beat=false``, ``tie_break=extra_round``).

A chaser who banks exactly the leader's score ties; then both play one more turn each, the
earlier leader first, and the higher round total wins; a tied round is played again. ``E``,
the chance that the first player of such a round wins, is a fixed point: the second player
knows the first one's round total ``a`` and plays to beat it, banking a tie (worth ``1 - E``)
when that is better than throwing on; a round where both farkle is a tie too. Both are on
the board, so only the bank minimum applies.

>>> from scorekeeper.rules import find_rules
>>> from scorekeeper.winprob.model import TurnModel
>>> rules = find_rules("standard", {"final_round_must_beat": False})
>>> 0.3 < play_off_value(rules, TurnModel.build(rules), 100) < 0.5  # the second knows more
True
"""

from __future__ import annotations

import numpy as np

from scorekeeper.rules import Rules
from scorekeeper.winprob.model import MUST_ROLL, TurnModel, chase_table, threshold, turn_values

TOLERANCE = 1e-15
MAX_ITERATIONS = 500


def play_off_value(rules: Rules, model: TurnModel, cap: int) -> float:
    """``E``: the first player's chance to win a tie-break round (and any that follow).

    ``cap`` (units): from this round total on the first player banks.
    """
    least = threshold(rules, on_board=True)
    cap = max(cap, least)
    rows = cap + model.max_points + 1
    size = rows + 1
    beat = chase_table(model, size, None)
    reach = float(beat[least, MUST_ROLL])  # the second banks anything: P(total >= least)
    totals = np.arange(rows)
    allowed = totals >= least
    value = 0.5
    for _ in range(MAX_ITERATIONS):
        tie = chase_table(model, size, 1.0 - value)
        second = tie[totals + 1, MUST_ROLL]  # the second's chance against a round total u
        after_farkle = reach + (1.0 - reach) * (1.0 - value)  # both farkling ties again
        table = turn_values(model, cap, rows, 0, 1.0 - second, allowed, 1.0 - after_farkle)
        new = float(table[0, MUST_ROLL])
        if abs(new - value) <= TOLERANCE:
            return new
        value = new
    return value
