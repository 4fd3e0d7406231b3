"""Shipped agents acting in the Gymnasium environment, and a comparison of policies over seeded episodes.

`AgentPolicy` wraps any Pacman agent (``get_action(state)``; expectimax, alpha-beta,
greedy, random, or a user's): at each step it reads ``info["state"]`` and answers
an action index. Its `start` gives the agent what `pacman.game.run_game` gives it
before a game (Pacman's own seeded stream, the ghosts in play, the layout), so an
episode with `AgentPolicy(agent)` is the game ``pacman-ai play --seed s`` plays
with that agent.

An error raised in the user's code (the agent, its evaluation, a policy given to
`evaluate_policy`) reaches the caller as it was raised, with a note under its
message naming the lines of the user's files it passed through and the hint for a
common mistake, as the commands print them (`pacman.user_code.note_user_frames`).
"""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from pacman.actions import ACTIONS, Action
from pacman.envs.gymnasium_env import PacmanEnv
from pacman.errors import IllegalActionError
from pacman.user_code import defined_at, note_user_frames

__all__ = ["AgentPolicy", "PolicyResult", "evaluate_policy", "random_policy"]


class AgentPolicy:
    """A Pacman agent as a policy of `PacmanEnv`: ``policy(obs, info) -> action index``.

    >>> from pacman.agents import GreedyAgent
    >>> env = PacmanEnv("small", num_ghosts=1)
    >>> policy = AgentPolicy(GreedyAgent())
    >>> obs, info = env.reset(seed=1)
    >>> policy.start(env)
    >>> policy(obs, info) in range(5)
    True
    """

    def __init__(self, agent: Any) -> None:
        if not callable(getattr(agent, "get_action", None)):
            raise TypeError(f"{agent!r} has no get_action(state): not a Pacman agent")
        self.agent = agent

    def start(self, env: Any) -> None:
        """Call after ``env.reset()``: hand the agent the episode's Pacman stream and ghosts, as a game does."""
        game = env.unwrapped
        reset = getattr(self.agent, "reset", None)
        if not callable(reset):
            return
        options: dict[str, Any] = {"rng": game.pacman_rng, "ghost_agents": game.ghost_agents}
        parameters = inspect.signature(reset).parameters
        if "layout" in parameters or any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
            options["layout"] = game.layout
        try:
            reset(**options)
        except Exception as exc:  # the user's reset: where in their file, as the commands say it
            note_user_frames(exc)
            raise

    def __call__(self, observation: Any, info: dict[str, Any]) -> int:
        try:
            action = self.agent.get_action(info["state"])
        except Exception as exc:  # the user's get_action (or its evaluation): where in their file
            note_user_frames(exc)
            raise
        try:
            return ACTIONS.index(Action(action))
        except ValueError:
            raise note_user_frames(IllegalActionError(
                f"{_defined_at(self.agent)}get_action returned {action!r}, not an Action (North, South, East, "
                f"West or Stop)")) from None

    def __repr__(self) -> str:
        return f"AgentPolicy({self.agent!r})"


def _defined_at(agent: Any) -> str:
    """``my_agent.py:12: MyAgent.``: where the agent's get_action is defined (the file left out where that
    cannot be told)."""
    where = defined_at(getattr(type(agent), "get_action", None))
    return f"{where}: {type(agent).__name__}." if where else f"{type(agent).__name__}."


def random_policy(seed: int = 0) -> Callable[[Any, dict[str, Any]], int]:
    """A policy that picks uniformly among the legal actions of ``info["action_mask"]``."""
    rng = np.random.default_rng(seed)

    def policy(observation: Any, info: dict[str, Any]) -> int:
        return int(rng.choice(np.flatnonzero(info["action_mask"])))

    return policy


@dataclass(frozen=True)
class PolicyResult:
    """How a policy did over seeded episodes."""

    name: str
    """The policy's name."""
    episodes: int
    """Episodes played."""
    mean_return: float
    """Mean return (the game's score)."""
    wins: int
    """Episodes won."""
    steps: int
    """Steps taken over all episodes."""
    steps_per_second: float
    """Steps per second, the policy's thinking included."""


def evaluate_policy(name: str, policy: Any, env: PacmanEnv, episodes: int, seed: int = 0) -> PolicyResult:
    """Play `episodes` episodes seeded seed, seed + 1, ... with `policy` (an `AgentPolicy` is started each
    episode); returns, wins and speed."""
    returns, wins, steps = [], 0, 0
    started = time.perf_counter()
    for episode in range(episodes):
        observation, info = env.reset(seed=seed + episode)
        if isinstance(policy, AgentPolicy):
            policy.start(env)
        total, done = 0.0, False
        while not done:
            try:
                action = policy(observation, info)
            except Exception as exc:  # a policy of the user's own: where in their file
                note_user_frames(exc)
                raise
            observation, reward, terminated, truncated, info = env.step(action)
            total += reward
            steps += 1
            done = terminated or truncated
        returns.append(total)
        wins += info["state"].is_win()
    elapsed = time.perf_counter() - started
    return PolicyResult(name, episodes, float(np.mean(returns)), wins, steps, steps / elapsed if elapsed else 0.0)
