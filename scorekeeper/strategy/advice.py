"""Advice for one throw: every legal keep followed by banking or by throwing, ranked.

>>> import tempfile
>>> from scorekeeper.rules import find_rules
>>> folder = tempfile.mkdtemp()
>>> advice = advise(find_rules("minimal"), Dice.parse("1 5 5 2 3 4"), cache_dir=folder)
>>> advice.best.action, str(advice.best.keep), advice.best.dice_to_throw
('roll', '1', 5)

Values are exact expectations of the points this turn banks (``expected_points``; with the
farkle streak penalty, plus the relative value of the streak state the turn ends in) or, in the
final round (``beat=S``), the exact chance of ending the turn above ``S``
(``win_probability``). Decisions the advisor makes for game context, documented:

* A bankable total that brings the banked score to the target banks ("a turn that reaches the
  target banks"); such a bank is ranked first. Under ``exact_target`` a bank landing exactly
  on the target wins (worth its points) and a larger total is worth nothing to the player.
* Toxic twos wipe the banked score: in the points objective a wipe is worth minus the banked
  score (and loses the turn); in the final round it loses. It also counts as a farkle for the
  streak (it ends the turn with nothing).
* Six 1s (``six_ones_win``) end the game: worth the larger of the turn total with the six 1s
  and the points still needed to reach the target; in the final round a certain win.
* A six-dice farkle with ``six_dice_farkle_bonus`` adds the bonus and the player must throw
  all six again.
* In the final round with ``final_round_must_beat=false`` a bank that ties the leader is
  allowed and counts as half a win (the tie-break is an even chance, or a shared win).
* Under ``triple_addon`` a keep's points count the dice added to the turn's earlier triples
  (``tripled``), exactly as the game scores them, but the solver values the throws after it
  as if no face were tripled: the value of a state would depend on which of the 64 sets of
  faces the turn has kept as triples, a solve for each. The advice says "Not exact" then.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from scorekeeper.errors import DiceError, StrategyError
from scorekeeper.rules import Rules
from scorekeeper.scoring import (
    Dice,
    Keep,
    Outcome,
    check_tripled,
    farkle_probability,
    is_reroll_pair,
    table_for,
    throw_outcome,
)
from scorekeeper.strategy.model import UNIT
from scorekeeper.strategy.policy import Policy, base_context, policy_for
from scorekeeper.strategy.solver import Context, TurnTable

ValueKind = Literal["expected_points", "win_probability"]
DEFEND_NOTE = (
    " (defend your win: this is the best chance to take the lead this turn; what a bigger lead"
    " is worth against the others' replies is not modelled)"
)
MAX_TOTAL = 1_000_000


@dataclass(frozen=True)
class Option:
    """One choice after a throw: a legal keep, then bank or throw the dice left."""

    keep: Dice
    points: int
    action: Literal["bank", "roll"]
    turn_total: int
    dice_to_throw: int
    value: float
    value_kind: ValueKind
    next_farkle_probability: float | None
    allowed: bool
    why_not: str | None
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """JSON form of the option."""
        return {
            "keep": self.keep.to_list(),
            "points": self.points,
            "action": self.action,
            "turn_total": self.turn_total,
            "dice_to_throw": self.dice_to_throw,
            "value": self.value,
            "value_kind": self.value_kind,
            "next_farkle_probability": self.next_farkle_probability,
            "allowed": self.allowed,
            "why_not": self.why_not,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Advice:
    """The ranked options for a throw (best first) and what the throw means."""

    throw: Dice
    turn_total: int
    dice_left: int
    banked: int
    on_board: bool
    streak: int
    beat: int | None
    value_kind: ValueKind
    tripled: tuple[int, ...]  # triple_addon: faces kept as triples earlier in the turn
    outcome: str  # the Outcome's advice_word
    message: str
    options: tuple[Option, ...]

    rules: Rules

    @property
    def not_modelled(self) -> list[str]:
        """The options of the rules that the advisor does not value (its advice is then
        not exact); in a "defend your win" final round, ``final_round_defend``."""
        return not_modelled(self.rules, self.beat)

    @property
    def best(self) -> Option | None:
        """The best allowed option, or None when the throw leaves no choice."""
        return next((o for o in self.options if o.allowed), None)

    def to_dict(self) -> dict[str, Any]:
        """JSON form: the state, the outcome, the best option and every option, ranked."""
        best = self.best
        return {
            "throw": self.throw.to_list(),
            "turn_total": self.turn_total,
            "dice_left": self.dice_left,
            "banked": self.banked,
            "on_board": self.on_board,
            "streak": self.streak,
            "beat": self.beat,
            "value_kind": self.value_kind,
            "tripled": list(self.tripled),
            "outcome": self.outcome,
            "message": self.message,
            "best": best.to_dict() if best else None,
            "options": [o.to_dict() for o in self.options],
            "exact": not self.not_modelled,
            "not_modelled": self.not_modelled,
        }


# Options the solver does not value, each with when it is in play: advice under them says
# it is not exact instead of advising as if they were off without a word.
_NOT_MODELLED: dict[str, Callable[[Rules], bool]] = {
    # exact without toxic twos (a wipe loses the total: see keep_gains)
    "farkle_keeps_points": lambda r: r.farkle_keeps_points and r.toxic_twos,
    # the value of a state depends on the set of faces kept as triples (see the module's notes)
    "triple_addon": lambda r: r.triple_addon > 0,
}


def not_modelled(rules: Rules, beat: int | None = None) -> list[str]:
    """The options in play under ``rules`` that the advisor does not value; with ``beat`` (a
    final-round turn) also ``final_round_defend``, whose replies to a new lead it leaves out."""
    names = [name for name, on in _NOT_MODELLED.items() if on(rules)]
    if beat is not None and rules.final_round_defend:
        names.append("final_round_defend")
    return names


def _check_tripled(rules: Rules, tripled: Sequence[int]) -> tuple[int, ...]:
    """The faces kept as triples earlier in the turn, checked, sorted and without repeats.

    :raises StrategyError: on a face that is not 1 to 6, or faces given without
        ``triple_addon``.
    """
    try:
        return check_tripled(rules, tripled)
    except DiceError as exc:
        raise StrategyError(str(exc)) from exc


def _whole(name: str, value: object, accepted: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise StrategyError(f"bad {name} {value!r}: {accepted}")
    return value


def _check_state(
    rules: Rules,
    throw: Dice,
    turn_total: int,
    dice_left: int | None,
    banked: int,
    on_board: bool,
    streak: int,
    beat: int | None,
) -> int:
    """Validate the state; returns the dice left.

    :raises StrategyError: on an impossible state.
    """
    multiple = f"a multiple of 50 from 0 to {MAX_TOTAL}"
    turn_total = _whole("turn total", turn_total, multiple)
    if not 0 <= turn_total <= MAX_TOTAL or turn_total % UNIT:
        raise StrategyError(f"bad turn total {turn_total}: it must be {multiple}")
    most = rules.dice
    left = len(throw) if dice_left is None else _whole("dice left", dice_left, f"1 to {most}")
    if not 1 <= left <= most:
        raise StrategyError(
            f"bad dice left {left}: a player throws 1 to {most} dice"
            + (f" (this table plays with {most} dice)" if left > most else "")
        )
    if left != len(throw):
        raise StrategyError(
            f"the throw has {len(throw)} dice but {left} dice were left to throw; "
            "give exactly the dice thrown"
        )
    low = -MAX_TOTAL if rules.farkle_streak_penalty else 0
    scores = f"a multiple of 50 from {low} to {MAX_TOTAL}"
    if rules.farkle_streak_penalty == 0:
        scores += " (scores go negative only with a farkle streak penalty)"
    banked = _whole("banked score", banked, scores)
    if not low <= banked <= MAX_TOTAL or banked % UNIT:
        raise StrategyError(f"bad banked score {banked}: it must be {scores}")
    if not on_board and banked > 0:
        raise StrategyError(f"a player with {banked} banked is on the board; drop not-on-board")
    streak = _whole("streak", streak, "0, 1 or 2 farkles in a row")
    if not 0 <= streak <= 2:
        raise StrategyError(f"bad streak {streak}: it is 0, 1 or 2 farkles in a row")
    if beat is not None:
        beat = _whole("score to beat", beat, multiple)
        if not 0 <= beat <= MAX_TOTAL or beat % UNIT:
            raise StrategyError(f"bad score to beat {beat}: it must be {multiple}")
    return left


def game_context(
    rules: Rules, *, banked: int = 0, on_board: bool = True, beat: int | None = None
) -> Context:
    """The solver context of a player: minimums, banked score, target or leader's score."""
    least = rules.bank_minimum if on_board else max(rules.bank_minimum, rules.opening_minimum)
    if beat is not None:
        need = beat - banked
        tie = None if rules.final_round_must_beat or need < 0 else need // UNIT
        return Context(
            kind="win",
            min_units=least // UNIT,
            win_units=max(0, need // UNIT + 1),
            tie_units=tie,
        )
    ctx = Context(
        kind="points",
        min_units=least // UNIT,
        toxic_value=-float(banked) if rules.toxic_twos else 0.0,
        six_ones_floor=float(rules.target - banked) if rules.six_ones_win else None,
        target_units=None if rules.exact_target else max(0, -(-(rules.target - banked) // UNIT)),
        exact_units=max(0, (rules.target - banked) // UNIT) if rules.exact_target else None,
    )
    return base_context(rules, on_board) if ctx == base_context(rules, on_board) else ctx


def advise(
    rules: Rules,
    throw: Dice | str | Sequence[int],
    *,
    turn_total: int = 0,
    dice_left: int | None = None,
    banked: int = 0,
    on_board: bool = True,
    streak: int = 0,
    beat: int | None = None,
    cache_dir: str | None = None,
    policy: Policy | None = None,
    tripled: Sequence[int] = (),
) -> Advice:
    """Rank every option after ``throw`` for a player in the given state, best first.

    ``turn_total`` is the total before this throw; ``beat`` (final round) is the leader's
    score. ``cache_dir`` is the on-disk policy cache (default: the user cache folder).
    ``tripled``: under ``triple_addon``, the faces kept as three or more of a kind earlier in
    the turn (their single dice score ``triple_addon``).

    :raises StrategyError: on an impossible state (see the message).
    :raises DiceError: when ``throw`` is not 1 to 6 dice.
    """
    dice = (
        throw
        if isinstance(throw, Dice)
        else (Dice.parse(throw) if isinstance(throw, str) else Dice(throw))
    )
    left = _check_state(rules, dice, turn_total, dice_left, banked, on_board, streak, beat)
    faces = _check_tripled(rules, tripled)
    pol = policy if policy is not None else policy_for(rules, cache_dir)
    ctx = game_context(rules, banked=banked, on_board=on_board, beat=beat)
    kind: ValueKind = "win_probability" if beat is not None else "expected_points"
    state = {
        "throw": dice,
        "turn_total": turn_total,
        "dice_left": left,
        "banked": banked,
        "on_board": on_board,
        "streak": streak,
        "beat": beat,
        "value_kind": kind,
        "tripled": faces,
    }
    scoring = rules if on_board else rules.opening_scoring()  # singles_until_open
    outcome = throw_outcome(dice.counts, scoring, first_throw=turn_total == 0, tripled=faces)
    if outcome is not Outcome.KEEP:
        return Advice(
            **state,  # type: ignore[arg-type]
            outcome=outcome.advice_word,
            message=_outcome_message(outcome, rules, turn_total, banked, dice, faces),
            rules=rules,
            options=(),
        )
    keeps = table_for(scoring, faces).keeps(dice.counts)
    table, k = pol.table(on_board, ctx, streak)
    options = [
        o
        for keep in keeps
        for o in _options(rules, pol, table, k, ctx, keep, turn_total, left, banked, beat, kind)
    ]
    if faces:  # the next throw's farkle chance counts the dice that add to the turn's triples
        options = [
            replace(
                o,
                next_farkle_probability=float(farkle_probability(o.dice_to_throw, scoring, faces)),
            )
            if o.action == "roll"
            else o
            for o in options
        ]
    order = sorted(range(len(options)), key=lambda j: _rank(options[j], table.ctx, j))
    ranked = tuple(options[j] for j in order)
    best = next((o for o in ranked if o.allowed), None)
    msg = best.reason if best else "No allowed option."
    if beat is not None and rules.final_round_defend:
        msg += DEFEND_NOTE
    unmodelled = not_modelled(rules, beat)
    if unmodelled:
        msg = (
            f"Not exact: the advisor cannot value {' or '.join(unmodelled)} exactly with these"
            f" rules, so these figures are approximate. {msg}"
        )
    return Advice(**state, outcome=outcome.advice_word, message=msg, options=ranked, rules=rules)  # type: ignore[arg-type]


def _outcome_message(
    outcome: Outcome, rules: Rules, turn_total: int, banked: int, dice: Dice, tripled: Sequence[int]
) -> str:
    """What a throw that leaves no keep to choose means for the player."""
    if outcome is Outcome.FARKLE and is_reroll_pair(dice.counts, rules, tripled):
        return (
            "A pair that scores nothing: throw the two dice again, once (reroll_last_pair); if"
            f" this was already the throw again, it is a farkle and the {turn_total} is lost."
        )
    if outcome is Outcome.TOXIC_TWOS:
        return f"Toxic twos: four or more 2s wipe the turn and your banked score of {banked}."
    if outcome is Outcome.SIX_ONES:
        return "Six 1s in one throw: you win the game outright."
    if outcome is Outcome.FARKLE_BONUS:
        total = turn_total + rules.six_dice_farkle_bonus
        return (
            f"A six-dice farkle scores the {rules.six_dice_farkle_bonus} bonus: "
            f"throw all {rules.dice} dice again with {total}."
        )
    return f"Farkle: no die scores, and the turn total of {turn_total} is lost."


def _rank(o: Option, ctx: Context, j: int) -> tuple[bool, bool, float, bool, int]:
    i = o.turn_total // UNIT
    target_bank = o.action == "bank" and o.allowed and ctx.bank_forced(i) and not ctx.overshoots(i)
    return (not o.allowed, not target_bank, -round(o.value, 9), o.action != "bank", j)


def _describe(dice: Dice) -> str:
    return f"the {dice.faces[0]}" if len(dice) == 1 else str(dice)


def _bank_why_not(
    rules: Rules, ctx: Context, i: int, rest: int, banked: int, beat: int | None
) -> str | None:
    total = i * UNIT
    hot = rest == 0
    if hot and rules.hot_dice == "must_roll":
        return "hot dice must be thrown again before banking"
    if rest > rules.bank_max_dice_left:
        return f"a bank needs {rules.bank_max_dice_left} or fewer dice left and {rest} are left"
    if i < ctx.min_units:
        least = ctx.min_units * UNIT
        if least > rules.bank_minimum:
            return f"{least:,} in one turn is needed to get on the board"
        return f"the bank minimum is {least:,}"
    if beat is not None and not ctx.bank_ok(i):
        if banked + total == beat:
            return f"a tie with {beat:,} must keep rolling"
        return f"{banked + total:,} does not beat {beat:,}"
    return None


def _options(
    rules: Rules,
    pol: Policy,
    table: TurnTable,
    k: int,
    ctx: Context,
    keep: Keep,
    turn_total: int,
    left: int,
    banked: int,
    beat: int | None,
    kind: ValueKind,
) -> list[Option]:
    total = turn_total + keep.points
    i = total // UNIT
    rest = left - len(keep.dice)
    hot = rest == 0
    throw_n = rules.dice if hot else rest
    roll_value = table.roll(i, throw_n, k)
    why = _bank_why_not(rules, ctx, i, rest, banked, beat)
    bank_value = ctx.bank_value(i)
    desc = _describe(keep.dice)
    throw_words = (
        f"throw all {throw_n} dice again (hot dice)"
        if hot
        else (f"throw {throw_n} {'die' if throw_n == 1 else 'dice'}")
    )
    if kind == "win_probability":
        assert beat is not None
        roll_text = f"{roll_value:.1%} chance to beat {beat:,}"
        if why:
            bank_text = f"banking is not allowed ({why})"
        elif bank_value >= 1.0:
            bank_text = f"banking now wins with {banked + total:,}"
        else:
            bank_text = f"banking now ties {beat:,}"
        bank_reason = f"Keep {desc} and bank {total:,}: " + (
            f"not allowed, {why}"
            if why
            else (
                f"{banked + total:,} beats {beat:,}, a sure win"
                if bank_value >= 1.0
                else f"{banked + total:,} ties {beat:,}, worth half a win"
            )
        )
    else:
        roll_text = f"{roll_value:,.0f} expected"
        bank_text = f"banking is not allowed ({why})" if why else f"banking now gives {total:,}"
        if why:
            bank_reason = f"Keep {desc} and bank {total:,}: not allowed, {why}"
        elif ctx.overshoots(i):
            bank_reason = (
                f"Keep {desc} and bank {total:,}: {banked + total:,} overshoots the target of "
                f"{rules.target:,}, so the points go to the lowest score"
            )
        elif ctx.bank_forced(i):
            bank_reason = (
                f"Keep {desc} and bank {total:,}: {banked + total:,} reaches the target of "
                f"{rules.target:,}"
            )
        else:
            bank_reason = (
                f"Keep {desc} and bank {total:,}: {throw_words.split(' (')[0]} instead gives "
                f"{roll_value:,.0f} expected"
            )
    roll = Option(
        keep=keep.dice,
        points=keep.points,
        action="roll",
        turn_total=total,
        dice_to_throw=throw_n,
        value=roll_value,
        value_kind=kind,
        next_farkle_probability=pol.next_loss(throw_n),
        allowed=True,
        why_not=None,
        reason=f"Keep {desc} and {throw_words}: {roll_text}, {bank_text}",
    )
    bank = Option(
        keep=keep.dice,
        points=keep.points,
        action="bank",
        turn_total=total,
        dice_to_throw=0,
        value=bank_value,
        value_kind=kind,
        next_farkle_probability=None,
        allowed=why is None,
        why_not=why,
        reason=bank_reason,
    )
    return [roll, bank]
