"""The game review's values against an independent brute-force expectimax on small games.

Games to a low target (300) are played with seeded random choices; every throw's expectation,
every decision's values and every turn's luck split are checked against a plain recursive
evaluation written here from the scoring table alone (no solver code).
"""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from scorekeeper.game import Game
from scorekeeper.game.actions import parse_setup
from scorekeeper.review import accuracy, credit, grade, review_events
from scorekeeper.rules import Rules
from scorekeeper.scoring import Dice, table_for, throw_outcomes
from scorekeeper.strategy import policy_for

TARGET = 300


def _rules() -> Rules:
    setup = parse_setup(
        {
            "players": ["A", "B"],
            "rules": {
                "preset": "minimal",
                "overrides": {"target": TARGET, "final_round": False},
            },
        }
    )
    return Rules.from_dict(setup["rules"])


class Brute:
    """Optimal expected turn points by plain recursion (a bank reaching the target banks)."""

    def __init__(self, rules: Rules, banked: int) -> None:
        self.table = table_for(rules)
        self.banked = banked

    @cache  # noqa: B019 - a few small instances per test
    def hold(self, total: int, dice: int) -> float:
        """Value of holding ``dice`` dice (6 after hot dice) with ``total`` on the turn."""
        if total > 0 and self.banked + total >= TARGET:
            return float(total)
        roll = self.roll(total, dice)
        return max(float(total), roll) if total > 0 else roll

    @cache  # noqa: B019
    def roll(self, total: int, dice: int) -> float:
        """Value of throwing ``dice`` dice with ``total`` on the turn."""
        value = 0.0
        for counts, ways in throw_outcomes(dice):
            value += ways / 6.0**dice * self.after(total, counts)
        return value

    def after(self, total: int, counts: tuple[int, ...]) -> float:
        """Value of a throw's outcome: the best keep, or 0 for a farkle."""
        keeps = self.table.keeps(counts)  # type: ignore[arg-type]
        return max(
            (self.hold(total + k.points, sum(counts) - len(k.dice) or 6) for k in keeps),
            default=0.0,
        )


def _random_game(seed: int) -> list[dict[str, Any]]:
    """A finished two-player game with random throws and random legal choices."""
    rng = random.Random(seed)
    setup = parse_setup(
        {
            "players": ["A", "B"],
            "rules": {"preset": "minimal", "overrides": {"target": TARGET, "final_round": False}},
        }
    )
    events: list[dict[str, Any]] = [setup]
    game = Game(setup)
    table = game.table
    while not game.over and len(events) < 400:
        t = game.turn
        if t.throw is None:
            if t.total and game.turn_refusal() is None and rng.random() < 0.4:
                ev: dict[str, Any] = {"type": "bank"}
            else:
                ev = {"type": "throw", "dice": [rng.randint(1, 6) for _ in range(t.dice_left)]}
        else:
            keep = rng.choice(table.keeps(t.throw.counts))
            ev = {"type": "keep", "dice": keep.dice.to_list()}
        game.apply(ev)
        events.append(ev)
    assert game.over
    return events


@pytest.mark.parametrize("seed", range(6))
def test_review_matches_brute_force(seed: int, tmp_path: Path) -> None:
    rules = _rules()
    events = _random_game(seed)
    review = review_events(events, policy_for(rules, tmp_path))
    assert review.over
    judged = 0
    for turn in review.turns:
        banked = _banked_before(events, turn.number, turn.seat)
        brute = Brute(rules, banked)
        values = [(turn.expected, brute.roll(0, 6))]
        for th in turn.throws:
            values.append((th.expected, brute.roll(th.turn_total, len(th.dice))))
            values.append((th.after, brute.after(th.turn_total, Dice(th.dice).counts)))
        for d in turn.decisions:
            if d.kind == "keep":
                values.append((d.best_value, brute.after(d.turn_total, Dice(d.throw).counts)))
            elif d.taken.startswith("banked"):
                values.append((d.taken_value, float(d.turn_total)))
        for got, want in values:
            assert got == pytest.approx(want, abs=1e-9)
        for d in turn.decisions:
            judged += 1
            assert d.cost >= -1e-9
            assert d.best_value >= d.taken_value - 1e-9
            assert d.grade == grade(d.cost, "points")
        # the luck split adds up exactly
        assert turn.dice + turn.choices == pytest.approx(turn.result - turn.expected, abs=1e-9)
        assert turn.dice == pytest.approx(sum(t.luck for t in turn.throws), abs=1e-9)
        costs = sum(d.cost for d in turn.decisions)
        assert turn.choices == pytest.approx(turn.past_target - costs, abs=1e-9)
        js = turn.to_json()
        assert js["dice"] + js["choices"] == pytest.approx(js["difference"], abs=1e-9)
    assert judged > 0


def _banked_before(events: list[dict[str, Any]], number: int, seat: int) -> int:
    """The seat's banked score at the start of turn ``number`` (replayed independently)."""
    game = Game(events[0])
    for ev in events[1:]:
        if game.turn.number == number:
            break
        game.apply(ev)
    return game.players[seat].score


def test_solver_values_below_a_target_cap(tmp_path: Path) -> None:
    """Just below a target that banks at once, 150 on 5 dice is worth more than a forced bank
    of 200: the solver tries every keep, not only the biggest per dice left."""
    rules = _rules()
    events: list[dict[str, Any]] = [
        parse_setup(
            {
                "players": ["A", "B"],
                "rules": {
                    "preset": "minimal",
                    "overrides": {"target": TARGET, "final_round": False},
                },
            }
        ),
        {"type": "throw", "dice": [1, 2, 2, 3, 4, 6]},
        {"type": "keep", "dice": [1]},
        {"type": "bank"},
        {"type": "throw", "dice": [2, 2, 3, 3, 4, 6]},
        {"type": "throw", "dice": [5, 2, 2, 3, 4, 6]},
    ]
    review = review_events(events, policy_for(rules, tmp_path))
    turn = review.turns[2]
    assert turn.expected == pytest.approx(Brute(rules, 100).roll(0, 6), abs=1e-9)


def test_random_choices_cost_points_and_best_choices_cost_nothing(tmp_path: Path) -> None:
    rules = _rules()
    reviews = [review_events(_random_game(s), policy_for(rules, tmp_path)) for s in range(6)]
    decisions = [d for r in reviews for t in r.turns for d in t.decisions]
    assert any(d.grade == "best" for d in decisions)
    assert any(d.grade != "best" for d in decisions)
    for d in decisions:
        if d.grade == "best":
            assert d.cost < 0.5
        if d.taken == d.best:
            assert d.cost == pytest.approx(0.0, abs=1e-9)


def test_grades_and_accuracy_formula() -> None:
    assert [grade(c, "points") for c in (0.0, 5, 20, 50, 200)] == [
        "best",
        "good",
        "inaccuracy",
        "mistake",
        "blunder",
    ]
    assert grade(0.02, "chance") == "inaccuracy"
    assert credit(50.0, "points") == pytest.approx(0.5)
    assert credit(0.0, "points") == 1.0
    assert accuracy([(0.0, "points"), (50.0, "points")]) == pytest.approx(75.0)
    assert accuracy([]) is None


def test_worked_example_of_the_docs(tmp_path: Path) -> None:
    """docs/review.md: Ann keeps 1 5 from 1 2 3 4 5 6 and banks 150."""
    setup = parse_setup(
        {
            "players": ["Ann", "Bob"],
            "rules": {"preset": "minimal", "overrides": {"target": 1000, "final_round": False}},
        }
    )
    events = [
        setup,
        {"type": "throw", "dice": [1, 5, 2, 3, 4, 6]},
        {"type": "keep", "dice": [1, 5]},
        {"type": "bank"},
    ]
    review = review_events(events, policy_for(Rules.from_dict(setup["rules"]), tmp_path))
    turn = review.turns[0].to_json()
    assert (turn["expected"], turn["result"], turn["difference"]) == (443.7, 150.0, -293.7)
    assert (turn["dice"], turn["choices"]) == (-67.3, -226.4)
    assert [(d["cost"], d["grade"]) for d in turn["decisions"]] == [
        (81.2, "blunder"),
        (145.2, "blunder"),
    ]
    assert review.players[0].to_json()["accuracy"] == 31.9
    text = review.players[0].biggest_mistake.words  # type: ignore[union-attr]
    assert text == (
        "Turn 1: Ann had 150 on the turn and 4 dice to throw, and banked 150 (150 expected"
        " points); best was to throw 4 dice (295 expected points), so the choice cost 145"
        " expected points."
    )
