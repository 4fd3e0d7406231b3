"""The fast GameState: the core contract (immutability, value equality, errors) and its tables."""

import pickle

import pytest

from pacman import Action, GameState, IllegalActionError, TerminalStateError, parse_layout
from pacman.errors import PacmanError
from pacman.layout import layout_names, load_layout

N, S, E, W, STOP = Action.NORTH, Action.SOUTH, Action.EAST, Action.WEST, Action.STOP

CORRIDOR = parse_layout("%%%%%%%\n%P.. G%\n%%%%%%%\n", name="corridor")


def test_initial_state_reads_the_layout():
    state = GameState.initial(CORRIDOR)
    assert state.num_agents == 2
    assert state.pacman_position == (1, 1)
    assert state.ghost_positions == ((5, 1),)
    assert state.ghost_directions == (STOP,)
    assert state.scared_timers == (0,)
    assert state.food == frozenset({(2, 1), (3, 1)})
    assert state.food_count == 2 and state.capsules == ()
    assert state.score == 0 and not state.is_terminal()


def test_num_ghosts_keeps_the_first_k_and_rejects_too_many():
    # 'G' and '1' are both index 1 and order by x; '2' comes last.
    layout = parse_layout("%%%%%%\n%P 21%\n%G   %\n%%%%%%\n")
    assert GameState.initial(layout).ghost_positions == ((1, 1), (4, 2), (3, 2))
    assert GameState.initial(layout, num_ghosts=2).ghost_positions == ((1, 1), (4, 2))
    assert GameState.initial(layout, num_ghosts=0).num_agents == 1
    for bad in (4, -1, 1.5, True):
        with pytest.raises(PacmanError, match="num_ghosts"):
            GameState.initial(layout, num_ghosts=bad)


def test_successor_returns_a_new_state_and_leaves_the_old_one_unchanged():
    state = GameState.initial(CORRIDOR)
    before = (state.score, state.pacman_position, state.food, hash(state))
    after = state.successor(0, E)
    assert after is not state
    assert (state.score, state.pacman_position, state.food, hash(state)) == before
    assert (after.score, after.pacman_position, after.food_count) == (9, (2, 1), 1)


def test_states_compare_and_hash_by_value():
    a = GameState.initial(CORRIDOR).successor(0, E).successor(1, W)
    b = GameState.initial(CORRIDOR).successor(0, E).successor(1, W)
    c = GameState.initial(CORRIDOR).successor(0, STOP).successor(1, W)
    assert a == b and hash(a) == hash(b) and a is not b
    assert a != c
    assert len({a, b, c}) == 2


def test_pickle_round_trip_keeps_value():
    start = GameState.initial(load_layout("medium"))
    state = start.successor(0, start.legal_actions(0)[0])
    again = pickle.loads(pickle.dumps(state))
    assert again.score == state.score and again.pacman_position == state.pacman_position
    assert again.food == state.food and again.ghost_positions == state.ghost_positions
    assert [s.score for s in again.successors(1)] == [s.score for s in state.successors(1)]


def test_legal_actions_are_in_tie_break_order():
    open_box = parse_layout("%%%%%\n%   %\n% P %\n%   %\n%%%%%\n")
    assert GameState.initial(open_box).legal_actions(0) == (N, S, E, W, STOP)
    assert GameState.initial(CORRIDOR).legal_actions(0) == (E, STOP)


def test_string_action_values_are_accepted():
    state = GameState.initial(CORRIDOR)
    assert state.successor(0, "East") == state.successor(0, E)


def test_illegal_action_names_agent_position_and_legal_moves():
    state = GameState.initial(CORRIDOR)
    with pytest.raises(IllegalActionError) as info:
        state.successor(0, W)
    message = str(info.value)
    assert "Pacman (agent 0) at (1, 1)" in message and "legal: East, Stop" in message
    with pytest.raises(IllegalActionError, match="ghost 1"):
        state.successor(1, STOP)
    for bad in ("Up", None, [1]):
        with pytest.raises(IllegalActionError):
            state.successor(0, bad)


def test_bad_agent_index_is_an_illegal_action_error():
    state = GameState.initial(CORRIDOR)
    for agent in (2, -1):
        with pytest.raises(IllegalActionError, match="does not exist"):
            state.successor(agent, E)
        with pytest.raises(IllegalActionError, match="does not exist"):
            state.legal_actions(agent)


def test_terminal_state_has_no_actions_and_no_successors():
    won = GameState.initial(CORRIDOR).successor(0, E).successor(1, W).successor(0, E)
    assert won.is_win() and won.is_terminal() and won.score == 9 + 9 + 500
    assert won.legal_actions(0) == () and won.legal_actions(1) == ()
    assert won.successors(0) == [] and won.successors(1) == []
    with pytest.raises(TerminalStateError, match="terminal"):
        won.successor(0, STOP)


@pytest.mark.parametrize("name", layout_names())
def test_successors_equals_successor_for_each_legal_action(name):
    import random

    rng = random.Random(name)
    state = GameState.initial(load_layout(name))
    agent = 0
    for _ in range(300):
        if state.is_terminal():
            state, agent = GameState.initial(load_layout(name)), 0
        legal = state.legal_actions(agent)
        stepwise = [state.successor(agent, a) for a in legal]
        assert state.successors(agent) == stepwise
        assert state.successors(agent, reversed(legal)) == stepwise[::-1]
        state = rng.choice(stepwise)
        agent = (agent + 1) % state.num_agents


def test_text_rendering_shows_agents_food_and_walls():
    state = GameState.initial(CORRIDOR)
    assert state.to_text() == "%%%%%%%\n%P.. G%\n%%%%%%%"
    assert "score=0" in repr(state) and "corridor" in repr(state)
