"""Ghost agents: policies that expose their randomness as a distribution over actions.

A ghost is a chance layer for search: `distribution(state)` lists each legal
action with its probability, and `get_action(state, rng)` samples it with the
generator the game passes in.
"""

from __future__ import annotations

import abc
import functools
from typing import Any, Protocol, Sequence, runtime_checkable

import numpy as np

from pacman.actions import DIRECTIONS, Action
from pacman.agents.declarations import CoreGhost
from pacman.errors import AgentSpecError
from pacman.game import needs_heading
from pacman.state import GameState

__all__ = ["GhostAgent", "RandomGhost", "DirectionalGhost", "ArcadeGhost", "ChaserGhost", "AmbusherGhost",
           "FlankerGhost", "ShyGhost", "ARCADE_LINEUP", "PERSONALITIES", "sample", "GHOST_KINDS", "make_ghosts",
           "model_reads_heading", "cell_rule", "rule_ghost"]


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

    def cell_rule(self) -> tuple:
        """Its hunting moves read only its own cell and last direction: ``("random",)`` (see `cell_rule`)."""
        return ("random",)

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
        self.prob_attack, self.prob_scared_flee = _probabilities(self, prob_attack, prob_scared_flee)

    def distribution(self, state: GameState) -> list[tuple[Action, float]]:
        """The classic directional distribution, in legal-action order."""
        legal = state.legal_actions(self.index)
        if not legal:
            return []
        scared = state.scared_timers[self.index - 1] > 0
        best = _nearest_or_farthest(state, self.index, legal, scared)
        return _shares(legal, best, self.prob_scared_flee if scared else self.prob_attack)

    #: the search's proofs that cover this chance layer: not "far_ghosts", whose sums are uniform
    proofs = frozenset({"bounds"})

    def core_form(self) -> CoreGhost:
        """The compiled core plays it with its table kernel (agents/core/ghosts.c) and this ghost's table."""
        return CoreGhost("directional", self.probability_table())

    def cell_rule(self) -> tuple:
        """Its hunting moves read only Pacman's cell and its own: ``("directional", prob_attack)`` (`cell_rule`)."""
        return ("directional", self.prob_attack)

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


def _probabilities(ghost: _Ghost, prob_attack: float, prob_scared_flee: float) -> tuple[float, float]:
    """A ghost's two probabilities as floats; AgentSpecError naming the ghost's class for one outside [0, 1]."""
    for name, value in (("prob_attack", prob_attack), ("prob_scared_flee", prob_scared_flee)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
            raise AgentSpecError(f"{type(ghost).__name__} {name} must be a number in [0, 1], got {value!r}")
    return float(prob_attack), float(prob_scared_flee)


def _nearest_or_farthest(state: GameState, index: int, legal: tuple[Action, ...], scared: bool) -> list[Action]:
    """The legal actions of ghost `index` that bring it nearest to Pacman (scared: farthest from him), by
    Manhattan distance after the move; a scared ghost's step is half a cell. DirectionalGhost's best moves."""
    x, y = state.agent_position(index)
    px, py = state.pacman_position
    speed = 0.5 if scared else 1.0
    distances = []
    for action in legal:
        dx, dy = action.vector
        distances.append(abs(x + dx * speed - px) + abs(y + dy * speed - py))
    target = max(distances) if scared else min(distances)
    return [a for a, d in zip(legal, distances) if d == target]


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


#: The order the arcade's ghosts break ties in when two moves are as near their target: up, left, down, right.
ARCADE_TIE_ORDER = (Action.NORTH, Action.WEST, Action.SOUTH, Action.EAST)
#: The arcade's four personalities, in the order `--ghosts arcade` gives them to ghosts 1, 2, 3, 4 (then again),
#: each by its target cell: "chaser" Pacman's cell; "ambusher" four cells ahead of Pacman's heading; "flanker"
#: the cell twice as far from ghost 1 as the cell two ahead of Pacman; "shy" Pacman's cell while farther than
#: `SHY_DISTANCE`, else its corner.
ARCADE_LINEUP = ("chaser", "ambusher", "flanker", "shy")
#: Every personality `ArcadeGhost.target` knows: the arcade's four, then any added since (a kind of its own, not
#: in `--ghosts arcade`'s lineup). The compiled core numbers them in this order (agents/core/ghosts.c).
PERSONALITIES = (*ARCADE_LINEUP,)
#: Cells ahead of Pacman's heading that the ambusher aims at, and that the flanker pivots on.
AMBUSH_CELLS, FLANK_CELLS = 4, 2
#: The shy ghost chases while farther from Pacman than this (straight-line distance), else heads for its corner.
SHY_DISTANCE = 8
#: The shy ghost's corner: the bottom-left cell of the layout (its arcade corner).
SHY_CORNER = (0, 0)
#: What a ghost that aims ahead of Pacman says of a state without his heading (both engines refuse it so).
NO_HEADING = ("aims ahead of Pacman, but this game's states do not keep his heading: start it with "
              "GameState.initial(layout, heading=True)")


class ArcadeGhost(_Ghost):
    """A ghost with a personality: it aims at a target cell, as the arcade's four ghosts do.

    With probability `prob_attack` it takes the legal move whose cell is nearest its target by straight-line
    distance (ties go up, left, down, right: `ARCADE_TIE_ORDER`); else a legal move uniformly at random, so
    the aimed move gets ``prob_attack + (1 - prob_attack) / n`` of n legal moves. A scared ghost flees from
    Pacman as `DirectionalGhost` does, with `prob_scared_flee`. `personality` names the target
    (`PERSONALITIES`); None gives ghost i the (i - 1) % 4-th of `ARCADE_LINEUP`, as ``--ghosts arcade``
    does. The ambusher and the flanker read Pacman's heading, so a game with them keeps it in its states
    (`reads_heading`); before Pacman's first step they aim at his cell (the ambusher) or pivot on it (the
    flanker). There is no scatter phase: a schedule by time would have to be part of the state in every
    engine (see docs/architecture.md).

    >>> from pacman import GameState, load_layout
    >>> state = GameState.initial(load_layout("small"), heading=True)
    >>> ArcadeGhost(1).personality, ArcadeGhost(2).target(state) == state.pacman_position
    ('chaser', True)
    """

    #: the search's proofs that cover this chance layer: its probabilities are >= 0, sum to 1, over legal moves
    proofs = frozenset({"bounds"})
    #: the personality every ghost of this class has (None: by index)
    fixed_personality: str | None = None

    def __init__(self, index: int, prob_attack: float = 0.8, prob_scared_flee: float = 0.8) -> None:
        super().__init__(index)
        self.prob_attack, self.prob_scared_flee = _probabilities(self, prob_attack, prob_scared_flee)
        self.personality = self.fixed_personality or ARCADE_LINEUP[(index - 1) % len(ARCADE_LINEUP)]

    def core_form(self) -> CoreGhost:
        """The compiled core plays it with its arcade kernel (agents/core/ghosts.c): the target and the aimed move
        computed there, the probabilities from `DirectionalGhost`'s table with this ghost's two probabilities
        (the aimed move is the one best move; scared, the flight is directional's)."""
        return CoreGhost("arcade", dict(_probability_table(self.prob_attack, self.prob_scared_flee)), self.personality)

    def cell_rule(self) -> tuple | None:
        """``(personality, prob_attack)`` for the chaser and the shy ghost, whose hunting moves read only Pacman's
        cell and their own; None for the ambusher and the flanker, which read his heading (`cell_rule`)."""
        return None if self.reads_heading else (self.personality, self.prob_attack)

    @property
    def reads_heading(self) -> bool:
        """Whether this ghost's target reads Pacman's heading (`GameState.pacman_heading`)."""
        return self.personality in ("ambusher", "flanker")

    def target(self, state: GameState) -> tuple[float, float]:
        """The cell this ghost aims at in `state`."""
        px, py = state.pacman_position
        if self.personality == "chaser":
            return px, py
        if self.personality == "shy":
            x, y = state.agent_position(self.index)
            return (px, py) if (x - px) ** 2 + (y - py) ** 2 > SHY_DISTANCE ** 2 else SHY_CORNER
        heading = state.pacman_heading
        if heading is None:
            raise AgentSpecError(f"{self!r} {NO_HEADING}")
        hx, hy = heading.vector
        if self.personality == "ambusher":
            return px + AMBUSH_CELLS * hx, py + AMBUSH_CELLS * hy
        gx, gy = state.agent_position(1)  # the flanker: twice as far from ghost 1 as the pivot
        pivot_x, pivot_y = px + FLANK_CELLS * hx, py + FLANK_CELLS * hy
        return 2 * pivot_x - gx, 2 * pivot_y - gy

    def aimed(self, state: GameState, legal: tuple[Action, ...]) -> Action:
        """The legal move whose cell is nearest this ghost's target (ties: `ARCADE_TIE_ORDER`)."""
        tx, ty = self.target(state)
        x, y = state.agent_position(self.index)

        def rank(action: Action) -> tuple[float, int]:
            dx, dy = action.vector
            return (x + dx - tx) ** 2 + (y + dy - ty) ** 2, ARCADE_TIE_ORDER.index(action)

        return min(legal, key=rank)

    def distribution(self, state: GameState) -> list[tuple[Action, float]]:
        """The aimed move with `prob_attack` and every legal move with an equal share of the rest, in legal order;
        scared: `DirectionalGhost`'s flight."""
        legal = state.legal_actions(self.index)
        if not legal:
            return []
        if state.scared_timers[self.index - 1] > 0:
            return _shares(legal, _nearest_or_farthest(state, self.index, legal, True), self.prob_scared_flee)
        return _shares(legal, [self.aimed(state, legal)], self.prob_attack)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.index}, {self.personality}, prob_attack={self.prob_attack}, "
                f"prob_scared_flee={self.prob_scared_flee})")


class ChaserGhost(ArcadeGhost):
    """An `ArcadeGhost` that aims at Pacman's cell, whatever its index."""

    fixed_personality = "chaser"
    core_form = ArcadeGhost.core_form  # declared again: a subclass inherits no core form
    proofs = ArcadeGhost.proofs  # declared again too: the same chance layer, the same proofs
    cell_rule = ArcadeGhost.cell_rule  # and its moves' rule, read as core_form is


class AmbusherGhost(ArcadeGhost):
    """An `ArcadeGhost` that aims four cells ahead of Pacman's heading, whatever its index."""

    fixed_personality = "ambusher"
    core_form = ArcadeGhost.core_form  # declared again: a subclass inherits no core form
    proofs = ArcadeGhost.proofs  # declared again too: the same chance layer, the same proofs
    cell_rule = ArcadeGhost.cell_rule  # and its moves' rule, read as core_form is


class FlankerGhost(ArcadeGhost):
    """An `ArcadeGhost` that aims at the cell twice as far from ghost 1 as the cell two ahead of Pacman."""

    fixed_personality = "flanker"
    core_form = ArcadeGhost.core_form  # declared again: a subclass inherits no core form
    proofs = ArcadeGhost.proofs  # declared again too: the same chance layer, the same proofs
    cell_rule = ArcadeGhost.cell_rule  # and its moves' rule, read as core_form is


class ShyGhost(ArcadeGhost):
    """An `ArcadeGhost` that chases Pacman while farther than eight cells, else heads for the bottom-left corner."""

    fixed_personality = "shy"
    core_form = ArcadeGhost.core_form  # declared again: a subclass inherits no core form
    proofs = ArcadeGhost.proofs  # declared again too: the same chance layer, the same proofs
    cell_rule = ArcadeGhost.cell_rule  # and its moves' rule, read as core_form is


#: Ghost kinds by name, as the command line takes them. A kind added here plays in Python everywhere; the
#: compiled core and the search's proofs take it only by its class's own declarations (`core_form`, `proofs`;
#: pacman.agents.declarations), and refuse it by name where the core is insisted on.
GHOST_KINDS: dict[str, type[_Ghost]] = {"random": RandomGhost, "directional": DirectionalGhost, "arcade": ArcadeGhost,
                                        "chaser": ChaserGhost, "ambusher": AmbusherGhost, "flanker": FlankerGhost,
                                        "shy": ShyGhost}


def cell_rule(model: Any) -> tuple | None:
    """The rule of ghost `model`'s hunting moves where they read nothing but Pacman's cell and the ghost's own cell
    and last direction, as a tuple ``(kind, *arguments)`` that `rule_ghost` makes a ghost of again; None where they
    read more (Pacman's heading, another ghost) or its class does not declare its rule in its own body (as
    `pacman.agents.declarations.core_ghost` reads `core_form`: a subclass may move otherwise). The dot games solve
    against such rules (`pacman.agents.dot_games`)."""
    declare = vars(type(model)).get("cell_rule")
    return declare(model) if declare is not None else None


def rule_ghost(rule: tuple) -> _Ghost:
    """Ghost 1 of the kind and arguments that `rule` (a `cell_rule`) names: a ghost whose hunting moves follow it."""
    return GHOST_KINDS[rule[0]](1, *rule[1:])


def model_reads_heading(model: str | Sequence[Any] | None) -> bool:
    """Whether the ghosts a Pacman agent models (`model`: a kind of GHOST_KINDS, a list of ghost agents, or None
    for the game's own) read Pacman's heading, so that the game must keep it (`pacman.game.needs_heading`)."""
    if isinstance(model, str):
        return needs_heading(make_ghosts(model, len(ARCADE_LINEUP)))
    return needs_heading(model or ())


def make_ghosts(kind: str, count: int) -> list[_Ghost]:
    """`count` ghosts of one kind, indexes 1..count. Raises AgentSpecError for an unknown kind."""
    try:
        cls = GHOST_KINDS[kind]
    except KeyError:
        raise AgentSpecError(
            f"unknown ghost kind {kind!r} (expected one of: {', '.join(GHOST_KINDS)})"
        ) from None
    return [cls(i) for i in range(1, count + 1)]
