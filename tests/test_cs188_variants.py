"""CS188 folders in other semesters' and schools' shapes, graded as their own autograders grade them.

tests/cs188_variants holds three course folders of our own (nothing from CS188):

- ``sorted_order``: a classic course whose own ``game.py`` lists the actions
  sorted by name (``_directionsAsList = sorted(_directions.items())``); its
  solutions were written by ``--write-solutions`` under that engine, so
  alpha-beta's expanded states and the ties follow that order;
- ``python3_port``: a snake_case course whose ``game.py`` is a Python 3 port
  (``_directions_as_list = _directions.items()``: North, South, East, West,
  Stop, the dictionary's order as written);
- ``other_school``: no ``order`` in its CONFIG (the subfolders, sorted),
  question folders named for what they test, an EvalAgentTest with
  ``points_per_threshold: "4"``, a PacmanGameTreeTest solution holding only
  ``optimalActions``, and a question of its own (a ``TicTacToeTest``) that
  pacman-ai cannot grade.

Each folder has a right reference file and wrong students; their scores per
question are asserted. The course's rules for a trait (its question classes,
an EvalAgentTest's points, Python 2's dictionary order and ``random``) are
checked against references written here from the course's rules, on many
generated inputs, and against a real Python 2.7 where one is installed.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from pacman.cs188 import action_order, load_classic_module, set_action_order
from pacman.cs188.quirks import (PY2_RANDOM, QuirksError, python2_dict_order, read_engine_quirks,
                                       read_engine_quirks_statically)
from pacman.cs188.grading import ClassicFormatError, load_course, parse_classic_text
from pacman.cs188.grading import grader as classic_grader
from pacman.cs188.grading.eval_agent import EvalAgentTest
from pacman.cs188.grading.questions import QUESTION_CLASSES, Verdict, question_score
from pacman.cs188.grading.runner import RUNNERS, apply_engine
from pacman.grading.report import format_report
from pacman.grading.sandbox import ItemOutcome, SandboxRun

HERE = Path(__file__).parent
VARIANTS = HERE / "cs188_variants"
CLASSIC = HERE / "cs188_classic"

#: Per folder, per student file: (question, score) as the folder's own autograder gives them, and the exit status.
EXPECTED = {
    "sorted_order": {
        "multiAgents.py": ([("q2", 5.0), ("q3", 5.0)], 0),
        # searches the classic order West, Stop, East, North, South: alpha-beta expands other states
        "students/classic_order.py": ([("q2", 5.0), ("q3", 0.0)], 0),
        "students/prunes_on_equality.py": ([("q2", 5.0), ("q3", 0.0)], 0),
    },
    "python3_port": {
        "multi_agents.py": ([("q2", 10.0), ("q3", 10.0)], 0),
        "students/classic_order.py": ([("q2", 10.0), ("q3", 0.0)], 0),
        "students/prunes_on_equality.py": ([("q2", 10.0), ("q3", 0.0)], 0),
        "students/unfinished.py": ([("q2", 0.0), ("q3", 0.0)], 0),
    },
    "other_school": {
        # reflex_games: 4 thresholds reached, 4 points each; tic_tac_toe cannot be graded: exit status 3
        "multiAgents.py": ([("minimax", 3.0), ("reflex_games", 16.0), ("tic_tac_toe", 0.0)], 3),
        "students/partial_ply.py": ([("minimax", 0.0), ("reflex_games", 16.0), ("tic_tac_toe", 0.0)], 3),
        "students/depth_off.py": ([("minimax", 0.0), ("reflex_games", 16.0), ("tic_tac_toe", 0.0)], 3),
        "students/unfinished.py": ([("minimax", 0.0), ("reflex_games", 0.0), ("tic_tac_toe", 0.0)], 3),
    },
}


def _cli(cwd: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(["pacman-ai", *args], capture_output=True, text=True, timeout=timeout, cwd=cwd, env=env)


def _copy(name: str, tmp_path: Path) -> Path:
    target = tmp_path / name
    shutil.copytree(VARIANTS / name, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


@pytest.fixture
def in_process(monkeypatch):
    """`run_items` without the sandbox's processes (the same loading, engine and runners), for fast tests."""

    def run(source, path, items, time_limits, memory_mb=1024, user=None, loader="module", forbid_imports=(), write_budget=None):
        assert loader == "classic"
        apply_engine(items)
        module = load_classic_module(path, generation=items[0]["generation"] if items else "classic")
        outcomes = []
        for item in items:
            try:
                outcomes.append(ItemOutcome(True, RUNNERS[item["kind"]](module, item)))
            except BaseException as exc:  # noqa: BLE001 - as the child reports it
                outcomes.append(ItemOutcome(False, error=str(exc) or type(exc).__name__))
        return SandboxRun(outcomes, "", 0, 0.0)

    monkeypatch.setattr(classic_grader, "run_items", run)
    yield run
    set_action_order(None)


# --- every student of every folder, from the command line ------------------------------------------------------

@pytest.mark.parametrize("folder, student", [(f, s) for f, students in EXPECTED.items() for s in students])
def test_each_student_scores_what_the_folders_own_autograder_gives(tmp_path, folder, student):
    course = _copy(folder, tmp_path)
    done = _cli(course, "grade", "test_cases", student, "--json", "-", "--quiet")
    scores, status = EXPECTED[folder][student]
    assert done.returncode == status, done.stderr
    data = json.loads(done.stdout)
    assert [(q["id"], q["score"]) for q in data["questions"]] == scores
    if status == 3:
        assert data["complete"] is False and data["not_graded"] == ["tic_tac_toe"]
        assert done.stderr == ("pacman-ai: incomplete: tic_tac_toe could not be graded (see the report); "
                               "exit status 3\n")
    else:
        assert "complete" not in data and "not_graded" not in data


def test_the_first_line_names_the_generation_and_the_engine_quirks(tmp_path):
    first = {}
    for folder, student in (("sorted_order", "multiAgents.py"), ("python3_port", "multi_agents.py"),
                            ("other_school", "multiAgents.py")):
        done = _cli(_copy(folder, tmp_path), "grade", "test_cases", student, "--quiet", "--question",
                    "q2" if folder != "other_school" else "minimax")
        assert done.returncode == 0, done.stderr
        first[folder] = done.stdout.splitlines()[0]
    assert first["sorted_order"] == (
        "Grading multiAgents.py on assignment 'test_cases' (CS188 classic (camelCase) generation by 'layoutName' "
        "in test_cases/q2/4-pacman-game.test; engine: game.py, pacman.py, Python 3: actions East, North, South, "
        "Stop, West from game.py, run (Actions._directionsAsList); rule constants classic from pacman.py, run)")
    assert first["python3_port"] == (
        "Grading multi_agents.py on assignment 'test_cases' (CS188 current (snake_case) generation by "
        "'layout_name' in test_cases/q2/4-pacman-game.test; engine: game.py, Python 3: actions North, South, East, "
        "West, Stop from game.py, run (Actions._directions_as_list))")
    documented = (HERE.parent / "docs" / "cs188.md").read_text(encoding="utf-8")
    assert f"```text\n{first['sorted_order']}\n```" in documented  # the page shows this very line
    assert first["other_school"] == (
        "Grading multiAgents.py on assignment 'test_cases' (CS188 classic (camelCase) generation by 'layoutName' "
        "in test_cases/minimax/4-pacman-game.test; engine: the classic one (no game.py or pacman.py beside the test "
        "folder); questions: the subfolders, sorted (CONFIG gives no order))")


def test_the_engine_order_is_what_makes_the_reference_pass(tmp_path, in_process):
    """Without its game.py, the sorted course's own solutions fail its own reference: counts and ties moved."""
    folder = _copy("sorted_order", tmp_path)
    with_engine = classic_grader.grade_course(load_course(folder / "test_cases"), folder / "multiAgents.py")
    assert [(q.id, q.score) for q in with_engine.questions] == [("q2", 5.0), ("q3", 5.0)]
    (folder / "game.py").unlink()
    (folder / "pacman.py").unlink()
    course = load_course(folder / "test_cases")
    assert course.engine is None
    classic = classic_grader.grade_course(course, folder / "multiAgents.py")
    assert [(q.id, q.score) for q in classic.questions] == [("q2", 5.0), ("q3", 0.0)]
    assert classic.questions[1].tests[2].messages == [
        "AlphaBetaAgent, depth 2, on twoGhostRooms: wrong number of states expanded at move 1: 98, expected 55 or 82"]
    assert action_order() == ("West", "Stop", "East", "North", "South")


def test_the_python3_port_lists_legal_actions_in_its_own_order(tmp_path, in_process):
    course = load_course(VARIANTS / "python3_port" / "test_cases")
    items = classic_grader.with_generation([{"kind": "x"}], "current", course.engine)
    assert items == [{"kind": "x", "generation": "current",
                      "action_order": ["North", "South", "East", "West", "Stop"]}]
    apply_engine(items)
    from pacman import GameState, load_layout
    from pacman.cs188 import CurrentState

    state = CurrentState(GameState.initial(load_layout("test")))
    assert state.get_legal_actions(0) == [a for a in ("North", "South", "East", "West", "Stop")
                                          if a in state.get_legal_actions(0)]
    assert state.get_legal_actions(0)[-1] == "Stop"


# --- a question that cannot be graded costs that question only ----------------------------------------------------

def test_gradescope_and_json_mark_the_question_that_was_not_graded(tmp_path):
    folder = _copy("other_school", tmp_path)
    done = _cli(folder, "grade", "test_cases", "multiAgents.py", "--quiet", "--json", "out.json",
                "--gradescope", "results.json")
    assert done.returncode == 3
    lines = done.stdout.splitlines()
    assert "Question tic_tac_toe: tic_tac_toe  0/5  (all tests must pass)" in lines
    problem = ("test_cases/tic_tac_toe/1-three-in-a-row.test:1: class: test class 'TicTacToeTest' is not one "
               "pacman-ai grades (it grades GraphGameTreeTest, PacmanGameTreeTest, EvalAgentTest)")
    assert f"  NOT GRADED: {problem}" in lines
    assert lines[-1] == ("INCOMPLETE: tic_tac_toe could not be graded (scored 0 here, not by the course's rules); "
                         "this total is not the whole grade")
    data = json.loads((folder / "out.json").read_text())
    assert data["questions"][2]["graded"] is False and data["questions"][2]["not_graded"] == problem
    results = json.loads((folder / "results.json").read_text())
    assert results["score"] == 19.0
    assert results["output"].splitlines()[1].startswith("INCOMPLETE: tic_tac_toe could not be graded")
    assert results["output"].splitlines()[2] == "Graded as: " + lines[0].split(" (", 1)[1][:-1]
    entry = results["tests"][2]
    assert (entry["name"], entry["score"], entry["max_score"], entry["status"]) == (
        "tic_tac_toe: tic_tac_toe (NOT GRADED)", 0.0, 5.0, "failed")
    assert entry["output"] == f"NOT GRADED: {problem}"


def test_the_question_flag_never_reads_the_other_questions(tmp_path):
    """As the course's -q: the other question folders are never opened (here, one that is not even readable)."""
    folder = _copy("other_school", tmp_path)
    (folder / "test_cases" / "tic_tac_toe" / "CONFIG").write_text("this is not a CONFIG file\n")
    (folder / "test_cases" / "tic_tac_toe" / "1-three-in-a-row.test").write_bytes(b"\xff\xfe not text")
    done = _cli(folder, "grade", "test_cases", "multiAgents.py", "--question", "reflex_games", "--json", "-",
                "--quiet")
    assert done.returncode == 0, done.stderr
    assert [(q["id"], q["score"]) for q in json.loads(done.stdout)["questions"]] == [("reflex_games", 16.0)]
    whole = _cli(folder, "grade", "test_cases", "multiAgents.py", "--quiet")
    assert whole.returncode == 2 and whole.stderr.startswith("pacman-ai: ")
    assert "tic_tac_toe/CONFIG:1" in whole.stderr and whole.stdout == ""


def test_an_unknown_question_folder_is_named(tmp_path):
    done = _cli(_copy("other_school", tmp_path), "grade", "test_cases", "multiAgents.py", "--question", "q1")
    assert done.returncode == 2
    assert done.stderr == ("pacman-ai: test_cases: no question 'q1' (its questions: minimax, reflex_games, "
                           "tic_tac_toe)\n")


# --- every key understood or refused by name -------------------------------------------------------------------

def _tree_course(tmp_path: Path, edit: dict[str, str]) -> Path:
    """cs188_classic's q2 and q5 (a tree question and a games question) with files replaced by `edit`."""
    root = tmp_path / "course"
    (root / "test_cases").mkdir(parents=True)
    shutil.copytree(CLASSIC / "test_cases" / "q2", root / "test_cases" / "q2")
    shutil.copytree(CLASSIC / "test_cases" / "q5", root / "test_cases" / "q5")
    shutil.copytree(CLASSIC / "layouts", root / "layouts")
    (root / "test_cases" / "CONFIG").write_text('order: "q2 q5"\n')
    for name, text in edit.items():
        path = root / "test_cases" / name
        path.write_text(text if not text.startswith("+") else path.read_text() + text[1:])
    return root / "test_cases"


UNKNOWN_KEYS = [
    ({"q5/grade-agent.test": '+basePoints: "2"\n'},
     "q5", "test_cases/q5/grade-agent.test:15: basePoints: not a key of an EvalAgentTest .test file in a "
           "PartialCreditQuestion, which pacman-ai cannot grade as the course would"),
    ({"q5/grade-agent.test": '+scoreThreshold: "900"\n'},
     "q5", "test_cases/q5/grade-agent.test:15: scoreThreshold: not a key of an EvalAgentTest"),
    ({"q2/1-minimax-small.test": '+points: "2"\n'},
     "q2", "test_cases/q2/1-minimax-small.test:"),
    ({"q2/1-minimax-small.solution": '+explanation: "left is better"\n'},
     "q2", "test_cases/q2/1-minimax-small.solution:"),
    ({"q2/4-pacman-game.test": '+numGhosts: "1"\n'},
     "q2", "test_cases/q2/4-pacman-game.test:"),
    ({"q2/CONFIG": '+weight: "2"\n'},
     "q2", "test_cases/q2/CONFIG:3: weight: not a key of a PassAllTestsQuestion CONFIG"),
    ({"q2/CONFIG": 'max_points: "5"\nclass: "BonusQuestion"\n'},
     "q2", "test_cases/q2/CONFIG:2: class: question class 'BonusQuestion' is not one pacman-ai grades"),
]


@pytest.mark.parametrize("edit, question, message", UNKNOWN_KEYS)
def test_an_unknown_key_or_class_makes_its_question_not_gradable_naming_file_line_and_key(
        tmp_path, in_process, edit, question, message):
    root = _tree_course(tmp_path, edit)
    course = load_course(root)
    problems = {q.id: q.problem for q in course.questions}
    assert problems[question].replace(str(root.parent) + "/", "").startswith(message), problems[question]
    assert all(problem is None for qid, problem in problems.items() if qid != question)
    report = classic_grader.grade_course(course, CLASSIC / "multiAgents.py")
    assert report.incomplete == [question]
    other = "q5" if question == "q2" else "q2"
    assert {q.id: q.score for q in report.questions}[other] == (3.0 if other == "q5" else 5.0)
    assert "INCOMPLETE: " + question in format_report(report)


def test_an_unknown_key_of_the_top_config_refuses_the_folder(tmp_path):
    root = _tree_course(tmp_path, {"CONFIG": 'order: "q2 q5"\nproject: "multiagent"\n'})
    with pytest.raises(ClassicFormatError) as error:
        load_course(root)
    assert str(error.value).startswith(f"{root}/CONFIG:2: project: not a key of the top CONFIG of a test folder")


def test_files_the_course_skips_by_name_are_listed_not_read(tmp_path, in_process):
    root = _tree_course(tmp_path, {"q2/#1-backup.test": "not a test file at all", "q2/.hidden.test": "{",
                                   "q2/~old.test": "nor this"})
    report = classic_grader.grade_course(load_course(root), CLASSIC / "multiAgents.py", questions=["q2"])
    assert report.questions[0].score == 5.0
    assert report.questions[0].notes == ["not read (as the course's autograder skips names starting with '.', '#' "
                                         "or '~'): #1-backup.test, .hidden.test, ~old.test"]


# --- points_per_threshold, and the EvalAgentTest's points against the course's rules ------------------------------

_EVAL = textwrap.dedent('''\
    class: "EvalAgentTest"
    agentName: "ReflexAgent"
    layoutName: "smallRooms"
    maxTime: "60"
    numGames: "3"
    randomSeed: "7"
    ghosts: "[RandomGhost(1)]"
    ''')


def _eval_test(tmp_path: Path, extra: str) -> EvalAgentTest:
    folder = tmp_path / "c" / "test_cases" / "q1"
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copytree(CLASSIC / "layouts", tmp_path / "c" / "layouts", dirs_exist_ok=True)
    path = folder / "t.test"
    path.write_text(_EVAL + extra)
    return EvalAgentTest("t", parse_classic_text(path.read_text(), str(path)), None)


def _course_points(average, wins, non_timeouts, thresholds, minimums, per):
    """An EvalAgentTest's points by the course's rules, written here: per kind, a missed minimum fails it; else
    one point per threshold reached; points_per_threshold multiplies; any failed minimum makes the test 0."""
    total, failed = 0, False
    for value, kind in ((average, "score"), (non_timeouts, "nonTimeout"), (wins, "wins")):
        minimum = minimums.get(kind)
        if minimum is not None and value < minimum:
            failed = True
            continue
        total += per * len([t for t in thresholds.get(kind, []) if value >= t])
    return 0 if failed else total


def test_the_issues_points_per_threshold_line_is_read_verbatim(tmp_path):
    test = _eval_test(tmp_path, 'scoreThresholds: "0 300"\nwinsThresholds: "1 3"\npoints_per_threshold: "4"\n')
    assert test.points_per_threshold == 4 and test.max_points == 16.0
    games = [{"score": 500, "win": True, "timeout": False}, {"score": 100, "win": False, "timeout": False},
             {"score": -200, "win": False, "timeout": False}]
    completed, points, messages, _ = test.judge([ItemOutcome(True, {"games": games})])
    assert (completed, points) == (True, 8.0)  # average 133.3: 1 of 2; 1 win: 1 of 2; 4 points each
    assert messages[0] == ("ReflexAgent on smallRooms, 3 games: average score 133.333: 1 of 2 thresholds (0 300) "
                           "reached, 4 points each")
    alias = _eval_test(tmp_path, 'winsThresholds: "1"\npointsPerThreshold: "3"\n')
    assert alias.max_points == 3.0


@pytest.mark.parametrize("extra, message", [
    ('points_per_threshold: "four"\n', "t.test:8: points_per_threshold: expected a whole number, got 'four'"),
    ('points_per_threshold: "2"\npointsPerThreshold: "2"\n',
     "t.test:9: pointsPerThreshold: given with 'points_per_threshold' too; give one of them"),
    ('points_per_threshold: "-1"\n', "t.test:8: points_per_threshold: expected at least 0, got -1"),
])
def test_a_bad_points_per_threshold_names_file_line_and_key(tmp_path, extra, message):
    with pytest.raises(ClassicFormatError) as error:
        _eval_test(tmp_path, extra)
    assert str(error.value).endswith(message)


def test_eval_agent_points_match_the_courses_rules_on_generated_tests(tmp_path):
    rng = random.Random(34)
    for _ in range(300):
        kinds = {"score": ("scoreThresholds", "scoreMinimum", lambda: rng.randrange(-600, 1600, 50)),
                 "wins": ("winsThresholds", "winsMinimum", lambda: rng.randrange(0, 6)),
                 "nonTimeout": ("nonTimeoutThresholds", "nonTimeoutMinimum", lambda: rng.randrange(0, 6))}
        thresholds, minimums, lines = {}, {}, []
        for kind, (key, minimum_key, draw) in kinds.items():
            if rng.random() < 0.7:
                thresholds[kind] = sorted(draw() for _ in range(rng.randrange(1, 4)))
                lines.append(f'{key}: "{" ".join(map(str, thresholds[kind]))}"')
            if rng.random() < 0.3:
                minimums[kind] = draw()
                lines.append(f'{minimum_key}: "{minimums[kind]}"')
        per = rng.choice([None, 0, 1, 2, 4, 10])
        if per is not None:
            lines.append(f'points_per_threshold: "{per}"')
        test = _eval_test(tmp_path, "\n".join(lines) + "\n")
        games = [{"score": rng.randrange(-600, 1600), "win": rng.random() < 0.5, "timeout": rng.random() < 0.2}
                 for _ in range(5)]
        games = [dict(g, win=g["win"] and not g["timeout"]) for g in games]
        test.num_games = 5
        average = sum(g["score"] for g in games) / 5
        wins = sum(g["win"] for g in games)
        non_timeouts = sum(not g["timeout"] for g in games)
        _, points, _, _ = test.judge([ItemOutcome(True, {"games": games})])
        expected = _course_points(average, wins, non_timeouts, thresholds, minimums, 1 if per is None else per)
        assert points == expected, (lines, games)
        assert test.max_points == (1 if per is None else per) * sum(len(t) for t in thresholds.values())


# --- the question classes against the course's rules --------------------------------------------------------------

@dataclass
class _Test:
    returns: bool
    """What the course's test function returns (an EvalAgentTest's testPartial returns True)."""
    earned: float = 0.0
    """Points it adds to the question's running total as it runs (an EvalAgentTest's testPartial)."""
    points: float | None = None
    """Its file's ``points`` (read by a HackedPartialCreditQuestion)."""
    stops: str | None = None
    """``"raised"``: an exception escapes it; ``"exit"``: the student's code exits (raiseNotDefined)."""


def _course_question(question_class: str, max_points: int, extra: int, tests: list[_Test]) -> float:
    """A question's points by the course's rules, written here as the course runs them: one running total the
    tests add to as they run, and the question class's own steps around them."""
    total = 0.0

    def run(test: _Test) -> bool:
        nonlocal total
        if test.stops == "raised":
            raise ValueError("the student's search raised")
        if test.stops == "exit":
            raise SystemExit(1)
        total += test.earned
        return test.returns

    try:
        return _course_steps(question_class, max_points, extra, tests, run, lambda: total)
    except SystemExit:  # the course's grader fails the question: 0
        return 0.0
    except Exception:  # noqa: BLE001 - caught around the whole question: the points so far stay
        return total


def _course_steps(question_class, max_points, extra, tests, run, running) -> float:
    """The question classes' own steps around `run` (a test) and `running()` (the question's running total)."""
    if question_class in ("PassAllTestsQuestion", "ExtraCreditPassAllTestsQuestion"):
        failed = [not run(t) for t in tests]
        if any(failed):
            return 0.0
        return float(max_points + (extra if question_class.startswith("Extra") else 0))
    if question_class == "PartialCreditQuestion":
        for test in tests:
            if not run(test):
                return 0.0
        return running()
    if question_class == "Q6PartialCreditQuestion":
        results = [run(t) for t in tests]
        return 0.0 if False in results else running()
    if question_class == "NumberPassedQuestion":
        passed = [run(t) for t in tests].count(True)  # the tests add their points, then the count is added
        return running() + passed
    if question_class == "HackedPartialCreditQuestion":
        points, passed = 0.0, True
        for test in tests:
            result = run(test)
            if test.points is not None:
                if result:
                    points += test.points
            else:
                passed = passed and result
        if int(points) == max_points and not passed:
            return 0.0
        return running() + int(points)
    raise AssertionError(question_class)


def test_every_question_class_scores_as_the_course_on_generated_questions():
    rng = random.Random(188)
    for _ in range(3000):
        question_class = rng.choice(QUESTION_CLASSES)
        max_points = rng.randrange(0, 8)
        extra = rng.randrange(0, 3)
        tests = []
        for _ in range(rng.randrange(0, 6)):
            if rng.random() < 0.4:  # an EvalAgentTest: it adds what it earns and returns True
                tests.append(_Test(True, float(rng.randrange(0, 5))))
            else:
                tests.append(_Test(rng.random() < 0.7))
            if question_class == "HackedPartialCreditQuestion" and rng.random() < 0.5:
                tests[-1].points = rng.choice([0.5, 1.0, 1.5, 2.0, 3.0])
            if rng.random() < 0.1:
                tests[-1] = _Test(False, 0.0, tests[-1].points, rng.choice(["raised", "exit"]))
        verdicts = [Verdict(t.returns, t.earned, t.points, t.stops) for t in tests]
        score, _ = question_score(question_class, max_points, verdicts, extra)
        assert score == _course_question(question_class, max_points, extra, tests), (question_class, tests)


def test_a_hacked_question_reads_its_tests_points_from_the_folder(tmp_path, in_process):
    root = _tree_course(tmp_path, {"q2/CONFIG": 'max_points: "2"\nclass: "HackedPartialCreditQuestion"\n',
                                   "q2/1-minimax-small.test": '+points: "1.5"\n',
                                   "q2/2-minimax-three-agents.test": '+points: "1"\n'})
    course = load_course(root, questions=["q2"])
    assert [t.test_points for t in course.questions[0].tests] == [1.5, 1.0, None, None]
    report = classic_grader.grade_course(course, CLASSIC / "multiAgents.py", questions=["q2"])
    assert report.questions[0].score == 2.0  # int(1.5 + 1), every other test passed
    wrong = classic_grader.grade_course(course, CLASSIC / "students/depth_off.py", questions=["q2"])
    assert [t.passed for t in wrong.questions[0].tests] == [True, True, False, False]
    assert wrong.questions[0].score == 0.0  # the points reach max_points while a test failed: the course's 0


def test_an_extra_credit_question_adds_its_extra_points(tmp_path, in_process):
    root = _tree_course(tmp_path, {"q2/CONFIG": 'max_points: "5"\nclass: "ExtraCreditPassAllTestsQuestion"\n'
                                                'extra_points: "2"\n'})
    report = classic_grader.grade_course(load_course(root), CLASSIC / "multiAgents.py", questions=["q2"])
    assert report.questions[0].score == 7.0


# --- the optional diagnosis blocks ------------------------------------------------------------------------------

def test_a_solution_with_only_optimal_actions_is_judged_without_the_diagnosis(tmp_path, in_process):
    course = load_course(VARIANTS / "other_school" / "test_cases", questions=["minimax"])
    tree = course.questions[0].tests[1]
    assert sorted(tree.columns) == ["optimalActions"]
    report = classic_grader.grade_course(course, VARIANTS / "other_school" / "students/partial_ply.py",
                                         questions=["minimax"])
    game = report.questions[0].tests[1]
    # the same student on the full solution is diagnosed with the partial ply bug; here, its one wrong move
    assert game.items[0]["verdict"] == "suboptimal"
    assert game.messages == ["MinimaxAgent, depth 2, on twoGhostRooms: 1 suboptimal move; move 13: returned 'East', "
                             "expected West",
                             # as in the course: its search raised on the tree before, which stops the question
                             "not counted: the question stopped at 1-minimax-small, where an exception escaped"]
    full = classic_grader.grade_course(load_course(CLASSIC / "test_cases", questions=["q2"]),
                                       VARIANTS / "other_school" / "students/partial_ply.py", questions=["q2"])
    assert full.questions[0].tests[3].items[0]["verdict"] == "partial-ply-bug"


# --- reading a course's engine ------------------------------------------------------------------------------------

_GAME = '''\
class Directions:
    NORTH = 'North'
    SOUTH = 'South'
    EAST = 'East'
    WEST = 'West'
    STOP = 'Stop'


class Actions:
    _directions = {Directions.NORTH: (0, 1), Directions.SOUTH: (0, -1), Directions.EAST: (1, 0),
                   Directions.WEST: (-1, 0), Directions.STOP: (0, 0)}
    _directionsAsList = %s

    def reverseDirection(action):
        return action
'''
_PY2_LINE = "\n\ndef warn(agent):\n    print >>sys.stderr, 'Agent %d timed out' % agent\n"


@pytest.mark.parametrize("value, python2, order", [
    ("_directions.items()", False, ("North", "South", "East", "West", "Stop")),
    ("_directions.items()", True, ("West", "Stop", "East", "North", "South")),
    ("list(_directions.items())", False, ("North", "South", "East", "West", "Stop")),
    ("sorted(_directions.items())", False, ("East", "North", "South", "Stop", "West")),
    ("sorted(_directions.items())", True, ("East", "North", "South", "Stop", "West")),
    ("[(Directions.STOP, (0, 0)), ('West', (-1, 0)),\n        (Directions.EAST, (1, 0)), (Directions.NORTH, (0, 1)),"
     "\n        (Directions.SOUTH, (0, -1))]", False, ("Stop", "West", "East", "North", "South")),
])
def test_the_order_of_actions_is_asked_of_the_courses_game_py_and_read_alike(tmp_path, value, python2, order):
    """The course's code answers where it runs (a Python 2 game.py that does not parse: read); the static
    reading of the same file agrees."""
    (tmp_path / "game.py").write_text(_GAME % value + (_PY2_LINE if python2 else ""))
    quirks = read_engine_quirks(tmp_path)
    assert quirks.action_order == order and quirks.python == ("2" if python2 else "3")
    # print >>sys.stderr parses as Python 3: a Python 2 module runs too, with Python 2's dictionaries
    assert quirks.order_evidence == "game.py, run (Actions._directionsAsList)"
    read = read_engine_quirks_statically(tmp_path)
    assert read.action_order == order and read.order_evidence.startswith("game.py:12 (_directionsAsList")
    assert read.order_evidence.endswith(", read")


@pytest.mark.parametrize("text, message", [
    (_GAME % "_directions.keys()", "game.py:12: Actions._directionsAsList = _directions.keys(): not a form"),
    (_GAME % "build_order()", "game.py:12: Actions._directionsAsList = build_order(): not a form"),
    (_GAME.replace("_directionsAsList", "directions") % "[]", "game.py: class Actions assigns neither"),
    (_GAME.replace("'North'", "'N'") % "_directions.items()",
     "game.py:2: Directions.NORTH is 'N', not 'North': pacman-ai plays the classic direction names only"),
    (_GAME % "_directions.items()\n    _directionsAsList = []", "game.py:13: Actions._directionsAsList is "
                                                              "assigned twice (first on line 12)"),
    ("x = 1\n", "game.py: has no class Actions"),
])
def test_an_engine_that_cannot_be_read_statically_is_refused_naming_file_and_line(tmp_path, text, message):
    (tmp_path / "game.py").write_text(text)
    with pytest.raises(QuirksError) as error:
        read_engine_quirks_statically(tmp_path)
    assert str(error.value).replace(f"{tmp_path}/", "").startswith(message)


@pytest.mark.parametrize("text, message", [
    (_GAME % "_directions.keys()", "game.py:12: Actions._directionsAsList = _directions.keys(): not a form pacman-ai "
     "reads statically (a dictionary literal, dict(...), OrderedDict(...), .items(), list(...), sorted(...), or a "
     "list of (direction, vector) pairs); and the course's game.py cannot be asked: Actions._directionsAsList is "
     "dict_keys(['North', 'South', 'East', 'West', 'Stop']), not a list of (direction, vector) pairs"),
    (_GAME % "build_order()", "game.py:12: Actions._directionsAsList = build_order(): not a form pacman-ai reads "
     "statically (a dictionary literal, dict(...), OrderedDict(...), .items(), list(...), sorted(...), or a list of "
     "(direction, vector) pairs); and the course's game.py cannot be asked: importing game.py raised NameError: "
     "name 'build_order' is not defined at game.py:12"),
    (_GAME.replace("'North'", "'N'") % "_directions.items()",
     "game.py:2: Directions.NORTH is 'N', not 'North': pacman-ai plays the classic direction names only"),
    ("x = 1\n", "game.py: has no class Actions: the order of actions cannot be read; and the course's game.py "
     "cannot be asked: game.py has no class Actions"),
])
def test_an_engine_that_neither_runs_nor_reads_is_refused_with_both_reasons(tmp_path, text, message):
    (tmp_path / "game.py").write_text(text)
    with pytest.raises(QuirksError) as error:
        read_engine_quirks(tmp_path)
    assert str(error.value).replace(f"{tmp_path}/", "") == message


def test_an_order_assigned_twice_is_the_last_one_as_python_runs_it(tmp_path):
    (tmp_path / "game.py").write_text(_GAME % "_directions.items()\n    _directionsAsList = sorted(_directions.items())")
    assert read_engine_quirks(tmp_path).action_order == ("East", "North", "South", "Stop", "West")


def test_rule_constants_the_engine_cannot_play_cost_the_game_questions_only(tmp_path, in_process):
    root = _tree_course(tmp_path, {})
    (root.parent / "pacman.py").write_text("SCARED_TIME = 30    # shorter than the classic 40\nTIME_PENALTY = 1\n")
    course = load_course(root)
    assert course.engine.unsupported == ("pacman.py:1 sets SCARED_TIME = 30 (pacman-ai plays 40)",)
    assert [q.problem is None for q in course.questions] == [False, False]  # q2 has a Pacman game, q5 games
    (root / "q2" / "4-pacman-game.test").unlink()
    (root / "q2" / "4-pacman-game.solution").unlink()
    course = load_course(root)
    assert course.questions[0].problem is None
    assert course.questions[1].problem.startswith("its EvalAgentTest grade-agent plays the course's engine, which "
                                                  "pacman-ai cannot play as it is: pacman.py:1 sets SCARED_TIME")
    report = classic_grader.grade_course(course, CLASSIC / "multiAgents.py")
    assert [(q.id, q.score) for q in report.questions] == [("q2", 5.0), ("q5", 0.0)] and report.incomplete == ["q5"]


def test_python2_dictionary_order_is_the_classic_order():
    assert python2_dict_order(["North", "South", "East", "West", "Stop"]) == ["West", "Stop", "East", "North",
                                                                               "South"]


def _python27() -> str | None:
    """A Python 2.7 to check against: $PYTHON27, python2.7 on the PATH, or one pyenv installed."""
    candidates = [os.environ.get("PYTHON27"), shutil.which("python2.7")]
    pyenv = Path.home() / ".pyenv" / "versions"
    if pyenv.is_dir():
        candidates.extend(str(p) for p in sorted(pyenv.glob("2.7*/bin/python2.7")))
    for candidate in filter(None, candidates):
        try:
            done = subprocess.run([candidate, "-c", "print 1"], capture_output=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            continue
        if done.returncode == 0:
            return candidate
    return None


PYTHON27 = _python27()


@pytest.mark.skipif(PYTHON27 is None, reason="no Python 2.7 here to check against")
def test_python2_dictionary_order_and_random_match_a_real_python_2():
    """Independent reference: a real Python 2.7 iterates the five directions' dictionary, written in every order,
    and draws choice, randint, randrange and shuffle from the same seeds, as we compute them."""
    import itertools

    names = ["North", "South", "East", "West", "Stop"]
    orders = list(itertools.permutations(names))
    script = ("import json, random\nout = {'orders': [], 'draws': []}\n"
              f"for order in {json.dumps([list(o) for o in orders])}:\n"
              "    d = {}\n    for k in order:\n        d[str(k)] = 1\n    out['orders'].append(d.keys())\n"
              "for seed in range(60):\n    random.seed(seed)\n    x = range(9)\n    random.shuffle(x)\n"
              "    out['draws'].append([random.choice('abcdefg'), random.randint(1, 6), random.randrange(40),"
              " random.randrange(3, 50, 4), random.randrange(10, 1, -3), x])\n"
              "print json.dumps(out)\n")
    # As a course runs it: no PYTHONHASHSEED (pytest-xdist sets one in its workers), so no hash randomisation.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONHASHSEED"}
    done = subprocess.run([PYTHON27, "-c", script], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    real = json.loads(done.stdout)
    assert [python2_dict_order(list(o)) for o in orders] == real["orders"]
    saved = random.getstate()
    try:
        for seed, expected in enumerate(real["draws"]):
            random.seed(seed)
            x = list(range(9))
            PY2_RANDOM["shuffle"](x)
            drawn = [PY2_RANDOM["choice"]("abcdefg"), PY2_RANDOM["randint"](1, 6), PY2_RANDOM["randrange"](40),
                     PY2_RANDOM["randrange"](3, 50, 4), PY2_RANDOM["randrange"](10, 1, -3), x]
            assert drawn == expected, seed
    finally:
        random.setstate(saved)


# --- Gradescope: the package carries the course's engine ------------------------------------------------------

def test_a_gradescope_package_carries_the_courses_engine_and_grades_by_it(tmp_path):
    source = _copy("sorted_order", tmp_path)
    done = _cli(tmp_path, "grade", "sorted_order/test_cases", "--gradescope-package", "pkg", "--requirement",
                "pacman-ai")
    assert done.returncode == 0, done.stderr
    package = tmp_path / "pkg"
    assert (package / "course" / "game.py").read_text() == (source / "game.py").read_text()
    assert (package / "course" / "pacman.py").read_text() == (source / "pacman.py").read_text()
    root = tmp_path / "autograder"
    shutil.copytree(package, root / "source")
    (root / "submission").mkdir()
    shutil.copy(source / "multiAgents.py", root / "submission" / "multiAgents.py")
    (root / "venv" / "bin").mkdir(parents=True)
    (root / "venv" / "bin" / "pacman-ai").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m pacman "$@"\n')
    (root / "venv" / "bin" / "pacman-ai").chmod(0o755)
    (root / "venv" / "bin" / "python").symlink_to(sys.executable)
    shutil.rmtree(source)  # graded from the package's copy only
    env = dict(os.environ, AUTOGRADER_ROOT=str(root), PACMAN_AI_SANDBOX_USER="",
               PYTHONPATH=str(HERE.parent))
    graded = subprocess.run(["bash", str(root / "source" / "run_autograder")], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)
    assert graded.returncode == 0, graded.stderr[-2000:]
    results = json.loads((root / "results" / "results.json").read_text())
    assert [(t["name"], t["score"]) for t in results["tests"]] == [("q2: MinimaxAgent", 5.0),
                                                                   ("q3: AlphaBetaAgent", 5.0)]


# --- generated folders: random shapes, trees and question classes, against a textbook search ---------------------

STUDENTS = {"reference": CLASSIC / "multiAgents.py", "expectimax_min": CLASSIC / "students/expectimax_min.py",
            "prunes_on_equality": CLASSIC / "students/prunes_on_equality.py"}


@dataclass
class _Tree:
    agents: int
    depth: int
    start: str
    children: dict[str, list[tuple[str, str]]]
    values: dict[str, int]
    win: list[str]
    lose: list[str]


def _random_tree(rng: random.Random) -> _Tree:
    agents, depth = rng.choice([2, 3]), rng.choice([1, 1, 2])
    height = agents * depth
    children: dict[str, list[tuple[str, str]]] = {}
    values: dict[str, int] = {}
    win: list[str] = []
    lose: list[str] = []
    counter = [0]

    def grow(level: int) -> str:
        name = f"s{counter[0]}"
        counter[0] += 1
        if level == height:
            values[name] = rng.randrange(-4, 5)
        elif level > 0 and rng.random() < 0.15:
            (win if rng.random() < 0.5 else lose).append(name)
            values[name] = rng.randrange(-4, 5)
        else:
            actions = rng.sample(["l", "r", "m", "x"], rng.randrange(1, 4 if level else 3) + (level == 0))
            children[name] = [(action, grow(level + 1)) for action in actions]
        return name

    start = grow(0)
    return _Tree(agents, depth, start, children, values, win, lose)


def _textbook(tree: _Tree, alg: str, bug: str | None = None) -> tuple[str, list[str]]:
    """(action, generated states) of a textbook search on `tree`, with the conventions the course grades: depth in
    whole plies, ties to the first action, alpha-beta pruning on strict inequality only (`bug` changes that, or makes
    expectimax take the minimum)."""
    generated = {tree.start}

    def value(node: str, moved: int, alpha: float, beta: float) -> float:
        agent = moved % tree.agents
        if node in tree.win or node in tree.lose or node not in tree.children or \
                (agent == 0 and moved == tree.agents * tree.depth):
            return tree.values[node]
        best = float("-inf") if agent == 0 else float("inf")
        outcomes = []
        for _, child in tree.children[node]:
            generated.add(child)
            result = value(child, moved + 1, alpha, beta)
            outcomes.append(result)
            if alg == "AlphaBetaAgent":
                if agent == 0:
                    best = max(best, result)
                    if best > beta or (bug == "prunes_on_equality" and best >= beta):
                        return best
                    alpha = max(alpha, best)
                else:
                    best = min(best, result)
                    if best < alpha or (bug == "prunes_on_equality" and best <= alpha):
                        return best
                    beta = min(beta, best)
        if alg == "AlphaBetaAgent":
            return best
        if agent == 0:
            return max(outcomes)
        if alg == "ExpectimaxAgent" and bug != "expectimax_min":
            return sum(outcomes) / len(outcomes)
        return min(outcomes)

    best, choice, alpha = float("-inf"), None, float("-inf")
    for action, child in tree.children[tree.start]:
        generated.add(child)
        result = value(child, 1, alpha, float("inf"))
        if result > best:
            best, choice = result, action
        if alg == "AlphaBetaAgent":
            alpha = max(alpha, best)
    return choice, sorted(generated)


def _tree_text(tree: _Tree, alg: str) -> str:
    successors = "\n".join(f"{node} {action} {child}" for node, moves in tree.children.items()
                           for action, child in moves)
    evaluation = "\n".join(f"{node} {value}" for node, value in tree.values.items())
    return (f'class: "GraphGameTreeTest"\nalg: "{alg}"\ndepth: "{tree.depth}"\nnum_agents: "{tree.agents}"\n'
            f'diagram: """\n(a generated tree)\n"""\nstart_state: "{tree.start}"\nwin_states: "{" ".join(tree.win)}"\n'
            f'lose_states: "{" ".join(tree.lose)}"\nsuccessors: """\n{successors}\n"""\n'
            f'evaluation: """\n{evaluation}\n"""\n')


def _random_folder(rng: random.Random, root: Path) -> dict[str, dict[str, float]]:
    """Write a random course folder under `root`; the score of each question for each student, by the course's
    rules applied to the textbook search's verdicts."""
    names = rng.sample(["q1", "q2", "q3", "test_minimax", "part-b", "zeta", "alpha_beta", "Q7"], rng.randrange(1, 5))
    order = names if rng.random() < 0.5 else None
    (root / "test_cases").mkdir(parents=True)
    (root / "test_cases" / "CONFIG").write_text(
        "# a generated folder\n" + (f'order: "{" ".join(order)}"\n' if order else ""))
    expected: dict[str, dict[str, float]] = {student: {} for student in STUDENTS}
    for name in (order or sorted(names)):
        folder = root / "test_cases" / name
        folder.mkdir()
        question_class = rng.choice(QUESTION_CLASSES)
        max_points, extra = rng.randrange(1, 6), rng.randrange(0, 3)
        config = f'max_points: "{max_points}"\nclass: "{question_class}"\n'
        if question_class == "ExtraCreditPassAllTestsQuestion":
            config += f'extra_points: "{extra}"\n'
        (folder / "CONFIG").write_text(config)
        tests: dict[str, list[_Test]] = {student: [] for student in STUDENTS}
        for number in range(rng.randrange(1, 5)):
            tree = _random_tree(rng)
            alg = rng.choice(["MinimaxAgent", "AlphaBetaAgent", "ExpectimaxAgent"])
            text = _tree_text(tree, alg)
            points = None
            if question_class == "HackedPartialCreditQuestion" and rng.random() < 0.5:
                points = rng.choice([0.5, 1.0, 2.0])
                text += f'points: "{points}"\n'
            stem = f"{number}-{alg.lower()}"
            if rng.random() < 0.1:
                (folder / f"{stem}.test").write_text(text + 'disabled: "true"\n')
                continue
            if rng.random() < 0.1:  # an editor's backup, which the course does not read
                (folder / f"#{stem}.test").write_text("not a test")
            action, generated = _textbook(tree, alg)
            (folder / f"{stem}.test").write_text(text)
            (folder / f"{stem}.solution").write_text(f'action: "{action}"\ngenerated: "{" ".join(generated)}"\n')
            for student in STUDENTS:
                bug = None if student == "reference" else student
                passed = _textbook(tree, alg, bug) == (action, generated)
                tests[student].append(_Test(passed, 0.0, points))
        for student in STUDENTS:
            expected[student][name] = _course_question(question_class, max_points, extra, tests[student])
    return expected


@pytest.mark.parametrize("seed", list(range(24)) + [1000 + k for k in range(24)])  # 1000+: held out, never tuned on
def test_generated_folders_grade_as_the_course_rules_say(tmp_path, in_process, seed):
    rng = random.Random(seed)
    expected = _random_folder(rng, tmp_path / "course")
    course = load_course(tmp_path / "course" / "test_cases")
    assert all(q.problem is None for q in course.questions)
    for student, path in STUDENTS.items():
        report = classic_grader.grade_course(course, path)
        assert {q.id: q.score for q in report.questions} == expected[student], (seed, student)
        assert [q.id for q in report.questions] == list(expected[student])


def test_a_question_depending_on_one_that_cannot_be_graded_is_not_graded_either(tmp_path, in_process):
    root = _tree_course(tmp_path, {"q2/1-minimax-small.test": '+basePoints: "1"\n',
                                   "q5/CONFIG": '+depends: "q2"\n'})
    report = classic_grader.grade_course(load_course(root), CLASSIC / "multiAgents.py")
    assert report.incomplete == ["q2", "q5"]
    assert report.questions[1].not_graded == ("it depends on q2, which could not be graded, so whether the course's "
                                              "autograder runs it is unknown")
    alone = classic_grader.grade_course(load_course(root, questions=["q5"]), CLASSIC / "multiAgents.py",
                                        questions=["q5"])
    assert [(q.id, q.score, q.not_graded is None) for q in alone.questions] == [("q2", 0.0, False), ("q5", 3.0, True)]


@pytest.mark.parametrize("value, python2, order", [
    ("dict(sorted(_directions.items())).items()", False, ("East", "North", "South", "Stop", "West")),
    ("collections.OrderedDict([(Directions.SOUTH, (0, -1)), (Directions.NORTH, (0, 1)), (Directions.WEST, (-1, 0)),"
     " (Directions.EAST, (1, 0)), (Directions.STOP, (0, 0))]).items()", True, ("South", "North", "West", "East", "Stop")),
    ("dict([(Directions.NORTH, (0, 1)), (Directions.SOUTH, (0, -1)), (Directions.EAST, (1, 0)), (Directions.WEST, "
     "(-1, 0)), (Directions.STOP, (0, 0))]).items()", True, ("West", "Stop", "East", "North", "South")),
    ("list(_directions.iteritems())", True, ("West", "Stop", "East", "North", "South")),
])
def test_other_forms_of_the_order_are_read_too(tmp_path, value, python2, order):
    (tmp_path / "game.py").write_text(_GAME % value + (_PY2_LINE if python2 else ""))
    assert read_engine_quirks(tmp_path).action_order == order


def test_the_courses_autograder_decides_its_python(tmp_path):
    """A game.py that reads as Python 3 beside a Python 2 autograder.py: the course runs under Python 2, so its
    dictionary iterates in Python 2's order."""
    (tmp_path / "game.py").write_text(_GAME % "_directions.items()")
    assert read_engine_quirks(tmp_path).action_order == ("North", "South", "East", "West", "Stop")
    (tmp_path / "autograder.py").write_text("import sys\n\nif __name__ == '__main__':\n    print 'Starting on %s'\n")
    quirks = read_engine_quirks(tmp_path)
    assert (quirks.python, quirks.python_evidence) == ("2", "autograder.py:4")
    assert quirks.action_order == ("West", "Stop", "East", "North", "South")
    assert quirks.describe() == ("engine: game.py, Python 2 (autograder.py:4): actions West, Stop, East, North, "
                                 "South (classic) from game.py, run (Actions._directionsAsList)")


def test_write_solutions_keeps_a_solution_without_the_diagnosis_blocks_in_its_shape(tmp_path):
    folder = _copy("other_school", tmp_path)
    solution = folder / "test_cases" / "minimax" / "4-pacman-game.solution"
    before = solution.read_text()
    done = _cli(folder, "grade", "test_cases", "multiAgents.py", "--write-solutions", "--question", "minimax")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["unchanged  test_cases/minimax/1-minimax-small.solution",
                                        "unchanged  test_cases/minimax/4-pacman-game.solution"]
    assert solution.read_text() == before
    solution.unlink()  # a new file gets every block
    done = _cli(folder, "grade", "test_cases", "multiAgents.py", "--write-solutions", "--question", "minimax")
    assert done.returncode == 0, done.stderr
    assert [line.split('"""')[0] for line in solution.read_text().splitlines() if line.endswith('"""')
            and not line.startswith('"""')] == ["optimalActions: ", "altDepthActions: ", "partialPlyBugActions: "]
    refused = _cli(folder, "grade", "test_cases", "multiAgents.py", "--write-solutions")
    assert refused.returncode == 2 and refused.stderr.startswith(
        "pacman-ai: tic_tac_toe: cannot write its solutions: test_cases/tic_tac_toe/1-three-in-a-row.test:1: class:")


def test_a_game_py_that_only_python_2_parses_makes_a_python_2_engine(tmp_path):
    """Tabs mixed with spaces: no Python 3 runs it, so the course's Python is 2 (its dictionary order with it)."""
    (tmp_path / "game.py").write_text((_GAME % "_directions.items()") + "\ndef f():\n\tif 1:\n        return 2\n")
    quirks = read_engine_quirks(tmp_path)
    assert (quirks.python, quirks.python_evidence) == ("2", "game.py:19")
    assert quirks.action_order == ("West", "Stop", "East", "North", "South")


@pytest.mark.parametrize("ghosts, parsed", [
    ("[DirectionalGhost(i) for i in range(1, 3)]", [["DirectionalGhost", 1], ["DirectionalGhost", 2]]),
    ("[RandomGhost(i, 0.5) for i in range(1, 2)]", [["RandomGhost", 1, 0.5]]),
    ("[RandomGhost(1), DirectionalGhost(2, 0.9)]", [["RandomGhost", 1], ["DirectionalGhost", 2, 0.9]]),
])
def test_the_ghosts_the_course_evaluates_are_read_statically(tmp_path, ghosts, parsed):
    test = _eval_test(tmp_path, "").test_file
    test.values["ghosts"] = ghosts
    from pacman.cs188.grading.eval_agent import parse_ghosts

    assert parse_ghosts(test) == parsed


@pytest.mark.parametrize("ghosts", ["[DirectionalGhost(i) for i in range(n)]", "[RandomGhost(i + 1) for i in range(2)]",
                                    "[make(i) for i in range(1, 3)]", "ghost_list()"])
def test_ghosts_that_need_running_code_are_refused_naming_the_line(tmp_path, ghosts):
    from pacman.cs188.grading.eval_agent import parse_ghosts

    test = _eval_test(tmp_path, "").test_file
    test.values["ghosts"] = ghosts
    with pytest.raises(ClassicFormatError) as error:
        parse_ghosts(test)
    assert str(error.value).split(": ", 1)[1].startswith("ghosts: expected ")
    assert ":7: " in str(error.value)


def test_agent_args_are_read_as_the_course_reads_them(tmp_path):
    from pacman.cs188.grading.eval_agent import parse_agent_args

    test = _eval_test(tmp_path, 'agentArgs: "depth=3,evalFn=better,verbose"\n')
    assert parse_agent_args(test.test_file) == {"depth": "3", "evalFn": "better", "verbose": 1}
    test.test_file.values["agentArgs"] = "depth=2=3"
    with pytest.raises(ClassicFormatError) as error:
        parse_agent_args(test.test_file)
    assert str(error.value).endswith("t.test:8: agentArgs: expected name=value pairs separated by commas, got "
                                     "'depth=2=3'")


def test_packaging_a_folder_with_a_question_it_cannot_grade_says_so(tmp_path):
    _copy("other_school", tmp_path)
    done = _cli(tmp_path, "grade", "other_school/test_cases", "--gradescope-package", "pkg", "--requirement",
                "pacman-ai")
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == (
        "pacman-ai: warning: tic_tac_toe will not be graded on Gradescope (its results will say so): "
        "other_school/test_cases/tic_tac_toe/1-three-in-a-row.test:1: class: test class 'TicTacToeTest' is not one "
        "pacman-ai grades (it grades GraphGameTreeTest, PacmanGameTreeTest, EvalAgentTest)")
    assert (tmp_path / "pkg" / "course" / "test_cases" / "tic_tac_toe" / "CONFIG").is_file()


def test_a_python_2_course_grades_the_students_random_as_python_2_draws_it(tmp_path):
    """End to end, in the sandbox's child: beside a Python 2 autograder.py, the student's random.choice is
    Python 2's; the report's first line says so."""
    folder = _copy("sorted_order", tmp_path)
    student = folder / "students" / "says_choice.py"
    student.write_text((folder / "multiAgents.py").read_text() + "\nprint('choice is', random.choice.__name__)\n")
    done = _cli(folder, "grade", "test_cases", "students/says_choice.py", "--question", "q2", "--verbose")
    assert done.returncode == 0, done.stderr
    assert "choice is choice" in done.stdout and ", Python 3: " in done.stdout.splitlines()[0]
    (folder / "autograder.py").write_text("import sys\nprint 'Starting on %s at %s' % ('a', 'b')\n")
    done = _cli(folder, "grade", "test_cases", "students/says_choice.py", "--question", "q2", "--verbose")
    assert done.returncode == 0, done.stderr
    assert "choice is _py2_choice" in done.stdout
    assert ", Python 2 (autograder.py:2): actions East, North, South, Stop, West" in done.stdout.splitlines()[0]
    assert "Question q2: MinimaxAgent  5/5" in done.stdout
