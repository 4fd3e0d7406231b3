"""Headless batches of games: parallel, reproducible, resumable.

A batch plays `games` games of each `GameConfig`. Game *i* gets the seed
`game_seed(seed, i)`, derived with numpy's `SeedSequence` from the batch seed and
the index alone, so every configuration of a sweep plays the same seeds (paired
comparisons), a batch can be extended with more games, and the result of a game
never depends on which worker played it or when. Games run on any
`concurrent.futures.Executor`: a process pool (the default), a Dask cluster
(`dask_executor`), or anything else that can pickle `play_game`.

Each finished game is one JSON line, appended and flushed at once, so a crash or
Ctrl-C loses only the games in flight, and `resume=True` plays only the missing
ones. The lines carry their configuration, which is how a file and a command
that do not match are told apart.

Fields that depend on the machine and not on the seed (`TIMING_FIELDS`: times,
worker id and memory) differ between runs; everything else is identical
whatever the number of jobs or the executor.

This module never imports pygame.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import functools
import json
import multiprocessing
import os
import signal
import socket
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np

from pacman import files
from pacman.errors import PacmanError

__all__ = [
    "BatchError",
    "GameConfig",
    "GameJob",
    "BatchResult",
    "TIMING_FIELDS",
    "CONFIG_FIELDS",
    "game_seed",
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

_FLAG_OF = {"layout": "--layout", "pacman": "--pacman", "agent_args": "--agent-args", "ghosts": "--ghosts",
            "num_ghosts": "--num-ghosts", "max_moves": "--max-moves", "move_time_limit": "--move-time-limit",
            "batch_seed": "--seed"}

_WORKER_DIED = "the worker process died while playing this game, on its first run and on its retry"


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
    """Keyword arguments of the agent, as (name, value) pairs."""
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
        """The agent's keyword arguments as a dict."""
        return dict(self.agent_args)

    def to_dict(self) -> dict[str, Any]:
        """The config as it appears in every game line and in the summary."""
        return {"layout": self.layout, "pacman": self.pacman, "agent_args": self.agent_kwargs,
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


def validate_config(config: GameConfig) -> GameConfig:
    """Check a config before any game runs (layout, agent, its arguments, ghosts); resolve `num_ghosts`.

    Raises the narrow error of the bad part (LayoutError, AgentSpecError) or BatchError.
    """
    from agents import GHOST_KINDS, make_ghosts, make_pacman_agent
    from pacman.layout import load_layout

    layout = load_layout(config.layout)
    num_ghosts = layout.num_ghosts if config.num_ghosts is None else config.num_ghosts
    if not 0 <= num_ghosts <= layout.num_ghosts:
        raise BatchError(f"--num-ghosts {num_ghosts}: layout {config.layout!r} has "
                         f"{layout.num_ghosts} ghost{'s' if layout.num_ghosts != 1 else ''}")
    if config.ghosts not in GHOST_KINDS:
        make_ghosts(config.ghosts, 0)  # raises the registry's error naming the kinds
    make_pacman_agent(config.pacman, config.agent_kwargs)
    for name, value in (("max_moves", config.max_moves), ("move_time_limit", config.move_time_limit)):
        if value is not None and (isinstance(value, bool) or not value > 0):
            raise BatchError(f"{_FLAG_OF[name]} must be positive, got {value!r}")
    agent_args = json.loads(json.dumps(config.agent_kwargs))  # what a results file will hold
    return GameConfig(layout=config.layout, pacman=config.pacman, agent_args=tuple(agent_args.items()),
                      ghosts=config.ghosts, num_ghosts=num_ghosts, max_moves=config.max_moves,
                      move_time_limit=config.move_time_limit)


@functools.lru_cache(maxsize=8)
def _layout(name: str) -> Any:
    from pacman.layout import load_layout

    return load_layout(name)


def play_game(job: GameJob) -> dict[str, Any]:
    """Play one game of a batch and return its line (a JSON-ready dict). Never raises for the agent's faults.

    A fresh agent is built for every game, so nothing an agent caches survives
    its game; the layout is cached per worker process.
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
        result = run_game(layout, agent, ghosts, seed=job.seed, max_moves=config.max_moves,
                          move_time_limit=config.move_time_limit)
    except Exception as exc:  # an agent that cannot even be built is this game's crash, not the batch's
        return _failed_record(job, f"could not start the game: {type(exc).__name__}: {exc}",
                              seconds=time.perf_counter() - started)
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


def _base_record(job: GameJob) -> dict[str, Any]:
    record: dict[str, Any] = {"index": job.index, "seed": job.seed}
    record.update(job.config.to_dict())
    record["batch_seed"] = job.batch_seed
    return record


def _failed_record(job: GameJob, error: str, seconds: float = 0.0) -> dict[str, Any]:
    """The line of a game that produced no result: crashed, with `error`, no score."""
    record = _base_record(job)
    record.update(outcome="crashed", won=False, lost=False, score=None, moves=None, cut_off=False, crashed=True,
                  timed_out=False, failed_agent=None, error=error, seconds=round(seconds, 6),
                  ms_per_move_mean=None, ms_per_move_max=None, move_ms=[], worker=None, worker_rss_mb=None)
    return record


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


def _config_key(record: Mapping[str, Any]) -> str:
    return json.dumps([record.get(name) for name in CONFIG_FIELDS], sort_keys=True)


# ---------------------------------------------------------------------------------------------------------------
# Results files


def read_results(path: str | os.PathLike[str], *, repair: bool = False) -> list[dict[str, Any]]:
    """The game lines of a results file, in file order.

    A last line without its newline is what a killed run leaves behind: it is
    dropped (and with `repair`, cut from the file). Any other line that is not a
    JSON object is an error naming the file and line.
    """
    path = os.fspath(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise BatchError(f"{path}: cannot read: {exc.strerror or exc}") from None
    complete = data.rfind(b"\n") + 1
    if complete < len(data) and repair:
        try:
            with open(path, "r+b") as handle:
                handle.truncate(complete)
        except OSError as exc:
            raise BatchError(f"{path}: cannot cut its unfinished last line: {exc.strerror or exc}") from None
    records = []
    for number, line in enumerate(data[:complete].splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            raise BatchError(f"{path}: line {number} is not JSON; not a results file of pacman-ai batch?") from None
        if not isinstance(record, dict) or not isinstance(record.get("index"), int):
            raise BatchError(f"{path}: line {number} is not a game line (no integer 'index')")
        records.append(record)
    return records


def _check_matches(path: str, records: Sequence[Mapping[str, Any]], jobs_by_key: Mapping[str, Any],
                   expected: Sequence[Mapping[str, Any]]) -> None:
    """Refuse a results file whose games were played with another configuration than the command's."""
    for number, record in enumerate(records, start=1):
        if _config_key(record) in jobs_by_key:
            continue
        nearest = min(expected, key=lambda config: sum(record.get(k) != config[k] for k in CONFIG_FIELDS))
        differences = [f"{_FLAG_OF[k]} {_show(record.get(k))} in the file, {_show(nearest[k])} in the command"
                       for k in CONFIG_FIELDS if record.get(k) != nearest[k]]
        raise BatchError(f"{path}: game {record.get('index')} (line {number}) was played with another "
                         f"configuration: {'; '.join(differences)}; give the same flags, or another --out")


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return ",".join(f"{k}={_plain(v)}" for k, v in value.items()) or "(none)"
    return _plain(value)


class _ResultsFile:
    """An append-only JSONL file: one whole line per game, flushed as soon as it is written."""

    def __init__(self, path: str, truncate: bool) -> None:
        self.path = path
        try:
            self._handle = open(path, "w" if truncate else "a", encoding="utf-8")
        except OSError as exc:
            raise BatchError(f"{path}: cannot write: {exc.strerror or exc}") from None

    def write(self, record: Mapping[str, Any]) -> None:
        line = json.dumps(record, separators=(",", ":")) + "\n"
        try:
            self._handle.write(line)
            self._handle.flush()
        except OSError as exc:
            raise BatchError(f"{self.path}: cannot write: {exc.strerror or exc}") from None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._handle.close()


def check_writable(path: str | os.PathLike[str], flag: str) -> None:
    """Raise BatchError unless `path` can be created or replaced (its folder exists and is writable)."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise BatchError(f"{flag} {path}: is a folder, expected a file")
    if not os.path.isdir(folder):
        raise BatchError(f"{flag} {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise BatchError(f"{flag} {path}: not writable")


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
        the games it played per second of it.
        """
        from pacman.stats import summarize_games

        configurations = []
        for number, config in enumerate(self.configs):
            entry = config.to_dict()
            entry["label"] = config.label(_varying_fields(self.configs))
            entry.update(summarize_games(self.records_of(number)))
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


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


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
) -> BatchResult:
    """Play `games` games of every config and return their lines and summary.

    Games run in a pool of `jobs` worker processes (default: the cores), or on the
    given `executor` (which the caller owns; `jobs` then says how many games to
    keep in flight). With `out`, each game's line is appended to that JSONL file as
    it finishes; an existing file is refused unless `resume` (play only the
    missing games, after checking the file's configuration) or `overwrite`.
    `on_game` is called in this process with every new line (for progress).

    A worker process that dies mid-game has its game retried once in a fresh
    process, then recorded as crashed; the batch goes on. Ctrl-C stops the
    workers and returns what finished, with `interrupted` set.

    >>> result = run_batch(GameConfig.create("test", "greedy"), games=4, jobs=1)   # doctest: +SKIP
    >>> result.summary()["win_rate"]                                              # doctest: +SKIP
    1.0
    """
    if isinstance(configs, GameConfig):
        configs = [configs]
    if not configs:
        raise BatchError("no configuration to play")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise BatchError(f"--games must be a positive integer, got {games!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise BatchError(f"--seed must be a non-negative integer, got {seed!r}")
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise BatchError(f"--jobs must be a positive integer, got {jobs!r}")
    configs = [validate_config(config) for config in configs]
    if len({config for config in configs}) != len(configs):
        raise BatchError("the same configuration is listed twice")
    jobs_by_key: dict[str, int] = {}
    expected = []
    for number, config in enumerate(configs):
        base = _base_record(GameJob(number, config, 0, seed))
        jobs_by_key[_config_key(base)] = number
        expected.append(base)

    result = BatchResult(configs=list(configs), games=games, seed=seed)
    finished: set[tuple[int, int]] = set()
    results_file = None
    if out is not None:
        out = os.fspath(out)
        exists = check_out(out, resume=resume, overwrite=overwrite)
        if exists and resume:
            for record in _resumed(out, jobs_by_key, expected, games, seed):
                key = (jobs_by_key[_config_key(record)], record["index"])
                if key not in finished:
                    finished.add(key)
                    result.records.append(record)
        results_file = _ResultsFile(out, truncate=not resume)
    # Game by game across the configurations: a sweep that is stopped early has about as many games of each,
    # and the rate (the ETA) reflects the mix of slow and fast configurations from the start.
    todo = [GameJob(number, config, index, seed) for index in range(games)
            for number, config in enumerate(configs) if (number, index) not in finished]

    def emit(record: dict[str, Any]) -> None:
        if results_file is not None:
            results_file.write(record)
        result.records.append(record)
        result.played += 1
        if on_game is not None:
            on_game(record)

    started = time.perf_counter()
    try:
        if todo:
            _run_jobs(todo, emit, result, jobs=jobs, executor=executor)
        elif executor is None:
            result.executor = "nothing to play"
    except KeyboardInterrupt:
        result.interrupted = True
    finally:
        result.seconds = time.perf_counter() - started
        if results_file is not None:
            results_file.close()
    order = {key: number for key, number in jobs_by_key.items()}
    result.records.sort(key=lambda r: (order[_config_key(r)], r["index"]))
    return result


def _resumed(path: str, jobs_by_key: Mapping[str, int], expected: Sequence[Mapping[str, Any]], games: int,
             seed: int) -> list[dict[str, Any]]:
    """The lines of a file being resumed that belong to this command's games, after checking they match."""
    records = read_results(path)
    _check_matches(path, records, jobs_by_key, expected)
    read_results(path, repair=True)  # only now that the file is known to be ours: cut an unfinished last line
    kept = []
    for record in records:
        if record["index"] >= games:
            continue  # a longer earlier run: those games stay in the file but are not part of this batch
        if record.get("seed") != game_seed(seed, record["index"]):
            raise BatchError(f"{path}: game {record['index']} has seed {record.get('seed')}, expected "
                             f"{game_seed(seed, record['index'])}; the file was not written by this version")
        kept.append(record)
    return kept


def _ignore_sigint() -> None:
    """Workers leave Ctrl-C to the parent, which stops them and keeps every finished game."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _process_pool(workers: int) -> cf.ProcessPoolExecutor:
    """A pool of fresh processes; forked from a clean server process where the OS has one (fast, no threads)."""
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if "forkserver" in methods:
        context.set_forkserver_preload(["pacman.batch", "agents"])
    return cf.ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_ignore_sigint)


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


def _run_jobs(todo: Sequence[GameJob], emit: Callable[[dict[str, Any]], None], result: BatchResult, *,
              jobs: int | None, executor: cf.Executor | None) -> None:
    """Run games keeping a few in flight per worker; rebuild our own pool when a worker process dies."""
    own = executor is None
    workers = jobs or default_jobs()
    workers = min(workers, len(todo)) if own else workers
    pool: cf.Executor = _process_pool(workers) if executor is None else executor
    result.executor = (f"process pool, {workers} worker{'s' if workers != 1 else ''}" if own
                       else result.executor or type(executor).__name__)
    limit = 2 * workers
    pending = deque(todo)
    running: dict[cf.Future, GameJob] = {}
    try:
        while pending or running:
            while pending and len(running) < limit:
                job = pending.popleft()
                running[pool.submit(play_game, job)] = job
            done, _ = cf.wait(running, timeout=0.5, return_when=cf.FIRST_COMPLETED)
            dead: list[GameJob] = []
            for future in done:
                job = running.pop(future)
                try:
                    record = future.result()
                except cf.BrokenExecutor:
                    dead.append(job)
                    continue
                except Exception as exc:  # e.g. a Dask worker lost for good: this game failed, the batch goes on
                    record = _failed_record(job, f"the worker failed: {type(exc).__name__}: {exc}")
                emit(record)
            if dead:
                # Every game in flight went down with the pool; we cannot tell which one killed it,
                # so each suspect gets its retry alone in a fresh process.
                suspects = sorted(dead + list(running.values()), key=lambda j: (j.config_index, j.index))
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
                if isinstance(exc, (OSError, TimeoutError)):
                    detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                    raise BatchError(f"--dask {address}: cannot reach a Dask scheduler within {timeout:g} s "
                                     f"({detail})") from None
                raise BatchError(f"--dask {address}: what answered there is not a Dask scheduler "
                                 f"({type(exc).__name__})") from None
            description = f"Dask scheduler {address}"
        threads = sum(client.nthreads().values()) or 1
        description += f", {threads} thread{'s' if threads != 1 else ''}"
        executor = client.get_executor(pure=False)
        try:
            yield executor, threads, description
        finally:
            executor.shutdown(wait=False)

