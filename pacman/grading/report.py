"""Reports of a grading run: the terminal text, ``--json`` and Gradescope's results.json.

Result files are written atomically (a temporary file, then a rename), so a
reader never sees half a file, and they are written only by the grading process,
after every submission process has ended.
"""

from __future__ import annotations

from typing import Any

from pacman.files import write_json
from pacman.grading.grader import GradeReport

__all__ = ["format_report", "gradescope_results", "write_json"]


def _points(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def _violation_lines(report: GradeReport) -> list[str]:
    """The forbidden imports, one line each, under a heading that says what they cost; [] if none."""
    if not report.violations:
        return []
    lines = ["FORBIDDEN IMPORTS: the submission uses modules this assignment forbids; the tests where it does fail "
             "(all of them, when the import is in the source):"]
    for violation in report.violations:
        lines.append(f"  {violation.message}; questions: {', '.join(violation.questions) or 'none'}")
    return lines


def _limit_lines(report: GradeReport) -> list[str]:
    """The limits the submission hit (disk, CPU, processes, sockets), one line each, then those this grading
    could enforce only less than exactly; [] if neither."""
    lines = []
    if report.limits:
        lines += ["LIMITS HIT: the submission was stopped, or its files were, where it went over a grading limit:",
                  *(f"  {line}" for line in report.limits)]
    if report.limit_notes:
        lines += ["LIMITS NOT EXACT here:", *(f"  {line}" for line in report.limit_notes)]
    return lines


def format_report(report: GradeReport, verbose: bool = False) -> str:
    """The readable report: forbidden imports first, then per question each test's verdict, points and why; the total."""
    lines = [f"Grading {report.submission} on assignment {report.assignment!r}"
             + (f" ({report.context})" if report.context else ""), ""]
    if report.violations:
        lines.extend(_violation_lines(report))
        lines.append("")
    if report.limits or report.limit_notes:
        lines.extend(_limit_lines(report))
        lines.append("")
    for question in report.questions:
        lines.append(f"Question {question.id}: {question.title}  "
                     f"{_points(question.score)}/{_points(question.max_score)}"
                     + ("  (all tests must pass)" if question.scoring == "all" else ""))
        if question.not_graded is not None:
            lines.append(f"  NOT GRADED: {question.not_graded}")
        lines.extend(f"  {note}" for note in question.notes)
        for test in question.tests:
            verdict = "PASS" if test.passed else "FAIL"
            lines.append(f"  {verdict} {test.name} ({test.kind})  {_points(test.score)}/{_points(test.max_score)}")
            shown = test.messages if (verbose or not test.passed) else test.messages[:0]
            for message in shown:
                lines.append(f"       {message}")
        lines.append("")
    lines.append(f"Total: {_points(report.score)}/{_points(report.max_score)}  "
                 f"(graded in {report.seconds:.1f} s)")
    if report.incomplete:
        lines.append(_incomplete_line(report))
    if verbose and report.output:
        lines.append("")
        lines.append("What the submission printed (never part of the grade):")
        lines.extend(report.output)
    return "\n".join(lines)


def _incomplete_line(report: GradeReport) -> str:
    listed = ", ".join(report.incomplete)
    return (f"INCOMPLETE: {listed} could not be graded (scored 0 here, not by the course's rules); "
            f"this total is not the whole grade")


def gradescope_results(report: GradeReport) -> dict[str, Any]:
    """Gradescope's results.json: one entry per question, its output the forbidden imports that cost it points,
    then the tests' verdicts and reasons; the forbidden imports again in the top-level output."""
    tests = []
    for number, question in enumerate(report.questions, start=1):
        output = [f"FORBIDDEN IMPORT: {v.message}" for v in report.violations if question.id in v.questions]
        if question.not_graded is not None:
            output.append(f"NOT GRADED: {question.not_graded}")
        output.extend(question.notes)
        for test in question.tests:
            output.append(f"{'PASS' if test.passed else 'FAIL'} {test.name} ({test.kind}): "
                          f"{_points(test.score)}/{_points(test.max_score)}")
            output.extend(f"    {m}" for m in test.messages)
        tests.append({
            "name": f"{question.id}: {question.title}" + (" (NOT GRADED)" if question.not_graded is not None else ""),
            "number": str(number),
            "score": question.score,
            "max_score": question.max_score,
            "status": "passed" if question.score >= question.max_score and question.not_graded is None else "failed",
            "output": "\n".join(output),
            "visibility": question.visibility,
        })
    total = f"Total: {_points(report.score)}/{_points(report.max_score)}"
    head = [total, _incomplete_line(report)] if report.incomplete else [total]
    if report.context:
        head.append(f"Graded as: {report.context}")
    return {
        "score": report.score,
        "execution_time": round(report.seconds, 3),
        "output": "\n".join([*head, *_violation_lines(report), *_limit_lines(report)]),
        "stdout_visibility": "hidden",
        "tests": tests,
    }
