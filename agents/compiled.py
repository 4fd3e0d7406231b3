"""The compiled search core (`pacman.agents._core`, written in C): whether it is here, when a search may use it, and
the bridge that makes it answer exactly as `pacman.agents.search.Searcher` does.

The core implements the rules, the built-in evaluations (`score`, `better`), the
built-in ghost models (uniform, `DirectionalGhost`) and the expectiminimax of
`pacman.agents.search` (transposition table, alpha-beta, Star1), with the same
floating-point operations in the same order, so values, node counts and chosen
actions are the Python engine's (tests/test_compiled_core.py checks it). A
search agent with ``engine="auto"`` uses it when it can; anything else (a
user's evaluation or ghost model) runs on the Python engine. The core is
optional: an install without a C compiler has none, and `core_status` says so.

``PACMAN_AI_ENGINE=python`` in the environment turns the core off at run time
(``compiled`` makes every ``auto`` agent insist on it). See docs/engine.md.
"""

from __future__ import annotations

import importlib
import math
import os
import time
from typing import Any, Callable, Sequence

from pacman.agents.evaluation import (better_evaluation, better_parameters, safe_evaluation, scaled_evaluation,
                                     score_evaluation)
from pacman.agents.ghosts import DirectionalGhost, RandomGhost
from pacman.agents.search import _SLACK, MIN, OutOfTime, SearchResult, star1_window
from pacman.actions import ACTIONS
from pacman.distances import UNREACHABLE, DistanceTable
from pacman.errors import AgentSpecError
from pacman.layout import Layout
from pacman.rules import (
    COLLISION_DISTANCE,
    FOOD_POINTS,
    GHOST_POINTS,
    LOSE_POINTS,
    MOVE_COST,
    SCARED_TIME,
    WIN_POINTS,
)
from pacman.state import GameState

try:  # imported here, once, so that a sandbox that later forbids imports still has it
    _core: Any = importlib.import_module("pacman.agents._core")
except ImportError as exc:  # not built (no compiler, or PACMAN_AI_BUILD_CORE=0): the Python engine does it all
    _core = None
    _IMPORT_PROBLEM = f"compiled core not built: {exc}"
else:
    _IMPORT_PROBLEM = ""

__all__ = ["ENGINES", "ENGINE_VARIABLE", "core_status", "engine_line", "requested_engine", "compiled_obstacle",
           "CompiledSearcher"]

#: The values of a search agent's ``engine`` argument.
ENGINES = ("auto", "python", "compiled")
#: The environment variable that overrides ``engine="auto"``: ``python`` or ``compiled``.
ENGINE_VARIABLE = "PACMAN_AI_ENGINE"

#: Evaluations the core implements, by the function the Python engine calls (the core's numbering).
_EVALUATIONS: dict[Callable[..., float], int] = {score_evaluation: 0, better_evaluation: 1, safe_evaluation: 1,
                                                 scaled_evaluation: 1}


def requested_engine() -> str:
    """What ``PACMAN_AI_ENGINE`` asks of ``auto`` agents: ``auto`` when unset or empty.

    Raises AgentSpecError for a value that is not one of `ENGINES`.
    """
    value = os.environ.get(ENGINE_VARIABLE, "").strip().lower()
    if not value:
        return "auto"
    if value not in ENGINES:
        raise AgentSpecError(f"{ENGINE_VARIABLE}={os.environ[ENGINE_VARIABLE]!r}: expected one of {', '.join(ENGINES)}")
    return value


def core_status() -> tuple[bool, str]:
    """(usable, why): whether the compiled core can run searches here, and the reason in a few words.

    >>> usable, why = core_status()
    >>> why in ("pacman.agents._core", f"{ENGINE_VARIABLE}=python") or why.startswith("compiled core not built")
    True
    """
    if _core is None:
        return False, _IMPORT_PROBLEM
    if os.environ.get(ENGINE_VARIABLE, "").strip().lower() == "python":
        return False, f"{ENGINE_VARIABLE}=python"
    return True, "pacman.agents._core"


def engine_line() -> str:
    """One line saying which engine search agents use by default here, and why: what bench prints."""
    usable, why = core_status()
    if usable:
        return f"engine: compiled ({why}) for the built-in evaluations and ghost models; python otherwise"
    return f"engine: python ({why})"


def compiled_obstacle(evaluation: Callable[..., float], evaluation_name: str, ghost_models: Sequence[Any] | None,
                      ghosts_minimise: bool) -> str | None:
    """Why a search with this evaluation and these ghost models cannot run on the core; None if it can.

    `ghost_models` is what the Python engine would use (None: uniform). Min
    layers (minimax, alpha-beta) use no ghost model.
    """
    usable, why = core_status()
    if not usable:
        return why if _core is None else f"the compiled core is switched off ({why})"
    if evaluation not in _EVALUATIONS:
        return (f"it needs a built-in evaluation (score, better, safe, scaled); {evaluation_name!r} is "
                f"{'a Python function' if callable(evaluation) else type(evaluation).__name__}")
    if ghosts_minimise or ghost_models is None:
        return None
    for position, model in enumerate(ghost_models, start=1):
        if type(model) not in (RandomGhost, DirectionalGhost):
            return (f"it needs built-in ghost models (random, directional); ghost {position}'s model is a "
                    f"{type(model).__name__}")
        if model.index != position:
            return f"ghost {position}'s model is {model!r}, the model of another ghost"
    return None


def _board(layout: Layout) -> Any:
    """The core's move tables of `layout`, built on first use and kept with the layout."""
    def build(layout: Layout) -> Any:
        h = layout.height
        walls = bytes(layout.is_wall(x, y) for x in range(layout.width) for y in range(h))
        starts = tuple(2 * x * 2 * h + 2 * y for x, y in layout.agent_starts)
        # Collisions on the doubled grid, where distances are whole numbers: within 2 * COLLISION_DISTANCE.
        rules = (SCARED_TIME, FOOD_POINTS, WIN_POINTS, GHOST_POINTS, LOSE_POINTS, MOVE_COST,
                 math.floor(2 * COLLISION_DISTANCE))
        return _core.Board(layout.width, layout.height, walls, starts, rules)

    return layout.derived("compiled_board", build)


#: Up to this many cells (every shipped layout has under 800) `better` finds the nearest food by walking
#: each cell's cells in order of distance: 2 bytes per pair of cells, 2 MiB at 1024 cells.
_ORDER_CELLS = 1024


def _distance_order(layout: Layout, distances: Any) -> bytes | None:
    """Each cell's cells by maze distance (the core's `distance_order`), kept with the layout; None on
    layouts larger than `_ORDER_CELLS`, where the core takes the least distance over the food instead."""
    cells = layout.width * layout.height
    if cells > _ORDER_CELLS:
        return None
    return layout.derived("compiled_distance_order", lambda _: _core.distance_order(distances, cells))


class CompiledSearcher:
    """A Pacman search on the core with the interface of `pacman.agents.search.Searcher` that the agents and
    `iterative_search` use: `search(node, depth, all_values)`, `nodes`, `deadline`, `clear()`.

    One per agent, layout and number of agents, as the Python searcher: its
    transposition table lives across the decisions of a game, bounded by
    `table_size` entries and cleared when full, exactly as the Python table, so
    even the node counts agree. `game` is the `PacmanGame` the Python engine
    would search: Star1's bounds for each search come from it.
    """

    def __init__(self, layout: Layout, num_agents: int, game: Any, prune: bool, table_size: int,
                 star2: bool = False, ordering: bool = False) -> None:
        if _core is None:
            raise AgentSpecError(_IMPORT_PROBLEM)
        self.game = game
        self.prune = prune
        self.nodes = 0
        self.deadline: float | None = None
        self.node_limit: int | float = math.inf  # as Searcher.node_limit
        self.layout = layout
        ghosts = num_agents - 1
        models = game.ghost_models if game.ghost_kind != MIN else None
        directional = [type(model) is DirectionalGhost for model in models] if models else [False] * ghosts
        tables = [model.probability_table() if flag else None for model, flag in zip(models or (), directional)]
        if not models:
            tables = [None] * ghosts
        evaluation = _EVALUATIONS[game.evaluation]
        self._bytes = ((layout.width * layout.height + 63) // 64) * 8
        distances, weights, region, diameter = (better_parameters(layout, game.evaluation) if evaluation == 1
                                                else (None,) * 4)
        # far ghosts (PacmanGame.far_value): the evaluation's horizon, tested with maze distances
        horizon = game._horizon if game._horizon is not None else -1
        if horizon >= 0 and distances is None:
            distances = DistanceTable.of(layout).matrix
        order = _distance_order(layout, distances) if evaluation == 1 else None
        # the feature evaluation's bounds for Star1 (better_bounds_within) are computed by the core, from the
        # same numbers
        bounds = (region.to_bytes(self._bytes, "little"), diameter, UNREACHABLE) if evaluation == 1 else None
        self._bounds_in_core = (prune and evaluation == 1
                                and getattr(game, "_bounds_within", None) is game.evaluation.bounds_within)
        self._options = dict(board=_board(layout), ghosts=ghosts, evaluation=evaluation,
                             minimise=game.ghost_kind == MIN, prune=prune, table_size=table_size, slack=_SLACK,
                             directional=directional, probabilities=tables, distances=distances, weights=weights,
                             order=order, bounds=bounds, star2=star2, ordering=ordering, horizon=horizon)
        self._core = _core.Searcher(**self._options)
        self.star1 = star1_window(prune, game.bounds)[0]
        """True if the last search (or, before any, the evaluation's fixed bounds) let Star1 prune."""

    @property
    def table_entries(self) -> int:
        """Entries in the transposition table now (at most `table_size`)."""
        return self._core.table_entries

    def clear(self) -> None:
        """Forget the transposition table."""
        self._core.clear()

    def core_state(self, state: GameState) -> tuple:
        """`state` in the core's form: its `position_key` with the masks as little-endian bytes."""
        pac, food, capsules, ghosts, timers, score, status = state.position_key
        return (pac, food.to_bytes(self._bytes, "little"), capsules.to_bytes(self._bytes, "little"),
                ghosts, timers, score, status)

    def game_state(self, core_state: tuple) -> GameState:
        """The `GameState` of a state in the core's form."""
        pac, food, capsules, ghosts, timers, score, status = core_state
        return GameState.from_position_key(self.layout, (pac, int.from_bytes(food, "little"),
                                                         int.from_bytes(capsules, "little"), ghosts, timers,
                                                         score, status))

    def successors(self, state: GameState, agent: int) -> list[tuple[Any, GameState]]:
        """(action, successor) for every legal action of `agent`, computed by the core (for tests)."""
        return [(ACTIONS[a], self.game_state(s)) for a, s in self._core.successors(self.core_state(state), agent)]

    def distribution(self, state: GameState, agent: int) -> list[tuple[Any, float]]:
        """The chance layer of ghost `agent` in `state` as the core computes it (for tests)."""
        return [(ACTIONS[a], p) for a, p in self._core.distribution(self.core_state(state), agent)]

    def evaluate(self, state: GameState) -> float:
        """The evaluation of `state` as the core computes it (for tests)."""
        return self._core.evaluate(self.core_state(state))

    def bounds(self, state: GameState, plies: int) -> tuple[float, float]:
        """`better_bounds_within(state, plies)` as the core computes it (tests; `better`, `safe`, `scaled` only)."""
        return self._core.bounds(self.core_state(state), plies)

    def search(self, node: tuple, depth: float = math.inf, all_values: bool = True) -> SearchResult:
        """Search from `node` = (state, 0) with Pacman to move: `Searcher.search`, the whole tree in C."""
        started = time.perf_counter()
        state, agent = node
        if agent != 0 or state.is_terminal() or not 1 <= depth <= 1000 or depth != int(depth):
            raise ValueError(f"the compiled search starts from Pacman's move in a live state, to a depth "
                             f"of 1..1000 plies; got agent {agent}, depth {depth}")
        if self._bounds_in_core:  # better_bounds_within(state, depth) and star1_window, in C
            star1, low, high = -1, 0.0, 0.0
            self.star1 = True
        else:
            star1, low, high = star1_window(self.prune, self.game.search_bounds(node, depth) if self.prune else None)
            self.star1 = star1
        budget = -1.0 if self.deadline is None else max(0.0, self.deadline - time.perf_counter())
        core = self._core
        if core.busy:  # an abandoned search (a move time limit ran out) still runs in another thread
            core = _core.Searcher(**self._options)
        limit = -1 if math.isinf(self.node_limit) else int(self.node_limit)
        value, best, values, actions, nodes, complete, out_of_time = core.search(
            self.core_state(state), int(depth), all_values, star1, low, high, budget, limit)
        self.nodes = nodes
        if out_of_time:
            raise OutOfTime
        labels = [ACTIONS[a] for a in actions]
        action_values = dict(zip(labels, values)) if values is not None else {labels[best]: value}
        return SearchResult(value, labels[best], depth, nodes, time.perf_counter() - started,
                            action_values=action_values, complete=bool(complete))
