"""Each agent's gap to the exact optimum over random small mazes (the research harness of docs/search-strength.md).

    python scripts/optimality_gap.py [--set held-out|tuning|wild|corridors] [--mazes 300] [--first N]
                                     [--agent NAME[:ARGS]]... [--layout NAME]... [--ghosts KIND] [--jobs 2]
                                     [--cache DIR] [--json FILE] [--per-maze] [--draw FILE.png] [--draw-count 4]

Mazes come from `research.mazes.random_maze`: seeds from 1,000,000 for
the held-out set (never tuned on), from 0 for the tuning set (`--first` moves
the start); `--set wild` draws them from a second generator of other shapes
(`research.mazes.wild_maze`, seeds from 5,000,000, never tuned on either);
`--set corridors` from a third, of bigger mazes of corridors (`corridor_maze`,
25-45 cells, seeds from 6,000,000, never tuned on). The sets are
`research.mazes.MAZE_SETS`. `--layout` adds a shipped (or any) layout
instead of random ones when given. Each maze is solved exactly once (cached under `--cache`, default
$PACMAN_AI_RESEARCH_CACHE or ~/.cache/pacman-ai/research) and each agent's
policy is valued exactly (`research.policy`): win probability and
expected score against random ghosts (`--ghosts`: another kind, the heading kept where a ghost reads it), no
sampling. The report gives, per
agent, the mean win, the mean gap to the optimum in points with its 95%
t-interval over the mazes, the mean of the worst tenth of gaps with a bootstrap
interval, how many mazes are more than 3 points short, the worst maze, and the
mean expected-score gap where both are finite. Default agents: greedy,
expectimax depth 2 with `safe`, and with `better`.

`--draw` draws, for the `--draw-count` mazes where the first agent falls
shortest of the optimum, the position where its move costs most
(`research.regret`), with the optimal moves and every agent's move
there, as a PNG.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import sys
import time
from pathlib import Path

from pacman.agents.ghosts import GHOST_KINDS
from pacman.batch.lifeline import die_with
from pacman.errors import AgentSpecError
from pacman.files import output_problem, write_atomically, write_json
from pacman.layout import load_layout
from research.gap import AgentSpec, agent_value, default_cache, optimum, summarize
from research.mazes import MAZE_SETS, Maze, draw_set
from research.pictures import Panel, panels_png
from research.regret import costly_decisions, optimal_values

DEFAULT_AGENTS = ["greedy", "expectimax:depth=2,evaluation=safe", "expectimax:depth=2,evaluation=better"]


def _one(task: tuple) -> tuple:
    maze, agents, cache, ghosts = task
    best = optimum(maze.layout, cache, ghosts)
    values = []
    for spec in agents:
        started = time.perf_counter()
        value = agent_value(AgentSpec.parse(spec), maze.layout, ghosts)
        values.append((value, time.perf_counter() - started))
    return best, values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=tuple(MAZE_SETS), default="held-out")
    parser.add_argument("--mazes", type=int, default=300, help="how many random mazes (default 300)")
    parser.add_argument("--first", type=int, default=None, help="the first seed (default: the set's)")
    parser.add_argument("--agent", action="append", default=None, help="NAME or NAME:ARGS (repeatable)")
    parser.add_argument("--layout", action="append", default=None, help="layouts instead of random mazes")
    parser.add_argument("--ghosts", choices=tuple(GHOST_KINDS), default="random",
                        help="the ghosts every maze is played and solved against (default: random)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None, help="write every maze's figures here")
    parser.add_argument("--per-maze", action="store_true", help="print one line per maze")
    parser.add_argument("--draw", type=Path, default=None, help="draw where the first agent loses most (PNG)")
    parser.add_argument("--draw-count", type=int, default=4, help="how many mazes --draw shows (default 4)")
    args = parser.parse_args(argv)
    if args.mazes < 1 or args.jobs < 1:
        parser.error("--mazes and --jobs must be at least 1")
    if args.first is not None and args.first < 0:
        parser.error(f"--first must be a seed >= 0, got {args.first}")
    for flag, path in (("--json", args.json), ("--draw", args.draw)):  # before hours of work, not after
        problem = output_problem(path) if path is not None else None
        if problem:
            parser.error(f"{flag} {path}: {problem}")
    if args.draw is not None and args.ghosts != "random":  # research.regret values moves against random ghosts
        parser.error(f"--draw with --ghosts {args.ghosts}: the drawing values moves against random ghosts only")
    agents = args.agent or DEFAULT_AGENTS
    cache = args.cache or default_cache()
    if args.layout:
        try:
            mazes = [Maze(-1, "layout", load_layout(name)) for name in args.layout]
        except ValueError as exc:
            parser.error(str(exc))
    else:
        mazes = draw_set(args.set, args.mazes, args.first)
    for spec in agents:  # a bad spec before any maze is solved, not as a worker's traceback
        try:
            AgentSpec.parse(spec).make()
        except ValueError as exc:
            parser.error(f"--agent {spec}: {exc}")
    tasks = [(maze, agents, cache, args.ghosts) for maze in mazes]
    started = time.perf_counter()
    try:
        if args.jobs > 1:
            # each worker ends with this process, however it ends: killed, none computes on for minutes
            with multiprocessing.get_context("spawn").Pool(args.jobs, initializer=die_with,
                                                           initargs=(os.getpid(),)) as pool:
                results = pool.map(_one, tasks, chunksize=1)
        else:
            results = [_one(task) for task in tasks]
    except AgentSpecError as exc:  # SolverError among them: a maze the solver refuses, named; the solved stay cached
        parser.error(str(exc))
    optima = [best for best, _ in results]
    if args.per_maze:
        for maze, (best, values) in zip(mazes, results):
            wins = "  ".join(f"{100 * v.win:6.1f}" for v, _ in values)
            print(f"{maze.layout.name:>14} {maze.family:6} optimum {100 * best.win:6.1f}  agents {wins}")
    against = "" if args.ghosts == "random" else f", {args.ghosts} ghosts"
    print(f"{len(mazes)} mazes ({'layouts' if args.layout else args.set}{against}), win probability in points, "
          f"exact per maze; "
          f"intervals 95% over the mazes; {time.perf_counter() - started:.0f} s")
    print(f"{'agent':44} {'win':>6} {'opt':>6} {'mean gap':>20} {'worst tenth':>20} {'>3':>4} {'worst':>16} "
          f"{'score gap':>10} {'never ends':>10} {'s/maze':>7}")
    report = {"ghosts": args.ghosts, "mazes": [{"name": m.layout.name, "seed": m.seed, "family": m.family, "text": m.layout.text,
                         "optimum": best.win, "optimum_score": best.score if math.isfinite(best.score) else None}
                        for m, best in zip(mazes, optima)], "agents": {}}
    for k, spec in enumerate(agents):
        values = [vs[k][0] for _, vs in results]
        seconds = sum(vs[k][1] for _, vs in results) / len(results)
        s = summarize(spec, mazes, optima, values, seconds)
        score = f"{s.score_gap:10.1f}" if s.score_gap is not None else f"{'-':>10}"
        print(f"{spec:44} {100 * s.mean_win:6.1f} {100 * s.mean_optimum:6.1f} "
              f"{s.mean_gap:6.2f} ({s.mean_gap_interval[0]:5.2f}-{s.mean_gap_interval[1]:5.2f}) "
              f"{s.worst_tenth_gap:6.2f} ({s.worst_tenth_interval[0]:5.2f}-{s.worst_tenth_interval[1]:5.2f}) "
              f"{s.over_3_points:4} {s.worst_gap:6.1f} {s.worst_maze:>9} {score} {s.never_ends:10} {seconds:7.2f}")
        report["agents"][spec] = {"summary": s.__dict__, "win": [v.win for v in values],
                                  "score": [v.score if math.isfinite(v.score) else None for v in values],
                                  "first_action": [v.first_action.value for v in values]}
    if args.json:
        write_json(args.json, report, indent=1)
    if args.draw:
        picture = draw(mazes, optima, results, agents, args.draw_count)
        write_atomically(args.draw, lambda temporary: Path(temporary).write_bytes(picture))
    return 0


def _short(spec: str) -> str:
    name, _, rest = spec.partition(":")
    return name if not rest else f"{name} {rest.replace('evaluation=', '').replace('depth=', 'd')}"


def draw(mazes: list[Maze], optima: list, results: list, agents: list[str], count: int) -> bytes:
    """The `count` mazes where the first agent is furthest from the optimum, each at its costliest decision (a maze
    where no single move of it loses, because its game may never end, is passed over)."""
    gaps = sorted(range(len(mazes)), key=lambda i: optima[i].win - results[i][1][0][0].win, reverse=True)
    panels = []
    for i in gaps:
        if len(panels) == count or optima[i].win - results[i][1][0][0].win <= 1e-9:
            break
        layout = mazes[i].layout
        first = AgentSpec.parse(agents[0]).build(layout)
        decisions = costly_decisions(layout, first.get_action, optimal_values(layout))
        if not decisions:  # no single move loses: it plays optimally, or its game never ends (a loop, not a move)
            continue
        decision = decisions[0]
        best = max(decision.move_values.values())
        moves = [(f"optimal {100 * best:.1f}%", tuple(a for a, v in decision.move_values.items() if v >= best - 1e-9))]
        for spec in agents:
            move = AgentSpec.parse(spec).build(layout).get_action(decision.state)
            moves.append((f"{_short(spec)}: {move.value} {100 * decision.move_values[move]:.1f}%", (move,)))
        wins = ", ".join(f"{_short(spec)} {100 * vs[0].win:.1f}" for spec, vs in zip(agents, [[v] for v, _ in
                                                                                          results[i][1]]))
        panels.append(Panel(decision.state, moves, [
            f"{layout.name} ({mazes[i].family}): optimum {100 * optima[i].win:.1f}%",
            f"won: {wins}",
            f"here {decision.visits:.2f} times a game: {100 * decision.loss:.1f} points",
        ]))
    if not panels:
        raise SystemExit(f"optimality_gap: --draw: no move of {agents[0]} loses against the optimum, nothing to draw")
    return panels_png(panels, per_row=2)


if __name__ == "__main__":
    sys.exit(main())
