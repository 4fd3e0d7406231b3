"""Steps per second of the learning environments (`pacman-ai bench --part env`): one Gymnasium environment
measured by Gymnasium's `benchmark_step`, and the vector environment of many games in the compiled core.

Random actions, grid observations. Needs the extra ``pacman-ai[gym]``; the vector
figure needs the compiled core (and says so when it is missing).
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import numpy as np

__all__ = ["env_benchmark"]


def env_benchmark(layout: Any, runs: int = 5, seconds: float = 1.0, num_envs: int = 1024, seed: int = 0,
                  ghosts: str = "random") -> dict[str, Any]:
    """Median steps per second over `runs` runs of about `seconds` each: the single environment as
    ``gymnasium.make`` gives it (wrappers included) and unwrapped, and `num_envs` games in one vector
    environment (copied observations, as returned by default, and the shared array)."""
    import gymnasium as gym
    from gymnasium.utils.performance import benchmark_step

    from pacman.envs import ENV_ID
    from pacman.envs.vector import compiled_vector_obstacle

    report: dict[str, Any] = {"layout": layout.name, "ghosts": ghosts, "runs": runs, "observation": "grid"}
    wrapped = gym.make(ENV_ID, layout=layout, ghosts=ghosts)
    wrapped.reset(seed=seed)
    wrapped.action_space.seed(seed)
    report["single_make"] = round(statistics.median(benchmark_step(wrapped, target_duration=seconds, seed=seed)
                                                    for _ in range(runs)))
    bare = wrapped.unwrapped
    bare.action_space.seed(seed)
    report["single_unwrapped"] = round(statistics.median(benchmark_step(bare, target_duration=seconds, seed=seed)
                                                         for _ in range(runs)))
    obstacle = compiled_vector_obstacle()
    report["num_envs"] = num_envs
    if obstacle is not None:
        report["vector_unavailable"] = obstacle
        return report
    rng = np.random.default_rng(seed)
    actions = rng.integers(5, size=(64, num_envs))
    for copy in (True, False):
        env = gym.make_vec(ENV_ID, num_envs=num_envs, layout=layout, ghosts=ghosts, copy=copy)
        env.reset(seed=seed)
        rates = []
        for _ in range(runs):
            steps, started = 0, time.perf_counter()
            while time.perf_counter() - started < seconds:
                for row in actions:
                    env.step(row)
                steps += len(actions) * num_envs
            rates.append(steps / (time.perf_counter() - started))
        report["vector" if copy else "vector_shared"] = round(statistics.median(rates))
    return report
