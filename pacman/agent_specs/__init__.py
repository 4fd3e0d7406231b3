"""Compatibility with other Pacman projects' files: `pacman.cs188` for the CS188 classic API.

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

from pacman.cs188 import build_classic_agent, classic_spec_path, effective_classic_args

__all__ = ["make_pacman_agent", "effective_agent_args"]


def make_pacman_agent(name: str, args: dict[str, Any] | None = None) -> Any:
    """`pacman.agents.registry.make_pacman_agent`, a classic agent for ``file.py:Class`` of a classic file, and a
    policy learned with Stable-Baselines3 for ``sb3:PATH.zip`` (`pacman.envs.learned`)."""
    from pacman.agents import registry

    if _is_sb3(name):
        return _sb3_agent(name, args)
    if classic_spec_path(name) is not None:
        return build_classic_agent(name, args)
    return registry.build_agent(name, args)


def effective_agent_args(name: str, args: Mapping[str, Any] | None = None, ghosts: str | None = None) -> dict[str, Any]:
    """`pacman.agents.registry.effective_agent_args`; for a classic agent, its string arguments over its defaults."""
    from pacman.agents import registry

    if _is_sb3(name):
        from pacman.envs.learned import sb3_agent_args

        return sb3_agent_args(name, args)
    if classic_spec_path(name) is not None:
        return effective_classic_args(name, args)
    return registry.effective_args(name, args, ghosts=ghosts)


def _is_sb3(name: Any) -> bool:
    return isinstance(name, str) and name.startswith("sb3:")


def _sb3_agent(name: str, args: dict[str, Any] | None) -> Any:
    """The agent of ``sb3:PATH.zip``: its arguments checked by name (AgentSpecError), the model loaded."""
    from pacman.errors import AgentSpecError

    try:
        from pacman.envs.learned import SB3Agent
    except ImportError as exc:
        raise AgentSpecError(f"{name}: a learned agent needs {exc.name}: pip install \"pacman-ai[rl]\"") from None
    path = name[len("sb3:"):]
    if not path:
        raise AgentSpecError(f"{name!r}: expected sb3:PATH.zip, the file of a model saved by Stable-Baselines3")
    args = dict(args or {})
    unknown = sorted(set(args) - {"deterministic", "observation"})
    if unknown:
        raise AgentSpecError(f"Pacman agent {name!r} takes no argument {unknown[0]!r} "
                             "(accepted: deterministic, observation)")
    return SB3Agent(path, **args)
