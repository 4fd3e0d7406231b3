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
