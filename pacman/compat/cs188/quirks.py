"""A course's own engine quirks, read (never run) from the ``game.py`` and ``pacman.py`` it ships.

A CS188 course folder holds its own copy of the engine beside ``test_cases/``.
What in it changes grading is read statically here, and the compatibility
layer plays by it:

- **the order of actions**: every list of legal actions follows
  ``Actions._directionsAsList`` (current generation: ``_directions_as_list``),
  usually ``_directions.items()``. Its order decides ties (a search keeps the
  first best action) and alpha-beta's expanded states. Read from the file:
  a dictionary literal iterates in the order written under Python 3, and in
  Python 2's hash order under Python 2 (which is where the classic order West,
  Stop, East, North, South comes from); ``sorted(...)`` sorts by name; a list
  of pairs is taken as written. The engine is Python 2 when one of the
  course's core files (``autograder.py``, ``grading.py``, ``testClasses.py``,
  ``testParser.py``, ``util.py``, ``game.py``, ``pacman.py``) does not parse as
  Python 3 (a ``print`` statement, ``except E, e:``, tabs mixed with spaces), or
  writes ``print >>stream, ...``: the course's autograder then runs under
  Python 2.
- **Python 2's random**: a Python 2 engine means the course's autograder ran the
  student's code under Python 2, whose ``random.choice``, ``randrange``,
  ``randint`` and ``shuffle`` turn the same ``random()`` draws into other
  choices than Python 3's (a reflex agent breaking ties with
  ``random.choice``); the grading child uses Python 2's (`use_python2_random`).
- **the rules' constants** in ``pacman.py``: ``SCARED_TIME`` (40),
  ``COLLISION_TOLERANCE`` (0.7) and ``TIME_PENALTY`` (1). pacman-ai plays the
  classic values; a course with other values cannot be played as its own
  engine plays, so its game questions are refused by name (`unsupported`).

Anything in these files that cannot be read this way -- an order built by
code, two assignments, direction names other than the classic strings -- is a
`QuirksError` naming the file, line and name: never guessed.

>>> python2_dict_order(["North", "South", "East", "West", "Stop"])
['West', 'Stop', 'East', 'North', 'South']
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pacman.errors import PacmanError

__all__ = ["EngineQuirks", "QuirksError", "read_engine_quirks", "python2_dict_order", "CLASSIC_CONSTANTS",
           "DEFAULT_ORDER", "use_python2_random", "PY2_RANDOM"]

#: The classic order of actions (Python 2's order of the classic ``_directions`` dictionary).
DEFAULT_ORDER = ("West", "Stop", "East", "North", "South")
_DIRECTIONS = {"NORTH": "North", "SOUTH": "South", "EAST": "East", "WEST": "West", "STOP": "Stop"}
#: The constants of ``pacman.py`` that pacman-ai's rules fix, with the values it plays.
CLASSIC_CONSTANTS = {"SCARED_TIME": 40, "COLLISION_TOLERANCE": 0.7, "TIME_PENALTY": 1}
#: The engine files read, at most this large.
MAX_ENGINE_BYTES = 4 << 20
_LIST_NAMES = ("_directionsAsList", "_directions_as_list")


class QuirksError(PacmanError):
    """A course engine file that cannot be read statically (the message names the file, line and name)."""


@dataclass(frozen=True)
class EngineQuirks:
    """What a course's own engine files change in grading."""

    action_order: tuple[str, ...] = DEFAULT_ORDER
    """The order of every list of legal actions."""
    order_evidence: str = ""
    """Where the order was read (file, line, how), '' when the course ships no ``game.py``."""
    python: str | None = None
    """``"2"`` or ``"3"``: the Python the course's engine is written for (None: no ``game.py``)."""
    unsupported: tuple[str, ...] = ()
    """Quirks pacman-ai cannot play by (a rule constant with another value), each naming file, line and value."""
    files: tuple[str, ...] = field(default=())
    """The engine files read."""
    python_evidence: str = ""
    """Where Python 2 only syntax was seen (``autograder.py:12``), '' for Python 3."""

    @property
    def is_default(self) -> bool:
        return self.action_order == DEFAULT_ORDER and not self.unsupported

    def describe(self) -> str:
        """One line for the report: which engine files were read and what they change."""
        order = ", ".join(self.action_order)
        parts = [f"actions {order}" + (" (classic)" if self.action_order == DEFAULT_ORDER else "")
                 + (f" from {self.order_evidence}" if self.order_evidence else " (no game.py: classic)")]
        parts.extend(f"cannot play: {u}" for u in self.unsupported)
        python = f"Python {self.python or '?'}" + (f" ({self.python_evidence})" if self.python_evidence else "")
        return f"engine: {', '.join(self.files)}, {python}: " + "; ".join(parts)


def python2_dict_order(keys: list[str]) -> list[str]:
    """The order Python 2 (64-bit) iterates a small dictionary of the string `keys`, inserted in that order.

    Python 2's string hash and its open addressing in an 8-slot table (up to 5
    keys) give the iteration order; this is why the classic order of actions is
    West, Stop, East, North, South.
    """
    if len(keys) > 5:
        raise ValueError("only dictionaries of at most 5 keys fit Python 2's small table")
    mask64 = (1 << 64) - 1
    table: list[str | None] = [None] * 8
    for key in keys:
        value = 0
        if key:
            value = (ord(key[0]) << 7) & mask64
            for char in key:
                value = ((1000003 * value) & mask64) ^ ord(char)
            value ^= len(key)
        if value == mask64:  # -1 is reserved for errors: the hash is -2
            value = mask64 - 1
        slot, perturb = value & 7, value
        while table[slot & 7] is not None:
            slot = ((slot << 2) + slot + perturb + 1) & mask64
            perturb >>= 5
        table[slot & 7] = key
    return [key for key in table if key is not None]


def _read(path: Path) -> str:
    from pacman.files import read_input_file

    data = read_input_file(path, "a course engine file", MAX_ENGINE_BYTES, QuirksError)
    return data.decode("utf-8", errors="replace")


_PY2 = re.compile(r"^\s*(print\s+[^\s(=]|print\s*>>|exec\s+['\"]|except\s+[\w.]+\s*,\s*\w+\s*:)", re.M)


#: The course's own files whose Python decides the engine's: the autograder and what it runs.
CORE_FILES = ("autograder.py", "grading.py", "testClasses.py", "testParser.py", "util.py", "game.py", "pacman.py")


def _python2_evidence(text: str, path: Path) -> str | None:
    """Where `text` shows that only Python 2 runs it (``file:line``), or None when it reads as Python 3.

    A file that does not parse as Python 3 (a ``print`` statement, ``except E, e:``, tabs mixed with spaces)
    can only be a Python 2 course's; ``print >>stream, ...`` parses under Python 3 but is Python 2's.
    """
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        match = _PY2.search(text)
        line = text.count(chr(10), 0, match.start()) + 1 if match else exc.lineno
        return f"{path.name}:{line}"
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.RShift) and isinstance(node.left, ast.Name) \
                and node.left.id == "print":
            return f"{path.name}:{node.lineno}"
    return None


def _python_version(root: Path, texts: dict[str, str]) -> tuple[str, str]:
    """("2" or "3", the evidence): Python 2 when any of the course's core files shows Python 2 only syntax (its
    autograder then runs under Python 2), else 3."""
    for name in CORE_FILES:
        path = root / name
        if name not in texts:
            if not path.is_file() or path.is_symlink():
                continue
            texts[name] = _read(path)
        evidence = _python2_evidence(texts[name], path)
        if evidence is not None:
            return "2", evidence
    return "3", ""


def _class_lines(lines: list[str], name: str) -> tuple[int, int] | None:
    """(first, end) line indexes of the top-level ``class NAME`` body, if the file has one."""
    header = re.compile(rf"^class\s+{name}\b")
    for index, line in enumerate(lines):
        if header.match(line):
            end = index + 1
            while end < len(lines) and (not lines[end].strip() or lines[end][:1] in (" ", "\t", "#")):
                end += 1
            return index + 1, end
    return None


def _assignment(lines: list[str], span: tuple[int, int], names: tuple[str, ...],
                path: Path) -> tuple[str, int, ast.expr] | None:
    """(name, line number, the expression) of the one assignment to one of `names` in the class body `span`."""
    pattern = re.compile(r"^(\s+)(%s)\s*(?::[^=]*)?=(?!=)\s*(.*)$" % "|".join(map(re.escape, names)))
    found = []
    for index in range(*span):
        match = pattern.match(lines[index])
        if match:
            found.append((index, match))
    if not found:
        return None
    if len(found) > 1:
        (first, a), (second, _) = found[0], found[1]
        raise QuirksError(f"{path}:{second + 1}: Actions.{a.group(2)} is assigned twice (first on line "
                          f"{first + 1}): the order of actions cannot be read")
    index, match = found[0]
    text = match.group(3)
    end = index
    while True:
        try:
            expression = ast.parse(text.strip(), mode="eval").body
            return match.group(2), index + 1, expression
        except SyntaxError:
            end += 1
            if end >= span[1] or end - index > 40:
                raise QuirksError(f"{path}:{index + 1}: Actions.{match.group(2)}: cannot read its value "
                                  f"statically") from None
            text += "\n" + lines[end]


def _direction(node: ast.expr, names: dict[str, str], path: Path, line: int, what: str) -> str:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "Directions" \
            and node.attr in names:
        return names[node.attr]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    shown = ast.unparse(node)[:40]
    raise QuirksError(f"{path}:{line}: Actions.{what}: {shown!r} is not a direction pacman-ai can read "
                      f"(Directions.NORTH ... or a string)")


def _directions_names(lines: list[str], path: Path) -> dict[str, str]:
    """The ``Directions`` constants' strings; a QuirksError if the course renamed one."""
    span = _class_lines(lines, "Directions")
    if span is None:
        return dict(_DIRECTIONS)
    pattern = re.compile(r"^\s+(NORTH|SOUTH|EAST|WEST|STOP)\s*(?::[^=]*)?=\s*(['\"])(.*?)\2\s*(#.*)?$")
    for index in range(*span):
        match = pattern.match(lines[index])
        if match and match.group(3) != _DIRECTIONS[match.group(1)]:
            raise QuirksError(f"{path}:{index + 1}: Directions.{match.group(1)} is {match.group(3)!r}, not "
                              f"{_DIRECTIONS[match.group(1)]!r}: pacman-ai plays the classic direction names only")
    return dict(_DIRECTIONS)


def _action_order(text: str, path: Path, python: str) -> tuple[tuple[str, ...], str]:
    lines = text.splitlines()
    names = _directions_names(lines, path)
    span = _class_lines(lines, "Actions")
    if span is None:
        raise QuirksError(f"{path}: has no class Actions: the order of actions cannot be read")
    listed = _assignment(lines, span, _LIST_NAMES, path)
    if listed is None:
        raise QuirksError(f"{path}: class Actions assigns neither _directionsAsList nor _directions_as_list: the "
                          f"order of actions cannot be read")
    list_name, list_line, expression = listed
    mapping = _assignment(lines, span, ("_directions",), path)
    how: list[str] = []

    def refuse(node: ast.expr, line: int, name: str) -> QuirksError:
        shown = ast.unparse(node)[:60]
        return QuirksError(f"{path}:{line}: Actions.{name} = {shown}: not a form pacman-ai reads statically "
                           f"(a dictionary literal, dict(...), OrderedDict(...), .items(), list(...), sorted(...), "
                           f"or a list of (direction, vector) pairs)")

    def keys(node: ast.expr, line: int, name: str, pairs: bool) -> list[str]:
        """The directions `node` iterates, in order; `pairs`: it must iterate (direction, vector) pairs."""
        if isinstance(node, ast.Dict) and not pairs:
            if any(key is None for key in node.keys):
                raise refuse(node, line, name)
            written = [_direction(key, names, path, line, name) for key in node.keys]
            how.append("Python 2's dictionary order" if python == "2" else "the dictionary's order as written")
            return python2_dict_order(list(dict.fromkeys(written))) if python == "2" else list(dict.fromkeys(written))
        if isinstance(node, (ast.List, ast.Tuple)) and pairs and \
                all(isinstance(e, ast.Tuple) and len(e.elts) == 2 for e in node.elts):
            how.append("a list as written")
            return [_direction(e.elts[0], names, path, line, name) for e in node.elts]
        if isinstance(node, ast.Name) and node.id == "_directions" and not pairs:
            if mapping is None:
                raise QuirksError(f"{path}:{line}: Actions.{name} reads _directions, which class Actions does not "
                                  f"assign")
            return keys(mapping[2], mapping[1], "_directions", False)
        if isinstance(node, ast.Call) and not node.keywords and len(node.args) == 1:
            function, argument = node.func, node.args[0]
            called = function.id if isinstance(function, ast.Name) else \
                function.attr if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) \
                and function.value.id == "collections" else None
            if called in ("list", "tuple"):
                return keys(argument, line, name, pairs)
            if called == "sorted":  # by name: whatever order the inner iterable had no longer matters
                order = sorted(keys(argument, line, name, pairs))
                del how[:]
                return order
            if called == "OrderedDict" and not pairs:
                return keys(argument, line, name, True)
            if called == "dict" and not pairs:
                order = keys(argument, line, name, True)
                if python == "2":
                    how.append("Python 2's dictionary order")
                    return python2_dict_order(list(dict.fromkeys(order)))
                return list(dict.fromkeys(order))
        if isinstance(node, ast.Call) and not node.args and not node.keywords and pairs \
                and isinstance(node.func, ast.Attribute) and node.func.attr in ("items", "iteritems"):
            return keys(node.func.value, line, name, False)
        raise refuse(node, line, name)

    order = keys(expression, list_line, list_name, True)
    shown = ast.unparse(expression)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    detail = ", ".join(dict.fromkeys(reversed(how))) if how else ""
    evidence = f"{path.name}:{list_line} ({list_name} = {shown}" + (f", {detail})" if detail else ")")
    return tuple(order), evidence


def _constants(text: str, path: Path) -> list[str]:
    unsupported = []
    for index, line in enumerate(text.splitlines(), start=1):
        match = re.match(r"^(SCARED_TIME|COLLISION_TOLERANCE|TIME_PENALTY)\s*=\s*([-+0-9.eE]+)\s*(#.*)?$", line)
        if not match:
            continue
        try:
            value = float(match.group(2))
        except ValueError:
            raise QuirksError(f"{path}:{index}: {match.group(1)}: expected a number, got {match.group(2)!r}") from None
        if value != CLASSIC_CONSTANTS[match.group(1)]:
            unsupported.append(f"{path.name}:{index} sets {match.group(1)} = {match.group(2)} (pacman-ai plays "
                               f"{CLASSIC_CONSTANTS[match.group(1)]})")
    return unsupported


def read_engine_quirks(course_root: str | Path) -> EngineQuirks | None:
    """The quirks of the engine files in `course_root` (the folder holding ``test_cases/``); None if it has
    neither ``game.py`` nor ``pacman.py``. Read, never imported or run."""
    root = Path(course_root)
    game, rules = root / "game.py", root / "pacman.py"
    files = [p for p in (game, rules) if p.is_file()]
    if not files:
        return None
    texts = {p.name: _read(p) for p in files}
    python, python_evidence = _python_version(root, texts)
    order, evidence = DEFAULT_ORDER, ""
    if game.is_file():
        order, evidence = _action_order(texts["game.py"], game, python)
        if sorted(order) != sorted(DEFAULT_ORDER):
            raise QuirksError(f"{game}: the order of actions read ({', '.join(order)}) is not the five actions "
                              f"{', '.join(sorted(DEFAULT_ORDER))}")
    unsupported = _constants(texts["pacman.py"], rules) if rules.is_file() else []
    return EngineQuirks(tuple(order), evidence, python, tuple(unsupported), tuple(p.name for p in files),
                        python_evidence)


# -- Python 2's random, for a course whose engine (and so its autograder) runs under Python 2 --------------------

def _py2_randrange(start: int, stop: int | None = None, step: int = 1) -> int:
    """`random.randrange` as Python 2.7 computes it from one ``random()`` draw (widths below 2**53)."""
    import random

    if stop is None:
        if start <= 0:
            raise ValueError("empty range for randrange()")
        return int(random.random() * start)
    width = stop - start
    if step == 1:
        if width <= 0:
            raise ValueError(f"empty range for randrange() ({start}, {stop}, {width})")
        return int(start + int(random.random() * width))
    if step > 0:
        count = (width + step - 1) // step
    elif step < 0:
        count = (width + step + 1) // step
    else:
        raise ValueError("zero step for randrange()")
    if count <= 0:
        raise ValueError("empty range for randrange()")
    return start + step * int(random.random() * count)


def _py2_randint(a: int, b: int) -> int:
    return _py2_randrange(a, b + 1)


def _py2_choice(seq: Sequence[Any]) -> Any:
    import random

    return seq[int(random.random() * len(seq))]


def _py2_shuffle(x: list[Any], random: Callable[[], float] | None = None) -> None:
    import random as module

    draw = module.random if random is None else random
    for i in reversed(range(1, len(x))):
        j = int(draw() * (i + 1))
        x[i], x[j] = x[j], x[i]


#: The functions of `random` whose results differ between Python 2 and 3 for the same seed (``random()``
#: itself, ``seed`` with an int, ``uniform`` and the ghosts' draws are the same in both).
PY2_RANDOM = {"choice": _py2_choice, "randrange": _py2_randrange, "randint": _py2_randint, "shuffle": _py2_shuffle}


def use_python2_random() -> None:
    """Make the global `random` module's ``choice``, ``randrange``, ``randint`` and ``shuffle`` draw as Python 2's
    do, for a student file graded on a Python 2 course (in the grading child process only: the course's own
    autograder ran the student's ``random.choice`` under Python 2)."""
    import random

    for name, function in PY2_RANDOM.items():
        setattr(random, name, function)
