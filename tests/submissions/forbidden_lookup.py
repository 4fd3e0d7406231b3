"""Hostile: the library's code found without importing: in sys.modules by a computed name, or as pacman.grading.

Neither is there in the submission's process, so evaluation scores 0 (a KeyError
naming the module); the expectimax is right and keeps its points.
"""

import sys

import pacman


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
    grading = getattr(pacman, "grad" + "ing", None)
    if grading is not None:
        return grading.__name__ and state.score
    library = sys.modules["pacman.agents" + ".evaluation"]
    return library.better_evaluation(state)
