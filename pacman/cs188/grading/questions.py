"""The classic question classes: how a question's score follows from its tests' verdicts.

Every question class of the course's ``testClasses`` module, with its rules:

- ``PassAllTestsQuestion``: full marks if every test passes, else 0.
- ``ExtraCreditPassAllTestsQuestion``: the same, plus the CONFIG's
  ``extra_points`` when every test passes.
- ``PartialCreditQuestion``: each test adds the points it earns; a test that
  fails outright sets the question to 0 and stops it (the tests after it do
  not count).
- ``Q6PartialCreditQuestion``: every test runs and adds the points it earns;
  any test that fails outright sets the question to 0.
- ``NumberPassedQuestion``: one point per test that passes, plus the points the
  tests earn (an ``EvalAgentTest`` both earns its points and passes).
- ``HackedPartialCreditQuestion``: a test that gives ``points`` adds them
  (truncated to a whole number, all together) when it passes; every other test
  must pass; the points the tests earn are added too; and when the ``points``
  add up to exactly ``max_points`` while another test failed, the question
  scores 0.

In every class, a test that an exception escapes stops the question, which
keeps the points the tests before it added (the course's autograder catches the
exception around the whole question), and student code that exits
(``raiseNotDefined()``) sets the question to 0. Points are never capped at
``max_points``. A question whose prerequisite
(``depends``) was not completed with full marks is skipped with a note and
scores 0.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["QUESTION_CLASSES", "Verdict", "question_score", "SCORING", "CONFIG_KEYS", "TEST_POINTS_KEY"]

#: The question classes a course's CONFIG may name, and the scoring word our reports use for each.
QUESTION_CLASSES = ("PassAllTestsQuestion", "PartialCreditQuestion", "ExtraCreditPassAllTestsQuestion",
                    "Q6PartialCreditQuestion", "NumberPassedQuestion", "HackedPartialCreditQuestion")
SCORING = {"PassAllTestsQuestion": "all", "ExtraCreditPassAllTestsQuestion": "all",
           "PartialCreditQuestion": "partial", "Q6PartialCreditQuestion": "partial",
           "NumberPassedQuestion": "partial", "HackedPartialCreditQuestion": "partial"}
#: Every key a question's CONFIG may hold (``title`` is ours: the question's name in reports;
#: ``extra_points`` belongs to ExtraCreditPassAllTestsQuestion only).
CONFIG_KEYS = ("class", "max_points", "depends", "title", "extra_points")
#: The test key only a HackedPartialCreditQuestion reads: the points the test adds when it passes.
TEST_POINTS_KEY = "points"


@dataclass(frozen=True)
class Verdict:
    """One test's verdict as the question sees it."""

    passed: bool
    """Whether the test completed (it did not fail outright)."""
    points: float = 0.0
    """Points the test earned (tests that only pass or fail earn 0)."""
    test_points: float | None = None
    """The test file's own ``points`` (HackedPartialCreditQuestion), if it gives them."""
    stops: str | None = None
    """How the test ended the question, as in the course's autograder: ``"raised"`` (an exception escaped the
    test: the question stops there, keeping the points the tests before it added), ``"exit"`` (the student's
    code exited, e.g. ``raiseNotDefined()``: the question scores 0), or None (it returned a verdict)."""


def question_score(question_class: str, max_points: float, verdicts: list[Verdict],
                   extra_points: float = 0.0) -> tuple[float, int]:
    """(score, number of verdicts that counted) for a question of `question_class`.

    >>> question_score("PassAllTestsQuestion", 3, [Verdict(True), Verdict(False)])
    (0.0, 2)
    >>> question_score("PartialCreditQuestion", 4, [Verdict(True, 1), Verdict(False, 0), Verdict(True, 2)])
    (0.0, 2)
    >>> question_score("NumberPassedQuestion", 4, [Verdict(True), Verdict(False), Verdict(True, 2)])
    (4.0, 3)
    """
    for counted, verdict in enumerate(verdicts, start=1):
        if verdict.stops == "exit":
            return 0.0, counted
        if verdict.stops == "raised":
            return round(sum(v.points for v in verdicts[:counted - 1]), 6), counted
        if question_class == "PartialCreditQuestion" and not verdict.passed:
            return 0.0, counted
    everything = len(verdicts)
    earned = round(sum(v.points for v in verdicts), 6)
    all_passed = all(v.passed for v in verdicts)
    if question_class == "PassAllTestsQuestion":
        return (float(max_points) if all_passed else 0.0), everything
    if question_class == "ExtraCreditPassAllTestsQuestion":
        return (float(max_points) + float(extra_points) if all_passed else 0.0), everything
    if question_class == "PartialCreditQuestion":
        return earned, everything
    if question_class == "Q6PartialCreditQuestion":
        return (earned if all_passed else 0.0), everything
    if question_class == "NumberPassedQuestion":
        return round(earned + sum(1 for v in verdicts if v.passed), 6), everything
    if question_class == "HackedPartialCreditQuestion":
        extra = sum(v.test_points for v in verdicts if v.test_points is not None and v.passed)
        mandatory = all(v.passed for v in verdicts if v.test_points is None)
        if int(extra) == max_points and not mandatory:
            return 0.0, everything
        return round(earned + int(extra), 6), everything
    raise ValueError(f"unknown question class {question_class!r} (known: {', '.join(QUESTION_CLASSES)})")
