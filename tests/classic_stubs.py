"""Test support: the few classic API names our student files use, for in-process tests of the grading logic.

Not the compatibility layer (that is `pacman.cs188`): just enough of
``util`` and ``game`` to import tests/classic_course's student files without
the sandbox, so that the grading logic is tested on its own.
"""

from __future__ import annotations

import sys
import types
from contextlib import contextmanager


def _raise_not_defined():
    print("not implemented")
    sys.exit(1)


def stub_modules() -> dict[str, types.ModuleType]:
    util = types.ModuleType("util")
    util.lookup = lambda name, namespace: namespace[name]
    util.manhattanDistance = lambda a, b: abs(a[0] - b[0]) + abs(a[1] - b[1])
    exec("import sys\ndef raiseNotDefined():\n    print('not implemented')\n    sys.exit(1)\n",
         util.__dict__)
    game = types.ModuleType("game")

    class Agent:
        def __init__(self, index=0):
            self.index = index

    class Directions:
        NORTH, SOUTH, EAST, WEST, STOP = "North", "South", "East", "West", "Stop"

    game.Agent = Agent
    game.Directions = Directions
    return {"util": util, "game": game}


@contextmanager
def classic_stubs():
    saved = {name: sys.modules.get(name) for name in ("util", "game")}
    sys.modules.update(stub_modules())
    try:
        yield
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def load_with_stubs(source: str, path: str) -> types.ModuleType:
    module = types.ModuleType("multiAgents")
    module.__file__ = path
    with classic_stubs():
        exec(compile(source, path, "exec"), module.__dict__)
    return module
