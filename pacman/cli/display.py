"""How `play` and `replay` show a game: the display choice, the terminal view, the --fps and --zoom limits.

pygame is imported only to answer whether a window can be opened, never at import.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from typing import Any

from pacman.cli.args import UsageError, bounded_float

__all__ = ["FPS_RANGE", "fps", "zoom", "display_choice", "text_display", "check_frame_size"]

FPS_RANGE = (0.1, 1000.0)
"""--fps: rounds shown per second."""

fps = bounded_float(*FPS_RANGE)
"""The --fps argument type."""


def zoom(text: str) -> float:
    """The --zoom argument type: a scale within the renderer's limits."""
    from pacman.view.renderer import MAX_ZOOM, MIN_ZOOM

    return bounded_float(MIN_ZOOM, MAX_ZOOM)(text)


def display_choice(args: argparse.Namespace) -> str:
    """pygame when asked for or when a screen exists, else the terminal; none by default with --json."""
    from pacman.view.window import display_available, real_display

    choice = args.display
    if choice is None:
        if args.json:
            return "none"
        choice = "pygame" if real_display() and _has_pygame() else "text"
    if choice == "pygame" and not (display_available() and _has_pygame()):
        why = "pygame is not installed" if not _has_pygame() else "no display is available"
        print(f"pacman-ai: {why}; drawing in the terminal instead", file=sys.stderr)
        return "text"
    return choice


def _has_pygame() -> bool:
    return importlib.util.find_spec("pygame") is not None


def text_display(args: argparse.Namespace) -> Any:
    """The terminal view, on stderr when stdout carries --json."""
    from pacman.view.text import TextDisplay

    return TextDisplay(stream=sys.stderr if args.json else sys.stdout, fps=args.fps)


def check_frame_size(command: str, layout: Any, zoom: float, panel: bool, tree: bool = False) -> None:
    """Refuse a zoom whose frames would be too large for this layout, before any window or frame exists."""
    from pacman.view.renderer import MAX_FRAME_PIXELS, MAX_FRAME_SIDE, cell_pixels, frame_size

    width, height = frame_size(layout, cell_pixels(zoom), panel=panel, tree=tree)
    if width * height > MAX_FRAME_PIXELS or max(width, height) > MAX_FRAME_SIDE:
        raise UsageError(f"pacman-ai {command}: --zoom {zoom:g}: layout {layout.name!r} ({layout.width}x"
                         f"{layout.height}) would make {width}x{height}-pixel frames; the limit is "
                         f"{MAX_FRAME_PIXELS:,} pixels and {MAX_FRAME_SIDE:,} per side (use a smaller --zoom)")
