"""The classic ``ghostAgents`` module: ``RandomGhost(index)``, ``DirectionalGhost(index, prob_attack, prob_scaredFlee)``.

On the import path only while a classic file is loaded (`pacman.cs188.load_classic_module`).
"""

from pacman.cs188.ghosts import DirectionalGhost, GhostAgent, RandomGhost  # noqa: F401

__all__ = ["GhostAgent", "RandomGhost", "DirectionalGhost"]
