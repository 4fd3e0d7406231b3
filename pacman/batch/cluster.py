"""Batches on Dask: `dask_executor` makes a `concurrent.futures` executor on a scheduler or a local cluster.

Dask is an optional extra (``pip install -e '.[dask]'``), imported only here,
when a cluster is asked for.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import os
import signal
from typing import Any, Iterator

from pacman.batch.config import BatchError, default_jobs
from pacman.hints import caller, calling

__all__ = ["dask_executor"]


@contextlib.contextmanager
def _sigint_ignored_by_children() -> Iterator[None]:
    """Start processes that ignore Ctrl-C (an ignored signal stays ignored in a child), as our pool workers do.

    A Ctrl-C at the terminal reaches every process of the group; the parent alone
    should act on it, closing the cluster in order, rather than every Dask worker
    dying with a traceback of its own.
    """
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: nothing to do, nothing to restore
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def dask_executor(address: str, *, workers: int | None = None,
                  timeout: float = 5.0) -> Iterator[tuple[cf.Executor, int, str]]:
    """A `concurrent.futures` executor on a Dask cluster, with its number of worker threads and a description.

    `address` is a scheduler (``tcp://host:8786``), or ``local`` for a
    `LocalCluster` of `workers` single-threaded processes on the loopback
    interface, shut down on exit. Every worker must have this project installed.
    An unreachable scheduler is a BatchError after `timeout` seconds.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise BatchError("--dask needs Dask: install the dask extra: pip install -e '.[dask]'") from None
    import logging

    logging.getLogger("distributed").setLevel(logging.ERROR)
    # Its "failed to reconnect to scheduler" is ours to say, in one line with what to do next.
    logging.getLogger("distributed.client").setLevel(logging.CRITICAL)
    logging.getLogger("tornado.application").setLevel(logging.CRITICAL)  # the same loss, as tracebacks of callbacks
    with contextlib.ExitStack() as stack:
        if address == "local":
            count = workers or default_jobs()
            with _sigint_ignored_by_children():
                cluster = stack.enter_context(LocalCluster(
                    n_workers=count, threads_per_worker=1, processes=True, host="127.0.0.1",
                    dashboard_address=None, silence_logs=logging.CRITICAL))  # its close is noisy
            client = stack.enter_context(Client(cluster, timeout=f"{timeout}s"))
            # A batch killed outright (SIGKILL) cannot close its cluster: its workers end themselves then.
            client.register_plugin(_parent_watch(os.getpid()))
            description = f"Dask LocalCluster, {count} worker{'s' if count != 1 else ''}"
        else:
            try:
                client = stack.enter_context(Client(address, timeout=f"{timeout}s"))
            except Exception as exc:  # refused, timed out, or something that is not a scheduler answered
                if isinstance(exc, ValueError):
                    raise BatchError(f"--dask {address}: not a scheduler address (expected tcp://HOST:PORT, or "
                                     f"local)") from None
                if isinstance(exc, (OSError, TimeoutError)):
                    detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                    raise BatchError(f"--dask {address}: cannot reach a Dask scheduler within {timeout:g} s "
                                     f"({detail})") from None
                raise BatchError(f"--dask {address}: what answered there is not a Dask scheduler "
                                 f"({type(exc).__name__})") from None
            description = f"Dask scheduler {address}"
            try:
                client.wait_for_workers(1, timeout=timeout)
            except Exception:  # distributed raises TimeoutError (of asyncio or its own, depending on the version)
                raise BatchError(f"--dask {address}: the scheduler has no worker (none joined within {timeout:g} s); "
                                 f"start some with: dask worker {address}") from None
        threads = sum(client.nthreads().values()) or 1
        description += f", {threads} thread{'s' if threads != 1 else ''}"
        executor = _DaskExecutor(client, "the local Dask cluster" if address == "local"
                                 else f"the Dask scheduler {address}")
        try:
            yield executor, threads, description
        finally:
            with contextlib.suppress(Exception):  # a lost scheduler may refuse even this
                executor.shutdown(wait=False)
            if executor.lost() is not None:  # nothing to close in order: do not wait for a scheduler that is gone
                with contextlib.suppress(Exception):
                    client.close(timeout=1)


def _as_caller(command: str, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)` with refusals naming `command`'s flags (`pacman.hints`): what a Dask worker runs."""
    with calling(command):
        return fn(*args, **kwargs)


#: Seconds between a local worker's looks at whether the batch that started it is still there.
PARENT_WATCH_SECONDS = 0.5


def _parent_watch(parent: int) -> Any:
    """A Dask worker plugin that ends its worker process once process `parent` (the batch) is gone.

    A LocalCluster's workers are the batch's children; a batch that is killed
    outright leaves them running, holding its output pipes, with no scheduler.
    """
    from distributed.diagnostics.plugin import WorkerPlugin

    class ParentWatch(WorkerPlugin):
        name = "pacman-ai-parent-watch"

        def setup(self, worker: Any) -> None:
            import threading
            import time

            def watch() -> None:
                # Its parent's exit gives the worker another parent at once (a killed batch stays a zombie, which
                # signal 0 would still find, until whoever started it reaps it).
                while os.getppid() == parent:
                    time.sleep(PARENT_WATCH_SECONDS)
                os._exit(0)

            threading.Thread(target=watch, name="pacman-ai parent watch", daemon=True).start()

    return ParentWatch()


class _DaskExecutor(cf.Executor):
    """A Dask client's executor that can say when its scheduler is lost (`lost`, asked by the batch runner).

    Dask keeps a client whose scheduler has gone trying to reconnect (for the
    client's timeout), then closes it; the games in flight are cancelled and new
    ones wait forever. The runner asks `lost` and stops the run at once instead.
    """

    def __init__(self, client: Any, name: str) -> None:
        self._client = client
        self._executor = client.get_executor(pure=False)
        self._name = name

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> cf.Future:
        # The work runs in a worker's thread: it names the flags of the command that asked (pacman.hints).
        return self._executor.submit(_as_caller, caller(), fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._executor.shutdown(wait=wait)

    def lost(self) -> str | None:
        """Why the scheduler can no longer run games (its connection lost, the client closed), or None."""
        status = getattr(self._client, "status", "running")
        status = getattr(status, "name", status)  # an enum in some versions of distributed
        if str(status) in ("running", "newly-created"):
            return None
        state = "reconnecting" if status == "connecting" else status
        return f"lost the connection to {self._name} (the client is {state}: did the scheduler stop?)"

