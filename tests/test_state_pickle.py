"""Value semantics across pickle and processes: a small pickle, equal and same-hash after a round trip."""

import gc
import pickle
import subprocess
import sys

from pacman import GameState, load_layout, parse_layout
from pacman.layout import Layout
from pacman.state import _BOARDS, BOARD


def _played(layout, moves=12):
    """A state some moves into a game: every agent takes its first legal action in turn."""
    state = GameState.initial(layout)
    for _ in range(moves):
        for agent in range(state.num_agents):
            if state.is_terminal():
                return state
            state = state.successor(agent, state.legal_actions(agent)[0])
    return state


def test_a_pickled_state_of_medium_is_small_and_equal_after_a_round_trip():
    state = _played(load_layout("medium"))
    data = pickle.dumps(state)
    assert len(data) < 2048, len(data)
    again = pickle.loads(data)
    assert again == state and hash(again) == hash(state)
    assert again.successors(0) == state.successors(0)


def test_two_loads_of_one_layout_give_equal_layouts_and_equal_states():
    first, second = load_layout("medium"), load_layout("medium")
    assert first == second and hash(first) == hash(second)
    assert GameState.initial(first) == GameState.initial(second)
    assert hash(GameState.initial(first)) == hash(GameState.initial(second))
    assert len({first, second}) == 1


def test_layouts_differ_by_text_name_or_path():
    text = "%%%%%\n%P.G%\n%%%%%\n"
    base = parse_layout(text, name="a")
    assert base != parse_layout(text, name="b")
    assert base != parse_layout(text, name="a", path="a.lay")
    assert base != parse_layout(text.replace(".", " "), name="a")
    assert GameState.initial(base) != GameState.initial(parse_layout(text, name="b"))


def test_a_layout_pickles_as_its_text_name_and_path():
    layout = load_layout("medium")
    GameState.initial(layout)  # builds the move tables on the layout: they must not travel
    data = pickle.dumps(layout)
    assert len(data) < len(layout.text) + 400
    again = pickle.loads(data)
    assert isinstance(again, Layout) and again == layout
    assert (again.walls, again.food, again.agent_starts) == (layout.walls, layout.food, layout.agent_starts)


def test_unpickling_many_states_builds_the_board_once():
    states = [_played(load_layout("small"), moves) for moves in range(1, 6)]
    blobs = [pickle.dumps(s) for s in states]
    del states
    restored = [pickle.loads(b) for b in blobs]
    assert len({id(s.layout) for s in restored}) == 1
    assert len({id(tuple.__getitem__(s, BOARD)) for s in restored}) == 1  # one board for all


def test_boards_of_layouts_no_longer_used_go_away():
    gc.collect()
    before = len(_BOARDS)
    for i in range(20):
        layout = parse_layout("%%%%%%\n%P. G%\n%%%%%%\n", name=f"gone{i}")
        GameState.initial(layout).successors(0)
    del layout
    gc.collect()
    assert len(_BOARDS) <= before


_CHILD = """
import pickle, sys
from pacman import GameState, load_layout
state = pickle.loads(sys.stdin.buffer.read())
mine = GameState.initial(load_layout("medium"))
assert state.layout == mine.layout
following = state.successors(0)
sys.stdout.buffer.write(pickle.dumps((state, following, hash(state) == hash(pickle.loads(pickle.dumps(state))))))
"""


def test_a_state_round_trips_through_another_process():
    state = _played(load_layout("medium"))
    done = subprocess.run([sys.executable, "-c", _CHILD], input=pickle.dumps(state),
                          capture_output=True, check=True, timeout=60)
    back, following, same_hash_there = pickle.loads(done.stdout)
    assert back == state and hash(back) == hash(state)
    assert following == state.successors(0)
    assert same_hash_there
