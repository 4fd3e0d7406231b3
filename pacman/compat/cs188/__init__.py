"""A compatibility layer for students' files written against the classic course API.

Written in this project from the API's names and the behaviour the course
documents. `load_classic_module` imports a student file with the
classic modules (``util``, ``game``, ``ghostAgents``, in `CLASSIC_DIR`) on the
import path for that import only; `ClassicState` is the classic ``GameState``
over ours; `ClassicAgent` lets a classic agent play our games; the classic
ghosts draw from Python's `random` exactly as the classic ones do.
"""

from pacman.compat.cs188.agent import (
    ClassicAgent,
    build_classic_agent,
    classic_agent_args,
    classic_spec_path,
    effective_classic_args,
)
from pacman.compat.cs188.classic_game import CLASSIC_ORDER, Actions, Agent, AgentState, Configuration, Directions, Grid
from pacman.compat.cs188.classic_util import MethodNotImplemented
from pacman.compat.cs188.ghosts import (
    CLASSIC_GHOSTS,
    ClassicGhost,
    DirectionalGhost,
    GhostAgent,
    RandomGhost,
    classic_ghosts,
)
from pacman.compat.cs188.loading import CLASSIC_DIR, CLASSIC_MODULES, is_classic_agent, is_classic_file, load_classic_module
from pacman.compat.cs188.state import ClassicState, classic_legal_order

#: The classic name of the state class: ``GameState.getAndResetExplored()`` reads as in the classic code.
GameState = ClassicState

__all__ = [
    "CLASSIC_DIR", "CLASSIC_MODULES", "load_classic_module", "is_classic_agent", "is_classic_file",
    "ClassicState", "GameState", "classic_legal_order", "CLASSIC_ORDER",
    "ClassicAgent", "build_classic_agent", "classic_agent_args", "classic_spec_path", "effective_classic_args",
    "GhostAgent", "RandomGhost", "DirectionalGhost", "ClassicGhost", "CLASSIC_GHOSTS", "classic_ghosts",
    "Agent", "Directions", "Actions", "Grid", "Configuration", "AgentState", "MethodNotImplemented",
]
