"""Loading a CS188 student file: the course's modules importable for that import only.

The classic generation's modules (``util``, ``game``, ``ghostAgents``) live in
`CLASSIC_DIR`, the current generation's (``util``, ``game``, ``ghost_agents``)
in `CURRENT_DIR`; neither folder is on `sys.path` except while
`load_classic_module` runs a student file. Student files also import the
course's ``pacman`` module (``from pacman import GameState``), the name of this
project's own package. For that import only, ``sys.modules["pacman"]`` is an
alias module (`PacmanAlias`) whose ``GameState`` is the generation's state view
(``GameState.get_and_reset_explored()`` works) and whose other names and
submodules are the real package's. Afterwards `sys.path` and every
`sys.modules` entry touched are what they were (the real ``pacman`` package, a
user's own ``util.py``), and nothing is installed as a top-level ``util`` or
``game``. The student module keeps the objects it imported at its top level; a
course module imported later, inside a function, is not found (a limit of this
design). Nothing of this happens outside the process that loads the file: the
grader loads submissions in its sandbox's child process.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from pacman.cs188.generation import CLASSIC, CURRENT, GENERATIONS, GenerationError, source_generation, \
    state_class
from pacman.errors import AgentSpecError, describe_failure
from pacman.user_code import ImportTimeout, frames_text, import_user_file

__all__ = ["CLASSIC_DIR", "CURRENT_DIR", "CLASSIC_MODULES", "CURRENT_MODULES", "PacmanAlias", "load_classic_module",
           "is_classic_agent", "is_classic_file", "file_generation"]

#: The folder of the classic generation's modules students import (``util``, ``game``, ``ghostAgents``).
CLASSIC_DIR = str(Path(__file__).resolve().parent / "classic")
#: The folder of the current generation's modules (``util``, ``game``, ``ghost_agents``).
CURRENT_DIR = str(Path(__file__).resolve().parent / "current")
#: The top-level names the classic modules take while a classic file is loaded.
CLASSIC_MODULES = GENERATIONS[CLASSIC].modules
#: The top-level names the current generation's modules take while such a file is loaded.
CURRENT_MODULES = GENERATIONS[CURRENT].modules
_FOLDERS = {CLASSIC: CLASSIC_DIR, CURRENT: CURRENT_DIR}
#: Every top-level module name either generation's files import from the course.
_COURSE_MODULES = frozenset(CLASSIC_MODULES + CURRENT_MODULES)


class PacmanAlias(ModuleType):
    """The course's ``pacman`` module while a student file loads: ``GameState`` is the generation's state view;
    any other name (and any submodule) is the real ``pacman`` package's."""

    def __init__(self, real: ModuleType, generation: str) -> None:
        super().__init__("pacman", "The CS188 course's pacman module, as pacman-ai offers it to a student file.")
        self.__path__ = list(getattr(real, "__path__", []))
        self.GameState = state_class(generation)
        self._real = real

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._real, name)


def _file_generation(file: Path) -> str:
    try:
        source = file.read_bytes()
    except OSError:
        return CLASSIC
    try:
        generation, _ = source_generation(source, file.name)
    except GenerationError as exc:
        raise AgentSpecError(str(exc)) from None
    return generation or CLASSIC


def load_classic_module(path: str | os.PathLike[str], name: str | None = None,
                        generation: str | None = None) -> ModuleType:
    """Import the CS188 student file at `path` with its generation's course modules importable.

    `generation` is ``"classic"`` or ``"current"``; None reads it from the file
    (`source_generation`; classic when the file says nothing). The module is
    registered in `sys.modules` as `name` only while it runs (a private name,
    kept, when `name` is None). Raises AgentSpecError naming the file when it is
    missing, mixes the generations, or its import fails (``raiseNotDefined()`` at
    import too).
    """
    file = Path(path).expanduser()
    try:
        is_file = file.is_file()
    except (OSError, ValueError):
        is_file = False
    if not is_file:
        raise AgentSpecError(f"{os.fspath(path)}: no such file")
    if generation is None:
        generation = _file_generation(file)
    if generation not in GENERATIONS:
        raise ValueError(f"unknown CS188 generation {generation!r} (expected {' or '.join(GENERATIONS)})")
    private = name is None
    module_name = name if name is not None else \
        f"_pacman_cs188_{generation}_{abs(hash(str(file.resolve())))}"
    if private and module_name in sys.modules:
        return sys.modules[module_name]
    loader_spec = importlib.util.spec_from_file_location(module_name, file)
    if loader_spec is None or loader_spec.loader is None:
        raise AgentSpecError(f"{file}: cannot load it as Python")
    module = importlib.util.module_from_spec(loader_spec)
    saved_path = list(sys.path)
    touched = (*_COURSE_MODULES, "pacman", module_name)
    shadowed = {key: sys.modules.pop(key) for key in touched if key in sys.modules}
    real_pacman = shadowed.get("pacman") or sys.modules.get("pacman")
    sys.path.insert(0, _FOLDERS[generation])
    alias = PacmanAlias(real_pacman, generation) if real_pacman is not None else None
    if alias is not None:
        sys.modules["pacman"] = alias
    sys.modules[module_name] = module
    try:
        import_user_file(lambda: loader_spec.loader.exec_module(module), os.fspath(path))
    except ImportTimeout as exc:
        sys.modules.pop(module_name, None)
        raise AgentSpecError(str(exc)) from None
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # SystemExit too (raiseNotDefined at import): a bad file, not the program's end
        sys.modules.pop(module_name, None)
        raise AgentSpecError(f"{file}: importing it {describe_failure(exc)}{frames_text(exc)}") from None
    finally:
        sys.path[:] = saved_path
        for key in (*_COURSE_MODULES, "pacman"):
            sys.modules.pop(key, None)
        if not private:
            sys.modules.pop(module_name, None)
        sys.modules.update(shadowed)
        if alias is not None:  # a submodule first imported during the load belongs to the real package
            for key, value in vars(alias).items():
                if isinstance(value, ModuleType) and value.__name__ == f"pacman.{key}":
                    setattr(real_pacman, key, value)
    return module


def is_classic_agent(obj: Any, generation: str = CLASSIC) -> bool:
    """True for a class with `generation`'s ``getAction`` (classic: and no ``get_action``) / ``get_action``."""
    if not isinstance(obj, type):
        return False
    if generation == CURRENT:
        return callable(getattr(obj, "get_action", None))
    return callable(getattr(obj, "getAction", None)) and not callable(getattr(obj, "get_action", None))


#: Names of the course's ``util`` and ``game`` modules (both generations): a file using one is a course file.
_COURSE_API = frozenset({
    "manhattanDistance", "manhattan_distance", "raiseNotDefined", "raise_not_defined", "lookup", "Counter",
    "Stack", "Queue", "PriorityQueue", "PriorityQueueWithFunction", "nearestPoint", "nearest_point", "flipCoin",
    "flip_coin", "sample", "chooseFromDistribution", "choose_from_distribution", "normalize",
    "sampleFromCounter", "sample_from_counter",
    "Agent", "Directions", "Actions", "Grid", "AgentState", "Configuration",
})


def _uses_course(tree: ast.AST) -> bool:
    """Whether the file uses the course's modules: imports ``ghostAgents``/``ghost_agents``, or a course name
    from ``util``/``game`` (``from game import Agent``, ``util.manhattanDistance``). Importing a module called
    ``util`` whose names are not the course's (a user's own ``util.py``) does not count."""
    aliases: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if top in ("ghostAgents", "ghost_agents"):
                    return True
                if top in ("util", "game") and "." not in alias.name:
                    aliases.add(alias.asname or top)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module in ("ghostAgents", "ghost_agents"):
                return True
            if node.module in ("util", "game") and any(a.name in _COURSE_API for a in node.names):
                return True
    if aliases:
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in aliases and node.attr in _COURSE_API:
                return True
    return False


def file_generation(path: str | os.PathLike[str], class_name: str | None = None) -> str | None:
    """The CS188 generation of the Python file at `path`, or None if it is not a CS188 file (one of ours).

    A file that uses the course's modules (``from game import Agent``,
    ``util.manhattanDistance``, any import of ``ghostAgents``/``ghost_agents``)
    is a CS188 file, of the generation its names say (`source_generation`;
    classic when they say nothing). Otherwise its class `class_name` decides:
    ``getAction`` is classic, anything else (``get_action``) ours -- so a file of
    our own that imports the user's own ``util.py`` stays ours. Read, not
    run; a file that is not valid Python is not a CS188 file. A file mixing the
    generations is an AgentSpecError naming the names.
    """
    try:
        source = Path(path).read_bytes()
        tree = ast.parse(source)
    except (OSError, SyntaxError, ValueError):
        return None
    if _uses_course(tree):
        try:
            generation, _ = source_generation(source, Path(path).name)
        except GenerationError as exc:
            raise AgentSpecError(str(exc)) from None
        return generation or CLASSIC
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            methods = {item.name for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))}
            if "get_action" in methods:
                return None
            if "getAction" in methods:
                return CLASSIC
    return None


def is_classic_file(path: str | os.PathLike[str], class_name: str | None = None) -> bool:
    """True if the Python file at `path` is a CS188 student file, of either generation (`file_generation`)."""
    return file_generation(path, class_name) is not None
