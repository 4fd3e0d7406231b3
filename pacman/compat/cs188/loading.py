"""Loading a classic student file: the classic modules on the import path for that import only.

The classic modules (``util``, ``game``, ``ghostAgents``) live in `CLASSIC_DIR`,
a folder that is never on `sys.path` except while `load_classic_module` runs a
classic file. Afterwards `sys.path` and those `sys.modules` entries are what they
were, so a user's own ``util.py`` still imports as theirs. The student module
keeps the classic objects it imported at its top level; a classic module
imported later, inside a function, is not found (a limit of this design).
"""

from __future__ import annotations

import ast
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from pacman.errors import AgentSpecError, describe_failure

__all__ = ["CLASSIC_DIR", "CLASSIC_MODULES", "load_classic_module", "is_classic_agent", "is_classic_file"]

#: The folder of the classic modules students import (``util``, ``game``, ``ghostAgents``).
CLASSIC_DIR = str(Path(__file__).resolve().parent / "classic")
#: The top-level names the classic modules take while a classic file is loaded.
CLASSIC_MODULES = ("util", "game", "ghostAgents")


def load_classic_module(path: str | os.PathLike[str], name: str | None = None) -> ModuleType:
    """Import the classic student file at `path` with the classic modules importable.

    The module is registered in `sys.modules` as `name` only while it runs (a
    private name, kept, when `name` is None). Raises AgentSpecError naming the
    file when it is missing or its import fails (``raiseNotDefined()`` at import
    too).
    """
    file = Path(path).expanduser()
    try:
        is_file = file.is_file()
    except (OSError, ValueError):
        is_file = False
    if not is_file:
        raise AgentSpecError(f"{os.fspath(path)}: no such file")
    private = name is None
    module_name = name if name is not None else f"_pacman_classic_{abs(hash(str(file.resolve())))}"
    if private and module_name in sys.modules:
        return sys.modules[module_name]
    loader_spec = importlib.util.spec_from_file_location(module_name, file)
    if loader_spec is None or loader_spec.loader is None:
        raise AgentSpecError(f"{file}: cannot load it as Python")
    module = importlib.util.module_from_spec(loader_spec)
    saved_path = list(sys.path)
    shadowed = {key: sys.modules.pop(key) for key in (*CLASSIC_MODULES, module_name) if key in sys.modules}
    sys.path.insert(0, CLASSIC_DIR)
    sys.modules[module_name] = module
    try:
        loader_spec.loader.exec_module(module)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # SystemExit too (raiseNotDefined at import): a bad file, not the program's end
        sys.modules.pop(module_name, None)
        raise AgentSpecError(f"{file}: importing it {describe_failure(exc)}") from None
    finally:
        sys.path[:] = saved_path
        for key in CLASSIC_MODULES:
            sys.modules.pop(key, None)
        if not private:
            sys.modules.pop(module_name, None)
        sys.modules.update(shadowed)
    return module


def is_classic_agent(obj: Any) -> bool:
    """True for a class with a camelCase ``getAction`` (and no ``get_action``): a classic agent."""
    return (isinstance(obj, type) and callable(getattr(obj, "getAction", None))
            and not callable(getattr(obj, "get_action", None)))


def is_classic_file(path: str | os.PathLike[str], class_name: str | None = None) -> bool:
    """True if the Python file at `path` is written against the classic API.

    Its top-level class `class_name` decides when it defines ``getAction`` (classic)
    or ``get_action`` (ours); otherwise the file is classic if it imports a classic
    module (``util``, ``game``, ``ghostAgents``). Read, not run; a file that is not
    valid Python is not classic.
    """
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError):
        return False
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            methods = {item.name for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))}
            if "get_action" in methods:
                return False
            if "getAction" in methods:
                return True
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] in CLASSIC_MODULES for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] in CLASSIC_MODULES:
            return True
    return False
