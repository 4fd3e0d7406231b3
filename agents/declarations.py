"""What a definition declares beside itself: its form in the compiled core, and the proofs that cover it.

Two engines play Pacman: the Python one runs any evaluation and any ghost model;
the compiled core (agents/core/*.c) runs the ones that declare a *core form*
here, beside their Python definition:

- an evaluation function carries ``core_form = CoreEvaluation(function, kernel,
  parameters)``: the C kernel that computes it (evaluation.c) and what that kernel
  reads of a layout (distances, weights, tables);
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

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from pacman import rules

__all__ = ["CoreEvaluation", "CoreGhost", "EVALUATION_KERNELS", "GHOST_KERNELS", "PROOFS", "PROOF_RULES",
           "core_evaluation", "core_ghost", "proof_gaps"]

#: The evaluation kernels a core form may name (agents/core/evaluation.c): the score, and the feature evaluation
#: that `better` and `safe` are with two sets of weights. The built core publishes its own list
#: (``_core.EVALUATION_KERNELS``), which the registry asks; tests hold the two equal.
EVALUATION_KERNELS = ("score", "features")
#: The chance-layer kernels a core form may name (agents/core/ghosts.c): uniform over the legal moves, and a
#: table of probabilities by the ghost's shape (scared, legal count, best-move mask), DirectionalGhost's.
GHOST_KERNELS = ("uniform", "directional")

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


@dataclass(frozen=True)
class CoreGhost:
    """How the compiled core computes one ghost's chance layer."""

    kernel: str
    """The core's kernel, one of `GHOST_KERNELS`."""
    table: Mapping[tuple[int, int, int], tuple[float, ...]] | None = None
    """For "directional": the probabilities by (scared, legal count, best-move mask), in legal order."""


def core_evaluation(evaluation: Any) -> CoreEvaluation | None:
    """The core form `evaluation` declares for itself, or None."""
    form = getattr(evaluation, "core_form", None)
    return form if isinstance(form, CoreEvaluation) and form.function is evaluation else None


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
