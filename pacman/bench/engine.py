"""The engine benchmark: successors per second of the fast engine, next to the simple engine.

A run is a random walk from the start of a game: at every state, every legal
successor of the agent to move is generated and counted, then one of them is
picked at random to continue; a finished game starts again. The figure is
successors per second; each is the median of several runs.
"""

from __future__ import annotations

import platform
import random
import statistics
import time
from typing import Any, Callable

from pacman.conformance import SimpleState
from pacman.layout import Layout
from pacman.state import GameState

__all__ = ["walk_rate", "engine_benchmark"]

#: Every legal successor of `agent` in a state: ``(state, agent) -> [state, ...]``.
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
    """Median successors per second for the fast engine (whole nodes and step by step) and the simple engine.

    The simple engine walks a twentieth as many successors per run: it is that much slower.
    The report names the simple engine "reference", as the `--json` output always has.
    """
    fast0 = GameState.initial(layout)
    simple0 = SimpleState.initial(layout)
    simple_successors = max(1_000, successors // 20)
    samples: dict[str, list[float]] = {"fast": [], "fast_stepwise": [], "reference": []}
    for run in range(runs):
        # Interleaved, so that a noisy neighbour slows every engine alike.
        samples["fast"].append(walk_rate(fast0, GameState.successors, successors, seed + run))
        samples["fast_stepwise"].append(walk_rate(fast0, _expand_stepwise, successors, seed + run))
        samples["reference"].append(walk_rate(simple0, _expand_stepwise, simple_successors, seed + run))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    return {
        "layout": layout.name,
        "runs": runs,
        "successors_per_run": successors,
        "reference_successors_per_run": simple_successors,
        "successors_per_second": {name: round(value) for name, value in medians.items()},
        "samples": {name: [round(v) for v in values] for name, values in samples.items()},
        "ratio_fast_to_reference": round(medians["fast"] / medians["reference"], 1),
        "ratio_stepwise_to_reference": round(medians["fast_stepwise"] / medians["reference"], 1),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
