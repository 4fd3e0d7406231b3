"""Assignments: a directory with ``assignment.toml`` and its test files, read and checked up front.

Everything an assignment refers to (trees, layouts, the starter) is read and
validated when the assignment is loaded, before any submission runs, so that a
submission cannot change what it is graded against and an instructor's mistake
is reported before grading starts. Every error is an `AssignmentError` naming the
file and the TOML key (``questions[1].tests[0].depth``) or JSON path at fault.

The format is documented for instructors in ``docs/grading.md``.
"""

from __future__ import annotations

import math
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Union

from pacman.agents.evaluation import EVALUATIONS
from pacman.agents.ghosts import GHOST_KINDS
from pacman.agents.search import CHANCE, MAX, MIN, TERMINAL
from pacman.agents.trees import MAX_TREE_BYTES, TreeNode, decode_tree_json, parse_tree
from pacman.actions import Action
from pacman.errors import IllegalActionError, PacmanError
from pacman.files import read_input_file
from pacman.game import replay_actions
from pacman.grading.forbidden import DEFAULT_FORBIDDEN_IMPORTS, RuleError, check_rules
from pacman.layout import LAYOUT_ALIASES, Layout, layout_names, load_layout
from pacman.state import GameState

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = [
    "AssignmentError",
    "Threshold",
    "TreeTest",
    "Position",
    "PositionsTest",
    "GamesTest",
    "AssignmentTest",
    "Contest",
    "Question",
    "Assignment",
    "load_assignment",
    "shipped_assignments",
    "shipped_directory",
    "EVALUATION_CHOICES",
    "MEASURES",
    "SEARCHES",
    "AGENT_CLASSES",
]

#: What a positions or games test may name as the evaluation: a registered one (pacman.agents.evaluation.EVALUATIONS),
#: or "submission" (the submission's better_evaluation; games tests only).
EVALUATION_CHOICES = (*EVALUATIONS, "submission")
#: What a games threshold may measure.
MEASURES = ("wins", "average_score", "timeouts")
#: The searches a tree or positions test checks: ghosts as uniform chance layers, as min layers, or
#: as min layers searched by alpha-beta (the expanded states are then those of a strict alpha-beta).
SEARCHES = ("expectimax", "minimax", "alphabeta")
#: The submission classes a test may call; ReflexAgent is built with no arguments (games tests only),
#: the others as ``Class(depth=..., evaluation=...)``.
AGENT_CLASSES = ("ExpectimaxAgent", "MinimaxAgent", "AlphaBetaAgent", "ReflexAgent")
_REFLEX_AGENT = "ReflexAgent"
#: The class a tree or positions test calls when neither it nor its question names one.
_SEARCH_CLASSES = {"expectimax": "ExpectimaxAgent", "minimax": "MinimaxAgent", "alphabeta": "AlphaBetaAgent"}
_VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
_SCORINGS = ("partial", "all")
#: What a games test's `agent = "project"` was called before; assignments that use it keep working.
_OLD_PROJECT_AGENT = "reference"
#: Limits that keep an assignment's own mistakes from hanging or flooding the grader.
MAX_TOML_BYTES = 1 << 20
MAX_STARTER_BYTES = 1 << 20
#: Levels a tree test's tree may have below its root (the submission's search recurses on them).
MAX_TREE_TEST_HEIGHT = 200
#: Games one games test may play; also the most games of a contest, over all its layouts.
MAX_GAMES = 10_000
#: Layouts a contest ([leaderboard]) may have.
MAX_CONTEST_LAYOUTS = 20
#: Seconds any time limit may be.
MAX_TIME_LIMIT = 3600.0
#: Points any question, test or threshold may be worth.
MAX_POINTS = 1_000_000
_SUBMISSION_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\.py")


class AssignmentError(PacmanError):
    """An assignment that cannot be used; the message names the file and the key or JSON path."""


@dataclass(frozen=True)
class Threshold:
    """One bar of a games test: earns `points` when the measure is at least (or at most) the bound."""

    measure: str
    """"wins", "average_score" or "timeouts"."""
    bound: float
    """The bound the measure is compared with."""
    at_most: bool
    """True: the measure must be <= bound; False: >= bound."""
    points: float
    """Points earned when the bar is met."""

    def describe(self) -> str:
        """E.g. ``wins >= 3``."""
        bound = int(self.bound) if float(self.bound).is_integer() else self.bound
        return f"{self.measure} {'<=' if self.at_most else '>='} {bound}"

    def is_met(self, value: float) -> bool:
        """Whether `value` of the measure clears this bar."""
        return value <= self.bound if self.at_most else value >= self.bound


@dataclass(frozen=True)
class TreeTest:
    """An explicit tree searched `depth` plies deep, with `ghosts` chance layers per ply."""

    name: str
    points: float
    file: str
    """The tree's path relative to the assignment directory."""
    data: Any
    """The tree's decoded JSON, sent to the submission's process as is."""
    tree: TreeNode
    ghosts: int
    depth: int
    time_limit: float
    action: tuple[str, ...] | None = None
    """Pinned correct root actions (None: the project's search decides)."""
    expansions: int | None = None
    """Pinned number of expanded nodes (None: the project's search decides)."""
    search: str = "expectimax"
    """"expectimax", "minimax" or "alphabeta": what the expected answers come from."""
    agent_class: str = "ExpectimaxAgent"
    """The submission's class the test builds, ``Class(depth=..., evaluation=...)``."""
    kind: str = "tree"


@dataclass(frozen=True)
class Position:
    """A layout and the moves (every agent's, in turn order) that lead to the position searched."""

    layout: Layout
    prefix: tuple[Action, ...]
    state: GameState
    action: tuple[Action, ...] | None = None
    expansions: int | None = None

    @property
    def label(self) -> str:
        """E.g. ``small after West North East`` or ``small at the start``."""
        moves = " ".join(a.value for a in self.prefix)
        return f"{self.layout.name} after {moves}" if moves else f"{self.layout.name} at the start"


@dataclass(frozen=True)
class PositionsTest:
    """Positions searched `depth` plies deep with the first `ghosts` ghosts as uniform chance layers."""

    name: str
    points: float
    positions: tuple[Position, ...]
    ghosts: int
    depth: int
    evaluation: str
    time_limit: float
    search: str = "expectimax"
    """"expectimax", "minimax" or "alphabeta": ghosts as chance or min layers, and which expansions."""
    agent_class: str = "ExpectimaxAgent"
    kind: str = "positions"


@dataclass(frozen=True)
class GamesTest:
    """Whole games, scored by thresholds on wins, average score and timeouts."""

    name: str
    points: float
    layout: Layout
    ghost_kind: str
    num_ghosts: int
    seeds: tuple[int, ...]
    agent: str
    """"submission": the submission's `agent_class`; "project": the project's expectimax."""
    depth: int
    evaluation: str
    max_moves: int
    move_time_limit: float
    game_time_limit: float
    thresholds: tuple[Threshold, ...]
    require_wins: int = 0
    """Fewer wins than this and no threshold counts (so that "no timeouts" alone earns nothing)."""
    agent_class: str = "ExpectimaxAgent"
    """The submission's class that plays (agent "submission"); ReflexAgent is built with no arguments."""
    kind: str = "games"


AssignmentTest = Union[TreeTest, PositionsTest, GamesTest]


@dataclass(frozen=True)
class Question:
    """A graded question: its tests and how their points make its score."""

    id: str
    title: str
    points: float
    scoring: str
    """"partial": points in proportion to the test points earned; "all": every test must pass."""
    visibility: str
    """Gradescope visibility of the question's result."""
    tests: tuple[AssignmentTest, ...]


@dataclass(frozen=True)
class Contest:
    """The assignment's contest (its ``[leaderboard]`` table): every student's code on the same seeded games.

    The code that plays is the one `question` grades: for a question whose games
    the project's expectimax plays with the submission's evaluation, the student's
    ``better_evaluation`` inside that expectimax at the question's depth; for an
    agent question, the student's `agent_class`. `games_tests` gives the games as
    games tests, which the grading sandbox plays as it plays a games test.
    """

    question: str
    """The id of the question whose code plays."""
    layouts: tuple[Layout, ...]
    """The contest layouts, in order."""
    games: int
    """Games per layout."""
    seed: int
    """The first seed: every layout's games have seeds `seed`, `seed` + 1, ..."""
    ghost_kind: str
    """The ghosts' kind (`pacman.agents.ghosts.GHOST_KINDS`)."""
    num_ghosts: int | None
    """Ghosts kept of each layout's (its first ones); None: all of them."""
    agent: str
    """"project": the project's expectimax with the submission's evaluation; "submission": its `agent_class`."""
    agent_class: str
    """The submission's class that plays (agent "submission")."""
    depth: int
    """Plies of the search (not used by ReflexAgent)."""
    evaluation: str
    """The evaluation the search is given: "submission" (its better_evaluation) or a registered one."""
    max_moves: int
    """Pacman moves before a game is cut off."""
    move_time_limit: float
    """Seconds per move; a slower move ends the game as timed out."""
    game_time_limit: float
    """Seconds per game; a longer game ends as timed out."""

    @property
    def seeds(self) -> tuple[int, ...]:
        """The seeds of every layout's games, in order."""
        return tuple(range(self.seed, self.seed + self.games))

    def games_tests(self) -> tuple[GamesTest, ...]:
        """The contest as one games test per layout (worth no points, without thresholds), for the sandbox."""
        return tuple(GamesTest(f"contest-{layout.name}", 0.0, layout, self.ghost_kind,
                               layout.num_ghosts if self.num_ghosts is None else self.num_ghosts, self.seeds,
                               self.agent, self.depth, self.evaluation, self.max_moves, self.move_time_limit,
                               self.game_time_limit, (), 0, self.agent_class)
                     for layout in self.layouts)


@dataclass(frozen=True)
class Assignment:
    """A loaded, validated assignment."""

    id: str
    title: str
    directory: Path
    questions: tuple[Question, ...]
    submission_file: str
    """The file name students submit (Gradescope looks for it)."""
    starter: str | None
    """The starter file's text, if the assignment has one."""
    memory_mb: int
    """The memory cap of the submission's process."""
    forbid_imports: tuple[str, ...] = DEFAULT_FORBIDDEN_IMPORTS
    """Modules (and their submodules) the submission may not import; every question is protected."""
    leaderboard: Contest | None = None
    """The contest of its ``[leaderboard]`` table; None without one."""

    @property
    def max_score(self) -> float:
        """The sum of the questions' points."""
        return sum(q.points for q in self.questions)

    def question(self, question_id: str) -> Question:
        """The question with this id; AssignmentError naming the ids there are."""
        for question in self.questions:
            if question.id == question_id:
                return question
        ids = ", ".join(q.id for q in self.questions)
        raise AssignmentError(f"assignment {self.id!r} has no question {question_id!r} (it has: {ids})")


def shipped_assignments() -> list[str]:
    """The ids of the assignments shipped with the package."""
    return sorted(p.parent.name for p in shipped_directory().glob("*/assignment.toml"))


def shipped_directory() -> Path:
    """The folder holding the shipped assignments, one directory each."""
    return Path(__file__).resolve().parent / "assignments"


def _answers(test: Callable[[], bool]) -> bool:
    """`test()`, False where the OS refuses the name itself (too long, a NUL character, ~nobody)."""
    try:
        return test()
    except (OSError, ValueError, RuntimeError):
        return False


def load_assignment(id_or_path: str | Path) -> Assignment:
    """Load a shipped assignment by id (``"expectimax"``) or an assignment directory by path."""
    text = str(id_or_path)
    if not text.strip():
        raise AssignmentError("the assignment is empty: give a shipped id such as 'expectimax', or a directory")
    shipped = shipped_directory() / text
    if "/" not in text and os.sep not in text and text not in (".", "..") \
            and _answers(lambda: (shipped / "assignment.toml").is_file()):
        directory = shipped
    else:
        try:
            directory = Path(text).expanduser()
        except RuntimeError:  # "~user" with no such home directory
            directory = Path(text)
        if _answers(lambda: directory.name == "assignment.toml" and os.path.lexists(directory)
                    and not directory.is_dir()):
            directory = directory.parent
        if not _answers(lambda: directory.is_dir() and os.path.lexists(directory / "assignment.toml")):
            names = ", ".join(shipped_assignments()) or "none"
            raise AssignmentError(f"{text}: not a shipped assignment ({names}) nor a directory "
                                  f"holding an assignment.toml")
    return _Reader(directory).read()


# -- reading ---------------------------------------------------------------------------


class _Reader:
    """Reads one assignment directory; every error names the file and the key."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.file = directory / "assignment.toml"
        #: The current question's defaults for its tests: key name -> (value, the TOML key it came from).
        self.defaults: dict[str, tuple[str, str]] = {}

    def error(self, key: str, message: str) -> AssignmentError:
        where = f"{self.file}: {key}: " if key else f"{self.file}: "
        return AssignmentError(where + message)

    def read(self) -> Assignment:
        raw = read_input_file(self.file, "an assignment.toml", MAX_TOML_BYTES, AssignmentError)
        try:
            data = tomllib.loads(raw.decode("utf-8-sig"))
        except UnicodeDecodeError as exc:
            raise self.error("", f"not UTF-8 text (byte {exc.start})") from None
        except tomllib.TOMLDecodeError as exc:
            raise self.error("", f"invalid TOML: {exc}") from None
        except RecursionError:
            raise self.error("", "invalid TOML: nested too deeply") from None
        except ValueError as exc:  # e.g. an integer with more digits than Python converts
            raise self.error("", f"invalid TOML: {str(exc).split(';')[0]}") from None
        self.known(data, "", {"assignment", "questions", "leaderboard"})
        head = self.table(data, "assignment")
        self.known(head, "assignment", {"id", "title", "submission_file", "starter", "memory_mb", "forbid_imports"})
        assignment_id = self.string(head, "assignment", "id", default=self.directory.name)
        title = self.string(head, "assignment", "title", default=assignment_id)
        submission_file = self.string(head, "assignment", "submission_file", default="submission.py")
        if not _SUBMISSION_NAME.fullmatch(submission_file):
            raise self.error("assignment.submission_file", f"expected a file name ending in .py (letters, digits, "
                                                           f"_, - and .), got {submission_file!r}")
        starter = None
        if "starter" in head:
            starter = self.read_file(self.string(head, "assignment", "starter"), "assignment.starter",
                                     "a starter file", MAX_STARTER_BYTES)
        memory_mb = int(self.number(head, "assignment", "memory_mb", default=1024, minimum=128, whole=True,
                                    maximum=1 << 20))
        forbid_imports = DEFAULT_FORBIDDEN_IMPORTS
        if "forbid_imports" in head:
            try:
                forbid_imports = check_rules(head["forbid_imports"])
            except RuleError as exc:
                index = "" if exc.index is None else f"[{exc.index}]"
                raise self.error(f"assignment.forbid_imports{index}", str(exc)) from None
        raw_questions = data.get("questions")
        if not isinstance(raw_questions, list) or not raw_questions:
            raise self.error("questions", "expected at least one [[questions]] table")
        questions = []
        seen: set[str] = set()
        for i, raw in enumerate(raw_questions):
            question = self.question(raw, f"questions[{i}]")
            if question.id in seen:
                raise self.error(f"questions[{i}].id", f"question id {question.id!r} is used twice")
            seen.add(question.id)
            questions.append(question)
        contest = None
        if "leaderboard" in data:
            contest = self.contest(self.table(data, "leaderboard"), questions)
        return Assignment(assignment_id, title, self.directory, tuple(questions), submission_file, starter, memory_mb,
                          forbid_imports, contest)

    def question(self, raw: Any, key: str) -> Question:
        if not isinstance(raw, dict):
            raise self.error(key, "expected a table")
        self.known(raw, key, {"id", "title", "points", "scoring", "visibility", "tests", "search", "agent_class"})
        question_id = self.string(raw, key, "id")
        if not question_id.replace("-", "").replace("_", "").isalnum():
            raise self.error(f"{key}.id", f"expected letters, digits, - and _, got {question_id!r}")
        title = self.string(raw, key, "title", default=question_id)
        points = self.number(raw, key, "points", minimum=0, maximum=MAX_POINTS)
        scoring = self.choice(raw, key, "scoring", _SCORINGS, default="partial")
        visibility = self.choice(raw, key, "visibility", _VISIBILITIES, default="visible")
        # Defaults for the question's tests: the search they check and the class they call.
        defaults = {name: (self.choice(raw, key, name, choices), f"{key}.{name}")
                    for name, choices in (("search", SEARCHES), ("agent_class", AGENT_CLASSES)) if name in raw}
        raw_tests = raw.get("tests")
        if not isinstance(raw_tests, list) or not raw_tests:
            raise self.error(f"{key}.tests", "expected at least one [[questions.tests]] table")
        tests = []
        names: set[str] = set()
        for j, raw_test in enumerate(raw_tests):
            test = self.test(raw_test, f"{key}.tests[{j}]", defaults)
            if test.name in names:
                raise self.error(f"{key}.tests[{j}].name", f"test name {test.name!r} is used twice in this question")
            names.add(test.name)
            tests.append(test)
        if sum(t.points for t in tests) <= 0:
            raise self.error(f"{key}.tests", "the tests are worth 0 points together; give at least one points > 0")
        return Question(question_id, title, points, scoring, visibility, tuple(tests))

    def test(self, raw: Any, key: str, defaults: dict[str, tuple[str, str]] | None = None) -> AssignmentTest:
        if not isinstance(raw, dict):
            raise self.error(key, "expected a table")
        kind = self.choice(raw, key, "kind", ("tree", "positions", "games"))
        self.defaults = defaults or {}
        return {"tree": self.tree_test, "positions": self.positions_test, "games": self.games_test}[kind](raw, key)

    def search_and_class(self, raw: dict, key: str) -> tuple[str, str]:
        """A tree or positions test's search and the class it calls (the test's keys, else its question's)."""
        search = self.choice(raw, key, "search", SEARCHES) if "search" in raw \
            else self.defaults.get("search", ("expectimax", ""))[0]
        if "agent_class" in raw:
            agent_class, where = self.choice(raw, key, "agent_class", AGENT_CLASSES), f"{key}.agent_class"
        else:
            agent_class, where = self.defaults.get("agent_class", (_SEARCH_CLASSES[search], key))
        if agent_class == _REFLEX_AGENT:
            raise self.error(where, f"{_REFLEX_AGENT} is built with no arguments (no depth, no evaluation), so it can "
                             f"only play games tests; a tree or positions test calls one of "
                             f"{', '.join(_SEARCH_CLASSES.values())}")
        return search, agent_class

    # -- the three kinds -----------------------------------------------------------------

    def tree_test(self, raw: dict, key: str) -> TreeTest:
        self.known(raw, key, {"kind", "name", "points", "tree", "ghosts", "depth", "time_limit", "action",
                              "expansions", "search", "agent_class"})
        search, agent_class = self.search_and_class(raw, key)
        file = self.string(raw, key, "tree")
        name = self.string(raw, key, "name", default=Path(file).stem)
        points = self.number(raw, key, "points", default=1, minimum=0, maximum=MAX_POINTS)
        ghosts = int(self.number(raw, key, "ghosts", minimum=1, whole=True, maximum=MAX_TREE_TEST_HEIGHT))
        depth = int(self.number(raw, key, "depth", minimum=1, whole=True, maximum=MAX_TREE_TEST_HEIGHT))
        time_limit = self.number(raw, key, "time_limit", default=10.0, minimum=0.01, maximum=MAX_TIME_LIMIT)
        source = str(self.directory / file)
        data = decode_tree_json(self.read_bytes(file, f"{key}.tree", "a JSON game tree", MAX_TREE_BYTES), source)
        tree = parse_tree(data, source)
        if tree.height > MAX_TREE_TEST_HEIGHT:
            raise self.error(f"{key}.tree", f"{file!r} is {tree.height} levels deep; a tree test's tree may be at "
                                            f"most {MAX_TREE_TEST_HEIGHT}")
        check_layered(tree, ghosts, depth, ghost_kind=CHANCE if search == "expectimax" else MIN)
        actions = self.actions(raw, key, [c.label for c in tree.children])
        expansions = self.expansions(raw, key)
        return TreeTest(name, points, file, data, tree, ghosts, depth, time_limit, actions, expansions, search,
                        agent_class)

    def positions_test(self, raw: dict, key: str) -> PositionsTest:
        self.known(raw, key, {"kind", "name", "points", "positions", "ghosts", "depth", "evaluation", "time_limit",
                              "search", "agent_class"})
        search, agent_class = self.search_and_class(raw, key)
        name = self.string(raw, key, "name", default=f"positions-{key}")
        points = self.number(raw, key, "points", default=1, minimum=0, maximum=MAX_POINTS)
        ghosts = int(self.number(raw, key, "ghosts", minimum=0, whole=True))
        depth = int(self.number(raw, key, "depth", minimum=1, whole=True, maximum=20))
        evaluation = self.choice(raw, key, "evaluation", tuple(EVALUATIONS), default="score")
        time_limit = self.number(raw, key, "time_limit", default=10.0, minimum=0.01, maximum=MAX_TIME_LIMIT)
        raw_positions = raw.get("positions")
        if not isinstance(raw_positions, list) or not raw_positions:
            raise self.error(f"{key}.positions", "expected a list of { layout = ..., prefix = ... } tables")
        positions = tuple(self.position(p, f"{key}.positions[{i}]", ghosts) for i, p in enumerate(raw_positions))
        return PositionsTest(name, points, positions, ghosts, depth, evaluation, time_limit, search, agent_class)

    def position(self, raw: Any, key: str, ghosts: int) -> Position:
        if not isinstance(raw, dict):
            raise self.error(key, "expected a table { layout = ..., prefix = ... }")
        self.known(raw, key, {"layout", "prefix", "action", "expansions"})
        layout = self.layout(raw, key)
        if ghosts > layout.num_ghosts:
            raise self.error(f"{key}.layout", f"layout {layout.name!r} has {layout.num_ghosts} ghosts, "
                                              f"the test asks for {ghosts}")
        prefix_raw = raw.get("prefix", "")
        if isinstance(prefix_raw, str):
            words = prefix_raw.split()
        elif isinstance(prefix_raw, list) and all(isinstance(w, str) for w in prefix_raw):
            words = list(prefix_raw)
        else:
            raise self.error(f"{key}.prefix", "expected a string of actions like \"West North East\" or a list")
        prefix = []
        for turn, word in enumerate(words):
            try:
                prefix.append(Action(word))
            except ValueError:
                raise self.error(f"{key}.prefix", f"move {turn + 1}: {word!r} is not an action "
                                                  f"(North, South, East, West, Stop)") from None
        state = GameState.initial(layout, num_ghosts=ghosts)
        agents = ghosts + 1
        played = 0
        try:
            for played, (_, state) in enumerate(replay_actions(state, prefix), start=1):
                if state.is_terminal() and played < len(prefix):
                    raise self.error(f"{key}.prefix", f"move {played + 1} ({prefix[played].value}): "
                                                      f"the game is already over")
        except IllegalActionError:
            # `state` is the one before the refused move, `played` the moves that were legal.
            agent = played % agents
            legal = ", ".join(a.value for a in state.legal_actions(agent))
            raise self.error(f"{key}.prefix", f"move {played + 1}: illegal action {prefix[played].value} by "
                                              f"agent {agent} at {state.agent_position(agent)}; legal: {legal}") from None
        if len(words) % agents:
            raise self.error(f"{key}.prefix", f"{len(words)} moves do not end on Pacman's turn: give whole "
                                              f"rounds of {agents} moves (Pacman, then each ghost)")
        if state.is_terminal():
            raise self.error(f"{key}.prefix", "the game is over after these moves: nothing to search")
        action = self.actions(raw, key, [a.value for a in state.legal_actions(0)])
        pinned = tuple(Action(a) for a in action) if action is not None else None
        return Position(layout, tuple(prefix), state, pinned, self.expansions(raw, key))

    def games_test(self, raw: dict, key: str) -> GamesTest:
        self.known(raw, key, {"kind", "name", "layout", "ghosts", "num_ghosts", "seed", "seeds", "games", "agent",
                              "depth", "evaluation", "max_moves", "move_time_limit", "game_time_limit",
                              "thresholds", "require_wins", "agent_class"})
        name = self.string(raw, key, "name", default=f"games-{key}")
        layout = self.layout(raw, key)
        ghost_kind = self.choice(raw, key, "ghosts", tuple(GHOST_KINDS), default="random")
        num_ghosts = int(self.number(raw, key, "num_ghosts", default=layout.num_ghosts, minimum=0, whole=True))
        if num_ghosts > layout.num_ghosts:
            raise self.error(f"{key}.num_ghosts", f"layout {layout.name!r} has {layout.num_ghosts} ghosts")
        if "seeds" in raw:
            if "seed" in raw or "games" in raw:
                raise self.error(f"{key}.seeds", "give either seeds = [...] or seed and games, not both")
            seeds = raw["seeds"]
            if not isinstance(seeds, list) or not seeds or len(seeds) > MAX_GAMES or not all(
                    isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 2 ** 63 for s in seeds):
                raise self.error(f"{key}.seeds", f"expected a non-empty list of at most {MAX_GAMES:,} whole "
                                                 f"numbers >= 0 and < 2**63")
            seeds = tuple(seeds)
        else:
            first = int(self.number(raw, key, "seed", default=0, minimum=0, whole=True, maximum=2 ** 62))
            count = int(self.number(raw, key, "games", minimum=1, whole=True, maximum=MAX_GAMES))
            seeds = tuple(range(first, first + count))
        if raw.get("agent") == _OLD_PROJECT_AGENT:
            raw = {**raw, "agent": "project"}
        agent = self.choice(raw, key, "agent", ("submission", "project"), default="submission")
        if "agent_class" in raw:
            if agent != "submission":
                raise self.error(f"{key}.agent_class", f"the {agent} agent plays here (agent = {agent!r}); "
                                                       f"agent_class names the submission's class, for agent = "
                                                       f"\"submission\"")
            agent_class = self.choice(raw, key, "agent_class", AGENT_CLASSES)
        else:
            agent_class = self.defaults.get("agent_class", ("ExpectimaxAgent", ""))[0]
        if agent == "submission" and agent_class == _REFLEX_AGENT:
            for unused in ("depth", "evaluation"):
                if unused in raw:
                    raise self.error(f"{key}.{unused}", f"{_REFLEX_AGENT}() is built with no arguments, so a "
                                                        f"games test that it plays takes no {unused}")
        depth = int(self.number(raw, key, "depth", default=2, minimum=1, whole=True, maximum=20))
        evaluation = self.choice(raw, key, "evaluation", EVALUATION_CHOICES, default="submission")
        max_moves = int(self.number(raw, key, "max_moves", default=500, minimum=1, whole=True, maximum=1_000_000))
        move_limit = self.number(raw, key, "move_time_limit", default=2.0, minimum=0.01, maximum=MAX_TIME_LIMIT)
        game_limit = self.number(raw, key, "game_time_limit", default=60.0, minimum=0.01, maximum=MAX_TIME_LIMIT)
        raw_thresholds = raw.get("thresholds")
        if not isinstance(raw_thresholds, list) or not raw_thresholds:
            raise self.error(f"{key}.thresholds", "expected a list of { measure = ..., at_least = ..., points = ... }")
        thresholds = tuple(self.threshold(t, f"{key}.thresholds[{i}]") for i, t in enumerate(raw_thresholds))
        points = sum(t.points for t in thresholds)
        require_wins = int(self.number(raw, key, "require_wins", default=0, minimum=0, whole=True))
        if require_wins > len(seeds):
            raise self.error(f"{key}.require_wins", f"{require_wins} wins required of only {len(seeds)} games")
        return GamesTest(name, points, layout, ghost_kind, num_ghosts, seeds, agent, depth, evaluation, max_moves,
                         move_limit, game_limit, thresholds, require_wins, agent_class)

    def contest(self, raw: dict, questions: list[Question]) -> Contest:
        """The [leaderboard] table: the contest layouts and games, and which question's code plays them."""
        key = "leaderboard"
        self.known(raw, key, {"question", "layouts", "games", "seed", "ghosts", "num_ghosts", "depth", "evaluation",
                              "max_moves", "move_time_limit", "game_time_limit"})
        question_id = self.string(raw, key, "question")
        question = next((q for q in questions if q.id == question_id), None)
        if question is None:
            raise self.error(f"{key}.question", f"no question {question_id!r} (the questions are: "
                                                f"{', '.join(q.id for q in questions)})")
        raw_layouts = raw.get("layouts")
        if not isinstance(raw_layouts, list) or not raw_layouts or len(raw_layouts) > MAX_CONTEST_LAYOUTS:
            raise self.error(f"{key}.layouts", f"expected a list of 1 to {MAX_CONTEST_LAYOUTS} layouts (shipped "
                                               f"names or .lay files of the assignment folder), got {raw_layouts!r}")
        layouts = []
        for i, name in enumerate(raw_layouts):
            where = f"{key}.layouts[{i}]"
            if not isinstance(name, str) or not name.strip():
                raise self.error(where, f"expected a layout name, got {name!r}")
            if name in raw_layouts[:i]:
                raise self.error(where, f"layout {name!r} is listed twice")
            layouts.append(self.named_layout(name, where))
        games = int(self.number(raw, key, "games", default=10, minimum=1, whole=True, maximum=MAX_GAMES))
        if games * len(layouts) > MAX_GAMES:
            raise self.error(f"{key}.games", f"{games:,} games on each of {len(layouts)} layouts: a contest may play "
                                             f"at most {MAX_GAMES:,} games in all")
        seed = int(self.number(raw, key, "seed", default=0, minimum=0, whole=True, maximum=2 ** 62))
        ghost_kind = self.choice(raw, key, "ghosts", tuple(GHOST_KINDS), default="random")
        num_ghosts = None
        if "num_ghosts" in raw:
            num_ghosts = int(self.number(raw, key, "num_ghosts", minimum=0, whole=True))
            fewer = [layout for layout in layouts if layout.num_ghosts < num_ghosts]
            if fewer:
                raise self.error(f"{key}.num_ghosts", f"layout {fewer[0].name!r} has {fewer[0].num_ghosts} "
                                                      f"ghost{'s' if fewer[0].num_ghosts != 1 else ''}")
        agent, agent_class, depth, evaluation = self.contest_player(raw, key, question)
        max_moves = int(self.number(raw, key, "max_moves", default=500, minimum=1, whole=True, maximum=1_000_000))
        move_limit = self.number(raw, key, "move_time_limit", default=2.0, minimum=0.01, maximum=MAX_TIME_LIMIT)
        game_limit = self.number(raw, key, "game_time_limit", default=60.0, minimum=0.01, maximum=MAX_TIME_LIMIT)
        return Contest(question.id, tuple(layouts), games, seed, ghost_kind, num_ghosts, agent, agent_class, depth,
                       evaluation, max_moves, float(move_limit), float(game_limit))

    def contest_player(self, raw: dict, key: str, question: Question) -> tuple[str, str, int, str]:
        """(agent, agent_class, depth, evaluation) of the contest: as the question's first games test plays, else
        the question's class with the table's depth (2) and evaluation (``better``); the table may change the depth
        and evaluation where they are used and the student's code still plays."""
        games = [test for test in question.tests if isinstance(test, GamesTest)]
        where = f"{key}.question"
        if games:
            first = games[0]
            agent, agent_class, depth, evaluation = first.agent, first.agent_class, first.depth, first.evaluation
            if agent == "project" and evaluation != "submission":
                raise self.error(where, f"question {question.id!r} has the project's expectimax play with the "
                                        f"{evaluation!r} evaluation: none of the student's code would play")
        else:
            agent, agent_class, depth, evaluation = "submission", question.tests[0].agent_class, 2, "better"
        reflex = agent == "submission" and agent_class == _REFLEX_AGENT
        if reflex:
            for unused in ("depth", "evaluation"):
                if unused in raw:
                    raise self.error(f"{key}.{unused}", f"question {question.id!r} plays the student's "
                                                        f"{_REFLEX_AGENT}(), built with no arguments: a contest of "
                                                        f"it takes no {unused}")
        depth = int(self.number(raw, key, "depth", default=depth, minimum=1, whole=True, maximum=20))
        if "evaluation" in raw:
            if agent == "project":
                evaluation = self.choice(raw, key, "evaluation", ("submission",))
            else:
                evaluation = self.choice(raw, key, "evaluation", EVALUATION_CHOICES)
        return agent, agent_class, depth, evaluation

    def threshold(self, raw: Any, key: str) -> Threshold:
        if not isinstance(raw, dict):
            raise self.error(key, "expected a table { measure = ..., at_least = ..., points = ... }")
        self.known(raw, key, {"measure", "at_least", "at_most", "points"})
        measure = self.choice(raw, key, "measure", MEASURES)
        if ("at_least" in raw) == ("at_most" in raw):
            raise self.error(key, "give exactly one of at_least and at_most")
        at_most = "at_most" in raw
        bound = self.number(raw, key, "at_most" if at_most else "at_least")
        points = self.number(raw, key, "points", default=1, minimum=0, maximum=MAX_POINTS)
        return Threshold(measure, bound, at_most, points)

    # -- values ------------------------------------------------------------------------------

    def known(self, raw: dict, key: str, allowed: set[str]) -> None:
        for name in raw:
            if name not in allowed:
                where = f"{key}.{name}" if key else name
                raise self.error(where, f"unknown key (expected one of: {', '.join(sorted(allowed))})")

    def table(self, raw: dict, name: str, required: bool = False) -> dict:
        value = raw.get(name)
        if value is None and not required:
            return {}
        if not isinstance(value, dict):
            raise self.error(name, f"expected a [{name}] table")
        return value

    def string(self, raw: dict, key: str, name: str, default: str | None = None) -> str:
        if name not in raw:
            if default is None:
                raise self.error(f"{key}.{name}", "missing")
            return default
        value = raw[name]
        if not isinstance(value, str) or not value.strip():
            raise self.error(f"{key}.{name}", f"expected a non-empty string, got {value!r}")
        return value

    def number(self, raw: dict, key: str, name: str, default: float | None = None, minimum: float | None = None,
               whole: bool = False, maximum: float | None = None) -> float:
        if name not in raw:
            if default is None:
                raise self.error(f"{key}.{name}", "missing")
            return default
        value = raw[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or (whole and value != int(value)):
            expected = "a whole number" if whole else "a number"
            raise self.error(f"{key}.{name}", f"expected {expected}, got {value!r}")
        if minimum is not None and value < minimum:
            raise self.error(f"{key}.{name}", f"expected a value >= {minimum:g}, got {value!r}")
        if maximum is not None and value > maximum:
            raise self.error(f"{key}.{name}", f"expected a value <= {maximum:g}, got {value!r}")
        return value

    def choice(self, raw: dict, key: str, name: str, choices: tuple[str, ...], default: str | None = None) -> str:
        value = self.string(raw, key, name, default=default)
        if value not in choices:
            raise self.error(f"{key}.{name}", f"expected one of {', '.join(choices)}, got {value!r}")
        return value

    def actions(self, raw: dict, key: str, legal: list[str]) -> tuple[str, ...] | None:
        if "action" not in raw:
            return None
        value = raw["action"]
        actions = [value] if isinstance(value, str) else value
        if not isinstance(actions, list) or not actions or not all(isinstance(a, str) for a in actions):
            raise self.error(f"{key}.action", "expected an action or a list of the correct actions")
        for action in actions:
            if action not in legal:
                raise self.error(f"{key}.action", f"{action!r} is not a root action (they are: {', '.join(legal)})")
        return tuple(actions)

    def expansions(self, raw: dict, key: str) -> int | None:
        if "expansions" not in raw:
            return None
        return int(self.number(raw, key, "expansions", minimum=1, whole=True))

    def layout(self, raw: dict, key: str) -> Layout:
        """The table's ``layout``: a .lay file of the assignment folder, else a shipped layout by name."""
        return self.named_layout(self.string(raw, key, "layout"), f"{key}.layout")

    def named_layout(self, name: str, where: str) -> Layout:
        """A .lay file of the assignment folder, else a shipped layout by name (never a file elsewhere); errors name
        the key `where`."""
        try:
            if os.path.lexists(self.directory / name):
                return load_layout(self.inside(name, where))
            if "/" in name or os.sep in name or name.endswith(".lay") or \
                    (name not in layout_names() and name not in LAYOUT_ALIASES):
                raise self.error(where, f"{name!r} is neither a file of {self.directory} nor a shipped "
                                        f"layout ({', '.join(layout_names())})")
            return load_layout(name)
        except AssignmentError:
            raise
        except PacmanError as exc:
            raise self.error(where, str(exc)) from None

    def inside(self, relative: str, key: str) -> Path:
        """`relative` as a path in the assignment folder; an error if it leads outside (.., an absolute path, a link)."""
        folder = self.directory.resolve()
        path = (self.directory / relative).resolve()
        if Path(relative).is_absolute() or (path != folder and folder not in path.parents):
            raise self.error(key, f"{relative!r} is outside the assignment folder {self.directory}")
        return path

    def read_bytes(self, relative: str, key: str, what: str, max_bytes: int) -> bytes:
        path = self.inside(relative, key)
        try:
            return read_input_file(path, what, max_bytes, AssignmentError)
        except AssignmentError as exc:
            why = str(exc).removeprefix(f"{path}: ")
            raise self.error(key, f"{relative!r} {why}" if why.startswith("cannot") else f"{relative!r}: {why}") \
                from None

    def read_file(self, relative: str, key: str, what: str, max_bytes: int) -> str:
        data = self.read_bytes(relative, key, what, max_bytes)
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise self.error(key, f"{relative!r} is not UTF-8 text (byte {exc.start})") from None


def check_layered(tree: TreeNode, ghosts: int, depth: int, ghost_kind: str = CHANCE) -> None:
    """Check that `tree` plays like Pacman with `ghosts` ghosts, searched `depth` plies deep.

    Levels go max, `ghost_kind` (chance or min) x `ghosts`, max, ...; leaves may sit
    at any level. Chance nodes must be uniform (ghosts move at random), and every
    inner node where the depth limit cuts needs a ``"value"``. Raises
    `AssignmentError` naming the JSON path.
    """
    layers = ghosts + 1
    cut = depth * layers
    if tree.kind != MAX:
        raise AssignmentError(f"{tree.source}: $: the root must be a max node (Pacman's move), got "
                              f"{'a leaf' if tree.kind == TERMINAL else 'a ' + tree.kind + ' node'}")
    stack = [(tree, 0)]
    while stack:
        node, level = stack.pop()
        if node.kind == TERMINAL:
            continue
        expected = MAX if level % layers == 0 else ghost_kind
        if node.kind != expected:
            who = "Pacman (max)" if expected == MAX else f"ghost {level % layers} ({ghost_kind})"
            searched = "expectimax" if ghost_kind == CHANCE else "minimax and alpha-beta"
            raise AssignmentError(
                f"{node.source}: {node.path}: level {level} is {who}'s with {ghosts} ghost"
                f"{'s' if ghosts != 1 else ''} (for {searched}, levels go max, then {ghosts} {ghost_kind}, "
                f"then max, ...), got a {node.kind} node")
        if node.kind == CHANCE and len(set(node.probabilities)) > 1:
            raise AssignmentError(f"{node.source}: {node.path}: ghosts move uniformly at random, "
                                  f"so chance nodes must have equal probabilities (omit \"p\")")
        if level >= cut:
            if node.value is None:
                raise AssignmentError(f"{node.source}: {node.path}: the depth limit ({depth} plies = {cut} levels) "
                                      f"cuts the tree here; give this node a \"value\"")
            continue
        stack.extend((child, level + 1) for child in reversed(node.children))
