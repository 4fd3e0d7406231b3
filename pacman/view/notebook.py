"""States and games in Jupyter: a `GameState` as a picture, a finished game as an inline player.

Run ``%load_ext pacman.view.notebook`` once: from then on a cell whose value is
a `GameState` shows the board (PNG, drawn by the pygame renderer off screen, no
window), and one whose value is a `Replay` shows the game's player (the web
page's, inline: play/pause, step, scrubber, speed, values panel). Without the
extension, ``show(state)`` and ``show(game)`` return objects that Jupyter
displays the same way. IPython is not needed to import this module: the core
knows nothing of it, and it registers formatters only when IPython loads it.

>>> from pacman import GameState, load_layout
>>> png = state_png(GameState.initial(load_layout("test")))
>>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

import io
from typing import Any, Sequence

from pacman.game import GameResult
from pacman.layout import Layout, load_layout
from pacman.replay import MoveSearch, Replay
from pacman.state import GameState
from pacman.view.renderer import MAX_ZOOM, MIN_ZOOM, Renderer, cell_pixels
from pacman.view.web import game_fragment, replay_of

__all__ = ["state_png", "game_html", "show", "StateImage", "GamePlayer", "load_ipython_extension",
           "unload_ipython_extension"]


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
