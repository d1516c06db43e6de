"""``solve_rules``: a fresh solve of a rules value summarised for the ``solve`` command.

>>> from scorekeeper.rules import find_rules
>>> summary = solve_rules(find_rules("minimal"))
>>> summary.bank_at
{1: 250, 2: 250, 3: 400, 4: 1000, 5: 2900, 6: 10050}
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from scorekeeper.rules import Rules
from scorekeeper.strategy.model import UNIT, chance_model
from scorekeeper.strategy.policy import Policy, solve_policy
from scorekeeper.strategy.solver import Context, TurnTable, solve_turn


@dataclass(frozen=True)
class SolveSummary:
    """The headline figures of a solved rules value."""

    expected_turn_score: float
    points_per_turn: float
    bank_at: dict[int, int | None]
    farkle_probability: dict[int, float]
    seconds: float
    policy: Policy

    def to_dict(self) -> dict[str, Any]:
        """JSON form (keys of ``bank_at`` and ``farkle_probability`` are strings "1".."6")."""
        return {
            "expected_turn_score": self.expected_turn_score,
            "points_per_turn": self.points_per_turn,
            "bank_at": {str(n): v for n, v in self.bank_at.items()},
            "farkle_probability": {str(n): v for n, v in self.farkle_probability.items()},
            "seconds": self.seconds,
        }


def bank_thresholds(table: TurnTable, k: int = 0) -> dict[int, int | None]:
    """Per dice in hand, the least turn total at which banking is at least as good as throwing.

    ``None`` when throwing is always better (six dice that can never lose the turn).
    """
    out: dict[int, int | None] = {}
    for n in range(1, table.model.dice + 1):
        out[n] = next(
            (i * UNIT for i in range(table.top) if i * UNIT >= table.R[i, n, k] - 1e-9), None
        )
    return out


def solve_rules(rules: Rules) -> SolveSummary:
    """Solve ``rules`` afresh (no cache) and summarise it; ``seconds`` times the whole solve.

    ``bank_at`` is for a player on the board with no minimums in force and no target.
    """
    start = time.perf_counter()
    chance_model.cache_clear()
    policy = solve_policy(rules)
    free = solve_turn(chance_model(rules), Context(min_units=0), (0.0,))
    bank_at = bank_thresholds(free)
    seconds = time.perf_counter() - start
    farkle = {n: chance_model(rules).farkle[n] for n in range(1, rules.dice + 1)}
    if rules.six_dice_farkle_bonus:
        farkle[6] = chance_model(rules).bonus_farkle
    return SolveSummary(
        expected_turn_score=policy.expected_turn_score,
        points_per_turn=policy.points_per_turn,
        bank_at=bank_at,
        farkle_probability=farkle,
        seconds=seconds,
        policy=policy,
    )
