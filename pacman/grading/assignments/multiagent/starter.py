"""multi_agents.py: a reflex agent, minimax, alpha-beta, expectimax and an evaluation function.

Grade it with:      pacman-ai grade multiagent multi_agents.py
One question only:  pacman-ai grade multiagent multi_agents.py --question minimax --verbose
Watch an agent play (leave out ",evaluation=..." for the project's default evaluation, `dots`):
    pacman-ai play --pacman multi_agents.py:ReflexAgent --layout small --num-ghosts 1
    pacman-ai play --pacman multi_agents.py:AlphaBetaAgent --agent-args depth=2
    pacman-ai play --pacman multi_agents.py:ExpectimaxAgent --agent-args depth=2,evaluation=multi_agents.py:better_evaluation

Questions, in order (each builds on the one before):
    reflex (4)      ReflexAgent.score_action, played in 10 games on `small` with one random ghost
    minimax (5)     MinimaxAgent.get_action, on explicit trees and Pacman positions
    alphabeta (5)   AlphaBetaAgent.get_action, the same, counting the states you expand
    expectimax (5)  ExpectimaxAgent.get_action, ghosts moving uniformly at random
    evaluation (6)  better_evaluation, played by the project's expectimax at depth 2

The states you get offer the GameState API:

    state.num_agents                  Pacman (agent 0) plus the ghosts (agents 1, 2, ...)
    state.legal_actions(agent)        the actions `agent` may take, in the order North, South,
                                      East, West, Stop; () once the game is over
    state.successor(agent, action)    the state after `agent` takes `action` (a new state)
    state.score                       the game score so far
    state.is_win(), state.is_lose()   the game is over (won or lost)
    state.pacman_position, state.ghost_positions, state.scared_timers, state.food,
    state.capsules, state.food_count, ...

Actions are `Action`s: compare `action.value` with "North", "South", "East",
"West" or "Stop". In the tree tests, states are nodes of a small game tree
dressed up as a game: actions are strings, `score` is a leaf's value.

Depth counts plies: one ply is Pacman's move followed by one move of every
ghost, so depth 2 with 3 ghosts searches 8 moves deep. Where the search stops
(the depth limit, or a finished game: is_win() or is_lose()) a state is valued
with `self.evaluation(state)`; never ask a finished game for a successor.

The grader counts the states you expand, that is call successor() on (once or
many times, it is one expansion). Minimax and expectimax expand every state that
is not finished and lies less than `depth` plies below the root. Alpha-beta
expands exactly the states of this rule: visit children in legal-action order;
pass alpha and beta down; a max node stops as soon as a child's value is
greater than beta, a min node as soon as a child's value is less than alpha
(never on equality); at the root (a max node) raise alpha after each action.

Write it yourself: a file that imports the project's search, agents, evaluations
or grading code (agents, pacman.grading, ...) scores 0. The state API (pacman,
pacman.state, pacman.actions) and maze distances (pacman.distances) are yours to use.
"""


class ReflexAgent:
    """Pacman looks one move ahead: of its legal actions it takes the one `score_action` rates highest.

    Built with no arguments: ``ReflexAgent()``. Ties go to the first action in
    legal order.
    """

    def get_action(self, state):
        """The legal action of Pacman with the highest `score_action`."""
        best_value, best_action = None, None
        for action in state.legal_actions(0):
            value = self.score_action(state, action)
            if best_value is None or value > best_value:
                best_value, best_action = value, action
        return best_action

    def score_action(self, state, action):
        """How good taking `action` in `state` is for Pacman: a number, higher is better.

        Look at ``state.successor(0, action)``: its score, the food left and the
        way to the nearest one, the ghosts near Pacman (and whether they are
        scared), whether the game is won or lost.
        """
        # YOUR CODE HERE
        raise NotImplementedError("ReflexAgent.score_action")


class MinimaxAgent:
    """Pacman maximises; every ghost minimises, one min layer per ghost in index order.

    `depth` counts plies (Pacman's move and one move of every ghost); states where
    the search stops are valued with `evaluation(state)`.
    """

    def __init__(self, depth=2, evaluation=None):
        self.depth = depth
        self.evaluation = evaluation

    def get_action(self, state):
        """The legal action of Pacman with the highest minimax value (the first in legal order on a tie)."""
        # YOUR CODE HERE
        raise NotImplementedError("MinimaxAgent.get_action")


class AlphaBetaAgent:
    """Minimax with alpha-beta pruning: the minimax action, with fewer states expanded.

    Visit children in legal-action order; prune only on strict inequality (a max
    node stops when a child's value is greater than beta, a min node when a
    child's value is less than alpha); do not reorder moves.
    """

    def __init__(self, depth=2, evaluation=None):
        self.depth = depth
        self.evaluation = evaluation

    def get_action(self, state):
        """The legal action of Pacman with the highest minimax value, found by alpha-beta."""
        # YOUR CODE HERE
        raise NotImplementedError("AlphaBetaAgent.get_action")


class ExpectimaxAgent:
    """Pacman maximises; every ghost moves uniformly at random among its legal actions (a chance layer)."""

    def __init__(self, depth=2, evaluation=None):
        self.depth = depth
        self.evaluation = evaluation

    def get_action(self, state):
        """The legal action of Pacman with the highest expectimax value."""
        # YOUR CODE HERE
        raise NotImplementedError("ExpectimaxAgent.get_action")


def better_evaluation(state):
    """How good `state` is for Pacman: a number, higher is better (used by expectimax at depth 2)."""
    # YOUR CODE HERE
    raise NotImplementedError("better_evaluation")
