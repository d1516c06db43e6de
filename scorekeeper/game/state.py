"""The parts of a game's state: the players, their statistics and the turn in progress."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scorekeeper.scoring import Dice, Keep


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


@dataclass(frozen=True)
class PassedDice:
    """Under ``pass_dice``: what a bank passes to the next player (the total and the dice
    left, six after hot dice), and who banked it."""

    total: int
    dice: int
    player: str

    def to_json(self) -> dict[str, Any]:
        """JSON form: ``{"total", "dice", "from"}``."""
        return {"total": self.total, "dice": self.dice, "from": self.player}


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
    reroll: bool = False  # reroll_last_pair: a non-scoring pair to throw again
    tripled: tuple[int, ...] = ()  # faces kept as three or more of a kind (triple_addon)
    log: list[dict[str, Any]] = field(default_factory=list)
    offer: PassedDice | None = None  # passed dice awaiting the player's choice
    taken: PassedDice | None = None  # the passed dice this turn took over

    @property
    def fresh(self) -> bool:
        """Whether nothing has been entered in this turn yet (declining passed dice is not
        an entry: the turn is then a fresh one)."""
        return all("pass" in e and not e.get("took") for e in self.log) and self.total == 0
