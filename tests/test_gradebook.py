"""The outputs of grading a class (`pacman.grading.gradebook`): records, the CSV gradebook, the summary, the plots
and the feedback files.

Reports are made as the grader makes them (`GradeReport`, `QuestionResult`, `TestResult`, then ``to_dict()``,
the ``--json`` form), never graded here: every test runs in well under a second.
"""

from __future__ import annotations

import csv
import inspect
import json
import math
import os
import random
import signal
import statistics
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from pacman.grading import gradebook, sandbox, worker
from pacman.grading.checks import TestResult as Verdict
from pacman.grading.forbidden import Violation
from pacman.grading.gradebook import (
    GradebookError,
    HistogramBin,
    StudentRecord,
    plot_histograms,
    question_stats,
    read_records,
    report_status,
    summary_text,
    total_histogram,
    write_feedback,
    write_gradebook,
    write_records,
)
from pacman.grading.grader import GradeReport, QuestionResult
from pacman.grading.report import format_report

QUESTIONS = [("a", 4), ("b", 6)]


# -- test support: reports as the grader makes them --------------------------------------------------------


def _grade_report(points: dict[str, tuple[float, float]], **extra) -> GradeReport:
    """A report with one test per question, scoring `points[question] = (score, max)`."""
    questions = [QuestionResult(q, f"Question {q}", float(score), float(top), "partial", "visible",
                                [Verdict(f"{q}-1", "tree", float(score), float(top), score >= top,
                                            [] if score >= top else ["wrong root action"], [{}], 0.01)])
                 for q, (score, top) in points.items()]
    return GradeReport("demo", "/class/x/multi_agents.py", questions, 1.234, **extra)


def _report(points: dict[str, tuple[float, float]], **extra) -> dict:
    return _grade_report(points, **extra).to_dict()


def _record(student: str, a: float, b: float, **who) -> StudentRecord:
    return StudentRecord.from_report(student, _report({"a": (a, 4), "b": (b, 6)}), **who)


def _error(student: str, reason: str = "x.py: does not compile; not graded") -> StudentRecord:
    return StudentRecord.from_error(student, reason)


def _leftovers(folder: Path) -> list[str]:
    """Hidden temporary files `pacman.files.PendingFile` would leave beside its targets."""
    return sorted(p.name for p in folder.rglob(".*"))


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


# -- records ------------------------------------------------------------------------------------------------


def test_a_record_round_trips_through_json_and_a_json_lines_file(tmp_path):
    records = [_record("104321", 4, 6, name="Jane Smith", sid="s1", email="jane@example.edu"),
               StudentRecord.from_report("José_Müller", _report({"a": (1, 4), "b": (0, 6)},
                                                                limits=["a / a-1: CPU: stopped"])),
               _error("bob", "bob/multi_agents.py: not UTF-8 text (byte 3)")]
    for record in records:
        data = record.to_json()
        assert list(data) == ["student", "name", "sid", "email", "status", "reason", "report"]
        assert StudentRecord.from_json(json.loads(json.dumps(data))) == record
    path = tmp_path / "class.jsonl"
    write_records(records, path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3 and json.loads(lines[1])["student"] == "José_Müller"
    assert read_records(path) == records
    assert [r.status for r in records] == ["graded", "incomplete", "error"]
    assert len({hash(r) for r in records}) == 3  # hashable although the report is a dict
    assert _leftovers(tmp_path) == []


def test_missing_optional_keys_default_to_null():
    record = StudentRecord.from_json({"student": "ann", "status": "error", "reason": "timed out"})
    assert (record.name, record.sid, record.email, record.report) == (None, None, None, None)


GOOD = {"student": "ann", "name": None, "sid": None, "email": None, "status": "error", "reason": "why",
        "report": None}
REPORT = _report({"a": (4, 4), "b": (6, 6)})


@pytest.mark.parametrize("changes, named", [
    ({"grade": 10}, "unknown key 'grade'"),
    ({"student": 7}, "student: expected a string"),
    ({"student": "../etc/passwd"}, "student: not safe as a file name (safe: 'etc_passwd')"),
    ({"student": "nul"}, "student: not safe as a file name"),
    ({"student": "..."}, "no letter or digit"),
    ({"name": ["Ann"]}, "name: expected a string or null"),
    ({"sid": 12345}, "sid: expected a string or null"),
    ({"email": False}, "email: expected a string or null"),
    ({"status": "done"}, "status: expected one of graded, incomplete, error, got 'done'"),
    ({"reason": None}, "reason: an error record says why"),
    ({"report": REPORT}, "report: an error record has no report"),
    ({"status": "graded", "reason": None}, "report: a graded record needs its report"),
    ({"status": "graded", "report": REPORT}, "reason: a graded record has none"),
    ({"status": "incomplete", "reason": "", "report": REPORT}, "reason: an incomplete record says why"),
    ({"status": "graded", "reason": None, "report": [1]}, "report: expected a JSON object or null, got list"),
    ({"status": "graded", "reason": None, "report": {**REPORT, "score": "24"}}, "report.score: expected a number"),
    ({"status": "graded", "reason": None, "report": {**REPORT, "max_score": True}},
     "report.max_score: expected a number, got bool"),
    ({"status": "graded", "reason": None, "report": {k: v for k, v in REPORT.items() if k != "questions"}},
     "report.questions: missing"),
    ({"status": "graded", "reason": None,
      "report": {**REPORT, "questions": [{**REPORT["questions"][0], "score": "4"}]}},
     "report.questions[0].score: expected a number, got str '4'"),
    ({"status": "graded", "reason": None,
      "report": {**REPORT, "questions": [REPORT["questions"][0], REPORT["questions"][0]]}},
     "report.questions[1].id: question 'a' twice"),
    ({"status": "graded", "reason": None, "report": {**REPORT, "limits": [3]}},
     "report.limits[0]: expected a string"),
])
def test_a_bad_record_is_refused_by_name(changes, named):
    with pytest.raises(ValueError) as caught:
        StudentRecord.from_json({**GOOD, **changes})
    assert isinstance(caught.value, GradebookError)
    assert named in str(caught.value)


def test_a_record_without_student_or_status_is_refused_naming_the_key():
    with pytest.raises(GradebookError, match="record 'ann': missing key status"):
        StudentRecord.from_json({"student": "ann"})
    with pytest.raises(GradebookError, match="expected a JSON object, got list"):
        StudentRecord.from_json([GOOD])


def test_reading_records_names_the_file_and_line(tmp_path):
    path = tmp_path / "class.jsonl"
    path.write_text(json.dumps(GOOD) + "\n\n" + '{"student": "bo", "status": "error", "reason": "x", "x": 1}\n')
    with pytest.raises(GradebookError, match=r"class\.jsonl:3: record 'bo': unknown key 'x'"):
        read_records(path)
    path.write_text(json.dumps(GOOD) + "\n{not json\n")
    with pytest.raises(GradebookError, match=r"class\.jsonl:2: not JSON"):
        read_records(path)
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps({**GOOD, "student": "ANN"}) + "\n")
    with pytest.raises(GradebookError, match=r"class\.jsonl:2: student 'ANN' again \(first on line 1\)"):
        read_records(path)


# -- status ---------------------------------------------------------------------------------------------------


def _with_test(**fields) -> dict:
    """A report whose one question's one test has `fields` (its items, error...)."""
    test = Verdict("t1", "positions", 0.0, 2.0, False, ["failed"], fields.pop("items", [{}]), 0.5, **fields)
    return GradeReport("demo", "x.py", [QuestionResult("q", "Q", 0.0, 2.0, "partial", "visible", [test])],
                       1.0).to_dict()


GRADED = {
    "every test passed": _report({"a": (4, 4), "b": (6, 6)}),
    "wrong answers": _report({"a": (0, 4), "b": (3, 6)}),
    "the submission's exception": _with_test(error="NotImplementedError: ExpectimaxAgent.get_action",
                                             items=[{"error": "NotImplementedError: ExpectimaxAgent.get_action"}]),
    "games timed out by the game's rules": _with_test(items=[
        {"outcome": "timed-out", "error": "Pacman (agent 0) took longer than the 2 s move time limit"},
        {"outcome": "timed-out", "error": "the game took longer than its 60 s limit"}]),
    "a forbidden import refused while running": _report(
        {"a": (0, 4), "b": (6, 6)}, violations=[Violation("x.py", 3, "pacman.agents", "pacman.agents", "runtime",
                                                          ("a",))]),
    "its printed output cut": _report({"a": (4, 4), "b": (6, 6)},
                                      limits=[sandbox.printed_line(5_000_000, 2, "test")]),
    "a classic question skipped for its prerequisite": GradeReport("c", "x.py", [QuestionResult(
        "q2", "Q2", 0.0, 3.0, "all", "visible", [], ["skipped: it depends on q1, which was not completed with full "
                                                     "marks"])], 1.0).to_dict(),
}


@pytest.mark.parametrize("case", list(GRADED))
def test_verdicts_leave_a_report_graded(case):
    assert report_status(GRADED[case]) == ("graded", None)


INCOMPLETE = {
    "a question not graded": (GradeReport("c", "x.py", [
        QuestionResult("q1", "Q1", 2.0, 2.0, "all", "visible", []),
        QuestionResult("q5", "Q5", 0.0, 3.0, "all", "visible", [], not_graded="unknown test class Foo")], 1.0),
        "not graded: q5"),
    "a forbidden import in the source": (_grade_report(
        {"a": (0, 4)}, violations=[Violation("x.py", 4, "pacman.agents.evaluation", "pacman.agents", "static",
                                             ("a",))]),
        "no test ran: the source imports a forbidden module (pacman.agents.evaluation)"),
    "a grading limit hit": (_grade_report({"a": (0, 4)}, limits=[
        "a / a-1: sockets: the submission opened 1 socket (no network, no local servers while grading): stopped",
        "a / a-2: processes: the submission ran 80 processes at once, more than 64: stopped"]),
        "2 limits hit (first: a / a-1: sockets: the submission opened 1 socket"),
    "a time limit": (_with_test(error="took longer than the 3 s time limit",
                                items=[{"error": "took longer than the 3 s time limit"}]),
                     "1 test did not finish (first: q / t1: took longer than the 3 s time limit)"),
    "one item of several killed": (_with_test(items=[
        {"position": "p1", "action": "North"},
        {"position": "p2", "error": "the submission's process was killed (SIGKILL: by itself, or out of memory; "
                                    "the cap is 1024 MB)"}]),
        "1 test did not finish (first: q / t1: the submission's process was killed"),
    "the process exiting": (_with_test(error="the submission's process exited with status 0 (os._exit, or exit at "
                                             "shutdown)"), "q / t1: the submission's process exited with status 0"),
    "the memory cap": (_with_test(error="ran out of memory (MemoryError)"), "ran out of memory (MemoryError)"),
}


@pytest.mark.parametrize("case", list(INCOMPLETE))
def test_tests_that_did_not_run_or_finish_make_a_report_incomplete(case):
    report, said = INCOMPLETE[case]
    data = report.to_dict() if isinstance(report, GradeReport) else report
    status, reason = report_status(data)
    assert status == "incomplete"
    assert said in reason
    assert StudentRecord.from_report("ann", data).status == "incomplete"


def test_every_cause_of_an_incomplete_report_is_in_its_reason():
    data = _report({"a": (0, 4)}, limits=["a / a-1: CPU: stopped"])
    data["questions"][0]["tests"][0]["error"] = "took longer than the 3 s time limit"
    data["questions"][0]["graded"] = False
    data["questions"][0]["not_graded"] = "unknown"
    _, reason = report_status(data)
    assert reason.split("; ") == ["not graded: a", "1 limit hit (first: a / a-1: CPU: stopped)",
                                  "1 test did not finish (first: a / a-1: took longer than the 3 s time limit)"]


def test_the_stop_texts_are_the_sandboxs_own():
    """The sandbox's texts for an item it stopped are what `report_status` looks for (they are only in the
    items' errors); a change of wording there must show here."""
    for code in (None, 0, 3, -signal.SIGKILL, -signal.SIGSEGV, -signal.SIGXCPU, -signal.SIGTERM, -64):
        assert sandbox._exit_reason(code, 1024).startswith(gradebook._STOPPED), code
    assert sandbox._import_limit_text(None).startswith(gradebook._STOPPED)
    assert sandbox._import_limit_text("line 3: while True: pass").startswith(gradebook._STOPPED)
    assert worker._describe(MemoryError(), "x.py").startswith(gradebook._STOPPED)
    assert not worker._describe(ValueError("took longer than the"), "x.py").startswith(gradebook._STOPPED)
    reader = inspect.getsource(sandbox._read_messages)
    assert 'f"took longer than the {time_limits[status.current]:g} s time limit"' in reader
    assert "\"the submission's process hung between two tests\"" in reader
    assert sandbox.printed_line(10, 1, "question").startswith(gradebook._PRINTED_LINE)


# -- the gradebook ------------------------------------------------------------------------------------------


def test_the_csv_reads_back_exactly(tmp_path):
    records = [_record("104321", 4, 6, name="Smith, Jane", sid="s1", email="jane@example.edu"),
               _record("ann", 2.5, 1 / 3, name='Ann "the" Lee'),
               StudentRecord.from_report("bo", _report({"a": (0, 4), "b": (0, 6)}, limits=["a / a-1: CPU: x"])),
               _error("José_Müller", "line one\nline two, with a comma")]
    path = tmp_path / "grades.csv"
    write_gradebook(records, QUESTIONS, path)
    with open(path, newline="", encoding="utf-8") as source:
        reader = csv.DictReader(source)
        rows = list(reader)
    assert reader.fieldnames == ["student", "name", "sid", "email", "a", "b", "total", "max", "status", "reason"]
    assert rows == [
        {"student": "104321", "name": "Smith, Jane", "sid": "s1", "email": "jane@example.edu", "a": "4", "b": "6",
         "total": "10", "max": "10", "status": "graded", "reason": ""},
        {"student": "ann", "name": 'Ann "the" Lee', "sid": "", "email": "", "a": "2.5", "b": "0.333333",
         "total": "2.833333", "max": "10", "status": "graded", "reason": ""},
        {"student": "bo", "name": "", "sid": "", "email": "", "a": "0", "b": "0", "total": "0", "max": "10",
         "status": "incomplete", "reason": "1 limit hit (first: a / a-1: CPU: x)"},
        {"student": "José_Müller", "name": "", "sid": "", "email": "", "a": "", "b": "", "total": "", "max": "10",
         "status": "error", "reason": "line one\nline two, with a comma"},
    ]
    assert _leftovers(tmp_path) == []


def test_a_failed_write_leaves_the_old_gradebook_and_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "grades.csv"
    write_gradebook([_record("ann", 4, 6)], QUESTIONS, path)
    before = path.read_bytes()

    def broken(self, rows):
        self.writerow(next(iter(rows)))
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(csv.DictWriter, "writerows", broken)
    with pytest.raises(OSError, match="No space left"):
        write_gradebook([_record("ann", 0, 0), _record("bo", 1, 1)], QUESTIONS, path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["grades.csv"]


@pytest.mark.parametrize("records, questions, named", [
    ([_record("ann", 4, 6)], [("a", 4)], "record 'ann': its report has b too"),
    ([_record("ann", 4, 6)], [("a", 4), ("b", 6), ("c", 2)], "record 'ann': its report lacks c"),
    ([_record("ann", 4, 6)], [("a", 4), ("b", 5)], "question 'b' is out of 6 in its report, 5 in the gradebook's"),
    ([_record("ann", 4, 6), _error("ANN")], QUESTIONS, "records: student 'ANN' twice (as 'ann')"),
    ([_record("ann", 4, 6)], [("a", 4), ("total", 6)], "'total' is the name of another column"),
    ([_record("ann", 4, 6)], [("a", 4), ("a", 6)], "questions: 'a' twice"),
    ([_record("ann", 4, 6)], [("a", -1), ("b", 6)], "'a': expected its max points"),
    ([_record("ann", 4, 6)], [], "questions: none given"),
    ([GOOD], QUESTIONS, "records: expected StudentRecord objects, got dict"),
])
def test_a_gradebook_of_mismatched_records_or_questions_is_refused_and_not_written(tmp_path, records, questions,
                                                                                   named):
    path = tmp_path / "grades.csv"
    for output in (lambda: write_gradebook(records, questions, path), lambda: summary_text(records, questions)):
        with pytest.raises(GradebookError) as caught:
            output()
        assert named in str(caught.value)
    assert list(tmp_path.iterdir()) == []


# -- figures --------------------------------------------------------------------------------------------------

#: Four reports and an error: a = 4, 2, 3, 4 of 4; b = 6, 0, 1.5, 3 of 6; totals 10, 2, 4.5, 7 of 10.
CLASS = [_record("ann", 4, 6), _record("bo", 2, 0), _record("cy", 3, 1.5),
         StudentRecord.from_report("di", _report({"a": (4, 4), "b": (3, 6)}, limits=["b / b-1: CPU: stopped"])),
         _error("ed", "ed/multi_agents.py: SyntaxError")]


def test_the_figures_of_a_hand_made_class_are_exact():
    a, b, total = question_stats(CLASS, QUESTIONS)
    assert (a.question, a.max_points, a.students, a.mean, a.median, a.full_marks) == ("a", 4, 4, 3.25, 3.5, 2)
    assert (b.question, b.max_points, b.students, b.mean, b.median, b.full_marks) == ("b", 6, 4, 2.625, 2.25, 1)
    assert (total.question, total.max_points, total.students, total.mean, total.median, total.full_marks) == \
        ("total", 10, 4, 5.875, 5.75, 1)
    assert (a.full_share, b.full_share) == (0.5, 0.25)
    bins = total_histogram(CLASS, QUESTIONS)
    assert bins == [HistogramBin(float(k), float(k + 1), 1 if k in (2, 4, 7, 10) else 0) for k in range(11)]


def test_the_summary_of_a_hand_made_class_says_every_figure_and_whom_it_covers():
    text = summary_text(CLASS, QUESTIONS)
    lines = text.splitlines()
    assert lines[0] == "5 students: 3 graded, 1 incomplete, 1 error"
    assert lines[1] == "Per question, over the 4 students with a report (graded or incomplete):"
    assert lines[2].split() == ["question", "max", "students", "mean", "median", "full", "marks"]
    assert lines[3].split() == ["a", "4", "4", "3.25", "3.50", "2", "of", "4", "(50%)"]
    assert lines[4].split() == ["b", "6", "4", "2.62", "2.25", "1", "of", "4", "(25%)"]
    assert lines[5].split() == ["total", "10", "4", "5.88", "5.75", "1", "of", "4", "(25%)"]
    assert lines[6] == "Totals, 4 students, bins of 1 point:"
    histogram = [line.split() for line in lines[7:18]]
    assert [row[0] + row[1] for row in histogram] == [f"[{k},{k + 1})" for k in range(11)]
    assert [(row[2], row[3]) if len(row) == 4 else ("", row[2]) for row in histogram] == \
        [("#", "1") if k in (2, 4, 7, 10) else ("", "0") for k in range(11)]
    assert lines[18:] == ["Incomplete: 1: di", "Error (not graded): 1: ed"]


def test_the_summary_names_the_first_five_errors_then_how_many_more():
    records = [_record("ann", 4, 6), *(_error(f"s{i}") for i in range(8))]
    assert summary_text(records, QUESTIONS).splitlines()[-1] == \
        "Error (not graded): 8: s0, s1, s2, s3, s4 and 3 more"
    only_errors = summary_text([_error("s0")], QUESTIONS).splitlines()
    assert only_errors == ["1 student: 0 graded, 0 incomplete, 1 error",
                           "No student has a report (graded or incomplete): no figures.",
                           "Error (not graded): 1: s0"]
    assert question_stats([_error("s0")], QUESTIONS)[0].mean is None
    assert total_histogram([_error("s0")], QUESTIONS) == []


@pytest.mark.parametrize("top, width, count", [(10, 1, 11), (19, 1, 20), (20, 2, 11), (24, 2, 13), (25, 2, 13),
                                               (39, 2, 20), (40, 5, 9), (100, 10, 11), (1000, 100, 11)])
def test_the_total_is_binned_by_the_smallest_of_1_2_5_10_points_that_gives_at_most_20_bins(top, width, count):
    records = [StudentRecord.from_report("ann", _report({"a": (top, top)}))]
    bins = total_histogram(records, [("a", top)])
    assert len(bins) == count
    assert all(b.high - b.low == width for b in bins) and bins[0].low == 0
    assert bins[-1].low <= top < bins[-1].high and bins[-1].count == 1


def test_totals_outside_zero_to_the_maximum_widen_the_histogram():
    records = [StudentRecord.from_report("ann", _report({"a": (13, 10)})),  # a classic course's extra credit
               StudentRecord.from_report("bo", _report({"a": (-2, 10)}))]
    bins = total_histogram(records, [("a", 10)])
    assert (bins[0].low, bins[-1].high, sum(b.count for b in bins)) == (-2, 14, 2)
    assert question_stats(records, [("a", 10)])[0].full_marks == 1


def _random_class(rng: random.Random) -> tuple[list[StudentRecord], list[tuple[str, float]]]:
    questions = [(f"q{i}", rng.randint(1, 30)) for i in range(rng.randint(1, 5))]
    records = []
    for number in range(rng.randint(1, 40)):
        if rng.random() < 0.15:
            records.append(_error(f"s{number}"))
            continue
        points = {q: (rng.choice([top, rng.randint(0, 2 * top) / 2]), top) for q, top in questions}
        limits = ["q0 / q0-1: CPU: stopped"] if rng.random() < 0.2 else []
        records.append(StudentRecord.from_report(f"s{number}", _report(points, limits=limits)))
    return records, questions


def test_random_classes_agree_with_the_statistics_module():
    rng = random.Random(20240611)
    for _ in range(60):
        records, questions = _random_class(rng)
        scored = [r for r in records if r.report is not None]
        points = {r.student: {q["id"]: q["score"] for q in r.report["questions"]} for r in scored}
        figures = question_stats(records, questions)
        totals = [sum(points[r.student].values()) for r in scored]
        for figure, (question, top) in zip(figures, [*questions, ("total", sum(t for _, t in questions))]):
            values = totals if question == "total" else [points[r.student][question] for r in scored]
            assert figure.students == len(values)
            if not values:
                assert figure.mean is None and figure.median is None
                continue
            assert math.isclose(figure.mean, statistics.mean(values), rel_tol=1e-12, abs_tol=1e-12)
            assert figure.median == statistics.median(values)
            assert figure.full_marks == sum(1 for v in values if v >= top)
        bins = total_histogram(records, questions)
        assert sum(b.count for b in bins) == len(totals)
        if bins:
            width = bins[0].high - bins[0].low
            assert len(bins) <= 20 and width in (1, 2, 5, 10, 20, 50, 100)
            assert all(b.high - b.low == width and b.low == bins[0].low + i * width for i, b in enumerate(bins))
            assert all(b.count == sum(1 for t in totals if b.low <= t < b.high) for b in bins)
        lines = summary_text(records, questions).splitlines()
        counts = [sum(1 for r in records if r.status == status) for status in ("graded", "incomplete", "error")]
        assert lines[0] == (f"{len(records)} student{'s' if len(records) != 1 else ''}: {counts[0]} graded, "
                            f"{counts[1]} incomplete, {counts[2]} error")
        if totals:
            top = sum(t for _, t in questions)
            full = sum(1 for t in totals if t >= top)
            median = statistics.median(totals)
            assert lines[3 + len(questions)].split() == [
                "total", str(top), str(len(totals)), f"{statistics.mean(totals):.2f}",
                str(int(median)) if median == int(median) else f"{median:.2f}",
                str(full), "of", str(len(totals)), f"({100 * full / len(totals):.0f}%)"]


def test_random_classes_read_back_from_the_csv(tmp_path):
    rng = random.Random(7)
    for trial in range(20):
        records, questions = _random_class(rng)
        path = tmp_path / f"{trial}.csv"
        write_gradebook(records, questions, path)
        with open(path, newline="", encoding="utf-8") as source:
            rows = list(csv.DictReader(source))
        assert [row["student"] for row in rows] == [r.student for r in records]
        for row, record in zip(rows, records):
            shown = (lambda v: str(int(v)) if float(v).is_integer() else str(v))
            if record.report is None:
                assert [row[q] for q, _ in questions] == [""] * len(questions) and row["total"] == ""
            else:
                scores = {q["id"]: q["score"] for q in record.report["questions"]}
                assert [row[q] for q, _ in questions] == [shown(scores[q]) for q, _ in questions]
                assert row["total"] == shown(sum(scores.values()))
            assert row["max"] == str(sum(top for _, top in questions))
            assert (row["status"], row["reason"]) == (record.status, record.reason or "")
    assert _leftovers(tmp_path) == []


# -- plots ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("questions, size", [([("a", 4), ("b", 6)], (1200, 300)),
                                             ([("a", 4), ("b", 6), ("c", 1)], (1200, 600)),
                                             ([("a", 4)], (800, 300))])
def test_the_histograms_are_a_png_of_400_by_300_pixels_a_panel(tmp_path, questions, size):
    import matplotlib
    from PIL import Image

    backend = matplotlib.get_backend()
    had_pyplot = "matplotlib.pyplot" in sys.modules
    records = [StudentRecord.from_report(f"s{i}", _report({q: (i % (top + 1), top) for q, top in questions}))
               for i in range(7)] + [_error("ed")]
    path = tmp_path / "hist.png"
    plot_histograms(records, questions, path)
    assert _png_size(path) == size
    with Image.open(path) as image:
        image.verify()
    with Image.open(path) as image:
        assert image.size == size and len(image.getcolors(1 << 20)) > 2  # drawn, not blank
    assert matplotlib.get_backend() == backend
    assert ("matplotlib.pyplot" in sys.modules) == had_pyplot
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hist.png"]


def test_plotting_without_matplotlib_names_the_extra(tmp_path, monkeypatch):
    for name in ("matplotlib", "matplotlib.figure", "matplotlib.backends", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(GradebookError, match=r"needs matplotlib: install the plot extra: pip install -e '\.\[plot\]'"):
        plot_histograms(CLASS, QUESTIONS, tmp_path / "hist.png")
    assert list(tmp_path.iterdir()) == []


def test_plotting_refuses_another_format_and_a_class_without_reports(tmp_path):
    with pytest.raises(GradebookError, match=r"hist\.pdf: the histograms are a PNG file"):
        plot_histograms(CLASS, QUESTIONS, tmp_path / "hist.pdf")
    with pytest.raises(GradebookError, match="no student has a report"):
        plot_histograms([_error("ed")], QUESTIONS, tmp_path / "hist.png")
    assert list(tmp_path.iterdir()) == []


# -- feedback -------------------------------------------------------------------------------------------------


def _rich_report() -> GradeReport:
    """A report with everything `format_report` shows: violations, limits, notes, a question not graded, shared
    failures, a failure's place, a context."""
    shared = "NotImplementedError: ExpectimaxAgent.get_action"
    failing = [Verdict(f"t{i}", "tree", 0.0, 1.0, False, [f"t{i}: {shared}"], [{"error": shared}], 0.2,
                          error=shared, where="x.py:41 in get_action: raise NotImplementedError") for i in range(5)]
    passing = Verdict("ok", "positions", 2.0, 2.0, True, ["all 3 positions right"], [{}], 0.5)
    lone = Verdict("games", "games", 1.5, 6.0, False, ["5 games: 2 won", "seed 3: lost"], [{}], 3.0,
                      where="x.py:12 in better_evaluation: return 1 / 0")
    questions = [QuestionResult("trees", "Trees", 0.0, 5.0, "partial", "visible", failing),
                 QuestionResult("pacman", "Pacman", 2.0, 2.0, "all", "hidden", [passing], ["a note"]),
                 QuestionResult("evaluation", "Evaluation", 1.5, 6.0, "partial", "visible", [lone]),
                 QuestionResult("q9", "Classic", 0.0, 3.0, "all", "visible", [], not_graded="unknown test class")]
    violations = [Violation("x.py", 7, "pacman.agents.search", "pacman.agents", "runtime", ("evaluation",)),
                  Violation("x.py", None, "pacman.cli", "pacman.cli", "runtime", ())]
    return GradeReport("expectimax", "/class/ann/multi_agents.py", questions, 6.5421, ["[trees / t0]\nhello"],
                       violations, "CS188 classic", limits=["trees / t1: CPU: stopped"],
                       limit_notes=["write budget only polled"])


def test_feedback_is_the_report_as_grade_prints_it(tmp_path):
    rich = _rich_report()
    plain = _grade_report({"a": (4, 4), "b": (1, 6)})
    records = [StudentRecord.from_report("ann", json.loads(json.dumps(rich.to_dict()))),
               StudentRecord.from_report("bo", plain.to_dict()),
               _error("José_Müller", "x.py: does not compile")]
    folder = tmp_path / "new" / "feedback"
    written = write_feedback(records, folder)
    assert written == [folder / "ann.txt", folder / "bo.txt", folder / "José_Müller.txt"]
    assert (folder / "ann.txt").read_text(encoding="utf-8") == format_report(rich) + "\n"
    assert (folder / "bo.txt").read_text(encoding="utf-8") == format_report(plain) + "\n"
    assert (folder / "José_Müller.txt").read_text(encoding="utf-8") == "Not graded: x.py: does not compile\n"
    assert "FORBIDDEN IMPORTS" in format_report(rich) and "INCOMPLETE: q9" in format_report(rich)
    assert sorted(p.name for p in folder.iterdir()) == ["José_Müller.txt", "ann.txt", "bo.txt"]
    assert _leftovers(tmp_path) == []


def test_feedback_replaces_old_files_and_a_report_it_cannot_rebuild_writes_none(tmp_path):
    folder = tmp_path / "feedback"
    write_feedback([_record("ann", 1, 1)], folder)
    before = (folder / "ann.txt").read_text()
    broken = _report({"a": (4, 4), "b": (6, 6)})
    del broken["questions"][1]["tests"][0]["name"]
    records = [_record("ann", 4, 6), StudentRecord.from_report("bo", broken)]
    with pytest.raises(GradebookError, match=r"record 'bo': report\.questions\[1\]\.tests\[0\]\.name: missing"):
        write_feedback(records, folder)
    assert sorted(p.name for p in folder.iterdir()) == ["ann.txt"] and (folder / "ann.txt").read_text() == before
    write_feedback(records[:1], folder)
    assert (folder / "ann.txt").read_text() != before and "Total: 10/10" in (folder / "ann.txt").read_text()


def test_feedback_files_cannot_collide_on_a_case_insensitive_disk(tmp_path):
    with pytest.raises(GradebookError, match="student 'Ann' twice"):
        write_feedback([_record("ann", 1, 1), _record("Ann", 1, 1)], tmp_path / "feedback")
    assert not (tmp_path / "feedback").exists()


def test_the_module_imports_neither_matplotlib_nor_pygame_until_it_plots():
    code = ("import sys, pacman.grading.gradebook; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('matplotlib', 'pygame')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert done.stdout.strip() == "[]"
