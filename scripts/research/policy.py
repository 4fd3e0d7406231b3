"""The exact worth of a deterministic Pacman agent on a small maze: its win probability and expected score.

A search agent with a fixed depth and no time limit plays a fixed policy: its
move depends on the position alone (the score is added to every leaf alike,
so it never changes the move). `policy_value` walks every node that policy
reaches from the start against the ghosts (random by default; a node is a state without its
score, plus the agent to move, as in `pacman.agents.solver`), asks the agent
for its move once per Pacman node, and solves the Markov chain that results:

- the win probability: the probability of reaching a won state. Nodes that
  cannot reach one are worth 0; on the others ``(I - P) v = p_win`` has a
  unique solution, found by a sparse solve. A policy that waits forever
  wins nothing, whatever its evaluation thought of the wait.
- the expected final score: finite only when the policy ends the game with
  probability 1 (to 1e-9); otherwise minus infinity (every Pacman move costs
  a point), reported as such.

Games here have no move limit (the command line cuts a game at 500 moves by
default: a won game that long is rare on these mazes, and then counts as not
won there).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

try:
    import scipy.sparse
    import scipy.sparse.linalg
except ImportError:  # pragma: no cover - scipy comes with the test extra
    raise ImportError("research needs scipy: pip install 'pacman-ai[test]' (or pip install scipy)") from None

from pacman.actions import Action
from pacman.agents.ghosts import RandomGhost, make_ghosts
from pacman.agents.solver import node_key
from pacman.game import needs_heading
from pacman.layout import Layout
from pacman.state import GameState

__all__ = ["PolicyValue", "policy_value", "MAX_POLICY_NODES"]

#: The most nodes a policy's chain may have before `policy_value` gives up (a ValueError).
MAX_POLICY_NODES = 2_000_000
_ENDED = 1e-9


@dataclass(frozen=True)
class PolicyValue:
    """What one agent's policy is worth on one maze against its ghosts."""

    win: float
    """The probability of winning."""
    score: float
    """The expected final score; minus infinity when the game may never end."""
    nodes: int
    """Nodes of the chain (Pacman's and the ghosts')."""
    decisions: int
    """Pacman nodes: the moves the agent was asked for."""
    first_action: Action
    """The agent's move at the start."""


def policy_value(layout: Layout, choose: Callable[[GameState], Action],
                 num_ghosts: int | None = None, limit: int = MAX_POLICY_NODES, ghosts: str = "random") -> PolicyValue:
    """The exact win probability and expected score of the policy ``choose`` on `layout` against `ghosts` (a kind
    of GHOST_KINDS: each ghost's moves weighed by its `distribution`; Pacman's heading kept in the states where a
    ghost reads it, as the solver keeps it)."""
    start = GameState.initial(layout, num_ghosts)
    models = make_ghosts(ghosts, start.num_ghosts)
    if needs_heading(models):
        start = GameState.initial(layout, num_ghosts, heading=True)
    num_agents = start.num_agents
    index: dict[tuple, int] = {(node_key(start), 0): 0}
    pending: list[Any] = [start]
    agents = [0]
    rows: list[int] = []
    cols: list[int] = []
    probs: list[float] = []
    rewards: list[float] = []
    win_prob = []
    lose_prob = []
    win_reward = []
    decisions = 0
    first_action = None
    i = 0
    while i < len(pending):
        state = pending[i]
        pending[i] = None
        agent = agents[i]
        following = agent + 1 if agent + 1 < num_agents else 0
        if agent == 0:
            action = choose(state)
            decisions += 1
            if first_action is None:
                first_action = action
            children = [state.successor(0, action)]
            weights = [1.0]
        elif type(models[agent - 1]) is RandomGhost:
            children = state.successors(agent)
            weights = [1.0 / len(children)] * len(children)
        else:
            moves = [(a, p) for a, p in models[agent - 1].distribution(state) if p > 0.0]
            children = [state.successor(agent, a) for a, _ in moves]
            weights = [p for _, p in moves]
        won = lost = ending = 0.0
        for successor, p in zip(children, weights):
            reward = successor.score - state.score
            if successor.is_win():
                won += p
                ending += p * reward
            elif successor.is_lose():
                lost += p
                ending += p * reward
            else:
                key = (node_key(successor), following)
                target = index.get(key)
                if target is None:
                    if len(pending) >= limit:
                        raise ValueError(f"{layout.name}: the policy reaches more than {limit:,} nodes")
                    target = index[key] = len(pending)
                    pending.append(successor)
                    agents.append(following)
                rows.append(i)
                cols.append(target)
                probs.append(p)
                rewards.append(p * reward)
        win_prob.append(won)
        lose_prob.append(lost)
        win_reward.append(ending)
        i += 1
    n = len(pending)
    transitions = scipy.sparse.csr_matrix((probs, (rows, cols)), shape=(n, n))
    immediate = np.array(win_reward)  # each node's expected reward in one step
    if rows:
        np.add.at(immediate, np.array(rows, dtype=np.int64), np.array(rewards))
    win = _absorption(transitions, np.array(win_prob))
    ends = _absorption(transitions, np.array(win_prob) + np.array(lose_prob))
    if ends[0] < 1.0 - _ENDED:
        score = -math.inf
    else:
        surely = ends >= 1.0 - _ENDED  # closed under the chain: an average of ones is one only if all are
        score = float(_solve(transitions, immediate, surely)[0])
    assert first_action is not None
    return PolicyValue(win=float(win[0]), score=score, nodes=n, decisions=decisions, first_action=first_action)


def _absorption(transitions: scipy.sparse.csr_matrix, into: np.ndarray) -> np.ndarray:
    """Each node's probability of reaching the absorbing sinks that `into` gives one step probabilities of."""
    n = transitions.shape[0]
    # Nodes that can reach the sinks at all: backwards from those with a direct step into them.
    reverse = transitions.T.tocsr()
    can = into > 0
    frontier = np.flatnonzero(can)
    while len(frontier):
        sources = np.unique(reverse[frontier].indices)
        sources = sources[~can[sources]]
        can[sources] = True
        frontier = sources
    values = np.zeros(n)
    if can.any():
        values[can] = _solve(transitions, into, can)
    return np.clip(values, 0.0, 1.0)


def _solve(transitions: scipy.sparse.csr_matrix, constant: np.ndarray, members: np.ndarray) -> np.ndarray:
    """v = P v + constant on `members` (their outside neighbours worth 0): transient, so I - P is invertible."""
    keep = np.flatnonzero(members)
    inner = transitions[keep][:, keep]
    system = scipy.sparse.identity(len(keep), format="csc") - inner.tocsc()
    return scipy.sparse.linalg.spsolve(system, constant[keep]) if len(keep) > 1 else (
        constant[keep] / (1.0 - inner.toarray().ravel()))
