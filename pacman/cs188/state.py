"""`ClassicState`: the classic ``GameState`` API as a view over our immutable `GameState`.

The view reproduces the facts classic student code and the classic autograder
depend on:

- legal actions are plain strings in the classic order West, Stop, East, North,
  South (among those legal), or the order of the course's own engine
  (`pacman.cs188.classic_game.set_action_order`); a ghost never has Stop; [] once the game is over;
- a state's identity (``==``, ``hash``, the explored set) is the score, the food,
  the capsules, and every agent's position, direction and scared timer, not the
  win/lose flags. An agent's direction is that of its last move other than Stop
  (Stop keeps it; every agent starts facing Stop, and so does a ghost sent home).
  Our `GameState` keeps each ghost's direction; the view carries Pacman's;
- every `generateSuccessor` call adds the state it was called on and the state
  it returns to `ClassicState.explored`, read and cleared by the static
  `ClassicState.getAndResetExplored()`.

`CurrentState` is the same view under the current (snake_case) generation's
names: ``get_legal_actions``, ``generate_successor``, ``get_and_reset_explored``.

Limit: a ghost with no legal move at all (walled in) "stops": the view returns
the same position for it, its scared timer not ticking.
"""

from __future__ import annotations

from pacman.actions import Action
from pacman.cs188.classic_game import (
    _ON_ORDER,
    CLASSIC_ORDER,
    AgentState,
    Configuration,
    Directions,
    Grid,
    action_order,
)
from pacman.errors import IllegalActionError, TerminalStateError
from pacman.layout import Layout
from pacman.state import GameState

__all__ = ["ClassicState", "CurrentState", "classic_legal_order"]

_ACTIONS = {action.value: action for action in Action}
_RANK = {name: i for i, name in enumerate(CLASSIC_ORDER)}
#: Our legal tuples (at most 2^5 of them) as ordered strings, for the order in force.
_ORDERED: dict[tuple[Action, ...], tuple[str, ...]] = {}


def _follow_order(order: tuple[str, ...]) -> None:
    _RANK.clear()
    _RANK.update((name, i) for i, name in enumerate(order))
    _ORDERED.clear()


_ON_ORDER.append(_follow_order)
_follow_order(action_order())


def classic_legal_order(legal: tuple[Action, ...]) -> tuple[str, ...]:
    """Our legal actions as classic strings, in the classic order West, Stop, East, North, South (or the
    order a course's engine gives, `pacman.cs188.classic_game.set_action_order`)."""
    ordered = _ORDERED.get(legal)
    if ordered is None:
        ordered = _ORDERED[legal] = tuple(sorted((a.value for a in legal), key=_RANK.__getitem__))
    return ordered


def _walls_grid(layout: Layout) -> Grid:
    grid = Grid(layout.width, layout.height)
    for x, y in layout.walls:
        grid.data[x][y] = True
    return grid


class ClassicState:
    """A classic ``GameState``: our `GameState` plus the direction Pacman faces.

    >>> from pacman import load_layout
    >>> start = ClassicState(GameState.initial(load_layout("test")))
    >>> start.getLegalActions(0)
    ['Stop', 'East', 'South']
    """

    __slots__ = ("game_state", "pacman_direction", "_key", "_hash", "_food")

    #: Every state a `generateSuccessor` call was made on or returned, since the last reset.
    explored: set[ClassicState] = set()

    def __init__(self, game_state: GameState, pacman_direction: str = Directions.STOP) -> None:
        self.game_state = game_state
        self.pacman_direction = pacman_direction
        self._key: tuple | None = None
        self._hash: int | None = None
        self._food: Grid | None = None

    @staticmethod
    def getAndResetExplored() -> set[ClassicState]:
        """The explored states since the last call, and a fresh, empty set from now on."""
        explored = ClassicState.explored
        ClassicState.explored = set()
        return explored

    # -- moves ---------------------------------------------------------------------

    def getLegalActions(self, agentIndex: int = 0) -> list[str]:
        """The legal actions of `agentIndex`, classic order; [] once the game is over."""
        state = self.game_state
        if state.is_terminal():
            return []
        return list(classic_legal_order(state.legal_actions(agentIndex)))

    def getLegalPacmanActions(self) -> list[str]:
        return self.getLegalActions(0)

    def generateSuccessor(self, agentIndex: int, action: str) -> ClassicState:
        """The state after `agentIndex` takes `action`; counted in `explored` with this state.

        Raises TerminalStateError on a finished game, IllegalActionError for an illegal action.
        """
        state = self.game_state
        if state.is_terminal():
            raise TerminalStateError("Can't generate a successor of a terminal state.")
        move = action if isinstance(action, Action) else _ACTIONS.get(action)
        if move is None:
            raise IllegalActionError(f"illegal action {action!r} for agent {agentIndex}: not an action")
        direction = self.pacman_direction
        if agentIndex == 0:
            if move is not Action.STOP:
                direction = move.value
            successor = state.successor(0, move)
        elif move is Action.STOP and not state.legal_actions(agentIndex):
            successor = state  # a ghost with no move stops
        else:
            successor = state.successor(agentIndex, move)
        result = self._view(successor, direction)
        explored = ClassicState.explored
        explored.add(self)
        explored.add(result)
        return result

    def _view(self, game_state: GameState, pacman_direction: str) -> ClassicState:
        """A view of `game_state` of this view's class (a successor of a current-generation state is one too)."""
        return type(self)(game_state, pacman_direction)

    def generatePacmanSuccessor(self, action: str) -> ClassicState:
        return self.generateSuccessor(0, action)

    # -- questions -----------------------------------------------------------------

    def getNumAgents(self) -> int:
        return self.game_state.num_agents

    def getScore(self) -> float:
        return float(self.game_state.score)

    def isWin(self) -> bool:
        return self.game_state.is_win()

    def isLose(self) -> bool:
        return self.game_state.is_lose()

    def getPacmanPosition(self) -> tuple[int, int]:
        return self.game_state.pacman_position

    def getPacmanState(self) -> AgentState:
        state = self.game_state
        agent = AgentState(Configuration(state.layout.pacman_start, Directions.STOP), True)
        agent.configuration = Configuration(state.pacman_position, self.pacman_direction)
        return agent

    def getGhostStates(self) -> list[AgentState]:
        return [self.getGhostState(i) for i in range(1, self.game_state.num_agents)]

    def getGhostState(self, agentIndex: int) -> AgentState:
        state = self.game_state
        if agentIndex == 0 or not 0 < agentIndex < state.num_agents:
            raise IllegalActionError(f"invalid ghost index {agentIndex!r} (ghosts are 1..{state.num_ghosts})")
        i = agentIndex - 1
        agent = AgentState(Configuration(state.layout.ghost_starts[i], Directions.STOP), False,
                           state.scared_timers[i])
        agent.configuration = Configuration(state.ghost_positions[i], state.ghost_directions[i].value)
        return agent

    def getGhostPosition(self, agentIndex: int) -> tuple[float, float]:
        if agentIndex == 0:
            raise IllegalActionError("Pacman's index passed to getGhostPosition")
        return self.game_state.agent_position(agentIndex)

    def getGhostPositions(self) -> list[tuple[float, float]]:
        return list(self.game_state.ghost_positions)

    def getFood(self) -> Grid:
        """The food as a Grid (``grid[x][y]``); shared by calls on this state, so not to be changed."""
        if self._food is None:
            layout = self.game_state.layout
            grid = Grid(layout.width, layout.height)
            for x, y in self.game_state.food:
                grid.data[x][y] = True
            self._food = grid
        return self._food

    def getWalls(self) -> Grid:
        """The walls as a Grid, one per layout (not to be changed)."""
        return self.game_state.layout.derived("cs188_walls", _walls_grid)

    def getNumFood(self) -> int:
        return self.game_state.food_count

    def hasFood(self, x: int, y: int) -> bool:
        return self.game_state.has_food(x, y)

    def hasWall(self, x: int, y: int) -> bool:
        return self.game_state.layout.is_wall(x, y)

    def getCapsules(self) -> list[tuple[int, int]]:
        """The capsules left, in the order the classic loader lists them (bottom row first, then x)."""
        return sorted(self.game_state.capsules, key=lambda cell: (cell[1], cell[0]))

    def deepCopy(self) -> ClassicState:
        return self._view(self.game_state, self.pacman_direction)

    # -- identity ------------------------------------------------------------------

    def identity(self) -> tuple:
        """What makes two classic states equal: score, food, capsules, and each agent's
        position, direction and scared timer (not the win/lose flags)."""
        key = self._key
        if key is None:
            state = self.game_state
            key = self._key = (state.score, state.food_mask, state.capsule_mask, state.pacman_position,
                               self.pacman_direction, state.ghost_positions, state.ghost_directions,
                               state.scared_timers, state.layout)
        return key

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ClassicState):
            return NotImplemented
        return self is other or self.identity() == other.identity()

    def __hash__(self) -> int:
        value = self._hash
        if value is None:
            value = self._hash = hash(self.identity())
        return value

    def __str__(self) -> str:
        return f"{self.game_state.to_text()}\nScore: {self.game_state.score}\n"

    def __repr__(self) -> str:
        return f"ClassicState({self.game_state!r}, pacman_direction={self.pacman_direction!r})"


class CurrentState(ClassicState):
    """The current (snake_case, 2023+) generation's ``GameState``: `ClassicState` under snake_case names.

    It shares `ClassicState.explored` (one explored set for both generations) and
    its successors are `CurrentState` views too.

    >>> from pacman import load_layout
    >>> start = CurrentState(GameState.initial(load_layout("test")))
    >>> start.get_legal_actions(0)[0], type(start.generate_successor(0, "Stop")).__name__
    ('Stop', 'CurrentState')
    """

    __slots__ = ()

    @staticmethod
    def get_and_reset_explored() -> set[ClassicState]:
        """The explored states since the last call, and a fresh, empty set from now on."""
        return ClassicState.getAndResetExplored()

    def get_legal_actions(self, agent_index: int = 0) -> list[str]:
        return self.getLegalActions(agent_index)

    def get_legal_pacman_actions(self) -> list[str]:
        return self.getLegalActions(0)

    def generate_successor(self, agent_index: int, action: str) -> ClassicState:
        return self.generateSuccessor(agent_index, action)

    def generate_pacman_successor(self, action: str) -> ClassicState:
        return self.generateSuccessor(0, action)

    def get_num_agents(self) -> int:
        return self.game_state.num_agents

    def get_score(self) -> float:
        return float(self.game_state.score)

    def is_win(self) -> bool:
        return self.game_state.is_win()

    def is_lose(self) -> bool:
        return self.game_state.is_lose()

    def get_pacman_position(self) -> tuple[int, int]:
        return self.game_state.pacman_position

    def get_pacman_state(self) -> AgentState:
        return self.getPacmanState()

    def get_ghost_states(self) -> list[AgentState]:
        return self.getGhostStates()

    def get_ghost_state(self, agent_index: int) -> AgentState:
        return self.getGhostState(agent_index)

    def get_ghost_position(self, agent_index: int) -> tuple[float, float]:
        return self.getGhostPosition(agent_index)

    def get_ghost_positions(self) -> list[tuple[float, float]]:
        return list(self.game_state.ghost_positions)

    def get_food(self) -> Grid:
        return self.getFood()

    def get_walls(self) -> Grid:
        return self.getWalls()

    def get_num_food(self) -> int:
        return self.game_state.food_count

    def has_food(self, x: int, y: int) -> bool:
        return self.game_state.has_food(x, y)

    def has_wall(self, x: int, y: int) -> bool:
        return self.game_state.layout.is_wall(x, y)

    def get_capsules(self) -> list[tuple[int, int]]:
        return self.getCapsules()

    def deep_copy(self) -> ClassicState:
        return self.deepCopy()
