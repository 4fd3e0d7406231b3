"""Running a submission in a child process with limits, so that nothing it does stops the grader.

The child (`pacman.grading.worker`) runs in its own session and temporary
directory (where the system allows, in a namespace of its own, `pacman.grading.jail`:
that directory a tmpfs of what is left of `WRITE_BUDGET`, the only place it can write,
so the budget is a hard cap and nothing it wrote outlives it; elsewhere the write
budget is only polled, and `SandboxRun.write_cap` says so), with a memory cap (RLIMIT_AS), a CPU-time cap (RLIMIT_CPU) and a cap
on the bytes it may write to files (RLIMIT_FSIZE). The parent holds the wall
clock: every item has its own time limit, and a child that overruns it is killed
with its whole process group. A child that dies (a crash, ``os._exit``, a signal,
the memory cap) fails the item it was running; the parent starts a fresh child for
the items after it. A submission that fails to import fails every item at once.

Results come back over a private pipe as JSON lines carrying a random nonce that
is never printed; the child's stdout and stderr go to another pipe, which the
grader drains as the child runs: what it prints is kept up to `_OUTPUT_KEPT`
characters at each end, shown in verbose reports and never parsed, and printing
however much never fails a test (nor counts as writing: it is stored nowhere). The parent only records
observations (actions, expanded nodes, game results); it computes what they are
worth itself. See ``docs/grading.md`` for what this does not protect against.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import json
import os
import secrets
import selectors
import signal
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from pacman.user_code import IMPORT_SECONDS, import_seconds
from pacman.process_guard import stop_on_signals
from pacman.errors import PacmanError
from pacman.grading import jail
from pacman.grading.forbidden import Violation
from pacman.grading.reaper import children as _children_now, end_children

__all__ = ["ItemOutcome", "SandboxRun", "SandboxError", "run_items", "check_sandbox_user", "IMPORT_TIME_LIMIT",
           "WRITE_BUDGET", "MAX_PROCESSES", "MAX_THREADS", "namespace_unavailable", "printed_line"]

#: Seconds a submission may take to import (module-level code included), from when its process starts loading it,
#: by default: past it the grader stops the import, naming the line it was on when the child last said
#: (`_ImportPlace` in `pacman.grading.worker`). The one limit of every command that imports a user's file
#: (`pacman.user_code.IMPORT_SECONDS`); `pacman.user_code.import_seconds` is the one in force (``--import-seconds``).
IMPORT_TIME_LIMIT = IMPORT_SECONDS
#: Seconds the grader's own start of a child (Python, the project's modules, the namespace) may take before it
#: loads the submission; a busy machine's slowness there is not the submission's import time.
_STARTUP_LIMIT = 30.0
#: CPU seconds (all threads and processes together) a submission's process may use before its first item; each
#: item started adds its time limit.
IMPORT_CPU_LIMIT = 10.0
#: Bytes of messages a child may send before it is stopped (expansion logs included).
_MESSAGE_LIMIT = 64 << 20
#: Characters of captured output kept for the report (head and tail).
_OUTPUT_KEPT = 2000
#: Bytes read from the output pipe at a time.
_OUTPUT_CHUNK = 1 << 20
#: Seconds allowed between items (reporting one, starting the next).
_BETWEEN_ITEMS = 5.0
#: Forbidden-import attempts kept per item.
_MAX_VIOLATIONS = 20


#: Processes the sandbox user may run at once (RLIMIT_NPROC), with --sandbox-user only.
_SANDBOX_PROCESSES = 64
#: Bytes a submission's processes may write in all, over every test of a grading (files and pipes; its messages to
#: the grader and its printed output, which the grader drains and stores nowhere, left out): the total the grader's
#: watch enforces, beside the per-file RLIMIT_FSIZE.
WRITE_BUDGET = 32 << 20
#: Processes a submission may have at once, counted by the grader's watch (with or without --sandbox-user).
MAX_PROCESSES = 16
#: Threads one process of the submission may run at once: the grader's (the item's, a game's agent thread) and
#: a few of its own. Busy threads would otherwise stretch every item to its time limit, within RLIMIT_CPU.
MAX_THREADS = 4
#: Seconds between two looks of the watch at the submission's processes (CPU time, writes, processes, sockets).
_WATCH_EVERY = 0.05
#: CPU seconds past its allowance before the watch stops the submission: a wall-clock limit reached at the same
#: moment (a busy loop of one thread at import) is the one reported.
_CPU_SLACK = 0.5


class SandboxError(PacmanError):
    """The sandbox cannot be set up as asked (e.g. a --sandbox-user that cannot run Python)."""


def _user_ids(user: str) -> tuple[int, int]:
    import pwd

    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        raise SandboxError(f"sandbox user {user!r} does not exist") from None
    if os.geteuid() != 0:
        raise SandboxError(f"sandbox user {user!r}: running submissions as another user needs root")
    return entry.pw_uid, entry.pw_gid


def check_sandbox_user(user: str) -> None:
    """Check that Python and this project run as `user`; SandboxError saying why not."""
    uid, gid = _user_ids(user)
    code = f"import sys; sys.path[:0] = {_package_roots()!r}; import pacman.grading.worker"
    try:
        done = subprocess.run([sys.executable, *CHILD_PYTHON_FLAGS, "-c", code], user=uid, group=gid, extra_groups=[],
                              cwd="/", env=_child_env("/"), capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as exc:
        raise SandboxError(f"sandbox user {user!r} cannot run {sys.executable}: {exc}") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no error output"])[-1]
        raise SandboxError(f"sandbox user {user!r} cannot run {sys.executable} with this project "
                           f"(make it and its packages readable by that user): {last}")


@dataclass
class ItemOutcome:
    """What happened to one item in the submission's process."""

    ok: bool
    """The item ran to the end; `data` holds what the child observed."""
    data: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    """Why the item failed: the submission's exception, a time-out, the process dying, a forbidden import."""
    seconds: float = 0.0
    violations: list[dict[str, Any]] = field(default_factory=list)
    """Forbidden imports the submission attempted during the item, as its process reported them."""
    where: str | None = None
    """Where in the submission's file the `error` came from (``FILE:LINE in FUNCTION: SOURCE``), when the error's
    own text does not say: an unfinished method (``raiseNotDefined()``: "not implemented: getAction"), a game's
    crash; None otherwise."""


@dataclass
class SandboxRun:
    """Every item's outcome, in order, plus what the submission printed."""

    outcomes: list[ItemOutcome]
    output: str
    """The submission's stdout and stderr, truncated (`output_cut`); for humans only."""
    processes: int
    """Child processes started (one, plus one after each that died or was killed)."""
    seconds: float
    import_error: str | None = None
    """Why the submission could not be imported, if it could not (every item then failed with it)."""
    violations: list[dict[str, Any]] = field(default_factory=list)
    """Forbidden imports attempted while the submission was imported (every item then failed with them)."""
    limits: list[str] = field(default_factory=list)
    """One line per limit the submission hit (disk, CPU, processes, sockets), for the report."""
    written: int = 0
    """Bytes the submission's processes wrote in all (files, pipes; its messages to the grader and its printed output
    left out); all
    of `write_budget` once the space of its namespace was full (the grading's budget is then used up)."""
    write_cap: str | None = None
    """None if what the submission could store was capped exactly (its namespace, `pacman.grading.jail`); else the
    report line saying the write budget was only polled, and why."""
    printed: int = 0
    """Bytes the submission's processes printed (stdout and stderr), all of it read and dropped but for `output`."""
    output_cut: bool = False
    """Whether `output` leaves part of what was printed out (it keeps `_OUTPUT_KEPT` characters at each end)."""
    defines: list[str] | None = None
    """The public names the submission's module defines once imported (its first process says), None if it was
    not imported or did not say."""
    loaded: bool = True
    """Whether the submission's code started to run (its process began loading it): False when the grader's own
    start of the process failed first (`import_error` then says so; it is not the submission's)."""

    @property
    def import_failed(self) -> str | None:
        """Why the submission's own module-level code could not be imported (an exception, an exit, its process
        ending, `IMPORT_TIME_LIMIT`), or None: imported, stopped at import by a grading limit (one of `limits`)
        or a forbidden import (`violations`), which reports list apart, or never loaded (`loaded`)."""
        if self.import_error is None or self.violations or self.import_error in self.limits or not self.loaded:
            return None
        return self.import_error


def _package_roots() -> list[str]:
    """Where the child finds `pacman` (pacman.agents comes with it: inside it in a wheel, through the editable finder in a checkout)."""
    import pacman

    return [str(Path(pacman.__file__).resolve().parent.parent)]


#: How every Python the grader starts for a submission is run: isolated (-I: no user site, no PYTHON* variable, so
#: _child_env's PYTHONDONTWRITEBYTECODE alone would not hold) and writing no bytecode cache (-B). A cache written by
#: the child, even of the grader's own modules in a fresh checkout, is a file its processes wrote outside its folder,
#: and the watch would report it as the submission's.
CHILD_PYTHON_FLAGS = ("-I", "-B")


def _child_env(home: str) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "TMPDIR": home,
           "LANG": os.environ.get("LANG", "C.UTF-8"), "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1",
           "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    return env


#: Bytes of the write budget kept out of the submission's tmpfs: what its stand-in writes itself (how the submission
#: ended, a few bytes), so that a full tmpfs is never "over the budget".
_JAIL_SLACK = 4096
#: What one look of the watch can miss: a flood measured at 5 to 13 MB past the budget between two looks.
POLLED_OVERSHOOT = "up to what its processes write in 0.05 s (5 to 13 MB measured)"


def _jail_command(mode: str, spec: dict[str, Any]) -> list[str]:
    return [sys.executable, *CHILD_PYTHON_FLAGS, "-S", str(Path(jail.__file__).resolve()), mode, json.dumps(spec)]


def _inside_ids(ids: tuple[int, int]) -> tuple[int, int]:
    """The ids the submission has inside its namespace: its own, except root's (1000 there: never root inside,
    so that it has no capability once the worker is executed)."""
    return ids[0] or 1000, ids[1] or 1000


@functools.lru_cache(maxsize=8)
def namespace_unavailable(ids: tuple[int, int] | None = None) -> str | None:
    """None if submissions (run as `ids`, else as this process's user) can be put in their own namespace here
    (`pacman.grading.jail`: the write budget a hard cap, nothing writable outside); else why not, in a few words.

    Tried once per process and user (about 0.1 s): a namespace is made, a file written inside it, one beside it
    refused."""
    if not sys.platform.startswith("linux"):
        return f"not Linux ({sys.platform})"
    with tempfile.TemporaryDirectory(prefix="pacman-grade-probe-") as folder:
        home = os.path.join(folder, "home")
        os.mkdir(home)
        as_user: dict[str, Any] = {}
        if ids is not None:
            os.chmod(folder, 0o711)
            os.chown(home, *ids)
            as_user = {"user": ids[0], "group": ids[1], "extra_groups": []}
        uid, gid = _inside_ids(ids or (os.geteuid(), os.getegid()))
        spec = {"grader": os.getpid(), "scratch": folder, "home": home, "size": 1 << 20, "inodes": 64,
                "uid": uid, "gid": gid}
        try:
            done = subprocess.run(_jail_command("probe", spec), cwd="/", env=_child_env(home), capture_output=True,
                                  text=True, timeout=30, **as_user)
        except (OSError, subprocess.SubprocessError) as exc:
            return f"the probe did not run: {exc}"
    if done.returncode == 0:
        return None
    lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
    reason = lines[-1] if lines else f"the probe exited with status {done.returncode}"
    return reason.removeprefix("pacman-ai jail: the submission's namespace cannot be set up: ")


def _filled_line(size: int) -> str:
    return (f"disk: the submission's processes filled the {_megabytes(size)} they may write (what was left of the "
            f"{_megabytes(WRITE_BUDGET)} write budget of a grading, all its processes together; further writes "
            f"failed with 'no space left on device'): stopped")


def _polled_line(reason: str, user: bool = False) -> str:
    """The report line of a grading without a namespace: the budget polled; what it wrote outside its folder
    listed (removed too with --sandbox-user, `user`)."""
    where = ("files it writes outside its folder can be found only in the shared temporary folders (removed there)"
             if user else "files it writes outside its folder are listed, not removed")
    if not os.path.isdir(f"/proc/{os.getpid()}"):  # no watch either (`_Watch.enabled`)
        return (f"write budget: not enforced here (no namespace for the submission: {reason}; no /proc for the "
                f"grader to watch its processes): only the 8 MB cap per file holds")
    return (f"write budget: enforced by polling, not as a hard cap (no namespace for the submission here: {reason}):"
            f" it can overshoot the {_megabytes(WRITE_BUDGET)} budget by {POLLED_OVERSHOOT} before it is stopped, "
            f"and {where}")


@dataclass
class _Usage:
    """What the submission's processes have done so far, as /proc shows it."""

    pids: list[int]
    cpu: float
    """CPU seconds of every thread of every process (those ended and reaped by a live one included)."""
    written: int
    """Bytes written by write calls (files, pipes, output), reaped processes included."""
    sockets: int
    files: list[str]
    """Regular files they hold open for writing."""
    threads: int = 0
    """The most threads one of the processes runs."""


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _proc_tree(root: int) -> list[int]:
    """`root` and every live descendant of it, from /proc (setsid() does not hide a process from its parent)."""
    parents: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return [root]
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        fields = data[data.rfind(b")") + 2:].split()
        if len(fields) > 1:
            parents.setdefault(int(fields[1]), []).append(int(name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(parents.get(pid, []))
    return found


def _usage(root: int, scratch: str) -> _Usage:
    """The CPU time, bytes written, sockets and open output files of `root`'s process tree."""
    pids = _proc_tree(root)
    cpu, written, sockets, files, threads = 0.0, 0, 0, [], 0
    for pid in pids:
        try:
            threads = max(threads, len(os.listdir(f"/proc/{pid}/task")))
            with open(f"/proc/{pid}/stat", "rb") as handle:
                data = handle.read()
            fields = data[data.rfind(b")") + 2:].split()
            cpu += sum(int(value) for value in fields[11:15]) / _TICKS  # utime stime cutime cstime
            with open(f"/proc/{pid}/io", "rb") as handle:
                for line in handle:
                    if line.startswith(b"wchar:"):
                        written += int(line.split()[1])
        except (OSError, ValueError, IndexError):
            continue
        try:
            descriptors = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in descriptors:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:"):
                sockets += 1
            elif target.startswith("/") and not target.startswith((scratch + os.sep, "/proc/")) and len(files) < 100:
                # /proc: not a file left behind (the jail writes its namespace's id maps there)
                try:
                    with open(f"/proc/{pid}/fdinfo/{fd}", "rb") as handle:
                        flags = int(handle.read().split(b"flags:")[1].split()[0], 8)
                except (OSError, ValueError, IndexError):
                    continue
                if flags & (os.O_WRONLY | os.O_RDWR) and target not in files and os.path.isfile(target):
                    files.append(target)
    return _Usage(pids, cpu, written, sockets, files, threads)


def _own_written() -> int | None:
    """Bytes this process and the children it reaped have written (Linux /proc/self/io), None where unknown."""
    try:
        with open("/proc/self/io", "rb") as handle:
            for line in handle:
                if line.startswith(b"wchar:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def _started(pid: int) -> int | None:
    """When process `pid` started (clock ticks since boot, /proc), to tell it from a later process with its pid."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            data = handle.read()
        return int(data[data.rfind(b")") + 2:].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def _tagged(pids: list[int]) -> list[tuple[int, int | None]]:
    return [(pid, _started(pid)) for pid in pids]


def _end_tree(processes: list[tuple[int, int | None]]) -> None:
    """SIGKILL each (pid, start) still the same process (a pid seen earlier may have been reused since)."""
    for pid, start in processes:
        if start is None or _started(pid) != start:
            continue
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _megabytes(count: int) -> str:
    return f"{count / 2**20:.1f} MB"



def _exit_reason(code: int | None, memory_mb: int) -> str:
    if code is None:
        return "the submission's process did not end"
    if code < 0:
        number = -code
        if number == signal.SIGXCPU:
            return "the submission's process used up its CPU time limit and was stopped"
        if number == signal.SIGSEGV:
            return "the submission's process crashed (segmentation fault: unbounded recursion?)"
        if number == signal.SIGKILL:
            return (f"the submission's process was killed (SIGKILL: by itself, or out of memory; "
                    f"the cap is {memory_mb} MB)")
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return f"the submission's process was stopped by {name}"
    return f"the submission's process exited with status {code} (os._exit, or exit at shutdown)"


def _kill(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.kill()
    except ProcessLookupError:
        pass
    process.wait()


def printed_line(printed: int, cut: int, unit: str) -> str | None:
    """The report's limits line when the report's copy of what the submission printed was cut (in `cut` of its
    `unit`s: tests, questions), else None. Printing itself is never a failure: all of it is read, and dropped.

    >>> printed_line(5_000_000, 2, "test")[:44]
    'output: the submission printed 4.8 MB (5,000'
    """
    if not cut:
        return None
    return (f"output: the submission printed {printed / 2**20:.1f} MB ({printed:,} bytes); the report keeps the "
            f"first and last {_OUTPUT_KEPT:,} characters of what each {unit} printed (cut in {cut} "
            f"{unit}{'s' if cut != 1 else ''}; printing never fails a test)")


def _clip(text: str) -> str:
    if len(text) <= 2 * _OUTPUT_KEPT:
        return text
    return f"{text[:_OUTPUT_KEPT]}\n... ({len(text) - 2 * _OUTPUT_KEPT} characters left out) ...\n{text[-_OUTPUT_KEPT:]}"


def run_items(
    source: str,
    path: str,
    items: list[dict[str, Any]],
    time_limits: list[float],
    memory_mb: int = 1024,
    user: str | None = None,
    loader: str = "module",
    forbid_imports: tuple[str, ...] = (),
    write_budget: int = WRITE_BUDGET,
) -> SandboxRun:
    """Run `items` against the submission (`source`, read from `path`) in child processes.

    `time_limits[i]` is the wall-clock limit of item i in seconds. With `user`
    (needs root) the submission runs as that user, who then cannot write the
    grader's files or signal the grader, and may run at most 64 processes.
    `loader` is ``"module"`` (our assignments) or ``"classic"`` (a classic CS188
    file, loaded with the classic API on its import path). The modules of
    `forbid_imports` are unloaded and refused in the child (`pacman.grading.forbidden`):
    an item during which the submission tries one fails, the attempt in its
    `violations`. `write_budget` is what is left of `WRITE_BUDGET` for this run (the
    grader passes what earlier tests left). The submission's processes together
    are held to the time limits in CPU time, to the write budget, to
    `MAX_PROCESSES` and to no socket (`_Watch`); each limit hit fails the item it
    happened in and is a line of `SandboxRun.limits`. Where `namespace_unavailable`
    finds no reason against it, each child runs in its own namespace (the write
    budget a hard cap); else `SandboxRun.write_cap` is the report line saying the
    budget was only polled. SIGTERM and SIGHUP stop this
    call as Ctrl-C does: the child and every process it started are killed and the
    temporary folders removed before the exception goes on. Always returns one
    outcome per item, whatever the submission does.
    """
    ids = _user_ids(user) if user is not None else None
    if write_budget <= 0:  # used up by earlier tests of this grading: nothing more of the submission runs
        reason = (f"not run: the submission used up the {_megabytes(WRITE_BUDGET)} write budget of the grading in "
                  f"earlier tests")
        return SandboxRun([ItemOutcome(False, error=reason) for _ in items], "", 0, 0.0)
    with stop_on_signals(), _undumpable():  # stopped by a signal: the finally blocks end the child, remove the folder
        return _run_items(source, path, items, time_limits, memory_mb, ids, loader, forbid_imports, write_budget)


def _run_items(source: str, path: str, items: list[dict[str, Any]], time_limits: list[float], memory_mb: int,
               ids: tuple[int, int] | None, loader: str, forbid_imports: tuple[str, ...],
               write_budget: int) -> SandboxRun:
    started = time.perf_counter()
    ours = frozenset(_children_now())
    outcomes: list[ItemOutcome | None] = [None] * len(items)
    output_parts: list[str] = []
    processes = 0
    first = 0
    import_error = None
    import_violations: list[dict[str, Any]] = []
    limits: list[str] = []
    outside: list[str] = []
    written = 0
    printed = 0
    output_cut = False
    defines: list[str] | None = None
    loaded = True
    roots = _package_roots()
    unavailable = namespace_unavailable(ids)  # None: each child in its own namespace, its writes capped exactly
    with tempfile.TemporaryDirectory(prefix="pacman-grade-") as scratch:
        if ids is not None:
            os.chmod(scratch, 0o711)  # the sandbox user may enter its own folder, not list the others
        while first < len(items):
            processes += 1
            home = tempfile.mkdtemp(prefix="run-", dir=scratch)
            if ids is not None:
                os.chown(home, *ids)
            before = _own_written()
            try:
                status = _run_child(source, path, items, time_limits, first, outcomes, memory_mb, roots, home,
                                    ids, loader, forbid_imports, scratch, write_budget - written,
                                    unavailable is None)
            finally:
                # Orphans of a killed stand-in come here when this process is a subreaper (as `pacman-ai grade`
                # is); on the way out of a signal too.
                end_children(keep=ours)
            after = _own_written()
            # Everything the child's processes wrote, counted by the kernel as they were reaped (into this process's
            # figures): exact, where the watch only samples.
            # What it printed is left out: the grader drained it and stored only the ends.
            printed += status.output.total
            output_cut = output_cut or status.output.cut
            if defines is None:
                defines = status.defines
            child_written = max(status.sampled_written, (after - before - status.job_bytes - status.received
                                                         - status.output.total)
                                if before is not None and after is not None else 0)
            if status.filled:  # its space was full (maybe seen only once it ended): the grading's budget is used up
                child_written = max(child_written, write_budget - written)
                if status.limit is None or not status.limit.startswith("disk:"):
                    status.limit = _filled_line(status.filled)
                    if status.current is not None:
                        status.reason = status.limit
                    elif status.fatal is not None:
                        status.fatal = status.limit
            written += child_written
            outside.extend(f for f in status.files if f not in outside)
            if ids is not None:
                outside.extend(f for f in _remove_files_of(ids[0], scratch) if f not in outside)
            if written > write_budget and (status.limit is None or status.limit.startswith("disk: the submission's "
                                                                                         "processes wrote")):
                # Said with the kernel's exact count (the watch stops it within one look, _WATCH_EVERY s).
                total = WRITE_BUDGET - write_budget + written
                status.limit = (f"disk: the submission's processes wrote {_megabytes(total)} in this grading, over "
                                f"its {_megabytes(WRITE_BUDGET)} write budget (files and pipes, all its processes "
                                f"together): stopped")
                if status.current is not None:
                    status.reason = status.limit
                elif status.fatal is not None:
                    status.fatal = status.limit
            if status.limit is not None:
                limits.append(status.limit)
            if status.output.total:
                output_parts.append(status.output.text())
            if status.fatal is not None:  # the submission cannot be imported: nothing else can run
                import_error = status.fatal
                loaded = status.loading
                import_violations = status.violations
                for i in range(first, len(items)):
                    if outcomes[i] is None:
                        outcomes[i] = ItemOutcome(False, error=status.fatal, violations=list(status.violations))
                break
            if status.current is not None:
                outcomes[status.current] = ItemOutcome(False, error=status.reason, seconds=status.current_seconds)
            progressed = first
            while progressed < len(items) and outcomes[progressed] is not None:
                progressed += 1
            if status.limit is not None and status.current is None:  # gone over between items, or found after
                for i in range(first, progressed):  # the child's items: which of them wrote it cannot be told
                    # An item that failed on the full disk before the watch's next look failed for the limit too.
                    if outcomes[i] is not None and (outcomes[i].ok or (i in status.no_space
                                                                       and status.limit.startswith("disk:"))):
                        outcomes[i] = ItemOutcome(False, error=status.limit, seconds=outcomes[i].seconds)
            if progressed == first:  # died between items without starting one: count it against the next
                outcomes[first] = ItemOutcome(False, error=status.reason)
                progressed += 1
            first = progressed
    if outside:
        shown = ", ".join(outside[:5]) + (f" and {len(outside) - 5} more" if len(outside) > 5 else "")
        what = ("removed, with every file of the sandbox user in the shared temporary folders" if ids is not None
                else "left in place, and maybe others the grader did not see open: only with --sandbox-user can "
                     "the grader find and remove them")
        limits.append(f"disk: the submission wrote files outside its folder: {shown} ({what})")
    final = [o if o is not None else ItemOutcome(False, error="not run") for o in outcomes]
    output = "".join(output_parts)
    return SandboxRun(final, _clip(output), processes, time.perf_counter() - started, import_error,
                      import_violations, limits, written,
                      None if unavailable is None else _polled_line(unavailable, ids is not None),
                      printed=printed, output_cut=output_cut or len(output) > 2 * _OUTPUT_KEPT, defines=defines,
                      loaded=loaded)


@contextlib.contextmanager
def _undumpable() -> Iterator[None]:
    """While submissions run, this process is not dumpable (Linux): a submission running as the same user cannot
    read its /proc/PID/environ (the grader's secrets), nor trace it. Restored afterwards."""
    libc = None
    previous = 1
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)  # libc, loaded already: find_library would run ldconfig
            previous = libc.prctl(_PR_GET_DUMPABLE, 0, 0, 0, 0)
            if previous < 0 or libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
                libc = None
        except (OSError, AttributeError):
            libc = None
    try:
        yield
    finally:
        if libc is not None:
            libc.prctl(_PR_SET_DUMPABLE, previous, 0, 0, 0)


_PR_GET_DUMPABLE, _PR_SET_DUMPABLE = 3, 4
#: Where any user may write: the files the sandbox user left there are the submission's, removed after each run.
_SHARED_TEMPORARY = ("/tmp", "/var/tmp", "/dev/shm")


def _remove_files_of(uid: int, scratch: str | None = None) -> list[str]:
    """Remove the files and folders owned by `uid` (the sandbox user) in the shared temporary folders, except in the
    grader's `scratch` folder (the submission's own, which the grader removes); their paths."""
    removed = []
    for top in _SHARED_TEMPORARY:
        if not os.path.isdir(top):
            continue
        for folder, dirs, names in os.walk(top, topdown=False):
            for name in names + dirs:
                full = os.path.join(folder, name)
                if scratch is not None and (full == scratch or full.startswith(scratch + os.sep)):
                    continue
                try:
                    info = os.lstat(full)
                    if info.st_uid != uid:
                        continue
                    if stat.S_ISDIR(info.st_mode):
                        os.rmdir(full)
                    else:
                        os.remove(full)
                    if len(removed) < 100:
                        removed.append(full)
                except OSError:
                    continue
    return removed


@dataclass
class _ChildStatus:
    fatal: str | None = None
    current: int | None = None
    current_seconds: float = 0.0
    reason: str = ""
    violations: list[dict[str, Any]] = field(default_factory=list)
    """Forbidden imports attempted while the submission was imported."""
    received: int = 0
    """Bytes of messages read from the child (written by it, not part of its write budget)."""
    job_bytes: int = 0
    """Bytes the grader wrote to the child (its job)."""
    limit: str | None = None
    """The report line of the limit the child hit (it was stopped for it), if any."""
    files: list[str] = field(default_factory=list)
    """Files outside its folder that the watch saw the submission hold open for writing."""
    sampled_written: int = 0
    """The most the watch saw it had written (a floor where the kernel's count misses processes init reaped)."""
    stored: int | None = None
    """In a namespace: the bytes its tmpfs held when it ended (None without a namespace, or if not told)."""
    filled: int = 0
    """In a namespace: the size of its tmpfs if it was full when it ended, else 0."""
    no_space: set[int] = field(default_factory=set)
    """Items that failed on a full disk (ENOSPC): the disk limit's, when the grader finds its space was full."""
    output: _Output = field(default_factory=lambda: _Output())
    """What its processes printed (kept at both ends, counted)."""
    import_at: str | None = None
    """Where the submission's import last was, as its process said (``line N: SOURCE``)."""
    loading: bool = False
    """Its process said it is loading the submission (what ends or stops it from then on is the submission's)."""
    defines: list[str] | None = None
    """The public names of the submission's module, as its process said once it was imported."""


class _Watch:
    """Stops a child whose processes, together, go over a limit: CPU time, bytes written, processes, sockets.

    RLIMIT_CPU and RLIMIT_FSIZE are per process (and per file): sixteen busy
    threads, forty files or forty processes each stay under them. The grader
    therefore looks at the whole tree of the submission's processes every
    `_WATCH_EVERY` seconds (Linux /proc): its CPU time over every thread, from when
    it starts loading the submission, may not exceed the time limits of the items
    started so far plus `IMPORT_CPU_LIMIT`, its
    bytes written may not exceed what is left of `WRITE_BUDGET`, it may run at most
    `MAX_PROCESSES` processes of at most `MAX_THREADS` threads each, and it may open
    no socket.
    """

    def __init__(self, root: int, scratch: str, write_allowance: int, space: str | None = None) -> None:
        self.root, self.scratch, self.write_allowance = root, scratch, write_allowance
        # In a namespace (`pacman.grading.jail`): the tmpfs on the submission's folder, seen through the jail's
        # /proc/PID/root; the jail is a process of the grader's too, beside the stand-in.
        self.space = None if space is None else f"/proc/{root}/root{space}"
        self.own = 1 if space is None else 2
        self.filled = 0  # the size of that tmpfs, once the watch has seen it full
        self.cpu_allowed = IMPORT_CPU_LIMIT
        self.cpu_before = 0.0  # CPU seconds of the grader's start of the child, before it loaded the submission
        self.files: list[str] = []
        self.pids: list[tuple[int, int | None]] = []  # (pid, start) of the tree at the last look
        self.written = 0  # the most the submission had written at any look
        self._next = 0.0
        self.enabled = os.path.isdir(f"/proc/{os.getpid()}")

    def started(self, limit: float) -> None:
        self.cpu_allowed += limit

    def loading(self) -> None:
        """The child starts to load the submission: the CPU time used so far (Python's start, the grader's
        modules) is not the submission's; and the import's wall-clock limit, which starts now, acts first on a
        busy import of one thread (`_CPU_SLACK`)."""
        if self.enabled:
            self.cpu_before = _usage(self.root, self.scratch).cpu

    def check(self, received: int) -> str | None:
        """The report line of the limit gone over, if one is (the caller stops the tree), else None."""
        now = time.monotonic()
        if not self.enabled or now < self._next:
            return None
        self._next = now + _WATCH_EVERY
        usage = _usage(self.root, self.scratch)
        self.pids = _tagged(usage.pids)
        self.files.extend(f for f in usage.files if f not in self.files)
        written = usage.written - received
        self.written = max(self.written, written)
        if self.space is not None:
            try:
                info = os.statvfs(self.space)
            except OSError:
                info = None
            if info is not None and info.f_bfree == 0 and info.f_blocks > 0:
                self.filled = info.f_blocks * info.f_frsize
                return _filled_line(self.filled)
        if written > self.write_allowance:
            return (f"disk: the submission's processes wrote more than {_megabytes(self.write_allowance)}, what "
                    f"was left of the {_megabytes(WRITE_BUDGET)} write budget of a grading (files and pipes, "
                    f"all its processes together): stopped")
        if usage.cpu - self.cpu_before > self.cpu_allowed + _CPU_SLACK:
            return (f"CPU: the submission's processes used {usage.cpu - self.cpu_before:.1f} s of CPU time (all "
                    f"their threads together), more than the {self.cpu_allowed:g} s its time limits allow: stopped "
                    f"(busy threads or processes?)")
        if usage.threads > MAX_THREADS:
            return (f"CPU: the submission ran {usage.threads} threads in one process, more than {MAX_THREADS} (busy "
                    f"threads would stretch every test to its time limit): stopped")
        if len(usage.pids) > MAX_PROCESSES + self.own:  # the stand-in process (and the jail) are the grader's
            return (f"processes: the submission ran {len(usage.pids) - self.own} processes at once, more than "
                    f"{MAX_PROCESSES}: stopped")
        if usage.sockets:
            return (f"sockets: the submission opened {usage.sockets} socket{'s' if usage.sockets != 1 else ''} "
                    f"(no network, no local servers while grading): stopped")
        return None


def _run_child(source: str, path: str, items: list[dict], time_limits: list[float], first: int,
               outcomes: list[ItemOutcome | None], memory_mb: int, roots: list[str], home: str,
               ids: tuple[int, int] | None, loader: str = "module",
               forbid_imports: tuple[str, ...] = (), scratch: str = "",
               write_allowance: int = WRITE_BUDGET, namespace: bool = False) -> _ChildStatus:
    nonce = secrets.token_hex(16)
    read_fd, write_fd = os.pipe()
    todo = list(range(first, len(items)))
    cpu = sum(time_limits[i] for i in todo) + import_seconds() + 5
    job = {"nonce": nonce, "fd": write_fd, "source": source, "path": path, "memory_mb": memory_mb,
           "cpu_seconds": cpu, "items": [(i, items[i]) for i in todo],
           "processes": _SANDBOX_PROCESSES if ids is not None else None, "loader": loader,
           "forbid_imports": list(forbid_imports), "scratch": scratch, "grader": os.getpid(),
           "namespace": namespace}
    # No name of the grader's is bound in __main__, where a submission could pick it up.
    bootstrap = (f"import sys; sys.path[:0] = {roots!r}; "
                 "__import__('pacman.grading.worker', fromlist=['main']).main()")
    command = [sys.executable, *CHILD_PYTHON_FLAGS, "-c", bootstrap]
    report_read = report_write = -1
    if namespace:
        report_read, report_write = os.pipe()  # the jail makes the namespace, then runs the worker in it (the tmpfs: the write budget, exactly)
        inside = _inside_ids(ids or (os.geteuid(), os.getegid()))
        command = _jail_command("run", {"grader": os.getpid(), "scratch": scratch, "home": home,
                                        "size": max(write_allowance - _JAIL_SLACK, 4096),
                                        "inodes": max(64, write_allowance >> 12),
                                        "uid": inside[0], "gid": inside[1], "report_fd": report_write}) + command
    status = _ChildStatus()
    as_user: dict[str, Any] = {}
    if ids is not None:
        as_user = {"user": ids[0], "group": ids[1], "extra_groups": []}
    # What it prints goes to a pipe the grader drains (`_Output`), not to a file: printing is never a failed
    # write, whatever the amount, and it is stored nowhere.
    output_read, output_write = os.pipe()
    os.set_blocking(output_read, False)
    try:
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=output_write, stderr=output_write,
            cwd=home, env=_child_env(home), pass_fds=(write_fd,) if report_write < 0 else (write_fd, report_write), start_new_session=True, **as_user,
        )
    except BaseException:
        os.close(output_read)
        raise
    finally:
        os.close(output_write)
    os.close(write_fd)
    if report_write >= 0:
        os.close(report_write)
    watch = _Watch(process.pid, scratch or home, write_allowance, home if namespace else None)
    try:
        try:
            data = (json.dumps(job) + "\n").encode()
            status.job_bytes = len(data)
            process.stdin.write(data)
            process.stdin.close()
        except BrokenPipeError:
            pass
        _read_messages(process, read_fd, nonce, time_limits, outcomes, memory_mb, status,
                       lambda found: _violation_error(found, path, forbid_imports), watch, output_read)
    finally:
        status.files = watch.files
        status.sampled_written = watch.written
        os.close(read_fd)
        try:
            process.wait(timeout=1.0)  # after "done" the child exits by itself: let it
        except subprocess.TimeoutExpired:
            pass
        # Every process of the tree, those that left the session included, whether the child ended by itself,
        # was stopped by a limit, or the grader is being stopped (a signal): none outlives this call.
        _end_tree((_tagged(_proc_tree(process.pid)) if watch.enabled and process.poll() is None else [])
                  + watch.pids)
        if process.poll() is None:
            _kill(process)
        # The session may have left processes behind (a submission that forked): end them too.
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            _drain_rest(output_read, status.output)  # every writer is gone: what is left in the pipe, then its end
        finally:
            os.close(output_read)
        status.filled = watch.filled
        if report_read >= 0:  # the jail has ended: what its tmpfs held at the end, exactly
            try:
                used, size = (int(value) for value in os.read(report_read, 100).split())
                status.stored = used
                status.filled = size if used >= size else status.filled
            except (OSError, ValueError):
                pass
            os.close(report_read)
    return status


def _read_messages(process: subprocess.Popen, read_fd: int, nonce: str, time_limits: list[float],
                   outcomes: list[ItemOutcome | None], memory_mb: int, status: _ChildStatus,
                   forbidden_error: Callable[[list[dict[str, Any]]], str], watch: _Watch | None = None,
                   output_fd: int | None = None) -> None:
    selector = selectors.DefaultSelector()
    selector.register(read_fd, selectors.EVENT_READ)
    if output_fd is not None:
        selector.register(output_fd, selectors.EVENT_READ)
    buffer = b""
    received = 0
    ready = False
    item_started = time.perf_counter()
    deadline = time.monotonic() + _STARTUP_LIMIT  # then IMPORT_TIME_LIMIT, once it loads the submission
    limit_text = ""  # "": the import's own, which names the line it was on (`_import_limit_text`)
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                _kill(process)
                if not ready:
                    status.fatal = (_import_limit_text(status.import_at) if status.loading else
                                    f"the grader's process for the submission did not start within "
                                    f"{_STARTUP_LIMIT:g} s (a busy machine?)")
                else:
                    status.reason = limit_text
                    if status.current is not None:
                        status.current_seconds = time.perf_counter() - item_started
                return
            events = selector.select(timeout=min(left, _WATCH_EVERY if watch is not None else 1.0))
            # Printed output is drained first: it is not the submission's writing (the watch leaves it out).
            if output_fd is not None and any(key.fd == output_fd for key, _ in events):
                if not _drain(output_fd, status.output):
                    selector.unregister(output_fd)
                    output_fd = None
            # Messages before the watch's look: a limit hit just after "ready" or "start" is the item's, not the
            # import's.
            chunk = os.read(read_fd, 1 << 16) if any(key.fd == read_fd for key, _ in events) else None
            ended = chunk == b""  # the child closed the pipe: it has ended
            if chunk:
                received += len(chunk)
                status.received = received
                if received > _MESSAGE_LIMIT:
                    _kill(process)
                    status.reason = f"the submission's process sent more than {_MESSAGE_LIMIT >> 20} MB of results"
                    return
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    message = _decode(line, nonce)
                    if message is None:
                        continue  # not ours: a submission writing to the pipe without the nonce
                    event = message.get("event")
                    if event == "loading" and not status.loading:
                        status.loading = True
                        deadline = time.monotonic() + import_seconds()
                        if watch is not None:
                            watch.loading()
                    elif event == "importing" and not ready:
                        status.import_at = _import_place(message)
                    elif event == "import_error":
                        status.violations = _violations(message)
                        status.fatal = (forbidden_error(status.violations) if status.violations
                                        else f"the submission could not be imported: {message.get('error')}")
                        return
                    if event == "ready":
                        ready = True
                        deadline = time.monotonic() + _BETWEEN_ITEMS
                        found = message.get("defines")
                        if isinstance(found, list):
                            status.defines = [name for name in found if isinstance(name, str)]
                    elif event == "start" and _valid_item(message.get("item"), outcomes):
                        status.current = message["item"]
                        if watch is not None:
                            watch.started(time_limits[status.current])
                        item_started = time.perf_counter()
                        deadline = time.monotonic() + time_limits[status.current]
                        limit_text = f"took longer than the {time_limits[status.current]:g} s time limit"
                    elif event == "result" and message.get("item") == status.current and status.current is not None:
                        violations = _violations(message)
                        where = message.get("where")
                        outcomes[status.current] = ItemOutcome(
                            bool(message.get("ok")) and not violations, data=message.get("data") or {},
                            error=forbidden_error(violations) if violations else message.get("error"),
                            seconds=float(message.get("seconds", 0.0)), violations=violations,
                            where=where[:300] if isinstance(where, str) and not violations else None)
                        if message.get("no_space") is True and not outcomes[status.current].ok:
                            status.no_space.add(status.current)
                        status.current = None
                        deadline = time.monotonic() + _BETWEEN_ITEMS
                        limit_text = "the submission's process hung between two tests"
                    elif event == "done":
                        return
            hit = None if watch is None else watch.check(received + status.output.total)
            if hit is not None:
                _end_tree(watch.pids)
                _kill(process)
                status.limit = status.reason = hit
                if not ready:
                    status.fatal = hit
                elif status.current is not None:
                    status.current_seconds = time.perf_counter() - item_started
                return
            if ended:
                break
    finally:
        selector.close()
    try:
        code = process.wait(timeout=max(0.5, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        _kill(process)
        code = process.returncode
    reason = _exit_reason(code, memory_mb)
    if not ready and status.loading:
        status.fatal = f"the submission's process ended while importing the submission: {reason}"
    elif not ready:  # the grader's own start failed (its output says how)
        said = [line.strip() for line in status.output.text().splitlines() if line.strip()]
        status.fatal = (f"the grader's process for the submission ended before loading it (exit status {code})"
                        + (f": {said[-1][:200]}" if said else ""))
    else:
        status.reason = reason
        if status.current is not None:
            status.current_seconds = time.perf_counter() - item_started


def _import_place(message: dict) -> str | None:
    """Where the submission's import is, as its process said (`pacman.grading.worker`): ``line N[ in F]: SOURCE``."""
    line, function, source = message.get("line"), message.get("function"), message.get("source")
    if not isinstance(line, int) or isinstance(line, bool) or line < 1:
        return None
    inside = f" in {function[:80]}" if isinstance(function, str) and function != "<module>" else ""
    code = f": {source.strip()[:80]}" if isinstance(source, str) and source.strip() else ""
    return f"line {line}{inside}{code}"


def _import_limit_text(place: str | None) -> str:
    """Why an import was stopped at its time limit (`import_seconds`), with the line it was on (`place`) when
    known."""
    where = f"stopped at {place}" if place else "a loop at import?"
    return (f"importing the submission took longer than {import_seconds():g} s, the time limit of its "
            f"module-level code ({where}; --import-seconds allows more)")


class _Output:
    """What the submission prints, read from its pipe as it comes: the first and last bytes kept, the rest
    counted and dropped."""

    def __init__(self, head: int = 4 * _OUTPUT_KEPT, tail: int = 4 * _OUTPUT_KEPT) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self._head_size, self._tail_size = head, tail

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self._head_size - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if len(chunk) >= self._tail_size:
            self.tail = bytearray(chunk[-self._tail_size:])
        elif chunk:
            self.tail += chunk
            del self.tail[:max(0, len(self.tail) - self._tail_size)]

    @property
    def cut(self) -> bool:
        """Whether some of it was dropped."""
        return self.total > len(self.head) + len(self.tail)

    def text(self) -> str:
        head, tail = self.head.decode("utf-8", "replace"), self.tail.decode("utf-8", "replace")
        if not self.cut:
            return head + tail
        return f"{head}\n... ({self.total - len(self.head) - len(self.tail)} bytes left out) ...\n{tail}"


def _drain(fd: int, output: _Output, chunks: int = 8) -> bool:
    """Read what the (non-blocking) output pipe holds, at most `chunks` reads (so that a flood does not hold up the
    grader's clock); False once it is closed."""
    for _ in range(chunks):
        try:
            chunk = os.read(fd, _OUTPUT_CHUNK)
        except BlockingIOError:
            return True
        except OSError:
            return False
        if not chunk:
            return False
        output.add(chunk)
    return True


def _drain_rest(fd: int, output: _Output, seconds: float = 1.0) -> None:
    """After the child's processes have ended: what is left in the output pipe, until its end (or, if a process
    that escaped still holds it open, until it has been quiet for a moment or `seconds` passed)."""
    end = time.monotonic() + seconds
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while time.monotonic() < end:
            if not selector.select(timeout=0.1) or not _drain(fd, output):
                return


def _violations(message: dict) -> list[dict[str, Any]]:
    """The forbidden imports a message reports (dicts; `pacman.grading.forbidden.Violation` checks them)."""
    found = message.get("violations")
    return [v for v in found if isinstance(v, dict)][:_MAX_VIOLATIONS] if isinstance(found, list) else []


def _violation_error(violations: list[dict[str, Any]], path: str, rules: tuple[str, ...]) -> str:
    """The error of an item during which the submission tried a forbidden import: the first attempt."""
    for attempt in violations:
        violation = Violation.from_attempt(attempt, os.path.basename(path), rules)
        if violation is not None:
            return f"forbidden import: {violation.message}"
    return "forbidden import (its report is unreadable)"


def _valid_item(index: Any, outcomes: list[ItemOutcome | None]) -> bool:
    return isinstance(index, int) and 0 <= index < len(outcomes) and outcomes[index] is None


def _decode(line: bytes, nonce: str) -> dict | None:
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(message, dict) or not secrets.compare_digest(str(message.get("nonce", "")), nonce):
        return None
    return message
