"""The game engine: the rules of play, applied one action at a time (spec §2–§5).

Actions are those of :mod:`scorekeeper.game.actions` (``throw``, ``keep``, ``bank``,
``quick_score``, ``join``, ``leave``, ``end``). :meth:`Game.apply` applies one, or raises
:class:`GameRuleError` with words a player understands, leaving the game unchanged. The event
log around it (undo, redo, corrections of past turns, replay) is :mod:`scorekeeper.game.log`.

>>> from scorekeeper.game.actions import KeepDice, Throw, parse_setup
>>> game = Game(parse_setup({"players": ["Ann", "Bob"], "rules": {"preset": "standard"}}))
>>> game.apply(Throw((1, 1, 1, 5, 2, 3)))
>>> [k["points"] for k in game.to_json()["turn"]["keeps"]][:2]
[1050, 1000]
>>> game.describe(KeepDice((1, 1, 1, 5)))
'Ann kept 1 1 1 5, 1,050'
>>> game.apply(KeepDice((1, 1, 1, 5)))
>>> game.turn.total, game.turn.dice_left
(1050, 2)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from scorekeeper.errors import ActionError, GameRuleError
from scorekeeper.game.actions import (
    ACTIONS,
    Action,
    Adjust,
    Bank,
    Correct,
    End,
    Join,
    KeepDice,
    Leave,
    PassChoice,
    QuickScore,
    Redo,
    Roll,
    Throw,
    Undo,
    action_from_json,
)
from scorekeeper.game.refusals import (
    bank_warning,
    keep_bank_refusal,
    points_refusal,
    turn_refusal,
)
from scorekeeper.game.state import PassedDice, Player, Stats, Turn
from scorekeeper.game.view import dice_word, state_json
from scorekeeper.game.view import points_text as _n
from scorekeeper.rules import Rules
from scorekeeper.scoring import (
    Dice,
    Keep,
    Outcome,
    ScoreTable,
    all_dice_word,
    is_reroll_pair,
    kept_as_triples,
    table_for,
    throw_outcome,
)

__all__ = ["Game", "Player", "Stats", "Turn", "event_action"]


class Game:
    """The derived state of one game; build it with :func:`replay`."""

    def __init__(self, create: Mapping[str, Any]) -> None:
        self.preset: str = create.get("preset", "custom")
        self.rules = Rules.from_stored(create["rules"])
        names: list[str] = list(create["players"])
        teams: list[str | None] = list(create.get("teams") or [None] * len(names))
        starts: list[int] = list(create.get("start_scores") or [0] * len(names))
        self.players = [
            Player(n, t, score=s, start_score=s)
            for n, t, s in zip(names, teams, starts, strict=True)
        ]
        self.team_draw: dict[str, Any] | None = create.get("team_draw")
        self.rolloff: dict[str, Any] | None = create.get("rolloff")
        self.current = 0
        self.turn = Turn(1, 0, dice_left=self.rules.dice)
        self.final_round = False
        self.tie_break = False
        self.pending: list[int] = []
        self.tie_set: list[int] = []
        self.out: list[int] = []  # final_round_defend: seats a final-round farkle put out
        self.leader: int | None = None
        self.to_beat: int | None = None
        self.winners: list[int] = []
        self.over = False
        self.history: list[dict[str, Any]] = []
        self.adjustments: list[dict[str, Any]] = []  # scores changed by hand, with reasons
        self.last_event: dict[str, Any] = {}
        self.version = 0  # the log's version this state is at (set by the log's replay)
        self.undoable: dict[str, Any] | None = None  # what the next undo would take back
        self.redoable: dict[str, Any] | None = None  # what a redo would apply again
        self.corrections: dict[int, dict[str, Any]] = {}  # corrected turns: number -> what it was
        self._last_action: tuple[Action, str, int] | None = None  # (action, player, turn total)
        self._said: list[str] = []
        given = [f"{p.name} on {_n(p.start_score)}" for p in self.players if p.start_score]
        starting = ""
        if given:
            starting = f" Starting points: {', '.join(given)}"
            if self.rules.opening_minimum:
                least = _n(self.rules.opening_minimum)
                starting += f" (not on the board until {least} in one turn)"
            starting += "."
        self._event(
            "created",
            f"A new game: {self._names(range(len(names)))}.{starting}"
            f" {self.players[0].name} throws first.",
            player=None,
        )

    @property
    def scoring_rules(self) -> Rules:
        """The rules the current player's throws score by (only 1s and 5s before the board
        under ``singles_until_open``)."""
        return self.rules if self._cur().on_board else self.rules.opening_scoring()

    @property
    def table(self) -> ScoreTable:
        """The score table of the current player's throws (under ``triple_addon``, with the
        faces this turn kept as triples)."""
        return table_for(self.scoring_rules, self.turn.tripled)

    # ----- applying actions -------------------------------------------------------------

    def apply(self, action: Action | Mapping[str, Any]) -> None:
        """Apply one checked action, or its event (not ``undo``, ``redo`` or ``correct``: see
        :mod:`scorekeeper.game.log`).

        :raises GameRuleError: when the rules or the game's state do not allow it; the game
            is then unchanged.
        """
        if isinstance(action, Mapping):
            action = event_action(action)
        before = (action, self._cur().name, self.turn.total)
        self._said = []
        match action:
            case Undo() | Redo() | Correct():
                raise GameRuleError(f"{action.TYPE!r} is not an action the game can apply")
            case Roll():
                raise GameRuleError(
                    "a roll is turned into the throw of the virtual dice before the game"
                    " applies it (scorekeeper.game.roller.rolled_event)"
                )
            case Adjust():
                self._adjust(action)
            case Throw():
                self._throw(action)
            case KeepDice():
                self._keep(action)
            case Bank():
                self._bank_turn()
            case QuickScore():
                self._quick_score(action)
            case PassChoice():
                self._pass_choice(action)
            case Join():
                self._join(action)
            case Leave():
                self._leave(action)
            case End():
                self._end()
        self._last_action = before

    @property
    def last_action_text(self) -> str:
        """The latest applied action in words, as :meth:`describe` said it before it."""
        if self._last_action is None:
            return ""
        return self._words(*self._last_action)

    def describe(self, action: Action) -> str:
        """The action in a few words, as applied to the game as it stands now (before it):
        ``Ann kept 1 5, 150``, ``Bob banked 450``."""
        return self._words(action, self._cur().name, self.turn.total)

    def _words(self, action: Action, who: str, total: int) -> str:
        match action:
            case Throw():
                rolled = " (virtual dice)" if action.source == "app" else ""
                return f"{who} threw {Dice(action.dice)}{rolled}"
            case Roll():
                return f"{who} rolled the virtual dice"
            case Adjust():
                name = self._name_of(action.player)
                return f"{name} {action.points:+,} ({action.reason})"
            case KeepDice():
                keep = self.table.keep(Dice(action.dice).counts)
                points = f", {_n(keep.points)}" if keep is not None else ""
                return f"{who} kept {Dice(action.dice)}{points}"
            case Bank():
                return f"{who} banked {_n(total)}"
            case QuickScore():
                if action.points == 0:
                    return f"{who}'s farkle (quick score)"
                return f"{who} scored {_n(action.points)} (quick score)"
            case PassChoice():
                # asked before the choice (the offer) or after it (the turn's log)
                passed = self.turn.offer.to_json() if self.turn.offer else None
                for entry in self.turn.log:
                    passed = entry.get("pass", passed)
                whose = f"{passed['from']}'s {_n(passed['total'])}" if passed else "the dice"
                if action.choice == "take_over":
                    return f"{who} took over {whose}"
                return f"{who} threw fresh dice instead of {whose}"
            case Join():
                return f"{action.name} joined"
            case Leave():
                return f"{self._name_of(action.player)} left"
            case End():
                return "the game ended"
            case Correct():
                return f"the correction of turn {action.turn}"
            case _:
                return action.TYPE

    def _cur(self) -> Player:
        return self.players[self.current]

    def _name_of(self, seat: str | int) -> str:
        if isinstance(seat, int) and 0 <= seat < len(self.players):
            return self.players[seat].name
        return str(seat)

    def _require_playing(self) -> None:
        if self.over:
            raise GameRuleError(
                f"the game is over ({self._result_words()}); undo to go back or start a new game"
            )

    def _throw(self, action: Throw) -> None:
        self._require_playing()
        t, p, r = self.turn, self._cur(), self.rules
        self._require_no_offer("throw")
        if t.throw is not None:
            raise GameRuleError(
                f"{p.name} must set aside a keep from the throw {t.throw} before throwing again"
                " (undo the throw if it was entered wrongly)"
            )
        dice = Dice(action.dice)
        if len(dice) != t.dice_left:
            table = f" (this table plays with {r.dice} dice)" if len(dice) > r.dice else ""
            raise GameRuleError(
                f"{p.name} has {dice_word(t.dice_left)} to throw; {len(dice)} were entered" + table
            )
        p.stats.throws += 1
        t.must_roll = False
        rethrow, t.reroll = t.reroll, False
        first = t.taken is None and not any("dice" in e for e in t.log)
        entry: dict[str, Any] = {"dice": dice.to_list(), "source": action.source}
        t.log.append(entry)
        counts = dice.counts
        outcome = throw_outcome(counts, self.scoring_rules, first_throw=first, tripled=t.tripled)
        if outcome is Outcome.SIX_ONES:
            keep = self.table.keep(counts)
            t.total += keep.points if keep else 0
            entry.update(keep=dice.to_list(), points=t.total, result=outcome.value)
            banked = t.total
            p.score += banked
            p.on_board = True
            p.farkle_streak = 0
            self._record_bank(p, banked)
            self._win([self.current], f"Six 1s! {p.name} wins the game outright.")
            self._end_turn(outcome, banked, f"{p.name} threw six 1s")
            return
        if outcome is Outcome.TOXIC_TWOS:
            lost = p.score
            p.score = 0
            entry["result"] = outcome.value
            self._event(
                outcome,
                f"Toxic twos! {p.name} threw {counts[1]} 2s and loses the whole banked score"
                f" ({_n(lost)}) and the turn.",
                points=-lost,
            )
            self._end_turn(outcome, -lost, f"four or more 2s wiped {_n(lost)}")
            return
        if outcome is Outcome.FARKLE_BONUS:
            bonus = r.six_dice_farkle_bonus
            t.total += bonus
            t.dice_left = r.dice
            t.must_roll = True
            entry.update(points=bonus, result=outcome.value)
            self._event(
                outcome,
                f"A six-dice farkle scores {_n(bonus)} for {p.name} under these rules; "
                f"throw all {all_dice_word(r.dice)} again (turn total {_n(t.total)}).",
                points=bonus,
            )
            return
        if (
            outcome is Outcome.FARKLE
            and not rethrow
            and is_reroll_pair(counts, self.scoring_rules, t.tripled)
        ):
            t.reroll = True
            entry["result"] = "pair_reroll"
            self._event(
                "pair_reroll",
                f"{p.name} threw a pair that scores nothing ({dice}); under these rules the two"
                " dice are thrown again, once.",
                points=None,
            )
            return
        if outcome is Outcome.FARKLE:
            entry["result"] = outcome.value
            note = f"{p.name} threw {dice}: no scoring dice"
            if r.singles_until_open and not p.on_board:
                note += " (only single 1s and 5s score before the board)"
            self._farkle(p, note)
            return
        t.throw = dice
        t.source = entry["source"]
        rolled = " with the virtual dice" if action.source == "app" else ""
        self._event("throw", f"{p.name} threw {dice}{rolled}.", points=None)

    def _farkle(self, p: Player, note: str) -> None:
        t = self.turn
        if self.rules.farkle_keeps_points and t.total and self.turn_refusal(farkled=True) is None:
            self._bank(t.total, Outcome.FARKLE_KEPT, f"Farkle! {note}; under these rules ")
            return
        lost = t.total
        p.farkle_streak += 1
        p.stats.farkles += 1
        penalty = self.rules.farkle_streak_penalty
        banked = 0
        msg = (
            f"Farkle! {note}; {p.name} loses the turn's {_n(lost)}." if lost else f"Farkle! {note}."
        )
        kind = "farkle"
        if penalty and p.farkle_streak >= 3:
            p.score -= penalty
            p.stats.penalties += 1
            p.farkle_streak = 0
            banked = -penalty
            kind = "farkle_penalty"
            msg += f" Third farkle in a row: {p.name} loses {_n(penalty)} banked points."
        self._event(kind, msg, points=-lost)
        self._end_turn(Outcome.FARKLE, banked, note)

    def _keep(self, action: KeepDice) -> None:
        self._require_playing()
        t, p = self.turn, self._cur()
        if t.throw is None:
            raise GameRuleError(
                f"{p.name} has no throw to keep from; enter the throw of "
                f"{dice_word(t.dice_left)} first"
            )
        kept = Dice(action.dice)
        if any(k > n for k, n in zip(kept.counts, t.throw.counts, strict=True)):
            raise GameRuleError(f"{kept} are not all in the throw {t.throw}")
        keep = self.table.keep(kept.counts)
        if keep is None:
            legal = "; ".join(str(k.dice) for k in self.table.keeps(t.throw.counts))
            raise GameRuleError(
                f"{kept} is not a legal keep of {t.throw}: every kept die must score"
                f" (the legal keeps are {legal}){self._addon_note()}"
            )
        t.total += keep.points
        t.dice_left -= len(kept)
        t.kept.append(keep)
        if self.rules.triple_addon:
            t.tripled = tuple(sorted({*t.tripled, *kept_as_triples(keep)}))
        t.log[-1].update(keep=kept.to_list(), points=keep.points)
        added = [c.dice.faces[0] for c in keep.combos if c.name == "triple_addon"]
        if added:  # triple_addon: the dice that scored on the turn's earlier triples
            t.log[-1]["added_to_triple"] = sorted(added)
        t.throw = None
        t.source = None
        if t.dice_left == 0:
            t.dice_left = self.rules.dice
            every = all_dice_word(self.rules.dice)
            p.stats.hot_dice += 1
            t.must_roll = self.rules.hot_dice == "must_roll"
            then = (
                f"must throw all {every} again before banking"
                if t.must_roll
                else f"may bank or throw all {every} again"
            )
            self._event(
                "hot_dice",
                f"Hot dice! {p.name} kept {kept} for {_n(keep.points)}{_addon_words(keep)}: turn"
                f" total {_n(t.total)}, and {then}.",
                points=keep.points,
            )
        else:
            self._event(
                "keep",
                f"{p.name} keeps {kept} for {_n(keep.points)}{_addon_words(keep)}: turn total"
                f" {_n(t.total)}, {dice_word(t.dice_left)} left.",
                points=keep.points,
            )

    def _addon_note(self) -> str:
        """Under ``triple_addon``: which faces' single dice add points this turn, in words."""
        addon = self.rules.triple_addon
        if not addon:
            return ""
        faces = self.table.tripled
        if not faces:
            return (
                f"; a single die adds {_n(addon)} (triple_addon) only once its face was kept as"
                " three of a kind earlier in the turn"
            )
        which = " or ".join(f"{f}" for f in faces)
        return f"; a single {which} adds {_n(addon)} this turn (kept as a triple earlier)"

    def turn_refusal(self, *, farkled: bool = False) -> str | None:
        """Why the current player may not bank the turn now, or None when banking is allowed;
        ``farkled``: whether a farkle may keep the turn's points (``farkle_keeps_points``)."""
        if self.over:
            return f"the game is over ({self._result_words()})"
        return turn_refusal(self.turn, self._cur(), self.rules, self._must_beat(), farkled=farkled)

    def keep_bank_refusal(self, dice: int, points: int) -> str | None:
        """Why the current player may not keep ``dice`` dice of the throw worth ``points`` and
        bank, or None when that is allowed."""
        if self.over:
            return f"the game is over ({self._result_words()})"
        return keep_bank_refusal(
            self.turn, self._cur(), self.rules, self._must_beat(), dice, points
        )

    def bank_warning(self, total: int) -> str | None:
        """A warning for a bank of ``total`` that the rules allow but the player may regret
        (it overshoots an exact target), or None."""
        return bank_warning(self._cur(), self.rules, total)

    def _must_beat(self) -> int | None:
        """The score a bank must beat in the final round, or None when there is none."""
        return self.to_beat if self.final_round and self.rules.final_round_must_beat else None

    def _bank_turn(self) -> None:
        self._require_playing()
        why = self.turn_refusal()
        if why:
            raise GameRuleError(f"{self._cur().name} cannot bank: {why}")
        banker, total, dice = self.current, self.turn.total, self.turn.dice_left
        self._bank(total, Outcome.BANK)
        if (
            self.rules.pass_dice
            and not self.over
            and self.current != banker
            and self.history[-1]["outcome"] == Outcome.BANK.value
        ):
            offer = PassedDice(total, dice, self.players[banker].name)
            self.turn.offer = offer
            nxt = self._cur().name
            self.last_event["message"] += f" {nxt} may {self.offer_words(offer)}."
            self.last_event["passed"] = offer.to_json()

    # ----- passing dice (pass_dice) -------------------------------------------------------

    def offer_words(self, offer: PassedDice) -> str:
        """The choice passed dice give the current player, in words."""
        return (
            f"take over {offer.player}'s {_n(offer.total)} and throw the"
            f" {dice_word(offer.dice)} left, or throw {all_dice_word(self.rules.dice)} fresh dice"
        )

    def _require_no_offer(self, what: str) -> None:
        offer = self.turn.offer
        if offer is not None:
            raise GameRuleError(
                f"{self._cur().name} must first choose, before any {what}: "
                + self.offer_words(offer)
            )

    def _pass_choice(self, action: PassChoice) -> None:
        self._require_playing()
        t, p = self.turn, self._cur()
        offer = t.offer
        if offer is None:
            chosen = next((e for e in t.log if "pass" in e), None)
            if not self.rules.pass_dice:
                why = "these rules do not pass dice (pass_dice is off)"
            elif chosen is not None:
                done = "take them over" if chosen["took"] else "throw fresh"
                why = f"{p.name} already chose to {done}"
            elif t.fresh:
                why = (
                    "no dice were passed to this turn (only a bank of the turn before passes them)"
                )
            else:
                why = f"{p.name}'s turn is under way"
            raise GameRuleError(f"{p.name} has no passed dice to choose about: {why}")
        t.offer = None
        t.log.append({"pass": offer.to_json(), "took": action.choice == "take_over"})
        if action.choice == "fresh":
            self._event(
                "pass_fresh",
                f"{p.name} leaves {offer.player}'s {_n(offer.total)} and throws"
                f" {all_dice_word(self.rules.dice)} fresh dice.",
                points=None,
            )
            return
        t.taken = offer
        t.total = offer.total
        t.dice_left = offer.dice
        t.must_roll = True
        self._event(
            "take_over",
            f"{p.name} takes over {offer.player}'s {_n(offer.total)} and throws the"
            f" {dice_word(offer.dice)} left; a farkle loses it all.",
            points=offer.total,
        )

    def _quick_score(self, action: QuickScore) -> None:
        self._require_playing()
        p, t = self._cur(), self.turn
        points = action.points
        self._require_no_offer("quick score")
        if not t.fresh:
            raise GameRuleError(
                f"a quick score is a whole turn's points, but {p.name}'s turn already has dice"
                " entered; finish the turn with dice or undo them"
            )
        if points == 0:
            t.log.append({"quick": 0})
            self._farkle(p, f"{p.name} scored nothing")
            return
        why = points_refusal(p, self.rules, self._must_beat(), points, "quick")
        if why:
            raise GameRuleError(f"{p.name} cannot score {_n(points)}: {why}")
        t.log.append({"quick": points})
        t.total = points
        self._bank(points, Outcome.QUICK_SCORE)

    def _record_bank(self, p: Player, points: int) -> None:
        p.stats.banked_turns += 1
        p.stats.banked_points += points
        p.stats.best_turn = max(p.stats.best_turn, points)

    def _bank(
        self,
        points: int,
        how: Literal[Outcome.BANK, Outcome.QUICK_SCORE, Outcome.FARKLE_KEPT],
        farkle: str = "",
    ) -> None:
        """Bank ``points`` for the current player (``farkle``: the words of a farkle that
        keeps its points under ``farkle_keeps_points``)."""
        p, r = self._cur(), self.rules
        p.farkle_streak = 0
        if farkle:
            p.stats.farkles += 1
        if r.exact_target and p.score + points > r.target:
            others = [i for i in self._order_after(self.current) if i != self.current]
            note = f"{p.name} overshot {_n(r.target)}"
            if r.exact_overshoot == "bust":
                note += f": bust, the turn's {_n(points)} are lost"
                self._event(Outcome.OVERSHOOT, f"{farkle}{note}.", points=0)
                self._end_turn(Outcome.OVERSHOOT, 0, note)
                return
            if others:
                low = min(others, key=lambda i: self.players[i].score)
                receiver = self.players[low]
                receiver.score += points
                receiver.on_board = True
                note += f"; the {_n(points)} go to {receiver.name}, the lowest score"
            self._event(Outcome.OVERSHOOT, f"{farkle}{note}.", points=points)
            self._end_turn(Outcome.OVERSHOOT, 0, note)
            return
        p.score += points
        p.on_board = True
        self._record_bank(p, points)
        msg = f"{p.name} banks {_n(points)} and has {_n(p.score)}."
        if farkle:
            msg = f"{farkle}{p.name} keeps the turn's {_n(points)} and has {_n(p.score)}."
        self._event(how, msg, points=points)
        win: str | None = None
        if r.exact_target:
            if p.score == r.target:
                win = f"{p.name} lands exactly on {_n(r.target)} and wins!"
        elif p.score >= r.target and not self.tie_break:
            if not r.final_round:
                win = f"{p.name} reaches {_n(p.score)} and wins!"
            elif not self.final_round:
                self.final_round = True
                self.leader = self.current
                self.to_beat = p.score
                self.pending = [i for i in self._order_after(self.current) if i != self.current]
                if self.pending:
                    then = (
                        f"Final round, defend your win! Everyone else plays to beat {_n(p.score)};"
                        " a farkle is out, and whoever takes the lead must defend it against"
                        " everyone still in, until play returns to the leader."
                        if r.final_round_defend
                        else f"Final round! Everyone else gets one more turn to beat {_n(p.score)}."
                    )
                    self._event("final_round", f"{msg} {then}", points=points)
                else:
                    win = f"{p.name} reaches {_n(p.score)} and wins!"
            elif self.to_beat is not None and p.score > self.to_beat:
                self.leader = self.current
                self.to_beat = p.score
                again = ""
                if r.final_round_defend:
                    # play goes round again until it returns to the new leader
                    self.pending = [
                        i
                        for i in self._order_after(self.current)
                        if i != self.current and i not in self.out
                    ]
                    again = f" {p.name} must defend it: everyone still in plays again."
                self._event(
                    "new_leader",
                    f"{msg} {p.name} takes the lead: the score to beat is now {_n(p.score)}."
                    + again,
                    points=points,
                )
        if win:
            self._win([self.current], win)
        self._end_turn(how, points, "")

    def _join(self, action: Join) -> None:
        self._require_playing()
        name = action.name
        if self.final_round or self.tie_break:
            raise GameRuleError(f"{name} cannot join: the final round has begun")
        if any(pl.name.casefold() == name.casefold() for pl in self.players):
            raise GameRuleError(f"a player called {name} is already in this game")
        self.players.append(Player(name, action.team))
        self._event("join", f"{name} joins the game and plays after the others.", player=name)

    def _seat(self, who: str | int) -> int:
        if isinstance(who, int):
            if not 0 <= who < len(self.players):
                raise GameRuleError(
                    f"there is no seat {who}; seats are 0 to {len(self.players) - 1}"
                )
            return who
        for i, pl in enumerate(self.players):
            if pl.name.casefold() == str(who).casefold():
                return i
        raise GameRuleError(f"no player is called {who}")

    def _leave(self, action: Leave) -> None:
        self._require_playing()
        seat = self._seat(action.player)
        p = self.players[seat]
        if not p.active:
            raise GameRuleError(f"{p.name} has already left the game")
        if sum(pl.active for pl in self.players) == 1:
            raise GameRuleError(f"{p.name} is the last player; end the game instead")
        if self.final_round and seat == self.leader:
            raise GameRuleError(f"{p.name} leads the final round; end the game instead")
        if self.tie_break and seat in self.tie_set:
            raise GameRuleError(f"{p.name} is in the tie-break; end the game instead")
        p.active = False
        self.pending = [i for i in self.pending if i != seat or i == self.current]
        self._event("leave", f"{p.name} leaves the game.", player=p.name)
        if seat == self.current:
            self.turn.log.append({"left": True})
            self._end_turn(Outcome.LEFT, 0, f"{p.name} left", count=False)

    def _adjust(self, action: Adjust) -> None:
        if self.over:
            raise GameRuleError(
                f"the game is over ({self._result_words()}): its scores are final, so an"
                " adjustment is refused; undo the last action to reopen the game first"
            )
        seat = self._seat(action.player)
        p = self.players[seat]
        if not p.active:
            raise GameRuleError(f"{p.name} has left the game; only a player in it is adjusted")
        p.score += action.points
        if seat == self.leader and self.to_beat is not None:
            self.to_beat = p.score  # the final round's score to beat follows the leader
        self.adjustments.append(
            {
                "turn": self.turn.number,
                "after_turns": len(self.history),
                "seat": seat,
                "player": p.name,
                "points": action.points,
                "reason": action.reason,
                "score": p.score,
                "scores": [pl.score for pl in self.players],
            }
        )
        self._event(
            "adjust",
            f"{p.name}'s score adjusted by {action.points:+,} ({action.reason}): now"
            f" {_n(p.score)}.",
            points=action.points,
            player=p.name,
        )

    def _end(self) -> None:
        self._require_playing()
        active = [i for i, pl in enumerate(self.players) if pl.active]
        top = max(self.players[i].score for i in active)
        self._win([i for i in active if self.players[i].score == top], "The game was ended.")
        self.turn = Turn(self.turn.number + 1, self.current, dice_left=self.rules.dice)

    # ----- turn flow --------------------------------------------------------------------

    def _order_after(self, seat: int) -> list[int]:
        """Active seats in playing order starting after ``seat`` (``seat`` last if active)."""
        n = len(self.players)
        return [(seat + k) % n for k in range(1, n + 1) if self.players[(seat + k) % n].active]

    def _end_turn(self, outcome: Outcome, banked: int, note: str, *, count: bool = True) -> None:
        t, p = self.turn, self._cur()
        if count:
            p.stats.turns += 1
        self.history.append(
            {
                "turn": t.number,
                "seat": self.current,
                "player": p.name,
                "outcome": outcome.value,
                "points": t.total,
                "banked": banked,
                "score": p.score,
                "scores": [pl.score for pl in self.players],
                "throws": t.log,
                "note": note,
            }
        )
        if t.taken is not None:
            self.history[-1]["took_over"] = t.taken.to_json()
        if t.number in self.corrections:
            self.history[-1]["corrected"] = self.corrections[t.number]
        if (
            self.final_round
            and self.rules.final_round_defend
            and self.current != self.leader
            and outcome in (Outcome.FARKLE, Outcome.TOXIC_TWOS)
        ):
            self.out.append(self.current)
            self.pending = [i for i in self.pending if i != self.current]
            self.history[-1]["out"] = True
            self.last_event["message"] += f" {p.name} is out of the final round."
            self.last_event["out"] = p.name
        if self.over:
            self.turn = Turn(t.number + 1, self.current, dice_left=self.rules.dice)
        else:
            self._next_player()

    def _next_player(self) -> None:
        if self.final_round or self.tie_break:
            if self.current in self.pending:
                self.pending.remove(self.current)
            if not self.pending:
                self._settle()
                if self.over:
                    self.turn = Turn(self.turn.number + 1, self.current, dice_left=self.rules.dice)
                    return
            self.current = self.pending[0]
        else:
            self.current = self._order_after(self.current)[0]
        self.turn = Turn(self.turn.number + 1, self.current, dice_left=self.rules.dice)

    def _settle(self) -> None:
        """End of the final round or of a tie-break round: a winner, or another tie-break."""
        pool = (
            self.tie_set
            if self.tie_break
            else [i for i, pl in enumerate(self.players) if pl.active and i not in self.out]
        )
        top = max(self.players[i].score for i in pool)
        leaders = [i for i in pool if self.players[i].score == top]
        if len(leaders) == 1 or self.rules.tie_break == "shared":
            self._win(leaders, "")
            return
        full = self.rules.tie_break == "full_round"
        self.final_round = False
        self.tie_break = True
        # full_round: everyone still playing takes one more turn, and the highest then wins
        self.tie_set = [i for i, pl in enumerate(self.players) if pl.active] if full else leaders
        self.to_beat = top
        self.leader = None
        self.pending = [i for i in self._order_after(self.current) if i in self.tie_set]
        then = "everyone plays one more round" if full else "each plays one more turn"
        self._event(
            "tie_break",
            f"{self._names(leaders)} are tied on {_n(top)}: {then}.",
            points=None,
        )

    def _win(self, seats: list[int], why: str) -> None:
        self.over = True
        self.winners = sorted(seats)
        self.final_round = self.tie_break = False
        self.pending = []
        names = self._names(self.winners)
        score = _n(self.players[self.winners[0]].score)
        verb = "share the win" if len(seats) > 1 else "wins"
        self._event("win", f"{why} {names} {verb} with {score}.".strip(), player=names)

    def _names(self, seats: Sequence[int] | range) -> str:
        names = [self.players[i].name for i in seats]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]

    def _result_words(self) -> str:
        if not self.winners:
            return "no winner"
        return f"{self._names(self.winners)} won"

    def _event(
        self, kind: str, message: str, *, points: int | None = None, player: str | None = ""
    ) -> None:
        kind = str(kind)  # an Outcome is written as its plain word
        self._said.append(kind)
        who = self._cur().name if player == "" else player
        self.last_event = {
            "type": kind,
            "player": who,
            "points": points,
            "message": message,
            "all": list(self._said),
        }

    # ----- JSON -------------------------------------------------------------------------

    def winner_text(self) -> str | None:
        """The winner's name, names joined with "and" for a shared win, or None."""
        return self._names(self.winners) if self.winners else None

    def to_json(self) -> dict[str, Any]:
        """The state as the API sends it (documented field by field in the README)."""
        return state_json(self)


def _addon_words(keep: Keep) -> str:
    """`` (6 6 on the earlier triple)`` for the dice of a keep that score ``triple_addon``."""
    dice = [c.dice.faces[0] for c in keep.combos if c.name == "triple_addon"]
    if not dice:
        return ""
    return f" ({Dice(dice)} on the earlier triple)"


def event_action(event: Mapping[str, Any]) -> Action:
    """The action of a logged event; a corrupt or unknown event is a game rule error."""
    kind = event.get("type")
    if kind not in ACTIONS:
        raise GameRuleError(f"{kind!r} is not an action the game can apply")
    try:
        return action_from_json(event)
    except ActionError as exc:
        raise GameRuleError(str(exc)) from exc
