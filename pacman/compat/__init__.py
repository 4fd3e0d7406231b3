"""Compatibility with other Pacman projects' files: `pacman.compat.cs188` for the CS188 classic API.

`make_pacman_agent` and `effective_agent_args` are the application-level way to
build a Pacman agent from a spec: as `pacman.agents.registry` does, and a classic CS188
agent class (``multiAgents.py:MinimaxAgent``) too, adapted with `ClassicAgent`.
Front ends call these; `agents` itself knows nothing of the classic API. `agents`
is imported when they are called, not with this package, so that a classic
submission, which may use the classic API below it, does not find the project's
agents loaded through it (see `pacman.grading.forbidden`).
"""

from __future__ import annotations

from typing import Any, Mapping

from pacman.compat.cs188 import build_classic_agent, classic_spec_path, effective_classic_args

__all__ = ["make_pacman_agent", "effective_agent_args"]


def make_pacman_agent(name: str, args: dict[str, Any] | None = None) -> Any:
    """`pacman.agents.registry.make_pacman_agent`, and a classic agent for ``file.py:Class`` of a classic file."""
    from pacman.agents import registry

    if classic_spec_path(name) is not None:
        return build_classic_agent(name, args)
    return registry.make_pacman_agent(name, args)


def effective_agent_args(name: str, args: Mapping[str, Any] | None = None, ghosts: str | None = None) -> dict[str, Any]:
    """`pacman.agents.registry.effective_agent_args`; for a classic agent, its string arguments over its defaults."""
    from pacman.agents import registry

    if classic_spec_path(name) is not None:
        return effective_classic_args(name, args)
    return registry.effective_agent_args(name, args, ghosts=ghosts)
