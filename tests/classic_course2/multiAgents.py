# A reference solution of the classic multi-agent questions (minimax,
# expectimax, a better evaluation), written for pacman-ai's tests against the
# classic API (util, game). Our own; nothing here comes from the CS188 project.
from util import manhattanDistance
from game import Agent
import util


def scoreEvaluationFunction(currentGameState):
    return currentGameState.getScore()


class MultiAgentSearchAgent(Agent):
    def __init__(self, evalFn='scoreEvaluationFunction', depth='2'):
        self.index = 0
        self.evaluationFunction = util.lookup(evalFn, globals())
        self.depth = int(depth)

    def search(self, state, agent, depth):
        if agent == state.getNumAgents():
            agent, depth = 0, depth + 1
        if state.isWin() or state.isLose() or depth == self.depth:
            return self.evaluationFunction(state)
        values = [self.search(state.generateSuccessor(agent, action), agent + 1, depth)
                  for action in state.getLegalActions(agent)]
        return max(values) if agent == 0 else self.combine(values)

    def getAction(self, gameState):
        best, choice = float('-inf'), None
        for action in gameState.getLegalActions(0):
            value = self.search(gameState.generateSuccessor(0, action), 1, 0)
            if value > best:
                best, choice = value, action
        return choice


class MinimaxAgent(MultiAgentSearchAgent):
    def combine(self, values):
        return min(values)


class ExpectimaxAgent(MultiAgentSearchAgent):
    def combine(self, values):
        return sum(values) / float(len(values))


def betterEvaluationFunction(currentGameState):
    """The score, plus a pull towards the nearest food and away from a close, unscared ghost."""
    pacman = currentGameState.getPacmanPosition()
    food = currentGameState.getFood().asList()
    value = currentGameState.getScore()
    if food:
        value += 10.0 / (1 + min(manhattanDistance(pacman, f) for f in food))
    for ghost in currentGameState.getGhostStates():
        if ghost.scaredTimer == 0 and manhattanDistance(pacman, ghost.getPosition()) < 2:
            value -= 100
    return value


better = betterEvaluationFunction
