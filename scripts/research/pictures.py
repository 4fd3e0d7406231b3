"""Mazes drawn with the moves agents make: a position, the optimal moves and each agent's, as one PNG.

Drawn with Pillow: walls, dots, capsules, Pacman and the ghosts of a position,
an arrow per move (a ring for Stop) in each mover's colour, and lines of text
under each maze.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

from PIL import Image, ImageDraw, ImageFont

from pacman.actions import Action
from pacman.state import GameState

__all__ = ["Panel", "panels_png", "MOVE_COLOURS"]

CELL = 34
#: Colours of the arrows, by who moves: the optimum first.
MOVE_COLOURS = ((26, 152, 80), (44, 123, 182), (215, 25, 28), (230, 140, 20), (123, 50, 148))
_STEP = {Action.NORTH: (0, -1), Action.SOUTH: (0, 1), Action.EAST: (1, 0), Action.WEST: (-1, 0)}
_GHOSTS = ((228, 26, 28), (255, 127, 191), (0, 188, 212), (255, 152, 0))
_LINE = 18
_FONT_SIZE = 14


@dataclass
class Panel:
    """One maze: a position, moves to draw ((label, actions) per mover, the optimum first) and caption lines."""

    state: GameState
    moves: list[tuple[str, tuple[Action, ...]]]
    caption: list[str] = field(default_factory=list)


def _arrow(draw: ImageDraw.ImageDraw, cx: float, cy: float, action: Action, colour: tuple, lane: int) -> None:
    if action is Action.STOP:
        r = CELL * (0.2 + 0.07 * lane)
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=colour, width=3)
        return
    dx, dy = _STEP[action]
    shift = (lane - 1.5) * 5.0
    sx, sy = cx + dy * shift + dx * CELL * 0.25, cy + dx * shift + dy * CELL * 0.25
    ex, ey = cx + dy * shift + dx * CELL * 0.95, cy + dx * shift + dy * CELL * 0.95
    draw.line((sx, sy, ex, ey), fill=colour, width=4)
    draw.polygon([(ex + dx * 3, ey + dy * 3), (ex - dx * 8 + dy * 6, ey - dy * 8 + dx * 6),
                  (ex - dx * 8 - dy * 6, ey - dy * 8 - dx * 6)], fill=colour)


def _size(panel: Panel, font: ImageFont.ImageFont) -> tuple[float, float]:
    lines = [label for label, _ in panel.moves] + panel.caption
    width = max([panel.state.layout.width * CELL] + [font.getlength(line) for line in lines])
    return width, panel.state.layout.height * CELL + 8 + _LINE * len(lines)


def _panel(draw: ImageDraw.ImageDraw, panel: Panel, x0: float, y0: float, font: ImageFont.ImageFont) -> None:
    state = panel.state
    layout = state.layout
    w, h = layout.width, layout.height

    def centre(x: float, y: float) -> tuple[float, float]:
        return x0 + (x + 0.5) * CELL, y0 + (h - 1 - y + 0.5) * CELL

    food, capsules = state.food_mask, state.capsule_mask
    for x in range(w):
        for y in range(h):
            cx, cy = centre(x, y)
            fill = (31, 58, 147) if layout.is_wall(x, y) else (17, 17, 17)
            draw.rectangle((cx - CELL / 2, cy - CELL / 2, cx + CELL / 2 - 1, cy + CELL / 2 - 1), fill=fill)
            bit = 1 << (x * h + y)
            r = 4 if food & bit else 9 if capsules & bit else 0
            if r:
                draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(245, 245, 220))
    px, py = centre(*state.pacman_position)
    r = CELL * 0.34
    draw.ellipse((px - r, py - r, px + r, py + r), fill=(255, 212, 0))
    for i, ((gx, gy), timer) in enumerate(zip(state.ghost_positions, state.scared_timers)):
        cx, cy = centre(gx, gy)
        colour = (65, 105, 225) if timer else _GHOSTS[i % len(_GHOSTS)]
        r = CELL * 0.33
        draw.rounded_rectangle((cx - r, cy - r, cx + r, cy + r), radius=r * 0.8, fill=colour)
    for lane, (_, actions) in enumerate(panel.moves):
        for action in actions:
            _arrow(draw, px, py, action, MOVE_COLOURS[lane % len(MOVE_COLOURS)], lane)
    y = y0 + h * CELL + 6
    for lane, (label, _) in enumerate(panel.moves):
        draw.text((x0, y), label, fill=MOVE_COLOURS[lane % len(MOVE_COLOURS)], font=font)
        y += _LINE
    for line in panel.caption:
        draw.text((x0, y), line, fill=(34, 34, 34), font=font)
        y += _LINE


def panels_png(panels: list[Panel], per_row: int = 2, gap: int = 28) -> bytes:
    """The panels side by side, `per_row` a row, as PNG bytes."""
    font = ImageFont.load_default(size=_FONT_SIZE)
    sizes = [_size(panel, font) for panel in panels]
    rows = [list(range(i, min(i + per_row, len(panels)))) for i in range(0, len(panels), per_row)]
    widths = [max(sizes[i][0] for i in row_) for row_ in rows]
    column = max(widths) if widths else 0
    heights = [max(sizes[i][1] for i in row_) for row_ in rows]
    image = Image.new("RGB", (int(gap + per_row * (column + gap)), int(gap + sum(h + gap for h in heights))),
                      "white")
    draw = ImageDraw.Draw(image)
    y = gap
    for row_, height in zip(rows, heights):
        x = gap
        for i in row_:
            _panel(draw, panels[i], x, y, font)
            x += column + gap
        y += height + gap
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
