"""The class contest (pacman/grading/leaderboard.py), its [leaderboard] table (pacman/grading/assignment.py), and
Gradescope's leaderboard and visibility (pacman/grading/report.py): tiny contests played in the grading sandbox.

The contest of these tests: layouts `test` and `tiny`, 3 games each from seed 1, one random ghost, the project's
expectimax at depth 1 with each student's better_evaluation. What each student's games must be is worked out
here by playing the same evaluations in this process with `run_game` on the same seeds.
"""

from __future__ import annotations

import csv
import dataclasses
import importlib.util
import math
import textwrap
from pathlib import Path

import pytest

from pacman import load_layout, run_game
from pacman.agents import ExpectimaxAgent
from pacman.agents.ghosts import make_ghosts
from pacman.batch.stats import mean_interval, wilson_interval
from pacman.grading.assignment import MAX_GAMES, AssignmentError, load_assignment
from pacman.grading.grader import grade
from pacman.grading.leaderboard import (
    CSV_COLUMNS,
    ContestGame,
    LeaderboardError,
    Standing,
    gradescope_leaderboard,
    play_leaderboard,
    rank_standings,
    write_leaderboard_csv,
)
from pacman.grading.report import gradescope_results

LAYOUTS = ("test", "tiny")
SEEDS = (1, 2, 3)
MAX_MOVES = 60

ASSIGNMENT = """\
[assignment]
id = "contest"
submission_file = "multi_agents.py"

[[questions]]
id = "evaluation"
points = 2
visibility = "after_due_date"

[[questions.tests]]
name = "test-games"
kind = "games"
layout = "test"
seed = 0
games = 2
agent = "project"
depth = 1
max_moves = 60
thresholds = [{ measure = "wins", at_least = 1, points = 1 }]

[[questions]]
id = "more"
points = 1

[[questions.tests]]
name = "tiny-games"
kind = "games"
layout = "tiny"
seed = 0
games = 1
agent = "project"
depth = 1
max_moves = 60
thresholds = [{ measure = "wins", at_least = 0, points = 1 }]

[leaderboard]
question = "evaluation"
layouts = ["test", "tiny"]
games = 3
seed = 1
ghosts = "random"
max_moves = 60
move_time_limit = 0.3
game_time_limit = 2
"""

#: Each student's file: its better_evaluation (every one of them but "broken" is a function of the state).
STUDENTS = {
    "better": (Path(__file__).parent / "submissions" / "correct.py").read_text(),
    "copy": (Path(__file__).parent / "submissions" / "correct.py").read_text(),
    "score": "def better_evaluation(state):\n    return state.score\n",
    "food": "def better_evaluation(state):\n    return -len(state.food)\n",
    "crash": "def better_evaluation(state):\n    return 1 / 0\n",
    "loop": "def better_evaluation(state):\n    while True:\n        pass\n",
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("contest")
    (root / "assignment.toml").write_text(ASSIGNMENT)
    for student, source in STUDENTS.items():
        (root / f"{student}.py").write_text(source)
    return root


@pytest.fixture(scope="module")
def standings(folder) -> list[Standing]:
    """The class's contest, two students at a time in worker processes."""
    assignment = load_assignment(folder)
    return play_leaderboard(assignment, {student: folder / f"{student}.py" for student in STUDENTS}, jobs=2)


def _expected_games(path: Path) -> list[tuple[str, int, str, int]]:
    """(layout, seed, outcome, score) of the student's contest games, played here with the same evaluation."""
    spec = importlib.util.spec_from_file_location(f"student_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    games = []
    for name in LAYOUTS:
        layout = load_layout(name)
        for seed in SEEDS:
            result = run_game(layout, ExpectimaxAgent(depth=1, evaluation=module.better_evaluation),
                              make_ghosts("random", layout.num_ghosts), seed=seed, max_moves=MAX_MOVES)
            games.append((name, seed, result.outcome, result.score))
    return games


def test_the_contest_ranks_by_win_rate_then_mean_score_and_the_failed_last(standings):
    assert [(s.rank, s.student, s.status) for s in standings] == [
        (1, "better", "ranked"), (1, "copy", "ranked"), (3, "score", "ranked"), (4, "food", "ranked"),
        (5, "crash", "failed"), (5, "loop", "failed")]
    better, copy, score, food = standings[:4]
    assert (better.wins, score.wins, food.wins) == (6, 4, 2)
    assert better.win_rate == 1.0 and score.win_rate == 4 / 6


def test_every_student_plays_the_same_seeded_games_as_run_game_plays_them(standings, folder):
    expected_seeds = tuple((layout, seed) for layout in LAYOUTS for seed in SEEDS)
    for standing in standings:
        assert standing.seeds == expected_seeds, standing.student  # the failed ones too: every game was tried
        assert standing.planned == 6
    for standing in standings[:4]:
        games = [(g.layout, g.seed, g.outcome, g.score) for g in standing.games]
        assert games == _expected_games(folder / f"{standing.student}.py"), standing.student


def test_a_standing_carries_the_projects_intervals(standings):
    score = standings[2]
    assert score.win_interval == wilson_interval(4, 6)
    scores = [g.score for g in score.games]
    assert score.mean_score == pytest.approx(math.fsum(scores) / 6)
    assert score.score_interval == mean_interval([float(s) for s in scores])


def test_a_crashing_and_a_looping_student_cost_only_their_own_rows(standings):
    crash, loop = standings[4:]
    assert crash.failure.startswith("6 of 6 games did not finish; the first, test seed 1, crashed: ")
    assert "ZeroDivisionError" in crash.failure
    assert loop.failure.startswith("6 of 6 games did not finish; the first, test seed 1, timed out: ")
    assert "0.3 s move time limit" in loop.failure
    for standing in (crash, loop):
        assert standing.wins == 0 and standing.win_rate == 0.0 and standing.mean_score is None
        assert all(g.is_failed and g.score is None for g in standing.games)


def test_files_that_cannot_play_are_failed_rows_naming_why(folder, tmp_path):
    (tmp_path / "syntax.py").write_text("def better_evaluation(state)\n    return 0\n")
    (tmp_path / "nothing.py").write_text("x = 1\n")
    (tmp_path / "forbidden.py").write_text("from pacman.agents.evaluation import better\nbetter_evaluation = better\n")
    (tmp_path / "exits.py").write_text("raise SystemExit(3)\n")
    assignment = load_assignment(folder)
    standings = play_leaderboard(assignment, {"syntax": tmp_path / "syntax.py", "nothing": tmp_path / "nothing.py",
                                              "forbidden": tmp_path / "forbidden.py", "exits": tmp_path / "exits.py",
                                              "missing": tmp_path / "missing.py", "score": folder / "score.py"})
    reasons = {s.student: s.failure for s in standings}
    assert [s.student for s in standings] == ["score", "exits", "forbidden", "missing", "nothing", "syntax"]
    assert [s.rank for s in standings] == [1, 2, 2, 2, 2, 2] and reasons["score"] is None
    assert f"{tmp_path / 'syntax.py'}:1:29: SyntaxError: expected ':'" in reasons["syntax"]
    assert reasons["nothing"] == "the submission defines nothing that plays the contest (no better_evaluation)"
    assert reasons["forbidden"].startswith("forbidden import: forbidden.py line 1: imports pacman.agents.evaluation")
    assert reasons["exits"] == "the submission could not be imported: called exit() / raised SystemExit(3)"
    assert "missing.py" in reasons["missing"] and "cannot read" in reasons["missing"]
    for standing in standings[1:]:
        assert standing.games == () and standing.win_rate is None and standing.win_interval is None


def test_rank_standings_puts_the_higher_win_rate_first_even_with_the_lower_mean_score():
    def standing(student: str, results: list[tuple[str, int]], failure: str | None = None) -> Standing:
        games = tuple(ContestGame("small", seed, outcome, score, 10) for seed, (outcome, score) in enumerate(results))
        return Standing(student, 0, len(results), games, failure)

    hunter = standing("hunter", [("won", 1700)] * 9 + [("lost", -400)])  # 90%, mean 1490
    steady = standing("steady", [("won", 520)] * 10)  # 100%, mean 520
    twin = standing("twin", [("won", 520)] * 10)
    lower = standing("lower", [("won", 510)] * 10)
    failed = standing("broken", [("won", 2000)] * 10, failure="it broke")
    ranked = rank_standings([failed, hunter, twin, lower, steady])
    assert [(s.rank, s.student) for s in ranked] == [(1, "steady"), (1, "twin"), (3, "lower"), (4, "hunter"),
                                                      (5, "broken")]
    assert Standing.from_dict(ranked[3].to_dict()) == ranked[3]


def test_the_csv_has_one_row_per_student_in_rank_order_and_is_replaced_whole(standings, tmp_path):
    path = tmp_path / "leaderboard.csv"
    path.write_text("old\n")
    write_leaderboard_csv(standings, path)
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [(r["rank"], r["student"], r["status"], r["wins"], r["games"]) for r in rows] == [
        ("1", "better", "ranked", "6", "6"), ("1", "copy", "ranked", "6", "6"), ("3", "score", "ranked", "4", "6"),
        ("4", "food", "ranked", "2", "6"), ("5", "crash", "failed", "0", "6"), ("5", "loop", "failed", "0", "6")]
    score = rows[2]
    low, high = wilson_interval(4, 6)
    assert (score["win_rate"], float(score["win_rate_low"]), float(score["win_rate_high"])) == \
        ("0.666667", pytest.approx(low, abs=1e-6), pytest.approx(high, abs=1e-6))
    assert float(score["mean_score"]) == pytest.approx(standings[2].mean_score, abs=1e-3)
    assert (score["layouts"], score["seeds"], score["reason"]) == ("test tiny", "1-3", "")
    assert rows[4]["mean_score"] == "" and rows[4]["reason"] == standings[4].failure
    assert sorted(p.name for p in tmp_path.iterdir()) == ["leaderboard.csv"]  # no temporary file left


def test_gradescope_results_have_each_questions_visibility_and_the_students_leaderboard(folder):
    assignment = load_assignment(folder)
    report = grade(assignment, folder / "score.py")
    [standing] = play_leaderboard(assignment, {"me": folder / "score.py"})
    results = gradescope_results(report, standing)
    assert [(t["name"], t["visibility"]) for t in results["tests"]] == [
        ("evaluation: evaluation", "after_due_date"), ("more: more", "visible")]
    assert results["leaderboard"] == [
        {"name": "Win rate (%)", "value": round(100 * 4 / 6, 2), "order": "desc"},
        {"name": "Mean score", "value": round(standing.mean_score, 2), "order": "desc"}]
    assert set(results) == {"score", "execution_time", "output", "stdout_visibility", "tests", "leaderboard"}
    assert f"Contest (leaderboard): won 4 of 6 games (66.7%), mean score {standing.mean_score:.1f}" \
        in results["output"]
    assert "leaderboard" not in gradescope_results(report)


def test_a_failed_standing_gives_gradescope_zeros_and_the_reason():
    failed = Standing("me", 2, 6, (), "the submission defines nothing that plays the contest")
    assert gradescope_leaderboard(failed) == [{"name": "Win rate (%)", "value": 0.0, "order": "desc"},
                                              {"name": "Mean score", "value": 0.0, "order": "desc"}]


def test_the_shipped_assignments_have_a_contest_of_their_questions_code():
    expectimax = load_assignment("expectimax").leaderboard
    assert (expectimax.question, [layout.name for layout in expectimax.layouts], expectimax.games, expectimax.seed,
            expectimax.ghost_kind, expectimax.agent, expectimax.depth, expectimax.evaluation) == \
        ("evaluation", ["small", "medium", "trapped"], 10, 100, "random", "project", 2, "submission")
    multiagent = load_assignment("multiagent").leaderboard
    assert (multiagent.question, multiagent.agent, multiagent.agent_class, multiagent.depth,
            multiagent.evaluation) == ("expectimax", "submission", "ExpectimaxAgent", 2, "submission")
    assert expectimax.seeds == tuple(range(100, 110))


def test_a_contest_without_its_own_keys_takes_the_defaults(tmp_path):
    head, _, _ = ASSIGNMENT.partition("[leaderboard]")
    (tmp_path / "assignment.toml").write_text(head + '[leaderboard]\nquestion = "more"\nlayouts = ["test"]\n')
    contest = load_assignment(tmp_path).leaderboard
    assert (contest.games, contest.seed, contest.ghost_kind, contest.num_ghosts, contest.agent, contest.depth,
            contest.evaluation, contest.max_moves, contest.move_time_limit, contest.game_time_limit) == \
        (10, 0, "random", None, "project", 1, "submission", 500, 2.0, 60.0)
    assert [test.num_ghosts for test in contest.games_tests()] == [1]


def _reflex_and_tree_questions() -> str:
    return textwrap.dedent("""\
        [[questions]]
        id = "reflex"
        points = 1
        agent_class = "ReflexAgent"

        [[questions.tests]]
        kind = "games"
        layout = "test"
        games = 1
        thresholds = [{ measure = "wins", at_least = 1 }]

        [[questions]]
        id = "minimax"
        points = 1
        search = "minimax"

        [[questions.tests]]
        kind = "positions"
        ghosts = 1
        depth = 1
        positions = [{ layout = "test" }]
        """)


def test_an_agent_question_plays_the_students_class(tmp_path):
    head, _, _ = ASSIGNMENT.partition("[leaderboard]")
    (tmp_path / "assignment.toml").write_text(head + _reflex_and_tree_questions()
                                              + '[leaderboard]\nquestion = "minimax"\nlayouts = ["test"]\n')
    contest = load_assignment(tmp_path).leaderboard
    assert (contest.agent, contest.agent_class, contest.depth, contest.evaluation) == \
        ("submission", "MinimaxAgent", 2, "better")
    (tmp_path / "assignment.toml").write_text(head + _reflex_and_tree_questions()
                                              + '[leaderboard]\nquestion = "reflex"\nlayouts = ["test"]\n')
    contest = load_assignment(tmp_path).leaderboard
    assert (contest.agent, contest.agent_class) == ("submission", "ReflexAgent")


@pytest.mark.parametrize("table, key, message", [
    ('question = "evaluation"\nlayouts = ["test"]\nrounds = 3\n', "leaderboard.rounds",
     "unknown key (expected one of: depth, evaluation, game_time_limit, games, ghosts, layouts, max_moves, "
     "move_time_limit, num_ghosts, question, seed)"),
    ('layouts = ["test"]\n', "leaderboard.question", "missing"),
    ('question = "nope"\nlayouts = ["test"]\n', "leaderboard.question",
     "no question 'nope' (the questions are: evaluation, more"),
    ('question = "evaluation"\n', "leaderboard.layouts", "expected a list of 1 to 20 layouts"),
    ('question = "evaluation"\nlayouts = []\n', "leaderboard.layouts", "expected a list of 1 to 20 layouts"),
    ('question = "evaluation"\nlayouts = ["test", "nowhere"]\n', "leaderboard.layouts[1]",
     "'nowhere' is neither a file of"),
    ('question = "evaluation"\nlayouts = ["test", 3]\n', "leaderboard.layouts[1]", "expected a layout name, got 3"),
    ('question = "evaluation"\nlayouts = ["test", "test"]\n', "leaderboard.layouts[1]",
     "layout 'test' is listed twice"),
    ('question = "evaluation"\nlayouts = ["test", "tiny"]\ngames = 6000\n', "leaderboard.games",
     f"a contest may play at most {MAX_GAMES:,} games in all"),
    ('question = "evaluation"\nlayouts = ["test"]\ngames = 0\n', "leaderboard.games", "expected a value >= 1"),
    ('question = "evaluation"\nlayouts = ["test"]\nseed = -1\n', "leaderboard.seed", "expected a value >= 0"),
    ('question = "evaluation"\nlayouts = ["test"]\nghosts = "angry"\n', "leaderboard.ghosts",
     "expected one of random, directional"),
    ('question = "evaluation"\nlayouts = ["test", "small"]\nnum_ghosts = 2\n', "leaderboard.num_ghosts",
     "layout 'test' has 1 ghost"),
    ('question = "evaluation"\nlayouts = ["test"]\nevaluation = "better"\n', "leaderboard.evaluation",
     "expected one of submission, got 'better'"),
    ('question = "evaluation"\nlayouts = ["test"]\nmove_time_limit = 0\n', "leaderboard.move_time_limit",
     "expected a value >= 0.01"),
    ('question = "reflex"\nlayouts = ["test"]\ndepth = 2\n', "leaderboard.depth",
     "plays the student's ReflexAgent(), built with no arguments: a contest of it takes no depth"),
])
def test_every_key_of_the_leaderboard_table_is_checked_by_name(tmp_path, table, key, message):
    head, _, _ = ASSIGNMENT.partition("[leaderboard]")
    (tmp_path / "assignment.toml").write_text(head + _reflex_and_tree_questions() + "[leaderboard]\n" + table)
    with pytest.raises(AssignmentError) as caught:
        load_assignment(tmp_path)
    assert f"assignment.toml: {key}: " in str(caught.value) and message in str(caught.value)


def test_a_question_whose_games_play_no_student_code_has_no_contest(tmp_path):
    text = ASSIGNMENT.replace('agent = "project"\ndepth = 1\nmax_moves = 60\nthresholds = [{ measure = "wins", '
                              'at_least = 1', 'agent = "project"\nevaluation = "better"\ndepth = 1\nmax_moves = 60\n'
                              'thresholds = [{ measure = "wins", at_least = 1', 1)
    (tmp_path / "assignment.toml").write_text(text)
    with pytest.raises(AssignmentError, match=r"leaderboard\.question: question 'evaluation' has the project's "
                                              r"expectimax play with the 'better' evaluation"):
        load_assignment(tmp_path)


def test_a_leaderboard_that_is_not_a_table_and_a_bad_visibility_are_refused_by_name(tmp_path):
    head, _, _ = ASSIGNMENT.partition("[leaderboard]")
    (tmp_path / "assignment.toml").write_text(head + "[[leaderboard]]\nquestion = 'evaluation'\n")
    with pytest.raises(AssignmentError, match=r"assignment\.toml: leaderboard: expected a \[leaderboard\] table"):
        load_assignment(tmp_path)
    (tmp_path / "assignment.toml").write_text(head.replace('visibility = "after_due_date"', 'visibility = "later"'))
    with pytest.raises(AssignmentError, match=r"questions\[0\]\.visibility: expected one of visible, hidden, "
                                              r"after_due_date, after_published, got 'later'"):
        load_assignment(tmp_path)


def test_bad_calls_are_refused_before_anything_runs(folder):
    assignment = load_assignment(folder)
    with pytest.raises(LeaderboardError, match="jobs: expected a whole number >= 1, got 0"):
        play_leaderboard(assignment, {"a": folder / "score.py"}, jobs=0)
    with pytest.raises(LeaderboardError, match=r"assignment 'contest' has no contest: add a \[leaderboard\] table"):
        play_leaderboard(dataclasses.replace(assignment, leaderboard=None), {"a": folder / "score.py"})
    with pytest.raises(LeaderboardError, match="a student's key must be a printable, non-blank string"):
        play_leaderboard(assignment, {" ": folder / "score.py"})
    assert play_leaderboard(assignment, {}) == []
