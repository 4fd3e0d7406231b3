"""What an environment shows its agents: the grid of channels and the flat state vector, built from a `GameState`.

The grid is ``(C, H, W)`` uint8, one plane per channel (`CHANNELS`), row 0 at the
top of the maze (the layout's last text line is the bottom row), column x = the
cell's x. A scared ghost half-way between two cells is marked on the cell it is
heading to, as the terminal view draws it; several ghosts on one cell mark it once.
The compiled core writes the same planes for both environments (agents/core/games.c); tests check they agree cell for cell.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pacman.rules import SCARED_TIME
from pacman.state import GameState

if TYPE_CHECKING:
    from pacman.layout import Layout

__all__ = ["CHANNELS", "WALLS", "FOOD", "CAPSULES", "PACMAN", "GHOSTS", "SCARED_GHOSTS", "grid_shape",
           "grid_observation", "state_vector", "state_bounds", "state_fields"]

#: The grid's channels in order; the index of each is the constant of the same name.
CHANNELS: tuple[str, ...] = ("walls", "food", "capsules", "pacman", "ghosts", "scared_ghosts")
WALLS, FOOD, CAPSULES, PACMAN, GHOSTS, SCARED_GHOSTS = range(len(CHANNELS))


def grid_shape(layout: Layout) -> tuple[int, int, int]:
    """``(C, H, W)``: channels, the layout's height, its width."""
    return (len(CHANNELS), layout.height, layout.width)


def _template(layout: Layout) -> np.ndarray:
    """The grid with only the walls drawn: the part that never changes."""
    grid = np.zeros(grid_shape(layout), dtype=np.uint8)
    for x, y in layout.walls:
        if 0 <= x < layout.width and 0 <= y < layout.height:
            grid[WALLS, layout.height - 1 - y, x] = 1
    grid.flags.writeable = False
    return grid


def _mask_plane(mask: int, layout: Layout) -> np.ndarray:
    """A food or capsule bitmask (bit x * height + y) as an (H, W) uint8 plane, row 0 at the top."""
    w, h = layout.width, layout.height
    raw = np.frombuffer(mask.to_bytes((w * h + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, count=w * h, bitorder="little").reshape(w, h).T[::-1]


def grid_observation(state: GameState, out: np.ndarray | None = None) -> np.ndarray:
    """The ``(C, H, W)`` uint8 grid of `state` (into `out` when given, which is returned).

    >>> from pacman import load_layout
    >>> grid = grid_observation(GameState.initial(load_layout("test")))
    >>> grid.shape[0], int(grid[PACMAN].sum())
    (6, 1)
    """
    layout = state.layout
    h = layout.height
    if out is None:
        out = np.empty(grid_shape(layout), dtype=np.uint8)
    out[...] = layout.derived("env_grid_template", _template)
    food = state.food_mask
    if food:
        out[FOOD] = _mask_plane(food, layout)
    for x, y in state.capsules:
        out[CAPSULES, h - 1 - y, x] = 1
    for (x, y), direction, timer in zip(state.ghost_positions, state.ghost_directions, state.scared_timers):
        if x != int(x) or y != int(y):  # half-way (scared): the cell it is heading to
            dx, dy = direction.vector
            x, y = x + 0.5 * dx, y + 0.5 * dy
        out[SCARED_GHOSTS if timer else GHOSTS, h - 1 - int(y), int(x)] = 1
    x, y = state.pacman_position
    out[PACMAN, h - 1 - y, x] = 1
    return out


def state_fields(num_ghosts: int) -> tuple[str, ...]:
    """The names of `state_vector`'s entries, in order."""
    fields = ["pacman_x", "pacman_y"]
    for i in range(1, num_ghosts + 1):
        fields += [f"ghost_{i}_x", f"ghost_{i}_y", f"ghost_{i}_scared_timer"]
    return tuple(fields + ["food_left", "capsules_left"])


def state_bounds(layout: Layout, num_ghosts: int) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of `state_vector` on `layout` with `num_ghosts` ghosts, as float32 arrays."""
    high = [layout.width - 1, layout.height - 1]
    high += [layout.width - 1, layout.height - 1, SCARED_TIME] * num_ghosts
    high += [layout.food_count, len(layout.capsules)]
    return np.zeros(len(high), dtype=np.float32), np.array(high, dtype=np.float32)


def state_vector(state: GameState) -> np.ndarray:
    """Positions, timers and counts as a flat float32 vector (names: `state_fields`).

    Pacman's (x, y); each ghost's (x, y) (x.5 half-way) and scared timer; the food
    and capsules left.
    """
    values: list[float] = list(state.pacman_position)
    for (x, y), timer in zip(state.ghost_positions, state.scared_timers):
        values += [x, y, timer]
    values += [state.food_count, len(state.capsules)]
    return np.array(values, dtype=np.float32)
