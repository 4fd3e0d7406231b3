"""Stable-Baselines3 with no glue: `make_vec_env` returns an SB3 `VecEnv` whose games are stepped in the compiled core.

>>> from pacman.envs.sb3 import make_vec_env
>>> env = make_vec_env(layout="small", num_envs=4, observation="features")
>>> env.seed(0)
[0, 1, 2, 3]
>>> env.reset().shape
(4, 82)

It plays exactly the games of `pacman.envs.PacmanEnv` (one round a step, the same
seeded streams, the same observations), four to thousands at once, the way SB3
expects a `VecEnv` to behave: a game that ends is reset in the same step, its last
observation in ``infos[i]["terminal_observation"]`` (with
``infos[i]["TimeLimit.truncated"]`` when it was cut off by the move limit, never a
transition between two games), and ``infos[i]["is_success"]`` (won), ``"score"``
and ``"seed"`` of the game that ended. MaskablePPO finds the legal actions through
``env_method("action_masks")``. ``seed(s)`` makes the next `reset` start the games
seeded s, s + 1, ...; each game's later games follow from its seed (see
docs/environments.md, "Seeding"). Needs the extra ``pacman-ai[rl]``.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

try:
    from stable_baselines3.common.vec_env import VecEnv
except ImportError:  # pragma: no cover - depends on the install
    raise ImportError('pacman.envs.sb3 needs Stable-Baselines3: pip install "pacman-ai[rl]"') from None


from pacman.envs.core_games import CoreGames, core_obstacle
from pacman.envs.gymnasium_env import GRID_OBSERVATIONS, PacmanEnv
from pacman.envs.observations import GHOSTS
from pacman.envs.vector import check_vector_memory
from pacman.errors import PacmanError
from pacman.layout import Layout
from pacman.limits import DEFAULT
from pacman.state import GameState

__all__ = ["PER_GAME_ATTRIBUTES", "PER_GAME_METHODS", "PacmanSB3VecEnv", "make_vec_env"]

#: What `PacmanSB3VecEnv.get_attr` answers, per game.
PER_GAME_ATTRIBUTES = ("action_masks", "state", "seed_of_game", "layout", "observation", "num_ghosts", "ghost_kind",
                       "max_moves", "render_mode", "action_space", "observation_space")
#: What `PacmanSB3VecEnv.env_method` calls, per game.
PER_GAME_METHODS = ("action_masks", "state", "seed_of_game")


class PacmanSB3VecEnv(VecEnv):
    """`num_envs` Pacman games stepped together in the compiled core, as Stable-Baselines3's `VecEnv`.

    Observations: "grid", "image" or "features" (`pacman.envs.PacmanEnv`'s, computed for all games at once).
    Rewards are the change of the score, float32; a game is done when won, lost or cut off after `max_moves`.
    """

    def __init__(self, layout: Layout | str | os.PathLike[str] = "small", num_envs: int = 8, ghosts: str = "random",
                 num_ghosts: int | None = None, max_moves: int | str | None = DEFAULT, observation: str = "grid",
                 cell: int | None = None) -> None:
        obstacle = core_obstacle()
        if obstacle is not None:
            raise PacmanError(f"make_vec_env needs the compiled core: {obstacle}")
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or not 1 <= num_envs <= 1 << 20:
            raise PacmanError(f"num_envs must be an int from 1 to {1 << 20}, got {num_envs!r}")
        if observation not in GRID_OBSERVATIONS:
            raise PacmanError(f"observation={observation!r}: make_vec_env takes {', '.join(GRID_OBSERVATIONS)} "
                              f"(\"pixels\" and \"state\" are the single environment's)")
        self.template = PacmanEnv(layout, ghosts=ghosts, num_ghosts=num_ghosts, max_moves=max_moves,
                                  observation=observation, cell=cell, engine="python")
        """One single environment with the same options: the checks, spaces, ghosts and start."""
        obstacle = core_obstacle(self.template.ghost_agents)
        if obstacle is not None:
            raise PacmanError(f"make_vec_env needs the compiled core to play ghosts={ghosts!r}: {obstacle}")
        check_vector_memory(self.template, num_envs, compiled=True)
        self.layout = self.template.layout
        self.observation = observation
        self.max_moves = self.template.max_moves
        """The resolved limit (`pacman.limits`): Pacman moves after which a game is cut off (None: no limit)."""
        self._observer = self.template._observer
        super().__init__(num_envs, self.template.observation_space, self.template.action_space)
        self._core = CoreGames(self.template.start, self.template.ghost_agents, num_envs, self.max_moves)
        self._games = self._core.games
        self._grids, self._masks = self._core.observations, self._core.masks
        self._rewards, self._terminated, self._truncated = self._core.rewards, self._core.terminated, self._core.truncated
        self._obs = np.zeros((num_envs, *self.observation_space.shape), dtype=self.observation_space.dtype)
        self._actions: np.ndarray | None = None
        self._previous = np.zeros_like(self._grids[:, GHOSTS])  # the ghosts' plane before the step ("features")
        self._started = False
        self._seeded = np.zeros(num_envs, dtype=bool)

    # -- the VecEnv API ----------------------------------------------------------------

    def reset(self) -> np.ndarray:
        """Start every game: seeded as `seed` said (once), else each game's next."""
        for i, seed in enumerate(self._seeds):
            if seed is not None:
                if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
                    raise PacmanError(f"seed: a seed is an int from 0 to 2**64 - 1, got {seed!r}")
                self._core.reset(i, int(seed))
            else:
                if not self._seeded[i]:  # as Gymnasium seeds np_random from the operating system
                    self._core.reset(i, int(np.random.SeedSequence().entropy))
                self._core.reset(i)
            self._seeded[i] = True
            self.reset_infos[i] = {"seed": self.seed_of_game(i)}
        for i, options in enumerate(self._options):
            if options:
                raise PacmanError(f"set_options: the Pacman games take no reset options, got {sorted(options)} "
                                  f"for game {i}")
        self._reset_seeds()
        self._reset_options()
        self._started = True
        self._actions = None
        self._previous[...] = self._grids[:, GHOSTS]
        return self._observer(self._grids, self._obs, self._previous).copy()

    def step_async(self, actions: np.ndarray) -> None:
        if not self._started:
            raise PacmanError("step() before reset(): call reset() first")
        actions = np.asarray(actions)
        if actions.shape == (self.num_envs, 1):  # as SB3's policies may give a Discrete action
            actions = actions[:, 0]
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise PacmanError(f"step(actions): expected {self.num_envs} integer actions, got an array of shape "
                              f"{actions.shape} and dtype {actions.dtype}")
        bad = np.flatnonzero((actions < 0) | (actions > 4))
        if bad.size:
            raise PacmanError(f"step(actions): action {actions[bad[0]].item()!r} of game {bad[0]} is not one of 0..4 "
                              "(North, South, East, West, Stop)")
        self._actions = np.ascontiguousarray(actions, dtype=np.int64)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if self._actions is None:
            raise PacmanError("step_wait() without step_async(actions)")
        previous = self._grids[:, GHOSTS].copy()
        self._games.step(self._actions)
        self._actions = None
        rewards = self._rewards.astype(np.float32)
        terminated, truncated = self._terminated, self._truncated
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        ended = np.flatnonzero(dones)
        if ended.size:
            last = self._observer(self._grids[ended], previous=previous[ended])
            for k, i in enumerate(ended):
                i = int(i)
                state = self._games.game_state(i)
                infos[i] = {"terminal_observation": last[k], "TimeLimit.truncated": bool(truncated[i] and not terminated[i]),
                            "is_success": state.is_win(), "score": state.score, "seed": self.seed_of_game(i)}
                self._core.reset(i)  # the same step: the next game of its seeder, no transition between the two
                previous[i] = self._grids[i, GHOSTS]
        self._previous = previous
        return self._observer(self._grids, self._obs, previous).copy(), rewards, dones, infos

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """Per-game attributes (`PER_GAME_ATTRIBUTES`); `action_masks` is a method, as on `PacmanEnv`."""
        if attr_name not in PER_GAME_ATTRIBUTES:
            raise AttributeError(f"the Pacman vector environment's games have no attribute {attr_name!r} "
                                 f"(they have: {', '.join(PER_GAME_ATTRIBUTES)})")
        games = self._indices(indices)
        if attr_name in PER_GAME_METHODS:
            return [lambda i=i, name=attr_name: self._call(name, i) for i in games]
        if attr_name in ("layout", "observation", "max_moves"):
            return [getattr(self, attr_name) for _ in games]
        if attr_name == "action_space":
            return [self.action_space for _ in games]
        if attr_name == "observation_space":
            return [self.observation_space for _ in games]
        return [getattr(self.template, attr_name) for _ in games]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"set_attr({attr_name!r}): the Pacman vector environment's games have no settable "
                             "attributes (make a new environment with other options)")

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        """Per-game methods (`PER_GAME_METHODS`), taking no arguments: ``env_method("action_masks")`` gives each
        game's legal actions as a bool array (what MaskablePPO asks)."""
        if method_name not in PER_GAME_METHODS:
            raise AttributeError(f"the Pacman vector environment's games have no method {method_name!r} "
                                 f"(they have: {', '.join(PER_GAME_METHODS)})")
        if method_args or method_kwargs:
            raise TypeError(f"env_method({method_name!r}) takes no arguments")
        games = self._indices(indices)
        if method_name == "action_masks":
            masks = self._masks.astype(bool)
            return list(masks[games])
        return [self._call(method_name, i) for i in games]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    # -- per game ------------------------------------------------------------------------

    def action_masks(self) -> np.ndarray:
        """Every game's legal actions, ``(num_envs, 5)`` bool."""
        return self._masks.astype(bool)

    def state(self, i: int) -> GameState:
        """Game i's current `GameState`."""
        return self._games.game_state(self._index(i))

    def seed_of_game(self, i: int) -> int:
        """The seed of game i's current game (``pacman-ai play --seed``)."""
        return self._games.progress(self._index(i))[2]

    def _call(self, name: str, i: int) -> Any:
        if name == "action_masks":
            return self._masks[i].astype(bool)
        return getattr(self, name)(i)

    def _index(self, i: Any) -> int:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < self.num_envs:
            raise PacmanError(f"game index {i!r}: expected an int from 0 to {self.num_envs - 1}")
        return int(i)

    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            return [self._index(indices)]
        return [self._index(i) for i in indices]


def make_vec_env(layout: Layout | str | os.PathLike[str] = "small", num_envs: int = 8, **env_options: Any) -> PacmanSB3VecEnv:
    """An SB3 `VecEnv` of `num_envs` games of `layout` in the compiled core. `env_options`: ``ghosts``,
    ``num_ghosts``, ``max_moves`` (default the command line's limit for the maze, `pacman.limits`; None or "none": no limit), ``observation`` ("grid",
    "image" or "features") and ``cell`` (the image's pixels per cell), as `pacman.envs.PacmanEnv` takes them."""
    allowed = ("ghosts", "num_ghosts", "max_moves", "observation", "cell")
    unknown = sorted(set(env_options) - set(allowed))
    if unknown:
        raise PacmanError(f"make_vec_env: unknown option(s) {', '.join(unknown)} (it takes {', '.join(allowed)})")
    return PacmanSB3VecEnv(layout, num_envs, **env_options)
