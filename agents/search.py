"""Generic depth-limited expectiminimax over any game that describes its nodes.

A game (`SearchGame`) says, for a node, whose turn it is (`MAX`, `MIN`, `CHANCE`
or `TERMINAL`), its children (max and min nodes) or its outcomes with their
probabilities (chance nodes), the evaluation used at terminal and depth-limit
nodes, and how much depth an edge out of a node uses. Pacman (`PacmanGame`) and
explicit trees both implement it.

`Searcher` computes exact values. Its speed-ups never change a value or a move:

- a transposition table (``table_size`` entries at most; it is cleared, not
  grown, when full), for games whose nodes have keys;
- alpha-beta at max and min nodes, and Star1 pruning at chance nodes where the
  game declares bounds on every evaluation: fixed ones (``game.bounds``), or
  bounds for one search, from its root and depth (``game.search_bounds``);
  with ``prune_ties=False`` alpha-beta is the textbook one that graders count
  against (children in action order, a cut only on strict inequality);
- for expectimax (max and chance nodes), two more on top of Star1
  (``star2=True``, ``ordering=True``): Star2 (Ballard 1983; Hauk, Buro and
  Schaeffer 2004) probes a chance node's max children (one move each) for
  lower bounds, tests a max node's later moves with null windows (which give
  the chance nodes below them the finite windows probing needs), and prunes
  each chance node with its own bounds (``game.search_bounds`` at that node);
  move ordering visits the table's best move first at max nodes and searches
  the shallower depths first to find it;
- iterative deepening under a deadline (`iterative_search`), which returns the
  result of the deepest search that finished.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from typing import Any, Generic, Hashable, Protocol, Sequence, TypeVar

__all__ = [
    "MAX",
    "MIN",
    "CHANCE",
    "TERMINAL",
    "SearchGame",
    "SearchResult",
    "Searcher",
    "OutOfTime",
    "iterative_search",
    "star1_window",
]

MAX = "max"
MIN = "min"
CHANCE = "chance"
TERMINAL = "terminal"

Node = TypeVar("Node")
INF = math.inf
# Star1 cuts only when a bound clears the window by more than this, so that
# floating-point rounding in probability sums can never turn a cut into an error.
_SLACK = 1e-9
# The depth under which the table keeps a max node's best move (any depth: the move of the latest search).
_MOVE = -1
# Star2 tests a max node's later moves with null windows only with this many plies left or more; nearer the
# leaves a test and its re-search cost more nodes than they save, and Star1's window is used.
_NULL_DEPTH = 3


def star1_window(prune: bool, bounds: tuple[float, float] | None) -> tuple[bool, float, float]:
    """(Star1 on?, low, high) for a search with `prune` and evaluation `bounds`: on with pruning and
    finite bounds, which are then widened a hair (a chance average can round one step past a leaf
    bound); else off, with infinite bounds. The compiled search takes the same window from here."""
    if prune and bounds is not None and all(math.isfinite(b) for b in bounds):
        low, high = bounds
        return True, low - _SLACK * (1.0 + abs(low)), high + _SLACK * (1.0 + abs(high))
    return False, -INF, INF


class SearchGame(Protocol[Node]):
    """What the search needs to know about a game."""

    #: (low, high): every evaluation lies within; None if unknown. Enables Star1.
    bounds: tuple[float, float] | None

    # Optional, preferred to `bounds` when present:
    # def search_bounds(self, root: Node, depth: float) -> tuple[float, float] | None:
    #     """(low, high) holding every evaluation within `depth` of `root`; None if unknown."""

    def kind(self, node: Node) -> str:
        """MAX, MIN, CHANCE or TERMINAL."""

    def children(self, node: Node) -> Sequence[Node]:
        """The children of a max or min node, in action order."""

    def actions(self, node: Node) -> Sequence[Any]:
        """The labels of `children(node)`, in the same order."""

    def outcomes(self, node: Node) -> Sequence[tuple[float, Node]]:
        """(probability, child) pairs of a chance node; the probabilities sum to 1 (Star1 relies on it)."""

    def evaluate(self, node: Node) -> float:
        """The value of a terminal node, or the heuristic value where the depth runs out."""

    def cost(self, node: Node) -> int:
        """Depth used by an edge out of `node` (Pacman: 1 after the last agent of a ply, else 0)."""

    def key(self, node: Node) -> Hashable | None:
        """A transposition-table key for `node`, or None for a node not to be cached."""

    # Optional, with `key`:
    # table_offset: Callable[[Node], float] | None
    #     """The table keeps a value of `node` less `table_offset(node)`, and gives what it kept plus the offset of
    #     the node looked up: exact when every value of the subtree of `node` (to any depth) is that offset plus
    #     a function of `key(node)` (Pacman: the score, with a score-free key and an evaluation that is the
    #     score plus a function of the rest of the state). A value found this way may be an earlier search's,
    #     so a search that finds one is not `complete`."""


class OutOfTime(Exception):
    """Raised inside a search when its deadline passes."""


@dataclass
class SearchResult(Generic[Node]):
    """The outcome of one search from a root."""

    value: float
    """The root's value."""
    action: Any
    """The first best root action (max: highest, min: lowest), or None at a chance or terminal root."""
    depth: float
    """The depth searched (math.inf for a full search)."""
    nodes: int
    """Nodes visited."""
    seconds: float
    """Wall time of the search."""
    action_values: dict[Any, float] = field(default_factory=dict)
    """The exact value of each root action (max and min roots)."""
    complete: bool = False
    """True if no node was cut off by the depth limit: deeper search cannot change anything."""


class Searcher(Generic[Node]):
    """Expectiminimax with optional exact speed-ups. Never mutates a node.

    `prune` turns on alpha-beta at max and min nodes and Star1 at chance nodes
    (Star1 only when the game declares evaluation bounds, fixed or per search).
    `table_size` > 0 turns on the transposition table, for nodes whose `key` is
    not None. `prune_ties` (the default) also cuts when a value equals the bound,
    which saves nodes and changes no value; ``prune_ties=False`` cuts only on
    strict inequality (a max node stops when a child's value exceeds beta, a min
    node when one is below alpha), the rule an alpha-beta assignment's expanded
    states are counted by. Children are always visited in action order.
    """

    def __init__(self, game: SearchGame[Node], prune: bool = False, table_size: int = 0,
                 prune_ties: bool = True, star2: bool = False, ordering: bool = False) -> None:
        self.game = game
        self.prune = prune
        #: Star2 probing and null-window tests (with `prune`, at chance nodes where bounds are declared)
        self.star2 = star2 and prune
        #: the table's best move first at max nodes (with `prune` and a table)
        self.ordering = ordering and prune and table_size > 0
        self.prune_ties = prune_ties
        self.table_size = table_size
        self.table: dict[tuple[Hashable, float], float] | None = {} if table_size > 0 else None
        self.nodes = 0
        self.deadline: float | None = None
        #: a search that counts more nodes than this stops, as when its deadline passes (`iterative_search`)
        self.node_limit: int | float = INF
        self._cut = False
        self._fixed_bounds = getattr(game, "bounds", None)
        self._search_bounds = getattr(game, "search_bounds", None)
        #: the exact value of a node where nothing the chance layers do can matter (with Star2 or ordering)
        self._far_value = getattr(game, "far_value", None) if (self.star2 or self.ordering) else None
        #: with a table, the game's `table_offset` (None if it has none): see `Game.table_offset`
        self._offset = getattr(game, "table_offset", None) if table_size > 0 else None
        self._use_bounds(self._fixed_bounds)

    def _use_bounds(self, bounds: tuple[float, float] | None) -> None:
        """Turn Star1 on for `bounds` (with pruning and finite bounds), else off."""
        self._star1, self._low, self._high = star1_window(self.prune, bounds)

    def _start(self, root: Node, depth: float) -> None:
        """Before a search from `root`: the bounds of this search, when the game gives them per search."""
        if self.prune and self._search_bounds is not None:
            self._use_bounds(self._search_bounds(root, depth))

    @property
    def star1(self) -> bool:
        """True if the last search (or, before any, the game's fixed bounds) let Star1 prune."""
        return self._star1

    def clear(self) -> None:
        """Forget the transposition table."""
        if self.table is not None:
            self.table.clear()

    # -- entry points ----------------------------------------------------------------

    def value(self, node: Node, depth: float = INF) -> float:
        """The exact expectiminimax value of `node` searched to `depth`."""
        self._start(node, depth)
        return self._value(node, depth, -INF, INF)

    def search(self, node: Node, depth: float = INF, all_values: bool = True, prefer: Any = None) -> SearchResult:
        """Search from `node`: its value, best action and (with `all_values`) every action's exact value.

        Without `all_values`, root children after the first are searched with a
        window (when pruning), so only the best action and value are exact.
        Root actions of equal value go to `prefer` when it is among them, else to
        the first in action order (`iterative_search` prefers the action the depth
        before chose, so that where a deeper search cannot tell moves apart, the
        shallower search's choice stands).
        """
        started = time.perf_counter()
        self.nodes = 0
        self._cut = False
        self._start(node, depth)
        game = self.game
        kind = game.kind(node)
        if kind not in (MAX, MIN) or depth <= 0:
            value = self._value(node, depth, -INF, INF)
            return SearchResult(value, None, depth, self.nodes, time.perf_counter() - started,
                                complete=not self._cut)
        self.nodes += 1
        next_depth = depth - game.cost(node)
        labels = game.actions(node)
        first = labels.index(prefer) if prefer is not None and prefer in labels else -1
        values: dict[Any, float] = {}
        best_action = None
        best = -INF if kind == MAX else INF
        if (self.star2 or self.ordering) and kind == MAX:
            if self.ordering and not math.isinf(depth):
                # the previous iteration's best moves first: search the shallower depths before
                shallower = 1
                while shallower < depth:
                    self._ordered_root(node, shallower, labels, False, started)
                    shallower += 1
                self._cut = False  # whether the full depth reaches a depth cut-off
            return self._ordered_root(node, depth, labels, all_values, started, first)
        best_index = -1
        for i, child in enumerate(game.children(node)):
            ahead = best_index >= 0 and _ranks_before(i, best_index, first)  # takes a tie with the best so far
            if all_values or not self.prune:
                v = self._value(child, next_depth, -INF, INF)
                values[labels[i]] = v
                take = (v > best if kind == MAX else v < best) or (v == best and ahead)
            elif kind == MAX:
                floor = math.nextafter(best, -INF) if ahead else best  # just below: a tie comes back exact
                v = self._value(child, next_depth, floor, INF)
                take = v > floor
            else:
                ceiling = math.nextafter(best, INF) if ahead else best
                v = self._value(child, next_depth, -INF, ceiling)
                take = v < ceiling
            if take:
                best, best_index = v, i
        # every child -inf (max) or +inf (min): the first is best
        best_action = labels[best_index] if best_index >= 0 else labels[0]
        if not values:
            values = {best_action: best}
        return SearchResult(best, best_action, depth, self.nodes, time.perf_counter() - started,
                            action_values=values, complete=not self._cut)

    # -- the recursion ----------------------------------------------------------------

    def _value(self, node: Node, depth: float, alpha: float, beta: float) -> float:
        self.nodes += 1
        if self.nodes > self.node_limit or (self.deadline is not None and not self.nodes & 127
                                            and time.perf_counter() > self.deadline):
            raise OutOfTime
        game = self.game
        kind = game.kind(node)
        if kind == TERMINAL:
            return game.evaluate(node)
        table = self.table
        offset = self._offset
        key = None
        if table is not None:
            key = game.key(node)
            if key is not None:
                # Depth-limit leaves are cached too: evaluations can cost more than a look-up.
                entry = (key, depth if depth > 0 else 0)
                hit = table.get(entry)
                if hit is not None and hit.__class__ is not tuple:  # a value; a bound (see _keep) is not one
                    if depth <= 0 or offset is not None:  # score-free: maybe an earlier search's, cut off
                        self._cut = True
                    return hit if offset is None else hit + offset(node)
        if depth <= 0:
            self._cut = True
            value = game.evaluate(node)
            if key is not None:
                kept = value if offset is None else value - offset(node)
                self._keep(entry, kept, kept)
            return value
        next_depth = depth - game.cost(node)
        prune = self.prune
        ties = self.prune_ties

        if kind == MAX:
            best = -INF
            for child in game.children(node):
                v = self._value(child, next_depth, alpha if alpha > best else best, beta) if prune \
                    else self._value(child, next_depth, -INF, INF)
                if v > best:
                    best = v
                    if prune and best >= beta and (ties or best > beta):
                        return best  # a lower bound: not stored
            value = best
        elif kind == MIN:
            best = INF
            for child in game.children(node):
                v = self._value(child, next_depth, alpha, beta if beta < best else best) if prune \
                    else self._value(child, next_depth, -INF, INF)
                if v < best:
                    best = v
                    if prune and best <= alpha and (ties or best < alpha):
                        return best  # an upper bound: not stored
            value = best
        elif kind == CHANCE:
            outcomes = game.outcomes(node)
            total = 0.0
            if self._star1 and (alpha > -INF or beta < INF):
                low, high = self._low, self._high
                # The window, widened a hair once per node: see _SLACK.
                alpha_cut = alpha - _SLACK * (1.0 + abs(alpha))
                beta_cut = beta + _SLACK * (1.0 + abs(beta))
                if high < alpha_cut:
                    return high  # the window lies above every value here: fails low
                if low > beta_cut:
                    return low  # below every value here: fails high
                rest = 1.0
                for p, child in outcomes:
                    rest -= p
                    if rest < 0.0:
                        rest = 0.0
                    if p > 0.0:
                        # The child's window comes from the widened one, so a child that fails settles this
                        # node beyond the window by far more than rounding: see _settled.
                        child_alpha = (alpha_cut - total - rest * high) / p
                        child_beta = (beta_cut - total - rest * low) / p
                        child_alpha = child_alpha if child_alpha > low else low
                        child_beta = child_beta if child_beta < high else high
                        if not child_alpha < child_beta:  # no value of the child can keep the node in its window
                            return _decided(child_alpha >= high, total, p, low, high, rest * high, rest * low,
                                            alpha, beta)
                        v = self._value(child, next_depth, child_alpha, child_beta)
                        total += p * v
                        if not child_alpha < v < child_beta:
                            return _settled(v <= child_alpha, total, rest * high, rest * low, alpha, beta)
                    else:
                        total += p * self._value(child, next_depth, -INF, INF)
                    upper = total + rest * high
                    if upper < alpha_cut:
                        return upper  # fails low: an upper bound
                    lower = total + rest * low
                    if lower > beta_cut:
                        return lower  # fails high: a lower bound
                value = total
            else:
                for p, child in outcomes:
                    total += p * self._value(child, next_depth, -INF, INF)
                value = total
        else:
            raise ValueError(f"node kind {kind!r} is not one of max, min, chance, terminal")

        if key is not None and (not prune or alpha < value < beta):
            kept = value if offset is None else value - offset(node)
            self._keep(entry, kept, kept)
        return value

    # -- Star2 and move ordering (expectimax) ---------------------------------------------

    def _order(self, key: Hashable | None, count: int) -> Sequence[int]:
        """The order to visit a max node's `count` children in: the table's best move first, then the rest in
        action order (with `ordering`; else action order)."""
        if self.ordering and key is not None:
            move = self.table.get((key, _MOVE))
            if move is not None and 0 < move < count:
                return [move, *range(move), *range(move + 1, count)]
        return range(count)

    def _make_room(self) -> None:
        """Make room in the full table: clear it; with Star2 or ordering, forget its older half (a dict keeps
        insertion order, and an overwritten entry keeps its place), which keeps the entries of the nodes being
        searched."""
        table = self.table
        if self.star2 or self.ordering:
            for entry in list(itertools.islice(table, len(table) - len(table) // 2)):
                del table[entry]
        else:
            table.clear()

    def _remember(self, key: Hashable | None, move: int) -> None:
        """Store `move` as the best move of the max node `key` (with `ordering`), in the table, whose size
        it counts against."""
        if self.ordering and key is not None:
            table = self.table
            entry = (key, _MOVE)
            if entry not in table and len(table) >= self.table_size:
                self._make_room()
            table[entry] = move

    def _keep(self, entry: tuple[Hashable, float], lower: float, upper: float) -> None:
        """Keep what a search learned of `entry`: its exact value (``lower == upper``), stored as the value, or a
        bound (the other one infinite), stored as the pair ``(lower, upper)`` and tightening a pair already
        there in its place. A new entry makes room first when the table is full."""
        table = self.table
        old = table.get(entry)
        if old is None:
            if len(table) >= self.table_size:
                self._make_room()
        elif lower != upper:
            old_lower, old_upper = old if old.__class__ is tuple else (old, old)
            kept_lower = lower if lower > old_lower else old_lower
            kept_upper = upper if upper < old_upper else old_upper
            if kept_lower < kept_upper:  # else they meet or cross (by rounding): the newer bound alone
                lower, upper = kept_lower, kept_upper
        table[entry] = lower if lower == upper else (lower, upper)

    def _ordered_root(self, node: Node, depth: float, labels: Sequence[Any], all_values: bool,
                      started: float, first: int = -1) -> SearchResult:
        """`search` from a max root with Star2 or ordering: the best move of the table first, and then each
        other move tested with a null window (Star2) before it is searched for its value. Ties still go to
        the action at index `first` (when >= 0), then to the first in action order (`_ranks_before`): a move
        that ranks before the best so far is tested against a window just below it."""
        game = self.game
        next_depth = depth - game.cost(node)
        children = game.children(node)
        key = game.key(node) if self.table is not None else None
        values: dict[Any, float] = {}
        best, best_index = -INF, -1
        for i in self._order(key, len(children)):
            child = children[i]
            if all_values or best_index < 0:
                v = self._ordered_value(child, next_depth, -INF, INF)
                if all_values:
                    values[labels[i]] = v
                take = v > best or (v == best and (best_index < 0 or _ranks_before(i, best_index, first)))
            else:
                floor = math.nextafter(best, -INF) if _ranks_before(i, best_index, first) else best
                if self.star2:
                    ceiling = math.nextafter(floor, INF)
                    v = self._ordered_value(child, next_depth, floor, ceiling)
                    if v >= ceiling:  # better than the best so far: its value
                        v = self._ordered_value(child, next_depth, floor, INF)
                else:
                    v = self._ordered_value(child, next_depth, floor, INF)
                take = v > floor  # above the window's floor: the exact value
            if take:
                best, best_index = v, i
        self._remember(key, best_index)
        if not values:
            values = {labels[best_index]: best}
        return SearchResult(best, labels[best_index], depth, self.nodes, time.perf_counter() - started,
                            action_values=values, complete=not self._cut)

    def _probe(self, node: Node, depth: float, alpha: float, beta: float) -> float:
        """Star2's probe of a max node: the value of one child (the table's best move, else the first), a
        lower bound on the node's value when above `alpha`; the node's exact value when it is in the table."""
        self.nodes += 1
        if self.nodes > self.node_limit or (self.deadline is not None and not self.nodes & 127
                                            and time.perf_counter() > self.deadline):
            raise OutOfTime
        game = self.game
        key = None
        if self.table is not None:
            key = game.key(node)
            if key is not None:
                hit = self.table.get((key, depth))
                if hit is not None and hit.__class__ is not tuple:
                    offset = self._offset
                    if offset is None:
                        return hit
                    self._cut = True
                    return hit + offset(node)
        children = game.children(node)
        return self._ordered_value(children[self._order(key, len(children))[0]], depth - game.cost(node),
                                   alpha, beta)

    def _ordered_value(self, node: Node, depth: float, alpha: float, beta: float) -> float:
        """`_value` with Star2 and move ordering: the same value whenever it lies inside (alpha, beta).

        The table keeps bounds as well as values: a search that fails low or high here is kept as a bound
        (`_keep`), and a bound kept answers a later window it lies beyond, as the search would."""
        self.nodes += 1
        if self.nodes > self.node_limit or (self.deadline is not None and not self.nodes & 127
                                            and time.perf_counter() > self.deadline):
            raise OutOfTime
        game = self.game
        kind = game.kind(node)
        if kind == TERMINAL:
            return game.evaluate(node)
        if depth <= 0:  # leaves are not stored: one costs about a look-up, and the table keeps room for the rest
            self._cut = True
            return game.evaluate(node)
        table = self.table
        offset = self._offset
        key = None
        if table is not None:
            key = game.key(node)
            if key is not None:
                entry = (key, depth)
                hit = table.get(entry)
                if hit is not None:
                    if offset is not None:
                        self._cut = True
                        shift = offset(node)
                        if hit.__class__ is not tuple:
                            return hit + shift
                        lower, upper = hit[0] + shift, hit[1] + shift
                    elif hit.__class__ is not tuple:
                        return hit
                    else:
                        lower, upper = hit
                    if upper <= alpha:
                        return upper  # fails low, as its search would
                    if lower >= beta:
                        return lower  # fails high
        if self._far_value is not None:
            far = self._far_value(node, depth)
            if far is not None:  # no ghost can matter any more: the exact value, from Pacman's moves alone
                value, visited = far
                self.nodes += visited
                self._cut = True  # its leaves are at the depth limit
                if key is not None:
                    kept = value if offset is None else value - offset(node)
                    self._keep(entry, kept, kept)
                return value
        value = self._expand(node, kind, key, depth, alpha, beta)
        if key is not None:
            kept = value if offset is None else value - offset(node)
            if alpha < value < beta:
                self._keep(entry, kept, kept)
            elif value <= alpha:
                self._keep(entry, -INF, kept + _widened(value))  # an upper bound
            else:
                self._keep(entry, kept - _widened(value), INF)  # a lower bound
        return value

    def _expand(self, node: Node, kind: str, key: Hashable | None, depth: float, alpha: float,
                beta: float) -> float:
        """The search of a live inner node of `_ordered_value`, not in the table: its value, or a bound beyond
        its window."""
        game = self.game
        next_depth = depth - game.cost(node)
        star2 = self.star2

        if kind == MAX:
            children = game.children(node)
            best, best_index = -INF, -1
            for i in self._order(key, len(children)):
                floor = alpha if alpha > best else best
                if best_index >= 0 and star2 and depth >= _NULL_DEPTH:
                    ceiling = math.nextafter(floor, INF)
                    if ceiling < beta:  # a null window first: is this move better?
                        v = self._ordered_value(children[i], next_depth, floor, ceiling)
                        if v >= ceiling:
                            v = self._ordered_value(children[i], next_depth, floor, beta)
                    else:
                        v = self._ordered_value(children[i], next_depth, floor, beta)
                else:
                    v = self._ordered_value(children[i], next_depth, floor, beta)
                if v > best:
                    best, best_index = v, i
                    if best >= beta and (self.prune_ties or best > beta):
                        self._remember(key, i)
                        return best  # a lower bound (_ordered_value keeps it as one)
            value = best
            if alpha < value < beta:
                self._remember(key, best_index)
        elif kind == MIN:
            best = INF
            for child in game.children(node):
                v = self._ordered_value(child, next_depth, alpha, beta if beta < best else best)
                if v < best:
                    best = v
                    if best <= alpha and (self.prune_ties or best < alpha):
                        return best  # an upper bound (kept as one)
            value = best
        elif kind == CHANCE:
            outcomes = game.outcomes(node)
            total = 0.0
            if self._star1 and (alpha > -INF or beta < INF):
                low, high = self._low, self._high
                if star2 and self._search_bounds is not None:  # this node's own bounds: tighter below the root
                    local = self._search_bounds(node, depth)
                    if local is not None:
                        low = max(low, local[0] - _SLACK * (1.0 + abs(local[0])))
                        high = min(high, local[1] + _SLACK * (1.0 + abs(local[1])))
                alpha_cut = alpha - _SLACK * (1.0 + abs(alpha))
                beta_cut = beta + _SLACK * (1.0 + abs(beta))
                if high < alpha_cut:  # as in _value; with this node's own bounds, a window can lie outside them
                    return high
                if low > beta_cut:
                    return low
                count = len(outcomes)
                lows = None
                if star2 and beta < high:  # a fail high is possible: probe the max children for lower bounds
                    lows = [low] * count
                    for j, (p, child) in enumerate(outcomes):
                        if p <= 0.0 or next_depth < 1 or game.kind(child) != MAX:
                            continue  # only max nodes with a ply left: a leaf's probe would be its search
                        others = 0.0
                        for k, (q, _) in enumerate(outcomes):
                            if k != j:
                                others += q * lows[k]
                        probe_beta = (beta - others) / p
                        if probe_beta > high:
                            probe_beta = high
                        if not probe_beta > low:
                            continue
                        v = self._probe(child, next_depth, low, probe_beta)
                        if v > low:
                            lows[j] = v if v < high else high
                            lower = 0.0
                            for k, (q, _) in enumerate(outcomes):
                                lower += q * lows[k]
                            if lower > beta_cut:
                                return lower  # fails high on the probes alone: a lower bound
                    after = [0.0] * count  # after[j]: the lower bounds of the outcomes after j, weighted
                    acc = 0.0
                    for j in range(count - 1, -1, -1):
                        after[j] = acc
                        acc += outcomes[j][0] * lows[j]
                rest = 1.0
                for j, (p, child) in enumerate(outcomes):
                    rest -= p
                    if rest < 0.0:
                        rest = 0.0
                    rest_low = rest * low if lows is None else after[j]
                    if p > 0.0:
                        child_alpha = (alpha_cut - total - rest * high) / p  # as in _value
                        child_beta = (beta_cut - total - rest_low) / p
                        child_alpha = child_alpha if child_alpha > low else low
                        child_beta = child_beta if child_beta < high else high
                        if not child_alpha < child_beta:
                            return _decided(child_alpha >= high, total, p, low, high, rest * high, rest_low,
                                            alpha, beta)
                        v = self._ordered_value(child, next_depth, child_alpha, child_beta)
                        total += p * v
                        if not child_alpha < v < child_beta:
                            return _settled(v <= child_alpha, total, rest * high, rest_low, alpha, beta)
                    else:
                        total += p * self._ordered_value(child, next_depth, -INF, INF)
                    upper = total + rest * high
                    if upper < alpha_cut:
                        return upper  # fails low: an upper bound
                    lower = total + rest_low
                    if lower > beta_cut:
                        return lower  # fails high: a lower bound
                value = total
            else:
                for p, child in outcomes:
                    total += p * self._ordered_value(child, next_depth, -INF, INF)
                value = total
        else:
            raise ValueError(f"node kind {kind!r} is not one of max, min, chance, terminal")
        return value


def _widened(value: float) -> float:
    """How far a bound kept in the table is widened: by the slack, as Star1's windows. A search promises only
    that a node's value lies beyond its window, and a fail-soft result can be a rounding step inside the
    value; widened, the bound holds."""
    return _SLACK * (1.0 + abs(value)) if math.isfinite(value) else 0.0


def _settled(failed_low: bool, total: float, rest_high: float, rest_low: float, alpha: float,
             beta: float) -> float:
    """What a pruned chance node returns when a child's search failed (its value lies outside the child's
    window, so it is a bound, not the child's value): a bound beyond this node's window.

    The child's window was cut so that its failing puts the node's value below ``alpha - slack`` (failed
    low) or above ``beta + slack``. The sum with the child's bound, `total`, is never counted as a value:
    at a window as narrow as a null window, a sum that lands inside it (or on the wrong side) by rounding
    would be taken for an exact value, or a bound the wrong way. The bound returned is the sum's, clamped
    to the window's edge on the side the child failed."""
    if failed_low:
        upper = total + rest_high
        return upper if upper < alpha else alpha
    lower = total + rest_low
    return lower if lower > beta else beta


def _decided(above: bool, total: float, p: float, low: float, high: float, rest_high: float, rest_low: float,
             alpha: float, beta: float) -> float:
    """What a pruned chance node returns when the window left for its next child (probability `p`) is empty,
    which happens only when the node is already outside its own window but the sums fell on the edge by
    rounding: beyond the window on the side the empty window lies (`above`: the child's window lies above
    its highest value, so the node fails low), as `_settled` would with the child at that bound."""
    if above:
        return _settled(True, total + p * high, rest_high, rest_low, alpha, beta)
    return _settled(False, total + p * low, rest_high, rest_low, alpha, beta)


def _ranks_before(i: int, j: int, first: int) -> bool:
    """Whether root action i takes a tie from action j: the action at index `first` (when >= 0) ranks first,
    the rest in action order."""
    return i == first or (j != first and i < j)


def iterative_search(
    searcher: Searcher,
    node: Any,
    max_depth: float,
    time_limit: float | None,
    all_values: bool = True,
    node_limit: int | None = None,
    min_depth: int = 1,
    step: int = 1,
) -> SearchResult:
    """Deepen 1, 2, ... up to `max_depth`; the result of the deepest search that finished.

    Past depth 2 each search goes `step` plies deeper than the last (``step=2``: 1, 2, 4, 6, ...), and the
    last is `max_depth` itself.

    A search stops when `time_limit` seconds have passed since the first began,
    or when the searches together would count more than `node_limit` nodes: then
    the previous depth stands. Depth 1 always finishes, however long it takes, so
    there is always an answer; so does every depth up to `min_depth` under a node
    limit (their nodes count toward it). A node limit depends on the position alone (both
    engines count the same nodes), so the depth reached, and the move, are the
    same on every machine and under any load; a time limit is not.
    Each search gives root actions of equal value to the one the search before chose
    (`Searcher.search`'s `prefer`): where a deeper search cannot tell moves apart
    (waiting now or a step later, when both reach the same leaves), the shallower
    choice, which can, stands, rather than the first in action order, which paced.
    Stops early once a search reaches no depth cut-off (deeper cannot differ), and
    when a depth is deeper than Python's recursion limit allows.
    """
    if isinstance(step, bool) or not isinstance(step, int) or step < 1:
        raise ValueError(f"iterative_search: step must be an int >= 1, got {step!r}")
    started = time.perf_counter()
    deadline = started + time_limit if time_limit is not None else INF
    result: SearchResult | None = None
    nodes = 0
    depth = 1
    while depth <= max_depth:
        if result is not None:
            searcher.deadline = deadline if time_limit is not None else None
            searcher.node_limit = node_limit - nodes if node_limit is not None and depth > min_depth else INF
        try:
            current = searcher.search(node, depth, all_values=all_values,
                                      prefer=result.action if result is not None else None)
        except OutOfTime:
            nodes += searcher.nodes
            break
        except RecursionError:
            if result is None:
                raise
            nodes += searcher.nodes  # deeper than Python's stack allows: the last finished depth stands
            break
        finally:
            searcher.deadline = None
            searcher.node_limit = INF
        nodes += current.nodes
        result = current
        if current.complete or time.perf_counter() >= deadline or (
                node_limit is not None and nodes >= node_limit and depth >= min_depth):
            break
        if depth >= max_depth:
            break
        depth = min(depth + (step if depth >= 2 else 1), max_depth)
    assert result is not None
    result.nodes = nodes
    result.seconds = time.perf_counter() - started
    return result
