"""The classic ``util`` module's API, written here: what CS188 student files import from ``util``.

Students reach it as ``util`` (``pacman/compat/cs188/classic/util.py`` re-exports
this module while their file is loaded). Sampling uses Python's global `random`,
as the classic code does, so a seeded `random` replays a game.
"""

from __future__ import annotations

import heapq
import inspect
import random
from typing import Any, Iterable

__all__ = [
    "manhattanDistance", "lookup", "raiseNotDefined", "MethodNotImplemented", "Counter", "Stack", "Queue",
    "PriorityQueue", "PriorityQueueWithFunction", "nearestPoint", "flipCoin", "chooseFromDistribution",
    "sample", "sampleFromCounter", "normalize",
]


def manhattanDistance(xy1: tuple[float, float], xy2: tuple[float, float]) -> float:
    """|x1 - x2| + |y1 - y2|."""
    return abs(xy1[0] - xy2[0]) + abs(xy1[1] - xy2[1])


def lookup(name: str, namespace: dict[str, Any]) -> Any:
    """The object called `name` in `namespace` (a module's globals), or ``module.name`` imported.

    Raises an Exception naming `name` when it is not there, as the classic helper does.
    """
    dots = name.count(".")
    if dots > 0:
        module_name, obj_name = ".".join(name.split(".")[:-1]), name.split(".")[-1]
        module = __import__(module_name)
        return getattr(module, obj_name)
    if name in namespace:
        return namespace[name]
    raise Exception(f"{name} not found as a method or class")


class MethodNotImplemented(SystemExit):
    """Raised by `raiseNotDefined`: a SystemExit (exit code 1, as the classic helper exits) that
    says which method was not implemented, so a grader can report it as that test's failure."""

    def __init__(self, method: str, line: int, filename: str) -> None:
        super().__init__(1)
        self.method = method
        self.line = line
        self.filename = filename

    def __str__(self) -> str:
        return f"not implemented: {self.method}"


def raiseNotDefined() -> None:
    """Print which method is not implemented yet and exit (exit code 1)."""
    caller = inspect.stack()[1]
    print(f"*** Method not implemented: {caller.function} at line {caller.lineno} of {caller.filename}")
    raise MethodNotImplemented(caller.function, caller.lineno, caller.filename)


class Counter(dict):
    """A dict whose missing keys read as 0 (and are then stored, as in a defaultdict)."""

    def __getitem__(self, key: Any) -> Any:
        self.setdefault(key, 0)
        return dict.__getitem__(self, key)

    def incrementAll(self, keys: Iterable[Any], count: float) -> None:
        """Add `count` to every key in `keys`."""
        for key in keys:
            self[key] += count

    def argMax(self) -> Any:
        """The key with the largest value (the first such key), or None when empty."""
        if len(self) == 0:
            return None
        items = list(self.items())
        values = [item[1] for item in items]
        return items[values.index(max(values))][0]

    def sortedKeys(self) -> list[Any]:
        """The keys, largest value first."""
        return [key for key, _ in sorted(self.items(), key=lambda item: item[1], reverse=True)]

    def totalCount(self) -> float:
        """The sum of the values."""
        return sum(self.values())

    def normalize(self) -> None:
        """Divide every value by the total, so they sum to 1 (nothing when the total is 0)."""
        total = float(self.totalCount())
        if total == 0:
            return
        for key in list(self.keys()):
            self[key] = self[key] / total

    def divideAll(self, divisor: float) -> None:
        """Divide every value by `divisor`."""
        divisor = float(divisor)
        for key in self:
            self[key] /= divisor

    def copy(self) -> Counter:
        return Counter(dict.copy(self))

    def __mul__(self, other: Counter) -> float:
        """The dot product over the keys both hold."""
        small, big = (self, other) if len(self) <= len(other) else (other, self)
        return sum(small[key] * big[key] for key in small if key in big)

    def __radd__(self, other: Counter) -> None:
        for key, value in other.items():
            self[key] += value

    def __add__(self, other: Counter) -> Counter:
        out = Counter()
        for key in self:
            out[key] = self[key] + (other[key] if key in other else 0)
        for key in other:
            if key not in self:
                out[key] = other[key]
        return out

    def __sub__(self, other: Counter) -> Counter:
        out = Counter()
        for key in self:
            out[key] = self[key] - (other[key] if key in other else 0)
        for key in other:
            if key not in self:
                out[key] = -1 * other[key]
        return out


class Stack:
    """Last in, first out."""

    def __init__(self) -> None:
        self.list: list[Any] = []

    def push(self, item: Any) -> None:
        self.list.append(item)

    def pop(self) -> Any:
        return self.list.pop()

    def isEmpty(self) -> bool:
        return len(self.list) == 0


class Queue:
    """First in, first out."""

    def __init__(self) -> None:
        self.list: list[Any] = []

    def push(self, item: Any) -> None:
        self.list.insert(0, item)

    def pop(self) -> Any:
        return self.list.pop()

    def isEmpty(self) -> bool:
        return len(self.list) == 0


class PriorityQueue:
    """Lowest priority first; equal priorities come out in the order they went in."""

    def __init__(self) -> None:
        self.heap: list[tuple[float, int, Any]] = []
        self.count = 0

    def push(self, item: Any, priority: float) -> None:
        heapq.heappush(self.heap, (priority, self.count, item))
        self.count += 1

    def pop(self) -> Any:
        return heapq.heappop(self.heap)[2]

    def isEmpty(self) -> bool:
        return len(self.heap) == 0

    def update(self, item: Any, priority: float) -> None:
        """Lower `item`'s priority to `priority` if it is higher; push it if it is not queued."""
        for index, (p, c, queued) in enumerate(self.heap):
            if queued == item:
                if p <= priority:
                    break
                del self.heap[index]
                self.heap.append((priority, c, item))
                heapq.heapify(self.heap)
                break
        else:
            self.push(item, priority)


class PriorityQueueWithFunction(PriorityQueue):
    """A priority queue whose priorities come from a function of the item."""

    def __init__(self, priorityFunction: Any) -> None:
        self.priorityFunction = priorityFunction
        super().__init__()

    def push(self, item: Any) -> None:  # type: ignore[override]
        super().push(item, self.priorityFunction(item))


def nearestPoint(pos: tuple[float, float]) -> tuple[int, int]:
    """The grid point nearest `pos` (x.5 rounds up)."""
    x, y = pos
    return int(x + 0.5), int(y + 0.5)


def normalize(vectorOrCounter: Any) -> Any:
    """A Counter or list scaled to sum to 1 (returned unchanged when its sum is 0)."""
    if isinstance(vectorOrCounter, Counter):
        out = Counter()
        total = float(vectorOrCounter.totalCount())
        if total == 0:
            return vectorOrCounter
        for key in vectorOrCounter.keys():
            out[key] = vectorOrCounter[key] / total
        return out
    total = float(sum(vectorOrCounter))
    if total == 0:
        return vectorOrCounter
    return [value / total for value in vectorOrCounter]


def sample(distribution: Any, values: list[Any] | None = None) -> Any:
    """One draw of `random.random()`, walked along the distribution: the first value whose
    cumulative probability reaches the draw. A Counter is sorted by key first; a list of
    probabilities that does not sum to 1 is normalised."""
    if isinstance(distribution, Counter):
        items = sorted(distribution.items())
        distribution = [item[1] for item in items]
        values = [item[0] for item in items]
    if sum(distribution) != 1:
        distribution = normalize(distribution)
    choice = random.random()
    i, total = 0, distribution[0]
    while choice > total:
        i += 1
        total += distribution[i]
    return values[i]


def sampleFromCounter(counter: Counter) -> Any:
    """`sample` over a Counter, its keys in sorted order."""
    items = sorted(counter.items())
    return sample([value for _, value in items], [key for key, _ in items])


def chooseFromDistribution(distribution: Any) -> Any:
    """A draw from a dict/Counter (keys in sorted order) or a list of (probability, value) pairs."""
    if isinstance(distribution, dict):
        return sampleFromCounter(distribution if isinstance(distribution, Counter) else Counter(distribution))
    r = random.random()
    base = 0.0
    for prob, element in distribution:
        base += prob
        if r <= base:
            return element
    return distribution[-1][1]


def flipCoin(p: float) -> bool:
    """True with probability `p` (one `random.random()`)."""
    return random.random() < p

