"""Game trees drawn as lecture slides draw them: SVG by hand, PNG and PDF with Pillow.

Max nodes are upward triangles, min nodes downward ones, chance nodes circles
and leaves squares; every node shows its value, edges carry their actions and,
under chance nodes, their probabilities; the chosen path is highlighted and
nodes cut by the depth limit are dashed with their heuristic value ("h=5").

>>> from pacman.agents.trees import parse_tree
>>> figure, result = tree_figure(parse_tree({"max": [{"chance": [10, 10]}, {"chance": [9, 100]}]}))
>>> result.action, [n.node.value for n in figure.nodes]
('1', ['54.5', '10', '10', '10', '54.5', '9', '100'])

`layout` places everything (one `Figure`), `svg` and `raster` paint it, `trees`
says what to draw for an explicit tree or a Pacman decision. No pygame here: the
window's tree panel paints with the raster writer too.
"""

from __future__ import annotations

import os
from typing import Any

from pacman.draw.layout import Figure, lay_out
from pacman.draw.trees import DrawError, explicit_tree, tree_caption

__all__ = ["FORMATS", "DrawError", "tree_figure", "write_figure", "draw_tree_file", "drawing_format"]

FORMATS = (".svg", ".png", ".pdf")
"""The file kinds a drawing can be written as, by suffix."""


def drawing_format(path: str | os.PathLike[str]) -> str:
    """The suffix of `path` (".svg", ".png" or ".pdf"); a `DrawError` naming the path for any other."""
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    if suffix not in FORMATS:
        raise DrawError(f"{os.fspath(path)}: cannot draw a tree as {suffix or 'a file without a suffix'!r}; "
                        f"expected a .svg, .png or .pdf file name")
    return suffix


def tree_figure(root: Any, depth: int | None = None) -> tuple[Figure, Any]:
    """The laid-out drawing of a parsed explicit tree searched `depth` edges deep, and the search result."""
    drawing, result = explicit_tree(root, depth)
    caption, summary = tree_caption(root, result, depth)
    return lay_out(drawing, caption, summary), result


def write_figure(figure: Figure, path: str | os.PathLike[str]) -> None:
    """Write `figure` to `path` as SVG, PNG or PDF (by its suffix), atomically: the whole file or none."""
    from pacman.files import write_atomically

    suffix = drawing_format(path)
    if suffix == ".svg":
        from pacman.draw.svg import figure_svg

        text = figure_svg(figure)

        def write(temporary: str) -> None:
            with open(temporary, "w", encoding="utf-8") as handle:
                handle.write(text)
    else:
        from pacman.draw.raster import PNG_SCALE, figure_image, image_scale

        image = figure_image(figure)

        def write(temporary: str) -> None:
            if suffix == ".png":
                image.save(temporary, "PNG")
            else:  # one page, as large in points as the figure is in units
                image.save(temporary, "PDF", resolution=72.0 * image_scale(figure, PNG_SCALE))
    write_atomically(path, write)


def draw_tree_file(root: Any, path: str | os.PathLike[str], depth: int | None = None) -> Any:
    """Draw a parsed explicit tree to `path` (.svg, .png or .pdf); returns the search result."""
    drawing_format(path)
    figure, result = tree_figure(root, depth)
    write_figure(figure, path)
    return result
