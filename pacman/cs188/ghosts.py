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
from pacman.cs188.classic_game import Actions, Agent, CurrentAgent, Directions
from pacman.cs188.classic_util import Counter, chooseFromDistribution, manhattanDistance
from pacman.cs188.state import ClassicState
from pacman.errors import AgentSpecError
from pacman.state import GameState

__all__ = ["GhostAgent", "RandomGhost", "DirectionalGhost", "CurrentGhostAgent", "CurrentRandomGhost",
           "CurrentDirectionalGhost", "ClassicGhost", "CLASSIC_GHOSTS", "classic_ghosts"]


def _spread(legal: list[str], best: list[str], best_prob: float) -> Counter:
    """`best_prob` shared by the `best` actions, the rest spread over every legal one, normalised.

    The floating-point operations (and the order of the total's sum: best
    actions first) are the classic ghost's, so draws land on the same actions.
    """
    weights = Counter({action: best_prob / len(best) for action in best})
    rest = 1 - best_prob
    for action in legal:
        weights[action] += rest / len(legal)
    weights.normalize()
    return weights


class GhostAgent(Agent):
    """A classic ghost: `getDistribution(state)` (a Counter, uniform here) sampled with Python's `random`.

    Subclasses override `getDistribution`; a ghost with no legal move stops.
    """

    def getAction(self, state: ClassicState) -> str:
        weights = self.getDistribution(state)
        return chooseFromDistribution(weights) if weights else Directions.STOP

    def getDistribution(self, state: ClassicState) -> Counter:
        legal = state.getLegalActions(self.index)
        weights = Counter(dict.fromkeys(legal, 1.0))
        weights.normalize()
        return weights


class RandomGhost(GhostAgent):
    """Each legal action equally likely (the `GhostAgent` distribution, under its classic name)."""


class DirectionalGhost(GhostAgent):
    """Towards Pacman with probability `prob_attack` (away, half speed, `prob_scaredFlee` when scared)."""

    def __init__(self, index: int, prob_attack: float = 0.8, prob_scaredFlee: float = 0.8) -> None:
        super().__init__(index)
        self.prob_attack = prob_attack
        self.prob_scaredFlee = prob_scaredFlee

    def getDistribution(self, state: ClassicState) -> Counter:
        return _directional(state, self.index, self.prob_attack, self.prob_scaredFlee)


class CurrentGhostAgent(CurrentAgent):
    """The current generation's ``ghost_agents.GhostAgent``: ``get_distribution(state)`` sampled by
    ``get_action`` with Python's `random`, the same draws as the classic ghost's."""

    def get_action(self, state: ClassicState) -> str:
        weights = self.get_distribution(state)
        return chooseFromDistribution(weights) if weights else Directions.STOP

    def get_distribution(self, state: ClassicState) -> Counter:
        return GhostAgent.getDistribution(self, state)  # type: ignore[arg-type]


class CurrentRandomGhost(CurrentGhostAgent):
    """Each legal action equally likely (``ghost_agents.RandomGhost``)."""


class CurrentDirectionalGhost(CurrentGhostAgent):
    """``ghost_agents.DirectionalGhost(index, prob_attack=0.8, prob_scared_flee=0.8)``."""

    def __init__(self, index: int, prob_attack: float = 0.8, prob_scared_flee: float = 0.8) -> None:
        super().__init__(index)
        self.prob_attack = prob_attack
        self.prob_scared_flee = prob_scared_flee

    def get_distribution(self, state: ClassicState) -> Counter:
        return _directional(state, self.index, self.prob_attack, self.prob_scared_flee)


def _directional(state: ClassicState, index: int, prob_attack: float, prob_flee: float) -> Counter:
    legal = state.getLegalActions(index)
    fleeing = state.getGhostState(index).scaredTimer > 0
    step = 0.5 if fleeing else 1
    here = state.getGhostPosition(index)
    target = state.getPacmanPosition()

    def distance_after(action: str) -> float:
        dx, dy = Actions.directionToVector(action, step)
        return manhattanDistance((here[0] + dx, here[1] + dy), target)

    after = {action: distance_after(action) for action in legal}
    pick = max if fleeing else min
    goal = pick(after.values())
    best = [action for action in legal if after[action] == goal]
    return _spread(legal, best, prob_flee if fleeing else prob_attack)


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
