"""Both engines against the rules, one rule at a time, on tiny hand-drawn mazes.

Every test runs twice: on the simple engine (pacman.conformance) and on the fast GameState.

Every expected value here was worked out by hand from the rules; the last line
of a layout is y = 0 and x counts from the left.
"""

import pytest

from pacman.actions import Action
from pacman.conformance import SimpleState
from pacman.errors import IllegalActionError, TerminalStateError
from pacman.layout import parse_layout
from pacman.state import GameState

N, S, E, W, STOP = Action.NORTH, Action.SOUTH, Action.EAST, Action.WEST, Action.STOP


_engine = SimpleState


@pytest.fixture(autouse=True, params=[SimpleState, GameState], ids=["simple", "fast"])
def engine(request):
    """Run every test of this module once per engine."""
    global _engine
    _engine = request.param
    yield request.param
    _engine = SimpleState


def start(text, num_ghosts=None):
    """A new game on a layout given as text, in the engine under test."""
    return _engine.initial(parse_layout(text), num_ghosts=num_ghosts)


def snapshot(state):
    """Everything observable about a state, for before/after comparisons."""
    return (
        [state.legal_actions(i) for i in range(state.num_agents)],
        state.score,
        state.pacman_position,
        state.ghost_positions,
        state.ghost_directions,
        state.scared_timers,
        state.food,
        state.food_count,
        state.capsules,
        state.is_win(),
        state.is_lose(),
    )


# --------------------------------------------------------------------- scoring

def test_stop_costs_one_point():
    state = start("%%%%%\n%P .%\n%%%%%\n")
    after = state.successor(0, STOP)
    assert after.score == -1
    assert after.pacman_position == (1, 1)
    assert after.food_count == 1
    assert not after.is_terminal()


def test_eating_food_scores_ten_and_the_last_food_wins_with_500():
    state = start("%%%%%\n%P..%\n%%%%%\n")
    assert state.score == 0
    assert state.food == frozenset({(2, 1), (3, 1)})
    one = state.successor(0, E)
    assert one.pacman_position == (2, 1)
    assert one.score == 10 - 1
    assert one.food == frozenset({(3, 1)})
    assert one.food_count == 1
    assert not one.is_win()
    two = one.successor(0, E)
    assert two.score == 9 + 10 + 500 - 1 == 518
    assert two.food == frozenset()
    assert two.food_count == 0
    assert two.is_win() and not two.is_lose() and two.is_terminal()
    assert two.legal_actions(0) == ()


def test_a_layout_without_food_is_never_won():
    state = start("%%%%\n%P %\n%%%%\n")
    assert state.food_count == 0
    after = state.successor(0, E).successor(0, W)
    assert after.score == -2
    assert not after.is_win() and not after.is_terminal()


# ------------------------------------------------------------------ collisions

def test_a_ghost_moving_onto_pacman_loses_500_and_distance_one_is_no_collision():
    state = start("%%%%%\n%P G%\n%%%%%\n")
    near = state.successor(0, E)
    assert near.pacman_position == (2, 1)
    assert near.ghost_positions == ((3, 1),)
    assert near.score == -1  # distance 1: no collision
    assert not near.is_terminal()
    assert near.legal_actions(1) == (W,)
    caught = near.successor(1, W)
    assert caught.ghost_positions == ((2, 1),)
    assert caught.score == -1 - 500
    assert caught.is_lose() and not caught.is_win() and caught.is_terminal()
    assert [caught.legal_actions(i) for i in range(2)] == [(), ()]


def test_pacman_moving_onto_a_ghost_loses_500():
    state = start("%%%%\n%PG%\n%%%%\n")
    after = state.successor(0, E)
    assert after.score == -1 - 500
    assert after.is_lose()


def test_two_ghosts_caught_on_one_pacman_move_cost_1000():
    state = start(
        "%%%%%\n"
        "%%1%%\n"
        "%P 2%\n"
        "%%%%%\n"
    )
    state = state.successor(0, STOP)
    state = state.successor(1, S)  # ghost 1 to (2, 1): distance 1 from Pacman
    state = state.successor(2, W)  # ghost 2 to (2, 1) as well
    assert state.ghost_positions == ((2, 1), (2, 1))
    assert state.score == -1 and not state.is_terminal()
    after = state.successor(0, E)
    assert after.score == -1 - 1 - 500 - 500 == -1002
    assert after.is_lose()


# --------------------------------------------------------- capsules and scared

SCARED = (
    "%%%%%%%%\n"
    "%Po..1 %\n"
    "%%%%%%%%\n"
)


def test_a_capsule_scares_every_ghost_and_scores_nothing():
    state = start("%%%%%%%%\n%Po.1 2%\n%%%%%%%%\n")
    assert state.scared_timers == (0, 0)
    assert state.capsules == ((2, 1),)
    after = state.successor(0, E)
    assert after.score == -1
    assert after.scared_timers == (40, 40)
    assert after.capsules == ()
    assert after.food_count == 1


def test_a_scared_ghost_moves_half_a_cell_and_between_cells_only_goes_straight():
    state = start(SCARED).successor(0, E)
    assert state.scared_timers == (40,)
    assert state.legal_actions(1) == (E, W)
    half = state.successor(1, W)
    assert half.ghost_positions == ((4.5, 1),)
    assert half.ghost_directions == (W,)
    assert half.scared_timers == (39,)
    assert half.legal_actions(1) == (W,)
    with pytest.raises(IllegalActionError):
        half.successor(1, E)
    whole = half.successor(0, STOP).successor(1, W)
    assert whole.ghost_positions == ((4, 1),)
    assert whole.scared_timers == (38,)
    assert whole.legal_actions(1) == (W,)  # on a cell again; East would be a reverse


def test_a_ghost_half_a_cell_away_collides_and_eating_it_scores_200_and_sends_it_home():
    state = start(SCARED).successor(0, E)          # capsule; score -1
    state = state.successor(1, W)                  # ghost to 4.5, timer 39
    state = state.successor(0, STOP)               # score -2
    state = state.successor(1, W)                  # ghost to 4, timer 38
    state = state.successor(0, E)                  # Pacman to (3, 1): +10 - 1
    assert state.score == 7
    assert state.pacman_position == (3, 1)
    assert state.ghost_positions == ((4, 1),)      # distance 1: no collision
    eaten = state.successor(1, W)                  # ghost to 3.5: distance 0.5
    assert eaten.score == 7 + 200
    assert eaten.ghost_positions == ((5, 1),)
    assert eaten.scared_timers == (0,)
    assert eaten.ghost_directions == (STOP,)
    assert not eaten.is_terminal()
    assert eaten.legal_actions(1) == (E, W)        # no last direction: either way


def test_eating_a_scared_ghost_on_the_winning_move_scores_both():
    state = start("%%%%%%%%\n%Po.1 2%\n%%%%%%%%\n").successor(0, E)
    state = state.successor(1, W).successor(2, W)
    assert state.ghost_positions == ((3.5, 1), (5.5, 1))
    assert state.scared_timers == (39, 39)
    after = state.successor(0, E)
    assert after.score == -1 + 10 + 500 - 1 + 200 == 708
    assert after.is_win() and not after.is_lose()
    assert after.ghost_positions == ((4, 1), (5.5, 1))
    assert after.scared_timers == (0, 39)
    assert after.ghost_directions == (STOP, W)
    assert [after.legal_actions(i) for i in range(3)] == [(), (), ()]


def test_a_ghost_on_the_winning_move_does_not_cost_500():
    state = start("%%%%%\n%P.G%\n%%%%%\n").successor(0, STOP).successor(1, W)
    assert state.ghost_positions == ((2, 1),)
    after = state.successor(0, E)
    assert after.score == -1 + 10 + 500 - 1 == 508
    assert after.is_win() and not after.is_lose()


def test_a_scared_ghost_checked_after_a_loss_still_scores_200():
    state = start(
        "%%%%%\n"
        "%2%%%\n"
        "%1oP%\n"
        "%%%%%\n"
    )
    state = state.successor(0, W)                   # capsule at (2, 1); score -1
    state = state.successor(1, E)                   # ghost 1 to (1.5, 1): eaten
    assert state.score == 199
    assert state.ghost_positions == ((1, 1), (1, 2))
    assert state.scared_timers == (0, 40)
    state = state.successor(2, S)                   # ghost 2 to (1, 1.5), still scared
    assert state.ghost_positions == ((1, 1), (1, 1.5))
    assert not state.is_terminal()
    after = state.successor(0, W)                   # onto ghost 1 (not scared) and by ghost 2
    assert after.score == 199 - 1 - 500 + 200 == -102
    assert after.is_lose()
    assert after.ghost_positions == ((1, 1), (1, 2))
    assert after.scared_timers == (0, 0)


# A capsule on each side of Pacman and a long corridor below: the second capsule is
# eaten while the ghost is half-way between cells, so 39 half steps later it is on a
# cell and its 40th (last scared) move ends half-way, where it snaps.
SNAP = (
    "%%%%%%%%%\n"
    "%%%oPo%%%\n"
    "%%%%% %%%\n"
    "%      G%\n"
    "%%%%%%%%%\n"
)


def _ghost_keeps_to_the_corridor(state):
    """Move the ghost along the bottom corridor: its only legal move other than North."""
    moves = [a for a in state.legal_actions(1) if a != N]
    assert len(moves) == 1
    return state.successor(1, moves[0])


def _play_until_timer_is_one(stops):
    """Eat both capsules (with `stops` Stops between), sit at (5, 2), and wait for the ghost's last scared move."""
    state = start(SNAP)
    for action in [E] + [STOP] * stops + [W, W, E, E, S]:
        state = _ghost_keeps_to_the_corridor(state.successor(0, action))
        if action is W and state.pacman_position == (3, 3):
            assert state.scared_timers == (39,)       # reset to 40 by the second capsule
    while state.scared_timers[0] > 1:
        state = _ghost_keeps_to_the_corridor(state.successor(0, STOP))
    return state


def test_the_timer_running_out_snaps_the_ghost_and_half_cells_round_up():
    going_west = _play_until_timer_is_one(stops=7)
    assert going_west.ghost_positions == ((7, 1),)
    assert going_west.ghost_directions == (E,)
    assert going_west.legal_actions(1) == (W,)          # a dead end: back West
    assert going_west.scared_timers == (1,)
    assert going_west.score == -48
    snapped = going_west.successor(1, W)              # to 6.5, snapped up to 7 (not 6)
    assert snapped.ghost_positions == ((7, 1),)
    assert snapped.ghost_directions == (W,)
    assert snapped.scared_timers == (0,)
    assert snapped.score == -48
    assert snapped.legal_actions(1) == (W,)

    going_east = _play_until_timer_is_one(stops=3)
    assert going_east.ghost_positions == ((5, 1),)
    assert going_east.legal_actions(1) == (N, E)
    snapped = going_east.successor(1, E)              # to 5.5, snapped to 6
    assert snapped.ghost_positions == ((6, 1),)
    assert snapped.scared_timers == (0,)
    assert snapped.legal_actions(1) == (E,)           # a cell again; West is the reverse
    assert snapped.successor(0, STOP).successor(1, E).ghost_positions == ((7, 1),)  # full speed


def test_a_ghost_whose_timer_runs_out_on_pacman_kills_him():
    state = _play_until_timer_is_one(stops=3)
    assert state.pacman_position == (5, 2)
    assert state.ghost_positions == ((5, 1),)
    assert state.scared_timers == (1,)
    assert state.score == -44
    after = state.successor(1, N)                     # to (5, 1.5), snapped onto Pacman
    assert after.ghost_positions == ((5, 2),)
    assert after.scared_timers == (0,)
    assert after.score == -44 - 500
    assert after.is_lose()


# -------------------------------------------------------------- legal actions

def test_pacman_legal_actions_are_in_north_south_east_west_stop_order():
    state = start(
        "%%%%%\n"
        "%%.%%\n"
        "%.P.%\n"
        "%%.%%\n"
        "%%%%%\n"
    )
    assert state.legal_actions(0) == (N, S, E, W, STOP)
    assert state.successor(0, N).legal_actions(0) == (S, STOP)
    assert start("%%%%\n%P%%\n%%%%\n").legal_actions(0) == (STOP,)


def test_a_ghost_may_not_stop_or_reverse_except_in_a_dead_end():
    state = start(
        "%%%%%\n"
        "%%P%%\n"
        "%.G.%\n"
        "%% %%\n"
        "%%%%%\n"
    )
    assert state.ghost_directions == (STOP,)
    assert state.legal_actions(1) == (N, S, E, W)       # first move: any direction
    dead_end = state.successor(1, W)
    assert dead_end.ghost_positions == ((1, 2),)
    assert dead_end.legal_actions(1) == (E,)            # the reverse, as the only way out
    back = dead_end.successor(0, STOP).successor(1, E)
    assert back.ghost_positions == ((2, 2),)
    assert back.ghost_directions == (E,)
    assert back.legal_actions(1) == (N, S, E)           # West would be a reverse
    south = back.successor(0, STOP).successor(1, S)
    assert south.legal_actions(1) == (N,)
    with pytest.raises(IllegalActionError):
        state.successor(1, STOP)


def test_a_ghost_in_a_corridor_keeps_going():
    state = start("%%%%%%%%\n%P  G  %\n%%%%%%%%\n")
    assert state.legal_actions(1) == (E, W)
    west = state.successor(1, W)
    assert west.legal_actions(1) == (W,)
    east = state.successor(1, E)
    assert east.legal_actions(1) == (E,)
    end = east.successor(1, E)
    assert end.ghost_positions == ((6, 1),)
    assert end.legal_actions(1) == (W,)


# ------------------------------------------------------ agents and num_ghosts

def test_agents_are_pacman_then_ghosts_by_number():
    state = start("%%%%%%%%%\n%2.G1.P %\n%%%%%%%%%\n")
    assert state.num_agents == 4
    assert state.pacman_position == (6, 1)
    # G and 1 are both ghost number 1, ordered by x; ghost 2 comes last.
    assert state.ghost_positions == ((3, 1), (4, 1), (1, 1))
    assert state.ghost_directions == (STOP, STOP, STOP)
    assert state.scared_timers == (0, 0, 0)
    moved = state.successor(1, W)
    assert moved.ghost_positions == ((2, 1), (4, 1), (1, 1))


def test_num_ghosts_keeps_the_first_ghosts():
    text = "%%%%%%%%%\n%2.G1.P %\n%%%%%%%%%\n"
    one = start(text, num_ghosts=1)
    assert one.num_agents == 2
    assert one.ghost_positions == ((3, 1),)
    assert one.scared_timers == (0,)
    none = start(text, num_ghosts=0)
    assert none.num_agents == 1
    assert none.ghost_positions == ()
    with pytest.raises(IllegalActionError):
        none.legal_actions(1)
    assert start(text, num_ghosts=3).num_agents == 4
    for bad in (4, -1):
        with pytest.raises(ValueError):
            start(text, num_ghosts=bad)


# --------------------------------------------------------------------- errors

def test_a_successor_of_a_finished_game_raises():
    won = start("%%%%\n%P.%\n%%%%\n").successor(0, E)
    assert won.is_win()
    with pytest.raises(TerminalStateError, match="agent 0"):
        won.successor(0, STOP)
    lost = start("%%%%\n%PG%\n%%%%\n").successor(0, E)
    assert lost.is_lose()
    with pytest.raises(TerminalStateError):
        lost.successor(1, W)
    assert issubclass(TerminalStateError, IllegalActionError)


def test_illegal_actions_and_agents_raise_with_a_useful_message():
    state = start("%%%%%\n%P G%\n%%%%%\n")
    with pytest.raises(IllegalActionError) as wall:
        state.successor(0, N)
    message = str(wall.value)
    assert "agent 0" in message and "North" in message and "(1, 1)" in message
    with pytest.raises(IllegalActionError, match="agent 1"):
        state.successor(1, STOP)
    with pytest.raises(IllegalActionError):
        state.successor(0, "Up")
    for agent in (2, -1):
        with pytest.raises(IllegalActionError, match="agent"):
            state.legal_actions(agent)
        with pytest.raises(IllegalActionError):
            state.successor(agent, STOP)
    assert state.successor(0, "East").pacman_position == (2, 1)  # a plain value also works


def test_successor_leaves_the_original_unchanged():
    state = start("%%%%%%%%\n%Po.1 2%\n%%%%%%%%\n")
    before = snapshot(state)
    after = state.successor(0, E).successor(1, W).successor(2, W).successor(0, E)
    assert snapshot(state) == before
    assert after.score == 708
    assert state.score == 0
    assert state.capsules == ((2, 1),) and state.food_count == 1
