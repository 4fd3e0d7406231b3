"""The exact values of small games inside a maze: one dot, or two, against one random ghost (or two together).

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
solver, `research.regret.optimal_values`). To win a game with more dots
Pacman must eat every pair of them, so with one ghost the least pair value
over the dots left is never below his win probability: a bound that
docs/search-strength.md ("The exact value of one-dot games") measured as an
evaluation term.

The tables are built with numpy, once per maze (`dot_games`, kept on the
layout): ``(n, 5 n)`` floats per dot and per pair, n the maze's open cells,
only for a small maze (`pacman.agents.small_mazes`: Pacman's region under 64
cells) whose tables take at most MAX_TABLE_BYTES.

With two ghosts the product of their one-ghost games is only an estimate: on a
maze of two dots it may say 1.0 where Pacman wins half his games. So on a maze
with exactly two ghosts whose games against both cost at most
MAX_TWO_GHOST_COST to solve, the same games (each dot, each pair) are solved again
against the two ghosts together, ``two(d)[p, g1, g2]`` and
``two_pair(d, e)[p, g1, g2]``: ghost 1 moves, then ghost 2, as the rules move
them, and Pacman loses when either lands on him. With both ghosts hunting,
`chance` reads these, so on such a maze with one or two dots and no capsule it
is the exact win probability again, and with more dots it is never below it.
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
#: The most multiply-adds a sweep of the games against two ghosts together may take (`two_ghost_cost`): each sweep
#: moves both ghosts over a table of (open cells) x (5 x open cells)^2 floats a game, as two products by the
#: ghosts' (5 x open cells)-square matrix of moves. The cap keeps their build to about two seconds (a few hundred
#: sweeps) and takes in every two-ghost maze of the harness's sets (docs/search-strength.md, "The exact value of
#: one-dot games").
MAX_TWO_GHOST_COST = 100_000_000
#: Value iteration stops once no value moves by more than this.
TOLERANCE = 1e-13
#: ... or after this many sweeps, which no maze of the solver's size comes near: a game whose values still move
#: then is refused rather than answered with values that are not yet its own.
MAX_SWEEPS = 1_000_000


class DotGames:
    """The one-dot and two-dot games of a layout's dots (only the one-dot games with ``pairs=False``), against
    one random ghost, and against both ghosts together where the layout has two (``two_ghosts``; unless
    ``two_ghosts`` says, only when those games cost at most MAX_TWO_GHOST_COST)."""

    def __init__(self, layout: Layout, pairs: bool = True, two_ghosts: bool | None = None) -> None:
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
        if two_ghosts is None:
            two_ghosts = layout.num_ghosts == 2 and two_ghost_cost(layout, pairs) <= MAX_TWO_GHOST_COST
        elif two_ghosts and layout.num_ghosts != 2:
            raise ValueError(f"{layout.name}: games against two ghosts together need a maze of two ghosts, "
                             f"not {layout.num_ghosts}")
        #: the games against both ghosts: one table [Pacman's cell, ghost 1's column, ghost 2's column, game], the
        #: games in the same order; empty bytes where there are none
        self._two_bytes = self._two_ghost_games(pairs) if two_ghosts else b""
        self._two = (np.frombuffer(self._two_bytes, dtype=np.float64).reshape(n, n * 5, n * 5, -1)
                     if two_ghosts else None)

    @property
    def two_ghosts(self) -> bool:
        """Whether the games were also solved against the layout's two ghosts together."""
        return self._two is not None

    @property
    def joint(self) -> bool:
        """Whether the games are played against all of the maze's ghosts at once (one ghost, or two solved
        together), so that with every ghost hunting the chance is no product of separate games."""
        return self.layout.num_ghosts == 1 or self._two is not None

    def chance(self, state: GameState) -> float:
        """The least, over the pairs of dots left (the dot, when one is left), of the product over the hunting
        ghosts (not scared) of their game's value: with one ghost, never below Pacman's win probability. Where
        the games against two ghosts together were solved and both hunt, the least of those games' values
        instead: never below the win probability either."""
        food = state.food_mask
        left = np.array([j for j, dot in enumerate(self.dots) if food >> self._bits[dot] & 1], dtype=np.int64)
        if self._pair and len(left) > 1:
            first, second = np.triu_indices(len(left), 1)
            games = self._pair_game[left[first], left[second]]
        else:
            games = left
        if not len(games):
            return 1.0
        timers = state.scared_timers
        if self._two is not None and not timers[0] and not timers[1]:  # both hunting: their game together
            first, second = (self.key(position, key % 5) for key, position in zip(state[GHOSTS],
                                                                                  state.ghost_positions))
            return min(1.0, float(self._two[self.index[state.pacman_position], first, second][games].min()))
        here = self._values[self.index[state.pacman_position]]
        chances = np.ones(len(games))
        for key, position, timer in zip(state[GHOSTS], state.ghost_positions, state.scared_timers):
            if not timer:  # each ghost in turn, as the core multiplies them
                chances = chances * here[self.key(position, key % 5)][games]
        return min(1.0, float(chances.min()))

    def core_form(self, weight: float) -> tuple:
        """What the compiled core's feature kernel reads (its `dots` argument): each cell's open-cell column and
        each cell's dot index (int32, -1 for none), the tables' bytes (float64, [Pacman's open cell][ghost
        column][game], the games the dots, then the pairs (j, k), j < k, in that order: the table `chance`
        reads, not a copy), the open cells, the dots, whether there are pairs, the weight of the chance, and the
        games against two ghosts together (float64, [Pacman's open cell][ghost 1's column][ghost 2's
        column][game], the same games; empty bytes where there are none)."""
        layout = self.layout
        cells = layout.width * layout.height
        columns = np.full(cells, -1, dtype=np.int32)
        for (x, y), i in self.index.items():
            columns[x * layout.height + y] = i
        numbers = np.full(cells, -1, dtype=np.int32)
        for j, dot in enumerate(self.dots):
            numbers[self._bits[dot]] = j
        return (columns.tobytes(), numbers.tobytes(), self._bytes, self.cells, len(self.dots),
                bool(self._pair), float(weight), self._two_bytes)

    def single(self, dot: tuple[int, int]) -> np.ndarray:
        """``[p, g]``: the probability of eating `dot` before the ghost catches Pacman."""
        return self._single[dot]

    def pair(self, d: tuple[int, int], e: tuple[int, int]) -> np.ndarray:
        """``[p, g]``: the probability of eating both dots before the ghost catches Pacman."""
        return self._pair[(d, e) if (d, e) in self._pair else (e, d)]

    def two(self, dot: tuple[int, int]) -> np.ndarray:
        """``[p, g1, g2]``: the probability of eating `dot` before either ghost catches Pacman."""
        if self._two is None:
            raise ValueError(f"{self.layout.name}: the games against two ghosts together were not solved")
        return self._two[:, :, :, self.dots.index(dot)]

    def two_pair(self, d: tuple[int, int], e: tuple[int, int]) -> np.ndarray:
        """``[p, g1, g2]``: the probability of eating both dots before either ghost catches Pacman."""
        if self._two is None or not self._pair:
            raise ValueError(f"{self.layout.name}: the pairs' games against two ghosts together were not solved")
        j, k = sorted((self.dots.index(d), self.dots.index(e)))
        return self._two[:, :, :, self._pair_game[j, k]]

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
        return self._iterate(self._meets, self._ghost_moves, fixed, "the dot games'")

    def _iterate(self, caught: np.ndarray, ghosts_move, fixed: dict[int, np.ndarray], what: str) -> np.ndarray:
        """Value iteration from 0: each sweep the ghosts move (`ghosts_move`), Pacman has lost where he stepped
        onto a ghost (`caught`), the dots' cells take their `fixed` rows, and Pacman takes his best move; until no
        value moves by more than TOLERANCE, or a ValueError naming `what` after MAX_SWEEPS sweeps."""
        values = np.zeros(caught.shape)
        for _ in range(MAX_SWEEPS):
            after = np.where(caught, 0.0, ghosts_move(values))
            for p, row in fixed.items():
                after[p] = row
            new = after[self._moves].max(axis=1)
            if np.max(np.abs(new - values)) <= TOLERANCE:
                return new
            values = new
        raise ValueError(f"{self.layout.name}: {what} values still move after {MAX_SWEEPS:,} sweeps")

    def _two_ghost_games(self, pairs: bool) -> bytes:
        """The games against both ghosts, as bytes [p, g1, g2, game]: the dots, then the pairs (j, k), j < k."""
        n = self.cells
        moves = np.zeros((n * 5, n * 5))  # a ghost's move as a matrix: key -> key, its chances
        for key in range(n * 5):
            np.add.at(moves[key], self._successors[key], self._chances[key])
        single = [self._solve_two(moves, {self.dots[j]: None}) for j in range(len(self.dots))]
        solved = list(single)
        if pairs:
            solved += [self._solve_two(moves, {self.dots[j]: single[k], self.dots[k]: single[j]})
                       for j, k in combinations(range(len(self.dots)), 2)]
        return np.ascontiguousarray(np.stack(solved, axis=-1), dtype=np.float64).tobytes()

    def _both_ghosts_move(self, moves: np.ndarray, values: np.ndarray, cells: slice = slice(None)) -> np.ndarray:
        """``[p, g1, g2]``: the value, Pacman on p (each of `cells`; `values` holds those rows only), once ghost 1
        and then ghost 2 have moved by `moves`, the matrix of a ghost's move; 0 where either lands on Pacman."""
        meets = self._meets[cells]
        first = moves @ np.where(meets[:, :, None], 0.0, values)  # ghost 1, each p in turn
        landed = np.where(meets[:, None, :], 0.0, first)
        return (landed.reshape(-1, self.cells * 5) @ moves.T).reshape(values.shape)  # ghost 2

    def _solve_two(self, moves: np.ndarray, eaten: dict[tuple[int, int], np.ndarray | None]) -> np.ndarray:
        """`_solve` with both ghosts, each moving by `moves`: eating dot d wins if ``eaten[d]`` is None and
        otherwise goes on as ``eaten[d]``'s game, both ghosts to move, lost if Pacman stepped onto either."""
        g = self.cells * 5
        caught = self._meets[:, :, None] | self._meets[:, None, :]
        fixed = {}
        for dot, rest in eaten.items():
            p = self.index[dot]
            row = slice(p, p + 1)  # the ghosts' move from the dot's cell alone, not the whole table's
            fixed[p] = np.ones((g, g)) if rest is None else np.where(
                caught[p], 0.0, self._both_ghosts_move(moves, rest[row], row)[0])
        return self._iterate(caught, lambda values: self._both_ghosts_move(moves, values), fixed,
                             "the two-ghost games'")


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


def two_ghost_cost(layout: Layout, pairs: bool = True) -> int:
    """The multiply-adds of one sweep of the games of `layout` against two ghosts together: per game (each dot, and
    each pair of dots with `pairs`), two products of the (5 n)-square matrix of a ghost's moves with a table of
    n x (5 n)^2 values, n the maze's open cells."""
    cells, dots = _open_cells(layout), len(layout.food)
    return (dots + (dots * (dots - 1) // 2 if pairs else 0)) * 2 * cells * (cells * 5) ** 3
