"""Imported by the batch pool's forkserver only (a preload module of `pacman.batch.pool`): it dies with the batch.

The forkserver is the parent of every pool worker; with the parent-death signal
set here and in each worker (`pacman.batch.lifeline`), the kernel ends the whole
chain when the batch ends, even killed with SIGKILL. Importing this module in any
other process does nothing.
"""

from __future__ import annotations

import sys


def _in_forkserver() -> bool:
    main = sys.modules.get("__main__")
    return ("multiprocessing.forkserver" in sys.modules and sys.argv[:1] == ["-c"]
            and getattr(main, "__file__", None) is None)


if _in_forkserver():  # no watchdog thread here: the forkserver forks, and it ends by itself when the batch closes
    from pacman.batch.lifeline import set_parent_death_signal  # its pipe; this covers it being stopped or stuck

    set_parent_death_signal()
