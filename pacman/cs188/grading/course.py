"""A classic course folder: the top ``CONFIG`` (``order``), question folders, their tests.

::

    test_cases/
      CONFIG                 order: "q1 q2 q3"   (forbid_imports: "agents pacman.grading ...")
      q1/CONFIG              max_points: "4"  class: "PassAllTestsQuestion"  (depends: "q0")
      q1/1-small.test        class: "GraphGameTreeTest" ...
      q1/1-small.solution    action: ... generated: ...

Everything is read and checked when the course is loaded, before a submission
runs: a mistake is one line naming the file (and the line, inside a file).
The folder's generation (classic camelCase keys such as ``agentName``, or the
current generation's ``agent_name``) is read from its keys; a folder mixing
the two is refused, naming a key of each.

Without ``order`` the questions are the subfolders, sorted by name, as the
course's autograder takes them; question folders may have any name
(``q1``, ``test_minimax``). Tests run in file-name order (names starting with
``.``, ``#`` or ``~`` are skipped, as the course skips them, and listed); a test
with ``disabled: "true"`` is skipped. Every key of every file is understood or
refused by name: something a question's files name that pacman-ai does not
understand (a key, a test class, a question class) makes that question not
gradable -- reported, costing that question only -- and never ignored.
With `questions` given, only those questions and what they depend on are read.
The top ``CONFIG`` may give ``forbid_imports``, the modules a submission may not
import, separated by spaces (an empty value forbids nothing); without it,
`CLASSIC_FORBIDDEN_IMPORTS` applies.
"""

from __future__ import annotations

import os
from dataclasses import replace, dataclass, field
from pathlib import Path
from typing import Any

from pacman.cs188.grading.format import (
    ClassicFile,
    ClassicFormatError,
    UnknownClassicError,
    key_generation,
    read_classic_file,
)
from pacman.grading.forbidden import CLASSIC_FORBIDDEN_IMPORTS, RuleError, check_rules
from pacman.cs188.grading.eval_agent import EvalAgentTest
from pacman.cs188.grading.graph_tree import GraphGameTreeTest
from pacman.cs188.grading.kinds import ClassicTest
from pacman.cs188.grading.pacman_tree import PacmanGameTreeTest
from pacman.cs188.grading.questions import CONFIG_KEYS, QUESTION_CLASSES, TEST_POINTS_KEY

__all__ = ["ClassicCourse", "ClassicQuestion", "load_course", "is_classic_course", "folder_generation", "TEST_CLASSES",
           "TOP_CONFIG_KEYS", "SKIPPED_PREFIXES"]

#: Test classes by the name a ``.test`` file's ``class`` gives.
TEST_CLASSES: dict[str, type[ClassicTest]] = {
    cls.class_name: cls for cls in (GraphGameTreeTest, PacmanGameTreeTest, EvalAgentTest)}
#: Tests in one question folder, at most.
MAX_TESTS = 2000
#: Every key the top CONFIG may hold.
TOP_CONFIG_KEYS = ("order", "forbid_imports")
#: Test files (and question folders, without ``order``) whose names start with one of these are skipped, as the
#: course's autograder skips them (editor backups, hidden files).
SKIPPED_PREFIXES = (".", "#", "~")


@dataclass
class ClassicQuestion:
    """One question folder."""

    id: str
    title: str
    max_points: int
    question_class: str
    depends: tuple[str, ...]
    tests: list[ClassicTest]
    disabled: list[str] = field(default_factory=list)
    """Names of the tests skipped because they say ``disabled: "true"``."""
    problem: str | None = None
    """Why the question cannot be graded (something its files name that pacman-ai does not understand,
    naming the file, line and key or class); None for a question that is graded."""
    skipped_files: list[str] = field(default_factory=list)
    """``.test`` files not read because their names start with ``.``, ``#`` or ``~`` (as the course skips them)."""
    extra_points: int = 0
    """An ExtraCreditPassAllTestsQuestion's ``extra_points``."""


@dataclass
class ClassicCourse:
    """A whole course folder, checked."""

    directory: Path
    questions: list[ClassicQuestion]
    forbid_imports: tuple[str, ...] = CLASSIC_FORBIDDEN_IMPORTS
    """Modules (and their submodules) a submission may not import; every question is protected."""
    generation: str | None = None
    """``"classic"`` or ``"current"`` as the folder's keys say (`folder_generation`); None when no key says
    (a folder of tree tests only), and the student file decides."""
    generation_evidence: str = ""
    """The key (and file) that says which generation the folder is."""
    order: tuple[str, ...] = ()
    """Every question of the course, in order (also those not read, when only some were asked for)."""
    order_source: str = "order"
    """``"order"`` (the top CONFIG's) or ``"folders"`` (no ``order``: the subfolders, sorted)."""
    engine: Any = None
    """The course's own engine quirks (`pacman.cs188.quirks.EngineQuirks`) read from its
    ``game.py`` / ``pacman.py`` beside the test folder; None when it ships none."""

    @property
    def ungradable(self) -> list[ClassicQuestion]:
        """The questions that cannot be graded (`ClassicQuestion.problem`)."""
        return [q for q in self.questions if q.problem is not None]

    def folder(self, question: ClassicQuestion) -> Path:
        """The folder of `question` (its CONFIG, tests and solutions)."""
        return self.directory / question.id

    @property
    def id(self) -> str:
        return self.directory.resolve().name

    def question(self, question_id: str) -> ClassicQuestion:
        for question in self.questions:
            if question.id == question_id:
                return question
        known = ", ".join(self.order or tuple(q.id for q in self.questions))
        raise ClassicFormatError(f"{self.directory}: no question {question_id!r} (its questions: {known})")

    def with_prerequisites(self, question_ids: list[str]) -> list[ClassicQuestion]:
        """The questions asked for plus, transitively, those they depend on, in the course's order."""
        wanted: set[str] = set()
        todo = list(question_ids)
        while todo:
            question = self.question(todo.pop())
            if question.id not in wanted:
                wanted.add(question.id)
                todo.extend(question.depends)
        return [q for q in self.questions if q.id in wanted]


def is_classic_course(path: str | os.PathLike[str]) -> bool:
    """Whether `path` is a classic ``test_cases`` folder: one with a ``CONFIG`` file and no ``assignment.toml``
    (which makes it one of our own assignments). Its ``CONFIG`` need not give ``order``."""
    folder = Path(path)
    return (folder / "CONFIG").is_file() and not (folder / "assignment.toml").exists()


def _inside(directory: Path, name: str, config) -> Path:
    folder = directory / name
    if name in (".", "..") or "/" in name or "\\" in name or not folder.is_dir() or folder.is_symlink():
        raise config.error("order", f"{name!r} is not a question folder of {directory}")
    return folder


def question_order(root: Path, config: ClassicFile) -> tuple[list[str], str]:
    """(the question folders in grading order, ``"order"`` or ``"folders"``): the top CONFIG's ``order``, else, as
    the course's autograder does, every subfolder sorted by name (skipping names that start with ``.``)."""
    if config.get("order") is not None:
        order = config.require("order").split()
        if not order:
            raise config.error("order", "lists no question")
        for position, question_id in enumerate(order):
            if question_id in order[:position]:
                raise config.error("order", f"question {question_id!r} is listed twice")
            _inside(root, question_id, config)
        return order, "order"
    order = sorted(entry.name for entry in root.iterdir()
                   if entry.is_dir() and not entry.is_symlink() and not entry.name.startswith("."))
    if not order:
        raise ClassicFormatError(f"{root / 'CONFIG'}: gives no order, and {root} has no question folder")
    for question_id in order:
        if not (root / question_id / "CONFIG").is_file():
            raise ClassicFormatError(f"{root / question_id}: a question folder (CONFIG gives no order, so every "
                                     f"subfolder is one) without a CONFIG file")
    return order, "folders"


@dataclass
class _ReadQuestion:
    """A question folder as read, before its tests are built (the folder's generation is known only then)."""

    id: str
    config: ClassicFile
    tests: list[tuple[str, ClassicFile, ClassicFile | None]]
    disabled: list[str]
    skipped: list[str]


def _read_question(folder: Path, question_id: str, solutions: bool) -> _ReadQuestion:
    config = read_classic_file(folder / "CONFIG")
    question_class = config.require("class").strip()
    if question_class not in QUESTION_CLASSES:
        raise UnknownClassicError(f"{config.path}:{config.key_lines['class']}: class: question class "
                                  f"{question_class!r} is not one pacman-ai grades (it grades "
                                  f"{', '.join(QUESTION_CLASSES)})")
    config.check_keys(CONFIG_KEYS if question_class == "ExtraCreditPassAllTestsQuestion"
                      else tuple(k for k in CONFIG_KEYS if k != "extra_points"), f"a {question_class} CONFIG")
    config.whole("max_points", 0)
    if question_class == "ExtraCreditPassAllTestsQuestion":
        config.whole("extra_points", 0)
    tests = []
    disabled = []
    skipped = []
    # Sorted by test name (the file name without .test), as the course sorts them: "a" before "a-b".
    paths = sorted((p for p in folder.iterdir() if p.name.endswith(".test") and len(p.name) > len(".test")),
                   key=lambda p: p.name[: -len(".test")])
    if len(paths) > MAX_TESTS:
        raise ClassicFormatError(f"{folder}: {len(paths)} tests, more than the {MAX_TESTS} a question may have")
    for path in paths:
        name = path.name[: -len(".test")]
        if path.name.startswith(SKIPPED_PREFIXES):
            skipped.append(path.name)
            continue
        test = read_classic_file(path)
        if (test.get("disabled") or "").strip().lower() == "true":
            disabled.append(name)
            continue
        kind = test.require("class").strip()
        if kind not in TEST_CLASSES:
            raise UnknownClassicError(f"{test.path}:{test.key_lines['class']}: class: test class {kind!r} is not "
                                      f"one pacman-ai grades (it grades {', '.join(TEST_CLASSES)})")
        solution = None
        if solutions:
            solution_path = folder / f"{name}.solution"
            if not solution_path.is_file():
                raise ClassicFormatError(f"{path}: its solution file {solution_path.name} is missing")
            solution = read_classic_file(solution_path)
        tests.append((name, test, solution))
    return _ReadQuestion(question_id, config, tests, disabled, skipped)


def _ungradable(folder: Path, question_id: str, problem: str) -> ClassicQuestion:
    """A question that cannot be graded: its points and prerequisites as its CONFIG says, where it can say."""
    max_points, depends, question_class = 0, (), ""
    try:
        config = read_classic_file(folder / "CONFIG")
        question_class = (config.get("class") or "").strip()
        max_points = config.whole("max_points", 0)
        depends = tuple((config.get("depends") or "").split())
    except ClassicFormatError:
        pass
    return ClassicQuestion(question_id, question_id, max_points, question_class, depends, [], problem=problem)


def folder_generation(files: list[ClassicFile]) -> tuple[str | None, str]:
    """(generation, evidence): the generation the keys of `files` are written for (``"classic"``,
    ``"current"``, or None when no key says: tree tests only) and the first file and key that says so;
    a ClassicFormatError naming both files and keys when they mix the two."""
    first: dict[str, tuple[ClassicFile, str]] = {}
    for file in files:
        for key in file.values:
            generation = key_generation(key)
            if generation is not None and generation not in first:
                first[generation] = (file, key)
    if len(first) == 2:
        (classic_file, classic_key), (current_file, current_key) = first["classic"], first["current"]
        if classic_file is current_file:
            where = f"the same file also has the current (snake_case) generation's {current_key!r} " \
                    f"(line {current_file.lines[current_key]})"
        else:
            where = f"the folder also has the current (snake_case) generation's {current_key!r} " \
                    f"({current_file.path}:{current_file.lines[current_key]})"
        raise ClassicFormatError(
            f"{classic_file.path}:{classic_file.lines[classic_key]}: {classic_key}: a classic (camelCase) "
            f"generation key, but {where}; a test folder is written for one generation")
    for generation, (file, key) in first.items():
        return generation, f"{key!r} in {file.path}"
    return None, ""


def _build_question(read: _ReadQuestion, generation: str | None) -> ClassicQuestion:
    config = read.config
    question_class = config.require("class").strip()
    max_points = config.whole("max_points", 0)
    extra_points = config.whole("extra_points", 0, default="0")
    depends = tuple((config.get("depends") or "").split())
    tests: list[ClassicTest] = []
    for name, test, solution in read.tests:
        for file in (test, solution):
            if file is not None:
                file.generation = generation
        cls = TEST_CLASSES[test.require("class").strip()]
        hacked = question_class == "HackedPartialCreditQuestion"
        built = cls(name, test, solution)  # a missing or malformed value first: a mistake in the folder
        article = "an" if cls.class_name[0] in "AEIOU" else "a"
        test.check_keys(cls.test_keys + ((TEST_POINTS_KEY,) if hacked else ()),
                        f"{article} {cls.class_name} .test file" + ("" if hacked else f" in a {question_class}"))
        if solution is not None:
            solution.check_keys(cls.solution_keys, f"{article} {cls.class_name} .solution file")
        if hacked and test.get(TEST_POINTS_KEY) is not None:
            built.test_points = _test_points(test)
        tests.append(built)
    title = (config.get("title") or "").strip() or ", ".join(
        dict.fromkeys(getattr(t, "alg", "") for t in tests if getattr(t, "alg", ""))) or read.id
    return ClassicQuestion(read.id, title, max_points, question_class, depends, tests, read.disabled,
                           skipped_files=read.skipped, extra_points=extra_points)


def _test_points(test: ClassicFile) -> float:
    raw = (test.get(TEST_POINTS_KEY) or "").strip()
    try:
        value = float(raw)
    except ValueError:
        raise test.error(TEST_POINTS_KEY, f"expected a number, got {raw!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise test.error(TEST_POINTS_KEY, f"expected a finite number, got {raw!r}")
    return value


def _wanted(root: Path, order: list[str], questions: list[str]) -> list[str]:
    """The questions asked for and, transitively, those their CONFIGs say they depend on (only their CONFIGs
    are read), in the course's order."""
    wanted: set[str] = set()
    todo = list(questions)
    while todo:
        question_id = todo.pop()
        if question_id not in order:
            raise ClassicFormatError(f"{root}: no question {question_id!r} (its questions: {', '.join(order)})")
        if question_id in wanted:
            continue
        wanted.add(question_id)
        try:
            config = read_classic_file(root / question_id / "CONFIG")
        except ClassicFormatError:
            continue  # reported when the question itself is read
        todo.extend(d for d in (config.get("depends") or "").split() if d in order)
    return [q for q in order if q in wanted]


def load_course(directory: str | os.PathLike[str], solutions: bool = True,
                questions: list[str] | None = None, action_order: tuple[str, ...] | None = None) -> ClassicCourse:
    """Read and check a classic course folder; ClassicFormatError naming the file and line if anything is wrong.

    With ``solutions=False`` the ``.solution`` files are neither needed nor read
    (to write them: `pacman.cs188.grading.solutions.write_solutions`). With
    `questions`, only those questions and what they depend on are read (the
    course's ``-q``): a question of the course that is not asked for is never
    opened. A question whose files name something pacman-ai does not understand
    is loaded as not gradable (`ClassicQuestion.problem`), costing that question only. `action_order`
    (``--action-order``) replaces the order the course's engine gives.
    """
    from pacman.cs188.quirks import EngineQuirks, read_engine_quirks

    root = Path(directory)
    config = read_classic_file(root / "CONFIG")
    config.check_keys(TOP_CONFIG_KEYS, "the top CONFIG of a test folder")
    order, order_source = question_order(root, config)
    forbid_imports = CLASSIC_FORBIDDEN_IMPORTS
    if config.get("forbid_imports") is not None:
        try:
            forbid_imports = check_rules(config.get("forbid_imports").split(), classic=True)
        except RuleError as exc:
            raise config.error("forbid_imports", str(exc)) from None
    chosen = _wanted(root, order, list(dict.fromkeys(questions))) if questions else order
    read: dict[str, _ReadQuestion | ClassicQuestion] = {}
    for question_id in chosen:
        try:
            read[question_id] = _read_question(root / question_id, question_id, solutions)
        except UnknownClassicError as exc:
            read[question_id] = _ungradable(root / question_id, question_id, str(exc))
    generation, evidence = folder_generation([file for question in read.values()
                                              if isinstance(question, _ReadQuestion)
                                              for _, test, solution in question.tests
                                              for file in (test, solution) if file is not None])
    built: list[ClassicQuestion] = []
    for question_id, question in read.items():
        if isinstance(question, _ReadQuestion):
            try:
                question = _build_question(question, generation)
            except UnknownClassicError as exc:
                question = _ungradable(root / question_id, question_id, str(exc))
        built.append(question)
    for question in built:
        for prerequisite in question.depends:
            if prerequisite not in order or order.index(prerequisite) > order.index(question.id):
                where = "is not a question of the course" if prerequisite not in order else "comes after it in order"
                raise ClassicFormatError(f"{root / question.id / 'CONFIG'}: depends: {prerequisite!r} {where}")
    engine = read_engine_quirks(root.parent)
    if action_order is not None:
        own = ", ".join(engine.action_order) + f" from {engine.order_evidence}" if engine is not None and \
            engine.order_evidence else "the classic order: no game.py"
        engine = replace(engine or EngineQuirks(files=()), action_order=tuple(action_order),
                         order_evidence=f"--action-order (the course's engine: {own})")
    if engine is not None and engine.unsupported:
        for index, question in enumerate(built):
            playing = [t for t in question.tests if t.class_name in ("PacmanGameTreeTest", "EvalAgentTest")]
            if question.problem is None and playing:
                built[index] = _ungradable(root / question.id, question.id, (
                    f"its {playing[0].class_name} {playing[0].name} plays the course's engine, which pacman-ai "
                    f"cannot play as it is: {'; '.join(engine.unsupported)}"))
    return ClassicCourse(root, built, forbid_imports, generation, evidence, tuple(order), order_source, engine)
