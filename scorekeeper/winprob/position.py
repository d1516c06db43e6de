"""A game's position for the win-probability table: who throws against whom, and the chances.

``two_players(state)`` finds the two seats (or says why win chances do not apply);
``position_chances(state, table)`` reads the current turn and throw from a game's JSON state
(``Game.to_json``) and answers each player's chance to win now and every option's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scorekeeper.errors import PositionError
from scorekeeper.scoring import Dice
from scorekeeper.strategy.model import UNIT
from scorekeeper.winprob import words
from scorekeeper.winprob.table import Option, WinTable


@dataclass(frozen=True)
class Chances:
    """The player to throw's chance to win now, and every option of the pending throw."""

    player: str
    opponent: str
    p_now: float
    options: list[Option]
    approximate_for: list[str]  # players off the board on starting points, if approximate


def two_players(state: Mapping[str, Any]) -> tuple[int, int] | str:
    """The seats of the player to throw and the opponent, or why win chances do not apply."""
    if state.get("teams"):
        return words.TEAMS
    seats = [i for i, p in enumerate(state["players"]) if p.get("active", True)]
    if len(seats) != 2:
        return words.player_count(len(seats))
    cur = int(state["current"])
    if cur not in seats:
        return words.NO_THROWER
    return cur, seats[0] if seats[1] == cur else seats[1]


def final_chances(state: Mapping[str, Any]) -> dict[str, float]:
    """A finished game's chances: 1 for the winner (shared on a tie), 0 for the others."""
    winners = set(state.get("winners") or [])
    share = 1.0 / len(winners) if winners else 0.0
    return {p["name"]: share if p["name"] in winners else 0.0 for p in state["players"]}


def position_chances(state: Mapping[str, Any], table: WinTable) -> Chances:
    """Each player's chance to win now, and every option of the pending throw.

    :raises PositionError: when the table does not cover the position (a tie-break round),
        or the game has no two players (see ``two_players``).
    """
    players = state["players"]
    seats = two_players(state)
    if isinstance(seats, str):
        raise PositionError(seats)
    cur, other = seats
    me, opp = players[cur], players[other]
    for p in (me, opp):
        if p["score"] < 0 or p["score"] % UNIT:
            raise PositionError(
                f"the win chances count scores in whole 50s from 0, and {p['name']} has"
                f" {p['score']:,} (a score adjusted by hand)"
            )
    turn = state["turn"]
    total, dice = int(turn["total"]), int(turn["dice_left"])
    final = bool(state.get("final_round")) and state.get("to_beat") is not None
    opp_score = int(state["to_beat"]) if final else int(opp["score"])
    if final and (opp["score"] != opp_score or state.get("leader") != opp["name"]):
        raise PositionError("a tie-break round is not covered by the win-probability table")
    handicapped = off_board_with_points(state, table)
    off = _exact_handicap(handicapped, me, opp, final, table)
    options: list[Option] = []
    throw = turn.get("throw")
    must_roll = bool(turn.get("must_roll"))
    if throw:
        if off is not None:
            options = table.handicap_options(
                me["score"], opp_score, total, Dice(throw), off_board=off
            )
        else:
            options = table.option_values(
                me["score"], opp_score, total, Dice(throw), final_round=final
            )
        if options:
            p_now = options[0].value
        elif final:
            p_now = 0.0
        elif off is not None:  # a farkle: the opponent throws next, the scores unchanged
            swapped = "opp" if off == "me" else "me"
            p_now = 1.0 - table.handicap_p_win(opp_score, me["score"], off_board=swapped)
        else:
            p_now = 1.0 - table.p_win(opp_score, me["score"])
    elif off is not None:
        dice_now = dice if total else table.rules.dice
        p_now = table.handicap_p_win(
            me["score"], opp_score, total, dice_now, off_board=off, must_roll=must_roll
        )
    else:
        p_now = table.p_win(
            me["score"],
            opp_score,
            total,
            dice if total else table.rules.dice,
            final_round=final,
            must_roll=must_roll,
        )
        if not final:
            table.warm_turn(me["score"], opp_score)  # the throw's advice is then a lookup
    approximate = handicapped if off is None else []
    return Chances(str(me["name"]), str(opp["name"]), p_now, options, approximate)


def _exact_handicap(
    handicapped: list[str],
    me: Mapping[str, Any],
    opp: Mapping[str, Any],
    final: bool,
    table: WinTable,
) -> str | None:
    """``"me"`` or ``"opp"``: who is off the board on starting points, when the table's
    handicap positions cover the position exactly (one such player, not the final round, the
    handicaps solved; a page's request never waits for them); else None."""
    if len(handicapped) != 1 or final:
        return None
    who = me if me["name"] == handicapped[0] else opp
    if not table.handicap_ready(int(who["score"])):
        return None
    return "me" if who is me else "opp"


def off_board_with_points(state: Mapping[str, Any], table: WinTable) -> list[str]:
    """The players who started on points (a handicap) and are not on the board yet.

    The main table's only off-the-board score is 0; the handicap positions
    (``WinTable.handicap_p_win``) cover one such player outside the final round, and the
    chances are approximate otherwise (starting points counted as if on the board) until they
    meet the opening minimum. Without an opening minimum being on the board does not matter.
    """
    if not table.rules.opening_minimum:
        return []
    return [
        str(p["name"])
        for p in state["players"]
        if p.get("active", True) and not p.get("on_board") and int(p["score"]) > 0
    ]
