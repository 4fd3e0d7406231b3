"""Writing a classic course's ``.solution`` files from an instructor's reference file.

The reference (a classic ``multiAgents.py`` that is right) runs in the sandbox
on every enabled test, exactly as a submission would; each test's solution is
what it observed: for a ``GraphGameTreeTest``, the action and the generated
states, sorted. Every test is run before anything is written, and nothing is
written if the reference fails one (the error names the test). A solution file
already there is compared by its values: the same values leave it untouched
(its comments too); other values replace it only when forced, and nothing at
all is written otherwise. Keys are written in the folder's generation
(``optimalActions`` or ``optimal_actions``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pacman.files import write_atomically
from pacman.cs188.grading.course import ClassicCourse
from pacman.cs188.grading.format import ClassicFormatError, format_classic, parse_classic_text, read_classic_file
from pacman.cs188.grading.grader import settle_generation, with_generation
from pacman.grading.grader import SubmissionError, read_submission
from pacman.grading.sandbox import check_sandbox_user, run_items

__all__ = ["write_solutions", "plan_solutions", "write_planned", "SolutionChange", "SolutionsDiffer"]

#: Lines of a changed block shown, at most, per key.
_SHOWN_LINES = 3


class SolutionsDiffer(SubmissionError):
    """Solution files whose content would change, refused without ``force`` (the message names them)."""


@dataclass
class SolutionChange:
    """What writing one ``.solution`` file would do."""

    path: Path
    text: str
    """The new file's text."""
    status: str
    """``new`` (no file there), ``unchanged`` (the same values: the file is left as it is, comments and all)
    or ``changed`` (other values: replaced only with ``force``)."""
    differences: list[str] = field(default_factory=list)
    """For a changed file, how: one line per key that differs."""


def _shorten(text: str, limit: int = 70) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _differences(old: dict[str, str], new: dict[str, str]) -> list[str]:
    out = []
    for key in dict.fromkeys([*old, *new]):
        if key not in new:
            out.append(f"{key}: removed")
        elif key not in old:
            out.append(f"{key}: added")
        elif old[key] != new[key]:
            before, after = old[key].split("\n"), new[key].split("\n")
            if len(before) == 1 and len(after) == 1:
                out.append(f"{key}: {_shorten(before[0])!r} -> {_shorten(after[0])!r}")
                continue
            changed = [i for i in range(max(len(before), len(after)))
                       if (before[i] if i < len(before) else None) != (after[i] if i < len(after) else None)]
            head = f"{key}: {len(changed)} of {max(len(before), len(after))} lines differ"
            if len(before) != len(after):
                head += f" ({len(before)} lines before, {len(after)} now)"
            out.append(head)
            for i in changed[:_SHOWN_LINES]:
                was = before[i] if i < len(before) else "(none)"
                now = after[i] if i < len(after) else "(none)"
                out.append(f"  line {i + 1}: {_shorten(was)} -> {_shorten(now)}")
            if len(changed) > _SHOWN_LINES:
                out.append(f"  and {len(changed) - _SHOWN_LINES} more")
    return out


def _change(target: Path, text: str) -> SolutionChange:
    if not target.exists():
        return SolutionChange(target, text, "new")
    new = parse_classic_text(text, str(target)).values
    try:
        old = read_classic_file(target).values
    except ClassicFormatError as exc:
        return SolutionChange(target, text, "changed", [f"the file there is not a solution file ({exc})"])
    if old == new:
        return SolutionChange(target, text, "unchanged")
    return SolutionChange(target, text, "changed", _differences(old, new))


def _keep_shape(target: Path, values: dict[str, str]) -> dict[str, str]:
    """`values` without the optional diagnosis blocks an existing solution file leaves out (a course whose grader
    reads only ``optimalActions`` keeps its solutions in that shape); every block for a new file."""
    from pacman.cs188.grading.format import CLASSIC_KEYS
    from pacman.cs188.grading.pacman_tree import OPTIONAL_SOLUTION_KEYS

    if not target.is_file():
        return values
    try:
        old = read_classic_file(target).values
    except ClassicFormatError:
        return values
    return {key: value for key, value in values.items()
            if key in old or CLASSIC_KEYS.get(key, key) not in OPTIONAL_SOLUTION_KEYS}


def write_solutions(course: ClassicCourse, reference: str | Path, questions: list[str] | None = None,
                    sandbox_user: str | None = None, memory_mb: int = 1024, force: bool = False) -> list[Path]:
    """Write ``NAME.solution`` beside every enabled ``NAME.test`` (of `questions`, if given); the paths written.

    A file already there with the same values is left as it is; one with other
    values is replaced only with `force` (else SolutionsDiffer, and nothing is
    written). `plan_solutions` says what would change without writing.
    """
    changes = plan_solutions(course, reference, questions, sandbox_user, memory_mb)
    return write_planned(changes, force)


def write_planned(changes: list[SolutionChange], force: bool = False) -> list[Path]:
    """Write the new and (with `force`) changed files of `changes`, all or none; the paths written."""
    differ = [change for change in changes if change.status == "changed"]
    if differ and not force:
        names = ", ".join(str(change.path) for change in differ[:3]) + (
            f" and {len(differ) - 3} more" if len(differ) > 3 else "")
        raise SolutionsDiffer(f"{len(differ)} .solution file{'s' if len(differ) != 1 else ''} would change "
                              f"({names}); nothing was written: give --force to replace "
                              f"{'them' if len(differ) != 1 else 'it'}")
    written = []
    for change in changes:
        if change.status == "unchanged":
            continue

        def write(temporary: str, text: str = change.text) -> None:
            with open(temporary, "w", encoding="utf-8") as handle:
                handle.write(text)

        write_atomically(change.path, write)
        written.append(change.path)
    return written


def plan_solutions(course: ClassicCourse, reference: str | Path, questions: list[str] | None = None,
                   sandbox_user: str | None = None, memory_mb: int = 1024) -> list[SolutionChange]:
    """Run `reference` on every enabled test (of `questions`) and say, per ``.solution`` file, what writing
    it would do (`SolutionChange`); nothing is written."""
    source = read_submission(reference)
    if sandbox_user is not None:
        check_sandbox_user(sandbox_user)
    path = str(Path(reference).resolve())
    generation = settle_generation(course, source, reference)
    chosen = [course.question(q) for q in dict.fromkeys(questions)] if questions else course.questions
    planned: list[tuple[Path, str]] = []
    for question in chosen:
        if question.problem is not None:
            raise ClassicFormatError(f"{question.id}: cannot write its solutions: {question.problem}")
        items = with_generation([item for test in question.tests for item in test.items], generation, course.engine)
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
            target = course.folder(question) / f"{test.name}.solution"
            values = _keep_shape(target, values)
            text = format_classic(values, f"Written by pacman-ai grade --write-solutions from {Path(reference).name}.")
            planned.append((target, text))
    return [_change(target, text) for target, text in planned]
