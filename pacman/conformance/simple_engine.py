"""The simple engine: the classic Pacman rules written as plainly as possible.

Test support, shipped so that anyone can check the fast engine: it exists to be
obviously correct. The fast engine (`pacman.state.GameState`) is tested move by
move against it, and `pacman-ai bench` uses it as the slow baseline. A successor is a deep copy of the whole state with the rules applied
to the copy in place; the unchanging layout is shared, never copied.

The rules, in the order they are applied:

- Agents move one at a time: Pacman is agent 0, the ghosts are agents 1..n.
  The state does not know whose turn it is; callers pass the agent index.
- An agent between two cells may only keep going in its current direction.
  On a cell, each of North, South, East, West (in that order) is legal if the
  neighbouring cell is not a wall, and Stop is always legal. Ghosts may not
  Stop, and may not reverse their last direction unless it is their only move.
- Pacman moves one whole cell, eats food there (+10; the last food +500 and a
  win) or a capsule (no points; every ghost's scared timer becomes 40), pays 1
  point for the move, then meets each ghost within Manhattan distance 0.7 in
  ghost order: a scared ghost is eaten (+200, sent to its start cell, timer 0,
  no last direction); any other ghost costs 500 and loses the game, unless the
  game is already won.
- A ghost moves one cell, or half a cell while scared. When its timer runs out
  (1 -> 0) it snaps to the nearest cell, x.5 rounding up. Then it meets Pacman
  under the same rule as above, using the timer after the countdown.
- A won or lost game is over: no agent has a legal action, and asking for a
  successor raises `TerminalStateError`.
"""

from __future__ import annotations

import copy
import math

from pacman.actions import Action
from pacman.errors import IllegalActionError, PacmanError, TerminalStateError
from pacman.layout import Layout
from pacman.rules import (
    COLLISION_DISTANCE,
    FOOD_POINTS,
    GHOST_POINTS,
    LOSE_POINTS,
    MOVE_COST,
    SCARED_TIME,
    WIN_POINTS,
)

__all__ = ["SimpleState"]

_DIRECTIONS = (Action.NORTH, Action.SOUTH, Action.EAST, Action.WEST)


def round_half_up(value: float) -> int:
    """The nearest whole number, halves rounding up (2.5 -> 3)."""
    return math.floor(value + 0.5)


def is_between_cells(position: tuple[float, float]) -> bool:
    """True when a position is not (within 0.001) on a whole cell."""
    x, y = position
    return abs(x - round_half_up(x)) + abs(y - round_half_up(y)) > 0.001


def manhattan(a: tuple[float, float], b: tuple[float, float]) -> float:
    """The Manhattan distance between two positions."""
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


class SimpleState:
    """One moment of a game: positions, ghost directions and timers, food, capsules, score, outcome.

    Grids are lists of lists indexed ``grid[x][y]``. Nothing here is ever changed
    after `successor` has returned it.
    """

    def __init__(self, layout: Layout, num_ghosts: int) -> None:
        self.layout = layout
        self.num_agents = 1 + num_ghosts
        self.score = 0
        self.won = False
        self.lost = False
        self.pacman = layout.agent_starts[0]
        self.ghost_starts = list(layout.agent_starts[1:1 + num_ghosts])
        self.ghosts = list(self.ghost_starts)
        self.directions = [Action.STOP] * num_ghosts
        self.timers = [0] * num_ghosts
        self.food_grid = [[False] * layout.height for _ in range(layout.width)]
        for x, y in layout.food:
            self.food_grid[x][y] = True
        self.capsule_list = list(layout.capsules)

    @classmethod
    def initial(cls, layout: Layout, num_ghosts: int | None = None) -> SimpleState:
        """The start of a game; `num_ghosts` keeps only the first k ghosts (None keeps all)."""
        if num_ghosts is None:
            num_ghosts = layout.num_ghosts
        if num_ghosts < 0 or num_ghosts > layout.num_ghosts:
            raise PacmanError(
                f"num_ghosts={num_ghosts} is out of range: layout {layout.name!r} "
                f"has {layout.num_ghosts} ghost(s)"
            )
        return cls(layout, num_ghosts)

    # ----------------------------------------------------------------- reading

    @property
    def pacman_position(self) -> tuple[int, int]:
        """Pacman's cell (x, y)."""
        return self.pacman

    @property
    def ghost_positions(self) -> tuple[tuple[float, float], ...]:
        """Each ghost's position in agent order; a scared ghost may be half-way (x.5)."""
        return tuple(self.ghosts)

    @property
    def ghost_directions(self) -> tuple[Action, ...]:
        """Each ghost's last direction; STOP means it has none."""
        return tuple(self.directions)

    @property
    def scared_timers(self) -> tuple[int, ...]:
        """Each ghost's remaining scared moves; 0 means not scared."""
        return tuple(self.timers)

    @property
    def food(self) -> frozenset[tuple[int, int]]:
        """The cells that still hold food."""
        return frozenset(
            (x, y)
            for x in range(self.layout.width)
            for y in range(self.layout.height)
            if self.food_grid[x][y]
        )

    @property
    def food_count(self) -> int:
        """How much food is left."""
        return sum(column.count(True) for column in self.food_grid)

    @property
    def capsules(self) -> tuple[tuple[int, int], ...]:
        """The cells that still hold a capsule, sorted."""
        return tuple(sorted(self.capsule_list))

    def is_win(self) -> bool:
        """True once Pacman has eaten the last food."""
        return self.won

    def is_lose(self) -> bool:
        """True once a ghost has caught Pacman."""
        return self.lost

    def is_terminal(self) -> bool:
        """True when the game is over, won or lost."""
        return self.won or self.lost

    def __repr__(self) -> str:
        return (
            f"SimpleState(score={self.score}, pacman={self.pacman}, ghosts={self.ghosts}, "
            f"timers={self.timers}, food={self.food_count}, won={self.won}, lost={self.lost})"
        )

    # ----------------------------------------------------------- legal actions

    def legal_actions(self, agent: int) -> tuple[Action, ...]:
        """The actions `agent` may take now, in N, S, E, W, Stop order; () once the game is over."""
        self._check_agent(agent)
        if self.is_terminal():
            return ()
        if agent == 0:
            x, y = self.pacman
            return self._open_directions(x, y) + (Action.STOP,)
        return self._ghost_actions(agent - 1)

    def _ghost_actions(self, ghost: int) -> tuple[Action, ...]:
        """A ghost's legal actions: straight on between cells, else no Stop and no needless reverse."""
        position = self.ghosts[ghost]
        direction = self.directions[ghost]
        if is_between_cells(position):
            return (direction,)
        x, y = position
        actions = list(self._open_directions(round_half_up(x), round_half_up(y)))
        if direction.reverse in actions and len(actions) > 1:
            actions.remove(direction.reverse)
        return tuple(actions)

    def _open_directions(self, x: int, y: int) -> tuple[Action, ...]:
        """The directions out of cell (x, y) that do not lead into a wall, in N, S, E, W order."""
        open_directions = []
        for action in _DIRECTIONS:
            dx, dy = action.vector
            if not self.layout.is_wall(x + dx, y + dy):
                open_directions.append(action)
        return tuple(open_directions)

    # -------------------------------------------------------------- successors

    def successor(self, agent: int, action: Action) -> SimpleState:
        """The state after `agent` takes `action`; this state is left unchanged."""
        self._check_agent(agent)
        position = self._agent_position(agent)
        if self.is_terminal():
            outcome = "won" if self.won else "lost"
            raise TerminalStateError(
                f"the game is already {outcome}: agent {agent} at {position} cannot take {action!r}"
            )
        try:
            action = Action(action)
        except (ValueError, TypeError):
            raise IllegalActionError(
                f"agent {agent} at {position}: {action!r} is not an action "
                f"(legal: {', '.join(a.value for a in self.legal_actions(agent))})"
            ) from None
        legal = self.legal_actions(agent)
        if action not in legal:
            raise IllegalActionError(
                f"agent {agent} at {position} cannot take {action.value} "
                f"(legal: {', '.join(a.value for a in legal)})"
            )
        # The layout never changes: share it instead of copying it.
        state = copy.deepcopy(self, {id(self.layout): self.layout})
        if agent == 0:
            state._move_pacman(action)
        else:
            state._move_ghost(agent - 1, action)
        return state

    def _move_pacman(self, action: Action) -> None:
        """Apply Pacman's move to this state, in place."""
        # (1) Move one whole cell.
        dx, dy = action.vector
        x, y = self.pacman
        self.pacman = (x + dx, y + dy)
        x, y = self.pacman
        # (2) Eat what is on the new cell.
        if self.food_grid[x][y]:
            self.food_grid[x][y] = False
            self.score += FOOD_POINTS
            if self.food_count == 0 and not self.lost:
                self.score += WIN_POINTS
                self.won = True
        if (x, y) in self.capsule_list:
            self.capsule_list.remove((x, y))
            for ghost in range(len(self.timers)):
                self.timers[ghost] = SCARED_TIME
        # (3) Every Pacman move costs a point.
        self.score -= MOVE_COST
        # (4) Meet the ghosts, in ghost order.
        for ghost in range(len(self.ghosts)):
            self._check_collision(ghost)

    def _move_ghost(self, ghost: int, action: Action) -> None:
        """Apply a ghost's move to this state, in place."""
        speed = 0.5 if self.timers[ghost] > 0 else 1
        dx, dy = action.vector
        x, y = self.ghosts[ghost]
        self.ghosts[ghost] = (x + speed * dx, y + speed * dy)
        self.directions[ghost] = action
        if self.timers[ghost] == 1:
            x, y = self.ghosts[ghost]
            self.ghosts[ghost] = (int(x + 0.5), int(y + 0.5))
        self.timers[ghost] = max(0, self.timers[ghost] - 1)
        self._check_collision(ghost)

    def _check_collision(self, ghost: int) -> None:
        """If Pacman and the ghost meet: a scared ghost is eaten, any other wins the game for the ghosts."""
        if manhattan(self.pacman, self.ghosts[ghost]) > COLLISION_DISTANCE:
            return
        if self.timers[ghost] > 0:
            self.score += GHOST_POINTS
            self.ghosts[ghost] = self.ghost_starts[ghost]
            self.timers[ghost] = 0
            self.directions[ghost] = Action.STOP
        elif not self.won:
            self.score -= LOSE_POINTS
            self.lost = True

    # ----------------------------------------------------------------- helpers

    def _check_agent(self, agent: int) -> None:
        """Raise IllegalActionError unless `agent` is a valid agent index."""
        if not isinstance(agent, int) or isinstance(agent, bool) or not 0 <= agent < self.num_agents:
            raise IllegalActionError(
                f"agent {agent!r} does not exist: agents are 0 (Pacman) to {self.num_agents - 1}"
            )

    def _agent_position(self, agent: int) -> tuple[float, float]:
        """Where an agent is: Pacman for 0, ghost i for i."""
        return self.pacman if agent == 0 else self.ghosts[agent - 1]
