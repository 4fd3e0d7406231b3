"""`pacman-ai solve`: the exact optimum of a small maze (win probability or expected score) and its first moves."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
from typing import Any

from pacman.agents.solver import GHOST_MODELS, OBJECTIVES
from pacman.cli.args import UsageError, bounded_int, non_negative_int
from pacman.progress import duration, progress_for

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the `solve` subcommand to the subparsers of the `pacman-ai` parser."""
    solve = commands.add_parser(
        "solve", help="the exact optimum of a small maze",
        description="Compute the best any Pacman can do on a small maze against a ghost model: the largest "
                    "probability of winning (--objective win) or the largest expected final score (--objective "
                    "score), by value iteration over every reachable state, and the optimal first moves. Mazes "
                    "whose state count may exceed --max-nodes are refused before anything is computed.")
    solve.add_argument("layout", metavar="LAYOUT", help="shipped layout name or .lay path (small: test, trapped, "
                                                        "coinflip, threeway, corridor, pocket)")
    solve.add_argument("--ghosts", choices=GHOST_MODELS, default="random",
                       help="the ghost model (default: random)")
    solve.add_argument("--objective", choices=OBJECTIVES, default="win",
                       help="maximise the probability of winning (default) or the expected score")
    solve.add_argument("--num-ghosts", type=non_negative_int, default=None, metavar="N",
                       help="keep the layout's first N ghosts (default: all)")
    solve.add_argument("--max-nodes", type=bounded_int(1, 100_000_000), default=None, metavar="N",
                       help="refuse mazes that may have more than N reachable nodes (default: 8000000, at most "
                            "100000000; about 0.6 KB of memory per node really reached, and at most 15000000 "
                            "are explored: minimax needs 100000000, a minute and 1.3 GB; tiny 100000000, "
                            "5 minutes and 7 GB)")
    solve.add_argument("--json", action="store_true", help="print the solution as JSON")
    solve.add_argument("--quiet", action="store_true",
                       help="no progress on stderr (states explored, sweeps of value iteration)")
    return solve


def run(args: argparse.Namespace) -> int:
    """Run `pacman-ai solve`; returns the exit status."""
    from pacman.agents.solver import DEFAULT_MAX_NODES, solve
    from pacman.layout import load_layout

    layout = load_layout(args.layout)
    if args.num_ghosts is not None and args.num_ghosts > layout.num_ghosts:
        raise UsageError(f"pacman-ai solve: --num-ghosts {args.num_ghosts}: layout {layout.name!r} has only "
                         f"{layout.num_ghosts} ghost{'s' if layout.num_ghosts != 1 else ''}")
    with contextlib.ExitStack() as stack:
        progress = progress_for("solve", args.quiet)
        if progress is not None:  # the solver's first line comes once the maze is accepted: a refusal is one line
            stack.enter_context(progress)
        solution = solve(layout, args.ghosts, args.objective, args.num_ghosts,
                         args.max_nodes if args.max_nodes is not None else DEFAULT_MAX_NODES, progress=progress)
        if progress is not None:
            progress.note(f"solved in {duration(progress.elapsed())}")
    if args.json:
        print(json.dumps(solution.to_json()))
        return 0
    what = "probability of winning" if solution.objective == "win" else "expected score"
    ghosts = f"{solution.num_ghosts} {solution.ghosts} ghost{'s' if solution.num_ghosts != 1 else ''}"
    print(f"{solution.layout} with {ghosts}: optimal {what} {_shown(solution.value, solution.objective)}")
    print(f"optimal first moves: {', '.join(a.value for a in solution.best_actions)} "
          f"(the optimal policy plays {solution.first_action.value})")
    for action, value in solution.action_values.items():
        print(f"  {action.value:<5} {_shown(value, solution.objective)}")
    print(f"{solution.nodes:,} nodes (bound {solution.estimated_nodes:,}), {solution.sweeps} sweeps of value "
          f"iteration, last change <= {solution.tolerance:g}")
    return 0


def _shown(value: float, objective: str) -> str:
    if math.isinf(value):
        return "-inf (the game may never end)"
    return f"{value:.12f}" if objective == "win" else f"{value:.9f}"
