"""Our process pool: worker processes that start without the caller's main module, and stopping it at once.

Worker processes of our own pool start without re-running the caller's main
module (a script needs no ``if __name__ == "__main__":`` guard), so agents and
evaluations must be importable by name (``module:Class`` or
``path/to/file.py:Class``), never ``__main__:Class``.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import functools
import multiprocessing
import os
import types
from typing import Any

from pacman.batch.lifeline import Heartbeats
from pacman.batch.worker import start_worker
from pacman.hints import caller

__all__ = ["process_pool", "stop_pool", "WorkerPool"]


# Worker processes without the parent's __main__.
#
# With the spawn and forkserver start methods, multiprocessing sends every new
# process "preparation data" naming the parent's main module, and the child runs
# that module again (as __mp_main__) before it does anything, so that objects
# pickled by reference to __main__ can be found. A batch sends only names
# (layouts, agent specs), so its workers need nothing from __main__, and running
# it again breaks an unguarded script: the script starts a batch inside every
# worker. Our pool's processes therefore get the same preparation data without
# the two main-module entries (sys.path, the working directory and the rest are
# kept). This is done by a Popen subclass whose launching method sees a `spawn`
# module that filters that data: nothing global is changed, so other pools and
# threads of the program are unaffected. Specs naming __main__ are refused in
# `validate_config` because workers cannot see it.


class _SpawnWithoutMain:
    """`multiprocessing.spawn`, except that its preparation data never names the parent's main module."""

    def __getattr__(self, name: str) -> Any:
        from multiprocessing import spawn

        return getattr(spawn, name)

    @staticmethod
    def get_preparation_data(name: str) -> dict[str, Any]:
        from multiprocessing import spawn

        data = spawn.get_preparation_data(name)
        data.pop("init_main_from_path", None)
        data.pop("init_main_from_name", None)
        return data


_START_METHOD = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


@functools.lru_cache(maxsize=None)
def _popen_without_main() -> type | None:
    """The start method's Popen class with a launcher that sends no main module; None if it cannot be made."""
    import importlib

    module_name = {"forkserver": "popen_forkserver", "spawn": "popen_spawn_posix" if os.name == "posix"
                   else "popen_spawn_win32"}[_START_METHOD]
    popen = importlib.import_module(f"multiprocessing.{module_name}").Popen
    for method in ("_launch", "__init__"):  # POSIX launches in _launch, Windows in __init__
        function = vars(popen).get(method)
        if isinstance(function, types.FunctionType) and "get_preparation_data" in function.__code__.co_names \
                and function.__globals__.get("spawn") is not None:
            launcher = types.FunctionType(function.__code__, {**function.__globals__, "spawn": _SpawnWithoutMain()},
                                          function.__name__, function.__defaults__, function.__closure__)
            launcher.__kwdefaults__ = function.__kwdefaults__
            return type(f"{popen.__name__}WithoutMain", (popen,), {method: launcher, "__module__": __name__})
    return None  # another Python: workers prepare as usual (an unguarded script then fails the worker check)


class _WorkerProcess(multiprocessing.get_context(_START_METHOD).Process):  # type: ignore[misc, name-defined]
    """A pool worker process started without the parent's main module (see the comment above)."""

    @staticmethod
    def _Popen(process_obj: Any) -> Any:
        popen = _popen_without_main()
        if popen is None:
            return multiprocessing.get_context(_START_METHOD).Process._Popen(process_obj)
        return popen(process_obj)


class _WorkerContext(type(multiprocessing.get_context(_START_METHOD))):  # type: ignore[misc]
    """The start method's context, making `_WorkerProcess` processes."""

    Process = _WorkerProcess


class WorkerPool(cf.ProcessPoolExecutor):
    """A process pool whose workers die with the batch and beat (`pacman.batch.lifeline`)."""

    def __init__(self, workers: int) -> None:
        context = _WorkerContext()
        if _START_METHOD == "forkserver":
            context.set_forkserver_preload(["pacman.batch._forkserver_guard", "pacman.batch.worker", "pacman.agents"])
        self.heartbeats = Heartbeats(context, workers)
        super().__init__(max_workers=workers, mp_context=context, initializer=start_worker,
                         initargs=(os.getpid(), self.heartbeats, caller()))

    def silent(self, seconds: float) -> list[tuple[int, float]]:
        """(pid, seconds) of the live workers that gave no sign of life for `seconds` (stopped, or hung)."""
        alive = {process.pid for process in (getattr(self, "_processes", None) or {}).values()
                 if process.exitcode is None}
        return [(pid, quiet) for pid, quiet in self.heartbeats.silent(seconds) if pid in alive]


def process_pool(workers: int) -> WorkerPool:
    """A pool of fresh processes; forked from a clean server process where the OS has one (fast, no threads)."""
    return WorkerPool(workers)


#: How long `stop_pool` waits for a stopped pool's manager thread to end (it ends as soon as its workers are
#: killed; the wait is bounded so that a stuck thread cannot hold a stop).
MANAGER_JOIN_SECONDS = 5.0


def stop_pool(pool: cf.Executor) -> None:
    """Stop a pool now: cancel queued games and kill the running ones (their results are not wanted).

    Then wait (at most MANAGER_JOIN_SECONDS) for the pool's manager thread to end. At the interpreter's exit
    CPython 3.11 wakes every such thread through a pipe the thread itself closes as it ends, without a lock
    between the two: a stop (Ctrl-C) that exits while the thread is ending printed "OSError: [Errno 9] Bad
    file descriptor" after the run's last line. A thread that has ended has its pipe marked closed first.
    """
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)  # shutdown(wait=False) forgets it
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            process.kill()
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(timeout=5)
    if manager is not None:
        with contextlib.suppress(Exception):
            manager.join(timeout=MANAGER_JOIN_SECONDS)
