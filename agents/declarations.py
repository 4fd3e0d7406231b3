"""What a definition declares beside itself: its form in the compiled core, and the proofs that cover it.

Two engines play Pacman: the Python one runs any evaluation and any ghost model;
the compiled core (agents/core/*.c) runs the ones that declare a *core form*
here, beside their Python definition:

- an evaluation is an `Evaluation`: the function ``state -> float`` with what it
  declares to the search (bounds, ghost horizon, what it builds per maze) and
  its ``core_form = CoreEvaluation(function, kernel, parameters)``: the C kernel
  that computes it (evaluation.c) and what that kernel reads of a layout
  (distances, weights, tables). A plain function declares the same as its
  attributes (``f.ghost_horizon = 8``); `Evaluation.of` reads them, once;
- a ghost class defines ``core_form(self) -> CoreGhost`` in its own body: the C
  kernel of its chance layer (ghosts.c) and the table it reads. A subclass does
  not inherit it: a class that changes how a ghost moves says again how the core
  plays it, or the core does not play it.

`pacman.agents.compiled.core_obstacle` reads these declarations and nothing
else, and every user of the core (agents, environments, solver, bench, the
command line) asks it; what it cannot run is played in Python or refused by name,
never approximated by another kind.

The search's exact shortcuts rest on proofs (docs/engine.md): Star1 and Star2
prune with an evaluation's bounds, which hold over every state the rules let the
agents reach; the far-ghost shortcut adds up uniform chance layers. A ghost class
declares, in its own body, ``proofs = frozenset({...})``: the names in `PROOFS`
whose assumptions its chance layer meets. `proof_gaps` says which proofs do not
cover a game (a ghost kind that does not declare one, or rules other than those
in `PROOF_RULES`), and the search switches those shortcuts off; the answer is
then exact without them, only slower.
"""

from __future__ import annotations

import dataclasses
import importlib
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from pacman import rules

if TYPE_CHECKING:
    from pacman.layout import Layout
    from pacman.state import GameState

__all__ = ["Evaluation", "CoreEvaluation", "CoreGhost", "EVALUATION_KERNELS", "GHOST_KERNELS", "PROOFS", "PROOF_RULES",
           "core_evaluation", "core_ghost", "proof_gaps"]

#: The evaluation kernels a core form may name (agents/core/evaluation.c): the score, and the feature evaluation
#: that `better` and `safe` are with two sets of weights. The built core publishes its own list
#: (``_core.EVALUATION_KERNELS``), which the registry asks; tests hold the two equal.
EVALUATION_KERNELS = ("score", "features")
#: The chance-layer kernels a core form may name (agents/core/ghosts.c): uniform over the legal moves; a
#: table of probabilities by the ghost's shape (scared, legal count, best-move mask), DirectionalGhost's; and
#: the same table with the one move an `ArcadeGhost` aims at its personality's target as the best one.
GHOST_KERNELS = ("uniform", "directional", "arcade")

#: The proofs behind the search's exact shortcuts, and what each assumes of a ghost's chance layer:
#: "bounds" (Star1, Star2: an evaluation's bounds hold at every reachable state, so a chance node's value is a
#: weighted average of its children with weights >= 0 that sum to 1, each outcome a legal move);
#: "far_ghosts" (PacmanGame.far_value adds the chance layers up as uniform sums over the legal moves).
PROOFS = ("bounds", "far_ghosts")

#: The numbers of the rules (pacman.rules) the proofs were made for. Ghost reach in the bounds (a ghost d steps
#: away is never nearer than d - 2 * plies - 2) and the far-ghost horizon count a collision as Pacman and a
#: ghost within less than one cell: a rule that differs switches both proofs off, by this declaration.
PROOF_RULES: dict[str, float] = {"COLLISION_DISTANCE": 0.7}


@dataclass(frozen=True)
class CoreEvaluation:
    """How the compiled core computes one evaluation function."""

    function: Callable[..., float]
    """The Python definition this form belongs to: a copy of the attribute on another function does not count."""
    kernel: str
    """The core's kernel, one of `EVALUATION_KERNELS`."""
    parameters: Callable[[Any], tuple] | None = None
    """``parameters(layout)``: what the kernel reads of a layout (None: nothing); for "features",
    `pacman.agents.evaluation.better_parameters`' (distances, weights, Pacman's region, diameter)."""
    dots: Callable[[Any], tuple | None] | None = None
    """``dots(layout)``: for "features", the dot games the kernel adds (`pacman.agents.dot_games.DotGames.core_form`),
    or None where the evaluation adds none."""


@dataclass(frozen=True, repr=False)
class Evaluation:
    """An evaluation function, ``state -> float``, with what it declares to the search beside itself.

    Calling it calls `function`. The registered evaluations (`pacman.agents.evaluation.EVALUATIONS`) are
    Evaluations; a function of your own becomes one at the agent's door (`of`). Declare a field only with a
    proof: the search takes it as true.

    >>> flat = Evaluation(lambda state: 0.0, bounds=(0.0, 0.0))
    >>> flat.bounds, flat.core_form is None
    ((0.0, 0.0), True)
    """

    function: Callable[[GameState], float]
    """The function itself."""
    bounds: tuple[float, float] | None = None
    """(low, high) true of every value it gives: Star1 prunes with them."""
    bounds_within: Callable[[GameState, int], tuple[float, float]] | None = None
    """``bounds_within(state, plies)``: (low, high) true of every state `plies` moves of each agent reach from
    `state`; taken over `bounds` by Star1 and Star2."""
    ghost_horizon: int | Callable[[Layout], int | None] | None = None
    """Its value of a live state ignores a hunting ghost more than this many maze steps from Pacman, and a scared
    one whose timer is at most its distance (or a function of the layout giving that, or None): far ghosts are
    then skipped (docs/engine.md, "Far ghosts")."""
    prepare: Callable[[Layout], object] | None = None
    """``prepare(layout)``: what it builds once per maze, which a search agent builds before a game's first move."""
    core_form: CoreEvaluation | None = None
    """How the compiled core computes it; None: only the Python engine does."""
    for_ghosts: Callable[[Sequence[Any] | None], Evaluation] | None = None
    """``for_ghosts(models)``: the evaluation to search with against these ghost models (None: random ghosts),
    where its values depend on how the ghosts move; a search agent asks once per game, before its first move."""
    score_additive: bool = False
    """It is the state's score plus a function of the rest of the state (terminal or not): a search's values move
    with the score, so tables and remembered decisions may leave the score out."""

    def __post_init__(self) -> None:
        if self.core_form is not None and self.core_form.function is not self.function:
            raise ValueError(f"{self!r}: its core_form belongs to {self.core_form.function!r}")

    def __call__(self, state: GameState) -> float:
        return self.function(state)

    @property
    def __name__(self) -> str:
        """The function's name (``better_evaluation``), as a function answers it."""
        return getattr(self.function, "__name__", "callable")

    @classmethod
    def of(cls, function: Callable[[GameState], float]) -> Evaluation:
        """`function` if it is an Evaluation, else one that calls it, with the declarations written as its
        attributes: ``bounds``, ``bounds_within``, ``ghost_horizon``, ``prepare``, ``for_ghosts`` and ``core_form``
        (a core form naming another function, as `functools.wraps` copies it, is not taken). A function of your own
        is never taken to be `score_additive`: it may read the score otherwise than by adding it."""
        if isinstance(function, Evaluation):
            return function
        form = getattr(function, "core_form", None)
        return cls(function, bounds=getattr(function, "bounds", None),
                   bounds_within=getattr(function, "bounds_within", None),
                   ghost_horizon=getattr(function, "ghost_horizon", None), prepare=getattr(function, "prepare", None),
                   core_form=form if isinstance(form, CoreEvaluation) and form.function is function else None,
                   for_ghosts=getattr(function, "for_ghosts", None))

    def __repr__(self) -> str:
        return f"Evaluation({self.__name__})"

    def __reduce__(self) -> tuple[Any, ...]:
        # One a module holds under its function's name (`better_evaluation`) pickles by that name, as a function
        # does; its declarations need not pickle (lambdas). Any other pickles by its fields.
        module = sys.modules.get(getattr(self.function, "__module__", None) or "")
        if module is not None and vars(module).get(self.__name__) is self:
            return _module_attribute, (module.__name__, self.__name__)
        return Evaluation, tuple(getattr(self, field.name) for field in dataclasses.fields(self))


def _module_attribute(module: str, name: str) -> Any:
    """`name` of `module`: how a module's evaluation comes back from a pickle."""
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class CoreGhost:
    """How the compiled core computes one ghost's chance layer."""

    kernel: str
    """The core's kernel, one of `GHOST_KERNELS`."""
    table: Mapping[tuple[int, int, int], tuple[float, ...]] | None = None
    """For "directional" and "arcade": the probabilities by (scared, legal count, best-move mask), in legal order."""
    personality: str | None = None
    """For "arcade": the target it aims at, one of `pacman.agents.ghosts.PERSONALITIES`."""


def core_evaluation(evaluation: Callable[[GameState], float]) -> CoreEvaluation | None:
    """The core form `evaluation` (an `Evaluation`, or a function with the attribute) declares for itself, or None."""
    return Evaluation.of(evaluation).core_form


def core_ghost(model: Any) -> CoreGhost | None:
    """The core form of ghost `model`, declared by its own class (not inherited), or None."""
    declare = vars(type(model)).get("core_form")
    if declare is None:
        return None
    form = declare(model)
    return form if isinstance(form, CoreGhost) else None


def proof_gaps(ghost_models: Sequence[Any] | None) -> dict[str, str]:
    """The proofs (names of `PROOFS`) that do not cover a game with these ghost models, each with the reason.

    None means uniform chance layers (covered by every proof). A ghost class is
    covered by the proofs it lists in its own ``proofs`` declaration; the rules
    must be `PROOF_RULES`'. Min layers (minimax, alpha-beta) use no proof.
    """
    gaps: dict[str, str] = {}
    for name, assumed in PROOF_RULES.items():
        actual = getattr(rules, name)
        if actual != assumed:
            for proof in PROOFS:
                gaps.setdefault(proof, f"pacman.rules.{name} is {actual}, the proofs assume {assumed}")
    if ghost_models is None:
        return gaps
    for position, model in enumerate(ghost_models, start=1):
        declared = vars(type(model)).get("proofs", frozenset())
        for proof in PROOFS:
            if proof not in declared:
                gaps.setdefault(proof, f"ghost {position}'s kind, {type(model).__name__}, does not declare that "
                                       f"the {proof!r} proof covers it")
    return gaps
