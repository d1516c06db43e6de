"""The scoring-only rule options (issue 30): single 1 and 5 values, the triple multiplier, the
full house, four of a kind with a pair worth three pairs, and whether a full straight splits.

Each is checked over every multiset of 1 to 6 dice against an independent scorer written from
the options' wording, the advisor's turn value against a plain brute force on a small target,
and the solvers' cache keys of rule sets that leave the options alone against the keys they
had before the options existed.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations_with_replacement, product
from typing import Any

import numpy as np
import pytest

from scorekeeper.errors import RulesError
from scorekeeper.rules import PRESETS, Rules, describe_options, find_rules
from scorekeeper.scoring import Dice, best_keep, legal_keeps, table_for, throw_outcomes
from scorekeeper.strategy.policy import solve_policy

# Every value each new option is checked at, over a few base rule sets.
OPTION_VALUES: dict[str, list[Any]] = {
    "single_one": [0, 50, 100, 200],
    "single_five": [0, 50, 100],
    "triple_multiplier": [0, 50, 100, 200],
    "full_house": [0, 250, 1500],
    "four_kind_pair": [0, 750, 1500, "three_pairs"],
    "straight_split": [False, True],
}
BASES: list[tuple[str, dict[str, Any]]] = [
    ("standard", {}),
    ("standard", {"partial_straight": 1500, "three_pairs": 750}),
    ("minimal", {}),
    ("zilch", {"partial_straight": 500}),
]
CASES = [
    (preset, {**base, name: value})
    for preset, base in BASES
    for name, values in OPTION_VALUES.items()
    for value in values
]
ALL_MULTISETS = [
    dice for n in range(1, 7) for dice in combinations_with_replacement(range(1, 7), n)
]


# --- The independent scorer, written from the options' words (no shared tables). ---


def _combos(r: Rules) -> list[tuple[tuple[int, ...], int]]:
    """Every scoring combination as (sorted dice, points)."""
    triple = {f: (r.three_ones if f == 1 else f * r.triple_multiplier) for f in range(1, 7)}
    out: list[tuple[tuple[int, ...], int]] = [((1,), r.single_one), ((5,), r.single_five)]
    for f in range(1, 7):
        out.append(((f,) * 3, triple[f]))
        for n in (4, 5, 6):
            extra = {
                "flat": {4: r.four_kind, 5: r.five_kind, 6: r.six_kind}[n],
                "doubling": triple[f] * 2 ** (n - 3),
                "linear": triple[f] * (n - 2),
                "none": 0,
            }[r.multiples]
            out.append(((f,) * n, extra))
    out.append(((1, 2, 3, 4, 5, 6), r.straight))
    out += [((1, 2, 3, 4, 5), r.partial_straight), ((2, 3, 4, 5, 6), r.partial_straight)]
    pairs_of_four = r.three_pairs if r.four_kind_pair == "three_pairs" else r.four_kind_pair
    for a, b in product(range(1, 7), repeat=2):
        if a == b:
            continue
        out.append((tuple(sorted((a,) * 4 + (b,) * 2)), int(pairs_of_four)))
        if r.full_house and triple[a]:
            out.append((tuple(sorted((a,) * 3 + (b,) * 2)), triple[a] + r.full_house))
        if a < b:
            out.append(((a,) * 3 + (b,) * 3, r.two_triplets))
    for a, b, c in product(range(1, 7), repeat=3):
        if a < b < c:
            out.append(((a, a, b, b, c, c), r.three_pairs))
    return [(d, p) for d, p in out if p > 0]


def oracle(rules: Rules) -> Any:
    """The best points of keeping exactly ``dice`` (None when some die cannot score)."""
    combos = _combos(rules)

    @cache
    def best(rest: tuple[int, ...]) -> int | None:
        if not rest:
            return 0
        if rest == (1, 2, 3, 4, 5, 6) and rules.straight and not rules.straight_split:
            return rules.straight  # a full straight is the straight, never split
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

    return best


@pytest.mark.parametrize(("preset", "overrides"), CASES, ids=str)
def test_every_multiset_scores_as_the_independent_scorer(
    preset: str, overrides: dict[str, Any]
) -> None:
    rules = find_rules(preset, overrides)
    best = oracle(rules)
    table = table_for(rules)
    for dice in ALL_MULTISETS:
        counts = Dice(dice).counts
        assert table.points(counts) == best(dice), (dice, overrides)
        keeps = legal_keeps(Dice(dice), rules)
        for k in keeps:  # each keep's split adds up to its points with exactly its dice
            assert sorted(d for c in k.combos for d in c.dice) == list(k.dice.faces)
            assert sum(c.points for c in k.combos) == k.points


# --- Hand-checked cases of each option. ---


@pytest.mark.parametrize(
    ("overrides", "throw", "keep", "points"),
    [
        ({"single_one": 200}, "1 2 3 4 6 6", "1", 200),
        ({"single_five": 100}, "5 5 2 3 4 6", "5 5", 200),
        ({"single_five": 0}, "5 2 3 4 6 6", None, None),
        ({"single_one": 0, "single_five": 0}, "1 1 1 5 2 3", "1 1 1", 1000),
        ({"triple_multiplier": 50}, "4 4 4 2 3 6", "4 4 4", 200),
        ({"triple_multiplier": 200}, "6 6 6 2 3 4", "6 6 6", 1200),
        ({"full_house": 250}, "3 3 3 4 4 2", "3 3 3 4 4", 550),
        ({"full_house": 250}, "1 1 1 5 5 2", "1 1 1 5 5", 1250),  # above 1 1 1 + 5 + 5
        ({"full_house": 0}, "3 3 3 4 4 2", "3 3 3", 300),
        ({"four_kind_pair": "three_pairs", "three_pairs": 750}, "2 2 2 2 6 6", "2 2 2 2", 1000),
        ({"four_kind_pair": "three_pairs", "three_pairs": 2500}, "2 2 2 2 6 6", "2 2 2 2 6 6",
         2500),
        ({"partial_straight": 1500}, "1 2 3 4 5 6", "1 2 3 4 5", 1500),
        ({"partial_straight": 1500, "straight_split": True}, "1 2 3 4 5 6", "1 2 3 4 5 6", 1600),
    ],
)  # fmt: skip
def test_hand_checked_best_keeps(
    overrides: dict[str, Any], throw: str, keep: str | None, points: int | None
) -> None:
    best = best_keep(Dice.parse(throw), find_rules("standard", overrides))
    if keep is None:
        assert best is None
    else:
        assert best is not None
        assert (str(best.dice), best.points) == (keep, points)


def test_a_full_straight_kept_whole_is_the_straight_unless_it_may_split() -> None:
    rules = find_rules("standard", {"partial_straight": 1500})
    whole = {k.dice.faces: k for k in legal_keeps(Dice.parse("1 2 3 4 5 6"), rules)}
    assert whole[(1, 2, 3, 4, 5, 6)].points == 1500
    assert [c.name for c in whole[(1, 2, 3, 4, 5, 6)].combos] == ["straight"]
    split = rules.with_overrides({"straight_split": True})
    keep = {k.dice.faces: k for k in legal_keeps(Dice.parse("1 2 3 4 5 6"), split)}
    assert keep[(1, 2, 3, 4, 5, 6)].points == 1600
    assert sorted(c.name for c in keep[(1, 2, 3, 4, 5, 6)].combos) == [
        "partial_straight",
        "single",
    ]


# --- The options' text forms and messages. ---


@pytest.mark.parametrize(
    ("key", "text", "value"),
    [
        ("single_one", "150", 150),
        ("single_five", "0", 0),
        ("triple_multiplier", "200", 200),
        ("full_house", "250", 250),
        ("four_kind_pair", "Three_Pairs", "three_pairs"),
        ("four_kind_pair", "three-pairs", "three_pairs"),
        ("four_kind_pair", "750", 750),
        ("straight_split", "yes", True),
    ],
)
def test_options_parse_from_text(key: str, text: str, value: Any) -> None:
    assert getattr(find_rules("standard", {key: text}), key) == value


@pytest.mark.parametrize(
    ("key", "value", "accepts"),
    [
        ("single_one", 75, "a multiple of 50 from 0 to 1000"),
        ("triple_multiplier", 25, "a multiple of 50 from 0 to 1000"),
        ("four_kind_pair", "pairs", "a multiple of 50 from 0 to 100000 or three_pairs"),
        ("four_kind_pair", "two_triplets", ".* or three_pairs"),
        ("straight_split", "maybe", "true or false"),
    ],
)
def test_bad_values_say_what_is_accepted(key: str, value: Any, accepts: str) -> None:
    with pytest.raises(RulesError, match=f"bad value .* for {key}: it accepts {accepts}"):
        find_rules("standard", {key: value})


def test_the_options_are_described_for_setup() -> None:
    described = {d["name"]: d for d in describe_options()}
    assert described["four_kind_pair"]["words"] == ("three_pairs",)
    assert described["straight_split"]["kind"] == "bool"
    assert described["straight_split"]["default"] is False
    assert described["full_house"]["default"] == 0
    assert Rules.from_dict(find_rules("standard", {"four_kind_pair": "three_pairs"}).to_dict())


# --- Caches and stored games from before the options. ---

# The content keys of the presets before the options existed (main at 335a0bb): the solvers'
# disk caches of these rule sets must keep their names (seed 000's zilch is a new rule set).
LEGACY_KEYS = {
    "standard": "f95975a41278b45d",
    "playmonster": "22223b5f8ec2bd3d",
    "original": "c7d922000bcabc66",
    "no-combos": "842cbfb02892549f",
    "zilch-online": "d56d353bf7ac0c84",  # the former zilch, renamed
    "minimal": "eed434d54e3717fc",
}
LEGACY_SPLIT_KEY = "403a762ca183c483"  # standard with partial_straight=1500, which split


def test_presets_keep_their_cache_keys() -> None:
    assert {name: PRESETS[name].content_key() for name in LEGACY_KEYS} == LEGACY_KEYS
    legacy_fields = {"single_one", "single_five", "triple_multiplier", "full_house"}
    assert all(not legacy_fields & set(r.cache_dict()) for r in PRESETS.values())


def test_cache_keys_follow_what_the_options_score() -> None:
    split = find_rules("standard", {"partial_straight": 1500})
    assert split.with_overrides({"straight_split": True}).content_key() == LEGACY_SPLIT_KEY
    assert split.content_key() != LEGACY_SPLIT_KEY  # no split now: a different game
    # four of a kind + pair as three pairs is the same game as the same value written out
    pairs = find_rules("standard", {"three_pairs": 750, "four_kind_pair": "three_pairs"})
    assert pairs.content_key() == pairs.with_overrides({"four_kind_pair": 750}).content_key()
    for key, values in OPTION_VALUES.items():
        keys = {
            find_rules("standard", {"partial_straight": 1500, key: v}).content_key() for v in values
        }
        assert len(keys) == len(values) - (key == "four_kind_pair"), key


def test_stored_games_without_the_options_replay_as_they_were_played() -> None:
    old = find_rules("standard", {"partial_straight": 1500}).to_dict()
    for key in ("single_one", "single_five", "triple_multiplier", "full_house", "straight_split"):
        del old[key]
    stored = Rules.from_stored(old)
    assert stored.straight_split is True
    assert best_keep(Dice.parse("1 2 3 4 5 6"), stored) is not None
    assert table_for(stored).points((1, 1, 1, 1, 1, 1)) == 1600
    assert stored.content_key() == LEGACY_SPLIT_KEY
    assert Rules.from_dict(old).straight_split is False  # a new game: today's default


# --- The advisor stays exact: its turn value against a plain brute force. ---

CAP = 2000  # 100,000 points: far above any total at which throwing on beats banking


def brute_turn_value(rules: Rules) -> float:
    """A turn's optimal expected points from nothing (no target, no minimums): plain backward
    induction over every total up to ``CAP`` units (banking beyond), every keep of every throw
    scored by the independent scorer."""
    best = oracle(rules)
    moves: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
    for n in range(1, 7):
        probs, starts, units, left = [], [], [], []
        for counts, ways in throw_outcomes(n):
            faces = tuple(f for f, k in zip(range(1, 7), counts, strict=True) for _ in range(k))
            kept = {
                sub: best(sub)
                for mask in range(1, 2**n)
                if best(sub := tuple(f for i, f in enumerate(faces) if mask >> i & 1)) is not None
            }
            if not kept:
                continue  # a farkle: worth nothing
            probs.append(ways / 6**n)
            starts.append(len(units))
            for sub, points in kept.items():
                units.append(points // 50)
                left.append(n - len(sub) or 6)
        moves[n] = (np.array(probs), np.array(starts), np.array(units), np.array(left))
    pad = max(int(m[2].max()) for m in moves.values())
    stand = np.zeros((CAP + pad + 1, 7))
    stand[CAP:] = np.arange(CAP, CAP + pad + 1)[:, None] * 50.0  # bank: nothing left to gain
    throw = np.zeros((CAP, 7))
    for t in range(CAP - 1, -1, -1):
        for n, (probs, starts, units, left) in moves.items():
            after = stand[t + units, left]
            throw[t, n] = float(probs @ np.maximum.reduceat(after, starts))
        stand[t, 1:] = np.maximum(t * 50.0, throw[t, 1:])
    return float(throw[0, 6])


@pytest.mark.parametrize(
    "overrides",
    [
        {"single_one": 200, "single_five": 100},
        {"single_five": 0},
        {"triple_multiplier": 200},
        {"triple_multiplier": 50, "full_house": 250},
        {"four_kind_pair": "three_pairs", "three_pairs": 750},
        {"partial_straight": 1500},
        {"partial_straight": 1500, "straight_split": True},
    ],
    ids=str,
)
def test_the_advisor_turn_value_is_the_brute_force(overrides: dict[str, Any]) -> None:
    rules = find_rules("standard", {"opening_minimum": 0, **overrides})
    solved = solve_policy(rules).points_per_turn
    assert solved == pytest.approx(brute_turn_value(rules), abs=1e-9)
