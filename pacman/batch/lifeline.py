"""Worker processes that die with the batch, and show they are alive: `die_with`, `Heartbeats`.

A batch's worker processes must never outlive it, however it ends (SIGKILL
included): an orphan keeps running games nobody reads, holds memory, and holds
the batch's stdout and stderr open, so that ``pacman-ai batch ... | tee log``
never ends. Two guards, both in the worker:

- the Linux parent-death signal (``prctl(PR_SET_PDEATHSIG, SIGKILL)``, through
  ctypes): the kernel kills the process when its parent ends. A pool worker's
  parent is the forkserver, whose own parent is the batch; the forkserver gets
  the same guard (`pacman.batch._forkserver_guard`), so the chain holds;
- a watchdog thread that watches the batch's process itself (a pidfd where
  Linux has one, else polling its pid every half second) and ends the worker
  with ``os._exit`` when it is gone; it covers systems without prctl and the
  moment before the parent-death signal is set.

The same thread beats: every half second it writes the time into the pool's
shared `Heartbeats`, so the batch notices a worker that stopped (SIGSTOP) or
hangs with the interpreter locked, kills it and replays its games elsewhere
(`pacman.batch.runner`).

`stop_on_signals` (from `pacman.process_guard`) makes SIGTERM and SIGHUP stop a
run as Ctrl-C does, so that its clean-up runs whatever stopped it.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
from typing import Any

from pacman.process_guard import STOP_SIGNALS, RunSignal, set_parent_death_signal, stop_on_signals

__all__ = ["die_with", "set_parent_death_signal", "Heartbeats", "BEAT_SECONDS", "RunSignal", "stop_on_signals",
           "STOP_SIGNALS"]


#: Seconds between two beats of a worker (and two looks at its batch's process).
BEAT_SECONDS = 0.5

def _process_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # it exists (another user's: a reused pid, which the pidfd rules out where there is one)
        return False
    return False


def die_with(pid: int, beat: Any = None) -> None:
    """End this process (``os._exit``) as soon as process `pid` ends; call `beat()` every `BEAT_SECONDS` meanwhile.

    Sets the parent-death signal when `pid` is this process's parent, then
    starts a daemon thread. A `pid` already gone ends this process at once.
    """
    if os.getppid() == pid:
        set_parent_death_signal()
    pidfd = None
    if hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(pid)
        except ProcessLookupError:
            os._exit(1)
        except OSError:  # an old kernel: poll the pid
            pidfd = None
    if pidfd is None and _process_gone(pid):
        os._exit(1)

    def watch() -> None:
        while True:
            if beat is not None:
                with contextlib.suppress(Exception):
                    beat()
            if pidfd is not None:
                ready, _, _ = select.select([pidfd], [], [], BEAT_SECONDS)
                if ready:  # a pidfd is readable once its process has ended
                    os._exit(1)
            else:
                time.sleep(BEAT_SECONDS)
                if _process_gone(pid):
                    os._exit(1)

    threading.Thread(target=watch, name="pacman-batch-lifeline", daemon=True).start()


class Heartbeats:
    """A shared table of (pid, time of last beat) slots, one per worker of a pool.

    Made in the batch with the pool's multiprocessing context, given to each
    worker when it starts (`claim`), read by the batch (`silent`). Times are
    ``time.monotonic()``, one clock for every process of the machine.
    """

    def __init__(self, context: Any, slots: int) -> None:
        self.slots = slots
        # No lock on the table: a worker killed while it beats must never leave the batch waiting for a lock. Each
        # slot has one writer, and a double is stored in one aligned 8-byte write; only claiming a slot is locked.
        self.table = context.RawArray("d", 2 * slots)
        self.claiming = context.Lock()

    def claim(self) -> Any:
        """In a worker: take a free slot for this process; returns the function that beats in it (None if full)."""
        pid = os.getpid()
        if not self.claiming.acquire(timeout=5):  # a worker killed while claiming: do without a heartbeat
            return None
        try:
            for slot in range(self.slots):
                if self.table[2 * slot] == 0:
                    self.table[2 * slot + 1] = time.monotonic()
                    self.table[2 * slot] = pid
                    break
            else:
                return None
        finally:
            self.claiming.release()
        table = self.table

        def beat() -> None:
            table[2 * slot + 1] = time.monotonic()

        return beat

    def silent(self, seconds: float) -> list[tuple[int, float]]:
        """(pid, seconds since its last beat) of every worker that has not beaten for `seconds`."""
        now = time.monotonic()
        values = list(self.table)
        return [(int(values[2 * slot]), now - values[2 * slot + 1]) for slot in range(self.slots)
                if values[2 * slot] and now - values[2 * slot + 1] > seconds]
