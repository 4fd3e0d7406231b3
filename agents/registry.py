"""Agents by name: what the command line's ``--pacman NAME --agent-args k=v,...`` turns into."""

from __future__ import annotations

import inspect
from typing import Any, Callable, Mapping

from pacman.agents.evaluation import DEFAULT_EVALUATION, load_object, resolve_evaluation
from pacman.agents.expectimax import AlphaBetaAgent, ExpectimaxAgent, MinimaxAgent
from pacman.agents.mcts import MCTSAgent
from pacman.agents.simple import GreedyAgent, RandomAgent
from pacman.agents.solver import OptimalAgent
from pacman.errors import AgentSpecError, describe_failure

__all__ = ["PACMAN_AGENTS", "build_agent", "parse_agent_args", "effective_args", "DEFAULT_EVALUATION"]

#: Pacman agents by name.
PACMAN_AGENTS: dict[str, Callable[..., Any]] = {
    "expectimax": ExpectimaxAgent,
    "minimax": MinimaxAgent,
    "alphabeta": AlphaBetaAgent,
    "greedy": GreedyAgent,
    "random": RandomAgent,
    "mcts": MCTSAgent,
    "optimal": OptimalAgent,
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


def build_agent(name: str, args: dict[str, Any] | None = None) -> Any:
    """Build the Pacman agent registered as `name` with keyword `args`; AgentSpecError names what is wrong.

    An agent whose constructor takes ``evaluation`` always gets a callable: a
    string (a registered name, ``module:function``, ``path/to/file.py:function``)
    is resolved first, and when none is named (or it is None) the agent gets
    `DEFAULT_EVALUATION`, whatever its constructor's own default. A constructor
    that raises, or calls ``sys.exit()``, is an AgentSpecError naming the agent.
    """
    if not isinstance(name, str) or not name.strip():
        raise AgentSpecError(f"Pacman agent {name!r}: expected a registered name, module:Class or path/to/file.py:Class")
    if name in PACMAN_AGENTS:
        factory = PACMAN_AGENTS[name]
    elif ":" in name:
        factory = load_object(name, "Pacman agent")
        if not callable(factory):
            raise AgentSpecError(f"Pacman agent {name!r} is a {type(factory).__name__}, not a class")
        if isinstance(factory, type) and callable(getattr(factory, "getAction", None)) \
                and not callable(getattr(factory, "get_action", None)):
            # Classic agents need the classic state views, an application's business (pacman.cs188).
            raise AgentSpecError(f"Pacman agent {name!r} is a classic CS188 agent (getAction): build it with "
                                 f"pacman.agent_specs.make_pacman_agent, as the command line does")
    else:
        raise AgentSpecError(
            f"unknown Pacman agent {name!r} (expected one of: {', '.join(PACMAN_AGENTS)}, "
            f"module:Class or path/to/file.py:Class)"
        )
    args = dict(args or {})
    parameters = _parameters(factory)
    if parameters is not None and not any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
        unknown = [key for key in args if key not in parameters or parameters[key].kind is parameters[key].VAR_POSITIONAL]
        if unknown:
            accepted = ", ".join(parameters) or "none"
            raise AgentSpecError(
                f"Pacman agent {name!r} takes no argument {unknown[0]!r} (accepted: {accepted})"
            )
    if parameters is not None and "evaluation" in parameters:
        spec = args.get("evaluation")
        spec = DEFAULT_EVALUATION if spec is None else spec
        # The project's agents resolve a spec themselves and keep it as their evaluation's name.
        args["evaluation"] = spec if name in PACMAN_AGENTS else resolve_evaluation(spec)
    try:
        agent = factory(**args)
    except AgentSpecError:
        raise
    except KeyboardInterrupt:
        raise
    except (TypeError, ValueError) as exc:
        raise AgentSpecError(f"Pacman agent {name!r} with {_shown(args)}: {' '.join(str(exc).split())}") from None
    except BaseException as exc:  # SystemExit too: a constructor that exits is a bad agent, not the program's end
        raise AgentSpecError(f"Pacman agent {name!r}: building it {describe_failure(exc)}") from None
    if not callable(getattr(agent, "get_action", None)):
        raise AgentSpecError(f"Pacman agent {name!r} has no get_action(state) method")
    return agent


def _parameters(factory: Any) -> Mapping[str, inspect.Parameter] | None:
    """The constructor's parameters, or None when Python cannot tell (some built-in callables)."""
    try:
        return inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return None


def _shown(args: Mapping[str, Any]) -> dict[str, Any]:
    return {key: _json_value(value) for key, value in args.items()}


def effective_args(name: str, args: Mapping[str, Any] | None = None, ghosts: str | None = None) -> dict[str, Any]:
    """The arguments agent `name` is really built with: `args` over its constructor's defaults, JSON-ready.

    An ``evaluation`` left at None is the default evaluation (as `build_agent`
    builds it), and a ``ghost_model`` left at None is the kind of ghost in play
    (`ghosts`), so a record says which search it describes. Values that are not
    JSON (a callable given from Python) are recorded by name.

    >>> effective_args("expectimax", {"depth": 3}, ghosts="random")["evaluation"]
    'dots'
    """
    given = dict(args or {})
    factory = PACMAN_AGENTS.get(name)
    if factory is None and ":" in name:
        try:
            factory = load_object(name, "Pacman agent")
        except AgentSpecError:
            factory = None
    effective: dict[str, Any] = {}
    parameters = (_parameters(factory) if callable(factory) else None) or {}
    for key, parameter in parameters.items():
        if parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY) \
                and parameter.default is not parameter.empty:
            effective[key] = parameter.default
    effective.update(given)
    if ("evaluation" in parameters or "evaluation" in effective) and effective.get("evaluation") is None:
        effective["evaluation"] = DEFAULT_EVALUATION
    if "ghost_model" in effective and effective["ghost_model"] is None and ghosts is not None:
        effective["ghost_model"] = ghosts
    return {key: _json_value(value) for key, value in effective.items()}


def _json_value(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_json_value(item) for item in value]
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    return name if name else type(value).__name__
