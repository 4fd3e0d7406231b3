"""Expectimax as a textbook writes it: plain recursion, no table, no pruning, no shortcuts.

Test support: the tests check `agents.ExpectimaxAgent` against it value for value,
and `pacman-ai bench` times it as the slow baseline. It works on any state with
``num_agents``, ``legal_actions(agent)``, ``successor(agent, action)``,
``is_win()`` and ``is_lose()``: the fast engine and the simple engine alike.
Depth counts Pacman plies: one ply is Pacman's move and every ghost's reply.
"""

from __future__ import annotations

import math
from typing import Any, Callable

__all__ = ["uniform_ghosts", "textbook_action_values", "textbook_action"]

#: A ghost model: ``(state, agent) -> [(action, probability), ...]`` over the agent's legal actions.
GhostModel = Callable[[Any, int], list]


def uniform_ghosts(state: Any, agent: int) -> list:
    """Every legal action of ghost `agent` with the same probability (the random ghost)."""
    legal = state.legal_actions(agent)
    return [(action, 1.0 / len(legal)) for action in legal]


def textbook_action_values(state: Any, depth: int, evaluate: Callable[[Any], float],
                           ghost_model: GhostModel = uniform_ghosts) -> dict:
    """The expectimax value of each of Pacman's legal actions in `state`, in legal-action order.

    A won or lost state, or one at depth 0, is worth ``evaluate(state)``; Pacman
    takes the best child, a ghost the expectation under `ghost_model`.
    """
    n = state.num_agents

    def value(s: Any, agent: int, d: int) -> float:
        if s.is_win() or s.is_lose() or d == 0:
            return evaluate(s)
        following = (agent + 1) % n
        nd = d - 1 if agent == n - 1 else d
        if agent == 0:
            return max(value(s.successor(0, a), following, nd) for a in s.legal_actions(0))
        return sum(p * value(s.successor(agent, a), following, nd) for a, p in ghost_model(s, agent))

    following, nd = 1 % n, depth - 1 if n == 1 else depth
    return {action: value(state.successor(0, action), following, nd) for action in state.legal_actions(0)}


def textbook_action(state: Any, depth: int, evaluate: Callable[[Any], float],
                    ghost_model: GhostModel = uniform_ghosts) -> Any:
    """Pacman's first best action by `textbook_action_values` (None when Pacman has no legal action)."""
    best, best_value = None, -math.inf
    for action, action_value in textbook_action_values(state, depth, evaluate, ghost_model).items():
        if action_value > best_value:
            best, best_value = action, action_value
    return best
