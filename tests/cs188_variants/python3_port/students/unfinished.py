# A student file for pacman-ai's tests of the current (snake_case) CS188 generation: the starter as handed
# out, untouched: the reflex agent works (it looks at the successor's score only), the rest is unfinished.
# Our own code; nothing from CS188.
from util import manhattan_distance
from game import Directions, Agent
import random, util

from pacman import GameState


class ReflexAgent(Agent):
    def get_action(self, game_state: GameState):
        legal_moves = game_state.get_legal_actions()
        scores = [self.evaluation_function(game_state, action) for action in legal_moves]
        best_score = max(scores)
        best_indices = [index for index in range(len(scores)) if scores[index] == best_score]
        return legal_moves[random.choice(best_indices)]

    def evaluation_function(self, current_game_state: GameState, action):
        return current_game_state.generate_pacman_successor(action).get_score()


def score_evaluation_function(current_game_state: GameState):
    return current_game_state.get_score()


class MultiAgentSearchAgent(Agent):
    def __init__(self, eval_fn='score_evaluation_function', depth='2'):
        self.index = 0
        self.evaluation_function = util.lookup(eval_fn, globals())
        self.depth = int(depth)


class MinimaxAgent(MultiAgentSearchAgent):
    def get_action(self, game_state: GameState):
        util.raise_not_defined()


class AlphaBetaAgent(MultiAgentSearchAgent):
    def get_action(self, game_state: GameState):
        util.raise_not_defined()


class ExpectimaxAgent(MultiAgentSearchAgent):
    def get_action(self, game_state: GameState):
        util.raise_not_defined()


def better_evaluation_function(current_game_state: GameState):
    util.raise_not_defined()


better = better_evaluation_function
