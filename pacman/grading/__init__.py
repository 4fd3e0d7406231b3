"""Course-style autograding: assignments, a sandboxed runner, the checks, and reports.

An assignment (`load_assignment`) is a directory with ``assignment.toml`` and its
test files; `grade` runs a student's submission on it, each test in a fresh child
process with time and memory limits, and returns a `GradeReport` that
`format_report`, `gradescope_results` and ``report.to_dict()`` present. Nothing
here imports pygame. The format is documented in ``docs/grading.md``.
"""

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
