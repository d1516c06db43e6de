"""Strategy advisor speed: cold solve per preset (with and without a streak penalty), warm advice.

Run: ``.venv/bin/python benchmarks/bench_advisor.py`` (every preset) or ``... --options`` (the
standard rules with each option of issue 30 that the advisor values set, one at a time; run it
on one core with ``OMP_NUM_THREADS=1 taskset -c 0``). Prints one line per rule set (solve times
are the best of three runs):
* ``cold`` — a solve from nothing: the score table, the chance model, the streak values and
  both base tables (on and off the board); ``solve`` — the same with the score table warm
  (what ``scorekeeper solve`` pays after the first use of a rule set in a process);
* ``advice`` — the median of one ``advise`` call with a warm cache (memory), and
  ``disk`` — one call in a "new process" (memory cleared, the policy read from disk).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time

from scorekeeper.rules import PRESETS, Rules, find_rules
from scorekeeper.scoring import clear_score_tables
from scorekeeper.strategy import advise, clear_memory, policy_for
from scorekeeper.strategy.model import chance_model
from scorekeeper.strategy.policy import solve_policy

REPEATS = 3
THROWS = ("1 5 5 2 3 4", "1 1 5 2 6", "2 2 3 4 6 5", "5 3 4", "1 1 1 2 2 3")
# Each option of issue 30 that the advisor values, at a value that changes the game (on the
# standard rules).
OPTIONS: dict[str, dict[str, object]] = {
    "single_one=200": {"single_one": 200},
    "single_five=100": {"single_five": 100},
    "single_five=0": {"single_five": 0},
    "triple_multiplier=50": {"triple_multiplier": 50},
    "triple_multiplier=200": {"triple_multiplier": 200},
    "full_house=250": {"full_house": 250},
    "four_kind_pair=three_pairs": {"four_kind_pair": "three_pairs", "three_pairs": 750},
    "straight_split (ps 1500)": {"partial_straight": 1500, "straight_split": True},
    "no split (ps 1500)": {"partial_straight": 1500},
    "singles_until_open": {"singles_until_open": True},
    "bonus first throw only": {
        "six_dice_farkle_bonus": 500,
        "six_dice_farkle_bonus_first_throw": True,
    },
    "exact target, bust": {"exact_target": True, "exact_overshoot": "bust"},
    "tie_break=full_round": {"tie_break": "full_round"},
    "bank_max_dice_left=2": {"bank_max_dice_left": 2},
    "bank_max=2, must roll": {"bank_max_dice_left": 2, "hot_dice": "must_roll"},
    "farkle_keeps_points": {"farkle_keeps_points": True},
    "reroll_last_pair": {"reroll_last_pair": True},
    "triple_addon=100 (not exact)": {"triple_addon": 100},
    "dice=5": {"dice": 5},
    "dice=5, ps 750": {"dice": 5, "partial_straight": 750},
    "dice=5, must roll": {"dice": 5, "hot_dice": "must_roll"},
}


def _cold(rules: Rules) -> tuple[float, float, float]:
    """Best of ``REPEATS`` (the machine is shared): from nothing, and with the score table warm."""
    colds, solves = [], []
    for _ in range(REPEATS):
        clear_score_tables()
        chance_model.cache_clear()
        start = time.perf_counter()
        policy = solve_policy(rules)
        colds.append(time.perf_counter() - start)
        chance_model.cache_clear()
        start = time.perf_counter()
        solve_policy(rules)
        solves.append(time.perf_counter() - start)
    return min(colds), min(solves), policy.points_per_turn


def _advice(rules: Rules, folder: str) -> tuple[float, float]:
    policy_for(rules, folder)
    throws = [t for t in THROWS if len(t.split()) <= rules.dice]  # five dice: no six-dice throw
    times = []
    for j in range(300):
        throw = throws[j % len(throws)]
        start = time.perf_counter()
        advise(rules, throw, turn_total=300, banked=2000, cache_dir=folder)
        times.append(time.perf_counter() - start)
    clear_memory()
    start = time.perf_counter()
    advise(rules, throws[0], turn_total=300, cache_dir=folder)
    disk = time.perf_counter() - start
    return statistics.median(times[5:]), disk


def _rule_sets(options: bool) -> list[tuple[str, Rules]]:
    if options:
        return [(label, find_rules("standard", o)) for label, o in OPTIONS.items()]
    out = []
    for name in PRESETS:
        out.append((name, find_rules(name)))
        if not find_rules(name).farkle_streak_penalty:
            out.append((f"{name}+penalty", find_rules(name, {"farkle_streak_penalty": 1000})))
    return out


def main() -> None:
    """Print the figures for every preset, and each with a 1000-point streak penalty (or for
    each scoring option with ``--options``)."""
    print(f"{'rule set':<26}{'cold s':>8}{'solve s':>9}{'advice ms':>11}{'disk ms':>9}  ppt")
    with tempfile.TemporaryDirectory() as folder:
        for label, rules in _rule_sets("--options" in sys.argv[1:]):
            cold, solve, ppt = _cold(rules)
            advice, disk = _advice(rules, folder)
            print(
                f"{label:<26}{cold:>8.3f}{solve:>9.3f}{advice * 1e3:>11.3f}"
                f"{disk * 1e3:>9.2f}  {ppt:.2f}"
            )


if __name__ == "__main__":
    main()
