"""Autograding: assignments, the state wrappers, the checks, the sandbox, reports and the CLI.

Submissions used here live in tests/submissions/: a correct one (correct.py),
known-wrong ones (each loses the points of the question that tests its mistake)
and hostile ones (each must be contained).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pacman.agents.trees import parse_tree
from pacman import Action, GameState, PacmanError, TerminalStateError, load_layout
from pacman.cli import main
from pacman.grading import AssignmentError, format_report, grade, gradescope_results, load_assignment
from pacman.grading.checks import prepare
from pacman.grading.sandbox import ItemOutcome, SandboxError, check_sandbox_user
from pacman.grading.states import CountingState, ExpansionLog, TreeState, state_key, tree_evaluation

SUBMISSIONS = Path(__file__).resolve().parent / "submissions"
SHIPPED = load_assignment("expectimax")
TREE_DIR = SHIPPED.directory / "trees"


def submission(name: str) -> str:
    return str(SUBMISSIONS / f"{name}.py")


def scores(report) -> dict[str, float]:
    return {q.id: q.score for q in report.questions}


# -- small assignments for fast sandbox tests ---------------------------------------------
# `mini` has generous time limits (a correct submission passes on a loaded machine); `tight`
# is the same with short ones, so that hostile submissions that hang cost little time.


MINI_TOML = """
[assignment]
id = "mini"
submission_file = "multi_agents.py"

[[questions]]
id = "tree"
points = 2

[[questions.tests]]
kind = "tree"
name = "one-ghost"
tree = "one.json"
ghosts = 1
depth = 1
time_limit = {item_limit}

[[questions]]
id = "position"
points = 3

[[questions.tests]]
kind = "positions"
name = "test-layout"
ghosts = 1
depth = 2
time_limit = {item_limit}
positions = [{{ layout = "test" }}]

[[questions]]
id = "games"
points = 2

[[questions.tests]]
kind = "games"
name = "test-layout-games"
layout = "test"
seeds = [0, 1]
agent = "reference"
evaluation = "submission"
max_moves = 60
move_time_limit = {move_limit}
game_time_limit = {game_limit}
require_wins = 1
thresholds = [
    {{ measure = "wins", at_least = 1, points = 1 }},
    {{ measure = "timeouts", at_most = 0, points = 1 }},
]
"""


def _mini(folder: Path, item_limit: float, move_limit: float, game_limit: float):
    (folder / "assignment.toml").write_text(MINI_TOML.format(item_limit=item_limit, move_limit=move_limit,
                                                             game_limit=game_limit))
    (folder / "one.json").write_text((TREE_DIR / "one-ghost-depth1.json").read_text())
    return load_assignment(folder)


@pytest.fixture(scope="module")
def mini(tmp_path_factory):
    return _mini(tmp_path_factory.mktemp("mini"), item_limit=20, move_limit=5, game_limit=30)


@pytest.fixture(scope="module")
def tight(tmp_path_factory):
    return _mini(tmp_path_factory.mktemp("tight"), item_limit=1.5, move_limit=0.5, game_limit=3)


def write_assignment(folder: Path, toml: str, files: dict[str, str] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "assignment.toml").write_text(textwrap.dedent(toml))
    for name, text in (files or {}).items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


# -- assignments ---------------------------------------------------------------------------


def test_shipped_assignment_has_the_three_questions():
    assert [q.id for q in SHIPPED.questions] == ["trees", "pacman", "evaluation"]
    assert SHIPPED.max_score == 24
    assert SHIPPED.submission_file == "multi_agents.py"
    kinds = {q.id: {t.kind for t in q.tests} for q in SHIPPED.questions}
    assert kinds == {"trees": {"tree"}, "pacman": {"positions"}, "evaluation": {"games"}}
    ghosts = {t.ghosts for t in SHIPPED.question("trees").tests}
    assert 1 in ghosts and max(ghosts) >= 2


def test_unknown_assignment_names_the_shipped_ones():
    with pytest.raises(AssignmentError, match="nope: not a shipped assignment \\(expectimax, multiagent\\)"):
        load_assignment("nope")


@pytest.mark.parametrize("toml, files, message", [
    ("[assignment]\nid='x'\nbogus=1\n[[questions]]\nid='q'\npoints=1\n", {}, r"assignment\.bogus: unknown key"),
    ("[assignment]\n[[questions]]\nid='q'\npoints=1\n", {}, r"questions\[0\]\.tests: expected at least one"),
    ("[assignment]\n[[questions]]\nid='q'\npoints=1\n[[questions.tests]]\nkind='tree'\ntree='t.json'\nghosts=1\n",
     {"t.json": "5"}, r"questions\[0\]\.tests\[0\]\.depth: missing"),
    ("[assignment]\n[[questions]]\nid='q'\npoints=1\n[[questions.tests]]\nkind='maze'\n", {},
     r"questions\[0\]\.tests\[0\]\.kind: expected one of tree, positions, games, got 'maze'"),
    ("[assignment]\n[[questions]]\nid='q'\npoints=1\nscoring='most'\n[[questions.tests]]\nkind='tree'\n", {},
     r"questions\[0\]\.scoring: expected one of partial, all"),
    ("[assignment]\n[[questions]]\nid='q'\npoints=1\n[[questions.tests]]\nkind='tree'\ntree='t.json'\nghosts=1\n"
     "depth=1\n", {"t.json": '{"max": [{"max": [1, 2]}]}'}, r"t\.json: \$\.max\[0\]: level 1 is ghost 1 \(chance\)'s"),
    ("[assignment]\n[[questions]]\nid='q'\npoints=1\n[[questions.tests]]\nkind='tree'\ntree='t.json'\nghosts=1\n"
     "depth=1\n", {"t.json": '{"max": [{"chance": [1, 2], "p": [0.25, 0.75]}]}'},
     r"\$\.max\[0\]: ghosts move uniformly at random"),
    ("[assignment]\n[[questions]]\nid='q'\npoints=1\n[[questions.tests]]\nkind='tree'\ntree='t.json'\nghosts=1\n"
     "depth=1\n", {"t.json": '{"max": [{"chance": [{"max": [{"chance": [1]}]}]}]}'},
     r"\$\.max\[0\]\.chance\[0\]: the depth limit \(1 plies = 2 levels\) cuts the tree here; give this node a"),
    ("[assignment]\n[[questions]]\nid='q'\npoints=1\n[[questions.tests]]\nkind='tree'\ntree='t.json'\nghosts=1\n"
     "depth=1\n", {"t.json": '{"chance": [1]}'}, r"\$: the root must be a max node"),
    ("[assignment]\n[[questions]]\nid='q'\npoints=1\n[[questions.tests]]\nkind='tree'\ntree='missing.json'\n"
     "ghosts=1\ndepth=1\n", {}, r"questions\[0\]\.tests\[0\]\.tree: 'missing\.json' cannot read a JSON game tree \(No such file"),
    ("[assignment]\n[[questions]]\nid='q'\npoints=1\n[[questions.tests]]\nkind='positions'\nghosts=1\ndepth=1\n"
     "positions=[{layout='test', prefix='North'}]\n", {},
     r"positions\[0\]\.prefix: move 1: illegal action"),
    ("[assignment]\n[[questions]]\nid='q'\npoints=1\n[[questions.tests]]\nkind='positions'\nghosts=1\ndepth=1\n"
     "positions=[{layout='test', prefix='East'}]\n", {}, r"1 moves do not end on Pacman's turn"),
    ("[assignment]\n[[questions]]\nid='q'\npoints=1\n[[questions.tests]]\nkind='positions'\nghosts=2\ndepth=1\n"
     "positions=[{layout='test'}]\n", {}, r"layout 'test' has 1 ghosts, the test asks for 2"),
    ("[assignment]\n[[questions]]\nid='q'\npoints=1\n[[questions.tests]]\nkind='games'\nlayout='test'\ngames=2\n"
     "thresholds=[{measure='wins', at_least=1, at_most=2}]\n", {}, r"thresholds\[0\]: give exactly one of"),
    ("[assignment]\n[[questions]]\nid='q'\npoints=1\n[[questions.tests]]\nkind='games'\nlayout='nowhere'\n"
     "games=2\nthresholds=[{measure='wins', at_least=1}]\n", {}, r"tests\[0\]\.layout: 'nowhere' is neither a file of .* nor a shipped layout"),
    ("[assignment\n", {}, r"assignment\.toml: invalid TOML"),
])
def test_bad_assignments_name_the_file_and_key(tmp_path, toml, files, message):
    folder = write_assignment(tmp_path / "a", toml, files)
    with pytest.raises(AssignmentError, match=message) as info:
        load_assignment(folder)
    assert str(folder) in str(info.value)
    assert "\n" not in str(info.value)


def test_games_agent_project_and_its_former_name_reference(tmp_path, mini):
    assert [t.agent for q in SHIPPED.questions for t in q.tests if t.kind == "games"][-1] == "project"
    assert mini.questions[2].tests[0].agent == "project"  # MINI_TOML says agent = "reference"
    folder = write_assignment(tmp_path / "agent", """
        [assignment]
        [[questions]]
        id = "q"
        points = 1
        [[questions.tests]]
        kind = "games"
        layout = "test"
        games = 1
        agent = "solution"
        thresholds = [{ measure = "wins", at_least = 1, points = 1 }]
        """, {})
    with pytest.raises(AssignmentError, match=r"agent: expected one of submission, project, got 'solution'"):
        load_assignment(folder)


def test_pinned_answers_override_the_projects_search(tmp_path, mini):
    folder = write_assignment(tmp_path / "pinned", """
        [assignment]
        [[questions]]
        id = "q"
        points = 1
        [[questions.tests]]
        kind = "tree"
        tree = "t.json"
        ghosts = 1
        depth = 1
        action = ["West"]
        expansions = 4
        """, {"t.json": (TREE_DIR / "one-ghost-depth1.json").read_text()})
    check = prepare(load_assignment(folder).questions[0].tests[0])
    assert check.correct == ["West"]
    right = ItemOutcome(True, {"action": "West", "action_type": "str", "expanded": [0, 1, 2, 3], "terminal": []})
    assert check.judge([right]).passed
    wrong = ItemOutcome(True, {"action": "Stop", "action_type": "str", "expanded": [0, 1, 2, 3], "terminal": []})
    assert not check.judge([wrong]).passed


# -- the state wrappers ----------------------------------------------------------------------


def test_tree_state_offers_the_game_state_api_and_logs_expansions():
    root = parse_tree({"max": [{"action": "a", "chance": [3, {"max": [{"chance": [1]}], "value": 7}]}, 9]})
    log = ExpansionLog()
    state = TreeState(root, 1, log)
    assert state.num_agents == 2
    assert state.legal_actions(0) == ("a", "1")
    assert not state.is_terminal()
    chance = state.successor(0, "a")
    assert chance.legal_actions(1) == ("0", "1")
    leaf = chance.successor(1, "0")
    assert leaf.is_terminal() and leaf.is_win() and not leaf.is_lose() and leaf.score == 3
    assert leaf.legal_actions(0) == ()
    assert tree_evaluation(chance.successor(1, "1")) == 7.0
    with pytest.raises(TerminalStateError):
        leaf.successor(0, "x")
    assert list(log.expanded) == [0, 1, 2]  # root, the chance node, then the leaf (preorder numbers)
    assert log.terminal == [2]
    with pytest.raises(ValueError, match="it is ghost 1's turn, not agent 0's"):
        chance.successor(0, "0")
    with pytest.raises(ValueError, match="above the depth limit and has no value"):
        tree_evaluation(state)


def test_counting_state_is_the_game_state_it_wraps():
    state = GameState.initial(load_layout("test"))
    log = ExpansionLog()
    wrapped = CountingState(state, log)
    assert wrapped == state and hash(wrapped) == hash(state)
    assert wrapped.legal_actions(0) == state.legal_actions(0)
    assert wrapped.score == state.score and wrapped.num_agents == 2
    child = wrapped.successor(0, Action.EAST)
    assert child == state.successor(0, Action.EAST) and type(child) is CountingState
    wrapped.successors(0)
    assert log.expanded == {state_key(state, 0): 2} and log.calls == 2
    with pytest.raises(AttributeError):
        wrapped.score = 5


# -- checks, judged in-process -----------------------------------------------------------------


def test_tree_check_explains_missing_and_extra_expansions():
    test = next(t for t in SHIPPED.question("trees").tests if t.name == "one-ghost-depth2")
    check = prepare(test)
    assert check.correct == ["East"] and len(check.expected) == 15
    pruned = ItemOutcome(True, {"action": "East", "action_type": "str", "expanded": check.expected[:-1],
                                "terminal": []})
    verdict = check.judge([pruned])
    assert not verdict.passed and verdict.score == 0
    assert "did not expand 1 node(s)" in verdict.messages[0]
    assert check.paths[check.expected[-1]] in verdict.messages[0]
    deeper = ItemOutcome(True, {"action": "East", "action_type": "str", "expanded": check.expected + [99],
                                "terminal": [99]})
    assert "terminal state" in check.judge([deeper]).messages[0]
    crashed = ItemOutcome(False, error="ZeroDivisionError: division by zero")
    assert check.judge([crashed]).messages == ["trees/one-ghost-depth2.json (expectimax, depth 2, 1 ghost): "
                                               "ZeroDivisionError: division by zero"]


def test_games_reports_are_replayed_not_believed(mini):
    check = prepare(mini.question("games").tests[0])
    forged = ItemOutcome(True, {"outcome": "won", "actions": ["West", "North"], "error": None})
    verdict = check.judge([forged, forged])
    assert verdict.score == 0
    assert "does not replay" in verdict.messages[0] or "ends before the game does" in verdict.messages[0]


# -- grading through the sandbox -----------------------------------------------------------------


def test_correct_submission_scores_full_marks():
    report = grade(SHIPPED, submission("correct"))
    assert scores(report) == {"trees": 8, "pacman": 10, "evaluation": 6}
    assert report.score == report.max_score == 24
    assert report.seconds < 60


def test_starter_scores_zero(tmp_path):
    starter = tmp_path / "multi_agents.py"
    starter.write_text(SHIPPED.starter)
    report = grade(SHIPPED, starter)
    assert scores(report) == {"trees": 0, "pacman": 0, "evaluation": 0}
    assert "NotImplementedError: ExpectimaxAgent.get_action" in report.questions[0].tests[0].messages[0]
    assert "NotImplementedError: better_evaluation" in report.questions[2].tests[0].messages[0]


@pytest.mark.parametrize("name, expected, failing, reason", [
    ("minimax", {"trees": 5, "pacman": 8}, "one-ghost-depth1", "returned 'West' (worth 8), expected 'Stop' (worth 11)"),
    ("depth_per_agent", {"trees": 0, "pacman": 0}, "one-ghost-depth1", "depth counted in plies"),
    ("pruning", {"trees": 0, "pacman": 2}, "two-ghosts-depth1", "did not expand 3 node(s)"),
    ("no_terminal", {"trees": 5, "pacman": 6}, "terminal-leaves", "returned 'North' (worth -205)"),
    ("infinite_terminal", {"trees": 4, "pacman": 10}, "terminal-values", "returned 'West' (worth 10), expected 'East'"),
])
def test_wrong_variants_lose_the_points_of_what_they_got_wrong(name, expected, failing, reason):
    report = grade(SHIPPED, submission(name), questions=["trees", "pacman"])
    assert scores(report) == expected
    messages = {t.name: " ".join(t.messages) for t in report.questions[0].tests if not t.passed}
    assert reason in messages[failing]


def test_printing_and_writing_files_do_not_change_the_grade(tmp_path, mini):
    noisy = tmp_path / "noisy.py"
    noisy.write_text(Path(submission("correct")).read_text().replace(
        "    def get_action(self, state):\n",
        "    def get_action(self, state):\n"
        "        print('{\"score\": 999}'); open('results.json', 'w').write('{\"score\": 999}')\n", 1))
    report = grade(mini, noisy)
    assert report.score == report.max_score == 7, format_report(report)
    assert any('{"score": 999}' in text for text in report.output)


@pytest.mark.parametrize("name, message", [
    ("import_crash", "could not be imported: ModuleNotFoundError: No module named 'this_module_does_not_exist' "
                     "(at import_crash.py:3: import this_module_does_not_exist"),
    ("import_exit", "ended while importing the submission: the submission's process exited with status 0"),
])
def test_a_submission_that_fails_at_import_is_one_line_and_not_graded(tight, tmp_path, name, message, capsys):
    # Every test would fail the same way: the first import failure ends the grading.
    gradescope = tmp_path / "results.json"
    code = main(["grade", str(tight.directory), submission(name), "--json", str(tmp_path / "out.json"),
                 "--gradescope", str(gradescope)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and message in err and err.endswith("; not graded\n"), err
    assert not (tmp_path / "out.json").exists()
    results = json.loads(gradescope.read_text())
    assert results["score"] == 0 and results["tests"] == [] and message in results["output"]


@pytest.mark.parametrize("name, message", [
    ("exits", "the submission's process exited with status"),
    ("loop", "took longer than the 1.5 s time limit"),
    ("memory", "ran out of memory"),
    ("forge", "returned 'East'"),
    ("kill_grader", "the submission's process was killed (SIGKILL"),
])
def test_hostile_submissions_are_contained(tight, tmp_path, name, message):
    out, gradescope = tmp_path / "out.json", tmp_path / "results.json"
    code = main(["grade", str(tight.directory), submission(name), "--json", str(out), "--gradescope", str(gradescope)])
    assert code == 0
    data = json.loads(out.read_text())
    assert data["score"] == 0 and data["max_score"] == 7
    assert [q["score"] for q in data["questions"]] == [0, 0, 0]
    assert message in data["questions"][0]["tests"][0]["messages"][0]
    results = json.loads(gradescope.read_text())
    assert results["score"] == 0 and [t["max_score"] for t in results["tests"]] == [2, 3, 2]


def test_processes_a_submission_leaves_behind_are_ended_before_results_are_written(tight, tmp_path, monkeypatch):
    import time

    from pacman.grading import sandbox

    # Without a namespace, where the submission can write outside its folder (in its namespace it cannot write
    # escapees.txt or out.json at all: tests/test_faults_grading_namespace.py).
    monkeypatch.setattr(sandbox, "namespace_unavailable", lambda ids=None: "switched off by the test")

    escape = tmp_path / "escape.py"
    shutil.copy(submission("escape"), escape)
    out = tmp_path / "out.json"
    assert main(["grade", str(tight.directory), str(escape), "--json", str(out)]) == 0
    pids = [int(line) for line in (tmp_path / "escapees.txt").read_text().split()]
    assert pids  # the submission did leave processes in sessions of their own
    time.sleep(1.0)  # each would have rewritten out.json 20 times by now
    assert json.loads(out.read_text())["score"] == 0
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


# -- reports and the command line -------------------------------------------------------------


def test_json_and_gradescope_files(tmp_path, capsys):
    out, gradescope = tmp_path / "out.json", tmp_path / "results.json"
    code = main(["grade", "expectimax", submission("minimax"), "--question", "trees", "--json", str(out),
                 "--gradescope", str(gradescope)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "Question trees: Expectimax on explicit game trees  5/8" in printed
    assert "FAIL one-ghost-depth1 (tree)  0/1" in printed and "Total: 5/8" in printed
    data = json.loads(out.read_text())
    assert (data["score"], data["max_score"]) == (5, 8)
    question = data["questions"][0]
    assert (question["id"], question["score"], question["max_score"]) == ("trees", 5, 8)
    assert [t["passed"] for t in question["tests"]] == [False, False, False, True, True, True, True, True]
    results = json.loads(gradescope.read_text())
    assert set(results) >= {"score", "execution_time", "stdout_visibility", "tests"}
    assert results["score"] == 5 and results["stdout_visibility"] == "hidden"
    (test,) = results["tests"]
    assert set(test) >= {"name", "score", "max_score", "output", "visibility"}
    assert (test["score"], test["max_score"], test["visibility"]) == (5, 8, "visible")
    assert "FAIL one-ghost-depth1" in test["output"]


def test_starter_command_writes_a_file_for_the_student(capsys):
    assert main(["grade", "expectimax", "--starter"]) == 0
    text = capsys.readouterr().out
    compile(text, "multi_agents.py", "exec")
    assert "class ExpectimaxAgent" in text and "def better_evaluation" in text


@pytest.mark.parametrize("argv, message", [
    (["grade"], "give ASSIGNMENT"),
    (["grade", "expectimax"], "give SUBMISSION.py"),
    (["grade", "nope", "x.py"], "nope: not a shipped assignment"),
    (["grade", "expectimax", "missing.py"], "missing.py: cannot read the submission"),
    (["grade", "expectimax", "x.py", "--question", "q9"], "has no question 'q9' (it has: trees, pacman, evaluation)"),
    (["grade", "expectimax", "x.py", "--json", "/no/such/dir/out.json"], "--json /no/such/dir/out.json: folder"),
])
def test_grade_usage_errors_are_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_unreadable_submission_still_gets_a_gradescope_file(tmp_path, capsys):
    results = tmp_path / "results.json"
    assert main(["grade", "expectimax", str(tmp_path / "none.py"), "--gradescope", str(results)]) == 2
    data = json.loads(results.read_text())
    assert data["score"] == 0 and "cannot read the submission" in data["output"]


def test_grading_never_imports_pygame(mini):
    code = ("import sys; from pacman.grading import grade, load_assignment; "
            f"r = grade(load_assignment({str(mini.directory)!r}), {submission('correct')!r}, questions=['tree']); "
            "assert r.score == 2, r.score; assert 'pygame' not in sys.modules; print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "ok", done.stderr


def test_the_per_test_worker_loads_none_of_the_grader_and_the_public_names_still_import():
    """Each test runs in a fresh process that imports pacman.grading.worker: the package's names load on use."""
    code = ("import sys, pacman.grading.worker; "
            "print(sorted(m for m in ('pacman.grading.grader', 'pacman.grading.assignment', 'pacman.grading.report', "
            "'pacman.grading.gradescope', 'pygame') if m in sys.modules)); "
            "from pacman.grading import grade, load_assignment, format_report, write_gradescope_package; "
            "print(grade.__module__, load_assignment.__module__, format_report.__module__)")
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines() == ["[]", "pacman.grading.grader pacman.grading.assignment pacman.grading.report"], \
        done.stderr
    with pytest.raises(AttributeError, match="module 'pacman.grading' has no attribute 'grader_of_nothing'"):
        import pacman.grading
        pacman.grading.grader_of_nothing


def test_format_report_explains_failures_only_unless_verbose():
    report = grade(SHIPPED, submission("minimax"), questions=["trees"])
    short, long = format_report(report), format_report(report, verbose=True)
    assert "returned 'West'" in short and "as expected" not in short
    assert "as expected" in long
    assert gradescope_results(report)["tests"][0]["status"] == "failed"


# -- slow: the shipped assignment against every hostile submission ------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name, questions", [
    ("loop", []), ("exits", []), ("import_crash", []), ("import_exit", []), ("memory", []), ("forge", []),
    ("kill_grader", []), ("recursion", ["trees"]), ("memory_creep", ["trees"]),
])
def test_hostile_submissions_on_the_shipped_assignment(tmp_path, name, questions):
    out, gradescope = tmp_path / "out.json", tmp_path / "results.json"
    chosen = [q for q in SHIPPED.questions if not questions or q.id in questions]
    flags = [arg for q in questions for arg in ("--question", q)]
    assignment = "expectimax"
    if name in ("memory_creep", "recursion"):
        # A copy with a smaller memory cap: these fill it, and a 1 GB child would stay in this process's
        # RUSAGE_CHILDREN peak, which other slow tests read.
        copy = tmp_path / "expectimax"
        shutil.copytree(SHIPPED.directory, copy)
        toml = copy / "assignment.toml"
        toml.write_text(toml.read_text().replace("memory_mb = 1024", "memory_mb = 256"))
        assignment = str(copy)
    code = main(["grade", assignment, submission(name), "--json", str(out), "--gradescope", str(gradescope), *flags])
    if name.startswith("import_"):  # failing at import: one line, nothing graded, Gradescope told why
        assert code == 2 and not out.exists()
        assert json.loads(gradescope.read_text())["output"].startswith("Not graded: ")
        return
    assert code == 0
    data = json.loads(out.read_text())
    assert data["score"] == 0 and data["max_score"] == sum(q.points for q in chosen)
    # Bounded by the time limits: every item at its limit, plus a few seconds a process.
    limits = sum(sum(prepare(t).time_limits) for q in chosen for t in q.tests)
    assert data["execution_time"] < limits + 60
    assert [len(q["tests"]) for q in data["questions"]] == [len(q.tests) for q in chosen]
    results = json.loads(gradescope.read_text())
    assert results["score"] == 0 and len(results["tests"]) == len(chosen)


def test_run_autograder_grades_a_packaged_assignment(tmp_path, mini, capsys):
    package = tmp_path / "pkg"
    assert main(["grade", str(mini.directory), "--gradescope-package", str(package), "--requirement", "pacman-ai"]) == 0
    assert (package / "assignment" / "assignment.toml").is_file()
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    (root / "submission" / "multi_agents.py").write_text(Path(submission("correct")).read_text())
    shutil.copytree(package, root / "source")
    (root / "venv").symlink_to(Path(sys.executable).parent.parent)  # this Python's pacman-ai stands in for setup.sh's
    # Run the script as Gradescope would, with /autograder moved here, as this user (no --sandbox-user).
    env = dict(os.environ, AUTOGRADER_ROOT=str(root), PACMAN_AI_SANDBOX_USER="")
    done = subprocess.run(["bash", str(root / "source" / "run_autograder")], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 7 and [t["score"] for t in results["tests"]] == [2, 3, 2]


def test_sandbox_user_that_cannot_run_python_is_refused(tmp_path):
    with pytest.raises(SandboxError, match="sandbox user 'no-such-user-here' does not exist"):
        grade(SHIPPED, submission("correct"), sandbox_user="no-such-user-here")


def docs_example(folder: Path) -> Path:
    """Write the worked example of docs/grading.md (the blocks after <!-- example: PATH -->) under `folder`."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "grading.md").read_text()
    blocks = re.findall(r"<!-- example: (\S+) -->\n```\w*\n(.*?)```", text, re.S)
    assert [path for path, _ in blocks] == ["my-course/trees/ambush.json", "my-course/assignment.toml"]
    for path, body in blocks:
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(body)
    return folder / "my-course"


def test_the_worked_example_of_the_docs_grades_as_the_docs_say(tmp_path, capsys):
    course = docs_example(tmp_path)
    assert main(["tree", str(course / "trees" / "ambush.json")]) == 0
    assert capsys.readouterr().out == "value: 5\naction: East\n"
    assignment = load_assignment(course)
    assert grade(assignment, submission("correct")).score == 4
    wrong = grade(assignment, submission("minimax"), questions=["ambush"])
    assert "returned 'Stop' (worth 2.75), expected 'East' (worth 5)" in wrong.questions[0].tests[0].messages[0]


def _sandbox_user_works() -> bool:
    try:
        check_sandbox_user("nobody")
    except PacmanError:
        return False
    return True


@pytest.mark.skipif(os.geteuid() != 0 or not _sandbox_user_works(),
                    reason="needs root and a Python the user nobody can run")
def test_as_sandbox_user_the_submission_cannot_touch_the_grader(mini):
    assert grade(mini, submission("correct"), sandbox_user="nobody").score == 7
    report = grade(mini, submission("kill_grader"), sandbox_user="nobody")
    assert report.score == 0
