"""The exact values of small games inside a maze: one dot, or two, against one random ghost.

For a dot d, ``single(d)[p, g]`` is the probability that Pacman, playing as
well as he can, eats d before a random ghost catches him, with Pacman on open
cell p and the ghost at g (``cell * 5 + direction``, its last direction in the
rules' order North, South, East, West, or 4 for none). For two dots d and e,
``pair(d, e)[p, g]`` is the probability that he eats both. Each is a game of
the classic rules with that one ghost and those dots alone (no capsule),
solved by value iteration over every (p, g) of the maze; a pair's game goes on
as the other dot's one-dot game once one is eaten.

So on a maze with one ghost, no capsule and one or two dots, these are the
exact win probabilities of the game itself (the tests check them against the
solver, `pacman.research.regret.optimal_values`). To win a game with more dots
Pacman must eat every pair of them, so with one ghost the least pair value
over the dots left is never below his win probability: a bound that
docs/search-strength.md ("The exact value of one-dot games") measured as an
evaluation term.

The tables are built with numpy, once per maze (`dot_games`, kept on the
layout): ``(n, 5 n)`` floats per dot and per pair, n the maze's open cells,
only for a small maze (`pacman.agents.small_mazes`: Pacman's region under 64
cells) whose tables take at most MAX_TABLE_BYTES.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from pacman.agents.small_mazes import is_small_maze
from pacman.layout import Layout
from pacman.state import GHOSTS, GameState

#: The rules' direction order (North, South, East, West); a move's reverse is its index ^ 1.
_STEPS = ((0, 1), (0, -1), (1, 0), (-1, 0))
#: A ghost that has not moved yet has no last direction.
NO_DIRECTION = 4
#: The most dots the games are built for (the core's kernel reads at most 64), and the most bytes their tables
#: may take (pairs grow as the square of the dots: 14 dots on 63 open cells take 16 MiB).
MAX_DOTS = 64
MAX_TABLE_BYTES = 16 * 2**20
#: Value iteration stops once no value moves by more than this.
TOLERANCE = 1e-13
#: ... or after this many sweeps, which no maze of the solver's size comes near: a game whose values still move
#: then is refused rather than answered with values that are not yet its own.
MAX_SWEEPS = 1_000_000


class DotGames:
    """The one-dot and two-dot games of a layout's dots (only the one-dot games with ``pairs=False``), against
    one random ghost."""

    def __init__(self, layout: Layout, pairs: bool = True) -> None:
        cells = [(x, y) for x in range(layout.width) for y in range(layout.height) if not layout.is_wall(x, y)]
        self.layout = layout
        self.index = {cell: i for i, cell in enumerate(cells)}
        n = len(cells)
        self.cells = n
        self.dots = sorted(layout.food)
        self._bits = {(x, y): x * layout.height + y for (x, y) in self.dots}
        neighbours = [[(d, self.index[(x + dx, y + dy)]) for d, (dx, dy) in enumerate(_STEPS)
                       if (x + dx, y + dy) in self.index] for (x, y) in cells]
        # The ghost's moves from each key: no Stop, no reversing unless it must; uniform (RandomGhost).
        width = 4
        successors = np.zeros((n * 5, width), dtype=np.int64)
        chances = np.zeros((n * 5, width))
        for c in range(n):
            for d in range(5):
                options = [(d2, c2) for d2, c2 in neighbours[c] if d == NO_DIRECTION or d2 != d ^ 1]
                options = options or neighbours[c]
                key = c * 5 + d
                for j, (d2, c2) in enumerate(options):
                    successors[key, j] = c2 * 5 + d2
                    chances[key, j] = 1.0 / len(options)
        self._successors, self._chances = successors, chances
        # Pacman's moves from each cell, Stop first, padded with Stop.
        moves = np.zeros((n, 5), dtype=np.int64)
        for p in range(n):
            targets = [p] + [c for _, c in neighbours[p]]
            moves[p] = targets + [p] * (5 - len(targets))
        self._moves = moves
        self._meets = (np.arange(n * 5) // 5)[None, :] == np.arange(n)[:, None]  # the ghost on Pacman's cell
        single = {dot: self._solve({dot: None}) for dot in self.dots}
        solved = [single[dot] for dot in self.dots]
        if pairs:
            solved += [self._solve({d: single[e], e: single[d]}) for d, e in combinations(self.dots, 2)]
        # One table [Pacman's cell, ghost column, game], the games the dots, then the pairs (j, k), j < k, in that
        # order: a position's games side by side, for the lookups here and in the core (`core_form`), which reads
        # these very bytes.
        self._bytes = np.ascontiguousarray(np.moveaxis(np.stack(solved), 0, -1), dtype=np.float64).tobytes()
        del single, solved
        self._values = np.frombuffer(self._bytes, dtype=np.float64).reshape(n, n * 5, -1)
        count = len(self.dots)
        self._single = {dot: self._values[:, :, j] for j, dot in enumerate(self.dots)}
        self._pair: dict[tuple[tuple[int, int], tuple[int, int]], np.ndarray] = {
            pair: self._values[:, :, count + t] for t, pair in enumerate(combinations(self.dots, 2))} if pairs else {}
        #: each pair of dot numbers' game: [j, k] for j < k
        self._pair_game = np.zeros((count, count), dtype=np.int64)
        for t, (j, k) in enumerate(combinations(range(count), 2)):
            self._pair_game[j, k] = count + t

    def chance(self, state: GameState) -> float:
        """The least, over the pairs of dots left (the dot, when one is left), of the product over the hunting
        ghosts (not scared) of their game's value: with one ghost, never below Pacman's win probability."""
        food = state.food_mask
        left = np.array([j for j, dot in enumerate(self.dots) if food >> self._bits[dot] & 1], dtype=np.int64)
        if self._pair and len(left) > 1:
            first, second = np.triu_indices(len(left), 1)
            games = self._pair_game[left[first], left[second]]
        else:
            games = left
        here = self._values[self.index[state.pacman_position]]
        chances = np.ones(len(games))
        for key, position, timer in zip(state[GHOSTS], state.ghost_positions, state.scared_timers):
            if not timer:  # each ghost in turn, as the core multiplies them
                chances = chances * here[self.key(position, key % 5)][games]
        return min(1.0, float(chances.min())) if len(games) else 1.0

    def core_form(self, weight: float) -> tuple:
        """What the compiled core's feature kernel reads (its `dots` argument): each cell's open-cell column and
        each cell's dot index (int32, -1 for none), the tables' bytes (float64, [Pacman's open cell][ghost
        column][game], the games the dots, then the pairs (j, k), j < k, in that order: the table `chance`
        reads, not a copy), the open cells, the dots, whether there are pairs, and the weight of the chance."""
        layout = self.layout
        cells = layout.width * layout.height
        columns = np.full(cells, -1, dtype=np.int32)
        for (x, y), i in self.index.items():
            columns[x * layout.height + y] = i
        numbers = np.full(cells, -1, dtype=np.int32)
        for j, dot in enumerate(self.dots):
            numbers[self._bits[dot]] = j
        return (columns.tobytes(), numbers.tobytes(), self._bytes, self.cells, len(self.dots),
                bool(self._pair), float(weight))

    def single(self, dot: tuple[int, int]) -> np.ndarray:
        """``[p, g]``: the probability of eating `dot` before the ghost catches Pacman."""
        return self._single[dot]

    def pair(self, d: tuple[int, int], e: tuple[int, int]) -> np.ndarray:
        """``[p, g]``: the probability of eating both dots before the ghost catches Pacman."""
        return self._pair[(d, e) if (d, e) in self._pair else (e, d)]

    def key(self, position: tuple[float, float], direction: int) -> int:
        """The column of a ghost on the cell `position` facing `direction` (0-3, or NO_DIRECTION)."""
        return self.index[(int(position[0]), int(position[1]))] * 5 + direction

    def _ghost_moves(self, values: np.ndarray) -> np.ndarray:
        """``[p, g]``: the value, Pacman on p, of the ghost's move from g; 0 where it lands on Pacman."""
        landed = np.where(self._meets, 0.0, values)
        return (landed[:, self._successors] * self._chances).sum(axis=2)

    def _solve(self, eaten: dict[tuple[int, int], np.ndarray | None]) -> np.ndarray:
        """Value iteration of the game whose dots are the keys of `eaten`. Eating dot d ends the game with a win
        if ``eaten[d]`` is None (the last dot: a win even onto the ghost, as the rules say); otherwise the game
        goes on as ``eaten[d]``'s game, the ghost to move, and Pacman loses if he stepped onto the ghost."""
        fixed = {}
        for dot, rest in eaten.items():
            p = self.index[dot]
            if rest is None:
                fixed[p] = np.ones(self.cells * 5)
            else:
                fixed[p] = np.where(self._meets[p], 0.0, self._ghost_moves(rest)[p])
        values = np.zeros((self.cells, self.cells * 5))
        for _ in range(MAX_SWEEPS):
            after = np.where(self._meets, 0.0, self._ghost_moves(values))  # Pacman stepped onto the ghost: lost
            for p, row in fixed.items():
                after[p] = row
            new = after[self._moves].max(axis=1)
            if np.max(np.abs(new - values)) <= TOLERANCE:
                return new
            values = new
        raise ValueError(f"{self.layout.name}: the dot games' values still move after {MAX_SWEEPS:,} sweeps")


def dot_games(layout: Layout) -> DotGames | None:
    """The dot games of `layout`, built on first use and kept on the layout; None for a maze that is not small
    (`pacman.agents.small_mazes.is_small_maze`), with more than MAX_DOTS dots or none, or whose tables would take
    more than MAX_TABLE_BYTES."""
    games = layout.derived("dot_games", _build)
    return games if games is not False else None


def _build(layout: Layout) -> DotGames | bool:
    if not is_small_maze(layout) or not 1 <= len(layout.food) <= MAX_DOTS:
        return False
    if table_bytes(layout) > MAX_TABLE_BYTES:
        return False
    return DotGames(layout)


def _open_cells(layout: Layout) -> int:
    return sum(not layout.is_wall(x, y) for x in range(layout.width) for y in range(layout.height))


def table_bytes(layout: Layout) -> int:
    """The bytes the dot games of `layout` take: a table of (open cells) x (5 x open cells) floats per dot and per
    pair of dots."""
    cells, dots = _open_cells(layout), len(layout.food)
    return (dots + dots * (dots - 1) // 2) * cells * cells * 5 * 8
