"""`pacman-ai grade` on hostile or unusual inputs, run as a user runs it: a subprocess in a fresh folder.

Every refusal is one line naming the input, exit status 2, no traceback, nothing
written; a submission at fault is graded (0 points) with the reason, exit status 0.
"""

from __future__ import annotations

import json
import re
import os
import subprocess
import sys
from pathlib import Path

import pytest

SUBMISSIONS = Path(__file__).resolve().parent / "submissions"
TREE = '{"max": [{"chance": [1, 2]}, {"chance": [3, 5]}]}\n'
ONE_TREE_TEST = """
[[questions]]
id = "q"
points = {points}
[[questions.tests]]
kind = "tree"
tree = "{tree}"
ghosts = 1
depth = 1
"""


def grade_cli(cwd: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pacman", "grade", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def refused(done: subprocess.CompletedProcess, message: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert message in done.stderr, done.stderr
    assert done.stdout == ""


def assignment(folder: Path, toml: str, files: dict[str, str] | None = None) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "t.json").write_text(TREE)
    for name, text in (files or {}).items():
        (folder / name).write_text(text)
    (folder / "assignment.toml").write_text(toml)
    return folder.name


@pytest.fixture
def work(tmp_path):
    (tmp_path / "ok.py").write_text((SUBMISSIONS / "correct.py").read_text())
    return tmp_path


# -- [assignment] is optional --------------------------------------------------------------------


def test_an_assignment_without_its_assignment_table_takes_the_documented_defaults(work):
    name = assignment(work / "course", ONE_TREE_TEST.format(points=3, tree="t.json"))
    done = grade_cli(work, name, "ok.py", "--json", "out.json")
    assert done.returncode == 0, done.stderr
    data = json.loads((work / "out.json").read_text())
    assert data["assignment"] == "course" and data["score"] == 3.0 and data["max_score"] == 3.0
    package = grade_cli(work, name, "--gradescope-package", "pkg", "--requirement", "pacman-ai")
    assert package.returncode == 0, package.stderr
    assert 'submission="$root/submission/submission.py"' in (work / "pkg" / "run_autograder").read_text()


# -- broken assignments ------------------------------------------------------------------------------


def _tree_test(tree: str = "t.json", points: str = "1") -> str:
    return ONE_TREE_TEST.format(points=points, tree=tree)


GAMES = '[[questions]]\nid="q"\npoints=1\n[[questions.tests]]\nkind="games"\nlayout="{layout}"\n{extra}' \
        'thresholds=[{{measure="wins", at_least=1}}]\n'


@pytest.mark.parametrize("toml, message", [
    ("[assignment\n", "a/assignment.toml: invalid TOML: Expected ']'"),
    ("x = " + "[" * 50_000 + "]" * 50_000 + "\n", "a/assignment.toml: invalid TOML: nested too deeply"),
    ("[assignment]\nmemory_mb = " + "9" * 5000 + "\n", "a/assignment.toml: invalid TOML: Exceeds the limit"),
    (_tree_test(points='"5"'), "a/assignment.toml: questions[0].points: expected a number, got '5'"),
    (_tree_test(points="-1"), "a/assignment.toml: questions[0].points: expected a value >= 0, got -1"),
    (_tree_test(points="nan"), "a/assignment.toml: questions[0].points: expected a number, got nan"),
    (_tree_test(points="1e300"), "a/assignment.toml: questions[0].points: expected a value <= 1e+06"),
    (_tree_test(points="true"), "a/assignment.toml: questions[0].points: expected a number, got True"),
    ('[[questions]]\nid="q"\npoints=1\n', "questions[0].tests: expected at least one [[questions.tests]] table"),
    ('[[questions]]\nid="q"\npoints=1\n[[questions.tests]]\nkind="magic"\n',
     "questions[0].tests[0].kind: expected one of tree, positions, games, got 'magic'"),
    ("[assignment]\nid='x'\n", "a/assignment.toml: questions: expected at least one [[questions]] table"),
    ("assignment = 3\n" + _tree_test(), "a/assignment.toml: assignment: expected a [assignment] table"),
    ("[assignment]\nidd='x'\n" + _tree_test(), "a/assignment.toml: assignment.idd: unknown key"),
    (_tree_test(tree="../t.json"), "questions[0].tests[0].tree: '../t.json' is outside the assignment folder"),
    (_tree_test(tree="/etc/passwd"), "questions[0].tests[0].tree: '/etc/passwd' is outside the assignment folder"),
    (_tree_test(tree="/dev/zero"), "questions[0].tests[0].tree: '/dev/zero' is outside the assignment folder"),
    (_tree_test(tree="nope.json"), "questions[0].tests[0].tree: 'nope.json' cannot read a JSON game tree"),
    (_tree_test(tree="bad.json"), "a/bad.json: $.max[0]: value NaN is not a finite number"),
    (_tree_test(tree="deep.json"), "a/deep.json: tree is too deep"),
    ("[assignment]\nstarter='../ok.py'\n" + _tree_test(), "assignment.starter: '../ok.py' is outside"),
    ("[assignment]\nsubmission_file='a b$(x).py'\n" + _tree_test(),
     "assignment.submission_file: expected a file name ending in .py"),
    ("[assignment]\nsubmission_file='sub/x.py'\n" + _tree_test(),
     "assignment.submission_file: expected a file name ending in .py"),
    (GAMES.format(layout="../x.lay", extra="games=1\n"),
     "questions[0].tests[0].layout: '../x.lay' is neither a file of"),
    (GAMES.format(layout="nowhere", extra="games=1\n"),
     "questions[0].tests[0].layout: 'nowhere' is neither a file of"),
    (GAMES.format(layout="small", extra="games=1000000000\n"),
     "questions[0].tests[0].games: expected a value <= 10000, got 1000000000"),
    (GAMES.format(layout="small", extra="games=1\ngame_time_limit=1e9\n"),
     "questions[0].tests[0].game_time_limit: expected a value <= 3600"),
    (GAMES.format(layout="small", extra="seeds=[-1]\n"), "questions[0].tests[0].seeds: expected a non-empty list"),
    ('[[questions]]\nid="q"\npoints=1\n[[questions.tests]]\nkind="positions"\nghosts=2\ndepth=8\n'
     'positions=[{layout="medium"}]\n', "expands more than 300,000 states (the limit); lower its depth or ghosts"),
])
def test_broken_assignments_are_one_line_errors(work, toml, message):
    assignment(work / "a", toml, {"bad.json": '{"max": [NaN]}',
                                  "deep.json": '{"max": [' * 5000 + "1" + "]}" * 5000})
    refused(grade_cli(work, "a", "ok.py", "--gradescope", "results.json"), message)
    assert not (work / "results.json").exists()


def test_a_tree_test_tree_may_not_be_deeper_than_the_limit(work):
    levels = 201
    deep = '{"max": [' * levels + "1" + "]}" * levels
    assignment(work / "a", _tree_test(tree="chain.json"), {"chain.json": deep})
    refused(grade_cli(work, "a", "ok.py"), "'chain.json' is 201 levels deep; a tree test's tree may be at most 200")


@pytest.mark.parametrize("special, message", [
    ("fifo-toml", "a/assignment.toml: is a FIFO (named pipe), not a regular file (expected an assignment.toml)"),
    ("dir-toml", "a/assignment.toml: is a directory, not a regular file"),
    ("fifo-tree", "questions[0].tests[0].tree: 'pipe.json': is a FIFO (named pipe), not a regular file"),
    ("fifo-starter", "assignment.starter: 'starter.py': is a FIFO (named pipe), not a regular file"),
    ("fifo-folder", "a: not a shipped assignment (expectimax, multiagent) nor a directory holding an assignment.toml"),
    ("empty-name", "the assignment is empty"),
])
def test_special_files_in_an_assignment_are_refused_without_reading(work, special, message):
    folder = work / "a"
    if special == "fifo-toml":
        folder.mkdir()
        os.mkfifo(folder / "assignment.toml")
    elif special == "dir-toml":
        (folder / "assignment.toml").mkdir(parents=True)
    elif special == "fifo-tree":
        assignment(folder, _tree_test(tree="pipe.json"))
        os.mkfifo(folder / "pipe.json")
    elif special == "fifo-starter":
        assignment(folder, "[assignment]\nstarter='starter.py'\n" + _tree_test())
        os.mkfifo(folder / "starter.py")
    elif special == "fifo-folder":
        os.mkfifo(folder)
    done = grade_cli(work, "" if special == "empty-name" else "a", "ok.py", timeout=30)
    refused(done, message)


# -- submissions ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("make, message", [
    ("fifo", "sub.py: is a FIFO (named pipe), not a regular file (expected the submission's .py file)"),
    ("dir", "sub.py: is a directory, not a regular file"),
    ("binary", "sub.py: binary file (contains NUL bytes), not Python source"),
    ("latin1", "sub.py: not UTF-8 text (byte"),
    ("huge", "sub.py: 2,097,152 bytes is too large for the submission's .py file (limit 1,048,576)"),
    ("missing", "sub.py: cannot read the submission's .py file (No such file or directory)"),
])
def test_unreadable_submissions_are_refused(work, make, message):
    path = work / "sub.py"
    if make == "fifo":
        os.mkfifo(path)
    elif make == "dir":
        path.mkdir()
    elif make == "binary":
        path.write_bytes(b"x = 1\n\x00\x01")
    elif make == "latin1":
        path.write_bytes("name = 'caf\xe9'\n".encode("latin-1"))
    elif make == "huge":
        path.write_bytes(b"#" * (2 << 20))
    done = grade_cli(work, "expectimax", "sub.py", "--gradescope", "results.json", timeout=30)
    refused(done, message)
    # Gradescope still gets a whole results file that says why.
    results = json.loads((work / "results.json").read_text())
    assert results["score"] == 0.0 and message.split(": ", 1)[1] in results["output"]


@pytest.mark.parametrize("source, reason", [
    ("", "sub.py: defines nothing that assignment 'a' grades (no ExpectimaxAgent); not graded"),
    ("import sys\nsys.exit(3)\n", "sub.py: the submission could not be imported: called exit() / raised SystemExit(3)"),
    ("exit()\n", "sub.py: the submission could not be imported: called exit()"),
    ("import os\nos._exit(0)\n", "sub.py: the submission's process ended while importing the submission"),
])
def test_a_submission_at_fault_is_one_line_with_the_reason(work, source, reason):
    (work / "sub.py").write_text(source)
    assignment(work / "a", _tree_test(points="2"))
    done = grade_cli(work, "a", "sub.py", "--json", "out.json")
    refused(done, reason)
    assert not (work / "out.json").exists()


@pytest.mark.parametrize("source, message", [
    # file:line:column (the column as this Python's compiler gives it)
    ("def f(:\n", r"sub.py:1:\d+: SyntaxError: invalid syntax in 'def f\(:' \(not graded: fix it and grade again\)"),
    ("x = 1\n  y = 2\n", r"sub.py:2:\d+: IndentationError: unexpected indent in 'y = 2' \(not graded"),
    ("def f():\n    return 1\nreturn 2\n", r"sub.py:3:\d+: SyntaxError: 'return' outside function"),
])
def test_a_submission_that_does_not_compile_is_one_message_and_exit_2(work, source, message):
    # Every test would fail with the same error: it is said once, before anything runs, and
    # Gradescope still gets a whole results file that says why.
    (work / "sub.py").write_text(source)
    assignment(work / "a", _tree_test(points="2") + _tree_test(points="3").replace('id = "q"', 'id = "q2"'))
    done = grade_cli(work, "a", "sub.py", "--json", "out.json", "--gradescope", "results.json")
    refused(done, "")
    assert re.fullmatch(f"pacman-ai: {message}.*\n", done.stderr), done.stderr
    assert not (work / "out.json").exists()
    results = json.loads((work / "results.json").read_text())
    assert results["score"] == 0.0 and results["tests"] == [] and re.search(message, results["output"])


def test_a_syntax_error_on_a_shipped_assignment_is_said_once(work):
    # The expectimax assignment has 14 tests: the error used to fill every one of them.
    starter = grade_cli(work, "expectimax", "--starter").stdout
    (work / "multi_agents.py").write_text(starter + "\ndef broken(:\n    pass\n")
    line = starter.count("\n") + 2
    done = grade_cli(work, "expectimax", "multi_agents.py")
    refused(done, f"multi_agents.py:{line}:")
    assert done.stderr.count("SyntaxError") == 1 and "def broken(:" in done.stderr


# -- outputs and flags ---------------------------------------------------------------------------------


@pytest.mark.parametrize("args, message", [
    (["--json", "folder"], "--json folder: is a folder, expected a file name"),
    (["--gradescope", "folder"], "--gradescope folder: is a folder, expected a file name"),
    (["--json", "pipe"], "--json pipe: is a FIFO (named pipe), not a regular file"),
    (["--gradescope", "/dev/null"], "--gradescope /dev/null: is a character device, not a regular file"),
    (["--json", ""], "--json: expected a file name, got an empty string"),
    (["--json", "no/such/out.json"], "--json no/such/out.json: folder"),
    (["--json", "ok.py"], "--json ok.py: is the submission itself"),
    (["--json", "r.json", "--gradescope", "r.json"], "--gradescope r.json: is also the --json file"),
    (["--gradescope", "-"], "--gradescope needs a file name"),
    (["--sandbox-user", "no-such-user-here"], "sandbox user 'no-such-user-here' does not exist"),
    (["--sandbox-user", ""], "--sandbox-user: expected a user name"),
    (["--question", "nope"], "assignment 'expectimax' has no question 'nope' (it has: trees, pacman, evaluation)"),
    (["--question", ""], "has no question ''"),
])
def test_bad_outputs_and_flags_are_refused_before_grading(work, args, message):
    (work / "folder").mkdir()
    os.mkfifo(work / "pipe")
    before = sorted(p.name for p in work.iterdir())
    done = grade_cli(work, "expectimax", "ok.py", *args, timeout=30)
    refused(done, message)
    assert sorted(p.name for p in work.iterdir()) == before
    assert (work / "ok.py").read_text() == (SUBMISSIONS / "correct.py").read_text()


@pytest.mark.skipif(not Path("/proc/version").exists(), reason="needs /proc")
def test_an_output_that_cannot_be_written_is_one_line(work):
    assignment(work / "a", _tree_test())
    done = grade_cli(work, "a", "ok.py", "--json", "/proc/version")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--json /proc/version: cannot write" in done.stderr


# -- the students' "watch it play" commands, as documented ---------------------------------------------


def _watch_commands() -> list[str]:
    import re

    root = Path(__file__).resolve().parent.parent
    docs = (root / "docs" / "grading.md").read_text()
    starter = (root / "pacman" / "grading" / "assignments" / "expectimax" / "starter.py").read_text()
    commands = re.findall(r"^\s*(pacman-ai play --pacman multi_agents\.py:ExpectimaxAgent\b.*?)\s*$",
                          docs + "\n" + starter, re.M)
    assert len(commands) == 3, commands  # two in docs/grading.md, one in the starter (multiagent's: elsewhere)
    return sorted(set(commands))


@pytest.mark.parametrize("command", _watch_commands())
def test_the_watch_commands_play_a_student_style_solution(work, command):
    """The solution stores `evaluation` with no fallback of its own, as a student's would."""
    import shlex

    (work / "multi_agents.py").write_text((SUBMISSIONS / "correct.py").read_text())
    argv = shlex.split(command)
    assert argv[:2] == ["pacman-ai", "play"]
    headless = ["--display", "none", "--json", "--seed", "3", "--max-moves", "15"]
    done = subprocess.run([sys.executable, "-m", "pacman", *argv[1:], *headless], cwd=work, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    game = json.loads(done.stdout.splitlines()[0])
    assert not game["crashed"] and game["moves"] == 15, game
    assert game["error"] == ("cut off after 15 Pacman moves, the move limit" if game["cut_off"] else None), game
    expected = "multi_agents.py:better_evaluation" if "evaluation=" in command else "dots"
    assert game["agent_args"]["evaluation"] == expected


def test_a_question_named_twice_is_graded_once(work):
    assignment(work / "a", _tree_test(points="2"))
    done = grade_cli(work, "a", "ok.py", "--question", "q", "--question", "q", "--json", "out.json")
    assert done.returncode == 0, done.stderr
    data = json.loads((work / "out.json").read_text())
    assert [q["id"] for q in data["questions"]] == ["q"] and data["score"] == data["max_score"] == 2.0
