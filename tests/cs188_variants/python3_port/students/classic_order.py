# A complete answer to the multi-agent questions, written for pacman-ai's tests in the
# current (snake_case) generation of the CS188 API. Our own code; nothing from CS188.
from util import manhattan_distance
from game import Directions, Agent
import random, util

from pacman import GameState


#: This student searches the actions in the classic order, whatever order the course's engine lists them in.
CLASSIC = ("West", "Stop", "East", "North", "South")


def legal(state, agent=0):
    return sorted(state.get_legal_actions(agent), key=lambda a: CLASSIC.index(a) if a in CLASSIC else len(CLASSIC))


class ReflexAgent(Agent):
    """One move ahead: the successor's score, nearer food better, a ghost next to Pacman very bad."""

    def get_action(self, game_state: GameState):
        legal_moves = legal(game_state)
        scores = [self.evaluation_function(game_state, action) for action in legal_moves]
        best_score = max(scores)
        best_indices = [index for index in range(len(scores)) if scores[index] == best_score]
        return legal_moves[random.choice(best_indices)]

    def evaluation_function(self, current_game_state: GameState, action):
        successor = current_game_state.generate_pacman_successor(action)
        position = successor.get_pacman_position()
        food = successor.get_food().as_list()
        value = successor.get_score()
        if food:
            value += 1.0 / min(manhattan_distance(position, f) for f in food)
        for ghost in successor.get_ghost_states():
            if ghost.scared_timer == 0 and manhattan_distance(position, ghost.get_position()) < 2:
                value -= 1000
        if action == Directions.STOP:
            value -= 5
        return value


def score_evaluation_function(current_game_state: GameState):
    return current_game_state.get_score()


class MultiAgentSearchAgent(Agent):
    def __init__(self, eval_fn='score_evaluation_function', depth='2'):
        self.index = 0
        self.evaluation_function = util.lookup(eval_fn, globals())
        self.depth = int(depth)

    def is_leaf(self, state, depth):
        return depth == self.depth or state.is_win() or state.is_lose() or not legal(state, 0)

    def next_turn(self, state, agent, depth):
        """The next agent and the depth its move belongs to."""
        agent += 1
        if agent == state.get_num_agents():
            return 0, depth + 1
        return agent, depth


class MinimaxAgent(MultiAgentSearchAgent):
    def get_action(self, game_state: GameState):
        best, choice = float('-inf'), None
        for action in legal(game_state, 0):
            value = self.value(game_state.generate_successor(0, action), 1 % game_state.get_num_agents(),
                               0 if game_state.get_num_agents() > 1 else 1)
            if value > best:
                best, choice = value, action
        return choice

    def value(self, state, agent, depth):
        if agent == 0 and self.is_leaf(state, depth) or state.is_win() or state.is_lose() \
                or not legal(state, agent):
            return self.evaluation_function(state)
        following, next_depth = self.next_turn(state, agent, depth)
        values = [self.value(state.generate_successor(agent, action), following, next_depth)
                  for action in legal(state, agent)]
        return max(values) if agent == 0 else min(values)


class AlphaBetaAgent(MultiAgentSearchAgent):
    def get_action(self, game_state: GameState):
        alpha, beta = float('-inf'), float('inf')
        best, choice = float('-inf'), None
        for action in legal(game_state, 0):
            value = self.value(game_state.generate_successor(0, action), 1 % game_state.get_num_agents(),
                               0 if game_state.get_num_agents() > 1 else 1, alpha, beta)
            if value > best:
                best, choice = value, action
            alpha = max(alpha, best)
        return choice

    def value(self, state, agent, depth, alpha, beta):
        if agent == 0 and self.is_leaf(state, depth) or state.is_win() or state.is_lose() \
                or not legal(state, agent):
            return self.evaluation_function(state)
        following, next_depth = self.next_turn(state, agent, depth)
        if agent == 0:
            best = float('-inf')
            for action in legal(state, agent):
                best = max(best, self.value(state.generate_successor(agent, action), following, next_depth,
                                            alpha, beta))
                if best > beta:
                    return best
                alpha = max(alpha, best)
            return best
        best = float('inf')
        for action in legal(state, agent):
            best = min(best, self.value(state.generate_successor(agent, action), following, next_depth, alpha, beta))
            if best < alpha:
                return best
            beta = min(beta, best)
        return best


class ExpectimaxAgent(MultiAgentSearchAgent):
    def get_action(self, game_state: GameState):
        best, choice = float('-inf'), None
        for action in legal(game_state, 0):
            value = self.value(game_state.generate_successor(0, action), 1 % game_state.get_num_agents(),
                               0 if game_state.get_num_agents() > 1 else 1)
            if value > best:
                best, choice = value, action
        return choice

    def value(self, state, agent, depth):
        if agent == 0 and self.is_leaf(state, depth) or state.is_win() or state.is_lose() \
                or not legal(state, agent):
            return self.evaluation_function(state)
        following, next_depth = self.next_turn(state, agent, depth)
        values = [self.value(state.generate_successor(agent, action), following, next_depth)
                  for action in legal(state, agent)]
        if agent == 0:
            return max(values)
        return sum(values) / float(len(values))


def better_evaluation_function(current_game_state: GameState):
    """The score, plus nearer food, fewer food and capsules left, minus danger from active ghosts,
    plus the chase of scared ones."""
    if current_game_state.is_win() or current_game_state.is_lose():
        return current_game_state.get_score()
    position = current_game_state.get_pacman_position()
    food = current_game_state.get_food().as_list()
    value = current_game_state.get_score() - 4 * len(food) - 20 * len(current_game_state.get_capsules())
    if food:
        value += 10.0 / (1 + min(manhattan_distance(position, f) for f in food))
    for ghost in current_game_state.get_ghost_states():
        distance = manhattan_distance(position, ghost.get_position())
        if ghost.scared_timer > distance:
            value += 50.0 / (1 + distance)
        elif distance < 2:
            value -= 200
    return value


better = better_evaluation_function
