"""pacman-ai: a Pacman gridworld where Pacman maximises and every ghost is a chance layer."""

from pacman.actions import Action
from pacman.errors import (
    AgentSpecError,
    IllegalActionError,
    LayoutError,
    PacmanError,
    TerminalStateError,
    TreeError,
)
from pacman.game import GameResult, run_game
from pacman.layout import Layout, load_layout, parse_layout
from pacman.state import GameState

__all__ = [
    "Action",
    "GameState",
    "GameResult",
    "run_game",
    "Layout",
    "load_layout",
    "parse_layout",
    "PacmanError",
    "LayoutError",
    "IllegalActionError",
    "TerminalStateError",
    "AgentSpecError",
    "TreeError",
]
