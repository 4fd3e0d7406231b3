"""Benchmarks: how fast the engine generates successors, next to the simple reference engine.

A run is a random walk from the start of a game: at every state, every legal
successor of the agent to move is generated and counted, then one of them is
picked at random to continue; a finished game starts again. The figure is
successors per second; each is the median of several runs.
"""

from __future__ import annotations

import math
import platform
import random
import statistics
import time
from typing import Any, Callable

from pacman.layout import Layout
from pacman.state import GameState

__all__ = ["walk_rate", "engine_benchmark"]

Expand = Callable[[Any, int], list]


def walk_rate(initial: Any, expand: Expand, successors: int, seed: int = 0) -> float:
    """Successors per second of a random walk from `initial` that expands every state with `expand`."""
    rng = random.Random(seed)
    num_agents = initial.num_agents
    state, agent, count = initial, 0, 0
    started = time.perf_counter()
    while count < successors:
        children = expand(state, agent)
        if not children:
            state, agent = initial, 0
            continue
        count += len(children)
        state = children[int(rng.random() * len(children))]
        agent = agent + 1 if agent + 1 < num_agents else 0
    return count / (time.perf_counter() - started)


def _expand_stepwise(state: Any, agent: int) -> list:
    return [state.successor(agent, action) for action in state.legal_actions(agent)]


def engine_benchmark(layout: Layout, runs: int = 5, successors: int = 200_000, seed: int = 0) -> dict[str, Any]:
    """Median successors per second for the fast engine (whole nodes and step by step) and the reference.

    The reference engine walks a twentieth as many successors per run: it is that much slower.
    """
    from pacman.reference import ReferenceState

    fast0 = GameState.initial(layout)
    ref0 = ReferenceState.initial(layout)
    reference_successors = max(1_000, successors // 20)
    samples: dict[str, list[float]] = {"fast": [], "fast_stepwise": [], "reference": []}
    for run in range(runs):
        # Interleaved, so that a noisy neighbour slows every engine alike.
        samples["fast"].append(walk_rate(fast0, GameState.successors, successors, seed + run))
        samples["fast_stepwise"].append(walk_rate(fast0, _expand_stepwise, successors, seed + run))
        samples["reference"].append(walk_rate(ref0, _expand_stepwise, reference_successors, seed + run))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    return {
        "layout": layout.name,
        "runs": runs,
        "successors_per_run": successors,
        "reference_successors_per_run": reference_successors,
        "successors_per_second": {name: round(value) for name, value in medians.items()},
        "samples": {name: [round(v) for v in values] for name, values in samples.items()},
        "ratio_fast_to_reference": round(medians["fast"] / medians["reference"], 1),
        "ratio_stepwise_to_reference": round(medians["fast_stepwise"] / medians["reference"], 1),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }


# -- search ----------------------------------------------------------------------------
# Like the command line, this part is a front end: it may import `agents`.


def bench_positions(layout: Layout, count: int = 20, seed: int = 0) -> list[tuple[GameState, Any]]:
    """`count` positions with Pacman to move from seeded games, as (fast state, reference state) pairs.

    The games are played by the default agent against the layout's ghosts moving
    at random; every fourth position is taken.
    """
    from agents import ExpectimaxAgent, make_ghosts
    from pacman.game import run_game
    from pacman.reference import ReferenceState

    positions: list[tuple[GameState, Any]] = []
    game_seed = seed
    while len(positions) < count:
        result = run_game(layout, ExpectimaxAgent(depth=1, evaluation="better"),
                          make_ghosts("random", layout.num_ghosts), seed=game_seed, max_moves=400)
        fast, ref = GameState.initial(layout), ReferenceState.initial(layout)
        for turn, action in enumerate(result.actions):
            agent = turn % fast.num_agents
            if agent == 0 and (turn // fast.num_agents) % 4 == 0 and len(positions) < count:
                positions.append((fast, ref))
            fast, ref = fast.successor(agent, action), ref.successor(agent, action)
        game_seed += 1
    return positions


def textbook_expectimax_action(state: Any, depth: int, evaluate: Callable[[Any], float]) -> Any:
    """Expectimax as a textbook writes it: plain recursion, uniform ghosts, no table, no pruning."""
    n = state.num_agents

    def value(s: Any, agent: int, d: int) -> float:
        if s.is_win() or s.is_lose() or d == 0:
            return evaluate(s)
        following = (agent + 1) % n
        nd = d - 1 if agent == n - 1 else d
        if agent == 0:
            return max(value(s.successor(0, a), following, nd) for a in s.legal_actions(0))
        legal = s.legal_actions(agent)
        return sum(value(s.successor(agent, a), following, nd) for a in legal) / len(legal)

    following, nd = 1 % n, depth - 1 if n == 1 else depth
    best, best_value = None, -math.inf
    for action in state.legal_actions(0):
        v = value(state.successor(0, action), following, nd)
        if v > best_value:
            best, best_value = action, v
    return best


def search_benchmark(layout: Layout, depths: tuple[int, ...] = (2, 3, 4), positions: int = 20,
                     seed: int = 0, textbook_depths: tuple[int, ...] = (2, 3)) -> dict[str, Any]:
    """Milliseconds per decision (median over positions) and nodes per second of ExpectimaxAgent.

    Every depth with the `score` and `better` evaluations, with and without the
    transposition table (a fresh agent per position: the table helps within one
    search only). Then a textbook expectimax on the reference engine on the same
    positions, with `score`, and the ratio of the two at each of `textbook_depths`.
    """
    from agents import ExpectimaxAgent

    pairs = bench_positions(layout, positions, seed)
    rows = []
    for depth in depths:
        for evaluation in ("score", "better"):
            for table in (True, False):
                times, nodes = [], 0
                for fast, _ in pairs:
                    agent = ExpectimaxAgent(depth=depth, evaluation=evaluation, ghost_model="random",
                                            transposition=table)
                    started = time.perf_counter()
                    agent.get_action(fast)
                    times.append(time.perf_counter() - started)
                    nodes += agent.last_search.nodes
                rows.append({
                    "depth": depth, "evaluation": evaluation, "transposition": table,
                    "ms_per_move_median": round(1000 * statistics.median(times), 3),
                    "ms_per_move_mean": round(1000 * statistics.fmean(times), 3),
                    "nodes_per_second": round(nodes / sum(times)),
                })
    textbook = []
    for depth in textbook_depths:
        times = []
        for fast, ref in pairs:
            started = time.perf_counter()
            textbook_expectimax_action(ref, depth, lambda s: float(s.score))
            times.append(time.perf_counter() - started)
        ours = next(r for r in rows if r["depth"] == depth and r["evaluation"] == "score" and r["transposition"])
        median = 1000 * statistics.median(times)
        textbook.append({
            "depth": depth, "evaluation": "score", "engine": "reference",
            "ms_per_move_median": round(median, 3),
            "speedup_of_expectimax_agent": round(median / ours["ms_per_move_median"], 1),
        })
    return {"layout": layout.name, "positions": len(pairs), "ghosts": "random", "agent": rows,
            "textbook": textbook}
