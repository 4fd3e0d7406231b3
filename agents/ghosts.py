"""Ghost agents: policies that expose their randomness as a distribution over actions.

A ghost is a chance layer for search: `distribution(state)` lists each legal
action with its probability, and `get_action(state, rng)` samples it with the
generator the game passes in.
"""

from __future__ import annotations

import abc
import functools
from typing import Protocol, runtime_checkable

import numpy as np

from pacman.actions import DIRECTIONS, Action
from pacman.agents.declarations import CoreGhost
from pacman.errors import AgentSpecError
from pacman.state import GameState

__all__ = ["GhostAgent", "RandomGhost", "DirectionalGhost", "sample", "GHOST_KINDS", "make_ghosts"]


@runtime_checkable
class GhostAgent(Protocol):
    """What a ghost agent offers: its index, its action distribution, and a sampler."""

    index: int

    def distribution(self, state: GameState) -> list[tuple[Action, float]]: ...

    def get_action(self, state: GameState, rng: np.random.Generator) -> Action: ...


def sample(distribution: list[tuple[Action, float]], rng: np.random.Generator) -> Action:
    """Draw one action from `distribution` with one uniform number from `rng`."""
    if not distribution:
        raise ValueError("cannot sample from an empty distribution")
    u = rng.random()
    total = 0.0
    for action, probability in distribution:
        total += probability
        if u < total:
            return action
    return distribution[-1][0]  # u within rounding of 1


class _Ghost(abc.ABC):
    """Shared plumbing: the index check and sampling."""

    def __init__(self, index: int) -> None:
        if isinstance(index, bool) or not isinstance(index, int) or index < 1:
            raise AgentSpecError(f"ghost index must be an int >= 1 (Pacman is agent 0), got {index!r}")
        self.index = index

    @abc.abstractmethod
    def distribution(self, state: GameState) -> list[tuple[Action, float]]:
        """Each legal action of this ghost with its probability; the probabilities sum to 1."""

    def get_action(self, state: GameState, rng: np.random.Generator) -> Action:
        """Sample this ghost's move in `state` with `rng`."""
        return sample(self.distribution(state), rng)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.index})"


class RandomGhost(_Ghost):
    """Moves uniformly at random among its legal actions."""

    #: the search's proofs that cover this chance layer (pacman.agents.declarations.PROOFS)
    proofs = frozenset({"bounds", "far_ghosts"})

    def core_form(self) -> CoreGhost:
        """The compiled core plays it with its uniform kernel (agents/core/ghosts.c)."""
        return CoreGhost("uniform")

    def distribution(self, state: GameState) -> list[tuple[Action, float]]:
        """Each legal action with probability 1 / (number of legal actions)."""
        legal = state.legal_actions(self.index)
        return [(action, 1.0 / len(legal)) for action in legal]


class DirectionalGhost(_Ghost):
    """Prefers the moves that bring it closest to Pacman, or, when scared, farthest away.

    The best actions share `prob_attack` (scared: `prob_scared_flee`); every legal
    action also gets an equal share of the rest; the result is normalised.
    Distances are Manhattan distances after the move; a scared ghost's step is half a cell.
    """

    def __init__(self, index: int, prob_attack: float = 0.8, prob_scared_flee: float = 0.8) -> None:
        super().__init__(index)
        for name, value in (("prob_attack", prob_attack), ("prob_scared_flee", prob_scared_flee)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise AgentSpecError(f"DirectionalGhost {name} must be a number in [0, 1], got {value!r}")
        self.prob_attack = float(prob_attack)
        self.prob_scared_flee = float(prob_scared_flee)

    def distribution(self, state: GameState) -> list[tuple[Action, float]]:
        """The classic directional distribution, in legal-action order."""
        legal = state.legal_actions(self.index)
        if not legal:
            return []
        x, y = state.agent_position(self.index)
        px, py = state.pacman_position
        scared = state.scared_timers[self.index - 1] > 0
        speed = 0.5 if scared else 1.0
        distances = []
        for action in legal:
            dx, dy = action.vector
            distances.append(abs(x + dx * speed - px) + abs(y + dy * speed - py))
        target = max(distances) if scared else min(distances)
        best = [a for a, d in zip(legal, distances) if d == target]
        return _shares(legal, best, self.prob_scared_flee if scared else self.prob_attack)

    #: the search's proofs that cover this chance layer: not "far_ghosts", whose sums are uniform
    proofs = frozenset({"bounds"})

    def core_form(self) -> CoreGhost:
        """The compiled core plays it with its table kernel (agents/core/ghosts.c) and this ghost's table."""
        return CoreGhost("directional", self.probability_table())

    def probability_table(self) -> dict[tuple[int, int, int], tuple[float, ...]]:
        """Every distribution this ghost can give, by its shape: ``(scared, legal count, best mask)`` to the
        probabilities in legal order, bit j of the mask set when the j-th legal action is a best one.

        The probabilities depend on nothing else, so the compiled search (`pacman.agents.compiled`) looks
        them up here instead of computing them again: the very same floats.
        """
        return dict(_probability_table(self.prob_attack, self.prob_scared_flee))

    def __repr__(self) -> str:
        return f"DirectionalGhost({self.index}, prob_attack={self.prob_attack}, prob_scared_flee={self.prob_scared_flee})"


@functools.lru_cache(maxsize=16)
def _probability_table(prob_attack: float, prob_scared_flee: float) -> tuple:
    """`DirectionalGhost.probability_table` as (key, probabilities) pairs, computed once per pair of probabilities."""
    table = []
    for scared, best_prob in ((0, prob_attack), (1, prob_scared_flee)):
        for count in range(1, 5):
            legal = DIRECTIONS[:count]
            for mask in range(1, 1 << count):
                best = [a for j, a in enumerate(legal) if mask >> j & 1]
                table.append(((scared, count, mask), tuple(p for _, p in _shares(legal, best, best_prob))))
    return tuple(table)


def _shares(legal: tuple[Action, ...], best: list[Action], best_prob: float) -> list[tuple[Action, float]]:
    """`best_prob` shared by the `best` actions, the rest by every legal action, normalised, in legal order."""
    # Accumulate best actions first, then all legal ones, and sum in that order:
    # the same floating-point values as the classic implementation.
    weights: dict[Action, float] = {}
    for action in best:
        weights[action] = weights.get(action, 0.0) + best_prob / len(best)
    for action in legal:
        weights[action] = weights.get(action, 0.0) + (1.0 - best_prob) / len(legal)
    total = sum(weights.values())
    return [(action, weights[action] / total) for action in legal]


#: Ghost kinds by name, as the command line takes them. A kind added here plays in Python everywhere; the
#: compiled core and the search's proofs take it only by its class's own declarations (`core_form`, `proofs`;
#: pacman.agents.declarations), and refuse it by name where the core is insisted on.
GHOST_KINDS: dict[str, type[_Ghost]] = {"random": RandomGhost, "directional": DirectionalGhost}


def make_ghosts(kind: str, count: int) -> list[_Ghost]:
    """`count` ghosts of one kind, indexes 1..count. Raises AgentSpecError for an unknown kind."""
    try:
        cls = GHOST_KINDS[kind]
    except KeyError:
        raise AgentSpecError(
            f"unknown ghost kind {kind!r} (expected one of: {', '.join(GHOST_KINDS)})"
        ) from None
    return [cls(i) for i in range(1, count + 1)]
