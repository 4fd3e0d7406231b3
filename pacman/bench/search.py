"""The search benchmark: milliseconds per decision of `ExpectimaxAgent`, next to a textbook expectimax.

Like the command line, bench is a front end: it may import `agents`.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from pacman.agents import MAX_SEARCH_LEAVES, ExpectimaxAgent, estimated_leaves, make_ghosts
from pacman.agents.compiled import core_obstacle, core_status, engine_line
from pacman.agents.evaluation import EVALUATIONS, region_cells
from pacman.agents.expectimax import NEAR_GHOST_NODES, NEAR_GHOST_STEPS, SMALL_MAZE_NODES
from pacman.conformance import SimpleState, textbook_action
from pacman.errors import PacmanError
from pacman.game import replay_actions, run_game
from pacman.layout import Layout
from pacman.state import GameState

__all__ = ["bench_positions", "search_benchmark", "engine_comparison", "pruning_comparison", "auto_benchmark",
           "PRUNING_MODES", "MEASURED_EVALUATIONS", "MEASURED_GHOSTS"]

#: The evaluations the search figures are measured with: the flat one (no bounds, nothing to prune) and the
#: feature one with bounds (`safe` is `better` with other weights: the same work a node).
MEASURED_EVALUATIONS = ("score", "better")
#: The ghost kind of the measured games and searches (uniform chance layers).
MEASURED_GHOSTS = "random"


def _every_nth_state(start: Any, actions: list, every: int) -> list:
    """The states before actions 0, every, 2 * every, ... of `actions` played from `start`."""
    states = [start] if actions else []
    for turn, (_, state) in enumerate(replay_actions(start, actions), start=1):
        if turn % every == 0 and turn < len(actions):
            states.append(state)
    return states


def bench_positions(layout: Layout, count: int = 20, seed: int = 0) -> list[tuple[GameState, SimpleState]]:
    """`count` positions with Pacman to move from seeded games, as (fast state, simple-engine state) pairs.

    The games are played by the default agent against the layout's ghosts moving
    at random; every fourth position is taken.
    """
    positions: list[tuple[GameState, SimpleState]] = []
    game_seed = seed
    while len(positions) < count:
        result = run_game(layout, ExpectimaxAgent(depth=1, evaluation="better"),
                          make_ghosts(MEASURED_GHOSTS, layout.num_ghosts), seed=game_seed, max_moves=400)
        if not result.actions:  # every game from this start is the same: no position would ever come
            why = result.error or ("the game is over before the first move" if GameState.initial(layout)
                                   .is_terminal() else "no move was played")
            raise PacmanError(f"{layout.name}: no position to measure a search on: {why}")
        fast = GameState.initial(layout)
        every = 4 * fast.num_agents
        pairs = zip(_every_nth_state(fast, result.actions, every),
                    _every_nth_state(SimpleState.initial(layout), result.actions, every))
        positions.extend(list(pairs)[:count - len(positions)])
        game_seed += 1
    return positions


def search_benchmark(layout: Layout, depths: tuple[int, ...] = (2, 3, 4), positions: int = 20,
                     seed: int = 0, textbook_depths: tuple[int, ...] = (2, 3)) -> dict[str, Any]:
    """Milliseconds per decision (median over positions) and nodes per second of ExpectimaxAgent.

    Every depth with the `score` and `better` evaluations, with and without the
    transposition table, and for `better` with and without Star1 pruning (a fresh agent per position: the table helps within one
    search only). Then the textbook expectimax on the simple engine on the same
    positions, with `score`, and the ratio of the two at each of `textbook_depths`
    (its rows say ``"engine": "reference"``, as the `--json` output always has).
    """
    pairs = bench_positions(layout, positions, seed)
    rows = []
    for depth in depths:
        for evaluation in MEASURED_EVALUATIONS:
            # Star1 prunes only with an evaluation that declares bounds: `better` does, `score` does not
            for table, pruning in ((True, True), (False, True), *(((True, False), (False, False))
                                                                  if evaluation == "better" else ())):
                times, nodes = [], 0
                for fast, _ in pairs:
                    agent = ExpectimaxAgent(depth=depth, evaluation=evaluation, ghost_model=MEASURED_GHOSTS,
                                            transposition=table, pruning=pruning, engine="python")
                    started = time.perf_counter()
                    agent.get_action(fast)
                    times.append(time.perf_counter() - started)
                    nodes += agent.last_search.nodes
                rows.append({
                    "depth": depth, "evaluation": evaluation, "transposition": table,
                    "pruning": pruning if evaluation == "better" else None,  # None: no bounds, nothing to prune
                    "ms_per_move_median": round(1000 * statistics.median(times), 3),
                    "ms_per_move_mean": round(1000 * statistics.fmean(times), 3),
                    "nodes_per_move_mean": round(nodes / len(pairs), 1),
                    "nodes_per_second": round(nodes / sum(times)),
                })
    textbook = []
    for depth in textbook_depths:
        times = []
        for _, simple in pairs:
            started = time.perf_counter()
            textbook_action(simple, depth, lambda s: float(s.score))
            times.append(time.perf_counter() - started)
        ours = next(r for r in rows if r["depth"] == depth and r["evaluation"] == "score" and r["transposition"])
        median = 1000 * statistics.median(times)
        textbook.append({
            "depth": depth, "evaluation": "score", "engine": "reference",
            "ms_per_move_median": round(median, 3),
            "speedup_of_expectimax_agent": round(median / ours["ms_per_move_median"], 1),
        })
    return {"layout": layout.name, "positions": len(pairs), "ghosts": MEASURED_GHOSTS, "engine": "python", "agent": rows,
            "textbook": textbook}


def _percentile(values: list[float], percent: float) -> float:
    """The `percent` percentile of `values`, interpolated between the closest ranks (numpy's default)."""
    ordered = sorted(values)
    rank = (len(ordered) - 1) * percent / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def _decision(agent: ExpectimaxAgent, state: GameState) -> tuple[float, tuple, int]:
    """One decision (`get_action`, as in a game) from an empty table: (seconds, (action, values), nodes)."""
    agent.clear_table()
    started = time.perf_counter()
    action = agent.get_action(state)
    seconds = time.perf_counter() - started
    return seconds, (action, agent.last_search.action_values), agent.last_search.nodes


def engine_comparison(layouts: list[Layout], depths: tuple[int, ...] = (2, 3, 4), positions: int = 20,
                      seed: int = 0, runs: int = 3) -> dict[str, Any]:
    """The Python engine and the compiled core side by side: the same decisions (`get_action` of the default
    agent's search, table and pruning on, random ghosts, the table cleared before each) on the same positions.

    Each position's time is the median of `runs` decisions, the engines taking turns, so that a burst of load
    on a shared machine slows both alike and does not pass for a slow position. For each layout, depth and
    evaluation (`score`, `better`): each engine's ms per decision (median, 95th percentile and slowest over
    the positions) and nodes per second, and the ratio of the nodes per second measured in this run (and in
    ``overall``, per evaluation, over every search both engines ran);
    ``same_answers`` says whether both engines gave the same values, actions and node counts. The Python
    engine is left out where a search is larger than agents accept (`MAX_SEARCH_LEAVES`), which would take
    it minutes; without the core (not built, or switched off) only the Python engine's rows are given.
    """
    usable, why = core_status()
    rows = []
    for layout in layouts:
        states = [fast for fast, _ in bench_positions(layout, positions, seed)]
        for depth in depths:
            for evaluation in MEASURED_EVALUATIONS:
                # the compiled core where the registry says it runs this evaluation (pacman.agents.compiled)
                core = core_obstacle(EVALUATIONS[evaluation], None, evaluation_name=evaluation) is None
                engines = [engine for engine in (("python", "compiled") if core else ("python",))
                           if engine == "compiled"
                           or estimated_leaves(layout, layout.num_ghosts, depth) <= MAX_SEARCH_LEAVES]
                # One agent per engine, as in a game; its table is cleared before each decision.
                agents = {engine: ExpectimaxAgent(depth=depth, evaluation=evaluation, ghost_model=MEASURED_GHOSTS,
                                                  engine=engine) for engine in engines}
                for engine, agent in agents.items():
                    agent.get_action(states[0])  # builds the searcher (and the layout's tables) once, untimed
                samples: dict[str, list[list[float]]] = {engine: [] for engine in engines}
                found: dict[str, tuple[list, int]] = {engine: ([], 0) for engine in engines}
                for state in states:
                    seconds: dict[str, list[float]] = {engine: [] for engine in engines}
                    last: dict[str, tuple[tuple, int]] = {}
                    for _ in range(runs):
                        for engine in engines:
                            elapsed, answer, nodes = _decision(agents[engine], state)
                            seconds[engine].append(elapsed)
                            last[engine] = (answer, nodes)
                    for engine in engines:
                        samples[engine].append(seconds[engine])
                        answers, total = found[engine]
                        found[engine] = (answers + [last[engine][0]], total + last[engine][1])
                for engine in engines:
                    times = [statistics.median(each) for each in samples[engine]]
                    nodes = found[engine][1]
                    rows.append({
                        "layout": layout.name, "ghosts": layout.num_ghosts, "depth": depth, "evaluation": evaluation,
                        "engine": engine,
                        "ms_per_move_median": round(1000 * statistics.median(times), 3),
                        "ms_per_move_p95": round(1000 * _percentile(times, 95), 3),
                        "ms_per_move_max": round(1000 * max(times), 3),
                        "nodes_per_move_mean": round(nodes / len(states), 1),
                        "nodes_per_second": round(nodes / sum(times)),
                        "nodes": nodes, "seconds": round(sum(times), 6),
                    })
                if len(found) == 2:
                    python, core = rows[-2], rows[-1]
                    rows[-1]["same_answers"] = found["python"] == found["compiled"]
                    rows[-1]["ratio_nodes_per_second"] = round(core["nodes_per_second"] / python["nodes_per_second"], 1)
    overall = {}
    for evaluation in MEASURED_EVALUATIONS:
        pairs = [(python, core) for python, core in zip(rows, rows[1:]) if python["engine"] == "python"
                 and core["engine"] == "compiled" and python["evaluation"] == evaluation
                 and (python["layout"], python["depth"]) == (core["layout"], core["depth"])]
        if pairs:
            nodes = sum(python["nodes"] for python, _ in pairs)
            python_rate = nodes / sum(python["seconds"] for python, _ in pairs)
            core_rate = nodes / sum(core["seconds"] for _, core in pairs)
            overall[evaluation] = {"python_nodes_per_second": round(python_rate),
                                   "compiled_nodes_per_second": round(core_rate),
                                   "ratio_nodes_per_second": round(core_rate / python_rate, 1)}
    return {"engine": engine_line(), "compiled_available": usable, "why": why, "positions": positions,
            "runs": runs, "ghosts": MEASURED_GHOSTS, "rows": rows, "overall": overall}


#: The pruning of `pruning_comparison`, by name: ExpectimaxAgent's arguments.
PRUNING_MODES = {
    "plain": dict(pruning=False, star2=False, ordering=False),
    "star1": dict(pruning=True, star2=False, ordering=False),
    "star2": dict(pruning=True, star2=True, ordering=False),
    "star2_ordering": dict(pruning=True, star2=True, ordering=True),
}
#: Plain expectimax is left out of searches with more estimated leaves than this (minutes per decision).
PLAIN_LEAVES = 10**7


def pruning_comparison(layouts: list[Layout], depths: tuple[int, ...] = (2, 3, 4), positions: int = 20,
                       seed: int = 0) -> dict[str, Any]:
    """Nodes per decision with plain expectimax, Star1, Star2 and Star2 with move ordering, side by side: the
    same decisions (`get_action`, `better`, random ghosts, the table cleared before each) on the same positions,
    on the compiled core where it is built (else the Python engine, which leaves out searches larger than agents
    accept). For each layout, depth and mode: nodes per move (mean and the largest), ms per move (median, 95th
    percentile, slowest), and each mode's nodes over Star1's; ``same_answers`` says whether every mode chose
    the same action with the same value as the first mode run (plain where it runs: it is left out of trees
    estimated at more than `PLAIN_LEAVES` leaves)."""
    engine = "compiled" if core_obstacle(EVALUATIONS["better"], None) is None else "python"
    rows = []
    for layout in layouts:
        states = [fast for fast, _ in bench_positions(layout, positions, seed)]
        for depth in depths:
            leaves = estimated_leaves(layout, layout.num_ghosts, depth)
            if engine == "python" and leaves > MAX_SEARCH_LEAVES:
                continue
            modes = [mode for mode in PRUNING_MODES if mode != "plain" or leaves <= PLAIN_LEAVES]
            agents = {mode: ExpectimaxAgent(depth=depth, evaluation="better", ghost_model=MEASURED_GHOSTS, engine=engine,
                                            **PRUNING_MODES[mode]) for mode in modes}
            answers: dict[str, list] = {mode: [] for mode in modes}
            nodes: dict[str, list[int]] = {mode: [] for mode in modes}
            times: dict[str, list[float]] = {mode: [] for mode in modes}
            for state in states:
                for mode in modes:
                    seconds, (action, values), count = _decision(agents[mode], state)
                    answers[mode].append((action, values[action]))
                    nodes[mode].append(count)
                    times[mode].append(1000 * seconds)
            first = modes[0]
            row: dict[str, Any] = {"layout": layout.name, "ghosts": layout.num_ghosts, "depth": depth,
                                   "engine": engine, "modes": {},
                                   "same_answers": all(answers[mode] == answers[first] for mode in modes)}
            for mode in modes:
                row["modes"][mode] = {
                    "nodes_per_move_mean": round(statistics.fmean(nodes[mode]), 1),
                    "nodes_per_move_max": max(nodes[mode]),
                    "nodes_over_star1": round(sum(nodes[mode]) / sum(nodes["star1"]), 3),
                    "ms_per_move_median": round(statistics.median(times[mode]), 3),
                    "ms_per_move_p95": round(_percentile(times[mode], 95), 3),
                    "ms_per_move_max": round(max(times[mode]), 3),
                }
            rows.append(row)
    return {"engine": engine, "evaluation": "better", "ghosts": MEASURED_GHOSTS, "positions": positions, "rows": rows}


def auto_benchmark(layouts: list[Layout], positions: int = 20, seed: int = 0, runs: int = 3) -> dict[str, Any]:
    """The default agent's time a move (`ExpectimaxAgent()`: ``depth="auto"``, `scaled`, random ghosts) on each
    engine, on the same positions (`bench_positions`): what a game with the default agent costs a move.

    On a maze whose Pacman region has fewer than SMALL_MAZE_CELLS cells, ``auto`` deepens under
    SMALL_MAZE_NODES nodes a move, from scratch each move (``"deepens": true``); elsewhere it is depth 2, and
    deeper within NEAR_GHOST_NODES when a ghost is at most NEAR_GHOST_STEPS steps from Pacman, timed from an empty
    table too (as `engine_comparison` does). Each position's time is the median of `runs`
    decisions, the engines taking turns (as in `engine_comparison`). For each layout and engine: ms a move
    (median, 99th percentile and slowest over the positions), nodes a move (mean, largest), the depths reached,
    ``repeatable`` (every run of a position gave the same answer), and on the compiled row ``same_answers``:
    whether both engines chose the same moves with the same values, depths and node counts (the budget counts
    nodes, not time, so they must). Without the core only the Python engine's rows are given.
    """
    usable, why = core_status()
    rows = []
    for layout in layouts:
        states = [fast for fast, _ in bench_positions(layout, positions, seed)]
        engines = ("python", "compiled") if usable else ("python",)
        agents = {engine: ExpectimaxAgent(engine=engine) for engine in engines}
        for agent in agents.values():
            agent.get_action(states[0])  # builds the searcher (and the layout's tables) once, untimed
        deepens = agents["python"].small_maze_budget(layout) is not None
        samples: dict[str, list[float]] = {engine: [] for engine in engines}
        found: dict[str, list[tuple]] = {engine: [] for engine in engines}
        repeatable = {engine: True for engine in engines}
        for state in states:
            seconds: dict[str, list[float]] = {engine: [] for engine in engines}
            answers: dict[str, list[tuple]] = {engine: [] for engine in engines}
            for _ in range(runs):
                for engine in engines:
                    agent = agents[engine]
                    agent.clear_table()  # as each small-maze move does; on a big maze, like engine_comparison
                    started = time.perf_counter()
                    action = agent.get_action(state)
                    seconds[engine].append(time.perf_counter() - started)
                    search = agent.last_search
                    answers[engine].append((action, tuple(search.action_values.items()), search.depth,
                                            search.nodes))
            for engine in engines:
                samples[engine].append(1000 * statistics.median(seconds[engine]))
                found[engine].append(answers[engine][-1])
                # every run of a position gives one answer (a search from scratch); two would be a finding
                repeatable[engine] = repeatable[engine] and len(set(answers[engine])) == 1
        for engine in engines:
            times = samples[engine]
            depths = [answer[2] for answer in found[engine]]
            nodes = [answer[3] for answer in found[engine]]
            row: dict[str, Any] = {
                "layout": layout.name, "ghosts": layout.num_ghosts,
                "cells": layout.derived("region_cells", region_cells),
                "deepens": deepens, "engine": engine,
                "ms_per_move_median": round(statistics.median(times), 3),
                "ms_per_move_p99": round(_percentile(times, 99), 3),
                "ms_per_move_max": round(max(times), 3),
                "nodes_per_move_mean": round(statistics.fmean(nodes), 1),
                "nodes_per_move_max": max(nodes),
                "depth_min": min(depths), "depth_median": statistics.median(depths), "depth_max": max(depths),
            }
            row["repeatable"] = repeatable[engine]  # every run of each position gave the same answer
            if engine == "compiled":
                row["same_answers"] = found["compiled"] == found["python"] and repeatable["python"]
            rows.append(row)
    return {"engine": engine_line(), "compiled_available": usable, "why": why, "positions": positions, "runs": runs,
            "ghosts": MEASURED_GHOSTS, "budget": SMALL_MAZE_NODES, "near_budget": NEAR_GHOST_NODES,
            "near_steps": NEAR_GHOST_STEPS, "rows": rows}
