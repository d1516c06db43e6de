"""Benchmark the event log: replaying a long game, an undo, a redo, and a correction of an early
turn (checked by replaying the game) and its preview.

A seeded game of two players and 100 turns (about 400 events, a long game night) is built
with the engine; each figure is the median of ``--repeat`` runs, in milliseconds.
Run: ``.venv/bin/python benchmarks/bench_log.py`` (``--turns N``, ``--repeat N``).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from scorekeeper.game import advance, replay
from scorekeeper.game.actions import parse_action, parse_setup
from scorekeeper.game.corrections import correction_event, preview_correction


def _game(turns: int, seed: int) -> list[dict[str, Any]]:
    """A game of ``turns`` turns: random throws, the first legal keep, bank from 300 up."""
    rng = random.Random(seed)
    rules = {"preset": "standard", "overrides": {"opening_minimum": 0, "target": 10**6}}
    events: list[dict[str, Any]] = [parse_setup({"players": ["Ann", "Bob"], "rules": rules})]
    game = replay(events)
    while len(game.history) < turns:
        st = game.to_json()
        t = st["turn"]
        if t["throw"] is not None:
            event = parse_action({"type": "keep", "dice": t["keeps"][0]["keep"]})
        elif t["can_bank"] and t["total"] >= 300:
            event = parse_action({"type": "bank"})
        else:
            dice = [rng.randint(1, 6) for _ in range(t["dice_left"])]
            event = parse_action({"type": "throw", "dice": dice})
        game = advance(game, events, event)
        events.append(event)
    return events


def _ms(fn: Callable[[], object], repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(runs), 2)


def main() -> None:
    """Print one JSON line of figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    events = _game(args.turns, seed=7)
    last = len(events) - 1
    undo = {"type": "undo", "undoes": last}
    fix = correction_event(1, [{"type": "quick_score", "points": 500}])
    corrected = [*events, fix]
    game = replay(events)
    undone = [*events, undo]
    game_undone = replay(undone)
    redo = {"type": "redo", "redoes": last}
    print(
        json.dumps(
            {
                "events": len(events),
                "replay_ms": _ms(lambda: replay(events), args.repeat),
                "undo_ms": _ms(lambda: advance(game, events, undo), args.repeat),
                "redo_ms": _ms(lambda: advance(game_undone, undone, redo), args.repeat),
                "correct_turn_1_ms": _ms(lambda: advance(game, events, fix), args.repeat),
                "replay_with_turn_1_corrected_ms": _ms(lambda: replay(corrected), args.repeat),
                "preview_correction_of_turn_1_ms": _ms(
                    lambda: preview_correction(events, fix), args.repeat
                ),
            }
        )
    )


if __name__ == "__main__":
    main()
