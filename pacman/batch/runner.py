"""Running a batch: `run_batch` sends the games to workers, retries games whose worker died, writes each line.

Games run on any `concurrent.futures.Executor`: our process pool (the default),
a Dask cluster (`pacman.batch.cluster.dask_executor`), or anything else that can
pickle `play_game`. Jobs are made one at a time as workers free up, so memory
before the first game does not grow with the number of games.

**A batch that cannot run stops.** Before any game, one worker must answer a
check (it started, imported the project and loaded the layouts) within
`WORKER_START_TIMEOUT` seconds. Then, if the first `FAILURE_WINDOW` games a run
plays of one configuration (all of them, when fewer are left) all fail outside
the agent's play with the identical message (the game could not be set up on
the worker, the worker process died on its first run and on its retry, the
executor failed), before any game of that configuration ended otherwise, the
batch stops with a BatchError quoting that message, and those lines are not
written. A game whose agent raises, exits or overruns its time is that game's
result, never a batch failure; failures that differ, or that follow a game
played, are recorded as crashed games and the batch goes on.

**A game that was not played is never a line.** `play_game` never raises for
the agent, so an error from the executor means the game did not run: it is sent
again (up to `EXECUTOR_TRIES` times), and an executor that says it is lost (a
``lost()`` method, as `pacman.batch.cluster`'s Dask executor has) or cancels the
games stops the run at once: `BatchResult.interrupted`, with `stopped_by` saying
why, and the games that finished kept. Workers of our pool that give no sign of
life for `stall_timeout` seconds are killed and their games replayed
(`pacman.batch.lifeline`).
"""

from __future__ import annotations

import collections
import contextlib
import concurrent.futures as cf
import os
import signal
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from pacman.batch.config import (
    MAX_CONFIGURATIONS,
    BatchError,
    GameConfig,
    GameJob,
    base_record,
    check_batch_numbers,
    config_key,
    default_jobs,
    is_int,
    is_loading_agents,
    show_value,
    validate_config,
)
from pacman.process_guard import RunSignal, stop_on_signals
from pacman.batch.pool import process_pool, stop_pool
from pacman.batch.results import ResultsFile, check_out, check_writable, lock_results, resumed_lines
from pacman.batch.summary import summarize_batch, varying_fields
from pacman.batch.worker import (
    WORKER_DIED,
    WORKER_FAILED,
    failed_outside_agent,
    failed_record,
    failure_text,
    is_worker,
    play_game,
    worker_check,
)

__all__ = ["BatchResult", "run_batch", "stop_on_signals", "RunSignal", "FAILURE_WINDOW", "WORKER_START_TIMEOUT",
           "STALL_TIMEOUT", "EXECUTOR_TRIES"]

#: How many first games failing identically outside the agent stop a batch.
FAILURE_WINDOW = 5
#: Seconds a worker has to start and answer the check before any game is sent.
WORKER_START_TIMEOUT = 60.0
#: Seconds a worker of our pool may give no sign of life (stopped, or stuck holding the interpreter) before it is
#: killed and its games are played again elsewhere.
STALL_TIMEOUT = 60.0
#: Times a game is sent to an executor that fails it without playing it before the run stops.
EXECUTOR_TRIES = 3

_NESTED = ("run_batch was called while {where}: the file that defines the agent (or evaluation) starts a batch "
           "when it is imported; put that call under if __name__ == \"__main__\":, or the agent in a file of its own")


@dataclass
class BatchResult:
    """The games of a batch, finished ones only, sorted by configuration then index."""

    configs: list[GameConfig]
    """The configurations played, in order."""
    games: int
    """Games planned per configuration."""
    seed: int
    """The batch seed."""
    records: list[dict[str, Any]] = field(default_factory=list)
    """Every finished game's line (resumed ones included)."""
    played: int = 0
    """Games played by this run (not read back from a resumed file)."""
    seconds: float = 0.0
    """Wall-clock seconds of this run."""
    interrupted: bool = False
    """True when the run stopped before every game finished: Ctrl-C, SIGTERM, SIGHUP, or its executor lost."""
    stopped_by: str = ""
    """Why an interrupted run stopped: ``SIGINT``, ``SIGTERM``, ``SIGHUP``, or what happened to its executor."""
    stop_signal: int | None = None
    """The number of the signal that stopped the run (None if none did)."""
    executor: str = ""
    """What ran the games, e.g. ``process pool, 2 workers``."""
    retried: int = 0
    """Games replayed because their worker process died."""

    @property
    def complete(self) -> bool:
        """Every planned game of every configuration has its line."""
        return not self.interrupted and len(self.records) == self.games * len(self.configs)

    def records_of(self, config_index: int) -> list[dict[str, Any]]:
        """The lines of one configuration, by index."""
        key = config_key(base_record(GameJob(config_index, self.configs[config_index], 0, self.seed)))
        return [r for r in self.records if config_key(r) == key]

    def summary(self) -> dict[str, Any]:
        """The batch's summary: per configuration under ``configurations``; with one, its figures at the top too.

        `seconds` and `games_per_second` at the top are this run's wall clock and
        the games it played per second of it. ``agent_args`` are the effective
        arguments; ``label`` names the configuration by the arguments as given.
        """
        return summarize_batch(self)


def run_batch(
    configs: GameConfig | Sequence[GameConfig],
    games: int,
    seed: int = 0,
    *,
    jobs: int | None = None,
    executor: cf.Executor | None = None,
    out: str | os.PathLike[str] | None = None,
    resume: bool = False,
    overwrite: bool = False,
    on_game: Callable[[dict[str, Any]], None] | None = None,
    on_resume: Callable[[Sequence[dict[str, Any]]], None] | None = None,
    on_note: Callable[[str], None] | None = None,
    stall_timeout: float | None = STALL_TIMEOUT,
) -> BatchResult:
    """Play `games` games of every config and return their lines and summary.

    Games run in a pool of `jobs` worker processes (default: the cores), or on the
    given `executor` (which the caller owns; `jobs` then says how many games to
    keep in flight). With `out`, each game's line is appended to that JSONL file as
    it finishes; an existing file is refused unless `resume` (play only the
    missing games, after checking every line of the file) or `overwrite`.
    `on_resume` is called once before any game with the lines read back from a
    resumed file (an empty list otherwise), and `on_game` with every new line, in
    this process (for progress). The results file is locked for the whole run
    (`pacman.batch.results.lock_results`): a second run on the same file, in any
    process, is refused at its start with a BatchError naming the first. A resumed
    file's unfinished last line (left by a run that was killed while writing) is
    cut, and `on_note` is told so in a sentence (default: a warning).

    A worker process that dies mid-game has its game retried once in a fresh
    process, then recorded as crashed; the batch goes on. A batch whose workers
    cannot start, or whose first games all fail the same way outside the agent,
    raises BatchError (see the module's docstring). Ctrl-C (and SIGTERM or SIGHUP
    inside `stop_on_signals`) stops the workers and returns what finished, with
    `interrupted` set and `stop_signal` the signal's number; so does a lost
    executor (`stopped_by` says what happened; nothing is written for the games it
    did not finish), or a BatchError if nothing at all was played or resumed. A
    worker of our pool silent for `stall_timeout` seconds (None: never) is killed
    and its games replayed, `on_note` told.

    >>> result = run_batch(GameConfig.create("test", "greedy"), games=4, jobs=1)   # doctest: +SKIP
    >>> result.summary()["win_rate"]                                              # doctest: +SKIP
    1.0
    """
    if isinstance(configs, GameConfig):
        configs = [configs]
    configs = list(configs)
    if not configs:
        raise BatchError("no configuration to play")
    if len(configs) > MAX_CONFIGURATIONS:
        raise BatchError(f"{len(configs):,} configurations: a batch plays at most {MAX_CONFIGURATIONS:,}")
    check_batch_numbers(games, seed, jobs if executor is None else None, len(configs))
    if jobs is not None and (not is_int(jobs) or jobs < 1):
        raise BatchError(f"--jobs must be a positive integer, got {jobs!r}")
    # A script that defines its agent and runs the batch, unguarded, and names itself as the agent's file
    # would be imported again here, and start this batch again, and so on: stop at the first repetition.
    if is_worker() or is_loading_agents():
        raise BatchError(_NESTED.format(where="a batch worker imported it" if is_worker()
                                        else "the batch imported it"))
    configs = [validate_config(config) for config in configs]
    jobs_by_key: dict[str, int] = {}
    expected = []
    for number, config in enumerate(configs):
        base = base_record(GameJob(number, config, 0, seed))
        key = config_key(base)
        if key in jobs_by_key:
            raise BatchError(f"the same configuration is listed twice: {config.label()} "
                             f"(its agent arguments with their defaults: {show_value(config.effective_agent_args)})")
        jobs_by_key[key] = number
        expected.append(base)

    with contextlib.ExitStack() as stack:
        if out is not None:
            check_writable(out, "--out")  # a missing folder is named as such, not as a lock that cannot be made
            stack.enter_context(lock_results(out))  # held until the last line is written
        return _run_locked(configs, games, seed, jobs, executor, out, resume, overwrite, on_game, on_resume,
                           on_note, jobs_by_key, expected, stall_timeout)


def _run_locked(configs: list[GameConfig], games: int, seed: int, jobs: int | None, executor: cf.Executor | None,
                out: str | os.PathLike[str] | None, resume: bool, overwrite: bool,
                on_game: Callable[[dict[str, Any]], None] | None,
                on_resume: Callable[[Sequence[dict[str, Any]]], None] | None,
                on_note: Callable[[str], None] | None, jobs_by_key: dict[str, int],
                expected: list[dict[str, Any]], stall_timeout: float | None) -> BatchResult:
    """`run_batch` once its configurations are checked and its results file (if any) is locked."""
    result = BatchResult(configs=list(configs), games=games, seed=seed)
    note = (lambda text: warnings.warn(text, stacklevel=5)) if on_note is None else on_note
    finished: set[tuple[int, int]] = set()
    results_file = None
    if out is not None:
        out = os.fspath(out)
        exists = check_out(out, resume=resume, overwrite=overwrite)
        if exists and resume:
            for number, record in resumed_lines(out, jobs_by_key, expected, games, seed, on_repair=note):
                finished.add((number, record["index"]))
                result.records.append(record)
        results_file = ResultsFile(out, truncate=not resume)
    if on_resume is not None:
        on_resume(list(result.records))
    remaining = games * len(configs) - len(finished)
    # Game by game across the configurations: a sweep that is stopped early has about as many games of each,
    # and the rate (the ETA) reflects the mix of slow and fast configurations from the start.
    todo = (GameJob(number, config, index, seed) for index in range(games)
            for number, config in enumerate(configs) if (number, index) not in finished)

    def record_line(record: dict[str, Any]) -> None:
        if results_file is not None:
            results_file.write(record)
        result.records.append(record)
        result.played += 1
        if on_game is not None:
            on_game(record)

    done_of = collections.Counter(number for number, _ in finished)
    windows = [min(FAILURE_WINDOW, games - done_of[number]) for number in range(len(configs))]
    labels = [config.label(varying_fields(configs)) if len(configs) > 1 else "" for config in configs]
    watch = _FailureWatch(windows, labels, lambda record: jobs_by_key[config_key(record)], record_line)
    started = time.perf_counter()
    try:
        if remaining:
            _run_jobs(todo, remaining, watch, result, jobs=jobs, executor=executor, configs=configs,
                      stall_timeout=stall_timeout, note=note)
        elif executor is None:
            result.executor = "nothing to play"
    except KeyboardInterrupt as exc:
        result.interrupted = True
        result.stop_signal = getattr(exc, "signal", signal.SIGINT)
        result.stopped_by = signal.Signals(result.stop_signal).name
        watch.release()
    except _RunStopped as exc:
        if not result.records and not any(watch.held.values()):  # nothing played, nothing resumed: no run at all
            raise BatchError(f"the batch cannot run: {exc}") from None
        result.interrupted = True
        result.stopped_by = str(exc)
        watch.release()
    finally:
        result.seconds = time.perf_counter() - started
        if results_file is not None:
            results_file.close()
    order = dict(jobs_by_key)
    result.records.sort(key=lambda r: (order[config_key(r)], r["index"]))
    return result


class _FailureWatch:
    """Holds back the first lines of each configuration while they all failed the same way outside the agent.

    When a configuration's `windows[n]` first lines all did, the batch cannot run:
    BatchError. The first line of that configuration that differs (a game played,
    or another failure) releases them.
    """

    def __init__(self, windows: Sequence[int], labels: Sequence[str], config_of: Callable[[dict[str, Any]], int],
                 record_line: Callable[[dict[str, Any]], None]) -> None:
        self.windows, self.labels, self.config_of, self.record_line = windows, labels, config_of, record_line
        self.held: dict[int, list[dict[str, Any]]] = {number: [] for number in range(len(windows))}

    def __call__(self, record: dict[str, Any]) -> None:
        number = self.config_of(record)
        held = self.held.get(number)
        if held is not None:
            if failed_outside_agent(record) and (not held or held[0]["error"] == record["error"]):
                held.append(record)
                if len(held) >= self.windows[number]:
                    count = "the only game to play" if len(held) == 1 else f"the first {len(held)} games"
                    of = f" of {self.labels[number]}" if self.labels[number] else ""
                    why = record["error"]
                    if why == WORKER_DIED:  # nothing but the agent runs in a worker that is known to start
                        why += (f" (does the Pacman agent {record.get('pacman')!r} end its process, with "
                                f"os._exit or by running out of memory?)")
                    raise BatchError(f"the batch cannot run: {count}{of} failed the same way before any game was "
                                     f"played: {why}")
                return
            self.release(number)
        self.record_line(record)

    def release(self, number: int | None = None) -> None:
        """Write the held lines of configuration `number` (of all, if None) and stop watching it."""
        for key in list(self.held) if number is None else [number]:
            for record in self.held.pop(key, []):
                self.record_line(record)


def _check_workers(pool: cf.Executor, configs: Sequence[GameConfig], own: bool) -> None:
    """Ask one worker to start, import the project and load the layouts; BatchError if it cannot."""
    layouts = sorted({config.layout for config in configs})
    where = "worker processes" if own else "workers"
    try:
        future = pool.submit(worker_check, layouts)
        problem = future.result(timeout=WORKER_START_TIMEOUT)
    except cf.BrokenExecutor:
        raise BatchError(f"the batch cannot run: its {where} exit as soon as they start (any message of theirs "
                         f"is above)") from None
    except cf.TimeoutError:
        raise BatchError(f"the batch cannot run: no worker answered within {WORKER_START_TIMEOUT:g} s") from None
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        raise BatchError(f"the batch cannot run: its {where} failed: {failure_text(exc)}") from None
    if problem is not None:
        raise BatchError(f"the batch cannot run: {problem}")


class _RunStopped(Exception):
    """The run cannot go on (its executor is lost, a game stalls twice): what finished is kept, nothing is made up."""


def _executor_lost(executor: cf.Executor) -> str | None:
    """Why `executor` can no longer run games, if it says so (an executor's optional ``lost()`` method)."""
    lost = getattr(executor, "lost", None)
    if not callable(lost):
        return None
    try:
        return lost()
    except Exception as exc:  # asking failed: that is an answer too
        return f"the executor cannot be asked whether it runs ({failure_text(exc)})"


def _is_killed_worker(exc: BaseException) -> bool:
    """Dask's word that the game's worker died under it on every try (its analogue of our WORKER_DIED)."""
    return type(exc).__name__ == "KilledWorker"


def _run_jobs(todo: Iterable[GameJob], count: int, emit: Callable[[dict[str, Any]], None], result: BatchResult, *,
              jobs: int | None, executor: cf.Executor | None, configs: Sequence[GameConfig],
              stall_timeout: float | None, note: Callable[[str], None]) -> None:
    """Run `count` games keeping a few in flight per worker; rebuild our own pool when a worker process dies.

    A game whose executor fails it (anything but a line from `play_game`, which
    never raises for the agent) was not played: it is sent again, up to
    `EXECUTOR_TRIES` times; an executor that says it is lost, or cancels the
    games, stops the run (`_RunStopped`). Nothing is written for those games.
    """
    own = executor is None
    workers = jobs or default_jobs()
    workers = min(workers, count) if own else workers
    pool: cf.Executor = process_pool(workers) if executor is None else executor
    result.executor = (f"process pool, {workers} worker{'s' if workers != 1 else ''}" if own
                       else result.executor or type(executor).__name__)
    limit = 2 * workers
    pending = iter(todo)
    again: collections.deque[GameJob] = collections.deque()  # games to send again (their executor failed them)
    tries: collections.Counter[tuple[int, int]] = collections.Counter()
    exhausted = False
    running: dict[cf.Future, GameJob] = {}
    try:
        _check_workers(pool, configs, own)
        while not exhausted or running or again:
            broken = False  # the pool refused a game because a worker died since the last wait
            while len(running) < limit and (again or not exhausted):
                job = again.popleft() if again else next(pending, None)
                if job is None:
                    exhausted = True
                    break
                try:
                    running[pool.submit(play_game, job)] = job
                except cf.BrokenExecutor:
                    # A process pool marks itself broken as soon as it sees a worker dead, before it fails the
                    # futures in flight: a worker that died after the last wait returned is seen here first. The
                    # pool is dead, not lost: this game (never sent) waits for the next pool, the games in flight
                    # are retried as below. (BrokenExecutor is a RuntimeError: caught before the clause below.)
                    again.appendleft(job)
                    broken = True
                    break
                except RuntimeError as exc:  # "cannot schedule new futures after shutdown", a closed client
                    again.appendleft(job)
                    raise _RunStopped(_executor_lost(pool) or f"the executor refuses new games "
                                                              f"({failure_text(exc)})") from None
            if not running and not broken:
                break
            done, _ = cf.wait(running, timeout=0.5, return_when=cf.FIRST_COMPLETED) if running else (set(), set())
            dead: list[GameJob] = []
            for future in sorted(done, key=lambda f: (running[f].index, running[f].config_index)):
                job = running.pop(future)
                try:
                    record = future.result()
                except cf.BrokenExecutor:
                    dead.append(job)
                    continue
                except KeyboardInterrupt:
                    raise
                except BaseException as exc:
                    if _is_killed_worker(exc):  # Dask tried it on several workers and each died: the game's doing
                        record = failed_record(job, f"{WORKER_FAILED}{failure_text(exc)}")
                    else:  # the game was never played: never a line
                        lost = _executor_lost(pool)
                        if lost is not None or isinstance(exc, cf.CancelledError):
                            raise _RunStopped(lost or f"the executor cancelled the games in flight "
                                                      f"({failure_text(exc)})") from None
                        key = (job.config_index, job.index)
                        tries[key] += 1
                        if tries[key] >= EXECUTOR_TRIES:
                            raise _RunStopped(f"the executor failed game {job.index} on each of {EXECUTOR_TRIES} "
                                              f"tries: {failure_text(exc)}") from None
                        again.append(job)
                        continue
                emit(record)
            if not done:
                lost = _executor_lost(pool)
                if lost is not None:
                    raise _RunStopped(lost)
            if own and stall_timeout is not None and not (dead or broken) and _kill_silent(pool, stall_timeout, note):
                continue  # the killed worker breaks the pool: its games come back as BrokenExecutor, and are replayed
            if dead or broken:
                # Every game in flight went down with the pool; we cannot tell which one killed it,
                # so each suspect gets its retry alone in a fresh process.
                suspects = sorted(dead + list(running.values()), key=lambda j: (j.index, j.config_index))
                running.clear()
                stop_pool(pool)
                for job in suspects:
                    result.retried += 1
                    emit(_run_alone(job, stall_timeout, note))
                pool, own = process_pool(workers), True  # a broken pool of the caller's is replaced by ours
    except BaseException:
        if own:
            stop_pool(pool)
        else:
            for future in running:
                with contextlib.suppress(Exception):  # a lost client may refuse even this
                    future.cancel()
        raise
    else:
        if own:
            pool.shutdown(wait=True)


def _kill_silent(pool: cf.Executor, stall_timeout: float, note: Callable[[str], None]) -> list[int]:
    """Kill the workers of our pool that gave no sign of life for `stall_timeout` s; their pids, with a warning."""
    silent = getattr(pool, "silent", None)
    if silent is None:
        return []
    killed = []
    for pid, quiet in silent(stall_timeout):
        note(f"worker process {pid} gave no sign of life for {quiet:.0f} s (stopped, or hung in code that holds "
             f"the interpreter): it is killed and its games are played again in fresh processes")
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
        killed.append(pid)
    return killed


def _run_alone(job: GameJob, stall_timeout: float | None, note: Callable[[str], None]) -> dict[str, Any]:
    """Play one game in a process of its own; a failed line if that process dies too.

    A process that stalls (no sign of life for `stall_timeout` s) on this retry
    stops the run: a game that stalls twice is no game to record.
    """
    pool = process_pool(1)
    try:
        future = pool.submit(play_game, job)
        while True:
            done, _ = cf.wait([future], timeout=0.5)
            if done:
                return future.result()
            if stall_timeout is not None and _kill_silent(pool, stall_timeout, note):
                raise _RunStopped(f"game {job.index} stalled its worker on its first run and on its retry "
                                  f"(no sign of life for {stall_timeout:g} s each time; a move that holds the "
                                  f"interpreter that long needs a longer stall timeout)")
    except cf.BrokenExecutor:
        return failed_record(job, WORKER_DIED)
    except (KeyboardInterrupt, _RunStopped):
        raise
    except BaseException as exc:  # not the game's doing (play_game never raises for it): never a line
        raise _RunStopped(f"the process pool failed game {job.index} on its retry: {failure_text(exc)}") from None
    finally:
        stop_pool(pool)
