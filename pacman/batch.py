"""Headless batches of games: parallel, reproducible, resumable.

A batch plays `games` games of each `GameConfig`. Game *i* gets the seed
`game_seed(seed, i)`, derived with numpy's `SeedSequence` from the batch seed and
the index alone, so every configuration of a sweep plays the same seeds (paired
comparisons), a batch can be extended with more games, and the result of a game
never depends on which worker played it or when. Games run on any
`concurrent.futures.Executor`: a process pool (the default), a Dask cluster
(`dask_executor`), or anything else that can pickle `play_game`. Jobs are made
one at a time as workers free up, so memory before the first game does not grow
with the number of games.

Each finished game is one JSON line, appended and flushed at once, so a crash or
Ctrl-C loses only the games in flight, and `resume=True` plays only the missing
ones. The lines carry their configuration, which is how a file and a command
that do not match are told apart. A resumed file is checked line by line: a
line that is not a game line, a game played with other flags or another seed,
a game listed twice or beyond `games` is refused, naming the file and the line.
Lines record the agent's effective arguments (`agent_args`: the given ones over
its constructor's defaults, the default evaluation and ghost model named), and
files are matched on them, so ``depth=2`` and the defaults are one
configuration, and a file written when lines held only the given arguments
still resumes (its arguments completed with today's defaults).

Worker processes of our own pool start without re-running the caller's main
module (a script needs no ``if __name__ == "__main__":`` guard), so agents and
evaluations must be importable by name (``module:Class`` or
``path/to/file.py:Class``), never ``__main__:Class``.

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

Fields that depend on the machine and not on the seed (`TIMING_FIELDS`: times,
worker id and memory) differ between runs; everything else is identical
whatever the number of jobs or the executor.

This module never imports pygame.
"""

from __future__ import annotations

import collections
import concurrent.futures as cf
import contextlib
import functools
import json
import math
import multiprocessing
import os
import signal
import socket
import stat
import threading
import time
import types
from dataclasses import dataclass, field
from typing import Any, Callable, Container, Iterable, Iterator, Mapping, Sequence

import numpy as np

from pacman import files
from pacman.errors import PacmanError, describe_failure

__all__ = [
    "BatchError",
    "GameConfig",
    "GameJob",
    "BatchResult",
    "TIMING_FIELDS",
    "CONFIG_FIELDS",
    "MAX_GAMES",
    "MAX_CONFIGURATIONS",
    "MAX_SEED",
    "MAX_MOVE_TIME_LIMIT",
    "FAILURE_WINDOW",
    "WORKER_START_TIMEOUT",
    "game_seed",
    "max_jobs",
    "check_batch_numbers",
    "validate_config",
    "play_game",
    "run_batch",
    "read_results",
    "deterministic_part",
    "dask_executor",
    "default_jobs",
    "check_writable",
    "check_out",
    "write_atomically",
]

#: Fields of a game line that depend on the machine, not on the seed: left out when runs are compared.
TIMING_FIELDS = ("seconds", "ms_per_move_mean", "ms_per_move_max", "move_ms", "worker", "worker_rss_mb")

#: Fields of a game line that name its configuration; a resumed file must match the command on these.
CONFIG_FIELDS = ("layout", "pacman", "agent_args", "ghosts", "num_ghosts", "max_moves", "move_time_limit",
                 "batch_seed")

#: Most games one batch may plan (games per configuration x configurations): about 290 days at 40 games/s.
MAX_GAMES = 10**9
#: Most configurations one sweep may have (each is a table row and a bar of the plot).
MAX_CONFIGURATIONS = 1000
#: The largest batch seed: 2**64 - 1 (an integer of up to 20 digits in every line).
MAX_SEED = 2**64 - 1
#: The longest move time limit, in seconds (a day); a longer wait overflows the platform's timers.
MAX_MOVE_TIME_LIMIT = 86400.0
#: How many first games failing identically outside the agent stop a batch.
FAILURE_WINDOW = 5
#: Seconds a worker has to start and answer the check before any game is sent.
WORKER_START_TIMEOUT = 60.0
#: The longest line a results file may have (a game of 100,000 moves takes about 1 MB).
_MAX_LINE_BYTES = 64 * 2**20

_FLAG_OF = {"layout": "--layout", "pacman": "--pacman", "agent_args": "--agent-args", "ghosts": "--ghosts",
            "num_ghosts": "--num-ghosts", "max_moves": "--max-moves", "move_time_limit": "--move-time-limit",
            "batch_seed": "--seed"}

_WORKER_DIED = "the worker process died while playing this game, on its first run and on its retry"
#: Messages of games that failed outside the agent's play begin with one of these (see `_failed_outside_agent`).
_NOT_STARTED = "could not start the game: "
_WORKER_FAILED = "the worker failed: "


#: Set while run_batch imports the agents of its configurations in this thread, and in our worker processes.
_loading = threading.local()
_in_worker = False
_NESTED = ("run_batch was called while {where}: the file that defines the agent (or evaluation) starts a batch "
           "when it is imported; put that call under if __name__ == \"__main__\":, or the agent in a file of its own")


class BatchError(PacmanError):
    """A batch that cannot run: a results file that does not match, cannot be written, an unreachable cluster."""


@dataclass(frozen=True)
class GameConfig:
    """What to play: a layout, a Pacman agent with its arguments, the ghosts and the limits."""

    layout: str = "medium"
    """A shipped layout name or a path to a .lay file (the path must exist on every worker)."""
    pacman: str = "expectimax"
    """A registered Pacman agent, `module:Class` or `path/to/file.py:Class`."""
    agent_args: tuple[tuple[str, Any], ...] = ()
    """Keyword arguments of the agent as given, as (name, value) pairs; lines record the effective ones."""
    ghosts: str = "random"
    """The ghost kind: random or directional."""
    num_ghosts: int | None = None
    """Ghosts in play (the layout's first ones); None for all of them."""
    max_moves: int | None = None
    """Cut a game off after this many Pacman moves."""
    move_time_limit: float | None = None
    """Seconds an agent may think on one move before its game ends as timed out."""

    @classmethod
    def create(cls, layout: str = "medium", pacman: str = "expectimax", agent_args: Mapping[str, Any] | None = None,
               **options: Any) -> "GameConfig":
        """A config from keyword arguments, with `agent_args` as a mapping."""
        return cls(layout=os.fspath(layout), pacman=pacman, agent_args=tuple((agent_args or {}).items()), **options)

    @property
    def agent_kwargs(self) -> dict[str, Any]:
        """The agent's keyword arguments as given, as a dict."""
        return dict(self.agent_args)

    @property
    def effective_agent_args(self) -> dict[str, Any]:
        """The arguments the agent is really built with: the given ones over its defaults (what lines record)."""
        return json.loads(_effective_args_json(self.pacman, _args_json(self.agent_kwargs), self.ghosts))

    def to_dict(self) -> dict[str, Any]:
        """The config as it appears in every game line and in the summary (with the effective agent arguments)."""
        return {"layout": self.layout, "pacman": self.pacman, "agent_args": self.effective_agent_args,
                "ghosts": self.ghosts, "num_ghosts": self.num_ghosts, "max_moves": self.max_moves,
                "move_time_limit": self.move_time_limit}

    def label(self, fields: Sequence[str] | None = None) -> str:
        """A short human name, e.g. ``small expectimax depth=2 random x2``; only `fields` if given."""
        fields = CONFIG_FIELDS[:-1] if fields is None else fields
        parts: list[str] = []
        for name in fields:
            value = getattr(self, name)
            if name == "agent_args":
                parts.extend(f"{k}={_plain(v)}" for k, v in self.agent_args)
            elif name == "num_ghosts":
                parts.append(f"x{value}" if "ghosts" in fields else f"{value} ghost{'s' if value != 1 else ''}")
            elif name == "max_moves" and value is not None:
                parts.append(f"max {value} moves")
            elif name == "move_time_limit" and value is not None:
                parts.append(f"limit {value:g}s")
            elif name in ("layout", "pacman", "ghosts"):
                parts.append(str(value))
        return " ".join(parts)


def _plain(value: Any) -> str:
    return "none" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def _args_json(args: Mapping[str, Any]) -> str:
    return json.dumps(args, sort_keys=True)


@functools.lru_cache(maxsize=1024)
def _effective_args_json(pacman: str, args_json: str, ghosts: Any) -> str:
    """`agents.registry.effective_agent_args` as canonical JSON, cached (lines and resumed files ask often).

    It is idempotent: the effective arguments of effective arguments are
    themselves, so a line written before lines recorded them (``{}`` for the
    defaults) and a line written since compare equal once both are passed here.
    """
    from agents.registry import effective_agent_args

    args = json.loads(args_json)
    if not isinstance(args, dict):
        return args_json
    try:
        effective = effective_agent_args(pacman, args, ghosts=ghosts if isinstance(ghosts, str) else None)
    except Exception:  # an agent that cannot be inspected any more: compare the arguments as written
        effective = args
    return json.dumps(effective, sort_keys=True)


@dataclass(frozen=True)
class GameJob:
    """One game of a batch: which configuration, which index, which seed."""

    config_index: int
    """Position of the configuration in the batch's list."""
    config: GameConfig
    """What to play."""
    index: int
    """The game's index, 0-based; its seed depends on it and on the batch seed only."""
    batch_seed: int
    """The batch's seed."""

    @property
    def seed(self) -> int:
        """The game's seed."""
        return game_seed(self.batch_seed, self.index)


def game_seed(batch_seed: int, index: int) -> int:
    """The seed of game `index` of a batch: a 32-bit int from `SeedSequence(batch_seed, spawn_key=(index,))`.

    That is the `index`-th child of ``SeedSequence(batch_seed).spawn(n)`` for any n,
    so it does not depend on how many games the batch has.
    """
    child = np.random.SeedSequence(batch_seed, spawn_key=(index,))
    return int(child.generate_state(1, dtype=np.uint32)[0])


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def max_jobs() -> int:
    """The most worker processes a batch may ask for: 16, or twice the cores on a larger machine.

    Games are pure Python and use one core each; more processes than that only
    share the cores and add memory (about 40 MB each).
    """
    return max(16, 2 * default_jobs())


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_batch_numbers(games: Any, seed: Any = 0, jobs: Any = None, configurations: int = 1) -> None:
    """Refuse numbers a batch cannot honour, naming the flag and the limit, before anything is started."""
    if not _is_int(games) or games < 1:
        raise BatchError(f"--games must be a positive integer, got {games!r}")
    if games * configurations > MAX_GAMES:
        per = f" x {configurations:,} configurations" if configurations > 1 else ""
        raise BatchError(f"--games {games:,}{per}: a batch plays at most {MAX_GAMES:,} games")
    if not _is_int(seed) or not 0 <= seed <= MAX_SEED:
        raise BatchError(f"--seed must be an integer from 0 to {MAX_SEED} (2**64 - 1), got {seed!r}")
    if jobs is not None:
        if not _is_int(jobs) or jobs < 1:
            raise BatchError(f"--jobs must be a positive integer, got {jobs!r}")
        if jobs > max_jobs():
            raise BatchError(f"--jobs {jobs:,}: at most {max_jobs()} on this machine ({default_jobs()} cores); "
                             f"more processes than cores only share them")


def validate_config(config: GameConfig) -> GameConfig:
    """Check a config before any game runs (layout, agent, its arguments, ghosts, limits); resolve `num_ghosts`.

    Raises the narrow error of the bad part (LayoutError, AgentSpecError) or BatchError.
    """
    previous = getattr(_loading, "active", False)
    _loading.active = True  # building the agent may import the user's file: it must not start a batch
    try:
        return _validate_config(config)
    finally:
        _loading.active = previous


def _validate_config(config: GameConfig) -> GameConfig:
    from agents import GHOST_KINDS, check_search_size, make_ghosts, make_pacman_agent
    from pacman.layout import load_layout

    if not isinstance(config, GameConfig):
        raise BatchError(f"expected a GameConfig, got {type(config).__name__}")
    for name in ("max_moves", "num_ghosts"):
        value = getattr(config, name)
        if value is not None and (not _is_int(value) or value < (1 if name == "max_moves" else 0)):
            kind = "positive" if name == "max_moves" else "non-negative"
            raise BatchError(f"{_FLAG_OF[name]} must be a {kind} integer, got {value!r}")
    limit = config.move_time_limit
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not limit > 0:
            raise BatchError(f"--move-time-limit must be a positive number of seconds, got {limit!r}")
        if not limit <= MAX_MOVE_TIME_LIMIT:
            raise BatchError(f"--move-time-limit {limit:g}: at most {MAX_MOVE_TIME_LIMIT:g} s (a day); "
                             f"leave it out for no limit")
    for name, spec in (("--pacman ", config.pacman), *((f"--agent-args {k}=", v) for k, v in config.agent_args)):
        if isinstance(spec, str) and spec.partition(":")[0] in ("__main__", "__mp_main__") and ":" in spec:
            raise BatchError(f"{name}{spec}: the worker processes do not run your script (__main__), so they "
                             f"cannot find {spec.partition(':')[2]!r}; put it in a file and name it "
                             f"path/to/file.py:{spec.partition(':')[2]} (or module:name)")
    try:
        agent_args = json.loads(json.dumps(config.agent_kwargs))  # what a results file will hold
    except (TypeError, ValueError):
        bad = next(k for k, v in config.agent_args if not _json_ready(v))
        raise BatchError(f"agent argument {bad}={config.agent_kwargs[bad]!r}: a batch sends arguments to its "
                         f"workers as JSON values; name a function as 'module:function' or "
                         f"'path/to/file.py:function'") from None
    layout = load_layout(config.layout)
    num_ghosts = layout.num_ghosts if config.num_ghosts is None else config.num_ghosts
    if not 0 <= num_ghosts <= layout.num_ghosts:
        raise BatchError(f"--num-ghosts {num_ghosts}: layout {config.layout!r} has "
                         f"{layout.num_ghosts} ghost{'s' if layout.num_ghosts != 1 else ''}")
    if config.ghosts not in GHOST_KINDS:
        make_ghosts(config.ghosts, 0)  # raises the registry's error naming the kinds
    check_search_size(make_pacman_agent(config.pacman, config.agent_kwargs), layout, num_ghosts)
    return GameConfig(layout=config.layout, pacman=config.pacman, agent_args=tuple(agent_args.items()),
                      ghosts=config.ghosts, num_ghosts=num_ghosts, max_moves=config.max_moves,
                      move_time_limit=config.move_time_limit)


def _json_ready(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


@functools.lru_cache(maxsize=8)
def _layout(name: str) -> Any:
    from pacman.layout import load_layout

    return load_layout(name)


def play_game(job: GameJob) -> dict[str, Any]:
    """Play one game of a batch and return its line (a JSON-ready dict). Never raises for the agent's faults.

    A fresh agent is built for every game, so nothing an agent caches survives
    its game; the layout is cached per worker process. An agent that raises or
    calls ``sys.exit()`` ends its own game, recorded as crashed with the message.
    """
    from agents import make_ghosts, make_pacman_agent
    from pacman.distances import DistanceTable
    from pacman.game import run_game

    config = job.config
    started = time.perf_counter()
    try:
        layout = _layout(config.layout)
        agent = make_pacman_agent(config.pacman, config.agent_kwargs)
        ghosts = make_ghosts(config.ghosts, layout.num_ghosts if config.num_ghosts is None else config.num_ghosts)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # set up in the parent, it fails here: something about this worker
        return _failed_record(job, f"{_NOT_STARTED}{_failure(exc)}", seconds=time.perf_counter() - started)
    try:
        result = run_game(layout, agent, ghosts, seed=job.seed, max_moves=config.max_moves,
                          move_time_limit=config.move_time_limit)
    except KeyboardInterrupt:
        raise
    except SystemExit as exc:  # run_game records an agent's sys.exit() itself; one it did not is still this game's
        return _failed_record(job, f"Pacman (agent 0) {describe_failure(exc, 1000)}",
                              seconds=time.perf_counter() - started, failed_agent=0)
    except BaseException as exc:  # run_game refused the game (the agent refuses this layout...): not the play
        return _failed_record(job, f"{_NOT_STARTED}{_failure(exc)}", seconds=time.perf_counter() - started)
    seconds = time.perf_counter() - started
    DistanceTable.of(layout).clear_cache()
    record = _base_record(job)
    record.update(
        outcome=result.outcome, won=result.won, lost=result.lost, score=result.score, moves=result.moves,
        cut_off=result.cut_off, crashed=result.crashed, timed_out=result.timed_out,
        failed_agent=result.failed_agent, error=result.error, seconds=round(seconds, 6),
        ms_per_move_mean=round(1000 * sum(result.move_times) / len(result.move_times), 4) if result.moves else 0.0,
        ms_per_move_max=round(1000 * max(result.move_times), 4) if result.moves else 0.0,
        move_ms=[round(1000 * t, 4) for t in result.move_times],
        worker=f"{socket.gethostname()}:{os.getpid()}", worker_rss_mb=_rss_mb(),
    )
    return record


def _failure(exc: BaseException) -> str:
    """``LayoutError: ...``, ``SystemExit: 3``: an exception in a few words for a game line."""
    if isinstance(exc, SystemExit):
        return f"SystemExit: {exc.code!r}" if exc.code is not None else "SystemExit"
    detail = " ".join(str(exc).split())
    text = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
    return text if len(text) <= 1000 else text[:997] + "..."


def _base_record(job: GameJob) -> dict[str, Any]:
    record: dict[str, Any] = {"index": job.index, "seed": job.seed}
    record.update(job.config.to_dict())
    record["batch_seed"] = job.batch_seed
    return record


def _failed_record(job: GameJob, error: str, seconds: float = 0.0, failed_agent: int | None = None) -> dict[str, Any]:
    """The line of a game that produced no result: crashed, with `error`, no score."""
    record = _base_record(job)
    record.update(outcome="crashed", won=False, lost=False, score=None, moves=None, cut_off=False, crashed=True,
                  timed_out=False, failed_agent=failed_agent, error=error, seconds=round(seconds, 6),
                  ms_per_move_mean=None, ms_per_move_max=None, move_ms=[], worker=None, worker_rss_mb=None)
    return record


def _failed_outside_agent(record: Mapping[str, Any]) -> bool:
    """A game that never got to be played: not set up on its worker, its worker died twice, the executor failed."""
    error = record.get("error") or ""
    return (bool(record.get("crashed")) and record.get("failed_agent") is None
            and (error.startswith((_NOT_STARTED, _WORKER_FAILED)) or error == _WORKER_DIED))


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


def deterministic_part(record: Mapping[str, Any]) -> dict[str, Any]:
    """A game line without its `TIMING_FIELDS`: what must be equal across runs, jobs and executors."""
    return {key: value for key, value in record.items() if key not in TIMING_FIELDS}


def _config_values(record: Mapping[str, Any], agents: Container[str] | None = None) -> list[Any]:
    """The configuration of a line, its agent arguments made effective (files from before they were recorded).

    With `agents`, only lines of those agents are made effective: a line read
    from a file may name any module, and finding an agent's defaults imports it.
    """
    values = [record.get(name) for name in CONFIG_FIELDS]
    args, pacman, ghosts = record.get("agent_args"), record.get("pacman"), record.get("ghosts")
    if isinstance(args, dict) and isinstance(pacman, str) and (agents is None or pacman in agents):
        values[2] = json.loads(_effective_args_json(pacman, _args_json(args), ghosts if isinstance(ghosts, str)
                                                    else None))
    return values


def _config_key(record: Mapping[str, Any], agents: Container[str] | None = None) -> str:
    return json.dumps(_config_values(record, agents), sort_keys=True)


# ---------------------------------------------------------------------------------------------------------------
# Results files

#: The result fields of a game line and the types each may have (None: JSON null).
_RESULT_TYPES: dict[str, tuple[type, ...]] = {
    "won": (bool,), "lost": (bool,), "cut_off": (bool,), "crashed": (bool,), "timed_out": (bool,),
    "score": (int, float, type(None)), "moves": (int, type(None)), "outcome": (str,),
}


def _regular_file_kind(path: str) -> str | None:
    """None if `path` is absent or a regular file (symlinks followed), else what it is (`a FIFO (named pipe)`)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return None if stat.S_ISREG(mode) else files.file_kind(mode)


def _iter_lines(path: str) -> Iterator[tuple[int, bytes, bool]]:
    """(number, line, complete) for each line of a regular file, streamed; a FIFO or device is refused unread."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise BatchError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
    except OSError as exc:
        os.close(fd)
        raise BatchError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise BatchError(f"{path}: is {files.file_kind(mode)}, not a regular file (expected a results file)")
    with open(fd, "rb") as handle:
        number = 0
        while True:
            try:
                line = handle.readline(_MAX_LINE_BYTES + 1)
            except OSError as exc:
                raise BatchError(f"{path}: cannot read: {exc.strerror or exc}") from None
            if not line:
                return
            number += 1
            if len(line) > _MAX_LINE_BYTES:
                raise BatchError(f"{path}: line {number} is longer than {_MAX_LINE_BYTES // 2**20} MB; "
                                 f"not a results file of pacman-ai batch?")
            yield number, line, line.endswith(b"\n")


def read_results(path: str | os.PathLike[str], *, repair: bool = False) -> list[dict[str, Any]]:
    """The game lines of a results file, in file order.

    A last line without its newline is what a killed run leaves behind: it is
    dropped (and with `repair`, cut from the file). Any other line that is not a
    game line is an error naming the file and line. A FIFO or device is refused.
    """
    path = os.fspath(path)
    numbered, cut = _numbered_results(path)
    if repair and cut is not None:
        _cut(path, cut)
    return [record for _, record in numbered]


def _numbered_results(path: str) -> tuple[list[tuple[int, dict[str, Any]]], int | None]:
    """(line number, game line) for every line, and where an unfinished last line starts (None if none)."""
    records = []
    cut = None
    offset = 0
    for number, line, complete in _iter_lines(path):
        if not complete:
            cut = offset
            break
        offset += len(line)
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            raise BatchError(f"{path}: line {number} is not JSON; not a results file of pacman-ai batch?") from None
        _check_line(path, number, record)
        records.append((number, record))
    return records, cut


def _cut(path: str, size: int) -> None:
    """Cut the unfinished last line a killed run left: the file keeps its first `size` bytes."""
    try:
        with open(path, "r+b") as handle:
            handle.truncate(size)
    except OSError as exc:
        raise BatchError(f"{path}: cannot cut its unfinished last line: {exc.strerror or exc}") from None


def _check_line(path: str, number: int, record: Any) -> None:
    """Refuse a line that is not a game line of ours: fields missing or of the wrong type."""
    where = f"{path}: line {number}"
    if not isinstance(record, dict):
        raise BatchError(f"{where} is not a game line (a JSON object)")
    index = record.get("index")
    if not _is_int(index) or index < 0:
        raise BatchError(f"{where} is not a game line (its 'index' is {index!r}, expected an integer >= 0)")
    for name, kinds in _RESULT_TYPES.items():
        value = record.get(name)
        if name not in record or not isinstance(value, kinds) or (kinds[0] is not bool and isinstance(value, bool)):
            raise BatchError(f"{where} (game {index}): '{name}' is {value!r}; not a game line of pacman-ai batch")
    seconds = record.get("seconds")
    if seconds is not None and (not isinstance(seconds, (int, float)) or isinstance(seconds, bool)):
        raise BatchError(f"{where} (game {index}): 'seconds' is {seconds!r}, expected a number")
    for name in ("score", "seconds"):
        if isinstance(record.get(name), float) and not math.isfinite(record[name]):
            raise BatchError(f"{where} (game {index}): '{name}' is {record[name]!r}, expected a finite number")
    if (record["score"] is None) != (record["moves"] is None):
        raise BatchError(f"{where} (game {index}): a score without moves, or moves without a score")
    if record["won"] and record["lost"]:
        raise BatchError(f"{where} (game {index}): the game is both won and lost")
    if not isinstance(record.get("agent_args"), dict):
        raise BatchError(f"{where} (game {index}): 'agent_args' is {record.get('agent_args')!r}, expected an object")
    move_ms = record.get("move_ms", [])
    if not isinstance(move_ms, list) or not all(isinstance(ms, (int, float)) and not isinstance(ms, bool)
                                                for ms in move_ms):
        raise BatchError(f"{where} (game {index}): 'move_ms' is not a list of numbers")


def _show(value: Any, limit: int = 100) -> str:
    """A value of a line or a flag for a one-line message (a hostile file's may be long: shortened)."""
    if isinstance(value, dict):
        text = ",".join(f"{k}={_plain(v)}" for k, v in value.items()) or "(none)"
    else:
        text = _plain(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _ResultsFile:
    """An append-only JSONL file: one whole line per game, flushed as soon as it is written.

    It is opened at the first line only, so a batch that stops before any game
    leaves the file as it was (absent, or untouched).
    """

    def __init__(self, path: str, truncate: bool) -> None:
        self.path = path
        self.truncate = truncate
        self._handle: Any = None

    def write(self, record: Mapping[str, Any]) -> None:
        line = json.dumps(record, separators=(",", ":")) + "\n"
        try:
            if self._handle is None:
                self._handle = open(self.path, "w" if self.truncate else "a", encoding="utf-8")
            self._handle.write(line)
            self._handle.flush()
        except OSError as exc:
            raise BatchError(f"{self.path}: cannot write: {exc.strerror or exc}") from None

    def close(self) -> None:
        if self._handle is not None:
            with contextlib.suppress(OSError):
                self._handle.close()


def check_writable(path: str | os.PathLike[str], flag: str) -> None:
    """Raise BatchError unless `path` can be created or replaced: a regular file or nothing, in a writable folder.

    A FIFO or a device is refused: writing to one would block or go nowhere.
    """
    path = os.fspath(path)
    if not path or "\0" in path:
        raise BatchError(f"{flag} {path!r}: not a file name")
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise BatchError(f"{flag} {path}: is a folder, expected a file")
    kind = _regular_file_kind(path)
    if kind is not None:
        raise BatchError(f"{flag} {path}: is {kind}, not a regular file")
    if not os.path.isdir(folder):
        raise BatchError(f"{flag} {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise BatchError(f"{flag} {path}: not writable")
    # os.access says yes to root on a read-only file system: make sure a file can be created there now,
    # rather than learn it after the games, when the summary or the plot is written
    probe = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.probe")
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        os.remove(probe)
    except OSError as exc:
        raise BatchError(f"{flag} {path}: cannot write in {folder}: {exc.strerror or exc}") from None


def check_out(path: str | os.PathLike[str], *, resume: bool, overwrite: bool) -> bool:
    """Check a results file can be written, and is not an earlier run's to be clobbered; True if it has games."""
    path = os.fspath(path)
    check_writable(path, "--out")
    exists = os.path.exists(path) and os.path.getsize(path) > 0
    if exists and not (resume or overwrite):
        raise BatchError(f"--out {path}: file exists; --resume continues it, --force overwrites it")
    return exists


def write_atomically(path: str | os.PathLike[str], write: Callable[[str], None]) -> None:
    """`pacman.files.write_atomically`, with a failure to write reported as a BatchError."""
    try:
        files.write_atomically(path, write)
    except OSError as exc:
        raise BatchError(f"{os.fspath(path)}: cannot write: {exc.strerror or exc}") from None


# ---------------------------------------------------------------------------------------------------------------
# The runner


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
    """True when Ctrl-C stopped the run before every game finished."""
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
        key = _config_key(_base_record(GameJob(config_index, self.configs[config_index], 0, self.seed)))
        return [r for r in self.records if _config_key(r) == key]

    def summary(self) -> dict[str, Any]:
        """The batch's summary: per configuration under ``configurations``; with one, its figures at the top too.

        `seconds` and `games_per_second` at the top are this run's wall clock and
        the games it played per second of it. ``agent_args`` are the effective
        arguments; ``label`` names the configuration by the arguments as given.
        """
        from pacman.stats import summarize_games

        by_key: dict[str, list[dict[str, Any]]] = {}
        for record in self.records:
            by_key.setdefault(_config_key(record), []).append(record)
        configurations = []
        varying = _varying_fields(self.configs)
        for number, config in enumerate(self.configs):
            entry = config.to_dict()
            entry["label"] = config.label(varying)
            key = _config_key(_base_record(GameJob(number, config, 0, self.seed)))
            entry.update(summarize_games(by_key.get(key, [])))
            configurations.append(entry)
        top: dict[str, Any] = {}
        if len(configurations) == 1:
            top.update(configurations[0])
        top.update(
            complete=self.complete, games_planned=self.games * len(self.configs), seed=self.seed,
            games=len(self.records), played=self.played, seconds=round(self.seconds, 3),
            games_per_second=round(self.played / self.seconds, 3) if self.seconds > 0 else None,
            executor=self.executor, retried=self.retried, configurations=configurations,
        )
        return top


def _varying_fields(configs: Sequence[GameConfig]) -> list[str]:
    """The config fields that differ across a sweep (all that name something if there is one config)."""
    fields = [name for name in CONFIG_FIELDS[:-1] if len({repr(getattr(c, name)) for c in configs}) > 1]
    if "num_ghosts" in fields and "layout" in fields:
        # different layouts have different ghost counts: only a count chosen within one layout is news
        by_layout = {(c.layout, c.num_ghosts) for c in configs}
        if len(by_layout) == len({c.layout for c in configs}):
            fields.remove("num_ghosts")
    if fields:
        return fields
    return ["layout", "pacman", "agent_args", "ghosts", "num_ghosts", "max_moves", "move_time_limit"]


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
) -> BatchResult:
    """Play `games` games of every config and return their lines and summary.

    Games run in a pool of `jobs` worker processes (default: the cores), or on the
    given `executor` (which the caller owns; `jobs` then says how many games to
    keep in flight). With `out`, each game's line is appended to that JSONL file as
    it finishes; an existing file is refused unless `resume` (play only the
    missing games, after checking every line of the file) or `overwrite`.
    `on_resume` is called once before any game with the lines read back from a
    resumed file (an empty list otherwise), and `on_game` with every new line, in
    this process (for progress).

    A worker process that dies mid-game has its game retried once in a fresh
    process, then recorded as crashed; the batch goes on. A batch whose workers
    cannot start, or whose first games all fail the same way outside the agent,
    raises BatchError (see the module's docstring). Ctrl-C stops the workers and
    returns what finished, with `interrupted` set.

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
    if jobs is not None and (not _is_int(jobs) or jobs < 1):
        raise BatchError(f"--jobs must be a positive integer, got {jobs!r}")
    # A script that defines its agent and runs the batch, unguarded, and names itself as the agent's file
    # would be imported again here, and start this batch again, and so on: stop at the first repetition.
    if _in_worker or getattr(_loading, "active", False):
        raise BatchError(_NESTED.format(where="a batch worker imported it" if _in_worker
                                        else "the batch imported it"))
    configs = [validate_config(config) for config in configs]
    jobs_by_key: dict[str, int] = {}
    expected = []
    for number, config in enumerate(configs):
        base = _base_record(GameJob(number, config, 0, seed))
        key = _config_key(base)
        if key in jobs_by_key:
            raise BatchError(f"the same configuration is listed twice: {config.label()} "
                             f"(its agent arguments with their defaults: {_show(config.effective_agent_args)})")
        jobs_by_key[key] = number
        expected.append(base)

    result = BatchResult(configs=list(configs), games=games, seed=seed)
    finished: set[tuple[int, int]] = set()
    results_file = None
    if out is not None:
        out = os.fspath(out)
        exists = check_out(out, resume=resume, overwrite=overwrite)
        if exists and resume:
            for number, record in _resumed(out, jobs_by_key, expected, games, seed):
                finished.add((number, record["index"]))
                result.records.append(record)
        results_file = _ResultsFile(out, truncate=not resume)
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
    labels = [config.label(_varying_fields(configs)) if len(configs) > 1 else "" for config in configs]
    watch = _FailureWatch(windows, labels, lambda record: jobs_by_key[_config_key(record)], record_line)
    started = time.perf_counter()
    try:
        if remaining:
            _run_jobs(todo, remaining, watch, result, jobs=jobs, executor=executor, configs=configs)
        elif executor is None:
            result.executor = "nothing to play"
    except KeyboardInterrupt:
        result.interrupted = True
        watch.release()
    finally:
        result.seconds = time.perf_counter() - started
        if results_file is not None:
            results_file.close()
    order = dict(jobs_by_key)
    result.records.sort(key=lambda r: (order[_config_key(r)], r["index"]))
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
            if _failed_outside_agent(record) and (not held or held[0]["error"] == record["error"]):
                held.append(record)
                if len(held) >= self.windows[number]:
                    count = "the only game to play" if len(held) == 1 else f"the first {len(held)} games"
                    of = f" of {self.labels[number]}" if self.labels[number] else ""
                    why = record["error"]
                    if why == _WORKER_DIED:  # nothing but the agent runs in a worker that is known to start
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


def _resumed(path: str, jobs_by_key: Mapping[str, int], expected: Sequence[Mapping[str, Any]], games: int,
             seed: int) -> list[tuple[int, dict[str, Any]]]:
    """(configuration number, line) for every line of a file being resumed, after checking each of them.

    Refused, naming the line: a line that is not a game line (or not JSON), a game
    of another configuration or seed, a game index beyond `games`, a game twice.
    """
    numbered, cut = _numbered_results(path)
    agents = {e["pacman"] for e in expected}
    seen: dict[tuple[int, int], int] = {}
    kept = []
    for number, record in numbered:
        config_number = jobs_by_key.get(_config_key(record, agents))
        if config_number is None:
            values = _config_values(record, agents)
            nearest = min(expected, key=lambda e: sum(v != w for v, w in zip(values, _config_values(e))))
            differences = [f"{_FLAG_OF[k]} {_show(v)} in the file, {_show(w)} in the command"
                           for k, v, w in zip(CONFIG_FIELDS, values, _config_values(nearest)) if v != w]
            raise BatchError(f"{path}: line {number} (game {record['index']}) was played with another "
                             f"configuration: {'; '.join(differences)}; give the same flags, or another --out")
        index = record["index"]
        if index >= games:
            raise BatchError(f"{path}: line {number} is game {index}, beyond --games {games} (games 0-{games - 1}); "
                             f"give --games {index + 1} or more to continue this file, or another --out")
        if record.get("seed") != game_seed(seed, index):
            raise BatchError(f"{path}: line {number} (game {index}) has seed {record.get('seed')!r}, expected "
                             f"{game_seed(seed, index)}; the file was not written by this version")
        if (config_number, index) in seen:
            raise BatchError(f"{path}: line {number} is game {index} again (already on line "
                             f"{seen[config_number, index]}); a results file has each game once")
        seen[config_number, index] = number
        kept.append((config_number, record))
    if cut is not None:
        _cut(path, cut)  # only now that the file is known to be ours
    return kept


def _start_worker() -> None:
    """Workers leave Ctrl-C to the parent, which stops them and keeps every finished game; they run no batch."""
    global _in_worker
    _in_worker = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _worker_check(layouts: Sequence[str]) -> str | None:
    """Run in a worker before any game: None if it can play (imports, layouts), else what is wrong."""
    try:
        import agents  # noqa: F401  (what every game needs)
        from pacman import game  # noqa: F401
    except BaseException as exc:
        return f"the workers cannot import the project: {_failure(exc)}"
    for name in layouts:
        try:
            _layout(name)
        except BaseException as exc:
            return f"layout {name!r} cannot be loaded on the workers: {_failure(exc)}"
    return None


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


def _process_pool(workers: int) -> cf.ProcessPoolExecutor:
    """A pool of fresh processes; forked from a clean server process where the OS has one (fast, no threads)."""
    context = _WorkerContext()
    if _START_METHOD == "forkserver":
        context.set_forkserver_preload(["pacman.batch", "agents"])
    return cf.ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_start_worker)


def _stop_pool(pool: cf.Executor) -> None:
    """Stop a pool now: cancel queued games and kill the running ones (their results are not wanted)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            process.kill()
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(timeout=5)


def _check_workers(pool: cf.Executor, configs: Sequence[GameConfig], own: bool) -> None:
    """Ask one worker to start, import the project and load the layouts; BatchError if it cannot."""
    layouts = sorted({config.layout for config in configs})
    where = "worker processes" if own else "workers"
    try:
        future = pool.submit(_worker_check, layouts)
        problem = future.result(timeout=WORKER_START_TIMEOUT)
    except cf.BrokenExecutor:
        raise BatchError(f"the batch cannot run: its {where} exit as soon as they start (any message of theirs "
                         f"is above)") from None
    except cf.TimeoutError:
        raise BatchError(f"the batch cannot run: no worker answered within {WORKER_START_TIMEOUT:g} s") from None
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        raise BatchError(f"the batch cannot run: its {where} failed: {_failure(exc)}") from None
    if problem is not None:
        raise BatchError(f"the batch cannot run: {problem}")


def _run_jobs(todo: Iterable[GameJob], count: int, emit: Callable[[dict[str, Any]], None], result: BatchResult, *,
              jobs: int | None, executor: cf.Executor | None, configs: Sequence[GameConfig]) -> None:
    """Run `count` games keeping a few in flight per worker; rebuild our own pool when a worker process dies."""
    own = executor is None
    workers = jobs or default_jobs()
    workers = min(workers, count) if own else workers
    pool: cf.Executor = _process_pool(workers) if executor is None else executor
    result.executor = (f"process pool, {workers} worker{'s' if workers != 1 else ''}" if own
                       else result.executor or type(executor).__name__)
    limit = 2 * workers
    pending = iter(todo)
    exhausted = False
    running: dict[cf.Future, GameJob] = {}
    try:
        _check_workers(pool, configs, own)
        while not exhausted or running:
            while not exhausted and len(running) < limit:
                job = next(pending, None)
                if job is None:
                    exhausted = True
                    break
                running[pool.submit(play_game, job)] = job
            if not running:
                break
            done, _ = cf.wait(running, timeout=0.5, return_when=cf.FIRST_COMPLETED)
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
                except BaseException as exc:  # a Dask worker lost for good, an agent's exit on a thread...
                    record = _failed_record(job, f"{_WORKER_FAILED}{_failure(exc)}")
                emit(record)
            if dead:
                # Every game in flight went down with the pool; we cannot tell which one killed it,
                # so each suspect gets its retry alone in a fresh process.
                suspects = sorted(dead + list(running.values()), key=lambda j: (j.index, j.config_index))
                running.clear()
                _stop_pool(pool)
                for job in suspects:
                    result.retried += 1
                    emit(_run_alone(job))
                pool, own = _process_pool(workers), True  # a broken pool of the caller's is replaced by ours
    except BaseException:
        if own:
            _stop_pool(pool)
        else:
            for future in running:
                future.cancel()
        raise
    else:
        if own:
            pool.shutdown(wait=True)


def _run_alone(job: GameJob) -> dict[str, Any]:
    """Play one game in a process of its own; a failed line if that process dies too."""
    pool = _process_pool(1)
    try:
        return pool.submit(play_game, job).result()
    except cf.BrokenExecutor:
        return _failed_record(job, _WORKER_DIED)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        return _failed_record(job, f"{_WORKER_FAILED}{_failure(exc)}")
    finally:
        _stop_pool(pool)


# ---------------------------------------------------------------------------------------------------------------
# Dask


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

