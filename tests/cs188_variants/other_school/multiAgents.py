# A complete answer to the multi-agent questions, written for pacman-ai's tests in the
# classic (camelCase) generation of the CS188 API. Our own code; nothing from CS188.
from util import manhattanDistance
from game import Directions, Agent
import random, util

from pacman import GameState


class ReflexAgent(Agent):
    """One move ahead: the successor's score, nearer food better, a ghost next to Pacman very bad."""

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
            value += 1.0 / min(manhattanDistance(position, f) for f in food)
        for ghost in successor.getGhostStates():
            if ghost.scaredTimer == 0 and manhattanDistance(position, ghost.getPosition()) < 2:
                value -= 1000
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

    def isLeaf(self, state, depth):
        return depth == self.depth or state.isWin() or state.isLose() or not state.getLegalActions(0)

    def nextTurn(self, state, agent, depth):
        """The next agent and the depth its move belongs to."""
        agent += 1
        if agent == state.getNumAgents():
            return 0, depth + 1
        return agent, depth


class MinimaxAgent(MultiAgentSearchAgent):
    def getAction(self, gameState: GameState):
        best, choice = float('-inf'), None
        for action in gameState.getLegalActions(0):
            value = self.value(gameState.generateSuccessor(0, action), 1 % gameState.getNumAgents(),
                               0 if gameState.getNumAgents() > 1 else 1)
            if value > best:
                best, choice = value, action
        return choice

    def value(self, state, agent, depth):
        if agent == 0 and self.isLeaf(state, depth) or state.isWin() or state.isLose() \
                or not state.getLegalActions(agent):
            return self.evaluationFunction(state)
        following, nextDepth = self.nextTurn(state, agent, depth)
        values = [self.value(state.generateSuccessor(agent, action), following, nextDepth)
                  for action in state.getLegalActions(agent)]
        return max(values) if agent == 0 else min(values)


class AlphaBetaAgent(MultiAgentSearchAgent):
    def getAction(self, gameState: GameState):
        alpha, beta = float('-inf'), float('inf')
        best, choice = float('-inf'), None
        for action in gameState.getLegalActions(0):
            value = self.value(gameState.generateSuccessor(0, action), 1 % gameState.getNumAgents(),
                               0 if gameState.getNumAgents() > 1 else 1, alpha, beta)
            if value > best:
                best, choice = value, action
            alpha = max(alpha, best)
        return choice

    def value(self, state, agent, depth, alpha, beta):
        if agent == 0 and self.isLeaf(state, depth) or state.isWin() or state.isLose() \
                or not state.getLegalActions(agent):
            return self.evaluationFunction(state)
        following, nextDepth = self.nextTurn(state, agent, depth)
        if agent == 0:
            best = float('-inf')
            for action in state.getLegalActions(agent):
                best = max(best, self.value(state.generateSuccessor(agent, action), following, nextDepth,
                                            alpha, beta))
                if best > beta:
                    return best
                alpha = max(alpha, best)
            return best
        best = float('inf')
        for action in state.getLegalActions(agent):
            best = min(best, self.value(state.generateSuccessor(agent, action), following, nextDepth, alpha, beta))
            if best < alpha:
                return best
            beta = min(beta, best)
        return best


class ExpectimaxAgent(MultiAgentSearchAgent):
    def getAction(self, gameState: GameState):
        best, choice = float('-inf'), None
        for action in gameState.getLegalActions(0):
            value = self.value(gameState.generateSuccessor(0, action), 1 % gameState.getNumAgents(),
                               0 if gameState.getNumAgents() > 1 else 1)
            if value > best:
                best, choice = value, action
        return choice

    def value(self, state, agent, depth):
        if agent == 0 and self.isLeaf(state, depth) or state.isWin() or state.isLose() \
                or not state.getLegalActions(agent):
            return self.evaluationFunction(state)
        following, nextDepth = self.nextTurn(state, agent, depth)
        values = [self.value(state.generateSuccessor(agent, action), following, nextDepth)
                  for action in state.getLegalActions(agent)]
        if agent == 0:
            return max(values)
        return sum(values) / float(len(values))


def betterEvaluationFunction(currentGameState: GameState):
    """The score, plus nearer food, fewer food and capsules left, minus danger from active ghosts,
    plus the chase of scared ones."""
    if currentGameState.isWin() or currentGameState.isLose():
        return currentGameState.getScore()
    position = currentGameState.getPacmanPosition()
    food = currentGameState.getFood().asList()
    value = currentGameState.getScore() - 4 * len(food) - 20 * len(currentGameState.getCapsules())
    if food:
        value += 10.0 / (1 + min(manhattanDistance(position, f) for f in food))
    for ghost in currentGameState.getGhostStates():
        distance = manhattanDistance(position, ghost.getPosition())
        if ghost.scaredTimer > distance:
            value += 50.0 / (1 + distance)
        elif distance < 2:
            value -= 200
    return value


better = betterEvaluationFunction
