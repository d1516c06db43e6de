"""Teams drawn by dice (seed 000: "First choose teams by the roll of the dice"), and the
winning team of a finished game.

Each player throws one die; players tied with another on every throw so far throw again, so
the throws put the players in one order, highest first. The order is dealt to the teams like
cards: the first player to team 1, the second to team 2, ..., then team 1 again, so team sizes
differ by one at most. The throws are recorded in the game's ``create`` event (``team_draw``).

>>> draw = team_draw(["Ann", "Bob", "Cy", "Dee"], 2, throws=[[5], [2], [6], [3]])
>>> draw.assignment
['Team 2', 'Team 2', 'Team 1', 'Team 1']
>>> draw.order
['Cy', 'Ann', 'Dee', 'Bob']
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scorekeeper.errors import ActionError


@dataclass(frozen=True)
class TeamDraw:
    """A draw: the team names, each player's throws, the order they give, each player's team."""

    teams: list[str]
    throws: list[list[int]]
    order: list[str]
    assignment: list[str]

    def to_json(self) -> dict[str, Any]:
        """As recorded in the ``create`` event: ``{"teams", "throws", "order"}``."""
        return {"teams": self.teams, "throws": self.throws, "order": self.order}


def _roll() -> int:
    return secrets.randbelow(6) + 1


def throw_for_teams(count: int) -> list[list[int]]:
    """Fair virtual dice (``secrets``) for ``count`` players: one die each, and again for the
    players still tied with another on every throw."""
    throws = [[_roll()] for _ in range(count)]
    while True:
        tied = _tied(throws)
        if not tied:
            return throws
        for i in tied:
            throws[i].append(_roll())


def _tied(throws: Sequence[Sequence[int]]) -> list[int]:
    """The players still tied with another: equal on every throw both have made, one of
    them not having thrown again."""
    out: set[int] = set()
    for i, a in enumerate(throws):
        for j in range(i + 1, len(throws)):
            b = throws[j]
            n = min(len(a), len(b))
            if list(a[:n]) == list(b[:n]):
                out.update((i, j))
    return sorted(out)


def team_draw(
    names: Sequence[str],
    teams: Any,
    *,
    throws: Sequence[Sequence[int]] | None = None,
    team_names: Sequence[str] | None = None,
) -> TeamDraw:
    """The teams that dice give ``names``: ``teams`` teams, from the given throws (dice thrown
    at the table) or fair virtual ones.

    :raises ActionError: on a team of nobody (more teams than players, or fewer than 2), bad
        throws, or throws that leave two players tied.
    """
    n = len(names)
    if isinstance(teams, bool) or not isinstance(teams, int) or teams < 2:
        raise ActionError(f"a team draw needs the number of teams: 2 or more, got {teams!r}")
    if teams > n:
        raise ActionError(
            f"cannot draw {teams} teams from {n} players: a team would have nobody in it;"
            f" draw 2 to {n} teams"
        )
    labels = list(team_names) if team_names else [f"Team {k + 1}" for k in range(teams)]
    if len(labels) != teams or len({t.casefold() for t in labels}) != teams:
        raise ActionError(f"a team draw of {teams} teams needs {teams} different team names")
    rolled = [list(t) for t in throws] if throws is not None else throw_for_teams(n)
    if len(rolled) != n:
        raise ActionError(f"a team draw lists {len(rolled)} players' throws for {n} players")
    for name, t in zip(names, rolled, strict=True):
        if not t or not all(_die(v) for v in t):
            raise ActionError(
                f"{name}'s team-draw throws {t!r} are not accepted: one or more dice, 1 to 6"
            )
    tied = _tied(rolled)
    if tied:
        who = " and ".join(names[i] for i in tied)
        raise ActionError(f"{who} are tied in the team draw: the tied players throw again")
    order = sorted(range(n), key=lambda i: rolled[i], reverse=True)
    assignment = [""] * n
    for place, i in enumerate(order):
        assignment[i] = labels[place % teams]
    return TeamDraw(labels, rolled, [names[i] for i in order], assignment)


def _die(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 6


def team_winners(teams: Sequence[dict[str, Any]] | None) -> list[str]:
    """The team(s) with the highest total (``teams`` as in the state JSON), or none."""
    if not teams:
        return []
    top = max(t["score"] for t in teams)
    return [t["name"] for t in teams if t["score"] == top]
