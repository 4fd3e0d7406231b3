"""Recording games to disk, frame by frame, so memory stays constant however long the game.

`FrameRecorder` is a `Display` that renders every round off screen (render mode
"rgb_array") and hands the frames to a writer: an animated GIF, an MP4 (with the
optional ``video`` extra: imageio-ffmpeg) or a folder of PNG frames. It needs no
window and its frames do not depend on timing: the same game, the same file.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from pacman.actions import Action
from pacman.errors import PacmanError
from pacman.files import PendingFile, output_problem
from pacman.game import GameResult
from pacman.replay import kept_search
from pacman.state import GameState
from pacman.view.renderer import cell_pixels

__all__ = ["FrameRecorder", "TeeDisplay", "RecordingError", "open_frame_writer", "frame_folder_problem"]

_FRAME_NAME = re.compile(r"frame_\d{5,}\.png")
"""The files of a folder of PNG frames (frame_00001.png, ...)."""


def frame_folder_problem(folder: str | os.PathLike[str], *, replace: bool) -> str | None:
    """Why a folder cannot take a new recording's PNG frames (None if it can): it holds files already.

    Old frames left beside new ones would play as one longer film, so a folder
    that is not empty is refused unless `replace` (``play --force``), and even then
    only if it holds nothing but frames, which the finished recording replaces (a
    recording stopped before its end leaves them); other files are never deleted.
    """
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot list the folder ({exc.strerror or exc})"
    if not names:
        return None
    frames = [name for name in names if _FRAME_NAME.fullmatch(name)]
    others = sorted(set(names) - set(frames))
    if others:
        shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        return (f"the folder holds files other than frames ({shown}); record into an empty or new folder")
    if not replace:
        return (f"the folder already holds {len(frames):,} frame{'s' if len(frames) != 1 else ''} of another "
                f"recording; --force replaces them, or record into an empty or new folder")
    return None


class RecordingError(PacmanError):
    """A recording target that cannot be written."""


class _PngFolder:
    """Frames as numbered PNG files in a folder, written into a hidden folder beside it until `close()`.

    Stopped before the end (`abort`: the window closed, Ctrl-C, a signal), the
    recording leaves the folder as it was, earlier frames included; `close()`
    replaces those (``play --force``) with the new ones.
    """

    def __init__(self, folder: Path) -> None:
        import pygame

        self._pygame = pygame
        self.folder = folder
        self.frames = 0
        try:
            self._pending = PendingFile(folder, folder=True)
        except OSError as exc:
            raise RecordingError(f"{folder}: cannot make a folder of PNG frames there "
                                 f"({exc.strerror or exc})") from None
        self._staging = Path(self._pending.temporary)

    def add(self, frame: Any) -> None:
        surface = self._pygame.surfarray.make_surface(frame.swapaxes(0, 1))
        self.frames += 1
        self._pygame.image.save(surface, str(self._staging / f"frame_{self.frames:05d}.png"))

    def close(self) -> None:
        if not self._pending.is_pending:
            return
        try:
            if not os.path.lexists(self.folder):
                self._pending.commit()
                return
            for old in self.folder.iterdir():  # an earlier recording's frames would play on after ours
                if _FRAME_NAME.fullmatch(old.name) and old.is_file():
                    old.unlink()
            for new in sorted(self._staging.iterdir()):
                os.replace(new, self.folder / new.name)
        except OSError as exc:
            raise RecordingError(f"{self.folder}: cannot put the PNG frames there ({exc.strerror or exc})") from None
        finally:
            self._pending.discard()

    def abort(self) -> None:
        self._pending.discard()


class _Mp4:
    """Frames streamed to ffmpeg through imageio-ffmpeg, into a hidden file beside `path` until `close()`."""

    def __init__(self, path: Path, fps: float) -> None:
        try:
            import imageio_ffmpeg
        except ImportError:
            raise RecordingError(
                f"{path}: MP4 needs the optional video extra: pip install \"pacman-ai[video]\""
            ) from None
        self._ffmpeg = imageio_ffmpeg
        self.path = path
        self.fps = fps
        self._writer = None
        self.frames = 0
        try:
            self._pending = PendingFile(path)  # its suffix, .mp4, tells ffmpeg the format
        except OSError as exc:
            raise RecordingError(f"{path}: cannot write an MP4 there ({exc.strerror or exc})") from None

    def add(self, frame: Any) -> None:
        if self._writer is None:
            height, width = frame.shape[:2]
            self._writer = self._ffmpeg.write_frames(self._pending.temporary, (width, height), fps=self.fps,
                                                     macro_block_size=1)
            self._writer.send(None)
        self._writer.send(frame.tobytes())
        self.frames += 1

    def close(self) -> None:
        try:
            if self._writer is not None:  # no frame, no ffmpeg: no file
                self._end_ffmpeg()
                self._pending.commit()
        finally:
            self._pending.discard()

    def abort(self) -> None:
        try:
            self._end_ffmpeg()
        finally:
            self._pending.discard()

    def _end_ffmpeg(self) -> None:
        """Close ffmpeg's input and wait until it has finished the file (or was stopped)."""
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.close()


class _Discard:
    """A frame writer that counts frames and keeps none."""

    def __init__(self) -> None:
        self.frames = 0

    def add(self, frame: Any) -> None:
        self.frames += 1

    def close(self) -> None:
        pass


def open_frame_writer(target: str | os.PathLike[str], fps: float, encoder: str = "auto") -> Any:
    """A writer with ``add(frame)`` and ``close()`` for `target`: .gif, .mp4, or a folder for PNG frames."""
    path = Path(target)
    suffix = path.suffix.lower()
    if suffix not in ("", ".gif", ".mp4"):
        raise RecordingError(f"{target}: record to a .gif, a .mp4 or a folder (no suffix) of PNG frames")
    problem = output_problem(path, folder=not suffix)
    if problem is not None:
        raise RecordingError(f"{target}: {problem}")
    if suffix == ".gif":
        from pacman.view.gif import GifWriter

        try:
            return GifWriter(path, fps=fps, encoder=encoder)
        except OSError as exc:
            raise RecordingError(f"{target}: {exc.strerror or exc}") from None
    if suffix == ".mp4":
        return _Mp4(path, fps)
    return _PngFolder(path)


class FrameRecorder:
    """A Display that renders each round off screen into a frame writer.

    Each round becomes `frames_per_round` frames (Pacman and the ghosts gliding
    between cells); the end holds the final board with its banner for a second.
    """

    def __init__(self, layout: Any, target: str | os.PathLike[str], fps: float = 8.0, zoom: float = 1.0,
                 frames_per_round: int = 2, agent: Any = None, show_values: bool = False,
                 encoder: str = "auto", open_writer: bool = True, show_tree: bool = False) -> None:
        from pacman.view.renderer import Renderer, agent_label, search_view

        self._search_view = search_view
        self.renderer = Renderer(layout, cell=cell_pixels(zoom), panel=show_values, tree=show_tree)
        self.renderer.agent = agent_label(agent)
        self.show_tree = show_tree
        self._decision: Any = None
        """With `show_tree`: the top of the decision of the round being drawn (searched once per round)."""
        self.frames_per_round = frames_per_round
        self.fps = fps
        self.agent = agent
        if hasattr(agent, "explain"):
            agent.explain = True  # the values panel shows every action's value
        # Without `open_writer` frames are drawn and dropped (to time the drawing alone).
        self.writer = open_frame_writer(target, fps * frames_per_round, encoder) if open_writer else _Discard()
        self._previous: GameState | None = None
        self._pacman_action: Action | None = None
        self._facing = Action.EAST
        self._tick = 0
        self._move = 0

    @property
    def frames(self) -> int:
        """Frames written so far."""
        return self.writer.frames

    def _emit(self, state: GameState, previous: GameState | None, fraction: float, banner: str | None = None) -> None:
        frame = self.renderer.frame(
            state, previous=previous, fraction=fraction, pacman_direction=self._facing, tick=self._tick,
            move=self._move, banner=banner, decision=self._decision,
            **self._search_view(self.agent, kept_search(self.agent)),
        )
        self._tick += 1
        self.writer.add(frame)

    def start(self, state: GameState) -> None:
        self._previous = state
        self._move = 0
        self._emit(state, None, 1.0)

    def update(self, state: GameState, agent: int, action: Action) -> None:
        if agent == 0:
            self._move += 1
            if action is not Action.STOP:
                self._facing = action
            if self.show_tree:
                from pacman.view.renderer import decision_for

                self._decision = decision_for(self.agent, self._previous, getattr(self.agent, "last_search", None))
        if agent == state.num_agents - 1 or state.is_terminal():
            for step in range(1, self.frames_per_round + 1):
                self._emit(state, self._previous, step / self.frames_per_round)
            self._previous = state

    def finish(self, state: GameState, result: GameResult) -> None:
        banner = "You win!" if result.won else "Game over" if result.lost else result.outcome
        try:
            for _ in range(max(1, round(self.fps * self.frames_per_round))):
                self._emit(state, None, 1.0, banner)
        finally:
            self.writer.close()

    def abort(self) -> None:
        """Stop without finishing: the writer removes what it wrote and leaves its target as it was."""
        close = getattr(self.writer, "abort", None) or self.writer.close
        close()


class TeeDisplay:
    """Shows one game on several displays at once."""

    def __init__(self, *displays: Any) -> None:
        self.displays = [d for d in displays if d is not None]

    def start(self, state: GameState) -> None:
        for display in self.displays:
            display.start(state)

    def update(self, state: GameState, agent: int, action: Action) -> None:
        for display in self.displays:
            display.update(state, agent, action)

    def finish(self, state: GameState, result: GameResult) -> None:
        for display in self.displays:
            display.finish(state, result)
