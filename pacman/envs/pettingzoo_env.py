"""`PacmanAECEnv`: the classic game for PettingZoo, Pacman and each ghost an agent (``pacman``, ``ghost_1``, ...).

Agents move in the game's turn order: Pacman, then ghost 1, 2, ... A ghost that
is not one of the environment's agents (`controlled`) moves by its model
(``ghosts="random"`` or ``"directional"``) drawn from its own seeded stream, as in
`pacman.game.run_game`, so an episode from ``reset(seed=s)`` where Pacman is the
only agent is the game ``pacman-ai play --seed s`` plays with Pacman's actions.
An error raised in a model of the user's own (a kind added to `GHOST_KINDS`)
reaches the caller with a note naming the lines of the user's files and a hint
(`pacman.user_code.note_user_frames`). Needs the extra ``pacman-ai[pettingzoo]``.
See docs/environments.md.
"""

from __future__ import annotations

import os
from typing import Any, Sequence

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

try:
    from pettingzoo import AECEnv, ParallelEnv
except ImportError:  # pragma: no cover - depends on the install
    raise ImportError('the PettingZoo environment needs pettingzoo: pip install "pacman-ai[pettingzoo]"') from None

from pacman.actions import ACTIONS, Action
from pacman.errors import PacmanError
from pacman.game import agent_streams
from pacman.layout import Layout
from pacman.limits import DEFAULT
from pacman.state import GameState
from pacman.user_code import note_user_frames
from pacman.envs.gymnasium_env import RENDER_FPS, PacmanEnv, episode_seed
from pacman.envs.observations import grid_observation, grid_shape

__all__ = ["PacmanAECEnv", "PacmanParallelEnv", "env", "parallel_env", "agent_name", "OBSERVATION_KINDS",
           "RESET_OPTIONS", "check_reset_options"]

#: The ``reset(options=...)`` keys the environments take: only ``"options"``, the key PettingZoo's `api_test` and
#: `parallel_api_test` pass (``reset(seed=0, options={"options": 1})``) to check that `reset` takes the argument;
#: it has no effect. The games take no reset options (as `PacmanEnv`); any other key is refused by name.
RESET_OPTIONS = ("options",)


def check_reset_options(options: Any) -> None:
    """PacmanError naming what `options` (``reset(options=...)``) holds that the environments do not take."""
    if options is None:
        return
    if not isinstance(options, dict):
        raise PacmanError(f"reset(options=...): expected a dict or None, got {type(options).__name__}")
    unknown = sorted(map(str, (key for key in options if key not in RESET_OPTIONS)))
    if unknown:
        raise PacmanError(f"reset(options=...): this environment takes no reset options, got {', '.join(unknown)} "
                          f"(the key 'options', PettingZoo's API test's, is accepted and does nothing)")


#: The observation forms: "dict" (the grid and the action mask, PettingZoo's masking convention) or "box" (the grid
#: alone, a `Box`, as SuperSuit's wrappers take it; the mask is then in ``infos[agent]["action_mask"]``).
OBSERVATION_KINDS = ("dict", "box")


def agent_name(index: int) -> str:
    """The PettingZoo name of game agent `index`: ``pacman`` for 0, ``ghost_i`` for ghost i."""
    return "pacman" if index == 0 else f"ghost_{index}"


class PacmanAECEnv(AECEnv):
    """Pacman and the ghosts as agents of an AEC game.

    Each agent observes a dict: ``"observation"``, the grid of `pacman.envs.CHANNELS`
    plus a seventh channel ``you`` (the observing agent's own cell), and
    ``"action_mask"``, its legal actions when it is its turn (all 0 otherwise). All
    act in `Discrete(5)` (North, South, East, West, Stop; a ghost may never Stop or,
    unless it must, reverse). Pacman's illegal action is taken as Stop, a ghost's
    raises PacmanError. Rewards: Pacman gets each change of the score, every ghost
    agent its negative (a zero-sum game). All agents terminate when the game is won
    or lost and are truncated after `max_moves` rounds.
    """

    metadata = {"render_modes": ["human", "rgb_array", "ansi"], "name": "pacman_ai_v0", "is_parallelizable": False,
                "render_fps": RENDER_FPS}

    def __init__(self, layout: Layout | str | os.PathLike[str] = "medium", ghosts: str = "random",
                 num_ghosts: int | None = None, controlled: Sequence[int] | None = None, max_moves: int | str | None = DEFAULT,
                 render_mode: str | None = None, observation: str = "dict") -> None:
        super().__init__()
        if observation not in OBSERVATION_KINDS:
            raise PacmanError(f"observation={observation!r}: expected one of {', '.join(OBSERVATION_KINDS)}")
        self.observation_kind = observation
        self.game = PacmanEnv(layout, ghosts=ghosts, num_ghosts=num_ghosts, max_moves=max_moves,
                              render_mode=render_mode)
        """The single-agent environment of the same game: the checks, the ghost models and the renderer."""
        self.layout = self.game.layout
        n = self.game.num_ghosts
        if controlled is None:
            controlled = range(1, n + 1)
        controlled = sorted(set(controlled))
        if any(isinstance(i, bool) or not isinstance(i, int) or not 1 <= i <= n for i in controlled):
            raise PacmanError(f"controlled={controlled!r}: ghost indexes from 1 to {n} (the ghosts in play)")
        self.controlled = (0, *controlled)
        self.possible_agents = [agent_name(i) for i in self.controlled]
        self.agent_name_mapping = dict(zip(self.possible_agents, self.controlled))
        self.render_mode = render_mode
        self.max_moves = self.game.max_moves
        """The resolved limit (`pacman.limits`): rounds after which an episode is truncated (None: no limit)."""
        c, h, w = grid_shape(self.layout)
        grid_space = spaces.Box(0, 1, (c + 1, h, w), dtype=np.uint8)
        self._observation_spaces = {
            agent: grid_space if observation == "box" else
            spaces.Dict({"observation": grid_space, "action_mask": spaces.Box(0, 1, (len(ACTIONS),), dtype=np.int8)})
            for agent in self.possible_agents}
        self._started = False
        self._action_spaces = {agent: spaces.Discrete(len(ACTIONS)) for agent in self.possible_agents}
        self.state_now: GameState = self.game.start
        self._np_random: np.random.Generator | None = None
        self._streams: list[np.random.Generator] = []
        self._turn = 0
        self.moves = 0

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a game: with `seed`, the game ``play --seed seed`` plays; without, the next of this environment's
        generator. `options`: none are taken (`RESET_OPTIONS`)."""
        check_reset_options(options)
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        if seed is not None:  # the action spaces' sampling too, so that a seeded run of random agents repeats
            for i, agent in enumerate(self.possible_agents):
                self._action_spaces[agent].seed(int(seed) + i)
        self._started = True
        game_seed = int(seed) if seed is not None else episode_seed(self._np_random)
        self._streams = agent_streams(game_seed, self.game.start.num_agents)
        self.state_now = self.game.start
        self.moves = 0
        self._turn = 0
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: {"seed": game_seed} for agent in self.agents}
        if self.observation_kind == "box":
            self.infos["pacman"]["action_mask"] = self.legal_mask("pacman")
        self.agent_selection = self.possible_agents[0]
        self._sync_viewer()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> Any:
        if not self._started:
            raise PacmanError("observe() before reset(): call reset() first")
        if agent not in self._observation_spaces:
            raise PacmanError(f"observe({agent!r}): no such agent (agents: {', '.join(self.possible_agents)})")
        grid, mask = self._observe(agent, agent == self.agent_selection and agent in self.agents)
        return grid if self.observation_kind == "box" else {"observation": grid, "action_mask": mask}

    def legal_mask(self, agent: str) -> np.ndarray:
        """`agent`'s legal actions in the current state, whoever's turn it is (all 0 once the game is over)."""
        mask = np.zeros(len(ACTIONS), dtype=np.int8)
        if not self.state_now.is_terminal():
            for action in self.state_now.legal_actions(self.agent_name_mapping[agent]):
                mask[ACTIONS.index(action)] = 1
        return mask

    def _observe(self, agent: str, its_turn: bool) -> tuple[np.ndarray, np.ndarray]:
        state = self.state_now
        c, h, w = grid_shape(self.layout)
        grid = np.zeros((c + 1, h, w), dtype=np.uint8)
        grid_observation(state, grid[:-1])
        index = self.agent_name_mapping[agent]
        x, y = state.agent_position(index)
        if x != int(x) or y != int(y):  # half-way (scared): the cell it is heading to
            dx, dy = state.ghost_directions[index - 1].vector
            x, y = x + 0.5 * dx, y + 0.5 * dy
        grid[-1, self.layout.height - 1 - int(y), int(x)] = 1
        mask = self.legal_mask(agent) if its_turn else np.zeros(len(ACTIONS), dtype=np.int8)
        return grid, mask

    def step(self, action: Any) -> None:
        if not self._started:
            raise PacmanError("step() before reset(): call reset() first")
        if not self.agents:
            raise PacmanError("step() after the episode ended (every agent is done): call reset() first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        index = self.agent_name_mapping[agent]
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < len(ACTIONS):
            raise PacmanError(f"{agent}: action {action!r} is not one of 0..4 (North, South, East, West, Stop)")
        move = ACTIONS[int(action)]
        state = self.state_now
        before = state.score
        self._cumulative_rewards[agent] = 0.0
        if move not in state.legal_actions(index):
            if index != 0:
                raise PacmanError(f"{agent}: {move.value} is not legal at {state.agent_position(index)} "
                                  f"(legal: {', '.join(a.value for a in state.legal_actions(index))})")
            move = Action.STOP
            self.infos[agent]["illegal_actions"] = self.infos[agent].get("illegal_actions", 0) + 1
        state = self._advance(state.successor(index, move), index)
        self.state_now = state
        delta = float(state.score - before)
        for name in self.agents:
            self.rewards[name] = delta if name == "pacman" else -delta
        if state.is_terminal():
            self.terminations = {name: True for name in self.agents}
        elif self.max_moves is not None and self.moves >= self.max_moves and self._turn == 0:
            self.truncations = {name: True for name in self.agents}
        # at the end every agent is done, and each must still be stepped (with None) in turn from the first
        over = state.is_terminal() or self.truncations[agent]
        self.agent_selection = self.agents[0] if over else agent_name(self._turn)
        self._accumulate_rewards()
        if self.observation_kind == "box":
            for name in self.agents:
                self.infos[name]["action_mask"] = (self.legal_mask(name) if name == self.agent_selection and not over
                                                   else np.zeros(len(ACTIONS), dtype=np.int8))
        self._sync_viewer()
        if self.render_mode == "human":
            self.render()

    def render(self) -> Any:
        """As `PacmanEnv.render`: a frame, the board as text, or the window."""
        return self.game.render()

    def close(self) -> None:
        self.game.close()

    def _advance(self, state: GameState, mover: int) -> GameState:
        """After agent `mover`'s move: play the ghosts that are not agents until an agent's turn or the end."""
        if mover == 0:
            self.moves += 1
        turn = mover
        while not state.is_terminal():
            turn = (turn + 1) % state.num_agents
            if turn in self.controlled:
                break
            model = self.game.ghost_agents[turn - 1]
            try:
                action = model.get_action(state, self._streams[turn])
            except Exception as exc:  # a ghost kind of the user's own: where in their file
                note_user_frames(exc)
                raise
            state = state.successor(turn, action)
        self._turn = turn
        return state

    def _sync_viewer(self) -> None:
        self.game.state = self.state_now
        self.game.moves = self.moves


def env(**kwargs: Any) -> PacmanAECEnv:
    """PettingZoo's conventional constructor: ``PacmanAECEnv(**kwargs)``."""
    return PacmanAECEnv(**kwargs)


class PacmanParallelEnv(ParallelEnv):
    """Pacman and the controlled ghosts acting at once, one round a step (PettingZoo's parallel API).

    A step takes every live agent's action; they are played in the game's turn order (Pacman, then ghost 1,
    2, ...), the ghosts that are not agents moving by their model in between, as in `PacmanAECEnv`. Each
    agent's ``action_mask`` is its legal actions at the start of the round. An illegal action is replaced, as
    Pacman's is in every form: Pacman's by Stop, a ghost's (which may not stop) by its first legal action, both
    counted in ``infos[agent]["illegal_actions"]`` (a ghost's legal actions may change within the round: Pacman
    may eat it and send it home before its turn). Rewards are the round's: Pacman the change of the score, each ghost agent its negative.
    Options as `PacmanAECEnv`.
    """

    metadata = {"render_modes": ["human", "rgb_array", "ansi"], "name": "pacman_ai_parallel_v0", "render_fps": RENDER_FPS}

    def __init__(self, **kwargs: Any) -> None:
        self.aec = PacmanAECEnv(**kwargs)
        """The AEC game this steps a round at a time."""
        self.possible_agents = list(self.aec.possible_agents)
        self.agents: list[str] = []
        self.render_mode = self.aec.render_mode
        self._started = False

    def observation_space(self, agent: str) -> spaces.Space:
        return self.aec.observation_space(agent)

    def action_space(self, agent: str) -> spaces.Space:
        return self.aec.action_space(agent)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """Start a game, seeded as `PacmanAECEnv.reset`; `options` as the AEC form takes them (`RESET_OPTIONS`)."""
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.aec.agents)
        self._started = True
        seed_of_game = self.aec.infos["pacman"]["seed"]
        return self._observations(), {agent: {"seed": seed_of_game, "action_mask": self.aec.legal_mask(agent)}
                                      for agent in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        if not self._started:
            raise PacmanError("step() before reset(): call reset() first")
        if not self.agents:
            raise PacmanError("step() after the episode ended (every agent is done): call reset() first")
        if not isinstance(actions, dict):
            raise PacmanError(f"step(actions): expected a dict of actions by agent, got {type(actions).__name__}")
        missing = [agent for agent in self.agents if agent not in actions]
        unknown = [agent for agent in actions if agent not in self.agents]
        if missing or unknown:
            raise PacmanError("step(actions): " + "; ".join(
                part for part in (f"no action for {', '.join(missing)}" if missing else "",
                                  f"{', '.join(map(str, unknown))} not among the live agents "
                                  f"({', '.join(self.agents)})" if unknown else "") if part))
        aec = self.aec
        for agent, action in actions.items():
            if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < len(ACTIONS):
                raise PacmanError(f"{agent}: action {action!r} is not one of 0..4 (North, South, East, West, Stop)")
        rewards = {agent: 0.0 for agent in self.agents}
        replaced: dict[str, int] = {}
        first = True
        while aec.agents and (first or aec.agent_selection != "pacman") and not aec.state_now.is_terminal() \
                and not aec.truncations[aec.agent_selection]:
            agent = aec.agent_selection
            action = int(actions[agent])
            if agent != "pacman" and not aec.legal_mask(agent)[action]:
                action = int(np.flatnonzero(aec.legal_mask(agent))[0])
                replaced[agent] = replaced.get(agent, 0) + 1
            aec.step(action)
            for name in rewards:
                rewards[name] += aec.rewards.get(name, 0.0)
            first = False
        terminations = {agent: bool(aec.terminations[agent]) for agent in self.agents}
        truncations = {agent: bool(aec.truncations[agent]) for agent in self.agents}
        observations = self._observations()
        infos = {}
        for agent in self.agents:
            info = {"action_mask": aec.legal_mask(agent)}
            illegal = aec.infos[agent].get("illegal_actions", 0) + replaced.get(agent, 0)
            if illegal:
                info["illegal_actions"] = illegal
            infos[agent] = info
        for agent, count in replaced.items():
            aec.infos[agent]["illegal_actions"] = aec.infos[agent].get("illegal_actions", 0) + count
        self.agents = [agent for agent in self.agents if not (terminations[agent] or truncations[agent])]
        return observations, rewards, terminations, truncations, infos

    def render(self) -> Any:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    def state(self) -> np.ndarray:
        """The whole board: the grid of `pacman.envs.CHANNELS`."""
        return grid_observation(self.aec.state_now)

    def _observations(self) -> dict[str, Any]:
        out = {}
        for agent in self.agents:
            grid, mask = self.aec._observe(agent, True)
            out[agent] = grid if self.aec.observation_kind == "box" else {"observation": grid, "action_mask": mask}
        return out


def parallel_env(**kwargs: Any) -> PacmanParallelEnv:
    """PettingZoo's conventional constructor of the parallel form: ``PacmanParallelEnv(**kwargs)``."""
    return PacmanParallelEnv(**kwargs)
