"""Ghost agents: exact distributions, and sampling that follows them."""

import numpy as np
import pytest

from pacman.agents import DirectionalGhost, RandomGhost, make_ghosts, sample
from pacman import Action, AgentSpecError, GameState, parse_layout

N, S, E, W, STOP = Action.NORTH, Action.SOUTH, Action.EAST, Action.WEST, Action.STOP

# Ghost 1 in the middle of a plus-shaped crossing; Pacman to its east.
CROSS = parse_layout(
    "%%%%%%%\n"
    "%%% %%%\n"
    "%  G P%\n"
    "%%% %%%\n"
    "%%%%%%%\n",
    name="cross",
)


def test_random_ghost_is_uniform_over_legal_actions():
    state = GameState.initial(CROSS)
    assert RandomGhost(1).distribution(state) == [(N, 0.25), (S, 0.25), (E, 0.25), (W, 0.25)]


def test_directional_ghost_gives_the_best_move_prob_attack_plus_a_share():
    state = GameState.initial(CROSS)
    dist = dict(DirectionalGhost(1).distribution(state))
    assert list(dist) == [N, S, E, W]
    assert dist[E] == pytest.approx(0.8 + 0.2 / 4, abs=1e-15)
    assert dist[N] == dist[S] == dist[W] == pytest.approx(0.05, abs=1e-15)
    assert sum(dist.values()) == pytest.approx(1.0, abs=1e-12)


def test_directional_ghost_splits_prob_between_tied_best_moves():
    # Pacman to the north-east: North and East both bring the ghost to distance 2.
    layout = parse_layout("%%%%%%\n%   P%\n%    %\n%  G %\n%    %\n%%%%%%\n")
    state = GameState.initial(layout)
    dist = dict(DirectionalGhost(1, prob_attack=0.6).distribution(state))
    assert dist[N] == dist[E] == pytest.approx(0.3 + 0.4 / 4)
    assert dist[S] == dist[W] == pytest.approx(0.1)


def test_scared_directional_ghost_flees_with_half_steps():
    layout = parse_layout("%%%%%%%%\n%o   G %\n%P%%%%%%\n%%%%%%%%\n")
    # Pacman eats the capsule; the ghost (scared, at (5,2)) can go East or West.
    state = GameState.initial(layout).successor(0, N)
    assert state.scared_timers == (40,)
    dist = dict(DirectionalGhost(1, prob_scared_flee=0.9).distribution(state))
    assert dist[E] == pytest.approx(0.9 + 0.1 / 2)
    assert dist[W] == pytest.approx(0.1 / 2)
    after = state.successor(1, E)
    assert after.ghost_positions == ((5.5, 2),)


def test_sampling_follows_the_distribution_and_replays_with_the_seed():
    state = GameState.initial(CROSS)
    ghost = DirectionalGhost(1)
    draws = [ghost.get_action(state, np.random.default_rng(7)) for _ in range(3)]
    assert len(set(draws)) == 1  # same seed, same draw
    rng = np.random.default_rng(123)
    counts = {a: 0 for a in (N, S, E, W)}
    for _ in range(20_000):
        counts[ghost.get_action(state, rng)] += 1
    assert counts[E] / 20_000 == pytest.approx(0.85, abs=0.015)
    for action in (N, S, W):
        assert counts[action] / 20_000 == pytest.approx(0.05, abs=0.01)


def test_sample_picks_by_cumulative_probability():
    class Fixed:
        def __init__(self, u):
            self.u = u

        def random(self):
            return self.u

    dist = [(N, 0.25), (S, 0.5), (E, 0.25)]
    assert [sample(dist, Fixed(u)) for u in (0.0, 0.2499, 0.25, 0.7499, 0.75, 0.9999999)] == [N, N, S, S, E, E]
    with pytest.raises(ValueError):
        sample([], Fixed(0.5))


def test_bad_ghost_specs_are_agent_spec_errors():
    with pytest.raises(AgentSpecError, match="unknown ghost kind 'smart'"):
        make_ghosts("smart", 2)
    with pytest.raises(AgentSpecError, match="index"):
        RandomGhost(0)
    with pytest.raises(AgentSpecError, match="prob_attack"):
        DirectionalGhost(1, prob_attack=1.5)
    assert [g.index for g in make_ghosts("directional", 3)] == [1, 2, 3]
