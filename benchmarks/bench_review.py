"""Game review speed: a 3-player, 30-turn game cold and warm, and a two-player win-chance review.

Run: ``.venv/bin/python benchmarks/bench_review.py [--win-target POINTS]``. The games are
played with seeded random throws and plausible choices into a fresh SQLite file; each figure
is the best of three runs (the machine is shared). Prints:

* ``cold`` — ``stored_review`` with the review cache and the in-memory policies cleared, the
  policy read from the disk cache (what a new process pays; aim: at most 1 s);
* ``warm`` — the same call again (the cached review of that version; aim: at most 50 ms);
* ``win`` — a two-player game's first review once its win table exists (aim: at most 2 s),
  one run: it pays each turn's win-value induction, which the table then keeps in memory.
  The table is solved first (not timed), to ``--win-target`` points (default 3,000 to keep
  the benchmark short; a turn's induction grows little with the target).
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from scorekeeper.game import replay
from scorekeeper.game.actions import parse_setup
from scorekeeper.review.service import clear_reviews, stored_review
from scorekeeper.rules import Rules
from scorekeeper.store import append, connect, create_game
from scorekeeper.strategy import clear_memory, policy_for
from scorekeeper.winprob import solve_winprob

REPEATS = 3


def play(conn: Any, players: list[str], rules: dict[str, Any], turns: int, seed: int) -> str:
    """Store a game of ``turns`` turns (or until it ends) played with random dice."""
    rng = random.Random(seed)
    create = parse_setup({"players": players, "rules": rules})
    game_id, _ = create_game(conn, create)
    events: list[dict[str, Any]] = [create]
    version = 0
    while True:
        game = replay(events)
        if game.over or len(game.history) >= turns:
            return game_id
        t = game.turn
        if t.throw is None:
            bank_ok = game.turn_refusal() is None
            if bank_ok and (t.dice_left <= 2 or t.total >= 350) and rng.random() < 0.8:
                ev: dict[str, Any] = {"type": "bank"}
            else:
                ev = {"type": "throw", "dice": [rng.randint(1, 6) for _ in range(t.dice_left)]}
        else:
            keeps = game.table.keeps(t.throw.counts)
            keep = keeps[0] if rng.random() < 0.6 else rng.choice(keeps)
            ev = {"type": "keep", "dice": keep.dice.to_list()}
        append(conn, game_id, version, ev)
        version += 1
        events.append(ev)


def best(fn: Any) -> float:
    """The best of ``REPEATS`` timings of ``fn()`` in seconds."""
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    """Print the three timings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--win-target", type=int, default=3000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        conn = connect(Path(tmp) / "games.sqlite3")
        standard = {"preset": "standard"}
        game3 = play(conn, ["Ann", "Bob", "Cy"], standard, 30, seed=1)
        policy_for(
            Rules.from_dict(parse_setup({"players": ["A"], "rules": standard})["rules"]), cache
        )

        def cold() -> None:
            clear_reviews()
            clear_memory()
            stored_review(conn, game3, cache)

        cold_s = best(cold)
        warm_s = best(lambda: stored_review(conn, game3, cache))
        body = stored_review(conn, game3, cache)
        decisions = sum(len(t["decisions"]) for t in body["turns"])
        print(
            f"3 players, {len(body['turns'])} turns, {decisions} decisions:"
            f" cold {cold_s * 1000:.0f} ms, warm {warm_s * 1000:.2f} ms"
        )
        rules2 = {"preset": "standard", "overrides": {"target": args.win_target}}
        game2 = play(conn, ["Ann", "Bob"], rules2, 60, seed=2)
        create2 = parse_setup({"players": ["A", "B"], "rules": rules2})
        began = time.perf_counter()
        solve_winprob(Rules.from_dict(create2["rules"]), cache / "winprob")
        solve_s = time.perf_counter() - began

        def win() -> None:
            clear_reviews()
            clear_memory()
            stored_review(conn, game2, cache)

        began = time.perf_counter()
        win()  # once: the first review solves each turn's win values (then kept in memory)
        win_s = time.perf_counter() - began
        body2 = stored_review(conn, game2, cache)
        assert body2["win_chance"] == "available"
        print(
            f"2 players, target {args.win_target}, {len(body2['turns'])} turns:"
            f" win-chance review {win_s * 1000:.0f} ms (table solved in {solve_s:.1f} s)"
        )
        conn.close()


if __name__ == "__main__":
    main()
