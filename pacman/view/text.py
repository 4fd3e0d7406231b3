"""The terminal view: the board as text, in colour on a terminal, redrawn in place as the game plays."""

from __future__ import annotations

import os
import sys
import time
from typing import Mapping, TextIO

from pacman.actions import Action
from pacman.game import GameResult
from pacman.resources import palette
from pacman.state import GameState

__all__ = ["TextDisplay", "render_board", "ghost_glyph", "terminal_abilities"]

_RESET = "\x1b[0m"


def _ansi(rgb: tuple[int, int, int], bold: bool = False) -> str:
    r, g, b = rgb
    return f"\x1b[{'1;' if bold else ''}38;2;{r};{g};{b}m"


_COLOURS = palette()
_WALL = _ansi(_COLOURS["wall"])
_FOOD = _ansi(_COLOURS["food"])
_CAPSULE = _ansi(_COLOURS["capsule"], bold=True)
_PACMAN = _ansi(_COLOURS["pacman"], bold=True)
_SCARED = _ansi(_COLOURS["scared"], bold=True)
_GHOSTS = tuple(_ansi(c, bold=True) for c in _COLOURS["ghosts"])
_HOME_CLEAR = "\x1b[H\x1b[J"


_MORE_GHOSTS = "ABCDEFHIJKLMNQRSTUVWXYZ"  # ghosts 10 and up; not G or P, which mean ghost and Pacman in a layout


def ghost_glyph(index: int) -> str:
    """The one character drawn for ghost `index` (1-based): ``1``-``9``, then ``A``-``Z`` without G and P, then ``*``.

    >>> [ghost_glyph(i) for i in (1, 9, 10, 15, 16)]
    ['1', '9', 'A', 'F', 'H']
    """
    if 1 <= index <= 9:
        return str(index)
    if 10 <= index < 10 + len(_MORE_GHOSTS):
        return _MORE_GHOSTS[index - 10]
    return "*"


def render_board(state: GameState, color: bool = False) -> str:
    """The board as lines of text: ``%`` walls, ``.`` food, ``o`` capsules, ``P`` Pacman, ghosts by number.

    One character per cell, so columns line up whatever the number of ghosts: a
    ghost is drawn as its index (see `ghost_glyph`), a scared one as ``g``; a ghost half-way
    between cells is drawn on the cell it is heading to. With `color`, ANSI colours.
    """
    layout = state.layout
    cells: list[list[tuple[str, str]]] = [
        [("%", _WALL) if (x, y) in layout.walls else (" ", "") for x in range(layout.width)]
        for y in range(layout.height)
    ]
    for x, y in state.food:
        cells[y][x] = (".", _FOOD)
    for x, y in state.capsules:
        cells[y][x] = ("o", _CAPSULE)
    for index, ((x, y), direction, timer) in enumerate(
        zip(state.ghost_positions, state.ghost_directions, state.scared_timers), start=1
    ):
        if x != int(x) or y != int(y):  # half-way: draw it where it is heading
            dx, dy = direction.vector
            x, y = (x + 0.5 * dx, y + 0.5 * dy)
        glyph = ("g", _SCARED) if timer else (ghost_glyph(index), _GHOSTS[(index - 1) % len(_GHOSTS)])
        cells[int(y)][int(x)] = glyph
    x, y = state.pacman_position
    cells[y][x] = ("P", _PACMAN)
    lines = []
    for row in reversed(cells):
        if color:
            lines.append("".join(f"{code}{char}{_RESET}" if code else char for char, code in row))
        else:
            lines.append("".join(char for char, _ in row))
    return "\n".join(lines)


def terminal_abilities(stream: TextIO, environ: Mapping[str, str] | None = None) -> tuple[bool, bool]:
    """(colour, redraw in place) for `stream`: both on a terminal, neither into a file or pipe.

    ``NO_COLOR`` set to anything but the empty string turns colour off
    (https://no-color.org); ``TERM=dumb`` (a terminal that understands no escape
    codes, such as an editor's shell buffer) turns off both.
    """
    environ = os.environ if environ is None else environ
    is_tty = bool(getattr(stream, "isatty", lambda: False)())
    dumb = environ.get("TERM", "") == "dumb"
    return is_tty and not dumb and not environ.get("NO_COLOR"), is_tty and not dumb


class TextDisplay:
    """Draws the game in a terminal after every round (Pacman and each ghost moved).

    On a terminal it redraws in place, in colour, at `fps` rounds per second; into
    a file or pipe it writes every round's board in turn, without colour.
    ``NO_COLOR`` turns colour off, ``TERM=dumb`` colour and redrawing (each board
    is then written after the last, still at `fps`); `color` True or False overrides both for colour.
    """

    def __init__(self, stream: TextIO | None = None, fps: float = 10.0, color: bool | None = None) -> None:
        self.stream = stream if stream is not None else sys.stdout
        colour, redraw = terminal_abilities(self.stream)
        self.color = colour if color is None else color
        self.live = redraw
        self.paced = bool(getattr(self.stream, "isatty", lambda: False)())
        self.fps = fps
        self._last_draw = 0.0
        self._moves = 0

    def start(self, state: GameState) -> None:
        self._moves = 0
        self._draw(state, "start")

    def update(self, state: GameState, agent: int, action: Action) -> None:
        if agent == 0:
            self._moves += 1
        if agent == state.num_agents - 1 or state.is_terminal():
            self._draw(state, f"move {self._moves}")

    def finish(self, state: GameState, result: GameResult) -> None:
        line = f"{result.outcome}: score {result.score} after {result.moves} moves (seed {result.seed})"
        if result.error:
            line += f" - {result.error}"
        self.stream.write(line + "\n")
        self.stream.flush()

    def _draw(self, state: GameState, label: str) -> None:
        board = render_board(state, self.color)
        status = f"{state.layout.name}  {label}  score {state.score}  food {state.food_count}"
        if any(state.scared_timers):
            status += "  scared " + ",".join(str(t) for t in state.scared_timers)
        if self.paced and self.fps > 0:
            wait = self._last_draw + 1.0 / self.fps - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            self._last_draw = time.monotonic()
        if self.live:
            self.stream.write(_HOME_CLEAR + board + "\n" + status + "\n")
        else:
            self.stream.write(board + "\n" + status + "\n\n")
        self.stream.flush()
