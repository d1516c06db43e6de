"""The ``scorekeeper`` command line: one subcommand per module listed in ``COMMANDS``.

Each module has ``register(subparsers)``, which adds its subcommands and sets ``func`` on each:
a function taking the parsed arguments and returning the exit code. A ``ValueError`` (every
domain error is one) is printed to stderr and exits 2; so are argparse's usage errors.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

COMMANDS = (
    "scorekeeper.cli.rules_cmds",
    "scorekeeper.cli.serve_cmds",
    "scorekeeper.cli.strategy_cmds",
    "scorekeeper.cli.camera_cmds",
    "scorekeeper.cli.winprob_cmds",
    "scorekeeper.cli.vision_cmds",
    "scorekeeper.cli.review_cmds",
)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="scorekeeper",
        description="Farkle score keeper: house-rules scoring, optimal advice, dice reading.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 2 bad input)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except ValueError as exc:
        print(f"scorekeeper {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        sys.stderr.close()
        return 1
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
