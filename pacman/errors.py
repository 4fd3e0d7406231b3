"""The project's exceptions: narrow, all subclasses of ValueError, messages that name the input."""

from __future__ import annotations

__all__ = [
    "PacmanError",
    "LayoutError",
    "IllegalActionError",
    "TerminalStateError",
    "AgentSpecError",
    "TreeError",
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


class TreeError(PacmanError):
    """An explicit game tree that cannot be searched; the message names the JSON path of the bad node."""
