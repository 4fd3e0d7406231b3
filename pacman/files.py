"""Files the user hands us and files we write.

Inputs are read only when they are regular files of a bounded size (a FIFO or a
device would block or never end); outputs are written whole or not at all: a
temporary file beside the target (`PendingFile`), then a rename.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import stat
import sys
import time
from typing import Any, Callable, Iterator

__all__ = ["PendingFile", "write_atomically", "write_json", "read_input_file", "file_kind", "output_problem",
           "same_file", "hold_lock", "lock_path"]


class PendingFile:
    """An output written under a hidden temporary name beside `path`, which it takes only at `commit()`.

    The one home of every "whole or not at all" output: `write_atomically` for a
    file written in one call, a recording that grows frame by frame
    (`pacman.view.gif.GifWriter`, an MP4, a folder of PNG frames: `folder=True`)
    for the rest. The temporary name, ``.game.PID.RANDOM.tmp.gif`` for
    ``game.gif``, is made (an empty file, or a folder) with this object; it keeps
    the target's suffix, as ffmpeg and matplotlib pick the format by it.
    `discard()` removes it, so that whatever stops the writing (an error, Ctrl-C,
    SIGTERM as `pacman.process_guard.RunSignal`) leaves `path` as it was and
    nothing beside it; so does dropping the object before either.

    >>> pending = PendingFile("game.gif")                   # doctest: +SKIP
    >>> try:                                                # doctest: +SKIP
    ...     write_frames(pending.temporary)
    ...     pending.commit()
    ... finally:
    ...     pending.discard()  # does nothing after a commit
    """

    def __init__(self, path: str | os.PathLike[str], *, folder: bool = False) -> None:
        self.path = os.fspath(path)
        """The name the output takes at `commit()`."""
        self.folder = folder
        """Whether the output is a folder (of frames) rather than a file."""
        self.temporary = ""
        """Where it is written meanwhile."""
        self.is_pending = False
        """Whether the temporary file is ours to commit or discard (False once either was done)."""
        absolute = os.path.abspath(self.path)  # "frames/" names the folder frames
        parent = os.path.dirname(absolute)
        base, suffix = os.path.splitext(os.path.basename(absolute))
        for _ in range(100):
            self.temporary = os.path.join(parent, f".{base}.{os.getpid()}.{secrets.token_hex(4)}.tmp{suffix}")
            self.is_pending = True  # before it is made: whatever interrupts the making, discard() finds it
            try:
                if folder:
                    os.mkdir(self.temporary)
                else:
                    os.close(os.open(self.temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                                     | getattr(os, "O_CLOEXEC", 0), 0o666))
            except FileExistsError:
                self.is_pending = False  # another's: never removed by us
                continue
            except BaseException:
                self.discard()
                raise
            return
        self.is_pending = False  # pragma: no cover
        raise FileExistsError(17, "cannot make a temporary name beside it", self.path)  # pragma: no cover

    def commit(self) -> None:
        """Move the temporary file (or folder) onto `path`; on failure it is removed and the OSError propagates."""
        if not self.is_pending:
            raise ValueError(f"{self.path}: the temporary file was committed or discarded already")
        try:
            os.replace(self.temporary, self.path)
        except BaseException:
            self.discard()
            raise
        self.is_pending = False

    def discard(self) -> None:
        """Remove the temporary file (or folder, with what it holds) and leave `path` as it was; harmless
        after `commit()` and when called twice."""
        if not self.is_pending:
            return
        if self.folder:
            shutil.rmtree(self.temporary, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.remove(self.temporary)
        self.is_pending = False

    def __del__(self) -> None:
        # Dropped while pending (say, a signal between its making and its owner keeping it): leave nothing behind.
        if getattr(self, "is_pending", False):
            self.discard()


def write_atomically(path: str | os.PathLike[str], write: Callable[[str], None]) -> None:
    """Call `write(temporary_path)`, then move that file onto `path`: readers see the whole file or none.

    The temporary file (a `PendingFile`, which exists, empty, when `write` is
    called) keeps the target's suffix (matplotlib picks the format by it). On any
    failure, Ctrl-C or a stopping signal included, it is removed and `path` is
    left as it was; the OSError (or whatever `write` raised) propagates.
    """
    pending = PendingFile(path)
    try:
        write(pending.temporary)
        pending.commit()
    finally:
        pending.discard()


def write_json(path: str | os.PathLike[str], data: Any, indent: int = 2) -> None:
    """Write `data` as JSON (and a final newline) to `path` atomically."""

    def dump(temporary: str) -> None:
        with open(temporary, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=indent)
            out.write("\n")

    write_atomically(path, dump)


def read_input_file(path: str | os.PathLike[str], what: str, max_bytes: int,
                    error: type[Exception] = ValueError) -> bytes:
    """The bytes of a regular file the user named, refusing anything that could block or flood.

    A FIFO, a device, a socket or a directory is refused before a byte is read
    (opening a FIFO for reading would wait for a writer forever), and so is a file
    larger than `max_bytes`. Errors are `error` (a narrow ValueError subclass of the
    caller's) with a message that starts with the path and says what was expected,
    for example ``pipe: is a FIFO, not a regular file (a layout must be a file)``.
    """
    shown = os.fspath(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(shown, flags)
    except OSError as exc:
        raise error(f"{shown}: cannot read {what} ({exc.strerror or exc})") from None
    except ValueError:  # a NUL character: no file can have that name
        raise error(f"{shown!r}: cannot read {what} (a file name cannot contain a NUL character)") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{shown}: is {file_kind(info.st_mode)}, not a regular file (expected {what})")
        if info.st_size > max_bytes:
            raise error(f"{shown}: {info.st_size:,} bytes is too large for {what} (limit {max_bytes:,})")
        chunks = []
        size = 0
        while size <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > max_bytes:  # it grew while we read it
            raise error(f"{shown}: more than {max_bytes:,} bytes is too large for {what}")
        return b"".join(chunks)
    except OSError as exc:
        raise error(f"{shown}: cannot read {what} ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def file_kind(mode: int) -> str:
    """What a file of this `st_mode` is, in words: 'a directory', 'a FIFO (named pipe)', ..."""
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"


def output_problem(path: str | os.PathLike[str], *, folder: bool = False) -> str | None:
    """Why `path` cannot be written as a new or replaced file (or, with `folder`, filled as a folder); None if it can.

    Checked before any work is done, so that a long run never ends on an unwritable
    output: an empty name, a folder where a file goes (or a file where a folder
    goes), a FIFO, device or socket (writing would block or go nowhere), a
    read-only file, a missing or read-only folder. A file is created and removed
    in the folder to be sure (``os.access`` says yes to root on a read-only file
    system). Callers put the flag and the path in front of the answer.
    """
    target = os.fspath(path)
    if not target or "\0" in target:
        return "not a file name"
    try:
        info = os.stat(target)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        return f"cannot write there ({exc.strerror or exc})"
    if info is not None:
        if folder:
            if not stat.S_ISDIR(info.st_mode):
                return "exists and is not a folder"
            return None if os.access(target, os.W_OK | os.X_OK) else "the folder is not writable"
        if stat.S_ISDIR(info.st_mode):
            return "is a folder, expected a file name"
        if not stat.S_ISREG(info.st_mode):
            return f"is {file_kind(info.st_mode)}, not a regular file"
        if not os.access(target, os.W_OK):
            return "the file exists and is not writable"
    parent = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(parent):
        return f"folder {parent} does not exist"
    probe = os.path.join(parent, f".{os.path.basename(target)[:100]}.{os.getpid()}.probe")
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        os.remove(probe)
    except OSError as exc:
        return f"cannot write in folder {parent} ({exc.strerror or exc})"
    return None


#: Windows locks byte ranges: the lock is on one byte far beyond the holder's note, which stays readable.
_WINDOWS_LOCK_OFFSET = 1 << 30


def same_file(first: str | os.PathLike[str], second: str | os.PathLike[str]) -> bool:
    """Whether two paths name one file: the same path by another spelling, through a link to a file or to a
    folder, or one file by two names (hard links). A path that does not exist yet is compared by where it
    would be."""
    if os.path.realpath(first) == os.path.realpath(second):
        return True
    try:
        return os.path.samefile(first, second)
    except OSError:  # one does not exist yet, and would not be the other
        return False


def lock_path(path: str | os.PathLike[str]) -> str:
    """The lock file that guards `path`: ``results.jsonl`` -> ``results.jsonl.lock``, beside it."""
    return os.fspath(path) + ".lock"


@contextlib.contextmanager
def hold_lock(path: str | os.PathLike[str], what: str, error: type[Exception] = ValueError,
              shown: str | None = None) -> Iterator[None]:
    """Hold an exclusive OS lock on `path` (a file one run appends to) for the ``with`` block, or refuse at once.

    The lock is taken on ``PATH.lock`` beside the file (`lock_path`), so `path`
    itself is neither created nor touched, and it is the operating system's
    (``fcntl.flock`` on POSIX, ``msvcrt.locking`` on Windows): it is released when
    the holder ends, even when it is killed, so a stale lock file never blocks
    anyone. The holder writes its process id, start time and command line into
    the lock file; a second holder gets `error` at once, naming `path` and that
    process, for example ``results.jsonl: in use by process 4242 (pacman-ai batch
    --out results.jsonl), running since 2026-01-02 10:00:00; ...``. The lock file
    is removed on release. `what` names the file's role in the message
    ("results file"), `shown` how messages name the file (default: `path`). Not for
    network file systems whose locks are advisory only between machines.
    """
    lock = lock_path(os.fspath(path))
    target = os.fspath(path) if shown is None else shown
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0),
                         0o644)
        except OSError as exc:
            raise error(f"{target}: cannot lock the {what} ({lock}: {exc.strerror or exc})") from None
        if _try_lock(fd):
            try:  # the lock file may have been removed (and another made) between our open and our lock
                same = os.path.samestat(os.fstat(fd), os.stat(lock))
            except OSError:
                same = False
            if same:
                break
            _unlock(fd)
            os.close(fd)
            continue
        holder = _read_note(fd)
        os.close(fd)
        raise error(f"{target}: the {what} is in use by {holder}; two runs on one file would mix their lines: "
                    f"wait for it to end, or choose another file")
    try:
        note = (f"process {os.getpid()} ({' '.join(['pacman-ai', *sys.argv[1:]])[:300]}), running since "
                f"{time.strftime('%Y-%m-%d %H:%M:%S')}")
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.write(fd, note.encode("utf-8", "replace"))
        yield
    finally:
        with contextlib.suppress(OSError):
            os.remove(lock)  # before the unlock: whoever waits on this file finds it gone and starts again
        _unlock(fd)
        os.close(fd)


def _try_lock(fd: int) -> bool:
    """Take the lock without waiting; False if another process holds it."""
    try:
        if os.name == "nt":
            import msvcrt

            os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
        else:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (BlockingIOError, PermissionError):
        return False
    except OSError as exc:
        if exc.errno in (11, 13, 35, 36):  # EAGAIN, EACCES, EWOULDBLOCK (BSD), EDEADLK (Windows)
            return False
        raise
    return True


def _unlock(fd: int) -> None:
    with contextlib.suppress(OSError):
        if os.name == "nt":
            import msvcrt

            os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]
        else:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_UN)


def _read_note(fd: int) -> str:
    """What the holder wrote in the lock file (its process id and command), or a plain phrase."""
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        note = os.read(fd, 1000).decode("utf-8", "replace").strip()
    except OSError:
        note = ""
    return note or "another process (it has not written its name yet)"
