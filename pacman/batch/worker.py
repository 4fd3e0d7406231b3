"""What runs in a worker: one game of a batch (`play_game`), its line, and the check a new worker answers.

A game whose agent raises, exits or overruns its time is that game's result
(a crashed or timed-out line), never an exception here. Lines of games that
could not be played at all (the game could not be set up on the worker, the
worker died, the executor failed) carry messages that start with a known
prefix, so that the runner can tell a batch that cannot run from one agent's
bad luck (`failed_outside_agent`).
"""

from __future__ import annotations

import functools
import os
import signal
import socket
import time
from typing import Any, Mapping, Sequence

from pacman.batch.config import GameJob, base_record
from pacman.errors import describe_failure
from pacman.hints import PYTHON, set_caller

__all__ = [
    "play_game",
    "start_worker",
    "is_worker",
    "worker_check",
    "failed_record",
    "failed_outside_agent",
    "failure_text",
    "NOT_STARTED",
    "WORKER_FAILED",
    "WORKER_DIED",
]

#: The error of a game whose worker process died under it twice (the agent may end its process).
WORKER_DIED = "the worker process died while playing this game, on its first run and on its retry"
#: Messages of games that failed outside the agent's play begin with one of these (see `failed_outside_agent`).
NOT_STARTED = "could not start the game: "
WORKER_FAILED = "the worker failed: "

#: True in the worker processes of our pool (set by `start_worker`).
_in_worker = False


def start_worker(batch_pid: int | None = None, heartbeats: Any = None, caller: str = PYTHON) -> None:
    """Workers leave Ctrl-C (and SIGTERM, SIGHUP) to the parent, which stops them and keeps every finished game; they run no batch.

    With `batch_pid`, the worker ends when that process ends, and beats in
    `heartbeats` meanwhile (`pacman.batch.lifeline.die_with`). `caller` is the
    command whose flags the games' refusals name (`pacman.hints`).
    """
    global _in_worker
    _in_worker = True
    set_caller(caller)
    for number in (signal.SIGINT, getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)):
        if number is not None:  # a terminal's hang-up or a supervisor's stop reaches the whole group: the batch
            signal.signal(number, signal.SIG_IGN)  # stops its workers itself, after keeping what finished
    if batch_pid is not None:
        from pacman.batch.lifeline import die_with

        die_with(batch_pid, None if heartbeats is None else heartbeats.claim())


def worker_check(layouts: Sequence[str]) -> str | None:
    """Run in a worker before any game: None if it can play (imports, layouts), else what is wrong."""
    try:
        import pacman.agents  # noqa: F401  (what every game needs)
        from pacman import game  # noqa: F401
    except BaseException as exc:
        return f"the workers cannot import the project: {failure_text(exc)}"
    for name in layouts:
        try:
            cached_layout(name)
        except BaseException as exc:
            return f"layout {name!r} cannot be loaded on the workers: {failure_text(exc)}"
    return None


def is_worker() -> bool:
    """Whether this process is a worker of our pool (a batch started in one is refused)."""
    return _in_worker


@functools.lru_cache(maxsize=8)
def cached_layout(name: str) -> Any:
    """The layout `name`, loaded once per worker process."""
    from pacman.layout import load_layout

    return load_layout(name)


def play_game(job: GameJob) -> dict[str, Any]:
    """Play one game of a batch and return its line (a JSON-ready dict). Never raises for the agent's faults.

    A fresh agent is built for every game, so nothing an agent caches survives
    its game; the layout is cached per worker process. An agent that raises or
    calls ``sys.exit()`` ends its own game, recorded as crashed with the message
    and the frames of the user's files (every frame under ``--verbose``: the
    job's `pacman.user_code.UserCodeOptions`).
    """
    from pacman.user_code import applied

    with applied(job.user_code):  # the command's --verbose and --import-seconds, whoever started this worker
        return _play_game(job)


def _play_game(job: GameJob) -> dict[str, Any]:
    from pacman.agents import make_ghosts
    from pacman.agent_specs import make_pacman_agent
    from pacman.distances import DistanceTable
    from pacman.game import run_game
    from pacman.state import GameState

    config = job.config
    started = time.perf_counter()
    try:
        layout = cached_layout(config.layout)
        agent = make_pacman_agent(config.pacman, config.agent_kwargs)
        ghosts = make_ghosts(config.ghosts, layout.num_ghosts if config.num_ghosts is None else config.num_ghosts)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # set up in the parent, it fails here: something about this worker
        return failed_record(job, f"{NOT_STARTED}{failure_text(exc)}", seconds=time.perf_counter() - started)
    try:
        # Every move's time is kept (for the line's move_ms) only when the game is bounded: a game without a
        # move limit keeps flat memory and a short line, with the mean and the slowest move only.
        result = run_game(layout, agent, ghosts, seed=job.seed, max_moves=config.max_moves,
                          move_time_limit=config.move_time_limit, keep_moves=config.max_moves is not None)
    except KeyboardInterrupt:
        raise
    except SystemExit as exc:  # run_game records an agent's sys.exit() itself; one it did not is still this game's
        return failed_record(job, f"Pacman (agent 0) {describe_failure(exc, 1000)}",
                             seconds=time.perf_counter() - started, failed_agent=0)
    except BaseException as exc:  # run_game refused the game (the agent refuses this layout...): not the play
        return failed_record(job, f"{NOT_STARTED}{failure_text(exc)}", seconds=time.perf_counter() - started)
    seconds = time.perf_counter() - started
    # Equal layouts share one board, and states report the board's layout: its tables are the ones
    # the game filled (another equal layout loaded in this process may have built the board first).
    DistanceTable.of(GameState.initial(layout).layout).clear_cache()
    record = base_record(job)
    record.update(
        outcome=result.outcome, won=result.won, lost=result.lost, score=result.score, moves=result.moves,
        cut_off=result.cut_off, crashed=result.crashed, timed_out=result.timed_out,
        failed_agent=result.failed_agent, error=result.error, seconds=round(seconds, 6),
        ms_per_move_mean=round(1000 * result.total_thinking / result.moves, 4) if result.moves else 0.0,
        ms_per_move_max=round(1000 * result.slowest_move, 4) if result.moves else 0.0,
        move_ms=[round(1000 * t, 4) for t in result.move_times],
        worker=f"{socket.gethostname()}:{os.getpid()}", worker_rss_mb=_rss_mb(),
    )
    if result.error_frames:  # a crash in the user's own files: where, for the command's report
        record["error_frames"] = list(result.error_frames)
    if result.error_hint is not None:
        record["error_hint"] = result.error_hint
    return record


def failure_text(exc: BaseException) -> str:
    """``LayoutError: ...``, ``SystemExit: 3``: an exception in a few words for a game line."""
    if isinstance(exc, SystemExit):
        return f"SystemExit: {exc.code!r}" if exc.code is not None else "SystemExit"
    detail = " ".join(str(exc).split())
    text = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
    return text if len(text) <= 1000 else text[:997] + "..."


def failed_record(job: GameJob, error: str, seconds: float = 0.0, failed_agent: int | None = None) -> dict[str, Any]:
    """The line of a game that produced no result: crashed, with `error`, no score."""
    record = base_record(job)
    record.update(outcome="crashed", won=False, lost=False, score=None, moves=None, cut_off=False, crashed=True,
                  timed_out=False, failed_agent=failed_agent, error=error, seconds=round(seconds, 6),
                  ms_per_move_mean=None, ms_per_move_max=None, move_ms=[], worker=None, worker_rss_mb=None)
    return record


def failed_outside_agent(record: Mapping[str, Any]) -> bool:
    """A game that never got to be played: not set up on its worker, its worker died twice, the executor failed."""
    error = record.get("error") or ""
    return (bool(record.get("crashed")) and record.get("failed_agent") is None
            and (error.startswith((NOT_STARTED, WORKER_FAILED)) or error == WORKER_DIED))


def _rss_mb() -> float | None:
    """This process's resident memory in MB, from /proc (None where there is no /proc)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 2)
    except OSError:
        pass
    return None
