"""The classic ``game`` module's API, written here: `Agent`, `Directions`, `Actions`, `Grid`,
`Configuration`, `AgentState`, as CS188 student files use them.

Directions are the plain strings ``"North"`` ... ``"Stop"``; `Actions` lists
them in the classic order West, Stop, East, North, South, the order every
classic list of legal actions follows -- or in the order of a course's own
``game.py`` once `set_action_order` is given it.

The current (snake_case) generation's ``game`` module is the same classes under
their snake_case method names (``Actions.direction_to_vector``,
``Grid.as_list``, ``AgentState.scared_timer`` ...), which every class here also
answers, and its own `CurrentAgent` (``get_action``), exported as ``Agent``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pacman.cs188.classic_util import manhattanDistance, nearestPoint, raiseNotDefined

__all__ = ["Agent", "CurrentAgent", "Directions", "Actions", "Configuration", "AgentState", "Grid", "CLASSIC_ORDER",
           "action_order", "set_action_order"]


class Agent:
    """A classic agent: `index` 0 is Pacman; subclasses define ``getAction(state)``."""

    def __init__(self, index: int = 0) -> None:
        self.index = index

    def getAction(self, state: Any) -> str:
        raiseNotDefined()


class CurrentAgent:
    """A current-generation agent (``game.Agent`` there): `index` 0 is Pacman; subclasses define
    ``get_action(state)``."""

    def __init__(self, index: int = 0) -> None:
        self.index = index

    def get_action(self, state: Any) -> str:
        raiseNotDefined()


class Directions:
    """The five actions as strings, and the turns between them."""

    NORTH = "North"
    SOUTH = "South"
    EAST = "East"
    WEST = "West"
    STOP = "Stop"

    #: A quarter turn to the left, to the right, and a half turn (Stop turns to Stop).
    LEFT = {NORTH: WEST, WEST: SOUTH, SOUTH: EAST, EAST: NORTH, STOP: STOP}
    RIGHT = {NORTH: EAST, EAST: SOUTH, SOUTH: WEST, WEST: NORTH, STOP: STOP}
    REVERSE = {NORTH: SOUTH, EAST: WEST, SOUTH: NORTH, WEST: EAST, STOP: STOP}


#: The classic order of actions: every list of legal actions follows it, unless a course's own engine
#: says otherwise (`set_action_order`).
CLASSIC_ORDER = (Directions.WEST, Directions.STOP, Directions.EAST, Directions.NORTH, Directions.SOUTH)
#: The order in force in this process: one setting, not a store that grows (a grading child sets it once,
#: from the course's ``game.py``, before it loads the student's file).
_ORDER = [CLASSIC_ORDER]


def action_order() -> tuple[str, ...]:
    """The order every list of legal actions follows in this process (the classic order by default)."""
    return _ORDER[0]


def set_action_order(order: tuple[str, ...] | list[str] | None) -> None:
    """Make lists of legal actions follow `order` (a permutation of the five actions; None: the classic order),
    as a course whose ``game.py`` lists its directions in another order does
    (`pacman.cs188.quirks`)."""
    chosen = CLASSIC_ORDER if order is None else tuple(order)
    if sorted(chosen) != sorted(CLASSIC_ORDER):
        raise ValueError(f"an order of actions must list the five actions once each, got {list(chosen)}")
    if chosen != _ORDER[0]:
        _ORDER[0] = chosen
        for listener in _ON_ORDER:
            listener(chosen)


#: What must follow a change of order (the state view's cached orders), registered by those modules.
_ON_ORDER: list = []

_VECTORS = {
    Directions.WEST: (-1, 0),
    Directions.STOP: (0, 0),
    Directions.EAST: (1, 0),
    Directions.NORTH: (0, 1),
    Directions.SOUTH: (0, -1),
}


@dataclasses.dataclass(eq=True, unsafe_hash=True)
class Configuration:
    """Where an agent is (`pos`) and which way it faces (`direction`: its last move other than Stop)."""

    pos: tuple[float, float]
    direction: str

    def getPosition(self) -> tuple[float, float]:
        return self.pos

    def getDirection(self) -> str:
        return self.direction

    def isInteger(self) -> bool:
        """True on a cell, False half-way between two."""
        return all(float(c).is_integer() for c in self.pos)

    def generateSuccessor(self, vector: tuple[float, float]) -> Configuration:
        """This agent moved by `vector`; a zero vector (Stop) keeps the direction it faces."""
        moved = Actions.vectorToDirection(vector)
        return Configuration(Actions.getSuccessor(self.pos, moved, vector),
                             self.direction if moved == Directions.STOP else moved)

    get_position = getPosition
    get_direction = getDirection
    is_integer = isInteger
    generate_successor = generateSuccessor


@dataclasses.dataclass
class AgentState:
    """An agent: where it started, where it is, whether it is Pacman, its scared timer.

    Two agent states are equal when their configurations and timers are.
    """

    start: Configuration
    isPacman: bool
    scaredTimer: int = 0
    configuration: Configuration | None = dataclasses.field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.configuration is None:
            self.configuration = self.start

    def getPosition(self) -> tuple[float, float] | None:
        return self.configuration.getPosition() if self.configuration is not None else None

    def getDirection(self) -> str:
        return self.configuration.getDirection()

    def copy(self) -> AgentState:
        return dataclasses.replace(self)

    get_position = getPosition
    get_direction = getDirection

    @property
    def scared_timer(self) -> int:
        """``scaredTimer`` under the current generation's name."""
        return self.scaredTimer

    @scared_timer.setter
    def scared_timer(self, value: int) -> None:
        self.scaredTimer = value

    @property
    def is_pacman(self) -> bool:
        """``isPacman`` under the current generation's name."""
        return self.isPacman

    @is_pacman.setter
    def is_pacman(self, value: bool) -> None:
        self.isPacman = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AgentState) and (self.configuration, self.scaredTimer) == \
            (other.configuration, other.scaredTimer)

    def __hash__(self) -> int:
        return hash((self.configuration, self.scaredTimer))


class Grid:
    """`width` x `height` booleans read as ``grid[x][y]``, y = 0 the bottom row."""

    def __init__(self, width: int, height: int, initialValue: bool = False) -> None:
        self.width, self.height = width, height
        self.data = [[initialValue] * height for _ in range(width)]

    def __getitem__(self, x: int) -> list[bool]:
        return self.data[x]

    def __setitem__(self, x: int, column: list[bool]) -> None:
        self.data[x] = column

    def __str__(self) -> str:
        return "\n".join("".join("T" if self.data[x][y] else "F" for x in range(self.width))
                         for y in reversed(range(self.height)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Grid) and self.data == other.data

    def __hash__(self) -> int:
        return hash(tuple(map(tuple, self.data)))

    def copy(self) -> Grid:
        """An independent copy."""
        grid = Grid(self.width, self.height)
        grid.data = [list(column) for column in self.data]
        return grid

    deepCopy = copy

    def shallowCopy(self) -> Grid:
        """A grid sharing this one's columns."""
        grid = Grid(self.width, self.height)
        grid.data = self.data
        return grid

    def count(self, item: bool = True) -> int:
        """How many cells hold `item`."""
        return sum(value == item for column in self.data for value in column)

    def asList(self, key: bool = True) -> list[tuple[int, int]]:
        """The (x, y) of every cell holding `key`, by x, then y."""
        return [(x, y) for x, column in enumerate(self.data) for y, value in enumerate(column) if value == key]

    as_list = asList
    deep_copy = copy
    shallow_copy = shallowCopy


#: How far from a cell's centre a position still counts as on the cell.
_ON_CELL = 1e-3


class Actions:
    """Directions as vectors and back, and the moves a position allows (in the classic order)."""

    @staticmethod
    def reverseDirection(action: str) -> str:
        return Directions.REVERSE.get(action, action)

    @staticmethod
    def vectorToDirection(vector: tuple[float, float]) -> str:
        """The direction of a move by `vector` (vertical first); Stop for a zero vector."""
        dx, dy = vector
        for moving, direction in ((dy > 0, Directions.NORTH), (dy < 0, Directions.SOUTH),
                                  (dx < 0, Directions.WEST), (dx > 0, Directions.EAST)):
            if moving:
                return direction
        return Directions.STOP

    @staticmethod
    def directionToVector(direction: str, speed: float = 1.0) -> tuple[float, float]:
        dx, dy = _VECTORS[direction]
        return dx * speed, dy * speed

    @staticmethod
    def getPossibleActions(config: Configuration, walls: Grid) -> list[str]:
        """The directions open from `config` among `walls`, in the classic order; between two
        cells, only straight on."""
        cell = nearestPoint(config.pos)
        if manhattanDistance(cell, config.pos) > _ON_CELL:
            return [config.getDirection()]
        return [direction for direction in _ORDER[0]
                if not walls[cell[0] + _VECTORS[direction][0]][cell[1] + _VECTORS[direction][1]]]

    @staticmethod
    def getLegalNeighbors(position: tuple[float, float], walls: Grid) -> list[tuple[int, int]]:
        """The open cells next to `position`, and its own cell, in the classic order."""
        x, y = nearestPoint(position)
        around = ((x + dx, y + dy) for dx, dy in (_VECTORS[d] for d in _ORDER[0]))
        return [(a, b) for a, b in around if 0 <= a < walls.width and 0 <= b < walls.height and not walls[a][b]]

    @staticmethod
    def getSuccessor(position: tuple[float, float], action: str,
                     vector: tuple[float, float] | None = None) -> tuple[float, float]:
        """`position` moved one step by `action` (or by `vector`, when given)."""
        dx, dy = Actions.directionToVector(action) if vector is None else vector
        return position[0] + dx, position[1] + dy

    reverse_direction = reverseDirection
    vector_to_direction = vectorToDirection
    direction_to_vector = directionToVector
    get_possible_actions = getPossibleActions
    get_legal_neighbors = getLegalNeighbors
    get_successor = getSuccessor
