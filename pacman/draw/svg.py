"""A `Figure` as SVG text, written by hand (no dependency).

Every text is drawn with ``textLength`` set to the width the layout measured, so
whatever font the viewer substitutes, no text grows out of its box. Nodes and
edges carry classes (``node max on-path``, ``edge on-path``) and ``data-id``
(the node's depth-first number) so that pages and tests can find them; each
node has a ``<title>`` (a tooltip) with its exact value and full label.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from pacman.draw.layout import CHANCE, Figure, TextItem
from pacman.draw.style import (BACKGROUND, CUT_FILL, DASH, EDGE, EDGE_WIDTH, FILL, FRAME, NODE_WIDTH, PATH,
                               PATH_WIDTH, STROKE, TEXT, baseline, shape_points)

__all__ = ["figure_svg"]

_FONTS = "Aileron, 'Helvetica Neue', Helvetica, Arial, sans-serif"


def _rgb(colour: tuple[int, int, int]) -> str:
    return "#%02x%02x%02x" % colour


def _n(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _text(item: TextItem, css: str) -> str:
    cx = item.box.x + item.box.w / 2
    return (f'<text class="{css}" x="{_n(cx)}" y="{_n(baseline(item))}" font-size="{_n(item.size)}" '
            f'fill="{_rgb(TEXT[item.role])}" text-anchor="middle" textLength="{_n(item.box.w - 1)}" '
            f'lengthAdjust="spacingAndGlyphs">{escape(item.text)}</text>')


def figure_svg(figure: Figure) -> str:
    """The SVG document of `figure` (one string, UTF-8 text)."""
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(figure.width)}" height="{_n(figure.height)}" '
        f'viewBox="0 0 {_n(figure.width)} {_n(figure.height)}" font-family="{_FONTS}">',
        f'<rect width="100%" height="100%" fill="{_rgb(BACKGROUND)}"/>',
    ]
    for frame in figure.frames:
        out.append(f'<rect class="block" x="{_n(frame.x)}" y="{_n(frame.y)}" width="{_n(frame.w)}" '
                   f'height="{_n(frame.h)}" rx="8" fill="none" stroke="{_rgb(FRAME)}" stroke-width="1"/>')
    out.append('<g class="edges" fill="none" stroke-linejoin="round" stroke-linecap="round">')
    for edge in sorted(figure.edges, key=lambda e: e.on_path):  # the path on top
        path = " ".join(f"M{_n(a[0])},{_n(a[1])} L{_n(b[0])},{_n(b[1])}" for a, b in edge.segments)
        css, colour, width = ("edge on-path", PATH, PATH_WIDTH) if edge.on_path else ("edge", EDGE, EDGE_WIDTH)
        out.append(f'<path class="{css}" data-child="{edge.child}" d="{path}" '
                   f'stroke="{_rgb(colour)}" stroke-width="{_n(width)}"/>')
    out.append("</g>")
    out.append('<g class="nodes">')
    for item in figure.nodes:
        node = item.node
        css = f"node {node.kind}" + (" on-path" if node.on_path else "") + (" cut" if node.cut else "")
        fill = CUT_FILL if node.cut else FILL[node.kind]
        stroke = PATH if node.on_path else STROKE[node.kind]
        width = 3.0 if node.on_path else NODE_WIDTH
        paint = f'fill="{_rgb(fill)}" stroke="{_rgb(stroke)}" stroke-width="{_n(width)}"'
        if node.cut:
            paint += f' stroke-dasharray="{_n(DASH)} {_n(DASH)}"'
        out.append(f'<g class="{css}" data-id="{item.ident}"' + (f' data-tag="{item.tag}"' if item.tag else "") + ">")
        if node.title:
            out.append(f"<title>{escape(node.title)}</title>")
        box = item.box
        if node.kind == CHANCE:
            out.append(f'<circle cx="{_n(box.x + box.w / 2)}" cy="{_n(box.y + box.h / 2)}" r="{_n(box.w / 2)}" '
                       f'{paint}/>')
        else:
            points = " ".join(f"{_n(x)},{_n(y)}" for x, y in shape_points(node.kind, box))
            out.append(f'<polygon points="{points}" stroke-linejoin="round" {paint}/>')
        out.append(_text(item.value, "value"))
        out.append("</g>")
    out.append("</g>")
    out.append('<g class="texts">')
    for item in figure.texts:
        css = item.role + (" on-path" if item.on_path else "")
        out.append(_text(item, css))
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"

