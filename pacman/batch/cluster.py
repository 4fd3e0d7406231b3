"""Batches on Dask: `dask_executor` makes a `concurrent.futures` executor on a scheduler or a local cluster.

Dask is an optional extra (``pip install -e '.[dask]'``), imported only here,
when a cluster is asked for.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import signal
from typing import Iterator

from pacman.batch.config import BatchError, default_jobs

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
    with contextlib.ExitStack() as stack:
        if address == "local":
            count = workers or default_jobs()
            with _sigint_ignored_by_children():
                cluster = stack.enter_context(LocalCluster(
                    n_workers=count, threads_per_worker=1, processes=True, host="127.0.0.1",
                    dashboard_address=None, silence_logs=logging.ERROR))
            client = stack.enter_context(Client(cluster, timeout=f"{timeout}s"))
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
        executor = client.get_executor(pure=False)
        try:
            yield executor, threads, description
        finally:
            executor.shutdown(wait=False)

