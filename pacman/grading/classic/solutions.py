"""Writing a classic course's ``.solution`` files from an instructor's reference file.

The reference (a classic ``multiAgents.py`` that is right) runs in the sandbox
on every enabled test, exactly as a submission would; each test's solution is
what it observed: for a ``GraphGameTreeTest``, the action and the generated
states, sorted. Every test is run before anything is written, and nothing is
written if the reference fails one (the error names the test).
"""

from __future__ import annotations

from pathlib import Path

from pacman.files import write_atomically
from pacman.grading.classic.course import ClassicCourse
from pacman.grading.classic.format import format_classic
from pacman.grading.classic.grader import settle_generation, with_generation
from pacman.grading.grader import SubmissionError, read_submission
from pacman.grading.sandbox import check_sandbox_user, run_items

__all__ = ["write_solutions"]


def write_solutions(course: ClassicCourse, reference: str | Path, questions: list[str] | None = None,
                    sandbox_user: str | None = None, memory_mb: int = 1024) -> list[Path]:
    """Write ``NAME.solution`` beside every enabled ``NAME.test`` (of `questions`, if given); the paths written."""
    source = read_submission(reference)
    if sandbox_user is not None:
        check_sandbox_user(sandbox_user)
    path = str(Path(reference).resolve())
    generation = settle_generation(course, source, reference)
    chosen = [course.question(q) for q in dict.fromkeys(questions)] if questions else course.questions
    planned: list[tuple[Path, str]] = []
    for question in chosen:
        items = with_generation([item for test in question.tests for item in test.items], generation)
        limits = [limit for test in question.tests for limit in test.time_limits]
        run = run_items(source, path, items, limits, memory_mb=memory_mb, user=sandbox_user, loader="classic")
        if run.import_error is not None:
            raise SubmissionError(f"{reference}: {run.import_error}")
        first = 0
        for test in question.tests:
            outcomes = run.outcomes[first:first + len(test.items)]
            first += len(test.items)
            shown = f"{question.id}/{test.name}"
            failed = [o.error for o in outcomes if not o.ok]
            if failed:
                raise SubmissionError(f"{reference}: fails on {shown}, so its solution cannot be written: {failed[0]}")
            try:
                values = test.solution_values(outcomes)
            except ValueError as exc:
                raise SubmissionError(f"{reference}: on {shown}: {exc}") from None
            text = format_classic(values, f"Written by pacman-ai grade --write-solutions from {Path(reference).name}.")
            planned.append((course.folder(question) / f"{test.name}.solution", text))
    written = []
    for target, text in planned:
        def write(temporary: str, text: str = text) -> None:
            with open(temporary, "w", encoding="utf-8") as handle:
                handle.write(text)

        write_atomically(target, write)
        written.append(target)
    return written
