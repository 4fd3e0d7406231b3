"""Reports of a grading run: the terminal text, ``--json`` and Gradescope's results.json.

Result files are written atomically (a temporary file, then a rename), so a
reader never sees half a file, and they are written only by the grading process,
after every submission process has ended.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pacman.files import write_json
from pacman.grading.checks import TestResult
from pacman.grading.grader import GradeReport, QuestionResult

if TYPE_CHECKING:
    from pacman.grading.leaderboard import Standing

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
        lines += ["LIMITS HIT: where the submission went over a grading limit (its processes were stopped, or what it "
                  "wrote or printed was cut):", *(f"  {line}" for line in report.limits)]
    if report.limit_notes:
        lines += ["LIMITS NOT EXACT here:", *(f"  {line}" for line in report.limit_notes)]
    return lines


#: Test names a collapsed line lists before "and N more".
_NAMES_SHOWN = 3


def _test_groups(question: QuestionResult) -> list[list[TestResult]]:
    """The question's tests in order, one to a group, except that the failed tests sharing one error from one place
    (`TestResult.error`, `TestResult.where`) form one group, where the first of them is."""
    groups: list[list[TestResult]] = []
    shared: dict[tuple[str, str | None], list[TestResult]] = {}
    for test in question.tests:
        if test.passed or test.error is None:
            groups.append([test])
            continue
        key = (test.error, test.where)
        if key in shared:
            shared[key].append(test)
        else:
            shared[key] = [test]
            groups.append(shared[key])
    return groups


def _failure(test: TestResult) -> str:
    """A shared failure's one line: the error, and where in the submission it came from when the error does not
    say."""
    return f"{test.error}" + (f" (at {test.where})" if test.where else "")


def _group_head(question: QuestionResult, group: list[TestResult]) -> str:
    """``N tests, all of them`` or ``N tests: a, b, c and 2 more`` for a group of tests that failed alike."""
    if len(group) == len(question.tests):
        return f"{len(group)} tests, all of them"
    names = ", ".join(t.name for t in group[:_NAMES_SHOWN])
    more = f" and {len(group) - _NAMES_SHOWN} more" if len(group) > _NAMES_SHOWN else ""
    return f"{len(group)} tests: {names}{more}"


def _group_points(group: list[TestResult]) -> str:
    return f"{_points(sum(t.score for t in group))}/{_points(sum(t.max_score for t in group))}"


def _test_lines(question: QuestionResult, verbose: bool) -> list[str]:
    """The terminal report's lines for the question's tests: each test's verdict, points and why; the failed tests
    that share one error are one line, said once (``--json`` keeps every test's own messages)."""
    lines = []
    for group in _test_groups(question):
        test = group[0]
        if len(group) > 1:
            lines.append(f"  FAIL {_group_head(question, group)}  {_group_points(group)}: {_failure(test)}")
            continue
        verdict = "PASS" if test.passed else "FAIL"
        lines.append(f"  {verdict} {test.name} ({test.kind})  {_points(test.score)}/{_points(test.max_score)}")
        shown = test.messages if (verbose or not test.passed) else test.messages[:0]
        for message in shown:
            lines.append(f"       {message}")
        if not test.passed and test.where:
            lines.append(f"       at {test.where}")
    return lines


def format_report(report: GradeReport, verbose: bool = False) -> str:
    """The readable report: forbidden imports first, then per question each test's verdict, points and why; the total."""
    lines = [f"Grading {report.submission} on assignment {report.assignment!r}"
             + (f" ({report.context})" if report.context else ""), *([report.engine] if report.engine else []), ""]
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
        lines.extend(_test_lines(question, verbose))
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


def gradescope_results(report: GradeReport, standing: Standing | None = None) -> dict[str, Any]:
    """Gradescope's results.json: one entry per question, its output the forbidden imports that cost it points,
    then the tests' verdicts and reasons (the failed tests that share one error said once, as in the terminal
    report); the forbidden imports and the limits hit again in the top-level output.

    Each entry's ``visibility`` is its question's (``visibility`` in assignment.toml: ``visible``, Gradescope's
    default, ``hidden``, ``after_due_date`` or ``after_published``). With `standing`, the student's row of the
    assignment's contest (`pacman.grading.leaderboard.play_leaderboard` on this one submission), the results
    have Gradescope's top-level ``leaderboard`` list, ``{name, value, order}`` each (the win rate in percent and
    the mean score, higher is better), and the output says how the contest went."""
    tests = []
    for number, question in enumerate(report.questions, start=1):
        output = [f"FORBIDDEN IMPORT: {v.message}" for v in report.violations if question.id in v.questions]
        if question.not_graded is not None:
            output.append(f"NOT GRADED: {question.not_graded}")
        output.extend(question.notes)
        for group in _test_groups(question):
            test = group[0]
            if len(group) > 1:
                output.append(f"FAIL {_group_head(question, group)}: {_group_points(group)}")
                output.append(f"    {_failure(test)}")
                continue
            output.append(f"{'PASS' if test.passed else 'FAIL'} {test.name} ({test.kind}): "
                          f"{_points(test.score)}/{_points(test.max_score)}")
            output.extend(f"    {m}" for m in test.messages)
            if not test.passed and test.where:
                output.append(f"    at {test.where}")
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
    if report.engine:
        head.append(report.engine)
    contest = [] if standing is None else [_contest_line(standing)]
    results = {
        "score": report.score,
        "execution_time": round(report.seconds, 3),
        "output": "\n".join([*head, *contest, *_violation_lines(report), *_limit_lines(report)]),
        "stdout_visibility": "hidden",
        "tests": tests,
    }
    if standing is not None:
        from pacman.grading.leaderboard import gradescope_leaderboard

        results["leaderboard"] = gradescope_leaderboard(standing)
    return results


def _contest_line(standing: Standing) -> str:
    """The output's line about the student's contest games: won, mean score, or why they failed."""
    mean = standing.mean_score
    line = (f"Contest (leaderboard): won {standing.wins} of {standing.planned} games "
            f"({100 * (standing.win_rate or 0.0):.1f}%), mean score {'-' if mean is None else f'{mean:.1f}'}")
    return line + (f"; failed: {standing.failure}" if standing.failure is not None else "")
