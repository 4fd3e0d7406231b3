"""Hostile: tries the library's evaluation by a computed name and, refused, quietly falls back on its own.

Trying is enough: the tests during which it tried fail (evaluation scores 0).
"""

import importlib


class ExpectimaxAgent:
    """A correct expectimax: Pacman maximises, every ghost is a uniform chance layer, depth in plies."""

    def __init__(self, depth=2, evaluation=None):
        self.depth = depth
        self.evaluation = evaluation

    def get_action(self, state):
        actions = state.legal_actions(0)
        values = [self.value(state.successor(0, action), 1, 0) for action in actions]
        return actions[values.index(max(values))]

    def value(self, state, agent, ply):
        if state.is_win() or state.is_lose():
            return self.evaluation(state)
        if agent == state.num_agents:
            agent, ply = 0, ply + 1
            if ply == self.depth:
                return self.evaluation(state)
        values = [self.value(state.successor(agent, action), agent + 1, ply)
                  for action in state.legal_actions(agent)]
        return max(values) if agent == 0 else sum(values) / len(values)


def better_evaluation(state):
    try:
        return importlib.import_module("pacman.agents." + "evaluation").better_evaluation(state)
    except ImportError:
        return state.score
