"""The classic ghosts, with the classic randomness, and `ClassicGhost`, which lets one play in `run_game`.

A classic ghost draws one ``random.random()`` per move (Python's global
`random`) and walks its distribution sorted by action name, taking the first
action whose cumulative probability reaches the draw (`classic_util.sample`).
`DirectionalGhost.getDistribution` computes its numbers with the classic
floating-point operations: each best action ``prob / len(best)``, every legal
action ``+= (1 - prob) / len(legal)`` in the classic legal order, then each
divided by the total.
"""

from __future__ import annotations

from typing import Any

from pacman.actions import Action
from pacman.compat.cs188.classic_game import Actions, Agent, Directions
from pacman.compat.cs188.classic_util import Counter, chooseFromDistribution, manhattanDistance, raiseNotDefined
from pacman.compat.cs188.state import ClassicState
from pacman.errors import AgentSpecError
from pacman.state import GameState

__all__ = ["GhostAgent", "RandomGhost", "DirectionalGhost", "ClassicGhost", "CLASSIC_GHOSTS", "classic_ghosts"]


class GhostAgent(Agent):
    """A classic ghost: `getDistribution(state)` (a Counter) sampled with Python's `random`."""

    def __init__(self, index: int) -> None:
        super().__init__(index)

    def getAction(self, state: ClassicState) -> str:
        distribution = self.getDistribution(state)
        if len(distribution) == 0:
            return Directions.STOP
        return chooseFromDistribution(distribution)

    def getDistribution(self, state: ClassicState) -> Counter:
        raiseNotDefined()


class RandomGhost(GhostAgent):
    """Each legal action equally likely."""

    def getDistribution(self, state: ClassicState) -> Counter:
        distribution = Counter()
        for action in state.getLegalActions(self.index):
            distribution[action] = 1.0
        distribution.normalize()
        return distribution


class DirectionalGhost(GhostAgent):
    """Towards Pacman with probability `prob_attack` (away, half speed, `prob_scaredFlee` when scared)."""

    def __init__(self, index: int, prob_attack: float = 0.8, prob_scaredFlee: float = 0.8) -> None:
        super().__init__(index)
        self.prob_attack = prob_attack
        self.prob_scaredFlee = prob_scaredFlee

    def getDistribution(self, state: ClassicState) -> Counter:
        ghost = state.getGhostState(self.index)
        legal = state.getLegalActions(self.index)
        x, y = state.getGhostPosition(self.index)
        scared = ghost.scaredTimer > 0
        speed = 0.5 if scared else 1
        pacman = state.getPacmanPosition()
        distances = []
        for action in legal:
            dx, dy = Actions.directionToVector(action, speed)
            distances.append(manhattanDistance((x + dx, y + dy), pacman))
        if scared:
            best_score, best_prob = max(distances), self.prob_scaredFlee
        else:
            best_score, best_prob = min(distances), self.prob_attack
        best = [action for action, distance in zip(legal, distances) if distance == best_score]
        distribution = Counter()
        for action in best:
            distribution[action] = best_prob / len(best)
        for action in legal:
            distribution[action] += (1 - best_prob) / len(legal)
        distribution.normalize()
        return distribution


#: The classic ghost classes by our ghost kind names.
CLASSIC_GHOSTS: dict[str, type[GhostAgent]] = {"random": RandomGhost, "directional": DirectionalGhost}


class ClassicGhost:
    """A classic ghost playing in our `run_game`: ``get_action(state, rng)`` asks it on a classic view.

    It draws from Python's global `random`, not from `rng`: seed `random` to replay
    (a `ClassicAgent` Pacman seeds it from the game's seed in ``reset``).
    """

    def __init__(self, ghost: GhostAgent) -> None:
        self.ghost = ghost
        self.index = ghost.index

    def get_action(self, state: GameState, rng: Any = None) -> Action:
        return Action(self.ghost.getAction(ClassicState(state)))

    def __repr__(self) -> str:
        return f"ClassicGhost({type(self.ghost).__name__}({self.index}))"


def classic_ghosts(kind: str, count: int) -> list[ClassicGhost]:
    """`count` classic ghosts of one kind (``random`` or ``directional``), indexes 1..count."""
    try:
        cls = CLASSIC_GHOSTS[kind]
    except KeyError:
        raise AgentSpecError(f"unknown ghost kind {kind!r} (expected one of: {', '.join(CLASSIC_GHOSTS)})") from None
    return [ClassicGhost(cls(i)) for i in range(1, count + 1)]
