"""The classic question classes: how a question's score follows from its tests' verdicts.

- ``PassAllTestsQuestion``: full marks if every test passes, else 0.
- ``PartialCreditQuestion``: each test adds the points it earns; a test that
  fails outright sets the question to 0 and stops it (the tests after it do
  not count).

A question whose prerequisite (``depends``) was not completed with full marks
is skipped with a note and scores 0.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["QUESTION_CLASSES", "Verdict", "question_score", "SCORING"]

#: The question classes a course's CONFIG may name, and the scoring word our reports use for each.
QUESTION_CLASSES = ("PassAllTestsQuestion", "PartialCreditQuestion")
SCORING = {"PassAllTestsQuestion": "all", "PartialCreditQuestion": "partial"}


@dataclass(frozen=True)
class Verdict:
    """One test's verdict as the question sees it."""

    passed: bool
    points: float = 0.0
    """Points the test earned (tests that only pass or fail earn 0)."""


def question_score(question_class: str, max_points: float, verdicts: list[Verdict]) -> tuple[float, int]:
    """(score, number of verdicts that counted) for a question of `question_class`.

    >>> question_score("PassAllTestsQuestion", 3, [Verdict(True), Verdict(False)])
    (0.0, 2)
    >>> question_score("PartialCreditQuestion", 4, [Verdict(True, 1), Verdict(False, 0), Verdict(True, 2)])
    (0.0, 2)
    """
    if question_class == "PassAllTestsQuestion":
        return (float(max_points) if all(v.passed for v in verdicts) else 0.0), len(verdicts)
    if question_class == "PartialCreditQuestion":
        earned = 0.0
        for counted, verdict in enumerate(verdicts, start=1):
            if not verdict.passed:
                return 0.0, counted
            earned += verdict.points
        return round(earned, 6), len(verdicts)
    raise ValueError(f"unknown question class {question_class!r} (known: {', '.join(QUESTION_CLASSES)})")
