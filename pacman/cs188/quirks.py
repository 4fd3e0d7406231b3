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
import json
import os
import re
from dataclasses import dataclass, field
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pacman.cs188.engine_probe import python2_dict_order
from pacman.errors import PacmanError

__all__ = ["EngineQuirks", "QuirksError", "read_engine_quirks", "read_engine_quirks_statically", "run_course_engine",
           "python2_dict_order", "CLASSIC_CONSTANTS",
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
    constants_evidence: str = ""
    """Where the rules' constants came from (``pacman.py, run``), '' when the course ships no ``pacman.py``."""
    isolation: str = ""
    """How the child that asked the course's code was isolated, '' when none ran."""

    @property
    def is_default(self) -> bool:
        return self.action_order == DEFAULT_ORDER and not self.unsupported

    def describe(self) -> str:
        """One line for the report: which engine files were asked, how, and what they change."""
        order = ", ".join(self.action_order)
        parts = [f"actions {order}" + (" (classic)" if self.action_order == DEFAULT_ORDER else "")
                 + (f" from {self.order_evidence}" if self.order_evidence else " (no game.py: classic)")]
        if self.constants_evidence:
            parts.append(("rule constants classic" if not self.unsupported else "rule constants")
                         + f" from {self.constants_evidence}")
        parts.extend(f"cannot play: {u}" for u in self.unsupported)
        if self.isolation.startswith("not in a namespace"):
            parts.append(f"the course's code ran {self.isolation}")
        if not self.files:
            return "engine: no game.py or pacman.py beside the test folder: " + "; ".join(parts)
        python = f"Python {self.python or '?'}" + (f" ({self.python_evidence})" if self.python_evidence else "")
        return f"engine: {', '.join(self.files)}, {python}: " + "; ".join(parts)


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


def _static_order(texts: dict[str, str], game: Path, python: str) -> tuple[tuple[str, ...], str]:
    order, evidence = _action_order(texts["game.py"], game, python)
    if sorted(order) != sorted(DEFAULT_ORDER):
        raise QuirksError(f"{game}: the order of actions read ({', '.join(order)}) is not the five actions "
                          f"{', '.join(sorted(DEFAULT_ORDER))}")
    return order, evidence


def _engine_files(course_root: str | Path) -> tuple | None:
    """(root, game.py, pacman.py, the files there, their texts, the course's Python and its evidence), or None
    when the course ships neither file: what both ways of finding the quirks start from."""
    root = Path(course_root)
    game, rules = root / "game.py", root / "pacman.py"
    files = [p for p in (game, rules) if p.is_file()]
    if not files:
        return None
    texts = {p.name: _read(p) for p in files}
    python, python_evidence = _python_version(root, texts)
    return root, game, rules, files, texts, python, python_evidence


def read_engine_quirks_statically(course_root: str | Path) -> EngineQuirks | None:
    """The quirks of the engine files in `course_root`, read from their text, never run: the fallback of
    `read_engine_quirks` where the course's code cannot run here. None without ``game.py`` and ``pacman.py``."""
    read = _engine_files(course_root)
    if read is None:
        return None
    root, game, rules, files, texts, python, python_evidence = read
    order, evidence = DEFAULT_ORDER, ""
    if game.is_file():
        order, evidence = _static_order(texts, game, python)
        evidence += ", read"
    unsupported = _constants(texts["pacman.py"], rules) if rules.is_file() else []
    return EngineQuirks(tuple(order), evidence, python, tuple(unsupported), tuple(p.name for p in files),
                        python_evidence, constants_evidence="pacman.py, read" if rules.is_file() else "")


def read_engine_quirks(course_root: str | Path) -> EngineQuirks | None:
    """The quirks of the engine files in `course_root` (the folder holding ``test_cases/``); None if it has
    neither ``game.py`` nor ``pacman.py``.

    The course's own code is asked (`run_course_engine`: imported in an isolated child process, as its
    autograder imports it); where it cannot run here (Python 2 syntax, a missing module, an error), its text
    is read instead (`read_engine_quirks_statically`) and the evidence says why."""
    read = _engine_files(course_root)
    if read is None:
        return None
    root, game, rules, files, texts, python, python_evidence = read
    ran = run_course_engine(root, python2=python == "2")
    order, evidence = DEFAULT_ORDER, ""
    if game.is_file():
        _directions_names(texts["game.py"].splitlines(), game)  # a renamed direction: refused with its line
        asked = _order_from_run(ran, game)
        if isinstance(asked, str):
            try:
                order, evidence = _static_order(texts, game, python)
            except QuirksError as exc:
                raise QuirksError(f"{exc}; and the course's game.py cannot be asked: {asked}") from None
            evidence += f", read (it cannot run here: {asked})"
        else:
            order, evidence = asked
    unsupported: list[str] = []
    constants_evidence = ""
    if rules.is_file():
        asked_constants = _constants_from_run(ran, rules)
        if isinstance(asked_constants, str):
            unsupported = _constants(texts["pacman.py"], rules)
            constants_evidence = f"pacman.py, read (it cannot run here: {asked_constants})"
        else:
            unsupported, constants_evidence = asked_constants, "pacman.py, run"
    return EngineQuirks(tuple(order), evidence, python, tuple(unsupported), tuple(p.name for p in files),
                        python_evidence, constants_evidence=constants_evidence,
                        isolation=ran.get("isolation", "") if isinstance(ran, dict) else "")


# -- asking the course's own code --------------------------------------------------------------------------------

#: Wall-clock seconds the course's engine may take to import (its CPU time: `engine_probe.CPU_SECONDS`).
RUN_SECONDS = 20.0
#: Bytes of the child's answer read, at most.
_ANSWER_LIMIT = 1 << 20


def _isolated_command(command: list[str], home: str, scratch: str) -> tuple[list[str], str]:
    """`command` inside a namespace of its own (`pacman.grading.jail`: every file read-only, no network) where
    this system allows one, and how it is isolated, in a few words."""
    from pacman.grading import sandbox

    reason = sandbox.namespace_unavailable()
    if reason is not None:
        return command, f"not in a namespace here ({reason}): limits only"
    uid, gid = sandbox._inside_ids((os.geteuid(), os.getegid()))
    spec = {"grader": os.getpid(), "scratch": scratch, "home": home, "size": 1 << 20, "inodes": 64,
            "uid": uid, "gid": gid, "network": False}
    return sandbox._jail_command("run", spec) + command, "read-only, no network"


def run_course_engine(course_root: str | Path, python2: bool = False) -> dict[str, Any] | str:
    """Import the course's own ``game.py`` (and ``pacman.py``) in an isolated child process and return what it
    answered (`pacman.cs188.engine_probe`), or why it could not be asked, in a few words.

    The child runs no student code: the course folder's own files, first on its import path, read-only, with
    no network (where the system allows a namespace), a memory and CPU cap and `RUN_SECONDS` of wall clock.
    With `python2`, its dictionaries iterate in Python 2's order, as they did under the course's autograder."""
    import select
    import subprocess
    import sys
    import tempfile
    import time
    from pacman.cs188 import engine_probe
    from pacman.grading.sandbox import CHILD_PYTHON_FLAGS, _child_env

    root = Path(course_root).resolve()
    with tempfile.TemporaryDirectory(prefix="pacman-course-engine-") as scratch:
        home = os.path.join(scratch, "home")
        os.mkdir(home)
        read_fd, write_fd = os.pipe()
        command = [sys.executable, *CHILD_PYTHON_FLAGS, str(Path(engine_probe.__file__).resolve()), str(root),
                   str(write_fd)] + (["--python2"] if python2 else [])
        command, isolation = _isolated_command(command, home, scratch)
        try:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.PIPE, cwd=home, env=_child_env(home),
                                       pass_fds=(write_fd,), start_new_session=True)
        except OSError as exc:
            os.close(read_fd)
            return f"the child did not start: {exc}"
        finally:
            os.close(write_fd)
        answer = b""
        deadline = time.monotonic() + RUN_SECONDS
        timed_out = False
        with os.fdopen(read_fd, "rb", buffering=0) as pipe:
            while len(answer) <= _ANSWER_LIMIT:
                left = deadline - time.monotonic()
                if left <= 0:
                    timed_out = True
                    break
                ready, _, _ = select.select([pipe], [], [], left)
                if not ready:
                    continue
                chunk = pipe.read(65536)
                if not chunk:
                    break
                answer += chunk
        if timed_out or process.poll() is None:
            try:
                process.wait(timeout=0 if timed_out else max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                timed_out = True
            if timed_out:
                try:
                    os.killpg(process.pid, 9)
                except OSError:
                    pass
                process.wait()
        stderr = process.stderr.read(4096).decode(errors="replace") if process.stderr else ""
        process.stderr.close() if process.stderr else None
    if timed_out:
        return f"importing it did not end within {RUN_SECONDS:g} s"
    try:
        report = json.loads(answer.decode())
    except ValueError:
        status = process.returncode
        ended = f"killed by signal {-status}" if status < 0 else f"exit status {status}"
        last = stderr.strip().splitlines()[-1:] if stderr.strip() else []
        return f"the child ended ({ended}) with no answer" + (f": {last[0][:120]}" if last else "")
    report["isolation"] = isolation
    return report


def _failure_text(failure: dict[str, Any], name: str) -> str:
    where = f" at {failure['where']}" if failure.get("where") else ""
    return f"importing {name} raised {failure['error']}{where}"


def _order_from_run(ran: dict[str, Any] | str, game: Path) -> tuple[tuple[str, ...], str] | str:
    """(the order, its evidence) the course's ``game`` gave, or why it gave none."""
    if isinstance(ran, str):
        return ran
    asked = ran.get("game", {})
    if "error" in asked:
        return _failure_text(asked, "game.py")
    renamed = {name: value for name, value in asked.get("directions", {}).items() if value != _DIRECTIONS[name]}
    if renamed:
        name, value = next(iter(renamed.items()))
        raise QuirksError(f"{game}: Directions.{name} is {value!r} (game.py, run), not {_DIRECTIONS[name]!r}: "
                          f"pacman-ai plays the classic direction names only")
    five = sorted(DEFAULT_ORDER)
    for key, how in (("possible", "Actions.{name} on an open cell"), ("listed", "Actions.{name}")):
        found = asked.get(key)
        if found is not None and sorted(found) == five:
            rewritten = (", its Python 2 statements rewritten as 2to3 does"
                         if "game.py" in ran.get("rewritten", ()) else "")
            return tuple(found), f"game.py, run ({how.format(name=asked[key + '_name'])}){rewritten}"
    found = asked.get("possible") or asked.get("listed")
    if found is not None:
        raise QuirksError(f"{game}: the course's engine lists the actions {', '.join(found) or '(none)'} "
                          f"(game.py, run), not the five actions {', '.join(five)}")
    return asked.get("order_error") or asked.get("possible_error") or "it gave no order of actions"


def _constants_from_run(ran: dict[str, Any] | str, rules: Path) -> list[str] | str:
    """The rule constants pacman-ai cannot play by, as the course's ``pacman`` module has them, or why not."""
    if isinstance(ran, str):
        return ran
    asked = ran.get("pacman")
    if asked is None:
        return "it was not asked"
    if "error" in asked:
        return _failure_text(asked, "pacman.py")
    text = _read(rules).splitlines()

    def where(name: str) -> str:  # the line that assigns it, where one line plainly does
        lines = [i for i, line in enumerate(text, start=1) if re.match(rf"^{name}\s*=", line)]
        return f"pacman.py:{lines[-1]}" if lines else "pacman.py"

    return [f"{where(name)} sets {name} = {value!r} (pacman-ai plays {CLASSIC_CONSTANTS[name]})"
            for name, value in asked["constants"].items() if value != CLASSIC_CONSTANTS[name]]


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
