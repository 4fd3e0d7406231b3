"""How far any choice of `scaled`'s weights could take the default agent: the best of several weight settings
per maze (an upper bound on calibrating the weights maze by maze), beside each setting alone.

    python scripts/weight_ceiling.py [--set tuning|held-out] [--mazes 200] [--first N] [--jobs 2]
                                     [--budget NODES] [--step PLIES] [--lost 0,500,1000,2000,4000]
                                     [--dearer 0,200,1000]
                                     [--cache DIR] [--per-maze]

An experiment, not a setting (CHANGELOG.md, 2026-11-26: weights chosen maze by maze, tried and not
adopted; docs/search-strength.md, "What the default does not reach"): for each
lost-game penalty L (`--lost`) and each extra price E of a dot left (`--dearer`),
`scaled`'s weights on mazes of 24 cells or fewer are set to lost penalty L and
a dot's price raised by E in each worker process (both are weights, so the
compiled core plays them with no new code), and the policy of the default
agent's search with `scaled` (`expectimax`, depth "auto", `evaluation=scaled`,
the default evaluation when this was written; its search on these
mazes, all under 64 cells, deepens under `--budget` nodes a move, `--step`
plies at a time past depth 2: by default its own, `SMALL_MAZE_NODES` and
`DEEPENING_STEP`) is valued exactly on every maze, as
`scripts/optimality_gap.py` does. The report gives each setting's
mean gap, worst tenth and mazes more than 3 points short, then the same for
"the best setting per maze": what a rule that picked the weights for each
maze could at most reach. A maze no setting brings within 3 points is beyond
any weights of these features. The default setting is L = 1000, E = 0.
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import sys
import time
from pathlib import Path
from types import SimpleNamespace

from pacman.agents.expectimax import DEEPENING_STEP, SMALL_MAZE_NODES
from research.gap import AgentSpec, agent_value, default_cache, optimum, summarize
from research.mazes import HELD_OUT_SEED, TUNING_SEED, random_maze


_AGENT: AgentSpec | None = None  # the agent valued in this (worker) process, set by `_weigh`


def _weigh(lost: float, dearer: float, budget: int, step: int) -> None:
    """Set `scaled`'s weights of small mazes in this (worker) process: lost penalty `lost`, a dot `dearer`;
    the default agent's search deepens under `budget` nodes (`node_limit`: on a maze under 64 cells the same
    search as depth "auto" with that budget), `step` plies at a time past depth 2 (`DEEPENING_STEP`)."""
    global _AGENT
    from pacman.agents import evaluation, expectimax

    expectimax.DEEPENING_STEP = step

    _AGENT = AgentSpec.parse(f"expectimax:depth=None,node_limit={budget},evaluation=scaled")  # the weights it varies

    evaluation.SCALED_LOST_PENALTY = lost
    build = evaluation._BetterTables.__init__

    def tables(self, layout, weights=evaluation._BETTER):  # type: ignore[no-untyped-def]
        build(self, layout, weights)
        if self.pacman_region.bit_count() <= evaluation.SCALED_NONE:
            self.food_weight += dearer

    evaluation._BetterTables.__init__ = tables  # type: ignore[method-assign]


def _value(seed: int) -> float:
    assert _AGENT is not None, "_weigh runs first in each worker"
    return agent_value(_AGENT, random_maze(seed).layout).win


def _list(text: str) -> list[float]:
    try:
        values = [float(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, got {text!r}") from None
    if not values or any(v < 0 for v in values):
        raise argparse.ArgumentTypeError(f"expected non-negative numbers, got {text!r}")
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=("held-out", "tuning"), default="tuning")
    parser.add_argument("--mazes", type=int, default=200, help="how many random mazes (default 200)")
    parser.add_argument("--first", type=int, default=None, help="the first seed (default: the set's)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--budget", type=int, default=SMALL_MAZE_NODES,
                        help=f"nodes a move of the default agent's search (default {SMALL_MAZE_NODES:,}, its own)")
    parser.add_argument("--step", type=int, default=DEEPENING_STEP,
                        help=f"plies each deeper search adds past depth 2 (default {DEEPENING_STEP}, the agent's own; "
                             f"1: one ply at a time, as it was measured)")
    parser.add_argument("--lost", type=_list, default=[0, 500, 1000, 2000, 4000],
                        help="lost-game penalties to try (default 0,500,1000,2000,4000)")
    parser.add_argument("--dearer", type=_list, default=[0, 200, 1000],
                        help="extra prices of a dot left to try (default 0,200,1000)")
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--per-maze", action="store_true", help="print each maze's gap under each setting")
    args = parser.parse_args(argv)
    if args.mazes < 1 or args.jobs < 1 or args.budget < 1 or args.step < 1:
        parser.error("--mazes, --jobs, --budget and --step must be at least 1")
    if args.first is not None and args.first < 0:
        parser.error(f"--first must be a seed >= 0, got {args.first}")
    first = args.first if args.first is not None else (HELD_OUT_SEED if args.set == "held-out" else TUNING_SEED)
    seeds = list(range(first, first + args.mazes))
    cache = args.cache or default_cache()
    started = time.perf_counter()
    mazes = [random_maze(seed) for seed in seeds]
    optima = [optimum(maze.layout, cache) for maze in mazes]
    settings = list(itertools.product(args.lost, args.dearer))
    wins: dict[tuple[float, float], list[float]] = {}
    context = multiprocessing.get_context("fork")
    for lost, dearer in settings:
        with context.Pool(args.jobs, initializer=_weigh, initargs=(lost, dearer, args.budget, args.step)) as pool:
            wins[(lost, dearer)] = pool.map(_value, seeds)
        print(f"  lost {lost:g}, dearer {dearer:g}: done ({time.perf_counter() - started:.0f} s)",
              file=sys.stderr, flush=True)

    best = [max(wins[s][i] for s in settings) for i in range(len(seeds))]
    rows = [(f"lost {lost:g}, dearer {dearer:g}", wins[(lost, dearer)]) for lost, dearer in settings]
    rows.append(("best setting per maze", best))
    plies = "ply" if args.step == 1 else "plies"
    print(f"{len(seeds)} mazes ({args.set}, seeds {first}-{first + len(seeds) - 1}), the default agent "
          f"({args.budget:,} nodes a move, {args.step} {plies} at a time) under each of {len(settings)} weight "
          f"settings; gap in points of win probability")
    print(f"{'setting':<28} {'mean gap':>17} {'worst tenth':>20} {'>3':>4}")
    for name, row in rows:
        # what `summarize` reads of a policy's value: its win probability (no expected score here)
        s = summarize(name, mazes, optima, [SimpleNamespace(win=w, score=float("nan")) for w in row])  # type: ignore[misc]
        print(f"{name:<28} {s.mean_gap:6.2f} ({s.mean_gap_interval[0]:5.2f}-{s.mean_gap_interval[1]:5.2f}) "
              f"{s.worst_tenth_gap:6.2f} ({s.worst_tenth_interval[0]:5.2f}-{s.worst_tenth_interval[1]:5.2f}) "
              f"{s.over_3_points:4d}")
    beyond = [maze.layout.name for i, maze in enumerate(mazes) if 100.0 * (optima[i].win - best[i]) > 3.0]
    print(f"beyond every setting (> 3 points short under each): {', '.join(beyond) or 'none'}")
    if args.per_maze:
        for i, maze in enumerate(mazes):
            gaps = " ".join(f"{100.0 * (optima[i].win - wins[s][i]):5.1f}" for s in settings)
            print(f"  {maze.layout.name:>14} {maze.family:<6} optimum {100.0 * optima[i].win:5.1f}  gaps {gaps}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
