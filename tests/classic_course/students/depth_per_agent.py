# Wrong: minimax and alpha-beta count depth per agent move instead of per ply
# (expectimax is right, but its question depends on minimax's).
from game import Agent
import util


def scoreEvaluationFunction(currentGameState):
    return currentGameState.getScore()


class MultiAgentSearchAgent(Agent):
    def __init__(self, evalFn='scoreEvaluationFunction', depth='2'):
        self.index = 0
        self.evaluationFunction = util.lookup(evalFn, globals())
        self.depth = int(depth)


class MinimaxAgent(MultiAgentSearchAgent):
    def getAction(self, gameState):
        values = [(self.value(gameState.generateSuccessor(0, a), 1, self.depth - 1), a)
                  for a in gameState.getLegalActions(0)]
        best = max(v for v, _ in values)
        return [a for v, a in values if v == best][0]

    def value(self, state, agent, left):
        agent = agent % state.getNumAgents()
        if state.isWin() or state.isLose() or left == 0:
            return self.evaluationFunction(state)
        values = [self.value(state.generateSuccessor(agent, a), agent + 1, left - 1)
                  for a in state.getLegalActions(agent)]
        return max(values) if agent == 0 else min(values)


class AlphaBetaAgent(MultiAgentSearchAgent):
    def getAction(self, gameState):
        alpha, best, choice = float('-inf'), float('-inf'), None
        for a in gameState.getLegalActions(0):
            v = self.value(gameState.generateSuccessor(0, a), 1, self.depth - 1, alpha, float('inf'))
            if v > best:
                best, choice = v, a
            alpha = max(alpha, best)
        return choice

    def value(self, state, agent, left, alpha, beta):
        agent = agent % state.getNumAgents()
        if state.isWin() or state.isLose() or left == 0:
            return self.evaluationFunction(state)
        v = float('-inf') if agent == 0 else float('inf')
        for a in state.getLegalActions(agent):
            child = self.value(state.generateSuccessor(agent, a), agent + 1, left - 1, alpha, beta)
            if agent == 0:
                v = max(v, child)
                if v > beta:
                    return v
                alpha = max(alpha, v)
            else:
                v = min(v, child)
                if v < alpha:
                    return v
                beta = min(beta, v)
        return v


class ExpectimaxAgent(MultiAgentSearchAgent):
    def getAction(self, gameState):
        values = [(self.value(gameState.generateSuccessor(0, a), 1, 0), a) for a in gameState.getLegalActions(0)]
        best = max(v for v, _ in values)
        return [a for v, a in values if v == best][0]

    def value(self, state, agent, depth):
        if agent == state.getNumAgents():
            agent, depth = 0, depth + 1
        if state.isWin() or state.isLose() or depth == self.depth:
            return self.evaluationFunction(state)
        values = [self.value(state.generateSuccessor(agent, a), agent + 1, depth)
                  for a in state.getLegalActions(agent)]
        return max(values) if agent == 0 else sum(values) / float(len(values))
