"""Search agents for Pacman: expectimax (ghosts as chance layers), minimax and alpha-beta (ghosts as min layers).

Depth counts Pacman plies: one ply is Pacman's move and one move of every ghost.
Terminal states and states at the depth limit are valued by the evaluation
function. How far each decision searches is one budget, chosen once from an
agent's arguments: `Depth`, `Nodes`, `Time`, or `Auto`, ExpectimaxAgent's default.
Ties between actions break by action order (North, South, East, West, Stop),
except where a decision deepens (a node budget or a time limit): there each depth gives
its ties to the action the depth before chose (`pacman.agents.search.iterative_search`).
"""

from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from pacman.agents.compiled import ENGINES, CompiledSearcher, core_obstacle, core_status, requested_engine
from pacman.agents.declarations import Evaluation, proof_gaps
from pacman.agents.evaluation import DEFAULT_EVALUATION, EVALUATIONS, resolve_evaluation
from pacman.agents.ghosts import GHOST_KINDS, RandomGhost, make_ghosts, model_reads_heading
from pacman.agents.search import CHANCE, MAX, MIN, TERMINAL, Searcher, SearchResult, iterative_search
from pacman.agents.small_mazes import SMALL_MAZE_CELLS, is_small_maze
from pacman.actions import Action
from pacman.distances import DistanceTable
from pacman.errors import AgentSpecError
from pacman.hints import hint as hint_for
from pacman.layout import Layout
from pacman.state import PACMAN, SCORE, STATUS, GameState

__all__ = ["PacmanGame", "ExpectimaxAgent", "MinimaxAgent", "AlphaBetaAgent", "SearchInfo",
           "Budget", "Depth", "Nodes", "Time", "Auto", "AUTO",
           "MAX_SEARCH_LEAVES", "MAX_CORE_SEARCH_LEAVES", "AUTO_DEPTH", "SMALL_MAZE_CELLS", "SMALL_MAZE_NODES",
           "HUNTED_NODES", "NEAR_GHOST_STEPS", "NEAR_GHOST_NODES", "ghost_near", "MAX_NODE_LIMIT",
           "DEEPENING_STEP", "DECISION_CACHE_SIZE", "deepening_step", "is_small_maze", "estimated_leaves",
           "check_search_size"]

Node = tuple  # (GameState, agent to move)

#: Transposition-table entries kept at most; the table is cleared when it fills.
DEFAULT_TABLE_SIZE = 100_000
#: The deepest iterative deepening goes when no depth is given (Stop makes every tree infinite).
MAX_DEPTH = 30
#: The largest per-move tree (`estimated_leaves`) a fixed-depth search may take on; see `check_search_size`.
MAX_SEARCH_LEAVES = 10**8
#: The same limit for a pruned search on the compiled core: depth 4 with four ghosts (2.7e10) fits.
MAX_CORE_SEARCH_LEAVES = 3 * 10**10
#: ExpectimaxAgent's ``depth="auto"`` (the default): this depth, and on a small maze deeper, while the searches of
#: a move together count no more than SMALL_MAZE_NODES nodes (docs/search-strength.md, "Deeper on small mazes").
#: The budget is the largest whose moves take at most 20 ms at the 99th percentile on the slowest machine measured
#: (docs/search-strength.md, "Time a move").
AUTO_DEPTH = 2
SMALL_MAZE_NODES = 70_000
#: ``depth="auto"`` against ghosts that hunt (a ghost model that is not uniform: `directional`, the arcade kinds)
#: on a bigger maze: deeper than AUTO_DEPTH, one ply at a time, while the searches of a move count no more than
#: this many nodes. Depth 2 cannot see two hunters closing a corridor from both ends (docs/guide/ghosts.md,
#: "The default agent against hunters"). Smaller than SMALL_MAZE_NODES: a node of a big maze with four ghosts
#: costs more, and the moves must stay within 20 ms at the 99th percentile.
HUNTED_NODES = 25_000
#: ``depth="auto"`` against random ghosts on a bigger maze, when a ghost is at most NEAR_GHOST_STEPS maze steps from
#: Pacman (`ghost_near`): deeper than AUTO_DEPTH, one ply at a time, while the searches of the move count no more
#: than NEAR_GHOST_NODES nodes. Depth 2 walks into a corridor that a ghost closes a few moves later
#: (docs/guide/strength.md, "Narrow corridors"). Far from every ghost, depth 2 is as good and much cheaper.
NEAR_GHOST_STEPS = 6
NEAR_GHOST_NODES = 4_000
#: The largest node_limit taken: days of search a move on any machine, and within what both engines count
#: (the compiled core's counter is 64 bits).
MAX_NODE_LIMIT = 10**12
#: Under a node budget on a small maze (``depth="auto"``'s, or a `node_limit`), past depth 2 each search goes this
#: many plies deeper than the last: 2, 4, 6, ... (`deepening_step`). There each search mostly re-walks the table the
#: last one filled, so fewer searches reach deeper in the same nodes (docs/search-strength.md, "Deeper on small mazes").
DEEPENING_STEP = 2
#: Decisions an agent remembers at most (`_SearchAgent` with ``depth="auto"`` on a small maze, or a `node_limit`):
#: the cache is emptied when it fills, when a game starts and with the table (`clear_table`).
DECISION_CACHE_SIZE = 4096


def deepening_step(layout: Layout) -> int:
    """The plies each search of a node-budgeted deepening on `layout` goes past the last, from depth 2 on:
    DEEPENING_STEP on a small maze (`is_small_maze`), 1 elsewhere, where one ply more multiplies the tree and two
    would skip a depth that fits. A time limit deepens one ply at a time everywhere."""
    return DEEPENING_STEP if is_small_maze(layout) else 1


# -- budgets: how far each decision searches ---------------------------------------------------------------


@dataclass(frozen=True)
class Depth:
    """Every decision searches to exactly this depth: the textbook depth-limited search (``depth=3``)."""

    depth: int
    """Pacman plies."""

    def on(self, layout: Layout, hunted: bool = False) -> Depth:
        """The budget a decision on `layout` searches under: this one."""
        return self

    @property
    def keywords(self) -> tuple[int | None, float | None, int | None]:
        """(depth, time_limit, node_limit): the agents' keywords that give this budget."""
        return self.depth, None, None


@dataclass(frozen=True)
class Nodes:
    """Deepen while the searches of a decision together count at most `nodes` nodes (``node_limit``): the deepest
    finished search answers. Each decision searches from scratch, so the move depends on the position alone, on
    every machine and both engines, and is remembered (DECISION_CACHE_SIZE)."""

    nodes: int
    """Nodes a decision, from 1 to MAX_NODE_LIMIT."""
    depth: int | None = None
    """The deepest it goes (``depth``); None: as deep as the nodes allow (MAX_DEPTH)."""
    min_depth: int = 1
    """Every depth up to this one is searched to the end, its nodes counted: AUTO_DEPTH for `Auto`'s own budget."""

    def on(self, layout: Layout, hunted: bool = False) -> Nodes:
        """The budget a decision on `layout` searches under: this one (by `deepening_step` plies on `layout`)."""
        return self

    @property
    def keywords(self) -> tuple[int | None, float | None, int | None]:
        """(depth, time_limit, node_limit): the agents' keywords that give this budget (all but `min_depth`)."""
        return self.depth, None, self.nodes


@dataclass(frozen=True)
class Time:
    """Deepen one ply at a time while `seconds` last (``time_limit``), and while the searches count at most `nodes`
    if given (then by `deepening_step` plies, each decision from scratch): the deepest finished search answers."""

    seconds: float
    """Seconds a decision, > 0; depth 1 always finishes, however long it takes."""
    depth: int | None = None
    """The deepest it goes (``depth``); None: as deep as the time allows (MAX_DEPTH)."""
    nodes: int | None = None
    """Nodes a decision at most (``node_limit``), or None."""

    def on(self, layout: Layout, hunted: bool = False) -> Time:
        """The budget a decision on `layout` searches under: this one."""
        return self

    @property
    def keywords(self) -> tuple[int | None, float | None, int | None]:
        """(depth, time_limit, node_limit): the agents' keywords that give this budget."""
        return self.depth, self.seconds, self.nodes


@dataclass(frozen=True)
class Auto:
    """ExpectimaxAgent's tuned default (``depth="auto"``): AUTO_DEPTH, and deeper on a small maze (within
    SMALL_MAZE_NODES nodes), against ghosts that hunt (within HUNTED_NODES) or with a ghost near (within
    NEAR_GHOST_NODES); a limit given takes the place of that budget (`on`)."""

    nodes: int | None = None
    """A node limit (``node_limit``) in place of SMALL_MAZE_NODES, or None."""
    seconds: float | None = None
    """A time limit (``time_limit``), or None."""

    def on(self, layout: Layout, hunted: bool = False, near: bool = False) -> Depth | Nodes | Time:
        """The budget a decision on `layout` searches under; `hunted`: the search's ghost models are not uniform
        (`ExpectimaxAgent.hunted`); `near`: a ghost is at most NEAR_GHOST_STEPS steps from Pacman (`ghost_near`).
        On a small maze (`is_small_maze`) or when hunted: `Nodes` as deep as they go, SMALL_MAZE_NODES
        (HUNTED_NODES on a bigger maze) from AUTO_DEPTH on (the given `nodes` from depth 1), or with `seconds`
        `Time` as deep as it goes. On a bigger maze against random ghosts, with no limit given: `Nodes`,
        NEAR_GHOST_NODES from AUTO_DEPTH on, when a ghost is near, else `Depth(AUTO_DEPTH)`. With a limit given
        there: the limits, no deeper than AUTO_DEPTH.

        >>> from pacman import load_layout
        >>> AUTO.on(load_layout("trapped")), AUTO.on(load_layout("medium"))
        (Nodes(nodes=70000, depth=None, min_depth=2), Depth(depth=2))
        >>> AUTO.on(load_layout("medium"), hunted=True)
        Nodes(nodes=25000, depth=None, min_depth=2)
        >>> AUTO.on(load_layout("medium"), near=True)
        Nodes(nodes=4000, depth=None, min_depth=2)
        """
        nodes = self.deepening_nodes(layout, hunted, near)
        if nodes is not None:
            return Nodes(nodes, min_depth=AUTO_DEPTH if self.nodes is None else 1)
        if self.seconds is not None:
            return Time(self.seconds, None if is_small_maze(layout) or hunted else AUTO_DEPTH, self.nodes)
        return Depth(AUTO_DEPTH) if self.nodes is None else Nodes(self.nodes, AUTO_DEPTH)

    def deepening_nodes(self, layout: Layout, hunted: bool = False, near: bool = False) -> int | None:
        """The node budget a decision on `layout` deepens under beyond AUTO_DEPTH, or None for another search.
        With no time limit: on a small maze (Pacman's region under SMALL_MAZE_CELLS) or when `hunted`, `nodes`
        if given, else SMALL_MAZE_NODES on a small maze and HUNTED_NODES on a bigger one; on a bigger maze
        against random ghosts, NEAR_GHOST_NODES when a ghost is `near` and no limit is given."""
        if self.seconds is not None:
            return None
        small = is_small_maze(layout)
        if small or hunted:
            if self.nodes is not None:
                return self.nodes
            return SMALL_MAZE_NODES if small else HUNTED_NODES
        return NEAR_GHOST_NODES if near and self.reads_distance(layout, hunted) else None

    def reads_distance(self, layout: Layout, hunted: bool = False) -> bool:
        """Whether the budget on `layout` depends on how near the ghosts are (`on`'s `near`): on a bigger maze
        against random ghosts, with no limit given."""
        return self.seconds is None and self.nodes is None and not hunted and not is_small_maze(layout)

    @property
    def keywords(self) -> tuple[int | None, float | None, int | None]:
        """(depth, time_limit, node_limit) as the agents report them: ``depth="auto"`` is AUTO_DEPTH."""
        return AUTO_DEPTH, self.seconds, self.nodes


#: The default budget: ``depth="auto"`` without limits.
AUTO = Auto()
#: How far a search agent's decisions search: chosen once from its arguments (`_search_budget`).
Budget = Depth | Nodes | Time | Auto


def ghost_near(state: GameState) -> bool:
    """Whether a ghost is at most NEAR_GHOST_STEPS maze steps from Pacman in `state` (scared or not)."""
    table = DistanceTable.of(state.layout)
    pacman = state.pacman_position
    return any(table.distance(pacman, ghost) <= NEAR_GHOST_STEPS for ghost in state.ghost_positions)


def _is_count(value: Any) -> bool:
    """True for an int >= 1 (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _search_budget(agent: str, depth: Any, time_limit: Any = None, node_limit: Any = None,
                   takes_auto: bool = False) -> Budget:
    """The one budget a search agent's arguments give: `depth` itself when it is a budget, else the one that
    `depth` (an int, None, or "auto" where the agent `takes_auto`), `time_limit` and `node_limit` give.
    AgentSpecError names `agent` and quotes the first bad argument, in that order."""
    if isinstance(depth, (Depth, Nodes, Time, Auto)):
        return _given_budget(agent, depth, time_limit, node_limit, takes_auto)
    auto = takes_auto and isinstance(depth, str)
    if auto and depth != "auto":
        raise AgentSpecError(f"{agent}: depth must be an int >= 1, 'auto' or None, got {depth!r}")
    if depth is None:
        if time_limit is None and node_limit is None:
            raise AgentSpecError(f"{agent}: depth=None (no limit) needs a time_limit or a node_limit")
    elif not auto and not _is_count(depth):
        raise AgentSpecError(f"{agent}: depth must be an int >= 1, got {depth!r}")
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
                                   or not time_limit > 0 or math.isinf(time_limit)):
        raise AgentSpecError(f"{agent}: time_limit must be a positive number of seconds, got {time_limit!r}")
    if node_limit is not None and not (_is_count(node_limit) and node_limit <= MAX_NODE_LIMIT):
        raise AgentSpecError(f"{agent}: node_limit must be an int from 1 to {MAX_NODE_LIMIT:,} (nodes a move), "
                             f"got {node_limit!r}")
    seconds = float(time_limit) if time_limit is not None else None
    if auto:
        return Auto(node_limit, seconds)
    if seconds is not None:
        return Time(seconds, depth, node_limit)
    return Depth(depth) if node_limit is None else Nodes(node_limit, depth)


def _given_budget(agent: str, budget: Budget, time_limit: Any, node_limit: Any, takes_auto: bool) -> Budget:
    """`budget`, given as `depth`, checked as the keywords it stands for are (`_search_budget`)."""
    if time_limit is not None or node_limit is not None:
        raise AgentSpecError(f"{agent}: depth={budget!r} is a whole budget: give no time_limit or node_limit with it")
    if isinstance(budget, Auto) and not takes_auto:
        raise AgentSpecError(f"{agent}: depth={budget!r} is ExpectimaxAgent's budget; give a Depth, Nodes or Time")
    _search_budget(agent, *budget.keywords)
    if isinstance(budget, Nodes) and not _is_count(budget.min_depth):
        raise AgentSpecError(f"{agent}: min_depth must be an int >= 1, got {budget.min_depth!r}")
    return budget


def _from_scratch(budget: Depth | Nodes | Time) -> bool:
    """Whether each decision under `budget` searches from scratch, its transposition table emptied first: under
    a node limit (`Nodes`, or `Time` with `nodes`), so that the depth reached depends on the position alone, not
    on the moves before. Only then does the table key positions without the score (`PacmanGame.score_free`):
    elsewhere it lives from move to move."""
    return isinstance(budget, Nodes) or (isinstance(budget, Time) and budget.nodes is not None)


def _check_options(agent: str, transposition: Any, pruning: Any, ghost_model: Any, engine: Any) -> None:
    """AgentSpecError naming `agent` and quoting the first bad one of a search agent's other arguments (the
    evaluation aside: `resolve_evaluation` checks it)."""
    _check_flags(agent, transposition=transposition, pruning=pruning)
    if not (ghost_model is None or (isinstance(ghost_model, str) and ghost_model in GHOST_KINDS)
            or (isinstance(ghost_model, (list, tuple)) and all(hasattr(g, "distribution") for g in ghost_model))):
        kinds = ", ".join(repr(kind) for kind in GHOST_KINDS)
        raise AgentSpecError(
            f"{agent}: ghost_model must be a ghost kind ({kinds}), a list of ghost agents or None, got {ghost_model!r}"
        )
    if engine not in ENGINES:
        raise AgentSpecError(f"{agent}: engine must be one of {', '.join(ENGINES)}, got {engine!r}")


def _check_flags(agent: str, **flags: Any) -> None:
    """AgentSpecError naming `agent` and the first of `flags` that is not True or False."""
    for flag, value in flags.items():
        if not isinstance(value, bool):
            raise AgentSpecError(f"{agent}: {flag} must be true or false, got {value!r}")


def estimated_leaves(layout: Layout, num_ghosts: int, depth: int) -> float:
    """An upper estimate of the leaves of one move's search tree: ``(p * g**num_ghosts) ** depth``.

    `p` is Pacman's widest choice on `layout` (its most open cell's moves, Stop
    included) and `g` a ghost's (that cell's moves less the reverse), so 5 and 3
    on any maze with a four-way crossing: 2,025 at depth 2 with 2 ghosts,
    6.6e7 at depth 3 with 4, 8.7e10 at depth 2 with 10.
    """
    widest = layout.derived("widest_cell", _widest_cell)
    pacman, ghost = widest + 1, max(1, widest - 1)
    exponent = depth * (math.log10(pacman) + num_ghosts * math.log10(ghost))
    return 10.0 ** exponent if exponent < 300 else math.inf


def _widest_cell(layout: Layout) -> int:
    """The most open sides any open cell of `layout` has (0-4)."""
    widest = 0
    for x in range(layout.width):
        for y in range(layout.height):
            if not layout.is_wall(x, y):
                open_sides = sum(not layout.is_wall(x + dx, y + dy) for dx, dy in ((0, 1), (0, -1), (1, 0), (-1, 0)))
                widest = max(widest, open_sides)
    return widest


def check_search_size(agent: Any, layout: Layout, num_ghosts: int, ghost_agents: Sequence[Any] | None = None) -> None:
    """Refuse, with an AgentSpecError naming the limit, a search agent whose per-move tree is too large.

    A fixed-depth search whose `estimated_leaves` exceed its limit is refused:
    `MAX_SEARCH_LEAVES` (1e8: in pure Python a move of such a search takes from
    tens of seconds to hours), or `MAX_CORE_SEARCH_LEAVES` (3e10) for a pruned
    search that runs on the compiled core, where pruning cuts deep trees by
    thousands (depth 4 with four ghosts on `tricky`: at most 3.7 million nodes,
    0.3 s); trees wide in ghosts prune little (8 ghosts at depth 2, 1.1e9, take
    8 s a move even there). With a ``time_limit`` only depth 1, which always runs
    to the end, is checked (likewise with a ``node_limit``). Agents that are not
    search agents pass. Search agents call this from ``reset`` with the game's
    `ghost_agents` (which decide the engine when they are not built-in models);
    front ends may call it up front. The message's hints name the calling
    command's flags, or Python's keywords (`pacman.hints`).
    """
    if not isinstance(agent, _SearchAgent):
        return
    deepening = agent.time_limit is not None or agent.node_limit is not None
    depth = 1 if deepening else agent.depth
    leaves = estimated_leaves(layout, num_ghosts, depth)
    core = agent.pruning and agent._engine_for(agent._ghost_models(num_ghosts, ghost_agents)) == "compiled"
    limit = MAX_CORE_SEARCH_LEAVES if core else MAX_SEARCH_LEAVES
    if leaves > limit:
        ghosts = f"{num_ghosts} ghost{'s' if num_ghosts != 1 else ''}"
        hint = (f"use fewer ghosts ({hint_for('num_ghosts')})" if deepening
                else f"use a smaller depth ({hint_for('depth')}), fewer ghosts ({hint_for('num_ghosts')}), "
                     f"or a time limit ({hint_for('time_limit')})")
        where = "pruned, on the compiled core" if core else "in Python" if agent.pruning else "unpruned"
        raise AgentSpecError(
            f"{type(agent).__name__}: depth {depth} with {ghosts} on {layout.name!r} is too large a search "
            f"(about {leaves:.2g} leaves per move, limit {limit:.0e} {where}); {hint}"
        )


def _uniform(models: Sequence[Any]) -> bool:
    """True if every model is a plain RandomGhost: uniform chance layers, which the search takes as None."""
    return all(type(model) is RandomGhost for model in models)


class PacmanGame:
    """Pacman as a search game: nodes are (state, agent to move).

    `ghost_models` gives each ghost's `distribution(state)`; None means uniform over
    legal moves. With ``ghosts_minimise`` the ghosts are min layers instead of chance layers.
    `evaluation` is taken as `Evaluation.of` takes it: a plain function's declarations are its attributes.
    """

    def __init__(
        self,
        num_agents: int,
        evaluation: Callable[[GameState], float],
        ghost_models: Sequence[Any] | None = None,
        ghosts_minimise: bool = False,
        score_free: bool = False,
    ) -> None:
        self.num_agents = num_agents
        self.evaluation = evaluation = Evaluation.of(evaluation)
        self._value = evaluation.function  # called at every leaf: without the Evaluation's call in between
        self.ghost_models = list(ghost_models) if ghost_models is not None else None
        self.ghost_kind = MIN if ghosts_minimise else CHANCE
        #: the proofs that do not cover these ghosts or rules (pacman.agents.declarations.proof_gaps), each with
        #: its reason: their shortcuts are off, by declaration
        self.proof_gaps = {} if ghosts_minimise else proof_gaps(self.ghost_models)
        covered = "bounds" not in self.proof_gaps
        self.bounds = evaluation.bounds if covered else None
        self._bounds_within = evaluation.bounds_within if covered else None
        #: far ghosts are skipped only for an evaluation that says how far they matter (`horizon`), and uniform
        #: chance layers (None: the shortcut's sums are uniform ones) that the far-ghost proof covers
        self._far_ghosts = ghost_models is None and not ghosts_minimise and "far_ghosts" not in self.proof_gaps
        self._horizon_of: tuple[Layout | None, int | None] = (None, None)  # the last layout asked, its horizon
        #: the table keys a node by its state without the score and keeps its values less the score
        #: (`SearchGame.table_offset`), so that one position reached with two scores is searched once: only for
        #: an evaluation that is the score plus a function of the rest (`Evaluation.score_additive`)
        self.score_free = score_free and evaluation.score_additive
        self.table_offset: Callable[[Node], float] | None = _score if self.score_free else None

    def horizon(self, layout: Layout) -> int | None:
        """The ghost horizon the far-ghost shortcut takes on `layout` (`ghost_horizon`), or None when it is off:
        no horizon declared there, or ghosts or rules its proof does not cover."""
        if not self._far_ghosts:
            return None
        known, horizon = self._horizon_of
        if known is not layout:
            horizon = ghost_horizon(self.evaluation, layout)
            self._horizon_of = (layout, horizon)
        return horizon

    def far_value(self, node: Node, depth: float) -> tuple[float, int] | None:
        """(exact value, nodes visited) of `node` searched to `depth` when no ghost can matter, else None.

        No ghost can matter when Pacman can neither eat a capsule nor win within
        `depth`, and every ghost stays more than the evaluation's `ghost_horizon`
        steps from him at every node below (each of them moving one step a move),
        or, while scared, too far for him to reach in time (its timer at every
        leaf at most its distance). Then every leaf's evaluation ignores the ghosts, and the
        value is `_ghost_average` of `_pacman_value`: the best Pacman can do alone,
        passed up through the chance layers' sums exactly as expectimax adds them
        (see docs/engine.md, "Far ghosts").
        """
        state, agent = node
        if not self._far_ghosts or math.isinf(depth) or state.is_terminal() or not state.num_ghosts:
            return None
        horizon = self.horizon(state.layout)
        if horizon is None:
            return None
        pacman_moves = depth if agent == 0 else depth - 1
        if state.food_mask.bit_count() <= pacman_moves:
            return None
        table = DistanceTable.of(state.layout)
        pacman = state.pacman_position
        if state.capsule_mask and table.nearest(pacman, state.capsule_mask) <= pacman_moves:
            return None
        row = table.rows[table.cell(pacman)]
        for j, (position, timer) in enumerate(zip(state.ghost_positions, state.scared_timers), start=1):
            ghost_moves = depth if agent == 0 or j >= agent else depth - 1
            d = row[table.cell(position)]
            if not timer:
                if d - pacman_moves - ghost_moves <= horizon:
                    return None
            # scared: half-cell steps, a step's rounding to spare; at the leaves its timer (less a move each
            # move) must not exceed its distance (no pull), and once hunting again it must be beyond the horizon
            elif timer > d - pacman_moves - 1 or d - pacman_moves - ghost_moves - 1 <= (
                    horizon if timer <= ghost_moves else 0):
                return None
        counter = [0]
        best = self._pacman_value(state, pacman_moves, counter)
        if _sums_exactly(best):  # every chance layer's sum gives back `best`: no need to add them up
            return best, counter[0]
        return self._ghost_average(state, agent if agent else 1, depth, best, {}, counter), counter[0]

    def _pacman_value(self, state: GameState, moves: int, counter: list[int]) -> float:
        """The best evaluation Pacman reaches in `moves` moves with the ghosts standing still."""
        counter[0] += 1
        if moves == 0:
            return self._value(state)
        best = -math.inf
        for child in state.successors(0):
            v = self._pacman_value(child, moves - 1, counter)
            if v > best:
                best = v
        return best

    def _ghost_average(self, state: GameState, agent: int, depth: float, value: float, seen: dict,
                       counter: list[int]) -> float:
        """Expectimax's value of the chance node (`state`, `agent`) at `depth` when every leaf below is worth
        `value`: the chance layers' sums over the ghosts' moves alone, in expectimax's order, so that the
        rounding is the same."""
        counter[0] += 1
        key = (state.ghost_keys, state.scared_timers, agent, depth)
        hit = seen.get(key)
        if hit is not None:
            return hit
        children = state.successors(agent)
        p = 1.0 / len(children)
        last = agent == self.num_agents - 1
        total = 0.0
        for child in children:
            if last:
                total += p * (value if depth == 1 else self._ghost_average(child, 1, depth - 1, value, seen, counter))
            else:
                total += p * self._ghost_average(child, agent + 1, depth, value, seen, counter)
        seen[key] = total
        return total

    def search_bounds(self, node: Node, depth: float) -> tuple[float, float] | None:
        """Bounds on every evaluation within `depth` plies of `node`: the evaluation's own
        (`bounds_within`, else `bounds`); None if it declares none or the depth is unlimited."""
        if self._bounds_within is None or math.isinf(depth):
            return self.bounds
        state, _ = node
        # From any agent's turn, `depth` plies hold at most `depth` moves of each agent.
        return self._bounds_within(state, math.ceil(depth))

    def kind(self, node: Node) -> str:
        state, agent = node
        if state.is_terminal():
            return TERMINAL
        return MAX if agent == 0 else self.ghost_kind

    def children(self, node: Node) -> list[Node]:
        state, agent = node
        following = agent + 1 if agent + 1 < self.num_agents else 0
        return [(child, following) for child in state.successors(agent)]

    def actions(self, node: Node) -> tuple[Action, ...]:
        state, agent = node
        return state.legal_actions(agent)

    def outcomes(self, node: Node) -> list[tuple[float, Node]]:
        state, agent = node
        following = agent + 1 if agent + 1 < self.num_agents else 0
        if self.ghost_models is None:
            children = state.successors(agent)
            p = 1.0 / len(children)
            return [(p, (child, following)) for child in children]
        distribution = self.ghost_models[agent - 1].distribution(state)
        children = state.successors(agent, [action for action, _ in distribution])
        return [(p, (child, following)) for (_, p), child in zip(distribution, children)]

    def evaluate(self, node: Node) -> float:
        state, _ = node
        return self._value(state)

    def cost(self, node: Node) -> int:
        _, agent = node
        return 1 if agent == self.num_agents - 1 else 0

    def key(self, node: Node) -> Any:
        if self.score_free:
            state, agent = node
            return state[PACMAN:SCORE], state[STATUS:], agent  # STATUS: the status and Pacman's heading
        return node


def _score(node: Node) -> float:
    return node[0][SCORE]


def is_score_additive(evaluation: Callable[[GameState], float]) -> bool:
    """Whether `evaluation` declares itself the state's score plus a function of the rest of the state (terminal
    or not), as every registered one does (`Evaluation.score_additive`): a search's values then move with the
    score, so the table may keep them without it (`PacmanGame.score_free`) and a decision searched from scratch
    is remembered without it (`_SearchAgent._cache_key`). A function of your own is not taken to be one: it may
    read the score otherwise than by adding it."""
    return Evaluation.of(evaluation).score_additive


def ghost_horizon(evaluation: Callable[[GameState], float], layout: Layout | None = None) -> int | None:
    """The `ghost_horizon` an evaluation declares (None if none): the evaluation of a live state does not depend
    on a ghost that is hunting and more than that many maze steps from Pacman, nor on a scared one whose timer
    is at most its distance (see `pacman.agents.evaluation`). A declaration may be a function of the layout
    (`dots`' horizon depends on whether the maze has dot games): its value on `layout`, and None without one.
    Raises AgentSpecError for a declaration that is not an int >= 0 (or None, from a function)."""
    horizon = Evaluation.of(evaluation).ghost_horizon
    if callable(horizon):
        if layout is None:
            return None
        horizon = horizon(layout)
    if horizon is None:
        return None
    if isinstance(horizon, bool) or not isinstance(horizon, int) or horizon < 0:
        raise AgentSpecError(f"evaluation {_evaluation_name(evaluation)!r}: ghost_horizon must be an int >= 0 "
                             f"(maze steps), got {horizon!r}")
    return horizon


def _sums_exactly(value: float) -> bool:
    """True if a uniform chance node over 1 to 4 moves whose every outcome is worth `value` is worth `value`
    as expectimax adds it up (``total += p * v``, p = 1 / moves), not a rounding away."""
    for moves in (2, 3, 4):
        p = 1.0 / moves
        total = 0.0
        for _ in range(moves):
            total += p * value
        if total != value:
            return False
    return True


@dataclass
class SearchInfo:
    """What the last decision's search found, for views and benchmarks."""

    action: Action
    """The action chosen."""
    action_values: dict[Action, float]
    """Value of each legal action (exact for every action unless only the best was asked for)."""
    depth: float
    """The depth completed."""
    nodes: int
    """Nodes visited."""
    milliseconds: float
    """Time taken."""
    extra: dict[str, Any] = field(default_factory=dict)
    """More about the search: ``engine`` is the engine that ran it ("compiled" or "python")."""


def _evaluation_name(evaluation: Callable[[GameState], float]) -> str:
    """A registered evaluation's name (``better``), else the function's own name."""
    for name, function in EVALUATIONS.items():
        if function is evaluation:
            return name
    return getattr(evaluation, "__name__", "callable")


class _SearchAgent:
    """Shared by the three search agents: arguments, ghost models, the searcher, the root call.

    Its arguments come down to one `budget` (`Depth`, `Nodes`, `Time` or `Auto`), chosen once in
    `_search_budget`; each decision searches under what that budget is on the maze played (`Auto.on`).
    """

    ghosts_minimise = False

    #: whether ``depth="auto"`` (`Auto`) is taken: ExpectimaxAgent's default
    takes_auto = False

    def __init__(self, depth: int | str | Budget | None = 2,
                 evaluation: str | Callable[[GameState], float] | None = DEFAULT_EVALUATION,
                 ghost_model: str | Sequence[Any] | None = None, time_limit: float | None = None,
                 transposition: bool = True, pruning: bool = True, engine: str = "auto",
                 node_limit: int | None = None, star2: bool = False, ordering: bool = False) -> None:
        name = type(self).__name__
        #: how far each decision searches, chosen once from `depth`, `time_limit` and `node_limit`
        self.budget: Budget = _search_budget(name, depth, time_limit, node_limit, self.takes_auto)
        _check_options(name, transposition, pruning, ghost_model, engine)
        self.ghost_model, self.engine, self.transposition, self.pruning = ghost_model, engine, transposition, pruning
        #: Star2 and move ordering (ExpectimaxAgent; exact, on top of `pruning`)
        self.star2, self.ordering = star2, ordering
        evaluation = DEFAULT_EVALUATION if evaluation is None else evaluation
        self.evaluation = resolve_evaluation(evaluation)
        self.evaluation_name = evaluation if isinstance(evaluation, str) else _evaluation_name(self.evaluation)
        ghost_horizon(self.evaluation)  # a bad declaration fails here, not at the first move
        #: the engine of the last search ("compiled" or "python") and why, once the agent has searched
        self.engine_used: str | None = None
        self.engine_reason = ""
        self._check_core()
        _check_flags(name, star2=star2, ordering=ordering)  # after the evaluation: errors come in the order they did
        self._game_ghosts: tuple = ()
        self._searcher: Searcher | CompiledSearcher | None = None
        self._searcher_key: tuple | None = None
        self.last_search: SearchInfo | None = None
        self.explain = False
        #: position -> (root score, SearchInfo, all values exact) of the decisions searched from scratch this game
        #: (`_cache_key`); at most DECISION_CACHE_SIZE entries
        self._decisions: dict[tuple, tuple[int, SearchInfo, bool]] = {}

    @property
    def depth(self) -> int | None:
        """The depth of a fixed-depth search, the deepest a limited one goes (None: as deep as the limit allows),
        AUTO_DEPTH for ``depth="auto"``."""
        return self.budget.keywords[0]

    @property
    def time_limit(self) -> float | None:
        """Seconds a decision, or None."""
        return self.budget.keywords[1]

    @property
    def node_limit(self) -> int | None:
        """Nodes a decision, or None."""
        return self.budget.keywords[2]

    @property
    def auto_depth(self) -> bool:
        """ExpectimaxAgent's ``depth="auto"``: AUTO_DEPTH, deeper on a small maze (`small_maze_budget`)."""
        return isinstance(self.budget, Auto)

    # -- the game's hooks --------------------------------------------------------------

    def reset(self, rng: Any = None, ghost_agents: Sequence[Any] = (), layout: Layout | None = None) -> None:
        """Before a game: remember the ghosts in play (the default model) and forget old searches.

        Given the game's `layout`, refuse a search too large for it (`check_search_size`), and build what the
        evaluation builds once per maze (its ``prepare(layout)``, if it declares one: `dots`' games).
        """
        self._game_ghosts = tuple(ghost_agents)
        if layout is not None:
            check_search_size(self, layout, len(ghost_agents), ghost_agents)
            # against the game's ghosts (without them, as the first move will tell: random ones here)
            evaluation = self._evaluation_for(self._ghost_models(len(ghost_agents)) if ghost_agents else None)
            if evaluation.prepare is not None:  # what it builds once per maze, before the first move's clock
                evaluation.prepare(layout)
        self._searcher = None
        self.last_search = None
        self._decisions.clear()
        self._check_core(len(self._game_ghosts))  # refuse the game now rather than fail on the first move

    def get_action(self, state: GameState) -> Action:
        """The first best action for Pacman in `state`.

        With ``explain = True`` (views set it) every action's exact value is kept in
        `last_search`; otherwise only the best one's may be exact. Under a node budget the move, the depth
        and the nodes are the same either way: the values come from a second search to that depth, not
        counted (``extra["values_nodes"]``).
        """
        return self._decide(state, all_values=self.explain).action

    def action_values(self, state: GameState) -> dict[Action, float]:
        """The exact search value of every legal Pacman action in `state`."""
        return dict(self._decide(state, all_values=True).action_values)

    def clear_table(self) -> None:
        """Forget the transposition table, keeping the searcher: the next decision searches from scratch
        without paying for a new searcher (benchmarks time decisions this way). The decisions remembered
        (`DECISION_CACHE_SIZE`) are forgotten too, so that the next decision is searched."""
        if self._searcher is not None:
            self._searcher.clear()
        self._decisions.clear()

    # -- internals ---------------------------------------------------------------------

    @property
    def reads_heading(self) -> bool:
        """Whether the ghosts this agent models read Pacman's heading: a game with it keeps the heading."""
        return model_reads_heading(self.ghost_model)

    def _ghost_models(self, num_ghosts: int, game_ghosts: Sequence[Any] | None = None) -> list[Any] | None:
        model = self.ghost_model
        if model is None:
            game_ghosts = self._game_ghosts if game_ghosts is None else tuple(game_ghosts)
            if len(game_ghosts) == num_ghosts and not _uniform(game_ghosts):
                return list(game_ghosts)
            return None  # random ghosts, or no game: uniform
        if isinstance(model, str):  # a kind of GHOST_KINDS (checked in __init__); random ones: uniform
            models = make_ghosts(model, num_ghosts)
            return None if _uniform(models) else models
        if len(model) != num_ghosts:
            raise AgentSpecError(f"ghost_model has {len(model)} ghosts but the game has {num_ghosts}")
        return list(model)

    def _evaluation_for(self, models: list[Any] | None) -> Evaluation:
        """The evaluation to search with against these ghost models: the evaluation's own `for_ghosts` answer
        where it declares one (`dots`: its games solved against them), else the evaluation itself. Min layers
        (minimax, alpha-beta) have no model: the evaluation itself."""
        bind = self.evaluation.for_ghosts
        return self.evaluation if bind is None or self.ghosts_minimise else bind(models)

    def _engine_for(self, models: list[Any] | None) -> str:
        """The engine a search with these ghost models would run on: "compiled" or "python"."""
        return self._engine_choice(models)[0]

    def _engine_choice(self, models: list[Any] | None) -> tuple[str, str | None]:
        """(the engine a search with these ghost models runs on, what keeps it off the core, or None)."""
        if self._wanted_engine() == "python":
            return "python", None
        obstacle = core_obstacle(self.evaluation, models, self.ghosts_minimise, self.evaluation_name)
        return ("python" if obstacle is not None else "compiled"), obstacle

    def _wanted_engine(self) -> str:
        """The engine asked for: the ``engine`` argument, where ``auto`` yields to PACMAN_AI_ENGINE."""
        return requested_engine() if self.engine == "auto" else self.engine

    def _check_core(self, num_ghosts: int | None = None) -> None:
        """Refuse, naming why, an agent that insists on the compiled core (``engine="compiled"``, or from the
        environment) where the core cannot run its evaluation, or its ghost models for `num_ghosts` ghosts."""
        if self._wanted_engine() == "compiled":
            models = None if num_ghosts is None else self._ghost_models(num_ghosts)
            obstacle = core_obstacle(self.evaluation, models, self.ghosts_minimise, self.evaluation_name)
            if obstacle is not None:
                raise AgentSpecError(self._refusal(obstacle))

    def _refusal(self, obstacle: str) -> str:
        wanted = self.engine if self.engine != "auto" else f"{requested_engine()} (from the environment)"
        return f"{type(self).__name__}: engine={wanted!r} cannot be used: {obstacle}"

    def _searcher_for(self, state: GameState) -> Searcher | CompiledSearcher:
        key = (state.layout, state.num_agents)
        if self._searcher is None or self._searcher_key != key:
            models = self._ghost_models(state.num_agents - 1)
            # score-free keys where each move searches from scratch (the table holds one decision's searches):
            # elsewhere the table lives from move to move, and those agents' figures stay as measured. Where a
            # near ghost deepens a move (`Auto.reads_distance`), the moves far from ghosts decide: that move
            # empties the table first, and the keys with the score stay right.
            far = self.budget
            if isinstance(far, Auto):
                far = far.on(state.layout, self.hunted(state.num_agents - 1))
            game = PacmanGame(state.num_agents, self._evaluation_for(models), models,
                              ghosts_minimise=self.ghosts_minimise, score_free=_from_scratch(far))
            table = DEFAULT_TABLE_SIZE if self.transposition else 0
            engine, obstacle = self._engine_choice(models)
            if obstacle is not None and self._wanted_engine() == "compiled":
                raise AgentSpecError(self._refusal(obstacle))
            if engine == "python":
                self._searcher = Searcher(game, prune=self.pruning, table_size=table, star2=self.star2,
                                          ordering=self.ordering)
                self.engine_used = "python"
                self.engine_reason = "engine='python'" if self.engine == "python" else (
                    obstacle or f"{core_status()[1]}")
            else:
                self._searcher = CompiledSearcher(state.layout, state.num_agents, game, self.pruning, table,
                                                  star2=self.star2, ordering=self.ordering)
                self.engine_used, self.engine_reason = "compiled", "pacman.agents._core"
            self._searcher_key = key
            self._decisions.clear()
        return self._searcher

    def _decide(self, state: GameState, all_values: bool) -> SearchInfo:
        if state.is_terminal():
            raise AgentSpecError(f"{type(self).__name__}: no action in a finished game")
        searcher = self._searcher_for(state)
        started = time.perf_counter()
        budget = self._budget_on(state)
        cache_key = self._cache_key(state, budget)
        if cache_key is not None:
            remembered = self._decisions.get(cache_key)
            if remembered is not None and (remembered[2] or not all_values):
                return self._remembered(remembered, state, started)
        if _from_scratch(budget):
            searcher.clear()
        result, valued = self._search(searcher, (state, 0), budget, all_values)
        info = SearchInfo(
            action=result.action,
            action_values=result.action_values if valued is None else valued.action_values,
            depth=result.depth,
            nodes=result.nodes,
            milliseconds=1000 * (time.perf_counter() - started),
            extra={"engine": self.engine_used, **({} if valued is None else {"values_nodes": valued.nodes})},
        )
        self.last_search = info
        if cache_key is not None:
            if len(self._decisions) >= DECISION_CACHE_SIZE:
                self._decisions.clear()
            self._decisions[cache_key] = (state.score, info, all_values)
        return info

    def _search(self, searcher: Searcher | CompiledSearcher, root: Node, budget: Depth | Nodes | Time,
                all_values: bool) -> tuple[SearchResult, SearchResult | None]:
        """(the decision's search under `budget`, and the search that values every root action, or None).

        Under a node budget the depth reached, and so the move, must not depend on whether every action's
        value is wanted (a view's `explain`): the budget's search decides without them, and a second search to
        the depth it reached, not counted, values every action (`_every_value`)."""
        step = deepening_step(root[0].layout)
        try:
            match budget:
                case Depth(depth):
                    result = searcher.search(root, depth, all_values=all_values)
                case Nodes(nodes, depth, min_depth):
                    result = iterative_search(searcher, root, MAX_DEPTH if depth is None else depth, None,
                                              all_values=False, node_limit=nodes, min_depth=min_depth, step=step)
                case Time(seconds, depth, nodes):
                    result = iterative_search(searcher, root, MAX_DEPTH if depth is None else depth, seconds,
                                              all_values=all_values, node_limit=nodes,
                                              step=step if nodes is not None else 1)
            valued = self._every_value(searcher, root, result) if isinstance(budget, Nodes) and all_values else None
        except TypeError:
            self._check_evaluation(root[0])  # a str or None from the evaluation: say so
            raise
        if not math.isfinite(result.value) or any(v != v for v in result.action_values.values()):
            # NaN never wins a comparison, so a max root can hide it behind -inf: look closer.
            self._check_evaluation(root[0])
            if math.isnan(result.value) or any(v != v for v in result.action_values.values()):
                raise AgentSpecError(f"evaluation {self.evaluation_name!r} gave NaN values; expected numbers")
        return result, valued

    @staticmethod
    def _every_value(searcher: Searcher | CompiledSearcher, root: Node, decided: SearchResult) -> SearchResult:
        """Every root action's exact value at the depth `decided` reached, for a decision made under a node
        budget without them: the decision stands (its table is kept; a value may differ from the decision's
        in the last bits, summed in another order, but an action ranked above the decision's by more is a
        defect, refused)."""
        valued = searcher.search(root, decided.depth, all_values=True)
        values = valued.action_values
        slack = 1e-9 * max(1.0, abs(decided.value))
        if decided.action not in values or abs(values[decided.action] - decided.value) > slack \
                or max(values.values()) > decided.value + slack:
            raise AssertionError(f"the values at depth {decided.depth} rank {valued.action} first "
                                 f"where the decision was {decided.action} at {decided.value!r}: {values}")
        return valued

    def _budget_on(self, state: GameState) -> Depth | Nodes | Time:
        """The budget the decision in `state` searches under (`Auto.on`, told whether the ghosts hunt and,
        where it matters, whether one is near)."""
        if not isinstance(self.budget, Auto):
            return self.budget
        hunted = self.hunted(state.num_agents - 1)
        near = self.budget.reads_distance(state.layout, hunted) and ghost_near(state)
        return self.budget.on(state.layout, hunted, near)

    def search_engine(self, num_ghosts: int) -> str:
        """The engine this agent's searches run on in a game of `num_ghosts` ghosts (after `reset`): "compiled" or
        "python" (no core here, PACMAN_AI_ENGINE or ``engine`` asks for it, or the core cannot run the evaluation
        or the ghost models)."""
        if not core_status()[0]:
            return "python"
        return self._engine_for(self._ghost_models(num_ghosts))

    def hunted(self, num_ghosts: int) -> bool:
        """Whether this agent's search, in a game of `num_ghosts` ghosts, models them as hunting: its ghost
        models are not uniform (the game's ghosts, or `ghost_model`; `directional` and the arcade kinds hunt).
        ``depth="auto"`` then deepens under a node budget on every maze (`Auto.on`)."""
        return num_ghosts > 0 and self._ghost_models(num_ghosts) is not None

    def _cache_key(self, state: GameState, budget: Depth | Nodes | Time) -> tuple | None:
        """The key a decision under `budget` is remembered by this game, or None when it is not remembered.

        Only a decision under a node budget (`Nodes`: ``depth="auto"`` on a small maze, or a `node_limit`
        without a time limit) depends on the position alone, so only it is remembered. With a registered
        evaluation (``score + f(position)``: `Evaluation.score_additive`) the score is added to every leaf alike
        and never changes the move (`research.policy` relies on the same fact), so the key leaves it out, and a
        position met again later in the game, with another score, is not searched again. With any other
        evaluation the key holds the score too.
        """
        if not isinstance(budget, Nodes):
            return None
        key = state.position_key
        return key[:5] if self.evaluation.score_additive else key

    def _remembered(self, remembered: tuple[int, SearchInfo, bool], state: GameState, started: float) -> SearchInfo:
        """The decision remembered for `state`'s position: the same action and depth; the values moved by the
        difference of the scores; no node searched (``nodes`` 0, ``extra["cached"]`` True)."""
        score, found, _ = remembered
        shift = state.score - score
        info = SearchInfo(
            action=found.action,
            action_values={action: value + shift for action, value in found.action_values.items()},
            depth=found.depth,
            nodes=0,
            milliseconds=1000 * (time.perf_counter() - started),
            extra={**found.extra, "cached": True},
        )
        self.last_search = info
        return info

    def small_maze_budget(self, layout: Layout) -> int | None:
        """The node budget a decision on `layout` deepens under beyond AUTO_DEPTH, or None for another search:
        with ``depth="auto"``, no time limit and Pacman's region under SMALL_MAZE_CELLS, the `node_limit` if one
        is given, else SMALL_MAZE_NODES (`Auto.small_maze_nodes`)."""
        return self.budget.deepening_nodes(layout) if isinstance(self.budget, Auto) and is_small_maze(layout) else None

    def _check_evaluation(self, state: GameState) -> None:
        """After a failed search: fail clearly if the evaluation does not give a number (a str, None, NaN)."""
        value = self.evaluation(state)
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value):
            raise AgentSpecError(
                f"evaluation {self.evaluation_name!r} returned {value!r} ({type(value).__name__}) "
                f"for a state; expected a number (not NaN)"
            )

    def __repr__(self) -> str:
        engine = f", engine={self.engine!r}" if self.engine != "auto" else ""
        depth = "'auto'" if self.auto_depth else self.depth
        return (f"{type(self).__name__}(depth={depth}, evaluation={self.evaluation_name!r}, "
                f"ghost_model={self.ghost_model!r}, time_limit={self.time_limit}{engine})")


class ExpectimaxAgent(_SearchAgent):
    """Pacman maximises, every ghost is a chance layer.

    `ghost_model`: a ghost kind of `GHOST_KINDS` ("random": uniform,
    "directional": DirectionalGhost's distribution), a list of ghost agents, or
    None: the ghosts of the game being played (random ones are modelled as
    uniform), else uniform. `time_limit`
    (seconds) deepens iteratively up to `depth` (or without limit if depth is
    None) and answers with the deepest search that finished. `transposition`
    and `pruning` are exact. `pruning` is Star1 at the chance layers, which needs
    bounds on the evaluation: `dots` (the default), `scaled`, `safe` and `better` declare them for each search
    (``bounds_within(state, plies)``); with `score`, or any evaluation that
    declares neither that nor a fixed ``bounds = (low, high)``, it has no effect.

    `engine`: "auto" (the compiled core when the evaluation and ghost models are
    built-in and the core is installed, else Python), "python", or "compiled"
    (an AgentSpecError naming the reason when it cannot be used). Both engines
    give the same values, actions and node counts (docs/engine.md).

    `star2` (on by default) and `ordering` (off: it saves a tenth of the nodes
    at depth 4, but no time) work only with `pruning`, and are exact too. Star2
    probes Pacman's moves below the chance layers, tests his later moves with
    null windows and prunes each chance node with its own bounds; ordering
    searches the transposition table's best move first, the shallower depths
    first to find it (it needs `transposition`). With either, far ghosts are
    skipped: where no ghost can matter any more, a node's value comes from
    Pacman's moves alone (`PacmanGame.far_value`). See docs/engine.md.

    `node_limit` deepens iteratively, like `time_limit`, up to `depth` (or
    without limit if depth is None, or "auto" on a small maze; past depth 2 by DEEPENING_STEP plies at a
    time on a small maze, `deepening_step`), and stops where the searches together
    would count more than `node_limit` nodes: the deepest finished search
    answers. Unlike a time limit, the depth reached depends on the position
    alone (each decision searches from scratch), so games stay the same on
    every machine and both engines.

    ``depth="auto"`` (the default) is depth 2 (AUTO_DEPTH) on a maze where
    Pacman's region has SMALL_MAZE_CELLS (64) cells or more, but for a move with
    a ghost at most NEAR_GHOST_STEPS maze steps from Pacman (`ghost_near`): that
    move searches from scratch, one ply deeper at a time, while its searches
    count at most NEAR_GHOST_NODES nodes. On a smaller
    maze, with no time or node limit, each move searches from scratch to
    depth 2, then 4, 6, ... (DEEPENING_STEP) while the searches together count at most
    SMALL_MAZE_NODES (70,000) nodes: the deepest finished search answers, and
    the move depends on the position alone. It brings the default agent within
    a point or two of the exact optimum on most small mazes, where depth 2
    cannot see a trap ten moves on (docs/search-strength.md, "Deeper on small
    mazes"). An int depth is exactly that depth everywhere. A limit takes the
    place of the budget: with a `node_limit`, ``depth="auto"`` deepens the same
    way under that many nodes on a small maze (``node_limit=70000`` plays the
    default's moves wherever depth 2 fits in it), with a `time_limit` it deepens
    one ply at a time while the time lasts there; on a bigger maze it stays
    AUTO_DEPTH, near a ghost too, the limit only cutting that search short. ``depth=None`` deepens
    as far as the limit allows on every maze.

    A decision searched from scratch (``depth="auto"`` on a small maze or near a ghost, or a
    `node_limit` without a time limit) is remembered for the rest of the game
    (at most DECISION_CACHE_SIZE of them): a position met again is answered
    with the same move unsearched, and `last_search` says so (``nodes`` 0,
    ``extra["cached"]`` True; docs/search-strength.md, "Deeper on small mazes").

    The search's extent may also be given whole, as `depth`: ``ExpectimaxAgent(Nodes(2000))``, `Depth`,
    `Time` or `Auto` (the keywords above give these; `budget` holds the one chosen).
    """

    takes_auto = True

    def __init__(
        self,
        depth: int | str | Budget | None = "auto",
        evaluation: str | Callable[[GameState], float] | None = DEFAULT_EVALUATION,
        ghost_model: str | Sequence[Any] | None = None,
        time_limit: float | None = None,
        transposition: bool = True,
        pruning: bool = True,
        engine: str = "auto",
        star2: bool = True,
        ordering: bool = False,
        node_limit: int | None = None,
    ) -> None:
        super().__init__(depth, evaluation, ghost_model, time_limit, transposition, pruning, engine, node_limit,
                         star2, ordering)


class MinimaxAgent(_SearchAgent):
    """Pacman maximises, every ghost minimises; plain minimax (no pruning)."""

    ghosts_minimise = True

    def __init__(self, depth: int | Budget | None = 2,
                 evaluation: str | Callable[[GameState], float] = DEFAULT_EVALUATION, time_limit: float | None = None,
                 transposition: bool = True, engine: str = "auto") -> None:
        super().__init__(depth, evaluation, None, time_limit, transposition, pruning=False, engine=engine)


class AlphaBetaAgent(_SearchAgent):
    """Minimax with alpha-beta pruning: the same values as MinimaxAgent, fewer nodes."""

    ghosts_minimise = True

    def __init__(self, depth: int | Budget | None = 2,
                 evaluation: str | Callable[[GameState], float] = DEFAULT_EVALUATION, time_limit: float | None = None,
                 transposition: bool = True, engine: str = "auto") -> None:
        super().__init__(depth, evaluation, None, time_limit, transposition, pruning=True, engine=engine)
