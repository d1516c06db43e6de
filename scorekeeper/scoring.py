"""Scoring one throw: dice values, every legal keep with its best split, and farkle chances.

>>> rules = Rules()
>>> throw = Dice.parse("1 1 1 5 2 3")
>>> best = best_keep(throw, rules)
>>> str(best.dice), best.points
('1 1 1 5', 1050)
>>> is_farkle(Dice.parse("2 3 4 6 6 2"), rules), farkle_probability(6, rules)
(True, Fraction(5, 216))
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from functools import lru_cache
from itertools import combinations, permutations, product

from scorekeeper.errors import DiceError
from scorekeeper.rules import Rules

MAX_DICE = 6
FACES = (1, 2, 3, 4, 5, 6)
Counts = tuple[int, int, int, int, int, int]
_SPLIT = re.compile(r"[\s,;]+")


@dataclass(frozen=True, order=True)
class Dice:
    """A multiset of 1 to 6 dice faces, kept sorted; ``Dice.parse("1 1 5")`` round-trips."""

    faces: tuple[int, ...]

    def __init__(self, faces: Iterable[int]) -> None:
        values = tuple(faces)
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6:
                raise DiceError(f"bad die {v!r}: each die is a whole number from 1 to 6")
        if not 1 <= len(values) <= MAX_DICE:
            raise DiceError(f"{len(values)} dice given: a throw or keep has 1 to 6 dice")
        object.__setattr__(self, "faces", tuple(sorted(values)))

    @classmethod
    def parse(cls, text: str) -> Dice:
        """Parse dice written as ``"1 1 5"``, ``"1,1,5"`` or ``"115"``.

        :raises DiceError: on anything but 1 to 6 faces from 1 to 6.
        """
        return cls(parse_faces(text))

    @classmethod
    def from_counts(cls, counts: Iterable[int]) -> Dice:
        """Dice from six counts (how many 1s, 2s, ... 6s)."""
        return cls(face for face, n in zip(FACES, counts, strict=True) for _ in range(n))

    @property
    def counts(self) -> Counts:
        """How many of each face, 1s first."""
        c = [0] * 6
        for v in self.faces:
            c[v - 1] += 1
        return (c[0], c[1], c[2], c[3], c[4], c[5])

    def __str__(self) -> str:
        return " ".join(map(str, self.faces))

    def __len__(self) -> int:
        return len(self.faces)

    def __iter__(self) -> Iterator[int]:
        return iter(self.faces)

    def to_list(self) -> list[int]:
        """The faces as a JSON-able list."""
        return list(self.faces)


def _is_number(text: str) -> bool:
    """Whether ``text`` is written in ASCII digits only (``str.isdigit`` also takes ``²``)."""
    return text.isascii() and text.isdigit()


def parse_faces(text: str) -> list[int]:
    """Faces in the order written (``"1 1 5"``, ``"1,1,5"`` or ``"115"``), checked like Dice.

    :raises DiceError: on anything but 1 to 6 faces from 1 to 6.
    """
    parts = [p for p in _SPLIT.split(text.strip()) if p]
    if len(parts) == 1 and _is_number(parts[0]) and len(parts[0]) > 1:
        parts = list(parts[0])
    faces = []
    for p in parts:
        if not _is_number(p) or len(p) > 3:
            shown = p if len(p) <= 12 else p[:12] + "…"
            raise DiceError(f"bad die {shown!r}: each die is a whole number from 1 to 6")
        faces.append(int(p))
    Dice(faces)
    return faces


@dataclass(frozen=True)
class Combo:
    """One scoring combination used in a keep: its name, dice and points."""

    name: str
    dice: Dice
    points: int

    def to_dict(self) -> dict[str, object]:
        """JSON form: ``{"name", "dice", "points"}``."""
        return {"name": self.name, "dice": self.dice.to_list(), "points": self.points}


@dataclass(frozen=True)
class Keep:
    """A legal keep: dice that all score, their points, and the best split into combos."""

    dice: Dice
    points: int
    combos: tuple[Combo, ...]

    def to_dict(self) -> dict[str, object]:
        """JSON form: ``{"keep", "points", "combos"}``."""
        return {
            "keep": self.dice.to_list(),
            "points": self.points,
            "combos": [c.to_dict() for c in self.combos],
        }


_KIND_NAMES = {3: "three_of_a_kind", 4: "four_of_a_kind", 5: "five_of_a_kind", 6: "six_of_a_kind"}


def _unit(face: int, n: int) -> list[int]:
    c = [0] * 6
    c[face - 1] = n
    return c


def combo_catalogue(rules: Rules, tripled: tuple[int, ...] = ()) -> list[tuple[str, Counts, int]]:
    """Every scoring combination the rules allow, as (name, counts, points), biggest first;
    ``tripled``: the faces kept as three or more of a kind earlier in the turn, whose single
    dice score ``triple_addon`` (see :func:`addon_faces`)."""
    raw: list[tuple[str, list[int], int]] = [
        ("single", _unit(1, 1), rules.single_one),
        ("single", _unit(5, 1), rules.single_five),
    ]
    for face in addon_faces(rules, tripled):
        raw.append(("triple_addon", _unit(face, 1), rules.triple_addon))
    for face in FACES:
        triple = triple_points(face, rules)
        raw.append((_KIND_NAMES[3], _unit(face, 3), triple))
        for n in (4, 5, 6):
            if rules.multiples == "flat":
                pts = (rules.four_kind, rules.five_kind, rules.six_kind)[n - 4]
            elif rules.multiples == "doubling":
                pts = triple * 2 ** (n - 3)
            elif rules.multiples == "linear":
                pts = triple * (n - 2)
            else:
                continue
            raw.append((_KIND_NAMES[n], _unit(face, n), pts))
    raw.append(("straight", [1] * 6, rules.straight))
    raw.append(("partial_straight", [1, 1, 1, 1, 1, 0], rules.partial_straight))
    raw.append(("partial_straight", [0, 1, 1, 1, 1, 1], rules.partial_straight))
    for trio in combinations(FACES, 3):
        raw.append(("three_pairs", [2 if f in trio else 0 for f in FACES], rules.three_pairs))
    for a, b in permutations(FACES, 2):
        c = _unit(a, 4)
        c[b - 1] = 2
        raw.append(("four_kind_pair", c, rules.four_kind_pair_points))
        if rules.full_house > 0 and triple_points(a, rules) > 0:
            c = _unit(a, 3)
            c[b - 1] = 2
            raw.append(("full_house", c, triple_points(a, rules) + rules.full_house))
    for a, b in combinations(FACES, 2):
        c = _unit(a, 3)
        c[b - 1] = 3
        raw.append(("two_triplets", c, rules.two_triplets))
    out = [(name, _counts(c), pts) for name, c, pts in raw if pts > 0]
    out.sort(key=lambda item: -sum(item[1]))
    return out


def single_points(face: int, rules: Rules) -> int:
    """What a lone die of ``face`` scores by itself: ``single_one``, ``single_five`` or 0."""
    return rules.single_one if face == 1 else rules.single_five if face == 5 else 0


def addon_faces(rules: Rules, tripled: Iterable[int]) -> tuple[int, ...]:
    """The faces among ``tripled`` (kept as three or more of a kind earlier in the turn) whose
    later single dice score ``triple_addon``: all of them, except a 1 or a 5 whose own single
    value is as much (sorted, no repeats; empty when ``triple_addon`` is 0).

    >>> addon_faces(Rules(triple_addon=100), [6, 1, 5, 6])
    (5, 6)
    """
    if not rules.triple_addon:
        return ()
    return tuple(sorted({f for f in tripled if rules.triple_addon > single_points(f, rules)}))


def check_tripled(rules: Rules, tripled: Iterable[object]) -> tuple[int, ...]:
    """The faces kept as triples earlier in the turn, as asked of ``score`` and ``suggest``:
    checked, sorted, without repeats.

    :raises DiceError: on a face that is not 1 to 6, or faces given without ``triple_addon``.
    """
    faces: set[int] = set()
    for face in tripled:
        if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= 6:
            raise DiceError(f"bad tripled face {face!r}: each is a die face from 1 to 6")
        faces.add(face)
    if faces and not rules.triple_addon:
        raise DiceError(
            "tripled faces matter only under triple_addon, which these rules leave at 0;"
            " set triple_addon or leave tripled out"
        )
    return tuple(sorted(faces))


def kept_as_triples(keep: Keep) -> tuple[int, ...]:
    """The faces a keep sets aside as three or more of a kind (in a triple, four, five or six
    of a kind, two triplets, four of a kind with a pair, a full house), sorted.

    >>> kept_as_triples(score_keep(Dice.parse("6 6 6 1 2 3"), Dice.parse("6 6 6 1"), Rules()))
    (6,)
    """
    faces = {f for c in keep.combos for f, n in zip(FACES, c.dice.counts, strict=True) if n >= 3}
    return tuple(sorted(faces))


def triple_points(face: int, rules: Rules) -> int:
    """What three ``face``s score: ``three_ones`` for 1s, else the face times the multiplier."""
    return rules.three_ones if face == 1 else face * rules.triple_multiplier


def _counts(c: Iterable[int]) -> Counts:
    a, b, d, e, f, g = c
    return (a, b, d, e, f, g)


def _all_counts(max_total: int) -> list[Counts]:
    """Every count vector with at most ``max_total`` dice, fewest dice first."""
    out: list[Counts] = []

    def walk(prefix: list[int], left: int) -> None:
        if len(prefix) == 6:
            out.append(_counts(prefix))
            return
        for n in range(left + 1):
            walk([*prefix, n], left - n)

    walk([], max_total)
    out.sort(key=sum)
    return out


def _sub_counts(c: Counts) -> Iterator[Counts]:
    """Every non-empty sub-multiset of ``c``."""
    for sub in product(*(range(n + 1) for n in c)):
        if any(sub):
            yield _counts(sub)


def multinomial(c: Counts) -> int:
    """The number of ordered throws that show the counts ``c``."""
    total = math.factorial(sum(c))
    for n in c:
        total //= math.factorial(n)
    return total


class ScoreTable:
    """Precomputed best splits and legal keeps for one rules value and the faces whose single
    dice score ``triple_addon`` this turn (build with ``table_for``)."""

    def __init__(self, rules: Rules, tripled: tuple[int, ...] = ()) -> None:
        self.rules = rules
        self.tripled = addon_faces(rules, tripled)
        self.catalogue = combo_catalogue(rules, self.tripled)
        self._best: dict[Counts, tuple[int, tuple[int, ...]] | None] = {}
        for c in _all_counts(MAX_DICE):
            self._best[c] = self._split(c)
        if not rules.straight_split and rules.straight > 0:
            whole = (1, 1, 1, 1, 1, 1)  # a full straight kept whole is the straight
            names = [(name, k) for name, k, _ in self.catalogue]
            self._best[whole] = (rules.straight, (names.index(("straight", whole)),))
        self._keeps: dict[Counts, tuple[Keep, ...]] = {}

    def _split(self, c: Counts) -> tuple[int, tuple[int, ...]] | None:
        if not any(c):
            return (0, ())
        best: tuple[int, tuple[int, ...]] | None = None
        for idx, (_, k, pts) in enumerate(self.catalogue):
            if all(x >= y for x, y in zip(c, k, strict=True)):
                rest = self._best[_counts(x - y for x, y in zip(c, k, strict=True))]
                if rest is not None and (best is None or pts + rest[0] > best[0]):
                    best = (pts + rest[0], (idx, *rest[1]))
        return best

    def points(self, c: Counts) -> int | None:
        """Points of keeping exactly the dice ``c``, or None when some die does not score."""
        entry = self._best[c]
        return None if entry is None or not any(c) else entry[0]

    def keep(self, c: Counts) -> Keep | None:
        """The keep of exactly the dice ``c`` with its best split, or None when not legal."""
        entry = self._best.get(c)
        if entry is None or not any(c):
            return None
        combos = tuple(
            Combo(
                self.catalogue[i][0], Dice.from_counts(self.catalogue[i][1]), self.catalogue[i][2]
            )
            for i in entry[1]
        )
        return Keep(Dice.from_counts(c), entry[0], combos)

    def keeps(self, c: Counts) -> tuple[Keep, ...]:
        """Every distinct legal keep of a throw with counts ``c``, most points first."""
        found = self._keeps.get(c)
        if found is None:
            ks = [k for s in _sub_counts(c) if (k := self.keep(s)) is not None]
            ks.sort(key=lambda k: (-k.points, len(k.dice), k.dice.faces))
            found = self._keeps[c] = tuple(ks)
        return found


def table_for(rules: Rules, tripled: Iterable[int] = ()) -> ScoreTable:
    """The (cached) score table of a rules value; ``tripled``: the faces kept as three or more
    of a kind earlier in the turn (they matter only under ``triple_addon``)."""
    return _table(rules, addon_faces(rules, tripled))


@lru_cache(maxsize=256)
def _table(rules: Rules, tripled: tuple[int, ...]) -> ScoreTable:
    return ScoreTable(rules, tripled)


def clear_score_tables() -> None:
    """Forget every cached score table (benchmarks time them from nothing)."""
    _table.cache_clear()


def legal_keeps(throw: Dice, rules: Rules) -> list[Keep]:
    """Every distinct legal keep of ``throw``, most points first (empty on a farkle)."""
    return list(table_for(rules).keeps(throw.counts))


def best_keep(throw: Dice, rules: Rules) -> Keep | None:
    """The keep with the most points, or None when the throw farkles."""
    keeps = table_for(rules).keeps(throw.counts)
    return keeps[0] if keeps else None


def is_farkle(throw: Dice, rules: Rules) -> bool:
    """Whether ``throw`` has no legal keep."""
    return not table_for(rules).keeps(throw.counts)


def score_keep(throw: Dice, keep: Dice, rules: Rules) -> Keep:
    """The keep of ``keep`` from ``throw`` with its points.

    :raises DiceError: when the dice are not in the throw, or some kept die does not score.
    """
    if any(k > t for k, t in zip(keep.counts, throw.counts, strict=True)):
        raise DiceError(f"cannot keep {keep}: the throw is {throw}")
    found = table_for(rules).keep(keep.counts)
    if found is None:
        raise DiceError(
            f"{keep} is not a legal keep: every kept die must be part of a scoring combination"
            f" (legal keeps of {throw}: "
            + ("; ".join(str(k.dice) for k in legal_keeps(throw, rules)) or "none, a farkle")
            + ")"
        )
    return found


def keeps_report(throw: Dice, rules: Rules, tripled: Iterable[int] = ()) -> dict[str, object]:
    """The JSON report of a throw's keeps: ``{"farkle", "max", "keeps"}`` (the CLI's and API's;
    ``tripled``: under ``triple_addon``, the faces kept as triples earlier in the turn)."""
    keeps = list(table_for(rules, tripled).keeps(throw.counts))
    best = {"keep": keeps[0].dice.to_list(), "points": keeps[0].points} if keeps else None
    return {"farkle": not keeps, "max": best, "keeps": [k.to_dict() for k in keeps]}


class Outcome(StrEnum):
    """How a throw or a turn turns out; the value is the game state's word for it."""

    KEEP = "keep"
    FARKLE = "farkle"
    FARKLE_BONUS = "six_dice_bonus"
    TOXIC_TWOS = "toxic_twos"
    SIX_ONES = "six_ones"
    BANK = "bank"
    QUICK_SCORE = "quick_score"
    OVERSHOOT = "overshoot"
    FARKLE_KEPT = "farkle_kept"
    LEFT = "left"

    @property
    def advice_word(self) -> str:
        """The word the advice API has always used (two outcomes are spelled differently)."""
        return _ADVICE_WORDS.get(self, self.value)


_ADVICE_WORDS = {Outcome.FARKLE_BONUS: "farkle_bonus", Outcome.SIX_ONES: "six_ones_win"}


def is_toxic(counts: Counts, rules: Rules) -> bool:
    """Whether a throw with these counts is a toxic-twos wipe (four or more 2s)."""
    return rules.toxic_twos and counts[1] >= 4


def is_six_ones(counts: Counts, rules: Rules) -> bool:
    """Whether a throw with these counts wins outright under ``six_ones_win``."""
    return rules.six_ones_win and counts[0] == 6


def has_farkle_bonus(n: int, rules: Rules, *, first_throw: bool = True) -> bool:
    """Whether a farkle on a throw of ``n`` dice scores the six-dice farkle bonus (under
    ``six_dice_farkle_bonus_first_throw`` only on the turn's first throw)."""
    if rules.six_dice_farkle_bonus_first_throw and not first_throw:
        return False
    return n == MAX_DICE and rules.six_dice_farkle_bonus > 0


def throw_outcome(
    counts: Counts, rules: Rules, *, first_throw: bool = True, tripled: Iterable[int] = ()
) -> Outcome:
    """What a throw with these counts means before any keep: a special outcome, a farkle
    (with or without the six-dice bonus; ``first_throw``: whether it is the turn's first),
    or ``KEEP`` when some dice score (``tripled``: the turn's faces kept as triples).

    >>> throw_outcome(Dice.parse("2 2 2 2 1 5").counts, Rules(toxic_twos=True))
    <Outcome.TOXIC_TWOS: 'toxic_twos'>
    """
    if is_toxic(counts, rules):
        return Outcome.TOXIC_TWOS
    if is_six_ones(counts, rules):
        return Outcome.SIX_ONES
    if table_for(rules, tripled).keeps(counts):
        return Outcome.KEEP
    bonus = has_farkle_bonus(sum(counts), rules, first_throw=first_throw)
    return Outcome.FARKLE_BONUS if bonus else Outcome.FARKLE


def all_dice_word(n: int) -> str:
    """``six`` or ``five``: how a table's whole hand of dice is said (``throw all six again``)."""
    return {5: "five", 6: "six"}.get(n, str(n))


def is_reroll_pair(counts: Counts, rules: Rules, tripled: Iterable[int] = ()) -> bool:
    """Whether a throw is a pair of the last two dice that scores nothing, which
    ``reroll_last_pair`` throws again once instead of farkling (``tripled``: the turn's faces
    kept as triples, whose dice may score under ``triple_addon``).

    >>> is_reroll_pair(Dice.parse("3 3").counts, Rules(reroll_last_pair=True))
    True
    """
    return (
        rules.reroll_last_pair
        and sum(counts) == 2
        and max(counts) == 2
        and not table_for(rules, tripled).keeps(counts)
    )


def reroll_pair_probability(rules: Rules, tripled: Iterable[int] = ()) -> Fraction:
    """The chance that a throw of the last two dice is a pair thrown again (0 when off)."""
    if not rules.reroll_last_pair:
        return Fraction(0)
    pairs = sum(w for c, w in throw_outcomes(2) if is_reroll_pair(c, rules, tripled))
    return Fraction(pairs, 36)


def throw_outcomes(n: int) -> list[tuple[Counts, int]]:
    """Every distinct throw of ``n`` dice as counts with its number of orderings (sum 6**n)."""
    if not 1 <= n <= MAX_DICE:
        raise DiceError(f"cannot throw {n} dice: a throw has 1 to 6 dice")
    return _outcomes(n)


@lru_cache(maxsize=8)
def _outcomes(n: int) -> list[tuple[Counts, int]]:
    return [(c, multinomial(c)) for c in _all_counts(n) if sum(c) == n]


def farkle_probability(
    n: int, rules: Rules, tripled: Iterable[int] = (), *, rethrow: bool = False
) -> Fraction:
    """The exact chance that a throw of ``n`` dice has no legal keep (under
    ``reroll_last_pair``, after the one throw again of a non-scoring pair of two dice, unless
    ``rethrow``: this throw is that throw again; ``tripled``: the turn's faces kept as
    triples, under ``triple_addon``).

    :raises DiceError: when ``n`` is not 1 to 6.
    """
    table = table_for(rules, tripled)
    bad = Fraction(sum(w for c, w in throw_outcomes(n) if not table.keeps(c)), 6**n)
    if n == 2 and rules.reroll_last_pair and not rethrow:  # a pair is thrown again, once
        again = reroll_pair_probability(rules, tripled)
        return bad - again + again * bad
    return bad
