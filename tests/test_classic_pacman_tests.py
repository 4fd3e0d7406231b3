"""Classic PacmanGameTreeTest and EvalAgentTest: reading, the game's seeding, verdicts, and grading in the sandbox.

The course folder tests/classic_course2 is written here (nothing comes from the
CS188 project): q1 (PassAllTestsQuestion, 3 points) holds one PacmanGameTreeTest
(MinimaxAgent, depth 2, two directional ghosts), whose solution
tests/classic_course2/tree_solutions.py writes from searches of our own; q2
(PartialCreditQuestion, 4 points) holds one EvalAgentTest (ExpectimaxAgent with
the better evaluation, 3 games on layouts/twoRooms.lay against a random ghost,
thresholds: score 0 and 400, wins 2, non-timeouts 3).

- multiAgents.py is right: its counts and actions are those of the solution's
  first column at every move (3), and its games are three wins averaging
  876.667 (2 + 1 + 1 = 4).
- students/unfinished.py raises NotDefined: 0 and 0.
- students/wrong.py grows the depth at every agent's move: at depth 2 with
  three agents it searches one ply, so it explores 22 states at move 1 where
  the solution has 118 or 75 (0); its "better" evaluation is the plain score:
  three losses averaging -338, every game played out (0 + 0 + 1 = 1).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pacman.cs188.grading import ClassicFormatError, load_course, parse_classic_text
from pacman.cs188.grading.eval_agent import EvalAgentTest
from pacman.cs188.grading.pacman_tree import PacmanGameTreeTest, play_pacman_tree
from pacman.grading.sandbox import ItemOutcome

COURSE = Path(__file__).parent / "classic_course2"
TEST_CASES = COURSE / "test_cases"
sys.path.insert(0, str(COURSE))
from tree_solutions import solution_text  # noqa: E402

#: Per student file: (q1, q2).
EXPECTED = {"multiAgents.py": (3.0, 4.0), "students/unfinished.py": (0.0, 0.0), "students/wrong.py": (0.0, 1.0)}


def _grade_cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(["pacman-ai", "grade", *args], capture_output=True, text=True, timeout=600, cwd=cwd,
                          env=env)


def test_every_student_file_scores_what_the_rules_give(tmp_path):
    shutil.copytree(COURSE, tmp_path / "course")
    for student, (q1, q2) in EXPECTED.items():
        done = _grade_cli(tmp_path / "course", "test_cases", student, "--json", "-")
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout)
        assert [(q["id"], q["score"], q["max_score"]) for q in data["questions"]] == [
            ("q1", q1, 3.0), ("q2", q2, 4.0)], student
        tree, games = data["questions"][0]["tests"][0], data["questions"][1]["tests"][0]
        if student == "students/unfinished.py":
            assert tree["messages"] == ["MinimaxAgent, depth 2, on corridors: not implemented: getAction"]
            assert games["messages"] == ["ExpectimaxAgent on twoRooms, 3 games: not implemented: getAction"]
        if student == "students/wrong.py":
            assert tree["messages"] == [  # a wrong count takes precedence over what the actions are
                "MinimaxAgent, depth 2, on corridors: wrong number of states expanded at move 1: 22, "
                "expected 75 or 118"]
            assert games["messages"][0] == (
                "ExpectimaxAgent on twoRooms, 3 games: average score -338: 0 of 2 thresholds (0 400) reached")
        if student == "multiAgents.py":
            assert games["messages"][:2] == [
                "ExpectimaxAgent on twoRooms, 3 games: average score 876.667: 2 of 2 thresholds (0 400) reached",
                "ExpectimaxAgent on twoRooms, 3 games: 3 wins: 1 of 1 thresholds (2) reached"]


def test_the_committed_solution_is_what_our_own_searches_give():
    test = TEST_CASES / "q1" / "1-corridors.test"
    assert solution_text(str(test)) == test.with_suffix(".solution").read_text(encoding="utf-8")


def test_write_solutions_from_the_reference_file_gives_the_same_solution(tmp_path):
    """The reference's ties, counts and other depths, found through its getAction only, are our own searches'."""
    shutil.copytree(COURSE, tmp_path / "course")
    solution = tmp_path / "course" / "test_cases" / "q1" / "1-corridors.solution"
    solution.unlink()
    done = _grade_cli(tmp_path / "course", "test_cases", "multiAgents.py", "--write-solutions")
    assert done.returncode == 0, done.stderr
    written = solution.read_text(encoding="utf-8").split("\n", 1)
    committed = (TEST_CASES / "q1" / "1-corridors.solution").read_text(encoding="utf-8").split("\n", 1)
    assert written[0] == "# Written by pacman-ai grade --write-solutions from multiAgents.py."
    assert written[1] == committed[1]
    done = _grade_cli(tmp_path / "course", "test_cases", "students/wrong.py", "--json", "-")
    assert [q["score"] for q in json.loads(done.stdout)["questions"]] == [0.0, 1.0]


# --- the Pacman game tree test ----------------------------------------------------------------------------

def _tree_test(solution_lines: dict[str, list[str]] | None = None) -> PacmanGameTreeTest:
    test = parse_classic_text((TEST_CASES / "q1" / "1-corridors.test").read_text(encoding="utf-8"), "t.test")
    solution = parse_classic_text((TEST_CASES / "q1" / "1-corridors.solution").read_text(encoding="utf-8"),
                                  "t.solution")
    for key, lines in (solution_lines or {}).items():
        solution.values[key] = "\n".join(lines)
    return PacmanGameTreeTest("t", test, solution)


def test_the_game_reseeds_random_with_seed_plus_k_after_the_kth_pacman_move():
    draws = []

    def ask(view, step):
        draws.append(random.random())
        return ["East", "West"][step % 2], None  # back and forth, never reaching the food, until the ghost comes

    item = {"seed": 40, "layout_name": "x", "layout": "%%%%%%%%%%\n%P  .   G%\n%%%%%%%%%%"}
    records, over = play_pacman_tree(item, ask)
    assert over and len(draws) >= 4
    assert draws[0] == random.Random(40).random()  # seeded at the start: the first draw of seed 40
    for k, draw in enumerate(draws[1:], start=1):  # the one ghost drew once after seed + k
        generator = random.Random(40 + k)
        generator.random()
        assert draw == generator.random()


def test_a_student_without_stop_passes_on_the_second_column():
    test = _tree_test()
    optimal = test.columns["optimalActions"]
    steps = [[column[1][0][-1], "str", column[1][1]] for column in optimal]
    passed, points, messages, _ = test.judge([ItemOutcome(True, {"steps": steps, "over": True})])
    assert (passed, points, messages) == (True, 0.0, [])  # passing adds no points, as in the classic test


def test_mixing_columns_or_a_wrong_action_fails_with_the_move():
    test = _tree_test()
    optimal = test.columns["optimalActions"]
    # Move 3 has ties Stop/East/South (with Stop) and East/South (without): Stop there, then "without Stop" counts.
    steps = [[column[0][0][0], "str", column[0][1]] for column in optimal]
    steps[2][0] = "North"
    passed, points, messages, _ = test.judge([ItemOutcome(True, {"steps": steps, "over": True})])
    assert (passed, points) == (False, 0.0)
    assert messages == ["MinimaxAgent, depth 2, on corridors: 1 suboptimal move; move 3: returned 'North', "
                        "expected East or South or Stop"]


def test_partial_ply_bug_actions_explain_a_failure_first():
    bug = [json.dumps([["North"]])] * 31
    test = _tree_test({"partialPlyBugActions": bug, "altDepthActions": bug})
    steps = [[column[0][0][0], "str", column[0][1]] for column in test.columns["optimalActions"]]
    steps[0][0] = "North"
    steps = [[("North" if i == 0 else s[0]), "str", s[2]] for i, s in enumerate(steps)]
    passed, _, messages, _ = test.judge([ItemOutcome(True, {"steps": steps, "over": True})])
    assert not passed and messages[-1].endswith("1 suboptimal move; move 1: returned 'North', expected South")
    steps = [["North", "str", c[0][1]] for c in test.columns["optimalActions"]]
    passed, _, messages, _ = test.judge([ItemOutcome(True, {"steps": steps, "over": True})])
    assert messages == ["MinimaxAgent, depth 2, on corridors: the actions are those of a search with the partial ply "
                        "bug (the depth counted per agent move, or the search stopping in the middle of a ply)"]


@pytest.mark.parametrize("key, line, message", [
    ("optimalActions", "[[[\"South\"], 118]", "t.solution:3: optimalActions: not a JSON line"),
    ("optimalActions", "[[[\"Up\"], 118]]", "t.solution:3: optimalActions: expected a column"),
    ("altDepthActions", "[[\"South\"]]", "t.solution:37: altDepthActions: 1 columns, but the first line has 4"),
    ("altDepthActions", "[[[\"South\"], 1], [\"South\"], [\"South\"], [\"South\"]]",
     "t.solution:37: altDepthActions: expected a column of actions such as [\"West\", \"East\"], got "
     "[[\"South\"], 1] (the optimal columns' shape"),
    ("partialPlyBugActions", "[[\"South\"], 12]", "partialPlyBugActions: expected a column of actions"),
])
def test_bad_solution_lines_name_the_file_and_line(key, line, message):
    text = (TEST_CASES / "q1" / "1-corridors.solution").read_text(encoding="utf-8")
    lines = text.split("\n")
    start = lines.index(f'{key}: """')
    lines[start + 1 + (1 if key == "altDepthActions" else 0)] = line
    with pytest.raises(ClassicFormatError) as error:
        PacmanGameTreeTest("t", parse_classic_text((TEST_CASES / "q1" / "1-corridors.test").read_text(), "t.test"),
                           parse_classic_text("\n".join(lines), "t.solution"))
    assert message in str(error.value)


# --- the game-playing test --------------------------------------------------------------------------------

def _eval_test(tmp_path: Path, extra: str = "", layouts: bool = True) -> EvalAgentTest:
    course = tmp_path / "course"
    (course / "test_cases" / "q1").mkdir(parents=True)
    if layouts:
        (course / "layouts").mkdir()
        shutil.copy(COURSE / "layouts" / "twoRooms.lay", course / "layouts")
    text = (TEST_CASES / "q2" / "1-two-rooms.test").read_text(encoding="utf-8") + extra
    path = course / "test_cases" / "q1" / "a.test"
    path.write_text(text, encoding="utf-8")
    return EvalAgentTest("a", parse_classic_text(text, str(path)), None)


def test_eval_agent_test_reads_ghosts_args_and_points(tmp_path):
    test = _eval_test(tmp_path)
    assert test.ghosts == [["RandomGhost", 1]]
    assert test.agent_args == {"depth": "2", "evalFn": "better"}
    assert test.max_points == 4.0 and test.layout_path.endswith("course/layouts/twoRooms.lay")


def test_a_missed_minimum_earns_0_but_completes_the_test(tmp_path):
    test = _eval_test(tmp_path, 'winsMinimum: "1"\n')
    games = [{"score": 500.0, "win": False, "timeout": False, "moves": 9}] * 3
    completed, points, messages, _ = test.judge([ItemOutcome(True, {"games": games})])
    assert (completed, points) == (True, 0.0)
    assert messages[-1] == "ExpectimaxAgent on twoRooms, 3 games: 0 wins, below the minimum of 1: the test earns 0"
    passed, points, _, _ = _eval_test(tmp_path / "2").judge([ItemOutcome(True, {"games": games})])
    assert (passed, points) == (True, 3.0)  # score 500 reaches 0 and 400; no win; three games played out


@pytest.mark.parametrize("ghosts, message", [
    ("[RandomGhost(1), __import__('os')]", "a.test:9: ghosts: expected RandomGhost(index) or DirectionalGhost"),
    ("RandomGhost(1)", "a.test:9: ghosts: expected a list such as [RandomGhost(1)]"),
    ("[RandomGhost(2)]", "a.test:9: ghosts: ghost 1 has index 2"),
])
def test_ghosts_are_parsed_never_evaluated(tmp_path, ghosts, message):
    assert _eval_test(tmp_path).ghosts == [["RandomGhost", 1]]  # the file as shipped loads (and makes the course)
    text = (TEST_CASES / "q2" / "1-two-rooms.test").read_text(encoding="utf-8")
    text = text.replace('ghosts: "[RandomGhost(1)]"', f'ghosts: "{ghosts}"')
    path = tmp_path / "course" / "test_cases" / "q1" / "a.test"
    with pytest.raises(ClassicFormatError) as error:
        EvalAgentTest("a", parse_classic_text(text, str(path)), None)
    assert message in str(error.value)


def test_a_maze_not_found_is_named_on_its_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ClassicFormatError) as error:
        _eval_test(tmp_path, layouts=False)
    assert "a.test:5: layoutName: no layouts/twoRooms.lay beside test_cases or in the working directory" \
        in str(error.value)
    (tmp_path / "layouts").mkdir()
    shutil.copy(COURSE / "layouts" / "twoRooms.lay", tmp_path / "layouts")
    assert _eval_test(tmp_path / "x", layouts=False).layout_path == str(tmp_path / "layouts" / "twoRooms.lay")


def test_the_course_loads_with_both_kinds():
    course = load_course(TEST_CASES)
    assert [(q.id, [type(t).__name__ for t in q.tests]) for q in course.questions] == [
        ("q1", ["PacmanGameTreeTest"]), ("q2", ["EvalAgentTest"])]


def test_a_game_over_max_time_is_a_timeout_that_ends_it(tmp_path):
    """With maxTime 1e-9 every game ends at Pacman's first move: score 0 (reaches 0, not 400), no win, 3 timeouts."""
    shutil.copytree(COURSE, tmp_path / "course")
    test = tmp_path / "course" / "test_cases" / "q2" / "1-two-rooms.test"
    test.write_text(test.read_text(encoding="utf-8").replace('maxTime: "60"', 'maxTime: "1e-9"'), encoding="utf-8")
    done = _grade_cli(tmp_path / "course", "test_cases", "multiAgents.py", "--question", "q2", "--json", "-")
    assert done.returncode == 0, done.stderr
    question = json.loads(done.stdout)["questions"][0]
    assert question["score"] == 1.0
    assert question["tests"][0]["messages"][2] == (
        "ExpectimaxAgent on twoRooms, 3 games: 0 games without a timeout: 0 of 1 thresholds (3) reached")


def test_an_exception_in_the_agent_ends_that_game_as_crashed_and_the_games_go_on(tmp_path):
    from types import SimpleNamespace

    from pacman.cs188.grading.eval_agent import run_eval_agent

    class Crashy:
        calls = 0

        def getAction(self, state):
            Crashy.calls += 1
            if Crashy.calls == 3:
                raise RuntimeError("lost my way")
            return state.getLegalActions(0)[0]

    item = dict(_eval_test(tmp_path).items[0], agent="Crashy", args={})
    games = run_eval_agent(SimpleNamespace(Crashy=Crashy), item)["games"]
    assert len(games) == 3
    assert games[0]["crash"] == "RuntimeError: lost my way" and games[0]["moves"] == 2
    assert not games[0]["win"] and not games[0]["timeout"]
    assert games[1]["crash"] is None and games[2]["crash"] is None
    completed, _, messages, observed = _eval_test(tmp_path / "2").judge([ItemOutcome(True, {"games": games})])
    assert completed and observed["scores"][0] == games[0]["score"]
    assert messages[-1] == ("ExpectimaxAgent on twoRooms, 3 games: Pacman crashed in game 1, ending it "
                            "(game 1: RuntimeError: lost my way)")
