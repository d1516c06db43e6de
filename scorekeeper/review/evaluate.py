"""Review a game from its event log: replay it, and value every throw and choice exactly.

Each position of a turn has an exact optimal value ``V`` from the solved policy (expected
points; in the final round the chance to beat the leader). Along a turn the value moves:

* a throw moves it from ``V(before the throw)`` to ``V(best keep of what fell)``: that is the
  *dice* luck of the throw (its expectation over the dice is exactly 0);
* a keep moves it from ``V(best keep)`` to ``V(the keep taken)``, and a bank-or-throw choice
  from ``V(after the keep)`` to the value of what was done: each drop is what the *choice*
  cost (0 for the best choice).

The steps telescope, so for every turn ``result - expected = dice + choices`` exactly
(``choices`` is minus the costs). ``result`` is what the turn ended worth: the points banked
(0 for an overshoot of an exact target), the farkle value (0, or the streak state's relative
value with a farkle streak penalty), minus the banked score for toxic twos; for a turn still
in play, the value of where it stands.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scorekeeper.errors import ScorekeeperError
from scorekeeper.game import Game, effective_actions
from scorekeeper.game.view import dice_word
from scorekeeper.review.model import (
    Decision,
    GameReview,
    PlayerReview,
    ThrowLuck,
    TurnReview,
    Unit,
    accuracy,
    grade,
)
from scorekeeper.scoring import Dice, all_dice_word, has_farkle_bonus, is_six_ones, is_toxic
from scorekeeper.strategy import Policy, game_context
from scorekeeper.strategy.advice import not_modelled
from scorekeeper.strategy.model import UNIT
from scorekeeper.winprob import WinTable

HOT = 0  # the solver's column for a fresh hand (six dice, or five) after hot dice
QUICK_ONLY = (
    "This game was scored with quick scores only (each turn's points typed in, no dice), so"
    " there are no throws or decisions to review."
)
NOTHING_YET = "No turn has been played yet."


def resolve_undos(events: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The actions in effect after the undos, redos and corrections (``create`` excluded):
    the log as the game replays it, so a corrected turn is reviewed as corrected."""
    return effective_actions(events)


@dataclass(frozen=True)
class _KeepOption:
    dice: Dice
    points: int
    units: int
    col: int
    value: float


class _Turn:
    """The walk through one turn: the table it is valued with and where it stands."""

    def __init__(self, game: Game, policy: Policy, win: WinTable | None) -> None:
        rules = game.rules
        seat = game.current
        p = game.players[seat]
        self.rules = rules
        self.seat = seat
        self.banked = p.score
        beat = game.to_beat if game.final_round else None
        self.beat = beat
        streak = min(max(p.farkle_streak, 0), 2)
        self.ctx = game_context(rules, banked=p.score, on_board=p.on_board, beat=beat)
        self.table, self.k = policy.table(p.on_board, self.ctx, streak)
        self.unit: Unit = "chance" if beat is not None else "points"
        if beat is None:
            points_table, pk = self.table, self.k
        else:
            points_ctx = game_context(rules, banked=p.score, on_board=p.on_board)
            points_table, pk = policy.table(p.on_board, points_ctx, streak)
        # a turn that took over passed dice (pass_dice) starts from the passed total and dice
        start, dice = game.turn.total // UNIT, game.turn.dice_left
        expected = self.table.roll(start, dice, self.k)
        self.points_table, self.pk = points_table, pk
        self.review = TurnReview(
            number=game.turn.number,
            seat=seat,
            player=p.name,
            unit=self.unit,
            quick=False,
            complete=False,
            expected=expected,
            result=expected,
            expected_points=points_table.roll(start, dice, pk),
        )
        self.now = expected  # the value of the position the turn stands in
        self.options: list[_KeepOption] = []
        self.throw: Dice | None = None
        self.win = _win_position(game, win)
        self.win_options: dict[Dice, tuple[float, float | None, float]] | None = None
        self.chosen_win: tuple[float, float | None, float] | None = None
        self.after_keep: _KeepOption | None = None

    def roll_value(self, total: int, dice: int) -> float:
        """The value of throwing ``dice`` dice at a turn total of ``total`` points."""
        return self.table.roll(total // UNIT, dice, self.k)

    def on_throw(self, game: Game, dice: Dice) -> None:
        """Value the throw: the dice luck, and the keeps it offers."""
        t = game.turn
        before = self.roll_value(t.total, t.dice_left)
        counts = dice.counts
        i = t.total // UNIT
        points_kind = self.ctx.kind == "points"
        model = self.table.model
        self.options = []
        self.throw = dice
        if is_six_ones(counts, self.rules):
            after = self.ctx.six_ones_value(i, model.six_ones_units) if points_kind else 1.0
            outcome = "six_ones"
        elif is_toxic(counts, self.rules):
            after = self.ctx.toxic_value if points_kind else 0.0
            outcome = "toxic_twos"
        else:
            keeps = game.table.keeps(counts)  # singles before the board, the turn's triples
            first = t.taken is None and not any("dice" in e for e in t.log)
            if not keeps and has_farkle_bonus(len(dice), self.rules, first_throw=first):
                after = self.table.roll(i + model.bonus_units, self.rules.dice, self.k)
                outcome = "six_dice_bonus"
            elif not keeps:
                after = float(self.table.farkle_values[self.k])
                outcome = "farkle"
            else:
                for keep in keeps:
                    left = len(dice) - len(keep.dice)
                    col = HOT if left == 0 else left
                    units = i + keep.points // UNIT
                    value = self.table.state(units, col, self.k)
                    self.options.append(_KeepOption(keep.dice, keep.points, units, col, value))
                after = max(o.value for o in self.options)
                outcome = "keep"
                self._win_throw(t.total, dice)
        self.review.throws.append(
            ThrowLuck(
                self.review.number,
                self.seat,
                self.review.player,
                dice.to_list(),
                t.total,
                before,
                after,
                self.unit,
                outcome,
            )
        )
        self.review.dice += after - before
        self.now = after
        if outcome in ("six_ones", "toxic_twos", "farkle"):
            self.finish(after)

    def on_pass_choice(self, game: Game, take: bool) -> None:
        """Judge taking over passed dice (``pass_dice``) against throwing six fresh dice: the
        turn's expectation is that of the better choice, and the other one costs the gap."""
        offer = game.turn.offer
        if offer is None:
            return
        units = offer.total // UNIT
        take_value = self.table.roll(units, offer.dice, self.k)
        fresh_value = self.table.roll(0, self.rules.dice, self.k)
        best, chosen = max(take_value, fresh_value), take_value if take else fresh_value
        self.review.expected = self.review.result = best
        self.review.expected_points = max(
            self.points_table.roll(units, offer.dice, self.pk),
            self.points_table.roll(0, self.rules.dice, self.pk),
        )
        dice = dice_word(offer.dice)
        take_words = f"take over {offer.player}'s {offer.total} with {dice}"
        every = all_dice_word(self.rules.dice)
        fresh_words = f"throw {every} fresh dice"
        taken = (
            f"took over {offer.player}'s {offer.total} with {dice}"
            if take
            else f"threw {every} fresh dice"
        )
        best_words = take_words if take_value > fresh_value + 1e-9 else fresh_words
        cost = best - chosen
        self._decide(
            game,
            "take_over_or_fresh",
            taken,
            best_words if cost > 1e-9 else taken,
            chosen,
            best,
            cost,
            None,
            total=offer.total,
            dice_left=offer.dice,
        )
        self.review.choices -= cost
        self.now = chosen

    def on_keep(self, game: Game, kept: Dice) -> None:
        """Judge the keep against the best keep of the throw."""
        chosen = next((o for o in self.options if o.dice == kept), None)
        if chosen is None or self.throw is None:
            return
        best = max(self.options, key=lambda o: o.value)
        cost = self.now - chosen.value
        win_cost = None
        if self.win_options is not None and kept in self.win_options:
            self.chosen_win = self.win_options[kept]
            top = max(v for _r, _b, v in self.win_options.values())
            win_cost = top - self.chosen_win[2]
        if len(self.options) > 1:
            taken = f"kept {_dice_words(kept)} for {chosen.points}"
            best_words = f"keep {_dice_words(best.dice)} for {best.points}"
            self._decide(
                game,
                "keep",
                taken,
                best_words if best.dice != kept else taken,
                chosen.value,
                best.value,
                cost,
                win_cost,
            )
        self.review.choices -= cost
        self.now = chosen.value
        self.after_keep = chosen

    def on_continue(self, game: Game, bank: bool) -> None:
        """Judge banking or throwing on after a keep (judged only when banking is allowed)."""
        chosen = self.after_keep
        if chosen is None:
            return
        self.after_keep = None
        dice = self.rules.dice if chosen.col == HOT else chosen.col
        total = chosen.units * UNIT
        roll = self.table.roll(chosen.units, dice, self.k)
        bank_value = self.ctx.bank_value(chosen.units)
        value = bank_value if bank else roll
        cost = self.now - value
        judged = cost
        if cost < 0 and self.ctx.bank_forced(chosen.units):
            # the points objective takes a total that reaches the target as banked at once;
            # what the tables value throwing on above that bank is a gain, not a grade
            self.review.past_target -= cost
            judged = 0.0
        if game.turn_refusal() is None:
            win_cost = None
            if self.chosen_win is not None:
                r, b, v = self.chosen_win
                picked = b if bank else r
                win_cost = None if picked is None else v - picked
            bank_words = f"bank {total}"
            throw_words = f"throw {dice} {'die' if dice == 1 else 'dice'}"
            taken = ("banked " + str(total)) if bank else ("threw " + throw_words[6:])
            other = throw_words if bank else bank_words
            self._decide(
                game,
                "bank_or_throw",
                taken,
                other if judged > 0 else taken,
                value,
                value + judged,
                judged,
                win_cost,
            )
        self.chosen_win = None
        self.review.choices -= cost
        self.now = value
        if bank:
            self.finish(value)

    def finish(self, result: float) -> None:
        """The turn ended worth ``result``."""
        self.review.result = result
        self.review.complete = True

    def _decide(
        self,
        game: Game,
        kind: Any,
        taken: str,
        best: str,
        taken_value: float,
        best_value: float,
        cost: float,
        win_cost: float | None,
        *,
        total: int | None = None,
        dice_left: int | None = None,
    ) -> None:
        throw = self.throw.to_list() if self.throw is not None else []
        before = game.turn.total if total is None else total
        self.review.decisions.append(
            Decision(
                turn=self.review.number,
                seat=self.seat,
                player=self.review.player,
                kind=kind,
                throw=throw,
                turn_total=before,
                taken=taken,
                best=best,
                taken_value=taken_value,
                best_value=best_value,
                cost=cost,
                unit=self.unit,
                grade=grade(cost, self.unit),
                win_cost=win_cost,
                win_grade=None if win_cost is None else grade(win_cost, "chance"),
                words=_decision_words(
                    kind,
                    game.turn.dice_left if dice_left is None else dice_left,
                    self.review.number,
                    self.review.player,
                    throw,
                    before,
                    taken,
                    best,
                    taken_value,
                    best_value,
                    cost,
                    self.unit,
                    self.beat,
                ),
            )
        )

    def _win_throw(self, total: int, dice: Dice) -> None:
        self.win_options = None
        if self.win is None:
            return
        table, my, opp, final = self.win
        try:
            opts = table.option_values(my, opp, total, dice, final_round=final)
        except ScorekeeperError:
            return
        self.win_options = {o.keep: (o.roll, o.bank, o.value) for o in opts}


def _win_position(game: Game, win: WinTable | None) -> tuple[WinTable, int, int, bool] | None:
    """The win table and (my score, opponent's score, final round) of a two-player turn."""
    if win is None or len(game.players) != 2 or game.tie_break:
        return None
    if not all(p.active for p in game.players):
        return None
    me = game.players[game.current]
    opp = game.players[1 - game.current]
    if any(p.start_score and not p.on_board for p in game.players):
        return None  # a handicap off the board: not this table's positions
    return win, me.score, opp.score, game.final_round


def _dice_words(dice: Dice) -> str:
    return f"the {dice.faces[0]}" if len(dice) == 1 else str(dice)


def _value_words(value: float, unit: Unit, beat: int | None) -> str:
    if unit == "points":
        return f"{value:.0f} expected points"
    return f"a {value:.1%} chance to beat {beat}"


def _decision_words(
    kind: str,
    dice_left: int,
    number: int,
    player: str,
    throw: list[int],
    total: int,
    taken: str,
    best: str,
    taken_value: float,
    best_value: float,
    cost: float,
    unit: Unit,
    beat: int | None,
) -> str:
    thrown = " ".join(map(str, throw))
    if kind == "keep":
        where = f"Turn {number}: {player} threw {thrown} with {total} on the turn and {taken}"
    elif kind == "take_over_or_fresh":
        where = f"Turn {number}: {player} was passed {total} with {dice_left} dice and {taken}"
    else:
        where = (
            f"Turn {number}: {player} had {total} on the turn and {dice_left} dice to throw,"
            f" and {taken}"
        )
    if taken == best:
        return f"{where}, the best choice ({_value_words(taken_value, unit, beat)})."
    lost = f"{cost:.0f} expected points" if unit == "points" else f"{cost:.1%} chance to win"
    return (
        f"{where} ({_value_words(taken_value, unit, beat)}); best was to {best}"
        f" ({_value_words(best_value, unit, beat)}), so the choice cost {lost}."
    )


def review_events(
    events: Sequence[Mapping[str, Any]], policy: Policy, win: WinTable | None = None
) -> GameReview:
    """The review of the game the events describe, valued with ``policy`` (the game's rules).

    ``win``: the solved two-player win table, when it exists, for the win-chance costs.

    :raises GameRuleError: when the log is not a valid game.
    """
    game = Game(events[0])
    if game.rules != policy.rules:
        raise ValueError("the policy was solved for other rules than the game's")
    turns: list[TurnReview] = []
    walk: _Turn | None = None
    for ev in resolve_undos(events):
        kind = ev.get("type")
        if walk is None and kind in ("throw", "quick_score", "pass_choice"):
            walk = _Turn(game, policy, win)
            turns.append(walk.review)
        if walk is not None and kind == "quick_score":
            walk.review.quick = True
        if walk is not None and not walk.review.quick:
            if kind == "pass_choice":
                walk.on_pass_choice(game, ev.get("choice") == "take_over")
            elif kind == "throw":
                walk.on_continue(game, bank=False)
                walk.on_throw(game, Dice(ev["dice"]))
            elif kind == "keep":
                walk.on_keep(game, Dice(ev["dice"]))
            elif kind == "bank":
                walk.on_continue(game, bank=True)
        ended = len(game.history)
        game.apply(ev)
        if walk is not None and len(game.history) > ended:
            entry = game.history[-1]
            walk.review.score_after = int(entry["score"])
            if entry["outcome"] == "left":
                walk.review.result = walk.now
            elif walk.review.quick:
                walk.review.result = float(entry["banked"])
                walk.review.complete = True
            walk = None
    if walk is not None:
        walk.review.score_after = game.players[walk.seat].score
        walk.review.result = walk.now
    return _summarise(game, turns, win is not None)


def _summarise(game: Game, turns: list[TurnReview], have_win: bool) -> GameReview:
    players = [PlayerReview(i, p.name) for i, p in enumerate(game.players)]
    expected = [float(p.start_score) for p in game.players]
    for pr, p in zip(players, game.players, strict=True):
        pr.chart.append({"turn": 0, "score": p.start_score, "expected": p.start_score})
    all_throws: list[ThrowLuck] = []
    costs: dict[int, list[tuple[float, Unit]]] = {i: [] for i in range(len(players))}
    two = len(game.players) == 2
    for t in turns:
        pr = players[t.seat]
        pr.turns += 1
        expected[t.seat] += t.expected_points
        pr.chart.append(
            {"turn": t.number, "score": t.score_after, "expected": round(expected[t.seat], 1)}
        )
        if t.quick:
            pr.quick_turns += 1
            continue
        if t.unit == "points":
            pr.dice_luck += t.dice
            pr.choices += t.choices
        for d in t.decisions:
            pr.judged += 1
            costs[t.seat].append((d.cost, d.unit))
            pr.grades[d.grade] = pr.grades.get(d.grade, 0) + 1
            if d.unit == "points":
                pr.points_lost += d.cost
            if d.win_cost is not None:
                pr.win_chance_lost = (pr.win_chance_lost or 0.0) + d.win_cost
            if _worse(d, pr.biggest_mistake):
                pr.biggest_mistake = d
        for th in t.throws:
            if th.unit != "points":
                continue
            all_throws.append(th)
            if pr.luckiest is None or th.luck > pr.luckiest.luck:
                pr.luckiest = th
            if pr.unluckiest is None or th.luck < pr.unluckiest.luck:
                pr.unluckiest = th
    for pr in players:
        pr.accuracy = accuracy(costs[pr.seat])
        if pr.biggest_mistake is not None and pr.biggest_mistake.grade == "best":
            pr.biggest_mistake = None
    if have_win and two:
        win_state = "available"
    elif two:
        win_state = "not_yet_available"
    else:
        win_state = "two_players_only"
    message = None
    if not turns:
        message = NOTHING_YET
    elif all(t.quick for t in turns):
        message = QUICK_ONLY
    unmodelled = not_modelled(game.rules)
    if unmodelled:
        caveat = (
            f"Not exact: the advisor cannot value {' or '.join(unmodelled)} exactly with these"
            " rules, so these judgements are approximate."
        )
        message = caveat if message is None else f"{message} {caveat}"
    return GameReview(
        over=game.over,
        players=players,
        turns=turns,
        win_chance=win_state,
        message=message,
        luckiest=max(all_throws, key=lambda th: th.luck, default=None),
        unluckiest=min(all_throws, key=lambda th: th.luck, default=None),
    )


def _worse(d: Decision, than: Decision | None) -> bool:
    """Whether ``d`` is a bigger mistake (points before chance, then the larger cost)."""
    if than is None:
        return True
    if d.unit != than.unit:
        return d.unit == "points"
    return d.cost > than.cost
