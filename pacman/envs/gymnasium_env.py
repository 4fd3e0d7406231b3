"""`PacmanEnv`: the classic game as a Gymnasium environment, a thin shell over `GameState` and the seeded game loop.

One `step` is one round of `pacman.game.run_game`: Pacman's move (the action), then
each ghost's move drawn from its own seeded stream, stopping when the game ends.
An episode started by ``reset(seed=s)`` is the game ``pacman-ai play --seed s``
plays when Pacman takes the same actions: the same states, the same score. The
round is played by the compiled core when it is here (one game of
`pacman.envs.core_games`), else by `GameState.successor`; both give the same
episodes (tests/test_envs_gym.py checks it). See docs/environments.md.

Ghosts of a kind the user added to `pacman.agents.ghosts.GHOST_KINDS` move in
Python; an error raised in their code reaches the caller with a note naming
the lines of the user's files and a hint (`pacman.user_code.note_user_frames`).
"""

from __future__ import annotations

import os
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from pacman.actions import ACTIONS, Action
from pacman.agents.ghosts import GHOST_KINDS, make_ghosts
from pacman.errors import PacmanError
from pacman.game import agent_streams, endless_reason, needs_heading
from pacman.layout import Layout, load_layout
from pacman.limits import DEFAULT, check_max_moves, resolve_max_moves
from pacman.state import GameState
from pacman.user_code import note_user_frames
from pacman.envs.core_games import CoreGames, choose_engine
from pacman.envs.observations import GHOSTS, GridObserver, grid_observation, state_bounds, state_vector

__all__ = ["PacmanEnv", "OBSERVATIONS", "GRID_OBSERVATIONS", "RENDER_FPS", "action_mask", "episode_seed",
           "check_cell"]

#: The kinds of observation: the grid of channels, the grid as an image (each cell a block of pixels, 0 or 255, for
#: CNN policies), the features of Pacman's five moves, the renderer's frame, the flat state vector.
OBSERVATIONS = ("grid", "image", "features", "pixels", "state")
#: The observations built from the grid (`pacman.envs.observations.GridObserver`), which the compiled core serves.
GRID_OBSERVATIONS = GridObserver.KINDS
#: Rounds per second of the "human" render mode (and `metadata["render_fps"]`).
RENDER_FPS = 8

_STOP = ACTIONS.index(Action.STOP)
_NO_ACTIONS = np.zeros(len(ACTIONS), dtype=np.int8)
_NO_ACTIONS.flags.writeable = False


def _masks(layout: Layout) -> dict[tuple[int, int], np.ndarray]:
    """Pacman's legal actions on each open cell as a read-only int8 mask (they depend on the cell only)."""
    masks = {}
    for x in range(layout.width):
        for y in range(layout.height):
            if layout.is_wall(x, y):
                continue
            mask = np.array([0 if a is not Action.STOP and layout.is_wall(x + a.vector[0], y + a.vector[1]) else 1
                             for a in ACTIONS], dtype=np.int8)
            mask.flags.writeable = False
            masks[(x, y)] = mask
    return masks


def action_mask(state: GameState) -> np.ndarray:
    """Pacman's legal actions in `state` as an int8 mask in North, South, East, West, Stop order (all 0 when
    the game is over). Read-only: the array is shared."""
    if state.is_terminal():
        return _NO_ACTIONS
    return state.layout.derived("env_action_masks", _masks)[state.pacman_position]


def check_cell(cell: int | None, observation: str) -> None:
    """Refuse a `cell` (pixels per cell) the observation cannot take: an int from 4 to 64 for "pixels", from 1 to
    64 for "image", None for either (its default)."""
    if cell is None:
        return
    low = 1 if observation == "image" else 4
    if isinstance(cell, bool) or not isinstance(cell, int) or not low <= cell <= 64:
        raise PacmanError(f"cell must be an int from {low} to 64 (pixels per cell), got {cell!r}")


def episode_seed(np_random: np.random.Generator) -> int:
    """The game seed of an episode reset without a seed: the next raw 64-bit word of the environment's
    generator, halved (a non-negative int that ``pacman-ai play --seed`` takes). The compiled vector
    environment draws it the same way."""
    return int(np_random.bit_generator.random_raw()) >> 1


class PacmanEnv(gym.Env):
    """The classic Pacman game as a Gymnasium environment.

    Actions: `Discrete(5)`, North, South, East, West, Stop (`pacman.actions.ACTIONS`).
    An action that is illegal where Pacman stands (into a wall) is taken as Stop and
    counted in ``info["illegal_actions"]``; ``info["action_mask"]`` holds the legal ones.
    Reward: the change of the score, so an episode's return is the game's score.
    ``terminated`` when the game is won or lost; ``truncated`` after `max_moves`
    Pacman moves, as by Gymnasium's ``max_episode_steps`` (also when that move ends the game): by default
    the command line's limit for the maze (`pacman.limits.default_max_moves`), ``None`` or ``"none"`` for
    no limit. ``info["state"]`` is the `GameState`, ``info["seed"]`` (after reset) the game's seed for
    ``play --seed``.
    `engine`: "auto" plays the rounds in the compiled core when it is here (and
    ``PACMAN_AI_ENGINE`` is not ``python``), "python" in Python, "compiled" insists
    on the core; every engine plays the same episodes. `engine` (the attribute) says
    which one plays.

    >>> env = PacmanEnv("test", num_ghosts=0)
    >>> obs, info = env.reset(seed=3)
    >>> obs.shape, info["seed"]
    ((6, 5, 5), 3)
    """

    metadata = {"render_modes": ["human", "rgb_array", "ansi"], "render_fps": RENDER_FPS}

    def __init__(self, layout: Layout | str | os.PathLike[str] = "medium", ghosts: str = "random",
                 num_ghosts: int | None = None, max_moves: int | str | None = DEFAULT, observation: str = "grid",
                 render_mode: str | None = None, cell: int | None = None, engine: str = "auto") -> None:
        self.layout = layout if isinstance(layout, Layout) else load_layout(layout)
        if ghosts not in GHOST_KINDS:
            raise PacmanError(f"ghosts={ghosts!r}: expected one of {', '.join(GHOST_KINDS)}")
        if observation not in OBSERVATIONS:
            raise PacmanError(f"observation={observation!r}: expected one of {', '.join(OBSERVATIONS)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise PacmanError(f"render_mode={render_mode!r}: expected one of "
                              f"{', '.join(self.metadata['render_modes'])} or None")
        check_max_moves(max_moves)
        check_cell(cell, observation)
        self.start = GameState.initial(self.layout, num_ghosts)  # checks num_ghosts
        reason = endless_reason(self.start)
        if reason is not None:
            raise PacmanError(f"{self.layout.name}: {reason.split(';')[0]}: no episode could end")
        self.ghost_kind = ghosts
        self.num_ghosts = self.start.num_ghosts
        try:
            self.ghost_agents = tuple(make_ghosts(ghosts, self.num_ghosts))
        except Exception as exc:  # a ghost kind of the user's own: where in their file
            note_user_frames(exc)
            raise
        if needs_heading(self.ghost_agents):  # ghosts that aim ahead of Pacman read his heading in the state
            self.start = GameState.initial(self.layout, self.num_ghosts, heading=True)
        self.max_moves = resolve_max_moves(self.layout, max_moves)
        """The resolved limit: Pacman moves after which an episode is truncated (None: no limit)."""
        self.observation = observation
        self.render_mode = render_mode
        self._observer = GridObserver(self.layout, observation, cell) if observation in GRID_OBSERVATIONS else None
        if observation == "image":
            cell = self._observer.cell
        self.cell = cell if cell is not None else 16
        """Pixels per cell of the "pixels" and "image" observations."""
        self.action_space = spaces.Discrete(len(ACTIONS))
        if self._observer is not None:
            observer = self._observer
            self.observation_space = spaces.Box(observer.low, observer.high, observer.shape, dtype=observer.dtype)
        elif observation == "state":
            low, high = state_bounds(self.layout, self.num_ghosts, heading=self.start.pacman_heading is not None)
            self.observation_space = spaces.Box(low, high, dtype=np.float32)
        else:
            from pacman.view.renderer import frame_size

            width, height = frame_size(self.layout, self.cell)
            self.observation_space = spaces.Box(0, 255, (height, width, 3), dtype=np.uint8)
        self.engine = choose_engine(engine, self.ghost_agents)
        """The engine that plays the rounds: "compiled" or "python"."""
        self._core: CoreGames | None = None
        if self.engine == "compiled":
            self._attach_core()
        self.state = self.start
        self.seed_of_game: int | None = None
        """The seed of the episode's game (``pacman-ai play --seed``), once reset."""
        self.moves = 0
        self.illegal_actions = 0
        self._previous: np.ndarray | None = None
        self._streams: list[np.random.Generator] = []
        self._pacman_rng: np.random.Generator | None = None
        self._renderers: dict[int, Any] = {}
        self._window: Any = None
        self._clock: Any = None

    # -- the Gymnasium API -------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Start a game: with `seed`, the game ``play --seed seed`` plays; without, the next game of this
        environment's generator (seeded by the last seed given, else from the operating system)."""
        super().reset(seed=seed)
        if options:
            raise PacmanError(f"reset(options=...): this environment takes no options, got {sorted(options)}")
        game_seed = int(seed) if seed is not None else episode_seed(self.np_random)
        if self._core is not None:
            self._core.reset(0, game_seed)
            self._streams = []
            self._pacman_rng = None  # made when asked for (`pacman_rng`): the core draws the ghosts' moves
        else:
            self._streams = agent_streams(game_seed, self.start.num_agents)
            self._pacman_rng = self._streams[0]
        self.seed_of_game = game_seed
        self.state = self.start
        self._previous = None
        self.moves = 0
        self.illegal_actions = 0
        info = self._info()
        info["seed"] = game_seed
        if self.render_mode == "human":
            self.render()
        return self._observe(), info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """One round: Pacman takes `action` (0-4; an illegal one is taken as Stop), then each ghost moves."""
        state = self.state
        if self.seed_of_game is None:
            raise PacmanError("step() before reset(): call reset() first")
        if self.observation == "features":  # the ghosts before the step: which are coming nearer
            self._previous = (self._grid if self._core is not None else grid_observation(state))[GHOSTS].copy()
        if state.is_terminal() or (self.max_moves is not None and self.moves >= self.max_moves):
            raise PacmanError("step() after the episode ended: call reset() first")
        try:
            index = int(action)
        except (TypeError, ValueError):
            raise PacmanError(f"action {action!r} is not one of 0..4 (North, South, East, West, Stop)") from None
        if not 0 <= index < len(ACTIONS) or index != action:
            raise PacmanError(f"action {action!r} is not one of 0..4 (North, South, East, West, Stop)")
        if self._core is not None:
            state, reward, terminated, _, illegal = self._play(0, index)
            self.illegal_actions += illegal
        else:
            move = ACTIONS[index]
            if move not in state.legal_actions(0):
                move = Action.STOP
                self.illegal_actions += 1
            before = state.score
            state = state.successor(0, move)
            streams = self._streams
            try:
                for ghost in self.ghost_agents:
                    if state.is_terminal():
                        break
                    state = state.successor(ghost.index, ghost.get_action(state, streams[ghost.index]))
            except Exception as exc:  # a ghost kind of the user's own: where in their file
                note_user_frames(exc)
                raise
            reward = float(state.score - before)
            terminated = state.is_terminal()
        self.state = state
        self.moves += 1
        # As Gymnasium's TimeLimit: the last allowed move truncates, even when it also ends the game.
        truncated = self.max_moves is not None and self.moves >= self.max_moves
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """Pacman's legal actions now as a bool array in North, South, East, West, Stop order (all False once the
        game is over): the method sb3-contrib's MaskablePPO looks for, so ``MaskablePPO("MlpPolicy", env)`` needs
        no `ActionMasker` wrapper. The same as ``info["action_mask"]``; before the first reset, the start's."""
        mask = self._mask if self._core is not None and self.seed_of_game is not None else action_mask(self.state)
        return mask.astype(bool)

    def render(self) -> Any:
        """The frame as an (H, W, 3) uint8 array ("rgb_array"), the board as text ("ansi"), or the
        window drawn ("human", returns None). None without a render mode."""
        if self.render_mode is None:
            gym.logger.warn("render() without a render_mode: give render_mode='rgb_array', 'ansi' or 'human'")
            return None
        if self.render_mode == "ansi":
            from pacman.view.text import render_board

            state = self.state
            return (f"{render_board(state)}\n{self.layout.name}  move {self.moves}  score {state.score}  "
                    f"food {state.food_count}\n")
        if self.render_mode == "rgb_array":
            return self._frame(32)
        return self._render_window()

    def close(self) -> None:
        """Close the window of the "human" mode, if open."""
        if self._window is not None:
            import pygame

            pygame.display.quit()
            self._window = None
            self._clock = None

    @property
    def pacman_rng(self) -> np.random.Generator | None:
        """Pacman's own stream of the episode's game, for agents that act in the environment
        (`pacman.envs.policies`); None before the first reset."""
        if self._pacman_rng is None and self.seed_of_game is not None:
            self._pacman_rng = agent_streams(self.seed_of_game, self.start.num_agents)[0]
        return self._pacman_rng

    def __getstate__(self) -> dict[str, Any]:
        """Copies and pickles carry the game, not the core: the streams go as numpy generators (the Python
        engine's form) and come back into a new core (or, where there is none, play on in Python)."""
        saved = self.__dict__.copy()
        if self._core is not None:
            for name in ("_core", "_play", "_grid", "_mask"):
                del saved[name]
            if self.seed_of_game is not None:
                streams = self._core.numpy_streams(0)
                streams[0] = self.pacman_rng
                saved["_streams"], saved["_pacman_rng"] = streams, streams[0]
        return saved

    def __setstate__(self, saved: dict[str, Any]) -> None:
        self.__dict__.update(saved)
        self._core = None
        if self.engine == "compiled":
            if choose_engine("auto", self.ghost_agents) != "compiled":
                self.engine = "python"  # no core here: the streams carry on in Python
                return
            self._attach_core()
            if self.seed_of_game is not None:
                self._core.restore(0, self.state, self._streams, self.moves, self.illegal_actions)
                self._streams = []

    # -- internals ---------------------------------------------------------------------

    def _attach_core(self) -> None:
        """Play in a one-game `CoreGames`, whose grid and mask this environment hands out (copied)."""
        self._core = CoreGames(self.start, self.ghost_agents, 1, None, grid=self._observer is not None)
        self._play = self._core.games.play
        self._grid = self._core.observations[0] if self._observer is not None else None
        self._mask = self._core.masks[0]

    def _info(self) -> dict[str, Any]:
        mask = self._mask if self._core is not None else action_mask(self.state)
        return {"action_mask": mask.copy(), "state": self.state, "moves": self.moves,
                "illegal_actions": self.illegal_actions}

    def _observe(self) -> Any:
        if self._observer is not None:
            grid = self._grid if self._core is not None else grid_observation(self.state)
            previous = None if self._previous is None else self._previous[None]
            return self._observer(grid[None], previous=previous)[0]
        if self.observation == "state":
            return state_vector(self.state)
        return self._frame(self.cell)

    def _renderer(self, cell: int) -> Any:
        renderer = self._renderers.get(cell)
        if renderer is None:
            from pacman.view.renderer import Renderer

            renderer = self._renderers[cell] = Renderer(self.layout, cell=cell)
        return renderer

    def _frame(self, cell: int) -> np.ndarray:
        return self._renderer(cell).frame(self.state, move=self.moves)

    def _render_window(self) -> None:
        import pygame

        renderer = self._renderer(32)
        if self._window is None:
            pygame.display.init()
            pygame.display.set_caption(f"pacman-ai: {self.layout.name}")
            self._window = pygame.display.set_mode(renderer.size)
            self._clock = pygame.time.Clock()
        pygame.event.pump()
        renderer.draw(self._window, self.state, move=self.moves)
        pygame.display.flip()
        self._clock.tick(self.metadata["render_fps"])

