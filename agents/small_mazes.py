"""What makes a maze small: one line that `scaled`'s weights, the default agent's deeper search and `dots`' games
all go by.

A maze is small when Pacman's region (the cells he can ever reach) has fewer than SMALL_MAZE_CELLS cells. There
`scaled` shrinks `safe`'s danger terms (`pacman.agents.evaluation`), ``depth="auto"`` deepens under a node budget
(`pacman.agents.expectimax`), and `dots` has its games (`pacman.agents.dot_games`).
"""

from __future__ import annotations

from pacman.layout import Layout

__all__ = ["SMALL_MAZE_CELLS", "region_cells", "is_small_maze"]

#: A maze is small when Pacman's region has fewer cells than this (`small` has 64: it is not).
SMALL_MAZE_CELLS = 64


def region_cells(layout: Layout) -> int:
    """The number of cells of Pacman's region (the cells he can ever reach)."""
    region = layout.region(layout.pacman_start)
    return sum(1 for x in range(layout.width) for y in range(layout.height) if layout.region((x, y)) == region)


def is_small_maze(layout: Layout) -> bool:
    """Whether Pacman's region on `layout` has fewer than SMALL_MAZE_CELLS cells (counted once per layout)."""
    return layout.derived("region_cells", region_cells) < SMALL_MAZE_CELLS
