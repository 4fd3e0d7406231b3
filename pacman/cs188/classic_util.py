"""The names CS188 student files import from ``util``, implemented in this project's own way.

Only the API (names, arguments, what each returns) follows the course; the code
is ours. Students reach this module as ``util``: ``classic/util.py`` re-exports
its camelCase names while a classic-generation file is loaded, ``current/util.py``
its snake_case names (`CURRENT_NAMES`: ``manhattan_distance``,
``Counter.arg_max``, ``Stack.is_empty`` ...) for a current-generation file. Every random draw uses Python's global `random`,
one ``random.random()`` per draw, so that a seeded `random` replays a game.
"""

from __future__ import annotations

import bisect
import collections
import heapq
import inspect
import itertools
import random
from typing import Any, Callable, Iterable, Sequence

__all__ = [
    "manhattanDistance", "lookup", "raiseNotDefined", "MethodNotImplemented", "Counter", "Stack", "Queue",
    "PriorityQueue", "PriorityQueueWithFunction", "nearestPoint", "flipCoin", "chooseFromDistribution",
    "sample", "sampleFromCounter", "normalize",
    "manhattan_distance", "raise_not_defined", "nearest_point", "flip_coin", "choose_from_distribution",
    "sample_from_counter", "CURRENT_NAMES",
]


def manhattanDistance(xy1: Sequence[float], xy2: Sequence[float]) -> float:
    """The grid distance ``|x1 - x2| + |y1 - y2|``."""
    return sum(abs(a - b) for a, b in zip(xy1, xy2))


def lookup(name: str, namespace: dict[str, Any]) -> Any:
    """`name` from a module's globals (how ``evalFn=better`` finds the student's function).

    A dotted name is imported (``package.module.attribute``). An unknown name is an
    Exception that names it.
    """
    module_name, dot, attribute = name.rpartition(".")
    if dot:
        return getattr(__import__(module_name, fromlist=[attribute]), attribute)
    try:
        return namespace[name]
    except KeyError:
        raise Exception(f"{name!r} is neither a function nor a class of this file") from None


class MethodNotImplemented(SystemExit):
    """What `raiseNotDefined` raises: an exit (status 1, as in the course) that names the unfinished method,
    so that a grader can report it as that test's failure rather than end the program."""

    def __init__(self, method: str, line: int, filename: str) -> None:
        super().__init__(1)
        self.method, self.line, self.filename = method, line, filename

    def __str__(self) -> str:
        return f"not implemented: {self.method}"


def raiseNotDefined() -> None:
    """Say which method is unfinished, then exit with status 1 (a `MethodNotImplemented`)."""
    caller = inspect.currentframe().f_back  # type: ignore[union-attr]
    name, filename, line = caller.f_code.co_name, caller.f_code.co_filename, caller.f_lineno
    print(f"not implemented: {name} ({filename}, line {line})")
    raise MethodNotImplemented(name, line, filename)


class Counter(collections.defaultdict):
    """A dict of numbers in which a missing key reads as 0, with the course's helper methods."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(int, *args, **kwargs)

    def __repr__(self) -> str:
        return f"Counter({dict(self)!r})"

    def incrementAll(self, keys: Iterable[Any], count: float) -> None:
        """Add `count` to the value of each key in `keys`."""
        for key in keys:
            self[key] += count

    def argMax(self) -> Any:
        """The key with the largest value (the first one inserted among equals); None if empty."""
        return max(self, key=self.__getitem__, default=None)

    def sortedKeys(self) -> list[Any]:
        """The keys from the largest value to the smallest (equal values keep their insertion order)."""
        return sorted(self, key=self.__getitem__, reverse=True)

    def totalCount(self) -> float:
        """The sum of all values."""
        return sum(self.values())

    def normalize(self) -> None:
        """Scale the values in place so that they sum to 1 (nothing happens when they sum to 0)."""
        total = self.totalCount()
        if total:
            self.divideAll(total)

    def divideAll(self, divisor: float) -> None:
        """Divide every value by `divisor`, in place."""
        for key in self:
            self[key] = self[key] / float(divisor)

    def copy(self) -> Counter:
        return Counter(self)

    def __mul__(self, other: Counter) -> float:
        """The dot product over the keys both counters hold."""
        return sum(value * other[key] for key, value in self.items() if key in other)

    def __add__(self, other: Counter) -> Counter:
        return Counter({key: self.get(key, 0) + other.get(key, 0) for key in {**self, **other}})

    def __sub__(self, other: Counter) -> Counter:
        return Counter({key: self.get(key, 0) - other.get(key, 0) for key in {**self, **other}})

    def __radd__(self, other: Counter) -> None:
        for key, value in other.items():
            self[key] += value

    # The current generation's names of the same methods.
    increment_all = incrementAll
    arg_max = argMax
    sorted_keys = sortedKeys
    total_count = totalCount
    divide_all = divideAll


class Stack:
    """A last-in, first-out container."""

    def __init__(self) -> None:
        self.list: collections.deque = collections.deque()

    def push(self, item: Any) -> None:
        self.list.append(item)

    def pop(self) -> Any:
        return self.list.pop()

    def isEmpty(self) -> bool:
        return not self.list

    is_empty = isEmpty


class Queue(Stack):
    """A first-in, first-out container."""

    def pop(self) -> Any:
        return self.list.popleft()


class PriorityQueue:
    """Items by increasing priority; among equal priorities, the first pushed comes out first."""

    def __init__(self) -> None:
        self.heap: list[tuple[float, int, Any]] = []
        self._order = itertools.count()

    def push(self, item: Any, priority: float) -> None:
        heapq.heappush(self.heap, (priority, next(self._order), item))

    def pop(self) -> Any:
        return heapq.heappop(self.heap)[-1]

    def isEmpty(self) -> bool:
        return not self.heap

    is_empty = isEmpty

    def update(self, item: Any, priority: float) -> None:
        """Give `item` a lower `priority` if it is queued with a higher one; queue it if it is absent."""
        queued = next((entry for entry in self.heap if entry[-1] == item), None)
        if queued is None:
            self.push(item, priority)
        elif priority < queued[0]:
            self.heap.remove(queued)
            self.heap.append((priority, queued[1], item))
            heapq.heapify(self.heap)


class PriorityQueueWithFunction(PriorityQueue):
    """A priority queue that computes each item's priority with `priorityFunction`."""

    def __init__(self, priorityFunction: Callable[[Any], float]) -> None:
        super().__init__()
        self.priorityFunction = priorityFunction

    def push(self, item: Any) -> None:  # type: ignore[override]
        super().push(item, self.priorityFunction(item))


def nearestPoint(pos: Sequence[float]) -> tuple[int, int]:
    """The grid point nearest `pos`, halves rounding up (``(2.5, 3)`` is ``(3, 3)``)."""
    return int(pos[0] + 0.5), int(pos[1] + 0.5)


def normalize(vectorOrCounter: Any) -> Any:
    """A copy scaled to sum to 1 (a Counter stays a Counter); the argument itself when it sums to 0."""
    if isinstance(vectorOrCounter, Counter):
        total = float(vectorOrCounter.totalCount())
        return Counter({key: value / total for key, value in vectorOrCounter.items()}) if total else vectorOrCounter
    total = float(sum(vectorOrCounter))
    return [value / total for value in vectorOrCounter] if total else vectorOrCounter


def _draw(weights: Sequence[float], values: Sequence[Any]) -> Any:
    """One `random.random()`, then the first value whose running total of weights reaches it."""
    totals = list(itertools.accumulate(weights))
    return values[min(bisect.bisect_left(totals, random.random()), len(values) - 1)]


def sample(distribution: Any, values: Sequence[Any] | None = None) -> Any:
    """A value drawn from `distribution`: a Counter (its keys in sorted order), or probabilities
    for `values` (normalised first when they do not sum to 1)."""
    if isinstance(distribution, Counter):
        keys = sorted(distribution)
        distribution, values = [distribution[key] for key in keys], keys
    if sum(distribution) != 1:
        distribution = normalize(distribution)
    return _draw(distribution, values)


def sampleFromCounter(counter: Counter) -> Any:
    """`sample` over a Counter, its keys in sorted order."""
    return sample(counter)


def chooseFromDistribution(distribution: Any) -> Any:
    """A draw from a dict (keys in sorted order) or from a list of ``(probability, value)`` pairs."""
    if isinstance(distribution, dict):
        return sample(distribution if isinstance(distribution, Counter) else Counter(distribution))
    return _draw([p for p, _ in distribution], [value for _, value in distribution])


def flipCoin(p: float) -> bool:
    """True with probability `p` (one `random.random()`)."""
    return random.random() < p


# -- the current (snake_case) generation's names -------------------------------------------------------------

manhattan_distance = manhattanDistance
raise_not_defined = raiseNotDefined
nearest_point = nearestPoint
flip_coin = flipCoin
choose_from_distribution = chooseFromDistribution
sample_from_counter = sampleFromCounter

#: What ``util`` offers a current-generation file (``current/util.py`` exports these).
CURRENT_NAMES = (
    "manhattan_distance", "lookup", "raise_not_defined", "MethodNotImplemented", "Counter", "Stack", "Queue",
    "PriorityQueue", "PriorityQueueWithFunction", "nearest_point", "flip_coin", "choose_from_distribution",
    "sample", "sample_from_counter", "normalize",
)
