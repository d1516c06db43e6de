"""The scoring engine against hand-checked cases, spec §7's exact odds, and properties."""

from __future__ import annotations

import json
from fractions import Fraction
from functools import cache
from itertools import product
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorekeeper.errors import DiceError
from scorekeeper.rules import Rules, find_rules, preset_names
from scorekeeper.scoring import (
    Dice,
    Outcome,
    best_keep,
    farkle_probability,
    is_farkle,
    legal_keeps,
    score_keep,
    table_for,
    throw_outcome,
    throw_outcomes,
)

GOLDEN = json.loads((Path(__file__).parent / "data" / "scoring_golden.json").read_text())


def _rules(case: dict[str, Any]) -> Rules:
    return find_rules(case["rules"], case.get("set"))


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=lambda c: f"{c['rules']}:{c['dice']}")
def test_golden_best_keep(case: dict[str, Any]) -> None:
    best = best_keep(Dice.parse(case["dice"]), _rules(case))
    if case["points"] is None:
        assert best is None
    else:
        assert best is not None
        assert (best.dice, best.points) == (Dice.parse(case["keep"]), case["points"])


@pytest.mark.parametrize("case", GOLDEN["keep_counts"], ids=lambda c: c["dice"])
def test_golden_keep_counts(case: dict[str, Any]) -> None:
    assert len(legal_keeps(Dice.parse(case["dice"]), _rules(case))) == case["count"]


def test_golden_covers_every_preset() -> None:
    assert {c["rules"] for c in GOLDEN["cases"]} == set(preset_names())


BASIC = [Fraction(4, 6), Fraction(16, 36), Fraction(60, 216), Fraction(204, 1296)]
BASIC += [Fraction(600, 7776)]


@pytest.mark.parametrize("preset", ["minimal", "original", "no-combos", "zilch"])
def test_farkle_probability_without_three_pairs(preset: str) -> None:
    rules = find_rules(preset)
    got = [farkle_probability(n, rules) for n in range(1, 7)]
    assert got == [*BASIC, Fraction(1440, 46656)]


@pytest.mark.parametrize("preset", ["standard", "playmonster", "zilch-online"])
def test_farkle_probability_with_three_pairs(preset: str) -> None:
    rules = find_rules(preset)
    got = [farkle_probability(n, rules) for n in range(1, 7)]
    assert got == [*BASIC, Fraction(1080, 46656)]


def test_outcomes_cover_every_ordered_throw() -> None:
    for n in range(1, 7):
        assert sum(w for _, w in throw_outcomes(n)) == 6**n


def test_keep_combos_and_points() -> None:
    keep = score_keep(Dice.parse("1 1 1 5 2 3"), Dice.parse("1 1 1 5"), Rules())
    assert keep.to_dict() == {
        "keep": [1, 1, 1, 5],
        "points": 1050,
        "combos": [
            {"name": "three_of_a_kind", "dice": [1, 1, 1], "points": 1000},
            {"name": "single", "dice": [5], "points": 50},
        ],
    }


def test_score_keep_refuses_dead_dice_and_missing_dice() -> None:
    with pytest.raises(DiceError, match="not a legal keep"):
        score_keep(Dice.parse("1 2 3 4 6 6"), Dice.parse("1 2"), Rules())
    with pytest.raises(DiceError, match="the throw is"):
        score_keep(Dice.parse("1 2 3"), Dice.parse("1 1"), Rules())


@pytest.mark.parametrize(
    "text", ["", "7", "0 1", "1 2 3 4 5 6 1", "a", "1.5", "-1", "1 2 x"], ids=repr
)
def test_bad_dice_are_value_errors(text: str) -> None:
    with pytest.raises(ValueError, match="1 to 6"):
        Dice.parse(text)


@pytest.mark.parametrize(
    "text,faces", [("1 1 5", (1, 1, 5)), ("5,1,1", (1, 1, 5)), ("511", (1, 1, 5))]
)
def test_dice_parse_forms_and_round_trip(text: str, faces: tuple[int, ...]) -> None:
    dice = Dice.parse(text)
    assert dice.faces == faces
    assert Dice.parse(str(dice)) == dice
    assert hash(dice) == hash(Dice(faces))


# --- An independent oracle, written straight from spec §1 (no shared tables). ---


def _oracle_combos(rules: Rules) -> list[tuple[tuple[int, ...], int]]:
    """Every combination as (sorted dice, points), built from the spec's words."""
    out: list[tuple[tuple[int, ...], int]] = [((1,), 100), ((5,), 50)]
    for f in range(1, 7):
        triple = rules.three_ones if f == 1 else 100 * f
        out.append(((f,) * 3, triple))
        for n in (4, 5, 6):
            value = {
                "flat": {4: rules.four_kind, 5: rules.five_kind, 6: rules.six_kind}[n],
                "doubling": triple * 2 ** (n - 3),
                "linear": triple * (n - 2),
                "none": 0,
            }[rules.multiples]
            out.append(((f,) * n, value))
    out.append(((1, 2, 3, 4, 5, 6), rules.straight))
    out += [((1, 2, 3, 4, 5), rules.partial_straight), ((2, 3, 4, 5, 6), rules.partial_straight)]
    for a, b, c in product(range(1, 7), repeat=3):
        if a < b < c:
            out.append(((a, a, b, b, c, c), rules.three_pairs))
    for a, b in product(range(1, 7), repeat=2):
        if a != b:
            out.append((tuple(sorted((a,) * 4 + (b,) * 2)), rules.four_kind_pair))
        if a < b:
            out.append(((a,) * 3 + (b,) * 3, rules.two_triplets))
    return [(d, p) for d, p in out if p > 0]


def _oracle_best(dice: tuple[int, ...], rules: Rules) -> int | None:
    combos = _oracle_combos(rules)

    @cache
    def best(rest: tuple[int, ...]) -> int | None:
        if not rest:
            return 0
        found = None
        for combo, pts in combos:
            left = list(rest)
            try:
                for d in combo:
                    left.remove(d)
            except ValueError:
                continue
            sub = best(tuple(left))
            if sub is not None and (found is None or pts + sub > found):
                found = pts + sub
        return found

    return best(tuple(sorted(dice)))


throws = st.lists(st.integers(1, 6), min_size=1, max_size=6)
presets = st.sampled_from(preset_names())


@given(throws, presets)
def test_every_keep_is_a_best_split_of_scoring_dice(faces: list[int], preset: str) -> None:
    rules = find_rules(preset)
    for keep in legal_keeps(Dice(faces), rules):
        assert sorted(d for c in keep.combos for d in c.dice) == list(keep.dice.faces)
        assert sum(c.points for c in keep.combos) == keep.points
        assert _oracle_best(keep.dice.faces, rules) == keep.points


@given(throws, presets)
def test_keeps_are_exactly_the_scoring_subsets(faces: list[int], preset: str) -> None:
    rules = find_rules(preset)
    subsets = set()
    for mask in range(1, 2 ** len(faces)):
        sub = tuple(sorted(f for i, f in enumerate(faces) if mask >> i & 1))
        if _oracle_best(sub, rules) is not None:
            subsets.add(sub)
    got = [k.dice.faces for k in legal_keeps(Dice(faces), rules)]
    assert len(got) == len(set(got))
    assert set(got) == subsets
    assert is_farkle(Dice(faces), rules) == (not subsets)


@given(st.lists(st.integers(1, 6), min_size=1, max_size=5), st.sampled_from([1, 5]), presets)
def test_adding_a_scoring_die_never_lowers_the_best(
    faces: list[int], extra: int, preset: str
) -> None:
    rules = find_rules(preset)
    before = best_keep(Dice(faces), rules)
    after = best_keep(Dice([*faces, extra]), rules)
    assert after is not None
    assert after.points >= (before.points if before else 0)


def test_keeps_are_sorted_most_points_first() -> None:
    rules = Rules()
    for counts, _ in throw_outcomes(6)[:100]:
        keeps = table_for(rules).keeps(counts)
        assert [k.points for k in keeps] == sorted((k.points for k in keeps), reverse=True)


@pytest.mark.parametrize(
    ("throw", "house", "outcome"),
    [
        ("2 2 2 2 1 5", {"toxic_twos": True}, Outcome.TOXIC_TWOS),
        ("2 2 2 2 1 5", {}, Outcome.KEEP),
        ("2 2 2 3 4 6", {"toxic_twos": True}, Outcome.KEEP),
        ("1 1 1 1 1 1", {"six_ones_win": True}, Outcome.SIX_ONES),
        ("1 1 1 1 1 1", {}, Outcome.KEEP),
        ("2 3 4 6 6 3", {"six_dice_farkle_bonus": 500}, Outcome.FARKLE_BONUS),
        ("2 3 4 6 6", {"six_dice_farkle_bonus": 500}, Outcome.FARKLE),
        ("2 3 4 6 6 3", {}, Outcome.FARKLE),
    ],
)
def test_a_throw_outcome_under_the_house_rules(
    throw: str, house: dict[str, Any], outcome: Outcome
) -> None:
    assert throw_outcome(Dice.parse(throw).counts, find_rules("standard", house)) is outcome


def test_outcomes_keep_their_words_in_the_state_and_in_the_advice() -> None:
    assert [o.value for o in Outcome][:5] == [
        "keep",
        "farkle",
        "six_dice_bonus",
        "toxic_twos",
        "six_ones",
    ]
    assert [o.advice_word for o in Outcome][:5] == [
        "keep",
        "farkle",
        "farkle_bonus",
        "toxic_twos",
        "six_ones_win",
    ]
