"""Imported by the batch pool's forkserver only (a preload module of `pacman.batch.pool`): it dies with the batch.

The forkserver is the parent of every pool worker; with the parent-death signal
set here and in each worker (`pacman.batch.lifeline`), the kernel ends the whole
chain when the batch ends, even killed with SIGKILL. A worker the forkserver was
still starting when the batch ended (Ctrl-C) dies without a traceback: the
batch prints what was kept. Importing this module in any other process does
nothing.
"""

from __future__ import annotations

import os
import sys
import types


def _in_forkserver() -> bool:
    main = sys.modules.get("__main__")
    return ("multiprocessing.forkserver" in sys.modules and sys.argv[:1] == ["-c"]
            and getattr(main, "__file__", None) is None)


def _batch_is_gone(kind: type[BaseException], trace: types.TracebackType | None) -> bool:
    """True for the error of a worker that starts after its batch ended: the batch's locks, which the new process
    rebuilds by name from its start data, were already removed (a Ctrl-C while the pool was starting a worker)."""
    if not issubclass(kind, FileNotFoundError):
        return False
    while trace is not None:
        code = trace.tb_frame.f_code
        if code.co_name == "__setstate__" and code.co_filename.endswith(os.path.join("multiprocessing",
                                                                                   "synchronize.py")):
            return True
        trace = trace.tb_next
    return False


def _quiet_when_batch_is_gone(kind: type[BaseException], value: BaseException,
                              trace: types.TracebackType | None) -> None:
    """The forkserver's children report an error raised before the worker's own code runs with this hook: nothing
    for a worker whose batch is gone (its Ctrl-C message is the batch's to print), the usual traceback otherwise."""
    if not _batch_is_gone(kind, trace):
        sys.__excepthook__(kind, value, trace)


if _in_forkserver():  # no watchdog thread here: the forkserver forks, and it ends by itself when the batch closes
    from pacman.batch.lifeline import set_parent_death_signal  # its pipe; this covers it being stopped or stuck

    set_parent_death_signal()
    sys.excepthook = _quiet_when_batch_is_gone  # the forked children inherit it
