"""Grading classic CS188 course folders: the file format, courses, question classes, GraphGameTreeTest.

The course folder tests/classic_course/test_cases and its student files are
written here (nothing comes from the CS188 project). The expected scores are
worked out by hand from the rules of the classic format (docs/cs188.md):

- q1 (MinimaxAgent, PassAllTestsQuestion, 4 points), q2 (AlphaBetaAgent,
  PassAllTestsQuestion, 5 points), q3 (ExpectimaxAgent, PassAllTestsQuestion,
  3 points, depends on q1).
- multiAgents.py is right everywhere: 4, 5, 3.
- unfinished.py raises NotDefined in every getAction: 0, 0, and q3 skipped.
- prunes_on_equality.py fails q2's two tie trees (b2; q12, r2, r21 not
  generated): 4, 0, 3.
- depth_per_agent.py counts depth per agent: it passes q1's one-agent tree
  only, so q1 is 0, q2 is 0, and q3 (right, but depending on q1) is skipped: 0.
- expectimax_takes_min.py takes R on q3's chance tree (min 0 < min 4): 4, 5, 0.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from classic_stubs import load_with_stubs
from pacman.cs188.grading import ClassicFormatError, load_course, parse_classic_text
from pacman.cs188.grading import grader as classic_grader
from pacman.cs188.grading.detect import classic_imports, missing_classic_module
from pacman.cs188.grading.graph_tree import GraphTree, GraphTreeState
from pacman.cs188.grading.questions import Verdict, question_score
from pacman.cs188.grading.runner import RUNNERS
from pacman.grading.report import format_report, gradescope_results
from pacman.grading.sandbox import ItemOutcome, SandboxRun
from pacman.grading.worker import _describe

COURSE = Path(__file__).parent / "classic_course"
TEST_CASES = COURSE / "test_cases"

#: Per student file: (q1, q2, q3) as worked out in the module docstring.
EXPECTED = {
    "multiAgents.py": (4, 5, 3),
    "students/unfinished.py": (0, 0, 0),
    "students/prunes_on_equality.py": (4, 0, 3),
    "students/depth_per_agent.py": (0, 0, 0),
    "students/expectimax_takes_min.py": (4, 5, 0),
}
#: Students whose q3 is skipped because q1 was not completed with full marks.
Q3_SKIPPED = {"students/unfinished.py", "students/depth_per_agent.py"}

try:
    from pacman.cs188 import load_classic_module  # noqa: F401
    HAS_CLASSIC_API = True
except ImportError:
    HAS_CLASSIC_API = False
needs_classic_api = pytest.mark.skipif(not HAS_CLASSIC_API, reason="pacman.cs188 (helper J's) not there yet")


# --- the file format ---------------------------------------------------------------------------------------

def test_format_reads_values_blocks_and_comments():
    text = '# comment\n\nalg: "MinimaxAgent"\n  depth: "2"\nlines: """\n a b\nc d\n"""\nempty: ""\n'
    parsed = parse_classic_text(text, "t.test")
    assert parsed.values == {"alg": "MinimaxAgent", "depth": "2", "lines": " a b\nc d", "empty": ""}
    assert parsed.lines == {"alg": 3, "depth": 4, "lines": 6, "empty": 9}


@pytest.mark.parametrize("text, message", [
    ('alg: "A"\nnonsense here\n', 't.test:2: expected key: "value"'),
    ('alg: "A"\nblock: """\nx\n', "t.test:2: the block of 'block' is never closed"),
    ('alg: "A"\nalg: "B"\n', "t.test:2: key 'alg' given twice (first on line 1)"),
    ('alg: A\n', "t.test:1: expected"),
])
def test_format_errors_name_file_and_line(text, message):
    with pytest.raises(ClassicFormatError) as error:
        parse_classic_text(text, "t.test")
    assert str(error.value).startswith(message)


# --- the course folder -------------------------------------------------------------------------------------

def test_course_folder_reads_order_questions_and_tests_in_file_order():
    course = load_course(TEST_CASES)
    assert [q.id for q in course.questions] == ["q1", "q2", "q3"]
    assert [(q.max_points, q.question_class, q.depends) for q in course.questions] == [
        (4, "PassAllTestsQuestion", ()), (5, "PassAllTestsQuestion", ()), (3, "PassAllTestsQuestion", ("q1",))]
    assert [t.name for t in course.questions[0].tests] == [
        "1-one-agent", "2-two-agents", "3-three-agents-depth-2", "4-early-win-and-loss"]
    assert course.questions[0].disabled == ["5-disabled"]
    assert [q.id for q in course.with_prerequisites(["q3"])] == ["q1", "q3"]


def _course(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "test_cases"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


GOOD_TEST = ('class: "GraphGameTreeTest"\nalg: "MinimaxAgent"\ndepth: "1"\nnum_agents: "1"\nstart_state: "a"\n'
             'win_states: ""\nlose_states: ""\nsuccessors: """\na Left b\n"""\nevaluation: """\nb 1\n"""\n')


@pytest.mark.parametrize("files, message", [
    ({"CONFIG": 'order: "q1 q9"\n', "q1/CONFIG": 'max_points: "1"\nclass: "PassAllTestsQuestion"\n'},
     "test_cases/CONFIG:1: order: 'q9' is not a question folder"),
    ({"CONFIG": 'order: "q1"\n', "q1/CONFIG": 'max_points: "x"\nclass: "PassAllTestsQuestion"\n'},
     "q1/CONFIG:1: max_points: expected a whole number, got 'x'"),
    ({"CONFIG": 'order: "q1"\n', "q1/CONFIG": 'max_points: "1"\nclass: "PassAllTestsQuestion"\ndepends: "q2"\n'},
     "q1/CONFIG: depends: 'q2' is not a question of the course"),
    ({"CONFIG": 'order: "q1"\n', "q1/CONFIG": 'max_points: "1"\nclass: "PassAllTestsQuestion"\n',
      "q1/a.test": GOOD_TEST}, "q1/a.test: its solution file a.solution is missing"),
    ({"CONFIG": 'order: "q1"\n', "q1/CONFIG": 'max_points: "1"\nclass: "PassAllTestsQuestion"\n',
      "q1/a.test": GOOD_TEST.replace("a Left b", "a Left"), "q1/a.solution": 'action: "Left"\ngenerated: "a b"\n'},
     "q1/a.test:9: successors: expected 'state action next', got 'a Left'"),
    ({"CONFIG": 'order: "q1"\n', "q1/CONFIG": 'max_points: "1"\nclass: "PassAllTestsQuestion"\n',
      "q1/a.test": GOOD_TEST.replace("b 1", "b one"), "q1/a.solution": 'action: "Left"\ngenerated: "a b"\n'},
     "q1/a.test:12: evaluation: expected 'state value'"),
    ({"CONFIG": 'order: "q1"\n', "q1/CONFIG": 'max_points: "1"\nclass: "PassAllTestsQuestion"\n',
      "q1/a.test": 'class: "EvalAgentTest"\n', "q1/a.solution": ""}, "q1/a.test: missing key 'agentName'"),
])
def test_bad_course_folders_name_file_and_line(tmp_path, files, message):
    root = _course(tmp_path, files)
    with pytest.raises(ClassicFormatError) as error:
        load_course(root)
    assert message in str(error.value)


def test_a_bad_course_folder_is_one_line_and_exit_2_on_the_command_line(tmp_path):
    root = _course(tmp_path, {"CONFIG": 'order: "q1"\n', "q1/CONFIG": 'max_points: "1"\nclass: "PassAllTestsQuestion"\n'
                                                            'depends: "q0"\n'})
    (tmp_path / "multiAgents.py").write_text("x = 1\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pacman", "grade", str(root), str(tmp_path / "multiAgents.py")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "q1/CONFIG: depends: 'q0'" in done.stderr and "Traceback" not in done.stderr


# --- question classes --------------------------------------------------------------------------------------

def test_pass_all_tests_question_is_all_or_nothing():
    assert question_score("PassAllTestsQuestion", 4, [Verdict(True), Verdict(True)]) == (4.0, 2)
    assert question_score("PassAllTestsQuestion", 4, [Verdict(True), Verdict(False), Verdict(True)]) == (0.0, 3)
    assert question_score("PassAllTestsQuestion", 4, []) == (4.0, 0)


def test_partial_credit_question_adds_points_and_stops_at_an_outright_failure():
    assert question_score("PartialCreditQuestion", 6, [Verdict(True, 1), Verdict(True, 2.5)]) == (3.5, 2)
    assert question_score("PartialCreditQuestion", 6, [Verdict(True, 3), Verdict(False), Verdict(True, 3)]) == (0.0, 2)
    assert question_score("PartialCreditQuestion", 6, [Verdict(True), Verdict(True)]) == (0.0, 2)


# --- the graph state ---------------------------------------------------------------------------------------

def test_graph_state_offers_the_classic_methods_a_search_uses():
    tree = GraphTree({"num_agents": 2, "start": "s", "successors": [["s", "B", "x"], ["s", "A", "y"], ["y", "k", "z"]],
                      "evaluation": {"x": 3.0}, "win": ["x"], "lose": ["z"]})
    start = GraphTreeState("s", tree)
    assert [start.getLegalActions(i) for i in (0, 1, 5)] == [["B", "A"]] * 3  # file order, every agent
    assert start.getLegalActions() == ["B", "A"] and start.getNumAgents() == 2
    x = start.generateSuccessor(1, "B")
    assert (x.name, x.getScore(), x.isWin(), x.isLose()) == ("x", 3.0, True, False)
    assert x.getLegalActions(0) == []
    with pytest.raises(ValueError, match="getScore\\(\\) called on state 's', which has no evaluation value"):
        start.getScore()
    with pytest.raises(ValueError, match="state 's' has no successor by action 'C'"):
        start.generateSuccessor(0, "C")
    y = start.generateSuccessor(0, "A")
    y.generateSuccessor(0, "k")
    assert sorted(tree.generated) == ["s", "x", "y", "z"]  # the start state plus every state returned
    assert start.generateSuccessor(0, "A") == y and hash(y) == hash(GraphTreeState("y", tree))


# --- grading the course, in process (the sandbox replaced by a direct call) -------------------------------

def _in_process(source, path, items, time_limits, memory_mb=1024, user=None, loader="module", forbid_imports=(),
                write_budget=None):
    assert loader == "classic"
    module = load_with_stubs(source, path)
    outcomes = []
    for item in items:
        try:
            outcomes.append(ItemOutcome(True, RUNNERS[item["kind"]](module, item)))
        except BaseException as exc:
            outcomes.append(ItemOutcome(False, error=_describe(exc, path)))
    return SandboxRun(outcomes, "", 0, 0.0)


@pytest.mark.parametrize("student", sorted(EXPECTED))
def test_each_student_file_scores_what_the_rules_give(monkeypatch, student):
    monkeypatch.setattr(classic_grader, "run_items", _in_process)
    report = classic_grader.grade_course(load_course(TEST_CASES), COURSE / student)
    assert [q.id for q in report.questions] == ["q1", "q2", "q3"]
    assert tuple(q.score for q in report.questions) == EXPECTED[student]
    assert report.max_score == 12.0
    q3 = report.questions[2]
    if student in Q3_SKIPPED:
        assert q3.tests == [] and q3.notes == ["skipped: it depends on q1, which was not completed with full marks"]
    else:
        assert len(q3.tests) == 2
    assert report.questions[0].notes[-1] == "disabled tests, not run: 5-disabled"


def test_unfinished_methods_fail_with_not_implemented_and_the_method_name(monkeypatch):
    monkeypatch.setattr(classic_grader, "run_items", _in_process)
    report = classic_grader.grade_course(load_course(TEST_CASES), COURSE / "students/unfinished.py")
    messages = [m for q in report.questions for t in q.tests for m in t.messages if not m.startswith("not counted")]
    assert messages and all(m.endswith(": not implemented: getAction") for m in messages)
    assert messages[0] == "MinimaxAgent, depth 1, 1 agent: not implemented: getAction"
    # as in the course, raiseNotDefined() exits: the question stops at its first test, and scores 0
    assert report.questions[0].tests[1].messages[-1] == ("not counted: the question stopped at 1-one-agent, where the "
                                                         "submission exited")


def test_failures_explain_what_differs(monkeypatch):
    monkeypatch.setattr(classic_grader, "run_items", _in_process)
    report = classic_grader.grade_course(load_course(TEST_CASES), COURSE / "students/prunes_on_equality.py",
                                         questions=["q2"])
    assert [q.id for q in report.questions] == ["q2"]
    failed = {t.name: t.messages for t in report.questions[0].tests if not t.passed}
    assert failed == {"2-tie-at-min": ["AlphaBetaAgent, depth 1, 2 agents: did not generate: b2"],
                      "4-tie-at-max": ["AlphaBetaAgent, depth 2, 2 agents: did not generate: q12 r2 r21"]}
    text = format_report(report)
    assert "Question q2: AlphaBetaAgent  0/5  (all tests must pass)" in text
    assert "FAIL 2-tie-at-min (GraphGameTreeTest)" in text
    results = gradescope_results(report)
    assert (results["score"], results["tests"][0]["max_score"], results["tests"][0]["status"]) == (0.0, 5.0, "failed")


def test_question_flag_grades_prerequisites_first_but_as_the_course_they_gate_nothing(monkeypatch):
    """The course's -q q3 runs q3's prerequisites first without making them gate q3 (it adds prerequisites only
    when the whole course is graded): depth_per_agent fails q1 but its expectimax (q3) is right."""
    monkeypatch.setattr(classic_grader, "run_items", _in_process)
    whole = classic_grader.grade_course(load_course(TEST_CASES), COURSE / "students/depth_per_agent.py")
    assert [(q.id, q.score) for q in whole.questions] == [("q1", 0.0), ("q2", 0.0), ("q3", 0.0)]
    data = whole.to_dict()
    assert data["questions"][2]["notes"] == ["skipped: it depends on q1, which was not completed with full marks"]
    assert gradescope_results(whole)["tests"][2]["output"].startswith("skipped: it depends on q1")
    asked = classic_grader.grade_course(load_course(TEST_CASES, questions=["q3"]),
                                        COURSE / "students/depth_per_agent.py", questions=["q3"])
    assert [(q.id, q.score) for q in asked.questions] == [("q1", 0.0), ("q3", 3.0)]
    assert asked.questions[1].notes == []


def test_a_partial_credit_question_stops_at_the_first_outright_failure(monkeypatch, tmp_path):
    root = tmp_path / "test_cases"
    shutil.copytree(TEST_CASES, root)
    (root / "q2" / "CONFIG").write_text('max_points: "5"\nclass: "PartialCreditQuestion"\n', encoding="utf-8")
    monkeypatch.setattr(classic_grader, "run_items", _in_process)
    report = classic_grader.grade_course(load_course(root), COURSE / "students/prunes_on_equality.py",
                                         questions=["q2"])
    tests = report.questions[0].tests
    assert report.questions[0].score == 0.0 and [t.passed for t in tests] == [True, False, True, False]
    assert tests[2].messages == ["not counted: the question stopped at 2-tie-at-min, which failed"]


# --- writing solution files from a reference --------------------------------------------------------------

def test_solutions_written_from_the_reference_are_the_hand_worked_ones(monkeypatch, tmp_path):
    from pacman.cs188.grading import read_classic_file
    from pacman.cs188.grading import solutions

    root = tmp_path / "test_cases"
    shutil.copytree(TEST_CASES, root)
    for path in root.rglob("*.solution"):
        path.unlink()
    monkeypatch.setattr(solutions, "run_items", _in_process)
    written = solutions.write_solutions(load_course(root, solutions=False), COURSE / "multiAgents.py")
    assert len(written) == 10 and not (root / "q1" / "5-disabled.solution").exists()
    for path in written:
        original = TEST_CASES / path.relative_to(root)
        assert read_classic_file(path).values == read_classic_file(original).values, path.name
    monkeypatch.setattr(classic_grader, "run_items", _in_process)
    report = classic_grader.grade_course(load_course(root), COURSE / "multiAgents.py")
    assert report.score == 12.0


def test_a_failing_reference_writes_no_solution(monkeypatch, tmp_path):
    from pacman.grading import SubmissionError
    from pacman.cs188.grading import solutions

    root = tmp_path / "test_cases"
    shutil.copytree(TEST_CASES, root)
    for path in root.rglob("*.solution"):
        path.unlink()
    monkeypatch.setattr(solutions, "run_items", _in_process)
    with pytest.raises(SubmissionError, match="fails on q1/1-one-agent, so its solution cannot be written: "
                                              "not implemented: getAction"):
        solutions.write_solutions(load_course(root, solutions=False), COURSE / "students/unfinished.py")
    assert list(root.rglob("*.solution")) == []


def test_write_solutions_is_for_classic_folders_only(tmp_path):
    done = subprocess.run([sys.executable, "-m", "pacman", "grade", "expectimax", "x.py", "--write-solutions"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 2 and "--write-solutions is for classic test folders" in done.stderr


# --- students' experience: a classic file on our own assignment -------------------------------------------

def test_classic_imports_are_recognised():
    assert classic_imports("from util import manhattanDistance\nfrom game import Directions\nimport random, util\n") \
        == ["util", "game"]
    assert classic_imports("import ghostAgents\n") == ["ghostAgents"]
    assert classic_imports("import utility\nfrom .util import x\n") == []
    assert missing_classic_module("ModuleNotFoundError: No module named 'game'") == "game"
    assert missing_classic_module("ModuleNotFoundError: No module named 'numpy'") is None


def test_a_classic_file_on_our_assignment_gets_one_message_with_the_command_to_run(tmp_path):
    shutil.copy(COURSE / "multiAgents.py", tmp_path / "multiAgents.py")
    done = subprocess.run([sys.executable, "-m", "pacman", "grade", "expectimax", "multiAgents.py"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "multiAgents.py: looks like a CS188 course file (it imports util, game)" in done.stderr
    assert "pacman-ai grade path/to/test_cases multiAgents.py" in done.stderr


def test_a_hidden_classic_import_failing_in_the_sandbox_gets_the_same_one_message(tmp_path):
    from pacman.grading import SubmissionError, grade, load_assignment

    path = tmp_path / "multi_agents.py"
    path.write_text("import importlib\nimportlib.import_module('ut' + 'il')\n", encoding="utf-8")
    with pytest.raises(SubmissionError, match="looks like a CS188 course file \\(it imports util\\)"):
        grade(load_assignment("expectimax"), path, questions=["trees"])


# --- the sandbox and the command line (needs the classic API of pacman.cs188) ----------------------

def _grade_cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    return subprocess.run([sys.executable, "-m", "pacman", "grade", *args], capture_output=True, text=True,
                          timeout=600, cwd=cwd, env=env)


@needs_classic_api
def test_every_student_file_scores_what_the_rules_give_in_the_sandbox(tmp_path):
    shutil.copytree(COURSE, tmp_path / "course")
    for student, scores in sorted(EXPECTED.items()):
        done = _grade_cli(tmp_path / "course", "test_cases", student, "--json", "-")
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout)
        assert [(q["id"], q["score"], q["max_score"]) for q in data["questions"]] == [
            ("q1", scores[0], 4.0), ("q2", scores[1], 5.0), ("q3", scores[2], 3.0)], student
        if student == "students/unfinished.py":
            assert data["questions"][0]["tests"][0]["messages"] == [
                "MinimaxAgent, depth 1, 1 agent: not implemented: getAction"]


@needs_classic_api
def test_a_file_that_cannot_be_imported_is_one_line_naming_the_students_error(tmp_path):
    shutil.copytree(TEST_CASES, tmp_path / "test_cases")
    (tmp_path / "multiAgents.py").write_text("import util\nimport searchAgents\n", encoding="utf-8")
    done = _grade_cli(tmp_path, "test_cases", "multiAgents.py", "--gradescope", "results.json")
    line = ("multiAgents.py: the submission could not be imported: "
            "ModuleNotFoundError: No module named 'searchAgents' (at multiAgents.py:2: import searchAgents); "
            "not graded")
    assert done.returncode == 2 and done.stderr == f"pacman-ai: {line}\n"
    results = json.loads((tmp_path / "results.json").read_text())
    assert (results["score"], results["output"], results["tests"]) == (0.0, f"Not graded: {line}", [])


@needs_classic_api
def test_gradescope_and_question_flags_on_a_classic_folder(tmp_path):
    shutil.copytree(COURSE, tmp_path / "course")
    done = _grade_cli(tmp_path / "course", "test_cases", "students/prunes_on_equality.py", "--question", "q2",
                      "--gradescope", str(tmp_path / "results.json"), "--verbose")
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    assert [(t["name"], t["score"], t["max_score"]) for t in results["tests"]] == [("q2: AlphaBetaAgent", 0.0, 5.0)]
    assert "Total: 0/5" in done.stdout and "did not generate: b2" in done.stdout


# --- docs/cs188.md ------------------------------------------------------------------------------------------

DOC = Path(__file__).parent.parent / "docs" / "cs188.md"


def _doc_block(marker: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    after = text.split(f"<!-- classic-example: {marker} -->", 1)[1]
    return after.split("```", 2)[1].split("\n", 1)[1]


def test_the_docs_error_example_is_what_a_broken_line_gives(tmp_path):
    root = tmp_path / "test_cases"
    shutil.copytree(TEST_CASES, root)
    path = root / "q1" / "2-two-agents.test"
    path.write_text(path.read_text(encoding="utf-8").replace("b x d\n", "b x\n"), encoding="utf-8")
    with pytest.raises(ClassicFormatError) as error:
        load_course(root)
    section = DOC.read_text(encoding="utf-8").split("## Grading a classic test folder", 1)[1]
    documented = section.split("pacman-ai: test_cases/", 1)[1].split("\n", 1)[0]
    assert str(error.value).endswith(documented)


@needs_classic_api
def test_the_worked_example_of_the_docs_runs_as_documented(tmp_path):
    shutil.copytree(COURSE, tmp_path / "tests" / "classic_course")
    command = _doc_block("command")
    assert "pacman-ai grade test_cases students/prunes_on_equality.py" in command
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
               SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    done = subprocess.run(["bash", "-ec", command], capture_output=True, text=True, timeout=600, cwd=tmp_path,
                          env=env)
    assert done.returncode == 0, done.stderr
    actual = done.stdout.splitlines()
    position = 0
    for line in _doc_block("output").splitlines():  # the documented lines, in order (passing tests left out)
        if not line.strip():
            continue
        while position < len(actual) and not actual[position].startswith(line):
            position += 1
        assert position < len(actual), f"documented line not in the output, in order: {line!r}\n{done.stdout}"
        position += 1

