"""Maze distances: shortest-path lengths between all cells, computed once per layout.

Cells are numbered ``x * height + y``, the bit numbering of the food and capsule
masks of `GameState`. The table is built by a breadth-first search from every
open cell into a numpy matrix, and kept on the layout, so every state, agent and
evaluation of a layout shares it and it goes away with the layout.

Its size is the square of the cell count, bounded by the layout limit
(`pacman.layout.MAX_CELLS`, 4096 cells): at most 4096 x 4096 int32, 64 MiB,
built in about 6 s for a maze with every cell open.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Sequence

import numpy as np

if TYPE_CHECKING:
    from pacman.layout import Layout

__all__ = ["DistanceTable", "UNREACHABLE", "maze_graph", "breadth_first"]

#: The distance between cells with no path between them (and to or from walls).
UNREACHABLE = 1_000_000
_NEAREST_CACHE = 50_000
# Up to this many cells (every shipped layout) `rows` are Python lists; beyond, views of the matrix.
_LIST_ROWS = 1024


def maze_graph(layout: Layout) -> list[list[int]]:
    """The maze as a graph: for each cell number, its open neighbours (North, South, East, West); [] for a wall."""
    h = layout.height
    graph: list[list[int]] = [[] for _ in range(layout.width * h)]
    for x in range(layout.width):
        for y in range(h):
            if not layout.is_wall(x, y):
                graph[x * h + y] = [(x + dx) * h + y + dy for dx, dy in ((0, 1), (0, -1), (1, 0), (-1, 0))
                                    if not layout.is_wall(x + dx, y + dy)]
    return graph


def breadth_first(graph: Sequence[Sequence[int]], source: int) -> dict[int, int]:
    """The maze distance from `source` to every cell it reaches, in order of distance (the project's one BFS).

    >>> from pacman import load_layout
    >>> layout = load_layout("test")
    >>> distances = breadth_first(maze_graph(layout), 1 * layout.height + 3)
    >>> distances[3 * layout.height + 1]
    4
    """
    seen = {source: 0}
    frontier = deque([source])
    while frontier:
        cell = frontier.popleft()
        d = seen[cell] + 1
        for nxt in graph[cell]:
            if nxt not in seen:
                seen[nxt] = d
                frontier.append(nxt)
    return seen


class DistanceTable:
    """All-pairs maze distances of one layout.

    >>> from pacman import load_layout
    >>> table = DistanceTable.of(load_layout("test"))
    >>> table.distance((1, 3), (3, 1))
    4
    """

    def __init__(self, layout: Layout) -> None:
        w, h = layout.width, layout.height
        n = w * h
        self.layout = layout
        self.height = h
        matrix = np.full((n, n), UNREACHABLE, dtype=np.int32)
        graph = maze_graph(layout)
        for source in range(n):
            if layout.is_wall(source // h, source % h):
                continue
            found = breadth_first(graph, source)
            cells = np.fromiter(found.keys(), dtype=np.int64, count=len(found))
            matrix[source][cells] = np.fromiter(found.values(), dtype=np.int32, count=len(found))
        matrix.flags.writeable = False
        reachable = matrix[matrix < UNREACHABLE]
        #: the longest shortest path between two connected cells
        self.diameter = int(reachable.max()) if reachable.size else 0
        #: distances as a read-only numpy matrix, indexed [cell, cell]
        self.matrix = matrix
        #: the rows for fast single look-ups: Python lists on small mazes (the fastest), read-only
        #: views of the matrix beyond _LIST_ROWS cells (no second copy of n x n numbers)
        self.rows: list[Sequence[int]] = matrix.tolist() if n <= _LIST_ROWS else [memoryview(r) for r in matrix]
        self._bits_len = (n + 7) // 8
        self._n = n
        # position -> cell, for every cell and every half-way position (x.5 rounds up)
        self._cells: dict[tuple[float, float], int] = {}
        for x in range(w):
            for y in range(h):
                self._cells[(x, y)] = x * h + y
                if x + 1 < w:
                    self._cells[(x + 0.5, y)] = (x + 1) * h + y
                if y + 1 < h:
                    self._cells[(x, y + 0.5)] = x * h + y + 1
        # (cell, food mask) -> nearest distance; bounded, cleared when full
        self._nearest: dict[tuple[int, int], int] = {}

    @classmethod
    def of(cls, layout: Layout) -> DistanceTable:
        """The table of `layout`, built on first use and kept on the layout."""
        return layout.derived("distances", cls)

    def cell(self, position: tuple[float, float]) -> int:
        """The cell number of a position; a half-way position counts as the cell it rounds up to."""
        cell = self._cells.get(position)
        if cell is None:
            x, y = position
            cell = int(x + 0.5) * self.height + int(y + 0.5)
        return cell

    def distance(self, a: tuple[float, float], b: tuple[float, float]) -> int:
        """Maze distance between two positions (UNREACHABLE if there is no path)."""
        return self.rows[self.cell(a)][self.cell(b)]

    def room(self, cell: int, rivals: list[int]) -> int:
        """How many cells are strictly nearer to `cell` than to every cell in `rivals` (by maze distance)."""
        matrix = self.matrix
        closest = matrix[rivals[0]] if len(rivals) == 1 else matrix[rivals].min(axis=0)
        return int(np.count_nonzero(matrix[cell] < closest))

    def clear_cache(self) -> None:
        """Forget the nearest-food distances found so far.

        They pay off within a game (the same food masks recur all through a
        search), hardly across games; a batch worker calls this between games so
        that its memory stays flat instead of filling the cache to its bound.
        """
        self._nearest.clear()

    def nearest(self, position: tuple[float, float], mask: int) -> int:
        """Maze distance from `position` to the nearest cell whose bit is set in `mask` (0 if none)."""
        if not mask:
            return 0
        key = (self.cell(position), mask)
        found = self._nearest.get(key)
        if found is None:
            bits = np.unpackbits(np.frombuffer(mask.to_bytes(self._bits_len, "little"), dtype=np.uint8),
                                 bitorder="little")[: self._n]
            found = int(self.matrix[key[0]][bits.view(bool)].min())
            if len(self._nearest) >= _NEAREST_CACHE:
                self._nearest.clear()
            self._nearest[key] = found
        return found
