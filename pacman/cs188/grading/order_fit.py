"""Which order of actions a course's alpha-beta solutions were written under, from their expanded-state counts.

Alpha-beta's explored states depend on the order of legal actions; minimax's and
expectimax's do not. A folder's ``.solution`` files were written under some
engine's order, and a folder ported to another Python (a 2014 folder run under
Python 3) can grade by one order while its solutions fit another: its own
grader then fails a right alpha-beta on the counts. `solutions_order` replays
each alpha-beta `PacmanGameTreeTest` with a textbook alpha-beta of our own
(strict pruning, the score as evaluation, as the course's reference) under an
order, in this process (no student code runs), and says whether every move's
count is one the solution lists. `order_note` names the orders that fit when
the course's own does not, for the report's first line.
"""

from __future__ import annotations

import contextlib
import itertools
import random
from collections.abc import Iterator
from typing import Any

from pacman.cs188.quirks import DEFAULT_ORDER

__all__ = ["solutions_order", "order_note", "parse_action_order", "OrderError", "ACTION_ORDER_FLAG"]

#: The flag of `pacman-ai grade` that grades by another order.
ACTION_ORDER_FLAG = "--action-order"
_NAMED = {"classic": DEFAULT_ORDER, "python3": ("North", "South", "East", "West", "Stop"),
          "sorted": tuple(sorted(DEFAULT_ORDER))}


class OrderError(ValueError):
    """A ``--action-order`` value that is not an order of the five actions."""


def parse_action_order(text: str) -> tuple[str, ...]:
    """``classic`` (West, Stop, East, North, South), ``python3`` (North, South, East, West, Stop), ``sorted``,
    or the five actions comma-separated in any order.

    >>> parse_action_order("North,South,East,West,Stop")
    ('North', 'South', 'East', 'West', 'Stop')
    """
    if text in _NAMED:
        return _NAMED[text]
    order = tuple(part.strip() for part in text.split(","))
    if sorted(order) != sorted(DEFAULT_ORDER):
        raise OrderError(f"{ACTION_ORDER_FLAG} {text!r}: expected classic, python3, sorted or the five actions "
                         f"{', '.join(DEFAULT_ORDER)} in some order, comma-separated")
    return order


@contextlib.contextmanager
def _playing(order: tuple[str, ...]) -> Iterator[None]:
    """The compatibility layer's order set to `order`, and Python's `random` state kept, for the block only."""
    from pacman.cs188 import action_order, set_action_order

    before, state = action_order(), random.getstate()
    set_action_order(order)
    try:
        yield
    finally:
        set_action_order(before if before != DEFAULT_ORDER else None)
        random.setstate(state)


def _alpha_beta_counts(item: dict[str, Any]) -> list[int]:
    """The states a textbook alpha-beta explores before each of the solution's Pacman moves."""
    from pacman.cs188 import ClassicState
    from pacman.cs188.grading.pacman_tree import play_pacman_tree

    depth = int(item["depth"])

    def value(state: Any, agent: int, ply: int, alpha: float, beta: float) -> float:
        if state.isWin() or state.isLose() or ply == depth:
            return state.getScore()
        agents = state.getNumAgents()
        following, next_ply = (agent + 1, ply) if agent + 1 < agents else (0, ply + 1)
        if agent == 0:
            best = float("-inf")
            for action in state.getLegalActions(0):
                best = max(best, value(state.generateSuccessor(0, action), following, next_ply, alpha, beta))
                if best > beta:
                    return best
                alpha = max(alpha, best)
            return best
        best = float("inf")
        for action in state.getLegalActions(agent):
            best = min(best, value(state.generateSuccessor(agent, action), following, next_ply, alpha, beta))
            if best < alpha:
                return best
            beta = min(beta, best)
        return best

    def ask(view: Any, step: int) -> tuple[str | None, int]:
        ClassicState.getAndResetExplored()
        value(view, 0, 0, float("-inf"), float("inf"))
        moves = item["moves"]
        return (moves[step] if step < len(moves) else None), len(ClassicState.getAndResetExplored())

    counts, _ = play_pacman_tree(item, ask)
    return counts


def _fits(tests: list[tuple[Any, str]], order: tuple[str, ...]) -> bool:
    with _playing(order):
        for test, generation in tests:
            item = dict(test.items[0], generation=generation)
            try:
                counts = _alpha_beta_counts(item)
            except ValueError:  # a solution move not legal under this order's game: it does not fit
                return False
            listed = test.columns["optimalActions"]
            if len(counts) != len(listed) or any(count not in {column[1] for column in step}
                                                 for count, step in zip(counts, listed)):
                return False
    return True


def _alpha_beta_tests(course: Any, generation: str) -> list[tuple[Any, str]]:
    from pacman.cs188.grading.pacman_tree import PacmanGameTreeTest

    return [(test, test.test_file.generation or generation) for question in course.questions
            if question.problem is None for test in question.tests
            if isinstance(test, PacmanGameTreeTest) and "alphabeta" in test.alg.lower() and test.columns]


def solutions_order(course: Any, order: tuple[str, ...], generation: str = "classic") -> tuple[str, ...] | None:
    """None when the course's alpha-beta solutions fit `order` (or it has none); else the first order they fit,
    the named ones (classic, Python 3's, sorted) tried first, then every other permutation; () when none fits."""
    tests = _alpha_beta_tests(course, generation)
    if not tests or _fits(tests, order):
        return None
    candidates = dict.fromkeys([*_NAMED.values(), *itertools.permutations(DEFAULT_ORDER)])
    return next((c for c in candidates if c != order and _fits(tests, c)), ())


def order_note(course: Any, order: tuple[str, ...], generation: str = "classic") -> str:
    """'' when the solutions fit the order grading uses; else one clause for the report's first line."""
    fitting = solutions_order(course, order, generation)
    if fitting is None:
        return ""
    if not fitting:
        return "the alpha-beta solutions' expanded-state counts fit no order of the five actions"
    names = {value: name for name, value in _NAMED.items()}
    flag = names.get(fitting, ",".join(fitting))
    named = f" ({names[fitting]})" if fitting in names else ""
    return (f"the alpha-beta solutions' expanded-state counts fit another order, {', '.join(fitting)}{named}: "
            f"grade by it with {ACTION_ORDER_FLAG} {flag}")
