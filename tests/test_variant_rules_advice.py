"""The advisor under issue 30's turn-changing options: exact where it models them (checked
against a plain brute force), and saying so where it does not.

* ``six_dice_farkle_bonus_first_throw``: the bonus counts on the turn's first throw only;
* ``singles_until_open``: before the board only single 1s and 5s score;
* ``exact_overshoot=bust``: the points objective already counts an overshoot as nothing;
* ``bank_max_dice_left`` and ``farkle_keeps_points``: exact (brute force state by state past
  the solver's cap), with optional or must-roll hot dice and a six-dice bonus; the second not
  with toxic twos, where the advice says it is not exact.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from scorekeeper.game.actions import parse_setup
from scorekeeper.review import review_events
from scorekeeper.rules import Rules, find_rules
from scorekeeper.scoring import Dice, table_for, throw_outcomes
from scorekeeper.strategy import advise, policy_for
from scorekeeper.strategy.model import UNIT
from scorekeeper.strategy.policy import solve_policy
from scorekeeper.strategy.solver import Context, solve_turn

CAP = 2000  # units (100,000 points): far above any total at which throwing on beats banking
Scorer = Callable[[tuple[int, ...]], int | None]


def brute_turn_value(
    score: Scorer, *, least: int = 0, bonus: int = 0, first_only: bool = False, most: int = 6
) -> float:
    """The value of the turn's first throw (see ``brute_states``)."""
    every = bool(bonus) and not first_only
    _, throw, farkle6 = brute_states(score, least=least, bonus=bonus, most=most, every=every)
    first = throw[0, 6]
    if bonus and first_only:
        first += farkle6 * throw[bonus // UNIT, 6]
    return float(first)


def brute_states(
    score: Scorer,
    *,
    least: int,
    bonus: int,
    most: int,
    every: bool,
    keeps: bool = False,
    must_roll: bool = False,
) -> tuple[np.ndarray, np.ndarray, float]:
    """A turn's optimal values with no target: plain backward induction
    over every total up to ``CAP`` units, every keep of every throw scored by ``score``; a bank
    needs ``least`` points; a six-dice farkle scores ``bonus`` and forces a throw of six (on
    every six-dice throw, or on the turn's first only); a bank needs at most ``most`` dice left
    (six after hot dice count as none); ``keeps``: a farkle banks a bankable total;
    ``must_roll``: six dice after hot dice must be thrown."""
    moves = {}
    farkle6 = 0.0
    farkles = np.zeros(7)  # by dice thrown
    for n in range(1, 7):
        probs, starts, units, left = [], [], [], []
        for counts, ways in throw_outcomes(n):
            faces = tuple(f for f, k in zip(range(1, 7), counts, strict=True) for _ in range(k))
            kept: dict[tuple[int, ...], int] = {}
            for mask in range(1, 2**n):
                sub = tuple(f for i, f in enumerate(faces) if mask >> i & 1)
                points = score(sub)
                if points is not None:
                    kept[sub] = points
            if not kept:
                farkle6 += ways / 6**n if n == 6 else 0.0
                farkles[n] += ways / 6**n
                continue
            probs.append(ways / 6**n)
            starts.append(len(units))
            for sub, points in kept.items():
                units.append(points // UNIT)
                left.append(n - len(sub) or 6)
        moves[n] = (np.array(probs), np.array(starts), np.array(units), np.array(left))
    bu = bonus // UNIT
    pad = max(int(m[2].max()) for m in moves.values()) + bu
    stand = np.zeros((CAP + pad + 1, 7))
    stand[CAP:] = np.arange(CAP, CAP + pad + 1)[:, None] * float(UNIT)
    throw = np.zeros((CAP + pad + 1, 7))
    throw[CAP:] = stand[CAP:]  # so far up, a forced throw is as good as a bank (negligible)
    for t in range(CAP - 1, -1, -1):
        for n, (probs, starts, units, left) in moves.items():
            after = stand[t + units, left]
            throw[t, n] = float(probs @ np.maximum.reduceat(after, starts))
        if every:
            throw[t, 6] += farkle6 * throw[t + bu, 6]
        if keeps and t * UNIT >= least and t > 0:  # a farkle banks a bankable total
            kept = farkles.copy()
            if every:
                kept[6] = 0.0  # a six-dice farkle scores the bonus instead
            throw[t, 1:] += kept[1:] * t * float(UNIT)
        stand[t, 1:] = throw[t, 1:]
        if t * UNIT >= least and t > 0:
            for c in range(1, 7):
                if c <= most or (c == 6 and not must_roll):  # 6: six dice after hot dice
                    stand[t, c] = max(t * float(UNIT), throw[t, c])
    return stand, throw, farkle6


def table_scorer(rules: Rules) -> Scorer:
    table = table_for(rules)
    return lambda dice: table.points(Dice(dice).counts)


def singles_scorer(one: int, five: int) -> Scorer:
    """Only single 1s and 5s: written out, not taken from the rules."""

    def score(dice: tuple[int, ...]) -> int | None:
        if any(d not in (1, 5) for d in dice):
            return None
        points = sum(one if d == 1 else five for d in dice)
        return points if points > 0 else None

    return score


@pytest.mark.parametrize("first_only", [False, True])
def test_the_six_dice_bonus_values_are_the_brute_force(first_only: bool) -> None:
    house = {"opening_minimum": 0, "six_dice_farkle_bonus": 500}
    rules = find_rules("standard", {**house, "six_dice_farkle_bonus_first_throw": first_only})
    brute = brute_turn_value(table_scorer(rules), bonus=500, first_only=first_only)
    assert solve_policy(rules).points_per_turn == pytest.approx(brute, abs=1e-9)


def test_the_first_throw_bonus_is_worth_less_than_every_throws() -> None:
    every = find_rules("standard", {"six_dice_farkle_bonus": 500})
    first = every.with_overrides({"six_dice_farkle_bonus_first_throw": True})
    plain = find_rules("standard")
    values = [solve_policy(r).points_per_turn for r in (plain, first, every)]
    assert values[0] < values[1] < values[2]


@pytest.mark.parametrize("preset", ["standard", "minimal"])
def test_before_the_board_only_singles_are_valued(preset: str) -> None:
    rules = find_rules(preset, {"opening_minimum": 300, "singles_until_open": True})
    policy = solve_policy(rules)
    off = policy.off_board
    assert off.model.rules == rules.opening_scoring() and off.model.rules != rules
    assert policy.on_board.model.rules == rules
    # the off-board table's chance model, solved with no target, against the brute force
    plain = solve_turn(off.model, Context(min_units=300 // UNIT), (0.0,))
    brute = brute_turn_value(singles_scorer(100, 50), least=300)
    assert float(plain.R[0, 6, 0]) == pytest.approx(brute, abs=1e-9)


def test_advice_before_the_board_lists_only_singles() -> None:
    rules = find_rules("standard", {"singles_until_open": True})
    off = advise(rules, "1 1 1 5 2 3", on_board=False)
    assert {o.points for o in off.options} <= {50, 100, 150, 200, 250, 300, 350}
    assert max(o.points for o in off.options) == 350
    on = advise(rules, "1 1 1 5 2 3", on_board=True, banked=1000)
    assert max(o.points for o in on.options) == 1050
    assert advise(rules, "2 2 2 3 4 6", on_board=False).outcome == "farkle"


def test_a_bust_is_valued_as_nothing_like_an_overshoot() -> None:
    welfare = find_rules("standard", {"target": 1000, "exact_target": True})
    bust = welfare.with_overrides({"exact_overshoot": "bust"})
    a = advise(welfare, "1 1 1 5 2 3", turn_total=0, banked=500)
    b = advise(bust, "1 1 1 5 2 3", turn_total=0, banked=500)
    assert [(o.keep, o.action, o.value) for o in a.options] == [
        (o.keep, o.action, o.value) for o in b.options
    ]
    assert b.to_dict()["exact"] is True


@pytest.mark.parametrize(
    ("preset", "most", "house"),
    [
        ("standard", 2, {}),
        ("standard", 0, {}),
        ("minimal", 1, {}),
        ("original", 2, {"opening_minimum": 0}),  # must-roll hot dice
        ("standard", 2, {"six_dice_farkle_bonus": 500}),
    ],
    ids=str,
)
def test_banking_with_few_dice_left_is_the_brute_force(
    preset: str, most: int, house: dict[str, Any]
) -> None:
    rules = find_rules(preset, {"opening_minimum": 0, "bank_max_dice_left": most, **house})
    bonus = rules.six_dice_farkle_bonus
    must_roll = rules.hot_dice == "must_roll"
    stand, throw, _ = brute_states(
        table_scorer(rules), least=0, bonus=bonus, most=most, every=bonus > 0, must_roll=must_roll
    )
    assert solve_policy(rules).points_per_turn == pytest.approx(throw[0, 6], abs=1e-9)
    free = brute_states(
        table_scorer(rules), least=0, bonus=bonus, most=6, every=bonus > 0, must_roll=must_roll
    )[1]
    assert throw[0, 6] != pytest.approx(free[0, 6], abs=1.0)
    table = solve_turn(solve_policy(rules).on_board.model, Context(), (0.0,))
    rows = range(1, 600)
    for col in (0, 1, 2, 3, 4, 5):
        got = [table.state(i, col) for i in rows]
        want = [stand[i, col if col else 6] for i in rows]
        assert got == pytest.approx(want, rel=1e-12, abs=1e-9), col
    assert advise(rules, "1 5 2 3 4 6", banked=1000).to_dict()["exact"] is True


def test_a_longer_extension_above_the_cap_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    from scorekeeper.strategy import solver

    rules = find_rules("original", {"bank_max_dice_left": 2})
    model = solve_policy(rules).on_board.model
    first = solve_turn(model, Context(target_units=200), (0.0,))
    monkeypatch.setattr(solver, "FORCED_EXTENSION", 2 * solver.FORCED_EXTENSION)
    longer = solve_turn(model, Context(target_units=200), (0.0,))
    assert longer.top > first.top
    rows = first.top - solver.FORCED_EXTENSION // 2  # the extension the solve relies on
    assert rows > 200  # every total below the target and far above
    assert np.max(np.abs(longer.D[:rows] - first.D[:rows])) < 1e-12
    assert np.max(np.abs(longer.R[:rows] - first.R[:rows])) < 1e-12


def test_states_that_may_not_bank_are_the_brute_force_up_to_and_past_the_cap() -> None:
    rules = find_rules("standard", {"opening_minimum": 0, "bank_max_dice_left": 2})
    stand, _, _ = brute_states(table_scorer(rules), least=0, bonus=0, most=2, every=False)
    table = solve_turn(solve_policy(rules).on_board.model, Context(), (0.0,))
    rows = range(1, table.top + 3 * table.model.max_units)  # far past the solver's cap
    for col in (1, 2, 3, 4, 5):
        got = [table.state(i, col) for i in rows]
        assert got == pytest.approx([stand[i, col] for i in rows], abs=1e-9), col


@pytest.mark.parametrize(
    ("preset", "least", "house"),
    [
        ("standard", 0, {}),
        ("standard", 500, {}),
        ("minimal", 300, {}),
        ("original", 0, {}),  # hot dice must roll
        ("standard", 0, {"six_dice_farkle_bonus": 500}),
    ],
    ids=str,
)
def test_a_farkle_that_keeps_its_points_is_the_brute_force(
    preset: str, least: int, house: dict[str, Any]
) -> None:
    rules = find_rules(preset, {"opening_minimum": 0, "farkle_keeps_points": True, **house})
    rules = rules.with_overrides({"bank_minimum": least})
    bonus = rules.six_dice_farkle_bonus
    must_roll = rules.hot_dice == "must_roll"
    stand, throw, _ = brute_states(
        table_scorer(rules),
        least=least,
        bonus=bonus,
        most=6,
        every=bonus > 0,
        keeps=True,
        must_roll=must_roll,
    )
    assert solve_policy(rules).points_per_turn == pytest.approx(throw[0, 6], abs=1e-9)
    table = solve_turn(solve_policy(rules).on_board.model, Context(min_units=least // UNIT), (0.0,))
    rows = range(1, table.top + 3 * table.model.max_units)  # past the cap: t + keep_gains
    for col in (0, 1, 2, 3, 4, 5):
        got = [table.state(i, col) for i in rows]
        want = [stand[i, col if col else 6] for i in rows]
        assert got == pytest.approx(want, rel=1e-12, abs=1e-9), col
    plain = brute_states(
        table_scorer(rules), least=least, bonus=bonus, most=6, every=bonus > 0, must_roll=must_roll
    )[1]
    assert throw[0, 6] > plain[0, 6] + 50  # keeping a farkle's points is worth a lot
    assert advise(rules, "1 5 2 3 4 6", banked=1000).to_dict()["exact"] is True


def test_a_forced_six_past_the_target_keeps_a_farkle_s_points() -> None:
    """Must-roll hot dice past the target: every keep banks (or is hot dice again) and a
    farkle banks too, so the forced throw is worth ``t + b`` with ``b`` the fixed point of
    ``b = sum over throws of max(plain keep points, hot keep points + b)``."""
    rules = find_rules("original", {"opening_minimum": 0, "farkle_keeps_points": True})
    table = table_for(rules)
    b = 0.0
    for _ in range(10_000):
        new = 0.0
        for counts, ways in throw_outcomes(6):
            keeps = table.keeps(counts)
            hot = [k.points + b for k in keeps if len(k.dice) == 6]
            plain = [float(k.points) for k in keeps if len(k.dice) < 6]
            new += ways / 6**6 * max(plain + hot, default=0.0)
        if abs(new - b) < 1e-13:
            break
        b = new
    solved = solve_turn(solve_policy(rules).on_board.model, Context(target_units=20), (0.0,))
    i = solved.top + 7
    assert float(solved.forced_six(i)[0]) == pytest.approx(i * UNIT + b, abs=1e-9)


def test_advice_refuses_a_bank_with_too_many_dice_left() -> None:
    rules = find_rules("standard", {"bank_max_dice_left": 2})
    advice = advise(rules, "1 5 2 3 4 6", turn_total=600, banked=1000)
    assert advice.to_dict()["exact"] is True
    bank_one = next(o for o in advice.options if o.action == "bank" and str(o.keep) == "1")
    assert not bank_one.allowed
    assert bank_one.why_not == "a bank needs 2 or fewer dice left and 5 are left"
    final = advise(rules, "1 5 5 2 3", turn_total=600, banked=9000, beat=9700)
    assert final.best is not None and final.best.allowed


@pytest.mark.parametrize(
    ("overrides", "name"),
    [
        ({"farkle_keeps_points": True, "toxic_twos": True}, "farkle_keeps_points"),
        ({"triple_addon": 100}, "triple_addon"),
    ],
)
def test_advice_says_when_it_is_not_exact(overrides: dict[str, Any], name: str) -> None:
    advice = advise(find_rules("standard", overrides), "1 5 2 3 4 6", banked=1000)
    body = advice.to_dict()
    assert body["exact"] is False and body["not_modelled"] == [name]
    assert body["message"].startswith(f"Not exact: the advisor cannot value {name} exactly")
    assert advise(find_rules("standard"), "1 5 2 3 4 6").to_dict()["exact"] is True


def _events(overrides: dict[str, Any], actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    create = parse_setup({"players": ["Ann", "Bob"], "rules": {"overrides": overrides}})
    return [create, *actions]


def test_the_review_values_singles_before_the_board(tmp_path: Path) -> None:
    overrides = {"opening_minimum": 300, "singles_until_open": True}
    events = _events(
        overrides,
        [
            {"type": "throw", "dice": [1, 1, 1, 2, 3, 4]},
            {"type": "keep", "dice": [1, 1, 1]},
            {"type": "bank"},
        ],
    )
    rules = find_rules("standard", overrides)
    review = review_events(events, policy_for(rules, tmp_path))
    throw = review.turns[0].throws[0]
    off = solve_policy(rules).off_board
    # the keep's value is that of 300 points (three singles) with three dice, not of 1,000
    assert throw.after == pytest.approx(max(300.0, off.state(300 // UNIT, 3)))
    assert review.message is None


def test_the_review_says_when_it_is_not_exact(tmp_path: Path) -> None:
    overrides = {"opening_minimum": 0, "farkle_keeps_points": True, "toxic_twos": True}
    events = _events(overrides, [{"type": "quick_score", "points": 300}])
    rules = find_rules("standard", overrides)
    review = review_events(events, policy_for(rules, tmp_path))
    assert review.message is not None
    assert "cannot value farkle_keeps_points exactly" in review.message


def test_the_review_counts_the_bonus_on_the_first_throw_only(tmp_path: Path) -> None:
    overrides = {"six_dice_farkle_bonus": 500, "six_dice_farkle_bonus_first_throw": True}
    farkle = [2, 3, 4, 6, 6, 2]
    events = _events(
        overrides,
        [{"type": "throw", "dice": farkle}, {"type": "throw", "dice": farkle}],
    )
    rules = find_rules("standard", overrides)
    review = review_events(events, policy_for(rules, tmp_path))
    outcomes = [th.outcome for th in review.turns[0].throws]
    assert outcomes == ["six_dice_bonus", "farkle"]


def test_a_policy_read_from_disk_values_singles_before_the_board_too(tmp_path: Path) -> None:
    from scorekeeper.strategy import clear_memory

    rules = find_rules("standard", {"singles_until_open": True, "bank_max_dice_left": 3})
    solved = policy_for(rules, tmp_path)
    clear_memory()
    read = policy_for(rules, tmp_path)
    assert read is not solved
    assert read.off_board.model.rules == rules.opening_scoring()
    assert np.array_equal(read.off_board.D, solved.off_board.D)
    first = advise(rules, "1 1 1 5 2 3", on_board=False, policy=solved).to_dict()
    again = advise(rules, "1 1 1 5 2 3", on_board=False, policy=read).to_dict()
    assert first == again and first["best"]["points"] <= 350
