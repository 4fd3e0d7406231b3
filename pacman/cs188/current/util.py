"""The current generation's ``util`` module, as student files import it (``from util import manhattan_distance``).

On the import path only while a current-generation file is loaded (`pacman.cs188.load_classic_module`).
"""

from pacman.cs188.classic_util import CURRENT_NAMES as __all__  # noqa: F401
from pacman.cs188.classic_util import (  # noqa: F401
    Counter,
    MethodNotImplemented,
    PriorityQueue,
    PriorityQueueWithFunction,
    Queue,
    Stack,
    choose_from_distribution,
    flip_coin,
    lookup,
    manhattan_distance,
    nearest_point,
    normalize,
    raise_not_defined,
    sample,
    sample_from_counter,
)
