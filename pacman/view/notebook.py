"""States and games in Jupyter: a `GameState` as a picture, a finished game as an inline player.

Run ``%load_ext pacman.view.notebook`` once: from then on a cell whose value is
a `GameState` shows the board (PNG, drawn by the pygame renderer off screen, no
window), and one whose value is a `Replay` shows the game's player (the web
page's, inline: play/pause, step, scrubber, speed, values panel). Without the
extension, ``show(state)`` and ``show(game)`` return objects that Jupyter
displays the same way. IPython is not needed to import this module: the core
knows nothing of it, and it registers formatters only when IPython loads it.

``live("--layout", "medium")`` plays a game live (``pacman-ai play --display
web`` in a process of its own) and shows its page in the cell, in an IFrame.

>>> from pacman import GameState, load_layout
>>> png = state_png(GameState.initial(load_layout("test")))
>>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

import collections
import html
import io
import re
import subprocess
import sys
import threading
import time
from typing import Any, Sequence

from pacman.game import GameResult
from pacman.layout import Layout, load_layout
from pacman.replay import MoveSearch, Replay
from pacman.state import GameState
from pacman.view.renderer import MAX_ZOOM, MIN_ZOOM, Renderer, cell_pixels
from pacman.view.web import game_fragment, replay_of

__all__ = ["state_png", "game_html", "show", "live", "StateImage", "GamePlayer", "LiveGame",
           "load_ipython_extension", "unload_ipython_extension"]


def state_png(state: GameState, zoom: float = 1.0, move: int | None = None) -> bytes:
    """The board of `state` as PNG bytes, drawn as the window draws it (32-pixel cells at zoom 1).

    The status line shows the score and the food left, and the move number only
    when given (a state does not know how many moves led to it).
    """
    if not isinstance(state, GameState):
        raise TypeError(f"state_png() draws a GameState, got {type(state).__name__}")
    if not MIN_ZOOM <= zoom <= MAX_ZOOM:
        raise ValueError(f"zoom must be between {MIN_ZOOM} and {MAX_ZOOM}, got {zoom}")
    from PIL import Image

    frame = Renderer(state.layout, cell=cell_pixels(zoom)).frame(state, move=move)
    out = io.BytesIO()
    Image.fromarray(frame).save(out, format="PNG", optimize=True)
    return out.getvalue()


def _as_replay(game: Replay | GameResult, layout: Layout | str | None,
               search: Sequence[MoveSearch | None] | None) -> Replay:
    if isinstance(game, Replay):
        return game
    if isinstance(game, GameResult):
        if layout is None:
            layout = game.layout  # the layout's name: right for shipped layouts; pass the Layout otherwise
        if not isinstance(layout, Layout):
            layout = load_layout(layout)
        return replay_of(layout, game, search=search)
    raise TypeError(f"expected a Replay or a GameResult, got {type(game).__name__}")


def game_html(game: Replay | GameResult, layout: Layout | str | None = None,
              search: Sequence[MoveSearch | None] | None = None, fps: float = 8.0) -> str:
    """The game's player as an HTML fragment for a notebook (the same player as `replay --html`).

    `game` is a `Replay` (from `load_replay`), or a `GameResult` with its
    `layout` (by default the layout of that name) and, to fill the values panel,
    the `search` a `SearchLog` kept while it was played.
    """
    return game_fragment(_as_replay(game, layout, search), fps=fps)


class StateImage:
    """A state that Jupyter shows as a picture (`_repr_png_`)."""

    def __init__(self, state: GameState, zoom: float = 1.0, move: int | None = None) -> None:
        self.state = state
        self.png = state_png(state, zoom=zoom, move=move)
        """The picture, as PNG bytes."""

    def _repr_png_(self) -> bytes:
        return self.png

    def __repr__(self) -> str:
        return f"StateImage({self.state!r})"

    def save(self, path: str) -> None:
        """Write the picture to a PNG file."""
        with open(path, "wb") as out:
            out.write(self.png)


class GamePlayer:
    """A game that Jupyter shows as its inline player (`_repr_html_`)."""

    def __init__(self, game: Replay | GameResult, layout: Layout | str | None = None,
                 search: Sequence[MoveSearch | None] | None = None, fps: float = 8.0) -> None:
        self.replay = _as_replay(game, layout, search)
        self.fps = fps

    def _repr_html_(self) -> str:
        return game_fragment(self.replay, fps=self.fps)

    def __repr__(self) -> str:
        return f"GamePlayer({self.replay!r})"


def show(thing: GameState | Replay | GameResult, **options: Any) -> StateImage | GamePlayer:
    """Wrap a state (a picture; `zoom`, `move`) or a game (a player; `layout`, `search`, `fps`) for display."""
    if isinstance(thing, GameState):
        return StateImage(thing, **options)
    return GamePlayer(thing, **options)


_ADDRESS = re.compile(r"the game is at (http://\S+/)")


class LiveGame:
    """A game played live by ``pacman-ai play --display web`` in its own process, shown in a notebook cell as
    an IFrame of its page (`_repr_html_`). `stop()` ends it (as Ctrl-C would); `lines` is what it printed."""

    def __init__(self, arguments: Sequence[str] = (), proxy: str | None = None, height: int = 640,
                 timeout: float = 60.0) -> None:
        command = [sys.executable, "-m", "pacman", "play", "--display", "web", "--no-browser", *arguments]
        self.height = height
        self.lines: collections.deque[str] = collections.deque(maxlen=50)
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, bufsize=1)
        found: list[str] = []
        ready = threading.Event()

        def read() -> None:
            assert self.process.stdout is not None
            for line in self.process.stdout:
                self.lines.append(line.rstrip("\n"))
                match = _ADDRESS.search(line)
                if match and not found:
                    found.append(match.group(1))
                    ready.set()
            ready.set()

        threading.Thread(target=read, name="pacman-live-output", daemon=True).start()
        deadline = time.monotonic() + timeout
        while not ready.wait(0.1) and time.monotonic() < deadline:
            pass
        if not found:
            self.stop()
            raise RuntimeError("pacman-ai play --display web did not start: " + (" / ".join(self.lines) or
                                                                                 "no output"))
        self.url = found[0]
        """The page's address, token included (as the server printed it)."""
        self.src = self.url
        """What the IFrame loads: the address, or with `proxy` ("/proxy/{port}/", jupyter-server-proxy's form)
        the same page through the notebook server."""
        if proxy is not None:
            port = int(self.url.split(":")[2].split("/")[0])
            self.src = proxy.format(port=port).rstrip("/") + "/" + self.url.split("/", 3)[3]

    def _repr_html_(self) -> str:
        return (f'<iframe src="{html.escape(self.src)}" width="100%" height="{self.height}" '
                f'style="border: 0; background: #0b0b14" title="pacman-ai live game"></iframe>')

    def stop(self, timeout: float = 10.0) -> int | None:
        """End the game and its server (SIGINT, as Ctrl-C); returns the process's exit status."""
        import signal

        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT if sys.platform != "win32" else signal.CTRL_C_EVENT)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    def __repr__(self) -> str:
        state = "running" if self.process.poll() is None else f"ended ({self.process.returncode})"
        return f"LiveGame({getattr(self, 'url', '?')}, {state})"


def live(*arguments: str, proxy: str | None = None, height: int = 640) -> LiveGame:
    """Play a game live in the notebook: ``live("--layout", "medium", "--fps", "10")`` takes `pacman-ai play`'s
    flags. `proxy`: where the notebook's browser is not on this machine (JupyterHub with jupyter-server-proxy),
    "/proxy/{port}/"."""
    return LiveGame(arguments, proxy=proxy, height=height)


def _replay_html(replay: Replay) -> str:
    return game_fragment(replay)


_FORMATTERS = (("image/png", GameState, state_png), ("text/html", Replay, _replay_html))


def load_ipython_extension(ipython: Any) -> None:
    """Called by ``%load_ext pacman.view.notebook``: states show as PNG pictures, replays as players."""
    formatters = ipython.display_formatter.formatters
    for mime, kind, function in _FORMATTERS:
        formatters[mime].for_type(kind, function)


def unload_ipython_extension(ipython: Any) -> None:
    """Called by ``%unload_ext pacman.view.notebook``: states and replays show as text again."""
    formatters = ipython.display_formatter.formatters
    for mime, kind, _ in _FORMATTERS:
        formatters[mime].pop(kind, None)
