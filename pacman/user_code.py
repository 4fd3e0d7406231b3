"""User code behind one guard: its errors told as frames of the user's own files, its import bounded in time.

Every command that runs a user's code (an agent, an evaluation, a ghost, a
submission) reports a failure the same way: the exception, then the last frames
that lie in the user's own files (file, line, function, the source line), and,
for a common mistake, a one-line hint (`hint_for`). Frames of this project, of
Python's standard library and of installed packages are left out, unless the
caller asks for every frame: ``--verbose`` on the command line, ``PACMAN_AI_VERBOSE=1``
in the environment (`VERBOSE_VARIABLE`).

Within `exits_guarded`, a user's ``os._exit(code)`` raises `pacman.errors.UserExit` and ends only its game.

Importing a user's file by path (`import_user_file`) has a time limit
(`IMPORT_SECONDS`; ``--import-seconds S`` on the command line,
``PACMAN_AI_IMPORT_SECONDS`` in the environment): a file that loops at import
ends with an error naming the file and the line it was on, instead of hanging
the command.

A command puts its flags in force for its whole run with `applied` (the
environment variables above, so that its own imports and crashes follow them);
a batch hands them to its workers inside every game's job (`current_options`).
In Python, an exception raised through a user's file inside the environments
gets the same frames and hint as a note under its message (`note_user_frames`).

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

__all__ = ["exits_guarded", "frames_text", "UserFrame", "user_frames", "hint_for", "describe_user_error",
           "note_user_frames", "defined_at", "import_user_file", "ImportTimeout", "IMPORT_SECONDS",
           "MAX_IMPORT_SECONDS", "import_seconds", "IMPORT_SECONDS_VARIABLE", "IMPORT_SECONDS_HELP", "parse_import_seconds",
           "VERBOSE_VARIABLE", "VERBOSE_HELP", "is_verbose", "SHOWN_FRAMES", "UserCodeOptions", "current_options",
           "applied"]

#: Seconds a user's file may take to import (module-level code included), unless a flag or the environment
#: says otherwise: the default of every command's ``--import-seconds``.
IMPORT_SECONDS = 10.0
#: The largest import time limit a flag may set (a day).
MAX_IMPORT_SECONDS = 86400.0
#: The environment variable that sets another import time limit (seconds).
IMPORT_SECONDS_VARIABLE = "PACMAN_AI_IMPORT_SECONDS"
#: The environment variable that keeps every frame of a crash's traceback (``1``), as ``--verbose`` does.
VERBOSE_VARIABLE = "PACMAN_AI_VERBOSE"
#: Frames of the user's files shown, at most (the innermost).
SHOWN_FRAMES = 3

IMPORT_SECONDS_HELP = (f"seconds a file of yours (agent, evaluation) may take to import before it is stopped as "
                       f"hanging, above 0, at most {MAX_IMPORT_SECONDS:g} (default: {IMPORT_SECONDS:g}, or "
                       f"{IMPORT_SECONDS_VARIABLE} from the environment)")
"""The ``--import-seconds`` help text of every command that imports a user's file."""
VERBOSE_HELP = (f"report a crash with every frame of its traceback, this project's too, on stderr and in its "
                f"error_frames (--json, results lines); default: only the frames in your own files, the last "
                f"{SHOWN_FRAMES}")
"""The ``--verbose`` help text of the commands that play games (`grade --verbose` says more of each test)."""

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


def is_verbose() -> bool:
    """Whether crash reports keep every frame: ``PACMAN_AI_VERBOSE`` set to anything but '' or 0 (``--verbose``)."""
    return os.environ.get(VERBOSE_VARIABLE, "").strip() not in ("", "0")


def user_frames(exc: BaseException, every_frame: bool | None = None) -> list[UserFrame]:
    """The frames of `exc`'s traceback that lie in the user's files, innermost last (at most `SHOWN_FRAMES`);
    with `every_frame`, every frame of the traceback (None: as `is_verbose` says)."""
    if every_frame is None:
        every_frame = is_verbose()
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


def defined_at(function: Any) -> str:
    """``file.py:12``: where `function` (a user's function or method) is defined, its path shown as frames show
    it; '' for anything without Python code (a builtin, None)."""
    code = getattr(getattr(function, "__func__", function), "__code__", None)
    if code is None:
        return ""
    return f"{_shown_path(code.co_filename)}:{code.co_firstlineno}"


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


def describe_user_error(exc: BaseException, every_frame: bool | None = None) -> tuple[list[str], str | None]:
    """(the user's frames as lines, a hint or None) for `exc`, ready to print below its one-line error (every
    frame with `every_frame`; None: as `is_verbose` says)."""
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


def frames_text(exc: BaseException, every_frame: bool | None = None) -> str:
    """The user's frames and the hint for `exc` as indented lines to put under its one-line error ('' if none;
    every frame with `every_frame`, None: as `is_verbose` says)."""
    frames, hint = describe_user_error(exc, every_frame)
    return "".join(f"\n  {frame}" for frame in frames) + (f"\n  hint: {hint}" if hint else "")


def note_user_frames(exc: BaseException) -> BaseException:
    """Add to `exc` a note (PEP 678: Python prints it under the exception's message) with the frames of the
    user's files it passed through and the hint, as the commands print them; once, and only when there is
    something to say. Returns `exc`; the caller raises it again as it is, with a bare ``raise`` (its type
    and traceback unchanged).

    Where the project calls a user's code from Python (the environments calling an agent, a ghost, a policy),
    the last lines of the traceback then say where in the user's file it went wrong. Python 3.10 has no
    notes: there the traceback is Python's alone.
    """
    if getattr(exc, "_pacman_noted", False) or not hasattr(exc, "add_note"):
        return exc
    text = frames_text(exc, every_frame=False)  # the traceback above it has every frame already
    if text:
        exc.add_note(text.lstrip("\n"))
    with contextlib.suppress(AttributeError, TypeError):  # an exception that refuses attributes: noted again
        exc._pacman_noted = True  # type: ignore[attr-defined]
    return exc


# -- importing a user's file, bounded in time ---------------------------------------------------------------------

class ImportTimeout(Exception):
    """A user's file did not finish importing within the time limit (the message names file and line)."""


def import_seconds() -> float:
    """The import time limit in force: ``PACMAN_AI_IMPORT_SECONDS`` if set to a positive number (at most
    `MAX_IMPORT_SECONDS`), else `IMPORT_SECONDS`."""
    value = os.environ.get(IMPORT_SECONDS_VARIABLE)
    if value:
        try:
            seconds = float(value)
        except ValueError:
            seconds = 0.0
        if 0 < seconds <= MAX_IMPORT_SECONDS:
            return seconds
    return IMPORT_SECONDS


def parse_import_seconds(text: str) -> float:
    """The ``--import-seconds`` argument type: a number of seconds above 0, at most `MAX_IMPORT_SECONDS`.

    Raises ValueError (argparse's ``ArgumentTypeError`` is one) naming the text.
    """
    import argparse
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= MAX_IMPORT_SECONDS:  # NaN fails both
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0, at most {MAX_IMPORT_SECONDS:g}, "
                                         f"got {text!r}")
    return value


@dataclass(frozen=True)
class UserCodeOptions:
    """How a run guards user code: what a crash's report shows, how long an import may take."""

    every_frame: bool = False
    """Keep every frame of a crash's traceback, this project's too (``--verbose``)."""
    import_seconds: float = IMPORT_SECONDS
    """Seconds a user's file may take to import (``--import-seconds``)."""


def current_options(verbose: bool = False, seconds: float | None = None) -> UserCodeOptions:
    """The options in force (the environment's: `is_verbose`, `import_seconds`), with a command's flags over
    them: `verbose` (``--verbose``) and `seconds` (``--import-seconds``; None: not given)."""
    return UserCodeOptions(every_frame=verbose or is_verbose(),
                           import_seconds=import_seconds() if seconds is None else seconds)


@contextlib.contextmanager
def applied(options: UserCodeOptions) -> Iterator[None]:
    """Within the block, `options` are in force in this process (as ``PACMAN_AI_VERBOSE`` and
    ``PACMAN_AI_IMPORT_SECONDS``, which processes started meanwhile inherit); as they were afterwards.

    A command wraps its run in it; a batch's worker wraps each game in its job's options, so that a worker
    process started before (or on another machine) follows the command that sent the game.
    """
    wanted = {VERBOSE_VARIABLE: "1" if options.every_frame else None,
              IMPORT_SECONDS_VARIABLE: repr(float(options.import_seconds))}
    before = {name: os.environ.get(name) for name in wanted}
    try:
        for name, value in wanted.items():
            _set_variable(name, value)
        yield
    finally:
        for name, value in before.items():
            _set_variable(name, value)


def _set_variable(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


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
        raise ImportTimeout(f"{where}: importing it took longer than {limit:g} s (a loop at import?); "
                            f"{_more_import_time()} to allow more")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return run_import()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _more_import_time() -> str:
    """How the current caller's user allows a longer import: the flag in a command's run, else the variable."""
    from pacman.hints import PYTHON, caller

    if caller() != PYTHON:
        return "give --import-seconds SECONDS"
    return f"set {IMPORT_SECONDS_VARIABLE}=SECONDS (a command's --import-seconds)"


def _same_file(filename: str, target: str) -> bool:
    try:
        return str(Path(filename).resolve()) == target
    except (OSError, RuntimeError):
        return False
