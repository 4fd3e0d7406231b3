"""Memory checked before it is taken: one up-front estimate and one refusal for every big allocation.

The vector environment (``make_vec``), the exact solver and batch runs each
estimate the bytes a request needs from its size alone (games, cells, states),
before allocating anything, and `check_memory` refuses one that would not fit in
the memory this machine has free, with a `MemoryRefusal` (a `PacmanError`: exit
status 2 on the command line) naming the estimate and the machine's memory:

    make_vec(num_envs=10,000,000) on 'medium' needs about 102.6 GB (10,264 bytes a game), more than the
    18.2 GB of memory this machine has free (23.4 GB in all)

The figures per unit are measured (see each constant) and rounded up: an
estimate is meant to refuse what surely cannot fit, quickly, not to be exact.
Free memory is Linux's ``MemAvailable`` (and a cgroup's limit, in a container),
or less if `LIMIT_VARIABLE` (``PACMAN_AI_MEMORY_LIMIT=4G``) says so; where the
system does not say, nothing is refused.
"""

from __future__ import annotations

import os
from typing import NamedTuple

from pacman.errors import PacmanError

__all__ = ["MemoryRefusal", "Memory", "LIMIT_VARIABLE", "machine_memory", "check_memory", "format_bytes",
           "vector_env_bytes", "solver_bytes", "batch_bytes", "SOLVER_NODE_BYTES", "WORKER_BYTES",
           "RECORD_BYTES", "MOVE_TIME_BYTES", "MCTS_ITERATION_BYTES"]

SOLVER_NODE_BYTES = 640
"""Peak bytes per state the exact solver explores (`tiny`: 11.6 million states peak at about 7 GB)."""
WORKER_BYTES = 128 * 2**20
"""A batch worker process: the interpreter, numpy, the game and a depth-2 search (about 40 MB measured)."""
RECORD_BYTES = 4096
"""One finished game's line as a batch keeps it in memory until the summary (about 4 KB measured)."""
MCTS_ITERATION_BYTES = 1024
"""One iteration of MCTSAgent's tree for a decision: a node kept until the move is made (19.3 MB peak for
20,000 iterations on `medium`, measured with tracemalloc)."""
MOVE_TIME_BYTES = 32
"""Each move's time in a bounded game's line (``move_ms``: a float in a list)."""
_COUNTED_MOVES = 500
"""Move times counted per line of a bounded game (its limit, at most this many: most games are far shorter)."""


class MemoryRefusal(PacmanError):
    """A request refused before it was allocated: it would need more memory than this machine has free."""


class Memory(NamedTuple):
    """This machine's memory in bytes: `total` and `available` (free for a new allocation)."""

    total: int
    available: int
    capped: bool = False
    """`available` is `LIMIT_VARIABLE`'s, lower than what the system says."""


LIMIT_VARIABLE = "PACMAN_AI_MEMORY_LIMIT"
"""An environment variable that caps the memory the checks take as free: bytes, or with K, M, G or T
(``PACMAN_AI_MEMORY_LIMIT=4G``), to keep one job within its share of a shared machine."""


def _limit_from_environment() -> int | None:
    text = os.environ.get(LIMIT_VARIABLE, "").strip()
    if not text:
        return None
    scale = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}.get(text[-1].upper(), 1)
    number = text[:-1] if scale != 1 else text
    try:
        value = float(number) * scale
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise PacmanError(f"{LIMIT_VARIABLE}={text!r}: expected a number of bytes, optionally with K, M, G or T "
                          f"(e.g. 4G)")
    return int(value)


def _meminfo() -> dict[str, int]:
    values = {}
    try:
        with open("/proc/meminfo", encoding="ascii") as file:
            for line in file:
                name, _, rest = line.partition(":")
                words = rest.split()
                if words and words[0].isdigit():
                    values[name] = int(words[0]) * (1024 if words[1:] == ["kB"] else 1)
    except OSError:
        pass
    return values


def _cgroup_limit() -> tuple[int, int] | None:
    """(limit, used) of this process's cgroup (v2), if it has a limit."""
    try:
        with open("/sys/fs/cgroup/memory.max", encoding="ascii") as file:
            text = file.read().strip()
        if text == "max":
            return None
        with open("/sys/fs/cgroup/memory.current", encoding="ascii") as file:
            used = int(file.read().strip())
        return int(text), used
    except (OSError, ValueError):
        return None


def machine_memory() -> Memory | None:
    """This machine's total and available memory, or None where the system does not say."""
    info = _meminfo()
    total, available = info.get("MemTotal"), info.get("MemAvailable")
    if total is None:
        try:
            total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
            available = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            return None
    if available is None:
        available = total
    limit = _cgroup_limit()
    if limit is not None:
        total = min(total, limit[0])
        available = min(available, max(0, limit[0] - limit[1]))
    cap = _limit_from_environment()
    if cap is not None and cap < available:
        return Memory(total, cap, capped=True)
    return Memory(total, available)


def format_bytes(count: float) -> str:
    """``512 bytes``, ``3.4 MB``, ``102.6 GB`` (powers of 1024)."""
    if count < 1024:
        return f"{int(count):,} bytes"
    for unit in ("KB", "MB", "GB", "TB", "PB"):
        count /= 1024
        if count < 1024 or unit == "PB":
            return f"{count:,.1f} {unit}"
    raise AssertionError("unreachable")


def check_memory(what: str, needed: int, detail: str = "", memory: Memory | None = None) -> None:
    """Refuse `what` (a MemoryRefusal naming it, `needed` bytes, `detail` and the machine's memory) when it
    needs more than the memory available; nothing where the machine's memory is unknown."""
    memory = machine_memory() if memory is None else memory
    if memory is None or needed <= memory.available:
        return
    free = f"the {format_bytes(memory.available)} of memory " + (
        f"{LIMIT_VARIABLE} allows" if memory.capped else "this machine has free")
    raise MemoryRefusal(f"{what} needs about {format_bytes(needed)}{f' ({detail})' if detail else ''}, more than "
                        f"{free} ({format_bytes(memory.total)} in all)")


def vector_env_bytes(cells: int, observation_bytes: int, num_envs: int, compiled: bool) -> int:
    """Bytes of `num_envs` games of a maze with `cells` cells and observations of `observation_bytes`.

    Compiled (measured on test, medium, tricky and large after a reset and a step:
    6.3 to 7.8 observations' worth a game): 7 observations and 1 KB a game. Python
    `PacmanEnv`s under SyncVectorEnv (measured 190 bytes a cell on medium and large,
    2.5 MB a game with pixel observations): 200 bytes a cell, 13 observations and 8 KB.
    """
    if compiled:
        return num_envs * (7 * observation_bytes + 1024)
    return num_envs * (200 * cells + 13 * observation_bytes + 8192)


def solver_bytes(states: int) -> int:
    """Peak bytes of the exact solver exploring `states` states."""
    return states * SOLVER_NODE_BYTES


def batch_bytes(games: int, max_moves: list[int | None], workers: int) -> int:
    """Bytes a batch of `games` games of each configuration (their move limits `max_moves`) holds, on `workers`
    worker processes: every line until the summary, and the workers."""
    lines = sum(games * (RECORD_BYTES + MOVE_TIME_BYTES * min(limit or 0, _COUNTED_MOVES)) for limit in max_moves)
    return lines + workers * WORKER_BYTES
