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
Tests run in file-name order; a test with ``disabled: "true"`` is skipped.
Keys this project does not use are ignored, so that folders written for the
classic autograder load unchanged. The top ``CONFIG`` may give ``forbid_imports``,
the modules a submission may not import, separated by spaces (an empty value
forbids nothing); without it, `CLASSIC_FORBIDDEN_IMPORTS` applies.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from pacman.grading.classic.format import ClassicFile, ClassicFormatError, key_generation, read_classic_file
from pacman.grading.forbidden import CLASSIC_FORBIDDEN_IMPORTS, RuleError, check_rules
from pacman.grading.classic.eval_agent import EvalAgentTest
from pacman.grading.classic.graph_tree import GraphGameTreeTest
from pacman.grading.classic.kinds import ClassicTest
from pacman.grading.classic.pacman_tree import PacmanGameTreeTest
from pacman.grading.classic.questions import QUESTION_CLASSES

__all__ = ["ClassicCourse", "ClassicQuestion", "load_course", "is_classic_course", "folder_generation", "TEST_CLASSES"]

#: Test classes by the name a ``.test`` file's ``class`` gives.
TEST_CLASSES: dict[str, type[ClassicTest]] = {
    cls.class_name: cls for cls in (GraphGameTreeTest, PacmanGameTreeTest, EvalAgentTest)}
#: Tests in one question folder, at most.
MAX_TESTS = 2000


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
        known = ", ".join(q.id for q in self.questions)
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
    """Whether `path` is a folder with a ``CONFIG`` file that gives ``order`` (a classic ``test_cases``)."""
    config = Path(path) / "CONFIG"
    if not config.is_file():
        return False
    try:
        return "order" in read_classic_file(config).values
    except ClassicFormatError:
        return True  # a CONFIG that is there but malformed: load_course says what is wrong with it


def _inside(directory: Path, name: str, config) -> Path:
    folder = directory / name
    if name in (".", "..") or "/" in name or "\\" in name or not folder.is_dir() or folder.is_symlink():
        raise config.error("order", f"{name!r} is not a question folder of {directory}")
    return folder


@dataclass
class _ReadQuestion:
    """A question folder as read, before its tests are built (the folder's generation is known only then)."""

    id: str
    config: ClassicFile
    tests: list[tuple[str, ClassicFile, ClassicFile | None]]
    disabled: list[str]


def _read_question(folder: Path, question_id: str, solutions: bool) -> _ReadQuestion:
    config = read_classic_file(folder / "CONFIG")
    question_class = config.require("class").strip()
    if question_class not in QUESTION_CLASSES:
        raise config.error("class", f"expected one of {', '.join(QUESTION_CLASSES)}, got {question_class!r}")
    config.whole("max_points", 0)
    tests = []
    disabled = []
    paths = sorted(p for p in folder.iterdir() if p.name.endswith(".test"))
    if len(paths) > MAX_TESTS:
        raise ClassicFormatError(f"{folder}: {len(paths)} tests, more than the {MAX_TESTS} a question may have")
    for path in paths:
        name = path.name[: -len(".test")]
        test = read_classic_file(path)
        if (test.get("disabled") or "").strip().lower() == "true":
            disabled.append(name)
            continue
        kind = test.require("class").strip()
        if kind not in TEST_CLASSES:
            raise test.error("class", f"expected one of {', '.join(TEST_CLASSES)}, got {kind!r}")
        solution = None
        if solutions:
            solution_path = folder / f"{name}.solution"
            if not solution_path.is_file():
                raise ClassicFormatError(f"{path}: its solution file {solution_path.name} is missing")
            solution = read_classic_file(solution_path)
        tests.append((name, test, solution))
    return _ReadQuestion(question_id, config, tests, disabled)


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
    depends = tuple((config.get("depends") or "").split())
    tests: list[ClassicTest] = []
    for name, test, solution in read.tests:
        for file in (test, solution):
            if file is not None:
                file.generation = generation
        tests.append(TEST_CLASSES[test.require("class").strip()](name, test, solution))
    title = (config.get("title") or "").strip() or ", ".join(
        dict.fromkeys(getattr(t, "alg", "") for t in tests if getattr(t, "alg", ""))) or read.id
    return ClassicQuestion(read.id, title, max_points, question_class, depends, tests, read.disabled)


def load_course(directory: str | os.PathLike[str], solutions: bool = True) -> ClassicCourse:
    """Read and check a classic course folder; ClassicFormatError naming the file and line if anything is wrong.

    With ``solutions=False`` the ``.solution`` files are neither needed nor read
    (to write them: `pacman.grading.classic.solutions.write_solutions`).
    """
    root = Path(directory)
    config = read_classic_file(root / "CONFIG")
    order = config.require("order").split()
    if not order:
        raise config.error("order", "lists no question")
    forbid_imports = CLASSIC_FORBIDDEN_IMPORTS
    if config.get("forbid_imports") is not None:
        try:
            forbid_imports = check_rules(config.get("forbid_imports").split(), classic=True)
        except RuleError as exc:
            raise config.error("forbid_imports", str(exc)) from None
    read: list[_ReadQuestion] = []
    for question_id in order:
        if any(q.id == question_id for q in read):
            raise config.error("order", f"question {question_id!r} is listed twice")
        read.append(_read_question(_inside(root, question_id, config), question_id, solutions))
    generation, evidence = folder_generation([file for question in read for _, test, solution in question.tests
                                    for file in (test, solution) if file is not None])
    questions = [_build_question(question, generation) for question in read]
    earlier: set[str] = set()
    for question in questions:
        for prerequisite in question.depends:
            if prerequisite not in earlier:
                where = "is not a question of the course" if prerequisite not in order else "comes after it in order"
                raise ClassicFormatError(f"{root / question.id / 'CONFIG'}: depends: {prerequisite!r} {where}")
        earlier.add(question.id)
    return ClassicCourse(root, questions, forbid_imports, generation, evidence)
