"""The strength table: every shipped agent on every shipped layout, against the exact optimum where it is known.

    python scripts/strength_table.py run   [--games 1000] [--jobs 2] [--results DIR] [--layouts L,...] [--only TEXT]
    python scripts/strength_table.py table [--games 1000] [--results DIR] [--layouts L,...]

`run` plays each cell (one agent on one layout, random ghosts, seeded from 0,
at most 500 Pacman moves a game, 2,000 on large) with ``pacman-ai batch --out DIR/CELL.jsonl``,
cheapest cells first; it resumes a cell's results file (``--resume``), so it
can be stopped and started again at any time and only plays missing games.
`table` prints the Markdown table of docs/guide/strength.md from whatever the results files
hold: the win rate with its 95% Wilson interval, and, on mazes the solver
takes, the gap to the optimal probability of winning (``pacman-ai solve``).
A cell with fewer games than asked shows its count; a cell with none, "-".
Run it from the repository's root with the project installed (its ``pacman-ai``
on PATH or beside this Python).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from pacman.agents.solver import DEFAULT_MAX_NODES, MAX_NODES_CEILING, SolverError, estimated_nodes, solve
from pacman.batch.results import read_results
from pacman.batch.stats import wilson_interval
from pacman.layout import load_layout
from pacman.resources import resource_dir

#: The learned agent's column: on each maze, the model examples/rl/LAYOUT.zip trained there (the recipe of
#: docs/environments.md), as ``--pacman sb3:PATH``; "n/a" on a maze with no shipped model. Needs the extra
#: ``pacman-ai[rl]``: without it, `run` skips these cells and says so.
LEARNED = "learned"
MODELS = Path(__file__).resolve().parent.parent / "examples" / "rl"

#: The agents of the table: (column title, --pacman, --agent-args, relative cost of a move, measured roughly:
#: the compiled core makes expectimax far cheaper than MCTS in Python).
AGENTS = [
    ("greedy", "greedy", "", 1),
    ("expectimax d1", "expectimax", "depth=1,evaluation=better", 1),
    ("expectimax d2", "expectimax", "depth=2,evaluation=better", 1),
    ("expectimax d2 safe", "expectimax", "depth=2,evaluation=safe", 1),
    ("expectimax d2 scaled", "expectimax", "depth=2,evaluation=scaled", 1),
    ("expectimax (default)", "expectimax", "", 1),
    ("alpha-beta d2", "alphabeta", "depth=2,evaluation=better", 1),
    ("expectimax d3", "expectimax", "depth=3,evaluation=better", 4),
    ("MCTS 100 it.", "mcts", "iterations=100,evaluation=better", 200),
    ("expectimax d4", "expectimax", "depth=4,evaluation=better", 100),
    ("learned", LEARNED, "", 1),
    ("optimal", "optimal", "objective=win", 1),
]
GHOSTS = "random"
SEED = 0
MAX_MOVES = 500
#: Mazes whose games are long: their own move limit (large's games average over 500 moves).
LONG_GAMES = {"large": 2000}
#: Mazes the solver takes only with its limit raised (`max_nodes`): tiny's bound is 83 million for 11.6 million
#: nodes, which take about 5 minutes and 7 GB to solve (in `table`, and in each worker of its optimal cell);
#: minimax's is 65 million for 3.1 million nodes (under a minute, 1.3 GB).
SOLVER_LIMITS = {"tiny": MAX_NODES_CEILING, "minimax": MAX_NODES_CEILING}


def shipped_layouts(only: str = "") -> list[str]:
    names = sorted(path.stem for path in resource_dir("layouts").glob("*.lay"))
    wanted = [name for name in only.split(",") if name]
    unknown = [name for name in wanted if name not in names]
    if unknown:  # a usage error: status 2, as argparse's own
        print(f"strength_table: --layouts {unknown[0]!r}: not a shipped layout ({', '.join(names)})", file=sys.stderr)
        raise SystemExit(2)
    return [name for name in names if not wanted or name in wanted]


def optimum(name: str) -> float | None:
    """The optimal probability of winning against random ghosts, or None when the maze is too large."""
    try:
        return solve(load_layout(name), GHOSTS, "win", max_nodes=solver_limit(name)).value
    except SolverError:
        return None


def solver_limit(name: str) -> int:
    return SOLVER_LIMITS.get(name, DEFAULT_MAX_NODES)


def cell_args(layout: str, pacman: str, agent_args: str) -> str:
    """The agent arguments of a cell: the optimal agent gets its maze's solver limit where it is raised."""
    if pacman == "optimal" and layout in SOLVER_LIMITS:
        return f"{agent_args},max_nodes={SOLVER_LIMITS[layout]}"
    return agent_args


def learned_model(layout: str) -> Path | None:
    """The shipped model of the learned column on `layout`, or None when there is none."""
    path = MODELS / f"{layout}.zip"
    return path if path.is_file() else None


def pacman_spec(layout: str, pacman: str) -> str:
    """What ``--pacman`` a cell plays: the agent's name, or the learned column's ``sb3:PATH`` on `layout`."""
    if pacman == LEARNED:
        return f"sb3:{learned_model(layout)}"
    return pacman


def cell_name(layout: str, pacman: str, agent_args: str) -> str:
    args = agent_args.replace("=", "-").replace(",", "_") or "default"
    return f"{layout}__{pacman}__{args}.jsonl"


def layout_cost(name: str) -> int:
    layout = load_layout(name)
    cells = sum(not layout.is_wall(x, y) for x in range(layout.width) for y in range(layout.height))
    return cells * (layout.num_ghosts + 1) ** 2


def pacman_ai() -> str:
    beside = Path(sys.executable).with_name("pacman-ai")
    return str(beside) if beside.exists() else (shutil.which("pacman-ai") or "pacman-ai")


def run(args: argparse.Namespace) -> int:
    results = Path(args.results)
    results.mkdir(parents=True, exist_ok=True)
    solvable = {name for name, limit in ((name, solver_limit(name)) for name in shipped_layouts(args.layouts))
                if estimated_nodes(load_layout(name), limit=limit) <= limit}
    import importlib.util

    learnable = all(importlib.util.find_spec(name) is not None for name in ("stable_baselines3", "sb3_contrib"))
    cells = []
    skipped_learned = False
    for layout in shipped_layouts(args.layouts):
        for title, pacman, agent_args, cost in AGENTS:
            if pacman == "optimal" and layout not in solvable:
                continue
            if pacman == LEARNED and learned_model(layout) is None:
                continue
            if pacman == LEARNED and not learnable:
                skipped_learned = True
                continue
            cells.append((layout_cost(layout) * cost, layout, pacman, cell_args(layout, pacman, agent_args)))
    cells.sort()
    failed = []
    if skipped_learned and (not args.only or args.only in LEARNED):
        print('strength_table: the learned column is skipped: it needs the extra, pip install "pacman-ai[rl]"',
              file=sys.stderr, flush=True)
    for _, layout, pacman, agent_args in cells:
        out = results / cell_name(layout, pacman, agent_args)
        if args.only and args.only not in out.name:
            continue
        try:
            if out.exists() and len(read_results(out, repair=True)) >= args.games:
                continue
        except ValueError as exc:  # not a results file of batch's: named, left as it is, the other cells played
            failed.append(out.name)
            print(f"strength_table: the cell {out.name} cannot be resumed: {exc}", file=sys.stderr, flush=True)
            continue
        command = [pacman_ai(), "batch", "--layout", layout, "--pacman", pacman_spec(layout, pacman), "--ghosts", GHOSTS,
                   "--games", str(args.games), "--seed", str(SEED),
                   "--max-moves", str(LONG_GAMES.get(layout, MAX_MOVES)), "--jobs", str(args.jobs),
                   "--out", str(out), "--quiet"]
        if agent_args:
            command += ["--agent-args", agent_args]
        if out.exists():
            command.append("--resume")
        print(" ".join(command), flush=True)
        status = subprocess.run(command, stdout=subprocess.DEVNULL).returncode
        if status != 0:
            failed.append(out.name)
            print(f"strength_table: the cell {out.name} failed (exit {status})", file=sys.stderr, flush=True)
    if failed:  # the others were played: run again to retry only these (each cell resumes its own file)
        print(f"strength_table: {len(failed)} of the cells failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def table(args: argparse.Namespace) -> int:
    results = Path(args.results)
    titles = [title for title, *_ in AGENTS]
    times: dict[str, list[float]] = {title: [] for title in titles}
    lines = ["| layout | optimum | " + " | ".join(titles) + " |",
             "|---|---|" + "---|" * len(titles)]
    for layout in shipped_layouts(args.layouts):
        best = optimum(layout)
        row = [layout, "-" if best is None else f"{100 * best:.1f}%"]
        for title, pacman, agent_args, _ in AGENTS:
            out = results / cell_name(layout, pacman, cell_args(layout, pacman, agent_args))
            if (pacman == "optimal" and best is None) or (pacman == LEARNED and learned_model(layout) is None):
                row.append("n/a")
                continue
            try:
                records = read_results(out) if out.exists() else []
            except ValueError as exc:  # no table with a cell left out
                print(f"strength_table: {exc}", file=sys.stderr)
                return 1
            if not records:
                row.append("-")
                continue
            games = len(records)
            times[title] += [r["ms_per_move_mean"] for r in records if r.get("ms_per_move_mean") is not None]
            wins = sum(bool(r.get("won")) for r in records)
            low, high = wilson_interval(wins, games)
            text = f"{100 * wins / games:.1f} [{100 * low:.1f}, {100 * high:.1f}]"
            if best is not None:
                text += f" gap {100 * (best - wins / games):+.1f}"
            if games < args.games:
                text += f" ({games} games)"
            row.append(text)
        lines.append("| " + " | ".join(row) + " |")
    medians = [f"{statistics.median(times[title]):.2f}" if times[title] else "-" for title in titles]
    lines.append("| ms per move (median game) | | " + " | ".join(medians) + " |")
    print("\n".join(lines))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Play and tabulate the strength table (see the module docstring).")
    parser.add_argument("what", choices=("run", "table"))
    parser.add_argument("--games", type=int, default=1000, help="games per cell (default: 1000)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes per batch")
    parser.add_argument("--results", default="strength-results", help="folder of the results files")
    parser.add_argument("--layouts", default="", help="only these shipped layouts, comma-separated (default: all)")
    parser.add_argument("--only", default="", help="run only the cells whose file name contains this")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games {args.games}: expected a positive number")
    if args.jobs < 1:
        parser.error(f"--jobs {args.jobs}: expected a positive number")
    shipped_layouts(args.layouts)  # an unknown name first, whatever else is wrong
    if args.what == "table" and not Path(args.results).is_dir():  # before any maze is solved (tiny: minutes)
        parser.error(f"--results {args.results}: no such folder (made by `run`)")
    return run(args) if args.what == "run" else table(args)


if __name__ == "__main__":
    sys.exit(main())
