"""The current generation's ``game`` module (``from game import Agent, Directions, Actions``).

On the import path only while a current-generation file is loaded (`pacman.cs188.load_classic_module`).
Its ``Agent`` defines ``get_action``; the other classes answer the snake_case names
(``Actions.direction_to_vector``, ``Grid.as_list``, ``AgentState.scared_timer``).
"""

from pacman.cs188.classic_game import CLASSIC_ORDER, Actions, AgentState, Configuration, Directions, Grid  # noqa: F401
from pacman.cs188.classic_game import CurrentAgent as Agent  # noqa: F401

__all__ = ["Agent", "Directions", "Actions", "Configuration", "AgentState", "Grid"]
