"""What grading a whole class gives: one record per student, then a CSV gradebook, a summary, plots, feedback files.

A `StudentRecord` holds the student's report in its ``--json`` form (the dict that
``pacman-ai grade ASSIGNMENT SUBMISSION.py --json -`` prints), so records go to a
JSON-lines file and come back (`write_records`, `read_records`) without the
grader. Every output takes ``questions``: the assignment's ``(id, max points)``
pairs in its order, which every report must match exactly (the same questions,
the same maxima): a report of another version of the assignment is refused by
name rather than filed under the wrong columns.

>>> record = StudentRecord.from_report("104321", report, name="Jane Smith")      # doctest: +SKIP
>>> write_gradebook([record], [("trees", 8), ("pacman", 10)], "grades.csv")       # doctest: +SKIP
>>> print(summary_text([record], [("trees", 8), ("pacman", 10)]))                 # doctest: +SKIP
"""

from __future__ import annotations

import csv
import json
import math
import os
from collections import Counter
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path
from typing import Any, Iterable, Literal, Sequence

from pacman.errors import PacmanError
from pacman.files import read_input_file, write_atomically
from pacman.grading.roster import RosterError, safe_name

__all__ = ["GradebookError", "STATUSES", "Status", "StudentRecord", "report_status", "write_records",
           "read_records", "write_gradebook", "QuestionStats", "question_stats", "HistogramBin",
           "total_histogram", "summary_text", "plot_histograms", "write_feedback"]

Status = Literal["graded", "incomplete", "error"]
#: A record's statuses (`report_status` says which a report gets).
STATUSES: tuple[Status, ...] = ("graded", "incomplete", "error")

#: A record's keys, in the order `StudentRecord.to_json` writes them.
_KEYS = ("student", "name", "sid", "email", "status", "reason", "report")
#: The gradebook's columns before the questions' and after them.
_HEAD_COLUMNS = ("student", "name", "sid", "email")
_TAIL_COLUMNS = ("total", "max", "status", "reason")

#: How a test item's error begins when the sandbox stopped the item before it finished
#: (`pacman.grading.sandbox`: `_read_messages`, `_exit_reason`, `_import_limit_text`; the memory cap is
#: `pacman.grading.worker._describe`'s). tests/test_gradebook.py checks them against the sandbox's own texts.
_STOPPED = (
    "took longer than the ",  # its time limit: the process was killed
    "the submission's process ",  # it died, was killed (out of memory), exited, hung or flooded the grader
    "importing the submission took longer than ",
    "the grader's process for the submission ",
    "ran out of memory",  # MemoryError at the assignment's memory cap
)
#: The limits line that says only that the report's copy of what was printed was cut
#: (`pacman.grading.sandbox.printed_line`): printing never fails a test, so it leaves the grading complete.
_PRINTED_LINE = "output: "

#: The most bins a histogram of points has (`_bin_width`).
_MAX_BINS = 20
#: The longest histogram bar in the summary, in characters; longer bars are scaled down.
_BAR = 40
#: How many students a list in the summary names before "and N more".
_NAMED = 5
#: Each plot panel, in inches, at `_DPI`: 400 x 300 pixels; `_PANELS_PER_ROW` to a row.
_PANEL_INCHES = (4.0, 3.0)
_DPI = 100
_PANELS_PER_ROW = 3
#: The largest JSON-lines file of records `read_records` reads.
_MAX_RECORDS_BYTES = 1 << 30


class GradebookError(PacmanError):
    """Records or questions that cannot make a gradebook; the message names the student and the key."""


# -- records ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class StudentRecord:
    """One student of a class: who, how their grading went, and the report (``--json`` form) when there is one.

    Checked when made: the student key is safe as a file name, the fields have
    their types, ``error`` goes with no report and a reason, ``incomplete`` with
    a report and a reason, ``graded`` with a report and no reason. The report is
    kept as given, not copied.
    """

    student: str
    """The student's key in the class (the roster's): safe as a file name (`pacman.grading.roster.safe_name`)."""
    name: str | None = None
    """The student's name, where the roster has one."""
    sid: str | None = None
    """The student id, where the roster has one."""
    email: str | None = None
    """The e-mail address, where the roster has one."""
    status: Status
    """"graded", "incomplete" or "error" (`report_status`)."""
    reason: str | None = None
    """Why the record is incomplete or an error; None when graded."""
    report: dict[str, Any] | None = field(default=None, hash=False)
    """The report's ``--json`` form; None for an error."""

    def __post_init__(self) -> None:
        if not isinstance(self.student, str):
            raise GradebookError(f"record: student: expected a string, got {self.student!r}")
        where = f"record {self.student!r}"
        if not _is_safe_key(self.student):
            safe = _safe_or_none(self.student)
            raise GradebookError(f"{where}: student: not safe as a file name ("
                                 + (f"safe: {safe!r}" if safe else "no letter or digit") + "); use the roster's key")
        for key in ("name", "sid", "email", "reason"):
            value = getattr(self, key)
            if value is not None and not isinstance(value, str):
                raise GradebookError(f"{where}: {key}: expected a string or null, got {value!r}")
        if self.status not in STATUSES:
            raise GradebookError(f"{where}: status: expected one of {', '.join(STATUSES)}, got {self.status!r}")
        if self.status == "error":
            if self.report is not None:
                raise GradebookError(f"{where}: report: an error record has no report (null), got one")
        elif self.report is None:
            raise GradebookError(f"{where}: report: a {self.status} record needs its report, got null")
        else:
            _check_report(self.report, f"{where}: report")
        if self.status == "graded" and self.reason is not None:
            raise GradebookError(f"{where}: reason: a graded record has none (null), got {self.reason!r}")
        if self.status != "graded" and not (self.reason or "").strip():
            raise GradebookError(f"{where}: reason: an {self.status} record says why, got {self.reason!r}")

    @classmethod
    def from_report(cls, student: str, report: dict[str, Any], *, name: str | None = None, sid: str | None = None,
                    email: str | None = None) -> StudentRecord:
        """The record of a student whose grading gave `report` (its ``--json`` form): graded or incomplete,
        as `report_status` says."""
        status, reason = report_status(report)
        return cls(student=student, name=name, sid=sid, email=email, status=status, reason=reason, report=report)

    @classmethod
    def from_error(cls, student: str, reason: str, *, name: str | None = None, sid: str | None = None,
                   email: str | None = None) -> StudentRecord:
        """The record of a student whose grading gave no report (the submission could not be graded at all, or
        the grading itself failed): `reason` says why, e.g. the `SubmissionError`'s message."""
        return cls(student=student, name=name, sid=sid, email=email, status="error", reason=reason)

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON object (a dict of JSON values), every key present; `from_json` reads it back."""
        return {key: getattr(self, key) for key in _KEYS}

    @classmethod
    def from_json(cls, data: Any) -> StudentRecord:
        """The record of a JSON object `to_json` wrote. ``student`` and ``status`` are required; the other keys
        default to null. Unknown keys and wrong types are a GradebookError (a ValueError) naming them."""
        if not isinstance(data, dict):
            raise GradebookError(f"record: expected a JSON object, got {_shown_type(data)}")
        student = data.get("student")
        where = f"record {student!r}" if isinstance(student, str) else "record"
        unknown = [key for key in data if key not in _KEYS]
        if unknown:
            raise GradebookError(f"{where}: unknown key{'s' if len(unknown) > 1 else ''} "
                                 f"{', '.join(repr(k) for k in unknown)} (a record has {', '.join(_KEYS)})")
        missing = [key for key in ("student", "status") if key not in data]
        if missing:
            raise GradebookError(f"{where}: missing key{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
        if data.get("report") is not None and not isinstance(data["report"], dict):
            raise GradebookError(f"{where}: report: expected a JSON object or null, got "
                                 f"{_shown_type(data['report'])}")
        return cls(**data)


def report_status(report: dict[str, Any]) -> tuple[Status, str | None]:
    """("graded", None) when every test of the report ran to its end; else ("incomplete", why).

    A report is incomplete when it says any of:

    - a question could not be graded at all (``complete: false``, a question's ``graded: false``);
    - no test ran because the source imports a forbidden module (a violation whose ``check`` is ``static``);
    - the submission hit a grading limit (a ``limits`` line: disk, CPU, processes, sockets; not the line that
      says only that its printed output was cut);
    - a test item was stopped before it finished (its ``error`` says so: a time limit, the process dying,
      killed or exiting, the memory cap).

    Failures that are verdicts stay graded: a wrong answer, the submission's own exception, a game lost,
    crashed or timed out under the game's rules, a forbidden import refused while it ran, a classic question
    skipped for its prerequisite. Only the top-level keys and the questions are read; a report that lacks
    them is a GradebookError naming the key.
    """
    _check_report(report, "report")
    causes = []
    not_graded = [q["id"] for q in report["questions"] if q.get("graded") is False]
    not_graded += [i for i in report.get("not_graded", []) if i not in not_graded]
    if not_graded:
        causes.append(f"not graded: {', '.join(map(str, not_graded))}")
    static = [v for v in report.get("violations", []) if v.get("check") == "static"]
    if static:
        causes.append(f"no test ran: the source imports a forbidden module ({static[0].get('import')})")
    limits = [line for line in report.get("limits", []) if not line.startswith(_PRINTED_LINE)]
    if limits:
        causes.append(f"{_plural(len(limits), 'limit')} hit (first: {limits[0]})")
    stopped = _stopped_tests(report)
    if stopped:
        question, test, error = stopped[0]
        causes.append(f"{_plural(len(stopped), 'test')} did not finish (first: {question} / {test}: {error})")
    return ("incomplete", "; ".join(causes)) if causes else ("graded", None)


def write_records(records: Iterable[StudentRecord], path: str | os.PathLike[str]) -> None:
    """Write `records` to `path` as JSON lines, one record a line in the order given, atomically."""
    lines = [json.dumps(record.to_json(), ensure_ascii=False) + "\n" for record in _unique(records)]

    def write(temporary: str) -> None:
        with open(temporary, "w", encoding="utf-8", newline="\n") as out:
            out.writelines(lines)

    write_atomically(path, write)


def read_records(path: str | os.PathLike[str]) -> list[StudentRecord]:
    """The records of a JSON-lines file `write_records` wrote, in its order; blank lines are skipped.

    A line that is not JSON, not a record, or repeats a student (ignoring case) is a GradebookError naming the
    file and the line.
    """
    shown = os.fspath(path)
    data = read_input_file(path, "a JSON-lines file of student records", _MAX_RECORDS_BYTES, GradebookError)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GradebookError(f"{shown}: not UTF-8 text (byte {exc.start})") from None
    records = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = StudentRecord.from_json(json.loads(line))
        except json.JSONDecodeError as exc:
            raise GradebookError(f"{shown}:{number}: not JSON ({exc.msg}, column {exc.colno})") from None
        except ValueError as exc:
            raise GradebookError(f"{shown}:{number}: {exc}") from None
        key = record.student.casefold()
        if key in seen:
            raise GradebookError(f"{shown}:{number}: student {record.student!r} again (first on line {seen[key]})")
        seen[key] = number
        records.append(record)
    return records


# -- the gradebook ------------------------------------------------------------------------------------------


def write_gradebook(records: Iterable[StudentRecord], questions: Iterable[tuple[str, float]],
                    path: str | os.PathLike[str]) -> None:
    """Write the class's CSV gradebook to `path`, atomically: a header, then one row per record in the order given.

    Columns: student, name, sid, email, one per question (its points; in the order of `questions`), total,
    max (the assignment's, on every row), status, reason. An error row's questions and total are blank, not 0;
    so are a missing name, sid, email and reason. Points are written as the report has them (at most six
    decimals, a whole number without ``.0``). UTF-8, as the csv module writes it; cells are not escaped for
    spreadsheets (a reason that starts with ``=`` stays as it is).
    """
    columns = _columns(questions)
    records = _unique(records)
    header = [*_HEAD_COLUMNS, *(question for question, _ in columns), *_TAIL_COLUMNS]
    assignment_max = sum(points for _, points in columns)
    rows = []
    for record in records:
        row = {"student": record.student, "name": record.name or "", "sid": record.sid or "",
               "email": record.email or "", "max": _cell(assignment_max), "status": record.status,
               "reason": record.reason or ""}
        scores = _scores(record, columns)
        for question, _ in columns:
            row[question] = "" if scores is None else _cell(scores[question])
        row["total"] = "" if record.report is None else _cell(record.report["score"])
        rows.append(row)

    def write(temporary: str) -> None:
        with open(temporary, "w", encoding="utf-8", newline="") as out:
            writer = csv.DictWriter(out, fieldnames=header)
            writer.writeheader()
            writer.writerows(rows)

    write_atomically(path, write)


# -- figures ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuestionStats:
    """A question's (or the total's) figures over the students with a report (graded or incomplete)."""

    question: str
    """The question's id, or ``total``."""
    max_points: float
    """Its points."""
    students: int
    """How many students the figures cover."""
    mean: float | None
    """Mean points; None with no student."""
    median: float | None
    """Median points (the mean of the middle two for an even count); None with no student."""
    full_marks: int
    """How many students have all its points (or more: a classic course's extra credit)."""

    @property
    def full_share(self) -> float | None:
        """The share of `students` with full marks, 0 to 1; None with no student."""
        return self.full_marks / self.students if self.students else None


@dataclass(frozen=True)
class HistogramBin:
    """A bin of a histogram of points: the students with ``low <= points < high``."""

    low: float
    high: float
    count: int


def question_stats(records: Iterable[StudentRecord], questions: Iterable[tuple[str, float]]) -> list[QuestionStats]:
    """Each question's figures, in the order of `questions`, then the total's (``total``), over the records
    that have a report (graded and incomplete; error records have no points to count)."""
    columns = _columns(questions)
    scored = _scored(_unique(records), columns)
    figures = []
    for question, points in [*columns, ("total", sum(points for _, points in columns))]:
        values = sorted(scores[question] for scores in scored)
        figures.append(QuestionStats(question, points, len(values), _mean(values), _median(values),
                                     sum(1 for value in values if _is_full(value, points))))
    return figures


def total_histogram(records: Iterable[StudentRecord], questions: Iterable[tuple[str, float]]) -> list[HistogramBin]:
    """The histogram of the totals of the records that have a report, bins of a whole number of points (1, 2, 5,
    10, 20, 50, ...: the smallest giving at most 20 bins) from 0 to the assignment's maximum (the last bin holds
    the maximum), widened to any total outside; every bin in between, empty or not. [] with no such record."""
    columns = _columns(questions)
    scored = _scored(_unique(records), columns)
    return _histogram([scores["total"] for scores in scored], sum(points for _, points in columns))


def summary_text(records: Iterable[StudentRecord], questions: Iterable[tuple[str, float]]) -> str:
    """The class at a glance: per question (and the total) the mean, median and share with full marks over the
    students with a report, saying how many that is; the totals as a text histogram; how many records are
    graded, incomplete and errors, the incomplete and error students named (the first few, then "and N more")."""
    records = _unique(records)
    columns = _columns(questions)
    figures = question_stats(records, columns)
    by_status = {status: [r.student for r in records if r.status == status] for status in STATUSES}
    covered = figures[-1].students
    lines = [f"{_plural(len(records), 'student')}: {len(by_status['graded'])} graded, "
             f"{len(by_status['incomplete'])} incomplete, {len(by_status['error'])} error"]
    if not covered:
        lines.append("No student has a report (graded or incomplete): no figures.")
    else:
        lines.append(f"Per question, over the {_plural(covered, 'student')} with a report (graded or incomplete):")
        width = max(len("question"), *(len(f.question) for f in figures))
        lines.append(f"  {'question':<{width}}  {'max':>6}  {'students':>8}  {'mean':>7}  {'median':>7}  full marks")
        for f in figures:
            share = f"{f.full_marks} of {f.students} ({100 * (f.full_share or 0):.0f}%)"
            lines.append(f"  {f.question:<{width}}  {_shown(f.max_points):>6}  {f.students:>8}  {f.mean:>7.2f}  "
                         f"{_shown(f.median):>7}  {share}")
        bins = total_histogram(records, columns)
        lines.append(f"Totals, {_plural(covered, 'student')}, bins of {_plural(bins[0].high - bins[0].low, 'point')}:")
        labels = [f"[{_shown(b.low)}, {_shown(b.high)})" for b in bins]
        label_width = max(len(label) for label in labels)
        most = max(b.count for b in bins)
        bars = [_bar(b.count, most) for b in bins]
        bar_width = max(len(bar) for bar in bars)
        for label, bar, b in zip(labels, bars, bins):
            lines.append(f"  {label:>{label_width}}  {bar:<{bar_width}}  {b.count}")
    for status, title in (("incomplete", "Incomplete"), ("error", "Error (not graded)")):
        if by_status[status]:
            lines.append(f"{title}: {len(by_status[status])}: {_named(by_status[status])}")
    return "\n".join(lines)


def plot_histograms(records: Iterable[StudentRecord], questions: Iterable[tuple[str, float]],
                    path: str | os.PathLike[str]) -> None:
    """Draw one histogram per question, then the total's, over the students with a report, into the PNG `path`,
    written atomically. Bins as `total_histogram`'s; each panel is 400 x 300 pixels, three to a row.

    matplotlib is an optional extra (``pip install -e '.[plot]'``), imported only here; the figure is drawn
    on its own Agg canvas, so pyplot and the process's backend are left as they were. A GradebookError if
    matplotlib is missing, `path` is not a ``.png``, or no student has a report.
    """
    shown = os.fspath(path)
    if os.path.splitext(shown)[1].lower() != ".png":
        raise GradebookError(f"{shown}: the histograms are a PNG file: give a name ending in .png")
    columns = _columns(questions)
    scored = _scored(_unique(records), columns)
    if not scored:
        raise GradebookError(f"{shown}: no student has a report (graded or incomplete): nothing to plot")
    Figure, FigureCanvasAgg = _matplotlib()
    from matplotlib.ticker import MaxNLocator
    panels = [*columns, ("total", sum(points for _, points in columns))]
    across = min(_PANELS_PER_ROW, len(panels))
    down = math.ceil(len(panels) / across)
    figure = Figure(figsize=(_PANEL_INCHES[0] * across, _PANEL_INCHES[1] * down), dpi=_DPI, layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(down, across, squeeze=False).ravel()
    for each, (question, points) in zip(axes, panels):
        values = [scores[question] for scores in scored]
        bins = _histogram(values, points)
        each.hist(values, bins=[b.low for b in bins] + [bins[-1].high], color="#3b6fd6", edgecolor="#1d3c7a")
        each.set_title(f"{question} (max {_shown(points)}, {_plural(len(values), 'student')})", fontsize=9)
        each.set_xlabel("points")
        each.set_ylabel("students")
        each.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts of students
        each.grid(alpha=0.3)
    for each in axes[len(panels):]:
        each.set_visible(False)

    def save(temporary: str) -> None:
        figure.savefig(temporary, format="png", dpi=_DPI)

    write_atomically(path, save)


# -- feedback -----------------------------------------------------------------------------------------------


def write_feedback(records: Iterable[StudentRecord], folder: str | os.PathLike[str]) -> list[Path]:
    """Write each student's feedback to ``FOLDER/<student>.txt`` (the folder made if missing), each file atomically;
    return the paths, in the records' order.

    A record with a report gets the report as ``pacman-ai grade`` prints it (`format_report`, not verbose),
    rebuilt from the ``--json`` form: the same text, the seconds it took read from ``execution_time`` (to the
    millisecond, so ``graded in 6.5 s`` can differ in its last digit where the tenth was a tie). An error record
    gets ``Not graded: REASON``. Every text is made before any file is written, so a record whose report
    cannot be rebuilt (a GradebookError naming it and the key) leaves the folder as it was.
    """
    from pacman.grading.report import format_report

    records = _unique(records)
    texts = []
    for record in records:
        if record.report is None:
            texts.append(f"Not graded: {record.reason}\n")
        else:
            texts.append(format_report(_grade_report(record.report, f"record {record.student!r}: report")) + "\n")
    os.makedirs(folder, exist_ok=True)
    written = []
    for record, text in zip(records, texts):
        target = Path(folder) / f"{record.student}.txt"

        def write(temporary: str, text: str = text) -> None:
            with open(temporary, "w", encoding="utf-8") as out:
                out.write(text)

        write_atomically(target, write)
        written.append(target)
    return written


def _grade_report(data: dict[str, Any], where: str) -> Any:
    """The `GradeReport` whose ``to_dict()`` is `data`, as far as `format_report` reads it (a question's
    visibility and what the submission printed are not in the JSON: "visible" and none)."""
    from pacman.grading.checks import TestResult
    from pacman.grading.forbidden import Violation
    from pacman.grading.grader import GradeReport, QuestionResult

    questions = []
    for i, q in enumerate(data["questions"]):
        at = f"{where}.questions[{i}]"
        tests = []
        for j, t in enumerate(q["tests"]):
            on = f"{at}.tests[{j}]"
            tests.append(TestResult(
                _get(t, "name", str, on), _get(t, "kind", str, on), _get(t, "score", float, on),
                _get(t, "max_score", float, on), _get(t, "passed", bool, on), _get(t, "messages", list, on, []),
                _get(t, "items", list, on, []), _get(t, "seconds", float, on, 0.0),
                _get(t, "error", str, on, None), _get(t, "where", str, on, None)))
        not_graded = _get(q, "not_graded", str, at, None)
        questions.append(QuestionResult(
            q["id"], _get(q, "title", str, at), q["score"], q["max_score"], _get(q, "scoring", str, at), "visible",
            tests, _get(q, "notes", list, at, []), not_graded))
    violations = []
    for i, v in enumerate(data.get("violations", [])):
        at = f"{where}.violations[{i}]"
        violations.append(Violation(_get(v, "file", str, at), _get(v, "line", int, at, None),
                                    _get(v, "import", str, at), _get(v, "rule", str, at), _get(v, "check", str, at),
                                    tuple(_get(v, "questions", list, at, []))))
    return GradeReport(_get(data, "assignment", str, where), _get(data, "submission", str, where), questions,
                       _get(data, "execution_time", float, where, 0.0), [], violations,
                       _get(data, "context", str, where, ""), limits=list(data.get("limits", [])),
                       limit_notes=_get(data, "limit_notes", list, where, []),
                       engine=_get(data, "engine", str, where, ""))


# -- internals ----------------------------------------------------------------------------------------------


def _is_safe_key(student: str) -> bool:
    return _safe_or_none(student) == student


def _safe_or_none(text: str) -> str | None:
    try:
        return safe_name(text)
    except RosterError:
        return None


def _check_report(report: Any, where: str) -> None:
    """GradebookError naming the key unless `report` has what the gradebook reads: numbers ``score`` and
    ``max_score``, ``questions`` (each an object with a unique string ``id``, numbers ``score`` and ``max_score``
    and a list ``tests`` of objects), and where present lists ``limits`` (strings), ``violations`` (objects) and
    ``not_graded``."""
    if not isinstance(report, dict):
        raise GradebookError(f"{where}: expected a JSON object, got {_shown_type(report)}")
    _get(report, "score", float, where)
    _get(report, "max_score", float, where)
    seen = set()
    for i, question in enumerate(_get(report, "questions", list, where)):
        at = f"{where}.questions[{i}]"
        if not isinstance(question, dict):
            raise GradebookError(f"{at}: expected a JSON object, got {_shown_type(question)}")
        identity = _get(question, "id", str, at)
        if identity in seen:
            raise GradebookError(f"{at}.id: question {identity!r} twice")
        seen.add(identity)
        _get(question, "score", float, at)
        _get(question, "max_score", float, at)
        for j, test in enumerate(_get(question, "tests", list, at)):
            if not isinstance(test, dict):
                raise GradebookError(f"{at}.tests[{j}]: expected a JSON object, got {_shown_type(test)}")
    for key, kind in (("limits", str), ("violations", dict), ("not_graded", str)):
        for i, value in enumerate(_get(report, key, list, where, [])):
            if not isinstance(value, kind):
                raise GradebookError(f"{where}.{key}[{i}]: expected {_KIND_NAMES[kind]}, got {_shown_type(value)}")


_KIND_NAMES = {str: "a string", float: "a number", int: "a whole number", bool: "true or false", list: "a list",
               dict: "a JSON object"}
_REQUIRED = object()


def _get(data: dict[str, Any], key: str, kind: type, where: str, default: Any = _REQUIRED) -> Any:
    """``data[key]`` if it is of `kind` (float: any finite number, not a bool), `default` if absent or null (when
    given); else a GradebookError naming ``where.key``."""
    value = data.get(key)
    if value is None:
        if default is _REQUIRED:
            raise GradebookError(f"{where}.{key}: missing" if key not in data else
                                 f"{where}.{key}: expected {_KIND_NAMES[kind]}, got null")
        return default
    if kind is float:
        fits = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    elif kind is int:
        fits = isinstance(value, int) and not isinstance(value, bool)
    else:
        fits = isinstance(value, kind)
    if not fits:
        raise GradebookError(f"{where}.{key}: expected {_KIND_NAMES[kind]}, got {_shown_type(value)}")
    return value


def _shown_type(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


def _stopped_tests(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(question, test, error) for each test with an item the sandbox stopped before it finished."""
    stopped = []
    for question in report["questions"]:
        for test in question["tests"]:
            errors = [test.get("error"), *(item.get("error") for item in test.get("items") or []
                                           if isinstance(item, dict))]
            error = next((e for e in errors if isinstance(e, str) and e.startswith(_STOPPED)), None)
            if error is not None:
                stopped.append((question["id"], str(test.get("name")), error))
    return stopped


def _columns(questions: Iterable[tuple[str, float]]) -> list[tuple[str, float]]:
    """`questions` checked: (id, max points) pairs, ids unique strings that are not another column's name."""
    columns = []
    for entry in questions:
        if not (isinstance(entry, (tuple, list)) and len(entry) == 2):
            raise GradebookError(f"questions: expected (id, max points) pairs, got {entry!r}")
        question, points = entry
        if not isinstance(question, str) or not question.strip():
            raise GradebookError(f"questions: expected a question id (a string), got {question!r}")
        if question in _HEAD_COLUMNS or question in _TAIL_COLUMNS:
            raise GradebookError(f"questions: {question!r} is the name of another column of the gradebook")
        if not isinstance(points, (int, float)) or isinstance(points, bool) or not math.isfinite(points) \
                or points < 0:
            raise GradebookError(f"questions: {question!r}: expected its max points (a number >= 0), got {points!r}")
        if any(question == known for known, _ in columns):
            raise GradebookError(f"questions: {question!r} twice")
        columns.append((question, float(points)))
    if not columns:
        raise GradebookError("questions: none given (the assignment's (id, max points) pairs, in its order)")
    return columns


def _unique(records: Iterable[StudentRecord]) -> list[StudentRecord]:
    """`records` as a list; a GradebookError naming a student key found twice (ignoring case, as the feedback
    files would collide on macOS and Windows) or an entry that is not a record."""
    listed = list(records)
    seen: dict[str, str] = {}
    for record in listed:
        if not isinstance(record, StudentRecord):
            raise GradebookError(f"records: expected StudentRecord objects, got {_shown_type(record)}")
        key = record.student.casefold()
        if key in seen:
            raise GradebookError(f"records: student {record.student!r} twice"
                                 + (f" (as {seen[key]!r})" if seen[key] != record.student else ""))
        seen[key] = record.student
    return listed


def _scores(record: StudentRecord, columns: list[tuple[str, float]]) -> dict[str, float] | None:
    """The record's points per question and ``total``; None for an error record. A GradebookError when its
    report's questions or their maxima are not those of `columns`."""
    if record.report is None:
        return None
    where = f"record {record.student!r}"
    found = {q["id"]: q for q in record.report["questions"]}
    expected = [question for question, _ in columns]
    missing = [question for question in expected if question not in found]
    extra = [question for question in found if question not in dict(columns)]
    if missing or extra:
        said = [f"lacks {', '.join(missing)}" if missing else "", f"has {', '.join(extra)} too" if extra else ""]
        raise GradebookError(f"{where}: its report {' and '.join(s for s in said if s)}: graded on other "
                             f"questions than the gradebook's ({', '.join(expected)})")
    scores = {}
    for question, points in columns:
        reported = found[question]["max_score"]
        if abs(reported - points) > 1e-6:
            raise GradebookError(f"{where}: question {question!r} is out of {_shown(reported)} in its report, "
                                 f"{_shown(points)} in the gradebook's questions (another version of the assignment?)")
        scores[question] = float(found[question]["score"])
    scores["total"] = float(record.report["score"])
    return scores


def _scored(records: list[StudentRecord], columns: list[tuple[str, float]]) -> list[dict[str, float]]:
    """`_scores` of each record with a report (every record checked, errors included)."""
    return [scores for record in records if (scores := _scores(record, columns)) is not None]


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def _median(ordered: Sequence[float]) -> float | None:
    if not ordered:
        return None
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _is_full(value: float, points: float) -> bool:
    return value >= points - 1e-9


def _bin_width(low: float, high: float) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50, ... points giving at most `_MAX_BINS` bins from `low` to `high`."""
    for exponent in count():
        for step in (1, 2, 5):
            width = step * 10 ** exponent
            if math.floor(high / width) - math.floor(low / width) + 1 <= _MAX_BINS:
                return width
    raise AssertionError("unreachable")  # pragma: no cover


def _histogram(values: Sequence[float], max_points: float) -> list[HistogramBin]:
    if not values:
        return []
    low, high = min(0.0, min(values)), max(max_points, max(values))
    width = _bin_width(low, high)
    counts = Counter(math.floor(value / width) for value in values)
    return [HistogramBin(float(k * width), float((k + 1) * width), counts[k])
            for k in range(math.floor(low / width), math.floor(high / width) + 1)]


def _bar(count: int, most: int) -> str:
    if most <= _BAR:
        return "#" * count
    return "#" * (math.ceil(count * _BAR / most) if count else 0)


def _cell(value: float) -> str:
    """Points as the gradebook writes them: at most six decimals, a whole number without ``.0``."""
    rounded = round(float(value), 6) + 0.0  # + 0.0: no "-0"
    return str(int(rounded)) if rounded.is_integer() else repr(rounded)


def _shown(value: float | None) -> str:
    """Points as the summary shows them: a whole number as such, else two decimals."""
    if value is None:
        return "-"
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def _plural(number: float, word: str) -> str:
    return f"{_shown(number)} {word}{'' if number == 1 else 's'}"


def _named(students: list[str]) -> str:
    shown = ", ".join(students[:_NAMED])
    return shown + (f" and {len(students) - _NAMED} more" if len(students) > _NAMED else "")


def _matplotlib() -> tuple[type, type]:
    """matplotlib's Figure and Agg canvas; a GradebookError naming the extra to install if it is missing."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise GradebookError("plotting the gradebook needs matplotlib: install the plot extra: "
                             "pip install -e '.[plot]'") from None
    return Figure, FigureCanvasAgg
