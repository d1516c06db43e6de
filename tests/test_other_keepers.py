"""Other games' scoring tests, run through ``scorekeeper score`` (issue 30): the Greed scoring
exercise of the Ruby Koans (``about_scoring_project.rb``, a widely copied public Greed test
suite) and a common extension of it. Greed scores every scoring die of a throw of five dice
(three 1s 1,000, three of another face 100 times it, single 1s 100 and 5s 50, nothing else),
which is the preset ``minimal`` with ``dice=5``: its best keep is the throw's score, and a
throw with no scoring die is a farkle (Greed's 0)."""

from __future__ import annotations

import json

import pytest

from scorekeeper.cli import main

GREED = ["--rules", "minimal", "--set", "dice=5"]
KOANS: list[tuple[list[int], int]] = [
    ([5], 50),
    ([1], 100),
    ([1, 5, 5, 1], 300),
    ([2, 3, 4, 6], 0),
    ([1, 1, 1], 1000),
    ([2, 2, 2], 200),
    ([3, 3, 3], 300),
    ([4, 4, 4], 400),
    ([5, 5, 5], 500),
    ([6, 6, 6], 600),
    ([2, 5, 2, 2, 3], 250),
    ([5, 5, 5, 5], 550),
    ([1, 1, 1, 1], 1100),
    ([1, 1, 1, 1, 1], 1200),
    ([1, 1, 1, 5, 1], 1150),
    # a widely copied variant of the same suite adds these
    ([2, 3, 4, 6, 2], 0),
    ([3, 4, 5, 3, 3], 350),
    ([1, 5, 1, 2, 4], 250),
]


def _score(args: list[str], dice: list[int], capsys: pytest.CaptureFixture[str]) -> int:
    assert main(["score", *args, *map(str, dice)]) == 0
    out = json.loads(capsys.readouterr().out)
    return 0 if out["farkle"] else int(out["max"]["points"])


@pytest.mark.parametrize(("dice", "points"), KOANS, ids=lambda v: str(v))
def test_the_greed_koans_agree(
    dice: list[int], points: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _score(GREED, dice, capsys) == points


def test_six_dice_extensions_of_the_koans(capsys: pytest.CaptureFixture[str]) -> None:
    # the same suite's six-dice additions: six 1s are two triples; 5 5 5 2 2 4 is the triple
    assert _score(["--rules", "minimal"], [1, 1, 1, 1, 1, 1], capsys) == 2000
    assert _score(["--rules", "minimal"], [5, 5, 5, 2, 2, 4], capsys) == 500
