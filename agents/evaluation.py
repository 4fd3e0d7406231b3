"""Evaluation functions: a state's value to Pacman where the search stops.

An evaluation is any callable ``state -> float``. It may declare bounds on the
values it returns, and search then prunes with Star1 (exactly): a fixed attribute
``bounds = (low, high)`` true for every state, or a function attribute
``bounds_within(state, plies) -> (low, high)`` true for every state that `plies`
moves of each agent can reach from `state` (scores have no fixed bounds: every
move costs a point). `better` declares `bounds_within`; `score` declares none.
It may also declare ``ghost_horizon = H`` (an int >= 0): its value of a live
state does not depend on where a ghost is, or which way it faces, while the
ghost is hunting and more than H maze steps from Pacman, or scared with a
timer no greater than its distance from him. Expectimax with Star2 then skips
ghosts that stay so (docs/engine.md, "Far ghosts"): `better` declares 8,
`score` 0. `resolve_evaluation` turns what a user writes
into a callable: a callable, a registered name (``score``, ``better``),
``module:function`` or ``path/to/file.py:function``.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any, Callable

from pacman.distances import UNREACHABLE, DistanceTable
from pacman.errors import AgentSpecError, describe_failure
from pacman.layout import Layout
from pacman.rules import FOOD_POINTS, GHOST_POINTS, LOSE_POINTS, MOVE_COST, WIN_POINTS
from pacman.state import GameState

__all__ = ["EVALUATIONS", "score_evaluation", "better_evaluation", "better_bounds_within", "better_parameters",
           "resolve_evaluation", "load_object", "defined_here", "describe_definitions"]

Evaluation = Callable[[GameState], float]


def score_evaluation(state: GameState) -> float:
    """The game score, nothing else.

    It declares no bounds, so Star1 does not prune with it: bounds that hold
    (the score falls by a point a move, rises by what Pacman can eat) cut so
    little with a value this flat that they cost more time than they save.
    """
    return float(state.score)


# The weights of `better_evaluation`, named once: the evaluation and its bounds both use them.
_CAPSULE_PRICE = 25.0   # per capsule left
_LOST_PENALTY = 2000.0  # on a lost game
_STEP_PRICE = 1.5       # per step to the nearest food
_SCARED_PULL = 150.0    # a reachable scared ghost at distance d: _SCARED_PULL / (1 + d)
_CAUGHT_PENALTY = 300.0  # a hunting ghost within one step
_NEAR_PENALTY = 40.0    # a hunting ghost at d in 2..5: _NEAR_PENALTY / (d - 1)
_ROOM_CELLS = 12        # fewer cells of room than this ...
_ROOM_PRICE = 30.0      # ... cost this much each


class _BetterTables:
    """What `better_evaluation` needs of one layout, built once per layout (`Layout.derived`)."""

    __slots__ = ("distances", "food_weight", "pacman_region", "ghost_starts")

    def __init__(self, layout: Layout) -> None:
        self.distances = DistanceTable.of(layout)
        #: the price of a food dot left: more than the longest walk to food (_STEP_PRICE per
        #: step), so eating a dot never looks worse than the walk to the next dot it leaves
        self.food_weight = _STEP_PRICE * self.distances.diameter + 5.0
        #: the mask of the cells Pacman can ever reach (his start cell's region)
        region = layout.region(layout.pacman_start)
        self.pacman_region = sum(1 << (x * layout.height + y) for x in range(layout.width)
                                 for y in range(layout.height) if layout.region((x, y)) == region)
        #: each ghost's start cell, where an eaten ghost comes back
        self.ghost_starts = tuple(self.distances.cell(start) for start in layout.agent_starts[1:])


def better_evaluation(state: GameState) -> float:
    """A feature-based evaluation: the score, food left, the way to food, and the ghosts.

    Maze distances come from the layout's BFS table. Each food dot left costs more
    than the longest path in the maze, so eating never looks worse than the walk
    to the next dot it leaves. Capsules left cost a little (they lead to +200
    ghosts); scared ghosts Pacman can still reach in time pull him closer; ghosts
    that are not scared push him away within five steps, hard within one; and,
    when one is within eight steps, fewer than 12 cells that Pacman reaches before
    every such ghost (his room to escape, small when ghosts close in from both
    ends of a corridor) cost 30 each.
    A lost game counts far below any live state.

    It declares bounds for a search (`better_bounds_within`), so that Star1 prunes with it.
    """
    tables = state.layout.derived("better_evaluation", _BetterTables)
    table = tables.distances
    value = (state.score - tables.food_weight * state.food_mask.bit_count()
             - _CAPSULE_PRICE * state.capsule_mask.bit_count())
    if state.is_terminal():
        return value - _LOST_PENALTY if state.is_lose() else value
    pacman = state.pacman_position
    here = table.cell(pacman)
    value -= _STEP_PRICE * table.nearest(pacman, state.food_mask)
    row = table.rows[here]
    hunters = []
    closest = 1_000_000
    for position, timer in zip(state.ghost_positions, state.scared_timers):
        cell = table.cell(position)
        d = row[cell]
        if timer:
            if timer > d:
                value += _SCARED_PULL / (1.0 + d)
            continue
        hunters.append(cell)
        closest = min(closest, d)
        if d <= 1:
            value -= _CAUGHT_PENALTY
        elif d <= 5:
            value -= _NEAR_PENALTY / (d - 1)
    if hunters and closest <= 8:
        room = table.room(here, hunters)
        if room < _ROOM_CELLS:
            value -= _ROOM_PRICE * (_ROOM_CELLS - room)
    return value


def better_bounds_within(state: GameState, plies: int) -> tuple[float, float]:
    """(low, high) holding `better_evaluation` of every state that `plies` moves of Pacman and
    of each ghost can reach from `state`: the bounds Star1 prunes with.

    Write the evaluation as ``B + T`` with ``B = score - W * food - 25 * capsules``
    (W the food weight) and T the rest. From `state` (B0, T any):

    - B falls only by MOVE_COST per Pacman move and LOSE_POINTS per ghost that
      catches him (once: a lost game ends), so ``B >= B0 - plies * MOVE_COST -
      ghosts * LOSE_POINTS``. It rises only by eating: a dot gives FOOD_POINTS -
      MOVE_COST + W (the last one WIN_POINTS more), a capsule 25 - MOVE_COST, a
      scared ghost GHOST_POINTS. Pacman steps one cell per move, so with the
      nearest dot n steps away he eats at most ``f = plies - n + 1`` dots (none if
      n > plies; at most the dots left), likewise at most ``c`` capsules; a ghost
      is eaten at most once per ply, and only if scared now or after one of those
      capsules: at most ``min(plies, [timer > 0] + c)`` times.
    - T of a lost game is -2000, of a won one 0. Live, T is at most 150 per ghost
      that can be scared (150 / (1 + d) each; scared now, or any ghost if c > 0)
      and at least -(1.5 * N + 300 per ghost + 360): N the farthest the nearest dot
      can be, the maze diameter while all the food left lies in Pacman's region (he
      never leaves it), else UNREACHABLE; a hunter costs at most 300 (within one
      step; 40 within five) and the room term at most 12 * 30.

    So ``low = B0 - plies * MOVE_COST - ghosts * LOSE_POINTS + min(T)`` and ``high =
    B0 + f * (FOOD_POINTS - MOVE_COST + W) + c * (25 - MOVE_COST) + WIN_POINTS [if f
    covers every dot] + GHOST_POINTS * eats + 150 * scared``.

    Ghosts too far away to catch Pacman within `plies` tighten `low` (`_ghost_reach`):
    a ghost d steps from Pacman is never nearer than ``r = d - 2 * plies - 2`` steps
    (each ply Pacman and the ghost each close at most one step, half a step more for a
    ghost between cells, and one more to spare; an eaten ghost restarts from its start
    cell, so d is the nearer of the two for a ghost that can be eaten). With every ``r
    >= 1`` no ghost can catch him, and ``low = B0 - plies * MOVE_COST - 1.5 * N' -
    hunting - room``: N' the farthest the nearest dot can be (a step farther per ply at
    most, unless he eats one, which pays more than any walk), hunting the most each
    ghost can cost at distance r (300 within one step, 40 / (r - 1) within five), and
    room 12 * 30 if some r is 8 or less. Tests check the bounds with random states on
    every shipped layout, and with every state within reach of ghosts at the edge.
    """
    tables = state.layout.derived("better_evaluation", _BetterTables)
    table = tables.distances
    food, capsules = state.food_mask, state.capsule_mask
    food_left, capsules_left = food.bit_count(), capsules.bit_count()
    timers = state.scared_timers
    ghosts = len(timers)
    b0 = state.score - tables.food_weight * food_left - _CAPSULE_PRICE * capsules_left
    pacman = state.pacman_position
    here = table.cell(pacman)
    food_steps = table.nearest(pacman, food)
    dots, eaten_capsules, eats, scared = _most_eaten(
        plies, food_left, food_steps, capsules_left, table.nearest(pacman, capsules), timers)
    high = (b0 + dots * (FOOD_POINTS - MOVE_COST + tables.food_weight)
            + eaten_capsules * (_CAPSULE_PRICE - MOVE_COST)
            + (WIN_POINTS if food_left and dots >= food_left else 0)
            + GHOST_POINTS * eats + _SCARED_PULL * scared)
    outside = food & ~tables.pacman_region
    farthest = table.diameter if not outside else UNREACHABLE
    reach = _ghost_reach(state, plies, tables, here, eaten_capsules) if ghosts else None
    if reach is not None:  # no ghost can catch him
        hunting, room = reach
        walk = farthest if outside else min(farthest, food_steps + plies)
        low = b0 - plies * MOVE_COST - _STEP_PRICE * walk - hunting - room
        return (low, high)
    live = -_STEP_PRICE * farthest - (_CAUGHT_PENALTY * ghosts + _ROOM_PRICE * _ROOM_CELLS if ghosts else 0.0)
    low = b0 - plies * MOVE_COST - ghosts * LOSE_POINTS + min(live, -_LOST_PENALTY if ghosts else 0.0)
    return (low, high)


def _ghost_reach(state: GameState, plies: int, tables: _BetterTables, here: int,
                 eaten_capsules: int) -> tuple[float, float] | None:
    """(the most the hunting ghosts can cost, the most the room term can cost) in any state `plies` plies
    from `state`, or None when a ghost may catch Pacman by then (see `better_bounds_within`)."""
    row = tables.distances.rows[here]
    hunting = 0.0
    closest = 1_000_000
    for i, (position, timer) in enumerate(zip(state.ghost_positions, state.scared_timers)):
        d = row[tables.distances.cell(position)]
        if timer > 0 or eaten_capsules > 0:  # it can be eaten, and come back at its start
            d = min(d, row[tables.ghost_starts[i]])
        r = d - 2 * plies - 2
        if r < 1:
            return None
        if r <= 1:
            hunting += _CAUGHT_PENALTY
        elif r <= 5:
            hunting += _NEAR_PENALTY / (r - 1)
        closest = min(closest, r)
    return hunting, (_ROOM_PRICE * _ROOM_CELLS if closest <= 8 else 0.0)


def _most_eaten(plies: int, food_left: int, food_steps: float, capsules_left: int, capsule_steps: float,
                timers: tuple[int, ...]) -> tuple[int, int, int, int]:
    """At most how much Pacman eats in `plies` plies: (dots, capsules, scared ghosts, ghosts that can be scared).

    `food_steps` and `capsule_steps` are never more than the steps to the nearest
    dot and capsule. Pacman steps one cell per move, so with the nearest n steps away he
    eats at most ``plies - n + 1`` (none if n > plies). A ghost is eaten at most
    once per ply, and only while scared: scared now, or after each capsule eaten.
    """
    def most(left: int, steps: float) -> int:
        return min(left, plies - int(steps) + 1) if left and steps <= plies else 0

    dots, capsules = most(food_left, food_steps), most(capsules_left, capsule_steps)
    eats = sum(min(plies, (timer > 0) + capsules) for timer in timers)
    scared = len(timers) if capsules else sum(timer > 0 for timer in timers)
    return dots, capsules, eats, scared


better_evaluation.bounds_within = better_bounds_within  # type: ignore[attr-defined]
#: hunting ghosts farther than this from Pacman change nothing in `better_evaluation` (nor in the score)
better_evaluation.ghost_horizon = 8  # type: ignore[attr-defined]
score_evaluation.ghost_horizon = 0  # type: ignore[attr-defined]


def better_parameters(layout: Layout) -> tuple[Any, tuple[float, ...], int, int]:
    """What a compiled `better_evaluation` and `better_bounds_within` need of `layout`: the maze-distance
    matrix (read-only int32, cells x cells); the weights in the order (food weight, capsule price, lost
    penalty, step price, scared pull, caught penalty, near penalty, room price, room cells); the mask of
    Pacman's region; and the maze's diameter: one home for the numbers."""
    tables = layout.derived("better_evaluation", _BetterTables)
    weights = (tables.food_weight, _CAPSULE_PRICE, _LOST_PENALTY, _STEP_PRICE, _SCARED_PULL, _CAUGHT_PENALTY,
               _NEAR_PENALTY, _ROOM_PRICE, _ROOM_CELLS)
    return tables.distances.matrix, weights, tables.pacman_region, tables.distances.diameter


#: Evaluations by name.
EVALUATIONS: dict[str, Evaluation] = {
    "score": score_evaluation,
    "better": better_evaluation,
}


def load_object(spec: str, what: str) -> Any:
    """Import ``module:name`` or ``path/to/file.py:name``; AgentSpecError says what was tried."""
    target, sep, name = spec.rpartition(":")
    if not sep or not target or not name.isidentifier():
        raise AgentSpecError(f"{what} {spec!r}: expected module:name or path/to/file.py:name")
    if target.endswith(".py") or "/" in target or "\\" in target:
        try:
            path = Path(target).expanduser()
            is_file = path.is_file()
        except (OSError, ValueError, RuntimeError):  # a name the OS refuses (too long, NUL), ~nobody
            is_file = False
        if not is_file:
            raise AgentSpecError(f"{what} {spec!r}: no such file {target!r}")
        module_name = f"_pacman_user_{abs(hash(str(path.resolve())))}"
        module = sys.modules.get(module_name)
        if module is None:
            loader_spec = importlib.util.spec_from_file_location(module_name, path)
            if loader_spec is None or loader_spec.loader is None:
                raise AgentSpecError(f"{what} {spec!r}: cannot load {target!r} as Python")
            module = importlib.util.module_from_spec(loader_spec)
            try:
                loader_spec.loader.exec_module(module)
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # SystemExit too: a module that exits at import is a bad spec
                raise AgentSpecError(f"{what} {spec!r}: importing {target} {describe_failure(exc)}") from None
            sys.modules[module_name] = module
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as exc:
            raise AgentSpecError(f"{what} {spec!r}: cannot import module {target!r} ({' '.join(str(exc).split())})") from None
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            raise AgentSpecError(f"{what} {spec!r}: importing {target} {describe_failure(exc)}") from None
    try:
        return getattr(module, name)
    except AttributeError:
        raise AgentSpecError(f"{what} {spec!r}: {target} has no {name!r} ({describe_definitions(module)})") from None


def defined_here(module: Any) -> tuple[list[str], list[str]]:
    """The public classes and functions `module` itself defines, sorted: (classes, functions).

    What it imports (``from pacman import Action``, ``import os``) is left out, so
    that an error can list what the file's author wrote.
    """
    classes, functions = [], []
    for key, value in vars(module).items():
        if key.startswith("_") or getattr(value, "__module__", None) != module.__name__:
            continue
        if inspect.isclass(value):
            classes.append(key)
        elif inspect.isfunction(value):
            functions.append(key)
    return sorted(classes), sorted(functions)


def describe_definitions(module: Any) -> str:
    """``it defines the classes A, B and the functions f`` (or that it defines none), for error messages."""
    classes, functions = defined_here(module)
    parts = []
    if classes:
        parts.append(f"the class{'es' if len(classes) > 1 else ''} {', '.join(classes)}")
    if functions:
        parts.append(f"the function{'s' if len(functions) > 1 else ''} {', '.join(functions)}")
    return f"it defines {' and '.join(parts)}" if parts else "it defines no public class or function"


def resolve_evaluation(spec: str | Evaluation) -> Evaluation:
    """A callable evaluation from a callable, a registered name, module:function or file.py:function."""
    if callable(spec):
        return spec
    if not isinstance(spec, str):
        raise AgentSpecError(f"evaluation must be a callable or a string, got {type(spec).__name__}")
    if spec in EVALUATIONS:
        return EVALUATIONS[spec]
    if ":" not in spec:
        raise AgentSpecError(
            f"evaluation {spec!r}: not a registered name ({', '.join(EVALUATIONS)}), "
            f"nor module:function, nor path/to/file.py:function"
        )
    function = load_object(spec, "evaluation")
    if not callable(function):
        raise AgentSpecError(f"evaluation {spec!r} is a {type(function).__name__}, not a function")
    return function
