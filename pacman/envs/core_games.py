"""Games played in the compiled core for the environments: one ``_core.Games`` built for a layout and its ghost
models, shared by the single environment (one game) and the vector environment (many).

``_core.Games`` (agents/core/games.c) plays
rounds with the search core's rules and numpy's seeded streams written in C,
writes the grid observations, the action masks, rewards and end flags into the
caller's arrays, and hands states back as `GameState`s. This module is the one
place that builds it (through `pacman.agents.compiled.core_games`), and
`choose_engine` the one place the environments ask whether the core can play
their ghosts (`pacman.agents.compiled.core_obstacle`): a ghost kind without a
core form plays in Python, or is refused by name with ``engine="compiled"``.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from pacman.actions import ACTIONS
from pacman.agents.compiled import ENGINES, core_games, core_obstacle as _core_obstacle, core_state, requested_engine
from pacman.errors import PacmanError
from pacman.game import agent_streams
from pacman.state import GameState
from pacman.envs.observations import grid_shape

__all__ = ["CoreGames", "seed_words", "MAX_SEED_WORDS", "core_obstacle", "choose_engine"]

#: The most 32-bit words of a seed the core takes (a seed below 2**1024).
MAX_SEED_WORDS = 32


def core_obstacle(ghost_agents: Sequence[Any] = ()) -> str | None:
    """Why the environments cannot step games against `ghost_agents` in the compiled core here; None if they
    can (the agents' question, `pacman.agents.compiled.core_obstacle`, without an evaluation)."""
    return _core_obstacle(None, list(ghost_agents))


def choose_engine(engine: str, ghost_agents: Sequence[Any] = ()) -> str:
    """The engine an environment asked for `engine` plays games against `ghost_agents` with: "compiled" or
    "python".

    "auto" follows ``PACMAN_AI_ENGINE`` like the agents, then takes the core when it
    is here and plays these ghosts; "compiled" when it cannot is an error naming why.
    """
    if engine not in ENGINES:
        raise PacmanError(f"engine={engine!r}: expected one of {', '.join(ENGINES)}")
    wanted = engine if engine != "auto" else requested_engine()
    if wanted == "python":
        return "python"
    obstacle = core_obstacle(ghost_agents)
    if obstacle is None:
        return "compiled"
    if wanted == "compiled":
        raise PacmanError(f"engine='compiled', but the compiled core cannot run: {obstacle}")
    return "python"


def seed_words(seed: int) -> list[int]:
    """An int's 32-bit words, least significant first, as numpy's SeedSequence reads an int."""
    words = []
    while True:
        words.append(seed & 0xFFFFFFFF)
        seed >>= 32
        if not seed:
            return words


class CoreGames:
    """`games` games of one layout and ghost models in the compiled core, with the arrays it writes.

    ``observations`` is ``(games, C, H, W)`` uint8 when `grid` is true (else None),
    ``masks`` ``(games, 5)`` int8, ``rewards`` float64, ``terminated`` and
    ``truncated`` bool, one entry per game. `max_moves` (None: no limit) truncates
    as Gymnasium's TimeLimit does.
    """

    def __init__(self, start: GameState, ghost_agents: Sequence[Any], games: int, max_moves: int | None,
                 grid: bool = True) -> None:
        layout = start.layout
        self.start = start
        obstacle = core_obstacle(ghost_agents)
        if obstacle is not None:
            raise PacmanError(f"the compiled core cannot play these games: {obstacle}")
        self.observations = np.zeros((games, *grid_shape(layout)), dtype=np.uint8) if grid else None
        self.rewards = np.zeros(games, dtype=np.float64)
        self.terminated = np.zeros(games, dtype=np.bool_)
        self.truncated = np.zeros(games, dtype=np.bool_)
        self.masks = np.zeros((games, len(ACTIONS)), dtype=np.int8)
        self.games = core_games(start, ghost_agents, games, max_moves,
                                dict(observations=self.observations, rewards=self.rewards, terminated=self.terminated,
                                     truncated=self.truncated, masks=self.masks))
        """The core's ``Games``: ``reset(i, words)``, ``step(actions)``, ``play(i, action)``,
        ``game_state(i)``, ``progress(i)``."""

    def reset(self, i: int, seed: int | None = None) -> None:
        """Start game i: with `seed` (an int >= 0), that game, which also seeds game i's own seeder when the
        seed is below 2**1024; without, the next seed of its seeder."""
        if seed is None:
            self.games.reset(i)
            return
        if seed < 0:
            raise PacmanError(f"reset(seed=...): a seed is an int >= 0, got {seed}")
        words = seed_words(seed)
        if len(words) > MAX_SEED_WORDS:  # numpy takes any int: its streams, made in Python, carried into the core
            self.restore(i, self.start, agent_streams(seed, self.start.num_agents), 0, 0)
            return
        self.games.reset(i, words)

    def numpy_streams(self, i: int) -> list[np.random.Generator]:
        """Game i's streams, one per agent, as numpy generators in the same state (what the Python engine
        draws from; for copies and pickles)."""
        streams = []
        for high, low, inc_high, inc_low in self.games.streams(i):
            bits = np.random.PCG64()
            bits.state = {"bit_generator": "PCG64", "state": {"state": high << 64 | low, "inc": inc_high << 64 | inc_low},
                          "has_uint32": 0, "uinteger": 0}
            streams.append(np.random.Generator(bits))
        return streams

    def restore(self, i: int, state: GameState, streams: Sequence[np.random.Generator], moves: int,
                illegal: int) -> None:
        """Game i carries on from `state` with `streams` (numpy PCG64 generators, one per agent) after
        `moves` moves, `illegal` of them illegal."""
        words = []
        for stream in streams:
            saved = stream.bit_generator.state
            if saved["bit_generator"] != "PCG64" or saved["has_uint32"]:
                raise PacmanError("restore: the compiled core takes PCG64 streams with no half-used 64-bit word")
            value, inc = saved["state"]["state"], saved["state"]["inc"]
            words.append((value >> 64, value & (2**64 - 1), inc >> 64, inc & (2**64 - 1)))
        self.games.restore(i, core_state(state), words, moves, illegal)
