"""The roll-off for the first player, as recorded with a new game: each round every player
still in throws one die; the highest throw starts, the players tied on it throw again.

>>> rolloff = parse_rolloff({"rounds": [{"Ann": 5, "Bob": 5, "Cy": 2}, {"Ann": 3, "Bob": 6}]},
...                         ["Bob", "Cy", "Ann"])
>>> rolloff["first"], rolloff_text(rolloff)
('Bob', 'roll-off for the first player: Ann 5, Bob 5, Cy 2; tie: Ann 3, Bob 6; Bob starts')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorekeeper.errors import ActionError

SHAPE = (
    'rolloff must be {"rounds": [{"Ann": 5, "Bob": 5, "Cy": 2}, {"Ann": 3, "Bob": 6}]}: each'
    " round the die each player still in threw"
)


def parse_rolloff(value: Any, names: Sequence[str]) -> dict[str, Any]:
    """A roll-off checked against the game's players in playing order: round 1 holds every
    player, each later round exactly those tied on the highest throw of the round before, the
    last round has one highest throw, and its thrower sits first. Returns ``{"rounds",
    "first"}``.

    :raises ActionError: naming what does not add up.
    """
    if not isinstance(value, Mapping) or set(value) != {"rounds"}:
        raise ActionError(SHAPE)
    rounds = value["rounds"]
    if not isinstance(rounds, list) or not rounds or len(rounds) > 100:
        raise ActionError(SHAPE)
    still = list(names)
    checked: list[dict[str, int]] = []
    for number, round_ in enumerate(rounds, 1):
        if not isinstance(round_, Mapping):
            raise ActionError(SHAPE)
        if sorted(round_) != sorted(still):
            raise ActionError(
                f"roll-off round {number} must hold the throws of {', '.join(still)}"
                f" (those still in), not of {', '.join(map(str, round_)) or 'nobody'}"
            )
        for name, die in round_.items():
            if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= 6:
                raise ActionError(f"roll-off round {number}: {name}'s die {die!r} is not 1 to 6")
        checked.append({str(k): int(v) for k, v in round_.items()})
        best = max(round_.values())
        still = [n for n in still if round_[n] == best]
        if len(still) == 1:
            if number != len(rounds):
                raise ActionError(f"the roll-off was decided in round {number}; drop the rest")
            break
    if len(still) != 1:
        raise ActionError(f"the roll-off is not decided: {' and '.join(still)} are still tied")
    if names[0] != still[0]:
        raise ActionError(
            f"{still[0]} won the roll-off, so {still[0]} sits first in the players (not {names[0]})"
        )
    return {"rounds": checked, "first": still[0]}


def rolloff_text(rolloff: Mapping[str, Any]) -> str:
    """The roll-off in words, e.g. ``roll-off for the first player: Ann 5, Bob 2; Ann starts``."""
    parts = []
    for number, round_ in enumerate(rolloff["rounds"]):
        throws = ", ".join(f"{n} {d}" for n, d in round_.items())
        parts.append(throws if number == 0 else f"tie: {throws}")
    return f"roll-off for the first player: {'; '.join(parts)}; {rolloff['first']} starts"
