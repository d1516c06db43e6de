"""A game's event log: undo, redo and corrections of past turns, folded into a replay.

The log is ``create`` and then events; an event's *version* is its place in the log (``create``
is 0), so the game's version is the number of events after ``create``. Besides the actions of
:mod:`scorekeeper.game.engine`, three events change what is in effect:

- ``undo`` takes back the latest event still in effect (an action or a correction). With
  ``undoes`` it names that event's version, and an undo naming any other (a repeated tap, a
  stale tablet) is refused with :class:`StaleUndoError`, taking nothing back.
- ``redo`` (``redoes``: the version) applies again, exactly, the event the latest undo took
  back; possible only until the next action, which clears what can be redone.
- ``correct`` replaces the throws, keeps and bank (or quick score) of a finished turn with
  others; every turn after it is replayed under the rules, and a correction that the rules
  refuse, in the turn itself or in a later turn that no longer fits, changes nothing.

:func:`replay` folds a log into a :class:`Game`; :func:`advance` adds one event to a game.

>>> from scorekeeper.game.actions import parse_setup
>>> setup = parse_setup({"players": ["Ann", "Bob"], "rules": {"preset": "standard"}})
>>> log = [setup, {"type": "throw", "dice": [1, 5, 2, 3, 4, 6]}, {"type": "keep", "dice": [1]}]
>>> replay(log).undoable
{'version': 2, 'type': 'keep', 'text': 'Ann kept 1, 100'}
>>> game = replay([*log, {"type": "undo", "undoes": 2}])
>>> game.last_event["message"], game.redoable
('Undid: Ann kept 1, 100.', {'version': 2, 'type': 'keep', 'text': 'Ann kept 1, 100'})
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scorekeeper.errors import GameRuleError, ScorekeeperError, StaleUndoError
from scorekeeper.game.actions import TURN_ACTIONS, Correct, Redo, Undo
from scorekeeper.game.engine import Game, event_action
from scorekeeper.game.view import throws_text

LOG_EVENTS = ("undo", "redo", "correct")
"""The events that change what is in effect, and so need the whole log to apply."""


@dataclass(frozen=True)
class Entry:
    """One event of the log and its version."""

    version: int
    event: Mapping[str, Any]

    @property
    def kind(self) -> str:
        """The event's type."""
        return str(self.event.get("type"))


@dataclass(frozen=True)
class Resolved:
    """The log after its undos and redos: the events in effect, in order, and those an undo
    took back that a redo may apply again (the most recently undone last)."""

    in_effect: list[Entry]
    undone: list[Entry]


def resolve(events: Sequence[Mapping[str, Any]]) -> Resolved:
    """What is in effect after the undos and redos of ``events`` (``create`` first)."""
    in_effect: list[Entry] = []
    undone: list[Entry] = []
    for version, ev in enumerate(events[1:], 1):
        kind = ev.get("type")
        if kind == "undo":
            if in_effect:
                undone.append(in_effect.pop())
        elif kind == "redo":
            if undone:
                in_effect.append(undone.pop())
        else:
            in_effect.append(Entry(version, ev))
            undone.clear()
    return Resolved(in_effect, undone)


@dataclass(frozen=True)
class Played:
    """An action the game applies, and the version of the event it came from (a correction's
    for the actions of a corrected turn)."""

    event: Mapping[str, Any]
    version: int
    corrected: bool = False


def played_actions(
    create: Mapping[str, Any], in_effect: Sequence[Entry]
) -> tuple[list[Played], dict[int, dict[str, Any]]]:
    """The actions to apply, in order, with each correction folded in; and the corrected
    turns (turn number -> the correction's version and what the turn was before).

    :raises GameRuleError: when a correction does not fit the game (see :func:`correct`).
    """
    actions: list[Played] = []
    corrections: dict[int, dict[str, Any]] = {}
    for entry in in_effect:
        if entry.kind == Correct.TYPE:
            actions = correct(create, actions, corrections, entry)
        else:
            actions.append(Played(entry.event, entry.version))
    return actions, corrections


def _game(create: Mapping[str, Any], corrections: Mapping[int, dict[str, Any]]) -> Game:
    game = Game(create)
    game.corrections = dict(corrections)
    return game


def correct(
    create: Mapping[str, Any],
    actions: list[Played],
    corrections: dict[int, dict[str, Any]],
    entry: Entry,
) -> list[Played]:
    """``actions`` with the turn that the correction ``entry`` names replaced by its actions;
    ``corrections`` gains the turn.

    The turn's throws, keeps and bank (or quick score) go; the correction's take the place of
    the first of them; other actions (a player joining meanwhile) stay. Then the whole game is
    replayed to check it.

    :raises GameRuleError: when there is no such finished turn, when the corrected turn is not
        allowed or does not end, or when a later action no longer fits; nothing is changed.
    """
    fix = event_action(entry.event)
    assert isinstance(fix, Correct)
    number = fix.turn
    game = _game(create, corrections)
    turns: list[int] = []
    for played in actions:
        turns.append(game.turn.number)
        game.apply(played.event)
    done = {int(h["turn"]): h for h in game.history}
    if number not in done:
        raise GameRuleError(_no_such_turn(game, number))
    was = done[number]
    if was["outcome"] == "left":
        raise GameRuleError(
            f"turn {number} ended when {was['player']} left the game; only a turn ended by a"
            " bank, a farkle or a quick score can be corrected"
        )
    mine = [
        i
        for i, (played, turn) in enumerate(zip(actions, turns, strict=True))
        if turn == number and played.event.get("type") in TURN_ACTIONS
    ]
    first, drop = mine[0], set(mine)
    new = [Played(a.to_json(), entry.version, True) for a in fix.actions]
    fixed = [
        *actions[:first],
        *new,
        *(a for i, a in enumerate(actions) if i > first and i not in drop),
    ]
    before = corrections.get(number)
    corrections[number] = {
        "version": entry.version,
        "was": before["was"] if before else _turn_words(was),
    }
    _check(create, fixed, corrections, number, first, len(new))
    return fixed


def _no_such_turn(game: Game, number: int) -> str:
    finished = [int(h["turn"]) for h in game.history]
    if number == game.turn.number and not game.over:
        return (
            f"turn {number} is still in play: undo its throws and keeps, or finish it, instead of"
            " correcting it"
        )
    if not finished:
        return f"there is no turn {number} to correct: no turn has finished yet"
    return (
        f"there is no finished turn {number} to correct; the finished turns are"
        f" {finished[0]} to {finished[-1]}"
    )


def _turn_words(entry: Mapping[str, Any]) -> dict[str, Any]:
    """What a turn was, to show beside its correction."""
    return {
        "throws": throws_text(entry["throws"]),
        "outcome": entry["outcome"],
        "points": entry["points"],
        "banked": entry["banked"],
    }


def _check(
    create: Mapping[str, Any],
    actions: Sequence[Played],
    corrections: Mapping[int, dict[str, Any]],
    number: int,
    first: int,
    count: int,
) -> None:
    """Replay the corrected game; a refusal says which action of which turn fails and why."""
    game = _game(create, corrections)
    last = first + count - 1
    for i, played in enumerate(actions):
        kind = played.event.get("type")
        turn, who = game.turn.number, game.players[game.current].name
        if first < i <= last and (turn != number or game.over):
            raise GameRuleError(
                f"the corrected turn {number} is over after its action {i - first} (a"
                f" {actions[i - 1].event.get('type')} that ends the turn); remove the"
                f" {last - i + 1} action(s) after it"
            )
        try:
            game.apply(played.event)
        except ScorekeeperError as exc:
            if first <= i <= last:
                raise GameRuleError(
                    f"the corrected turn {number} is not allowed: its action {i - first + 1}"
                    f" ({kind}) is refused: {exc}"
                ) from exc
            raise GameRuleError(
                f"after this correction a later action no longer fits: turn {turn}, {who}'s"
                f" {kind} would be refused ({exc}); correct that turn first or undo back to it"
            ) from exc
        if i == last and game.turn.number == number and not game.over:
            raise GameRuleError(
                f"the corrected turn {number} does not end: finish it with a bank after a keep,"
                " or a throw with no scoring dice (a farkle)"
            )


def effective_actions(events: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The actions the game applies after the undos, redos and corrections (``create``
    excluded), in order: what a review or a statistic should read.

    :raises GameRuleError: when a correction in the log does not fit (a corrupt log).
    """
    if not events:
        return []
    actions, _ = played_actions(events[0], resolve(events).in_effect)
    return [p.event for p in actions]


def replay(events: Sequence[Mapping[str, Any]]) -> Game:
    """The game that the events describe (a pure function of the events).

    :raises GameRuleError: when an action in the log is not allowed (a corrupt log).
    """
    if not events or events[0].get("type") != "create":
        raise GameRuleError("a game's events must start with its create event")
    resolved = resolve(events)
    actions, corrections = played_actions(events[0], resolved.in_effect)
    game = _game(events[0], corrections)
    for played in actions:
        game.apply(played.event)
    game.version = len(events) - 1
    game.undoable = _undoable(game, resolved)
    game.redoable = _redoable(game, resolved)
    last = events[-1] if len(events) > 1 else None
    if last is not None and last.get("type") == "undo" and game.redoable is not None:
        _announce("undo", "Undid", game, game.redoable)
    elif last is not None and last.get("type") == "redo" and game.undoable is not None:
        _announce("redo", "Redid", game, game.undoable)
    elif last is not None and last.get("type") == "correct" and game.undoable is not None:
        _announce_correction(game, int(last["turn"]))
    return game


def _undoable(game: Game, resolved: Resolved) -> dict[str, Any] | None:
    """The event the next undo would take back: its version, type and words."""
    if not resolved.in_effect:
        return None
    top = resolved.in_effect[-1]
    text = game.last_action_text
    if top.kind == Correct.TYPE:
        text = _correction_text(game, top.event.get("turn"))
    return {"version": top.version, "type": top.kind, "text": text}


def _correction_text(game: Game, number: Any) -> str:
    """``the correction of Ann's turn 3``."""
    who = next((h["player"] for h in game.history if h["turn"] == number), None)
    return f"the correction of {who}'s turn {number}" if who else f"the correction of turn {number}"


def _redoable(game: Game, resolved: Resolved) -> dict[str, Any] | None:
    """The event a redo would apply again (the game stands where it stood before it)."""
    if not resolved.undone:
        return None
    top = resolved.undone[-1]
    if top.kind == Correct.TYPE:
        text = _correction_text(game, top.event.get("turn"))
    else:
        text = game.describe(event_action(top.event))
    return {"version": top.version, "type": top.kind, "text": text}


def _announce(kind: str, verb: str, game: Game, what: Mapping[str, Any]) -> None:
    """Say, as the game's last event, which event an undo took back or a redo applied again."""
    game.last_event = {
        **(game.last_event if kind == "redo" else {}),
        "type": kind,
        "player": game.players[game.current].name,
        "points": None,
        "message": f"{verb}: {what['text']}.",
        "undone" if kind == "undo" else "redone": what["type"],
        "version": what["version"],
        "all": [kind],
    }


def _announce_correction(game: Game, number: int) -> None:
    entry = next((h for h in game.history if h["turn"] == number), None)
    if entry is None:
        return
    was = entry.get("corrected", {}).get("was", {})
    now = throws_text(entry["throws"])
    game.last_event = {
        "type": "correct",
        "player": entry["player"],
        "points": None,
        "message": (
            f"Turn {number} ({entry['player']}) corrected: {now} instead of"
            f" {was.get('throws', '?')}; the scores after it are replayed."
        ),
        "turn": number,
        "all": ["correct"],
    }


def advance(game: Game, events: Sequence[Mapping[str, Any]], event: Mapping[str, Any]) -> Game:
    """The game after one more event; ``events`` is the log so far (needed for ``undo``,
    ``redo`` and ``correct``, see :data:`LOG_EVENTS`).

    For an action the given game is changed in place and returned; for the others a new game
    is replayed from the log.

    :raises GameRuleError: when the action is not allowed, or there is nothing to undo.
    :raises StaleUndoError: when an undo or redo names another event than the one it would
        take back or apply again.
    """
    kind = event.get("type")
    if kind in LOG_EVENTS:
        resolved = resolve(events)
        action = event_action(event)
        if isinstance(action, Undo):
            _check_undo(game, resolved, action)
        elif isinstance(action, Redo):
            _check_redo(resolved, action)
        return replay([*events, event])
    game.apply(event)
    game.version += 1
    game.undoable = {"version": game.version, "type": kind, "text": game.last_action_text}
    game.redoable = None
    return game


def _check_undo(game: Game, resolved: Resolved, undo: Undo) -> None:
    if not resolved.in_effect:
        if undo.undoes is not None:
            raise StaleUndoError(
                f"nothing was undone: the action of version {undo.undoes} has already been"
                " undone, and there is nothing left to undo"
            )
        raise GameRuleError("there is nothing to undo: the game has just been created")
    top = resolved.in_effect[-1]
    if undo.undoes is not None and undo.undoes != top.version:
        later = undo.undoes < top.version
        why = "another action came after it" if later else "it has already been undone"
        nxt = game.undoable["text"] if game.undoable else "the latest action"
        raise StaleUndoError(
            f"nothing was undone: that undo was for the action of version {undo.undoes}, but"
            f" {why}; the next undo would take back {nxt} (version {top.version})"
        )


def _check_redo(resolved: Resolved, redo: Redo) -> None:
    if not resolved.undone:
        raise StaleUndoError(
            "nothing to redo: the game moved on after the undo (an action was entered), so the"
            " undone action cannot be applied again; enter it anew if it is still wanted"
        )
    top = resolved.undone[-1]
    if redo.redoes != top.version:
        raise StaleUndoError(
            f"nothing was redone: the action of version {redo.redoes} is not the one the latest"
            f" undo took back (that is version {top.version}); reload and try again"
        )
