"""The shipped `multiagent` assignment, graded as a user would: `pacman-ai grade multiagent FILE` in a temp dir.

The reference solution and the known-wrong variants live in tests/submissions/multiagent/
(never in the package): each variant is the reference with one mistake and must lose
exactly the points of the question that tests that mistake. Also here: the keys that
let a tree or positions test check minimax or alpha-beta (`search`, `agent_class`) and
the strict alpha-beta (`Searcher(prune_ties=False)`) that alpha-beta expansions are
counted by.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pacman.agents.search import Searcher
from pacman.agents.trees import TreeGame, parse_tree
from pacman.grading import AssignmentError, load_assignment
from pacman.grading.checks import prepare

SUBMISSIONS = Path(__file__).resolve().parent / "submissions" / "multiagent"
ASSIGNMENT = load_assignment("multiagent")
TREES = ASSIGNMENT.directory / "trees"
QUESTIONS = {"reflex": 4.0, "minimax": 5.0, "alphabeta": 5.0, "expectimax": 5.0, "evaluation": 6.0}

#: Each wrong variant, the question that tests its mistake, and what the report says about it.
VARIANTS = {
    "minimax_depth_per_agent": ("minimax", "did not expand"),
    "alphabeta_prune_on_equality": ("alphabeta", "pruned on equality"),
    "alphabeta_no_pruning": ("alphabeta", "alpha-beta to depth"),
    "alphabeta_reversed": ("alphabeta", "alpha-beta to depth"),
    "expectimax_min_ghosts": ("expectimax", "expected"),
    "reflex_stop": ("reflex", "0 won"),
}


def grade_cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """`pacman-ai grade ARGS` as a user runs it (the console script of this environment)."""
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(["pacman-ai", "grade", *args], capture_output=True, text=True, timeout=600, cwd=cwd,
                          env=env)


def graded(tmp_path: Path, name: str, *questions: str) -> dict:
    """Grade submissions/multiagent/NAME.py, copied into a fresh folder as multi_agents.py; the --json report."""
    shutil.copy(SUBMISSIONS / f"{name}.py", tmp_path / "multi_agents.py")
    chosen = [word for q in questions for word in ("--question", q)]
    done = grade_cli(tmp_path, "multiagent", "multi_agents.py", *chosen, "--json", "out.json")
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "out.json").read_text())
    report["printed"] = done.stdout
    return report


def question_scores(report: dict) -> dict[str, float]:
    return {q["id"]: q["score"] for q in report["questions"]}


# -- the assignment as shipped ---------------------------------------------------------------


def test_questions_points_and_what_each_calls():
    assert [(q.id, q.points) for q in ASSIGNMENT.questions] == list(QUESTIONS.items())
    assert ASSIGNMENT.max_score == 25 and ASSIGNMENT.submission_file == "multi_agents.py"
    calls = {q.id: {(t.kind, getattr(t, "search", None), t.agent_class if t.kind != "games" or t.agent ==
                     "submission" else "project") for t in q.tests} for q in ASSIGNMENT.questions}
    assert calls["reflex"] == {("games", None, "ReflexAgent")}
    assert calls["minimax"] == {("tree", "minimax", "MinimaxAgent"), ("positions", "minimax", "MinimaxAgent")}
    assert calls["alphabeta"] == {("tree", "alphabeta", "AlphaBetaAgent"),
                                  ("positions", "alphabeta", "AlphaBetaAgent")}
    assert calls["expectimax"] == {("tree", "expectimax", "ExpectimaxAgent"),
                                   ("positions", "expectimax", "ExpectimaxAgent")}
    assert calls["evaluation"] == {("games", None, "project")}


@pytest.mark.parametrize("question", ["minimax", "alphabeta"])
def test_min_trees_have_one_two_and_three_min_layers_depth_cuts_and_early_ends(question):
    tests = [t for t in ASSIGNMENT.question(question).tests if t.kind == "tree"]
    assert {t.ghosts for t in tests} == {1, 2, 3}
    assert any(t.tree.height > t.depth * (t.ghosts + 1) for t in tests)  # the depth limit cuts inside the tree
    leaf_levels = set()
    for t in tests:
        stack = [(t.tree, 0)]
        while stack:
            node, level = stack.pop()
            if node.kind == "terminal":
                leaf_levels.add((t.name, level < t.tree.height))
            stack.extend((child, level + 1) for child in node.children)
    assert any(early for _, early in leaf_levels)  # a game that ends before the tree's last level
    positions = [t for t in ASSIGNMENT.question(question).tests if t.kind == "positions"]
    assert {t.ghosts for t in positions} == {1, 2, 3}


def test_alpha_beta_expansions_differ_from_minimax_on_every_test():
    """Every alpha-beta test prunes: its expected expansions are fewer than minimax's on the same search."""
    for test in ASSIGNMENT.question("alphabeta").tests:
        pruned = prepare(test)
        plain = prepare(dataclasses.replace(test, search="minimax", agent_class="MinimaxAgent"))
        if test.kind == "tree":
            assert len(set(pruned.expected)) < len(set(plain.expected)), test.name
        else:
            assert sum(len(e[3]) for e in pruned.expected) < sum(len(e[3]) for e in plain.expected), test.name


# -- the reference and the wrong variants, by the CLI ----------------------------------------------


def test_reference_scores_full_marks_on_minimax_and_alphabeta(tmp_path):
    report = graded(tmp_path, "reference", "minimax", "alphabeta")
    assert question_scores(report) == {"minimax": 5.0, "alphabeta": 5.0}
    assert all(t["passed"] for q in report["questions"] for t in q["tests"])


@pytest.mark.slow
def test_reference_scores_25_of_25(tmp_path):
    report = graded(tmp_path, "reference")
    assert question_scores(report) == QUESTIONS
    assert (report["score"], report["max_score"]) == (25, 25)
    assert "Total: 25/25" in report["printed"]


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_each_wrong_variant_scores_0_on_the_question_that_tests_its_mistake(tmp_path, name):
    question, reason = VARIANTS[name]
    report = graded(tmp_path, name, question)
    assert question_scores(report) == {question: 0.0}
    messages = [m for q in report["questions"] for t in q["tests"] for m in t["messages"]]
    assert all(not t["passed"] for q in report["questions"] for t in q["tests"])
    assert any(reason in m for m in messages), messages[:3]
    if name == "alphabeta_prune_on_equality":  # the report names the node that pruning on equality skipped
        assert report["questions"][0]["tests"][0]["messages"] == [
            "trees/ab-two-min-layers.json (alpha-beta, depth 1, 2 ghosts): did not expand 1 node(s) that "
            "alpha-beta to depth 1 must expand: $.max[2].min[1] (pruned on equality, or in another order, or a "
            "depth limit reached too early?)"]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_each_wrong_variant_keeps_every_other_question(tmp_path, name):
    question, _ = VARIANTS[name]
    report = graded(tmp_path, name)
    assert question_scores(report) == {**QUESTIONS, question: 0.0}
    assert report["score"] == 25 - QUESTIONS[question]


@pytest.mark.parametrize("name, points, summary", [
    ("reflex_reciprocal", 4.0, "10 won, average score 941.4"),  # another sensible agent, weighted differently
    ("reflex_ignores_ghosts", 0.0, "1 won, average score -118.4"),
])
def test_reflex_games_reward_food_seeking_that_avoids_the_ghost(tmp_path, name, points, summary):
    report = graded(tmp_path, name, "reflex")
    assert question_scores(report) == {"reflex": points}
    assert summary in report["questions"][0]["tests"][0]["messages"][0]


def test_starter_is_valid_python_that_scores_0_without_crashing_the_grader(tmp_path):
    done = grade_cli(tmp_path, "multiagent", "--starter")
    assert done.returncode == 0, done.stderr
    compile(done.stdout, "multi_agents.py", "exec")
    for name in ("class ReflexAgent", "def score_action", "class MinimaxAgent", "class AlphaBetaAgent",
                 "class ExpectimaxAgent", "def better_evaluation", "pacman-ai grade multiagent multi_agents.py"):
        assert name in done.stdout
    (tmp_path / "multi_agents.py").write_text(done.stdout)
    graded_run = grade_cli(tmp_path, "multiagent", "multi_agents.py", "--json", "out.json")
    assert graded_run.returncode == 0, graded_run.stderr
    report = json.loads((tmp_path / "out.json").read_text())
    assert question_scores(report) == {q: 0.0 for q in QUESTIONS}
    messages = [m for q in report["questions"] for t in q["tests"] for m in t["messages"]]
    assert any("NotImplementedError: MinimaxAgent.get_action" in m for m in messages)
    assert any("NotImplementedError: ReflexAgent.score_action" in m for m in messages)
    assert "Total: 0/25" in graded_run.stdout


def _multiagent_play_commands() -> list[str]:
    """The "watch it play" commands of the multiagent starter and of its section in docs/grading.md."""
    docs = (Path(__file__).resolve().parent.parent / "docs" / "grading.md").read_text()
    section = docs[docs.index("## The `multiagent` assignment"):docs.index("## The assignment format")]
    starter = (ASSIGNMENT.directory / "starter.py").read_text()
    commands = re.findall(r"^\s*(pacman-ai play --pacman multi_agents\.py:\S.*?)\s*$", section + "\n" + starter,
                          re.M)
    assert len(commands) == 5 and len(set(commands)) == 3, commands  # two in the docs, three in the starter
    return sorted(set(commands))


@pytest.mark.parametrize("command", _multiagent_play_commands())
def test_the_documented_play_commands_play_the_students_agents(tmp_path, command):
    shutil.copy(SUBMISSIONS / "reference.py", tmp_path / "multi_agents.py")
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    argv = shlex.split(command) + ["--display", "none", "--json", "--seed", "3", "--max-moves", "15"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    game = json.loads(done.stdout.splitlines()[0])
    assert game["pacman"] == argv[3] and not game["crashed"], game
    # A game cut off by --max-moves says so; any other game has no error.
    assert game["error"] == (f"cut off after {game['moves']} Pacman moves, the move limit" if game["cut_off"]
                             else None), game
    assert game["moves"] == 15 or game["outcome"] in ("won", "lost")


def test_gradescope_package_names_the_multiagent_assignment(tmp_path):
    done = grade_cli(tmp_path, "multiagent", "--gradescope-package", "pkg", "--requirement", "pacman-ai")
    assert done.returncode == 0, done.stderr
    run = (tmp_path / "pkg" / "run_autograder").read_text()
    assert "assignment=multiagent\n" in run and 'submission="$root/submission/multi_agents.py"' in run
    assert not (tmp_path / "pkg" / "assignment").exists()  # shipped: it comes with the installed package


# -- the search a test checks, and the class it calls ------------------------------------------


def test_strict_alpha_beta_prunes_only_on_strict_inequality():
    """East's first min child is worth exactly alpha (3): only pruning on equality skips its second."""
    root = parse_tree(json.loads((TREES / "ab-two-min-layers.json").read_text()))

    class Counting(TreeGame):
        def __init__(self, root):
            super().__init__(root)
            self.expanded = []

        def children(self, node):
            self.expanded.append(node.path)
            return super().children(node)

    counts = {}
    for name, options in {"plain": {}, "ties": {"prune": True}, "strict": {"prune": True, "prune_ties": False}}.items():
        game = Counting(root)
        result = Searcher(game, **options).search(root, 3, all_values=False)
        assert (result.value, result.action) == (3, "West")
        counts[name] = game.expanded
    assert len(counts["plain"]) == 10
    assert len(counts["strict"]) == 9 and "$.max[1].min[1]" not in counts["strict"]
    assert set(counts["strict"]) - set(counts["ties"]) == {"$.max[2].min[1]"}


def _random_min_tree(rng: random.Random, ghosts: int, levels: int, level: int = 0) -> object:
    """A layered max/min tree with small whole values (so that ties with alpha and beta are common)."""
    if level == levels or (level and rng.random() < 0.15):
        return rng.randint(0, 6)
    kind = "max" if level % (ghosts + 1) == 0 else "min"
    return {kind: [_random_min_tree(rng, ghosts, levels, level + 1) for _ in range(rng.randint(1, 3))]}


def _textbook_alpha_beta(node, alpha: float, beta: float, expanded: list) -> float:
    """Alpha-beta as the assignment states it, written out plainly: action order, cuts on strict inequality."""
    if node.kind == "terminal":
        return node.value
    expanded.append(node.path)
    if node.kind == "max":
        best = -math.inf
        for child in node.children:
            best = max(best, _textbook_alpha_beta(child, alpha, beta, expanded))
            if best > beta:
                return best
            alpha = max(alpha, best)
        return best
    best = math.inf
    for child in node.children:
        best = min(best, _textbook_alpha_beta(child, alpha, beta, expanded))
        if best < alpha:
            return best
        beta = min(beta, best)
    return best


def test_strict_alpha_beta_expands_what_the_textbook_rule_expands_on_random_trees():
    rng = random.Random(13)
    for _ in range(300):
        ghosts = rng.randint(1, 3)
        root = parse_tree(_random_min_tree(rng, ghosts, 2 * (ghosts + 1)))
        if root.kind != "max":
            continue

        class Counting(TreeGame):
            expanded: list = []

            def children(self, node):
                self.expanded.append(node.path)
                return super().children(node)

        game = Counting(root)
        game.expanded = []
        result = Searcher(game, prune=True, prune_ties=False).search(root, math.inf, all_values=False)
        textbook: list = []
        value = _textbook_alpha_beta(root, -math.inf, math.inf, textbook)
        assert result.value == value == Searcher(TreeGame(root)).search(root).value
        assert game.expanded == textbook


def write_assignment(folder: Path, test: str, question_keys: str = "", tree: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "assignment.toml").write_text(textwrap.dedent(f"""
        [[questions]]
        id = "q"
        points = 1
        {question_keys}

        [[questions.tests]]
        """) + textwrap.dedent(test))
    (folder / "t.json").write_text(tree or '{"max": [{"min": [1, 2]}, {"min": [3, 0]}]}')
    return folder


TREE_TEST = 'kind = "tree"\nname = "t"\ntree = "t.json"\nghosts = 1\ndepth = 1\n'


@pytest.mark.parametrize("question_keys, test, message", [
    ("", TREE_TEST + 'search = "negamax"\n',
     "questions[0].tests[0].search: expected one of expectimax, minimax, alphabeta, got 'negamax'"),
    ("", TREE_TEST + 'search = "minimax"\nagent_class = "MinMaxAgent"\n',
     "questions[0].tests[0].agent_class: expected one of ExpectimaxAgent, MinimaxAgent, AlphaBetaAgent, "
     "ReflexAgent, got 'MinMaxAgent'"),
    ('agent_class = "Minimax"', TREE_TEST + 'search = "minimax"\n',
     "questions[0].agent_class: expected one of ExpectimaxAgent"),
    ('agent_class = "ReflexAgent"', TREE_TEST + 'search = "minimax"\n',
     "questions[0].agent_class: ReflexAgent is built with no arguments (no depth, no evaluation), so it can only "
     "play games tests"),
    ("", TREE_TEST + 'search = "minimax"\nagent_class = "ReflexAgent"\n',
     "questions[0].tests[0].agent_class: ReflexAgent is built with no arguments"),
    ("", TREE_TEST, "$.max[0]: level 1 is ghost 1 (chance)'s with 1 ghost (for expectimax, levels go max, then "
                    "1 chance, then max, ...), got a min node"),
    ('search = "alphabeta"', TREE_TEST.replace('"t.json"', '"c.json"'), None),
    ("", 'kind = "games"\nlayout = "test"\ngames = 1\nagent = "project"\nagent_class = "MinimaxAgent"\n'
         'thresholds = [{ measure = "wins", at_least = 1 }]\n',
     "questions[0].tests[0].agent_class: the project agent plays here (agent = 'project'); agent_class names "
     "the submission's class"),
    ("", 'kind = "games"\nlayout = "test"\ngames = 1\nagent_class = "ReflexAgent"\ndepth = 2\n'
         'thresholds = [{ measure = "wins", at_least = 1 }]\n',
     "questions[0].tests[0].depth: ReflexAgent() is built with no arguments, so a games test that it plays "
     "takes no depth"),
])
def test_bad_search_and_class_keys_name_the_key(tmp_path, question_keys, test, message):
    folder = write_assignment(tmp_path / "a", test, question_keys)
    if message is None:  # a chance tree under a question whose tests check alpha-beta
        (folder / "c.json").write_text('{"max": [{"chance": [1, 2]}]}')
        message = "level 1 is ghost 1 (min)'s with 1 ghost (for minimax and alpha-beta, levels go max, then 1 min"
    with pytest.raises(AssignmentError) as info:
        load_assignment(folder)
    assert message in str(info.value)


def test_question_defaults_apply_to_its_tests_and_a_test_overrides_them(tmp_path):
    folder = write_assignment(tmp_path / "a", TREE_TEST + '\n[[questions.tests]]\n' + TREE_TEST.replace(
        'name = "t"', 'name = "u"') + 'agent_class = "MinimaxAgent"\n', 'search = "alphabeta"')
    first, second = load_assignment(folder).questions[0].tests
    assert (first.search, first.agent_class) == ("alphabeta", "AlphaBetaAgent")
    assert (second.search, second.agent_class) == ("alphabeta", "MinimaxAgent")


def test_the_expectimax_assignment_still_calls_expectimax_agent():
    for question in load_assignment("expectimax").questions:
        for test in question.tests:
            assert test.agent_class == "ExpectimaxAgent"
            assert getattr(test, "search", "expectimax") == "expectimax"
