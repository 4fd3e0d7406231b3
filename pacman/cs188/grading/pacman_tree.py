"""`PacmanGameTreeTest`: a classic search agent asked for its move at every step of a game it does not steer.

The ``.test`` file gives ``alg`` (the agent class), ``seed``, ``depth``,
``max_points``, ``layoutName`` (for people) and the maze inline as ``layout``.
The ``.solution`` gives up to three blocks, ``optimalActions`` and the optional
diagnosis blocks ``altDepthActions`` and ``partialPlyBugActions`` (current
generation: ``optimal_actions``, ``alt_depth_actions``,
``partial_ply_bug_actions``), with one JSON line per Pacman move; a line is a list of *columns*. An ``optimalActions`` column is
``[[actions...], explored]``: the actions a right search finds best (all ties)
and the number of states it explores. The columns of the other two blocks are
plain action lists with no count, e.g. ``[["West", "East"], ["West"]]``. The
columns of ``optimalActions`` are the right search with Stop among Pacman's
actions and the right search without Stop (`pacman.cs188.grading.solutions`
documents how the other two blocks are written). Some editions add ``action``
and ``generated`` keys to this solution file; they are not used.

The game is played on the inline maze against two directional ghosts (fewer if
the maze has fewer). Pacman plays the solution's move -- the first action of
the first column -- not the student's, so every student sees the same states.
Python's `random` is seeded with ``seed`` before the game and again when it
starts, and with ``seed + k`` after Pacman's k-th move (k = 1 after the first).
Before each Pacman move the explored set is cleared, the student's agent (built
once as ``alg(depth=depth)``) is asked for its action, and the number of states
explored is read.

Verdict, as the course decides (`VERDICTS`): every move's count must be one of
that move's ``optimalActions`` counts (else "wrong number of states expanded",
which takes precedence over everything); a column stays consistent while the
student's action is in its action list at every move. An optimal column that
stays consistent passes; else a consistent partial-ply-bug column is the partial
ply bug; else a consistent alternative-depth column is a depth off by one; else
the moves were suboptimal. Like the classic test, it only passes or fails:
``max_points`` is read (and checked) but adds no points, even in a
PartialCreditQuestion.
"""

from __future__ import annotations

import json
import random
import warnings
from typing import Any

from pacman.errors import LayoutError
from pacman.cs188.grading.format import ClassicFile
from pacman.cs188.grading.kinds import ClassicTest, action_text, agent_class
from pacman.grading.sandbox import ItemOutcome
from pacman.layout import LayoutWarning, parse_layout

__all__ = ["PacmanGameTreeTest", "run_pacman_tree", "ITEM_KIND", "SOLUTION_KEYS", "OPTIONAL_SOLUTION_KEYS", "VERDICTS",
           "parse_columns"]

ITEM_KIND = "classic-pacman-tree"
#: Seconds the submission may take on one game (every move's search together).
TIME_LIMIT = 120.0
#: The ghosts in play at most.
GHOSTS = 2
#: The solution's blocks, in the order a solution file gives them.
SOLUTION_KEYS = ("optimalActions", "altDepthActions", "partialPlyBugActions")
#: The diagnosis blocks a solution may leave out (graders of some editions read only ``optimalActions``).
OPTIONAL_SOLUTION_KEYS = ("altDepthActions", "partialPlyBugActions")
_ACTIONS = frozenset({"North", "South", "East", "West", "Stop"})

Column = tuple[tuple[str, ...], int | None]
"""One column of one move: the actions, and the states explored (None in the blocks that give no count)."""


def _is_actions(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(a, str) and a in _ACTIONS for a in value)


def _count_of(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def parse_columns(file: ClassicFile, key: str) -> list[list[Column]]:
    """The JSON lines of block `key`: per Pacman move, its columns; errors name the file, line and key.

    ``optimalActions`` columns are ``[[actions...], explored]``; the columns of
    ``altDepthActions`` and ``partialPlyBugActions`` are plain action lists with no
    explored count, read here as ``(actions, None)``.
    """
    counted = key == "optimalActions"
    shape = "[[actions...], explored]" if counted else "[actions...] (a plain list of actions, no explored count)"
    steps: list[list[Column]] = []
    for offset, line in enumerate(file.require(key).split("\n")):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise file.error(key, f"not a JSON line ({exc.msg})", offset) from None
        columns: list[Column] = []
        if not isinstance(value, list) or not value:
            raise file.error(key, f"expected a non-empty list of columns, each {shape}", offset)
        for column in value:
            shown = json.dumps(column)[:80]
            if counted:
                if not (isinstance(column, list) and len(column) == 2 and _is_actions(column[0]) and column[0]
                        and _count_of(column[1])):
                    raise file.error(key, f"expected a column [[actions...], explored], got {shown}", offset)
                columns.append((tuple(column[0]), column[1]))
                continue
            if not _is_actions(column):
                hint = ""
                if isinstance(column, list) and len(column) == 2 and _is_actions(column[0]) and _count_of(column[1]):
                    hint = (" (the optimal columns' shape, which the course's autograder reads as no action at "
                            "all here; write the solution again with pacman-ai grade --write-solutions)")
                raise file.error(key, f"expected a column of actions such as [\"West\", \"East\"], "
                                      f"got {shown}{hint}", offset)
            columns.append((tuple(column), None))
        if steps and len(columns) != len(steps[0]):
            raise file.error(key, f"{len(columns)} columns, but the first line has {len(steps[0])}", offset)
        steps.append(columns)
    if not steps:
        raise file.error(key, "lists no move")
    return steps


def _consistent(steps: list[list[Column]], actions: list[str]) -> int | None:
    """The first column whose actions contain the student's at every move (None if none does).

    As in the course, a column is consistent while the student's action is in its
    action list at every move; with fewer lines than moves, no column is.
    """
    if not steps or len(steps) < len(actions):
        return None
    for column in range(len(steps[0])):
        if all(action in steps[i][column][0] for i, action in enumerate(actions)):
            return column
    return None


#: The verdicts of a Pacman game-tree test, in the order the course checks them.
VERDICTS = ("wrong-count", "pass", "partial-ply-bug", "depth-off-by-one", "suboptimal")


def _verdict(counts: list[int], actions: list[str], columns: dict[str, list[list[Column]]]) -> tuple[str, str]:
    """(verdict, message) as the course decides, from the student's counts and actions at every move.

    The diagnosis blocks are optional: a solution without ``partialPlyBugActions`` or
    ``altDepthActions`` (some editions give only ``optimalActions``) is judged without
    that diagnosis, as a grader that does not read them judges it.

    A count that is none of its move's optimal counts is "wrong-count", whatever the
    actions; otherwise an optimal column that stays consistent passes, then a
    partial-ply-bug column explains the failure, then an alternative-depth column,
    and otherwise the moves were suboptimal. As in the course, which fails a test
    for the number of moves outside every optimal column, a game whose every move
    lies in some optimal column passes even when no single column fits them all.
    """
    optimal = columns["optimalActions"]
    for step, (count, step_columns) in enumerate(zip(counts, optimal), start=1):
        allowed = sorted({c for _, c in step_columns if c is not None})
        if count not in allowed:
            return "wrong-count", (f"wrong number of states expanded at move {step}: {count}, "
                                   f"expected {' or '.join(map(str, allowed))}")
    if _consistent(optimal, actions) is not None:
        return "pass", ""
    if "partialPlyBugActions" in columns and _consistent(columns["partialPlyBugActions"], actions) is not None:
        return "partial-ply-bug", ("the actions are those of a search with the partial ply bug (the depth "
                                   "counted per agent move, or the search stopping in the middle of a ply)")
    if "altDepthActions" in columns and _consistent(columns["altDepthActions"], actions) is not None:
        return "depth-off-by-one", "the actions are those of a search one ply too deep or too shallow"
    wrong = [i for i, (action, step_columns) in enumerate(zip(actions, optimal), start=1)
             if not any(action in column[0] for column in step_columns)]
    if not wrong:  # every move in some optimal column, though no one column fits them all: the course passes it
        return "pass", ""
    step = wrong[0]
    best = " or ".join(sorted({a for column in optimal[step - 1] for a in column[0]}))
    return "suboptimal", (f"{len(wrong)} suboptimal move{'s' if len(wrong) != 1 else ''}; move {step}: "
                          f"returned {actions[step - 1]!r}, expected {best}")


class PacmanGameTreeTest(ClassicTest):
    """A test of class ``PacmanGameTreeTest``: read, checked and judged by the grader."""

    class_name = "PacmanGameTreeTest"
    test_keys = ("class", "disabled", "alg", "seed", "depth", "max_points", "layoutName", "layout")
    solution_keys = SOLUTION_KEYS + ("action", "generated")

    def __init__(self, name: str, test: ClassicFile, solution: ClassicFile | None) -> None:
        super().__init__(name, test, solution)
        self.alg = test.class_name("alg")
        self.seed = test.whole("seed")
        self.depth = test.whole("depth", 0)
        self.declared_points = test.whole("max_points", 0, default="0")
        """The file's ``max_points``: checked, reported, but not scored (see the module's docstring)."""
        self.layout_name = (test.get("layoutName") or "").strip() or name
        self.layout_text = test.require("layout")
        try:
            parse_layout(self.layout_text, name=self.layout_name)
        except LayoutError as exc:
            raise test.error("layout", str(exc)) from None
        self.columns: dict[str, list[list[Column]]] = {}
        moves = None
        if solution is not None:
            for key in SOLUTION_KEYS:
                if key == "optimalActions" or solution.get(key) is not None:
                    self.columns[key] = parse_columns(solution, key)
            moves = [step[0][0][0] for step in self.columns["optimalActions"]]
        self.items = [{"kind": ITEM_KIND, "alg": self.alg, "depth": self.depth, "seed": self.seed,
                       "layout": self.layout_text, "layout_name": self.layout_name, "moves": moves}]
        self.time_limits = [TIME_LIMIT]

    def judge(self, outcomes: list[ItemOutcome]) -> tuple[bool, float, list[str], dict[str, Any]]:
        outcome = outcomes[0]
        where = f"{self.alg}, depth {self.depth}, on {self.layout_name}"
        if not outcome.ok:
            return False, 0.0, [f"{where}: {outcome.error}"], {}
        data = outcome.data
        actions = [a if kind == "str" else f"{a} (a {kind})" for a, kind, _ in data["steps"]]
        counts = [count for _, _, count in data["steps"]]
        observed = {"actions": actions, "explored": counts}
        optimal = self.columns["optimalActions"]
        messages = []
        if len(actions) != len(optimal) or not data["over"]:
            lasted = (f"ended after {len(actions)} Pacman moves, but the solution lists {len(optimal)}"
                      if data["over"] else f"was not over after the solution's {len(optimal)} moves")
            messages.append(f"{where}: the game {lasted} (is the solution written for this maze and seed?)")
            return False, 0.0, messages, observed
        verdict, message = _verdict(counts, actions, self.columns)
        observed["verdict"] = verdict
        if message:
            messages.append(f"{where}: {message}")
        return not messages, 0.0, messages, observed

    def solution_values(self, outcomes: list[ItemOutcome]) -> dict[str, str]:
        columns = outcomes[0].data["columns"]
        return {self.test_file.name(key): "\n".join(json.dumps(step) for step in columns[key])
                for key in SOLUTION_KEYS}


def play_pacman_tree(item: dict[str, Any], ask: Any) -> tuple[list[Any], bool]:
    """Play the test's game: ``ask(view, step)`` before each Pacman move returns (move to play, what to record).

    Returns (the records, whether the game ended). Seeds `random` as the docstring of this module says.
    """
    from pacman.cs188 import DirectionalGhost, state_class
    from pacman.state import GameState

    seed = int(item["seed"])
    random.seed(seed)
    with warnings.catch_warnings():  # the grader warned when it read the maze: not the student's output
        warnings.simplefilter("ignore", LayoutWarning)
        layout = parse_layout(item["layout"], name=item["layout_name"])
    count = min(GHOSTS, layout.num_ghosts)
    ghosts = [DirectionalGhost(i) for i in range(1, count + 1)]
    view = state_class(item.get("generation") or "classic")(GameState.initial(layout, num_ghosts=count))
    random.seed(seed)
    records = []
    step = 0
    while not (view.isWin() or view.isLose()):
        move, record = ask(view, step)
        if move is None:
            return records, False
        records.append(record)
        if move not in view.getLegalActions(0):
            raise ValueError(f"the solution's move {step + 1}, {move!r}, is not legal there "
                             f"(legal: {', '.join(view.getLegalActions(0))})")
        view = view.generateSuccessor(0, move)
        step += 1
        random.seed(seed + step)
        for ghost in ghosts:
            if view.isWin() or view.isLose():
                break
            view = view.generateSuccessor(ghost.index, ghost.getAction(view))
    view.getAndResetExplored()
    return records, True


def run_pacman_tree(module: Any, item: dict[str, Any]) -> dict[str, Any]:
    """The submission's side: the student's action and explored count before every Pacman move.

    With no solution moves in `item`, the file is the instructor's reference and the
    solution's columns are written instead (`reference_columns`).
    """
    from pacman.cs188 import ClassicState, get_action

    if item["moves"] is None:
        return {"columns": reference_columns(module, item)}
    generation = item.get("generation") or "classic"
    agent = agent_class(module, item["alg"])(depth=item["depth"])
    moves = item["moves"]

    def ask(view: Any, step: int) -> tuple[str | None, list[Any]]:
        ClassicState.getAndResetExplored()
        action = get_action(agent, view, generation)
        explored = len(ClassicState.getAndResetExplored())
        text, kind = action_text(action)
        return (moves[step] if step < len(moves) else None), [text, kind, explored]

    steps, over = play_pacman_tree(item, ask)
    return {"steps": steps, "over": over}


# -- writing solutions (the instructor's reference) ----------------------------------------------------------

def _view_class(generation: str) -> type:
    """A state of `generation` whose Pacman never has Stop (`no_stop`) and, at the root, only the `only` actions."""
    from pacman.cs188 import state_class

    class RestrictedState(state_class(generation)):  # type: ignore[misc]
        __slots__ = ("no_stop", "only")

        def __init__(self, game_state: Any, pacman_direction: str, no_stop: bool = False, only: Any = None) -> None:
            super().__init__(game_state, pacman_direction)
            self.no_stop = no_stop
            self.only = only

        def getLegalActions(self, agentIndex: int = 0) -> list[str]:  # noqa: N802 (the classic API)
            actions = super().getLegalActions(agentIndex)
            if agentIndex == 0 and self.only is not None and actions:
                return list(self.only)
            if agentIndex == 0 and self.no_stop:
                return [a for a in actions if a != "Stop"]
            return actions

        def _view(self, game_state: Any, pacman_direction: str) -> Any:
            return RestrictedState(game_state, pacman_direction, self.no_stop)

    return RestrictedState


def _reference_column(agent: Any, view: Any, no_stop: bool, state_class: type, generation: str) -> list[Any]:
    """[[the reference's best actions, all ties, classic order], the states it explores] on `view`."""
    from pacman.cs188 import ClassicState, get_action

    root = state_class(view.game_state, view.pacman_direction, no_stop)
    ClassicState.getAndResetExplored()
    best = str(get_action(agent, root, generation))
    explored = len(ClassicState.getAndResetExplored())
    ties = []
    for action in root.getLegalActions(0):
        if action == best:
            ties.append(action)
            continue
        for order in ((action, best), (best, action)):  # a tie is taken in one order or the other
            restricted = state_class(view.game_state, view.pacman_direction, no_stop, order)
            if str(get_action(agent, restricted, generation)) == action:
                ties.append(action)
                break
    ClassicState.getAndResetExplored()
    return [ties, explored]


def _own_values(view: Any, alg: str, depth: int, no_stop: bool) -> dict[str, float]:
    """Root values of our own search that stops in the middle of the last ply (after Pacman's move there)."""
    agents = view.getNumAgents()
    chance = "expecti" in alg.lower()

    def value(node: Any, agent: int, ply: int) -> float:
        if agent == agents:
            agent, ply = 0, ply + 1
        if node.isWin() or node.isLose() or ply == depth or (ply == depth - 1 and agent == 1):
            return node.getScore()
        actions = [a for a in node.getLegalActions(agent) if not (no_stop and agent == 0 and a == "Stop")]
        values = [value(node.generateSuccessor(agent, a), agent + 1, ply) for a in actions]
        if agent == 0:
            return max(values)
        return sum(values) / float(len(values)) if chance else min(values)

    actions = [a for a in view.getLegalActions(0) if not (no_stop and a == "Stop")]
    return {a: value(view.generateSuccessor(0, a), 1, 0) for a in actions}


def _partial_ply_column(view: Any, alg: str, depth: int, no_stop: bool) -> list[Any]:
    from pacman.cs188 import ClassicState

    ClassicState.getAndResetExplored()
    values = _own_values(view, alg, depth, no_stop)
    explored = len(ClassicState.getAndResetExplored())
    best = max(values.values())
    return [[a for a, v in values.items() if v == best], explored]


def reference_columns(module: Any, item: dict[str, Any]) -> dict[str, list[Any]]:
    """The solution's three blocks, one line per Pacman move, from the instructor's reference file.

    - ``optimalActions``: columns ``[[actions...], explored]``: the reference
      built as ``alg(depth=depth)``: its best actions (all ties: an action ties
      with the one it returns when it takes that action with the root's actions
      restricted to the two, in one order or the other) and its explored count,
      with Stop among Pacman's actions, then without Stop (Pacman has no Stop
      anywhere in the tree);
    - ``altDepthActions``: columns of actions only, as the course writes them:
      the best actions of ``alg(depth=depth - 1)`` (when depth > 1) and of
      ``alg(depth=depth + 1)``, each with and without Stop;
    - ``partialPlyBugActions``: columns of actions only: a search of our own
      (expectimax when ``alg`` says so, else minimax, on the score) that stops
      in the middle of the last ply, right after Pacman's move, with and
      without Stop.

    Pacman plays the first action of the first column.
    """
    cls = agent_class(module, item["alg"])
    depth = int(item["depth"])
    agents = {d: cls(depth=d) for d in (depth, depth - 1, depth + 1) if d >= 1 or d == depth}
    generation = item.get("generation") or "classic"
    state_class = _view_class(generation)
    blocks: dict[str, list[Any]] = {key: [] for key in SOLUTION_KEYS}

    def ask(view: Any, step: int) -> tuple[str, None]:
        optimal = [_reference_column(agents[depth], view, no_stop, state_class, generation)
                   for no_stop in (False, True)]
        blocks["optimalActions"].append(optimal)
        blocks["altDepthActions"].append([_reference_column(agents[d], view, no_stop, state_class, generation)[0]
                                          for d in (depth - 1, depth + 1) if d >= 1 for no_stop in (False, True)])
        blocks["partialPlyBugActions"].append([_partial_ply_column(view, item["alg"], depth, no_stop)[0]
                                               for no_stop in (False, True)])
        if not optimal[0][0]:
            raise ValueError(f"move {step + 1}: the reference returned no legal action")
        return optimal[0][0][0], None

    play_pacman_tree(item, ask)
    return blocks
