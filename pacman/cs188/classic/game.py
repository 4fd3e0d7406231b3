"""The classic ``game`` module, as student files import it (``from game import Directions, Agent``).

On the import path only while a classic file is loaded (`pacman.cs188.load_classic_module`).
"""

from pacman.cs188.classic_game import *  # noqa: F401,F403
from pacman.cs188.classic_game import __all__  # noqa: F401
