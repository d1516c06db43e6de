"""``scorekeeper winprob``: the two-player game solved for win probability."""

from __future__ import annotations

import argparse
import time

from scorekeeper.cli.common import add_rules_options, print_json, rules_from_args
from scorekeeper.errors import PositionError
from scorekeeper.winprob import solve_fresh, solve_winprob


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``winprob`` subcommand."""
    p = sub.add_parser(
        "winprob",
        help="chance that the player to start wins, and the fairest handicap, as JSON",
        description=(
            "Solve two-player Farkle for win probability under optimal play by both and print "
            '{"p_first", "fair_compensation", "seconds"}: the chance that the player about to '
            "start a turn on A points beats the opponent on B (or, without --scores, that the "
            "first player beats a second given C starting points, which do not put them on the "
            "board), the second player's starting points that make the game fairest, and the "
            "seconds it all took (the solve, or the cache load)."
        ),
    )
    add_rules_options(p)
    p.add_argument(
        "--scores",
        nargs=2,
        type=_points,
        metavar=("A", "B"),
        help="banked scores of the player to throw and the opponent (default 0 and C)",
    )
    p.add_argument(
        "--compensation",
        type=_points,
        default=0,
        metavar="C",
        help="starting points of the second player (default 0); the default for B",
    )
    p.add_argument("--cache-dir", help="folder of the solved-table cache (default: user cache)")
    p.add_argument(
        "--fresh", action="store_true", help="solve afresh, bypassing and not filling the cache"
    )
    p.set_defaults(func=cmd_winprob)


def _points(text: str) -> int:
    """An argparse type: a whole number of points (the range is checked by the solver)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of points (a multiple of 50, 0 or more), got {text!r}"
        ) from None


def cmd_winprob(args: argparse.Namespace) -> int:
    """Print the first player's chance to win and the fair compensation as one JSON object."""
    _, rules = rules_from_args(args)
    if args.compensation < 0 or args.compensation % 50:
        raise PositionError(
            f"bad --compensation {args.compensation}: it must be a multiple of 50, 0 or more"
        )
    began = time.perf_counter()
    table = solve_fresh(rules) if args.fresh else solve_winprob(rules, args.cache_dir)
    p_first = table.p_win(*args.scores) if args.scores else table.p_start(args.compensation)
    fair = table.fair_compensation()
    seconds = time.perf_counter() - began
    print_json({"p_first": p_first, "fair_compensation": fair, "seconds": round(seconds, 3)})
    return 0
