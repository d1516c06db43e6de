"""The JSON view of a game and the words it is told in (points, dice counts).

The view reads a game through :class:`GameView`, what the engine's ``Game`` offers, so this
module does not import the engine.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Protocol

from scorekeeper.game.standings import standings
from scorekeeper.game.state import Player, Turn
from scorekeeper.game.teams import team_winners
from scorekeeper.rules import Rules
from scorekeeper.scoring import ScoreTable, farkle_probability


class GameView(Protocol):
    """What the JSON view reads of a game."""

    rules: Rules
    players: list[Player]
    current: int
    turn: Turn
    final_round: bool
    tie_break: bool
    pending: list[int]
    leader: int | None
    to_beat: int | None
    winners: list[int]
    over: bool
    out: list[int]
    team_draw: dict[str, Any] | None
    rolloff: dict[str, Any] | None
    history: list[dict[str, Any]]
    adjustments: list[dict[str, Any]]
    last_event: dict[str, Any]
    undoable: dict[str, Any] | None
    redoable: dict[str, Any] | None

    @property
    def table(self) -> ScoreTable:
        """The score table of the current player's throws."""

    @property
    def scoring_rules(self) -> Rules:
        """The rules the current player's throws score by."""

    def turn_refusal(self) -> str | None:
        """Why the current player may not bank now, or None."""

    def bank_warning(self, total: int) -> str | None:
        """A warning for banking ``total`` now that the rules allow, or None."""

    def keep_bank_refusal(self, dice: int, points: int) -> str | None:
        """Why keeping ``dice`` dice worth ``points`` and banking is refused, or None."""

    def winner_text(self) -> str | None:
        """The winner's name (names for a shared win), or None."""


@functools.lru_cache(maxsize=256)
def farkle_chance(
    dice: int, rules: Rules, tripled: tuple[int, ...] = (), rethrow: bool = False
) -> float:
    """The chance that throwing ``dice`` dice farkles (cached per rules value, the turn's
    faces kept as triples, which matter under ``triple_addon``, and whether this is a pair's
    one throw again under ``reroll_last_pair``)."""
    return float(farkle_probability(dice, rules, tripled, rethrow=rethrow))


def points_text(points: int) -> str:
    """Points written for people: ``10,350``."""
    return f"{points:,}"


def dice_word(n: int) -> str:
    """``1 die`` or ``N dice``."""
    return "1 die" if n == 1 else f"{n} dice"


def turn_result(turn: dict[str, Any]) -> str:
    """A finished turn's result in the one wording the history, the board, the CSV and the JSON
    export share: ``banked 350``, ``farkle, 150 lost``, ``farkle, 150 lost, third in a row:
    -1,000``, ``farkle, 150 kept``, ``quick score 350``, ``toxic twos, 2,300 lost``,
    ``overshot, 400 lost`` (or ``to the lowest score``), ``six 1s, 2,000 and the win``,
    ``left the game``."""
    outcome, points, banked = turn["outcome"], int(turn["points"]), int(turn["banked"])
    if outcome == "bank":
        return f"banked {points_text(banked)}"
    if outcome == "quick_score":
        return f"quick score {points_text(banked)}"
    if outcome == "farkle":
        text = f"farkle, {points_text(points)} lost" if points else "farkle"
        if banked < 0:
            text += f", third in a row: {points_text(banked)}"
        return text
    if outcome == "farkle_kept":
        return f"farkle, {points_text(banked)} kept"
    if outcome == "toxic_twos":
        return f"toxic twos, {points_text(-banked)} lost"
    if outcome == "overshoot":
        gone = "lost" if "bust" in str(turn.get("note", "")) else "to the lowest score"
        return f"overshot, {points_text(points)} {gone}"
    if outcome == "six_ones":
        return f"six 1s, {points_text(banked)} and the win"
    if outcome == "left":
        return "left the game"
    return f"{str(outcome).replace('_', ' ')} {points_text(banked)}"


def throws_text(throws: Sequence[dict[str, Any]]) -> str:
    """One turn's throws in words, e.g. ``1 1 5 2 3 4 kept 1 1 5 (250); 2 3 6 farkle``."""
    parts = []
    for t in throws:
        if "pass" in t:
            passed = t["pass"]
            whose = f"{passed['from']}'s {passed['total']} and {dice_word(passed['dice'])}"
            parts.append(f"took over {whose}" if t.get("took") else f"declined {whose}")
        elif "quick" in t:
            parts.append(f"quick score {t['quick']}")
        elif "dice" in t:
            text = " ".join(map(str, t["dice"]))
            if t.get("source") == "app":
                text += " (virtual dice)"
            if t.get("keep"):
                text += f" kept {' '.join(map(str, t['keep']))} ({t.get('points', 0)}"
                if t.get("added_to_triple"):
                    added = " ".join(map(str, t["added_to_triple"]))
                    text += f"; {added} on the earlier triple"
                text += ")"
            elif t.get("result") == "pair_reroll":
                text += " pair: thrown again"
            elif t.get("result"):
                text += " " + str(t["result"]).replace("_", " ")
            parts.append(text)
        elif t.get("left"):
            parts.append("left the game")
    return "; ".join(parts)


def _teams_json(game: GameView) -> list[dict[str, Any]] | None:
    """Each team's total and members, teams in the order their first member sits, or None."""
    if not any(pl.team for pl in game.players):
        return None
    order: dict[str, list[int]] = {}
    for i, pl in enumerate(game.players):
        if pl.team:
            order.setdefault(pl.team, []).append(i)
    return [
        {
            "name": name,
            "score": sum(game.players[i].score for i in seats),
            "members": [game.players[i].name for i in seats],
        }
        for name, seats in order.items()
    ]


def _phase(game: GameView) -> str:
    """``over``, ``pass`` (passed dice await a choice), ``keep`` or ``throw``."""
    if game.over:
        return "over"
    if game.turn.offer is not None:
        return "pass"
    return "keep" if game.turn.throw is not None else "throw"


def state_json(game: GameView) -> dict[str, Any]:
    """The state of a game as the API sends it (documented field by field in the README)."""
    t, p = game.turn, game.players[game.current]
    keeps = game.table.keeps(t.throw.counts) if t.throw is not None else ()
    refusal = game.turn_refusal()
    opening = game.rules.opening_minimum
    keep_then_bank = []
    for k in keeps:
        total = t.total + k.points
        why = game.keep_bank_refusal(len(k.dice), k.points)
        warning = None if why else game.bank_warning(total)
        keep_then_bank.append({"refusal": why, "warning": warning})
    teams = _teams_json(game)
    won = team_winners(teams) if game.over else []
    return {
        "players": [
            {
                "name": pl.name,
                "score": pl.score,
                "on_board": pl.on_board,
                "farkle_streak": pl.farkle_streak,
                "team": pl.team,
                "active": pl.active,
                "start_score": pl.start_score,
                "out": i in game.out,
            }
            for i, pl in enumerate(game.players)
        ],
        "teams": teams,
        "team_draw": game.team_draw,
        "rolloff": game.rolloff,
        "current": game.current,
        "phase": _phase(game),
        "turn": {
            "number": t.number,
            "player": game.current,
            "total": t.total,
            "dice_left": t.dice_left,
            "throw": t.throw.to_list() if t.throw is not None else None,
            "source": t.source,
            "keeps": [k.to_dict() for k in keeps],
            "kept": [k.to_dict() for k in t.kept],
            "must_roll": t.must_roll,
            "reroll": t.reroll,
            "tripled": list(t.tripled),
            "passed": t.offer.to_json() if t.offer is not None else None,
            "took_over": t.taken.to_json() if t.taken is not None else None,
            "can_bank": refusal is None,
            "bank_refusal": refusal,
            "opening_needed": (max(0, opening - t.total) if opening and not p.on_board else None),
            "farkle_chance": farkle_chance(t.dice_left, game.scoring_rules, t.tripled, t.reroll),
            "advice": None,
            "bank_warning": None if refusal else game.bank_warning(t.total),
            "keep_then_bank": keep_then_bank,
        },
        "target": game.rules.target,
        "final_round": game.final_round,
        "tie_break": game.tie_break,
        "final_turns_left": [game.players[i].name for i in game.pending],
        "leader": None if game.leader is None else game.players[game.leader].name,
        "to_beat": game.to_beat,
        "over": game.over,
        "winner": game.winner_text(),
        "winners": [game.players[i].name for i in game.winners],
        "standings": (
            standings([(pl.name, pl.score) for pl in game.players], game.winners)
            if game.over
            else None
        ),
        "team_winner": " and ".join(won) or None,
        "team_winners": won,
        "history": [{**h, "result": turn_result(h)} for h in game.history],
        "adjustments": list(game.adjustments),
        "stats": [{"name": pl.name, **pl.stats.to_json()} for pl in game.players],
        "last_event": game.last_event,
        "undoable": game.undoable,
        "redoable": game.redoable,
    }
