"""The parts of a game's state (players, their statistics, the turn) and its JSON form."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scorekeeper.rules import Rules
from scorekeeper.scoring import Dice, Keep, farkle_probability

if TYPE_CHECKING:
    from scorekeeper.game import Game


@dataclass
class Stats:
    """One player's statistics over the game so far."""

    turns: int = 0
    throws: int = 0
    farkles: int = 0
    hot_dice: int = 0
    banked_turns: int = 0
    banked_points: int = 0
    best_turn: int = 0
    penalties: int = 0

    def to_json(self) -> dict[str, Any]:
        """JSON form, with the average banked turn (null before the first bank)."""
        avg = self.banked_points / self.banked_turns if self.banked_turns else None
        return {
            "turns": self.turns,
            "throws": self.throws,
            "farkles": self.farkles,
            "hot_dice": self.hot_dice,
            "banked_turns": self.banked_turns,
            "best_turn": self.best_turn,
            "average_banked_turn": None if avg is None else round(avg, 1),
            "penalties": self.penalties,
        }


@dataclass
class Player:
    """A seat at the table: name, team, banked score and standing."""

    name: str
    team: str | None = None
    score: int = 0
    on_board: bool = False
    farkle_streak: int = 0
    active: bool = True
    stats: Stats = field(default_factory=Stats)
    start_score: int = 0  # a handicap: kept, but not on the board until the opening minimum


@dataclass
class Turn:
    """The turn in progress: its total, the dice left, the throw awaiting a keep, the keeps."""

    number: int
    player: int
    total: int = 0
    dice_left: int = 6
    throw: Dice | None = None
    source: str | None = None
    kept: list[Keep] = field(default_factory=list)
    must_roll: bool = False
    log: list[dict[str, Any]] = field(default_factory=list)

    @property
    def fresh(self) -> bool:
        """Whether nothing has been entered in this turn yet."""
        return not self.log and self.total == 0


@functools.lru_cache(maxsize=256)
def farkle_chance(dice: int, rules: Rules) -> float:
    """The chance that throwing ``dice`` dice farkles (cached per rules value)."""
    return float(farkle_probability(dice, rules))


def points_text(points: int) -> str:
    """Points written for people: ``10,350``."""
    return f"{points:,}"


def dice_word(n: int) -> str:
    """``1 die`` or ``N dice``."""
    return "1 die" if n == 1 else f"{n} dice"


def state_json(game: Game) -> dict[str, Any]:
    """The state of a game as the API sends it (documented field by field in the README)."""
    t, p = game.turn, game.players[game.current]
    keeps = game.table.keeps(t.throw.counts) if t.throw is not None else ()
    refusal = game.turn_refusal()
    opening = game.rules.opening_minimum
    teams = None
    if any(pl.team for pl in game.players):
        order: dict[str, list[int]] = {}
        for i, pl in enumerate(game.players):
            if pl.team:
                order.setdefault(pl.team, []).append(i)
        teams = [
            {
                "name": name,
                "score": sum(game.players[i].score for i in seats),
                "members": [game.players[i].name for i in seats],
            }
            for name, seats in order.items()
        ]
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
            }
            for pl in game.players
        ],
        "teams": teams,
        "current": game.current,
        "phase": "over" if game.over else ("keep" if t.throw is not None else "throw"),
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
            "can_bank": refusal is None,
            "bank_refusal": refusal,
            "opening_needed": (max(0, opening - t.total) if opening and not p.on_board else None),
            "farkle_chance": farkle_chance(t.dice_left, game.rules),
            "advice": None,
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
        "history": list(game.history),  # a copy: the game appends to its own list
        "stats": [{"name": pl.name, **pl.stats.to_json()} for pl in game.players],
        "last_event": game.last_event,
    }
