"""Benchmark the scoring engine: the full six-dice sweep and one ``score`` call.

Prints one JSON line per measurement. Run: ``.venv/bin/python benchmarks/bench_scoring.py``.
"""

from __future__ import annotations

import json
import statistics
import time
from itertools import product

from scorekeeper.rules import Rules, find_rules
from scorekeeper.scoring import Dice, clear_score_tables, legal_keeps, table_for


def sweep(rules: Rules) -> tuple[float, int]:
    """Seconds to list the legal keeps of all 46,656 ordered six-dice throws, cold tables."""
    clear_score_tables()
    start = time.perf_counter()
    total = 0
    for faces in product(range(1, 7), repeat=6):
        total += len(legal_keeps(Dice(faces), rules))
    return time.perf_counter() - start, total


def per_call(rules: Rules, repeat: int = 5000) -> float:
    """Median microseconds of one warm ``score``: parse, list the keeps, build the JSON form."""
    legal_keeps(Dice.parse("1 1 1 5 2 3"), rules)
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeat):
            [k.to_dict() for k in legal_keeps(Dice.parse("1 1 1 5 2 3"), rules)]
        samples.append((time.perf_counter() - start) / repeat * 1e6)
    return statistics.median(samples)


def main() -> None:
    """Print the figures for the standard rules."""
    rules = find_rules("standard")
    seconds, keeps = sweep(rules)
    print(json.dumps({"bench": "sweep_46656_throws", "rules": "standard",
                      "seconds": round(seconds, 3), "keeps_listed": keeps}))  # fmt: skip
    clear_score_tables()
    start = time.perf_counter()
    table_for(rules)
    build_ms = (time.perf_counter() - start) * 1000
    print(json.dumps({"bench": "table_build", "rules": "standard", "ms": round(build_ms, 1)}))
    print(json.dumps({"bench": "score_one_throw_warm", "rules": "standard",
                      "us_median": round(per_call(rules), 2)}))  # fmt: skip


if __name__ == "__main__":
    main()
