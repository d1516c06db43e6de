"""What a game review holds: judged decisions, luck per throw and turn, and per-player sums.

Values are in one of two units: ``"points"`` (expected points of the turn, the advisor's
objective) or ``"chance"`` (the chance to beat the leader's score, in a final-round turn).
Grades and accuracy use the named thresholds below (documented in ``docs/review.md``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Unit = Literal["points", "chance"]
Grade = Literal["best", "good", "inaccuracy", "mistake", "blunder"]
DecisionKind = Literal["keep", "bank_or_throw", "take_over_or_fresh"]

# Upper bounds (exclusive) of the cost of each grade; above the last bound is a blunder.
POINTS_THRESHOLDS: tuple[tuple[Grade, float], ...] = (
    ("best", 0.5),
    ("good", 10.0),
    ("inaccuracy", 30.0),
    ("mistake", 75.0),
)
CHANCE_THRESHOLDS: tuple[tuple[Grade, float], ...] = (
    ("best", 0.0005),
    ("good", 0.01),
    ("inaccuracy", 0.03),
    ("mistake", 0.08),
)
# A decision's accuracy credit is 1 / (1 + cost / HALF): a cost of HALF earns half credit.
HALF_CREDIT_POINTS = 50.0
HALF_CREDIT_CHANCE = 0.05


def grade(cost: float, unit: Unit) -> Grade:
    """The grade of a decision that cost ``cost`` (expected points, or chance) against the best."""
    for name, bound in POINTS_THRESHOLDS if unit == "points" else CHANCE_THRESHOLDS:
        if cost < bound:
            return name
    return "blunder"


def credit(cost: float, unit: Unit) -> float:
    """A decision's accuracy credit from 0 to 1: ``1 / (1 + max(cost, 0) / HALF)``."""
    half = HALF_CREDIT_POINTS if unit == "points" else HALF_CREDIT_CHANCE
    return 1.0 / (1.0 + max(cost, 0.0) / half)


def accuracy(costs: list[tuple[float, Unit]]) -> float | None:
    """100 times the mean credit of the judged decisions, or None when none was judged."""
    if not costs:
        return None
    return 100.0 * sum(credit(c, u) for c, u in costs) / len(costs)


@dataclass(frozen=True)
class Decision:
    """One judged choice: what was taken, what was best, what the difference cost."""

    turn: int
    seat: int
    player: str
    kind: DecisionKind
    throw: list[int]
    turn_total: int
    taken: str
    best: str
    taken_value: float
    best_value: float
    cost: float
    unit: Unit
    grade: Grade
    win_cost: float | None
    win_grade: Grade | None
    words: str

    def to_json(self) -> dict[str, Any]:
        """JSON form (values rounded for reading)."""
        out = asdict(self)
        for key in ("taken_value", "best_value", "cost"):
            out[key] = _round(out[key], self.unit)
        if self.win_cost is not None:
            out["win_cost"] = round(self.win_cost, 6)
        return out


@dataclass(frozen=True)
class ThrowLuck:
    """One throw: the value before it, the value of the position it left, and the difference."""

    turn: int
    seat: int
    player: str
    dice: list[int]
    turn_total: int
    expected: float
    after: float
    unit: Unit
    outcome: str

    @property
    def luck(self) -> float:
        """How much better the throw left the turn than expected (negative: unlucky)."""
        return self.after - self.expected

    def to_json(self) -> dict[str, Any]:
        """JSON form, with ``luck``."""
        return {
            "turn": self.turn,
            "seat": self.seat,
            "player": self.player,
            "dice": self.dice,
            "turn_total": self.turn_total,
            "expected": _round(self.expected, self.unit),
            "after": _round(self.after, self.unit),
            "luck": _round(self.luck, self.unit),
            "unit": self.unit,
            "outcome": self.outcome,
        }


@dataclass
class TurnReview:
    """One turn: its expectation, result, and the luck split ``dice + choices = result -
    expected`` (``choices`` is minus what the judged choices cost, plus ``past_target``: what
    throwing on from a total that reaches the target is valued above banking it, not judged).
    """

    number: int
    seat: int
    player: str
    unit: Unit
    quick: bool
    complete: bool
    expected: float
    result: float
    dice: float = 0.0
    choices: float = 0.0
    score_after: int = 0
    expected_points: float = 0.0
    past_target: float = 0.0
    decisions: list[Decision] = field(default_factory=list)
    throws: list[ThrowLuck] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """JSON form; the rounded ``dice`` is ``difference - choices`` so the three add up."""
        diff = _round(self.result - self.expected, self.unit)
        choices = _round(self.choices, self.unit)
        return {
            "number": self.number,
            "seat": self.seat,
            "player": self.player,
            "unit": self.unit,
            "quick": self.quick,
            "complete": self.complete,
            "expected": _round(self.expected, self.unit),
            "result": _round(self.result, self.unit),
            "difference": diff,
            "dice": None if self.quick else _round(diff - choices, self.unit),
            "choices": None if self.quick else choices,
            "past_target": _round(self.past_target, self.unit),
            "score_after": self.score_after,
            "decisions": [d.to_json() for d in self.decisions],
            "throws": [t.to_json() for t in self.throws],
        }


@dataclass
class PlayerReview:
    """One player's sums over the game."""

    seat: int
    name: str
    judged: int = 0
    accuracy: float | None = None
    points_lost: float = 0.0
    dice_luck: float = 0.0
    choices: float = 0.0
    win_chance_lost: float | None = None
    turns: int = 0
    quick_turns: int = 0
    grades: dict[str, int] = field(default_factory=dict)
    biggest_mistake: Decision | None = None
    luckiest: ThrowLuck | None = None
    unluckiest: ThrowLuck | None = None
    chart: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """JSON form; ``luck`` is the dice luck in expected points (points turns only)."""
        return {
            "seat": self.seat,
            "name": self.name,
            "judged_decisions": self.judged,
            "accuracy": None if self.accuracy is None else round(self.accuracy, 1),
            "points_lost": round(self.points_lost, 1),
            "luck": round(self.dice_luck, 1),
            "choices": round(self.choices, 1),
            "win_chance_lost": (
                None if self.win_chance_lost is None else round(self.win_chance_lost, 6)
            ),
            "turns": self.turns,
            "quick_turns": self.quick_turns,
            "grades": dict(self.grades),
            "biggest_mistake": self.biggest_mistake.to_json() if self.biggest_mistake else None,
            "luckiest_throw": self.luckiest.to_json() if self.luckiest else None,
            "unluckiest_throw": self.unluckiest.to_json() if self.unluckiest else None,
            "chart": self.chart,
        }


@dataclass
class GameReview:
    """The review of a game (so far, when it is still in play)."""

    over: bool
    players: list[PlayerReview]
    turns: list[TurnReview]
    win_chance: str
    message: str | None = None
    luckiest: ThrowLuck | None = None
    unluckiest: ThrowLuck | None = None

    def to_json(self) -> dict[str, Any]:
        """JSON form of the whole review (documented in ``docs/review.md``)."""
        return {
            "status": "final" if self.over else "in_progress",
            "message": self.message,
            "win_chance": self.win_chance,
            "thresholds": thresholds_json(),
            "players": [p.to_json() for p in self.players],
            "luckiest_throw": self.luckiest.to_json() if self.luckiest else None,
            "unluckiest_throw": self.unluckiest.to_json() if self.unluckiest else None,
            "turns": [t.to_json() for t in self.turns],
        }


def thresholds_json() -> dict[str, Any]:
    """The grade bounds and accuracy constants, as the review JSON states them."""
    return {
        "points": dict(POINTS_THRESHOLDS),
        "chance": dict(CHANCE_THRESHOLDS),
        "half_credit_points": HALF_CREDIT_POINTS,
        "half_credit_chance": HALF_CREDIT_CHANCE,
    }


def _round(value: float, unit: Unit) -> float:
    return round(value, 1) if unit == "points" else round(value, 4)
