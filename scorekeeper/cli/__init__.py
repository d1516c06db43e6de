"""The ``scorekeeper`` command line: one subcommand module per entry of ``COMMANDS``.

Each module has ``register(subparsers)``, which adds its subcommands and sets ``func`` on each:
a function taking the parsed arguments and returning the exit code. A ``ValueError`` (every
domain error is one) is printed to stderr and exits 2; so are argparse's usage errors.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from types import ModuleType

from scorekeeper.cli import (
    camera_cmds,
    review_cmds,
    rules_cmds,
    serve_cmds,
    strategy_cmds,
    vision_cmds,
    winprob_cmds,
)

COMMANDS: tuple[ModuleType, ...] = (
    rules_cmds,
    serve_cmds,
    strategy_cmds,
    camera_cmds,
    winprob_cmds,
    vision_cmds,
    review_cmds,
)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="scorekeeper",
        description="Farkle score keeper: house-rules scoring, optimal advice, dice reading.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for module in COMMANDS:
        module.register(sub)
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
