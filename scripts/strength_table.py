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

With ``--kinds``, both play and tabulate the ghost-kinds table instead: the default agent against each kind of
`KINDS` on every layout (``--games`` games a cell), and the reference player against the hunting kinds: expectimax
under `REFERENCE_NODES` nodes a move, far more than the default's `HUNTED_NODES` (the table gives both players'
milliseconds). It plays ``--reference-games`` games a cell, the same seeds as the default's first games, so the
two columns meet the same ghost dice.

    python scripts/strength_table.py run   --kinds [--games 100] [--reference-games 20] [--jobs 2] ...
    python scripts/strength_table.py table --kinds [--games 100] [--reference-games 20] ...
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np

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
#: The ghost-kinds table's columns (``--kinds``): the ghosts the default agent plays, `GHOSTS` first.
KINDS = ("random", "directional", "arcade")
#: The reference player's node budget a move: far more than the default's against hunters (HUNTED_NODES); the
#: kinds table gives its milliseconds a move. It plays the hunting kinds of KINDS.
REFERENCE_NODES = 1_000_000
REFERENCE = ("reference", "expectimax", f"node_limit={REFERENCE_NODES}")
DEFAULT = ("default", "expectimax", "")
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


def optimum(name: str, ghosts: str = GHOSTS) -> float | None:
    """The optimal probability of winning against `ghosts`, or None when the maze is too large: for GHOSTS within
    the maze's `solver_limit`, for another kind within the solver's default limit (tiny's and minimax's raised
    limits would take minutes and gigabytes a kind)."""
    limit = solver_limit(name) if ghosts == GHOSTS else DEFAULT_MAX_NODES
    try:
        return solve(load_layout(name), ghosts, "win", max_nodes=limit).value
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


def cell_name(layout: str, pacman: str, agent_args: str, ghosts: str = GHOSTS) -> str:
    """A cell's results file: against GHOSTS the name of the first table's cells, else with the kind after."""
    args = agent_args.replace("=", "-").replace(",", "_") or "default"
    return f"{layout}__{pacman}__{args}{'' if ghosts == GHOSTS else '__' + ghosts}.jsonl"


def kind_cells(layouts: list[str], games: int, reference_games: int) -> list[tuple[str, str, str, str, int]]:
    """The ghost-kinds table's cells: (column title, layout, pacman, agent arguments, ghosts, games), the default
    against every kind and the reference against the hunting ones."""
    cells = []
    for layout in layouts:
        for kind in KINDS:
            cells.append((f"{kind}: default", layout, DEFAULT[1], DEFAULT[2], kind, games))
            if kind != GHOSTS:
                cells.append((f"{kind}: reference", layout, REFERENCE[1], REFERENCE[2], kind, reference_games))
    return cells


def layout_cost(name: str) -> int:
    layout = load_layout(name)
    cells = sum(not layout.is_wall(x, y) for x in range(layout.width) for y in range(layout.height))
    return cells * (layout.num_ghosts + 1) ** 2


def pacman_ai() -> str:
    beside = Path(sys.executable).with_name("pacman-ai")
    return str(beside) if beside.exists() else (shutil.which("pacman-ai") or "pacman-ai")


def play_cell(out: Path, layout: str, pacman: str, agent_args: str, ghosts: str, games: int, jobs: int,
              failed: list[str]) -> None:
    """Play a cell's missing games into `out` with pacman-ai batch (resuming it); a failure is added to `failed`."""
    try:
        if out.exists() and len(read_results(out, repair=True)) >= games:
            return
    except ValueError as exc:  # not a results file of batch's: named, left as it is, the other cells played
        failed.append(out.name)
        print(f"strength_table: the cell {out.name} cannot be resumed: {exc}", file=sys.stderr, flush=True)
        return
    command = [pacman_ai(), "batch", "--layout", layout, "--pacman", pacman_spec(layout, pacman), "--ghosts", ghosts,
               "--games", str(games), "--seed", str(SEED),
               "--max-moves", str(LONG_GAMES.get(layout, MAX_MOVES)), "--jobs", str(jobs),
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


def report_failed(failed: list[str]) -> int:
    if failed:  # the others were played: run again to retry only these (each cell resumes its own file)
        print(f"strength_table: {len(failed)} of the cells failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def run_kinds(args: argparse.Namespace) -> int:
    results = Path(args.results)
    results.mkdir(parents=True, exist_ok=True)
    cells = kind_cells(shipped_layouts(args.layouts), args.games, args.reference_games)
    # cheapest first: the default's cells, then the reference's, each by the maze's cost
    cells.sort(key=lambda cell: (cell[2:4] == REFERENCE[1:], layout_cost(cell[1])))
    failed: list[str] = []
    for _, layout, pacman, agent_args, ghosts, games in cells:
        out = results / cell_name(layout, pacman, agent_args, ghosts)
        if not args.only or args.only in out.name:
            play_cell(out, layout, pacman, agent_args, ghosts, games, args.jobs, failed)
    return report_failed(failed)


def run(args: argparse.Namespace) -> int:
    if args.kinds:
        return run_kinds(args)
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
        if not args.only or args.only in out.name:
            play_cell(out, layout, pacman, agent_args, GHOSTS, args.games, args.jobs, failed)
    return report_failed(failed)


def table(args: argparse.Namespace) -> int:
    if args.kinds:
        return table_kinds(args)
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
                row.append(cell_text(out, best, args.games, times[title]))
            except ValueError as exc:  # no table with a cell left out
                print(f"strength_table: {exc}", file=sys.stderr)
                return 1
        lines.append("| " + " | ".join(row) + " |")
    medians = [f"{statistics.median(times[title]):.2f}" if times[title] else "-" for title in titles]
    lines.append("| ms per move (median game) | | " + " | ".join(medians) + " |")
    print("\n".join(lines))
    return 0


def cell_text(out: Path, best: float | None, games_asked: int, times: list[float],
              first: int | None = None, moves: list[float] | None = None) -> str:
    """A cell of a table: the win rate in percent with its 95% Wilson interval, the gap to `best` when known,
    and the count of games when fewer than asked ("-": none); its games' mean milliseconds a move are added to
    `times`, and every move's milliseconds to `moves` if given. `first`: only the cell's games of the first `first`
    seeds. Raises ValueError for a file that is not batch's results."""
    records = read_results(out) if out.exists() else []
    if first is not None:
        records = [r for r in records if r["index"] < first]
    if not records:
        return "-"
    games = len(records)
    times += [r["ms_per_move_mean"] for r in records if r.get("ms_per_move_mean") is not None]
    if moves is not None:
        moves += [ms for r in records for ms in r.get("move_ms") or ()]
    wins = sum(bool(r.get("won")) for r in records)
    low, high = wilson_interval(wins, games)
    text = f"{100 * wins / games:.1f} [{100 * low:.1f}, {100 * high:.1f}]"
    if best is not None:
        text += f" gap {100 * (best - wins / games):+.1f}"
    if games < games_asked:
        text += f" ({games} games)"
    return text


def table_kinds(args: argparse.Namespace) -> int:
    """The ghost-kinds table: a row a layout, the optimum against each kind where the solver takes the maze, the
    default's column against each kind, and against each hunting kind the reference's column and, beside it,
    the default's on the reference's games (the same seeds)."""
    results = Path(args.results)
    layouts = shipped_layouts(args.layouts)
    titles: list[str] = []
    for kind in KINDS:
        titles += [f"{kind}: optimum", f"{kind}: default"]
        if kind != GHOSTS:
            titles += [f"{kind}: default, first {args.reference_games}", f"{kind}: reference"]
    times: dict[str, list[float]] = {title: [] for title in titles}
    moves: dict[str, list[float]] = {title: [] for title in titles}
    lines = ["| layout | " + " | ".join(titles) + " |", "|---|" + "---|" * len(titles)]
    for layout in layouts:
        row = [layout]
        for kind in KINDS:
            best = optimum(layout, kind)
            row.append("-" if best is None else f"{100 * best:.1f}%")
            default = results / cell_name(layout, DEFAULT[1], DEFAULT[2], kind)
            try:
                row.append(cell_text(default, best, args.games, times[f"{kind}: default"],
                                     moves=moves[f"{kind}: default"]))
                if kind != GHOSTS:
                    row.append(cell_text(default, best, args.reference_games, [], first=args.reference_games))
                    reference = results / cell_name(layout, REFERENCE[1], REFERENCE[2], kind)
                    row.append(cell_text(reference, best, args.reference_games, times[f"{kind}: reference"],
                                         moves=moves[f"{kind}: reference"]))
            except ValueError as exc:  # no table with a cell left out
                print(f"strength_table: {exc}", file=sys.stderr)
                return 1
        lines.append("| " + " | ".join(row) + " |")
    medians = [f"{statistics.median(times[title]):.2f}" if times[title] else "" for title in titles]
    lines.append("| ms per move (median game) | " + " | ".join(medians) + " |")
    slowest = [f"{np.percentile(moves[title], 99):.1f}" if moves[title] else "" for title in titles]
    lines.append("| ms per move (99th percentile of the moves) | " + " | ".join(slowest) + " |")
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
    parser.add_argument("--kinds", action="store_true",
                        help=f"the ghost-kinds table instead: the default against {', '.join(KINDS)}, "
                             "the reference player against the hunting kinds")
    parser.add_argument("--reference-games", type=int, default=20,
                        help="with --kinds: the reference player's games per cell (default: 20)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games {args.games}: expected a positive number")
    if args.reference_games < 1:
        parser.error(f"--reference-games {args.reference_games}: expected a positive number")
    if args.reference_games != parser.get_default("reference_games") and not args.kinds:
        parser.error("--reference-games: only with --kinds")
    if args.jobs < 1:
        parser.error(f"--jobs {args.jobs}: expected a positive number")
    shipped_layouts(args.layouts)  # an unknown name first, whatever else is wrong
    if args.what == "table" and not Path(args.results).is_dir():  # before any maze is solved (tiny: minutes)
        parser.error(f"--results {args.results}: no such folder (made by `run`)")
    return run(args) if args.what == "run" else table(args)


if __name__ == "__main__":
    sys.exit(main())
