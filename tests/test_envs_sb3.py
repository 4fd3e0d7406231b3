"""Stable-Baselines3 with no glue: the env as made, `pacman.envs.sb3.make_vec_env`, CNN observations, and a saved
model playing as ``--pacman sb3:PATH.zip``. Skipped where the extra ``pacman-ai[rl]`` is not installed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("stable_baselines3", reason='the SB3 plumbing needs the extra: pip install "pacman-ai[rl]"')
pytest.importorskip("sb3_contrib", reason='MaskablePPO needs the extra: pip install "pacman-ai[rl]"')

import gymnasium as gym
from sb3_contrib import MaskablePPO
from stable_baselines3 import A2C, DQN, PPO
from stable_baselines3.common.env_checker import check_env

from pacman.agents.compiled import core_status
from pacman.envs import ENV_ID, PacmanEnv
from pacman.envs.observations import GridObserver, feature_fields, grid_observation
from pacman.errors import AgentSpecError, PacmanError
from pacman.state import GameState

compiled = pytest.mark.skipif(not core_status()[0], reason="the compiled core is not built")
ROOT = Path(__file__).resolve().parent.parent
#: The recipe's training options as docs/environments.md gives them (after --layout and --out).
RECIPE = ["--timesteps", "4000000", "--minutes", "25", "--eval-every", "250000", "--eval-games", "500",
          "--loss-penalty", "1500", "--seed", "0"]


def _cli(*args, cwd):
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    return subprocess.run([sys.executable, "-m", "pacman", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=env)


@pytest.mark.parametrize("observation", ["grid", "image", "features", "state"])
def test_sb3_check_env_passes(observation):
    check_env(PacmanEnv("small", observation=observation, max_moves=50), warn=False)


def test_action_masks_is_the_info_mask_as_bool():
    env = PacmanEnv("small")
    assert env.action_masks().tolist() == [False, False, True, True, True]  # before reset: the start's
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        assert env.action_masks().dtype == bool
        assert env.action_masks().tolist() == info["action_mask"].astype(bool).tolist()
        obs, _, terminated, truncated, info = env.step(int(rng.integers(5)))
        done = terminated or truncated
    assert env.action_masks().tolist() == info["action_mask"].astype(bool).tolist()


def test_maskable_ppo_takes_the_env_as_made():
    model = MaskablePPO("MlpPolicy", gym.make(ENV_ID, layout="small", observation="features"), n_steps=64,
                        batch_size=32, n_epochs=1, seed=0)
    model.learn(128)
    assert model.num_timesteps == 128


def test_cnn_policy_takes_the_image_observation():
    env = gym.make(ENV_ID, layout="small", observation="image")
    assert env.observation_space.shape == (6, 42, 120) and env.observation_space.dtype == np.uint8
    obs, _ = env.reset(seed=1)
    grid = grid_observation(env.unwrapped.state)
    assert (obs[:, ::6, ::6] == grid * 255).all() and set(np.unique(obs)) <= {0, 255}
    model = PPO("CnnPolicy", env, n_steps=16, batch_size=16, n_epochs=1, seed=0)
    model.learn(16)
    assert model.num_timesteps == 16


def test_features_are_layout_independent_and_named():
    for name in ("tiny", "small", "medium", "large"):
        env = PacmanEnv(name, observation="features")
        assert env.observation_space.shape == (len(feature_fields()),)
        obs, _ = env.reset(seed=0)
        assert env.observation_space.contains(obs)


def test_features_say_where_the_food_and_ghosts_are():
    from pacman import parse_layout
    from pacman.state import GameState

    layout = parse_layout("%%%%%%%\n%.P  G%\n%%%%%%%\n", "row")
    features = dict(zip(feature_fields(), GridObserver(layout, "features")(
        grid_observation(GameState.initial(layout))[None])[0]))
    assert features["west_legal"] == 1 and features["west_food_here"] == 1 and features["west_food_nearer"] == 1
    assert features["east_food_closeness"] == pytest.approx(1 / 3) and features["east_food_nearer"] == 0
    assert features["north_legal"] == 0 and features["north_food_closeness"] == 0
    assert features["east_ghost_two"] == 1 and features["east_ghost_closeness"] == pytest.approx(1 / 3)
    assert features["west_ghost_closeness"] == pytest.approx(1 / 5)
    # the room: cells strictly nearer the target than the ghost at x=5, of the 5 open cells
    assert features["west_room"] == pytest.approx(2 / 5)  # from x=1: x=1 and 2 (x=3 is a tie)
    assert features["east_room"] == pytest.approx(3 / 5)  # from x=3: x=1, 2, 3
    assert features["food_left"] == 1 and features["any_scared"] == 0


def test_a_ghost_that_may_not_turn_back_is_read_from_the_step_before():
    """A corridor: a ghost that came from the west may not go back there; its next cell is certain. Without the
    step before (a game's first step) either neighbour may be next."""
    from pacman import parse_layout
    from pacman.envs.observations import GHOSTS

    layout = parse_layout("%%%%%%%%%\n%P  G  .%\n%%%%%%%%%\n", "row")
    observer = GridObserver(layout, "features")
    now = grid_observation(GameState.initial(layout))
    fresh = dict(zip(feature_fields(), observer(now[None])[0]))
    # Pacman at x=1 going East to x=2; the ghost at x=4 reaches x=3 in one move, x=2 in two
    assert fresh["east_ghost_two"] == 1 and fresh["east_ghost_step_chance"] == 0
    before = np.zeros_like(now[GHOSTS])
    before[1, 3] = 1  # a step ago the ghost was at x=3: it is heading East, away from Pacman
    heading = dict(zip(feature_fields(), observer(now[None], previous=before[None])[0]))
    # its next move cannot be back West: counted from x=5, it needs 1 + 3 moves to x=2, 1 + 4 to x=1
    assert heading["east_ghost_two"] == 0 and heading["east_ghost_three"] == 0
    assert heading["east_ghost_closeness"] == pytest.approx(1 / (1 + 4))
    assert heading["stop_ghost_closeness"] == pytest.approx(1 / (1 + 5))
    assert fresh["stop_ghost_closeness"] == pytest.approx(1 / (1 + 3))


@pytest.mark.parametrize("layout", ["small", "medium", "tiny"])
def test_the_step_chance_is_the_true_directions_on_random_play(layout):
    """Against an independent reference: each ghost's legal moves from the `GameState` itself (its real direction),
    over random games. The grid lacks directions (two ghosts side by side, a ghost just sent home), so a few
    moves may differ; at least 99% must agree, and the chance of a move into a ghost's only way is never missed."""
    from pacman.actions import ACTIONS

    fields = feature_fields()
    env = PacmanEnv(layout, observation="features", max_moves=150, engine="python")
    rng = np.random.default_rng(7)
    agree = total = 0
    for game in range(12):
        obs, info = env.reset(seed=1000 + game)
        done = False
        while not done:
            state = info["state"]
            features = dict(zip(fields, obs))
            x, y = state.pacman_position
            for a, action in enumerate(ACTIONS):
                if not info["action_mask"][a]:
                    continue
                target = (x + action.vector[0], y + action.vector[1])
                survive = 1.0
                for g in range(1, state.num_agents):
                    if state.scared_timers[g - 1]:
                        continue
                    gx, gy = state.ghost_positions[g - 1]
                    legal = state.legal_actions(g)
                    hits = sum((gx + b.vector[0], gy + b.vector[1]) == target for b in legal)
                    survive *= 1 - hits / len(legal)
                total += 1
                got = features[f"{action.name.lower()}_ghost_step_chance"]
                agree += abs((1 - survive) - got) < 1e-6
                if survive == 0:
                    assert got > 0
            obs, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            done = terminated or truncated
    assert total > 500 and agree >= 0.99 * total


@compiled
def test_make_vec_env_plays_the_single_envs_games_with_same_step_resets():
    from pacman.envs.sb3 import make_vec_env

    n, seed = 4, 11
    vec = make_vec_env(layout="small", num_envs=n, observation="features", max_moves=40)
    assert vec.seed(seed) == [seed + i for i in range(n)]
    obs = vec.reset()
    assert [info["seed"] for info in vec.reset_infos] == [seed + i for i in range(n)]
    singles = [PacmanEnv("small", observation="features", max_moves=40, engine="python") for _ in range(n)]
    expected = np.stack([env.reset(seed=seed + i)[0] for i, env in enumerate(singles)])
    assert np.array_equal(obs, expected)
    rng = np.random.default_rng(5)
    ends = 0
    for _ in range(150):
        masks = np.stack(vec.env_method("action_masks"))
        assert np.array_equal(masks, np.stack([env.action_masks() for env in singles]))
        actions = rng.integers(5, size=n)
        obs, rewards, dones, infos = vec.step(actions)
        for i, env in enumerate(singles):
            single_obs, reward, terminated, truncated, info = env.step(int(actions[i]))
            assert rewards[i] == reward and dones[i] == (terminated or truncated)
            if dones[i]:
                ends += 1
                assert np.array_equal(infos[i]["terminal_observation"], single_obs)
                assert infos[i]["TimeLimit.truncated"] == (truncated and not terminated)
                assert infos[i]["is_success"] == info["state"].is_win()
                assert infos[i]["score"] == info["state"].score
                single_obs, _ = env.reset()  # the next game of its generator, as the vector env's
                assert vec.seed_of_game(i) == env.seed_of_game
            else:
                assert infos[i] == {}
            assert np.array_equal(obs[i], single_obs)
    assert ends >= 10


@compiled
def test_make_vec_env_refuses_misuse_by_name():
    from pacman.envs.sb3 import make_vec_env

    with pytest.raises(PacmanError, match="unknown option.*colour"):
        make_vec_env(layout="small", num_envs=2, colour="red")
    with pytest.raises(PacmanError, match="observation='pixels'"):
        make_vec_env(layout="small", num_envs=2, observation="pixels")
    vec = make_vec_env(layout="small", num_envs=2)
    with pytest.raises(PacmanError, match="before reset"):
        vec.step(np.zeros(2, dtype=np.int64))
    vec.reset()
    with pytest.raises(PacmanError, match="action 7 of game 1"):
        vec.step(np.array([0, 7]))
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        vec.get_attr("nonsense")
    with pytest.raises(AttributeError, match="no settable"):
        vec.set_attr("max_moves", 3)
    assert vec.has_attr("action_masks") and not vec.has_attr("nonsense")
    assert vec.get_attr("layout", indices=1)[0].name == "small"


@compiled
def test_ppo_and_maskable_ppo_take_make_vec_env():
    from pacman.envs.sb3 import make_vec_env

    PPO("MlpPolicy", make_vec_env(layout="small", num_envs=4), n_steps=16, batch_size=32, seed=0).learn(64)
    model = MaskablePPO("MlpPolicy", make_vec_env(layout="small", num_envs=4, observation="features"), n_steps=16,
                        batch_size=32, seed=0)
    model.learn(64)
    assert model.num_timesteps == 64


@pytest.fixture(scope="module")
def saved_models(tmp_path_factory):
    """A MaskablePPO model (features, with the trainer's record), a PPO one on the grid of `small` (no
    record) and a DQN one, each trained a few steps."""
    folder = tmp_path_factory.mktemp("models")
    paths = {}
    model = MaskablePPO("MlpPolicy", gym.make(ENV_ID, layout="small", observation="features"), n_steps=64,
                        batch_size=64, n_epochs=1, seed=0)
    model.learn(64)
    model.pacman_env = {"layout": "small", "observation": "features"}
    model.save(folder / "masked.zip")
    paths["masked"] = folder / "masked.zip"
    model = PPO("MlpPolicy", gym.make(ENV_ID, layout="small"), n_steps=64, batch_size=64, n_epochs=1, seed=0)
    model.learn(64)
    model.save(folder / "ppo.zip")
    paths["ppo"] = folder / "ppo.zip"
    model = A2C("MlpPolicy", gym.make(ENV_ID, layout="small", observation="features"), n_steps=8, seed=0)
    model.save(folder / "a2c.zip")
    paths["a2c"] = folder / "a2c.zip"
    model = DQN("MlpPolicy", gym.make(ENV_ID, layout="small", observation="features"), learning_starts=0, seed=0)
    model.save(folder / "dqn.zip")
    paths["dqn"] = folder / "dqn.zip"
    return paths


def test_the_algorithm_is_read_from_the_file(saved_models):
    from pacman.envs.learned import model_info

    assert model_info(saved_models["masked"])["algorithm"] == "MaskablePPO"
    assert model_info(saved_models["masked"])["observation"] == "features"
    assert model_info(saved_models["ppo"]) == {"algorithm": "PPO", "observation": None,
                                               "observation_shape": [6, 7, 20], "trained_on": None}
    assert model_info(saved_models["a2c"])["algorithm"] == "A2C"
    assert model_info(saved_models["dqn"])["algorithm"] == "DQN"


@pytest.mark.parametrize("which", ["masked", "ppo", "a2c", "dqn"])
def test_a_learned_agent_only_takes_legal_actions_and_repeats_its_games(saved_models, which):
    from pacman import load_layout, run_game
    from pacman.agent_specs import make_pacman_agent

    layout = load_layout("small")
    results = []
    for _ in range(2):
        agent = make_pacman_agent(f"sb3:{saved_models[which]}")
        result = run_game(layout, agent, seed=4, max_moves=60)
        results.append((result.score, result.moves))
    assert results[0] == results[1]
    agent = make_pacman_agent(f"sb3:{saved_models[which]}", {"deterministic": False})
    from pacman.state import GameState

    state = GameState.initial(layout)
    agent.reset(rng=np.random.default_rng(0), layout=layout)
    for _ in range(30):
        assert agent.get_action(state) in state.legal_actions(0)


def test_a_grid_model_refuses_another_layout_by_name(saved_models):
    from pacman import load_layout
    from pacman.agent_specs import make_pacman_agent

    agent = make_pacman_agent(f"sb3:{saved_models['ppo']}")
    with pytest.raises(AgentSpecError, match=r"observes shape \(6, 7, 20\).*'medium'"):
        agent.reset(layout=load_layout("medium"))


def test_bad_sb3_specs_are_named(tmp_path, saved_models):
    from pacman.agent_specs import make_pacman_agent

    with pytest.raises(AgentSpecError, match="no such file"):
        make_pacman_agent(f"sb3:{tmp_path / 'missing.zip'}")
    (tmp_path / "not.zip").write_text("hello")
    with pytest.raises(AgentSpecError, match="not a model saved by Stable-Baselines3"):
        make_pacman_agent(f"sb3:{tmp_path / 'not.zip'}")
    with pytest.raises(AgentSpecError, match="takes no argument 'depth'"):
        make_pacman_agent(f"sb3:{saved_models['masked']}", {"depth": 2})
    with pytest.raises(AgentSpecError, match="expected sb3:PATH.zip"):
        make_pacman_agent("sb3:")


def test_batch_and_compare_play_a_saved_model_as_a_user_does(tmp_path, saved_models):
    path = saved_models["masked"]
    runs = []
    for name in ("a.jsonl", "b.jsonl"):
        done = _cli("batch", "--layout", "small", "--pacman", f"sb3:{path}", "--games", "3", "--seed", "2",
                    "--jobs", "1", "--out", name, "--quiet", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        lines = [json.loads(line) for line in (tmp_path / name).read_text().splitlines()]
        runs.append([(line.get("seed"), line.get("score"), line.get("moves")) for line in lines
                     if "score" in line])
    assert runs[0] == runs[1] and len(runs[0]) == 3
    done = _cli("compare", "--layout", "small", "--config", f"learned:--pacman sb3:{path}",
                "--config", "greedy:--pacman greedy", "--games", "2", "--jobs", "1", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "learned" in done.stdout and "greedy" in done.stdout
    plays = [_cli("play", "--layout", "small", "--pacman", f"sb3:{path}", "--seed", "2", "--display", "none",
                  cwd=tmp_path) for _ in range(2)]
    assert plays[0].returncode == 0 and plays[0].stdout == plays[1].stdout and "game 1:" in plays[0].stdout
    done = _cli("batch", "--layout", "small", "--pacman", f"sb3:{tmp_path / 'nope.zip'}", "--games", "1",
                cwd=tmp_path)
    assert done.returncode == 2 and "no such file" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow(minutes=20)
def test_the_recipe_as_documented(tmp_path):
    """The documented recipe, as written: it trains within the 30 minutes, and its model wins most of the 1,000
    seeded games of `pacman-ai batch`; the model it made, shipped, wins the 90% docs/environments.md reports.

    A retrain is not that model on every processor (torch's arithmetic differs from one to another): on the
    development machine it won 902, on one half as fast 890 (docs/environments.md). So the retrain is held to
    85% and the shipped model, which is the same file everywhere, to the documented 90%."""
    import time

    started = time.perf_counter()
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "rl" / "train.py"), "--layout", "small",
                           "--out", "small.zip", *RECIPE], cwd=tmp_path, capture_output=True, text=True,
                          timeout=40 * 60)
    assert done.returncode == 0, done.stderr
    assert time.perf_counter() - started < 30 * 60
    batch = _cli("batch", "--layout", "small", "--pacman", "sb3:small.zip", "--games", "1000", "--seed", "0",
                 "--max-moves", "500", "--jobs", "2", "--json", "--quiet", cwd=tmp_path)
    assert batch.returncode == 0, batch.stderr
    summary = json.loads(batch.stdout)
    assert summary["games"] == 1000 and summary["wins"] >= 850
    shipped = _cli("batch", "--layout", "small", "--pacman", f"sb3:{ROOT / 'examples' / 'rl' / 'small.zip'}",
                   "--games", "1000", "--seed", "0", "--max-moves", "500", "--jobs", "2", "--json", "--quiet",
                   cwd=tmp_path)
    assert shipped.returncode == 0, shipped.stderr
    summary = json.loads(shipped.stdout)
    assert summary["games"] == 1000 and summary["wins"] >= 900


@pytest.mark.slow(minutes=2)
@compiled
def test_a_short_training_already_wins_most_games(tmp_path):
    """The recipe cut to 500,000 steps (about a minute of CPU; its learning rate falls to 0 over them): the
    features, the masks and the loss penalty make a policy that wins at least 75% of 200 seeded games of `small`
    (an untrained one wins none: the first evaluation, at step 32, is in the curve). Cut to 250,000 steps the same
    recipe won 45.5%: the rate's schedule is over before the policy has learned."""
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "rl" / "train.py"), "--layout", "small",
                           "--out", "short.zip", "--timesteps", "500000", "--eval-every", "250000",
                           "--eval-games", "200"], cwd=tmp_path, capture_output=True, text=True, timeout=30 * 60)
    assert done.returncode == 0, done.stderr
    rows = (tmp_path / "short.csv").read_text().splitlines()[1:]
    assert float(rows[0].split(",")[3]) < 0.05  # before learning
    batch = _cli("batch", "--layout", "small", "--pacman", "sb3:short.zip", "--games", "200", "--seed", "0",
                 "--max-moves", "500", "--jobs", "2", "--json", "--quiet", cwd=tmp_path)
    assert batch.returncode == 0, batch.stderr
    summary = json.loads(batch.stdout)
    assert summary["games"] == 200 and summary["wins"] >= 150


@compiled
def test_the_recipe_scripts_run_as_written_on_a_small_budget(tmp_path):
    """examples/rl/train.py and plot.py as a user runs them (a few thousand steps: the plumbing, not the win)."""
    train = subprocess.run([sys.executable, str(ROOT / "examples" / "rl" / "train.py"), "--layout", "small",
                            "--out", "tiny.zip", "--timesteps", "4096", "--eval-every", "2048", "--eval-games", "4",
                            "--num-envs", "8"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert train.returncode == 0, train.stderr
    rows = (tmp_path / "tiny.csv").read_text().splitlines()
    assert rows[0] == "timesteps,minutes,cpu_minutes,win_rate,mean_score"
    assert [row.split(",")[0] for row in rows[1:]] == ["8", "2056"]  # every 2,048 steps from the first
    assert (tmp_path / "tiny.zip").is_file()
    from pacman.envs.learned import model_info

    assert model_info(tmp_path / "tiny.zip")["observation"] == "features"
    plot = subprocess.run([sys.executable, str(ROOT / "examples" / "rl" / "plot.py"), "tiny.csv", "--out", "c.png"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert plot.returncode == 0, plot.stderr
    assert (tmp_path / "c.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_shipped_models_are_what_the_docs_say(tmp_path):
    from pacman.envs.learned import model_info

    for name in ("small", "medium"):
        info = model_info(ROOT / "examples" / "rl" / f"{name}.zip")
        assert info["algorithm"] == "MaskablePPO" and info["observation"] == "features"
        assert info["trained_on"] == name
        assert info["observation_shape"] == [len(feature_fields())]  # made with today's features
        assert (ROOT / "examples" / "rl" / f"{name}.zip").stat().st_size < 2_000_000


def test_the_web_view_plays_a_saved_model_as_a_user_runs_it(tmp_path, saved_models):
    """``pacman-ai play --pacman sb3:PATH.zip --display web``: the server's game loop plays the learned agent
    for a page reading its event stream (read here over HTTP, as the page does, without a browser; the browser
    tests in test_live_web.py drive the same server), and the game is the one ``--display none`` plays."""
    import re
    import threading
    import urllib.request

    args = ["play", "--layout", "small", "--pacman", f"sb3:{saved_models['masked']}", "--seed", "2",
            "--max-moves", "25", "--json"]
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    served = subprocess.Popen([sys.executable, "-m", "pacman", *args, "--display", "web", "--fps", "60"],
                              cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        address = None
        for line in served.stderr:
            found = re.search(r"the game is at (http://\S+/)", line)
            if found:
                address = found.group(1)
                break
        assert address, "no address printed"
        events: list[str] = []

        def read() -> None:  # the page's side: the event stream, until the server closes it
            with urllib.request.urlopen(address + "events", timeout=60) as stream:
                for raw in stream:
                    events.append(raw.decode())

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        out, err = served.communicate(timeout=120)
        reader.join(30)
    finally:
        if served.poll() is None:
            served.kill()
            served.wait()
    assert served.returncode == 0, err
    web = json.loads(next(line for line in out.splitlines() if line.startswith("{")))
    plain = _cli(*args, "--display", "none", cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
    headless = json.loads(next(line for line in plain.stdout.splitlines() if line.startswith("{")))
    assert (web["score"], web["moves"], web["outcome"]) == (headless["score"], headless["moves"], headless["outcome"])
    assert web["moves"] > 0
    messages = [(block.split("\n")[0][len("event: "):], json.loads(block.split("\n")[1][len("data: "):]))
                for block in "".join(events).split("\n\n") if block.startswith("event: ")]
    rounds = [data for event, data in messages if event == "round"]
    ends = [data["result"] for event, data in messages if event == "end"]
    assert len(rounds) >= web["moves"]  # the page was shown every move the learned agent made
    assert [(end["score"], end["moves"], end["outcome"]) for end in ends] == [
        (web["score"], web["moves"], web["outcome"])]
