"""The game-limit policy: how many Pacman moves a game may last, decided once for every command and environment.

`play`, `batch`, `compare`, `replay` (through the files `play --save` writes),
the Gymnasium environments (``gymnasium.make``, ``make_vec``) and the grading
reports all ask this module:

- the default is `default_max_moves(layout)`: `MOVES_PER_CELL` Pacman moves per
  open cell of the maze, at least `MIN_DEFAULT_MAX_MOVES`, so that no game runs
  forever (``medium`` 2,200, ``tricky`` 2,560);
- `NO_LIMIT` (``none``, ``--max-moves none`` on the command line, ``max_moves=None``
  or ``max_moves="none"`` in Python) is the classic game without a limit;
- a game cut off by its limit says `move_limit_reason` in its ``error`` field and its
  results line records the resolved limit in ``max_moves`` (``null`` for none).

`run_game` itself keeps the classic API: ``max_moves=None`` there means no limit,
and a caller that wants the default asks `resolve_max_moves`.

>>> from pacman import load_layout
>>> resolve_max_moves(load_layout("medium")), resolve_max_moves(load_layout("medium"), "none")
(2200, None)
"""

from __future__ import annotations

from typing import Any

from pacman.errors import PacmanError
from pacman.layout import Layout

__all__ = ["MOVES_PER_CELL", "MIN_DEFAULT_MAX_MOVES", "NO_LIMIT", "DEFAULT", "MAX_MOVES_HELP", "default_max_moves",
           "move_limit_reason", "parse_max_moves", "check_max_moves", "resolve_max_moves", "limit_name"]

MOVES_PER_CELL = 20
"""The default move limit gives Pacman this many moves per open cell of the maze (`default_max_moves`)."""
MIN_DEFAULT_MAX_MOVES = 1000
"""The default move limit is never below this, however small the maze."""
NO_LIMIT = "none"
"""The word for no limit at all (the classic game): ``--max-moves none``, ``max_moves="none"``."""
DEFAULT = "default"
"""The default limit, as a value: the maze's `default_max_moves` (what a left-out ``--max-moves`` means)."""

MAX_MOVES_HELP = (f"cut a game off (as cut-off) after N Pacman moves; 'none' for no limit (default: {MOVES_PER_CELL} "
                  f"moves per open cell of the layout, at least {MIN_DEFAULT_MAX_MOVES})")
"""The ``--max-moves`` help text of every command that plays games."""


def default_max_moves(layout: Layout) -> int:
    """The move limit a game is played with when none is given: `MOVES_PER_CELL` Pacman moves per open
    cell of the maze, at least `MIN_DEFAULT_MAX_MOVES`.

    Far more than a game that is going anywhere needs (an agent that eats a dot
    every few moves finishes well within it), and small enough that a game that
    cannot end (no food left to win, a ghost that never catches a dodging Pacman)
    ends in seconds. The largest maze (4,096 cells) gets at most 81,920 moves.

    >>> from pacman import load_layout
    >>> default_max_moves(load_layout("test")) >= MIN_DEFAULT_MAX_MOVES
    True
    """
    open_cells = layout.width * layout.height - len(layout.walls)
    return max(MIN_DEFAULT_MAX_MOVES, MOVES_PER_CELL * open_cells)


def move_limit_reason(max_moves: int) -> str:
    """Why a game was cut off by its move limit, for a user: ``cut off after 500 Pacman moves, the move limit``."""
    return f"cut off after {max_moves:,} Pacman moves, the move limit"


def limit_name(max_moves: int | None) -> str:
    """A resolved limit as the command line spells it: ``2200`` or ``none``."""
    return NO_LIMIT if max_moves is None else str(max_moves)


def parse_max_moves(text: str) -> int | str:
    """The ``--max-moves`` argument type: a positive integer, or `NO_LIMIT` (``none``, any case).

    Raises ValueError (argparse's ``ArgumentTypeError`` is one) naming the text.
    A left-out flag is the caller's `DEFAULT`.
    """
    import argparse

    if text.strip().lower() == NO_LIMIT:
        return NO_LIMIT
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer or 'none' (no limit), got {text!r}")
    return value


def check_max_moves(value: Any, name: str = "max_moves") -> int | str | None:
    """`value` if it is a limit this policy knows (a positive int, None, `NO_LIMIT` or `DEFAULT`); else a
    PacmanError naming `name` and the value."""
    if value is None or value == DEFAULT or value == NO_LIMIT:
        return value
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise PacmanError(f"{name} must be a positive int, None or {NO_LIMIT!r} (no limit), or {DEFAULT!r} (the "
                          f"layout's default), got {value!r}")
    return value


def resolve_max_moves(layout: Layout, requested: Any = DEFAULT, name: str = "max_moves") -> int | None:
    """The limit a game on `layout` plays with: `requested` if it is a positive int, None for None or
    `NO_LIMIT`, and the layout's `default_max_moves` for `DEFAULT`."""
    value = check_max_moves(requested, name)
    if value == DEFAULT:
        return default_max_moves(layout)
    if value is None or value == NO_LIMIT:
        return None
    return int(value)
