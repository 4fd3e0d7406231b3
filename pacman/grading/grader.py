"""Grading a submission: every test of every question, each in a fresh sandboxed process.

>>> report = grade(load_assignment("expectimax"), "multi_agents.py")   # doctest: +SKIP
>>> report.score, report.max_score                                     # doctest: +SKIP
(25.0, 25.0)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from pacman.grading.assignment import Assignment, AssignmentError, Question
from pacman.grading.checks import TestResult, prepare
from pacman.grading.sandbox import check_sandbox_user, run_items

__all__ = ["QuestionResult", "GradeReport", "grade", "SubmissionError"]

#: Submissions larger than this are refused before anything runs.
MAX_SUBMISSION_BYTES = 1 << 20


class SubmissionError(AssignmentError):
    """A submission file that cannot be graded at all (missing, unreadable, not text)."""


@dataclass
class QuestionResult:
    """A question's score and its tests' verdicts."""

    id: str
    title: str
    score: float
    max_score: float
    scoring: str
    visibility: str
    tests: list[TestResult]
    notes: list[str] = field(default_factory=list)
    """About the question as a whole (a classic question skipped for its prerequisite, disabled tests)."""

    def to_dict(self) -> dict[str, Any]:
        data = {"id": self.id, "title": self.title, "score": self.score, "max_score": self.max_score,
                "scoring": self.scoring, "tests": [t.to_dict() for t in self.tests]}
        if self.notes:
            data["notes"] = list(self.notes)
        return data


@dataclass
class GradeReport:
    """Everything about one grading run."""

    assignment: str
    submission: str
    questions: list[QuestionResult]
    seconds: float
    output: list[str] = field(default_factory=list)
    """What the submission printed, per test (truncated), for --verbose."""

    @property
    def score(self) -> float:
        return round(sum(q.score for q in self.questions), 6)

    @property
    def max_score(self) -> float:
        return round(sum(q.max_score for q in self.questions), 6)

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` form."""
        return {"assignment": self.assignment, "submission": self.submission, "score": self.score,
                "max_score": self.max_score, "execution_time": round(self.seconds, 3),
                "questions": [q.to_dict() for q in self.questions]}


def read_submission(path: str | Path) -> str:
    """The submission's source text; SubmissionError naming the file if it cannot be read.

    Only a regular file of at most `MAX_SUBMISSION_BYTES` is read (a FIFO or a device
    is refused before a byte is read); it must be UTF-8 text without NUL bytes.
    """
    from pacman.files import read_input_file

    shown = str(path)
    if not shown.strip():
        raise SubmissionError("the submission's file name is empty; give the submission's .py file")
    data = read_input_file(path, "the submission's .py file", MAX_SUBMISSION_BYTES, SubmissionError)
    if b"\0" in data:
        raise SubmissionError(f"{shown}: binary file (contains NUL bytes), not Python source")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SubmissionError(f"{shown}: not UTF-8 text (byte {exc.start})") from None


def question_score(question: Question, tests: list[TestResult]) -> float:
    """`partial`: the question's points in proportion to test points earned; `all`: all or nothing."""
    total = sum(t.max_score for t in tests)
    if question.scoring == "all":
        return float(question.points) if all(t.passed for t in tests) else 0.0
    earned = sum(t.score for t in tests)
    return round(question.points * earned / total, 6) if total else 0.0


def grade(
    assignment: Assignment,
    submission: str | Path,
    questions: list[str] | None = None,
    progress: Callable[[str, TestResult], None] | None = None,
    sandbox_user: str | None = None,
) -> GradeReport:
    """Grade `submission` on `assignment` (only the `questions` ids given, if any).

    Every test runs in its own sandboxed process (as `sandbox_user`, if given:
    needs root); the expected answers of all tests are computed before the
    submission runs at all.
    """
    from pacman.grading.classic.detect import classic_hint, classic_imports, missing_classic_module

    started = time.perf_counter()
    source = read_submission(submission)
    modules = classic_imports(source)
    if modules:  # one message, rather than the same ModuleNotFoundError for every test
        raise SubmissionError(classic_hint(str(submission), assignment.id, modules))
    if sandbox_user is not None:
        check_sandbox_user(sandbox_user)
    path = str(Path(submission).resolve())
    # A question named twice is graded once (else its points would count twice).
    chosen = [assignment.question(q) for q in dict.fromkeys(questions)] if questions else list(assignment.questions)
    checks = [(question, [prepare(test) for test in question.tests]) for question in chosen]
    results = []
    output = []
    for question, question_checks in checks:
        verdicts = []
        for check in question_checks:
            run = run_items(source, path, check.items, check.time_limits, memory_mb=assignment.memory_mb,
                            user=sandbox_user)
            missing = missing_classic_module(run.import_error)
            if missing is not None:
                raise SubmissionError(classic_hint(str(submission), assignment.id, [missing]))
            verdict = check.judge(run.outcomes)
            verdicts.append(verdict)
            if run.output.strip():
                output.append(f"[{question.id} / {verdict.name}]\n{run.output}")
            if progress is not None:
                progress(question.id, verdict)
        results.append(QuestionResult(question.id, question.title, question_score(question, verdicts),
                                      float(question.points), question.scoring, question.visibility, verdicts))
    return GradeReport(assignment.id, str(submission), results, time.perf_counter() - started, output)
