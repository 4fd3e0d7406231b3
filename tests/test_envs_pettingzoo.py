"""The PettingZoo environment: PettingZoo's own tests, and the game it plays."""

from __future__ import annotations

import functools

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from pacman.envs import PacmanEnv  # noqa: E402
from pacman.envs.pettingzoo_env import PacmanAECEnv  # noqa: E402
from pacman.errors import PacmanError  # noqa: E402
from pacman.layout import layout_names  # noqa: E402


@pytest.mark.parametrize("controlled", [None, (1,), ()])
@pytest.mark.parametrize("ghosts", ["random", "directional"])
@pytest.mark.parametrize("layout", layout_names())
def test_api_test_and_seed_test_pass(layout, ghosts, controlled):
    if controlled == (1,) and PacmanEnv(layout).num_ghosts == 0:
        pytest.skip("no ghost to control")
    api_test(PacmanAECEnv(layout=layout, ghosts=ghosts, controlled=controlled, max_moves=40), num_cycles=120)
    seed_test(functools.partial(PacmanAECEnv, layout=layout, ghosts=ghosts, controlled=controlled, max_moves=40),
              num_cycles=120)


def test_agents_spaces_and_masks():
    env = PacmanAECEnv(layout="minimax")
    env.reset(seed=0)
    assert env.agents == ["pacman", "ghost_1", "ghost_2", "ghost_3"]
    observation = env.observe("pacman")
    assert observation["observation"].shape == (7, 5, 9)
    assert observation["action_mask"].tolist() == [1, 1, 0, 0, 1]  # North, South, Stop
    assert env.observe("ghost_1")["action_mask"].tolist() == [0] * 5  # not its turn
    env.step(4)
    assert env.agent_selection == "ghost_1"
    assert env.observe("ghost_1")["action_mask"].tolist() == [1, 1, 0, 0, 0]  # a ghost never stops
    you = env.observe("ghost_1")["observation"][-1]
    assert you.sum() == 1 and you[5 - 1 - 2, 3] == 1  # ghost 1 in its pen at (3, 2)
    with pytest.raises(PacmanError, match="ghost_1: Stop is not legal"):
        env.step(4)


def test_with_pacman_the_only_agent_an_episode_is_the_gymnasium_one():
    single = PacmanEnv("medium", max_moves=200)
    aec = PacmanAECEnv(layout="medium", controlled=(), max_moves=200)
    obs, info = single.reset(seed=21)
    aec.reset(seed=21)
    rng = np.random.default_rng(3)
    total, done = 0.0, False
    while not done:
        action = int(rng.integers(5))
        obs, reward, terminated, truncated, info = single.step(action)
        aec.step(action)
        total += aec.rewards["pacman"]
        assert aec.state_now == info["state"]
        assert np.array_equal(aec.observe("pacman")["observation"][:-1], obs)
        done = terminated or truncated
    assert total == info["state"].score
    assert aec.terminations["pacman"] == terminated


def test_ghost_agents_get_the_negative_reward():
    env = PacmanAECEnv(layout="small", max_moves=30)
    env.reset(seed=1)
    env.step(4)
    assert env.rewards["pacman"] == -1.0 and env.rewards["ghost_1"] == env.rewards["ghost_2"] == 1.0


def test_bad_controlled_ghosts_are_named():
    with pytest.raises(PacmanError, match="controlled=\\[3\\]"):
        PacmanAECEnv(layout="small", controlled=(3,))


@pytest.mark.parametrize("observation", ["dict", "box"])
@pytest.mark.parametrize("layout", ["small", "minimax", "capsules"])
def test_parallel_env_passes_parallel_api_test_and_parallel_seed_test(layout, observation):
    from pettingzoo.test import parallel_api_test, parallel_seed_test

    from pacman.envs.pettingzoo_env import parallel_env

    parallel_api_test(parallel_env(layout=layout, observation=observation, max_moves=40), num_cycles=200)
    parallel_seed_test(functools.partial(parallel_env, layout=layout, observation=observation, max_moves=40),
                       num_cycles=100)


@pytest.mark.parametrize("observation", ["dict", "box"])
def test_the_module_level_env_passes_api_test(observation):
    from pacman.envs.pettingzoo_env import env

    api_test(env(layout="small", observation=observation, max_moves=40), num_cycles=100)


def test_with_pacman_the_only_agent_the_parallel_episode_is_the_gymnasium_one():
    from pacman.envs.pettingzoo_env import parallel_env

    single = PacmanEnv("small", max_moves=200)
    par = parallel_env(layout="small", controlled=(), max_moves=200)
    _, info = single.reset(seed=8)
    observations, infos = par.reset(seed=8)
    assert infos["pacman"]["seed"] == 8 and infos["pacman"]["action_mask"].tolist() == info["action_mask"].tolist()
    rng = np.random.default_rng(2)
    done = False
    while not done:
        action = int(rng.integers(5))
        _, reward, terminated, truncated, info = single.step(action)
        observations, rewards, terminations, truncations, infos = par.step({"pacman": action})
        assert rewards["pacman"] == reward and terminations["pacman"] == terminated
        assert truncations["pacman"] == truncated and par.aec.state_now == info["state"]
        assert (observations["pacman"]["observation"][:-1] == single._observe()).all()
        done = terminated or truncated
    assert par.agents == []
    with pytest.raises(PacmanError, match="after the episode ended"):
        par.step({"pacman": 0})


def test_a_parallel_round_plays_every_agent_in_turn_order():
    from pacman.envs.pettingzoo_env import parallel_env

    par = parallel_env(layout="minimax", max_moves=100)
    observations, infos = par.reset(seed=0)
    assert par.agents == ["pacman", "ghost_1", "ghost_2", "ghost_3"]
    masks = {agent: infos[agent]["action_mask"] for agent in par.agents}
    assert all(observations[agent]["action_mask"].tolist() == masks[agent].tolist() for agent in par.agents)
    actions = {agent: int(np.flatnonzero(mask)[0]) for agent, mask in masks.items()}
    before = par.aec.state_now
    _, rewards, *_ = par.step(actions)
    after = par.aec.state_now
    assert after.pacman_position != before.pacman_position or actions["pacman"] == 4
    assert rewards["pacman"] == after.score - before.score == 9.0  # a food, less the move
    assert rewards["ghost_1"] == rewards["ghost_2"] == rewards["ghost_3"] == -9.0
    assert all(after.agent_position(i) != before.agent_position(i) for i in (1, 2, 3))  # every ghost moved
    # an illegal ghost action is replaced (and counted), never raised, in the parallel form
    _, _, _, _, infos = par.step({"pacman": 4, "ghost_1": 4, "ghost_2": actions["ghost_2"],
                                  "ghost_3": actions["ghost_3"]})
    assert infos["ghost_1"]["illegal_actions"] == 1


def test_misuse_is_named_not_a_bare_error():
    from pacman.envs.pettingzoo_env import env, parallel_env

    aec = env(layout="small")
    with pytest.raises(PacmanError, match=r"step\(\) before reset\(\)"):
        aec.step(0)
    with pytest.raises(PacmanError, match=r"observe\(\) before reset\(\)"):
        aec.observe("pacman")
    aec.reset(seed=0)
    with pytest.raises(PacmanError, match="no such agent"):
        aec.observe("ghost_9")
    par = parallel_env(layout="small")
    with pytest.raises(PacmanError, match=r"step\(\) before reset\(\)"):
        par.step({"pacman": 0})
    par.reset(seed=0)
    with pytest.raises(PacmanError, match="no action for ghost_1, ghost_2"):
        par.step({"pacman": 0})
    with pytest.raises(PacmanError, match="'ghost_7' not among the live agents|ghost_7 not among"):
        par.step({"pacman": 0, "ghost_1": 0, "ghost_2": 0, "ghost_7": 0})
    with pytest.raises(PacmanError, match="observation='rgb'"):
        env(layout="small", observation="rgb")
    # after the episode, once every agent has been stepped with None
    aec = env(layout="small", controlled=(), max_moves=1)
    aec.reset(seed=0)
    aec.step(4)
    aec.step(None)
    with pytest.raises(PacmanError, match="after the episode ended"):
        aec.step(None)


def test_supersuit_wrappers_take_the_box_observation():
    ss = pytest.importorskip("supersuit", reason='SuperSuit comes with the extra: pip install "pacman-ai[rl]"')
    from pacman.envs.pettingzoo_env import parallel_env

    flat = ss.flatten_v0(parallel_env(layout="small", observation="box"))
    observations, _ = flat.reset(seed=0)
    assert observations["pacman"].shape == (7 * 7 * 20,)
    typed = ss.dtype_v0(parallel_env(layout="small", observation="box"), np.float32)
    assert typed.reset(seed=0)[0]["ghost_1"].dtype == np.float32
    stacked = ss.frame_stack_v1(parallel_env(layout="small", observation="box"), 3)
    assert stacked.reset(seed=0)[0]["pacman"].shape == (7, 7, 60)
    vec = ss.pettingzoo_env_to_vec_env_v1(parallel_env(layout="small", observation="box", controlled=()))
    assert vec.reset(seed=0)[0].shape == (1, 7, 7, 20)


@pytest.mark.parametrize("form", ["aec", "parallel"])
def test_reset_options_refused_by_name_but_the_api_tests_probe(form):
    """The games take no reset options (as the Gymnasium environment): a key is refused by name, not ignored;
    the one PettingZoo's api_test and parallel_api_test pass, verbatim, starts the same game as no options."""
    from pacman.envs.pettingzoo_env import env, parallel_env

    made = env(layout="small") if form == "aec" else parallel_env(layout="small")
    with pytest.raises(PacmanError, match=r"reset\(options=\.\.\.\): .*takes no reset options, got max_moves"):
        made.reset(seed=0, options={"max_moves": 10})
    with pytest.raises(PacmanError, match="got layout, start"):
        made.reset(seed=0, options={"start": 1, "layout": "tiny", "options": 1})
    with pytest.raises(PacmanError, match="expected a dict or None, got list"):
        made.reset(seed=0, options=["options"])

    def first_moves(options):
        made.reset(seed=3, options=options)
        if form == "aec":
            return [made.observe(agent)["observation"].tobytes() for agent in made.agents]
        observations, _ = made.reset(seed=3, options=options)
        return [observations[agent].tobytes() if not isinstance(observations[agent], dict)
                else observations[agent]["observation"].tobytes() for agent in made.agents]

    assert first_moves({"options": 1}) == first_moves(None) == first_moves({})
