"""Ending every process a submission leaves behind, even one that left its session.

A submission can fork, call ``setsid()`` and let the fork's parent exit: the
grandchild then escapes the process group the grader kills, and could, say,
overwrite the result files after the grader has written them. On Linux a process
can declare itself a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``): such
orphans are then re-parented to it instead of to init, so it can find and kill
them. Elsewhere `become_subreaper` returns False and only the process group is
ended (the limit is documented in docs/grading.md).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

__all__ = ["become_subreaper", "children", "end_children"]

_PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Make orphaned descendants of this process its children; True if the system allows it (Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)  # libc, loaded already: find_library would run ldconfig
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def children(parent: int | None = None) -> list[int]:
    """The pids whose parent is `parent` (default: this process), read from /proc; [] where there is no /proc."""
    parent = os.getpid() if parent is None else parent
    found = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:  # gone already, or not ours to read
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after the last ')'
        fields = stat[stat.rfind(b")") + 2:].split()
        if len(fields) > 1 and int(fields[1]) == parent:
            found.append(int(name))
    return found


def end_children(keep: frozenset[int] = frozenset()) -> int:
    """SIGKILL and reap every child of this process but those in `keep`, until none is left; returns how many.

    Killing a child re-parents its own children to this process when it is a
    subreaper, so the sweep repeats until a pass finds nobody.
    """
    me = os.getpid()
    ended = 0
    for _ in range(1000):  # a bound, in case something keeps forking faster than it is killed
        targets = [pid for pid in children(me) if pid not in keep]
        if not targets:
            break
        for pid in targets:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                continue
        for pid in targets:
            try:
                os.waitpid(pid, 0)
                ended += 1
            except ChildProcessError:
                pass
    return ended
