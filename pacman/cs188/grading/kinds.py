"""What every classic test class shares: the grader's side (`ClassicTest`) and small helpers of the submission's side.

A test class reads its ``.test`` and ``.solution`` files when the course is
loaded (errors name the file and line), describes the items the submission's
process runs (`items`, `time_limits`: plain JSON data) and judges their outcomes.
A class plugs in by subclassing `ClassicTest`, adding its item runner to
`pacman.cs188.grading.runner` and its name to
`pacman.cs188.grading.course.TEST_CLASSES` (``GraphGameTreeTest``,
``PacmanGameTreeTest``, ``EvalAgentTest``).
"""

from __future__ import annotations

import abc
from typing import Any

from pacman.cs188.grading.format import ClassicFile
from pacman.grading.sandbox import ItemOutcome

__all__ = ["ClassicTest", "action_text", "agent_class"]


class ClassicTest(abc.ABC):
    """One test of a classic question, ready to run (its solution file is None when solutions are being written)."""

    class_name = ""
    """The ``class`` value of the ``.test`` files this class reads."""
    test_keys: tuple[str, ...] = ()
    """Every key its ``.test`` file may hold (classic names): any other is refused by name
    (`pacman.cs188.grading.format.UnknownClassicError`), never ignored."""
    solution_keys: tuple[str, ...] = ()
    """Every key its ``.solution`` file may hold."""

    def __init__(self, name: str, test: ClassicFile, solution: ClassicFile | None) -> None:
        self.name = name
        self.test_file = test
        self.solution_file = solution
        self.max_points = 0.0
        """Points the test can add to a PartialCreditQuestion (0 for tests that only pass or fail, as
        the classic ``GraphGameTreeTest`` and ``PacmanGameTreeTest``: their passing adds no points)."""
        self.test_points: float | None = None
        """The file's ``points``: what it adds when it passes, in a HackedPartialCreditQuestion only."""
        self.items: list[dict[str, Any]] = []
        self.time_limits: list[float] = []

    exceptions_escape = False
    """Whether an exception in the student's code escapes this test class in the course's autograder (and so stops
    the question, keeping its points so far) rather than failing the test (a game's crash)."""

    def stops(self, outcomes: list[ItemOutcome]) -> str | None:
        """How the test ended its question (`pacman.cs188.grading.questions.Verdict.stops`): ``"exit"`` when the
        student's code exited (``raiseNotDefined()``), ``"raised"`` when an exception escaped a test class that
        lets it (`exceptions_escape`), None otherwise."""
        errors = [outcome.error or "" for outcome in outcomes if not outcome.ok]
        if not errors:
            return None
        if any(error.startswith(("not implemented:", "called exit()")) for error in errors):
            return "exit"
        return "raised" if self.exceptions_escape else None

    @abc.abstractmethod
    def judge(self, outcomes: list[ItemOutcome]) -> tuple[bool, float, list[str], dict[str, Any]]:
        """(completed, points earned, messages, observations for --json) from one outcome per item.

        A test that is not `completed` failed outright: it stops a PartialCreditQuestion
        and fails a PassAllTestsQuestion. A completed test earning fewer points than
        `max_points` (an EvalAgentTest below its thresholds or minimums) does neither,
        as in the classic autograder. Only for a test loaded with its solution file.
        """

    @abc.abstractmethod
    def solution_values(self, outcomes: list[ItemOutcome]) -> dict[str, str]:
        """The ``.solution`` file's values that a reference file's outcomes give (they all ran to the end)."""


def action_text(action: Any) -> tuple[str, str]:
    """(text, type name) of what ``getAction`` returned, for the grader to compare."""
    if isinstance(action, str):
        return str.__str__(action), "str"  # a str subclass (an enum of strings) by its value
    return repr(action)[:100], type(action).__name__


def agent_class(module: Any, name: str) -> Any:
    """The agent class `name` of the submission's module; AttributeError saying so if it has none."""
    cls = getattr(module, name, None)
    if cls is None:
        raise AttributeError(f"the submission defines no {name}")
    return cls
