# Wrong: the expectimax agent takes the minimum at chance nodes.
# Written for pacman-ai's tests against the classic API (util, game). Our own; not CS188's.
from util import manhattanDistance
from game import Directions, Agent
import random, util


def scoreEvaluationFunction(currentGameState):
    return currentGameState.getScore()


class MultiAgentSearchAgent(Agent):
    def __init__(self, evalFn='scoreEvaluationFunction', depth='2'):
        self.index = 0
        self.evaluationFunction = util.lookup(evalFn, globals())
        self.depth = int(depth)

    def isOver(self, state, depth):
        return state.isWin() or state.isLose() or depth == self.depth


class MinimaxAgent(MultiAgentSearchAgent):
    def getAction(self, gameState):
        best, choice = float('-inf'), None
        for action in gameState.getLegalActions(0):
            value = self.value(gameState.generateSuccessor(0, action), 1, 0)
            if value > best:
                best, choice = value, action
        return choice

    def value(self, state, agent, depth):
        if agent == state.getNumAgents():
            agent, depth = 0, depth + 1
        if self.isOver(state, depth):
            return self.evaluationFunction(state)
        values = [self.value(state.generateSuccessor(agent, action), agent + 1, depth)
                  for action in state.getLegalActions(agent)]
        return max(values) if agent == 0 else min(values)


class AlphaBetaAgent(MultiAgentSearchAgent):
    def getAction(self, gameState):
        alpha, beta = float('-inf'), float('inf')
        best, choice = float('-inf'), None
        for action in gameState.getLegalActions(0):
            value = self.value(gameState.generateSuccessor(0, action), 1, 0, alpha, beta)
            if value > best:
                best, choice = value, action
            alpha = max(alpha, best)
        return choice

    def value(self, state, agent, depth, alpha, beta):
        if agent == state.getNumAgents():
            agent, depth = 0, depth + 1
        if self.isOver(state, depth):
            return self.evaluationFunction(state)
        if agent == 0:
            v = float('-inf')
            for action in state.getLegalActions(agent):
                v = max(v, self.value(state.generateSuccessor(agent, action), agent + 1, depth, alpha, beta))
                if v > beta:
                    return v
                alpha = max(alpha, v)
            return v
        v = float('inf')
        for action in state.getLegalActions(agent):
            v = min(v, self.value(state.generateSuccessor(agent, action), agent + 1, depth, alpha, beta))
            if v < alpha:
                return v
            beta = min(beta, v)
        return v


class ExpectimaxAgent(MultiAgentSearchAgent):
    def getAction(self, gameState):
        best, choice = float('-inf'), None
        for action in gameState.getLegalActions(0):
            value = self.value(gameState.generateSuccessor(0, action), 1, 0)
            if value > best:
                best, choice = value, action
        return choice

    def value(self, state, agent, depth):
        if agent == state.getNumAgents():
            agent, depth = 0, depth + 1
        if self.isOver(state, depth):
            return self.evaluationFunction(state)
        values = [self.value(state.generateSuccessor(agent, action), agent + 1, depth)
                  for action in state.getLegalActions(agent)]
        if agent == 0:
            return max(values)
        return min(values)
