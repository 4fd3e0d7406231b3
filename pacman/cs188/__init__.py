"""A compatibility layer for students' files written against the CS188 course API, both generations.

Written in this project from the API's names and the behaviour the course
documents. Two generations (`GENERATIONS`): the classic camelCase one
(``multiAgents.py``, ``getAction``) and the current snake_case one
(``multi_agents.py``, ``get_action``, since 2023). `load_classic_module`
imports a student file with its generation's modules (``util``, ``game``,
``ghostAgents`` in `CLASSIC_DIR`; ``util``, ``game``, ``ghost_agents`` in
`CURRENT_DIR`) and the course's ``pacman`` module importable for that import
only; `ClassicState` / `CurrentState` are the course's ``GameState`` over ours;
`ClassicAgent` lets such an agent play our games; the course's ghosts draw from
Python's `random` exactly as the course's do.
"""

from pacman.cs188.agent import (
    ClassicAgent,
    build_classic_agent,
    classic_agent_args,
    classic_spec_path,
    effective_classic_args,
)
from pacman.cs188.classic_game import (
    CLASSIC_ORDER,
    Actions,
    Agent,
    AgentState,
    Configuration,
    CurrentAgent,
    Directions,
    Grid,
    action_order,
    set_action_order,
)
from pacman.cs188.generation import (
    CLASSIC,
    CURRENT,
    GENERATIONS,
    Generation,
    GenerationError,
    generation_of_name,
    get_action,
    source_generation,
    state_class,
)
from pacman.cs188.classic_util import MethodNotImplemented
from pacman.cs188.ghosts import (
    CLASSIC_GHOSTS,
    ClassicGhost,
    DirectionalGhost,
    GhostAgent,
    RandomGhost,
    classic_ghosts,
)
from pacman.cs188.loading import (
    CLASSIC_DIR,
    CLASSIC_MODULES,
    CURRENT_DIR,
    CURRENT_MODULES,
    PacmanAlias,
    file_generation,
    is_classic_agent,
    is_classic_file,
    load_classic_module,
)
from pacman.cs188.state import ClassicState, CurrentState, classic_legal_order

#: The classic name of the state class: ``GameState.getAndResetExplored()`` reads as in the classic code.
GameState = ClassicState

__all__ = [
    "CLASSIC", "CURRENT", "GENERATIONS", "Generation", "GenerationError", "source_generation", "generation_of_name",
    "state_class", "get_action", "file_generation", "PacmanAlias",
    "CURRENT_DIR", "CURRENT_MODULES", "CurrentState", "CurrentAgent",
    "CLASSIC_DIR", "CLASSIC_MODULES", "load_classic_module", "is_classic_agent", "is_classic_file",
    "ClassicState", "GameState", "classic_legal_order", "CLASSIC_ORDER",
    "ClassicAgent", "build_classic_agent", "classic_agent_args", "classic_spec_path", "effective_classic_args",
    "GhostAgent", "RandomGhost", "DirectionalGhost", "ClassicGhost", "CLASSIC_GHOSTS", "classic_ghosts",
    "Agent", "Directions", "Actions", "Grid", "Configuration", "AgentState", "MethodNotImplemented",
    "action_order", "set_action_order",
]
