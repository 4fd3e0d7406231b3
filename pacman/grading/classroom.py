"""Grading a whole class: every submission of a folder graded as ``pacman-ai grade`` grades one, in parallel.

`grade_class` reads the folder (`pacman.grading.roster`), grades each student
in a process of its own that runs ``pacman-ai grade ASSIGNMENT FILE --json``
(`grade_student`), and appends one `StudentRecord` per student to a records file
as each ends, written whole. So one student's grade is exactly what ``grade``
gives that student alone, a submission that loops, floods the disk or crashes
costs only its own grade, and a stopped run keeps every finished student:
``resume`` grades only the others.

The submission is copied into a fresh folder of its own under the assignment's
submission file name (a Canvas download's ``smithjane_12_34_multi_agents.py``
is graded as ``multi_agents.py``), and its source travels as bytes, so that a
Dask worker on another machine needs only the project installed (and, for an
assignment folder rather than a shipped id, the folder at the same path).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from pacman.errors import PacmanError
from pacman.grading.gradebook import GradebookError, StudentRecord
from pacman.grading.roster import Roster, Submission

__all__ = ["ClassError", "ClassSetup", "grade_student", "grade_class", "read_finished", "class_setup"]

#: The exit statuses of ``pacman-ai grade`` a record is made from (`pacman.cli.grade`): graded, incomplete, and
#: a submission that could not be graded at all (one line on stderr saying why).
_GRADED, _NOTHING, _INCOMPLETE = 0, 2, 3
#: Characters of a failed grading's stderr kept in its record's reason.
_REASON_CHARACTERS = 2000


class ClassError(PacmanError):
    """A class grading that cannot start or go on: the message names the file or flag at fault."""


@dataclass(frozen=True)
class ClassSetup:
    """What every student of one class grading shares: the assignment and the flags given to each ``grade``."""

    assignment: str
    """ASSIGNMENT as given to ``grade``: a shipped id, or a folder's absolute path."""
    assignment_id: str
    """The assignment's id, as every report names it."""
    submission_file: str
    """The name each submission is graded under (``multi_agents.py``, a classic course's ``multiAgents.py``)."""
    questions: tuple[tuple[str, float], ...]
    """The questions graded, in order, with their points (the gradebook's columns)."""
    chosen: tuple[str, ...] = ()
    """``--question`` ids ((): every question)."""
    sandbox_user: str | None = None
    import_seconds: float | None = None
    action_order: str | None = None

    def grade_arguments(self) -> list[str]:
        """The flags of each student's ``pacman-ai grade`` beyond ASSIGNMENT, FILE and the output."""
        arguments = []
        for question in self.chosen:
            arguments += ["--question", question]
        if self.sandbox_user is not None:
            arguments += ["--sandbox-user", self.sandbox_user]
        if self.import_seconds is not None:
            arguments += ["--import-seconds", f"{self.import_seconds:g}"]
        if self.action_order is not None:
            arguments += ["--action-order", self.action_order]
        return arguments


def class_setup(assignment: str, *, chosen: Sequence[str] = (), sandbox_user: str | None = None,
                import_seconds: float | None = None, action_order: str | None = None) -> ClassSetup:
    """The `ClassSetup` of ASSIGNMENT (a shipped id, an assignment folder or a classic test folder), read and
    checked now: a mistake in it, or an unknown ``--question``, is an error before any student is graded."""
    from pacman.cs188.grading import is_classic_course

    if os.path.isdir(assignment) and is_classic_course(assignment):
        from pacman.cs188 import GENERATIONS
        from pacman.cs188.grading import load_course
        from pacman.cs188.grading.order_fit import parse_action_order
        from pacman.grading.gradescope import CLASSIC_SUBMISSION

        order = parse_action_order(action_order) if action_order is not None else None
        course = load_course(assignment, questions=list(chosen) or None, action_order=order)
        wanted = [course.question(q) for q in dict.fromkeys(chosen)] if chosen else course.questions
        questions = tuple((q.id, float(q.max_points)) for q in wanted)
        submission_file = GENERATIONS[course.generation].student_file if course.generation else CLASSIC_SUBMISSION
        identity, given = course.id, os.path.abspath(assignment)
    else:
        from pacman.grading.assignment import load_assignment

        loaded = load_assignment(assignment)
        wanted = [loaded.question(q) for q in dict.fromkeys(chosen)] if chosen else list(loaded.questions)
        questions = tuple((q.id, float(q.points)) for q in wanted)
        submission_file, identity = loaded.submission_file, loaded.id
        given = os.path.abspath(assignment) if os.path.isdir(assignment) else assignment
    return ClassSetup(assignment=given, assignment_id=identity, submission_file=submission_file,
                      questions=questions, chosen=tuple(chosen), sandbox_user=sandbox_user,
                      import_seconds=import_seconds, action_order=action_order)


def grade_student(setup: ClassSetup, submission: Submission, source: bytes,
                  started: Callable[[subprocess.Popen], None] | None = None) -> StudentRecord:
    """One student's record: `source` graded by ``pacman-ai grade`` in a process and a folder of its own.

    Runs where it is called (a thread here, or a Dask worker): it writes `source`
    under the assignment's submission file name into a new temporary folder, runs
    the grader there with ``--json``, and makes the record from its report, or,
    when nothing could be graded, from the one line it printed on stderr.
    `started` is given the grading process as it starts (so that a stopped run
    can end it); it runs in a session of its own, its processes with it.
    """
    who = {"name": submission.name, "sid": submission.sid, "email": submission.email}
    with tempfile.TemporaryDirectory(prefix="pacman-ai-class-") as folder:
        path = Path(folder) / setup.submission_file
        path.write_bytes(source)
        out = Path(folder) / "report.json"
        # -I: the student's folder (the working directory) is not on sys.path, so a submission named pacman.py
        # is not the grader; nor are PYTHON* variables of the caller read.
        command = [sys.executable, "-I", "-m", "pacman", "grade", setup.assignment, str(path), "--json", str(out),
                   "--quiet", *setup.grade_arguments()]
        process = subprocess.Popen(command, cwd=folder, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, env=_child_environment(), start_new_session=True)
        if started is not None:
            started(process)
        _, raw = process.communicate()
        # The copy's path means nothing to the student or the instructor: the report names the file they gave.
        shown = submission.path.name
        stderr = raw.decode("utf-8", "replace").replace(str(path), shown).strip()
        if process.returncode in (_GRADED, _INCOMPLETE) and out.is_file():
            try:
                text = out.read_text(encoding="utf-8")
                report = json.loads(text.replace(json.dumps(str(path))[1:-1], json.dumps(shown)[1:-1]))
                return StudentRecord.from_report(submission.student, report, **who)
            except (ValueError, OSError) as exc:
                return StudentRecord.from_error(submission.student, f"its report could not be read: {exc}", **who)
        return StudentRecord.from_error(submission.student, _failure_reason(process.returncode, stderr), **who)


def _child_environment() -> dict[str, str]:
    """The caller's environment, headless: a grading never opens a window or a sound device."""
    return dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")


def _failure_reason(status: int, stderr: str) -> str:
    """Why a student's ``grade`` gave no report: its one line (without ``pacman-ai: ``), or how it ended."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    if status == _NOTHING and lines:
        last = lines[-1]
        return last[len("pacman-ai: "):] if last.startswith("pacman-ai: ") else last
    how = f"killed by signal {-status}" if status < 0 else f"exit status {status}"
    tail = "\n".join(lines)[-_REASON_CHARACTERS:]
    return f"the grader itself failed ({how})" + (f": {tail}" if tail else "")


def read_finished(path: str | os.PathLike[str], setup: ClassSetup, roster: Roster) -> list[StudentRecord]:
    """The records a stopped run left in `path` (for ``--resume``), checked against this run.

    An unfinished last line (a run killed while writing it) is cut and its student
    graded again. A record of another assignment, or of a student this folder
    does not have, is an error naming the file: resuming it would mix two classes.
    """
    from pacman.grading.gradebook import read_records

    shown = os.fspath(path)
    _cut_unfinished_line(shown)
    try:
        records = read_records(shown)
    except GradebookError as exc:
        raise ClassError(f"--resume: {exc}") from None
    students = {s.student for s in roster.submissions}
    for record in records:
        if record.student not in students:
            raise ClassError(f"--resume: {shown}: student {record.student!r} is not in this folder; is the file "
                             f"another class's?")
        if record.report is not None and record.report.get("assignment") != setup.assignment_id:
            raise ClassError(f"--resume: {shown}: student {record.student!r} was graded on "
                             f"{record.report.get('assignment')!r}, not {setup.assignment_id!r}")
    return records


def _cut_unfinished_line(path: str) -> None:
    """Cut a last line without its newline, as a killed run leaves it; say so on stderr."""
    try:
        with open(path, "rb+") as handle:
            data = handle.read()
            if not data or data.endswith(b"\n"):
                return
            keep = data.rfind(b"\n") + 1
            handle.truncate(keep)
    except OSError as exc:
        raise ClassError(f"--resume: {path}: cannot read: {exc.strerror or exc}") from None
    print(f"pacman-ai: {path}: cut its unfinished last line ({len(data) - keep} bytes), left by a run that was "
          f"stopped while writing it; that student is graded again", file=sys.stderr)


def records_kept(path: str) -> int | str:
    """How many whole records (lines with their newline) `path` holds; 0 when it is absent.

    A stopped run says this number, not what its progress line counted: Ctrl-C
    can land after a record is written and before the progress line hears of it.
    When the file cannot be read, the reason, in a few words, instead of a number.
    """
    try:
        with open(path, "rb") as handle:
            return handle.read().count(b"\n")
    except FileNotFoundError:
        return 0
    except OSError as exc:
        return exc.strerror or str(exc)


class RecordsFile:
    """The append-only records file: one whole JSON line per student, flushed and synced as each ends."""

    def __init__(self, path: str, truncate: bool) -> None:
        self.path = path
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)
        try:
            self._fd = os.open(path, flags, 0o666)
            if truncate:
                os.ftruncate(self._fd, 0)
        except OSError as exc:
            raise ClassError(f"--out {path}: cannot write: {exc.strerror or exc}") from None

    def write(self, record: StudentRecord) -> None:
        line = (json.dumps(record.to_json(), ensure_ascii=False) + "\n").encode("utf-8")
        try:
            written = os.write(self._fd, line)  # one write of an O_APPEND file: the line lands whole or not at all
            if written != len(line):
                raise OSError(f"wrote {written} of {len(line)} bytes")
            os.fsync(self._fd)
        except OSError as exc:
            raise ClassError(f"--out {self.path}: cannot write: {getattr(exc, 'strerror', None) or exc}") from None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)


def grade_class(setup: ClassSetup, todo: Sequence[Submission], out: str, *, jobs: int, truncate: bool,
                dask: str | None = None, done: Callable[[StudentRecord], None] | None = None) -> list[StudentRecord]:
    """Grade the `todo` students, `jobs` at a time (or on the Dask cluster `dask`), appending each record to `out`.

    `done` is called with each record as it is written (the progress line). The
    records come back in the order they ended. Ctrl-C stops the run; the records
    written so far stay in `out`, whole.
    """
    sources = {}
    for submission in todo:
        try:
            sources[submission.student] = submission.path.read_bytes()
        except OSError as exc:
            raise ClassError(f"{submission.path}: cannot read the submission: {exc.strerror or exc}") from None
    records: list[StudentRecord] = []
    running: set[subprocess.Popen] = set()
    sink = RecordsFile(out, truncate)
    try:
        with _executor(jobs, dask) as executor:
            extra = () if dask is not None else (running.add,)  # a Dask worker's processes are the worker's
            futures = {executor.submit(grade_student, setup, submission, sources[submission.student], *extra):
                       submission for submission in todo}
            try:
                for future in cf.as_completed(futures):
                    submission = futures[future]
                    try:
                        record = future.result()
                    except Exception as exc:  # the worker itself failed (a lost Dask worker): that student's error
                        record = StudentRecord.from_error(submission.student, f"the grading failed: {exc}",
                                                          name=submission.name, sid=submission.sid,
                                                          email=submission.email)
                    sink.write(record)
                    records.append(record)
                    if done is not None:
                        done(record)
            except BaseException:
                for future in futures:
                    future.cancel()
                _stop(running)
                raise
    finally:
        sink.close()
    return records


def _stop(processes: set[subprocess.Popen], grace: float = 5.0) -> None:
    """End the gradings still running (SIGTERM to each one's session, SIGKILL after `grace` seconds)."""
    import signal
    import time

    alive = [p for p in list(processes) if p.poll() is None]
    for process in alive:
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    for process in alive:
        try:
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(OSError):
                os.killpg(process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=1)


@contextlib.contextmanager
def _executor(jobs: int, dask: str | None) -> Iterator[cf.Executor]:
    """Threads that each wait on one student's grading process, or a Dask cluster's workers."""
    if dask is None:
        executor = cf.ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="grade")
        try:
            yield executor
        finally:
            executor.shutdown(wait=False, cancel_futures=True)
        return
    from pacman.batch.cluster import dask_executor

    with contextlib.ExitStack() as stack:
        try:
            executor, _threads, _description = stack.enter_context(dask_executor(dask, workers=jobs))
        except PacmanError as exc:
            raise ClassError(str(exc)) from None
        yield executor
