"""The exact optimum of a small maze: the best any Pacman can do against a known ghost model.

`solve` enumerates every state reachable from the start (a node is a state
without its score, plus the agent to move), then runs value iteration over them:

- objective ``"win"``: the largest probability of winning. Value iteration
  starts from 0 and rises monotonically to the optimum (the least fixed point
  of the Bellman equations for reaching a won state); it stops when no node's
  value changes by more than `WIN_TOLERANCE` (1e-12) in one sweep.
- objective ``"score"``: the largest expected final score (every Pacman move
  -1, food +10, a ghost +200, the win +500, the loss -500). Every round costs a
  point, so a policy that never ends the game is worth minus infinity and the
  optimum is that of a stochastic shortest-path problem. First the nodes from
  which Pacman can end the game with probability 1 are found (the classic
  almost-sure reachability fixed point); the others are worth minus infinity
  and the optimum never enters them. If the start is one of them (no policy
  ends the game surely: a maze where Pacman can neither eat the last food nor
  meet a ghost), the expected score is unbounded below and `solve` refuses.
  Value iteration stops when no value changes by more than `SCORE_TOLERANCE`
  (1e-9) in one sweep.

The size limit is checked from the layout alone, before any state is made:
`estimated_nodes` bounds the reachable node count (Pacman's visited cells form
a connected set holding the start, which fixes the food and capsules left, or,
where that is fewer, every subset of the food and capsules with every cell of
Pacman's; ghosts, their last directions and scared timers multiply it). A maze whose
bound exceeds ``max_nodes`` (default `DEFAULT_MAX_NODES`, at most
`MAX_NODES_CEILING`) is refused with a `SolverError`. The bound is loose, so
exploring stops, with a `SolverError`, past `MAX_EXPLORED` nodes really reached,
which caps the memory whatever ``max_nodes`` admits.

The optimal policy for the win objective is taken among the value-maximising
moves, always one that brings a win nearest (fewest steps in the graph of
optimal moves): the first value-maximising move can be one that waits forever.

>>> from pacman import load_layout
>>> solution = solve(load_layout("test"), ghosts="random", objective="win")
>>> 0.0 < solution.value <= 1.0
True
"""

from __future__ import annotations

import functools
import math
from array import array
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from pacman.actions import Action
from pacman.agents.ghosts import GHOST_KINDS, RandomGhost, make_ghosts
from pacman.errors import AgentSpecError
from pacman.game import needs_heading
from pacman.hints import hints as caller_hints
from pacman.layout import Layout
from pacman.memory import SOLVER_NODE_BYTES, MemoryRefusal, check_memory, solver_bytes
from pacman.rules import SCARED_TIME
from pacman.state import GameState

__all__ = [
    "OBJECTIVES", "GHOST_MODELS", "DEFAULT_MAX_NODES", "WIN_TOLERANCE", "SCORE_TOLERANCE",
    "MAX_NODES_CEILING", "MAX_EXPLORED", "SolverError", "Solution", "estimated_nodes", "solve", "OptimalAgent",
]

#: What can be maximised: the probability of winning, or the expected final score.
OBJECTIVES = ("win", "score")
#: The ghost models the solver knows: every registered ghost kind (pacman.agents.ghosts.GHOST_KINDS) with its
#: default parameters; it plays them in Python, by their own `distribution`.
GHOST_MODELS = GHOST_KINDS.keys()  # a live view: a kind registered later is known too
#: The largest `estimated_nodes` a maze may have by default (about 0.5 KB of memory a node really reached).
DEFAULT_MAX_NODES = 8_000_000
#: The largest ``max_nodes`` accepted. The bound is loose (`tiny`: 83 million for 11.6 million nodes
#: reached), so a maze admitted this far is explored under `MAX_EXPLORED`, which caps the memory.
MAX_NODES_CEILING = 100_000_000
#: The most nodes the solver ever explores: past it, it stops with a SolverError and frees what it made
#: (`tiny`, 11.6 million nodes, peaks at 7 GB; this many would take about 9 GB).
MAX_EXPLORED = 15_000_000
#: Value iteration for the win probability stops once no value moves more than this in a sweep.
WIN_TOLERANCE = 1e-12
#: Value iteration for the expected score stops once no value moves more than this in a sweep.
SCORE_TOLERANCE = 1e-9
#: Sweeps after which value iteration gives up (a SolverError): it has not converged.
MAX_SWEEPS = 200_000
#: Two moves whose values differ by no more than this are both optimal.
TIE_TOLERANCE = 1e-9

_PROGRESS_EVERY = (1 << 14) - 1  # exploring calls `progress` once every 16,384 states
_WIN, _LOSE = -1, -2  # sinks: a child that is won or lost (the game ends there)


class SolverError(AgentSpecError):
    """A maze the solver cannot or will not solve: too large, unknown ghost model, no finite optimum."""


@dataclass(frozen=True)
class Solution:
    """The optimum of one maze, ghost model and objective, and the policy that reaches it."""

    layout: str
    """The layout's name."""
    ghosts: str
    """The ghost model: a ghost kind of `GHOST_MODELS` ("random", "directional", ...)."""
    num_ghosts: int
    """How many of the layout's ghosts are in the game."""
    objective: str
    """"win" (probability of winning) or "score" (expected final score)."""
    value: float
    """The optimum from the start (Pacman to move)."""
    action_values: dict[Action, float]
    """The optimum after each of Pacman's first moves (minus infinity: the game may never end)."""
    best_actions: tuple[Action, ...]
    """The first moves that reach the optimum (within `TIE_TOLERANCE`), in action order."""
    first_action: Action
    """The first move the optimal policy plays."""
    nodes: int
    """Reachable nodes (a state without its score, and the agent to move)."""
    estimated_nodes: int
    """The bound the size limit was checked against."""
    sweeps: int
    """Value-iteration sweeps until convergence."""
    tolerance: float
    """The largest change of any value in the last sweep was at most this."""
    policy: dict[tuple, Action] = field(repr=False, compare=False)
    """The optimal move of every reachable Pacman-to-move node, by `node_key`."""

    def action(self, state: GameState) -> Action:
        """The optimal policy's move in `state`; a SolverError for a state this solution never reached."""
        try:
            return self.policy[node_key(state)]
        except KeyError:
            raise SolverError(f"optimal policy for {self.layout!r}: state not reachable in the solved game "
                              f"(another layout, ghost count or rules?)") from None

    def to_json(self) -> dict[str, Any]:
        """The solution as JSON-ready data (minus infinity as None)."""
        def number(v: float) -> float | None:
            return None if math.isinf(v) else v
        return {
            "layout": self.layout, "ghosts": self.ghosts, "num_ghosts": self.num_ghosts,
            "objective": self.objective, "value": number(self.value),
            "action_values": {a.value: number(v) for a, v in self.action_values.items()},
            "best_actions": [a.value for a in self.best_actions], "first_action": self.first_action.value,
            "nodes": self.nodes, "estimated_nodes": self.estimated_nodes, "sweeps": self.sweeps,
            "tolerance": self.tolerance,
        }


def node_key(state: GameState) -> tuple:
    """A state without its score: Pacman, food, capsules, ghosts, scared timers (`GameState.position_key`), and
    Pacman's heading where the game keeps it."""
    key = state.position_key
    return key[:5] + key[7:]


# -- the size bound ----------------------------------------------------------------


class _TooMany(Exception):
    pass


def estimated_nodes(layout: Layout, num_ghosts: int | None = None, limit: int | None = None,
                    heading: bool = False) -> int:
    """An upper bound on the reachable nodes of `layout` with its first `num_ghosts` ghosts, from the layout alone.

    Pacman's visited cells are a connected set S holding his start; S fixes the
    food and capsules left and holds his position. For each such S the bound
    counts ``|S|`` Pacman positions times every ghost's possible (position, last
    direction, scared timer), times the agents to move. A second bound counts
    instead every (food and capsules left, Pacman's cell) pair there can be:
    the cells Pacman can reach times the subsets of the food and capsules among
    them. Many sets S leave the same food where a maze has few dots, so the
    smaller of the two is returned. Counting stops once the bound passes
    `limit` (then some number above `limit` is returned), so a large maze is
    refused in milliseconds. With `heading` (a game that keeps Pacman's heading) each of his cells counts
    once for each side he can have entered it by, and his start once more (before his first step).
    """
    if num_ghosts is None:
        num_ghosts = layout.num_ghosts
    open_cells = [(x, y) for x in range(layout.width) for y in range(layout.height) if not layout.is_wall(x, y)]
    index = {cell: i for i, cell in enumerate(open_cells)}
    neighbours = [0] * len(open_cells)
    # A ghost on a cell: each direction it can have entered by, or none (only on its start cell).
    cell_keys = len(layout.agent_starts) - 1
    half_keys = 0  # a scared ghost between two cells, moving one of two ways
    pacman_keys = [1] * len(open_cells)  # Pacman's (cell, heading) pairs on each cell
    for (x, y), i in index.items():
        sides = 0
        for dx, dy in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            j = index.get((x + dx, y + dy))
            if j is not None:
                neighbours[i] |= 1 << j
                sides += 1
        cell_keys += sides
        if heading:
            pacman_keys[i] = sides + ((x, y) == layout.agent_starts[0])
        half_keys += 2 * sum((x + dx, y + dy) in index for dx, dy in ((1, 0), (0, 1)))
    plain = cell_keys ** num_ghosts
    # Eating a capsule sets every timer to SCARED_TIME; each ghost's timer then falls by one
    # per own move or drops to 0 (expired, or eaten: home, on a cell). So the scared ghosts
    # share one timer (given the agent to move), and a ghost at 0 stands on a cell.
    scared = plain + SCARED_TIME * (2 * cell_keys + half_keys) ** num_ghosts
    agents = num_ghosts + 1
    capsule_mask = 0
    for cell in layout.capsules:
        capsule_mask |= 1 << index[cell]
    start = 1 << index[layout.agent_starts[0]]
    home = layout.region(layout.agent_starts[0])
    reach = sum(1 << i for cell, i in index.items() if layout.region(cell) == home)  # Pacman's cells
    food_mask = 0
    for cell in layout.food:
        food_mask |= 1 << index[cell]
    dots, capsules = (reach & food_mask).bit_count(), (reach & capsule_mask).bit_count()
    by_food = sum(pacman_keys[i] for i in range(len(open_cells)) if reach >> i & 1) * 2 ** dots * (plain + (2 ** capsules - 1) * scared) * agents
    cap = min(limit if limit is not None else math.inf, by_food)
    total = 0

    def visit(visited: int, size: int, frontier: int, banned: int) -> None:
        # Every connected set holding the start is reached exactly once: a branch
        # adds the lowest frontier cell, and later branches ban it.
        nonlocal total
        total += size * (scared if visited & capsule_mask else plain) * agents
        if total > cap:
            raise _TooMany
        while frontier:
            low = frontier & -frontier
            frontier ^= low
            banned |= low
            cell = low.bit_length() - 1
            visit(visited | low, size + pacman_keys[cell], frontier | (neighbours[cell] & ~visited & ~banned), banned)

    try:
        visit(start, pacman_keys[index[layout.agent_starts[0]]], neighbours[index[layout.agent_starts[0]]], start)
    except _TooMany:
        pass
    except RecursionError:  # only a maze far beyond any limit has that many open cells in one set
        return min(max(total, (limit or 0) + 1), by_food)
    return min(total, by_food)


# -- exploring the game --------------------------------------------------------------


def _ghost_models(ghosts: str, num_ghosts: int) -> list[Any] | None:
    """The models of a ghost kind's `num_ghosts` ghosts; None for plain random ones (uniform)."""
    if ghosts not in GHOST_KINDS:
        raise SolverError(f"unknown ghost model {ghosts!r} (expected one of: {', '.join(GHOST_MODELS)})")
    models = make_ghosts(ghosts, num_ghosts)
    return None if all(type(model) is RandomGhost for model in models) else models


class _Graph:
    """Every reachable node and its edges, in compressed rows; sinks are `_WIN` and `_LOSE`."""

    def __init__(self, start: GameState, models: list[Any] | None, limit: int = MAX_EXPLORED,
                 progress: Callable[[str], None] | None = None) -> None:
        num_agents = start.num_agents
        index: dict[tuple, int] = {(node_key(start), 0): 0}
        pending: list[GameState | None] = [start]
        agent_of = array("b", [0])
        first = array("q", [0])
        child = array("q")
        weight = array("d")
        reward = array("d")
        action_of = array("b")  # Pacman's edges: the action's position in `_ACTIONS`
        i = 0
        while i < len(pending):
            if progress is not None and i and not i & _PROGRESS_EVERY:
                progress(f"{len(pending):,} states found, {i:,} explored (at most {limit:,})")
            state = pending[i]
            pending[i] = None
            agent = agent_of[i]
            following = agent + 1 if agent + 1 < num_agents else 0
            if agent == 0:
                actions = state.legal_actions(0)
                children = state.successors(0)
                probabilities: Sequence[float] = (1.0,) * len(actions)
            elif models is None:
                children = state.successors(agent)
                probabilities = (1.0 / len(children),) * len(children)
                actions = ()
            else:
                distribution = [(a, p) for a, p in models[agent - 1].distribution(state) if p > 0.0]
                actions = ()
                children = state.successors(agent, [a for a, _ in distribution])
                probabilities = [p for _, p in distribution]
            score = state.score
            for j, (successor, probability) in enumerate(zip(children, probabilities)):
                if successor.is_win():
                    target = _WIN
                elif successor.is_lose():
                    target = _LOSE
                else:
                    key = (node_key(successor), following)
                    target = index.get(key)
                    if target is None:
                        if len(pending) >= limit:
                            raise _TooMany
                        target = index[key] = len(pending)
                        pending.append(successor)
                        agent_of.append(following)
                child.append(target)
                weight.append(probability)
                reward.append(successor.score - score)
                if agent == 0:
                    action_of.append(_ACTION_INDEX[actions[j]])
            first.append(len(child))
            i += 1
        self.size = len(pending)
        self.num_agents = num_agents
        self.agent = np.frombuffer(agent_of, dtype=np.int8).copy()
        self.first = np.frombuffer(first, dtype=np.int64).copy()
        child_array = np.frombuffer(child, dtype=np.int64).copy()
        # Sinks go after the nodes, so that a value vector indexes them directly.
        child_array[child_array == _WIN] = self.size
        child_array[child_array == _LOSE] = self.size + 1
        self.child = child_array
        self.weight = np.frombuffer(weight, dtype=np.float64).copy()
        self.reward = np.frombuffer(reward, dtype=np.float64).copy()
        self.pacman_actions = np.frombuffer(action_of, dtype=np.int8).copy()
        # Pacman's nodes by key, for the policy; the other keys are dropped.
        self.pacman_keys = {key[0]: n for key, n in index.items() if key[1] == 0}


_ACTIONS = tuple(Action)
_ACTION_INDEX = {action: i for i, action in enumerate(_ACTIONS)}


# -- value iteration -------------------------------------------------------------------


@dataclass
class _Layer:
    """The nodes of one agent to move among `nodes` and their edges, ready for `reduceat`."""

    nodes: np.ndarray
    child: np.ndarray
    weight: np.ndarray
    reward: np.ndarray
    starts: np.ndarray
    edges: np.ndarray  # the edges' positions in the graph's arrays


def _layers(graph: _Graph, members: np.ndarray) -> list[_Layer]:
    """One `_Layer` per agent among the nodes flagged in `members`: last ghost first, Pacman last.

    That order makes a sweep Gauss-Seidel: each layer reads the layer it just updated.
    """
    layers = []
    counts = np.diff(graph.first)
    for agent in [*range(graph.num_agents - 1, 0, -1), 0]:
        nodes = np.flatnonzero((graph.agent == agent) & members)
        if not len(nodes):
            continue
        lengths = counts[nodes]
        starts = np.zeros(len(nodes), dtype=np.int64)
        np.cumsum(lengths[:-1], out=starts[1:])
        edges = np.repeat(graph.first[nodes] - starts, lengths) + np.arange(int(lengths.sum()))
        layers.append(_Layer(nodes, graph.child[edges], graph.weight[edges], graph.reward[edges], starts, edges))
    return layers


def _iterate(graph: _Graph, layers: list[_Layer], values: np.ndarray, with_rewards: bool,
             tolerance: float, layout_name: str, progress: Callable[[str], None] | None = None) -> int:
    """Sweep until no value moves by more than `tolerance`; the number of sweeps."""
    change = math.inf
    for sweep in range(1, MAX_SWEEPS + 1):
        if progress is not None:
            progress(f"value iteration over {graph.size:,} states: sweep {sweep:,}, last change {change:.3g} "
                     f"(until <= {tolerance:g})")
        change = 0.0
        for layer in layers:
            q = values[layer.child]
            if with_rewards:
                q = q + layer.reward
            if graph.agent[layer.nodes[0]] == 0:
                new = np.maximum.reduceat(q, layer.starts)
            else:
                new = np.add.reduceat(q * layer.weight, layer.starts)
            old = values[layer.nodes]
            finite = np.isfinite(new) & np.isfinite(old)
            if finite.any():
                change = max(change, float(np.max(np.abs(new[finite] - old[finite]))))
            if not np.array_equal(np.isfinite(new), np.isfinite(old)):
                change = math.inf
            values[layer.nodes] = new
        if change <= tolerance:
            return sweep
    raise SolverError(f"{layout_name}: value iteration did not converge to {tolerance:g} in {MAX_SWEEPS} sweeps")


def _surely_ending(graph: _Graph) -> np.ndarray:
    """The nodes from which Pacman can end the game with probability 1 (almost-sure reachability of a sink).

    The classic fixed point: keep only nodes that can still reach a sink by
    edges inside the kept set, where a ghost's node is kept only if all its
    outcomes are; repeat until nothing changes.
    """
    n = graph.size
    counts = np.diff(graph.first)
    source = np.repeat(np.arange(n), counts)
    is_chance = graph.agent != 0
    order = np.argsort(graph.child, kind="stable")
    sorted_child = graph.child[order]
    sorted_source = source[order].tolist()
    bounds = np.searchsorted(sorted_child, np.arange(n + 3)).tolist()
    kept = np.ones(n + 2, dtype=bool)  # the two sinks are always kept
    while True:
        # Drop ghost nodes with an outcome outside the kept set, and Pacman nodes with no move inside it.
        while True:
            inside = kept[graph.child]
            all_inside = np.logical_and.reduceat(inside, graph.first[:-1])
            any_inside = np.logical_or.reduceat(inside, graph.first[:-1])
            ok = np.where(is_chance, all_inside, any_inside) & kept[:n]
            if np.array_equal(ok, kept[:n]):
                break
            kept[:n] = ok
        # Which kept nodes reach a sink inside the kept set?
        reach = np.zeros(n + 2, dtype=bool)
        reach[n] = reach[n + 1] = True
        queue = [n, n + 1]
        kept_list = kept.tolist()
        while queue:
            target = queue.pop()
            for e in range(bounds[target], bounds[target + 1]):
                s = sorted_source[e]
                if kept_list[s] and not reach[s]:
                    reach[s] = True
                    queue.append(s)
        if np.array_equal(reach, kept):
            return kept[:n]
        kept = reach


def _win_ranks(graph: _Graph, optimal: np.ndarray) -> np.ndarray:
    """Each node's distance to a win through optimal Pacman moves and any ghost outcome (-1: none)."""
    n = graph.size
    counts = np.diff(graph.first)
    source = np.repeat(np.arange(n), counts)
    usable = optimal | (graph.agent[source] != 0)
    edge_source = source[usable]
    edge_child = graph.child[usable]
    order = np.argsort(edge_child, kind="stable")
    sorted_child = edge_child[order]
    sorted_source = edge_source[order].tolist()
    bounds = np.searchsorted(sorted_child, np.arange(n + 3)).tolist()
    rank = [-1] * (n + 2)
    rank[n] = 0
    frontier = [n]
    depth = 0
    while frontier:
        depth += 1
        following = []
        for target in frontier:
            for e in range(bounds[target], bounds[target + 1]):
                s = sorted_source[e]
                if rank[s] < 0:
                    rank[s] = depth
                    following.append(s)
        frontier = following
    return np.array(rank, dtype=np.int64)


def solve(layout: Layout, ghosts: str = "random", objective: str = "win", num_ghosts: int | None = None,
          max_nodes: int = DEFAULT_MAX_NODES, *, progress: Callable[[str], None] | None = None,
          hints: Mapping[str, str] | None = None) -> Solution:
    """The optimum of `layout` against `ghosts` for `objective`, and the policy reaching it.

    `hints` says how the caller's user gives what a refusal suggests, so that it names
    only what the caller takes (by default `pacman.hints`: the calling command's flags, or
    Python's keywords). `progress`, if given, is called with a short line of what is being done (states
    explored, sweeps) every few thousand states and every sweep; `pacman.progress.Progress`
    rate-limits it for a user.

    Raises SolverError for a maze whose `estimated_nodes` exceed `max_nodes`
    (checked before anything is allocated), an unknown ghost model or objective,
    a score objective with no finite optimum, or value iteration that does not
    converge in `MAX_SWEEPS` sweeps.
    """
    hints = {**caller_hints(), **(hints or {})}
    if objective not in OBJECTIVES:
        raise SolverError(f"unknown objective {objective!r} (expected one of: {', '.join(OBJECTIVES)})")
    if ghosts not in GHOST_MODELS:
        raise SolverError(f"unknown ghost model {ghosts!r} (expected one of: {', '.join(GHOST_MODELS)})")
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or not 1 <= max_nodes <= MAX_NODES_CEILING:
        raise SolverError(f"max_nodes must be an int from 1 to {MAX_NODES_CEILING:,}, got {max_nodes!r}")
    start = GameState.initial(layout, num_ghosts)  # checks num_ghosts against the layout
    num_ghosts = start.num_ghosts
    models = _ghost_models(ghosts, num_ghosts)
    heading = models is not None and needs_heading(models)
    if heading:  # ghosts that aim ahead of Pacman: his heading is part of every state
        start = GameState.initial(layout, num_ghosts, heading=True)
    bound = estimated_nodes(layout, num_ghosts, limit=max_nodes, heading=heading)
    with_ghosts = f"{layout.name!r} with {num_ghosts} ghost{'s' if num_ghosts != 1 else ''}"
    if bound > max_nodes:
        hint = ""
        ceiling = MAX_NODES_CEILING
        if max_nodes < ceiling and estimated_nodes(layout, num_ghosts, ceiling, heading) <= ceiling:
            hint = (f" ({hints['max_nodes']} up to {MAX_NODES_CEILING:,} lets it try, exploring at most "
                    f"{MAX_EXPLORED:,})")
        raise SolverError(
            f"{with_ghosts} is too large to solve exactly: more than {max_nodes:,} nodes possible (the limit)"
            f"{hint}; the solver takes small mazes such as test, trapped, coinflip, threeway, corridor, pocket")
    if start.is_terminal():
        raise SolverError(f"{layout.name!r}: the game is over before the first move")
    explored = min(max_nodes, MAX_EXPLORED)
    try:  # before any state is made: the bound's states (at most `explored`) at their measured peak size
        states = min(bound, explored)
        check_memory(f"solving {with_ghosts}", solver_bytes(states),
                     f"up to {states:,} states of {SOLVER_NODE_BYTES} bytes")
    except MemoryRefusal as exc:
        raise SolverError(str(exc)) from None
    if progress is not None:
        progress(f"exploring {with_ghosts}: at most {min(bound, explored):,} states")
    try:
        graph = _Graph(start, models, explored, progress)
    except _TooMany:
        raise SolverError(f"{with_ghosts} is too large to solve exactly: it has more than {explored:,} reachable "
                          f"nodes (bound {bound:,}), the most the solver explores") from None
    n = graph.size
    values = np.zeros(n + 2)
    if objective == "win":
        values[n] = 1.0
        members = np.ones(n, dtype=bool)
        tolerance = WIN_TOLERANCE
    else:
        members = _surely_ending(graph)
        if not members[0]:
            raise SolverError(
                f"{layout.name!r}: no policy ends the game with probability 1 (Pacman can neither surely win "
                f"nor meet a ghost), so the expected score is unbounded below; use {hints['objective_win']}")
        values[:n][~members] = -math.inf
        tolerance = SCORE_TOLERANCE
    layers = _layers(graph, members)
    sweeps = _iterate(graph, layers, values, objective == "score", tolerance, layout.name, progress)
    if progress is not None:
        progress(f"converged after {sweeps:,} sweeps; choosing the optimal move of each of {graph.size:,} states")

    # Pacman's move in every node: the best value (within TIE_TOLERANCE); for the win, the one nearest a win.
    pacman = np.flatnonzero(graph.agent == 0)
    counts = np.diff(graph.first)
    source = np.repeat(np.arange(n), counts)
    q = values[graph.child] + (graph.reward if objective == "score" else 0.0)
    node_value = values[:n][source]
    with np.errstate(invalid="ignore"):
        optimal = (graph.agent[source] == 0) & (q >= node_value - TIE_TOLERANCE) & np.isfinite(q)
    optimal |= (graph.agent[source] == 0) & np.isinf(node_value)  # a node worth -inf: any move
    if objective == "win":
        rank = _win_ranks(graph, optimal)
        preference = np.where(rank[graph.child] >= 0, rank[graph.child], np.iinfo(np.int64).max // 2)
    else:
        preference = np.zeros(len(q), dtype=np.int64)
    policy_edge = {}
    first = graph.first.tolist()
    optimal_list = optimal.tolist()
    preference_list = preference.tolist()
    for node in pacman.tolist():
        best = None
        for e in range(first[node], first[node + 1]):
            if optimal_list[e] and (best is None or preference_list[e] < preference_list[best]):
                best = e
        policy_edge[node] = best
    actions = graph.pacman_actions
    pacman_edge_rank = np.cumsum(graph.agent[source] == 0) - 1  # an edge's position among Pacman's edges
    policy = {key: _ACTIONS[actions[pacman_edge_rank[policy_edge[node]]]] for key, node in graph.pacman_keys.items()}

    root_edges = range(first[0], first[1])
    action_values = {_ACTIONS[actions[pacman_edge_rank[e]]]: float(q[e]) for e in root_edges}
    best_actions = tuple(a for a, v in action_values.items() if v >= values[0] - TIE_TOLERANCE)
    return Solution(
        layout=layout.name, ghosts=ghosts, num_ghosts=num_ghosts, objective=objective, value=float(values[0]),
        action_values=action_values, best_actions=best_actions,
        first_action=_ACTIONS[actions[pacman_edge_rank[policy_edge[0]]]], nodes=n, estimated_nodes=bound,
        sweeps=sweeps, tolerance=tolerance, policy=policy,
    )


@functools.lru_cache(maxsize=4)
def _cached_solution(layout: Layout, ghosts: str, objective: str, num_ghosts: int, max_nodes: int) -> Solution:
    """A few recent solutions (bounded: a batch builds a fresh agent for each game of one maze)."""
    return solve(layout, ghosts, objective, num_ghosts, max_nodes)


class OptimalAgent:
    """Plays the exact optimum of a small maze (`solve`): the most likely win, or the best expected score.

    `ghost_model`: a ghost kind of `GHOST_MODELS` ("random", "directional", ...),
    or None for the kind of ghosts in the game (they must all be of one kind,
    with its default parameters). The maze is solved when the game starts; a maze
    too large (`max_nodes`), or ghosts the solver does not model, are refused then
    with an AgentSpecError.
    """

    def __init__(self, objective: str = "win", ghost_model: str | None = None,
                 max_nodes: int = DEFAULT_MAX_NODES) -> None:
        if objective not in OBJECTIVES:
            raise AgentSpecError(f"OptimalAgent: objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
        if ghost_model is not None and ghost_model not in GHOST_MODELS:
            raise AgentSpecError(
                f"OptimalAgent: ghost_model must be one of {', '.join(GHOST_MODELS)} or None, got {ghost_model!r}")
        if isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or not 1 <= max_nodes <= MAX_NODES_CEILING:
            raise AgentSpecError(f"OptimalAgent: max_nodes must be an int from 1 to {MAX_NODES_CEILING:,}, "
                                 f"got {max_nodes!r}")
        self.objective = objective
        self.ghost_model = ghost_model
        self.max_nodes = max_nodes
        self.solution: Solution | None = None

    def reset(self, rng: Any = None, ghost_agents: Sequence[Any] = (), layout: Layout | None = None) -> None:
        """Solve the game's maze against its ghosts (or `ghost_model`) before the first move."""
        if layout is None:
            self.solution = None
            return
        model = self.ghost_model or _model_of(ghost_agents)
        self.solution = _cached_solution(layout, model, self.objective, len(ghost_agents), self.max_nodes)

    def get_action(self, state: GameState) -> Action:
        """The optimal policy's move (the maze is solved on first use if no game announced it)."""
        solution = self.solution
        if solution is None or solution.num_ghosts != state.num_ghosts or solution.layout != state.layout.name:
            model = self.ghost_model or "random"
            solution = self.solution = _cached_solution(state.layout, model, self.objective, state.num_ghosts,
                                                        self.max_nodes)
        return solution.action(state)

    def __repr__(self) -> str:
        return f"OptimalAgent(objective={self.objective!r}, ghost_model={self.ghost_model!r})"


def _model_of(ghost_agents: Sequence[Any]) -> str:
    """The solver's name for the ghosts in play: the ghost kind they all are, with its default parameters; a
    SolverError for ghosts it does not model."""
    for kind in GHOST_MODELS:
        if all(type(g) is GHOST_KINDS[kind] and vars(g) == vars(model)
               for g, model in zip(ghost_agents, make_ghosts(kind, len(ghost_agents)))):
            return kind
    raise SolverError(f"OptimalAgent: the ghosts in play are not all of one ghost kind with its default parameters "
                      f"({', '.join(GHOST_MODELS)}); name the model with ghost_model={'|'.join(GHOST_MODELS)}")
