"""`pacman-ai tree`: solve an explicit max/min/chance game tree given as JSON."""

from __future__ import annotations

import argparse
import json
from typing import Any

from pacman.cli.args import UsageError, check_output, non_negative_int

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the `tree` subcommand to the subparsers of the `pacman-ai` parser."""
    tree = commands.add_parser("tree", help="solve an explicit game tree (JSON)",
                               description="Solve an explicit max/min/chance game tree given as JSON: print "
                                           "its value and the best root action; --draw it as lecture slides do.")
    tree.add_argument("file", metavar="FILE.json", help="the tree (format: docs/guide/tree.md, section 'pacman-ai tree')")
    tree.add_argument("--depth", type=non_negative_int, default=None, metavar="N",
                      help="cut the search N edges below the root, using inner nodes' \"value\" (default: whole tree)")
    tree.add_argument("--json", action="store_true", help='print {"value": ..., "action": ...}')
    tree.add_argument("--draw", metavar="OUT", default=None,
                      help="also draw the tree to OUT.svg, OUT.png or OUT.pdf: max nodes as upward triangles, min "
                           "downward, chance circles, leaves squares, values at every node, the chosen path "
                           "highlighted, nodes cut by --depth dashed with their heuristic")
    return tree


def run(args: argparse.Namespace) -> int:
    """Run `pacman-ai tree`; returns the exit status."""
    from pacman.agents.trees import format_tree_result, load_tree, solve_tree, tree_report

    if args.draw is not None:
        from pacman.draw import DrawError, drawing_format

        check_output("tree", "--draw", args.draw)
        try:
            drawing_format(args.draw)
        except DrawError:
            raise UsageError(f"pacman-ai tree: --draw {args.draw!r}: expected a file name ending in .svg, .png "
                             f"or .pdf") from None
    root = load_tree(args.file)
    if args.draw is not None:
        from pacman.draw import draw_tree_file

        result = draw_tree_file(root, args.draw, depth=args.depth)
    else:
        result = solve_tree(root, depth=args.depth)
    print(json.dumps(tree_report(result)) if args.json else format_tree_result(_shown(result)))
    return 0


SIGNIFICANT_DIGITS = 12
"""Digits `tree` prints a value to: sums of products of the input's numbers carry floating-point noise in the
last of a double's 15-17 digits (0.1 * 1 + 0.9 * 2 is 1.9000000000000001), far below anything a tree's
numbers can mean; --json keeps the exact float."""


def _shown(result: Any) -> Any:
    """`result` with its value rounded to SIGNIFICANT_DIGITS for printing (1.9000000000000001 -> 1.9)."""
    import dataclasses
    import math

    value = float(result.value)
    if not math.isfinite(value) or value == 0:
        return result
    rounded = float(f"{value:.{SIGNIFICANT_DIGITS}g}")
    return dataclasses.replace(result, value=rounded) if dataclasses.is_dataclass(result) else result
