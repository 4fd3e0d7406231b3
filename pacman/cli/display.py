"""How `play` and `replay` show a game: the display choice, the terminal view, the live web view's server,
the --fps and --zoom limits.

pygame is imported only to answer whether a window can be opened, never at import; the web server only when
`--display web` is asked for.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import sys
import threading
from typing import Any, Iterator

from pacman.cli.args import UsageError, bounded_float

__all__ = ["FPS_RANGE", "DISPLAYS", "fps", "zoom", "display_choice", "text_display", "check_frame_size",
           "add_web_arguments", "check_web_flags", "check_window_flags", "web_view", "port", "host"]

DISPLAYS = ("pygame", "text", "web", "none")
"""The --display choices of play and replay."""

FPS_RANGE = (0.1, 1000.0)
"""--fps: rounds shown per second."""

fps = bounded_float(*FPS_RANGE)
"""The --fps argument type."""


def zoom(text: str) -> float:
    """The --zoom argument type: a scale within the renderer's limits."""
    from pacman.view.renderer import MAX_ZOOM, MIN_ZOOM

    return bounded_float(MIN_ZOOM, MAX_ZOOM)(text)


def port(text: str) -> int:
    """The --port argument type: 0 (any free port) to 65535."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number from 0 (any free port) to 65535, got {text!r}")
    return value


def host(text: str) -> str:
    """The --host argument type: an address, never an empty string (which would bind every interface)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected an address such as 127.0.0.1 (this machine only) or 0.0.0.0 "
                                         f"(every interface), got {text!r}")
    return text.strip()


#: The live web view's flags, and what each is when left out.
WEB_FLAGS = {"--host": ("host", None), "--port": ("port", None), "--no-browser": ("no_browser", False)}


def add_web_arguments(parser: argparse.ArgumentParser) -> None:
    """The live web view's flags: --host, --port, --no-browser (refused without --display web: `check_web_flags`)."""
    parser.add_argument("--host", type=host, default=None, metavar="ADDRESS",
                        help="with --display web: the address the server listens on (default: 127.0.0.1, this "
                             "machine only; 0.0.0.0 opens it to the network, with a warning)")
    parser.add_argument("--port", type=port, default=None, metavar="N",
                        help="with --display web: the server's port (default: 0, a free port)")
    parser.add_argument("--no-browser", action="store_true",
                        help="with --display web: print the address without opening a web browser")


def check_web_flags(args: argparse.Namespace, command: str) -> None:
    """Refuse the web view's flags without ``--display web``: they would be silently ignored."""
    if args.display == "web":
        return
    for flag, (name, unset) in WEB_FLAGS.items():
        value = getattr(args, name)
        if value != unset:
            given = flag if isinstance(value, bool) else f"{flag} {value}"
            raise UsageError(f"pacman-ai {command}: {given} applies to the live web view only: add --display web, "
                             f"or leave {flag} out")


def check_window_flags(args: argparse.Namespace, command: str, record: str | None = None) -> None:
    """Refuse --zoom, --tree (and --force) where nothing would use them: a display other than the pygame window
    chosen explicitly (text, none, web) and no --record. They would be silently ignored."""
    if args.display not in ("text", "none", "web") or record:
        return
    also = " and --record" if hasattr(args, "record") else ""
    if args.zoom != 1.0:
        raise UsageError(f"pacman-ai {command}: --zoom {args.zoom:g} applies to the pygame window{also} only, not "
                         f"to --display {args.display}: leave it out")
    if args.tree:
        raise UsageError(f"pacman-ai {command}: --tree applies to the pygame window{also} only, not to --display "
                         f"{args.display}: leave it out")


@contextlib.contextmanager
def web_view(args: argparse.Namespace, command: str, games: int = 1) -> Iterator[Any]:
    """The live web view's server for one run of `command`: started, its address printed (and opened in a
    browser where there is a screen), stopped cleanly at the end, on an error and on Ctrl-C."""
    from pacman.view.live import DEFAULT_HOST, LiveServer, LiveServerError, warn_public

    try:
        server = LiveServer(host=args.host or DEFAULT_HOST, port=args.port or 0, fps=args.fps, games=games,
                            title=f"pacman-ai {command}")
    except LiveServerError as exc:
        raise UsageError(f"pacman-ai {command}: --display web: {exc}") from None
    if args.host not in (None, DEFAULT_HOST, "localhost", "::1"):
        warn_public(args.host)
    server.start()
    print(f"pacman-ai: the game is at {server.url} (open it in a web browser; it starts when the page "
          f"connects; Ctrl-C stops)", file=sys.stderr, flush=True)
    if not args.no_browser:
        _open_browser(server.url)
    finished = False
    try:
        yield server
        finished = True
    finally:
        server.close(drain=finished)


def _open_browser(url: str) -> None:
    """Open `url` in a graphical browser when this machine has a screen (never a text browser in the terminal)."""
    from pacman.view.window import real_display

    if not real_display():
        return
    import webbrowser

    threading.Thread(target=webbrowser.open, args=(url,), name="pacman-open-browser", daemon=True).start()


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
