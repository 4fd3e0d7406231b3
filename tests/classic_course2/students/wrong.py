# Wrong: the depth grows at every agent's move, not once per ply, and the "better"
# evaluation is the plain score. Written for pacman-ai's tests against the
# classic API (util, game).
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
            agent = 0
        if state.isWin() or state.isLose() or depth == self.depth:
            return self.evaluationFunction(state)
        values = [self.search(state.generateSuccessor(agent, action), agent + 1, depth + 1)
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
    return currentGameState.getScore()


better = betterEvaluationFunction
