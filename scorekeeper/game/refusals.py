"""Why a bank is refused, or worth a warning, in words a player understands (spec §3, §5).

The engine refuses a bank with these words, and the state JSON carries them for the turn and
for each keep of the throw, so the page shows the server's reasons.
"""

from __future__ import annotations

from typing import Literal

from scorekeeper.game.state import Player, Turn
from scorekeeper.game.view import dice_word
from scorekeeper.game.view import points_text as _n
from scorekeeper.rules import Rules
from scorekeeper.scoring import all_dice_word

Tense = Literal["turn", "keep", "quick"]


def turn_refusal(
    t: Turn, p: Player, rules: Rules, must_beat: int | None, *, farkled: bool = False
) -> str | None:
    """Why ``p`` may not bank the turn ``t`` now, or None; ``must_beat``: the score to beat
    in the final round, if any; ``farkled``: asked for a farkle that would keep its points
    (``farkle_keeps_points``: the dice left do not matter then)."""
    if t.offer is not None:
        return f"{p.name} must first choose: take over {t.offer.player}'s dice or throw fresh"
    if t.throw is not None:
        return f"{p.name} must first set aside a keep from the throw {t.throw}"
    if t.taken is not None and t.must_roll:
        return f"{p.name} took over {t.taken.player}'s dice and must throw them before banking"
    if t.reroll:
        return f"{p.name} threw a pair that scores nothing and throws the two dice again first"
    if t.total == 0:
        return f"{p.name} has no points this turn yet; throw the dice"
    if t.must_roll:
        return _must_throw_all(p, rules)
    if not farkled and t.dice_left < rules.dice:  # all after a keep: hot dice, count as none
        why = dice_left_refusal(rules, t.dice_left)
        if why:
            return why
    return points_refusal(p, rules, must_beat, t.total, "turn")


def _must_throw_all(p: Player, rules: Rules) -> str:
    every = all_dice_word(rules.dice)
    return f"hot dice: {p.name} must throw all {every} dice again before banking"


def dice_left_refusal(rules: Rules, left: int) -> str | None:
    """Why a turn with ``left`` dice still to throw may not bank (``bank_max_dice_left``)."""
    most = rules.bank_max_dice_left
    if left <= most:
        return None
    allowed = "only after hot dice" if most == 0 else f"only with {dice_word(most)} or fewer left"
    return f"a turn may be banked {allowed} to throw ({dice_word(left)} left), so keep rolling"


def keep_bank_refusal(
    t: Turn, p: Player, rules: Rules, must_beat: int | None, dice: int, points: int
) -> str | None:
    """Why ``p`` may not keep ``dice`` dice of the throw worth ``points`` and bank, or None."""
    if dice == t.dice_left and rules.hot_dice == "must_roll":
        return _must_throw_all(p, rules)
    if dice < t.dice_left:
        why = dice_left_refusal(rules, t.dice_left - dice)
        if why:
            return why
    return points_refusal(p, rules, must_beat, t.total + points, "keep")


def points_refusal(
    p: Player, rules: Rules, must_beat: int | None, total: int, tense: Tense
) -> str | None:
    """Why a turn of ``total`` points may not be banked by ``p``, or None: said of the turn in
    play, of the turn after a keep, or (``quick``) of a whole turn's points typed in, with
    what to enter instead."""
    farkle = "or 0 if the turn ended in a farkle"
    has = "would have" if tense == "keep" else "has"
    if not p.on_board and rules.opening_minimum and total < rules.opening_minimum:
        need = f"{p.name} needs {_n(rules.opening_minimum)} in one turn to get on the board"
        if tense == "quick":
            return f"{need}; enter {_n(rules.opening_minimum)} or more, {farkle}"
        return f"{need}; the turn {has} {_n(total)}"
    if rules.bank_minimum and total < rules.bank_minimum:
        need = f"a turn needs at least {_n(rules.bank_minimum)} to bank"
        if tense == "quick":
            return f"{need}; enter {_n(rules.bank_minimum)} or more, {farkle}"
        return f"{need}; {p.name}'s turn {has} {_n(total)}"
    if must_beat is not None and p.score + total <= must_beat:
        need = f"in the final round {p.name} must beat {_n(must_beat)}"
        if tense == "quick":
            return (
                f"{need} (the turn ends by beating it or in a farkle); enter more than"
                f" {_n(must_beat - p.score)}, {farkle}"
            )
        return f"{need}; banking now makes {_n(p.score + total)}, so keep rolling"
    return None


def bank_warning(p: Player, rules: Rules, total: int) -> str | None:
    """A warning for a bank of ``total`` by ``p`` that the rules allow but the player may
    regret (it overshoots an exact target), or None."""
    if rules.exact_target and p.score + total > rules.target:
        fate = "be lost (bust)" if rules.exact_overshoot == "bust" else "go to the lowest score"
        return (
            f"careful: {_n(p.score + total)} overshoots the exact target of"
            f" {_n(rules.target)}, so these points would {fate}"
        )
    return None
