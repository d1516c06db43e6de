"""The CLI's ``rules`` and ``score`` commands, run as a user would (a subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from scorekeeper.rules import describe_options


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "scorekeeper", *args], capture_output=True, text=True, timeout=60
    )


def test_score_prints_one_json_object() -> None:
    r = run("score", "1", "1", "1", "5", "2", "3")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["dice"] == [1, 1, 1, 5, 2, 3]
    assert out["rules"] == "standard"
    assert out["farkle"] is False
    assert out["max"] == {"keep": [1, 1, 1, 5], "points": 1050}
    assert out["keeps"][0] == {
        "keep": [1, 1, 1, 5],
        "points": 1050,
        "combos": [
            {"name": "three_of_a_kind", "dice": [1, 1, 1], "points": 1000},
            {"name": "single", "dice": [5], "points": 50},
        ],
    }
    assert [k["points"] for k in out["keeps"]] == [1050, 1000, 250, 200, 150, 100, 50]


def test_score_with_preset_and_repeated_set() -> None:
    r = run("score", "--rules", "standard", "--set", "four_kind_pair=0", "--set",
            "three_ones=300", "3", "3", "3", "3", "4", "4")  # fmt: skip
    out = json.loads(r.stdout)
    assert out["max"] == {"keep": [3, 3, 3, 3], "points": 1000}
    assert out["overrides"] == {"four_kind_pair": 0, "three_ones": 300}


def test_score_farkle() -> None:
    out = json.loads(run("score", "2", "3", "4", "6", "6", "2").stdout)
    assert (out["farkle"], out["max"], out["keeps"]) == (True, None, [])


def test_rules_prints_full_options() -> None:
    r = run("rules", "original")
    assert r.returncode == 0
    out = json.loads(r.stdout)
    assert out["multiples"] == "none" and out["opening_minimum"] == 1000
    assert list(out) == [o["name"] for o in describe_options()] and out["pass_dice"] is False


def test_rules_shows_the_scoring_options() -> None:
    r = run("rules", "standard", "--set", "four_kind_pair=three_pairs", "--set", "full_house=250")
    out = json.loads(r.stdout)
    assert (out["four_kind_pair"], out["full_house"], out["straight_split"]) == (
        "three_pairs",
        250,
        False,
    )
    assert (out["single_one"], out["single_five"], out["triple_multiplier"]) == (100, 50, 100)
    r = run("score", "--set", "full_house=250", "--set", "triple_multiplier=50", "3 3 3 4 4 2")
    assert json.loads(r.stdout)["max"] == {"keep": [3, 3, 3, 4, 4], "points": 400}


@pytest.mark.parametrize(
    "args,message",
    [
        (["score", "7"], "bad die 7: each die is a whole number from 1 to 6"),
        (["score", "1", "2", "3", "4", "5", "6", "1"], "7 dice given: a throw or keep has 1 to 6"),
        (["score", "x"], "bad die 'x'"),
        (["score", "--set", "colour=red", "1"], "unknown rules option 'colour'"),
        (["score", "--set", "target=abc", "1"], "bad value 'abc' for target"),
        (["score", "--set", "target", "1"], "write KEY=VALUE"),
        (["score", "--rules", "house", "1"], "unknown rules preset 'house'"),
        (["rules", "house"], "unknown rules preset 'house'"),
        (["score"], "the following arguments are required: DIE"),
    ],
)
def test_bad_input_exits_2_with_a_message(args: list[str], message: str) -> None:
    r = run(*args)
    assert r.returncode == 2
    assert message in r.stderr
    assert "Traceback" not in r.stderr
    assert r.stdout == ""
