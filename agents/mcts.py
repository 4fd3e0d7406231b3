"""Monte Carlo tree search with chance nodes: a sampling agent to compare expectimax and the optimum with.

Each iteration walks down the tree by UCT over Pacman's moves; after Pacman's
move every ghost's reply is drawn from the ghost model's probabilities (the
chance node), so a Pacman move's children are the rounds' sampled outcomes.
The first outcome not yet in the tree is added, then a rollout plays
`rollout_depth` more rounds (default 0: none) with uniformly random Pacman
moves and sampled ghost moves, and the evaluation of where it ends (or the end
of the game) is backed up as the value. The move played is the root's most
visited one.

Random rollouts walk into ghosts: with 100 iterations a move on `test`, 3
rounds of rollout won 78 of 100 games and no rollout won all 100, so by
default the evaluation values the new leaf directly.

Randomness comes from one generator: the game's stream for this agent (given
by ``reset``) or ``seed``. With an ``iterations`` budget the same seed gives
the same moves; a ``time_limit`` budget depends on the machine's speed.

>>> from pacman import GameState, load_layout
>>> agent = MCTSAgent(iterations=50, seed=1)
>>> agent.get_action(GameState.initial(load_layout("test"))) in GameState.initial(load_layout("test")).legal_actions(0)
True
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable, Sequence

import numpy as np

from pacman.actions import Action
from pacman.agents.evaluation import DEFAULT_EVALUATION, resolve_evaluation
from pacman.agents.expectimax import SearchInfo
from pacman.agents.ghosts import GHOST_KINDS, RandomGhost, make_ghosts, model_reads_heading, sample
from pacman.errors import AgentSpecError
from pacman.layout import Layout
from pacman.memory import MCTS_ITERATION_BYTES, check_memory
from pacman.rules import LOSE_POINTS
from pacman.state import GameState

__all__ = ["MCTSAgent", "DEFAULT_ITERATIONS"]

#: The budget when neither ``iterations`` nor ``time_limit`` is given.
DEFAULT_ITERATIONS = 200


class _Node:
    """A Pacman-to-move state in the tree: visit counts and value sums per legal action, sampled children."""

    __slots__ = ("state", "actions", "visits", "counts", "totals", "children")

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.actions = state.legal_actions(0)
        self.visits = 0
        self.counts = [0] * len(self.actions)
        self.totals = [0.0] * len(self.actions)
        self.children: list[dict[GameState, _Node]] = [{} for _ in self.actions]


class MCTSAgent:
    """UCT over Pacman's moves with sampled ghost replies, rollouts, and the evaluation at the horizon.

    `iterations` and/or `time_limit` (seconds) bound each decision (the first
    reached stops it; neither: `DEFAULT_ITERATIONS`). `rollout_depth` is how many
    rounds a rollout plays before the evaluation values its state (0: none).
    `exploration` weighs UCT's exploration term, in units of the spread of the
    values seen in this search (at least the 500 points of a loss). `ghost_model`: a ghost kind of GHOST_KINDS ("random", "directional", ...), or None
    for the ghosts in play. `seed` seeds the generator until a game gives the
    agent its own stream.
    """

    def __init__(
        self,
        iterations: int | None = None,
        time_limit: float | None = None,
        evaluation: str | Callable[[GameState], float] | None = DEFAULT_EVALUATION,
        ghost_model: str | None = None,
        rollout_depth: int = 0,
        exploration: float = 0.7,
        seed: int | None = None,
    ) -> None:
        if iterations is not None and (isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1):
            raise AgentSpecError(f"MCTSAgent: iterations must be an int >= 1, got {iterations!r}")
        if iterations is not None:  # each keeps a node until the move is made: refuse what memory cannot hold
            check_memory(f"MCTSAgent(iterations={iterations:,})", iterations * MCTS_ITERATION_BYTES,
                         "a node of the tree each, for one move")
        if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
                                       or not time_limit > 0 or math.isinf(time_limit)):
            raise AgentSpecError(f"MCTSAgent: time_limit must be a positive number of seconds, got {time_limit!r}")
        if isinstance(rollout_depth, bool) or not isinstance(rollout_depth, int) or rollout_depth < 0:
            raise AgentSpecError(f"MCTSAgent: rollout_depth must be an int >= 0, got {rollout_depth!r}")
        if isinstance(exploration, bool) or not isinstance(exploration, (int, float)) \
                or not 0 <= exploration < math.inf:
            raise AgentSpecError(f"MCTSAgent: exploration must be a number >= 0, got {exploration!r}")
        if ghost_model is not None and not (isinstance(ghost_model, str) and ghost_model in GHOST_KINDS):
            kinds = ", ".join(repr(kind) for kind in GHOST_KINDS)
            raise AgentSpecError(f"MCTSAgent: ghost_model must be a ghost kind ({kinds}) or None, got {ghost_model!r}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise AgentSpecError(f"MCTSAgent: seed must be a non-negative int, got {seed!r}")
        self.iterations = iterations if iterations is not None or time_limit is not None else DEFAULT_ITERATIONS
        self.time_limit = float(time_limit) if time_limit is not None else None
        if evaluation is None:
            evaluation = DEFAULT_EVALUATION
        self.evaluation = resolve_evaluation(evaluation)
        self.evaluation_name = evaluation if isinstance(evaluation, str) else getattr(evaluation, "__name__", "callable")
        self.ghost_model = ghost_model
        self.rollout_depth = rollout_depth
        self.exploration = float(exploration)
        self.rng = np.random.default_rng(seed)
        self._game_ghosts: tuple = ()
        self.last_search: SearchInfo | None = None
        self.explain = False

    def reset(self, rng: np.random.Generator | None = None, ghost_agents: Sequence[Any] = (),
              layout: Layout | None = None) -> None:
        """Before a game: take the game's stream for this agent and remember the ghosts in play."""
        if rng is not None:
            self.rng = rng
        self._game_ghosts = tuple(ghost_agents)
        self.last_search = None

    def get_action(self, state: GameState) -> Action:
        """The root's most visited move after the budget (ties: the higher mean, then action order)."""
        return self._decide(state).action

    def action_values(self, state: GameState) -> dict[Action, float]:
        """The mean backed-up value of each of Pacman's moves tried in one search (estimates, not exact)."""
        return dict(self._decide(state).action_values)

    @property
    def reads_heading(self) -> bool:
        """Whether the ghosts this agent models read Pacman's heading: a game with it keeps the heading."""
        return model_reads_heading(self.ghost_model)

    # -- internals ---------------------------------------------------------------------

    def _models(self, num_ghosts: int) -> list[Callable[[GameState], list[tuple[Action, float]]]]:
        model = self.ghost_model
        if model is None and len(self._game_ghosts) == num_ghosts \
                and not all(type(g) is RandomGhost for g in self._game_ghosts):
            return [g.distribution for g in self._game_ghosts]
        if model is not None:
            models = make_ghosts(model, num_ghosts)
            if not all(type(g) is RandomGhost for g in models):
                return [g.distribution for g in models]
        return [_uniform(i) for i in range(1, num_ghosts + 1)]

    def _decide(self, state: GameState) -> SearchInfo:
        if state.is_terminal():
            raise AgentSpecError("MCTSAgent: no action in a finished game")
        started = time.perf_counter()
        models = self._models(state.num_ghosts)
        rng = self.rng
        evaluate = self.evaluation
        root = _Node(state)
        low, high = math.inf, -math.inf
        done = 0
        deepest = 0  # the longest path of Pacman moves down the tree in this search
        deadline = started + self.time_limit if self.time_limit is not None else math.inf

        def play_round(s: GameState, action: Action) -> GameState:
            s = s.successor(0, action)
            for agent, distribution in enumerate(models, start=1):
                if s.is_terminal():
                    break
                s = s.successor(agent, sample(distribution(s), rng))
            return s

        while (self.iterations is None or done < self.iterations) and (done == 0 or time.perf_counter() < deadline):
            node = root
            path: list[tuple[_Node, int]] = []
            leaf: GameState | None = None
            while leaf is None:
                if node.state.is_terminal():
                    leaf = node.state
                    break
                choice = self._select(node, low, high)
                following = play_round(node.state, node.actions[choice])
                path.append((node, choice))
                child = node.children[choice].get(following)
                if child is None:
                    node.children[choice][following] = _Node(following)
                    leaf = self._rollout(following, play_round, rng)
                else:
                    node = child
            value = float(evaluate(leaf))
            if math.isnan(value):
                raise AgentSpecError(f"evaluation {self.evaluation_name!r} gave NaN; expected numbers")
            low, high = min(low, value), max(high, value)
            deepest = max(deepest, len(path))
            for visited, choice in path:
                visited.visits += 1
                visited.counts[choice] += 1
                visited.totals[choice] += value
            done += 1

        means = {a: t / c for a, t, c in zip(root.actions, root.totals, root.counts) if c}
        best = max(range(len(root.actions)),
                   key=lambda i: (root.counts[i], means.get(root.actions[i], -math.inf), -i))
        info = SearchInfo(
            action=root.actions[best], action_values=means, depth=deepest, nodes=done,
            milliseconds=1000 * (time.perf_counter() - started),
            extra={"engine": "python", "iterations": done, "visits": dict(zip(root.actions, root.counts))},
        )
        self.last_search = info
        return info

    def _select(self, node: _Node, low: float, high: float) -> int:
        """UCT: an untried move first (in action order), else the best mean plus exploration bonus."""
        counts = node.counts
        for i, count in enumerate(counts):
            if count == 0:
                return i
        # Early on the values seen may all be alike; never explore on a scale finer than a loss's points.
        weight = self.exploration * max(high - low, float(LOSE_POINTS))
        log_visits = math.log(node.visits)
        best, best_score = 0, -math.inf
        for i, (count, total) in enumerate(zip(counts, node.totals)):
            score = total / count + weight * math.sqrt(log_visits / count)
            if score > best_score:
                best, best_score = i, score
        return best

    def _rollout(self, state: GameState, play_round: Callable, rng: np.random.Generator) -> GameState:
        """`rollout_depth` rounds of uniformly random Pacman moves and sampled ghost moves."""
        for _ in range(self.rollout_depth):
            if state.is_terminal():
                break
            legal = state.legal_actions(0)
            state = play_round(state, legal[int(rng.integers(len(legal)))])
        return state

    def __repr__(self) -> str:
        return (f"MCTSAgent(iterations={self.iterations}, time_limit={self.time_limit}, "
                f"evaluation={self.evaluation_name!r}, ghost_model={self.ghost_model!r}, "
                f"rollout_depth={self.rollout_depth}, exploration={self.exploration})")


def _uniform(index: int) -> Callable[[GameState], list[tuple[Action, float]]]:
    return RandomGhost(index).distribution
