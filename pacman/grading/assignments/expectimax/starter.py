"""multi_agents.py: your expectimax agent and your evaluation function.

Grade it with:  pacman-ai grade expectimax multi_agents.py
Watch it play with your evaluation (leave out ",evaluation=..." for the project's default, `dots`):
    pacman-ai play --pacman multi_agents.py:ExpectimaxAgent --agent-args depth=2,evaluation=multi_agents.py:better_evaluation

The states you get offer the GameState API:

    state.num_agents                  Pacman (agent 0) plus the ghosts (agents 1, 2, ...)
    state.legal_actions(agent)        the actions `agent` may take; () once the game is over
    state.successor(agent, action)    the state after `agent` takes `action` (a new state)
    state.score                       the game score so far
    state.is_win(), state.is_lose()   the game is over (won or lost)
    state.pacman_position, state.ghost_positions, state.scared_timers, state.food,
    state.capsules, state.food_count, ...

The grader counts the states you expand (call successor() on): expand exactly
those that expectimax must, no more, no fewer.

Write it yourself: a file that imports the project's search, agents, evaluations
or grading code (agents, pacman.grading, ...) scores 0. The state API (pacman,
pacman.state, pacman.actions) and maze distances (pacman.distances) are yours to use.
"""


class ExpectimaxAgent:
    """Pacman maximises; every ghost moves uniformly at random among its legal actions.

    `depth` counts plies: one ply is Pacman's move followed by one move of every
    ghost. Where the search stops (the depth limit, or a finished game) a state is
    valued with `evaluation(state)`.
    """

    def __init__(self, depth=2, evaluation=None):
        self.depth = depth
        self.evaluation = evaluation

    def get_action(self, state):
        """The legal action of Pacman with the highest expectimax value."""
        # YOUR CODE HERE
        raise NotImplementedError("ExpectimaxAgent.get_action")


def better_evaluation(state):
    """How good `state` is for Pacman: a number, higher is better."""
    # YOUR CODE HERE
    raise NotImplementedError("better_evaluation")
