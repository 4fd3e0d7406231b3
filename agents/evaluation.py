"""Evaluation functions: a state's value to Pacman where the search stops.

An evaluation is any callable ``state -> float``. The registered ones are
`Evaluation` objects (`pacman.agents.declarations`): the function with what it
declares to the search. A function of your own declares the same as its
attributes, which `resolve_evaluation` reads once, at the agent's door:

- bounds on its values, and search then prunes with Star1 (exactly): a fixed
  ``bounds = (low, high)`` true for every state, or a function
  ``bounds_within(state, plies) -> (low, high)`` true for every state that
  `plies` moves of each agent can reach from `state` (scores have no fixed
  bounds: every move costs a point). `better`, `safe`, `scaled` and `dots`
  declare `bounds_within`; `score` declares none.
- ``ghost_horizon = H`` (an int >= 0, or a function of the layout giving H or
  None): its value of a live state does not depend on where a ghost is, or which
  way it faces, while the ghost is hunting and more than H maze steps from
  Pacman, or scared with a timer no greater than its distance from him.
  Expectimax with Star2 then skips ghosts that stay so (docs/engine.md, "Far
  ghosts"): `better`, `safe` and `scaled` declare 8, `score` 0, `dots` 8 on a
  maze without dot games and none on one with them.
- ``prepare(layout)``: tables it builds once per maze, which a search agent
  builds before a game's first move.
- ``for_ghosts(models)``: the evaluation to search with against these ghost
  models (None: random ghosts), where its values depend on how the ghosts
  move: `dots` gives one whose games are solved against them
  (`dots_against`).

`resolve_evaluation` turns what a user writes into an `Evaluation`: a callable,
a registered name (``score``, ``better``, ``safe``, ``scaled``, ``dots``: the
default), ``module:function`` or ``path/to/file.py:function``.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any, Callable, NamedTuple, Sequence

from pacman.agents.declarations import CoreEvaluation, Evaluation
from pacman.agents.dot_games import RANDOM_RULE, DotGames, dot_games
from pacman.agents.ghosts import cell_rule
from pacman.agents.small_mazes import SMALL_MAZE_CELLS, region_cells
from pacman.distances import UNREACHABLE, DistanceTable
from pacman.errors import AgentSpecError, describe_failure
from pacman.user_code import ImportTimeout, frames_text, import_user_file
from pacman.layout import Layout
from pacman.rules import FOOD_POINTS, GHOST_POINTS, LOSE_POINTS, MOVE_COST, WIN_POINTS
from pacman.state import GameState

__all__ = ["Evaluation", "EVALUATIONS", "DEFAULT_EVALUATION", "score_evaluation", "better_evaluation",
           "better_bounds_within", "safe_evaluation", "safe_bounds_within", "scaled_evaluation", "scaled_bounds_within",
           "dots_evaluation", "dots_bounds_within", "DOT_GAMES_WEIGHT", "DOT_GAMES_PRODUCT_WEIGHT", "dot_games_weight",
           "better_parameters",
           "resolve_evaluation", "load_object", "defined_here", "describe_definitions", "region_cells"]

Bounds = Callable[[GameState, int], tuple[float, float]]


def _named(function: Callable[[GameState], float], name: str) -> Callable[[GameState], float]:
    """`function` named `name`, its qualified name the `Evaluation` that holds it (``name.function``), where
    pickle finds it."""
    function.__name__ = name
    function.__qualname__ = f"{name}.function"
    return function


def _score(state: GameState) -> float:
    """The game score, nothing else.

    It declares no bounds, so Star1 does not prune with it: bounds that hold
    (the score falls by a point a move, rises by what Pacman can eat) cut so
    little with a value this flat that they cost more time than they save.
    """
    return float(state.score)


#: `score`: hunting ghosts change nothing in it (horizon 0); the compiled core's score kernel
#: (agents/core/evaluation.c; inline in core.h) reads nothing of a layout
score_evaluation = Evaluation(_named(_score, "score_evaluation"), ghost_horizon=0,
                              core_form=CoreEvaluation(_score, "score"), score_additive=True)


class _Weights(NamedTuple):
    """The weights of a feature evaluation (`better`, `safe`, `scaled`): the evaluation and its bounds both use them."""

    capsule_price: float   # per capsule left
    lost_penalty: float    # on a lost game
    step_price: float      # per step to the nearest food
    scared_pull: float     # a reachable scared ghost at distance d: scared_pull / (1 + d)
    caught_penalty: float  # a hunting ghost within one step
    near_penalty: float    # a hunting ghost at d in 2..5: near_penalty / (d - 1)
    room_cells: int        # fewer cells of room than this ...
    room_price: float      # ... cost this much each


_BETTER = _Weights(capsule_price=25.0, lost_penalty=2000.0, step_price=1.5, scared_pull=150.0,
                   caught_penalty=300.0, near_penalty=40.0, room_cells=12, room_price=30.0)
#: `safe`: `better` weighted to win rather than to score (docs/search-strength.md, "The 99% claim")
_SAFE = _BETTER._replace(scared_pull=0.0, room_price=60.0)
#: `scaled`: `safe`'s danger terms (a ghost within one step, within five, the room) at full weight where Pacman's
#: region has at least SCALED_FULL cells, shrinking linearly to nothing at SCALED_NONE cells or fewer
#: (docs/search-strength.md, "The exact value of one-dot games")
SCALED_NONE, SCALED_FULL = 24, SMALL_MAZE_CELLS
#: `scaled`'s lost-game penalty at SCALED_NONE cells or fewer (`safe`'s 2,000 from SCALED_FULL up, linear between):
#: with the deeper search of a small maze, a loss priced at 2,000 made Pacman wait where the optimum goes
#: (docs/search-strength.md, "Deeper on small mazes")
SCALED_LOST_PENALTY = 1000.0


def _scaled_weights(cells: int) -> _Weights:
    """`scaled`'s weights on a maze where Pacman's region has `cells` cells (`safe`'s from SCALED_FULL up)."""
    if cells >= SCALED_FULL:
        return _SAFE
    share = max(0.0, (cells - SCALED_NONE) / (SCALED_FULL - SCALED_NONE))
    return _SAFE._replace(caught_penalty=_SAFE.caught_penalty * share, near_penalty=_SAFE.near_penalty * share,
                          room_price=_SAFE.room_price * share,
                          lost_penalty=SCALED_LOST_PENALTY + (_SAFE.lost_penalty - SCALED_LOST_PENALTY) * share)


class _BetterTables:
    """What a feature evaluation needs of one layout, built once per layout and weights (`Layout.derived`)."""

    __slots__ = ("distances", "food_weight", "pacman_region", "ghost_starts", "weights")

    def __init__(self, layout: Layout, weights: _Weights | Callable[[int], _Weights] = _BETTER) -> None:
        self.distances = DistanceTable.of(layout)
        #: the mask of the cells Pacman can ever reach (his start cell's region)
        region = layout.region(layout.pacman_start)
        self.pacman_region = sum(1 << (x * layout.height + y) for x in range(layout.width)
                                 for y in range(layout.height) if layout.region((x, y)) == region)
        #: the weights on this layout: fixed, or a function of the size of Pacman's region (`scaled`)
        self.weights = weights if isinstance(weights, _Weights) else weights(self.pacman_region.bit_count())
        #: the price of a food dot left: more than the longest walk to food (step_price per
        #: step), so eating a dot never looks worse than the walk to the next dot it leaves
        self.food_weight = self.weights.step_price * self.distances.diameter + 5.0
        #: each ghost's start cell, where an eaten ghost comes back
        self.ghost_starts = tuple(self.distances.cell(start) for start in layout.agent_starts[1:])


#: The feature evaluations' ghost horizon: hunting ghosts farther than this from Pacman change nothing in them
#: (nor in the score).
_FEATURE_HORIZON = 8


def _feature_evaluation(name: str, weights: _Weights | Callable[[int], _Weights]) -> tuple[Evaluation, Bounds]:
    """(evaluation, its bounds_within) with these weights (or the weights a function gives for the number of
    cells of Pacman's region): `better_evaluation`'s features, whose docstrings say what each term is and why
    the bounds hold for any weights >= 0."""
    key = f"{name}_evaluation"  # the tables' key in `Layout.derived`

    def build(layout: Layout) -> _BetterTables:
        return _BetterTables(layout, weights)

    def evaluation(state: GameState) -> float:
        tables = state.layout.derived(key, build)
        (capsule_price, lost_penalty, step_price, scared_pull, caught_penalty, near_penalty, room_cells,
         room_price) = tables.weights
        table = tables.distances
        value = (state.score - tables.food_weight * state.food_mask.bit_count()
                 - capsule_price * state.capsule_mask.bit_count())
        if state.is_terminal():
            return value - lost_penalty if state.is_lose() else value
        pacman = state.pacman_position
        here = table.cell(pacman)
        value -= step_price * table.nearest(pacman, state.food_mask)
        row = table.rows[here]
        hunters = []
        closest = 1_000_000
        for position, timer in zip(state.ghost_positions, state.scared_timers):
            cell = table.cell(position)
            d = row[cell]
            if timer:
                if timer > d:
                    value += scared_pull / (1.0 + d)
                continue
            hunters.append(cell)
            closest = min(closest, d)
            if d <= 1:
                value -= caught_penalty
            elif d <= 5:
                value -= near_penalty / (d - 1)
        if hunters and closest <= 8:
            room = table.room(here, hunters)
            if room < room_cells:
                value -= room_price * (room_cells - room)
        return value

    def bounds_within(state: GameState, plies: int) -> tuple[float, float]:
        tables = state.layout.derived(key, build)
        (capsule_price, lost_penalty, step_price, scared_pull, caught_penalty, near_penalty, room_cells,
         room_price) = tables.weights
        table = tables.distances
        food, capsules = state.food_mask, state.capsule_mask
        food_left, capsules_left = food.bit_count(), capsules.bit_count()
        timers = state.scared_timers
        ghosts = len(timers)
        b0 = state.score - tables.food_weight * food_left - capsule_price * capsules_left
        pacman = state.pacman_position
        here = table.cell(pacman)
        food_steps = table.nearest(pacman, food)
        dots, eaten_capsules, eats, scared = _most_eaten(
            plies, food_left, food_steps, capsules_left, table.nearest(pacman, capsules), timers)
        high = (b0 + dots * (FOOD_POINTS - MOVE_COST + tables.food_weight)
                + eaten_capsules * (capsule_price - MOVE_COST)
                + (WIN_POINTS if food_left and dots >= food_left else 0)
                + GHOST_POINTS * eats + scared_pull * scared)
        outside = food & ~tables.pacman_region
        farthest = table.diameter if not outside else UNREACHABLE
        reach = _ghost_reach(state, plies, tables, here, eaten_capsules, tables.weights) if ghosts else None
        if reach is not None:  # no ghost can catch him
            hunting, room = reach
            walk = farthest if outside else min(farthest, food_steps + plies)
            low = b0 - plies * MOVE_COST - step_price * walk - hunting - room
            return (low, high)
        live = -step_price * farthest - (caught_penalty * ghosts + room_price * room_cells if ghosts else 0.0)
        low = b0 - plies * MOVE_COST - ghosts * LOSE_POINTS + min(live, -lost_penalty if ghosts else 0.0)
        return (low, high)

    def parameters(layout: Layout) -> tuple[Any, tuple[float, ...], int, int]:
        return _feature_parameters(layout.derived(key, build))

    bounds_within.__name__ = bounds_within.__qualname__ = f"{name}_bounds_within"
    _named(evaluation, key)
    # the compiled core's feature kernel (agents/core/evaluation.c) computes it with each layout's weights, tables
    declared = Evaluation(evaluation, bounds_within=bounds_within, ghost_horizon=_FEATURE_HORIZON,
                          core_form=CoreEvaluation(evaluation, "features", parameters), score_additive=True)
    return declared, bounds_within


better_evaluation, better_bounds_within = _feature_evaluation("better", _BETTER)
better_evaluation.function.__doc__ = """A feature-based evaluation: the score, food left, the way to food, and the ghosts.

    Maze distances come from the layout's BFS table. Each food dot left costs more
    than the longest path in the maze, so eating never looks worse than the walk
    to the next dot it leaves. Capsules left cost a little (they lead to +200
    ghosts); scared ghosts Pacman can still reach in time pull him closer; ghosts
    that are not scared push him away within five steps, hard within one; and,
    when one is within eight steps, fewer than 12 cells that Pacman reaches before
    every such ghost (his room to escape, small when ghosts close in from both
    ends of a corridor) cost 30 each.
    A lost game counts far below any live state.

    It declares bounds for a search (`better_bounds_within`), so that Star1 prunes with it.
    """
better_bounds_within.__doc__ = """(low, high) holding `better_evaluation` of every state that `plies` moves of
    Pacman and of each ghost can reach from `state`: the bounds Star1 prunes with.

    Write the evaluation as ``B + T`` with ``B = score - W * food - 25 * capsules``
    (W the food weight) and T the rest. From `state` (B0, T any):

    - B falls only by MOVE_COST per Pacman move and LOSE_POINTS per ghost that
      catches him (once: a lost game ends), so ``B >= B0 - plies * MOVE_COST -
      ghosts * LOSE_POINTS``. It rises only by eating: a dot gives FOOD_POINTS -
      MOVE_COST + W (the last one WIN_POINTS more), a capsule 25 - MOVE_COST, a
      scared ghost GHOST_POINTS. Pacman steps one cell per move, so with the
      nearest dot n steps away he eats at most ``f = plies - n + 1`` dots (none if
      n > plies; at most the dots left), likewise at most ``c`` capsules; a ghost
      is eaten at most once per ply, and only if scared now or after one of those
      capsules: at most ``min(plies, [timer > 0] + c)`` times.
    - T of a lost game is -2000, of a won one 0. Live, T is at most 150 per ghost
      that can be scared (150 / (1 + d) each; scared now, or any ghost if c > 0)
      and at least -(1.5 * N + 300 per ghost + 360): N the farthest the nearest dot
      can be, the maze diameter while all the food left lies in Pacman's region (he
      never leaves it), else UNREACHABLE; a hunter costs at most 300 (within one
      step; 40 within five) and the room term at most 12 * 30.

    So ``low = B0 - plies * MOVE_COST - ghosts * LOSE_POINTS + min(T)`` and ``high =
    B0 + f * (FOOD_POINTS - MOVE_COST + W) + c * (25 - MOVE_COST) + WIN_POINTS [if f
    covers every dot] + GHOST_POINTS * eats + 150 * scared``.

    Ghosts too far away to catch Pacman within `plies` tighten `low` (`_ghost_reach`):
    a ghost d steps from Pacman is never nearer than ``r = d - 2 * plies - 2`` steps
    (each ply Pacman and the ghost each close at most one step, half a step more for a
    ghost between cells, and one more to spare; an eaten ghost restarts from its start
    cell, so d is the nearer of the two for a ghost that can be eaten). With every ``r
    >= 1`` no ghost can catch him, and ``low = B0 - plies * MOVE_COST - 1.5 * N' -
    hunting - room``: N' the farthest the nearest dot can be (a step farther per ply at
    most, unless he eats one, which pays more than any walk), hunting the most each
    ghost can cost at distance r (300 within one step, 40 / (r - 1) within five), and
    room 12 * 30 if some r is 8 or less. Tests check the bounds with random states on
    every shipped layout, and with every state within reach of ghosts at the edge.
    """

safe_evaluation, safe_bounds_within = _feature_evaluation("safe", _SAFE)
safe_evaluation.function.__doc__ = """`better`'s features weighted to win rather than to score.

    Scared ghosts pull Pacman nowhere (`better` pulls him 150 / (1 + d) toward
    each he can still reach): he eats one only when it is in his way, so games
    are shorter and he spends less of them near the ghosts, which come back at
    their start when eaten. Each cell of room below 12 costs 60 instead of 30.
    Everything else, its bounds (`safe_bounds_within`, the same argument with
    these weights) and its ghost horizon are `better`'s. At depth 2, over 48,000
    games each, it wins 99.1% of `small` and 99.5% of `tricky`, where `better`
    wins 98.3%, and scores less (docs/search-strength.md, "The 99% claim").
    """
safe_bounds_within.__doc__ = """(low, high) holding `safe_evaluation` of every state that `plies` moves of Pacman and of
    each ghost can reach from `state`: `better_bounds_within` with `safe`'s weights."""

scaled_evaluation, scaled_bounds_within = _feature_evaluation("scaled", _scaled_weights)
scaled_evaluation.function.__doc__ = """`safe`, with its fear of ghosts scaled to the size of the maze.

    On a maze where Pacman's region has 64 cells or more it is `safe`, to the
    last bit. On smaller ones the three danger terms (a hunting ghost within one
    step, within five steps, fewer than 12 cells of room) shrink linearly with
    the region's size and are gone at 24 cells or fewer: there every cell is
    near a ghost and the room is always short, so the terms made Pacman dither
    away from the food until a ghost cornered him, and lose games the exact
    optimum wins. Only a game actually lost within the search's reach still
    counts against a move, and there the lost-game penalty shrinks too, from
    2,000 at 64 cells to 1,000 at 24 or fewer: with the deeper search of the
    default depth ("auto") on small mazes, a loss priced at 2,000 made Pacman
    wait where the optimum goes. Over 300 random small mazes no weight was tuned on,
    its gap to the optimal win probability is about a third of `safe`'s
    (docs/search-strength.md, "Held-out: 300 random small mazes"). Its bounds
    (`scaled_bounds_within`) are `better_bounds_within` with each maze's weights.
    """
scaled_bounds_within.__doc__ = """(low, high) holding `scaled_evaluation` of every state that `plies` moves of Pacman
    and of each ghost can reach from `state`: `better_bounds_within` with the maze's weights."""


def _ghost_reach(state: GameState, plies: int, tables: _BetterTables, here: int,
                 eaten_capsules: int, weights: _Weights = _BETTER) -> tuple[float, float] | None:
    """(the most the hunting ghosts can cost, the most the room term can cost) in any state `plies` plies
    from `state`, or None when a ghost may catch Pacman by then (see `better_bounds_within`)."""
    row = tables.distances.rows[here]
    hunting = 0.0
    closest = 1_000_000
    for i, (position, timer) in enumerate(zip(state.ghost_positions, state.scared_timers)):
        d = row[tables.distances.cell(position)]
        if timer > 0 or eaten_capsules > 0:  # it can be eaten, and come back at its start
            d = min(d, row[tables.ghost_starts[i]])
        r = d - 2 * plies - 2
        if r < 1:
            return None
        if r <= 1:
            hunting += weights.caught_penalty
        elif r <= 5:
            hunting += weights.near_penalty / (r - 1)
        closest = min(closest, r)
    return hunting, (weights.room_price * weights.room_cells if closest <= 8 else 0.0)


def _most_eaten(plies: int, food_left: int, food_steps: float, capsules_left: int, capsule_steps: float,
                timers: tuple[int, ...]) -> tuple[int, int, int, int]:
    """At most how much Pacman eats in `plies` plies: (dots, capsules, scared ghosts, ghosts that can be scared).

    `food_steps` and `capsule_steps` are never more than the steps to the nearest
    dot and capsule. Pacman steps one cell per move, so with the nearest n steps away he
    eats at most ``plies - n + 1`` (none if n > plies). A ghost is eaten at most
    once per ply, and only while scared: scared now, or after each capsule eaten.
    """
    def most(left: int, steps: float) -> int:
        return min(left, plies - int(steps) + 1) if left and steps <= plies else 0

    dots, capsules = most(food_left, food_steps), most(capsules_left, capsule_steps)
    eats = sum(min(plies, (timer > 0) + capsules) for timer in timers)
    scared = len(timers) if capsules else sum(timer > 0 for timer in timers)
    return dots, capsules, eats, scared


#: The weight of the dot games' chance in `dots_evaluation` where the games are played against all of the maze's
#: ghosts at once (one ghost, or two with their games together: `DotGames.joint`): a won game is worth this much
#: more than a lost one on top of `scaled`'s difference, so the chance decides a move and `scaled` breaks its ties
#: (docs/search-strength.md, "The exact value of one-dot games").
DOT_GAMES_WEIGHT = 30000.0
#: ... and where the chance is a product over the ghosts' own games (three ghosts or more, or two whose games
#: together would cost too much): an estimate, which `scaled` is left more say beside.
DOT_GAMES_PRODUCT_WEIGHT = 1000.0


def dot_games_weight(games: DotGames) -> float:
    """The weight of `games`' chance in `dots_evaluation`: DOT_GAMES_WEIGHT where they are played against all of
    the maze's ghosts at once, DOT_GAMES_PRODUCT_WEIGHT where the chance is a product over the ghosts."""
    return DOT_GAMES_WEIGHT if games.joint else DOT_GAMES_PRODUCT_WEIGHT


def _dots(state: GameState) -> float:
    """`scaled`, and the chance P that the exact dot games give Pacman (`pacman.agents.dot_games.DotGames.chance`)
    priced as the game's end (`dots_prices`): a won game gets the weight W (`dot_games_weight`) whole; a live
    position gets ``(W + stake) * P - behind``, as if the game ended now, won with probability P and lost
    otherwise (`behind`: what `scaled` takes off a lost game, LOSE_POINTS and its lost-game penalty; `stake`:
    that and WIN_POINTS). So waiting scores no better than playing the game out: a live position where the
    game is surely won is worth what winning it is, and one surely lost what losing it is.

    With few dots (`pacman.agents.dot_games.whole_games_fit`) the games are every set of dots, and P is the game
    of the dots left: with one ghost (or two played together) and no capsule, Pacman's exact win probability.
    With more, P is the least, over the pairs of dots left, of the probability of eating both before the hunting
    ghosts catch him: never below his win probability there. Against two ghosts whose games together were too
    dear, or three or more, P is the product over the hunting ghosts of each one's game. On a maze that is not
    small (`pacman.agents.small_mazes`: Pacman's region has 64 cells or more), or whose games would take more
    than MAX_TABLE_BYTES (`pacman.agents.dot_games`), there are no games, and it is `scaled`. Where there are
    games it declares no ghost horizon (the chance depends on every ghost, however far), so the far-ghost
    shortcut does not apply there (`dots_ghost_horizon`), and its bounds are `scaled`'s with `behind` more at
    the bottom and ``W + WIN_POINTS`` more at the top.

    These games are played against random ghosts; a search against ghosts that move otherwise evaluates with
    `dots_against` its models, whose games are played against them.
    """
    return _dots_value(state, dot_games(state.layout))


def _dots_value(state: GameState, games: DotGames | None) -> float:
    value = scaled_evaluation.function(state)
    if games is None:
        return value
    weight, chance_weight, behind = dots_prices(games)
    if state.is_terminal():
        return value + weight if state.is_win() else value
    return value + chance_weight * games.chance(state) - behind


def dots_prices(games: DotGames) -> tuple[float, float, float]:
    """How `dots` prices the chance of `games`' maze: (W, the weight a won game gets; ``W + stake``, the chance's
    weight in a live position; ``behind``, taken off every live position), ``behind`` being LOSE_POINTS and
    `scaled`'s lost-game penalty on this maze, ``stake`` that and WIN_POINTS. The same three numbers in the
    core (`DotGames.core_form`)."""
    return games.layout.derived(f"dots_prices {games.rules}", lambda layout: _prices(games, layout))


def _prices(games: DotGames, layout: Layout) -> tuple[float, float, float]:
    weight = dot_games_weight(games)
    behind = LOSE_POINTS + _scaled_weights(layout.derived("region_cells", region_cells)).lost_penalty
    return weight, weight + (behind + WIN_POINTS), behind


def dots_bounds_within(state: GameState, plies: int) -> tuple[float, float]:
    """`scaled_bounds_within`, where the maze has dot games with `behind` more at the bottom (a live position with
    chance 0) and ``W + WIN_POINTS`` more at the top (chance 1; a won game gets W, `dots_prices`)."""
    return _dots_bounds(dot_games(state.layout), state, plies)


def _dots_bounds(games: DotGames | None, state: GameState, plies: int) -> tuple[float, float]:
    low, high = scaled_bounds_within(state, plies)
    if games is None:
        return low, high
    _, chance_weight, behind = dots_prices(games)
    return low - behind, high + (chance_weight - behind)


def _core_dots(layout: Layout, rules: tuple[tuple, ...] | None = None) -> tuple | None:
    """The core's form of `layout`'s dot games against `rules` (None where there are none), made once per layout
    and rules, not per game."""
    games = dot_games(layout, rules)
    if games is None:
        return None
    key = "dot_games_core" if games.rules is None else f"dot_games_core {games.rules}"
    return layout.derived(key, lambda _: games.core_form(*dots_prices(games)))


def dots_ghost_horizon(layout: Layout) -> int | None:
    """`dots`' ghost horizon on `layout`: none where the maze has dot games (the chance depends on every ghost,
    however far), and `scaled`'s elsewhere, where `dots` is `scaled`."""
    return None if dot_games(layout) is not None else _FEATURE_HORIZON


def dots_against(models: Sequence[Any] | None) -> Evaluation:
    """`dots` with its games solved against ghosts that move as `models` do (None: random ghosts, `dots` itself).

    A ghost whose hunting moves read nothing but Pacman's cell and its own (`pacman.agents.ghosts.cell_rule`:
    random, directional, the arcade's chaser and shy ghost) is played in the games as it moves; one that reads
    more (the ambusher and the flanker read Pacman's heading), or a kind of your own, as a random ghost. So with
    one ghost of the first sort, no capsule and one or two dots, the chance is the exact win probability against
    that very ghost. The same function in both engines: its games are the tables the core reads."""
    rules = None if models is None else tuple(cell_rule(model) or RANDOM_RULE for model in models)
    if rules is None or all(rule == RANDOM_RULE for rule in rules):
        return dots_evaluation
    return _dots_for_rules(rules)


@functools.lru_cache(maxsize=32)
def _dots_for_rules(rules: tuple[tuple, ...]) -> Evaluation:
    """`dots_against` ghosts of these rules: made once per rules (a handful: the kinds and their probabilities)."""
    function = functools.partial(_dots_with_rules, rules)
    return Evaluation(function, bounds_within=functools.partial(_dots_bounds_with_rules, rules),
                      ghost_horizon=functools.partial(_dots_horizon_with_rules, rules),
                      prepare=functools.partial(_prepare_rules, rules), score_additive=True,
                      core_form=CoreEvaluation(function, "features", _scaled_parameters,
                                               dots=functools.partial(_core_dots, rules=rules)))


def _dots_with_rules(rules: tuple[tuple, ...], state: GameState) -> float:
    return _dots_value(state, dot_games(state.layout, rules))


def _dots_bounds_with_rules(rules: tuple[tuple, ...], state: GameState, plies: int) -> tuple[float, float]:
    return _dots_bounds(dot_games(state.layout, rules), state, plies)


def _dots_horizon_with_rules(rules: tuple[tuple, ...], layout: Layout) -> int | None:
    return None if dot_games(layout, rules) is not None else _FEATURE_HORIZON


def _prepare_rules(rules: tuple[tuple, ...], layout: Layout) -> DotGames | None:
    return dot_games(layout, rules)


def _scaled_parameters(layout: Layout) -> tuple[Any, tuple[float, ...], int, int]:
    return better_parameters(layout, scaled_evaluation)


#: `dots`: its games are built once per maze, before a game's first move (`_SearchAgent.reset`); the core's
#: feature kernel computes it with `scaled`'s weights and tables, and adds the dot games
dots_evaluation = Evaluation(_named(_dots, "dots_evaluation"), bounds_within=dots_bounds_within,
                             ghost_horizon=dots_ghost_horizon, prepare=dot_games, score_additive=True,
                             core_form=CoreEvaluation(_dots, "features", _scaled_parameters, dots=_core_dots),
                             for_ghosts=dots_against)


def _feature_parameters(tables: _BetterTables) -> tuple[Any, tuple[float, ...], int, int]:
    """`better_parameters` from a layout's tables."""
    w = tables.weights
    weights = (tables.food_weight, w.capsule_price, w.lost_penalty, w.step_price, w.scared_pull,
               w.caught_penalty, w.near_penalty, w.room_price, w.room_cells)
    return tables.distances.matrix, weights, tables.pacman_region, tables.distances.diameter


def better_parameters(layout: Layout,
                      evaluation: Evaluation = better_evaluation) -> tuple[Any, tuple[float, ...], int, int]:
    """What a compiled feature evaluation (`better_evaluation`, `safe_evaluation`, `scaled_evaluation`,
    `dots_evaluation`) and its bounds need of `layout`: the maze-distance matrix (read-only int32, cells x
    cells); the weights in the order (food weight, capsule price, lost penalty, step price, scared pull, caught
    penalty, near penalty, room price, room cells); the mask of Pacman's region; and the maze's diameter: one
    home for the numbers. Raises ValueError for an evaluation that is not a feature evaluation."""
    form = evaluation.core_form
    if form is None or form.kernel != "features" or form.parameters is None:
        raise ValueError(f"{evaluation!r} is not a feature evaluation")
    return form.parameters(layout)


#: The evaluation an agent gets when none is named (on the command line, or None in Python).
DEFAULT_EVALUATION = "dots"

#: Evaluations by name.
EVALUATIONS: dict[str, Evaluation] = {
    "score": score_evaluation,
    "better": better_evaluation,
    "safe": safe_evaluation,
    "scaled": scaled_evaluation,
    "dots": dots_evaluation,
}


def load_object(spec: str, what: str) -> Any:
    """Import ``module:name`` or ``path/to/file.py:name``; AgentSpecError says what was tried."""
    target, sep, name = spec.rpartition(":")
    if not sep or not target or not name.isidentifier():
        raise AgentSpecError(f"{what} {spec!r}: expected module:name or path/to/file.py:name")
    if target.endswith(".py") or "/" in target or "\\" in target:
        try:
            path = Path(target).expanduser()
            is_file = path.is_file()
        except (OSError, ValueError, RuntimeError):  # a name the OS refuses (too long, NUL), ~nobody
            is_file = False
        if not is_file:
            raise AgentSpecError(f"{what} {spec!r}: no such file {target!r}")
        module_name = f"_pacman_user_{abs(hash(str(path.resolve())))}"
        module = sys.modules.get(module_name)
        if module is None:
            loader_spec = importlib.util.spec_from_file_location(module_name, path)
            if loader_spec is None or loader_spec.loader is None:
                raise AgentSpecError(f"{what} {spec!r}: cannot load {target!r} as Python")
            module = importlib.util.module_from_spec(loader_spec)
            try:
                import_user_file(lambda: loader_spec.loader.exec_module(module), target)
            except ImportTimeout as exc:
                raise AgentSpecError(f"{what} {spec!r}: {exc}") from None
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # SystemExit too: a module that exits at import is a bad spec
                raise AgentSpecError(f"{what} {spec!r}: importing {target} {describe_failure(exc)}"
                                     + frames_text(exc)) from None
            sys.modules[module_name] = module
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as exc:
            raise AgentSpecError(f"{what} {spec!r}: cannot import module {target!r} ({' '.join(str(exc).split())})") from None
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            raise AgentSpecError(f"{what} {spec!r}: importing {target} {describe_failure(exc)}") from None
    try:
        return getattr(module, name)
    except AttributeError:
        raise AgentSpecError(f"{what} {spec!r}: {target} has no {name!r} ({describe_definitions(module)})") from None


def defined_here(module: Any) -> tuple[list[str], list[str]]:
    """The public classes and functions `module` itself defines, sorted: (classes, functions).

    What it imports (``from pacman import Action``, ``import os``) is left out, so
    that an error can list what the file's author wrote.
    """
    classes, functions = [], []
    for key, value in vars(module).items():
        if key.startswith("_") or getattr(value, "__module__", None) != module.__name__:
            continue
        if inspect.isclass(value):
            classes.append(key)
        elif inspect.isfunction(value):
            functions.append(key)
    return sorted(classes), sorted(functions)


def describe_definitions(module: Any) -> str:
    """``it defines the classes A, B and the functions f`` (or that it defines none), for error messages."""
    classes, functions = defined_here(module)
    parts = []
    if classes:
        parts.append(f"the class{'es' if len(classes) > 1 else ''} {', '.join(classes)}")
    if functions:
        parts.append(f"the function{'s' if len(functions) > 1 else ''} {', '.join(functions)}")
    return f"it defines {' and '.join(parts)}" if parts else "it defines no public class or function"


def resolve_evaluation(spec: str | Callable[[GameState], float]) -> Evaluation:
    """The `Evaluation` of a callable (`Evaluation.of`: a function of your own with the declarations written as
    its attributes), a registered name, module:function or file.py:function."""
    if callable(spec):
        return Evaluation.of(spec)
    if not isinstance(spec, str):
        raise AgentSpecError(f"evaluation must be a callable or a string, got {type(spec).__name__}")
    if spec in EVALUATIONS:
        return Evaluation.of(EVALUATIONS[spec])
    if ":" not in spec:
        raise AgentSpecError(
            f"evaluation {spec!r}: not a registered name ({', '.join(EVALUATIONS)}), "
            f"nor module:function, nor path/to/file.py:function"
        )
    function = load_object(spec, "evaluation")
    if not callable(function):
        raise AgentSpecError(f"evaluation {spec!r} is a {type(function).__name__}, not a function")
    return Evaluation.of(function)
