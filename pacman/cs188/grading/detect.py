"""Recognising a classic CS188 student file, so that a student gets one clear message, not one error per test.

A classic file imports the classic API's modules (``util``, ``game``,
``ghostAgents``), which exist only while such a file is loaded for a classic
test folder or as a classic agent. Our own assignments cannot import it, so
they say so once and name the command to run instead.
"""

from __future__ import annotations

import ast
import re

__all__ = ["CLASSIC_MODULES", "classic_imports", "classic_hint", "missing_classic_module"]

#: Top-level modules of the CS188 API that student files import (both generations: ``ghostAgents`` in the
#: classic one, ``ghost_agents`` in the current one).
CLASSIC_MODULES = ("util", "game", "ghostAgents", "ghost_agents")
_MISSING = re.compile(r"No module named '(%s)'" % "|".join(CLASSIC_MODULES))


def classic_imports(source: str) -> list[str]:
    """The classic API modules `source` imports (anywhere in it), in the order of `CLASSIC_MODULES`.

    >>> classic_imports("import random, util\\nfrom game import Directions\\n")
    ['util', 'game']
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return [m for m in CLASSIC_MODULES if m in found]


def missing_classic_module(error: str | None) -> str | None:
    """The classic module an import error says is missing (``No module named 'util'``), if any."""
    match = _MISSING.search(error or "")
    return match.group(1) if match else None


def classic_hint(submission: str, assignment: str, modules: list[str]) -> str:
    """The one message for a classic file graded on one of our own assignments."""
    listed = ", ".join(modules)
    return (f"{submission}: looks like a CS188 course file (it imports {listed}), which assignment "
            f"{assignment!r} cannot grade; grade it on the course's classic test folder instead: "
            f"pacman-ai grade path/to/test_cases {submission}")
