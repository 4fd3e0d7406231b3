"""Forbidden imports: modules a submission may not use, found in its source and refused while it runs.

The project ships, as a library, what students are asked to write (its search,
agents and evaluations), so an assignment names the modules a submission may not
import (``forbid_imports``). A rule forbids a module and its submodules. The rule
is enforced twice:

- `find_violations` reads the submission's source before anything runs: an
  ``import``/``from ... import`` of a forbidden module (``from pacman import grading``
  included), a call of ``importlib.import_module``, ``__import__``,
  ``importlib.util.find_spec`` or ``pkgutil.resolve_name``, and a ``sys.modules``
  lookup, with a forbidden name written out as a string;
- `seal`, in the submission's process just before the submission is loaded,
  takes every forbidden module out of ``sys.modules`` and off the packages and
  modules that hold it, and installs an `ImportGuard` that refuses them with an
  ``ImportError`` naming the rule (computed names included) and remembers every
  attempt, so the grader fails the test where it happened.

A deterrent against copying the library's solution by import, not a security
boundary: a submission can still read the library's source files and execute
them, or dig the grader's own objects out of its process (frames, ``gc``).
``docs/grading.md`` says so next to the sandbox's limits.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

__all__ = [
    "DEFAULT_FORBIDDEN_IMPORTS",
    "CLASSIC_FORBIDDEN_IMPORTS",
    "GUARD_REMOVED",
    "RuleError",
    "Violation",
    "forbidding_rule",
    "check_rules",
    "find_violations",
    "ImportGuard",
    "seal",
]

#: What a submission to one of our assignments may not import: everything that searches, plays or grades.
#: The core (``pacman``, ``pacman.state``, ``pacman.actions``, ``pacman.distances``, ...) stays allowed.
DEFAULT_FORBIDDEN_IMPORTS = (
    "pacman.agents",      # search, expectimax, minimax, alpha-beta, evaluations, trees, registry, simple agents
    "pacman.grading",     # the grader, its checks and the classic course runners
    "pacman.cs188",       # the classic API (which reaches pacman.agents.registry) and the classic graders
    "pacman.agent_specs",  # the agent builder of the commands (which reaches pacman.agents.registry)
    "pacman.conformance",  # the simple reference engine and the textbook expectimax
    "pacman.bench",
    "pacman.batch",
    "pacman.compare",     # paired comparisons, which play games through pacman.batch
    "pacman.envs",        # the learning environments and their agent adapters
    "pacman.cli",
    "pacman.view",
    "pacman.draw",        # tree drawings, which solve trees with pacman.agents.trees
    "research",           # scripts/research (a clone's): the solver's values and the agents' policies
    "pacman.__main__",    # runs pacman.cli
)
#: The same for a classic CS188 file: the classic API (``util``, ``game``, ``ghostAgents``,
#: all in ``pacman.cs188``) is what such files import, so only the classic graders of ``pacman.cs188`` are forbidden.
CLASSIC_FORBIDDEN_IMPORTS = tuple("pacman.cs188.grading" if name == "pacman.cs188" else name
                                  for name in DEFAULT_FORBIDDEN_IMPORTS)

#: Rules at most, and characters a rule may have.
MAX_RULES = 200
MAX_RULE_LENGTH = 200
#: Attempts remembered between two reports (a submission importing in a loop does not flood the grader).
_MAX_ATTEMPTS = 20
#: Callables that import the module named by their first argument.
_IMPORTING_CALLS = ("import_module", "__import__", "find_spec", "resolve_name")
#: What `ImportGuard.take` reports as the module when the guard was taken out of ``sys.meta_path``.
GUARD_REMOVED = "sys.meta_path"
#: The packages whose module names are checked against the installed files.
_PROJECT_PACKAGES = ("pacman",)
#: What can never be forbidden: the state API every submission uses.
_NEVER_FORBIDDEN = ("pacman",)
#: What a classic course can never forbid: the classic API its students import.
_CLASSIC_API = ("pacman.cs188", "util", "game", "ghostAgents")
#: What a classic course may forbid inside the classic API's package: its graders.
_CLASSIC_GRADERS = ("pacman.cs188.grading",)


def forbidding_rule(name: str, rules: Iterable[str]) -> str | None:
    """The rule of `rules` that forbids module `name` (the module itself or a package above it), if any.

    >>> forbidding_rule("pacman.agents.evaluation", ("pacman.agents", "pacman.grading"))
    'pacman.agents'
    >>> forbidding_rule("pacman.state", ("pacman.agents", "pacman.grading")) is None
    True
    """
    for rule in rules:
        if name == rule or name.startswith(rule + "."):
            return rule
    return None


class RuleError(ValueError):
    """A ``forbid_imports`` value that cannot be used; `index` is the entry at fault (None: the whole value)."""

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index


def check_rules(value: Any, classic: bool = False) -> tuple[str, ...]:
    """`value` (a list of module names) as rules; RuleError saying what is wrong with it.

    Each name is a dotted Python name, listed once; a name inside this project
    (``pacman.…``, ``pacman.agents.…``) must be one of its modules or packages, so that a
    misspelt rule never silently forbids nothing. ``pacman`` itself (the state API)
    cannot be forbidden, nor, for a classic course, the classic API.
    """
    if not isinstance(value, (list, tuple)):
        raise RuleError(f"expected a list of module names such as [\"pacman.agents\", \"pacman.grading\"], got {value!r}")
    if len(value) > MAX_RULES:
        raise RuleError(f"{len(value)} module names, more than the {MAX_RULES} allowed")
    rules: list[str] = []
    for position, name in enumerate(value):
        if not isinstance(name, str) or not name or len(name) > MAX_RULE_LENGTH \
                or not all(part.isidentifier() for part in name.split(".")):
            raise RuleError(f"expected a module name (dotted Python names, e.g. pacman.agents.evaluation), got {name!r}",
                            position)
        if name in rules:
            raise RuleError(f"{name!r} is listed twice", position)
        if name in _NEVER_FORBIDDEN:
            raise RuleError(f"{name!r} cannot be forbidden: submissions need its state API "
                            f"(pacman.state, pacman.actions, ...); forbid its subpackages instead", position)
        if classic:
            covered = [api for api in _CLASSIC_API if forbidding_rule(api, [name]) or forbidding_rule(name, [api])]
            if covered and not forbidding_rule(name, _CLASSIC_GRADERS):
                raise RuleError(f"{name!r} cannot be forbidden: it is (or holds) the classic API that "
                                f"classic files import ({covered[0]})", position)
        if name.split(".")[0] in _PROJECT_PACKAGES and not _is_project_module(name):
            raise RuleError(f"{name!r} is not a module of pacman-ai (misspelt?)", position)
        rules.append(name)
    return tuple(rules)


def _is_project_module(name: str) -> bool:
    """Whether `name` is a module or package of this project, by its files (nothing is imported)."""
    package = Path(__file__).resolve().parent.parent
    parts = name.split(".")[1:]
    if parts[:1] == ["agents"] and not (package / "agents").is_dir():
        # A source checkout: pacman.agents is the folder agents/ beside pacman/ (pyproject's package-dir).
        package, parts = package.parent / "agents", parts[1:]
    path = package.joinpath(*parts)
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


@dataclass(frozen=True)
class Violation:
    """A forbidden import by a submission: found in its source, or attempted while it ran."""

    file: str
    """The submission's file name."""
    line: int | None
    """The line of the submission that imports (None: not known, e.g. an import made on another thread)."""
    module: str
    """The module imported."""
    rule: str
    """The ``forbid_imports`` entry that forbids it."""
    check: str
    """"static" (found in the source before it ran) or "runtime" (refused while it ran)."""
    questions: tuple[str, ...] = field(default=())
    """The questions it cost points on."""

    @property
    def message(self) -> str:
        """E.g. ``multi_agents.py line 3: imports pacman.agents.evaluation, which this assignment forbids``."""
        where = f"{self.file} line {self.line}" if self.line is not None else self.file
        if self.module == GUARD_REMOVED:
            return (f"{where}: tampered with the grader's import guard (sys.meta_path, sys.modules), which this "
                    f"assignment forbids")
        rule = "" if self.rule == self.module else f" (forbid_imports: {self.rule})"
        if self.check == "static":
            return f"{where}: imports {self.module}, which this assignment forbids{rule}"
        return f"{where}: tried to import {self.module} while running, which this assignment forbids{rule}"

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "import": self.module, "rule": self.rule,
                "check": self.check, "questions": list(self.questions), "message": self.message}

    @classmethod
    def from_attempt(cls, attempt: Any, file: str, rules: tuple[str, ...]) -> Violation | None:
        """The violation a submission's process reported (`ImportGuard.take`), checked; None if it is not one."""
        if not isinstance(attempt, dict):
            return None
        module, line = attempt.get("module"), attempt.get("line")
        if not isinstance(module, str):
            return None
        module = module[:MAX_RULE_LENGTH]
        rule = forbidding_rule(module, rules) or str(attempt.get("rule", ""))[:MAX_RULE_LENGTH]
        if isinstance(line, bool) or not isinstance(line, int) or line < 1:
            line = None
        return cls(file, line, module, rule, "runtime")


def find_violations(source: str, file: str, rules: Iterable[str]) -> list[Violation]:
    """Every forbidden import that `source` (the file named `file`) writes out, in line order.

    Source that does not parse has none (loading it reports the syntax error).
    """
    rules = tuple(rules)
    if not rules:
        return []
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found: dict[tuple[int, str], Violation] = {}

    def check(name: str, line: int) -> bool:
        rule = forbidding_rule(name, rules)
        if rule is not None:
            found.setdefault((line, name), Violation(file, line, name, rule, "static"))
        return rule is not None

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                check(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level or not node.module:
                continue  # relative: a submission is not in a package, so this import fails by itself
            if not check(node.module, node.lineno):
                for alias in node.names:  # `from pacman import grading`: a forbidden submodule by attribute
                    if alias.name != "*":
                        check(f"{node.module}.{alias.name}", node.lineno)
        elif isinstance(node, ast.Call):
            for name in _imported_by_call(node):
                check(name, node.lineno)
        elif isinstance(node, ast.Subscript) and _is_modules(node.value):  # sys.modules["pacman.agents.evaluation"]
            name = _literal(node.slice)
            if name:
                check(name, node.lineno)
    return [found[key] for key in sorted(found)]


def _is_modules(node: ast.AST) -> bool:
    """Whether `node` reads ``sys.modules`` (as ``<anything>.modules``)."""
    return isinstance(node, ast.Attribute) and node.attr == "modules"


def _literal(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _argument(call: ast.Call, position: int, keyword: str) -> ast.AST | None:
    if len(call.args) > position:
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def _imported_by_call(call: ast.Call) -> list[str]:
    """Module names a call of an importing function (`_IMPORTING_CALLS`) names with string literals."""
    func = call.func
    callee = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if isinstance(func, ast.Attribute) and _is_modules(func.value) and callee in ("get", "pop", "__getitem__"):
        name = _literal(_argument(call, 0, "key"))  # sys.modules.get("pacman.agents.evaluation")
        return [name] if name else []
    if callee not in _IMPORTING_CALLS:
        return []
    name = _literal(_argument(call, 0, "name"))
    if not name:
        return []
    if callee == "resolve_name":
        return [name.partition(":")[0]]
    if name.startswith("."):  # import_module(".evaluation", "agents")
        package = _literal(_argument(call, 1, "package"))
        if not package:
            return []
        name = package + name if name.strip(".") else package
        return [name.rstrip(".")]
    names = [name]
    if callee == "__import__":  # __import__("pacman", fromlist=["grading"]) imports pacman.grading
        fromlist = _argument(call, 3, "fromlist")
        if isinstance(fromlist, (ast.List, ast.Tuple)):
            names.extend(f"{name}.{item}" for item in map(_literal, fromlist.elts) if item and item != "*")
    return names


class ImportGuard:
    """A ``sys.meta_path`` finder that refuses forbidden modules and remembers who asked.

    It raises ``ImportError`` naming the rule for any import of a forbidden module
    that is not already loaded (`seal` makes sure none is), whatever the spelling:
    an import statement, ``importlib.import_module`` with a computed name,
    ``__import__``, ``importlib.util.find_spec``, ``pkgutil``. `take` hands over the
    attempts since the last call, and notices a guard that was taken out of
    ``sys.meta_path`` or a forbidden module that got into ``sys.modules`` anyway.
    """

    def __init__(self, rules: Iterable[str], submission_path: str) -> None:
        self.rules = tuple(rules)
        self.submission_path = submission_path
        self._attempts: list[dict[str, Any]] = []

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        rule = forbidding_rule(name, self.rules)
        if rule is None:
            return None
        requested = self._remember(name, rule)
        raise ImportError(f"{requested}: importing this module is forbidden by the assignment "
                          f"(forbid_imports: {rule})", name=name)

    def invalidate_caches(self) -> None:
        pass

    def _remember(self, name: str, rule: str) -> str:
        """Note the attempt (with the submission's line); returns the module the importer asked for."""
        requested, line = name, None
        frame = sys._getframe(2)
        while frame is not None:
            if frame.f_code.co_filename == self.submission_path:
                line = frame.f_lineno
                break
            if frame.f_code.co_name == "_find_and_load" and frame.f_globals.get("__name__") == "importlib._bootstrap":
                # importing pacman.agents.evaluation asks for its package first: name what the submission asked for
                outer = frame.f_locals.get("name")
                if isinstance(outer, str) and forbidding_rule(outer, self.rules) is not None:
                    requested = outer
            frame = frame.f_back
        if len(self._attempts) < _MAX_ATTEMPTS:
            self._attempts.append({"module": requested, "rule": forbidding_rule(requested, self.rules) or rule,
                                   "line": line})
        return requested

    def take(self) -> list[dict[str, Any]]:
        """The attempts since the last call (JSON-ready), tampering with the guard included."""
        attempts, self._attempts = self._attempts, []
        if not self.rules:  # nothing forbidden: `seal` did not install the guard
            return attempts
        removed = not any(finder is self for finder in sys.meta_path)
        if removed:
            attempts.append({"module": GUARD_REMOVED, "rule": "the import guard", "line": None})
            sys.meta_path.insert(0, self)
        loaded = sorted(name for name in list(sys.modules) if forbidding_rule(name, self.rules))
        for name in loaded:  # unloaded again, for the next item
            sys.modules.pop(name, None)
        if loaded and not removed:  # put there by hand, past the guard: one report per rule
            for rule in dict.fromkeys(forbidding_rule(name, self.rules) for name in loaded):
                first = next(name for name in loaded if forbidding_rule(name, self.rules) == rule)
                attempts.append({"module": first, "rule": rule, "line": None})
        return attempts


def seal(rules: Iterable[str], submission_path: str) -> ImportGuard:
    """Unload every forbidden module (as the submission would see it) and install the guard; returns it.

    The caller keeps the objects it needs (its functions hold them); what leaves is
    every ``sys.modules`` entry a rule covers and every module attribute that
    refers to such a module (``pacman.grading`` on ``pacman``), so that neither
    ``sys.modules[...]``, an attribute of a loaded package, nor ``importlib.reload``
    leads to them. Anything that imports a forbidden module later hits the guard:
    the caller must have imported, at module level, everything it needs afterwards.
    """
    guard = ImportGuard(rules, submission_path)
    if not guard.rules:
        return guard
    gone = {name: module for name, module in list(sys.modules.items()) if forbidding_rule(name, guard.rules)}
    for name in gone:
        del sys.modules[name]
    gone_ids = {id(module) for module in gone.values()}
    for module in list(sys.modules.values()):
        try:
            namespace = vars(module)
        except TypeError:  # None, or an object without a __dict__
            continue
        for attribute, value in list(namespace.items()):
            if id(value) in gone_ids:
                del namespace[attribute]
    sys.meta_path.insert(0, guard)
    sys.path_importer_cache.clear()
    return guard
