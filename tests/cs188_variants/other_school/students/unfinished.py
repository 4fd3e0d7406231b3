# A student file for pacman-ai's tests of the classic (camelCase) CS188 generation: the starter as handed
# out, untouched: the reflex agent works (it looks at the successor's score only), the rest is unfinished.
# Our own code; nothing from CS188.
from util import manhattanDistance
from game import Directions, Agent
import random, util

from pacman import GameState


class ReflexAgent(Agent):
    def getAction(self, gameState: GameState):
        legalMoves = gameState.getLegalActions()
        scores = [self.evaluationFunction(gameState, action) for action in legalMoves]
        bestScore = max(scores)
        bestIndices = [index for index in range(len(scores)) if scores[index] == bestScore]
        return legalMoves[random.choice(bestIndices)]

    def evaluationFunction(self, currentGameState: GameState, action):
        return currentGameState.generatePacmanSuccessor(action).getScore()


def scoreEvaluationFunction(currentGameState: GameState):
    return currentGameState.getScore()


class MultiAgentSearchAgent(Agent):
    def __init__(self, evalFn='scoreEvaluationFunction', depth='2'):
        self.index = 0
        self.evaluationFunction = util.lookup(evalFn, globals())
        self.depth = int(depth)


class MinimaxAgent(MultiAgentSearchAgent):
    def getAction(self, gameState: GameState):
        util.raiseNotDefined()


class AlphaBetaAgent(MultiAgentSearchAgent):
    def getAction(self, gameState: GameState):
        util.raiseNotDefined()


class ExpectimaxAgent(MultiAgentSearchAgent):
    def getAction(self, gameState: GameState):
        util.raiseNotDefined()


def betterEvaluationFunction(currentGameState: GameState):
    util.raiseNotDefined()


better = betterEvaluationFunction
