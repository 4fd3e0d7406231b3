"""Grading a submission: every test of every question, each in a fresh sandboxed process.

>>> report = grade(load_assignment("expectimax"), "multi_agents.py")   # doctest: +SKIP
>>> report.score, report.max_score                                     # doctest: +SKIP
(25.0, 25.0)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from pacman.grading.assignment import Assignment, AssignmentError, Question
from pacman.grading.checks import TestResult, prepare, shared_failure
from pacman.grading.forbidden import Violation, find_violations
from pacman.grading.sandbox import WRITE_BUDGET, ItemOutcome, SandboxRun, check_sandbox_user, printed_line, run_items

__all__ = ["QuestionResult", "GradeReport", "grade", "SubmissionError", "ViolationLog", "check_syntax",
           "graded_names", "check_defines", "import_stop", "unrun_after_import"]

#: Submissions larger than this are refused before anything runs.
MAX_SUBMISSION_BYTES = 1 << 20


class SubmissionError(AssignmentError):
    """A submission file that cannot be graded at all (missing, unreadable, not text, not compiling, failing at
    import, defining nothing that is graded): one line naming the file, nothing graded."""


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
    not_graded: str | None = None
    """Why the question could not be graded at all (a classic question naming a test class pacman-ai does not
    know); None for a question that was graded. A report holding one is incomplete."""

    def to_dict(self) -> dict[str, Any]:
        data = {"id": self.id, "title": self.title, "score": self.score, "max_score": self.max_score,
                "scoring": self.scoring, "tests": [t.to_dict() for t in self.tests]}
        if self.notes:
            data["notes"] = list(self.notes)
        if self.not_graded is not None:
            data["graded"] = False
            data["not_graded"] = self.not_graded
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
    violations: list[Violation] = field(default_factory=list)
    """Forbidden imports: found in the source (nothing then ran) or attempted while it ran."""
    context: str = ""
    """What the report's first line adds about the assignment (a classic course's generation and engine)."""
    limits: list[str] = field(default_factory=list)
    """One line per limit the submission hit (disk, CPU, processes, sockets), with the test it hit it in."""
    limit_notes: list[str] = field(default_factory=list)
    """One line per limit enforced less than exactly in this grading (the write budget only polled where the
    submission could not have a namespace of its own); [] when every limit held exactly."""
    engine: str = field(default_factory=lambda: _engine_statement())
    """Which engine ran the project's own searches here, and why (`pacman.grading.gradescope.engine_statement`),
    taken when the report is made."""

    @property
    def incomplete(self) -> list[str]:
        """The questions that could not be graded: with any, the total is not the whole grade."""
        return [q.id for q in self.questions if q.not_graded is not None]

    @property
    def score(self) -> float:
        return round(sum(q.score for q in self.questions), 6)

    @property
    def max_score(self) -> float:
        return round(sum(q.max_score for q in self.questions), 6)

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` form."""
        data = {"assignment": self.assignment, "submission": self.submission, "score": self.score,
                "max_score": self.max_score, "execution_time": round(self.seconds, 3),
                "violations": [v.to_dict() for v in self.violations], "limits": list(self.limits),
                "limit_notes": list(self.limit_notes),
                "questions": [q.to_dict() for q in self.questions]}
        if self.incomplete:
            data["complete"] = False
            data["not_graded"] = self.incomplete
        if self.context:
            data["context"] = self.context
        if self.engine:
            data["engine"] = self.engine
        return data


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


def check_syntax(source: str, submission: str | Path) -> None:
    """SubmissionError naming the file, line and column if `source` does not compile.

    Compiling runs none of the submission's code, so this happens in the grader
    before any test: one message rather than the same error in every test. A
    source too deeply nested for the compiler is left to the sandbox, which
    reports what happens when the submission is loaded there.
    """
    try:
        compile(source, str(submission), "exec", dont_inherit=True)
    except SyntaxError as exc:
        where = f"{submission}:{exc.lineno}" + (f":{exc.offset}" if exc.offset else "") if exc.lineno else str(submission)
        code = (exc.text or "").strip()
        shown = f" in {code[:80]!r}" if code else ""
        raise SubmissionError(f"{where}: {type(exc).__name__}: {exc.msg}{shown} (not graded: fix it and grade "
                              f"again)") from None
    except (RecursionError, MemoryError, ValueError):
        pass


def graded_names(items: list[dict[str, Any]]) -> list[str]:
    """The names of the submission's module that `items` use, in order, each once: the agent classes they build
    (``agent_class``; a classic item's ``alg`` or ``agent``) and ``better_evaluation`` for games played with it."""
    names = []
    for item in items:
        kind = item.get("kind")
        if kind in ("tree", "position"):
            names.append(item.get("agent_class", "ExpectimaxAgent"))
        elif kind == "game":
            own = item.get("agent") == "submission"
            if item.get("evaluation") == "submission" and not (own and item.get("agent_class") == "ReflexAgent"):
                names.append("better_evaluation")
            if own:
                names.append(item.get("agent_class", "ExpectimaxAgent"))
        else:  # a classic course's items name the agent class
            name = item.get("alg") or item.get("agent")
            if isinstance(name, str):
                names.append(name)
    return list(dict.fromkeys(names))


def check_defines(run: SandboxRun, names: list[str], submission: str | Path, graded: str) -> None:
    """SubmissionError naming the file and what it lacks when the module (as `run`'s process saw it once imported)
    defines none of `names`, all that `graded` (an assignment, a course folder) grades: nothing could score, and
    every test would fail with the same "defines no ..."."""
    if run.defines is None or not names or any(name in run.defines for name in names):
        return
    raise SubmissionError(f"{submission}: defines nothing that {graded} grades (no {', no '.join(names)}); "
                          f"not graded")


def import_stop(run: SandboxRun, submission: str | Path) -> None:
    """SubmissionError naming the file when the submission's own code failed at import (`SandboxRun.import_failed`:
    its exception and line, an exit, its process ending, the import time limit and the line it was on): every
    test would fail the same way, so the first failure ends the grading, with one line."""
    if run.import_failed is not None:
        raise SubmissionError(f"{submission}: {run.import_failed}; not graded")


def unrun_after_import(failed: SandboxRun, count: int) -> SandboxRun:
    """The run of a test not started because the submission failed at import in an earlier one in a way that does
    not end the grading (a grading limit, a forbidden import: reported apart): its `count` items fail the same way,
    and the import is not tried again."""
    outcomes = [ItemOutcome(False, error=failed.import_error, violations=list(failed.violations))
                for _ in range(count)]
    return SandboxRun(outcomes, "", 0, 0.0, failed.import_error, list(failed.violations))


def question_score(question: Question, tests: list[TestResult]) -> float:
    """`partial`: the question's points in proportion to test points earned; `all`: all or nothing."""
    total = sum(t.max_score for t in tests)
    if question.scoring == "all":
        return float(question.points) if all(t.passed for t in tests) else 0.0
    earned = sum(t.score for t in tests)
    return round(question.points * earned / total, 6) if total else 0.0


#: The note of a question not run because the source imports a forbidden module.
NOT_RUN_FORBIDDEN = "0 points, not run: the submission imports a module this assignment forbids (see the violations)"


def unrun_for_violations(question_id: str, title: str, points: float, scoring: str, visibility: str) -> QuestionResult:
    """A question that scores 0 without running, for a submission whose source imports a forbidden module."""
    return QuestionResult(question_id, title, 0.0, float(points), scoring, visibility, [], [NOT_RUN_FORBIDDEN])


class ViolationLog:
    """The forbidden imports of one grading run, each listed once with the questions it cost points on."""

    def __init__(self, file: str, rules: tuple[str, ...]) -> None:
        self.file = file
        self.rules = rules
        self._found: dict[tuple, Violation] = {}

    def add(self, violation: Violation) -> None:
        key = (violation.check, violation.line, violation.module)
        known = self._found.get(key, violation)
        self._found[key] = replace(known, questions=tuple(dict.fromkeys(known.questions + violation.questions)))

    def add_run(self, run: SandboxRun, question_id: str) -> None:
        """The attempts a sandbox run reports, charged to `question_id`."""
        for outcome in run.outcomes:
            for attempt in outcome.violations:
                violation = Violation.from_attempt(attempt, self.file, self.rules)
                if violation is not None:
                    self.add(replace(violation, questions=(question_id,)))

    @property
    def violations(self) -> list[Violation]:
        return sorted(self._found.values(), key=lambda v: (v.check != "static", v.line or 0, v.module))


def grade(
    assignment: Assignment,
    submission: str | Path,
    questions: list[str] | None = None,
    progress: Callable[[str, TestResult], None] | None = None,
    sandbox_user: str | None = None,
    starting: Callable[[str, str], None] | None = None,
) -> GradeReport:
    """Grade `submission` on `assignment` (only the `questions` ids given, if any).

    Every test runs in its own sandboxed process (as `sandbox_user`, if given:
    needs root); the expected answers of all tests are computed before the
    submission runs at all. A submission that does not compile is a
    SubmissionError naming the file, line and column: nothing is graded. So is one
    whose module-level code fails in the first test's process (`import_stop`: its
    exception, an exit, the import time limit), and one that defines none of the
    names the chosen questions grade (`check_defines`); one stopped at import by a
    grading limit scores 0, the limit reported, and is not imported again. A
    submission whose source imports a module of the
    assignment's ``forbid_imports`` scores 0 on every question without running;
    one that tries while running fails the tests where it tried. Either way the
    report lists the violations. `starting(question_id, test_name)` is called
    before each test runs, `progress(question_id, verdict)` after.
    """
    from pacman.cs188.grading.detect import classic_hint, classic_imports, missing_classic_module

    started = time.perf_counter()
    source = read_submission(submission)
    modules = classic_imports(source)
    if modules:  # one message, rather than the same ModuleNotFoundError for every test
        raise SubmissionError(classic_hint(str(submission), assignment.id, modules))
    check_syntax(source, submission)
    if sandbox_user is not None:
        check_sandbox_user(sandbox_user)
    path = str(Path(submission).resolve())
    # A question named twice is graded once (else its points would count twice).
    chosen = [assignment.question(q) for q in dict.fromkeys(questions)] if questions else list(assignment.questions)
    log = ViolationLog(Path(submission).name, assignment.forbid_imports)
    static = find_violations(source, log.file, assignment.forbid_imports)
    if static:  # every question is protected: none runs
        ids = tuple(question.id for question in chosen)
        for violation in static:
            log.add(replace(violation, questions=ids))
        results = [unrun_for_violations(q.id, q.title, q.points, q.scoring, q.visibility) for q in chosen]
        return GradeReport(assignment.id, str(submission), results, time.perf_counter() - started, [],
                           log.violations)
    checks = [(question, [prepare(test) for test in question.tests]) for question in chosen]
    names = graded_names([item for _, question_checks in checks for check in question_checks for item in check.items])
    results = []
    output = []
    limits: list[str] = []
    notes: list[str] = []  # limits enforced less than exactly (said once)
    written = 0  # by the submission, over every test: one write budget for the whole grading
    printed = cut = 0  # what it printed in all; in how many tests the report's copy of it was cut
    imported = False  # a process has imported it (and said what it defines)
    failed_import: SandboxRun | None = None  # stopped at import by a limit or a forbidden import: not tried again
    for question, question_checks in checks:
        verdicts = []
        for check in question_checks:
            if starting is not None:
                starting(question.id, check.test.name)
            if failed_import is not None:
                run = unrun_after_import(failed_import, len(check.items))
            else:
                run = run_items(source, path, check.items, check.time_limits, memory_mb=assignment.memory_mb,
                                user=sandbox_user, forbid_imports=assignment.forbid_imports,
                                write_budget=WRITE_BUDGET - written)
            written += run.written
            printed += run.printed
            cut += run.output_cut
            limits.extend(f"{question.id} / {check.test.name}: {line}" for line in run.limits)
            if run.write_cap is not None and run.write_cap not in notes:
                notes.append(run.write_cap)
            log.add_run(run, question.id)
            missing = missing_classic_module(run.import_error)
            if missing is not None:
                raise SubmissionError(classic_hint(str(submission), assignment.id, [missing]))
            if failed_import is None:
                import_stop(run, submission)
                if run.import_error is not None:
                    failed_import = run
            if not imported and run.defines is not None:
                imported = True
                check_defines(run, names, submission, f"assignment {assignment.id!r}"
                              + (f" (question{'s' if len(chosen) > 1 else ''} {', '.join(q.id for q in chosen)})"
                                 if questions else ""))
            verdict = check.judge(run.outcomes)
            if not verdict.passed:
                verdict.error, verdict.where = shared_failure(run.outcomes)
            verdicts.append(verdict)
            if run.output.strip():
                output.append(f"[{question.id} / {verdict.name}]\n{run.output}")
            if progress is not None:
                progress(question.id, verdict)
        results.append(QuestionResult(question.id, question.title, question_score(question, verdicts),
                                      float(question.points), question.scoring, question.visibility, verdicts))
    shown = printed_line(printed, cut, "test")
    if shown is not None:
        limits.append(shown)
    return GradeReport(assignment.id, str(submission), results, time.perf_counter() - started, output,
                       log.violations, limits=limits, limit_notes=notes)


def _engine_statement() -> str:
    from pacman.grading.gradescope import engine_statement

    return engine_statement()
