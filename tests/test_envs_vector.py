"""The vector environment: the compiled core plays the games of the Python environment, step for step."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

from gymnasium.vector import SyncVectorEnv  # noqa: E402

from pacman.agents.compiled import core_status  # noqa: E402
from pacman.envs import ENV_ID, PacmanEnv  # noqa: E402
from pacman.errors import PacmanError  # noqa: E402
from pacman.game import agent_streams  # noqa: E402

compiled = pytest.mark.skipif(not core_status()[0], reason="the compiled core is not built")


def _trace(env, seed, steps, num_envs, action_seed=1):
    """Everything the vector env returns over `steps` random actions (illegal ones included)."""
    rng = np.random.default_rng(action_seed)
    obs, info = env.reset(seed=seed)
    trace = [(obs.copy(), info["action_mask"].copy())]
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(rng.integers(5, size=num_envs))
        trace.append((obs.copy(), reward.copy(), terminated.copy(), truncated.copy(), info["action_mask"].copy()))
    return trace


@compiled
@pytest.mark.parametrize("layout,ghosts", [("medium", "random"), ("capsules", "directional"), ("tricky", "random"),
                                           ("tricky", "directional"), ("minimax", "random"), ("open", "directional")])
def test_the_compiled_vector_env_plays_the_episodes_of_the_python_one(layout, ghosts):
    options = dict(num_envs=6, layout=layout, ghosts=ghosts, max_episode_steps=40)
    fast = gym.make_vec(ENV_ID, **options)
    slow = gym.make_vec(ENV_ID, vectorization_mode="sync", engine="python", **options)
    assert type(fast).__name__ == "PacmanVectorEnv" and isinstance(slow, SyncVectorEnv)
    assert {env.unwrapped.engine for env in slow.envs} == {"python"}
    a, b = _trace(fast, 9, 250, 6), _trace(slow, 9, 250, 6)
    ends = sum(int(step[2].sum() + step[3].sum()) for step in a[1:])
    assert ends >= 20  # many autoresets were compared, not only first episodes
    for t, (mine, theirs) in enumerate(zip(a, b)):
        for field, (x, y) in enumerate(zip(mine, theirs)):
            assert np.array_equal(x, y), f"step {t}, field {field}"
    for i in range(6):  # the core's GameStates are GameStates: equal, same hash, same type
        mine, theirs = fast.state(i), slow.envs[i].unwrapped.state
        assert mine == theirs and hash(mine) == hash(theirs) and type(mine) is type(theirs)


@compiled
def test_unseeded_resets_and_per_game_seeds_follow_gymnasium():
    options = dict(num_envs=3, layout="small", max_episode_steps=30)
    fast = gym.make_vec(ENV_ID, **options)
    slow = gym.make_vec(ENV_ID, vectorization_mode="sync", engine="python", **options)
    for env in (fast, slow):
        env.reset(seed=[4, None, 17])
    fast.reset(seed=[None, 2, None])  # game 0 continues its seeder; game 1 from seed 2
    slow.reset(seed=[None, 2, None])
    assert [fast.state(i) for i in range(3)] == [slow.envs[i].unwrapped.state for i in range(3)]
    assert fast.seed_of_game(1) == 2
    assert fast.seed_of_game(0) == slow.envs[0].unwrapped.seed_of_game
    one, two = gym.make_vec(ENV_ID, num_envs=2, layout="small"), gym.make_vec(ENV_ID, num_envs=2, layout="small")
    assert all(np.array_equal(x, y) for s, t in zip(_trace(one, 5, 60, 2), _trace(two, 5, 60, 2)) for x, y in zip(s, t))


@compiled
@pytest.mark.parametrize("seed", [0, 1, 7, 2**32 - 1, 2**32, 2**63 + 5, 2**200 + 3])
def test_the_core_seeds_numpy_streams_bit_for_bit(seed):
    from pacman.agents import _core
    from pacman.envs.core_games import seed_words

    for child, stream in enumerate(agent_streams(seed, 4)):
        state = stream.bit_generator.state["state"]
        high, low, inc_high, inc_low, raw = _core.seeded_stream(seed_words(seed), child)
        assert (high << 64 | low, inc_high << 64 | inc_low) == (state["state"], state["inc"])
        assert raw == int(stream.bit_generator.random_raw())
    root = np.random.PCG64(np.random.SeedSequence(seed))  # Gymnasium's np_random
    high, low, inc_high, inc_low, raw = _core.seeded_stream(seed_words(seed), -1)
    assert (high << 64 | low) == root.state["state"]["state"] and raw == int(root.random_raw())


def test_without_the_core_make_vec_falls_back_to_a_sync_vector_env_with_the_same_episodes(tmp_path):
    script = tmp_path / "vec.py"
    script.write_text(textwrap.dedent("""
        import hashlib, sys
        import numpy as np, gymnasium as gym
        import pacman.envs
        env = gym.make_vec("pacman_ai/Pacman-v0", num_envs=4, layout="capsules", max_episode_steps=30)
        rng = np.random.default_rng(0)
        digest = hashlib.sha256()
        obs, info = env.reset(seed=3)
        digest.update(obs.tobytes())
        for _ in range(120):
            obs, reward, terminated, truncated, info = env.step(rng.integers(5, size=4))
            for part in (obs, reward, terminated, truncated, info["action_mask"]):
                digest.update(np.ascontiguousarray(part).tobytes())
        print(type(env).__name__, digest.hexdigest())
    """), encoding="utf-8")
    outputs = {}
    for engine in ("python", "auto"):
        run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True, timeout=120,
                             env={**os.environ, "PACMAN_AI_ENGINE": engine})
        outputs[engine] = run.stdout.split()
    assert outputs["python"][0] == "SyncVectorEnv"
    if core_status()[0]:
        assert outputs["auto"][0] == "PacmanVectorEnv"
    assert outputs["python"][1] == outputs["auto"][1]


def test_other_observations_and_render_modes_use_the_sync_vector_env():
    env = gym.make_vec(ENV_ID, num_envs=2, layout="small", observation="state")
    assert isinstance(env, SyncVectorEnv)
    obs, info = env.reset(seed=0)
    assert obs.shape == (2, 2 + 3 * 2 + 2) and info["state"][0] == PacmanEnv("small").start


@compiled
def test_the_vector_env_returns_copies_unless_told_and_refuses_bad_actions():
    env = gym.make_vec(ENV_ID, num_envs=2, layout="small")
    first, _ = env.reset(seed=0)
    second = env.step(np.array([2, 2]))[0]
    assert first is not second and not np.array_equal(first, second)
    shared = gym.make_vec(ENV_ID, num_envs=2, layout="small", copy=False)
    a, _ = shared.reset(seed=0)
    b = shared.step(np.array([2, 2]))[0]
    assert a is b and not a.flags.writeable  # the core rewrites only changed cells: nobody else may write
    with pytest.raises(ValueError, match="read-only"):
        a[0, 0, 0, 0] = 1
    with pytest.raises(ValueError, match="action 7 of game 1"):
        env.step(np.array([0, 7]))
    with pytest.raises(ValueError, match="2 integer actions"):
        env.step(np.array([0.5, 1.0]))


@compiled
def test_engine_python_gives_a_sync_vector_env_of_python_games_and_compiled_single_envs_can_be_vectorised():
    python = gym.make_vec(ENV_ID, num_envs=2, layout="small", engine="python")
    assert isinstance(python, SyncVectorEnv) and {env.engine for env in python.envs} == {"python"}
    pixels = gym.make_vec(ENV_ID, num_envs=2, layout="small", observation="state", engine="compiled")
    assert isinstance(pixels, SyncVectorEnv) and {env.engine for env in pixels.envs} == {"compiled"}
    assert type(gym.make_vec(ENV_ID, num_envs=2, layout="small", engine="compiled")).__name__ == "PacmanVectorEnv"


@pytest.mark.parametrize("engine", [pytest.param("auto", marks=compiled), "python"])
def test_same_step_autoreset_gives_the_final_observation_as_sync_vector_env_does(engine):
    """SAME_STEP: the games of NEXT_STEP without the junk step, the ended game's last observation and info in
    final_obs / final_info; the compiled env and the Python SyncVectorEnv agree."""
    num_envs, steps = 3, 120
    same = gym.make_vec(ENV_ID, num_envs=num_envs, layout="small", autoreset_mode="SAME_STEP", engine=engine,
                        max_episode_steps=30)
    assert same.metadata["autoreset_mode"] == gym.vector.AutoresetMode.SAME_STEP
    singles = [PacmanEnv("small", max_moves=30, engine="python") for _ in range(num_envs)]
    obs, _ = same.reset(seed=4)
    assert all((obs[i] == env.reset(seed=4 + i)[0]).all() for i, env in enumerate(singles))
    rng = np.random.default_rng(9)
    ended = 0
    for _ in range(steps):
        actions = rng.integers(5, size=num_envs)
        obs, rewards, terminated, truncated, info = same.step(actions)
        for i, env in enumerate(singles):
            single_obs, reward, term, trunc, single_info = env.step(int(actions[i]))
            assert rewards[i] == reward and terminated[i] == term and truncated[i] == trunc
            if term or trunc:
                ended += 1
                assert info["_final_obs"][i] and (info["final_obs"][i] == single_obs).all()
                assert (info["final_info"]["action_mask"][i] == single_info["action_mask"]).all()
                single_obs, _ = env.reset()
            else:
                assert "final_obs" not in info or not info["_final_obs"][i]
            assert (obs[i] == single_obs).all()
    assert ended >= 5


def test_autoreset_modes_other_than_next_and_same_step_are_refused_by_name():
    with pytest.raises(PacmanError, match="DISABLED"):
        gym.make_vec(ENV_ID, num_envs=2, layout="small", autoreset_mode="DISABLED")
    with pytest.raises(PacmanError, match="autoreset_mode='sometimes'"):
        gym.make_vec(ENV_ID, num_envs=2, layout="small", autoreset_mode="sometimes")
