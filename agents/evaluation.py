"""Evaluation functions: a state's value to Pacman where the search stops.

An evaluation is any callable ``state -> float``. It may declare bounds on every
value it returns as an attribute ``bounds = (low, high)``; search then prunes with
Star1 (exactly). `resolve_evaluation` turns what a user writes into a callable: a
callable, a registered name (``score``, ``better``), ``module:function`` or
``path/to/file.py:function``.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any, Callable

from pacman.distances import DistanceTable
from pacman.errors import AgentSpecError, describe_failure
from pacman.layout import Layout
from pacman.state import GameState

__all__ = ["EVALUATIONS", "score_evaluation", "better_evaluation", "resolve_evaluation", "load_object"]

Evaluation = Callable[[GameState], float]


def score_evaluation(state: GameState) -> float:
    """The game score, nothing else."""
    return float(state.score)


class _BetterTables:
    """What `better_evaluation` needs of one layout, built once per layout (`Layout.derived`)."""

    __slots__ = ("distances", "food_weight")

    def __init__(self, layout: Layout) -> None:
        self.distances = DistanceTable.of(layout)
        #: the price of a food dot left: more than the longest walk to food (1.5 per step), so
        #: eating a dot never looks worse than the walk to the next dot it leaves
        self.food_weight = 1.5 * self.distances.diameter + 5.0


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
    """
    tables = state.layout.derived("better_evaluation", _BetterTables)
    table = tables.distances
    value = state.score - tables.food_weight * state.food_mask.bit_count() - 25.0 * state.capsule_mask.bit_count()
    if state.is_terminal():
        return value - 2000.0 if state.is_lose() else value
    pacman = state.pacman_position
    here = table.cell(pacman)
    value -= 1.5 * table.nearest(pacman, state.food_mask)
    row = table.rows[here]
    hunters = []
    closest = 1_000_000
    for position, timer in zip(state.ghost_positions, state.scared_timers):
        cell = table.cell(position)
        d = row[cell]
        if timer:
            if timer > d:
                value += 150.0 / (1.0 + d)
            continue
        hunters.append(cell)
        closest = min(closest, d)
        if d <= 1:
            value -= 300.0
        elif d <= 5:
            value -= 40.0 / (d - 1)
    if hunters and closest <= 8:
        room = table.room(here, hunters)
        if room < 12:
            value -= 30.0 * (12 - room)
    return value


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
        found = sorted(n for n in vars(module) if not n.startswith("_"))
        raise AgentSpecError(
            f"{what} {spec!r}: {target} has no {name!r} (it defines: {', '.join(found) or 'nothing public'})"
        ) from None


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
