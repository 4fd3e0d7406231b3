"""The two generations of the CS188 course's API, and telling which one a student file is written for.

- **classic** (camelCase): ``multiAgents.py``, ``getAction``,
  ``registerInitialState``, ``GameState.getAndResetExplored``, modules ``util``,
  ``game``, ``ghostAgents``;
- **current** (snake_case, the Python 3 rewrite taught since 2023):
  ``multi_agents.py``, ``get_action``, ``register_initial_state``,
  ``GameState.get_and_reset_explored``, modules ``util``, ``game``,
  ``ghost_agents``.

Both share the file formats, scoring and randomness; only the names differ.
`source_generation` reads a file (never runs it) and says which names it uses.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

__all__ = ["CLASSIC", "CURRENT", "GENERATIONS", "Generation", "GenerationError", "source_generation",
           "state_class", "get_action", "generation_of_name"]

CLASSIC = "classic"
CURRENT = "current"


@dataclass(frozen=True)
class Generation:
    """The names one generation gives the same things."""

    name: str
    """``classic`` or ``current``."""
    student_file: str
    """The file students hand in."""
    modules: tuple[str, ...]
    """The course's modules a student file imports (besides ``pacman``)."""
    get_action: str
    register_initial_state: str
    get_and_reset_explored: str
    title: str
    """How messages name the generation."""


GENERATIONS: dict[str, Generation] = {
    CLASSIC: Generation(CLASSIC, "multiAgents.py", ("util", "game", "ghostAgents"), "getAction",
                        "registerInitialState", "getAndResetExplored", "the classic (camelCase) generation"),
    CURRENT: Generation(CURRENT, "multi_agents.py", ("util", "game", "ghost_agents"), "get_action",
                        "register_initial_state", "get_and_reset_explored",
                        "the current (snake_case) generation"),
}

#: Names only one generation uses, in a student file: methods it defines, modules and names it imports.
_CLASSIC_NAMES = frozenset({"getAction", "registerInitialState", "evaluationFunction", "ghostAgents",
                            "manhattanDistance", "raiseNotDefined", "scoreEvaluationFunction",
                            "betterEvaluationFunction"})
_CURRENT_NAMES = frozenset({"get_action", "register_initial_state", "evaluation_function", "ghost_agents",
                            "manhattan_distance", "raise_not_defined", "score_evaluation_function",
                            "better_evaluation_function"})


class GenerationError(ValueError):
    """A student file that uses both generations' names (the message names the file and both names)."""


def generation_of_name(name: str) -> str | None:
    """The generation whose student file is called `name` (``multiAgents.py``, ``multi_agents.py``), if either."""
    for generation in GENERATIONS.values():
        if PurePath(name).name == generation.student_file:
            return generation.name
    return None


def source_generation(source: str | bytes, filename: str) -> tuple[str | None, str]:
    """(generation, the evidence) of a student file, read, not run.

    The evidence is the first name of one generation the file defines or imports
    (a method ``getAction``, ``from util import manhattan_distance``, a module
    ``ghost_agents`` ...); with none, the file's name (``multi_agents.py``);
    with neither, (None, ""). A file using names of both generations is a
    GenerationError naming both; a file that is not valid Python is (None, "").
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None, ""
    found: dict[str, tuple[int, str]] = {}

    def note(name: str, line: int) -> None:
        for generation, names in ((CLASSIC, _CLASSIC_NAMES), (CURRENT, _CURRENT_NAMES)):
            if name in names and (generation not in found or line < found[generation][0]):
                found[generation] = (line, name)

    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    note(item.name, item.lineno)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.col_offset == 0:
            note(node.name, node.lineno)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                note(alias.name.split(".")[0], node.lineno)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            note(node.module.split(".")[0], node.lineno)
            if node.module in ("util", "game", "ghostAgents", "ghost_agents"):
                for alias in node.names:
                    note(alias.name, node.lineno)
    if CLASSIC in found and CURRENT in found:
        (line_a, name_a), (line_b, name_b) = found[CLASSIC], found[CURRENT]
        raise GenerationError(f"{filename}: mixes the two generations of the CS188 API: {name_a!r} (line {line_a}) "
                              f"is the classic camelCase name, {name_b!r} (line {line_b}) the current snake_case "
                              f"one; a file is written for one of them")
    for generation, (line, name) in found.items():
        return generation, f"{name!r} on line {line}"
    by_name = generation_of_name(filename)
    if by_name is not None:
        return by_name, f"its name, {PurePath(filename).name}"
    return None, ""


def state_class(generation: str) -> type:
    """The ``GameState`` view of `generation`: `ClassicState` or `CurrentState`."""
    from pacman.cs188.state import ClassicState, CurrentState

    return CurrentState if generation == CURRENT else ClassicState


def get_action(agent: Any, state: Any, generation: str) -> Any:
    """``agent.getAction(state)`` or ``agent.get_action(state)``, as `generation` names it."""
    return getattr(agent, GENERATIONS[generation].get_action)(state)
