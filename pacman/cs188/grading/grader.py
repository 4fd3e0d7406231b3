"""Grading a classic CS188 file on a classic course folder, question by question, in the sandbox.

Each question's tests run in one sandboxed child process (a fresh one after a
test that crashed, hung or ran out of memory), as the classic autograder runs
them in one process; prerequisites (``depends``) are graded first. The result is
the same `GradeReport` as for our own assignments, so the terminal report,
``--json`` and ``--gradescope`` are written the same way.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from pacman.grading.checks import TestResult, shared_failure
from pacman.cs188.grading.course import ClassicCourse, ClassicQuestion
from pacman.cs188.grading.questions import SCORING, Verdict, question_score
from pacman.grading.forbidden import find_violations
from pacman.grading.grader import (
    GradeReport,
    QuestionResult,
    SubmissionError,
    ViolationLog,
    check_defines,
    graded_names,
    read_submission,
    unrun_for_violations,
)
from pacman.grading.sandbox import WRITE_BUDGET, check_sandbox_user, printed_line, run_items

__all__ = ["grade_course", "settle_generation"]


def settle_generation(course: ClassicCourse, source: str, submission: str | Path) -> str:
    """The generation `submission` is graded as: the folder's (its keys) and the file's (its names) must agree.

    A folder whose keys say nothing (tree tests only) takes the file's; a file that
    says nothing takes the folder's; when neither says, classic. The tests' files
    learn the generation (so that ``--write-solutions`` writes its keys). A file
    of the other generation is a SubmissionError naming both. A file mixing the
    two is graded as the folder's generation (as the course's own autograder
    would: it calls its own names), and refused, naming both names, only when
    the folder does not say.
    """
    from pacman.cs188 import CLASSIC, GENERATIONS, GenerationError, source_generation

    name = Path(submission).name
    by_folder = course.generation
    try:
        by_file, evidence = source_generation(source, name)
    except GenerationError as exc:
        if by_folder is None:
            raise SubmissionError(str(exc)) from None
        by_file, evidence = None, ""
    if by_file is not None and by_folder is not None and by_file != by_folder:
        raise SubmissionError(
            f"{submission}: written for {GENERATIONS[by_file].title} ({evidence}), but {course.directory} is a "
            f"test folder of {GENERATIONS[by_folder].title} (its keys, e.g. {course.generation_evidence}); "
            f"grade {GENERATIONS[by_folder].student_file} files on it, or use the course folder of the "
            f"file's generation")
    generation = by_folder or by_file or CLASSIC
    for question in course.questions:
        for test in question.tests:
            for file in (test.test_file, test.solution_file):
                if file is not None and file.generation is None:
                    file.generation = generation
    return generation


def with_generation(items: list[dict], generation: str, engine=None) -> list[dict]:
    """The items, each naming the generation the child loads the submission as and calls its agents by, and the
    order of actions of the course's own engine (`ClassicCourse.engine`) when it is not the classic one."""
    extra = {"generation": generation}
    if engine is not None:
        extra["action_order"] = list(engine.action_order)
        if engine.python == "2":
            extra["python2_random"] = True
    return [dict(item, **extra) for item in items]


@dataclass
class _Usage:
    """What a submission has used over a whole grading: bytes written (one budget, `WRITE_BUDGET`) and the
    limits it hit, one line each for the report."""

    written: int = 0
    limits: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Limits enforced less than exactly (the write budget only polled), one line each."""
    printed: int = 0
    """Bytes the submission printed in all."""
    cut: int = 0
    """Questions in which the report's copy of what it printed was cut."""
    graded: list[str] = field(default_factory=list)
    """The names of the student's file the chosen questions grade (its agent classes)."""
    imported: bool = False
    """Whether a process has imported the file and said which names it defines (checked against `graded` once)."""
    folder: str = ""
    """The course folder, as reports name it."""


def grade_course(
    course: ClassicCourse,
    submission: str | Path,
    questions: list[str] | None = None,
    progress: Callable[[str, TestResult], None] | None = None,
    sandbox_user: str | None = None,
    memory_mb: int = 1024,
) -> GradeReport:
    """Grade `submission` on `course` (only the `questions` given and what they depend on, if any).

    As for our own assignments, a submission whose source imports a module of the
    course's ``forbid_imports`` scores 0 on every question without running, and
    one that tries while running fails the tests where it tried.
    """
    started = time.perf_counter()
    source = read_submission(submission)
    if sandbox_user is not None:
        check_sandbox_user(sandbox_user)
    path = str(Path(submission).resolve())
    generation = settle_generation(course, source, submission)
    chosen = course.with_prerequisites(list(dict.fromkeys(questions))) if questions else list(course.questions)
    context = course_context(course, generation)
    log = ViolationLog(Path(submission).name, course.forbid_imports)
    static = find_violations(source, log.file, course.forbid_imports)
    if static:  # every question is protected: none runs
        ids = tuple(question.id for question in chosen)
        for violation in static:
            log.add(replace(violation, questions=ids))
        unrun = [_not_graded(q) if q.problem is not None else
                 unrun_for_violations(q.id, q.title, q.max_points, _scoring(q), "visible") for q in chosen]
        return GradeReport(course.id, str(submission), unrun, time.perf_counter() - started, [], log.violations,
                           context)
    results: dict[str, QuestionResult] = {}
    output: list[str] = []
    # As the course's autograder: prerequisites gate a question when the whole course is graded; with
    # questions named (its -q), they are graded first but gate nothing.
    gate = not questions
    # One write budget for the whole grading, as for an assignment; the names its questions grade.
    usage = _Usage(graded=graded_names([item for q in chosen for test in q.tests for item in test.items]),
                   folder=str(course.directory))
    for question in chosen:
        results[question.id] = _grade_question(question, results, source, path, submission, sandbox_user,
                                               memory_mb, output, progress, course.forbid_imports, log, generation,
                                               course.engine, gate, usage)
    shown = printed_line(usage.printed, usage.cut, "question")
    if shown is not None:
        usage.limits.append(shown)
    return GradeReport(course.id, str(submission), list(results.values()), time.perf_counter() - started, output,
                       log.violations, context, limits=usage.limits, limit_notes=usage.notes)



def course_context(course: ClassicCourse, generation: str) -> str:
    """What the report's first line says about a course: its generation and its engine's quirks."""
    from pacman.cs188 import GENERATIONS

    title = GENERATIONS[generation].title.replace("the ", "", 1)
    how = course.generation_evidence if course.generation else "the student file's names"
    engine = course.engine.describe() if course.engine is not None else \
        "engine: the classic one (no game.py or pacman.py beside the test folder)"
    from pacman.cs188.quirks import DEFAULT_ORDER
    from pacman.cs188.grading.order_fit import order_note

    order = "" if course.order_source == "order" else "; questions: the subfolders, sorted (CONFIG gives no order)"
    fit = order_note(course, course.engine.action_order if course.engine is not None else DEFAULT_ORDER, generation)
    return f"CS188 {title} by {how}; {engine}{order}" + (f"; {fit}" if fit else "")


def _scoring(question: ClassicQuestion) -> str:
    return SCORING.get(question.question_class, "partial")


def _not_graded(question: ClassicQuestion) -> QuestionResult:
    return QuestionResult(question.id, question.title, 0.0, float(question.max_points), _scoring(question),
                          "visible", [], [], not_graded=question.problem)


def _grade_question(question: ClassicQuestion, done: dict[str, QuestionResult], source: str, path: str,
                    submission: str | Path, sandbox_user: str | None, memory_mb: int, output: list[str],
                    progress: Callable[[str, TestResult], None] | None, forbid_imports: tuple[str, ...],
                    log: ViolationLog, generation: str, engine=None, gate: bool = True,
                    usage: _Usage | None = None) -> QuestionResult:
    if question.problem is not None:
        return _not_graded(question)
    notes = []
    if question.disabled:
        notes.append(f"disabled tests, not run: {', '.join(question.disabled)}")
    if question.skipped_files:
        notes.append(f"not read (as the course's autograder skips names starting with '.', '#' or '~'): "
                     f"{', '.join(question.skipped_files)}")
    result = QuestionResult(question.id, question.title, 0.0, float(question.max_points),
                            _scoring(question), "visible", [], notes)
    unknown = [d for d in question.depends if d in done and done[d].not_graded is not None] if gate else []
    if unknown:  # whether it runs depends on a score nobody knows: it cannot be graded either
        which = " and ".join(unknown)
        result.not_graded = (f"it depends on {which}, which could not be graded, so whether the course's "
                             f"autograder runs it is unknown")
        return result
    unmet = [d for d in question.depends if d in done and done[d].score < done[d].max_score] if gate else []
    if unmet:
        which = " and ".join(unmet)
        notes.insert(0, f"skipped: it depends on {which}, which {'was' if len(unmet) == 1 else 'were'} "
                        f"not completed with full marks")
        return result
    items = with_generation([item for test in question.tests for item in test.items], generation, engine)
    limits = [limit for test in question.tests for limit in test.time_limits]
    usage = _Usage() if usage is None else usage
    run = run_items(source, path, items, limits, memory_mb=memory_mb, user=sandbox_user, loader="classic",
                    forbid_imports=forbid_imports, write_budget=WRITE_BUDGET - usage.written)
    usage.written += run.written
    usage.printed += run.printed
    usage.cut += run.output_cut
    usage.limits.extend(f"{question.id}: {line}" for line in run.limits)
    if run.write_cap is not None and run.write_cap not in usage.notes:
        usage.notes.append(run.write_cap)
    log.add_run(run, question.id)
    # The first failure at import ends the grading (every question would fail with it), a grading limit hit
    # there too; a forbidden import at import fails every test, and the report lists it.
    if run.import_error is not None and not run.violations:
        raise SubmissionError(f"{submission}: {run.import_error}; not graded")
    if not usage.imported and run.defines is not None:
        usage.imported = True
        check_defines(run, usage.graded, submission, usage.folder or "the course folder")
    if run.output.strip():
        output.append(f"[{question.id}]\n{run.output}")
    first = 0
    verdicts = []
    for test in question.tests:
        outcomes = run.outcomes[first:first + len(test.items)]
        first += len(test.items)
        completed, points, messages, observed = test.judge(outcomes)
        score = points if completed else 0.0
        # A test that completes with fewer points than it offers is reported as failed but, as in
        # the classic autograder, does not stop its question.
        tested = TestResult(test.name, test.class_name, score, float(test.max_points),
                            completed and score >= test.max_points, messages, [observed] if observed else [],
                            sum(o.seconds for o in outcomes))
        if not tested.passed and not completed:
            tested.error, tested.where = shared_failure(outcomes)
        result.tests.append(tested)
        verdicts.append(Verdict(completed, tested.score, test.test_points, test.stops(outcomes)))
        if progress is not None:
            progress(question.id, tested)
    result.score, counted = question_score(question.question_class, question.max_points, verdicts,
                                           question.extra_points)
    if counted < len(verdicts):
        stopped = result.tests[counted - 1].name
        how = {"raised": "where an exception escaped", "exit": "where the submission exited"}.get(
            verdicts[counted - 1].stops, "which failed")
        for tested in result.tests[counted:]:
            tested.score = 0.0
            tested.messages.append(f"not counted: the question stopped at {stopped}, {how}")
    return result
