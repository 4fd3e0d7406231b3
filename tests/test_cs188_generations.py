"""Both generations of the CS188 course, graded as the course's own autograder grades them.

tests/cs188_classic (camelCase: multiAgents.py, agentName, optimalActions) and
tests/cs188_current (snake_case: multi_agents.py, agent_name, optimal_actions)
are the same course of our own, written here (nothing from CS188): q1 the reflex
agent's games (PartialCreditQuestion, 4 points), q2 minimax, q3 alpha-beta, q4
expectimax (PassAllTestsQuestions: 5 points each in the classic folder, 10 in the
current one), q5 the "better" evaluation's games (PartialCreditQuestion, 6).
Their solutions were written by ``pacman-ai grade --write-solutions`` from the
folders' own reference files, and the two folders' solutions are the same value
for value. Scores, by the course's rules:

- a PassAllTestsQuestion is all or nothing; a PacmanGameTreeTest fails on a
  wrong explored count before anything else, so a search one ply too deep
  (depth_off) or pruning on equality (prunes_on_equality, which also misses
  state G of q3/2-alphabeta-tie) fails it; minimum ghosts in expectimax
  (expectimax_min) returns 'r' where chance gives 'l' in q4/1-expectimax-chance;
- an EvalAgentTest earns one point per threshold reached: q1's reflex agent
  wins its 3 games (score 0 and 300, wins 1 and 3: 4), the starter's reflex
  agent (score only) loses all three averaging -367 (0); q5's games give average
  858.333 with 1 win for the right expectimax (600: yes, 1000: no; wins 1: yes,
  2 and 3: no; 3 games without timeout: yes -> 3), 686.333 / 1 win with minimum
  ghosts (3), 651.333 / 1 win one ply too deep (3), 47.333 / 0 wins with the
  score as evaluation (only the non-timeout point: 1);
- raiseNotDefined() fails the test that reaches it, so the unfinished starter
  scores 0 on q2-q5.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pacman.cs188 import ClassicState, CurrentState, load_classic_module
from pacman.cs188.grading import ClassicFormatError, load_course, parse_classic_text
from pacman.cs188.grading import grader as classic_grader
from pacman.cs188.grading.pacman_tree import PacmanGameTreeTest, parse_columns
from pacman.cs188.grading.runner import RUNNERS
from pacman.grading.sandbox import ItemOutcome, SandboxRun

HERE = Path(__file__).parent
FOLDERS = {"classic": HERE / "cs188_classic", "current": HERE / "cs188_current"}
REFERENCE = {"classic": "multiAgents.py", "current": "multi_agents.py"}
POINTS = {"classic": (4, 5, 5, 5, 6), "current": (4, 10, 10, 10, 6)}
#: Per student file, the share of each question's points it earns (q5 in points: its thresholds are the same).
SHARES = {
    "complete": (1, 1, 1, 1, 3),
    "students/unfinished.py": (0, 0, 0, 0, 0),
    "students/expectimax_min.py": (1, 1, 1, 0, 3),
    "students/depth_off.py": (1, 0, 0, 0, 3),
    "students/weak_eval.py": (1, 1, 1, 1, 1),
    "students/prunes_on_equality.py": (1, 1, 0, 1, 3),
}
#: The questions that tell each student apart, graded by default (all of them in the slow test).
TELLING = {
    "complete": None,
    "students/unfinished.py": None,
    "students/expectimax_min.py": ["q4"],
    "students/depth_off.py": ["q3"],
    "students/weak_eval.py": ["q5"],
    "students/prunes_on_equality.py": ["q3"],
}
QUESTIONS = ("q1", "q2", "q3", "q4", "q5")


def _expected(generation: str, student: str, questions: list[str] | None = None) -> list[tuple[str, float]]:
    out = []
    for qid, points, share in zip(QUESTIONS, POINTS[generation], SHARES[student]):
        if questions is None or qid in questions:
            out.append((qid, float(share if qid == "q5" else share * points)))
    return out


def _student(generation: str, student: str) -> Path:
    return FOLDERS[generation] / (REFERENCE[generation] if student == "complete" else student)


def _in_process(source, path, items, time_limits, memory_mb=1024, user=None, loader="module", forbid_imports=(),
                write_budget=None):
    """`run_items` without the sandbox's processes: the same loading and runners, for fast tests."""
    assert loader == "classic"
    module = load_classic_module(path, generation=items[0]["generation"])
    outcomes = []
    for item in items:
        try:
            outcomes.append(ItemOutcome(True, RUNNERS[item["kind"]](module, item)))
        except BaseException as exc:  # noqa: BLE001 - as the child reports it
            outcomes.append(ItemOutcome(False, error=str(exc) or type(exc).__name__))
    return SandboxRun(outcomes, "", 0, 0.0)


def _cli(cwd: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(["pacman-ai", *args], capture_output=True, text=True, timeout=timeout, cwd=cwd, env=env)


def _copy(generation: str, tmp_path: Path) -> Path:
    target = tmp_path / generation
    shutil.copytree(FOLDERS[generation], target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


# --- the solution blocks' shapes ----------------------------------------------------------------------------

_TREE_TEST = textwrap.dedent('''\
    class: "PacmanGameTreeTest"
    alg: "MinimaxAgent"
    seed: "0"
    depth: "2"
    max_points: "4"
    layoutName: "line"
    layout: """
    %%%%%
    %P.G%
    %%%%%
    """
    ''')


def _solution(alt: str, partial: str, extra: str = "") -> str:
    return (f'{extra}optimalActions: """\n[[["West", "East"], 12], [["East"], 9]]\n"""\n'
            f'altDepthActions: """\n{alt}\n"""\npartialPlyBugActions: """\n{partial}\n"""\n')


def test_the_alternative_columns_are_plain_action_lists_read_verbatim():
    line = '[["West", "East"], ["West", "East"], ["West"], ["West"]]'  # the issue's line, as the course writes it
    solution = parse_classic_text(_solution(line, '[["East"], ["West", "Stop"]]'), "q2/8-pacman-game.solution")
    assert parse_columns(solution, "altDepthActions") == [
        [(("West", "East"), None), (("West", "East"), None), (("West",), None), (("West",), None)]]
    assert parse_columns(solution, "partialPlyBugActions") == [[(("East",), None), (("West", "Stop"), None)]]
    assert parse_columns(solution, "optimalActions") == [[(("West", "East"), 12), (("East",), 9)]]
    test = PacmanGameTreeTest("8-pacman-game", parse_classic_text(_TREE_TEST, "t.test"), solution)
    assert test.columns["altDepthActions"][0][2] == (("West",), None)


def test_some_editions_add_action_and_generated_to_the_solution_and_they_are_ignored():
    solution = parse_classic_text(_solution('[["West"], ["East"]]', '[["West"]]',
                                            extra='action: "West"\ngenerated: "A B"\n'), "t.solution")
    test = PacmanGameTreeTest("t", parse_classic_text(_TREE_TEST, "t.test"), solution)
    assert sorted(test.columns) == ["altDepthActions", "optimalActions", "partialPlyBugActions"]


def test_the_current_generation_reads_its_snake_case_blocks():
    text = _solution('[["West", "East"], ["West", "East"], ["West"], ["West"]]', '[["East"], ["West"]]')
    for classic, current in (("optimalActions", "optimal_actions"), ("altDepthActions", "alt_depth_actions"),
                             ("partialPlyBugActions", "partial_ply_bug_actions")):
        text = text.replace(classic, current)
    test_file = parse_classic_text(_TREE_TEST.replace("layoutName", "layout_name"), "t.test")
    solution = parse_classic_text(text, "t.solution")
    test_file.generation = solution.generation = "current"
    test = PacmanGameTreeTest("t", test_file, solution)
    assert test.columns["altDepthActions"][0][0] == (("West", "East"), None)
    assert test.layout_name == "line"


def test_an_optimal_line_in_the_alternative_shape_is_refused_naming_the_line():
    text = _solution('[["West"], ["East"]]', '[["West"]]').replace('[[["West", "East"], 12], [["East"], 9]]',
                                                                    '[["West", "East"], ["East"]]')
    with pytest.raises(ClassicFormatError) as error:
        PacmanGameTreeTest("t", parse_classic_text(_TREE_TEST, "t.test"), parse_classic_text(text, "t.solution"))
    assert str(error.value) == ('t.solution:2: optimalActions: expected a column [[actions...], explored], '
                                'got ["West", "East"]')


# --- every verdict, on both generations -----------------------------------------------------------------------

VERDICT_STUDENTS = {
    "complete": ("pass", None),
    "students/depth_off.py": ("wrong-count", "wrong number of states expanded at move 1: 318, expected 61 or 104"),
    "students/verdicts/partial_ply.py": ("partial-ply-bug", "the actions are those of a search with the partial ply "
                                         "bug (the depth counted per agent move, or the search stopping in the "
                                         "middle of a ply)"),
    "students/verdicts/one_ply_short.py": ("depth-off-by-one",
                                           "the actions are those of a search one ply too deep or too shallow"),
    "students/verdicts/worst_move.py": ("suboptimal", "13 suboptimal moves; move 1: returned 'Stop', expected East"),
}


@pytest.mark.parametrize("generation", ["classic", "current"])
@pytest.mark.parametrize("student", sorted(VERDICT_STUDENTS))
def test_every_verdict_of_the_pacman_game_tree_test(monkeypatch, generation, student):
    """q2/4-pacman-game: its alternative columns differ from its optimal ones (move 5 at depth 1: West, where
    depth 2 says East; move 13 with the partial ply bug: East, where depth 2 says West)."""
    monkeypatch.setattr(classic_grader, "run_items", _in_process)
    course = load_course(FOLDERS[generation] / "test_cases")
    report = classic_grader.grade_course(course, _student(generation, student), questions=["q2"])
    tree = report.questions[0].tests[3]
    verdict, message = VERDICT_STUDENTS[student]
    assert tree.name == "4-pacman-game" and tree.items[0]["verdict"] == verdict
    layout = "twoGhostRooms" if generation == "classic" else "two_ghost_rooms"
    judged = [m for m in tree.messages if not m.startswith("not counted: ")]  # an earlier tree may stop q2
    assert judged == ([] if message is None else [f"MinimaxAgent, depth 2, on {layout}: {message}"])
    assert report.questions[0].score == (POINTS[generation][1] if verdict == "pass" else 0.0)


def test_every_move_optimal_but_no_single_column_passes_as_in_the_course():
    """The course fails a test for its number of suboptimal moves; moves each in some optimal column are none."""
    test = PacmanGameTreeTest("t", parse_classic_text(_TREE_TEST, "t.test"), parse_classic_text(
        'optimalActions: """\n[[["West"], 5], [["East"], 5]]\n[[["West"], 3], [["East"], 3]]\n"""\n'
        'altDepthActions: """\n[["North"]]\n[["North"]]\n"""\npartialPlyBugActions: """\n[["North"]]\n'
        '[["North"]]\n"""\n', "t.solution"))
    mixed = {"steps": [["West", "str", 5], ["East", "str", 3]], "over": True}
    assert test.judge([ItemOutcome(True, mixed)])[:3] == (True, 0.0, [])
    wrong = {"steps": [["West", "str", 5], ["East", "str", 4]], "over": True}
    passed, _, messages, observed = test.judge([ItemOutcome(True, wrong)])
    assert not passed and observed["verdict"] == "wrong-count"
    assert messages == ["MinimaxAgent, depth 2, on line: wrong number of states expanded at move 2: 4, expected 3"]


# --- the six submissions ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("generation", ["classic", "current"])
@pytest.mark.parametrize("student", sorted(SHARES))
def test_each_submission_scores_what_the_course_gives(monkeypatch, generation, student):
    monkeypatch.setattr(classic_grader, "run_items", _in_process)
    course = load_course(FOLDERS[generation] / "test_cases")
    report = classic_grader.grade_course(course, _student(generation, student), questions=TELLING[student])
    assert [(q.id, q.score) for q in report.questions] == _expected(generation, student, TELLING[student])


@pytest.mark.slow
@pytest.mark.parametrize("generation", ["classic", "current"])
def test_all_six_submissions_graded_from_the_command_line(tmp_path, generation):
    folder = _copy(generation, tmp_path)
    for student in SHARES:
        target = REFERENCE[generation] if student == "complete" else student
        done = _cli(folder, "grade", "test_cases", target, "--json", "-")
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout)
        assert [(q["id"], q["score"]) for q in data["questions"]] == _expected(generation, student), student
        assert [q["max_score"] for q in data["questions"]] == [float(p) for p in POINTS[generation]]


def test_the_current_generation_grades_from_the_command_line_with_json_and_gradescope(tmp_path):
    folder = _copy("current", tmp_path)
    done = _cli(folder, "grade", "test_cases", "students/prunes_on_equality.py", "--question", "q3",
                "--json", "out.json", "--gradescope", "results.json")
    assert done.returncode == 0, done.stderr
    assert "Question q3: AlphaBetaAgent  0/10  (all tests must pass)" in done.stdout
    assert "AlphaBetaAgent, depth 1, 2 agents: did not generate: G" in done.stdout
    data = json.loads((folder / "out.json").read_text())
    assert [(q["id"], q["score"], q["max_score"]) for q in data["questions"]] == [("q3", 0.0, 10.0)]
    results = json.loads((folder / "results.json").read_text())
    assert results["score"] == 0.0
    assert [(t["name"], t["score"], t["max_score"]) for t in results["tests"]] == [("q3: AlphaBetaAgent", 0.0, 10.0)]


# --- the two folders are one course ---------------------------------------------------------------------------

def test_the_two_folders_hold_the_same_solutions_key_for_key():
    from pacman.cs188.grading.format import CURRENT_KEYS, read_classic_file

    classic = sorted((FOLDERS["classic"] / "test_cases").rglob("*.solution"))
    current = sorted((FOLDERS["current"] / "test_cases").rglob("*.solution"))
    assert [p.relative_to(FOLDERS["classic"]) for p in classic] == [p.relative_to(FOLDERS["current"])
                                                                   for p in current]
    for a, b in zip(classic, current):
        values = {CURRENT_KEYS.get(k, k): v for k, v in read_classic_file(a).values.items()}
        assert values == read_classic_file(b).values, a.name
    assert load_course(FOLDERS["classic"] / "test_cases").generation == "classic"
    assert load_course(FOLDERS["current"] / "test_cases").generation == "current"


@pytest.mark.parametrize("generation", ["classic", "current"])
def test_write_solutions_writes_the_committed_files_in_the_folders_generation(tmp_path, generation):
    folder = _copy(generation, tmp_path)
    for path in (folder / "test_cases").rglob("*.solution"):
        path.unlink()
    done = _cli(folder, "grade", "test_cases", REFERENCE[generation], "--write-solutions", "--question", "q2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "new        test_cases/q2/1-minimax-small.solution"
    for name in ("1-minimax-small", "4-pacman-game"):
        written = (folder / "test_cases" / "q2" / f"{name}.solution").read_text()
        assert written == (FOLDERS[generation] / "test_cases" / "q2" / f"{name}.solution").read_text()
    block = "alt_depth_actions" if generation == "current" else "altDepthActions"
    assert f'{block}: """\n[["East", "South"], ["East", "South"], ["East"], ["East"]]\n' in written


def test_write_solutions_shows_changes_and_replaces_only_with_force(tmp_path):
    folder = _copy("current", tmp_path)
    tree = folder / "test_cases" / "q2" / "1-minimax-small.solution"
    tree.write_text('# Worked out by hand.\naction: "r"\ngenerated: "A B C D E F G"\n')
    same = folder / "test_cases" / "q2" / "2-minimax-three-agents.solution"
    same.write_text("# Mine, same values.\n" + same.read_text().split("\n", 1)[1])
    done = _cli(folder, "grade", "test_cases", "multi_agents.py", "--write-solutions", "--question", "q2")
    assert done.returncode == 2
    assert done.stdout.splitlines()[:3] == ["changed    test_cases/q2/1-minimax-small.solution",
                                            "  action: 'r' -> 'l'",
                                            "unchanged  test_cases/q2/2-minimax-three-agents.solution"]
    assert done.stderr.strip() == ("pacman-ai: 1 .solution file would change (test_cases/q2/1-minimax-small.solution);"
                                   " nothing was written: give --force to replace it")
    assert tree.read_text().startswith("# Worked out by hand.")
    done = _cli(folder, "grade", "test_cases", "multi_agents.py", "--write-solutions", "--question", "q2", "--force")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "replaced   test_cases/q2/1-minimax-small.solution"
    assert 'action: "l"' in tree.read_text() and same.read_text().startswith("# Mine, same values.")
    assert done.stderr.strip() == "wrote 1 .solution file (0 new, 1 replaced); 3 unchanged"


# --- telling the generations apart --------------------------------------------------------------------------

def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize("edit, message", [
    (("q2/4-pacman-game.test", "layout_name:", "layoutName:"),
     "test_cases/q2/4-pacman-game.test:7: layoutName: a classic (camelCase) generation key, but the folder also "
     "has the current (snake_case) generation's 'agent_name' (test_cases/q1/grade-agent.test:4); a test folder "
     "is written for one generation"),
    (("q1/grade-agent.test", "max_time:", "maxTime:"),
     "test_cases/q1/grade-agent.test:6: maxTime: a classic (camelCase) generation key, but the same file also has "
     "the current (snake_case) generation's 'agent_name' (line 4); a test folder is written for one generation"),
    (("q1/grade-agent.test", "agent_name:", "agent:"),
     "test_cases/q1/grade-agent.test: missing key 'agent_name'"),
])
def test_a_folder_mixing_the_generations_gets_one_message_naming_file_and_key(tmp_path, edit, message):
    folder = _copy("current", tmp_path)
    _edit(folder / "test_cases" / edit[0], edit[1], edit[2])
    done = _cli(folder, "grade", "test_cases", "multi_agents.py")
    assert (done.returncode, done.stderr, done.stdout) == (2, f"pacman-ai: {message}\n", "")


def test_a_folder_matching_neither_generation_names_both_keys(tmp_path):
    folder = tmp_path / "course"
    (folder / "test_cases" / "q1").mkdir(parents=True)
    (folder / "test_cases" / "CONFIG").write_text('order: "q1"\n')
    (folder / "test_cases" / "q1" / "CONFIG").write_text('max_points: "1"\nclass: "PartialCreditQuestion"\n')
    (folder / "test_cases" / "q1" / "grade-agent.test").write_text('class: "EvalAgentTest"\nagent: "ReflexAgent"\n')
    (folder / "test_cases" / "q1" / "grade-agent.solution").write_text("")
    shutil.copy(FOLDERS["current"] / "multi_agents.py", folder)
    done = _cli(folder, "grade", "test_cases", "multi_agents.py")
    assert done.returncode == 2 and done.stderr == (
        "pacman-ai: test_cases/q1/grade-agent.test: missing key 'agentName' (classic generation) or 'agent_name' "
        "(current generation): the folder matches neither\n")


def test_a_file_of_the_other_generation_is_refused_naming_both(tmp_path):
    folder = _copy("current", tmp_path)
    shutil.copy(FOLDERS["classic"] / "multiAgents.py", folder)
    done = _cli(folder, "grade", "test_cases", "multiAgents.py")
    assert done.returncode == 2 and done.stderr == (
        "pacman-ai: multiAgents.py: written for the classic (camelCase) generation ('manhattanDistance' on line 3), "
        "but test_cases is a test folder of the current (snake_case) generation (its keys, e.g. 'agent_name' in "
        "test_cases/q1/grade-agent.test); grade multi_agents.py files on it, or use the course folder of the "
        "file's generation\n")
    # A file mixing the names is graded as the folder's generation, as the course's autograder would;
    # where the folder says nothing (graph trees only), it is refused naming both names.
    (folder / "mixed.py").write_text("import util\n\nclass MinimaxAgent:\n"
                                     "    def __init__(self, depth='2'):\n        self.depth = int(depth)\n"
                                     "    def get_action(self, game_state):\n        return util.manhattanDistance\n"
                                     "    def getAction(self, game_state):\n        return 'l'\n")
    done = _cli(folder, "grade", "test_cases", "mixed.py", "--question", "q2", "--json", "-")
    assert done.returncode == 0, done.stderr
    tests = json.loads(done.stdout)["questions"][0]["tests"]
    assert tests[0]["messages"] == ["MinimaxAgent, depth 1, 2 agents: AttributeError: module 'util' has no "
                                    "attribute 'manhattanDistance' (at mixed.py:7 in get_action: return "
                                    "util.manhattanDistance)"]
    trees = tmp_path / "trees"
    (trees / "q2").mkdir(parents=True)
    (trees / "CONFIG").write_text('order: "q2"\n')
    for name in ("CONFIG", "1-minimax-small.test", "1-minimax-small.solution"):
        shutil.copy(folder / "test_cases" / "q2" / name, trees / "q2")
    done = _cli(folder, "grade", str(trees), "mixed.py")
    assert done.returncode == 2 and done.stderr == (
        "pacman-ai: mixed.py: mixes the two generations of the CS188 API: 'getAction' (line 8) is the "
        "classic camelCase name, 'get_action' (line 6) the current snake_case one; a file is written for one "
        "of them\n")


# --- the current generation's API ---------------------------------------------------------------------------

def test_the_current_generation_student_api():
    before = {name: sys.modules.get(name) for name in ("util", "game", "ghost_agents", "pacman")}
    module = load_classic_module(FOLDERS["current"] / "multi_agents.py")
    assert {name: sys.modules.get(name) for name in before} == before  # nothing installed, pacman restored
    assert module.GameState is CurrentState and module.util.manhattan_distance((0, 0), (2, 3)) == 5
    agent = module.ExpectimaxAgent(eval_fn="better", depth="3")
    assert agent.depth == 3 and agent.evaluation_function is module.better_evaluation_function
    assert agent.index == 0

    from pacman import GameState, load_layout

    state = CurrentState(GameState.initial(load_layout(str(FOLDERS["current"] / "layouts" / "medium_classic.lay"))))
    assert state.get_legal_actions(0) == ["West", "Stop", "East", "North"] and state.get_num_agents() == 3
    following = state.generate_successor(0, "West")
    assert isinstance(following, CurrentState) and following.get_pacman_state().get_direction() == "West"
    assert state.get_pacman_position() == (7, 3) and state.get_ghost_positions() == [(7, 1), (13, 7)]
    ghost = state.get_ghost_state(1)
    assert (ghost.scared_timer, ghost.is_pacman, ghost.get_position(), ghost.start.get_position()) == \
        (0, False, (7, 1), (7, 1))
    food = state.get_food()
    assert food.count() == state.get_num_food() == len(food.as_list()) and food.copy() == food
    assert state.has_food(1, 3) and state.has_wall(0, 0) and state.get_walls()[0][0]
    assert state.get_capsules() == [(14, 3), (1, 7)] and state.get_score() == 0.0
    assert not state.is_win() and not state.is_lose()
    assert len(module.GameState.get_and_reset_explored()) == 2  # state and its successor
    assert ClassicState.getAndResetExplored() == set()

    util, game = module.util, module.__dict__["Agent"]
    counter = util.Counter({"a": 1, "b": 3})
    assert counter.arg_max() == "b" and counter.total_count() == 4
    counter.normalize()
    assert counter["b"] == 0.75
    stack = util.Stack()
    assert stack.is_empty() and util.nearest_point((2.5, 3.4)) == (3, 3)
    assert util.lookup("score_evaluation_function", vars(module)) is module.score_evaluation_function
    assert game.__name__ == "CurrentAgent" and hasattr(game, "get_action")


def test_current_generation_modules_for_ghosts_and_actions(tmp_path):
    student = tmp_path / "multi_agents.py"
    student.write_text(textwrap.dedent("""\
        import util
        from game import Actions, Directions, Agent
        from ghost_agents import GhostAgent, RandomGhost, DirectionalGhost
        import pacman

        class Probe(Agent):
            def get_action(self, game_state):
                return Directions.STOP

        def probe(game_state):
            ghost = DirectionalGhost(1)
            walls = game_state.get_walls()
            position = game_state.get_pacman_position()
            return (Actions.direction_to_vector(Directions.WEST), Actions.reverse_direction(Directions.NORTH),
                    Actions.get_successor((1, 1), Directions.EAST),
                    Actions.get_legal_neighbors(position, walls),
                    dict(RandomGhost(1).get_distribution(game_state)),
                    round(sum(ghost.get_distribution(game_state).values()), 9),
                    pacman.GameState.get_and_reset_explored is not None,
                    util.flip_coin(1.0), util.raise_not_defined.__name__)
        """))
    module = load_classic_module(student)
    from pacman import GameState, load_layout

    state = CurrentState(GameState.initial(load_layout(str(FOLDERS["current"] / "layouts" / "medium_classic.lay"))))
    vector, reverse, successor, neighbours, uniform, total, has_reset, coin, name = module.probe(state)
    assert (vector, reverse, successor) == ((-1, 0), "South", (2, 1))
    assert neighbours == [(6, 3), (7, 3), (8, 3), (7, 4)]  # West, Stop, East, North: the course's order
    assert uniform == {"West": 0.5, "East": 0.5} and total == 1.0  # ghost 1 at (7, 1): West or East
    assert has_reset and coin is True and name == "raiseNotDefined"
    assert "pacman" in sys.modules and sys.modules["pacman"].__name__ == "pacman" and hasattr(
        sys.modules["pacman"], "run_game")


# --- playing ---------------------------------------------------------------------------------------------------

def test_the_issues_play_command_runs_a_current_generation_file(tmp_path):
    folder = _copy("current", tmp_path)
    done = _cli(folder, "play", "--pacman", "multi_agents.py:ExpectimaxAgent", "--agent-args",
                "depth=3,eval_fn=better", "--layout", "medium_classic", "--display", "none", "--json",
                "--max-moves", "8", "--seed", "1")
    assert done.returncode == 0, done.stderr
    game = json.loads(done.stdout)
    assert game["layout"] == "medium_classic" and game["moves"] == 8 and not game["crashed"]
    assert game["agent_args"] == {"eval_fn": "better", "depth": "3"}


@pytest.mark.parametrize("generation", ["classic", "current"])
def test_the_four_student_agents_play_in_a_batch(tmp_path, generation):
    folder = _copy(generation, tmp_path)
    layout = "mediumClassic" if generation == "classic" else "medium_classic"
    agents = ",".join(f"{REFERENCE[generation]}:{name}"
                      for name in ("ReflexAgent", "MinimaxAgent", "AlphaBetaAgent", "ExpectimaxAgent"))
    done = _cli(folder, "batch", "--pacman", agents, "--layout", layout, "--games", "1", "--max-moves", "6",
                "--out", "games.jsonl")
    assert done.returncode == 0, done.stderr
    games = [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]
    assert sorted(g["pacman"].split(":")[1] for g in games) == ["AlphaBetaAgent", "ExpectimaxAgent", "MinimaxAgent",
                                                                "ReflexAgent"]
    assert all(not g["crashed"] and g["moves"] == 6 for g in games)


# --- docs/cs188.md ----------------------------------------------------------------------------------------------

DOC = HERE.parent / "docs" / "cs188.md"


def _doc_block(marker: str) -> str:
    after = DOC.read_text(encoding="utf-8").split(f"<!-- cs188-example: {marker} -->", 1)[1]
    return after.split("```", 2)[1].split("\n", 1)[1]


@pytest.mark.parametrize("generation", ["classic", "current"])
def test_the_worked_example_of_each_generation_runs_as_documented(tmp_path, generation):
    """The documented command, run with bash in a fresh folder holding a copy of the course folder; the
    documented lines appear in its output, in order (the passing tests the page leaves out are skipped)."""
    shutil.copytree(FOLDERS[generation], tmp_path / "tests" / f"cs188_{generation}",
                    ignore=shutil.ignore_patterns("__pycache__"))
    command = _doc_block(f"{generation} command")
    assert command.startswith(f"cd tests/cs188_{generation}\npacman-ai grade test_cases students/")
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
               SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    done = subprocess.run(["bash", "-ec", command], capture_output=True, text=True, timeout=600, cwd=tmp_path,
                          env=env)
    assert done.returncode == 0, done.stderr
    actual = done.stdout.splitlines()
    position = 0
    for line in _doc_block(f"{generation} output").splitlines():
        if not line.strip():
            continue
        while position < len(actual) and not actual[position].startswith(line):
            position += 1
        assert position < len(actual), f"documented line not in the output, in order: {line!r}\n{done.stdout}"
        position += 1


def test_the_docs_score_table_is_the_tests_table():
    text = DOC.read_text(encoding="utf-8")
    for student, shares in SHARES.items():
        row = "the reference" if student == "complete" else f"`{student}`"
        line = next(line for line in text.splitlines() if line.startswith(f"| {row}"))
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        for generation, cell in zip(("classic", "current"), cells[1:]):
            assert cell == ", ".join(f"{score:g}" for _, score in _expected(generation, student)), (student, cell)


def test_the_docs_messages_for_mixed_unmatched_and_mismatched_are_the_ones_given(tmp_path, monkeypatch):
    from pacman.grading import SubmissionError

    text = DOC.read_text(encoding="utf-8")
    block = text.split("**How pacman-ai tells them apart.**", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    documented = [line.removeprefix("pacman-ai: ") for line in block.splitlines()]
    folder = _copy("current", tmp_path)
    monkeypatch.chdir(folder)
    _edit(folder / "test_cases" / "q2" / "4-pacman-game.test", "layout_name:", "layoutName:")
    with pytest.raises(ClassicFormatError) as mixed:
        load_course(Path("test_cases"))
    _edit(folder / "test_cases" / "q2" / "4-pacman-game.test", "layoutName:", "layout_name:")
    shutil.copy(FOLDERS["classic"] / "multiAgents.py", folder)
    with pytest.raises(SubmissionError) as mismatched:
        classic_grader.grade_course(load_course(Path("test_cases")), "multiAgents.py")
    neither = folder / "neither"
    (neither / "q1").mkdir(parents=True)
    (neither / "CONFIG").write_text('order: "q1"\n')
    (neither / "q1" / "CONFIG").write_text('max_points: "1"\nclass: "PartialCreditQuestion"\n')
    (neither / "q1" / "grade-agent.test").write_text('class: "EvalAgentTest"\n')
    (neither / "q1" / "grade-agent.solution").write_text("")
    with pytest.raises(ClassicFormatError) as unmatched:
        load_course(Path("neither"))
    assert documented == [str(mixed.value), str(unmatched.value).replace("neither/", "test_cases/"),
                          str(mismatched.value)]


def test_a_submodule_first_imported_while_a_student_file_loads_stays_the_real_packages(tmp_path):
    code = textwrap.dedent(f"""
        import sys
        import pacman
        sys.modules.pop("pacman.resources")  # as if never imported: the student's import loads it
        delattr(pacman, "resources")
        from pacman.cs188 import load_classic_module
        module = load_classic_module({str(tmp_path / 'multi_agents.py')!r})
        import pacman.resources
        print(module.GameState.__name__, pacman.resources.__name__, sys.modules["pacman"] is pacman)
        """)
    (tmp_path / "multi_agents.py").write_text("import pacman.resources\nfrom pacman import GameState\n"
                                              "from game import Agent\n\nclass A(Agent):\n"
                                              "    def get_action(self, game_state):\n        return 'Stop'\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["CurrentState", "pacman.resources", "True"]


def test_a_gradescope_package_of_a_current_folder_grades_multi_agents_py(tmp_path):
    folder = _copy("current", tmp_path)
    done = _cli(folder, "grade", "test_cases", "--gradescope-package", str(tmp_path / "package"),
                "--requirement", "pacman-ai")
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().endswith("students submit multi_agents.py.")
    assert 'submission="$root/submission/multi_agents.py"' in (tmp_path / "package" / "run_autograder").read_text()
