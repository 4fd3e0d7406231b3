"""Steps per second of the learning environments (`pacman-ai bench --part env`): one Gymnasium environment
measured by Gymnasium's `benchmark_step`, the vector environment of many games in the compiled core, and, where
JAX and Jumanji are installed, Jumanji's PacMan on the CPU measured in the same run.

Random actions, grid observations. Needs the extra ``pacman-ai[gym]``; the vector
figure needs the compiled core (and says so when it is missing). Jumanji is not a
dependency of pacman-ai: the comparison runs only when ``jax`` and ``jumanji``
import, its runs taking turns with the vector environment's so that both meet
the same load.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import statistics
import time
from typing import Any, Callable, Iterator

import numpy as np

__all__ = ["env_benchmark", "jumanji_obstacle", "sb3_obstacle", "JUMANJI_ENV", "SCAN_LENGTH"]

#: The Jumanji environment compared: its PacMan (its own rules and its one fixed 31 x 28 maze, four ghosts).
JUMANJI_ENV = "PacMan-v1"
#: Steps of one batch of random actions: rows given to the vector environments one by one, or one `lax.scan`.
SCAN_LENGTH = 64


def env_benchmark(layout: Any, runs: int = 5, seconds: float = 1.0, num_envs: int = 1024, seed: int = 0,
                  ghosts: str = "random", jumanji: bool = True) -> dict[str, Any]:
    """Median steps per second over `runs` runs of about `seconds` each: the single environment as
    ``gymnasium.make`` gives it (wrappers included) and unwrapped, on the engine it picks and on the Python
    one; `num_envs` games in one vector environment (copied observations, as returned by default, and the
    read-only shared array); and with `jumanji`, where it is installed, Jumanji's PacMan (`_jumanji`), its runs
    taking turns with the vector environment's, and each run's ratio of our vector figures to its best one
    (the median of those ratios). Everything runs on one CPU where the system lets a process choose
    (``one_core`` in the report): the targets are one core's."""
    report: dict[str, Any] = {"layout": layout.name, "ghosts": ghosts, "runs": runs, "observation": "grid"}
    with _one_core() as pinned:
        report["one_core"] = pinned
        _measure(report, layout, runs, seconds, num_envs, seed, ghosts, jumanji)
    return report


@contextlib.contextmanager
def _one_core() -> Iterator[bool]:
    """Run the block on one CPU (JAX would spread over every core), where the system lets a process choose
    (Linux); yields whether it could. Threads started inside (JAX's) stay on that CPU."""
    try:
        allowed = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {min(allowed)})
    except (AttributeError, OSError):
        yield False
        return
    try:
        yield True
    finally:
        os.sched_setaffinity(0, allowed)


def _measure(report: dict[str, Any], layout: Any, runs: int, seconds: float, num_envs: int, seed: int, ghosts: str,
             jumanji: bool) -> None:
    import gymnasium as gym
    from gymnasium.utils.performance import benchmark_step

    from pacman.envs import ENV_ID
    from pacman.agents.ghosts import make_ghosts
    from pacman.envs.vector import compiled_vector_obstacle

    for engine, suffix in (("auto", ""), ("python", "_python")):
        wrapped = gym.make(ENV_ID, layout=layout, ghosts=ghosts, engine=engine)
        if not suffix:
            report["single_engine"] = wrapped.unwrapped.engine
        elif report["single_engine"] == "python":
            break  # the figures above are the Python engine's already
        wrapped.reset(seed=seed)
        wrapped.action_space.seed(seed)
        report[f"single_make{suffix}"] = round(statistics.median(
            benchmark_step(wrapped, target_duration=seconds, seed=seed) for _ in range(runs)))
        bare = wrapped.unwrapped
        bare.action_space.seed(seed)
        report[f"single_unwrapped{suffix}"] = round(statistics.median(
            benchmark_step(bare, target_duration=seconds, seed=seed) for _ in range(runs)))
    report["num_envs"] = num_envs
    # The vector figures and Jumanji's are measured in turns, run by run, so that a load that changes in the
    # meantime (a shared machine) weighs on both alike.
    batches: dict[str, tuple[Callable[[], None], int]] = {}
    obstacle = compiled_vector_obstacle(ghost_agents=make_ghosts(ghosts, 1))  # the registry: can the core play them
    if obstacle is not None:
        report["vector_unavailable"] = obstacle
    else:
        actions = np.random.default_rng(seed).integers(5, size=(SCAN_LENGTH, num_envs))
        for copy in (True, False):
            env = gym.make_vec(ENV_ID, num_envs=num_envs, layout=layout, ghosts=ghosts, copy=copy)
            env.reset(seed=seed)

            def batch(env: Any = env) -> None:
                for row in actions:
                    env.step(row)

            batches["vector" if copy else "vector_shared"] = (batch, actions.size)
        same = gym.make_vec(ENV_ID, num_envs=num_envs, layout=layout, ghosts=ghosts, autoreset_mode="SAME_STEP")
        same.reset(seed=seed)

        def same_batch(env: Any = same) -> None:
            for row in actions:
                env.step(row)

        batches["vector_same_step"] = (same_batch, actions.size)
        why_not_sb3 = sb3_obstacle()
        if why_not_sb3 is not None:
            report["sb3_unavailable"] = why_not_sb3
        else:
            from pacman.envs.sb3 import make_vec_env

            sb3_env = make_vec_env(layout=layout, num_envs=num_envs, ghosts=ghosts)
            sb3_env.seed(seed)
            sb3_env.reset()

            def sb3_batch(env: Any = sb3_env) -> None:
                for row in actions:
                    env.step(row)

            batches["sb3"] = (sb3_batch, actions.size)
    why = "skipped (--no-jumanji)" if not jumanji else jumanji_obstacle()
    if why is not None:
        report["jumanji_unavailable"] = why
    else:
        report["jumanji"], jumanji_batches = _jumanji(num_envs, seed)
        batches.update({f"jumanji_{name}": batch for name, batch in jumanji_batches.items()})
    rates = _interleaved(batches, runs, seconds)
    for name in ("vector", "vector_shared", "vector_same_step", "sb3"):
        if name in rates:
            report[name] = round(statistics.median(rates[name]))
    if "jumanji" in report:
        report["jumanji"]["step"] = round(statistics.median(rates["jumanji_step"]))
        report["jumanji"]["scan"] = round(statistics.median(rates["jumanji_scan"]))
        for name in ("vector", "vector_shared"):
            if name in rates:  # each run's ratio to Jumanji's best figure of that run; the median of those
                report[f"ratio_{name}_to_jumanji"] = round(statistics.median(
                    ours / max(step, scan)
                    for ours, step, scan in zip(rates[name], rates["jumanji_step"], rates["jumanji_scan"])), 2)


def _interleaved(batches: dict[str, tuple[Callable[[], None], int]], runs: int,
                 seconds: float) -> dict[str, list[float]]:
    """Steps per second of each batch function, `runs` runs of about `seconds` each, taking turns."""
    rates: dict[str, list[float]] = {name: [] for name in batches}
    for _ in range(runs):
        for name, (step_batch, steps_per_batch) in batches.items():
            steps, started = 0, time.perf_counter()
            while time.perf_counter() - started < seconds:
                step_batch()
                steps += steps_per_batch
            rates[name].append(steps / (time.perf_counter() - started))
    return rates


def sb3_obstacle() -> str | None:
    """Why the Stable-Baselines3 vector environment cannot be measured here (the extra ``rl`` missing); None if
    it can."""
    try:
        importlib.import_module("stable_baselines3")
    except ImportError as exc:
        return f"stable_baselines3 is not installed ({exc}); pip install \"pacman-ai[rl]\" to measure it"
    return None


def jumanji_obstacle() -> str | None:
    """Why Jumanji's PacMan cannot be measured here (jax or jumanji missing, or failing to import); None if it
    can."""
    for name in ("jax", "jumanji"):
        try:
            importlib.import_module(name)
        except ImportError as exc:
            return f"{name} is not installed ({exc}); pip install jax jumanji to compare"
        except Exception as exc:  # a broken install (a jaxlib that does not match, ...) is reported, not raised
            return f"{name} does not import: {type(exc).__name__}: {exc}"
    return None


def _jumanji(num_envs: int, seed: int) -> tuple[dict[str, Any], dict[str, tuple[Callable[[], None], int]]]:
    """Jumanji's PacMan on JAX's CPU device, `num_envs` environments under Jumanji's `AutoResetWrapper`, random
    actions (`SCAN_LENGTH` rows drawn as ours are), compiled before timing: what it is, and two batch
    functions of `SCAN_LENGTH` steps of every environment. ``step``: one jitted ``vmap`` of ``env.step`` per
    row (JAX's asynchronous dispatch, blocking once per batch); ``scan``: the batch as one jitted
    ``lax.scan`` carrying each step's state and timestep (so every observation is computed)."""
    import jax
    import jax.numpy as jnp
    import jumanji
    from jumanji.wrappers import AutoResetWrapper

    cpu = jax.devices("cpu")[0]  # the CPU even where JAX has an accelerator: arrays committed to it
    env = AutoResetWrapper(jumanji.make(JUMANJI_ENV))
    keys = jax.device_put(jax.random.split(jax.random.PRNGKey(seed), num_envs), cpu)
    state, timestep = jax.jit(jax.vmap(env.reset))(keys)
    step = jax.jit(jax.vmap(env.step))
    drawn = np.random.default_rng(seed).integers(5, size=(SCAN_LENGTH, num_envs)).astype(np.int32)
    actions = jax.device_put(jnp.asarray(drawn), cpu)
    rows = [jax.device_put(jnp.asarray(row), cpu) for row in drawn]

    def body(carry: Any, action: Any) -> tuple[Any, None]:
        return jax.vmap(env.step)(carry[0], action), None

    scan = jax.jit(lambda carry, batch: jax.lax.scan(body, carry, batch)[0])
    started = time.perf_counter()
    jax.block_until_ready(step(state, rows[0]))
    compile_step = time.perf_counter() - started
    started = time.perf_counter()
    jax.block_until_ready(scan((state, timestep), actions))
    compile_scan = time.perf_counter() - started
    current = [(state, timestep)]

    def stepped() -> None:
        carry = current[0]
        for row in rows:
            carry = step(carry[0], row)
        current[0] = jax.block_until_ready(carry)

    def scanned() -> None:
        current[0] = jax.block_until_ready(scan(current[0], actions))

    about = {"env": JUMANJI_ENV, "jax": jax.__version__, "jumanji": getattr(jumanji, "__version__", "?"),
             "device": str(cpu), "num_envs": num_envs,
             "compile_seconds": {"step": round(compile_step, 1), "scan": round(compile_scan, 1)}}
    steps = SCAN_LENGTH * num_envs
    return about, {"step": (stepped, steps), "scan": (scanned, steps)}
