"""Advice on passed dice (``pass_dice``): take over the banked total and its dice, or start fresh.

Taking over puts the player in the turn state (passed total, dice left) with a throw to make;
starting fresh is a throw of six dice at a total of 0. The solver already values every turn
state, so the choice is the comparison of two solved values of the same table: ``roll(T, n)``
against ``roll(0, 6)``, exact under the player's context (opening minimum, banked score and
target, farkle streak, or the final round's score to beat).

>>> import tempfile
>>> from scorekeeper.rules import find_rules
>>> rules = find_rules("minimal", {"pass_dice": True})
>>> advice = advise_pass(rules, 1000, 5, cache_dir=tempfile.mkdtemp())
>>> advice.best, advice.take_value > advice.fresh_value
('take_over', True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from scorekeeper.errors import StrategyError
from scorekeeper.rules import Rules
from scorekeeper.scoring import all_dice_word
from scorekeeper.strategy.advice import DEFEND_NOTE, MAX_TOTAL, ValueKind, game_context
from scorekeeper.strategy.model import UNIT
from scorekeeper.strategy.policy import Policy, policy_for

Choice = Literal["take_over", "fresh"]


@dataclass(frozen=True)
class PassAdvice:
    """The two choices passed dice give, each with its exact value, and the better one."""

    passed_total: int
    passed_dice: int
    banked: int
    on_board: bool
    streak: int
    beat: int | None
    value_kind: ValueKind
    take_value: float
    fresh_value: float
    best: Choice
    message: str

    def to_dict(self) -> dict[str, Any]:
        """JSON form: the state, both values, the better choice and why."""
        return {
            "kind": "pass",
            "passed_total": self.passed_total,
            "passed_dice": self.passed_dice,
            "banked": self.banked,
            "on_board": self.on_board,
            "streak": self.streak,
            "beat": self.beat,
            "value_kind": self.value_kind,
            "take_over": self.take_value,
            "fresh": self.fresh_value,
            "best": self.best,
            "message": self.message,
        }


def _check(total: int, dice: int, banked: int, on_board: bool, streak: int, most: int) -> None:
    multiple = f"a multiple of 50 from 50 to {MAX_TOTAL}"
    for name, value in (("passed total", total), ("passed dice", dice), ("streak", streak)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise StrategyError(f"bad {name} {value!r}: a whole number")
    if not UNIT <= total <= MAX_TOTAL or total % UNIT:
        raise StrategyError(f"bad passed total {total}: it must be {multiple}")
    if not 1 <= dice <= most:
        raise StrategyError(
            f"bad passed dice {dice}: 1 to {most} dice are passed ({most} after hot dice;"
            f" this table plays with {most} dice)"
        )
    if not 0 <= streak <= 2:
        raise StrategyError(f"bad streak {streak}: it is 0, 1 or 2 farkles in a row")
    if not on_board and banked > 0:
        raise StrategyError(f"a player with {banked} banked is on the board; drop not-on-board")


def _dice(n: int) -> str:
    return "1 die" if n == 1 else f"{n} dice"


def advise_pass(
    rules: Rules,
    passed_total: int,
    passed_dice: int,
    *,
    banked: int = 0,
    on_board: bool = True,
    streak: int = 0,
    beat: int | None = None,
    cache_dir: str | None = None,
    policy: Policy | None = None,
) -> PassAdvice:
    """Whether to take over ``passed_total`` with ``passed_dice`` dice or throw six fresh dice.

    Values are the exact expected points the turn banks (``expected_points``) or, in the final
    round (``beat``), the exact chance to end the turn above ``beat`` (``win_probability``).
    A tie in value advises starting fresh (nothing is put at stake that need not be).

    :raises StrategyError: on an impossible state.
    """
    _check(passed_total, passed_dice, banked, on_board, streak, rules.dice)
    pol = policy if policy is not None else policy_for(rules, cache_dir)
    ctx = game_context(rules, banked=banked, on_board=on_board, beat=beat)
    table, k = pol.table(on_board, ctx, streak)
    take = table.roll(passed_total // UNIT, passed_dice, k)
    fresh = table.roll(0, rules.dice, k)
    every = all_dice_word(rules.dice)
    kind: ValueKind = "win_probability" if beat is not None else "expected_points"
    best: Choice = "take_over" if take > fresh + 1e-9 else "fresh"
    if kind == "win_probability":
        take_text, fresh_text = f"{take:.1%} chance to beat {beat}", f"{fresh:.1%}"
    else:
        take_text, fresh_text = f"{take:.0f} expected", f"{fresh:.0f}"
    taking = f"{passed_total} with {_dice(passed_dice)}"
    if best == "take_over":
        message = f"Take over {taking}: {take_text}; {every} fresh dice give {fresh_text}"
    else:
        unit = " expected" if kind == "expected_points" else " chance"
        message = (
            f"Throw {every} fresh dice: {fresh_text}{unit}; taking over {taking} gives {take_text}"
        )
    if beat is not None and rules.final_round_defend:
        message += DEFEND_NOTE
    return PassAdvice(
        passed_total,
        passed_dice,
        banked,
        on_board,
        streak,
        beat,
        kind,
        take,
        fresh,
        best,
        message,
    )
