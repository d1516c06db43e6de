"""``scorekeeper solve`` and ``scorekeeper suggest``: JSON shape and exit 2 on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorekeeper.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object], str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else {}), err


def test_solve_prints_the_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, data, _ = _run(capsys, "solve", "--rules", "minimal")
    assert code == 0
    assert set(data) == {
        "rules",
        "expected_turn_score",
        "points_per_turn",
        "bank_at",
        "farkle_probability",
        "seconds",
    }
    assert data["bank_at"] == {"1": 250, "2": 250, "3": 400, "4": 1000, "5": 2900, "6": 10050}
    assert data["points_per_turn"] == data["expected_turn_score"]
    assert isinstance(data["seconds"], float) and data["seconds"] > 0
    probs = data["farkle_probability"]
    assert isinstance(probs, dict) and probs["6"] == pytest.approx(1440 / 46656)


def test_solve_with_overrides_and_a_streak_penalty(capsys: pytest.CaptureFixture[str]) -> None:
    code, data, _ = _run(capsys, "solve", "--rules", "zilch-online", "--set", "toxic_twos=true")
    assert code == 0 and data["overrides"] == {"toxic_twos": True}
    assert isinstance(data["points_per_turn"], float)
    assert isinstance(data["expected_turn_score"], float)
    assert data["points_per_turn"] < data["expected_turn_score"]
    bank_at = data["bank_at"]
    assert isinstance(bank_at, dict) and all(isinstance(bank_at[str(n)], int) for n in range(1, 7))


def test_suggest_prints_ranked_options(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, data, _ = _run(
        capsys,
        "suggest",
        "--rules",
        "standard",
        "--turn-total",
        "300",
        "--cache-dir",
        str(tmp_path),
        "1",
        "5",
        "5",
        "2",
        "3",
        "4",
    )
    assert code == 0
    assert data["outcome"] == "keep" and data["value_kind"] == "expected_points"
    options = data["options"]
    assert isinstance(options, list) and options
    assert set(options[0]) == {
        "keep",
        "points",
        "action",
        "turn_total",
        "dice_to_throw",
        "value",
        "value_kind",
        "next_farkle_probability",
        "allowed",
        "why_not",
        "reason",
    }
    assert data["best"] == options[0]


def test_suggest_final_round(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, data, _ = _run(
        capsys,
        "suggest",
        "--banked",
        "9000",
        "--beat",
        "9500",
        "--turn-total",
        "400",
        "--cache-dir",
        str(tmp_path),
        "1",
        "3",
        "4",
    )
    assert code == 0 and data["value_kind"] == "win_probability"
    best = data["best"]
    assert isinstance(best, dict) and best["action"] == "roll"


@pytest.mark.parametrize(
    "argv",
    [
        ["suggest", "--turn-total", "55", "1", "5"],
        ["suggest", "--streak", "3", "1", "5"],
        ["suggest", "--banked", "-100", "1", "5"],
        ["suggest", "--banked", "500", "--not-on-board", "1", "5"],
        ["suggest", "1", "5", "7"],
        ["suggest", "1", "1", "1", "1", "1", "1", "1"],
        ["solve", "--rules", "nonsense"],
        ["solve", "--set", "bank_minimum=75"],
    ],
)
def test_impossible_input_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str]
) -> None:
    code, _, err = _run(
        capsys, *argv, *(["--cache-dir", str(tmp_path)] if argv[0] == "suggest" else [])
    )
    assert code == 2
    assert "error:" in err
