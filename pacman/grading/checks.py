"""The three test kinds: what the project's search expects, what is sent to the submission, and the verdict.

Expected answers come from the project's own search (`pacman.agents.search.Searcher`,
no transposition table) unless the assignment pins them: plain expectimax or
minimax (no pruning) for the values and actions. The expected expansions are
recorded from a search too: the nodes whose children or outcomes it generates.
For expectimax and minimax that is the plain search, which expands exactly the
non-terminal nodes above the depth limit; for alpha-beta it is the Searcher's
alpha-beta with ``prune_ties=False`` (children in action order, a cut only on
strict inequality). Everything expected is computed before the submission runs.
"""

from __future__ import annotations

import abc

import math
import statistics
from dataclasses import dataclass, field
from typing import Any

from pacman.agents.expectimax import PacmanGame
from pacman.agents.search import Searcher, SearchGame
from pacman.agents.trees import TreeGame, TreeNode
from pacman.grading.assignment import AssignmentError, GamesTest, PositionsTest, TreeTest
from pacman.grading.sandbox import ItemOutcome
from pacman.grading.states import state_key, tree_node_ids

__all__ = ["TestResult", "Check", "prepare", "shared_failure", "TOLERANCE"]

#: Two action values this close are a tie: either action is correct.
TOLERANCE = 1e-6
#: States the project's search of one position may expand: beyond, the test is refused, not ground through.
MAX_EXPECTED_EXPANSIONS = 300_000
_SHOWN = 3  # paths or states listed in a message before "and N more"


@dataclass
class TestResult:
    """The verdict on one test of a question."""

    name: str
    kind: str
    score: float
    max_score: float
    passed: bool
    messages: list[str] = field(default_factory=list)
    """Why: one line per failed item or threshold (and a summary line)."""
    items: list[dict[str, Any]] = field(default_factory=list)
    """Per item (tree, position, game): what was observed, for --json."""
    seconds: float = 0.0
    error: str | None = None
    """For a failed test: the one error every item of it failed with (the submission's exception, a limit), which
    the text report says once for all the tests of a question that share it; None if it failed otherwise."""
    where: str | None = None
    """Where in the submission's file `error` came from (``FILE:LINE in FUNCTION: SOURCE``) when its text does not
    say (an unfinished method, a game's crash); None otherwise."""

    def to_dict(self) -> dict[str, Any]:
        data = {"name": self.name, "kind": self.kind, "score": self.score, "max_score": self.max_score,
                "passed": self.passed, "messages": list(self.messages), "items": self.items,
                "seconds": round(self.seconds, 3)}
        if self.error is not None:
            data["error"] = self.error
        if self.where is not None:
            data["where"] = self.where
        return data


def shared_failure(outcomes: list[ItemOutcome]) -> tuple[str | None, str | None]:
    """(error, where) when every item failed with the same error from the same place (a game item counts as
    failed when the game crashed: its error is the crash's), else (None, None).

    >>> shared_failure([ItemOutcome(False, error="boom"), ItemOutcome(False, error="boom")])
    ('boom', None)
    >>> shared_failure([ItemOutcome(False, error="boom"), ItemOutcome(True)])
    (None, None)
    """
    failures = set()
    for outcome in outcomes:
        if not outcome.ok:
            failures.add((outcome.error or "failed", outcome.where))
        elif outcome.data.get("outcome") == "crashed" and isinstance(outcome.data.get("error"), str):
            where = outcome.data.get("where")
            failures.add((outcome.data["error"], where if isinstance(where, str) else None))
        else:
            return None, None
    return next(iter(failures)) if len(failures) == 1 else (None, None)


class Check(abc.ABC):
    """One test made ready to run: the items for the submission's process and the expected answers."""

    def __init__(self, test: Any) -> None:
        self.test = test
        self.items: list[dict[str, Any]] = []
        self.time_limits: list[float] = []

    @abc.abstractmethod
    def judge(self, outcomes: list[ItemOutcome]) -> TestResult:
        """Score the submission's outcomes (one per item, in order) against the expected answers."""


def prepare(test: Any) -> Check:
    """The `Check` of an assignment test (computes its expected answers now)."""
    if isinstance(test, TreeTest):
        return _TreeCheck(test)
    if isinstance(test, PositionsTest):
        return _PositionsCheck(test)
    if isinstance(test, GamesTest):
        return _GamesCheck(test)
    raise TypeError(f"not an assignment test: {test!r}")


#: How a message names each search.
_SEARCH_NAMES = {"expectimax": "expectimax", "minimax": "minimax", "alphabeta": "alpha-beta"}


def _strict_alpha_beta(game: SearchGame, root: Any, depth: int) -> None:
    """Search `root` by the alpha-beta whose expansions an alpha-beta test expects (a recording `game` keeps them)."""
    Searcher(game, prune=True, prune_ties=False).search(root, depth, all_values=False)


def _best_actions(values: dict[Any, float]) -> tuple[list[Any], float]:
    best = max(values.values())
    return [a for a, v in values.items() if abs(v - best) <= TOLERANCE * (1 + abs(best))], best


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else f"{value:.6g}"


def _listed(things: list[str]) -> str:
    shown = ", ".join(things[:_SHOWN])
    return shown + (f" and {len(things) - _SHOWN} more" if len(things) > _SHOWN else "")


# -- trees -----------------------------------------------------------------------------


class _RecordingTreeGame(TreeGame):
    def __init__(self, root: TreeNode) -> None:
        super().__init__(root)
        self.expanded: list[TreeNode] = []

    def children(self, node: TreeNode):
        self.expanded.append(node)
        return super().children(node)

    def outcomes(self, node: TreeNode):
        self.expanded.append(node)
        return super().outcomes(node)


class _TreeCheck(Check):
    def __init__(self, test: TreeTest) -> None:
        super().__init__(test)
        tree = test.tree
        ids = tree_node_ids(tree)
        self.paths: dict[int, str] = {}
        stack = [tree]
        while stack:
            node = stack.pop()
            self.paths[ids[id(node)]] = node.path
            stack.extend(node.children)
        levels = test.depth * (test.ghosts + 1)
        game = _RecordingTreeGame(tree)
        result = Searcher(game).search(tree, levels)  # every action's value; expectimax and minimax expansions
        self.values = {str(k): float(v) for k, v in result.action_values.items()}
        best, self.best_value = _best_actions(self.values)
        self.correct = list(test.action) if test.action is not None else best
        if test.search == "alphabeta":
            game = _RecordingTreeGame(tree)
            _strict_alpha_beta(game, tree, levels)
        self.expected = [ids[id(node)] for node in game.expanded]
        self.items = [{"kind": "tree", "tree": test.data, "source": test.file, "ghosts": test.ghosts,
                       "depth": test.depth, "agent_class": test.agent_class}]
        self.time_limits = [test.time_limit]

    def judge(self, outcomes: list[ItemOutcome]) -> TestResult:
        test = self.test
        outcome = outcomes[0]
        result = TestResult(test.name, "tree", 0.0, test.points, False, seconds=outcome.seconds)
        where = f"{test.file} ({_SEARCH_NAMES[test.search]}, depth {test.depth}, " \
                f"{test.ghosts} ghost{'s' if test.ghosts != 1 else ''})"
        if not outcome.ok:
            result.messages.append(f"{where}: {outcome.error}")
            result.items.append({"error": outcome.error})
            return result
        data = outcome.data
        expanded = [e for e in data.get("expanded", []) if isinstance(e, int)]
        result.items.append({"action": data.get("action"), "expected_actions": self.correct,
                             "expanded": len(expanded), "expected_expanded": len(set(self.expected)),
                             "successor_calls": data.get("calls")})
        problems = self._action_problems(data) + self._expansion_problems(expanded, data.get("terminal", []))
        if problems:
            result.messages.extend(f"{where}: {p}" for p in problems)
            return result
        result.score, result.passed = test.points, True
        result.messages.append(f"{where}: action {data['action']!r}, {len(expanded)} nodes expanded, as expected")
        return result

    def _action_problems(self, data: dict) -> list[str]:
        action = data.get("action")
        if data.get("action_type") not in ("str", "Action") or action not in self.correct:
            expected = " or ".join(repr(a) for a in self.correct)
            worth = f" (worth {_number(self.values[action])})" if action in self.values else ""
            return [f"returned {action!r}{worth}, expected {expected} (worth {_number(self.best_value)})"]
        return []

    def _expansion_problems(self, expanded: list[int], terminal: list[Any]) -> list[str]:
        problems = []
        if terminal:
            leaves = sorted({self.paths.get(t, "?") for t in terminal if isinstance(t, int)})
            problems.append(f"called successor() on {len(leaves)} terminal state(s) (leaves): {_listed(leaves)}; "
                            f"a terminal state is valued with the evaluation function, never expanded")
        if self.test.expansions is not None:
            if len(set(expanded)) != self.test.expansions:
                problems.append(f"expanded {len(set(expanded))} nodes, expected {self.test.expansions}")
            return problems
        want, got = set(self.expected), set(expanded)
        extra = sorted(got - want - set(t for t in terminal if isinstance(t, int)))
        missing = sorted(want - got)
        search = f"{_SEARCH_NAMES[self.test.search]} to depth {self.test.depth}"
        pruning = self.test.search == "alphabeta"
        if extra:
            why = "pruned too little, or in another order, or below the depth limit?" if pruning \
                else "below the depth limit?"
            problems.append(f"expanded {len(extra)} node(s) that {search} does not: "
                            f"{_listed([self.paths.get(i, '?') for i in extra])} ({why})")
        if missing:
            why = "pruned on equality, or in another order, or a depth limit reached too early?" if pruning \
                else "pruning, or a depth limit reached too early?"
            problems.append(f"did not expand {len(missing)} node(s) that {search} must expand: "
                            f"{_listed([self.paths.get(i, '?') for i in missing])} ({why})")
        return problems


# -- positions ---------------------------------------------------------------------------


class _TooLarge(Exception):
    pass


class _RecordingPacmanGame(PacmanGame):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.expanded: list[tuple] = []

    def _record(self, node: tuple) -> None:
        if len(self.expanded) >= MAX_EXPECTED_EXPANSIONS:
            raise _TooLarge
        self.expanded.append(state_key(*node))

    def children(self, node: tuple):
        self._record(node)
        return super().children(node)

    def outcomes(self, node: tuple):
        self._record(node)
        return super().outcomes(node)


def _as_key(value: Any) -> Any:
    return tuple(_as_key(v) for v in value) if isinstance(value, list) else value


class _PositionsCheck(Check):
    def __init__(self, test: PositionsTest) -> None:
        super().__init__(test)
        from pacman.agents.evaluation import EVALUATIONS

        self.expected: list[tuple[list[str], float, dict[str, float], set[tuple], int]] = []
        minimise = test.search != "expectimax"
        for position in test.positions:
            state = position.state
            evaluation = EVALUATIONS[test.evaluation]
            game = _RecordingPacmanGame(state.num_agents, evaluation, ghosts_minimise=minimise)
            try:
                result = Searcher(game).search((state, 0), test.depth)
                if test.search == "alphabeta":
                    game = _RecordingPacmanGame(state.num_agents, evaluation, ghosts_minimise=True)
                    _strict_alpha_beta(game, (state, 0), test.depth)
            except _TooLarge:
                raise AssignmentError(
                    f"positions test {test.name!r}: {position.label} at depth {test.depth} with {test.ghosts} "
                    f"ghost(s) expands more than {MAX_EXPECTED_EXPANSIONS:,} states (the limit); "
                    f"lower its depth or ghosts") from None
            values = {a.value: float(v) for a, v in result.action_values.items()}
            best, best_value = _best_actions(values)
            correct = [a.value for a in position.action] if position.action is not None else best
            expanded = set(game.expanded)
            count = position.expansions if position.expansions is not None else len(expanded)
            self.expected.append((correct, best_value, values, expanded, count))
            self.items.append({"kind": "position", "layout": position.layout.text,
                               "layout_name": position.layout.name, "prefix": [a.value for a in position.prefix],
                               "ghosts": test.ghosts, "depth": test.depth, "evaluation": test.evaluation,
                               "agent_class": test.agent_class})
            self.time_limits.append(test.time_limit)

    def judge(self, outcomes: list[ItemOutcome]) -> TestResult:
        test = self.test
        result = TestResult(test.name, "positions", 0.0, test.points, False,
                            seconds=sum(o.seconds for o in outcomes))
        failed = 0
        for position, outcome, (correct, best_value, values, want, count) in zip(
                test.positions, outcomes, self.expected):
            where = f"{position.label} ({_SEARCH_NAMES[test.search]}, depth {test.depth}, " \
                    f"{test.ghosts} ghost{'s' if test.ghosts != 1 else ''})"
            if not outcome.ok:
                failed += 1
                result.messages.append(f"{where}: {outcome.error}")
                result.items.append({"position": position.label, "error": outcome.error})
                continue
            data = outcome.data
            got = {_as_key(k) for k in data.get("expanded", []) if isinstance(k, list)}
            terminal = {_as_key(k) for k in data.get("terminal", []) if isinstance(k, list)}
            action = data.get("action")
            result.items.append({"position": position.label, "action": action, "expected_actions": correct,
                                 "expanded": len(got), "expected_expanded": count,
                                 "successor_calls": data.get("calls")})
            problems = []
            if data.get("action_type") not in ("Action", "str") or action not in correct:
                worth = f" (worth {values[action]:.6g})" if action in values else ""
                problems.append(f"returned {action!r}{worth}, expected {' or '.join(correct)} "
                                f"(worth {best_value:.6g})")
            if terminal:
                problems.append(f"called successor() on {len(terminal)} finished game(s) (won or lost states); "
                                f"those are valued with the evaluation function, never expanded")
            if len(got) != count or (position.expansions is None and got != want):
                extra, missing = len(got - want), len(want - got)
                detail = []
                if extra:
                    detail.append(f"{extra} that {_SEARCH_NAMES[test.search]} to depth {test.depth} does not "
                                  f"expand")
                if missing:
                    detail.append(f"{missing} that it must expand were not")
                problems.append(f"expanded {len(got)} states, expected {count}"
                                + (f": {'; '.join(detail)}" if detail and position.expansions is None else ""))
            if problems:
                failed += 1
                result.messages.extend(f"{where}: {p}" for p in problems)
            else:
                result.messages.append(f"{where}: action {action}, {len(got)} states expanded, as expected")
        if not failed:
            result.score, result.passed = test.points, True
        return result


# -- games -----------------------------------------------------------------------------------


class _GamesCheck(Check):
    def __init__(self, test: GamesTest) -> None:
        super().__init__(test)
        for seed in test.seeds:
            self.items.append({"kind": "game", "layout": test.layout.text, "layout_name": test.layout.name,
                               "ghost_kind": test.ghost_kind, "num_ghosts": test.num_ghosts, "seed": seed,
                               "agent": test.agent, "depth": test.depth, "evaluation": test.evaluation,
                               "max_moves": test.max_moves, "move_time_limit": test.move_time_limit,
                               "game_time_limit": test.game_time_limit, "agent_class": test.agent_class})
            # The parent's clock is a backstop: the game's own limits act first.
            self.time_limits.append(test.game_time_limit + test.move_time_limit + 5.0)

    def judge(self, outcomes: list[ItemOutcome]) -> TestResult:
        test = self.test
        result = TestResult(test.name, "games", 0.0, test.points, False, seconds=sum(o.seconds for o in outcomes))
        games = []
        crashes = []
        for seed, outcome in zip(test.seeds, outcomes):
            if outcome.ok:
                game = _replay(test, seed, outcome.data)
            elif outcome.error and "time limit" in outcome.error:
                game = {"outcome": "timed-out", "score": 0, "moves": 0, "error": outcome.error}
            else:
                game = {"outcome": "crashed", "score": 0, "moves": 0, "error": outcome.error}
            if game["outcome"] == "crashed":
                crashes.append(f"seed {seed}: {game.get('error')}")
            game["seed"] = seed
            games.append(game)
        result.items = games
        where = (f"{len(games)} games on {test.layout.name} with {test.num_ghosts} {test.ghost_kind} "
                 f"ghost{'s' if test.num_ghosts != 1 else ''}")
        wins = sum(1 for g in games if g["outcome"] == "won")
        timeouts = sum(1 for g in games if g.get("outcome") == "timed-out")
        average = statistics.fmean(float(g.get("score") or 0) for g in games)
        measures = {"wins": wins, "average_score": average, "timeouts": timeouts}
        summary = f"{where}: {wins} won, average score {average:.1f}, {timeouts} timed out"
        if crashes:
            result.messages.append(f"{summary}; {len(crashes)} game(s) crashed, so no threshold counts: "
                                   + "; ".join(crashes[:_SHOWN]))
            return result
        if wins < test.require_wins:
            result.messages.append(f"{summary}; no threshold counts with fewer than {test.require_wins} "
                                   f"win{'s' if test.require_wins != 1 else ''}")
            return result
        result.messages.append(summary)
        for g in games:
            if g.get("outcome") == "timed-out":
                result.messages.append(f"seed {g['seed']}: timed out: {g.get('error')}")
        earned = 0.0
        for threshold in test.thresholds:
            value = measures[threshold.measure]
            met = threshold.is_met(value)
            if met:
                earned += threshold.points
            shown = f"{value:.1f}" if threshold.measure == "average_score" else str(value)
            result.messages.append(f"{'met' if met else 'not met'}: {threshold.describe()} (got {shown}), "
                                   f"{_number(threshold.points)} point{'s' if threshold.points != 1 else ''}")
        result.score = earned
        result.passed = math.isclose(earned, test.points)
        return result


def _replay(test: GamesTest, seed: int, data: dict[str, Any]) -> dict[str, Any]:
    """Replay a reported game: Pacman's reported actions, the ghosts' moves drawn here from the seed.

    The score and outcome are the replay's, so a report cannot claim a better game
    than the actions played; a report that does not replay counts as a crash.
    """
    from pacman.agents.ghosts import make_ghosts
    from pacman.actions import Action
    from pacman.errors import PacmanError
    from pacman.game import agent_streams
    from pacman.state import GameState

    state = GameState.initial(test.layout, num_ghosts=test.num_ghosts)
    ghosts = make_ghosts(test.ghost_kind, test.num_ghosts)
    streams = agent_streams(seed, state.num_agents)
    actions = data.get("actions")
    if not isinstance(actions, list):
        return {"outcome": "crashed", "score": 0, "moves": 0, "error": "the game's report has no actions"}
    moves = 0
    for turn, word in enumerate(actions):
        agent = turn % state.num_agents
        if state.is_terminal() or (agent == 0 and moves >= test.max_moves):
            return {"outcome": "crashed", "score": state.score, "moves": moves,
                    "error": "the game's report goes on after the game ended"}
        try:
            action = Action(word)
            if agent and action != ghosts[agent - 1].get_action(state, streams[agent]):
                raise PacmanError(f"ghost {agent} did not move as its seeded stream says")
            state = state.successor(agent, action)
        except (ValueError, PacmanError) as exc:
            return {"outcome": "crashed", "score": state.score, "moves": moves,
                    "error": f"the game's report does not replay at move {turn + 1}: {exc}"}
        moves += agent == 0
    reported = data.get("outcome")
    if state.is_terminal():
        outcome = "won" if state.is_win() else "lost"
    elif reported in ("timed-out", "crashed"):
        outcome = reported
    elif moves >= test.max_moves:
        outcome = "cut-off"
    else:
        return {"outcome": "crashed", "score": state.score, "moves": moves,
                "error": "the game's report ends before the game does"}
    return {"outcome": outcome, "score": state.score, "moves": moves, "error": data.get("error"),
            "ms_per_move_max": data.get("ms_per_move_max")}
