"""Course-style autograding: assignments, a sandboxed runner, the checks, and reports.

An assignment (`load_assignment`) is a directory with ``assignment.toml`` and its
test files; `grade` runs a student's submission on it, each test in a fresh child
process with time and memory limits, and returns a `GradeReport` that
`format_report`, `gradescope_results` and ``report.to_dict()`` present. Nothing
here imports pygame. The format is documented in ``docs/grading.md``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pacman.grading.assignment import (
        Assignment,
        AssignmentError,
        Question,
        load_assignment,
        shipped_assignments,
    )
    from pacman.grading.grader import GradeReport, QuestionResult, SubmissionError, grade
    from pacman.grading.gradescope import write_gradescope_package
    from pacman.grading.report import format_report, gradescope_results, write_json

#: Where each public name lives. They are imported on first use (PEP 562), so that the sandbox's worker,
#: which imports `pacman.grading.worker` once per test in a fresh process, does not load the grader, the
#: assignment reader and the report writers it never uses (about a fifth of its start-up).
_WHERE = {
    "Assignment": "assignment", "AssignmentError": "assignment", "Question": "assignment",
    "load_assignment": "assignment", "shipped_assignments": "assignment",
    "GradeReport": "grader", "QuestionResult": "grader", "SubmissionError": "grader", "grade": "grader",
    "write_gradescope_package": "gradescope",
    "format_report": "report", "gradescope_results": "report", "write_json": "report",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'pacman.grading' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"pacman.grading.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))


__all__ = [
    "Assignment",
    "AssignmentError",
    "Question",
    "load_assignment",
    "shipped_assignments",
    "GradeReport",
    "QuestionResult",
    "SubmissionError",
    "grade",
    "format_report",
    "gradescope_results",
    "write_json",
    "write_gradescope_package",
]
