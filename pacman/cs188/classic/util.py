"""The classic ``util`` module, as student files import it (``from util import manhattanDistance``).

On the import path only while a classic file is loaded (`pacman.cs188.load_classic_module`).
"""

from pacman.cs188.classic_util import *  # noqa: F401,F403
from pacman.cs188.classic_util import __all__  # noqa: F401
