"""Simple Pacman agents that need no search: a random mover and a greedy food-seeker."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from pacman.actions import Action
from pacman.distances import breadth_first, maze_graph
from pacman.layout import Layout
from pacman.state import GameState

__all__ = ["PacmanAgent", "RandomAgent", "GreedyAgent"]


@runtime_checkable
class PacmanAgent(Protocol):
    """What the game asks of a Pacman agent: an action for a state.

    An agent may also define ``reset(rng, ghost_agents)``; the game calls it before
    each game with the agent's own random stream and the ghosts in play.
    """

    def get_action(self, state: GameState) -> Action: ...


class RandomAgent:
    """Picks uniformly among the legal actions (Stop included)."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, rng: np.random.Generator, ghost_agents: tuple = ()) -> None:
        """Use the game's stream for this agent, so that a game's seed replays it."""
        self.rng = rng

    def get_action(self, state: GameState) -> Action:
        legal = state.legal_actions(0)
        return legal[int(self.rng.integers(len(legal)))]

    def __repr__(self) -> str:
        return "RandomAgent()"


class GreedyAgent:
    """Looks one move ahead: safety first, then the best immediate score, then the nearest food.

    A move is unsafe if it loses at once or ends next to a ghost that is not
    scared (the ghost could step onto Pacman). Among equally safe moves it takes
    the best score, then the shortest maze path to food, and Stop only when no
    move is better. Ties break by action order.
    """

    def get_action(self, state: GameState) -> Action:
        layout = state.layout
        best: tuple | None = None
        chosen = Action.STOP
        for action, next_state in zip(state.legal_actions(0), state.successors(0)):
            if next_state.is_lose():
                rank: tuple = (0, 0, next_state.score, 0, 0)
            else:
                distance = _distance_to_food(next_state, layout)
                safe = not _ghost_within_one(next_state)
                rank = (1, safe, next_state.score, -distance, action is not Action.STOP)
            if best is None or rank > best:
                best, chosen = rank, action
        return chosen

    def __repr__(self) -> str:
        return "GreedyAgent()"


def _ghost_within_one(state: GameState) -> bool:
    """True if a ghost that is not scared stands within one step of Pacman."""
    px, py = state.pacman_position
    return any(
        timer == 0 and abs(x - px) + abs(y - py) <= 1
        for (x, y), timer in zip(state.ghost_positions, state.scared_timers)
    )


def _distance_to_food(state: GameState, layout: Layout) -> int:
    """Maze distance from Pacman to the nearest food (0 if none is left or reachable)."""
    food = state.food_mask
    if not food:
        return 0
    x, y = state.pacman_position
    graph = layout.derived("maze_graph", maze_graph)
    distances = breadth_first(graph, x * layout.height + y)  # in order of distance: the first food is nearest
    return next((d for cell, d in distances.items() if food >> cell & 1), 0)
