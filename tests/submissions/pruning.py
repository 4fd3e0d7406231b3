"""Wrong: alpha-beta code with the min turned into an average, pruning kept (fewer expansions)."""

import math


class ExpectimaxAgent:
    def __init__(self, depth=2, evaluation=None):
        self.depth = depth
        self.evaluation = evaluation

    def get_action(self, state):
        best_value, best_action = -math.inf, None
        for action in state.legal_actions(0):
            value = self.value(state.successor(0, action), 1, 0, best_value, math.inf)
            if value > best_value:
                best_value, best_action = value, action
        return best_action

    def value(self, state, agent, ply, alpha, beta):
        if state.is_win() or state.is_lose():
            return self.evaluation(state)
        if agent == state.num_agents:
            agent, ply = 0, ply + 1
            if ply == self.depth:
                return self.evaluation(state)
        actions = state.legal_actions(agent)
        if agent == 0:
            best = -math.inf
            for action in actions:
                best = max(best, self.value(state.successor(0, action), 1, ply, alpha, beta))
                if best > beta:
                    return best
                alpha = max(alpha, best)
            return best
        total = 0.0
        for i, action in enumerate(actions):
            total += self.value(state.successor(agent, action), agent + 1, ply, alpha, beta)
            if total / (i + 1) < alpha:  # "cannot beat alpha any more" - wrong for an average
                return total / (i + 1)
        return total / len(actions)


def better_evaluation(state):
    return state.score
