"""The app's fair virtual dice: a ``roll`` action becomes the throw it rolled.

The dice come from :mod:`secrets` (the operating system's cryptographic generator), so no
seed or client can choose them. The server turns a client's ``{"type": "roll"}`` into
``{"type": "throw", "dice": [...], "source": "app"}`` for the dice not set aside, under the
same lock that stores it; the log holds the throw, so a replay gives the same game.

>>> len(roll_dice(4)), all(1 <= d <= 6 for d in roll_dice(6))
(4, True)
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any, Protocol

from scorekeeper.errors import ActionError
from scorekeeper.game.actions import Roll, Throw
from scorekeeper.scoring import MAX_DICE


class _Turn(Protocol):
    dice_left: int


class _Game(Protocol):
    @property
    def turn(self) -> _Turn:
        """The turn in play."""


def roll_dice(n: int) -> tuple[int, ...]:
    """``n`` fair dice, each 1 to 6 with chance 1/6, from the system's secure generator.

    :raises ActionError: when ``n`` is not 1 to 6.
    """
    if not 1 <= n <= MAX_DICE:
        raise ActionError(f"the virtual dice roll 1 to {MAX_DICE} dice, not {n}")
    return tuple(secrets.randbelow(6) + 1 for _ in range(n))


def rolled_event(game: _Game, event: Mapping[str, Any]) -> Mapping[str, Any]:
    """The event to store for ``event``: for a ``roll``, the throw of the current player's
    dice not set aside, rolled now; any other event unchanged. Whether the throw is allowed
    is the engine's to say when the throw is applied."""
    if event.get("type") != Roll.TYPE:
        return event
    return Throw(roll_dice(game.turn.dice_left), "app").to_json()
