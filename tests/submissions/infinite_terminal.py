"""Wrong: finished games are valued +inf (won) and -inf (lost) instead of with the evaluation function."""

import math


class ExpectimaxAgent:
    def __init__(self, depth=2, evaluation=None):
        self.depth = depth
        self.evaluation = evaluation

    def get_action(self, state):
        best_value, best_action = -math.inf, None
        for action in state.legal_actions(0):
            value = self.value(state.successor(0, action), 1, 0)
            if value > best_value:
                best_value, best_action = value, action
        return best_action

    def value(self, state, agent, ply):
        if state.is_win():
            return math.inf
        if state.is_lose():
            return -math.inf
        if agent == state.num_agents:
            agent, ply = 0, ply + 1
            if ply == self.depth:
                return self.evaluation(state)
        values = [self.value(state.successor(agent, a), agent + 1, ply) for a in state.legal_actions(agent)]
        return max(values) if agent == 0 else sum(values) / len(values)


def better_evaluation(state):
    return state.score
