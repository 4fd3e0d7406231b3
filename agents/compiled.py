"""The compiled search core (`pacman.agents._core`, written in C): whether it is here, when a search may use it, and
the bridge that makes it answer exactly as `pacman.agents.search.Searcher` does.

The core implements the rules (Pacman's heading included, where a game keeps
it), the evaluations and ghost models that declare a core form
(pacman.agents.declarations: `score`, `better`, `safe`; RandomGhost,
DirectionalGhost, ArcadeGhost and its personalities) and the expectiminimax of
`pacman.agents.search`
(transposition table, alpha-beta, Star1, Star2), with the same floating-point
operations in the same order, so values, node counts and chosen actions are the
Python engine's (tests/test_compiled_core.py and tests/test_core_parity.py check
it). `core_obstacle` is the one question every user of the core asks (agents,
environments, bench, and through the agents the command line): can the core run this evaluation
with these ghosts, and if not, why. A search agent with ``engine="auto"`` uses
the core when it can; anything else (a user's evaluation, a ghost kind without
a core form) runs on the Python engine, or is refused by name where the core is
insisted on. The core is optional: an install without a C compiler has none, and
`core_status` says so.

``PACMAN_AI_ENGINE=python`` in the environment turns the core off at run time
(``compiled`` makes every ``auto`` agent insist on it). See docs/engine.md.
"""

from __future__ import annotations

import importlib
import math
import os
import time
from typing import Any, Callable, Sequence

from pacman.agents.declarations import core_evaluation, core_ghost
from pacman.agents.evaluation import EVALUATIONS
from pacman.agents.ghosts import (
    AMBUSH_CELLS,
    ARCADE_TIE_ORDER,
    FLANK_CELLS,
    GHOST_KINDS,
    NO_HEADING,
    SHY_CORNER,
    SHY_DISTANCE,
    model_reads_heading,
)
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

__all__ = ["ENGINES", "ENGINE_VARIABLE", "core_status", "engine_line", "requested_engine", "core_obstacle",
           "core_evaluations", "core_ghost_kinds", "core_board", "core_state", "game_state", "core_games",
           "CompiledSearcher"]

#: The values of a search agent's ``engine`` argument.
ENGINES = ("auto", "python", "compiled")
#: The environment variable that overrides ``engine="auto"``: ``python`` or ``compiled``.
ENGINE_VARIABLE = "PACMAN_AI_ENGINE"


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
        return (f"engine: compiled ({why}) for the evaluations {', '.join(core_evaluations())} and the ghost kinds "
                f"{', '.join(core_ghost_kinds())}; python otherwise")
    return f"engine: python ({why})"


def core_obstacle(evaluation: Callable[..., float] | None = None, ghost_models: Sequence[Any] | None = None,
                  ghosts_minimise: bool = False, evaluation_name: str | None = None) -> str | None:
    """Why the compiled core cannot run a search or a game with this evaluation and these ghost models; None if
    it can. The one place that decides it: the agents (and so the command line), the environments and bench ask
    here; the solver plays every registered kind in Python.

    `evaluation` None: no evaluation (the environments step games only).
    `ghost_models` is what the Python engine would use (None: uniform chance
    layers); min layers (``ghosts_minimise``: minimax, alpha-beta) use no ghost
    model. The core runs only what declares a core form (pacman.agents.declarations)
    with a kernel it has; the reason names what it does not run.

    >>> from pacman.agents.ghosts import RandomGhost
    >>> class Stubborn(RandomGhost):  # moves otherwise: it inherits no core form
    ...     pass
    >>> core_obstacle(None, [Stubborn(1)]) is not None
    True
    """
    usable, why = core_status()
    if not usable:
        return why if _core is None else f"the compiled core is switched off ({why})"
    if evaluation is not None:
        name = evaluation_name or getattr(evaluation, "__name__", type(evaluation).__name__)
        form = core_evaluation(evaluation)
        if form is None:
            return (f"it needs an evaluation with a core form ({', '.join(core_evaluations())}); {name!r} is "
                    f"{'a Python function' if callable(evaluation) else type(evaluation).__name__} without one")
        if form.kernel not in _core.EVALUATION_KERNELS:
            return (f"evaluation {name!r} declares the core kernel {form.kernel!r}, which this build of the core "
                    f"does not have ({', '.join(_core.EVALUATION_KERNELS)})")
    if ghosts_minimise or ghost_models is None:
        return None
    for position, model in enumerate(ghost_models, start=1):
        form = core_ghost(model)
        if form is None:
            return (f"ghost {position} is a {type(model).__name__}, a kind the compiled core does not play (its "
                    f"class declares no core form; the core plays {', '.join(core_ghost_kinds())})")
        if form.kernel not in _core.GHOST_KERNELS:
            return (f"ghost {position} is a {type(model).__name__}, whose core kernel {form.kernel!r} this build "
                    f"of the core does not have ({', '.join(_core.GHOST_KERNELS)})")
        if form.kernel == "arcade" and form.personality not in _core.ARCADE_PERSONALITIES:
            return (f"ghost {position} is a {type(model).__name__}, whose personality {form.personality!r} this "
                    f"build of the core does not have ({', '.join(_core.ARCADE_PERSONALITIES)})")
        if getattr(model, "index", None) != position:
            return f"ghost {position}'s model is {model!r}, the model of another ghost"
    return None


def core_evaluations() -> tuple[str, ...]:
    """The registered evaluations (pacman.agents.evaluation.EVALUATIONS) that declare a core form, by name."""
    return tuple(name for name, function in EVALUATIONS.items() if core_evaluation(function) is not None)


def core_ghost_kinds() -> tuple[str, ...]:
    """The registered ghost kinds (pacman.agents.ghosts.GHOST_KINDS) whose class declares a core form, by name."""
    return tuple(name for name, cls in GHOST_KINDS.items() if "core_form" in vars(cls))


def _chance_layers(ghost_models: Sequence[Any] | None, ghosts: int) -> dict[str, Any]:
    """The core's chance layers of `ghosts` ghosts, from each model's core form (None: uniform), as the
    ``Searcher``'s arguments: each ghost's kernel (its number in ``_core.GHOST_KERNELS``), its table, an arcade
    ghost's personality (its number in ``_core.ARCADE_PERSONALITIES``) and the arcade's numbers
    (pacman.agents.ghosts). Call only after `core_obstacle` said yes."""
    if not ghost_models:
        return dict(kernels=[0] * ghosts, probabilities=[None] * ghosts, aims=None, arcade=None)
    forms = [core_ghost(model) for model in ghost_models]
    if any(form is None or form.kernel not in _core.GHOST_KERNELS for form in forms):  # never: core_obstacle refuses it
        raise AgentSpecError(core_obstacle(None, ghost_models) or "a ghost model without a core form")
    kernels = [_core.GHOST_KERNELS.index(form.kernel) for form in forms]
    tables = [dict(form.table) if form.kernel != "uniform" else None for form in forms]
    aims = [_core.ARCADE_PERSONALITIES.index(form.personality) if form.kernel == "arcade" else -1 for form in forms]
    return dict(kernels=kernels, probabilities=tables, aims=aims, arcade=_arcade_numbers())


def _arcade_numbers() -> tuple:
    """The arcade's numbers as the core takes them: the tie order (direction numbers), the cells ahead of Pacman
    the ambusher aims at and the flanker pivots on, the shy ghost's distance and corner."""
    numbers = (AMBUSH_CELLS, FLANK_CELLS, SHY_DISTANCE, *SHY_CORNER)
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):  # the core's sums are of ints
        raise AgentSpecError(f"the compiled core takes the arcade's cells and distances as ints, not {numbers}")
    return (tuple(ACTIONS.index(action) for action in ARCADE_TIE_ORDER), *numbers)


def _heading_refusal(ghost_models: Sequence[Any] | None, state: GameState) -> str | None:
    """Why the core must not search `state` with these ghost models: one aims ahead of Pacman and the state keeps
    no heading (the Python engine raises then, from `ArcadeGhost.target`); None if it may."""
    if state.pacman_heading is None and ghost_models and model_reads_heading(list(ghost_models)):
        return f"a ghost {NO_HEADING}"
    return None


def core_board(layout: Layout) -> Any:
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


def _mask_bytes(layout: Layout) -> int:
    """Bytes of a food or capsule mask of `layout` in the core: whole 64-bit words."""
    return ((layout.width * layout.height + 63) // 64) * 8


def core_state(state: GameState) -> tuple:
    """`state` in the core's form: its `position_key` with the masks as little-endian bytes, and Pacman's heading
    (0-4) last where the game keeps it (`GameState.pacman_heading`)."""
    pac, food, capsules, *rest = state.position_key
    size = _mask_bytes(state.layout)
    return (pac, food.to_bytes(size, "little"), capsules.to_bytes(size, "little"), *rest)


def game_state(layout: Layout, core_state: tuple) -> GameState:
    """The `GameState` of `layout` whose core form is `core_state` (`core_state`'s inverse)."""
    pac, food, capsules, *rest = core_state
    return GameState.from_position_key(layout, (pac, int.from_bytes(food, "little"),
                                                int.from_bytes(capsules, "little"), *rest))


def core_games(start: GameState, ghost_models: Sequence[Any], games: int, max_moves: int | None,
               arrays: dict[str, Any]) -> Any:
    """The core's ``Games``: `games` games from `start` against `ghost_models` (each with a core form, or an
    AgentSpecError naming the one without), writing into `arrays` (observations, rewards, terminated,
    truncated, masks). pacman.envs.core_games is its one user."""
    obstacle = core_obstacle(None, ghost_models) or _heading_refusal(ghost_models, start)
    if obstacle is not None:
        raise AgentSpecError(f"the compiled core cannot play these games: {obstacle}")
    layout = start.layout
    searcher = _core.Searcher(board=core_board(layout), ghosts=start.num_ghosts, evaluation=0, minimise=False,
                              prune=False, table_size=0, slack=0.0, distances=None, weights=None,
                              **_chance_layers(ghost_models, start.num_ghosts))
    return _core.Games(searcher=searcher, games=games, start=core_state(start), max_moves=max_moves or 0,
                       width=layout.width, height=layout.height, state_like=start, **arrays)


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
    `iterative_search` use: `search(node, depth, all_values, prefer)`, `nodes`, `deadline`, `clear()`.

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
        self._models = models
        form = core_evaluation(game.evaluation)
        if form is None or form.kernel not in _core.EVALUATION_KERNELS:  # never: agents ask core_obstacle first
            raise AgentSpecError(core_obstacle(game.evaluation) or "an evaluation without a core form")
        evaluation = _core.EVALUATION_KERNELS.index(form.kernel)  # the core's number of its kernel
        self._bytes = _mask_bytes(layout)
        distances, weights, region, diameter = (form.parameters(layout) if form.parameters is not None
                                                else (None,) * 4)
        # far ghosts (PacmanGame.far_value): the evaluation's horizon, tested with maze distances
        horizon = game.horizon(layout)
        horizon = -1 if horizon is None else horizon
        if horizon >= 0 and distances is None:
            distances = DistanceTable.of(layout).matrix
        features = form.kernel == "features"
        order = _distance_order(layout, distances) if features else None
        # the feature evaluation's bounds for Star1 (better_bounds_within) are computed by the core, from the
        # same numbers
        bounds = (region.to_bytes(self._bytes, "little"), diameter, UNREACHABLE) if features else None
        self._bounds_in_core = (prune and features
                                and game._bounds_within is game.evaluation.bounds_within)
        self._options = dict(board=core_board(layout), ghosts=ghosts, evaluation=evaluation,
                             minimise=game.ghost_kind == MIN, prune=prune, table_size=table_size, slack=_SLACK,
                             **_chance_layers(models, ghosts), distances=distances, weights=weights,
                             order=order, bounds=bounds, star2=star2, ordering=ordering, horizon=horizon,
                             score_free=game.score_free,
                             dots=form.dots(layout) if form.dots is not None else None)
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
        """`state` in the core's form (`core_state`). Raises AgentSpecError, as the Python engine's ghosts do,
        for a state without Pacman's heading when a ghost model aims ahead of him: the core never guesses it."""
        refusal = _heading_refusal(self._models, state)
        if refusal is not None:
            raise AgentSpecError(refusal)
        return core_state(state)

    def game_state(self, core_state: tuple) -> GameState:
        """The `GameState` of a state in the core's form."""
        return game_state(self.layout, core_state)

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

    def search(self, node: tuple, depth: float = math.inf, all_values: bool = True, prefer: Any = None) -> SearchResult:
        """Search from `node` = (state, 0) with Pacman to move: `Searcher.search`, the whole tree in C (ties to
        `prefer`, when it is a root action, then to the first in action order)."""
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
            self.core_state(state), int(depth), all_values, star1, low, high, budget, limit,
            ACTIONS.index(prefer) if prefer in ACTIONS else -1)
        self.nodes = nodes
        if out_of_time:
            raise OutOfTime
        labels = [ACTIONS[a] for a in actions]
        action_values = dict(zip(labels, values)) if values is not None else {labels[best]: value}
        return SearchResult(value, labels[best], depth, nodes, time.perf_counter() - started,
                            action_values=action_values, complete=bool(complete))
