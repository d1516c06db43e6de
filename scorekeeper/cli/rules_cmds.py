"""``scorekeeper rules`` and ``scorekeeper score``: the rules engine from the command line."""

from __future__ import annotations

import argparse

from scorekeeper.cli.common import add_rules_options, print_json, rules_from_args
from scorekeeper.game.actions import game_limits
from scorekeeper.rules import check_playable, find_rules, parse_assignments
from scorekeeper.scoring import Dice, check_tripled, keeps_report, parse_faces


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``rules`` and ``score`` subcommands."""
    p = sub.add_parser("rules", help="print a preset's full options as JSON")
    p.add_argument("preset", nargs="?", default="standard", help="preset name (default standard)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides")
    p.add_argument(
        "--limits",
        action="store_true",
        help="print a game's set-up limits instead (players, name length), as the API gives them",
    )
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser("score", help="list every legal keep of a throw as JSON")
    add_rules_options(p)
    p.add_argument(
        "--tripled",
        default="",
        metavar="FACES",
        help="triple_addon: the faces kept as three of a kind earlier in the turn, e.g. 6",
    )
    p.add_argument("dice", nargs="+", metavar="DIE", help="the thrown dice, e.g. 1 1 1 5 2 3")
    p.set_defaults(func=cmd_score)


def cmd_rules(args: argparse.Namespace) -> int:
    """Print the options of a preset (with overrides) as one JSON object, or the limits."""
    if args.limits:
        print_json(game_limits())
        return 0
    rules = find_rules(args.preset, parse_assignments(args.overrides))
    check_playable(rules)  # a table checking its rules hears what no game could play
    print_json(rules.to_dict())
    return 0


def cmd_score(args: argparse.Namespace) -> int:
    """Print every legal keep of the throw, most points first."""
    name, rules = rules_from_args(args)
    order = parse_faces(" ".join(args.dice))
    out: dict[str, object] = {"dice": order, "rules": name}
    if args.overrides:
        out["overrides"] = rules.differences(find_rules(name))
    tripled = check_tripled(rules, parse_faces(args.tripled) if args.tripled.strip() else ())
    if tripled:
        out["tripled"] = list(tripled)
    out.update(keeps_report(Dice(order), rules, tripled))
    print_json(out)
    return 0
