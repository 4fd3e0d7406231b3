"""The `pacman-ai` command line: play, replay, layouts, tree, bench, batch, compare, grade, solve.

Each subcommand is a module of this package with `add_parser(commands)`, which
registers its flags, and `run(args)`, which does the work and returns the exit
status; `args` holds what they share (argument types, `UsageError`, exit
codes). Usage errors (a bad flag, layout, agent spec) print one line and exit
with status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import Sequence

from pacman.cli import batch, bench, compare, grade, layouts, play, replay, solve, tree
from pacman.cli.args import EXIT_INTERRUPTED, EXIT_USAGE, OneLineParser, UsageError
from pacman.errors import PacmanError
from pacman.hints import calling

__all__ = ["main", "build_parser"]

#: The subcommands in the order of the help, by name.
SUBCOMMANDS = {"play": play, "replay": replay, "layouts": layouts, "tree": tree, "bench": bench, "batch": batch,
               "compare": compare, "grade": grade, "solve": solve}


def _version() -> str:
    """The installed distribution's version (pyproject's), or says that pacman-ai is not installed."""
    from importlib import metadata

    try:
        return metadata.version("pacman-ai")
    except metadata.PackageNotFoundError:
        return "(version unknown: run from a source tree that is not installed)"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = OneLineParser(
        prog="pacman-ai",
        description="Pacman with expectimax agents: watch games, replay them, run headless batches, "
                    "solve game trees, grade assignments, list layouts, measure speed.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}",
                        help="print the version of pacman-ai and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    commands.required = True
    for module in SUBCOMMANDS.values():
        module.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
        with calling(args.command):  # refusals from agents and the solver name this command's flags
            return SUBCOMMANDS[args.command].run(args)
    except UsageError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    except PacmanError as exc:
        print(f"pacman-ai: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM / SIGHUP where a command stops on them (RunSignal)
        number = getattr(exc, "signal", None)
        with contextlib.suppress(OSError, ValueError):
            print("pacman-ai: interrupted" if number is None else f"pacman-ai: stopped by {exc}", file=sys.stderr)
        return EXIT_INTERRUPTED if number is None else 128 + int(number)
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0

