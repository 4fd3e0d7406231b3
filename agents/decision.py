"""The top of a search agent's decision as a small tree: Pacman's actions, the first ghost's answers.

`decision_tree(agent, state)` searches `state` as the agent does (its evaluation,
depth, ghost model, and the same `PacmanGame` and `Searcher`) and returns the max
node at the root, one branch per legal Pacman action (a chance node for
expectimax, a min node for minimax) and, under each, the first ghost's moves
with their probabilities and values; deeper layers are summarised as one value
per outcome. The branch values are the agent's `action_values(state)` to the
last bit: each is the same sum (or minimum) over the same child values that the
agent's search computes.

Views use it to draw the decision just made; it costs about one more search, so
they ask for it only when it is shown.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from pacman.agents.expectimax import DEFAULT_TABLE_SIZE, PacmanGame, _SearchAgent
from pacman.agents.search import CHANCE, MAX, MIN, TERMINAL, Searcher
from pacman.actions import Action
from pacman.errors import AgentSpecError
from pacman.state import GameState

__all__ = ["Outcome", "Branch", "DecisionNode", "decision_tree"]


@dataclass(frozen=True)
class Outcome:
    """One move of the agent to play after Pacman (the first ghost), and the value of what follows."""

    action: Action
    """The move (a ghost's; Pacman's own on a layout without ghosts)."""
    probability: float | None
    """Its probability under the agent's ghost model; None where the ghost is a min layer or Pacman moves."""
    value: float
    """The search value of the state after the move: deeper layers summarised."""
    kind: str
    """What follows the move: MAX (Pacman), CHANCE or MIN (the next ghost), TERMINAL (the game ended)."""
    cut: bool
    """True if the depth limit is reached here: the value is the evaluation of the state."""


@dataclass(frozen=True)
class Branch:
    """One legal Pacman action at the root, and the layer after it."""

    action: Action
    value: float
    """The action's value: equal to ``agent.action_values(state)[action]``."""
    kind: str
    """CHANCE (expectimax ghosts), MIN (minimax ghosts), MAX (no ghosts) or TERMINAL (the action ends the game)."""
    outcomes: tuple[Outcome, ...]
    """The next agent's moves; empty at a terminal state or where the depth limit cuts."""


@dataclass(frozen=True)
class DecisionNode:
    """The root of a decision: Pacman maximises over `branches`."""

    action: Action
    """The first best action, the one the agent plays."""
    value: float
    depth: float
    """The depth searched, in Pacman plies."""
    branches: tuple[Branch, ...]


def decision_tree(agent: Any, state: GameState, depth: float | None = None) -> DecisionNode:
    """The top of `agent`'s decision in `state`, searched `depth` plies deep (default: the agent's depth).

    `agent` is an ExpectimaxAgent, MinimaxAgent or AlphaBetaAgent. An agent with a
    time limit deepens iteratively, so give the depth it completed
    (``agent.last_search.depth``); without one, the depth of its last search is used.
    """
    if not isinstance(agent, _SearchAgent):
        raise AgentSpecError(f"{type(agent).__name__} has no search tree to show (expected a search agent)")
    if state.is_terminal():
        raise AgentSpecError(f"{type(agent).__name__}: no decision in a finished game")
    if depth is None:
        depth = agent.depth if agent.time_limit is None else getattr(agent.last_search, "depth", None)
        if depth is None:
            raise AgentSpecError(f"{type(agent).__name__}: with a time limit, give the depth the search completed")
    if isinstance(depth, bool) or not isinstance(depth, (int, float)) or not depth >= 1 or math.isnan(depth):
        raise AgentSpecError(f"decision depth must be a number >= 1, got {depth!r}")
    game = PacmanGame(state.num_agents, agent.evaluation, agent._ghost_models(state.num_agents - 1),
                      ghosts_minimise=agent.ghosts_minimise)
    searcher = Searcher(game, prune=agent.pruning, table_size=DEFAULT_TABLE_SIZE if agent.transposition else 0)
    root = (state, 0)
    next_depth = depth - game.cost(root)
    branches = []
    for action, child in zip(game.actions(root), game.children(root)):
        branches.append(_branch(game, searcher, action, child, next_depth))
    best = branches[0]
    for branch in branches[1:]:
        if branch.value > best.value:
            best = branch
    return DecisionNode(best.action, best.value, depth, tuple(branches))


def _branch(game: PacmanGame, searcher: Searcher, action: Action, node: tuple, depth: float) -> Branch:
    """The branch of Pacman's `action`: `node` is the state after it, with `depth` plies left."""
    kind = game.kind(node)
    if kind == TERMINAL or depth <= 0:
        return Branch(action, searcher.value(node, depth), kind, ())
    state, agent = node
    next_depth = depth - game.cost(node)
    if kind == CHANCE:
        if game.ghost_models is None:
            moves = state.legal_actions(agent)
        else:
            moves = tuple(move for move, _ in game.ghost_models[agent - 1].distribution(state))
        pairs = [(p, child) for p, child in game.outcomes(node)]
    else:
        moves = game.actions(node)
        pairs = [(None, child) for child in game.children(node)]
    outcomes = []
    for move, (p, child) in zip(moves, pairs):
        child_kind = game.kind(child)
        value = searcher.value(child, next_depth)
        outcomes.append(Outcome(move, p, value, child_kind, child_kind != TERMINAL and next_depth <= 0))
    # The same operations, in the same order, as the search's (pacman.agents.search.Searcher._value).
    if kind == CHANCE:
        total = 0.0
        for outcome in outcomes:
            total += outcome.probability * outcome.value
        value = total
    elif kind == MIN:
        value = math.inf
        for outcome in outcomes:
            if outcome.value < value:
                value = outcome.value
    else:  # MAX: no ghosts, Pacman moves again
        value = -math.inf
        for outcome in outcomes:
            if outcome.value > value:
                value = outcome.value
    if kind == MAX:
        outcomes = [Outcome(o.action, None, o.value, o.kind, o.cut) for o in outcomes]
    return Branch(action, value, kind, tuple(outcomes))
