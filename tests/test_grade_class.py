"""`pacman-ai grade ASSIGNMENT DIR`: a whole class graded as `grade` grades each student alone.

Run as an instructor runs it: the console script in a fresh folder, on class
folders in each download shape. Every student's points and status are checked
against `pacman-ai grade` of that student's file alone (the reference), so a
class grading that changed one student's grade, or let one student's loop or
crash reach another's, fails here.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUBMISSIONS = ROOT / "tests" / "submissions"
PACMAN_AI = str(Path(sys.executable).with_name("pacman-ai"))
#: One question keeps each student's grading to a second or two.
QUESTION = ["--question", "trees"]
ENV = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")

#: Students whose submissions no test of the grader was written for: module-level code that misbehaves.
HOSTILE = {
    "loops": "while True:\n    pass\n",
    "crashes": "raise RuntimeError('the student broke it')\n",
    "floods": "with open('big.bin', 'wb') as f:\n    for _ in range(200):\n        f.write(b'x' * (1 << 20))\n",
    "exits": "import os\nos._exit(7)\n",
    "empty": "",
}


def _run(cwd: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([PACMAN_AI, "grade", *args], cwd=cwd, capture_output=True, text=True, env=ENV,
                          timeout=timeout)


def _source(kind: str) -> str:
    if kind in HOSTILE:
        return HOSTILE[kind]
    return (SUBMISSIONS / f"{kind}.py").read_text()


@pytest.fixture(scope="module")
def alone(tmp_path_factory):
    """The reference: each kind of submission graded alone, as `grade` grades one file ((points, status))."""
    folder = tmp_path_factory.mktemp("alone")
    results = {}
    for kind in ("correct", "minimax", *HOSTILE):
        path = folder / kind / "multi_agents.py"
        path.parent.mkdir()
        path.write_text(_source(kind))
        done = _run(folder, "expectimax", str(path), *QUESTION, "--json", "-", "--quiet", "--import-seconds", "1")
        if done.returncode in (0, 3):
            report = json.loads(done.stdout)
            results[kind] = ({q["id"]: q["score"] for q in report["questions"]}, done.returncode)
        else:
            assert done.returncode == 2 and done.stdout == "", done.stderr
            results[kind] = (None, done.stderr.strip().splitlines()[-1])
    return results


def _gradebook(path: Path) -> dict[str, dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def _check_against_alone(rows: dict[str, dict[str, str]], kinds: dict[str, str], alone) -> None:
    """Each student's row has the points (or the refusal) their file gets alone."""
    assert sorted(rows) == sorted(kinds)
    for student, kind in kinds.items():
        points, status = alone[kind]
        row = rows[student]
        if points is None:
            assert (row["status"], row["trees"], row["total"]) == ("error", "", ""), row
            # The same one line as alone, naming the student's own file name, not the grader's copy.
            assert row["reason"].split(": ", 1)[1] == status.split(": ", 2)[2], (row, status)
        else:
            assert float(row["trees"]) == points["trees"], (student, row)
            assert row["status"] == ("graded" if status == 0 else "incomplete"), (student, row)


# -- the download shapes ----------------------------------------------------------------------------------


def _files(folder: Path, students: dict[str, str]) -> dict[str, str]:
    for student, kind in students.items():
        (folder / f"{student}.py").write_text(_source(kind))
    return dict(students)


def _folders(folder: Path, students: dict[str, str]) -> dict[str, str]:
    for student, kind in students.items():
        (folder / student).mkdir()
        (folder / student / "multi_agents.py").write_text(_source(kind))
    return dict(students)


def _canvas(folder: Path, students: dict[str, str]) -> dict[str, str]:
    keys = {}
    for number, (student, kind) in enumerate(students.items()):
        user = str(1000 + number)
        late = "late_" if number % 2 else ""
        # The first upload is the starter; the resubmission (-1) is the one that counts.
        (folder / f"{student}smith_{late}{user}_{5550 + number}_multi_agents.py").write_text(_source("empty"))
        (folder / f"{student}smith_{late}{user}_{5560 + number}_multi_agents-1.py").write_text(_source(kind))
        keys[user] = kind
    return keys


def _moodle(folder: Path, students: dict[str, str]) -> dict[str, str]:
    keys = {}
    for number, (student, kind) in enumerate(students.items()):
        entry = folder / f"{student.title()} Müller_{200 + number}_assignsubmission_file_"
        entry.mkdir()
        (entry / "multi_agents.py").write_text(_source(kind))
        keys[str(200 + number)] = kind
    return keys


def _gradescope(folder: Path, students: dict[str, str]) -> dict[str, str]:
    keys, lines = {}, []
    for number, (student, kind) in enumerate(students.items()):
        name = f"submission_{9000 + number}"
        (folder / name).mkdir()
        (folder / name / "multi_agents.py").write_text(_source(kind))
        lines += [f"{name}:", "  :submitters:", f"  - :name: {student.title()}", f"    :sid: '{number}'",
                  f"    :email: {student}@example.edu", "  :score: 0.0"]
        keys[name] = kind
    (folder / "submission_metadata.yml").write_text("\n".join(lines) + "\n")
    return keys


SHAPES = {"files": _files, "folders": _folders, "canvas": _canvas, "moodle": _moodle, "gradescope": _gradescope}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_download_shape_grades_each_student_as_grade_does_alone(tmp_path, shape, alone):
    folder = tmp_path / "class"
    folder.mkdir()
    kinds = SHAPES[shape](folder, {"ann": "correct", "bob": "minimax", "eve": "empty"})
    (folder / ".DS_Store").write_bytes(b"\0")
    done = _run(tmp_path, "expectimax", "class", *QUESTION, "--jobs", "2", "--gradebook", "book.csv")
    assert done.returncode == 3, done.stderr  # eve's empty file is an error
    rows = _gradebook(tmp_path / "book.csv")
    _check_against_alone(rows, kinds, alone)
    assert f"({shape})" in done.stderr
    if shape == "gradescope":
        assert {row["email"] for row in rows.values()} == {"ann@example.edu", "bob@example.edu", "eve@example.edu"}
    assert (tmp_path / "class-grades.jsonl").is_file()  # the records, beside the folder


def test_hostile_students_cost_only_their_own_grade(tmp_path, alone):
    folder = tmp_path / "class"
    folder.mkdir()
    kinds = _files(folder, {"good": "correct", **{kind: kind for kind in HOSTILE}, "good2": "minimax"})
    done = _run(tmp_path, "expectimax", "class", *QUESTION, "--jobs", "2", "--gradebook", "book.csv",
                "--import-seconds", "1", "--feedback", "feedback")
    assert done.returncode == 3, done.stderr
    rows = _gradebook(tmp_path / "book.csv")
    _check_against_alone(rows, kinds, alone)
    assert rows["good"]["total"] == rows["good"]["max"]
    assert "took longer than 1 s" in rows["loops"]["reason"]
    assert not list(folder.rglob("big.bin")) and not (tmp_path / "big.bin").exists()
    for student in kinds:  # a feedback file each, the report its student would read
        text = (tmp_path / "feedback" / f"{student}.txt").read_text()
        graded = student in ("good", "good2")
        assert text.startswith(f"Grading {student}.py on assignment 'expectimax'" if graded else "Not graded: "), text
    assert "/pacman-ai-class-" not in (tmp_path / "feedback" / "crashes.txt").read_text()


def test_the_json_holds_every_report_and_the_skipped_entries(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    _files(folder, {"ann": "correct", "bob": "minimax"})
    (folder / "README.txt").write_text("not a submission")
    done = _run(tmp_path, "expectimax", "class", *QUESTION, "--json", "all.json")
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "all.json").read_text())
    assert data["assignment"] == "expectimax" and data["shape"] == "files"
    assert data["skipped"] == [{"entry": "README.txt", "reason": "not a .py file"}]
    assert [s["student"] for s in data["students"]] == ["ann", "bob"]
    assert data["students"][0]["report"]["questions"][0]["score"] == 8
    assert "pacman-ai: skipped README.txt: not a .py file" in done.stderr


def test_a_copy_with_renamed_names_is_a_similar_pair_in_the_summary(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    _files(folder, {"ann": "correct", "bob": "minimax"})
    renamed = _source("correct").replace("state", "position").replace("depth", "level")
    (folder / "cat.py").write_text(renamed)
    done = _run(tmp_path, "expectimax", "class", *QUESTION, "--similarity", "similar.html")
    assert done.returncode == 0, done.stderr
    pairs = [line.split() for line in done.stdout.splitlines() if line.startswith("  ann  cat")]
    assert len(pairs) == 1, done.stdout
    assert "ann" in (tmp_path / "similar.html").read_text()


def test_a_stopped_class_resumes_and_ends_as_an_uninterrupted_one(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    _files(folder, {f"s{n}": ("correct" if n % 2 else "minimax") for n in range(6)})
    whole = _run(tmp_path, "expectimax", "class", *QUESTION, "--jobs", "1", "--out", "whole.jsonl",
                 "--gradebook", "whole.csv")
    assert whole.returncode == 0, whole.stderr
    records = tmp_path / "part.jsonl"
    process = subprocess.Popen([PACMAN_AI, "grade", "expectimax", "class", *QUESTION, "--jobs", "1", "--out",
                                str(records)], cwd=tmp_path, env=ENV, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not records.exists() or records.read_text().count("\n") < 2):
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    kept = records.read_text().count("\n")
    assert 2 <= kept < 6 and records.read_text().endswith("\n")
    assert f"{kept} of 6 students are in {records}; --resume grades the rest" in stderr
    again = _run(tmp_path, "expectimax", "class", *QUESTION, "--out", str(records))
    assert again.returncode == 2 and "file exists; --resume continues it" in again.stderr
    resumed = _run(tmp_path, "expectimax", "class", *QUESTION, "--out", str(records), "--resume",
                   "--gradebook", "resumed.csv")
    assert resumed.returncode == 0, resumed.stderr
    assert f"{6 - kept} to grade" in resumed.stderr
    assert _gradebook(tmp_path / "resumed.csv") == _gradebook(tmp_path / "whole.csv")


def _stopped_class(tmp_path, monkeypatch, students, stand_in):
    """`grade expectimax class --out part.jsonl` on `students` correct files, graded by `stand_in` in place of
    `grade_class` (which ends by raising KeyboardInterrupt): the command's exit status."""
    from pacman.cli import main
    from pacman.grading import classroom, reaper

    folder = tmp_path / "class"
    folder.mkdir()
    _files(folder, {f"s{n}": "correct" for n in range(students)})
    monkeypatch.setattr(classroom, "grade_class", stand_in)
    monkeypatch.setattr(reaper, "become_subreaper", lambda: None)
    monkeypatch.chdir(tmp_path)
    return main(["grade", "expectimax", "class", *QUESTION, "--jobs", "1", "--out", "part.jsonl"])


def test_a_stop_between_a_record_and_its_progress_says_what_the_file_holds(tmp_path, monkeypatch, capsys):
    """Ctrl-C after a record is written and before the progress line hears of it: the stop line counts the
    file's records, the number --resume will find (no timing: the grading is a stand-in that stops there)."""
    from pacman.grading import classroom
    from pacman.grading.gradebook import StudentRecord

    def stops_after_a_write(setup, todo, out, *, jobs, truncate, dask=None, done=None):
        sink = classroom.RecordsFile(out, truncate)
        try:
            for number, submission in enumerate(todo[:3]):
                sink.write(StudentRecord.from_error(submission.student, "stand-in"))
                if number < 2:
                    done(StudentRecord.from_error(submission.student, "stand-in"))
        finally:
            sink.close()
        raise KeyboardInterrupt

    assert _stopped_class(tmp_path, monkeypatch, 4, stops_after_a_write) == 130
    assert (tmp_path / "part.jsonl").read_text().count("\n") == 3
    assert "3 of 4 students are in part.jsonl; --resume grades the rest" in capsys.readouterr().err


def test_a_stop_when_the_records_file_cannot_be_read_says_so_in_one_line(tmp_path, monkeypatch, capsys):
    """Ctrl-C, and --out is no longer a file that can be read: the stop line says it cannot count, no traceback."""
    from pacman.grading import classroom
    from pacman.grading.gradebook import StudentRecord

    def stops_after_its_file_is_replaced(setup, todo, out, *, jobs, truncate, dask=None, done=None):
        sink = classroom.RecordsFile(out, truncate)
        sink.write(StudentRecord.from_error(todo[0].student, "stand-in"))
        sink.close()
        os.remove(out)
        os.mkdir(out)  # reading a folder fails whoever runs the tests, root included
        raise KeyboardInterrupt

    assert _stopped_class(tmp_path, monkeypatch, 2, stops_after_its_file_is_replaced) == 130
    err = capsys.readouterr().err
    assert "cannot count the students in part.jsonl (Is a directory); --resume grades the rest" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("args, message", [
    (["missing"], "missing"),
    (["class", "--gradescope", "r.json"], "--gradescope is for one submission, not a class"),
    (["class", "--similarity-threshold", "0.5"], "--similarity-threshold goes with --similarity"),
    (["class", "--plot", "p.svg"], "--plot p.svg: expected a .png file"),
    (["class", "--gradebook", "class/book.csv"], "is inside the folder of submissions"),
    (["class", "--resume", "--force"], "give one"),
    (["class", "--similarity", "s.html", "--similarity-threshold", "2"], "expected a share"),
    (["one.py", "--gradebook", "b.csv"], "--gradebook is for grading a class"),
])
def test_a_class_usage_mistake_is_one_line_and_status_2(tmp_path, args, message):
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "ann.py").write_text(_source("correct"))
    (tmp_path / "one.py").write_text(_source("correct"))
    done = _run(tmp_path, "expectimax", *args)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (tmp_path / "class-grades.jsonl").exists()


def test_a_folder_with_no_submission_is_one_line_naming_it(tmp_path):
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "notes.txt").write_text("hello")
    done = _run(tmp_path, "expectimax", "class")
    assert done.returncode == 2
    assert "class" in done.stderr and "Traceback" not in done.stderr


# -- the contest -------------------------------------------------------------------------------------------


def _small_contest(tmp_path: Path) -> Path:
    """The shipped expectimax assignment with a contest of 4 games on `small` (the shipped one plays 30)."""
    import shutil

    from pacman.grading.assignment import shipped_directory

    folder = tmp_path / "assignment"
    shutil.copytree(shipped_directory() / "expectimax", folder)
    toml = folder / "assignment.toml"
    text = toml.read_text()
    assert 'layouts = ["small", "medium", "trapped"]\ngames = 10' in text
    toml.write_text(text.replace('layouts = ["small", "medium", "trapped"]\ngames = 10',
                                 'layouts = ["small"]\ngames = 4'))
    return folder


def test_the_leaderboard_ranks_every_student_on_the_same_games(tmp_path):
    assignment = _small_contest(tmp_path)
    folder = tmp_path / "class"
    folder.mkdir()
    _files(folder, {"ann": "correct", "bob": "minimax", "eve": "empty"})
    done = _run(tmp_path, str(assignment), "class", *QUESTION, "--leaderboard", "board.csv")
    assert done.returncode == 3, done.stderr
    with open(tmp_path / "board.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["student"] for row in rows][-1] == "eve" and rows[-1]["status"] == "failed"
    ranked = [row for row in rows if row["status"] == "ranked"]
    assert {row["student"] for row in ranked} == {"ann", "bob"}
    assert {row["seeds"] for row in ranked} == {"100-103"} and {row["games"] for row in ranked} == {"4"}
    order = sorted(ranked, key=lambda row: (-float(row["win_rate"]), -float(row["mean_score"])))
    assert [row["student"] for row in order] == [row["student"] for row in ranked]  # win rate first, then score
    assert "Leaderboard (1 layout, the same seeded games for everyone; all 3 in board.csv):" in done.stdout


def test_one_students_gradescope_results_carry_the_leaderboard(tmp_path):
    assignment = _small_contest(tmp_path)
    (tmp_path / "multi_agents.py").write_text(_source("correct"))
    done = _run(tmp_path, str(assignment), "multi_agents.py", *QUESTION, "--gradescope", "results.json", "--quiet")
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    names = [entry["name"] for entry in results["leaderboard"]]
    assert names == ["Win rate (%)", "Mean score"]
    assert all(entry["order"] == "desc" and isinstance(entry["value"], (int, float))
               for entry in results["leaderboard"])


def test_a_leaderboard_needs_a_contest(tmp_path):
    import re

    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "ann.py").write_text(_source("correct"))
    bare = _small_contest(tmp_path)
    toml = bare / "assignment.toml"
    text, count = re.subn(r"\[leaderboard\]\n(?:[^\[].*\n|\n)*", "", toml.read_text())
    assert count == 1
    toml.write_text(text)
    done = _run(tmp_path, str(bare), "class", "--leaderboard", "b.csv")
    assert done.returncode == 2 and "has no contest (no [leaderboard] table" in done.stderr
    assert not (tmp_path / "class-grades.jsonl").exists()  # refused before any student was graded


def test_a_classic_cs188_folder_grades_its_class_as_each_student_alone(tmp_path):
    # A course folder (test_cases/, layouts/) and a folder of its students' multiAgents.py files, one per student.
    course = tmp_path / "course"
    course.mkdir()
    source = Path(__file__).parent / "cs188_classic"
    for part in ("test_cases", "layouts"):
        shutil.copytree(source / part, course / part)
    (course / "class").mkdir()
    files = {"ann": source / "multiAgents.py", "bob": source / "students" / "depth_off.py",
             "cal": source / "students" / "prunes_on_equality.py", "dan": source / "students" / "unfinished.py"}
    for student, path in files.items():
        shutil.copy(path, course / "class" / f"{student}.py")
    questions = ["--question", "q2", "--question", "q3"]
    done = _run(course, "test_cases", "class", *questions, "--jobs", "2", "--gradebook", "book.csv", "--quiet")
    assert done.returncode == 0, done.stderr
    rows = _gradebook(course / "book.csv")
    assert sorted(rows) == sorted(files)
    for student in files:
        alone = _run(course, "test_cases", f"class/{student}.py", *questions, "--json", "-", "--quiet")
        assert alone.returncode == 0, alone.stderr
        report = json.loads(alone.stdout)
        expected = {q["id"]: q["score"] for q in report["questions"]}
        assert {q: float(rows[student][q]) for q in expected} == expected, student
        assert float(rows[student]["total"]) == report["score"] and rows[student]["status"] == "graded"
    assert float(rows["ann"]["total"]) == float(rows["ann"]["max"]) > float(rows["bob"]["total"])
