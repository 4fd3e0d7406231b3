"""The submission's side of classic grading, run inside the sandbox's child process only.

The child writes the submission's source (as the grader read it) into its own
working folder under the file's name, loads it with the course API of its
generation on the import path (`pacman.cs188.load_classic_module`; the
items carry the generation the grader settled on), and runs each item with the
runner of its kind.
"""

from __future__ import annotations

import os
from typing import Any, Callable

from pacman.cs188.grading.eval_agent import ITEM_KIND as EVAL_AGENT, run_eval_agent
from pacman.cs188.grading.graph_tree import ITEM_KIND as GRAPH_TREE, run_graph_tree
from pacman.cs188.grading.pacman_tree import ITEM_KIND as PACMAN_TREE, run_pacman_tree

__all__ = ["RUNNERS", "load_classic_submission", "local_copy", "COMPAT_MISSING", "apply_engine"]

#: The item runners by item kind: ``runner(module, item) -> observations``.
RUNNERS: dict[str, Callable[[Any, dict[str, Any]], dict[str, Any]]] = {
    GRAPH_TREE: run_graph_tree, PACMAN_TREE: run_pacman_tree, EVAL_AGENT: run_eval_agent}

COMPAT_MISSING = "the classic CS188 API (pacman.cs188) is not part of this installation of pacman-ai"


def prepare_classic_api() -> None:
    """Import the classic API before the memory cap (so the cap is the submission's to use), if it is there."""
    try:
        import pacman.cs188  # noqa: F401
    except ImportError:
        pass


def apply_engine(items: list[dict[str, Any]]) -> None:
    """Play by the course's own engine (its order of actions, read from its ``game.py`` by the grader and carried
    by the items as ``action_order``; Python 2's `random` for a Python 2 course), before the submission is
    loaded: the classic order when none is given."""
    from pacman.cs188 import set_action_order

    orders = {tuple(item["action_order"]) for item in items if item.get("action_order")}
    if len(orders) > 1:
        raise ValueError(f"the items give {len(orders)} different orders of actions")
    set_action_order(next(iter(orders), None))
    if any(item.get("python2_random") for item in items):
        from pacman.cs188.quirks import use_python2_random

        use_python2_random()


def local_copy(path: str) -> str:
    """Where the child saves the submission read from `path` before loading it: ./NAME.py."""
    return os.path.abspath(os.path.basename(path) or "submission.py")


def load_classic_submission(source: str, path: str, items: list[dict[str, Any]] | None = None) -> tuple[Any, str]:
    """(module, the path it was loaded from): `source` saved as `local_copy(path)` and imported with the course
    modules of the generation its `items` name (the grader decided it: `generation`), else of the file's own."""
    try:
        from pacman.cs188 import load_classic_module
    except ImportError:
        raise ImportError(COMPAT_MISSING) from None
    local = local_copy(path)
    with open(local, "w", encoding="utf-8") as handle:
        handle.write(source)
    generation = next((item.get("generation") for item in items or () if item.get("generation")), None)
    apply_engine(items or [])
    try:
        return load_classic_module(local, generation=generation), local
    except ValueError as exc:  # AgentSpecError naming this folder's copy: report the student's own error
        if exc.__context__ is not None:
            raise exc.__context__ from None
        raise
