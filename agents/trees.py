"""Explicit game trees, read from JSON and solved by the generic expectiminimax search.

The JSON format
---------------

- A leaf is a number, or ``{"value": n}``.
- An inner node is ``{"max": [children]}``, ``{"min": [children]}`` or
  ``{"chance": [children], "p": [probabilities]}``. Without ``"p"`` a chance node
  is uniform; with it, ``"p"`` has one finite number >= 0 per child and the
  numbers sum to 1 (within 1e-9; they are then divided by their exact sum, so
  0.5, 0.3333333333333333, 0.16666666666666666 is used as is, and 0.5,
  0.5000000001 as two halves to within rounding).
- Any node object may carry ``"action"`` (a string: the label of the edge into
  it; by default a child's label is its index, "0", "1", ...) and ``"name"`` (a
  string, informational only). Sibling labels must differ. (The root may carry
  them too; its action is ignored.)
- An inner node may carry ``"value"`` (a number): its heuristic value, used when a
  depth limit cuts the search there. A depth-limited search that reaches an
  inner node without one is an error.
- Booleans are not numbers; NaN and infinities are rejected; so are unknown keys
  and objects naming more than one node kind.

Depth counts edges from the root, whatever the node kinds; no depth means the
whole tree. The best action is the label of the first best child of a max root
(highest value) or a min root (lowest value); a chance or leaf root, or a
depth-0 search, has no action (None).

Every error is a `TreeError` with a one-line message that names the source and
the JSON path of the bad node: ``$`` is the root, ``$.max[1]`` the second child
of a max root, ``$.max[1].chance[0]`` the first child of that one, and
``$.max[1].chance.p`` the probability list of that chance node.

Trees may be at most `MAX_TREE_DEPTH` (1000) edges deep and hold at most
`MAX_TREE_NODES` (200,000) nodes; a tree file may be at most `MAX_TREE_BYTES`
(16 MB) and must be a regular file (a FIFO or a device is refused, not read).
Deeper ones (or self-referencing data) are a `TreeError` ("tree is too deep"),
never a RecursionError; an object with the same key twice is an error too (JSON
would silently keep the last). Parsing never recurses; the JSON decoder and the search do, so
`load_tree` and `solve_tree` raise Python's recursion limit for the duration of
the call (and restore it) so that trees up to that depth always work. (Calling
``Searcher(TreeGame(root)).search`` directly on a tree deeper than about 900
levels needs the same.)

Example::

    >>> result = solve_tree(parse_tree({"max": [{"chance": [10, 10]}, {"chance": [9, 100]}]}))
    >>> tree_report(result)
    {'value': 54.5, 'action': '1'}
"""

from __future__ import annotations

import json
import math
import numbers
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from os import PathLike
from typing import Any, Iterator, Sequence

from pacman.agents.search import CHANCE, MAX, MIN, TERMINAL, Searcher, SearchResult
from pacman.errors import TreeError
from pacman.files import read_input_file

__all__ = [
    "MAX_TREE_DEPTH",
    "MAX_TREE_NODES",
    "MAX_TREE_BYTES",
    "PROBABILITY_TOLERANCE",
    "TreeNode",
    "TreeGame",
    "parse_tree",
    "decode_tree_json",
    "load_tree",
    "solve_tree",
    "tree_report",
    "format_tree_result",
]

#: The deepest a node may lie below the root (in edges).
MAX_TREE_DEPTH = 1000
#: The most nodes a tree may have (leaves included): a bound on memory and time.
MAX_TREE_NODES = 200_000
#: The largest tree file read.
MAX_TREE_BYTES = 16 << 20
#: How far the probabilities of a chance node may sum from 1.
PROBABILITY_TOLERANCE = 1e-9
_TOLERANCE_TEXT = "1e-9"

_KINDS = (MAX, MIN, CHANCE)
_KNOWN_KEYS = frozenset({MAX, MIN, CHANCE, "p", "value", "action", "name"})
_EXPECTED = 'expected max, min, chance, or a leaf number / {"value": n}'


class _Path:
    """A JSON path, built as a linked list so that deep trees need no long strings until an error."""

    __slots__ = ("parent", "segment")

    def __init__(self, parent: _Path | None, segment: str) -> None:
        self.parent = parent
        self.segment = segment

    def child(self, segment: str) -> _Path:
        return _Path(self, segment)

    def __str__(self) -> str:
        parts = []
        node: _Path | None = self
        while node is not None:
            parts.append(node.segment)
            node = node.parent
        return "".join(reversed(parts))


_ROOT_PATH = _Path(None, "$")


@dataclass(frozen=True, eq=False, repr=False, slots=True)
class TreeNode:
    """One node of a parsed game tree. Immutable; compared by identity.

    `kind` is one of the search constants MAX, MIN, CHANCE or TERMINAL (a leaf).
    `value` is a leaf's value, or an inner node's heuristic (None if it has none).
    """

    kind: str
    children: tuple[TreeNode, ...] = ()
    probabilities: tuple[float, ...] = ()
    """One per child for a chance node (filled in when uniform, rescaled to sum to 1); empty otherwise."""
    label: str = ""
    """The action leading here from the parent (the child index by default; "" at the root)."""
    name: str | None = None
    value: float | None = None
    height: int = 0
    """Edges from this node down to its deepest leaf."""
    low: float = 0.0
    """A lower bound on every value the search can compute for any node of this subtree."""
    high: float = 0.0
    """An upper bound on every value the search can compute for any node of this subtree."""
    source: str = "<tree>"
    _path: _Path = field(default=_ROOT_PATH, compare=False)

    @property
    def path(self) -> str:
        """This node's JSON path, e.g. ``$.max[1].chance[0]``."""
        return str(self._path)

    @property
    def is_leaf(self) -> bool:
        return self.kind == TERMINAL

    @property
    def actions(self) -> tuple[str, ...]:
        """The labels of the children, in order."""
        return tuple(child.label for child in self.children)

    def __repr__(self) -> str:
        if self.kind == TERMINAL:
            return f"TreeNode(leaf {self.value!r} at {self.path})"
        heuristic = "" if self.value is None else f", value {self.value!r}"
        return f"TreeNode({self.kind} with {len(self.children)} children{heuristic} at {self.path})"


# -- parsing ---------------------------------------------------------------------------


def _show(value: Any) -> str:
    """A short one-line rendering of a JSON value for an error message."""
    if isinstance(value, str):
        text = repr(value)
    else:
        try:
            text = json.dumps(value)
        except (TypeError, ValueError):
            text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:37] + "..."


def _type_name(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    return _show(value)


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source

    def error(self, path: _Path | str | None, message: str) -> TreeError:
        where = "" if path is None else f"{path}: "
        return TreeError(f"{self.source}: {where}{message}")

    def number(self, value: Any, path: _Path | str, what: str = "value") -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.error(path, f"{what} {_show(value)} is not a number")
        try:
            number = float(value)
        except OverflowError:
            raise self.error(path, f"{what} {_show(value)} is too large") from None
        if not math.isfinite(number):
            raise self.error(path, f"{what} {_show(value)} is not a finite number")
        return number

    def label(self, data: Any, index: int, path: _Path) -> str:
        if isinstance(data, dict) and "action" in data:
            label = data["action"]
            if not isinstance(label, str):
                raise self.error(path.child(".action"), f"action {_show(label)} is not a string")
            return label
        return str(index)

    def parse(self, data: Any) -> TreeNode:
        # Pass 1, top-down and in document order: validate each node and record it.
        # A record is [kind, value, name, label, probabilities, child record indexes, path, depth].
        records: list[list[Any]] = []
        self.label(data, 0, _ROOT_PATH)  # the root's action labels nothing, but it is a string like any other
        stack: list[tuple[Any, _Path, int, str, int | None]] = [(data, _ROOT_PATH, 0, "", None)]
        while stack:
            item, path, depth, label, parent = stack.pop()
            if depth > MAX_TREE_DEPTH:
                raise self.error(None, f"tree is too deep (more than {MAX_TREE_DEPTH} levels below the root)")
            index = len(records)
            if parent is not None:
                records[parent][5].append(index)
            kind, value, name, children, probabilities = self.node(item, path)
            if len(records) + len(stack) + 1 + len(children) > MAX_TREE_NODES:
                raise self.error(None, f"tree has more than {MAX_TREE_NODES:,} nodes (the limit)")
            records.append([kind, value, name, label, probabilities, [], path, depth])
            if children:
                list_path = path.child(f".{kind}")
                labels: dict[str, int] = {}
                pending = []
                for i, child in enumerate(children):
                    child_path = list_path.child(f"[{i}]")
                    child_label = self.label(child, i, child_path)
                    if child_label in labels:
                        raise self.error(child_path, f"duplicate action {child_label!r} "
                                                     f"(also the label of {list_path}[{labels[child_label]}])")
                    labels[child_label] = i
                    pending.append((child, child_path, depth + 1, child_label, index))
                stack.extend(reversed(pending))

        # Pass 2, bottom-up: build the immutable nodes (children always follow their parent).
        # ranges[i] bounds every value the search can compute for node i (at any depth limit),
        # with the search's own floating-point operations (so a chance average of leaves that
        # are all 3 may be 3.0000000000000004, and bounds must say so).
        nodes: list[TreeNode | None] = [None] * len(records)
        ranges: list[tuple[float, float]] = [(0.0, 0.0)] * len(records)
        for index in range(len(records) - 1, -1, -1):
            kind, value, name, label, probabilities, child_indexes, path, _ = records[index]
            children = tuple(nodes[i] for i in child_indexes)
            if not children:
                height, low, high = 0, value, value
                ranges[index] = (value, value)
            else:
                height = 1 + max(child.height for child in children)
                child_ranges = [ranges[i] for i in child_indexes]
                if kind == MAX:
                    lo = max(r[0] for r in child_ranges)
                    hi = max(r[1] for r in child_ranges)
                elif kind == MIN:
                    lo = min(r[0] for r in child_ranges)
                    hi = min(r[1] for r in child_ranges)
                else:  # the same sums, in the same order, as Searcher's (float ops are monotone)
                    lo = hi = 0.0
                    for p, (a, b) in zip(probabilities, child_ranges):
                        lo += p * a
                        hi += p * b
                if value is not None:  # a depth limit may cut here
                    lo, hi = min(lo, value), max(hi, value)
                ranges[index] = (lo, hi)
                low = min(lo, min(child.low for child in children))
                high = max(hi, max(child.high for child in children))
            nodes[index] = TreeNode(kind, children, probabilities, label, name, value,
                                    height, low, high, self.source, path)
        root = nodes[0]
        assert root is not None
        return root

    def node(self, data: Any, path: _Path) -> tuple[str, float | None, str | None, Sequence[Any], tuple[float, ...]]:
        """Validate one node (not its children): kind, value, name, children, probabilities."""
        if not isinstance(data, dict):
            if isinstance(data, (list, tuple)):
                raise self.error(path, f"a list is not a node ({_EXPECTED}); "
                                       'did you forget {"max": ...}?')
            return TERMINAL, self.number(data, path), None, (), ()
        for key in data:
            if not isinstance(key, str):
                raise self.error(path, f"key {key!r} is not a string")
        kinds = [key for key in _KINDS if key in data]
        unknown = [key for key in data if key not in _KNOWN_KEYS]
        if len(kinds) > 1:
            raise self.error(path, f"more than one node kind ({', '.join(kinds)}); a node has exactly one")
        name = data.get("name")
        if name is not None and not isinstance(name, str):
            raise self.error(path.child(".name"), f"name {_show(name)} is not a string")
        if "name" in data and name is None:
            raise self.error(path.child(".name"), "name null is not a string")

        if not kinds:
            if "value" not in data:
                if unknown:
                    raise self.error(path, f"unknown node kind {unknown[0]!r} ({_EXPECTED})")
                raise self.error(path, f"object has no node kind ({_EXPECTED})")
            if unknown:
                raise self.error(path, f"unknown key {unknown[0]!r} in a leaf (allowed: value, action, name)")
            if "p" in data:
                raise self.error(path, "'p' is only allowed on a chance node, not on a leaf")
            return TERMINAL, self.number(data["value"], path.child(".value")), name, (), ()

        kind = kinds[0]
        if unknown:
            allowed = f"{kind}, p, value, action, name" if kind == CHANCE else f"{kind}, value, action, name"
            raise self.error(path, f"unknown key {unknown[0]!r} in a {kind} node (allowed: {allowed})")
        if "p" in data and kind != CHANCE:
            raise self.error(path, f"'p' is only allowed on a chance node, not on a {kind} node")
        value = self.number(data["value"], path.child(".value")) if "value" in data else None
        list_path = path.child(f".{kind}")
        children = data[kind]
        if not isinstance(children, (list, tuple)):
            raise self.error(list_path, f"expected a list of children, got {_type_name(children)}")
        if not children:
            raise self.error(list_path, "empty child list")
        probabilities: tuple[float, ...] = ()
        if kind == CHANCE:
            probabilities = self.probabilities(data, len(children), list_path)
        return kind, value, name, children, probabilities

    def probabilities(self, data: dict, count: int, list_path: _Path) -> tuple[float, ...]:
        if "p" not in data:
            return (1.0 / count,) * count
        p_path = list_path.child(".p")
        raw = data["p"]
        if not isinstance(raw, (list, tuple)):
            raise self.error(p_path, f"expected a list of probabilities, got {_type_name(raw)}")
        if len(raw) != count:
            given = "1 probability" if len(raw) == 1 else f"{len(raw)} probabilities"
            noun = "child" if count == 1 else "children"
            raise self.error(p_path, f"{given} for {count} {noun}")
        probabilities = []
        for i, p in enumerate(raw):
            number = self.number(p, p_path.child(f"[{i}]"), what="probability")
            if number < 0:
                raise self.error(p_path.child(f"[{i}]"), f"probability {_show(p)} is negative")
            probabilities.append(number)
        total = math.fsum(probabilities)
        if abs(total - 1.0) > PROBABILITY_TOLERANCE:
            raise self.error(list_path, f"probabilities sum to {total:.15g}, "
                                        f"expected 1 (within {_TOLERANCE_TEXT})")
        if total != 1.0:
            # Rescale, so that the search's bounds arithmetic (Star1 assumes a sum of 1) stays exact.
            probabilities = [p / total for p in probabilities]
        return tuple(probabilities)


def parse_tree(data: Any, source: str = "<tree>") -> TreeNode:
    """Validate already-decoded JSON (a dict, list or number) and build its tree.

    Raises `TreeError` naming `source` and the JSON path of the first bad node.
    """
    return _Parser(source).parse(data)


@contextmanager
def _recursion_room(levels: int) -> Iterator[None]:
    """Make sure `levels` more nested calls fit under the recursion limit, for the duration."""
    frame = sys._getframe()
    used = 0
    while frame is not None:
        used += 1
        frame = frame.f_back
    needed = used + levels + 100
    old = sys.getrecursionlimit()
    if needed > old:
        sys.setrecursionlimit(needed)
    try:
        yield
    finally:
        if needed > old:
            sys.setrecursionlimit(old)


class _DuplicateKey(Exception):
    pass


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return result


def decode_tree_json(text: str | bytes, source: str) -> Any:
    """Decode a tree file's JSON text (bytes: UTF-8, a BOM allowed), with every failure a one-line `TreeError`.

    Duplicate keys are refused (JSON would keep the last silently), numbers too long
    to convert are refused, and nesting deeper than a tree may be is "too deep"
    rather than a RecursionError.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise TreeError(f"{source}: not UTF-8 text (byte {exc.start})") from None
    try:
        # Each tree level nests two JSON levels ({"max": [ ... ]}); the decoder recurses on them.
        with _recursion_room(2 * MAX_TREE_DEPTH + 10):
            return json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise TreeError(f"{source}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except _DuplicateKey as exc:
        raise TreeError(f"{source}: an object has the key {str(exc.args[0])!r} twice") from None
    except RecursionError:
        raise TreeError(f"{source}: tree is too deep (more than {MAX_TREE_DEPTH} levels below the root)") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise TreeError(f"{source}: invalid JSON: {str(exc).split(';')[0]}") from None


def load_tree(path: str | PathLike[str]) -> TreeNode:
    """Read a JSON tree file. `TreeError` (naming the file) if unreadable, not a regular file, too large,
    not JSON, or not a valid tree."""
    source = str(path)
    if not source.strip():
        raise TreeError("the tree's file name is empty; give a JSON file")
    data = read_input_file(path, "a JSON game tree", MAX_TREE_BYTES, TreeError)
    return parse_tree(decode_tree_json(data, source), source)


# -- searching -------------------------------------------------------------------------


class TreeGame:
    """The `SearchGame` of an explicit tree: nodes are `TreeNode`s, every edge costs 1 depth.

    `bounds` holds every value the search can compute for any node: the leaf values
    and inner heuristics, and also the chance averages as the search computes them in
    floating point. That is almost always just (smallest, largest) leaf value or
    heuristic, but an average can exceed the largest leaf by rounding, and
    alpha-beta clamps windows to the bounds, so they must be exact. With them,
    ``Searcher(TreeGame(root), prune=True)`` uses Star1 at chance nodes.
    """

    def __init__(self, root: TreeNode) -> None:
        self.root = root
        self.bounds: tuple[float, float] | None = (root.low, root.high)

    def kind(self, node: TreeNode) -> str:
        return node.kind

    def children(self, node: TreeNode) -> Sequence[TreeNode]:
        return node.children

    def actions(self, node: TreeNode) -> Sequence[str]:
        return node.actions

    def outcomes(self, node: TreeNode) -> Sequence[tuple[float, TreeNode]]:
        return tuple(zip(node.probabilities, node.children))

    def evaluate(self, node: TreeNode) -> float:
        if node.value is None:
            raise TreeError(f'{node.source}: {node.path}: depth limit reached at an inner node '
                            f'with no "value" heuristic')
        return node.value

    def cost(self, node: TreeNode) -> int:
        return 1

    def key(self, node: TreeNode) -> None:
        return None


def _check_depth(depth: Any) -> float:
    if depth is None:
        return math.inf
    if isinstance(depth, bool) or not isinstance(depth, numbers.Real) or math.isnan(depth) \
            or depth < 0 or (math.isfinite(depth) and depth != int(depth)):
        raise TreeError(f"depth must be a whole number >= 0 (or None for the whole tree), got {depth!r}")
    return depth if math.isinf(depth) else int(depth)


def _check_cut(root: TreeNode, depth: float) -> None:
    """The first inner node (in search order) where `depth` cuts the tree and no heuristic is given."""
    if depth >= root.height:
        return
    stack = [(root, 0)]
    while stack:
        node, level = stack.pop()
        if node.kind == TERMINAL:
            continue
        if level >= depth:
            if node.value is None:
                TreeGame(root).evaluate(node)  # raises the error
            continue
        stack.extend((child, level + 1) for child in reversed(node.children))


def solve_tree(root: TreeNode, depth: int | None = None, prune: bool = False) -> SearchResult:
    """Expectiminimax value and first best action of `root`, searched `depth` edges deep (None: all).

    `prune` turns on alpha-beta and Star1; it never changes the value or the action.
    A depth that cuts the tree at an inner node without a heuristic raises `TreeError`
    (checked before searching, so the same with or without pruning).
    """
    limit = _check_depth(depth)
    _check_cut(root, limit)
    searcher = Searcher(TreeGame(root), prune=prune)
    with _recursion_room(int(min(limit, root.height)) + 10):
        return searcher.search(root, limit)


def _format_number(value: float) -> str:
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def tree_report(result: SearchResult) -> dict:
    """The ``--json`` form of a result: ``{"value": float, "action": label or None}``."""
    return {"value": float(result.value), "action": result.action}


def format_tree_result(result: SearchResult) -> str:
    """Two human-readable lines: the value and the best action."""
    action = "none (the root is a chance node or a leaf, or depth 0)" if result.action is None else result.action
    return f"value: {_format_number(float(result.value))}\naction: {action}"
