"""Where an agent loses against the optimum: its costliest decisions, by the exact values of every move.

The gap of a policy to the optimum splits over the positions it plays
(the performance-difference identity for reaching a won state): ``V*(start) -
V(start) = sum over Pacman's positions s of visits(s) * (V*(s) - Q*(s, move(s)))``,
where visits(s) is how often the agent's policy comes to s (an expected count)
and Q*(s, a) the optimal win probability after move a. `costly_decisions`
lists those terms, largest first: the positions where the agent's move throws
away the most, with every move's exact value.

The values come from value iteration over every reachable node here (Jacobi
sweeps to 1e-12), independently of `pacman.agents.solver`; the tests check
that both agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from pacman.actions import Action
from pacman.agents.solver import node_key
from pacman.layout import Layout
from pacman.state import GameState

__all__ = ["OptimalValues", "optimal_values", "Decision", "costly_decisions"]

_TOLERANCE = 1e-12
_MAX_SWEEPS = 1_000_000


@dataclass
class OptimalValues:
    """The optimal win probability of every reachable node (state without score, agent to move)."""

    index: dict[tuple, int]
    values: np.ndarray
    num_agents: int

    def of(self, state: GameState, agent: int) -> float:
        """V* of `state` with `agent` to move (1 for a won state, 0 for a lost one)."""
        if state.is_win():
            return 1.0
        if state.is_lose():
            return 0.0
        return float(self.values[self.index[(node_key(state), agent)]])

    def move_values(self, state: GameState) -> dict[Action, float]:
        """Q*(state, a) for each of Pacman's legal moves in `state`."""
        following = 1 % self.num_agents
        return {a: self.of(state.successor(0, a), following) for a in state.legal_actions(0)}


def optimal_values(layout: Layout, limit: int = 2_000_000) -> OptimalValues:
    """Value iteration for the win probability over every node reachable from `layout`'s start (random ghosts)."""
    start = GameState.initial(layout)
    num_agents = start.num_agents
    index = {(node_key(start), 0): 0}
    states: list = [start]
    agents = [0]
    sources, targets, weights = [], [], []
    i = 0
    while i < len(states):
        state, agent = states[i], agents[i]
        following = (agent + 1) % num_agents
        children = state.successors(agent)
        p = 1.0 if agent == 0 else 1.0 / len(children)
        for child in children:
            if child.is_win():
                target = -1
            elif child.is_lose():
                target = -2
            else:
                key = (node_key(child), following)
                target = index.get(key)
                if target is None:
                    if len(states) >= limit:
                        raise ValueError(f"{layout.name}: more than {limit:,} nodes")
                    target = index[key] = len(states)
                    states.append(child)
                    agents.append(following)
            sources.append(i)
            targets.append(target)
            weights.append(p)
        states[i] = None
        i += 1
    n = len(states)
    target = np.array(targets)
    target[target == -1] = n
    target[target == -2] = n + 1
    weight = np.array(weights)
    starts = np.searchsorted(np.array(sources), np.arange(n))
    is_pacman = np.array(agents) == 0
    values = np.zeros(n + 2)
    values[n] = 1.0
    for _ in range(_MAX_SWEEPS):
        q = values[target]
        new = np.where(is_pacman, np.maximum.reduceat(q, starts), np.add.reduceat(q * weight, starts))
        change = float(np.max(np.abs(new - values[:n])))
        values[:n] = new
        if change <= _TOLERANCE:
            break
    else:
        raise ValueError(f"{layout.name}: value iteration did not converge")
    return OptimalValues(index, values[:n], num_agents)


@dataclass(frozen=True)
class Decision:
    """One of the agent's decisions and what it costs."""

    state: GameState
    move: Action
    move_values: dict[Action, float]
    """Q*(state, a) of every legal move."""
    visits: float
    """How often the agent's policy comes to this position (expected count)."""
    loss: float
    """visits * (V*(state) - Q*(state, move)): this decision's share of the agent's gap."""


def costly_decisions(layout: Layout, choose: Callable[[GameState], Action],
                     optimum: OptimalValues | None = None, horizon: int = 20_000) -> list[Decision]:
    """The agent's decisions that lose win probability, costliest first (their losses sum to its gap,
    up to what its games still carry after `horizon` rounds)."""
    optimum = optimum or optimal_values(layout)
    start = GameState.initial(layout)
    num_agents = start.num_agents
    mass: dict[tuple, tuple[GameState, float]] = {node_key(start): (start, 1.0)}
    visits: dict[tuple, float] = {}
    states: dict[tuple, GameState] = {}
    moves: dict[tuple, Action] = {}
    for _ in range(horizon):
        if not mass:
            break
        following: dict[tuple, list] = {}
        for key, (state, p) in mass.items():
            visits[key] = visits.get(key, 0.0) + p
            if key not in moves:
                moves[key], states[key] = choose(state), state
            layer = [(state.successor(0, moves[key]), p)]
            for ghost in range(1, num_agents):
                spread = []
                for s, q in layer:
                    if s.is_terminal():
                        continue
                    children = s.successors(ghost)
                    spread.extend((c, q / len(children)) for c in children)
                layer = spread
            for s, q in layer:
                if not s.is_terminal():
                    k = node_key(s)
                    entry = following.get(k)
                    following[k] = [s, q + (entry[1] if entry else 0.0)]
        mass = {k: (s, q) for k, (s, q) in following.items() if q > 1e-12}
    decisions = []
    for key, count in visits.items():
        state, move = states[key], moves[key]
        values = optimum.move_values(state)
        loss = count * (max(values.values()) - values[move])
        if loss > 1e-9:
            decisions.append(Decision(state, move, values, count, loss))
    decisions.sort(key=lambda d: -d.loss)
    return decisions
