"""The bounds `better` declares for a search hold, and Star1 prunes with them without changing a value."""

import numpy as np
import pytest

from pacman.agents import ExpectimaxAgent
from pacman.agents.evaluation import better_bounds_within, better_evaluation, score_evaluation
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


def _every_descendant(state, plies):
    """Every state within `plies` plies of `state` (exhaustively)."""
    level = [state]
    for _ in range(plies):
        for agent in range(state.num_agents):
            level = [child for s in level for child in s.successors(agent)] + [s for s in level if s.is_terminal()]
            yield from level


EVALUATIONS = [(better_evaluation, better_bounds_within)]


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
    assert not hasattr(score_evaluation, "bounds") and not hasattr(score_evaluation, "bounds_within")
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
