"""Wrong: the depth counts every agent's move, not whole plies."""

import math


class ExpectimaxAgent:
    def __init__(self, depth=2, evaluation=None):
        self.depth = depth
        self.evaluation = evaluation

    def get_action(self, state):
        best_value, best_action = -math.inf, None
        for action in state.legal_actions(0):
            value = self.value(state.successor(0, action), 1 % state.num_agents, self.depth - 1)
            if value > best_value:
                best_value, best_action = value, action
        return best_action

    def value(self, state, agent, depth):
        if state.is_win() or state.is_lose() or depth == 0:
            return self.evaluation(state)
        following = (agent + 1) % state.num_agents
        values = [self.value(state.successor(agent, action), following, depth - 1)
                  for action in state.legal_actions(agent)]
        if agent == 0:
            return max(values)
        return sum(values) / len(values)


def better_evaluation(state):
    return state.score
