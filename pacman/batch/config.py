"""What a batch plays: `GameConfig`, its checks, the seed of every game, the limits of a batch.

Game *i* of a batch gets the seed `game_seed(seed, i)`, derived with numpy's
`SeedSequence` from the batch seed and the index alone, so every configuration
of a sweep plays the same seeds (paired comparisons), a batch can be extended
with more games, and the result of a game never depends on which worker played
it or when. A configuration is identified in game lines by its *effective*
agent arguments (the given ones over the agent's defaults), so ``depth=2`` and
the defaults are one configuration. A configuration may also carry a `name`
(a comparison names its sides), which tells apart configurations that are
otherwise the same game setup; it is part of the key only when set, so lines
without one (every file of an unnamed batch) keep the keys they always had.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from dataclasses import dataclass, field
from typing import Any, Container, Mapping, Sequence

import numpy as np

from pacman.errors import PacmanError
from pacman.user_code import UserCodeOptions, current_options

__all__ = [
    "BatchError",
    "GameConfig",
    "GameJob",
    "CONFIG_FIELDS",
    "FLAG_OF",
    "MAX_GAMES",
    "MAX_CONFIGURATIONS",
    "MAX_SEED",
    "MAX_MOVE_TIME_LIMIT",
    "MAX_NAME_LENGTH",
    "game_seed",
    "default_jobs",
    "max_jobs",
    "check_batch_numbers",
    "validate_config",
    "is_loading_agents",
    "with_default_max_moves",
    "base_record",
    "config_values",
    "config_key",
    "show_value",
    "is_int",
]

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

#: The longest configuration name (it is written in every game line of its configuration).
MAX_NAME_LENGTH = 100

#: The flag of the command line that sets each configuration field (error messages name it).
FLAG_OF = {"layout": "--layout", "pacman": "--pacman", "agent_args": "--agent-args", "ghosts": "--ghosts",
           "num_ghosts": "--num-ghosts", "max_moves": "--max-moves", "move_time_limit": "--move-time-limit",
           "batch_seed": "--seed"}

#: Set while validate_config imports the agents of a configuration in this thread (a nested batch is refused).
_loading = threading.local()


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
    name: str | None = None
    """A name that sets this configuration apart from the same game setup under another name (the sides of a
    comparison); recorded in its lines, and part of their key, only when set."""

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
        """The config as it appears in every game line and in the summary (with the effective agent arguments);
        ``name`` only when it has one."""
        data = {"layout": self.layout, "pacman": self.pacman, "agent_args": self.effective_agent_args,
                "ghosts": self.ghosts, "num_ghosts": self.num_ghosts, "max_moves": self.max_moves,
                "move_time_limit": self.move_time_limit}
        if self.name is not None:
            data["name"] = self.name
        return data

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
    """`pacman.agent_specs.effective_agent_args` (classic agents' too) as canonical JSON, cached (lines and
    resumed files ask often).

    It is idempotent: the effective arguments of effective arguments are
    themselves, so a line written before lines recorded them (``{}`` for the
    defaults) and a line written since compare equal once both are passed here.
    """
    from pacman.agent_specs import effective_agent_args

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
    """One game of a batch: which configuration, which index, which seed, and how its user code is guarded."""

    config_index: int
    """Position of the configuration in the batch's list."""
    config: GameConfig
    """What to play."""
    index: int
    """The game's index, 0-based; its seed depends on it and on the batch seed only."""
    batch_seed: int
    """The batch's seed."""
    user_code: UserCodeOptions = field(default_factory=current_options, compare=False)
    """The options in force where the job was made (the command's ``--verbose`` and ``--import-seconds``), which
    the worker plays the game under: a worker process started earlier, or on another machine, follows them."""

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


def is_int(value: Any) -> bool:
    """An int that is not a bool (JSON and flags give both)."""
    return isinstance(value, int) and not isinstance(value, bool)


def check_batch_numbers(games: Any, seed: Any = 0, jobs: Any = None, configurations: int = 1) -> None:
    """Refuse numbers a batch cannot honour, naming the flag and the limit, before anything is started."""
    if not is_int(games) or games < 1:
        raise BatchError(f"--games must be a positive integer, got {games!r}")
    if games * configurations > MAX_GAMES:
        per = f" x {configurations:,} configurations" if configurations > 1 else ""
        raise BatchError(f"--games {games:,}{per}: a batch plays at most {MAX_GAMES:,} games")
    if not is_int(seed) or not 0 <= seed <= MAX_SEED:
        raise BatchError(f"--seed must be an integer from 0 to {MAX_SEED} (2**64 - 1), got {seed!r}")
    if jobs is not None:
        if not is_int(jobs) or jobs < 1:
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
    from pacman.agents import GHOST_KINDS, check_search_size, make_ghosts
    from pacman.agent_specs import make_pacman_agent
    from pacman.layout import load_layout

    if not isinstance(config, GameConfig):
        raise BatchError(f"expected a GameConfig, got {type(config).__name__}")
    name = config.name
    if name is not None and (not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME_LENGTH
                             or not name.isprintable()):
        raise BatchError(f"a configuration's name must be a printable, non-blank string of at most "
                         f"{MAX_NAME_LENGTH} characters, got {show_value(repr(name))}")
    for name in ("max_moves", "num_ghosts"):
        value = getattr(config, name)
        if value is not None and (not is_int(value) or value < (1 if name == "max_moves" else 0)):
            kind = "positive" if name == "max_moves" else "non-negative"
            raise BatchError(f"{FLAG_OF[name]} must be a {kind} integer, got {value!r}")
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
    from pacman.game import time_limit_problem

    problem = time_limit_problem(config.agent_kwargs.get("time_limit"), config.move_time_limit)
    if problem is not None:
        raise BatchError(problem)
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
                      move_time_limit=config.move_time_limit, name=config.name)


def with_default_max_moves(config: GameConfig) -> GameConfig:
    """`config` with its layout's default move limit (`pacman.limits.default_max_moves`) where it has none.

    What `pacman-ai batch` and `pacman-ai compare` play without --max-moves, so
    that no game runs forever; the limit is recorded in every line. `run_batch`
    itself keeps None as no limit, as `run_game` does.
    """
    import dataclasses

    from pacman.layout import load_layout
    from pacman.limits import DEFAULT, resolve_max_moves

    if config.max_moves is not None:
        return config
    return dataclasses.replace(config, max_moves=resolve_max_moves(load_layout(config.layout), DEFAULT))


def is_loading_agents() -> bool:
    """Whether this thread is inside `validate_config`, importing an agent's file."""
    return getattr(_loading, "active", False)


def _json_ready(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def base_record(job: GameJob) -> dict[str, Any]:
    """The start of a game line: its index, seed, configuration (effective agent arguments) and batch seed."""
    record: dict[str, Any] = {"index": job.index, "seed": job.seed}
    record.update(job.config.to_dict())
    record["batch_seed"] = job.batch_seed
    return record


def config_values(record: Mapping[str, Any], agents: Container[str] | None = None) -> list[Any]:
    """The configuration of a line, its agent arguments made effective (files from before they were recorded):
    the values of `CONFIG_FIELDS`, then the configuration's name (None for a line without one).

    With `agents`, only lines of those agents are made effective: a line read
    from a file may name any module, and finding an agent's defaults imports it.
    """
    values = [record.get(name) for name in (*CONFIG_FIELDS, "name")]
    args, pacman, ghosts = record.get("agent_args"), record.get("pacman"), record.get("ghosts")
    if isinstance(args, dict) and isinstance(pacman, str) and (agents is None or pacman in agents):
        values[2] = json.loads(_effective_args_json(pacman, _args_json(args), ghosts if isinstance(ghosts, str)
                                                    else None))
    return values


def config_key(record: Mapping[str, Any], agents: Container[str] | None = None) -> str:
    """`config_values` as one string: lines of one configuration have equal keys."""
    return json.dumps(config_values(record, agents), sort_keys=True)


def show_value(value: Any, limit: int = 100) -> str:
    """A value of a line or a flag for a one-line message (a hostile file's may be long: shortened)."""
    if isinstance(value, dict):
        text = ",".join(f"{k}={_plain(v)}" for k, v in value.items()) or "(none)"
    else:
        text = _plain(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
