"""A policy learned with Stable-Baselines3 as a Pacman agent: ``--pacman sb3:PATH.zip`` in play, batch, compare.

`SB3Agent` loads a model SB3 (or sb3-contrib) saved, reads which algorithm made it
from the file itself, and at each move shows the policy the observation it was
trained on (the environments' `GridObserver`, computed from the `GameState`),
then takes the best legal action: illegal actions are masked out, as MaskablePPO
masks them in training. Deterministic by default (the most probable legal
action, the first on a tie); with ``deterministic=false`` it samples from the
masked policy with Pacman's own seeded stream, so a seeded game is reproducible
either way. `model_info` reads what the file says without loading torch.
Needs the extra ``pacman-ai[rl]``. See docs/environments.md.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from pacman.actions import ACTIONS, Action
from pacman.errors import AgentSpecError
from pacman.layout import Layout
from pacman.state import GameState

__all__ = ["ALGORITHMS", "SPEC_PREFIX", "SB3Agent", "is_sb3_spec", "model_info", "sb3_agent_args"]

#: The agent-spec prefix: ``sb3:PATH.zip``.
SPEC_PREFIX = "sb3:"
#: The algorithms a model may come from (discrete actions), and where each lives.
ALGORITHMS = {"MaskablePPO": "sb3_contrib", "PPO": "stable_baselines3", "A2C": "stable_baselines3",
              "TRPO": "sb3_contrib", "DQN": "stable_baselines3", "QRDQN": "sb3_contrib"}
# The observations a model may have been trained on (`pacman.envs.observations.GridObserver.KINDS`).
_OBSERVATIONS = ("grid", "image", "features")


def is_sb3_spec(name: Any) -> bool:
    """True if `name` is an ``sb3:PATH`` agent spec."""
    return isinstance(name, str) and name.startswith(SPEC_PREFIX)


def model_info(path: str | os.PathLike[str]) -> dict[str, Any]:
    """What a saved SB3 model's file says: ``algorithm`` (a key of `ALGORITHMS`), ``observation_shape``, and
    ``observation`` (the kind it was trained on, when the trainer recorded it as ``model.pacman_env``; else None).
    AgentSpecError names the file and what is wrong with it."""
    shown = str(path)
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))
    except FileNotFoundError:
        raise AgentSpecError(f"sb3:{shown}: no such file") from None
    except (zipfile.BadZipFile, KeyError, IsADirectoryError, ValueError, OSError) as exc:
        raise AgentSpecError(f"sb3:{shown}: not a model saved by Stable-Baselines3 ({exc})") from None
    policy = data.get("policy_class")
    module = policy.get("__module__", "") if isinstance(policy, dict) else ""
    if module == "sb3_contrib.common.maskable.policies":
        algorithm = "MaskablePPO"
    elif module == "stable_baselines3.common.policies":
        algorithm = "PPO" if "clip_range" in data else "TRPO" if "cg_max_steps" in data else "A2C"
    elif module == "stable_baselines3.dqn.policies":
        algorithm = "DQN"
    elif module == "sb3_contrib.qrdqn.policies":
        algorithm = "QRDQN"
    else:
        raise AgentSpecError(f"sb3:{shown}: a policy of {module or 'an unknown module'!r}, not one of the "
                             f"discrete-action algorithms a Pacman agent can be ({', '.join(ALGORITHMS)})")
    space = data.get("observation_space") if isinstance(data.get("observation_space"), dict) else {}
    shape = space.get("_shape") or space.get("shape")
    recorded = data.get("pacman_env") if isinstance(data.get("pacman_env"), dict) else {}
    observation = recorded.get("observation")
    if observation is not None and observation not in _OBSERVATIONS:
        raise AgentSpecError(f"sb3:{shown}: trained on the observation {observation!r}, which a Pacman agent "
                             f"cannot compute (it can: {', '.join(_OBSERVATIONS)})")
    return {"algorithm": algorithm, "observation": observation,
            "observation_shape": list(shape) if isinstance(shape, (list, tuple)) else None,
            "trained_on": recorded.get("layout")}


def sb3_agent_args(name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    """The arguments an ``sb3:PATH`` agent is really built with, for records: the path, the algorithm and
    observation the file says, ``deterministic``."""
    path = name[len(SPEC_PREFIX):]
    info = model_info(path)
    given = dict(args or {})
    return {"path": path, "algorithm": info["algorithm"], "observation": info["observation"],
            "deterministic": given.get("deterministic", True)}


class SB3Agent:
    """A model saved by Stable-Baselines3 playing Pacman.

    `path`: the model's ``.zip``. `deterministic`: take the most probable legal action (default); else sample
    from the masked policy with Pacman's seeded stream (``reset(rng=...)``). `observation`: the kind the model
    was trained on, when the file does not record it ("grid", "image" or "features"; by default the one whose
    shape matches the model's on the layout played).
    """

    def __init__(self, path: str | os.PathLike[str], deterministic: bool = True, observation: str | None = None) -> None:
        if not isinstance(deterministic, bool):
            raise AgentSpecError(f"sb3:{path}: deterministic must be true or false, got {deterministic!r}")
        if observation is not None and observation not in _OBSERVATIONS:
            raise AgentSpecError(f"sb3:{path}: observation={observation!r}: expected one of {', '.join(_OBSERVATIONS)}")
        self.path = Path(path)
        info = model_info(self.path)
        if observation is not None and info["observation"] not in (None, observation):
            raise AgentSpecError(f"sb3:{path}: the file says it was trained on {info['observation']!r}, "
                                 f"not {observation!r}")
        self.algorithm: str = info["algorithm"]
        """The algorithm that made the model, as the file says."""
        self.observation: str | None = observation or info["observation"]
        self.deterministic = deterministic
        try:
            import importlib

            import torch

            torch.set_num_threads(1)  # one move of a small network: more threads only wait on each other
            algorithm = getattr(importlib.import_module(ALGORITHMS[self.algorithm]), self.algorithm)
        except ImportError as exc:
            raise AgentSpecError(f"sb3:{path}: a {self.algorithm} model needs {exc.name}: "
                                 f"pip install \"pacman-ai[rl]\"") from None
        try:
            self.model = algorithm.load(self.path, device="cpu")
        except Exception as exc:  # noqa: BLE001 - whatever SB3 raises on a damaged file, named
            raise AgentSpecError(f"sb3:{path}: loading the {self.algorithm} model failed: "
                                 f"{' '.join(str(exc).split())[:300]}") from None
        self.policy = self.model.policy
        self.policy.set_training_mode(False)
        self._torch = torch
        self._layout: Layout | None = None
        self._observer: Any = None
        self._rng: np.random.Generator | None = None
        self._previous: np.ndarray | None = None

    def __repr__(self) -> str:
        return f"SB3Agent({str(self.path)!r}, algorithm={self.algorithm!r})"

    def reset(self, rng: np.random.Generator | None = None, ghost_agents: Any = None, layout: Layout | None = None) -> None:
        """Before a game: Pacman's own stream (for ``deterministic=false``) and the layout (checked against the
        model's observation)."""
        self._rng = rng
        self._previous = None
        if layout is not None:
            self._prepare(layout)

    def get_action(self, state: GameState) -> Action:
        from pacman.envs.gymnasium_env import action_mask
        from pacman.envs.observations import GHOSTS, grid_observation

        if state.layout is not self._layout:
            self._prepare(state.layout)
        grid = grid_observation(state)
        previous = self._previous if self._previous is not None and self._previous.shape == grid[GHOSTS].shape else None
        observation = self._observer(grid[None], previous=None if previous is None else previous[None])
        self._previous = grid[GHOSTS].copy()  # the ghosts as Pacman last saw them: which are coming nearer
        legal = action_mask(state).astype(bool)
        if not legal.any():
            return Action.STOP
        scores = self._scores(observation)
        if self.deterministic or self.algorithm in ("DQN", "QRDQN"):
            scores = np.where(legal, scores, -np.inf)
            return ACTIONS[int(np.argmax(scores))]
        probabilities = np.where(legal, scores, 0.0)
        total = probabilities.sum()
        if total <= 0:
            probabilities = legal / legal.sum()
        else:
            probabilities = probabilities / total
        rng = self._rng if self._rng is not None else np.random.default_rng(0)
        return ACTIONS[int(rng.choice(len(ACTIONS), p=probabilities))]

    def _scores(self, observation: np.ndarray) -> np.ndarray:
        """The policy's probabilities (actor-critic) or values (DQN, QRDQN) of the five actions."""
        torch = self._torch
        with torch.no_grad():
            tensor, _ = self.policy.obs_to_tensor(observation)
            if self.algorithm == "DQN":
                values = self.policy.q_net(tensor)
            elif self.algorithm == "QRDQN":
                values = self.policy.quantile_net(tensor).mean(dim=1)
            else:
                values = self.policy.get_distribution(tensor).distribution.probs
        return values[0].cpu().numpy().astype(np.float64)

    def _prepare(self, layout: Layout) -> None:
        """The observer of `layout` that gives the model's observation, or AgentSpecError saying why none does."""
        from pacman.envs.observations import GridObserver

        shape = tuple(self.model.observation_space.shape)
        kinds = [self.observation] if self.observation is not None else list(_OBSERVATIONS)
        found = []
        for kind in kinds:
            cell = None
            if kind == "image" and len(shape) == 3 and layout.height and shape[1] % layout.height == 0:
                cell = shape[1] // layout.height
                if not 1 <= cell <= 64:
                    continue
            observer = GridObserver(layout, kind, cell)
            if observer.shape == shape:
                found.append(observer)
        if not found:
            kind = f"the {self.observation!r} observation" if self.observation else "any observation it can compute"
            raise AgentSpecError(f"sb3:{self.path}: the model observes shape {shape}, but {kind} of layout "
                                 f"{layout.name!r} has another shape (train it on this layout, or on \"features\", "
                                 f"which fit every layout)")
        self._observer = found[0]
        self._layout = layout
