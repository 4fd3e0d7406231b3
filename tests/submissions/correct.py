"""A correct submission for the shipped expectimax assignment (the grader's self-tests use it).

Written the way a student would: plain recursion over the GameState API.
"""

import math


class ExpectimaxAgent:
    """Pacman maximises; every ghost moves uniformly at random. Depth counts plies."""

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
        if state.is_win() or state.is_lose():
            return self.evaluation(state)
        if agent == state.num_agents:
            agent, ply = 0, ply + 1
            if ply == self.depth:
                return self.evaluation(state)
        values = [self.value(state.successor(agent, action), agent + 1, ply)
                  for action in state.legal_actions(agent)]
        if agent == 0:
            return max(values)
        return sum(values) / len(values)


def better_evaluation(state):
    """Score, food left, the way to the nearest food, and distance from ghosts that are not scared."""
    if state.is_win() or state.is_lose():
        return state.score
    px, py = state.pacman_position
    food = state.food
    nearest = min((abs(px - x) + abs(py - y) for x, y in food), default=0)
    value = state.score - 4 * len(food) - 1.5 * nearest
    for (gx, gy), timer in zip(state.ghost_positions, state.scared_timers):
        distance = abs(px - gx) + abs(py - gy)
        if timer:
            value += 100 / (1 + distance)
        elif distance <= 1:
            value -= 300
        elif distance <= 3:
            value -= 20 / distance
    return value
