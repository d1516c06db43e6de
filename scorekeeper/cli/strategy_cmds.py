"""``scorekeeper solve`` and ``scorekeeper suggest``: the strategy advisor from the command line."""

from __future__ import annotations

import argparse
from typing import Any

from scorekeeper.cli.common import add_rules_options, print_json, rules_from_args
from scorekeeper.errors import StrategyError
from scorekeeper.rules import Rules, find_rules
from scorekeeper.scoring import Dice, parse_faces
from scorekeeper.strategy import advise, advise_pass, solve_rules


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``solve`` and ``suggest`` subcommands."""
    p = sub.add_parser("solve", help="solve the optimal turn for a rule set afresh; print JSON")
    add_rules_options(p)
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("suggest", help="rank every option after a throw, best first, as JSON")
    add_rules_options(p)
    p.add_argument(
        "--turn-total",
        type=int,
        default=0,
        metavar="T",
        help="the turn total before this throw (a multiple of 50)",
    )
    p.add_argument("--banked", type=int, default=0, metavar="B", help="the player's banked score")
    p.add_argument(
        "--not-on-board",
        action="store_true",
        help="the player has not banked yet (the opening minimum applies)",
    )
    p.add_argument(
        "--streak", type=int, default=0, metavar="K", help="farkles in a row so far: 0, 1 or 2"
    )
    p.add_argument(
        "--beat",
        type=int,
        default=None,
        metavar="S",
        help="final round: the leader's score to beat (maximise the win chance)",
    )
    p.add_argument(
        "--cache-dir",
        default=None,
        metavar="DIR",
        help="the solved-policy cache folder (default: the user cache folder)",
    )
    p.add_argument(
        "--passed",
        type=int,
        default=None,
        metavar="T",
        help="pass_dice: instead of a throw, advise on taking over a passed total T",
    )
    p.add_argument(
        "--passed-dice",
        type=int,
        default=None,
        metavar="N",
        help="pass_dice: the dice passed with --passed (1 to 6; 6 after hot dice)",
    )
    p.add_argument(
        "--tripled",
        default="",
        metavar="FACES",
        help="triple_addon: the faces kept as three of a kind earlier in the turn, e.g. 6,4",
    )
    p.add_argument("dice", nargs="*", metavar="DIE", help="the thrown dice, e.g. 1 5 5 2 3 4")
    p.set_defaults(func=cmd_suggest)


def _rules_json(args: argparse.Namespace) -> dict[str, Any]:
    name, rules = rules_from_args(args)
    out: dict[str, Any] = {"rules": name}
    if args.overrides:
        out["overrides"] = rules.differences(find_rules(name))
    return out


def cmd_solve(args: argparse.Namespace) -> int:
    """Solve afresh (bypassing the cache) and print the summary as one JSON object."""
    _, rules = rules_from_args(args)
    summary = solve_rules(rules)
    print_json({**_rules_json(args), **summary.to_dict()})
    return 0


def cmd_suggest(args: argparse.Namespace) -> int:
    """Print the advice for a throw: outcome, best option and every option, ranked."""
    _, rules = rules_from_args(args)
    if args.passed is not None or args.passed_dice is not None:
        return _suggest_pass(args, rules)
    if not args.dice:
        raise StrategyError(
            "give the thrown dice (e.g. 1 5 5 2 3 4), or --passed T --passed-dice N to advise"
            " on passed dice"
        )
    throw = Dice(parse_faces(" ".join(args.dice)))
    advice = advise(
        rules,
        throw,
        turn_total=args.turn_total,
        banked=args.banked,
        on_board=not args.not_on_board,
        streak=args.streak,
        beat=args.beat,
        cache_dir=args.cache_dir,
        tripled=parse_faces(args.tripled) if args.tripled.strip() else (),
    )
    print_json({**_rules_json(args), **advice.to_dict()})
    return 0


def _suggest_pass(args: argparse.Namespace, rules: Rules) -> int:
    """Print the advice on passed dice: take over ``--passed`` with ``--passed-dice``, or not."""
    if args.passed is None or args.passed_dice is None or args.dice:
        raise StrategyError(
            "passed dice are given as --passed T --passed-dice N together, without a throw's"
            " dice (e.g. --passed 350 --passed-dice 2)"
        )
    if not rules.pass_dice:
        raise StrategyError(
            "these rules do not pass dice; add --set pass_dice=true to advise on passed dice"
        )
    advice = advise_pass(
        rules,
        args.passed,
        args.passed_dice,
        banked=args.banked,
        on_board=not args.not_on_board,
        streak=args.streak,
        beat=args.beat,
        cache_dir=args.cache_dir,
    )
    print_json({**_rules_json(args), **advice.to_dict()})
    return 0
