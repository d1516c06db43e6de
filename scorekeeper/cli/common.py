"""Options and helpers shared by the subcommands."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from scorekeeper.rules import Rules, named_rules


def add_rules_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--rules PRESET`` and repeatable ``--set KEY=VALUE``."""
    parser.add_argument(
        "--rules",
        default="standard",
        metavar="PRESET",
        help="rules preset: standard, playmonster, original, no-combos, zilch, zilch-online,"
        " minimal",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        dest="overrides",
        help="override one rules option (repeatable), e.g. --set opening_minimum=0",
    )


def rules_from_args(args: argparse.Namespace) -> tuple[str, Rules]:
    """The preset's canonical name and the rules built from ``--rules`` and ``--set``."""
    return named_rules(args.rules, args.overrides)


def print_json(obj: Any) -> None:
    """Print one JSON document to stdout."""
    json.dump(obj, sys.stdout, indent=None, separators=(", ", ": "))
    sys.stdout.write("\n")
