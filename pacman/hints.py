"""How a refusal names what it suggests: the flags of the command that called it, or Python's keywords.

A refusal deep in an agent or the solver ("use fewer ghosts", "a larger node
limit") must name only what the caller's user can give: ``--num-ghosts`` to a
user of `play`, ``num_ghosts=N`` to a Python caller, and never a flag the
command does not take (`pacman-ai solve` takes ``--max-nodes``; `play` gives the
same limit as ``--agent-args max_nodes=N``). The strings live here, one table per
caller; `hint` reads the caller from `calling`, which the command line sets
around each command (a context variable: one value per command run, nothing that
grows) and a batch hands to its worker processes (`set_caller`).

>>> hint("num_ghosts")
'num_ghosts'
>>> with calling("play"):
...     hint("num_ghosts"), hint("time_limit")
('--num-ghosts', '--agent-args time_limit=SECONDS')
"""

from __future__ import annotations

import contextlib
import contextvars
from typing import Iterator, Mapping

__all__ = ["HINTS", "PYTHON", "caller", "calling", "hint", "hints", "set_caller"]

#: The caller when no command is running: Python code (the API, the environments, a notebook).
PYTHON = "python"

_AGENT_FLAGS = {
    "num_ghosts": "--num-ghosts",
    "depth": "--agent-args depth=N",
    "time_limit": "--agent-args time_limit=SECONDS",
    "max_nodes": "--agent-args max_nodes=N",
    "objective_win": "--agent-args objective=win",
    "max_moves": "--max-moves",
}

#: Caller -> what a refusal may suggest -> how that caller's user gives it. A caller lists every key that a
#: refusal it can meet suggests (solve meets no search agent's refusal: no depth, no time limit).
HINTS: Mapping[str, Mapping[str, str]] = {
    PYTHON: {
        "num_ghosts": "num_ghosts",
        "depth": "depth",
        "time_limit": "time_limit",
        "max_nodes": "max_nodes",
        "objective_win": "objective='win'",
        "max_moves": "max_moves",
    },
    # The commands that make agents from --pacman/--agent-args (compare also in each --config).
    "play": _AGENT_FLAGS,
    "batch": _AGENT_FLAGS,
    "compare": _AGENT_FLAGS,
    # solve runs the solver, no search agent: its own flags for the solver's limits, no agent arguments.
    "solve": {
        "num_ghosts": "--num-ghosts",
        "max_nodes": "--max-nodes",
        "objective_win": "--objective win",
    },
}

_CALLER: contextvars.ContextVar[str] = contextvars.ContextVar("pacman_hints_caller", default=PYTHON)


@contextlib.contextmanager
def calling(command: str) -> Iterator[None]:
    """Within the block, refusals name the flags of `command` (a key of `HINTS`; others get Python's keywords)."""
    token = _CALLER.set(command if command in HINTS else PYTHON)
    try:
        yield
    finally:
        _CALLER.reset(token)


def caller() -> str:
    """The current caller: a key of `HINTS` (`PYTHON` outside a command), to hand to worker processes."""
    return _CALLER.get()


def set_caller(command: str) -> None:
    """For the rest of this thread's work: a worker process running a command's games (`pacman.batch`)."""
    _CALLER.set(command if command in HINTS else PYTHON)


def hints() -> Mapping[str, str]:
    """The current caller's table of `HINTS`."""
    return HINTS[_CALLER.get()]


def hint(key: str) -> str:
    """How the current caller's user gives `key`; LookupError naming both if that caller has no such way."""
    caller = _CALLER.get()
    try:
        return HINTS[caller][key]
    except KeyError:
        raise LookupError(f"pacman.hints: the caller {caller!r} has no hint for {key!r}") from None
