"""Ask a CS188 course's own engine files what they do: the script of an isolated child process.

Run by `pacman.cs188.quirks` as ``python -I -B engine_probe.py COURSE FD [--python2]``. It imports
nothing of pacman-ai (its own module ``pacman`` would hide the course's ``pacman.py``), so it can run where
the course's files are first on the import path. In the child it:

1. limits itself (address space, CPU time, file size) and changes to the course folder, whose files come
   first on the import path, as they do for the course's ``autograder.py``;
2. imports the course's ``game`` and asks it for the order of legal actions: what
   ``Actions.getPossibleActions`` (current generation: ``get_possible_actions``) returns on an open cell,
   else ``Actions._directionsAsList`` (``_directions_as_list``) as the module built it; and the strings of
   ``Directions.NORTH`` ... ``STOP``;
3. imports the course's ``pacman`` (if there is a ``pacman.py``) for the rules' constants ``SCARED_TIME``,
   ``COLLISION_TOLERANCE`` and ``TIME_PENALTY``;
4. writes one JSON object on the pipe FD, and nothing else there. What the course's files print is
   captured and dropped.

With ``--python2`` the course's modules run with Python 2's dictionary order: every dictionary display,
comprehension and ``dict(...)`` call in their source makes a `Py2Dict`, which iterates as Python 2.7
(64-bit) iterates a dictionary of string keys built the same way. A course whose autograder runs under
Python 2 lists its actions in that order.
"""

from __future__ import annotations

import ast
import importlib.abc
import importlib.machinery
import importlib.util
import io
import json
import os
import sys
import traceback

__all__ = ["python2_dict_order", "Py2Dict", "MEMORY_BYTES", "CPU_SECONDS"]

#: The child's address space, at most.
MEMORY_BYTES = 1 << 30
#: The child's CPU seconds, at most (the parent's wall clock is `pacman.cs188.quirks.RUN_SECONDS`).
CPU_SECONDS = 10
_MASK64 = (1 << 64) - 1
_MIN_SIZE = 8


def _python2_hash(key: str) -> int:
    """Python 2.7's hash of the byte string `key` (no hash randomisation), as an unsigned 64-bit number."""
    data = key.encode("utf-8")
    if not data:
        return 0
    value = (data[0] << 7) & _MASK64
    for byte in data:
        value = ((1000003 * value) & _MASK64) ^ byte
    value ^= len(data)
    return _MASK64 - 1 if value == _MASK64 else value  # -1 is reserved for errors: the hash is -2


def _insert(table: list, key: str, hashed: int) -> None:
    mask = len(table) - 1
    slot, perturb = hashed & mask, hashed
    while table[slot] is not None:
        slot = ((slot << 2) + slot + perturb + 1) & _MASK64 & mask
        perturb >>= 5
    table[slot] = (key, hashed)


def _new_table(minused: int) -> list:
    size = _MIN_SIZE
    while size <= minused:
        size <<= 1
    return [None] * size


def _resized(table: list, minused: int) -> list:
    new = _new_table(minused)
    for entry in table:
        if entry is not None:
            _insert(new, *entry)
    return new


def python2_dict_order(keys: list[str], presize: int = 0) -> list[str]:
    """The order Python 2.7 (64-bit) iterates a dictionary of the distinct string `keys`, inserted in that order.

    Python 2's string hash, its open addressing and its resizing (a table of 8 slots, grown to hold four times
    the keys when two thirds are used) give the order. `presize`: a dictionary display of that many pairs,
    which Python 2.7 makes presized. This is why the classic order of actions is West, Stop, East, North, South.

    >>> python2_dict_order(["North", "South", "East", "West", "Stop"])
    ['West', 'Stop', 'East', 'North', 'South']
    """
    table = _new_table(presize) if presize > 5 else [None] * _MIN_SIZE
    used = 0
    for key in keys:
        if not isinstance(key, str):
            raise TypeError(f"Python 2's order is known here for string keys only, not {type(key).__name__}")
        _insert(table, key, _python2_hash(key))
        used += 1
        if used * 3 >= len(table) * 2:
            table = _resized(table, (2 if used > 50000 else 4) * used)
    return [entry[0] for entry in table if entry is not None]


class Py2Dict(dict):
    """A dictionary that iterates in Python 2's order (`python2_dict_order`) over its insertion history.

    Iterating it after a key was removed is refused: Python 2's order then depends on the table's dummies,
    which are not followed here."""

    def __init__(self, *args, _presize: int = 0, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._presize = _presize

    def _order(self) -> list:
        if getattr(self, "_removed", False):
            raise TypeError("a dictionary a key was removed from: Python 2's order after it is not followed here")
        return python2_dict_order(list(dict.keys(self)), self._presize)

    def __iter__(self):
        return iter(self._order())

    def keys(self):
        return self._order()

    def values(self):
        return [self[key] for key in self._order()]

    def items(self):
        return [(key, self[key]) for key in self._order()]

    def iterkeys(self):
        return iter(self.keys())

    def itervalues(self):
        return iter(self.values())

    def iteritems(self):
        return iter(self.items())

    def __delitem__(self, key) -> None:
        super().__delitem__(key)
        self._removed = True

    def pop(self, *args):
        self._removed = True
        return super().pop(*args)

    def popitem(self):
        self._removed = True
        return super().popitem()

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{key!r}: {self[key]!r}" for key in self._order()) + "}"


class _Python2Dicts(ast.NodeTransformer):
    """Every dictionary display and comprehension becomes ``__py2dict__(...)``."""

    def visit_Dict(self, node: ast.Dict) -> ast.AST:
        self.generic_visit(node)
        call = ast.Call(ast.Name("__py2dict__", ast.Load()), [node],
                        [ast.keyword("_presize", ast.Constant(len(node.keys)))])
        return ast.copy_location(call, node)

    def visit_DictComp(self, node: ast.DictComp) -> ast.AST:
        self.generic_visit(node)
        return ast.copy_location(ast.Call(ast.Name("__py2dict__", ast.Load()), [node], []), node)


#: The 2to3 fixers that rewrite Python 2 statements Python 3 cannot parse, and nothing else: what the code does
#: with its dictionaries is Python 2's already (`Py2Dict`).
_SYNTAX_FIXERS = tuple(f"lib2to3.fixes.fix_{name}" for name in
                       ("print", "except", "exec", "ne", "numliterals", "raise", "repr", "tuple_params"))
#: The course's files whose Python 2 statements were rewritten (the report's ``rewritten``).
_REWRITTEN: list[str] = []


def _python3_text(data: bytes, path: str) -> str:
    """The source of a Python 2 file with its statements (``print x``, ``except E, e``, ``exec``, backquotes,
    ``<>``, ``0777``, ``raise E, v``) rewritten as 2to3 rewrites them; ImportError where lib2to3 is gone."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # lib2to3 is deprecated; it is still the reference for this rewrite
        from lib2to3.refactor import RefactoringTool
    text = importlib.util.decode_source(data)
    return str(RefactoringTool(list(_SYNTAX_FIXERS)).refactor_string(text if text.endswith("\n") else text + "\n",
                                                                      path))


class _Python2Loader(importlib.machinery.SourceFileLoader):
    def source_to_code(self, data, path, *, _optimize=-1):  # type: ignore[override]
        try:
            parsed = ast.parse(data, path)
        except SyntaxError as exc:  # Python 2 statements: rewritten as 2to3 does, and said so
            try:
                parsed = ast.parse(_python3_text(data, path), path)
            except Exception:  # noqa: BLE001 - no lib2to3, or not Python 2 either: the file's own error
                raise exc from None
            _REWRITTEN.append(os.path.basename(path))
        tree = ast.fix_missing_locations(_Python2Dicts().visit(parsed))
        return compile(tree, path, "exec", dont_inherit=True)

    def exec_module(self, module) -> None:
        module.__dict__["__py2dict__"] = Py2Dict
        module.__dict__["dict"] = Py2Dict
        super().exec_module(module)


class _CourseFinder(importlib.abc.MetaPathFinder):
    """Finds the course's own top-level modules and loads them with Python 2's dictionaries."""

    def __init__(self, folder: str) -> None:
        self.folder = folder

    def find_spec(self, name, path=None, target=None):
        if path is not None or "." in name:
            return None
        source = os.path.join(self.folder, name + ".py")
        if not os.path.isfile(source):
            return None
        return importlib.util.spec_from_file_location(name, source, loader=_Python2Loader(name, source))


def _limit() -> None:
    try:
        import resource
    except ImportError:  # not a POSIX system: the parent's wall clock still holds
        return
    for which, value in ((resource.RLIMIT_AS, MEMORY_BYTES), (resource.RLIMIT_CPU, CPU_SECONDS),
                         (resource.RLIMIT_FSIZE, 1 << 20)):
        try:
            soft, hard = resource.getrlimit(which)
            cap = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(which, (cap, hard))
        except (ValueError, OSError):
            pass


def _where(exc: BaseException, folder: str) -> str:
    """``file:line`` of the last frame in the course's files that `exc` passed through ('' if none)."""
    if isinstance(exc, SyntaxError) and exc.filename and os.path.dirname(os.path.abspath(exc.filename)) == folder:
        return f"{os.path.basename(exc.filename)}:{exc.lineno}"
    found = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        if os.path.dirname(os.path.abspath(frame.filename)) == folder:
            found = f"{os.path.basename(frame.filename)}:{frame.lineno}"
    return found


def _failure(exc: BaseException, folder: str) -> dict:
    text = str(exc.msg if isinstance(exc, SyntaxError) else exc).strip().splitlines()
    return {"error": f"{type(exc).__name__}: {text[0][:200]}" if text else type(exc).__name__,
            "where": _where(exc, folder), "syntax": isinstance(exc, SyntaxError)}


def _ask_game(game) -> dict:
    found: dict = {}
    directions = getattr(game, "Directions", None)
    if directions is not None:
        found["directions"] = {name: getattr(directions, name) for name in ("NORTH", "SOUTH", "EAST", "WEST", "STOP")
                               if isinstance(getattr(directions, name, None), str)}
    actions = getattr(game, "Actions", None)
    if actions is None:
        found["order_error"] = "game.py has no class Actions"
        return found
    for name in ("_directionsAsList", "_directions_as_list"):
        if name in vars(actions):
            try:
                pairs = list(getattr(actions, name))
            except Exception as exc:  # noqa: BLE001 - whatever the course built, said by name
                pairs = [exc]
            if all(isinstance(pair, (tuple, list)) and len(pair) == 2 for pair in pairs):
                found["listed"] = [str(pair[0]) for pair in pairs]
                found["listed_name"] = name
            else:
                shown = repr(getattr(actions, name))[:60]
                found["order_error"] = f"Actions.{name} is {shown}, not a list of (direction, vector) pairs"
            break
    possible = getattr(actions, "getPossibleActions", None) or getattr(actions, "get_possible_actions", None)
    configuration, grid = getattr(game, "Configuration", None), getattr(game, "Grid", None)
    if possible is not None and configuration is not None and grid is not None:
        try:
            stop = found.get("directions", {}).get("STOP", "Stop")
            asked = possible(configuration((1, 1), stop), grid(3, 3, False))
            found["possible"] = [str(action) for action in asked]
            found["possible_name"] = possible.__name__
        except Exception as exc:  # noqa: BLE001 - fall back on the list the class holds
            found["possible_error"] = f"{type(exc).__name__}: {exc}"
    if "listed" not in found and "possible" not in found and "order_error" not in found:
        found["order_error"] = ("class Actions has neither _directionsAsList nor _directions_as_list, and "
                                "getPossibleActions could not be asked")
    return found


def main(argv: list[str]) -> None:
    folder, fd, python2 = os.path.abspath(argv[1]), int(argv[2]), "--python2" in argv[3:]
    out = os.fdopen(fd, "w")
    _limit()
    os.chdir(folder)
    sys.path.insert(0, folder)
    sys.argv = [os.path.join(folder, "autograder.py")]
    sys.dont_write_bytecode = True
    if python2:
        sys.meta_path.insert(0, _CourseFinder(folder))
    captured = io.StringIO()
    sys.stdout = sys.stderr = captured
    report: dict = {"python": sys.version.split()[0]}
    try:
        game = importlib.import_module("game")
    except BaseException as exc:  # noqa: BLE001 - the course's import fails: said, and the parent falls back
        report["game"] = _failure(exc, folder)
    else:
        report["game"] = _ask_game(game)
    if os.path.isfile(os.path.join(folder, "pacman.py")):
        try:
            rules = importlib.import_module("pacman")
        except BaseException as exc:  # noqa: BLE001
            report["pacman"] = _failure(exc, folder)
        else:
            report["pacman"] = {"constants": {name: getattr(rules, name) for name in
                                              ("SCARED_TIME", "COLLISION_TOLERANCE", "TIME_PENALTY")
                                              if isinstance(getattr(rules, name, None), (int, float))}}
    report["printed"] = len(captured.getvalue())
    report["rewritten"] = sorted(set(_REWRITTEN))
    out.write(json.dumps(report))
    out.close()


if __name__ == "__main__":
    main(sys.argv)
