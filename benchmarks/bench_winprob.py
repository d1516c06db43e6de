"""Win-probability solver speed: full solve time and peak memory per preset, advice time.

Run: ``.venv/bin/python benchmarks/bench_winprob.py [--presets a,b] [--target POINTS]``.
Each rule set is solved in a fresh child process (so its peak resident memory is its own),
bypassing every cache, and then asked for advice. One line per rule set:
* ``solve`` — wall seconds of the full two-player solve, ``cpu`` — its CPU seconds (the
  machine is shared, so wall time varies with load), ``passes`` — turn passes it used;
* ``peak`` — the child's peak resident memory (MiB), the interpreter and numpy included;
* ``p_first`` — the starting player's chance to win, ``fair`` — the fairest compensation,
  ``hcap s`` — the CPU seconds of the handicap solve it needs under an opening minimum;
* ``advice`` — the median time of ``option_values`` for a throw once the position's turn is
  warm (the same turn), and ``new turn`` — the median for the first throw of a new turn
  (a fresh pair of scores: one turn's backward induction, then the options).
``--margins standard`` instead compares solves with a leader's cap (``margin``) of 2,500,
5,000 and 10,000 points past the target: the largest change of any turn-start value.
Presets whose rules the solver does not support (``zilch``, ``zilch-online``: a farkle streak
penalty) are run without that rule and marked so.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time

from scorekeeper.errors import UnsupportedRulesError
from scorekeeper.rules import PRESETS, find_rules
from scorekeeper.winprob import check_supported, solve_fresh

THROWS = ("1 5 5 2 3 4", "1 1 5 2 6", "2 2 3 4 6 5", "5 3 4", "1 1 1 2 2 3")


def child(preset: str, overrides: dict[str, object]) -> None:
    """Solve one rule set and print its figures as JSON (runs in a child process)."""
    rules = find_rules(preset, overrides)
    start, cpu = time.perf_counter(), time.process_time()
    table = solve_fresh(rules)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    cpu_h = time.process_time()
    fair = table.fair_compensation()
    handicap = time.process_time() - cpu_h
    target = rules.target
    warm, cold = [], []
    scores = [(s, (s * 7 + 1000) % target // 50 * 50) for s in range(0, target - 1000, 450)]
    for me, opp in scores:
        for throw in THROWS:
            start = time.perf_counter()
            table.option_values(me, opp, 300, throw)
            took = time.perf_counter() - start
            (warm if throw != THROWS[0] else cold).append(took)
    print(
        json.dumps(
            {
                "solve": seconds,
                "cpu": cpu,
                "passes": table.passes,
                "peak_mib": peak_mib,
                "p_first": table.p_first(),
                "fair": fair,
                "handicap_cpu": handicap,
                "advice_ms": statistics.median(warm) * 1e3,
                "new_turn_ms": statistics.median(cold) * 1e3,
            }
        )
    )


def margins(preset: str, target: int | None) -> None:
    """Print how much the turn-start values move when the final-round cap is raised."""
    rules = find_rules(preset, {"target": target} if target else {})
    tables = {m: solve_fresh(rules, margin=m).table for m in (2500, 5000, 10000)}
    for m in (2500, 5000):
        diff = float(abs(tables[m] - tables[10000]).max())
        print(f"{preset} target {rules.target}: margin {m} vs 10000: max change {diff:.2e}")


def main() -> None:
    """Run every preset (or those asked for) in child processes and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", default=",".join([*PRESETS, "busche-neller"]))
    parser.add_argument("--target", type=int, default=None, help="override the target")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--margins", metavar="PRESET", help="compare final-round caps")
    args = parser.parse_args()
    if args.margins:
        margins(args.margins, args.target)
        return
    if args.child:
        preset, overrides = json.loads(args.child)
        child(preset, overrides)
        return
    print(
        f"{'rules':<28} {'solve s':>8} {'cpu s':>6} {'passes':>7} {'peak MiB':>9} {'p_first':>8} "
        f"{'fair':>5} {'hcap s':>7} {'advice ms':>10} {'new turn ms':>12}"
    )
    for name in args.presets.split(","):
        preset, overrides, label = name, {}, name
        if name == "busche-neller":
            preset, overrides = "minimal", {"final_round": False}
            label = "minimal, final_round=false"
        if args.target:
            overrides = {**overrides, "target": args.target}
        try:
            check_supported(find_rules(preset, overrides))
        except UnsupportedRulesError:
            overrides = {**overrides, "farkle_streak_penalty": 0}
            label = f"{name} (no streak penalty)"
        out = subprocess.run(
            [sys.executable, __file__, "--child", json.dumps([preset, overrides])],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        r = json.loads(out)
        print(
            f"{label:<28} {r['solve']:>8.1f} {r['cpu']:>6.1f} {r['passes']:>7} "
            f"{r['peak_mib']:>9.0f} {r['p_first']:>8.4f} {r['fair']:>5} "
            f"{r['handicap_cpu']:>7.1f} {r['advice_ms']:>10.2f} "
            f"{r['new_turn_ms']:>12.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
