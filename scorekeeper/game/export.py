"""Exporting a game, running or finished: its turn log as CSV, or everything as JSON.

>>> from scorekeeper.game.actions import parse_setup
>>> from scorekeeper.game.log import replay
>>> rules = {"overrides": {"opening_minimum": 0}}
>>> setup = parse_setup({"players": ["Ann", "=Bob"], "rules": rules})
>>> game = replay([setup, {"type": "quick_score", "points": 350}])
>>> print(game_csv(game).splitlines()[1])
1,Ann,quick_score,350,350,350,quick score 350,,,quick score 350,350,0
>>> game_csv(game).splitlines()[0].endswith("'=Bob")
True
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

from scorekeeper.game.engine import Game
from scorekeeper.game.rolloff import rolloff_text
from scorekeeper.game.standings import standings
from scorekeeper.game.view import throws_text, turn_result

CSV_COLUMNS = (
    "turn",
    "player",
    "outcome",
    "points",
    "banked",
    "score",
    "throws",
    "note",
    "corrected",
    "result",
)


def _cell(value: Any) -> Any:
    """Text that a spreadsheet will not run as a formula."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def corrected_text(turn: dict[str, Any]) -> str:
    """For a corrected turn, what it was before (``was 1 2 3 4 5 6 kept 1 5 (150), bank 150``);
    empty for a turn as first entered."""
    fix = turn.get("corrected")
    if not fix:
        return ""
    was = fix["was"]
    return f"was {was['throws']}, {str(was['outcome']).replace('_', ' ')} {was['banked']}"


def _team_seats(game: Game) -> dict[str, list[int]]:
    """Each team's seats, teams in the order their first member sits."""
    teams: dict[str, list[int]] = {}
    for i, p in enumerate(game.players):
        if p.team:
            teams.setdefault(p.team, []).append(i)
    return teams


def game_csv(game: Game) -> str:
    """The turn log as CSV: one row per turn (``corrected`` says what a corrected turn was),
    then every player's score after that turn and, in a team game, every team's total
    (columns ``team NAME``). ``result`` is the turn's result in the words the pages use
    (``farkle, 150 lost``); a finished game ends with a ``standing`` row per player, its
    place (``1st``, ``2nd``; tied players share one) in ``result``. A score adjusted by hand
    is a row of its own, outcome ``adjustment``, its reason in ``note``, where it was entered
    (a throw of the app's virtual dice reads ``(virtual dice)`` in ``throws``).

    When a player starts on points (a handicap) a first row, turn 0 with outcome ``start``,
    gives everyone's starting score.
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    teams = _team_seats(game)
    writer.writerow(
        [
            *CSV_COLUMNS,
            *(_cell(p.name) for p in game.players),
            *(_cell(f"team {name}") for name in teams),
        ]
    )

    def totals(scores: Sequence[int]) -> list[int]:
        return [sum(scores[i] for i in seats) for seats in teams.values()]

    if game.team_draw:
        writer.writerow(["", "", "team_draw", "", "", "", "", _cell(draw_text(game)), "", ""])
    if game.rolloff:
        note = _cell(rolloff_text(game.rolloff))
        writer.writerow(["", _cell(game.rolloff["first"]), "rolloff", "", "", "", "", note, "", ""])
    starts = [p.start_score for p in game.players]
    if any(starts):
        given = ", ".join(f"{p.name} {p.start_score}" for p in game.players if p.start_score)
        note = _cell(f"starting points: {given}")
        writer.writerow([0, "", "start", "", "", "", "", note, "", "", *starts, *totals(starts)])

    def padded(scores: Sequence[int]) -> list[int]:
        return list(scores) + [0] * (len(game.players) - len(scores))

    def adjustments(done: int) -> None:
        for a in game.adjustments:
            if a["after_turns"] == done:
                scores = padded(a["scores"])
                writer.writerow(
                    [
                        a["turn"],
                        _cell(a["player"]),
                        "adjustment",
                        a["points"],
                        a["points"],
                        a["score"],
                        "",
                        _cell(a["reason"]),
                        "",
                        f"adjusted {a['points']:+,}",
                        *scores,
                        *totals(scores),
                    ]
                )

    adjustments(0)
    for done, h in enumerate(game.history, 1):
        scores = padded(h["scores"])
        writer.writerow(
            [
                h["turn"],
                _cell(h["player"]),
                h["outcome"],
                h["points"],
                h["banked"],
                h["score"],
                throws_text(h["throws"]),
                _cell(h["note"]),
                corrected_text(h),
                turn_result(h),
                *scores,
                *totals(scores),
            ]
        )
        adjustments(done)
    final = [p.score for p in game.players]
    if game.over:
        ranked = standings([(p.name, p.score) for p in game.players], game.winners)
        for s in ranked:
            row = ["", _cell(s["name"]), "standing", "", "", s["score"], "", "", "", s["place"]]
            writer.writerow([*row, *final, *totals(final)])
    won = game.to_json()["team_winners"] if teams else []
    if won:
        scores = [p.score for p in game.players]
        top = totals(scores)[list(teams).index(won[0])]
        names = " and ".join(won)
        note = f"team {names} {'share the win' if len(won) > 1 else 'wins'} with {top:,}"
        writer.writerow(
            ["", "", "team_win", "", "", "", "", _cell(note), "", "", *scores, *totals(scores)]
        )
    return out.getvalue()


def draw_text(game: Game) -> str:
    """The team draw in words: ``teams drawn by dice: Cy 6 -> Team 1; Ann 5 -> Team 2``."""
    draw = game.team_draw or {}
    by_name = {p.name: (i, p.team) for i, p in enumerate(game.players)}
    parts = []
    for name in draw.get("order", []):
        seat, team = by_name.get(name, (None, None))
        dice = draw["throws"][seat] if seat is not None else []
        parts.append(f"{name} {' '.join(map(str, dice))} -> {team}")
    return "teams drawn by dice: " + "; ".join(parts)


def game_export(
    game_id: str,
    version: int,
    created_at: float,
    events: Sequence[dict[str, Any]],
    game: Game,
) -> dict[str, Any]:
    """Everything about a game as one JSON-able dict: rules, the event log, the state and, once
    it is over, the ranked final standings."""
    state = game.to_json()
    return {
        "id": game_id,
        "version": version,
        "created_at": created_at,
        "preset": game.preset,
        "rules": game.rules.to_dict(),
        "events": list(events),
        "state": state,
        "standings": state["standings"],
    }
