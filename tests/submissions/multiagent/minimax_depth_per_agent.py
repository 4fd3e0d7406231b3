"""Wrong in MinimaxAgent only: the depth counts every agent's move, not whole plies (Pacman and every ghost)."""

import math


class ReflexAgent:
    """Looks one move ahead and scores every (state, action) pair; ties go to the first legal action."""

    def get_action(self, state):
        best_value, best_action = -math.inf, None
        for action in state.legal_actions(0):
            value = self.score_action(state, action)
            if value > best_value:
                best_value, best_action = value, action
        return best_action

    def score_action(self, state, action):
        """The score after the move, minus the way to the nearest food, with a large penalty near a ghost."""
        after = state.successor(0, action)
        if after.is_win():
            return math.inf
        if after.is_lose():
            return -math.inf
        px, py = after.pacman_position
        value = after.score
        food = after.food
        if food:
            value -= min(abs(px - x) + abs(py - y) for x, y in food)
        for (gx, gy), timer in zip(after.ghost_positions, after.scared_timers):
            if not timer and abs(px - gx) + abs(py - gy) <= 1:
                value -= 1000
        if action.value == "Stop":
            value -= 5
        return value


class MinimaxAgent:
    """Pacman maximises, every ghost minimises; but the depth counts single moves."""

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
        return max(values) if agent == 0 else min(values)


class AlphaBetaAgent:
    """Minimax with alpha-beta: children in legal-action order, a cut only on strict inequality."""

    def __init__(self, depth=2, evaluation=None):
        self.depth = depth
        self.evaluation = evaluation

    def get_action(self, state):
        alpha, beta = -math.inf, math.inf
        best_value, best_action = -math.inf, None
        for action in state.legal_actions(0):
            value = self.value(state.successor(0, action), 1, 0, alpha, beta)
            if value > best_value:
                best_value, best_action = value, action
            alpha = max(alpha, best_value)
        return best_action

    def value(self, state, agent, ply, alpha, beta):
        if state.is_win() or state.is_lose():
            return self.evaluation(state)
        if agent == state.num_agents:
            agent, ply = 0, ply + 1
            if ply == self.depth:
                return self.evaluation(state)
        if agent == 0:
            best = -math.inf
            for action in state.legal_actions(0):
                best = max(best, self.value(state.successor(0, action), 1, ply, alpha, beta))
                if best > beta:
                    return best
                alpha = max(alpha, best)
            return best
        best = math.inf
        for action in state.legal_actions(agent):
            best = min(best, self.value(state.successor(agent, action), agent + 1, ply, alpha, beta))
            if best < alpha:
                return best
            beta = min(beta, best)
        return best


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
