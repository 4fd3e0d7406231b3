"""Agents by name: what the command line's ``--pacman NAME --agent-args k=v,...`` turns into."""

from __future__ import annotations

import inspect
from typing import Any, Callable

from agents.evaluation import load_object
from agents.expectimax import AlphaBetaAgent, ExpectimaxAgent, MinimaxAgent
from agents.simple import GreedyAgent, RandomAgent
from pacman.errors import AgentSpecError

__all__ = ["PACMAN_AGENTS", "make_pacman_agent", "parse_agent_args"]

#: Pacman agents by name.
PACMAN_AGENTS: dict[str, Callable[..., Any]] = {
    "expectimax": ExpectimaxAgent,
    "minimax": MinimaxAgent,
    "alphabeta": AlphaBetaAgent,
    "greedy": GreedyAgent,
    "random": RandomAgent,
}


def parse_agent_args(text: str | None) -> dict[str, Any]:
    """Parse ``"depth=3,evaluation=better"`` into keyword arguments.

    Values become int, float, bool (true/false), None (none) or else stay strings.

    >>> parse_agent_args("depth=3,evaluation=better,fast=true")
    {'depth': 3, 'evaluation': 'better', 'fast': True}
    """
    args: dict[str, Any] = {}
    if text is None or not text.strip():
        return args
    for item in text.split(","):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise AgentSpecError(f"agent argument {item.strip()!r} in {text!r}: expected key=value")
        if key in args:
            raise AgentSpecError(f"agent argument {key!r} given twice in {text!r}")
        args[key] = _parse_value(value.strip())
    return args


def _parse_value(value: str) -> Any:
    lowered = value.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "none":
        return None
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def make_pacman_agent(name: str, args: dict[str, Any] | None = None) -> Any:
    """Build the Pacman agent registered as `name` with keyword `args`; AgentSpecError names what is wrong."""
    if name in PACMAN_AGENTS:
        factory = PACMAN_AGENTS[name]
    elif ":" in name:
        factory = load_object(name, "Pacman agent")
        if not callable(factory):
            raise AgentSpecError(f"Pacman agent {name!r} is a {type(factory).__name__}, not a class")
    else:
        raise AgentSpecError(
            f"unknown Pacman agent {name!r} (expected one of: {', '.join(PACMAN_AGENTS)}, "
            f"module:Class or path/to/file.py:Class)"
        )
    args = dict(args or {})
    parameters = inspect.signature(factory).parameters
    unknown = [key for key in args if key not in parameters]
    if unknown:
        accepted = ", ".join(parameters) or "none"
        raise AgentSpecError(
            f"Pacman agent {name!r} takes no argument {unknown[0]!r} (accepted: {accepted})"
        )
    try:
        agent = factory(**args)
    except AgentSpecError:
        raise
    except (TypeError, ValueError) as exc:
        raise AgentSpecError(f"Pacman agent {name!r} with {args}: {exc}") from None
    if not callable(getattr(agent, "get_action", None)):
        raise AgentSpecError(f"Pacman agent {name!r} has no get_action(state) method")
    return agent
