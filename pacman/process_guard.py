"""Processes that end cleanly whatever stops them: the parent-death signal, and SIGTERM/SIGHUP as Ctrl-C.

Shared by batches (`pacman.batch.lifeline`), grading (`pacman.grading.sandbox`,
`pacman.grading.worker`) and the commands that write a game's files (`pacman.cli.play`,
`pacman.cli.replay`): one place decides how a run is stopped by a signal.
"""

from __future__ import annotations

import contextlib
import ctypes
import signal
import sys
import threading
from typing import Any, Iterator

__all__ = ["set_parent_death_signal", "RunSignal", "STOP_SIGNALS", "stop_on_signals"]

_PR_SET_PDEATHSIG = 1


def set_parent_death_signal(number: int = signal.SIGKILL) -> bool:
    """Ask Linux to send `number` to this process when its parent ends; False where that cannot be done."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)  # libc, loaded already: find_library would run ldconfig
        return libc.prctl(_PR_SET_PDEATHSIG, int(number), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


class RunSignal(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the run is (as Ctrl-C raises KeyboardInterrupt), so it stops the same way."""

    def __init__(self, number: int) -> None:
        super().__init__(signal.Signals(number).name)
        self.signal = number


#: The signals that stop a run as Ctrl-C does (those that exist here).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP stop what runs in the ``with`` block as Ctrl-C does: `RunSignal`, a KeyboardInterrupt.

    What ``kill PID``, a supervisor, ``subprocess.terminate()`` or a closed
    terminal sends then ends a batch like Ctrl-C: its workers stopped, every
    finished game kept, the table printed, the file ready for ``--resume``. The
    previous handlers come back at the end of the block; outside the main thread
    nothing is changed. A second signal while the run stops is not raised again.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    stopping = False

    def handler(number: int, frame: Any) -> None:
        nonlocal stopping
        if not stopping:
            stopping = True
            raise RunSignal(number)

    previous = {number: signal.signal(number, handler) for number in STOP_SIGNALS}
    try:
        yield
    finally:
        for number, old in previous.items():
            signal.signal(number, old)
