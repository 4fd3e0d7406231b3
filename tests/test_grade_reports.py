"""What `pacman-ai grade` says when a submission cannot be graded, fails the same way many times, leaves
``util.raiseNotDefined()`` in, prints a lot, or loops at import (issue 62).

Each test is run as a user runs it: the student's file in a fresh folder, the ``pacman-ai`` console script beside
this Python, no display. A submission that cannot be graded at all is one line on stderr naming the file and why,
and exit status 2 (as a syntax error is); the tests of a question that failed with one error are one line with their
count; an unfinished method names its file and line; printing never fails a test and the report says when its copy
of the output was cut; the first failure at import ends the grading, within about the import's time limit.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pacman.grading import load_assignment
from pacman.grading import checks
from pacman.grading.grader import GradeReport, QuestionResult
from pacman.grading.report import format_report, gradescope_results
from pacman.grading.sandbox import IMPORT_TIME_LIMIT

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the sandbox's limits and pipes: POSIX")

TESTS = Path(__file__).resolve().parent
CORRECT = (TESTS / "submissions" / "correct.py").read_text()
CLASSIC = TESTS / "cs188_classic"
CURRENT = TESTS / "cs188_current"


def _grade(cwd: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """`pacman-ai grade ARGS` as a user runs it, in `cwd`."""
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    script = Path(sys.executable).with_name("pacman-ai")
    return subprocess.run([str(script), "grade", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def _line_of(source: str, text: str) -> int:
    """The number of the first line of `source` that holds `text`."""
    return next(number for number, line in enumerate(source.splitlines(), start=1) if text in line)


def _course(tmp_path: Path, folder: Path = CLASSIC) -> Path:
    """A copy of a course folder (its test_cases and layouts) to grade in."""
    target = tmp_path / folder.name
    shutil.copytree(folder, target, ignore=shutil.ignore_patterns("__pycache__", "students"))
    return target


# -- (a) nothing gradable --------------------------------------------------------------------------------------

def test_an_empty_file_is_one_line_naming_what_it_lacks_and_exit_2(tmp_path):
    (tmp_path / "empty.py").write_text("")
    done = _grade(tmp_path, "expectimax", "empty.py", "--quiet", "--json", "out.json", "--gradescope", "gs.json")
    line = ("pacman-ai: empty.py: defines nothing that assignment 'expectimax' grades (no ExpectimaxAgent, "
            "no better_evaluation); not graded")
    assert (done.returncode, done.stdout, done.stderr) == (2, "", line + "\n")
    assert not (tmp_path / "out.json").exists()
    results = json.loads((tmp_path / "gs.json").read_text())
    assert (results["score"], results["tests"], results["output"]) == (0.0, [], "Not graded: " + line[11:])


def test_a_file_that_defines_what_one_question_grades_is_graded(tmp_path):
    agent_only = CORRECT[:CORRECT.index("def better_evaluation")]
    (tmp_path / "agent_only.py").write_text(agent_only)
    done = _grade(tmp_path, "expectimax", "agent_only.py", "--quiet", "--question", "trees")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert "Total: 8/8" in done.stdout
    # ... and one that defines none of what the questions asked for grade is not
    done = _grade(tmp_path, "expectimax", "agent_only.py", "--quiet", "--question", "evaluation")
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", "pacman-ai: agent_only.py: defines nothing that assignment 'expectimax' (question evaluation) grades "
               "(no better_evaluation); not graded\n")


def test_an_empty_file_on_a_course_folder_names_the_agent_classes_it_lacks(tmp_path):
    course = _course(tmp_path)
    (course / "multiAgents.py").write_text("import util\n")
    done = _grade(course, "test_cases", "multiAgents.py", "--quiet")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("pacman-ai: multiAgents.py: defines nothing that test_cases grades (no ReflexAgent, "
                           "no MinimaxAgent, no AlphaBetaAgent, no ExpectimaxAgent); not graded\n")


# -- (b) identical failures, one line ---------------------------------------------------------------------------

def test_tests_that_fail_with_one_error_are_one_line_with_their_count(tmp_path):
    (tmp_path / "sulky.py").write_text("class ExpectimaxAgent:\n    def __init__(self, depth, evaluation):\n"
                                       "        pass\n\n    def get_action(self, state):\n"
                                       "        raise ValueError('not today')\n")
    done = _grade(tmp_path, "expectimax", "sulky.py", "--quiet", "--question", "trees", "--question", "pacman",
                  "--json", "out.json")
    assert done.returncode == 0, done.stderr
    error = "ValueError: not today (at sulky.py:6 in get_action: raise ValueError('not today'))"
    lines = done.stdout.splitlines()
    assert [line for line in lines if "not today" in line] == [
        f"  FAIL 8 tests, all of them  0/8: {error}", f"  FAIL 5 tests, all of them  0/10: {error}"]
    assert not any(line.startswith("  FAIL one-ghost") for line in lines) and "Total: 0/18" in done.stdout
    # --json keeps every test's own result
    data = json.loads((tmp_path / "out.json").read_text())
    tests = [test for question in data["questions"] for test in question["tests"]]
    assert len(tests) == 13 and all(test["error"] == error and not test["passed"] for test in tests)
    assert all(test["messages"] and all(m.endswith(": " + error) for m in test["messages"]) for test in tests)
    assert sum(len(test["messages"]) for test in tests) == 8 + 8  # a line per tree, per position


def _result(name: str, passed: bool, error: str | None = None, where: str | None = None) -> checks.TestResult:
    return checks.TestResult(name, "tree", 1.0 if passed else 0.0, 1.0, passed, [f"{name}: {error or 'fine'}"],
                      error=error, where=where)


def test_only_the_tests_that_share_an_error_are_collapsed_and_named():
    tests = [_result("a", True), _result("b", False, "boom"), _result("c", False, "other"),
             _result("d", False, "boom"), _result("e", False, "boom"), _result("f", False, "boom"),
             _result("g", False, "not implemented: get_action", "sub.py:3 in get_action: raise_not_defined()")]
    report = GradeReport("x", "sub.py", [QuestionResult("q", "Q", 1.0, 7.0, "partial", "visible", tests)], 0.1,
                         engine="")
    lines = format_report(report).splitlines()
    assert lines[3:8] == ["  PASS a (tree)  1/1",
                          "  FAIL 4 tests: b, d, e and 1 more  0/4: boom",
                          "  FAIL c (tree)  0/1",
                          "       c: other",
                          "  FAIL g (tree)  0/1"]
    assert lines[8:10] == ["       g: not implemented: get_action",
                           "       at sub.py:3 in get_action: raise_not_defined()"]
    output = gradescope_results(report)["tests"][0]["output"].splitlines()
    assert output[:3] == ["PASS a (tree): 1/1", "    a: fine", "FAIL 4 tests: b, d, e and 1 more: 0/4"]
    assert output[3] == "    boom"


# -- (c) unfinished methods: file and line, once ----------------------------------------------------------------

@pytest.mark.parametrize("folder, student, call", [(CLASSIC, "multiAgents.py", "util.raiseNotDefined()"),
                                                   (CURRENT, "multi_agents.py", "util.raise_not_defined()")])
def test_raise_not_defined_names_the_file_and_line_once_per_question(tmp_path, folder, student, call):
    course = _course(tmp_path, folder)
    source = (folder / "students" / "unfinished.py").read_text()
    (course / student).write_text(source)
    done = _grade(course, "test_cases", student, "--quiet", "--json", "out.json")
    assert done.returncode == 0, done.stderr
    method, maze = ("getAction", "mediumClassic") if folder == CLASSIC else ("get_action", "medium_classic")
    lines = done.stdout.splitlines()
    calls = [number for number, line in enumerate(source.splitlines(), start=1) if line.strip() == call]
    minimax, alphabeta, expectimax = calls[:3]
    said = [line for line in lines if "not implemented" in line or line.strip().startswith("at ")]
    assert said == [
        f"  FAIL 4 tests, all of them  0/0: not implemented: {method} (at {student}:{minimax} in {method}: {call})",
        f"  FAIL 3 tests, all of them  0/0: not implemented: {method} (at {student}:{alphabeta} in {method}: {call})",
        f"  FAIL 2 tests, all of them  0/0: not implemented: {method} (at {student}:{expectimax} in {method}: "
        f"{call})",
        f"       ExpectimaxAgent on {maze}, 3 games: not implemented: {method}",
        f"       at {student}:{expectimax} in {method}: {call}"]
    data = json.loads((course / "out.json").read_text())
    q2 = data["questions"][1]["tests"]
    assert len(q2) == 4 and all(t["where"] == f"{student}:{minimax} in {method}: {call}" for t in q2)
    assert [q["score"] for q in data["questions"]][1:] == [0.0, 0.0, 0.0, 0.0]


def test_the_starters_not_implemented_errors_name_the_file_and_line(tmp_path):
    starter = load_assignment("expectimax").starter
    (tmp_path / "multi_agents.py").write_text(starter)
    done = _grade(tmp_path, "expectimax", "multi_agents.py", "--quiet", "--question", "trees", "--question",
                  "evaluation")
    assert done.returncode == 0, done.stderr
    agent = _line_of(starter, 'raise NotImplementedError("ExpectimaxAgent.get_action")')
    evaluation = _line_of(starter, 'raise NotImplementedError("better_evaluation")')
    error = ('NotImplementedError: ExpectimaxAgent.get_action (at multi_agents.py:{} in get_action: '
             'raise NotImplementedError("ExpectimaxAgent.get_action"))').format(agent)
    lines = done.stdout.splitlines()
    assert [line for line in lines if "NotImplementedError" in line and "get_action" in line] == [
        f"  FAIL 8 tests, all of them  0/8: {error}"]
    assert (f'       at multi_agents.py:{evaluation} in better_evaluation: '
            f'raise NotImplementedError("better_evaluation")') in lines
    # The crash of a game is told as the submission's error, not as a forbidden import of the grader's own.
    assert "FORBIDDEN" not in done.stdout and "pacman.agents" not in done.stdout


# -- (d) printing ------------------------------------------------------------------------------------------------

def _scores(done: subprocess.CompletedProcess) -> tuple[list[float], list[str]]:
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    return [q["score"] for q in data["questions"]], data["limits"]


def test_a_course_student_who_prints_scores_what_the_same_quiet_student_scores(tmp_path):
    course = _course(tmp_path)
    quiet = (CLASSIC / "multiAgents.py").read_text()
    # 50 KB at every move: the reflex agent's three games print some 10 MB, past the old 8 MB cap on output.
    noisy = quiet.replace("    def getAction(self, gameState: GameState):\n",
                          "    def getAction(self, gameState: GameState):\n        print('x' * 50000)\n")
    assert noisy.count("print('x' * 50000)") == 4
    (course / "multiAgents.py").write_text(quiet)
    (course / "noisy.py").write_text(noisy)
    quiet_scores, quiet_limits = _scores(_grade(course, "test_cases", "multiAgents.py", "--question", "q1",
                                                "--quiet", "--json", "-"))
    noisy_scores, noisy_limits = _scores(_grade(course, "test_cases", "noisy.py", "--question", "q1", "--quiet",
                                                "--json", "-"))
    assert noisy_scores == quiet_scores == [4.0]
    assert quiet_limits == []
    assert len(noisy_limits) == 1 and re.fullmatch(
        r"output: the submission printed \d+\.\d MB \([\d,]+ bytes\); the report keeps the first and last 2,000 "
        r"characters of what each question printed \(cut in 1 question; printing never fails a test\)",
        noisy_limits[0]), noisy_limits
    printed = int(noisy_limits[0].split("(")[1].split(" bytes")[0].replace(",", ""))
    assert printed > 8 << 20  # more than the cap that used to fail its games


def test_printing_more_than_the_file_and_write_limits_fails_no_test_and_is_listed(tmp_path):
    # 9 MB at every get_action: each test once over the 8 MB cap per file, all of them over the 32 MB write budget.
    noisy = CORRECT.replace("    def get_action(self, state):\n",
                            "    def get_action(self, state):\n        print('y' * (9 << 20))\n", 1)
    assert noisy != CORRECT
    (tmp_path / "noisy.py").write_text(noisy)
    done = _grade(tmp_path, "expectimax", "noisy.py", "--question", "trees", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "Total: 8/8" in done.stdout  # the quiet correct.py's score
    lines = done.stdout.splitlines()
    head = lines.index("LIMITS HIT: where the submission went over a grading limit (its processes were stopped, "
                       "or what it wrote or printed was cut):")
    assert lines[head + 1] == (f"  output: the submission printed 72.0 MB ({8 * ((9 << 20) + 1):,} bytes); the "
                               f"report keeps the first and last 2,000 characters of what each test printed (cut in "
                               f"8 tests; printing never fails a test)")
    assert lines[head + 2] == ""


# -- (e) the first failure at import ends the grading -------------------------------------------------------------

def test_a_file_that_fails_at_import_is_one_line_with_its_line_and_is_imported_once(tmp_path):
    # A second at import, then an error: 14 seconds when every test imported it, one now.
    (tmp_path / "broken.py").write_text("import time\ntime.sleep(1)\nundefined_name\n")
    started = time.monotonic()
    done = _grade(tmp_path, "expectimax", "broken.py", "--quiet")
    took = time.monotonic() - started
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("pacman-ai: broken.py: the submission could not be imported: NameError: name "
                           "'undefined_name' is not defined (at broken.py:3: undefined_name); not graded\n")
    assert took < 8, took


@pytest.mark.slow
def test_a_file_that_loops_at_import_is_stopped_once_at_the_import_limit_naming_its_line(tmp_path):
    (tmp_path / "loop.py").write_text("x = 0\nwhile True: x += 1\n")
    started = time.monotonic()
    done = _grade(tmp_path, "expectimax", "loop.py", "--quiet")
    took = time.monotonic() - started
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("pacman-ai: loop.py: importing the submission took longer than 10 s, the time limit of "
                           "its module-level code (stopped at line 2: while True: x += 1; --import-seconds allows more); "
                           "not graded\n")
    assert IMPORT_TIME_LIMIT <= took < IMPORT_TIME_LIMIT + 8, took  # was 10 s in each of the 14 tests: 141 s
    # A course folder's grading stops the same way.
    course = _course(tmp_path)
    (course / "multiAgents.py").write_text("import util\n\nwhile True: pass\n")
    done = _grade(course, "test_cases", "multiAgents.py", "--quiet")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("pacman-ai: multiAgents.py: importing the submission took longer than 10 s, the time "
                           "limit of its module-level code (stopped at line 3: while True: pass; --import-seconds allows "
                           "more); not graded\n")


def test_the_help_names_the_import_limit_and_the_exit_status_of_a_submission_not_graded():
    from pacman.cli.grade import IMPORT_SECONDS

    assert IMPORT_SECONDS == IMPORT_TIME_LIMIT
    done = subprocess.run([str(Path(sys.executable).with_name("pacman-ai")), "grade", "--help"],
                          capture_output=True, text=True, timeout=60)
    text = " ".join(done.stdout.split())
    assert "takes longer than 10 s" in text
    assert "Exit status: 0 graded; 2 nothing graded (a usage error, a mistake in the folder, or such a submission)" \
        in text
