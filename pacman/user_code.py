"""User code behind one guard: its errors told as frames of the user's own files, its import bounded in time.

Every command that runs a user's code (an agent, an evaluation, a ghost, a
submission) reports a failure the same way: the exception, then the last frames
that lie in the user's own files (file, line, function, the source line), and,
for a common mistake, a one-line hint (`hint_for`). Frames of this project, of
Python's standard library and of installed packages are left out, unless the
caller asks for every frame (``--verbose``).

Within `exits_guarded`, a user's ``os._exit(code)`` raises `pacman.errors.UserExit` and ends only its game.

Importing a user's file by path (`import_user_file`) has a time limit
(`IMPORT_SECONDS`, ``PACMAN_AI_IMPORT_SECONDS`` in the environment raises it):
a file that loops at import ends with an error naming the file and the line it
was on, instead of hanging the command.

>>> try:
...     (1).real()
... except TypeError as exc:
...     hint_for(exc, "x = state.pacman_position()")
'GameState.pacman_position is a property: write state.pacman_position, without ()'
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
import sysconfig
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from pacman.errors import UserExit

__all__ = ["exits_guarded", "frames_text", "UserFrame", "user_frames", "hint_for", "describe_user_error", "import_user_file", "ImportTimeout",
           "IMPORT_SECONDS", "import_seconds", "IMPORT_SECONDS_VARIABLE"]

#: Seconds a user's file may take to import (module-level code included), unless the environment says more.
IMPORT_SECONDS = 10.0
#: The environment variable that sets another import time limit (seconds).
IMPORT_SECONDS_VARIABLE = "PACMAN_AI_IMPORT_SECONDS"
#: Frames of the user's files shown, at most (the innermost).
SHOWN_FRAMES = 3

_PROJECT = (str(Path(__file__).resolve().parent),)


def _not_user_roots() -> tuple[str, ...]:
    roots = set(_PROJECT)
    for name in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(name)
        if path:
            roots.add(str(Path(path).resolve()))
    return tuple(sorted(roots))


_NOT_USER = _not_user_roots()


@functools.lru_cache(maxsize=1)
def _agents_root() -> tuple[str, ...]:
    """Where the agents layer lives (found, not imported: the core imports no agent), looked up once: a
    grading child asks before it seals the project's modules off from the submission."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("pacman.agents")
    except (ImportError, ValueError):
        return ()
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    return tuple(str(Path(location).resolve()) for location in locations)


@dataclass(frozen=True)
class UserFrame:
    """One frame of a traceback in a user's file."""

    file: str
    """The file's path as Python knows it."""
    line: int
    """The line number."""
    function: str
    """The function (``<module>`` at import)."""
    source: str
    """The source line, stripped ('' if it cannot be read)."""

    def __str__(self) -> str:
        return f"{self.file}:{self.line} in {self.function}" + (f": {self.source}" if self.source else "")


def _is_user_file(filename: str, roots: tuple[str, ...]) -> bool:
    if not filename or filename.startswith("<"):
        return False
    try:
        resolved = str(Path(filename).resolve())
    except (OSError, RuntimeError):
        return False
    return not any(resolved == root or resolved.startswith(root + os.sep) for root in roots)


def user_frames(exc: BaseException, every_frame: bool = False) -> list[UserFrame]:
    """The frames of `exc`'s traceback that lie in the user's files, innermost last (at most `SHOWN_FRAMES`);
    with `every_frame`, every frame of the traceback."""
    roots = _NOT_USER + _agents_root()
    frames = traceback.extract_tb(exc.__traceback__)
    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        text = (exc.text or "").strip()
        frames.append(traceback.FrameSummary(exc.filename, exc.lineno, "<module>", line=text))
    chosen = [f for f in frames if every_frame or _is_user_file(f.filename, roots)]
    # a recursion repeats one frame: shown once
    chosen = [f for i, f in enumerate(chosen) if i == 0 or (f.filename, f.lineno) !=
              (chosen[i - 1].filename, chosen[i - 1].lineno)]
    if not every_frame:
        chosen = chosen[-SHOWN_FRAMES:]
    return [UserFrame(_shown_path(f.filename), f.lineno or 0, f.name, (f.line or "").strip()) for f in chosen]


def _shown_path(filename: str) -> str:
    """A path relative to the working directory when it lies below it, else as it is."""
    try:
        relative = os.path.relpath(filename)
    except ValueError:
        return filename
    return filename if relative.startswith("..") else relative


def _state_properties() -> frozenset[str]:
    from pacman.state import GameState

    return frozenset(name for name in dir(GameState) if not name.startswith("_")
                     and isinstance(getattr(GameState, name, None), property))


def hint_for(exc: BaseException, source: str = "") -> str | None:
    """A one-line hint for a common mistake behind `exc` (raised at the line `source`), or None."""
    text = str(exc)
    if isinstance(exc, TypeError) and "object is not callable" in text:
        for name in sorted(_state_properties()):
            if f".{name}(" in source:
                return f"GameState.{name} is a property: write state.{name}, without ()"
        return "a value was called as a function: is it a property (no ())?"
    if (isinstance(exc, TypeError) and "NoneType" in text) or "returned None" in text:
        return "a function returned None: does every path of it end in return (an evaluation returns a number)?"
    if isinstance(exc, TypeError) and ("positional argument" in text or "unexpected keyword argument" in text):
        return ("a wrong signature: an evaluation is called as f(state), an agent's get_action as "
                "get_action(state), a ghost's distribution as distribution(state)")
    if isinstance(exc, (NotImplementedError,)) or "raiseNotDefined" in source or "raise_not_defined" in source:
        return "this part is not written yet"
    return None


def describe_user_error(exc: BaseException, every_frame: bool = False) -> tuple[list[str], str | None]:
    """(the user's frames as lines, a hint or None) for `exc`, ready to print below its one-line error."""
    frames = user_frames(exc, every_frame)
    source = frames[-1].source if frames else ""
    return [str(frame) for frame in frames], hint_for(exc, source)


_REAL_EXIT = os._exit


def _exit_raises(code: int) -> None:
    """``os._exit`` within `exits_guarded`: the project's own callers (a batch worker's lifeline, which ends
    the process when the batch is gone, from its own thread) exit as ever; a user's code raises `UserExit`."""
    caller = sys._getframe(1).f_code.co_filename
    if not _is_user_file(caller, _PROJECT + _agents_root()):
        _REAL_EXIT(code)
    raise UserExit(code)


@contextlib.contextmanager
def exits_guarded() -> Iterator[None]:
    """Within the block, ``os._exit(code)`` raises `UserExit` instead of ending the process at once, so that a
    user's ``os._exit`` in an agent or an evaluation ends its game with a message, not the command without a
    word. The project's own code calls ``os._exit`` only outside games (forked workers, the sandbox)."""
    if os._exit is _exit_raises:  # nested (or another thread's game): the outer block restores it
        yield
        return
    original = os._exit
    os._exit = _exit_raises  # type: ignore[assignment]
    try:
        yield
    finally:
        os._exit = original


def frames_text(exc: BaseException, every_frame: bool = False) -> str:
    """The user's frames and the hint for `exc` as indented lines to put under its one-line error ('' if none)."""
    frames, hint = describe_user_error(exc, every_frame)
    return "".join(f"\n  {frame}" for frame in frames) + (f"\n  hint: {hint}" if hint else "")


# -- importing a user's file, bounded in time ---------------------------------------------------------------------

class ImportTimeout(Exception):
    """A user's file did not finish importing within the time limit (the message names file and line)."""


def import_seconds() -> float:
    """The import time limit in force: ``PACMAN_AI_IMPORT_SECONDS`` if set to a positive number, else
    `IMPORT_SECONDS`."""
    value = os.environ.get(IMPORT_SECONDS_VARIABLE)
    if value:
        try:
            seconds = float(value)
        except ValueError:
            seconds = 0.0
        if seconds > 0:
            return seconds
    return IMPORT_SECONDS


def import_user_file(run_import: Callable[[], Any], path: str, seconds: float | None = None) -> Any:
    """Call `run_import` (which executes the module at `path`) with a time limit; ImportTimeout names the file
    and the line it was on when the limit passed.

    On the main thread of a POSIX process the limit is a timer signal that raises inside the import, so a
    loop stops where it is. Elsewhere (a worker thread) the import runs without a limit.
    """
    limit = import_seconds() if seconds is None else seconds
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return run_import()
    target = str(Path(path).resolve())

    def expired(number: int, frame: Any) -> None:
        line = None
        while frame is not None:
            if frame.f_code.co_filename and _same_file(frame.f_code.co_filename, target):
                line = frame.f_lineno
                break
            frame = frame.f_back
        where = f"{path}:{line}" if line else path
        raise ImportTimeout(f"{where}: importing it took longer than {limit:g} s (a loop at import?); set "
                            f"{IMPORT_SECONDS_VARIABLE}=SECONDS to allow more")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return run_import()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _same_file(filename: str, target: str) -> bool:
    try:
        return str(Path(filename).resolve()) == target
    except (OSError, RuntimeError):
        return False
