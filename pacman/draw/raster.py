"""A `Figure` as a Pillow image (for PNG and PDF files, and for the window's tree panel).

Shapes are drawn at twice the output size and scaled down, which smooths their
edges (Pillow draws lines without anti-aliasing). Text uses Pillow's built-in
Aileron font, the one the layout measured widths with.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from pacman.draw.layout import CHANCE, Figure, TextItem
from pacman.draw.style import (BACKGROUND, CUT_FILL, DASH, EDGE, EDGE_WIDTH, FILL, FRAME, NODE_WIDTH, PATH,
                               PATH_WIDTH, STROKE, TEXT, baseline, shape_points)

__all__ = ["figure_image", "PNG_SCALE", "MAX_IMAGE_PIXELS"]

PNG_SCALE = 2.0
"""Pixels per layout unit in PNG and PDF files (sharp on high-density screens and in print)."""
MAX_IMAGE_PIXELS = 60_000_000
"""A drawing larger than this at `PNG_SCALE` is drawn at a smaller scale (text stays in the SVG's proportions)."""
_SUPERSAMPLE_PIXELS = 40_000_000


@lru_cache(maxsize=32)
def _font(size: int) -> Any:
    from PIL import ImageFont

    return ImageFont.load_default(size=size)


def image_scale(figure: Figure, scale: float = PNG_SCALE) -> float:
    """`scale`, reduced where the image would pass `MAX_IMAGE_PIXELS`."""
    pixels = figure.width * figure.height * scale * scale
    if pixels > MAX_IMAGE_PIXELS:
        scale *= math.sqrt(MAX_IMAGE_PIXELS / pixels)
    return scale


def image_size(figure: Figure, scale: float = PNG_SCALE) -> tuple[int, int]:
    """The (width, height) in pixels of `figure_image(figure, scale)`."""
    s = image_scale(figure, scale)
    return max(1, math.ceil(figure.width * s)), max(1, math.ceil(figure.height * s))


def figure_image(figure: Figure, scale: float = PNG_SCALE, background: tuple[int, int, int] = BACKGROUND) -> Any:
    """`figure` painted on a new RGB `PIL.Image` of `image_size(figure, scale)` pixels."""
    from PIL import Image, ImageDraw

    size = image_size(figure, scale)
    s = image_scale(figure, scale)
    ss = 2 if size[0] * size[1] * 4 <= _SUPERSAMPLE_PIXELS else 1
    k = s * ss
    image = Image.new("RGB", (size[0] * ss, size[1] * ss), background)
    draw = ImageDraw.Draw(image)

    def pt(x: float, y: float) -> tuple[float, float]:
        return (x * k, y * k)

    def width(w: float) -> int:
        return max(1, round(w * k))

    for frame in figure.frames:
        draw.rounded_rectangle([pt(frame.x, frame.y), pt(frame.right, frame.bottom)], radius=8 * k,
                               outline=FRAME, width=width(1))
    for edge in sorted(figure.edges, key=lambda e: e.on_path):
        colour, w = (PATH, PATH_WIDTH) if edge.on_path else (EDGE, EDGE_WIDTH)
        for a, b in edge.segments:
            points = [pt(*a), pt(*b)]
            draw.line(points, fill=colour, width=width(w))
            for p in points:  # round caps
                r = width(w) / 2
                draw.ellipse([p[0] - r, p[1] - r, p[0] + r, p[1] + r], fill=colour)
    for item in figure.nodes:
        node, box = item.node, item.box
        fill = CUT_FILL if node.cut else FILL[node.kind]
        stroke = PATH if node.on_path else STROKE[node.kind]
        w = width(3.0 if node.on_path else NODE_WIDTH)
        if node.kind == CHANCE:
            bounds = [pt(box.x, box.y), pt(box.right, box.bottom)]
            draw.ellipse(bounds, fill=fill, outline=None if node.cut else stroke, width=w)
            if node.cut:
                _dashed_circle(draw, bounds, stroke, w, DASH * k)
        else:
            points = [pt(x, y) for x, y in shape_points(node.kind, box)]
            draw.polygon(points, fill=fill, outline=None if node.cut else stroke, width=w)
            if node.cut:
                _dashed_polygon(draw, points, stroke, w, DASH * k)
        _draw_text(draw, item.value, k)
    for text in figure.texts:
        _draw_text(draw, text, k)
    if ss > 1:
        image = image.resize(size, Image.LANCZOS)
    return image


def _draw_text(draw: Any, item: TextItem, k: float) -> None:
    cx = (item.box.x + item.box.w / 2) * k
    draw.text((cx, baseline(item) * k), item.text, font=_font(max(4, round(item.size * k))),
              fill=TEXT[item.role], anchor="ms")


def _dashed_polygon(draw: Any, points: list[tuple[float, float]], colour: Any, w: int, dash: float) -> None:
    """A closed outline drawn as dashes of length `dash` (Pillow has no dashed lines)."""
    for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1]):
        length = math.hypot(x1 - x0, y1 - y0)
        steps = max(1, int(length // (2 * dash)))
        for i in range(steps + 1):
            a = i * 2 * dash / length
            b = min(1.0, a + dash / length)
            if a >= 1.0:
                break
            draw.line([(x0 + (x1 - x0) * a, y0 + (y1 - y0) * a), (x0 + (x1 - x0) * b, y0 + (y1 - y0) * b)],
                      fill=colour, width=w)


def _dashed_circle(draw: Any, bounds: list[tuple[float, float]], colour: Any, w: int, dash: float) -> None:
    (x0, y0), (x1, y1) = bounds
    circumference = math.pi * (x1 - x0)
    count = max(4, int(circumference // (2 * dash)))
    step = 360.0 / count
    for i in range(count):
        draw.arc(bounds, i * step, i * step + step / 2, fill=colour, width=w)
