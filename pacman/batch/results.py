"""Results files: one JSON line per game, appended as games end; read back, checked, and resumed.

Each finished game is one line, appended and flushed at once, so a crash or
Ctrl-C loses only the games in flight, and a resumed run plays only the
missing ones. The lines carry their configuration, which is how a file and a
command that do not match are told apart: a resumed file is checked line by
line, and a line that is not a game line, a game played with other flags or
another seed, a game listed twice or beyond `games` is refused, naming the file
and the line. A file written when lines held only the given agent arguments
still resumes (its arguments completed with today's defaults).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import stat
from typing import Any, Callable, Iterator, Mapping, Sequence

from pacman import files
from pacman.batch.config import (
    CONFIG_FIELDS,
    FLAG_OF,
    BatchError,
    config_key,
    config_values,
    game_seed,
    is_int,
    show_value,
)

__all__ = [
    "TIMING_FIELDS",
    "deterministic_part",
    "read_results",
    "resumed_lines",
    "ResultsFile",
    "check_writable",
    "check_out",
    "write_atomically",
    "write_summary",
    "lock_results",
    "describe_mismatch",
]

#: Fields of a game line that depend on the machine, not on the seed: left out when runs are compared.
TIMING_FIELDS = ("seconds", "ms_per_move_mean", "ms_per_move_max", "move_ms", "worker", "worker_rss_mb")

#: The longest line a results file may have (a game of 100,000 moves takes about 1 MB).
_MAX_LINE_BYTES = 64 * 2**20

#: The result fields of a game line and the types each may have (None: JSON null).
_RESULT_TYPES: dict[str, tuple[type, ...]] = {
    "won": (bool,), "lost": (bool,), "cut_off": (bool,), "crashed": (bool,), "timed_out": (bool,),
    "score": (int, float, type(None)), "moves": (int, type(None)), "outcome": (str,),
}


def deterministic_part(record: Mapping[str, Any]) -> dict[str, Any]:
    """A game line without its `TIMING_FIELDS`: what must be equal across runs, jobs and executors."""
    return {key: value for key, value in record.items() if key not in TIMING_FIELDS}


def _iter_lines(path: str) -> Iterator[tuple[int, bytes, bool]]:
    """(number, line, complete) for each line of a regular file, streamed; a FIFO or device is refused unread."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise BatchError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
    except OSError as exc:
        os.close(fd)
        raise BatchError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise BatchError(f"{path}: is {files.file_kind(mode)}, not a regular file (expected a results file)")
    with open(fd, "rb") as handle:
        number = 0
        while True:
            try:
                line = handle.readline(_MAX_LINE_BYTES + 1)
            except OSError as exc:
                raise BatchError(f"{path}: cannot read: {exc.strerror or exc}") from None
            if not line:
                return
            number += 1
            if len(line) > _MAX_LINE_BYTES:
                raise BatchError(f"{path}: line {number} is longer than {_MAX_LINE_BYTES // 2**20} MB; "
                                 f"not a results file of pacman-ai batch?")
            yield number, line, line.endswith(b"\n")


def read_results(path: str | os.PathLike[str], *, repair: bool = False) -> list[dict[str, Any]]:
    """The game lines of a results file, in file order.

    A last line without its newline is what a killed run leaves behind: it is
    dropped (and with `repair`, cut from the file). Any other line that is not a
    game line is an error naming the file and line. A FIFO or device is refused.
    """
    path = os.fspath(path)
    numbered, cut = _numbered_results(path)
    if repair and cut is not None:
        _cut(path, cut)
    return [record for _, record in numbered]


def _numbered_results(path: str) -> tuple[list[tuple[int, dict[str, Any]]], int | None]:
    """(line number, game line) for every line, and where an unfinished last line starts (None if none)."""
    records = []
    cut = None
    offset = 0
    for number, line, complete in _iter_lines(path):
        if not complete:
            cut = offset
            break
        offset += len(line)
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            raise BatchError(f"{path}: line {number} is not JSON; not a results file of pacman-ai batch?") from None
        _check_line(path, number, record)
        records.append((number, record))
    return records, cut


def _cut(path: str, size: int) -> None:
    """Cut the unfinished last line a killed run left: the file keeps its first `size` bytes."""
    try:
        with open(path, "r+b") as handle:
            handle.truncate(size)
    except OSError as exc:
        raise BatchError(f"{path}: cannot cut its unfinished last line: {exc.strerror or exc}") from None


def _check_line(path: str, number: int, record: Any) -> None:
    """Refuse a line that is not a game line of ours: fields missing or of the wrong type."""
    where = f"{path}: line {number}"
    if not isinstance(record, dict):
        raise BatchError(f"{where} is not a game line (a JSON object)")
    index = record.get("index")
    if not is_int(index) or index < 0:
        raise BatchError(f"{where} is not a game line (its 'index' is {index!r}, expected an integer >= 0)")
    for name, kinds in _RESULT_TYPES.items():
        value = record.get(name)
        if name not in record or not isinstance(value, kinds) or (kinds[0] is not bool and isinstance(value, bool)):
            raise BatchError(f"{where} (game {index}): '{name}' is {value!r}; not a game line of pacman-ai batch")
    seconds = record.get("seconds")
    if seconds is not None and (not isinstance(seconds, (int, float)) or isinstance(seconds, bool)):
        raise BatchError(f"{where} (game {index}): 'seconds' is {seconds!r}, expected a number")
    for name in ("score", "seconds"):
        if isinstance(record.get(name), float) and not math.isfinite(record[name]):
            raise BatchError(f"{where} (game {index}): '{name}' is {record[name]!r}, expected a finite number")
    if (record["score"] is None) != (record["moves"] is None):
        raise BatchError(f"{where} (game {index}): a score without moves, or moves without a score")
    if record["won"] and record["lost"]:
        raise BatchError(f"{where} (game {index}): the game is both won and lost")
    if not isinstance(record.get("agent_args"), dict):
        raise BatchError(f"{where} (game {index}): 'agent_args' is {record.get('agent_args')!r}, expected an object")
    move_ms = record.get("move_ms", [])
    if not isinstance(move_ms, list) or not all(isinstance(ms, (int, float)) and not isinstance(ms, bool)
                                                for ms in move_ms):
        raise BatchError(f"{where} (game {index}): 'move_ms' is not a list of numbers")


class ResultsFile:
    """An append-only JSONL file: one whole line per game, flushed as soon as it is written.

    It is opened at the first line only, so a batch that stops before any game
    leaves the file as it was (absent, or untouched).
    """

    def __init__(self, path: str, truncate: bool) -> None:
        self.path = path
        self.truncate = truncate
        self._handle: Any = None
        self._locked: int | None = None  # the descriptor holding the inode's lock, when this file took it

    def write(self, record: Mapping[str, Any]) -> None:
        """Append one game's line and flush it."""
        line = json.dumps(record, separators=(",", ":")) + "\n"
        try:
            if self._handle is None:
                self._handle = self._open()
            self._handle.write(line)
            self._handle.flush()
        except OSError as exc:
            raise BatchError(f"{self.path}: cannot write: {exc.strerror or exc}") from None

    def _open(self) -> Any:
        """Open for appending (or truncate), locking the file's inode unless this run's lock holds it already."""
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0), 0o666)
        try:
            info = os.fstat(fd)
            if (info.st_dev, info.st_ino) not in _HELD_INODES:  # a file this run created: lock it as it is born
                _lock_inode(fd, self.path)
                self._locked = fd
            if self.truncate:
                os.ftruncate(fd, 0)
            return open(fd, "a", encoding="utf-8")
        except BaseException:
            if self._locked == fd:
                _release_inode(fd)
                self._locked = None
            os.close(fd)
            raise

    def close(self) -> None:
        """Close the file, if a line opened it."""
        if self._handle is not None:
            if self._locked is not None:
                _release_inode(self._locked)
                self._locked = None
            with contextlib.suppress(OSError):
                self._handle.close()


def check_writable(path: str | os.PathLike[str], flag: str) -> None:
    """Raise BatchError naming `flag` unless `path` can be created or replaced (`pacman.files.output_problem`).

    Checked before any game, so that a long batch never ends on a summary or a
    plot it cannot write; a FIFO or a device is refused (writing would block or
    go nowhere).
    """
    path = os.fspath(path)
    problem = files.output_problem(path)
    if problem is not None:
        shown = path if path and "\0" not in path else repr(path)
        raise BatchError(f"{flag} {shown}: {problem}")


def check_out(path: str | os.PathLike[str], *, resume: bool, overwrite: bool) -> bool:
    """Check a results file can be written, and is not an earlier run's to be clobbered; True if it has games."""
    path = os.fspath(path)
    check_writable(path, "--out")
    exists = os.path.exists(path) and os.path.getsize(path) > 0
    if exists and not (resume or overwrite):
        raise BatchError(f"--out {path}: file exists; --resume continues it, --force overwrites it")
    return exists


def write_atomically(path: str | os.PathLike[str], write: Callable[[str], None]) -> None:
    """`pacman.files.write_atomically`, with a failure to write reported as a BatchError."""
    try:
        files.write_atomically(path, write)
    except OSError as exc:
        raise BatchError(f"{os.fspath(path)}: cannot write: {exc.strerror or exc}") from None


def write_summary(path: str | os.PathLike[str], data: Any) -> None:
    """`data` as JSON in `path`, written atomically (`pacman.files.write_json`); a failure is a BatchError."""
    try:
        files.write_json(path, data)
    except OSError as exc:
        raise BatchError(f"{os.fspath(path)}: cannot write: {exc.strerror or exc}") from None


@contextlib.contextmanager
def lock_results(path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold the OS lock of a results file for a ``with`` block (the whole run that appends to it), or refuse.

    One writer per results file: a second run on the same file (a batch, a
    resumed batch, a comparison) gets a BatchError at once, naming the file and
    the process that holds it (`pacman.files.hold_lock`; the lock is
    ``FILE.lock`` beside it, released when the holder ends, even killed).

    The lock belongs to the file, not to the name it was given: the name is
    resolved first (a symbolic link locks the file it points to), and on POSIX the
    file itself, when it exists, is locked too (``flock`` on its inode, which every
    name of it shares: a hard link is refused as well). A file that does not exist
    yet is locked the same way by the run as it writes its first line
    (`ResultsFile`).

    >>> with lock_results("results.jsonl"):       # doctest: +SKIP
    ...     ...  # check, resume and append to results.jsonl
    """
    given = os.fspath(path)
    real = os.path.realpath(given)
    shown = given if real == os.path.abspath(given) else f"{given} (that is, {real})"
    with files.hold_lock(real, "results file", BatchError, shown=shown):
        fd = None
        with contextlib.suppress(OSError):
            fd = os.open(real, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        try:
            if fd is not None:
                _lock_inode(fd, given)
            yield
        finally:
            if fd is not None:
                _release_inode(fd)
                os.close(fd)


#: The inodes (device, inode) whose lock this process holds, and how many holders: `ResultsFile` does not lock
#: again what `lock_results` holds (two locks of one process on one inode would refuse each other).
_HELD_INODES: dict[tuple[int, int], int] = {}


def _lock_inode(fd: int, shown: str) -> None:
    """Lock the inode open as `fd` for this run, or BatchError naming who holds it (POSIX; elsewhere nothing)."""
    try:
        import fcntl
    except ImportError:  # Windows: the lock file beside the real path is the guard
        return
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        return  # a FIFO or device is refused by the checks that follow, naming it as such
    key = (info.st_dev, info.st_ino)
    if key in _HELD_INODES:  # this process holds it already (its own run, through one name)
        raise BatchError(f"{shown}: the results file is in use by this process (another run on the same file, "
                         f"under another name?); two runs on one file would mix their lines")
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        raise BatchError(f"{shown}: the results file is in use by {_inode_holder(info)} through another name of "
                         f"the same file (a hard or symbolic link); two runs on one file would mix their lines: "
                         f"wait for it to end, or choose another file") from None
    _HELD_INODES[key] = fd


def _release_inode(fd: int) -> None:
    with contextlib.suppress(OSError):
        info = os.fstat(fd)
        if _HELD_INODES.get((info.st_dev, info.st_ino)) == fd:
            del _HELD_INODES[(info.st_dev, info.st_ino)]


def _inode_holder(info: os.stat_result) -> str:
    """``process 4242 (pacman-ai batch ...)``: who holds the flock of this inode, from /proc/locks where there is one."""
    wanted = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as table:
            for line in table:
                fields = line.split()
                if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == wanted:
                    pid = fields[4]
                    try:
                        with open(f"/proc/{pid}/cmdline", "rb") as command:
                            words = command.read().split(b"\0")
                        shown = " ".join(" ".join(w.decode("utf-8", "replace") for w in words if w).split())[:300]
                        return f"process {pid} ({shown})"
                    except OSError:
                        return f"process {pid}"
    except OSError:
        pass
    return "another process"


def describe_mismatch(file_values: Sequence[Any], command_values: Sequence[Any]) -> list[str]:
    """What differs between a line's configuration and the command's (both `config_values`), one phrase each:
    ``--agent-args transposition=true in the file, transposition=false in the command``.

    Agent arguments are compared key by key, so that only the arguments that
    differ are named, each with both values whole; then the configurations' names.
    """
    differences = []
    for key, mine, theirs in zip(CONFIG_FIELDS, file_values, command_values):
        if mine == theirs:
            continue
        if key == "agent_args" and isinstance(mine, dict) and isinstance(theirs, dict):
            for name in sorted(set(mine) | set(theirs), key=lambda k: (k not in mine, str(k))):
                if mine.get(name, _ABSENT) == theirs.get(name, _ABSENT):
                    continue
                left = f"no {name}" if name not in mine else f"{name}={show_value(mine[name], 300)}"
                right = f"no {name}" if name not in theirs else f"{name}={show_value(theirs[name], 300)}"
                differences.append(f"--agent-args {left} in the file, {right} in the command")
            continue
        differences.append(f"{FLAG_OF[key]} {show_value(mine, 300)} in the file, "
                           f"{show_value(theirs, 300)} in the command")
    mine, theirs = (values[len(CONFIG_FIELDS)] if len(values) > len(CONFIG_FIELDS) else None
                    for values in (file_values, command_values))
    if mine != theirs:  # the name a comparison gives each side (`GameConfig.name`)
        differences.append(f"configuration name {_name(mine)} in the file, {_name(theirs)} in the command")
    return differences


def _name(value: Any) -> str:
    return "none" if value is None else show_value(repr(value), 300)


_ABSENT = object()

#: How earlier versions began the error of a game their executor failed (`pacman.batch.worker.WORKER_FAILED`).
_EXECUTOR_FAILED = "the worker failed: "


def _never_played(record: Mapping[str, Any]) -> bool:
    """A line written for a game the executor never ran (lost scheduler, cancelled future), by an earlier version.

    Only Dask's KilledWorker (the game killed every worker it ran on) is still
    written with this prefix: it is a played game's crash, like WORKER_DIED.
    """
    error = record.get("error") or ""
    return (bool(record.get("crashed")) and record.get("failed_agent") is None and error.startswith(_EXECUTOR_FAILED)
            and not error.startswith(_EXECUTOR_FAILED + "KilledWorker"))


def resumed_lines(path: str, jobs_by_key: Mapping[str, int], expected: Sequence[Mapping[str, Any]], games: int,
                  seed: int, on_repair: Callable[[str], None] | None = None) -> list[tuple[int, dict[str, Any]]]:
    """(configuration number, line) for every line of a file being resumed, after checking each of them.

    Refused, naming the line: a line that is not a game line (or not JSON), a game
    of another configuration or seed, a game index beyond `games`, a game twice.
    """
    numbered, cut = _numbered_results(path)
    agents = {e["pacman"] for e in expected}
    seen: dict[tuple[int, int], int] = {}
    kept = []
    for number, record in numbered:
        config_number = jobs_by_key.get(config_key(record, agents))
        if config_number is None:
            values = config_values(record, agents)
            named = [e for e in expected if e.get("name") is not None and e["name"] == values[-1]]
            nearest = named[0] if named else min(  # a configuration's name says which one it was meant to be
                expected, key=lambda e: sum(v != w for v, w in zip(values, config_values(e))))
            differences = describe_mismatch(values, config_values(nearest))
            names = [e["name"] for e in expected if e.get("name") is not None]
            if names and not named:  # a side of another comparison: comparing its fields to a guess says little
                differences = [d for d in differences if d.startswith(("--seed ", "--max-moves ",
                                                                        "--move-time-limit "))]
                differences.append(f"configuration name {_name(values[-1])} in the file, none of the command's "
                                   f"({', '.join(_name(n) for n in names)})")
            raise BatchError(f"{path}: line {number} (game {record['index']}) was played with another "
                             f"configuration: {'; '.join(differences)}; give the same flags, or another --out")
        index = record["index"]
        if index >= games:
            raise BatchError(f"{path}: line {number} is game {index}, beyond --games {games} (games 0-{games - 1}); "
                             f"give --games {index + 1} or more to continue this file, or another --out")
        if record.get("seed") != game_seed(seed, index):
            raise BatchError(f"{path}: line {number} (game {index}) has seed {record.get('seed')!r}, expected "
                             f"{game_seed(seed, index)}; the file was not written by this version")
        if (config_number, index) in seen:
            raise BatchError(f"{path}: line {number} is game {index} again (already on line "
                             f"{seen[config_number, index]}); a results file has each game once")
        seen[config_number, index] = number
        if _never_played(record):
            raise BatchError(f"{path}: line {number} (game {index}) is a game that was never played: its executor "
                             f"failed it ({record['error']}), and an earlier version of pacman-ai wrote it as "
                             f"crashed; delete such lines (their error starts with \"{_EXECUTOR_FAILED}\" and is "
                             f"not KilledWorker) and --resume plays those games")
        kept.append((config_number, record))
    if cut is not None:
        torn = os.path.getsize(path) - cut
        _cut(path, cut)  # only now that the file is known to be ours
        if on_repair is not None:
            on_repair(f"{path}: cut its unfinished last line ({torn:,} byte{'s' if torn != 1 else ''} after line "
                      f"{numbered[-1][0] if numbered else 0}), left by a run that was stopped while writing it; "
                      f"that game is played again")
    return kept
