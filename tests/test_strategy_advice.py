"""Advice for a throw: ranking, rule-forbidden options, game context, caches, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorekeeper.errors import DiceError, StrategyError
from scorekeeper.rules import find_rules
from scorekeeper.scoring import Dice, legal_keeps
from scorekeeper.strategy import advise, clear_memory, policy_for
from scorekeeper.strategy.policy import cache_path


@pytest.fixture
def cache(tmp_path: Path) -> str:
    """A fresh on-disk policy cache."""
    return str(tmp_path / "policies")


def test_keeping_a_lone_one_beats_taking_every_point(cache: str) -> None:
    advice = advise(find_rules("standard"), "1 5 5 2 3 4", cache_dir=cache)
    best = advice.best
    assert best is not None and best.action == "roll"
    assert best.keep == Dice.parse("1") and best.dice_to_throw == 5
    values = {(str(o.keep), o.action): o.value for o in advice.options}
    assert values[("1", "roll")] > values[("1 5 5", "roll")] > values[("1 5 5", "bank")]
    assert best.reason.startswith("Keep the 1 and throw 5 dice: ")
    assert "expected, banking now gives 100" in best.reason


def test_every_legal_keep_appears_with_both_actions_ranked(cache: str) -> None:
    rules = find_rules("standard")
    throw = Dice.parse("1 1 1 5 2 6")
    advice = advise(rules, throw, turn_total=0, cache_dir=cache)
    keeps = {str(k.dice) for k in legal_keeps(throw, rules)}
    assert {str(o.keep) for o in advice.options} == keeps
    assert len(advice.options) == 2 * len(keeps)
    allowed = [o for o in advice.options if o.allowed]
    assert [o.value for o in allowed] == sorted((o.value for o in allowed), reverse=True)
    assert all(o.value_kind == "expected_points" for o in advice.options)
    for o in advice.options:
        if o.action == "roll":
            assert o.next_farkle_probability is not None
            assert 0 <= o.next_farkle_probability < 1
        else:
            assert o.next_farkle_probability is None
    json.dumps(advice.to_dict())


def test_banking_below_the_opening_minimum_is_shown_but_not_allowed(cache: str) -> None:
    advice = advise(find_rules("standard"), "1 5 2 3 4 4", on_board=False, cache_dir=cache)
    banks = [o for o in advice.options if o.action == "bank"]
    assert banks and not any(o.allowed for o in banks)
    assert all("500 in one turn" in (o.why_not or "") for o in banks)
    assert advice.options[-1].allowed is False  # forbidden options rank last
    on_board = advise(find_rules("standard"), "1 5 2 3 4 4", turn_total=300, cache_dir=cache)
    assert all(o.allowed for o in on_board.options)


def test_the_bank_minimum_and_must_roll_hot_dice_forbid_banking(cache: str) -> None:
    zilch = advise(find_rules("zilch-online"), "5 2", turn_total=200, cache_dir=cache)
    bank = next(o for o in zilch.options if o.action == "bank")
    assert not bank.allowed and "bank minimum is 300" in (bank.why_not or "")
    original = advise(find_rules("original"), "1 5", turn_total=1500, cache_dir=cache)
    hot_bank = next(o for o in original.options if o.action == "bank" and len(o.keep) == 2)
    assert not hot_bank.allowed and "hot dice" in (hot_bank.why_not or "")
    hot_roll = next(o for o in original.options if o.action == "roll" and len(o.keep) == 2)
    assert hot_roll.dice_to_throw == 6 and "hot dice" in hot_roll.reason


def test_final_round_advice_maximises_the_win_chance_and_never_banks_below(cache: str) -> None:
    rules = find_rules("standard")
    for total in range(0, 1500, 150):
        for throw in ("1 5 2 3 4 6", "1 1 5 3 4", "5 5 2", "1"):
            advice = advise(rules, throw, turn_total=total, banked=8000, beat=9000, cache_dir=cache)
            for o in advice.options:
                assert 0.0 <= o.value <= 1.0
                assert o.value_kind == "win_probability"
                if o.action == "bank" and o.allowed:
                    assert 8000 + o.turn_total > 9000
            best = advice.best
            assert best is not None
            if best.action == "bank":
                assert 8000 + best.turn_total > 9000
    tie = advise(rules, "5 2 3", turn_total=950, banked=8000, beat=9000, cache_dir=cache)
    tie_bank = next(o for o in tie.options if o.action == "bank")
    assert not tie_bank.allowed and "tie" in (tie_bank.why_not or "")
    loose = rules.with_overrides({"final_round_must_beat": False})
    tie2 = advise(loose, "5 2 3", turn_total=950, banked=8000, beat=9000, cache_dir=cache)
    assert next(o for o in tie2.options if o.action == "bank").allowed


def test_a_turn_that_reaches_the_target_banks(cache: str) -> None:
    advice = advise(find_rules("standard"), "1 2 3 4 6 6", banked=9900, cache_dir=cache)
    best = advice.best
    assert best is not None and best.action == "bank" and "target" in best.reason
    assert best.turn_total == 100
    assert best.reason.endswith(": 10,000 reaches the target of 10,000")
    far = advise(find_rules("standard"), "1 2 3 4 6 6", banked=0, cache_dir=cache)
    assert far.best is not None and far.best.action == "roll"


def test_outcomes_without_a_choice(cache: str) -> None:
    rules = find_rules("standard", {"toxic_twos": True, "six_ones_win": True})
    assert advise(rules, "2 3 4 6 6 3", cache_dir=cache).outcome == "farkle"
    toxic = advise(rules, "2 2 2 2 1 5", banked=3000, cache_dir=cache)
    assert toxic.outcome == "toxic_twos" and toxic.options == () and toxic.best is None
    assert advise(rules, "1 1 1 1 1 1", cache_dir=cache).outcome == "six_ones_win"
    bonus = advise(find_rules("zilch-online"), "2 3 4 6 6 3", turn_total=0, cache_dir=cache)
    assert bonus.outcome == "farkle_bonus" and "500" in bonus.message


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"turn_total": 55}, "multiple of 50"),
        ({"turn_total": -50}, "multiple of 50"),
        ({"dice_left": 4}, "4 dice were left"),
        ({"dice_left": 7}, "1 to 6"),
        ({"banked": -500}, "negative only with a farkle streak penalty"),
        ({"banked": 1000, "on_board": False}, "on the board"),
        ({"streak": 3}, "0, 1 or 2"),
        ({"beat": 75}, "score to beat"),
    ],
)
def test_impossible_states_are_clear_errors(
    cache: str, kwargs: dict[str, object], words: str
) -> None:
    with pytest.raises(StrategyError, match=words):
        advise(find_rules("standard"), "1 5 2", cache_dir=cache, **kwargs)  # type: ignore[arg-type]


def test_negative_scores_are_fine_with_a_streak_penalty(cache: str) -> None:
    advice = advise(
        find_rules("zilch-online"), "1 5 2", turn_total=300, banked=-500, streak=2, cache_dir=cache
    )
    assert advice.best is not None
    with pytest.raises(DiceError):
        advise(find_rules("zilch-online"), "1 5 7", cache_dir=cache)


def test_streak_states_change_the_advice_values(cache: str) -> None:
    rules = find_rules("zilch-online")
    calm = advise(rules, "1 5 2 3", turn_total=400, streak=0, cache_dir=cache)
    tense = advise(rules, "1 5 2 3", turn_total=400, streak=2, cache_dir=cache)
    calm_roll = max(o.value for o in calm.options if o.action == "roll")
    tense_roll = max(o.value for o in tense.options if o.action == "roll")
    assert tense_roll < calm_roll  # a farkle on streak 2 costs the penalty


def test_policies_are_cached_on_disk_and_reloaded(cache: str) -> None:
    rules = find_rules("zilch-online")
    first = advise(rules, "1 5 2 3 4 6", turn_total=300, cache_dir=cache).to_dict()
    path = cache_path(rules, Path(cache))
    assert path.exists()
    clear_memory()
    policy = policy_for(rules, cache)
    assert policy.points_per_turn == pytest.approx(620.85467, abs=1e-4)
    assert advise(rules, "1 5 2 3 4 6", turn_total=300, cache_dir=cache).to_dict() == first
    assert policy_for(rules, cache) is policy  # the memory LRU answers the second call
    path.write_bytes(b"not a numpy file")
    clear_memory()
    assert policy_for(rules, cache).points_per_turn == pytest.approx(policy.points_per_turn)


def test_an_exact_target_banks_on_the_target_and_never_overshoots(cache: str) -> None:
    rules = find_rules("standard", {"exact_target": True})
    advice = advise(rules, "1 1 1 5 2 3", banked=9000, cache_dir=cache)
    best = advice.best
    assert best is not None and best.action == "bank" and best.turn_total == 1000
    over = next(o for o in advice.options if o.action == "bank" and o.turn_total == 1050)
    assert over.value == 0.0 and "overshoots" in over.reason
    assert "bank 1,050: 10,050 overshoots the target of 10,000" in over.reason
    assert advice.options.index(over) > advice.options.index(best)
    assert any(o.value > 0 for o in advice.options[1 : advice.options.index(over)])
