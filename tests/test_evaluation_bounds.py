"""The bounds `better` declares for a search hold, and Star1 prunes with them without changing a value."""

import numpy as np
import pytest

from pacman.agents import ExpectimaxAgent
from pacman.agents.evaluation import (better_bounds_within, better_evaluation, dots_bounds_within, dots_evaluation,
                                      safe_bounds_within, safe_evaluation, scaled_bounds_within, scaled_evaluation,
                                      score_evaluation)
from pacman import Action, GameState, load_layout
from pacman.layout import layout_names


def _random_roots(layout, count, seed):
    """States met in random games on `layout` (every agent moves at random)."""
    rng = np.random.default_rng(seed)
    roots = []
    while len(roots) < count:
        state = GameState.initial(layout)
        for _ in range(int(rng.integers(0, 120))):
            for agent in range(state.num_agents):
                if state.is_terminal():
                    break
                legal = state.legal_actions(agent)
                state = state.successor(agent, legal[int(rng.integers(len(legal)))])
        if not state.is_terminal():
            roots.append(state)
    return roots


def _random_descendants(state, plies, rng, walks):
    """Every state on `walks` random walks of up to `plies` plies below `state`."""
    for _ in range(walks):
        current = state
        for _ in range(plies):
            for agent in range(current.num_agents):
                if current.is_terminal():
                    break
                legal = current.legal_actions(agent)
                current = current.successor(agent, legal[int(rng.integers(len(legal)))])
                yield current


def _every_descendant(state, plies, agent=0):
    """Every state a search from `state` with `agent` to move and `plies` plies left reaches (exhaustively):
    the rest of this ply (agents `agent`..), then `plies` - 1 whole plies."""
    level = [state]
    turns = list(range(agent, state.num_agents)) + list(range(state.num_agents)) * (plies - 1)
    for mover in turns:
        level = [child for s in level for child in s.successors(mover)] + [s for s in level if s.is_terminal()]
        yield from level


EVALUATIONS = [(better_evaluation, better_bounds_within), (safe_evaluation, safe_bounds_within),
               (scaled_evaluation, scaled_bounds_within), (dots_evaluation, dots_bounds_within)]


@pytest.mark.parametrize("evaluation, bounds_within", EVALUATIONS)
@pytest.mark.parametrize("name", layout_names())
def test_bounds_hold_on_random_states_of_every_shipped_layout(name, evaluation, bounds_within):
    layout = load_layout(name)
    rng = np.random.default_rng(7)
    for root in _random_roots(layout, 15, seed=len(name)):
        for plies in (0, 1, 2, 3):
            low, high = bounds_within(root, plies)
            assert low <= evaluation(root) <= high
            for state in _random_descendants(root, plies, rng, walks=20):
                assert low <= evaluation(state) <= high, (name, plies, root, state)


@pytest.mark.parametrize("evaluation, bounds_within", EVALUATIONS)
@pytest.mark.parametrize("name", ["tiny", "test", "capsules", "minimax"])
def test_bounds_hold_on_every_state_within_two_plies(name, evaluation, bounds_within):
    layout = load_layout(name)
    for root in _random_roots(layout, 5, seed=3):
        low, high = bounds_within(root, 2)
        values = [evaluation(s) for s in _every_descendant(root, 2)]
        assert low <= min(values) and max(values) <= high


def test_bounds_count_a_capsule_and_the_ghosts_it_scares():
    # Pacman one step from a capsule and one from a ghost: eating both is possible in one ply.
    from pacman import parse_layout
    layout = parse_layout("%%%%%%%\n%.oPG %\n%%%%%%%\n")
    state = GameState.initial(layout)
    after = state.successor(0, state.legal_actions(0)[1])  # West: the capsule
    assert after.scared_timers == (40,)
    eaten = after.successor(1, Action.WEST).successor(0, Action.EAST)
    assert eaten.score == after.score + 200 - 1
    for evaluation, bounds_within in EVALUATIONS:
        low, high = bounds_within(state, 2)
        assert low <= evaluation(after) <= high and low <= evaluation(eaten) <= high


@pytest.mark.parametrize("transposition", [False, True])
def test_star1_prunes_with_better_and_keeps_every_value_and_move(transposition):
    layout = load_layout("medium")
    pruned = plain = 0
    for root in _random_roots(layout, 6, seed=1):
        for depth in (2, 3):
            with_star1 = ExpectimaxAgent(depth=depth, transposition=transposition, pruning=True, star2=False)
            without = ExpectimaxAgent(depth=depth, transposition=transposition, pruning=False)
            assert with_star1.get_action(root) == without.get_action(root)
            pruned += with_star1.last_search.nodes
            plain += without.last_search.nodes
            assert with_star1.action_values(root) == without.action_values(root)
    assert pruned < plain


def test_score_declares_no_bounds_so_pruning_changes_nothing():
    root = _random_roots(load_layout("medium"), 1, seed=2)[0]
    assert score_evaluation.bounds is None and score_evaluation.bounds_within is None
    with_star1 = ExpectimaxAgent(depth=2, evaluation="score", transposition=False, pruning=True)
    with_star1.get_action(root)
    assert not with_star1._searcher.star1


def test_bounds_count_the_win_of_the_last_dot():
    from pacman import parse_layout
    state = GameState.initial(parse_layout("%%%%%%%\n%P.  G%\n%%%%%%%\n"))
    won = state.successor(0, state.legal_actions(0)[0])  # East: the last dot
    assert won.is_win()
    for evaluation, bounds_within in EVALUATIONS:
        low, high = bounds_within(state, 1)
        assert low <= evaluation(won) <= high


#: Mazes where ghosts are just out of reach, or come back from their start near Pacman once eaten.
GHOST_MAZES = {
    "corridor": "%%%%%%%%%%%%%%%%%%%%%%\n%P.........G.........%\n%%%%%%%%%%%%%%%%%%%%%%\n",
    "room": "%%%%%%%%%%%%\n%o.P..G....%\n%.%%%%%%%%.%\n%..........%\n%%%%%%%%%%%%\n",
    "loop": "%%%%%%%%%%%%%%\n%P....%....G.%\n%.%%%.%.%%%%.%\n%....o.......%\n%%%%%%%%%%%%%%\n",
}


@pytest.mark.parametrize("name", [*GHOST_MAZES, "capsules", "tricky"])
def test_the_bounds_of_states_no_ghost_can_reach_hold_on_every_state_within_reach(name):
    """Where no ghost can catch Pacman within the plies left, `low` leaves out the lost game and the ghosts that
    cannot come near: every state a search reaches, from Pacman's turn or a ghost's, lies within the bounds,
    among them ghosts one step nearer than the bound allows for (which then does not apply)."""
    from pacman import parse_layout
    from pacman.agents.compiled import CompiledSearcher, core_status
    from pacman.agents.evaluation import _BetterTables, _ghost_reach, _most_eaten
    from pacman.agents.expectimax import PacmanGame

    layout = parse_layout(GHOST_MAZES[name]) if name in GHOST_MAZES else load_layout(name)
    tables = layout.derived("better_evaluation", _BetterTables)
    core = None
    if core_status()[0]:  # the core computes the same bounds, operation for operation
        game = PacmanGame(layout.num_ghosts + 1, better_evaluation, None)
        core = CompiledSearcher(layout, layout.num_ghosts + 1, game, True, 0)
    rng = np.random.default_rng(5)
    checked = tightened = 0
    for root in _random_roots(layout, 40 if name in GHOST_MAZES else 12, seed=len(name)):
        for agent in range(root.num_agents):
            state = root
            for mover in range(agent):  # Pacman and the ghosts before `agent` move at random
                if state.is_terminal():
                    break
                legal = state.legal_actions(mover)
                state = state.successor(mover, legal[int(rng.integers(len(legal)))])
            if state.is_terminal():
                continue
            for plies in ((1, 2, 3) if layout.num_ghosts == 1 else (1, 2)):
                low, high = better_bounds_within(state, plies)
                if core is not None:
                    assert core.bounds(state, plies) == (low, high), (name, agent, plies, state)
                capsules = _most_eaten(plies, 0, 0, state.capsule_mask.bit_count(),
                                       tables.distances.nearest(state.pacman_position, state.capsule_mask),
                                       state.scared_timers)[1]
                if _ghost_reach(state, plies, tables, tables.distances.cell(state.pacman_position), capsules):
                    tightened += 1
                for descendant in _every_descendant(state, plies, agent):
                    value = better_evaluation(descendant)
                    assert low <= value <= high, (name, agent, plies, state, descendant)
                    checked += 1
    assert tightened >= 5 and checked > 1000, (tightened, checked)
