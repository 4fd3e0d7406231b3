"""CS188 agents in our games: `ClassicAgent` adapts one, `build_classic_agent` builds one from a spec.

Both generations: a classic agent (``getAction``) or a current-generation one
(``get_action``), as its file says (`file_generation`). It is built the course's
way: agent arguments as strings, no ``index`` passed (its constructor's default,
0), so ``evalFn=better`` (current: ``eval_fn=better``) is looked up by the
student's own class (``util.lookup`` in the student's module). It gets
``registerInitialState(state)`` (``register_initial_state``) before its first
move if it has one, and state views (`ClassicState`, `CurrentState`) that track
the direction Pacman faces. Python's
global `random`, which classic code uses, is seeded from the game's seed in
``reset``, so a seeded game replays.
"""

from __future__ import annotations

import inspect
import random
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from pacman.actions import Action
from pacman.cs188.classic_game import Directions
from pacman.cs188.classic_util import MethodNotImplemented
from pacman.cs188.generation import CLASSIC, GENERATIONS, state_class
from pacman.cs188.loading import file_generation, is_classic_agent, load_classic_module
from pacman.cs188.state import ClassicState
from pacman.errors import AgentSpecError, describe_failure
from pacman.state import GameState

__all__ = ["ClassicAgent", "build_classic_agent", "classic_spec_path", "classic_agent_args",
           "effective_classic_args"]


class UnfinishedMethodError(RuntimeError):
    """A classic agent's method still calls ``util.raiseNotDefined()``: its game ends as crashed, naming the method."""


class ClassicAgent:
    """Our agent protocol (``get_action(state)``, ``reset(rng, ghost_agents)``) over a classic agent.

    The explored set (`ClassicState.explored`) is cleared before each move, so a
    long game does not keep every state its searches generated.
    """

    def __init__(self, agent: Any, name: str | None = None, generation: str = CLASSIC) -> None:
        names = GENERATIONS[generation]
        self._get_action = getattr(agent, names.get_action, None)
        if not callable(self._get_action):
            raise AgentSpecError(f"CS188 agent {name or type(agent).__name__!r} has no {names.get_action}(state) method")
        self.agent = agent
        self.name = name or type(agent).__name__
        self.generation = generation
        self._register = names.register_initial_state
        self._view = state_class(generation)
        self._direction = Directions.STOP
        self._started = False

    def reset(self, rng: np.random.Generator, ghost_agents: Any = ()) -> None:
        """A new game: Pacman faces Stop again, and Python's `random` is seeded from `rng`."""
        self._direction = Directions.STOP
        self._started = False
        random.seed(int(rng.integers(0, 2**63)))

    def get_action(self, state: GameState) -> Action:
        view = self._view(state, self._direction)
        ClassicState.getAndResetExplored()
        try:
            if not self._started:
                self._started = True
                register = getattr(self.agent, self._register, None)
                if callable(register):
                    register(view)
            action = self._get_action(view)
        except MethodNotImplemented as exc:
            raise UnfinishedMethodError(str(exc)) from None
        try:
            move = Action(action)
        except ValueError:
            raise ValueError(f"{self.name}.{GENERATIONS[self.generation].get_action} returned {action!r}, "
                             f"not an action") from None
        if move is not Action.STOP:
            self._direction = move.value
        return move

    def __repr__(self) -> str:
        return f"ClassicAgent({self.name})"


def classic_spec_path(spec: Any) -> Path | None:
    """The file of ``path/to/file.py:Class`` when that file is a CS188 one of either generation
    (`file_generation`), else None."""
    if not isinstance(spec, str):
        return None
    target, sep, class_name = spec.rpartition(":")
    if not sep or not target.endswith(".py"):
        return None
    path = Path(target).expanduser()
    try:
        if not path.is_file():
            return None
    except (OSError, ValueError):
        return None
    return path if file_generation(path, class_name) is not None else None


def classic_agent_args(args: Mapping[str, Any] | None) -> dict[str, str]:
    """Agent arguments the classic way: every value a string (``depth=2`` is ``"2"``)."""
    out = {}
    for key, value in (args or {}).items():
        if isinstance(value, bool) or value is None:
            value = str(value).lower()
        out[key] = value if isinstance(value, str) else str(value)
    return out


def _classic_class(spec: str) -> tuple[type, str]:
    target, _, class_name = spec.rpartition(":")
    generation = file_generation(target, class_name) or CLASSIC
    module = load_classic_module(target, generation=generation)
    try:
        cls = getattr(module, class_name)
    except AttributeError:
        found = sorted(n for n in vars(module) if not n.startswith("_") and isinstance(vars(module)[n], type))
        raise AgentSpecError(f"Pacman agent {spec!r}: {target} has no {class_name!r} "
                             f"(its classes: {', '.join(found) or 'none'})") from None
    if not is_classic_agent(cls, generation):
        raise AgentSpecError(f"Pacman agent {spec!r}: {class_name} is not an agent class of "
                             f"{GENERATIONS[generation].title} (a class with "
                             f"{GENERATIONS[generation].get_action}(state))")
    return cls, generation


def build_classic_agent(spec: str, args: Mapping[str, Any] | None = None) -> ClassicAgent:
    """Build the classic agent class of ``path/to/file.py:Class``, adapted with `ClassicAgent`.

    Arguments become strings; one the constructor does not take, a constructor
    that raises or exits, is an AgentSpecError naming the agent.
    """
    cls, generation = _classic_class(spec)
    kwargs = classic_agent_args(args)
    try:
        parameters = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        parameters = None
    if parameters is not None and not any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
        unknown = [key for key in kwargs if key not in parameters]
        if unknown:
            raise AgentSpecError(f"Pacman agent {spec!r} takes no argument {unknown[0]!r} "
                                 f"(accepted: {', '.join(parameters) or 'none'})")
    try:
        agent = cls(**kwargs)
    except KeyboardInterrupt:
        raise
    except MethodNotImplemented as exc:
        raise AgentSpecError(f"Pacman agent {spec!r}: building it: {exc}") from None
    except BaseException as exc:  # SystemExit too: a constructor that exits is a bad agent
        raise AgentSpecError(f"Pacman agent {spec!r} with {kwargs}: building it {describe_failure(exc)}") from None
    if not hasattr(agent, "index"):
        agent.index = 0
    return ClassicAgent(agent, name=spec, generation=generation)


def effective_classic_args(spec: str, args: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The arguments a classic agent is really built with: its constructor's defaults, then `args`, as strings."""
    effective: dict[str, Any] = {}
    try:
        cls, _ = _classic_class(spec)
        parameters = inspect.signature(cls).parameters
    except (AgentSpecError, TypeError, ValueError):
        parameters = {}
    for key, parameter in parameters.items():
        if parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY) \
                and parameter.default is not parameter.empty:
            default = parameter.default
            effective[key] = default if default is None or isinstance(default, (bool, int, float, str)) else repr(default)
    effective.update(classic_agent_args(args))
    return effective
