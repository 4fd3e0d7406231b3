# A student file written against the classic CS188 API, for the tests of pacman.cs188.
# Written for this project (reflex, minimax, alpha-beta, expectimax, a custom evaluation); not CS188 code.

import random

import util
from game import Agent, Directions
from pacman import GameState
from util import manhattanDistance


class ReflexAgent(Agent):
    """Picks the move whose successor scores best, ties broken at random."""

    def getAction(self, gameState: GameState):
        legalMoves = gameState.getLegalActions()
        scores = [self.evaluationFunction(gameState, action) for action in legalMoves]
        bestScore = max(scores)
        bestIndices = [index for index in range(len(scores)) if scores[index] == bestScore]
        return legalMoves[random.choice(bestIndices)]

    def evaluationFunction(self, currentGameState: GameState, action):
        successor = currentGameState.generatePacmanSuccessor(action)
        position = successor.getPacmanPosition()
        food = successor.getFood().asList()
        value = successor.getScore()
        if food:
            value -= 0.5 * min(manhattanDistance(position, dot) for dot in food)
        for ghost in successor.getGhostStates():
            if ghost.scaredTimer == 0 and manhattanDistance(position, ghost.getPosition()) < 2:
                value -= 500
        if action == Directions.STOP:
            value -= 5
        return value


def scoreEvaluationFunction(currentGameState: GameState):
    return currentGameState.getScore()


class MultiAgentSearchAgent(Agent):
    def __init__(self, evalFn='scoreEvaluationFunction', depth='2'):
        self.index = 0
        self.evaluationFunction = util.lookup(evalFn, globals())
        self.depth = int(depth)


class MinimaxAgent(MultiAgentSearchAgent):
    def getAction(self, gameState: GameState):
        return self.value(gameState, 0, 0)[1]

    def value(self, state, agent, depth):
        if state.isWin() or state.isLose() or depth == self.depth:
            return self.evaluationFunction(state), None
        nextAgent = (agent + 1) % state.getNumAgents()
        nextDepth = depth + 1 if nextAgent == 0 else depth
        best = None
        for action in state.getLegalActions(agent):
            v = self.value(state.generateSuccessor(agent, action), nextAgent, nextDepth)[0]
            if best is None or (agent == 0 and v > best[0]) or (agent != 0 and v < best[0]):
                best = (v, action)
        return best


class AlphaBetaAgent(MultiAgentSearchAgent):
    def getAction(self, gameState: GameState):
        return self.value(gameState, 0, 0, float('-inf'), float('inf'))[1]

    def value(self, state, agent, depth, alpha, beta):
        if state.isWin() or state.isLose() or depth == self.depth:
            return self.evaluationFunction(state), None
        nextAgent = (agent + 1) % state.getNumAgents()
        nextDepth = depth + 1 if nextAgent == 0 else depth
        bestValue = float('-inf') if agent == 0 else float('inf')
        bestAction = None
        for action in state.getLegalActions(agent):
            v = self.value(state.generateSuccessor(agent, action), nextAgent, nextDepth, alpha, beta)[0]
            if agent == 0:
                if v > bestValue:
                    bestValue, bestAction = v, action
                if bestValue > beta:
                    return bestValue, bestAction
                alpha = max(alpha, bestValue)
            else:
                if v < bestValue:
                    bestValue, bestAction = v, action
                if bestValue < alpha:
                    return bestValue, bestAction
                beta = min(beta, bestValue)
        return bestValue, bestAction


class ExpectimaxAgent(MultiAgentSearchAgent):
    def getAction(self, gameState: GameState):
        return self.value(gameState, 0, 0)[1]

    def value(self, state, agent, depth):
        if state.isWin() or state.isLose() or depth == self.depth:
            return self.evaluationFunction(state), None
        nextAgent = (agent + 1) % state.getNumAgents()
        nextDepth = depth + 1 if nextAgent == 0 else depth
        actions = state.getLegalActions(agent)
        values = [self.value(state.generateSuccessor(agent, a), nextAgent, nextDepth)[0] for a in actions]
        if agent == 0:
            best = max(values)
            return best, actions[values.index(best)]
        return sum(values) / len(values), None


def betterEvaluationFunction(currentGameState: GameState):
    """Score, minus the distance to the nearest food, minus food and capsules left, plus scared ghosts nearby."""
    position = currentGameState.getPacmanPosition()
    food = currentGameState.getFood().asList()
    value = currentGameState.getScore() - 4 * len(food) - 20 * len(currentGameState.getCapsules())
    if food:
        value -= min(manhattanDistance(position, dot) for dot in food)
    for ghost in currentGameState.getGhostStates():
        distance = manhattanDistance(position, ghost.getPosition())
        if ghost.scaredTimer > distance:
            value += 100 / (1 + distance)
        elif distance < 2:
            value -= 200
    return value


better = betterEvaluationFunction
