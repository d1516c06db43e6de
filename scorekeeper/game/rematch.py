"""A rematch: the set-up of a new game with the same table, rules and target as a played one.

>>> from scorekeeper.game.actions import parse_setup
>>> from scorekeeper.game.log import replay
>>> rules = {"overrides": {"target": 5000}}
>>> create = parse_setup({"players": ["Ann", "Bob", "Cy"], "rules": rules})
>>> body = rematch_body(create, replay([create]), "rotate")
>>> body["players"], body["rules"]["preset"], body["rules"]["overrides"]["target"]
(['Bob', 'Cy', 'Ann'], 'standard', 5000)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Protocol

from scorekeeper.errors import ActionError
from scorekeeper.game.state import Player
from scorekeeper.rules import Rules

ORDERS = ("keep", "rotate")
"""How a rematch seats the players: as before, or the second player starts."""

Order = Literal["keep", "rotate"]


class PlayedGame(Protocol):
    """What a rematch reads of the played game."""

    rules: Rules
    preset: str
    players: list[Player]


def parse_order(value: Any) -> Order:
    """The rematch's seating from a request: ``keep`` (default) or ``rotate``.

    :raises ActionError: for anything else.
    """
    if value is None or value == "keep":
        return "keep"
    if value == "rotate":
        return "rotate"
    raise ActionError(
        f"order must be 'keep' (the same first player) or 'rotate' (the next player starts),"
        f" got {value!r}"
    )


def rematch_body(create: Mapping[str, Any], game: PlayedGame, order: Order) -> dict[str, Any]:
    """The new-game body (as ``POST /api/games`` takes it) of a rematch of ``game``, whose
    ``create`` event is given: the players still at the table (latecomers in, leavers out), in
    the same order or rotated by one, their teams and starting points, the preset and every
    option (the target too)."""
    seated = [p for p in game.players if p.active] or list(game.players)
    if order == "rotate" and len(seated) > 1:
        seated = seated[1:] + seated[:1]
    starts = dict(zip(create.get("players", []), create.get("start_scores") or [], strict=False))
    body: dict[str, Any] = {
        "players": [p.name for p in seated],
        "rules": (
            {"preset": game.preset, "overrides": game.rules.to_dict()}
            if game.preset != "custom"
            else game.rules.to_dict()
        ),
    }
    if any(p.team for p in seated):
        body["teams"] = [p.team for p in seated]
    scores = [int(starts.get(p.name, 0)) for p in seated]
    if any(scores):
        body["start_scores"] = scores
    return body
