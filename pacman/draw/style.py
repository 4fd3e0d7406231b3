"""The look of a tree drawing, shared by the SVG and raster writers: colours, line widths, text placement."""

from __future__ import annotations

from pacman.draw.layout import CHANCE, LEAF, MAX, MIN, Box, TextItem

__all__ = ["FILL", "STROKE", "CUT_FILL", "PATH", "EDGE", "TEXT", "FRAME", "BACKGROUND", "EDGE_WIDTH",
           "PATH_WIDTH", "NODE_WIDTH", "DASH", "baseline", "shape_points"]

BACKGROUND = (255, 255, 255)
FILL = {MAX: (220, 232, 251), MIN: (251, 224, 221), CHANCE: (253, 242, 213), LEAF: (255, 255, 255)}
STROKE = {MAX: (47, 95, 179), MIN: (184, 64, 58), CHANCE: (168, 122, 28), LEAF: (85, 85, 85)}
CUT_FILL = (243, 243, 243)
PATH = (232, 113, 10)
"""The chosen path: its edges and its nodes' outlines."""
EDGE = (138, 143, 152)
FRAME = (205, 208, 214)
TEXT = {"value": (27, 27, 27), "label": (40, 40, 40), "probability": (120, 80, 0), "tag": (123, 63, 176),
        "caption": (17, 17, 17), "summary": (85, 85, 85)}
EDGE_WIDTH = 1.4
PATH_WIDTH = 3.5
NODE_WIDTH = 1.6
DASH = 4.0
"""Length of a dash (and of the gap after it) on the outline of a node cut by the depth."""


def baseline(text: TextItem) -> float:
    """The baseline of `text`, so that digits and capitals look centred in its box."""
    return text.box.y + text.box.h / 2 + 0.36 * text.size


def shape_points(kind: str, box: Box) -> list[tuple[float, float]]:
    """The corners of a triangle (max: pointing up, min: down) or of a leaf's square."""
    cx = box.x + box.w / 2
    if kind == MAX:
        return [(box.x, box.bottom), (box.right, box.bottom), (cx, box.y)]
    if kind == MIN:
        return [(box.x, box.y), (box.right, box.y), (cx, box.bottom)]
    return [(box.x, box.y), (box.right, box.y), (box.right, box.bottom), (box.x, box.bottom)]
