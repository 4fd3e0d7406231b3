"""The current generation's ``ghost_agents`` module: ``GhostAgent`` (``get_distribution``), ``RandomGhost``,
``DirectionalGhost(index, prob_attack, prob_scared_flee)``.

On the import path only while a current-generation file is loaded (`pacman.cs188.load_classic_module`).
"""

from pacman.cs188.ghosts import CurrentDirectionalGhost as DirectionalGhost  # noqa: F401
from pacman.cs188.ghosts import CurrentGhostAgent as GhostAgent  # noqa: F401
from pacman.cs188.ghosts import CurrentRandomGhost as RandomGhost  # noqa: F401

__all__ = ["GhostAgent", "RandomGhost", "DirectionalGhost"]
