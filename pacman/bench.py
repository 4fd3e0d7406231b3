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

__all__ = ["walk_rate", "engine_benchmark", "search_benchmark", "record_benchmark"]

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


# -- recording ---------------------------------------------------------------------------


class _Tape:
    """A Display that keeps a game's calls, with what the agent's panel showed at each, to play them again."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.calls: list[tuple[str, tuple[Any, ...], Any]] = []

    def start(self, state: GameState) -> None:
        self.calls.append(("start", (state,), getattr(self.agent, "last_search", None)))

    def update(self, state: GameState, agent: int, action: Any) -> None:
        self.calls.append(("update", (state, agent, action), getattr(self.agent, "last_search", None)))

    def finish(self, state: GameState, result: Any) -> None:
        self.calls.append(("finish", (state, result), getattr(self.agent, "last_search", None)))


class _Shown:
    """Stands in for the agent while a tape plays: the values panel reads `last_search` from it."""

    evaluation_name = "better"
    last_search: Any = None


def record_benchmark(layout: Layout, runs: int = 3, moves: int = 150, seed: int = 0, zoom: float = 1.0,
                     encoders: tuple[str, ...] = ("pillow", "python")) -> dict[str, Any]:
    """Milliseconds per frame of recording a game to GIF (rendering, quantising, encoding, writing), per encoder.

    Wall-clock and CPU (process time: steadier on a busy machine) medians.
    One game of the default agent (expectimax depth 2, `better`, random ghosts) is
    played once, its calls kept; each run records them again to a temporary GIF
    with each encoder, interleaved. Figures are medians over `runs`; "render" is
    the drawing alone (frames made and dropped), the floor any encoder adds to.
    """
    import os
    import tempfile

    from agents import ExpectimaxAgent, make_ghosts
    from pacman.game import run_game
    from pacman.view.gif import _has_pillow
    from pacman.view.record import FrameRecorder

    agent = ExpectimaxAgent(depth=2, evaluation="better")
    agent.explain = True
    tape = _Tape(agent)
    result = run_game(layout, agent, make_ghosts("random", layout.num_ghosts), seed=seed, max_moves=moves,
                      display=tape)
    available = tuple(e for e in encoders if e != "pillow" or _has_pillow())

    def record(target: str | None, encoder: str) -> tuple[float, int, int]:
        shown = _Shown()
        if target is None:
            recorder = FrameRecorder(layout, os.devnull + ".gif", zoom=zoom, agent=shown, show_values=True,
                                     open_writer=False)
        else:
            recorder = FrameRecorder(layout, target, zoom=zoom, agent=shown, show_values=True, encoder=encoder)
        started, cpu = time.perf_counter(), time.process_time()
        for method, args, search in tape.calls:
            shown.last_search = search
            getattr(recorder, method)(*args)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        size = os.path.getsize(target) if target is not None else 0
        return elapsed, cpu, recorder.frames, size

    samples: dict[str, list[float]] = {name: [] for name in ("render", *available)}
    cpu_samples: dict[str, list[float]] = {name: [] for name in samples}
    frames = 0
    sizes: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="pacman-bench-") as folder:
        for run in range(runs):
            for encoder in ("render", *available):
                target = None if encoder == "render" else os.path.join(folder, f"{encoder}-{run}.gif")
                elapsed, cpu, frames, size = record(target, encoder)
                samples[encoder].append(1000 * elapsed / frames)
                cpu_samples[encoder].append(1000 * cpu / frames)
                if target is not None:
                    sizes[encoder] = size
                    os.remove(target)
    medians = {name: round(statistics.median(values), 3) for name, values in samples.items()}
    cpu_medians = {name: round(statistics.median(values), 3) for name, values in cpu_samples.items()}
    report: dict[str, Any] = {
        "layout": layout.name, "moves": result.moves, "frames": frames, "zoom": zoom, "runs": runs,
        "frame_size": list(FrameRecorder(layout, os.devnull + ".gif", zoom=zoom, show_values=True,
                                         open_writer=False).renderer.size),
        "ms_per_frame": medians,
        "cpu_ms_per_frame": cpu_medians,
        "samples": {name: [round(v, 3) for v in values] for name, values in samples.items()},
        "gif_bytes": sizes,
        "python": platform.python_version(),
    }
    if "pillow" in medians and "python" in medians:
        report["speedup_pillow_to_python"] = round(medians["python"] / medians["pillow"], 1)
        report["cpu_speedup_pillow_to_python"] = round(cpu_medians["python"] / cpu_medians["pillow"], 1)
    return report
