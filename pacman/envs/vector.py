"""Many games at once: `PacmanVectorEnv` steps them all in the compiled core; `make_vector_env` is the
``vector_entry_point`` of ``gymnasium.make_vec("pacman_ai/Pacman-v0", num_envs=N)``.

The compiled environment plays exactly the games of `PacmanEnv` (one round per
step, the same seeded streams, the same grid), with Gymnasium's default
``NEXT_STEP`` autoreset: the step after a game ends starts the next one (reward 0,
the action ignored); with ``autoreset_mode="SAME_STEP"`` (or ``AutoresetMode.SAME_STEP``) a game that ends
starts the next one in the same step, its last observation and info in ``info["final_obs"]`` and
``info["final_info"]``, as Gymnasium's `SyncVectorEnv` gives them. Where the core is not built (or ``PACMAN_AI_ENGINE=python``, or
``engine="python"``), or for "pixels" and "state" observations or a render mode,
`make_vector_env` returns Gymnasium's `SyncVectorEnv` over `PacmanEnv`s, which play
the same episodes (tests/test_envs_vector.py checks it against the Python engine).
"""

from __future__ import annotations

import os
from typing import Any, Sequence

import numpy as np
from gymnasium.vector import AutoresetMode, SyncVectorEnv, VectorEnv
from gymnasium.vector.utils import batch_space

from pacman.agents.ghosts import GHOST_KINDS, make_ghosts
from pacman.errors import PacmanError
from pacman.layout import Layout, load_layout
from pacman.memory import check_memory, format_bytes, vector_env_bytes
from pacman.limits import DEFAULT, NO_LIMIT, check_max_moves, resolve_max_moves
from pacman.state import GameState
from pacman.envs.core_games import CoreGames, choose_engine, core_obstacle
from pacman.envs.gymnasium_env import PacmanEnv

__all__ = ["PacmanVectorEnv", "make_vector_env", "compiled_vector_obstacle"]


def _vector_seeds(seed: int | Sequence[int | None] | None, num_envs: int) -> list[int | None]:
    """Gymnasium's rule: None for every game, seed + i for game i, or one seed (or None) per game."""
    if seed is None:
        return [None] * num_envs
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        return [int(seed) + i for i in range(num_envs)]
    seeds = list(seed)
    if len(seeds) != num_envs:
        raise PacmanError(f"reset(seed=...): {len(seeds)} seeds for {num_envs} environments")
    return [None if s is None else int(s) for s in seeds]


def compiled_vector_obstacle(observation: str = "grid", render_mode: str | None = None,
                             ghost_agents: Sequence[Any] = ()) -> str | None:
    """Why `make_vector_env` cannot use the compiled core with these options and ghosts; None if it can."""
    why = core_obstacle(ghost_agents)
    if why is not None:
        return why
    if observation != "grid":
        return f"the compiled core writes grid observations only, not {observation!r}"
    if render_mode is not None:
        return f"the compiled vector environment does not render (render_mode={render_mode!r})"
    return None


class PacmanVectorEnv(VectorEnv):
    """`num_envs` games of `PacmanEnv` stepped together in the compiled core, grid observations only.

    Observations are written into one preallocated ``(num_envs, C, H, W)`` array;
    with ``copy=False`` `reset` and `step` return one read-only view of that array
    (overwritten by the next step: copy what you keep). ``info["action_mask"]`` holds each game's
    legal actions. `state(i)` gives game i's `GameState`, `seed_of_game(i)` its seed.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1, layout: Layout | str | os.PathLike[str] = "medium", ghosts: str = "random",
                 num_ghosts: int | None = None, max_moves: int | str | None = DEFAULT, copy: bool = True,
                 autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP) -> None:
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        obstacle = compiled_vector_obstacle()
        if obstacle is not None:
            raise PacmanError(f"PacmanVectorEnv needs the compiled core: {obstacle}")
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or not 1 <= num_envs <= 1 << 24:
            raise PacmanError(f"num_envs must be an int from 1 to {1 << 24}, got {num_envs!r}")
        self.template = PacmanEnv(layout, ghosts=ghosts, num_ghosts=num_ghosts, max_moves=max_moves, engine="python")
        """One single environment with the same options: the spaces, checks and the first state."""
        obstacle = core_obstacle(self.template.ghost_agents)
        if obstacle is not None:
            raise PacmanError(f"PacmanVectorEnv needs the compiled core to play ghosts={ghosts!r}: {obstacle}")
        check_vector_memory(self.template, num_envs, compiled=True)
        self.layout = self.template.layout
        self.num_envs = num_envs
        self.copy = copy
        self.render_mode = None
        self.single_action_space = self.template.action_space
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.single_observation_space = self.template.observation_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.max_moves = self.template.max_moves
        """The resolved limit (`pacman.limits`): Pacman moves after which a game is truncated (None: none)."""
        self._core = CoreGames(self.template.start, self.template.ghost_agents, num_envs, self.max_moves)
        self._games = self._core.games
        self._observations, self._masks = self._core.observations, self._core.masks
        self._rewards, self._terminated, self._truncated = self._core.rewards, self._core.terminated, self._core.truncated
        self._every = np.ones(num_envs, dtype=np.bool_)
        self._seeded = [False] * num_envs
        # copy=False hands out read-only views: the core writes only the cells that change from one step to the
        # next, so an observation written by anyone else would stay wrong.
        self._observations_view, self._masks_view = self._observations.view(), self._masks.view()
        self._observations_view.flags.writeable = self._masks_view.flags.writeable = False

    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start every game: seeds as Gymnasium's vector environments take them (None, an int s for
        s, s + 1, ..., or one per game)."""
        if options:
            raise PacmanError(f"reset(options=...): this environment takes no options, got {sorted(options)}")
        for i, game_seed in enumerate(_vector_seeds(seed, self.num_envs)):
            if game_seed is not None:
                if not 0 <= game_seed < 2**64:
                    raise PacmanError(f"reset(seed=...): the compiled vector environment takes seeds from 0 to "
                                      f"2**64 - 1, got {game_seed}")
                self._core.reset(i, game_seed)
            else:
                if not self._seeded[i]:  # as Gymnasium seeds np_random from the operating system
                    self._core.reset(i, int(np.random.SeedSequence().entropy))
                self._core.reset(i)
            self._seeded[i] = True
        return self._observation(), self._info()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One round of every game; a game that ended at the last step starts the next one instead."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise PacmanError(f"step(actions): expected {self.num_envs} integer actions, got an array of shape "
                              f"{actions.shape} and dtype {actions.dtype}")
        self._games.step(np.ascontiguousarray(actions, dtype=np.int64))
        terminated, truncated = self._terminated.copy(), self._truncated.copy()
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            ended = np.flatnonzero(terminated | truncated)
            if ended.size:  # as SyncVectorEnv: the last observation and info under "final_obs", "final_info"
                infos: dict[str, Any] = {}
                for i in ended:
                    i = int(i)
                    infos = self._add_info(infos, {"final_obs": self._observations[i].copy(),
                                                   "final_info": {"action_mask": self._masks[i].copy()}}, i)
                    self._core.reset(i)
                return self._observation(), self._rewards.copy(), terminated, truncated, {**self._info(), **infos}
        return self._observation(), self._rewards.copy(), terminated, truncated, self._info()

    def state(self, i: int) -> GameState:
        """Game i's current `GameState`."""
        return self._games.game_state(i)

    def seed_of_game(self, i: int) -> int:
        """The seed of game i's current game (``pacman-ai play --seed``)."""
        return self._games.progress(i)[2]

    def _observation(self) -> np.ndarray:
        return self._observations.copy() if self.copy else self._observations_view

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._masks.copy() if self.copy else self._masks_view, "_action_mask": self._every.copy()}


def _autoreset_mode(mode: Any) -> AutoresetMode:
    """NEXT_STEP or SAME_STEP (the modes these environments play; DISABLED is refused by name)."""
    try:
        mode = AutoresetMode[mode] if isinstance(mode, str) and mode in AutoresetMode.__members__ else AutoresetMode(mode)
    except ValueError:
        raise PacmanError(f"autoreset_mode={mode!r}: expected NEXT_STEP or SAME_STEP") from None
    if mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
        raise PacmanError(f"autoreset_mode={mode.name}: the Pacman vector environments play NEXT_STEP or SAME_STEP")
    return mode


def check_vector_memory(template: PacmanEnv, num_envs: int, compiled: bool) -> None:
    """Refuse `num_envs` games like `template` that would not fit in this machine's free memory
    (`pacman.memory`), before any is made."""
    layout = template.layout
    space = template.observation_space
    observation_bytes = int(np.prod(space.shape)) * space.dtype.itemsize
    needed = vector_env_bytes(layout.width * layout.height, observation_bytes, num_envs, compiled)
    check_memory(f"make_vec(num_envs={num_envs:,}) on {layout.name!r}", needed,
                 f"{format_bytes(needed // num_envs)} a game")


def make_vector_env(num_envs: int = 1, max_episode_steps: int | None = None,
                    max_moves: int | str | None = DEFAULT, observation: str = "grid", render_mode: str | None = None,
                    copy: bool = True, engine: str = "auto", autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
                    **kwargs: Any) -> VectorEnv:
    """The ``vector_entry_point``: `PacmanVectorEnv` when the core can run these options (and `engine`
    allows it), else a `SyncVectorEnv` of `PacmanEnv`s with that `engine`; both truncate at the smaller of
    `max_moves` (by default the maze's limit, `pacman.limits`) and `max_episode_steps`."""
    check_max_moves(max_moves)
    if max_episode_steps is not None and (isinstance(max_episode_steps, bool) or not isinstance(max_episode_steps, int)
                                          or max_episode_steps < 1):
        raise PacmanError(f"max_episode_steps must be a positive int or None, got {max_episode_steps!r}")
    limit: int | str | None = max_moves
    if max_episode_steps is not None:
        if max_moves == DEFAULT:  # the smaller of the two needs the maze's default
            layout = kwargs.get("layout", "medium")
            limit = resolve_max_moves(layout if isinstance(layout, Layout) else load_layout(layout), DEFAULT)
        limit = max_episode_steps if limit is None or limit == NO_LIMIT else min(int(limit), max_episode_steps)
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
        raise PacmanError(f"num_envs must be a positive int, got {num_envs!r}")
    mode = _autoreset_mode(autoreset_mode)
    kind = kwargs.get("ghosts", "random")
    ghosts = make_ghosts(kind, 1) if isinstance(kind, str) and kind in GHOST_KINDS else ()
    if (ghosts and choose_engine(engine, ghosts) == "compiled"
            and compiled_vector_obstacle(observation, render_mode, ghosts) is None):
        return PacmanVectorEnv(num_envs, max_moves=limit, copy=copy, autoreset_mode=mode, **kwargs)
    # Checked on one environment before num_envs of them are made.
    check_vector_memory(PacmanEnv(max_moves=limit, observation=observation, engine="python", **kwargs), num_envs,
                  compiled=False)
    return SyncVectorEnv([lambda: PacmanEnv(max_moves=limit, observation=observation, render_mode=render_mode,
                                            engine=engine, **kwargs) for _ in range(num_envs)],
                         copy=copy, autoreset_mode=mode)
