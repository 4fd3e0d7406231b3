"""Moves: the five actions and their grid vectors."""

from __future__ import annotations

import enum

__all__ = ["Action", "ACTIONS", "DIRECTIONS"]


class Action(str, enum.Enum):
    """A move. The order of the members is the order ties break in everywhere."""

    NORTH = "North"
    SOUTH = "South"
    EAST = "East"
    WEST = "West"
    STOP = "Stop"

    @property
    def vector(self) -> tuple[int, int]:
        """The (dx, dy) of one full step; STOP is (0, 0)."""
        return _VECTORS[self]

    @property
    def reverse(self) -> Action:
        """The opposite direction; STOP reverses to STOP."""
        return _REVERSE[self]

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, text: str) -> Action:
        """Read an action from its name, value or first letter, case-insensitively.

        >>> Action.parse("north"), Action.parse("W")
        (<Action.NORTH: 'North'>, <Action.WEST: 'West'>)
        """
        key = text.strip().lower()
        for action in cls:
            if key in (action.value.lower(), action.value[0].lower()):
                return action
        raise ValueError(f"unknown action {text!r} (expected one of North, South, East, West, Stop)")


_VECTORS = {
    Action.NORTH: (0, 1),
    Action.SOUTH: (0, -1),
    Action.EAST: (1, 0),
    Action.WEST: (-1, 0),
    Action.STOP: (0, 0),
}
_REVERSE = {
    Action.NORTH: Action.SOUTH,
    Action.SOUTH: Action.NORTH,
    Action.EAST: Action.WEST,
    Action.WEST: Action.EAST,
    Action.STOP: Action.STOP,
}

#: All actions in tie-breaking order.
ACTIONS: tuple[Action, ...] = tuple(Action)
#: The four moving actions, in tie-breaking order.
DIRECTIONS: tuple[Action, ...] = ACTIONS[:4]
