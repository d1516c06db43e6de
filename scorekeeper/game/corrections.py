"""What a correction of a past turn would change, worked out before it is saved.

:func:`preview_correction` replays the log with the correction added, exactly as saving it
would, and says either why it would be refused (the corrected turn breaks a rule, or a later
turn no longer fits) or what changes: the turn before and after, each player's score, the
later turns whose points or scores move, and the winner.

>>> from scorekeeper.game.actions import parse_action, parse_setup
>>> rules = {"preset": "standard", "overrides": {"opening_minimum": 0}}
>>> log = [parse_setup({"players": ["Ann", "Bob"], "rules": rules})]
>>> log += [parse_action(a) for a in ({"type": "quick_score", "points": 300},
...                                    {"type": "quick_score", "points": 200})]
>>> fix = correction_event(1, [{"type": "quick_score", "points": 350}])
>>> preview = preview_correction(log, fix)
>>> preview["ok"], preview["players"][0]
(True, {'name': 'Ann', 'before': 300, 'after': 350})
>>> preview_correction(log, correction_event(3, [{"type": "bank"}]))["refusal"]
'turn 3 is still in play: undo its throws and keeps, or finish it, instead of correcting it'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorekeeper.errors import GameRuleError
from scorekeeper.game.actions import Correct
from scorekeeper.game.engine import Game
from scorekeeper.game.log import replay


def correction_event(turn: Any, actions: Any) -> dict[str, Any]:
    """The checked ``correct`` event for turn ``turn`` with ``actions`` (throws, keeps, a bank
    or a quick score, as JSON objects).

    :raises ActionError: when the turn number or the actions are malformed.
    """
    return Correct.from_json({"turn": turn, "actions": actions}).to_json()


def _turn(game: Game, number: int) -> dict[str, Any] | None:
    return next((h for h in game.history if h["turn"] == number), None)


def preview_correction(
    events: Sequence[Mapping[str, Any]], event: Mapping[str, Any]
) -> dict[str, Any]:
    """What saving the correction ``event`` after ``events`` would do; nothing is stored.

    ``{"ok", "refusal", "turn", "before", "after", "players", "changed_turns", "winner_before",
    "winner_after"}``: ``refusal`` says why it would be refused (then ``ok`` is false and only
    ``before`` is filled); ``before``/``after`` are the turn's history entries; ``players``
    each player's score before and after; ``changed_turns`` the later turns that play out
    differently (a different outcome, turn total or change to the score; a score that only
    moves by the corrected turn's difference is not a change).

    :raises GameRuleError: when ``events`` itself is not a valid log.
    """
    number = int(event["turn"])
    game = replay(events)
    out: dict[str, Any] = {
        "ok": False,
        "refusal": None,
        "turn": number,
        "before": _turn(game, number),
        "after": None,
        "players": [],
        "changed_turns": [],
        "winner_before": game.winner_text(),
        "winner_after": None,
    }
    try:
        fixed = replay([*events, event])
    except GameRuleError as exc:
        out["refusal"] = str(exc)
        return out
    old = {h["turn"]: h for h in game.history}
    out.update(
        ok=True,
        after=_turn(fixed, number),
        players=[
            {"name": p.name, "before": p.score, "after": q.score}
            for p, q in zip(game.players, fixed.players, strict=True)
        ],
        changed_turns=[
            h["turn"]
            for h in fixed.history
            if h["turn"] > number and (h["turn"] not in old or _moved(old[h["turn"]], h))
        ],
        winner_after=fixed.winner_text(),
    )
    return out


def _moved(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    keys = ("player", "outcome", "points", "banked")
    return any(before.get(k) != after.get(k) for k in keys)
