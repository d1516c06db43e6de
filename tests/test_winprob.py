"""Win-probability advice: properties of the solved game, the final round, the cache, the CLI."""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from scorekeeper.cli import main
from scorekeeper.errors import PositionError, UnsupportedRulesError
from scorekeeper.rules import Rules, find_rules
from scorekeeper.scoring import Dice, table_for, throw_outcomes
from scorekeeper.strategy.advice import advise
from scorekeeper.winprob import WinTable, fair_compensation, solve_fresh, solve_winprob

# the slow checks (minutes) run only when asked: SCOREKEEPER_SLOW_TESTS=1
SLOW = pytest.mark.skipif(
    os.environ.get("SCOREKEEPER_SLOW_TESTS") != "1", reason="slow: set SCOREKEEPER_SLOW_TESTS=1"
)

NO_FINAL = find_rules("minimal", {"target": 2000, "final_round": False})
FINAL = find_rules("standard", {"target": 1500})


@lru_cache(maxsize=4)
def solved(rules: Rules, margin: int = 1000) -> WinTable:
    """One solve per rules value for the whole module."""
    return solve_fresh(rules, margin=margin)


@pytest.mark.parametrize("rules", [NO_FINAL, FINAL])
def test_win_probability_rises_with_own_score_and_falls_with_the_opponents(rules: Rules) -> None:
    p = solved(rules).table
    assert np.all((p >= 0) & (p <= 1))
    assert np.all(np.diff(p, axis=1) <= 1e-12), "more opponent points never helps"
    assert p[0, 0] > 0.5, "the first player has the edge"
    own = np.diff(p, axis=0) >= -1e-12
    if not rules.final_round:
        assert np.all(own), "more of my own points never hurts"
    else:
        # with a final round more points can hurt: at 500 against 1450 (target 1500) a bank
        # of 1000 crosses the target and hands the opponent a last turn needing only 100,
        # while from 450 the same bank stays below it and the opponent must still reach it
        assert not own[9, 29] and p[10, 29] < p[9, 29]
        assert np.all(own[:, :20]), "far from the target more points never hurt"


def test_banking_to_the_target_without_a_final_round_is_a_certain_win() -> None:
    table = solved(NO_FINAL)
    assert table.p_win(1800, 1900, turn_total=200, dice_left=3) == 1.0
    assert table.p_win(1950, 0, turn_total=50, dice_left=5) == 1.0
    options = table.option_values(1700, 1950, 200, [1, 5, 2, 3])
    best = options[0]
    assert best.points == 150 and best.bank == 1.0 and best.best == "bank"
    for o in options:
        assert (o.bank == 1.0) == (1700 + o.turn_total >= 2000)


def test_turn_start_values_and_option_values_agree_with_p_win() -> None:
    table = solved(FINAL)
    assert table.p_win(500, 700) == table.table[10, 14]
    assert table.p_first(0, 0) == table.table[0, 0]
    options = table.option_values(500, 700, 300, "1 1 5 2 3 4")
    assert [o.points for o in options][:1] and len(options) == 5
    for o in options:
        reached = table.p_win(500, 700, o.turn_total, o.dice_left)
        assert o.value == pytest.approx(reached, abs=1e-12)
        if o.bank is not None:
            assert o.bank == pytest.approx(1 - table.table[700 // 50, (500 + o.turn_total) // 50])
    assert options == sorted(options, key=lambda o: -o.value)


def test_off_the_board_player_cannot_bank_below_the_opening_minimum() -> None:
    table = solved(FINAL)
    options = table.option_values(0, 400, 300, [1, 5, 2, 3, 4, 4])
    assert len(options) == 3
    assert all(o.bank is None for o in options)  # 450 or less < 500 to get on the board
    options = table.option_values(100, 400, 300, [1, 5, 2, 3, 4, 4])
    assert all(o.bank is not None for o in options)


def beat_optimum(rules: Rules, chaser: int, leader: int) -> dict[tuple[int, int], float]:
    """Plain memoised recursion: the best chance to end one turn above ``leader``."""
    table = table_for(rules)
    least = max(rules.bank_minimum, rules.opening_minimum if chaser == 0 else 0, 50)
    memo: dict[tuple[int, int], float] = {}

    def value(total: int, dice: int, may_bank: bool) -> float:
        if may_bank and chaser + total > leader and total >= least:
            return 1.0
        key = (total, dice if may_bank else 0)
        if key not in memo:
            acc = 0.0
            for counts, ways in throw_outcomes(dice):
                keeps = table.keeps(counts)
                best = 0.0
                for k in keeps:
                    left = dice - len(k.dice)
                    best = max(best, value(total + k.points, left or 6, True))
                acc += ways * best
            memo[key] = acc / 6**dice
        return memo[key]

    return {
        (t, n): value(t, n, t > 0)
        for t in range(0, leader - chaser + 200, 50)
        for n in range(1, 7)
        if t > 0 or n == 6
    }


def test_final_round_chaser_maximises_the_chance_to_beat_the_leader() -> None:
    rules = find_rules("minimal")  # final round, must beat, no opening minimum
    table = solve_winprob(rules.with_overrides({"target": 1500}), cache_dir=False, margin=1000)
    chaser, leader = 900, 1650
    brute = beat_optimum(rules, chaser, leader)
    for (t, n), expected in brute.items():
        got = table.p_win(chaser, leader, t, n, final_round=True)
        assert got == pytest.approx(expected, abs=1e-12), (t, n)
    # the advice for a throw: each option's value is the optimum after that keep, and the
    # best one matches the expected-points advisor's exact final-round ("beat") play
    throw = Dice.parse("1 1 5 5 2 3")
    options = table.option_values(chaser, leader, 200, throw, final_round=True)
    for o in options:
        assert o.bank is None  # 900 + 200 + at most 300 cannot beat 1650
        assert o.roll == pytest.approx(brute[(o.turn_total, o.dice_left)], abs=1e-12)
    strategy = advise(rules, throw, turn_total=200, dice_left=6, banked=chaser, beat=leader)
    assert strategy.best is not None
    assert options[0].value == pytest.approx(strategy.best.value, abs=1e-9)
    assert sorted(options[0].keep.faces) == sorted(strategy.best.keep.faces)


def test_final_round_chaser_banks_once_ahead() -> None:
    table = solved(FINAL)
    options = table.option_values(1200, 1600, 350, [1, 1, 1], final_round=True)
    assert options[0].bank == 1.0 and options[0].best == "bank"
    assert table.p_win(1200, 1600, 450, 3, final_round=True) == 1.0


def test_fair_compensation_is_the_nearest_to_even() -> None:
    table = solved(NO_FINAL)
    comp = table.fair_compensation()
    assert comp % 50 == 0 and comp > 0
    gaps = np.abs(table.table[0] - 0.5)
    assert gaps[comp // 50] == gaps.min()
    assert table.p_win(0, comp) == pytest.approx(0.5, abs=0.01)


@pytest.mark.slow
@SLOW
def test_busche_neller_fair_compensation_is_200_points() -> None:
    """Busche & Neller (ACG 2017): two-player Farkle to 10,000 is fairest at 200 points."""
    rules = find_rules("minimal", {"final_round": False})
    table = solve_fresh(rules)
    assert table.fair_compensation() == 200
    assert 0.53 < table.p_first() < 0.54


@pytest.mark.parametrize(
    ("overrides", "word"),
    [
        ({"farkle_streak_penalty": 500}, "farkle_streak_penalty"),
        ({"toxic_twos": True}, "toxic_twos"),
        ({"exact_target": True}, "exact_target"),
    ],
)
def test_unsupported_rules_are_named(overrides: dict[str, object], word: str) -> None:
    with pytest.raises(UnsupportedRulesError, match=word):
        solve_winprob(find_rules("standard", overrides), cache_dir=False)


@pytest.mark.parametrize(
    ("args", "kwargs", "words"),
    [
        ((75, 0), {}, "multiple of 50"),
        ((-50, 0), {}, "multiple of 50"),
        ((2000, 0), {}, "reached the target"),
        ((0, 2000), {}, "final_round=True"),
        ((0, 0, 100, 7), {}, "1 to 6"),
        ((0, 0, 0, 3), {}, "six dice"),
        ((0, 1000), {"final_round": True}, "leader"),
    ],
)
def test_impossible_positions_are_refused(
    args: tuple[int, ...], kwargs: dict[str, bool], words: str
) -> None:
    with pytest.raises(PositionError, match=words):
        solved(NO_FINAL).p_win(*args, **kwargs)


def test_disk_cache_round_trip(tmp_path: Path) -> None:
    rules = find_rules("minimal", {"target": 600, "final_round": False, "bank_minimum": 100})
    first = solve_winprob(rules, tmp_path)
    files = list((tmp_path).glob("*.npz"))
    assert len(files) == 1 and rules.content_key() in files[0].name
    from scorekeeper import winprob

    winprob.clear_memory()
    again = solve_winprob(rules, tmp_path)
    assert again is not first
    assert np.array_equal(again.table, first.table)
    assert again.seconds == pytest.approx(first.seconds)
    files[0].write_bytes(b"not an npz")
    winprob.clear_memory()
    fresh = solve_winprob(rules, tmp_path)
    assert np.array_equal(fresh.table, first.table)
    assert fair_compensation(rules, tmp_path) == first.fair_compensation()


def test_handicaps_join_the_cached_table(tmp_path: Path) -> None:
    rules = find_rules("standard", {"target": 800})
    first = solve_winprob(rules, tmp_path, margin=500)
    assert first.start is None  # the handicaps are solved on first use
    fair = first.fair_compensation()
    from scorekeeper import winprob

    winprob.clear_memory()
    again = solve_winprob(rules, tmp_path, margin=500)
    assert again.start is not None and np.array_equal(again.start, first.start)
    assert again.fair_compensation() == fair


def test_cli_prints_one_json_object(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["winprob", "--rules", "minimal", "--set", "target=1000", "--set", "final_round=false"]
    code = main([*base, "--cache-dir", str(tmp_path), "--compensation", "100"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"p_first", "fair_compensation", "seconds"}
    table = solve_winprob(find_rules("minimal", {"target": 1000, "final_round": False}), tmp_path)
    assert out["p_first"] == pytest.approx(table.p_win(0, 100))
    assert out["fair_compensation"] == table.fair_compensation()
    assert main([*base, "--cache-dir", str(tmp_path), "--scores", "500", "250"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["p_first"] == pytest.approx(table.p_win(500, 250))


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--rules", "zilch-online"], "farkle_streak_penalty"),
        (["--set", "target=1000", "--scores", "1000", "0"], "reached the target"),
        (["--set", "target=1000", "--compensation", "30"], "compensation"),
    ],
)
def test_cli_bad_input_exits_2(
    extra: list[str], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["winprob", "--cache-dir", str(tmp_path), *extra]) == 2
    assert words in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--scores", "100", "x"], "--scores: expected a whole number of points"),
        (["--compensation", "abc"], "a multiple of 50, 0 or more), got 'abc'"),
    ],
)
def test_cli_points_that_are_not_numbers_exit_2_saying_what_is_accepted(
    extra: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["winprob", *extra])
    assert exit_.value.code == 2
    assert words in capsys.readouterr().err


def test_handicap_solver_matches_the_table_when_opening_costs_nothing() -> None:
    # an opening minimum of 50 binds no more than banking at all: being off the board on C
    # is then the same as being on it, so the handicap solver must reproduce the table
    rules = find_rules("minimal", {"target": 1000, "opening_minimum": 50})
    table = solve_fresh(rules, margin=500)
    start = table.handicaps()
    assert len(start) == 20
    assert np.allclose(start, table.table[0, : len(start)], atol=1e-12, rtol=0)


def test_compensation_off_the_board_is_worth_less_than_points_on_it() -> None:
    rules = find_rules("original", {"target": 1500})  # 1,000 to open
    table = solve_fresh(rules, margin=500)
    start = table.handicaps()
    assert start[0] == pytest.approx(table.table[0, 0], abs=1e-12)
    # more compensation helps the second player, while an opening bank of 1,000 cannot cross
    # the target (from 500 on it can: see the final-round finding above)
    assert np.all(np.diff(start[:10]) < 0)
    assert np.all(start[1:] > table.table[0, 1 : len(start)])
    fair = table.fair_compensation()
    assert 0 < fair < 1000 and table.p_start(fair) == pytest.approx(0.5, abs=0.01)
    assert table.p_start(1200) < start[-1]  # beyond the range solved with the table
    with pytest.raises(PositionError, match="multiple of 50"):
        table.p_start(120)


def test_cache_files_are_versioned_and_leave_no_temporary_files(tmp_path: Path) -> None:
    from scorekeeper.cache import load_npz, npz_path, save_npz

    rules = {"target": 500}
    path = npz_path(tmp_path / "sub", "key-m5000", 7)
    assert path.name == "key-m5000-v7.npz"
    assert save_npz(path, {"table": np.eye(2)}, {"version": 7, "rules": rules}, compress=True)
    assert [p.name for p in path.parent.iterdir()] == [path.name]
    found = load_npz(path, 7, rules)
    assert found is not None and np.array_equal(found.arrays["table"], np.eye(2))
    assert load_npz(path, 8, rules) is None and load_npz(path, 7, {"target": 600}) is None
    assert load_npz(tmp_path / "missing.npz", 7, rules) is None
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert not save_npz(blocked / "x.npz", {}, {"version": 7})
