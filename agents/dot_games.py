"""The exact values of small games inside a maze: some of its dots against its ghosts, each moving as it does.

For a set of dots D, ``game(D)[p, g]`` is the probability that Pacman, playing as well as he can, eats every dot
of D before a ghost catches him, with Pacman on open cell p and the ghost at g (``cell * 5 + direction``, its
last direction in the rules' order North, South, East, West, or 4 for none). Each is a game of the classic
rules with that one ghost and those dots alone (no capsule), solved by value iteration over every (p, g) of the
maze; once a dot is eaten the game goes on as the game of the dots left.

The ghost moves by its rule (`pacman.agents.ghosts.cell_rule`): a random ghost uniformly, a directional one
toward Pacman, each asked of the ghost's own `distribution`. A ghost whose moves read more than Pacman's cell
and its own (the arcade's ambusher and flanker read his heading), or whose class declares no rule, is played as
a random ghost. Ghosts of different rules read different sets of tables (`sets`).

Which sets of dots:

- **Every set** (`whole`), where the maze has at most MAX_WHOLE_DOTS dots and the tables fit
  (`whole_games_fit`). Then, with one ghost and no capsule, the game of the dots left is the exact win
  probability of the game itself.
- **Each dot and each pair of dots** elsewhere. To win Pacman must eat every pair, so with one ghost the least
  pair value over the dots left is never below his win probability: a bound.

The tests check both against the solver (`tests/test_dot_games.py`, `tests/test_dot_games_kinds.py`).
docs/search-strength.md ("The exact value of one-dot games") measured them as an evaluation term.

The tables are built with numpy, once per maze and rules (`dot_games`, kept on the layout): ``(n, 5 n)`` floats
per game and rule, n the maze's open cells, only for a small maze (`pacman.agents.small_mazes`: Pacman's
region under 64 cells) whose tables take at most MAX_TABLE_BYTES.

With two ghosts the product of their one-ghost games is only an estimate: on a maze of two dots it may say 1.0
where Pacman wins half his games. So on a maze with exactly two ghosts whose games against both cost at most
MAX_TWO_GHOST_COST to solve, the same games are solved again against the two ghosts together,
``two(d)[p, g1, g2]`` and ``two_pair(d, e)[p, g1, g2]``: ghost 1 moves, then ghost 2, each by its rule, and
Pacman loses when either lands on him. With both ghosts hunting, `chance` reads these, exact or a bound in the
same way.
"""

from __future__ import annotations

from itertools import combinations
from typing import Sequence

import numpy as np

from pacman.actions import DIRECTIONS
from pacman.agents.ghosts import rule_ghost
from pacman.agents.small_mazes import is_small_maze
from pacman.layout import Layout
from pacman.state import GHOSTS, GameState, _position

#: The rules' direction order (North, South, East, West); a move's reverse is its index ^ 1.
_STEPS = ((0, 1), (0, -1), (1, 0), (-1, 0))
#: A ghost that has not moved yet has no last direction.
NO_DIRECTION = 4
#: A direction's number in that order.
_DIRECTION_OF = {action: i for i, action in enumerate(DIRECTIONS)}
#: The rule of a random ghost's moves (`pacman.agents.ghosts.cell_rule`): the games' default.
RANDOM_RULE = ("random",)
#: The most dots the games are built for (the core's kernel reads at most 64), and the most bytes their tables
#: may take (pairs grow as the square of the dots: 14 dots on 63 open cells take 16 MiB).
MAX_DOTS = 64
MAX_TABLE_BYTES = 16 * 2**20
#: The most dots whose every set is a game of its own (`whole_games_fit`): 2^6 - 1 = 63 games, where the pairs
#: would be 21.
MAX_WHOLE_DOTS = 6
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
    """The dot games of a layout: every set of its dots (``whole``; unless it says, where `whole_games_fit`), else
    each dot and each pair (only each dot with ``pairs=False``); against ghosts moving by `rules` (each ghost's
    `pacman.agents.ghosts.cell_rule`; None: random ghosts), and against both ghosts together where the layout
    has two (``two_ghosts``; unless it says, only when those games cost at most MAX_TWO_GHOST_COST)."""

    def __init__(self, layout: Layout, pairs: bool = True, two_ghosts: bool | None = None,
                 rules: Sequence[tuple] | None = None, whole: bool | None = None) -> None:
        cells = [(x, y) for x in range(layout.width) for y in range(layout.height) if not layout.is_wall(x, y)]
        self.layout = layout
        self.index = {cell: i for i, cell in enumerate(cells)}
        n = len(cells)
        self.cells = n
        self.dots = sorted(layout.food)
        self._bits = {(x, y): x * layout.height + y for (x, y) in self.dots}
        self._neighbours = [[(d, self.index[(x + dx, y + dy)]) for d, (dx, dy) in enumerate(_STEPS)
                             if (x + dx, y + dy) in self.index] for (x, y) in cells]
        #: each ghost's rule (`pacman.agents.ghosts.cell_rule`), or None: every ghost a random one
        self.rules = None if rules is None or all(rule == RANDOM_RULE for rule in rules) else tuple(rules)
        #: the rules solved against, one set of tables each: the first ghost's first
        self.sets = tuple(dict.fromkeys(self.rules)) if self.rules is not None else (RANDOM_RULE,)
        self._set_of = tuple(self.sets.index(rule) for rule in self.rules) if self.rules is not None else None
        self._ghost = [self._move_rule(rule) for rule in self.sets]  # each set's (successors, chances)
        # Pacman's moves from each cell, Stop first, padded with Stop.
        moves = np.zeros((n, 5), dtype=np.int64)
        for p in range(n):
            targets = [p] + [c for _, c in self._neighbours[p]]
            moves[p] = targets + [p] * (5 - len(targets))
        self._moves = moves
        self._meets = (np.arange(n * 5) // 5)[None, :] == np.arange(n)[:, None]  # the ghost on Pacman's cell
        count = len(self.dots)
        if whole is None:
            whole = pairs and whole_games_fit(layout, len(self.sets))
        #: whether the games are every set of dots (`whole_games_fit`): then the game of the dots left is the game
        self.whole = whole
        self._pairs = pairs or whole
        #: each game's dots, as a mask of dot numbers: the dots, then the pairs (j, k), j < k; or every set of dots,
        #: the game of mask m the (m - 1)-th
        self._masks = (list(range(1, 1 << count)) if whole else [1 << j for j in range(count)] + (
            [1 << j | 1 << k for j, k in combinations(range(count), 2)] if pairs else []))
        self._game_of = {mask: t for t, mask in enumerate(self._masks)}
        solved = []
        for rule in range(len(self.sets)):
            games: list[np.ndarray] = []
            for mask in self._masks:
                games.append(self._solve({self.dots[j]: None if mask == 1 << j else games[self._game_of[mask ^ 1 << j]]
                                          for j in range(count) if mask >> j & 1}, rule))
            solved += games
        # One table [set, Pacman's cell, ghost column, game], the games in `_masks`' order: a position's games side
        # by side, for the lookups here and in the core (`core_form`), which reads these very bytes.
        stacked = np.stack(solved).reshape(len(self.sets), len(self._masks), n, n * 5)
        self._bytes = np.ascontiguousarray(np.moveaxis(stacked, 1, -1), dtype=np.float64).tobytes()
        del solved, stacked
        self._values = np.frombuffer(self._bytes, dtype=np.float64).reshape(len(self.sets), n, n * 5, -1)
        #: each pair of dot numbers' game: [j, k] for j < k
        self._pair_game = np.zeros((count, count), dtype=np.int64)
        if self._pairs:
            for j, k in combinations(range(count), 2):
                self._pair_game[j, k] = self._game_of[1 << j | 1 << k]
        if two_ghosts is None:
            two_ghosts = layout.num_ghosts == 2 and two_ghost_cost(layout, pairs, whole) <= MAX_TWO_GHOST_COST
        elif two_ghosts and layout.num_ghosts != 2:
            raise ValueError(f"{layout.name}: games against two ghosts together need a maze of two ghosts, "
                             f"not {layout.num_ghosts}")
        if two_ghosts and self.rules is not None and len(self.rules) != 2:
            raise ValueError(f"{layout.name}: games against two ghosts together need the rules of two ghosts, "
                             f"not {len(self.rules)}")
        #: the games against both ghosts: one table [Pacman's cell, ghost 1's column, ghost 2's column, game], the
        #: games in the same order; empty bytes where there are none
        self._two_bytes = self._two_ghost_games() if two_ghosts else b""
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
        """The product over the hunting ghosts (not scared) of their game of the dots left (`whole`), else the
        least such product over the pairs of dots left (the dot, when one is left): with one ghost, Pacman's win
        probability (`whole`) or never below it. Where the games against two ghosts together were solved and both
        hunt, those games' value instead, exact or never below the win probability in the same way."""
        food = state.food_mask
        left = np.array([j for j, dot in enumerate(self.dots) if food >> self._bits[dot] & 1], dtype=np.int64)
        if self.whole:  # the game of the dots left
            games = np.array([self._game_of[sum(1 << int(j) for j in left)]] if len(left) else [], dtype=np.int64)
        elif self._pairs and len(left) > 1:
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
        here = self._values[:, self.index[state.pacman_position]]
        chances = np.ones(len(games))
        for ghost, (key, position, timer) in enumerate(zip(state[GHOSTS], state.ghost_positions,
                                                           state.scared_timers)):
            if not timer:  # each ghost in turn, as the core multiplies them
                chances = chances * here[self._set(ghost), self.key(position, key % 5)][games]
        return min(1.0, float(chances.min()))

    def core_form(self, weight: float, chance_weight: float, behind: float) -> tuple:
        """What the compiled core's feature kernel reads (its `dots` argument), in order: each cell's open-cell
        column and each cell's dot index (int32, -1 for none); the tables' bytes (float64, [set][Pacman's open
        cell][ghost column][game], the games in `_masks`' order: the table `chance` reads, not a copy); the open
        cells; the dots; which games (0 each dot, 1 each dot then each pair, 2 every set of dots: `whole`); the
        games against two ghosts together (float64, [Pacman's open cell][ghost 1's column][ghost 2's
        column][game], the same games; empty bytes where there are none); each ghost's set (int32; empty bytes
        where every ghost is a random one, of the one set); and how `dots` prices the chance
        (`pacman.agents.evaluation.dots_prices`): the weight of a won game, the chance's weight in a live
        position, and what a live position has taken off."""
        layout = self.layout
        cells = layout.width * layout.height
        columns = np.full(cells, -1, dtype=np.int32)
        for (x, y), i in self.index.items():
            columns[x * layout.height + y] = i
        numbers = np.full(cells, -1, dtype=np.int32)
        for j, dot in enumerate(self.dots):
            numbers[self._bits[dot]] = j
        sets = np.array(self._set_of or (), dtype=np.int32)
        mode = 2 if self.whole else int(self._pairs)
        return (columns.tobytes(), numbers.tobytes(), self._bytes, self.cells, len(self.dots), mode,
                self._two_bytes, sets.tobytes(), float(weight), float(chance_weight), float(behind))

    def single(self, dot: tuple[int, int], ghost: int = 1) -> np.ndarray:
        """``[p, g]``: the probability of eating `dot` before ghost `ghost` (moving by its rule) catches Pacman."""
        return self._values[self._set(ghost - 1), :, :, self._game_of[1 << self.dots.index(dot)]]

    def pair(self, d: tuple[int, int], e: tuple[int, int], ghost: int = 1) -> np.ndarray:
        """``[p, g]``: the probability of eating both dots before ghost `ghost` catches Pacman."""
        if not self._pairs:
            raise ValueError(f"{self.layout.name}: the pairs' games were not solved")
        j, k = sorted((self.dots.index(d), self.dots.index(e)))
        return self._values[self._set(ghost - 1), :, :, self._pair_game[j, k]]

    def two(self, dot: tuple[int, int]) -> np.ndarray:
        """``[p, g1, g2]``: the probability of eating `dot` before either ghost catches Pacman."""
        if self._two is None:
            raise ValueError(f"{self.layout.name}: the games against two ghosts together were not solved")
        return self._two[:, :, :, self._game_of[1 << self.dots.index(dot)]]

    def two_pair(self, d: tuple[int, int], e: tuple[int, int]) -> np.ndarray:
        """``[p, g1, g2]``: the probability of eating both dots before either ghost catches Pacman."""
        if self._two is None or not self._pairs:
            raise ValueError(f"{self.layout.name}: the pairs' games against two ghosts together were not solved")
        j, k = sorted((self.dots.index(d), self.dots.index(e)))
        return self._two[:, :, :, self._pair_game[j, k]]

    def key(self, position: tuple[float, float], direction: int) -> int:
        """The column of a ghost on the cell `position` facing `direction` (0-3, or NO_DIRECTION)."""
        return self.index[(int(position[0]), int(position[1]))] * 5 + direction

    def _set(self, ghost: int) -> int:
        """The set of tables ghost number `ghost` (0 for the first) reads: the games against its rule."""
        if self._set_of is None:
            return 0
        if not 0 <= ghost < len(self._set_of):
            raise ValueError(f"{self.layout.name}: the dot games were solved for {len(self._set_of)} ghosts, "
                             f"not for ghost {ghost + 1}")
        return self._set_of[ghost]

    def _move_rule(self, rule: tuple) -> tuple[np.ndarray, np.ndarray]:
        """A hunting ghost's moves by `rule` (a `pacman.agents.ghosts.cell_rule`): (successors, chances), each
        ``[g, 4]`` for a random ghost, whose moves do not depend on Pacman, else ``[p, g, 4]``, Pacman on p;
        the moves padded with chance 0."""
        n = self.cells
        if rule == RANDOM_RULE:  # uniform over the legal moves: no Stop, no reversing unless it must (RandomGhost)
            successors = np.zeros((n * 5, 4), dtype=np.int64)
            chances = np.zeros((n * 5, 4))
            for c in range(n):
                for d in range(5):
                    options = self._options(c, d)
                    for j, (d2, c2) in enumerate(options):
                        successors[c * 5 + d, j] = c2 * 5 + d2
                        chances[c * 5 + d, j] = 1.0 / len(options)
            return successors, chances
        return self._asked(rule)

    def _options(self, c: int, d: int) -> list[tuple[int, int]]:
        """A ghost's legal moves from open cell c with last direction d: (direction, cell), in the rules' order."""
        options = [(d2, c2) for d2, c2 in self._neighbours[c] if d == NO_DIRECTION or d2 != d ^ 1]
        return options or self._neighbours[c]

    def _asked(self, rule: tuple) -> tuple[np.ndarray, np.ndarray]:
        """`_move_rule` of a ghost whose moves read Pacman's cell: each one asked of the ghost itself
        (`pacman.agents.ghosts.rule_ghost`), its `distribution` in a state of Pacman and that ghost alone."""
        n, layout = self.cells, self.layout
        ghost = rule_ghost(rule)
        cells = list(self.index)
        double = [_position(layout, 2 * x, 2 * y) for x, y in cells]
        successors = np.zeros((n, n * 5, 4), dtype=np.int64)
        chances = np.zeros((n, n * 5, 4))
        for p in range(n):
            for c in range(n):
                for d in range(5):
                    state = GameState.from_position_key(layout, (double[p], 0, 0, (double[c] * 5 + d,), (0,), 0, 0))
                    steps = dict(self._options(c, d))
                    for j, (action, chance) in enumerate(ghost.distribution(state)):
                        direction = _DIRECTION_OF[action]
                        successors[p, c * 5 + d, j] = steps[direction] * 5 + direction
                        chances[p, c * 5 + d, j] = chance
        return successors, chances

    def _ghost_moves(self, values: np.ndarray, rule: int) -> np.ndarray:
        """``[p, g]``: the value, Pacman on p, of the move from g of a ghost of set `rule`; 0 where it lands on
        Pacman."""
        landed = np.where(self._meets, 0.0, values)
        successors, chances = self._ghost[rule]
        if successors.ndim == 2:
            return (landed[:, successors] * chances).sum(axis=2)
        return (landed[np.arange(self.cells)[:, None, None], successors] * chances).sum(axis=2)

    def _solve(self, eaten: dict[tuple[int, int], np.ndarray | None], rule: int = 0) -> np.ndarray:
        """Value iteration of the game whose dots are the keys of `eaten`, against a ghost of set `rule`. Eating dot
        d ends the game with a win if ``eaten[d]`` is None (the last dot: a win even onto the ghost, as the rules
        say); otherwise the game goes on as ``eaten[d]``'s game, the ghost to move, and Pacman loses if he stepped
        onto the ghost."""
        fixed = {}
        for dot, rest in eaten.items():
            p = self.index[dot]
            if rest is None:
                fixed[p] = np.ones(self.cells * 5)
            else:
                fixed[p] = np.where(self._meets[p], 0.0, self._ghost_moves(rest, rule)[p])
        return self._iterate(self._meets, lambda values: self._ghost_moves(values, rule), fixed,
                             "the dot games'")

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

    def _two_ghost_games(self) -> bytes:
        """The games against both ghosts, as bytes [p, g1, g2, game]: the games in `_masks`' order."""
        moves = [self._move_matrix(self._set(ghost)) for ghost in (0, 1)]
        games: list[np.ndarray] = []
        for mask in self._masks:
            games.append(self._solve_two(moves, {self.dots[j]: None if mask == 1 << j else games[self._game_of[mask ^ 1 << j]]
                                                 for j in range(len(self.dots)) if mask >> j & 1}))
        return np.ascontiguousarray(np.stack(games, axis=-1), dtype=np.float64).tobytes()

    def _move_matrix(self, rule: int) -> np.ndarray:
        """A ghost of set `rule`'s move as a matrix, key -> key, its chances: ``[g, g']``, or ``[p, g, g']`` where
        its moves read Pacman's cell p."""
        successors, chances = self._ghost[rule]
        g = self.cells * 5
        moves = np.zeros(successors.shape[:-1] + (g,))
        rows = np.broadcast_to(np.arange(successors.size // 4).reshape(successors.shape[:-1] + (1,)),
                               successors.shape)
        np.add.at(moves.reshape(-1, g), (rows.ravel(), successors.ravel()), chances.ravel())
        return moves

    def _both_ghosts_move(self, moves: list[np.ndarray], values: np.ndarray, cells: slice = slice(None)) -> np.ndarray:
        """``[p, g1, g2]``: the value, Pacman on p (each of `cells`; `values` holds those rows only), once ghost 1
        and then ghost 2 have moved by `moves` (each ghost's move matrix, `_move_matrix`); 0 where either lands
        on Pacman."""
        meets = self._meets[cells]
        first, second = (move if move.ndim == 2 else move[cells] for move in moves)
        after = first @ np.where(meets[:, :, None], 0.0, values)  # ghost 1, each p in turn
        landed = np.where(meets[:, None, :], 0.0, after)
        if second.ndim == 2:
            return (landed.reshape(-1, self.cells * 5) @ second.T).reshape(values.shape)  # ghost 2
        return landed @ second.transpose(0, 2, 1)

    def _solve_two(self, moves: list[np.ndarray], eaten: dict[tuple[int, int], np.ndarray | None]) -> np.ndarray:
        """`_solve` with both ghosts, each moving by its matrix of `moves`: eating dot d wins if ``eaten[d]`` is None
        and otherwise goes on as ``eaten[d]``'s game, both ghosts to move, lost if Pacman stepped onto either."""
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


def dot_games(layout: Layout, rules: Sequence[tuple] | None = None) -> DotGames | None:
    """The dot games of `layout` against ghosts moving by `rules` (each ghost's `pacman.agents.ghosts.cell_rule`;
    None: random ghosts), built on first use and kept on the layout; None for a maze that is not small
    (`pacman.agents.small_mazes.is_small_maze`), with more than MAX_DOTS dots or none, or whose tables would take
    more than MAX_TABLE_BYTES. Where the rules' tables would take more and a random ghost's would not, the
    games against random ghosts."""
    rules = None if rules is None or all(rule == RANDOM_RULE for rule in rules) else tuple(rules)
    if rules is not None and table_bytes(layout, len(set(rules))) > MAX_TABLE_BYTES:
        rules = None
    games = layout.derived("dot_games" if rules is None else f"dot_games {rules}", lambda _: _build(layout, rules))
    return games if games is not False else None


def _build(layout: Layout, rules: tuple[tuple, ...] | None) -> DotGames | bool:
    if not is_small_maze(layout) or not 1 <= len(layout.food) <= MAX_DOTS:
        return False
    if table_bytes(layout) > MAX_TABLE_BYTES:
        return False
    return DotGames(layout, rules=rules)


def _open_cells(layout: Layout) -> int:
    return sum(not layout.is_wall(x, y) for x in range(layout.width) for y in range(layout.height))


def table_bytes(layout: Layout, sets: int = 1, whole: bool = False) -> int:
    """The bytes the dot games of `layout` take: a table of (open cells) x (5 x open cells) floats per dot and per
    pair of dots (per set of dots with `whole`), for each of `sets` ghosts' rules."""
    cells, dots = _open_cells(layout), len(layout.food)
    return sets * _game_count(dots, whole=whole) * cells * cells * 5 * 8


def two_ghost_cost(layout: Layout, pairs: bool = True, whole: bool = False) -> int:
    """The multiply-adds of one sweep of the games of `layout` against two ghosts together: per game (each dot, and
    each pair of dots with `pairs`), two products of the (5 n)-square matrix of a ghost's moves with a table of
    n x (5 n)^2 values, n the maze's open cells."""
    cells, dots = _open_cells(layout), len(layout.food)
    return _game_count(dots, pairs, whole) * 2 * cells * (cells * 5) ** 3


def _game_count(dots: int, pairs: bool = True, whole: bool = False) -> int:
    """How many games: every set of the dots (`whole`), or each dot and, with `pairs`, each pair."""
    return (1 << dots) - 1 if whole else dots + (dots * (dots - 1) // 2 if pairs else 0)


def whole_games_fit(layout: Layout, sets: int = 1) -> bool:
    """Whether the games of every set of `layout`'s dots are built (`DotGames.whole`): at most MAX_WHOLE_DOTS dots,
    tables of at most MAX_TABLE_BYTES for `sets` ghosts' rules, and, on a maze of two ghosts whose pairs' games
    against both together cost at most MAX_TWO_GHOST_COST, whole games against both that cost no more."""
    dots = len(layout.food)
    if dots > MAX_WHOLE_DOTS or table_bytes(layout, sets, whole=True) > MAX_TABLE_BYTES:
        return False
    return not (layout.num_ghosts == 2 and two_ghost_cost(layout) <= MAX_TWO_GHOST_COST
                < two_ghost_cost(layout, whole=True))
