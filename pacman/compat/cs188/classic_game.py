"""The classic ``game`` module's API, written here: `Agent`, `Directions`, `Actions`, `Grid`,
`Configuration`, `AgentState`, as CS188 student files use them.

Directions are the plain strings ``"North"`` ... ``"Stop"``; `Actions` lists
them in the classic order West, Stop, East, North, South, the order every
classic list of legal actions follows.
"""

from __future__ import annotations

from typing import Any

from pacman.compat.cs188.classic_util import nearestPoint, raiseNotDefined

__all__ = ["Agent", "Directions", "Actions", "Configuration", "AgentState", "Grid", "CLASSIC_ORDER"]


class Agent:
    """A classic agent: `index` 0 is Pacman; subclasses define ``getAction(state)``."""

    def __init__(self, index: int = 0) -> None:
        self.index = index

    def getAction(self, state: Any) -> str:
        raiseNotDefined()


class Directions:
    """The five actions as strings, and the turns between them."""

    NORTH = "North"
    SOUTH = "South"
    EAST = "East"
    WEST = "West"
    STOP = "Stop"

    LEFT = {NORTH: WEST, SOUTH: EAST, EAST: NORTH, WEST: SOUTH, STOP: STOP}
    RIGHT = {y: x for x, y in LEFT.items()}
    REVERSE = {NORTH: SOUTH, SOUTH: NORTH, EAST: WEST, WEST: EAST, STOP: STOP}


#: The classic order of actions: every list of legal actions follows it.
CLASSIC_ORDER = (Directions.WEST, Directions.STOP, Directions.EAST, Directions.NORTH, Directions.SOUTH)

_VECTORS = {
    Directions.WEST: (-1, 0),
    Directions.STOP: (0, 0),
    Directions.EAST: (1, 0),
    Directions.NORTH: (0, 1),
    Directions.SOUTH: (0, -1),
}


class Configuration:
    """Where an agent is and which way it faces (the direction of its last move other than Stop)."""

    def __init__(self, pos: tuple[float, float], direction: str) -> None:
        self.pos = pos
        self.direction = direction

    def getPosition(self) -> tuple[float, float]:
        return self.pos

    def getDirection(self) -> str:
        return self.direction

    def isInteger(self) -> bool:
        x, y = self.pos
        return x == int(x) and y == int(y)

    def generateSuccessor(self, vector: tuple[float, float]) -> Configuration:
        """The configuration after moving by `vector`; a zero vector keeps the direction."""
        x, y = self.pos
        dx, dy = vector
        direction = Actions.vectorToDirection(vector)
        if direction == Directions.STOP:
            direction = self.direction
        return Configuration((x + dx, y + dy), direction)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Configuration):
            return False
        return self.pos == other.pos and self.direction == other.direction

    def __hash__(self) -> int:
        return hash((self.pos, self.direction))

    def __str__(self) -> str:
        return f"(x,y)={self.pos}, {self.direction}"

    __repr__ = __str__


class AgentState:
    """An agent's configuration, its start, whether it is Pacman, and its scared timer."""

    def __init__(self, startConfiguration: Configuration, isPacman: bool, scaredTimer: int = 0) -> None:
        self.start = startConfiguration
        self.configuration = startConfiguration
        self.isPacman = isPacman
        self.scaredTimer = scaredTimer
        self.numCarrying = 0
        self.numReturned = 0

    def getPosition(self) -> tuple[float, float] | None:
        return None if self.configuration is None else self.configuration.getPosition()

    def getDirection(self) -> str:
        return self.configuration.getDirection()

    def copy(self) -> AgentState:
        state = AgentState(self.start, self.isPacman, self.scaredTimer)
        state.configuration = self.configuration
        return state

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AgentState):
            return False
        return self.configuration == other.configuration and self.scaredTimer == other.scaredTimer

    def __hash__(self) -> int:
        return hash((hash(self.configuration), hash(self.scaredTimer)))

    def __str__(self) -> str:
        return f"{'Pacman' if self.isPacman else 'Ghost'}: {self.configuration}"

    __repr__ = __str__


class Grid:
    """A width x height grid of booleans, indexed ``grid[x][y]`` (y = 0 is the bottom row)."""

    def __init__(self, width: int, height: int, initialValue: bool = False) -> None:
        self.width = width
        self.height = height
        self.data = [[initialValue for _ in range(height)] for _ in range(width)]

    def __getitem__(self, i: int) -> list[bool]:
        return self.data[i]

    def __setitem__(self, key: int, item: list[bool]) -> None:
        self.data[key] = item

    def __str__(self) -> str:
        rows = [[str(self.data[x][y])[0] for x in range(self.width)] for y in range(self.height)]
        rows.reverse()
        return "\n".join("".join(row) for row in rows)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Grid):
            return False
        return self.data == other.data

    def __hash__(self) -> int:
        return hash(tuple(tuple(column) for column in self.data))

    def copy(self) -> Grid:
        grid = Grid(self.width, self.height)
        grid.data = [column[:] for column in self.data]
        return grid

    def deepCopy(self) -> Grid:
        return self.copy()

    def shallowCopy(self) -> Grid:
        grid = Grid(self.width, self.height)
        grid.data = self.data
        return grid

    def count(self, item: bool = True) -> int:
        return sum(column.count(item) for column in self.data)

    def asList(self, key: bool = True) -> list[tuple[int, int]]:
        """The (x, y) of every cell holding `key`, x first, then y."""
        return [(x, y) for x in range(self.width) for y in range(self.height) if self.data[x][y] == key]


class Actions:
    """Conversions between directions and vectors, and the moves a configuration allows."""

    _directions = _VECTORS
    _directionsAsList = list(_VECTORS.items())

    TOLERANCE = 0.001

    @staticmethod
    def reverseDirection(action: str) -> str:
        return Directions.REVERSE.get(action, action)

    @staticmethod
    def vectorToDirection(vector: tuple[float, float]) -> str:
        dx, dy = vector
        if dy > 0:
            return Directions.NORTH
        if dy < 0:
            return Directions.SOUTH
        if dx < 0:
            return Directions.WEST
        if dx > 0:
            return Directions.EAST
        return Directions.STOP

    @staticmethod
    def directionToVector(direction: str, speed: float = 1.0) -> tuple[float, float]:
        dx, dy = _VECTORS[direction]
        return (dx * speed, dy * speed)

    @staticmethod
    def getPossibleActions(config: Configuration, walls: Grid) -> list[str]:
        """The directions `config` may take among `walls`, in the classic order; between two cells
        only straight on."""
        x, y = config.pos
        x_int, y_int = int(x + 0.5), int(y + 0.5)
        if abs(x - x_int) + abs(y - y_int) > Actions.TOLERANCE:
            return [config.getDirection()]
        possible = []
        for direction, (dx, dy) in Actions._directionsAsList:
            next_x, next_y = x_int + dx, y_int + dy
            if not walls[next_x][next_y]:
                possible.append(direction)
        return possible

    @staticmethod
    def getLegalNeighbors(position: tuple[float, float], walls: Grid) -> list[tuple[int, int]]:
        """The open cells next to `position` (and the cell itself), in the classic order."""
        x_int, y_int = nearestPoint(position)
        neighbors = []
        for _, (dx, dy) in Actions._directionsAsList:
            next_x, next_y = x_int + dx, y_int + dy
            if 0 <= next_x < walls.width and 0 <= next_y < walls.height and not walls[next_x][next_y]:
                neighbors.append((next_x, next_y))
        return neighbors

    @staticmethod
    def getSuccessor(position: tuple[float, float], action: str) -> tuple[float, float]:
        dx, dy = Actions.directionToVector(action)
        x, y = position
        return (x + dx, y + dy)
