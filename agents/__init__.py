"""Everything that chooses moves: Pacman agents and ghost agents.

Depends only on the core of `pacman` (layout, state, actions), never on a view.
"""

from pacman.agents.evaluation import (EVALUATIONS, better_evaluation, dots_evaluation, resolve_evaluation,
                                     safe_evaluation, scaled_evaluation, score_evaluation)
from pacman.agents.expectimax import (
    MAX_CORE_SEARCH_LEAVES,
    MAX_SEARCH_LEAVES,
    AlphaBetaAgent,
    ExpectimaxAgent,
    MinimaxAgent,
    PacmanGame,
    SearchInfo,
    check_search_size,
    estimated_leaves,
)
from pacman.agents.ghosts import GHOST_KINDS, DirectionalGhost, GhostAgent, RandomGhost, make_ghosts, sample
from pacman.agents.registry import DEFAULT_EVALUATION, PACMAN_AGENTS, build_agent, effective_args, parse_agent_args
from pacman.agents.trees import TreeGame, TreeNode, load_tree, parse_tree, solve_tree
from pacman.agents.mcts import MCTSAgent
from pacman.agents.solver import OptimalAgent, Solution, SolverError, solve
from pacman.agents.simple import GreedyAgent, PacmanAgent, RandomAgent

__all__ = [
    "ExpectimaxAgent",
    "MinimaxAgent",
    "AlphaBetaAgent",
    "PacmanGame",
    "SearchInfo",
    "MAX_CORE_SEARCH_LEAVES",
    "MAX_SEARCH_LEAVES",
    "estimated_leaves",
    "check_search_size",
    "EVALUATIONS",
    "score_evaluation",
    "better_evaluation",
    "safe_evaluation",
    "scaled_evaluation",
    "dots_evaluation",
    "resolve_evaluation",
    "GhostAgent",
    "RandomGhost",
    "DirectionalGhost",
    "GHOST_KINDS",
    "make_ghosts",
    "sample",
    "TreeNode",
    "TreeGame",
    "parse_tree",
    "load_tree",
    "solve_tree",
    "PacmanAgent",
    "RandomAgent",
    "GreedyAgent",
    "MCTSAgent",
    "OptimalAgent",
    "solve",
    "Solution",
    "SolverError",
    "PACMAN_AGENTS",
    "build_agent",
    "parse_agent_args",
    "effective_args",
    "DEFAULT_EVALUATION",
]
