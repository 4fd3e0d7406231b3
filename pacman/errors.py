"""The project's exceptions: narrow, all subclasses of ValueError, messages that name the input."""

from __future__ import annotations

__all__ = [
    "PacmanError",
    "LayoutError",
    "IllegalActionError",
    "TerminalStateError",
    "AgentSpecError",
    "TreeError",
    "describe_failure",
    "UserExit",
]


class PacmanError(ValueError):
    """Base class of every error this project raises about its input."""


class LayoutError(PacmanError):
    """A layout file or name that cannot be used; the message names the file, line and column."""


class IllegalActionError(PacmanError):
    """An action that the given agent may not take in the given state."""


class TerminalStateError(IllegalActionError):
    """A successor was asked of a state that is already won or lost."""


class AgentSpecError(PacmanError):
    """An agent name or its arguments that cannot be turned into an agent."""


class UserExit(SystemExit):
    """``os._exit(code)`` called by user code while the project guarded it (`pacman.user_code.exits_guarded`):
    raised instead, so the command can say so and go on."""


class TreeError(PacmanError):
    """An explicit game tree that cannot be searched; the message names the JSON path of the bad node."""


def describe_failure(exc: BaseException, limit: int = 300) -> str:
    """What a failing call did, in one line: ``called sys.exit(3)`` or ``raised KeyError: 'x'``.

    Used wherever user code (an agent, an evaluation, a module loaded by path)
    fails, so the message fits the one line a front end prints.
    """
    if isinstance(exc, UserExit):
        text = f"called os._exit({exc.code!r})"
    elif isinstance(exc, SystemExit):
        text = f"called sys.exit({exc.code!r})" if exc.code is not None else "called sys.exit()"
    else:
        detail = " ".join(str(exc).split())
        text = f"raised {type(exc).__name__}: {detail}" if detail else f"raised {type(exc).__name__}"
    return text if len(text) <= limit else text[: limit - 3] + "..."
