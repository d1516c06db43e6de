"""Advice speed under the game variants of issue 30 that add a decision or change the final
round: ``pass_dice`` (take over passed dice or not) and ``final_round_defend``.

Run: ``OMP_NUM_THREADS=1 taskset -c 0 .venv/bin/python benchmarks/bench_variants.py``. Prints,
per rule set (the standard rules with the option set; best of three for solves):
* ``cold s`` — the whole policy from nothing (score table, chance model, both base tables);
* ``pass ms`` — the median of one ``advise_pass`` call with the policy warm (12 passed
  states: 50 to 2,000 points with 1 to 6 dice, on the board and off it);
* ``final ms`` — a final-round ``advise`` (``beat``) for a new score to beat, whose table is
  solved on demand (cold), and ``warm ms`` the same call again.
"""

from __future__ import annotations

import statistics
import tempfile
import time

from scorekeeper.rules import Rules, find_rules
from scorekeeper.scoring import clear_score_tables
from scorekeeper.strategy import advise, advise_pass, clear_memory, policy_for
from scorekeeper.strategy.model import chance_model
from scorekeeper.strategy.policy import solve_policy

REPEATS = 3
PASSED = [(t, n) for t in (50, 350, 2000) for n in (1, 2, 5, 6)]
RULE_SETS = {
    "pass_dice": {"pass_dice": True},
    "pass_dice, no opening": {"pass_dice": True, "opening_minimum": 0},
    "final_round_defend": {"final_round_defend": True},
}


def _cold(rules: Rules) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        clear_score_tables()
        chance_model.cache_clear()
        start = time.perf_counter()
        solve_policy(rules)
        best = min(best, time.perf_counter() - start)
    return best


def _pass(rules: Rules, folder: str) -> float:
    policy_for(rules, folder)
    times = []
    for j in range(240):
        total, dice = PASSED[j % len(PASSED)]
        start = time.perf_counter()
        advise_pass(rules, total, dice, on_board=bool(j % 2), cache_dir=folder)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _final(rules: Rules, folder: str, beat: int) -> tuple[float, float]:
    policy_for(rules, folder)
    out = []
    for _ in range(2):
        start = time.perf_counter()
        advise(rules, "1 5 2 3 4 6", banked=beat - 1500, beat=beat, cache_dir=folder)
        out.append(time.perf_counter() - start)
    return out[0], out[1]


def main() -> None:
    """Print one line per rule set."""
    print(f"{'rule set':<24}{'cold s':>8}{'pass ms':>9}{'final ms':>10}{'warm ms':>9}")
    with tempfile.TemporaryDirectory() as folder:
        for k, (label, overrides) in enumerate(RULE_SETS.items()):
            rules = find_rules("standard", overrides)
            cold = _cold(rules)
            clear_memory()
            passing = _pass(rules, folder) if rules.pass_dice else float("nan")
            final, warm = _final(rules, folder, 10_050 + 50 * k)
            print(
                f"{label:<24}{cold:>8.3f}{passing * 1e3:>9.3f}{final * 1e3:>10.2f}"
                f"{warm * 1e3:>9.3f}"
            )


if __name__ == "__main__":
    main()
