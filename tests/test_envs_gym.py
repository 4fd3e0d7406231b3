"""The Gymnasium environment: the API as Gymnasium checks it, the game as `play --seed` plays it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from pacman import load_layout  # noqa: E402
from pacman.actions import ACTIONS, Action  # noqa: E402
from pacman.agents import RandomAgent  # noqa: E402
from pacman.envs import CHANNELS, ENV_ID, PacmanEnv  # noqa: E402
from pacman.envs.observations import state_fields, state_vector  # noqa: E402
from pacman.envs.policies import AgentPolicy  # noqa: E402
from pacman.errors import PacmanError  # noqa: E402
from pacman.replay import load_replay  # noqa: E402
from pacman.game import run_game  # noqa: E402
from pacman.agents.ghosts import make_ghosts  # noqa: E402
from pacman.layout import layout_names  # noqa: E402
from pacman.agents.compiled import core_status  # noqa: E402
from pacman.envs.observations import grid_observation  # noqa: E402

SHIPPED = layout_names()
#: The engines a PacmanEnv can play with here: the Python rules always, the compiled core when built.
ENGINES = ["python"] + (["compiled"] if core_status()[0] else [])
HEADLESS = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("ghosts", ["random", "directional"])
@pytest.mark.parametrize("layout", SHIPPED)
def test_check_env_passes_on_every_shipped_layout_and_ghost_model(layout, ghosts, engine):
    env = gym.make(ENV_ID, layout=layout, ghosts=ghosts, engine=engine)
    assert env.unwrapped.engine == engine
    check_env(env.unwrapped, skip_render_check=True)
    assert env.observation_space.shape == (len(CHANNELS), load_layout(layout).height, load_layout(layout).width)


@pytest.mark.parametrize("observation", ["grid", "state", "pixels"])
@pytest.mark.parametrize("render_mode", ["rgb_array", "ansi"])
def test_check_env_passes_with_every_observation_and_render_mode(observation, render_mode):
    check_env(PacmanEnv("capsules", observation=observation, render_mode=render_mode))


def test_the_ids_are_registered_on_import_and_the_module_form_works_in_a_fresh_interpreter(tmp_path):
    script = tmp_path / "user.py"
    script.write_text(textwrap.dedent("""
        import gymnasium as gym
        env = gym.make("pacman.envs:Pacman-v0", layout="small")
        obs, info = env.reset(seed=4)
        other = gym.make("pacman_ai/Pacman-v0", layout="small")
        print(env.spec.id, env.spec.max_episode_steps, env.unwrapped.max_moves, obs.shape, info["seed"],
              other.unwrapped.layout.name)
    """), encoding="utf-8")
    out = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, check=True,
                         env=HEADLESS, timeout=120).stdout.split()
    # No fixed step limit: the environment's own, the command line's default for the maze (20 a cell, >= 1000).
    assert out == ["Pacman-v0", "None", "1280", "(6,", "7,", "20)", "4", "small"]  # small: 64 open cells


def _play(tmp_path, layout, seed, pacman, ghosts="random", max_moves=None):
    path = tmp_path / "game.json"
    command = [sys.executable, "-m", "pacman", "play", "--layout", layout, "--seed", str(seed), "--pacman", pacman,
               "--ghosts", ghosts, "--display", "none", "--save", str(path)]
    if max_moves:
        command += ["--max-moves", str(max_moves)]
    subprocess.run(command, check=True, capture_output=True, env=HEADLESS, timeout=120)
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("layout,ghosts,pacman", [("small", "random", "greedy"), ("capsules", "directional", "greedy"),
                                                  ("medium", "random", "random")])
def test_an_episode_with_the_actions_of_a_play_game_is_that_game(tmp_path, layout, ghosts, pacman, engine):
    _play(tmp_path, layout, 11, pacman, ghosts, max_moves=200)
    replay = load_replay(tmp_path / "game.json")
    num_agents = 1 + replay.num_ghosts
    rounds = [replay.actions[i:i + num_agents] for i in range(0, len(replay.actions), num_agents)]
    expected = [state for state, agent, _ in replay.states() if agent is not None and
                (agent == num_agents - 1 or state.is_terminal())]
    env = PacmanEnv(layout, ghosts=ghosts, max_moves=200, engine=engine)
    assert env.engine == engine
    obs, info = env.reset(seed=11)
    total = 0.0
    for moves, (actions, state) in enumerate(zip(rounds, expected), start=1):
        obs, reward, terminated, truncated, info = env.step(ACTIONS.index(actions[0]))
        total += reward
        assert info["state"].position_key == state.position_key
        assert info["moves"] == moves
    assert total == replay.result["score"] == info["state"].score
    assert terminated == (replay.result["won"] or replay.result["lost"])
    assert truncated == (len(rounds) == 200)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_shipped_agent_in_the_environment_plays_the_play_game(tmp_path, engine):
    saved = _play(tmp_path, "small", 5, "random", max_moves=300)
    env = PacmanEnv("small", max_moves=300, engine=engine)
    policy = AgentPolicy(RandomAgent())
    obs, info = env.reset(seed=5)
    policy.start(env)
    total, done = 0.0, False
    while not done:
        obs, reward, terminated, truncated, info = env.step(policy(obs, info))
        total += reward
        done = terminated or truncated
    assert (total, info["moves"]) == (saved["result"]["score"], saved["result"]["moves"])
    direct = run_game(load_layout("small"), RandomAgent(), make_ghosts("random", 2), seed=5, max_moves=300)
    assert direct.score == total


def test_the_same_seed_gives_the_same_episode_and_unseeded_resets_follow_the_seeded_generator():
    def episode(env, seed):
        obs, info = env.reset(seed=seed)
        trace = [info["seed"], obs.tobytes()]
        for k in range(40):
            obs, reward, terminated, truncated, info = env.step(k % 5)
            trace.append((obs.tobytes(), reward, terminated, truncated))
            if terminated or truncated:
                break
        obs, info = env.reset()
        trace.append(info["seed"])
        return trace

    first, second = episode(PacmanEnv("medium"), 3), episode(PacmanEnv("medium"), 3)
    assert first == second
    assert first[0] == 3 and first[-1] != 3
    assert episode(PacmanEnv("medium"), 4)[1:] != first[1:]
    huge = 3 ** 700  # beyond the 1024 bits the core seeds itself: numpy's streams carried into it
    traces = [episode(PacmanEnv("medium", engine=engine), huge) for engine in ENGINES]
    assert all(trace == traces[0] for trace in traces) and traces[0][0] == huge


def test_illegal_actions_are_taken_as_stop_and_counted_and_the_mask_holds_the_legal_ones():
    env = PacmanEnv("test", num_ghosts=0)
    obs, info = env.reset(seed=0)
    state = info["state"]
    assert state.pacman_position == (1, 3)
    assert info["action_mask"].tolist() == [0, 1, 1, 0, 1]  # South, East, Stop
    assert info["action_mask"].dtype == np.int8
    obs, reward, terminated, truncated, info = env.step(ACTIONS.index(Action.NORTH))
    assert info["state"] == state.successor(0, Action.STOP)
    assert (reward, info["illegal_actions"]) == (-1.0, 1)
    obs, reward, terminated, truncated, info = env.step(ACTIONS.index(Action.EAST))
    assert (reward, info["illegal_actions"]) == (9.0, 1)


def test_reward_is_the_change_of_score_and_the_end_terminates():
    env = PacmanEnv("test", num_ghosts=0, max_moves=100)
    obs, info = env.reset(seed=0)
    total = 0.0
    for word in ["East", "East", "South", "South", "West", "West", "North"]:
        obs, reward, terminated, truncated, info = env.step(ACTIONS.index(Action(word)))
        total += reward
    assert info["state"].is_win() and terminated and not truncated
    assert total == info["state"].score == 6 * 10 + 500 - 7
    assert info["action_mask"].tolist() == [0, 0, 0, 0, 0]
    with pytest.raises(PacmanError, match="after the episode ended"):
        env.step(4)


def test_the_move_limit_truncates_as_time_limit_does():
    env = gym.make(ENV_ID, layout="test", num_ghosts=0, max_episode_steps=3)
    own = PacmanEnv("test", num_ghosts=0, max_moves=3)
    for e in (env, own):
        e.reset(seed=0)
        flags = [e.step(4)[2:4] for _ in range(3)]
        assert flags == [(False, False), (False, False), (False, True)]


def test_the_grid_marks_each_channel_exactly(tmp_path):
    maze = tmp_path / "maze.lay"
    maze.write_text("%%%%%%%\n%P.o .%\n% %%G.%\n%%%%%%%\n", encoding="utf-8")
    env = PacmanEnv(str(maze))
    obs, info = env.reset(seed=0)
    expected = {
        "walls": ["1111111", "1000001", "1011001", "1111111"],
        "food": ["0000000", "0010010", "0000010", "0000000"],
        "capsules": ["0000000", "0001000", "0000000", "0000000"],
        "pacman": ["0000000", "0100000", "0000000", "0000000"],
        "ghosts": ["0000000", "0000000", "0000100", "0000000"],
        "scared_ghosts": ["0000000"] * 4,
    }
    for index, name in enumerate(CHANNELS):
        assert ["".join(map(str, row)) for row in obs[index]] == expected[name], name


def test_a_scared_ghost_half_way_is_marked_where_it_is_heading():
    env = PacmanEnv("capsules", max_moves=300)
    seen, rng = 0, np.random.default_rng(0)
    for seed in range(50):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            done = terminated or truncated
            state = info["state"]
            for (x, y), direction, timer in zip(state.ghost_positions, state.ghost_directions, state.scared_timers):
                if timer and (x != int(x) or y != int(y)):
                    dx, dy = direction.vector
                    row, column = state.layout.height - 1 - int(y + dy / 2), int(x + dx / 2)
                    assert obs[CHANNELS.index("scared_ghosts"), row, column] == 1
                    seen += 1
        if seen:
            break
    assert seen


def test_the_state_observation_lists_positions_timers_and_counts():
    env = PacmanEnv("minimax", observation="state")
    obs, info = env.reset(seed=0)
    assert state_fields(3)[:5] == ("pacman_x", "pacman_y", "ghost_1_x", "ghost_1_y", "ghost_1_scared_timer")
    state = info["state"]
    assert obs.tolist() == [1, 2, 3, 2, 0, 5, 2, 0, 7, 2, 0, state.food_count, 0] and state.food_count == 4
    assert np.array_equal(obs, state_vector(state)) and obs in env.observation_space
    obs, _ = PacmanEnv("tiny", observation="state").reset(seed=0)
    assert obs[-2:].tolist() == [16, 1]  # tiny: 16 dots and a capsule


def test_render_modes_give_a_frame_text_and_a_window():
    frame = PacmanEnv("small", render_mode="rgb_array")
    frame.reset(seed=0)
    picture = frame.render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[1] >= 20 * 32
    text = PacmanEnv("small", render_mode="ansi")
    text.reset(seed=0)
    board = text.render()
    assert board.splitlines()[0] == "%" * 20 and "P" in board and "score 0" in board
    pixels = PacmanEnv("small", observation="pixels", cell=8)
    obs, _ = pixels.reset(seed=0)
    assert obs.shape == pixels.observation_space.shape and obs.shape[2] == 3
    assert PacmanEnv.metadata["render_fps"] > 0


def test_the_human_mode_opens_a_window_headless(tmp_path):
    script = tmp_path / "window.py"
    script.write_text(textwrap.dedent("""
        import pygame
        from pacman.envs import PacmanEnv
        env = PacmanEnv("small", render_mode="human")
        env.reset(seed=0)
        env.step(4)
        print(pygame.display.get_surface().get_size() == env._renderer(32).size)
        env.close()
        print(pygame.display.get_init())
    """), encoding="utf-8")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True, env=HEADLESS,
                         timeout=120).stdout.split()
    assert out == ["True", "False"]


@pytest.mark.parametrize("kwargs,message", [
    (dict(ghosts="smart"), "ghosts='smart'"),
    (dict(observation="rgb"), "observation='rgb'"),
    (dict(render_mode="window"), "render_mode='window'"),
    (dict(num_ghosts=9), "num_ghosts=9"),
    (dict(max_moves=0), "max_moves"),
])
def test_bad_options_are_named(kwargs, message):
    with pytest.raises(PacmanError, match=message):
        PacmanEnv("small", **kwargs)


def test_bad_actions_and_order_are_refused():
    env = PacmanEnv("small")
    with pytest.raises(PacmanError, match="before reset"):
        env.step(0)
    env.reset(seed=0)
    for bad in (5, -1, 1.5, "North"):
        with pytest.raises(PacmanError, match="not one of 0..4"):
            env.step(bad)


def test_a_game_that_can_never_end_is_refused(tmp_path):
    maze = tmp_path / "walled.lay"
    maze.write_text("%%%%%%\n%P%..%\n%%%%%%\n", encoding="utf-8")
    with pytest.raises(PacmanError, match="can never end"):
        PacmanEnv(str(maze))


def _episodes(env, seed, episodes, action_seed):
    """Everything `env` returns over `episodes` episodes of random actions (illegal ones included), the
    first seeded, the others from the environment's generator."""
    rng = np.random.default_rng(action_seed)
    trace = []
    for episode in range(episodes):
        obs, info = env.reset(seed=seed if episode == 0 else None)
        trace.append((np.array(obs), {key: np.array(value) if isinstance(value, np.ndarray) else value
                                      for key, value in info.items()}, env.pacman_rng.integers(1 << 30)))
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(int(rng.integers(5)))
            trace.append((np.array(obs), reward, terminated, truncated,
                          {key: np.array(value) if isinstance(value, np.ndarray) else value
                           for key, value in info.items()}))
            done = terminated or truncated
    return trace


def _same(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return type(a) is type(b) and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@pytest.mark.skipif(len(ENGINES) < 2, reason="the compiled core is not built")
@pytest.mark.parametrize("observation", ["grid", "state"])
@pytest.mark.parametrize("ghosts", ["random", "directional"])
@pytest.mark.parametrize("layout", SHIPPED)
def test_the_compiled_and_python_engines_play_the_same_episodes(layout, ghosts, observation):
    options = dict(layout=layout, ghosts=ghosts, max_moves=60, observation=observation)
    fast, slow = PacmanEnv(**options, engine="compiled"), PacmanEnv(**options, engine="python")
    a, b = _episodes(fast, 7, 6, 2), _episodes(slow, 7, 6, 2)
    assert len(a) == len(b) > 6
    for t, (mine, theirs) in enumerate(zip(a, b)):
        assert _same(mine, theirs), f"{layout} {ghosts}: step {t}"
        if len(mine) == 5 and observation == "grid":  # the core's grid is the one drawn from its GameState
            assert np.array_equal(mine[0], grid_observation(mine[4]["state"]))
    assert fast.state == slow.state and hash(fast.state) == hash(slow.state)
    assert any(step[4]["illegal_actions"] for step in a if len(step) == 5)  # illegal actions were compared too


def test_the_engine_is_chosen_as_the_agents_choose_it(monkeypatch):
    with pytest.raises(PacmanError, match="engine='fast'"):
        PacmanEnv("small", engine="fast")
    monkeypatch.setenv("PACMAN_AI_ENGINE", "python")
    assert PacmanEnv("small").engine == "python"
    with pytest.raises(PacmanError, match=r"engine='compiled', but the compiled core cannot run: the compiled core is switched off \(PACMAN_AI_ENGINE=python\)"):
        PacmanEnv("small", engine="compiled")
    monkeypatch.delenv("PACMAN_AI_ENGINE")
    assert PacmanEnv("small").engine == ("compiled" if core_status()[0] else "python")


@pytest.mark.parametrize("engine", ENGINES)
def test_copies_and_pickles_carry_on_with_the_same_game(engine, monkeypatch):
    import copy
    import pickle

    env = PacmanEnv("capsules", ghosts="directional", engine=engine)
    unused = pickle.loads(pickle.dumps(PacmanEnv("small", engine=engine)))  # never reset: still refuses to step
    with pytest.raises(PacmanError, match="before reset"):
        unused.step(0)
    env.reset(seed=5)
    for k in range(7):
        env.step(k % 5)
    copied, saved = copy.deepcopy(env), pickle.dumps(env)
    monkeypatch.setenv("PACMAN_AI_ENGINE", "python")  # where there is no core, a pickle plays on in Python
    in_python = pickle.loads(saved)
    monkeypatch.delenv("PACMAN_AI_ENGINE")
    copies = [copied, pickle.loads(saved), in_python]
    assert [c.engine for c in copies] == [engine, engine, "python"]
    for k in range(60):
        expected = env.step((3 * k) % 5)
        for other in copies:
            assert _same(other.step((3 * k) % 5), expected), k
        if expected[2]:
            break
    drawn = env.pacman_rng.integers(1 << 30)
    assert [other.pacman_rng.integers(1 << 30) for other in copies] == [drawn] * 3
