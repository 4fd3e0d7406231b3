"""Wrong: never checks for finished games; it searches on through them as if they could continue."""

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
        if agent == state.num_agents:
            agent, ply = 0, ply + 1
            if ply == self.depth:
                return self.evaluation(state)
        actions = state.legal_actions(agent)
        values = [self.value(state.successor(agent, action), agent + 1, ply) for action in actions]
        if not values:
            return 0.0
        if agent == 0:
            return max(values)
        return sum(values) / len(values)


def better_evaluation(state):
    return state.score
