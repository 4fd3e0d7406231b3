"""The renderer: frame shape and the colours at the places that matter (headless)."""

import numpy as np
import pytest

from pacman import Action, GameState, load_layout, parse_layout
from pacman.resources import palette
from pacman.view.renderer import Renderer, cell_center

COLOURS = palette()
MAZE = parse_layout(
    "%%%%%%%%%%\n"
    "%P.o   1.%\n"
    "%%%%%%%%%%\n",
    name="strip",
)


def pixel(frame, renderer, position, dx=0.0, dy=0.0):
    x, y = cell_center(renderer, position)
    return tuple(int(v) for v in frame[int(y + dy * renderer.cell), int(x + dx * renderer.cell)])


def test_frame_shape_and_type():
    renderer = Renderer(load_layout("medium"))
    frame = renderer.frame(GameState.initial(load_layout("medium")))
    assert frame.dtype == np.uint8 and frame.shape == (renderer.size[1], renderer.size[0], 3)
    assert renderer.size[0] == 20 * 32 and renderer.size[1] > 11 * 32
    assert Renderer(load_layout("medium"), panel=True).size[0] > renderer.size[0]


def test_colours_at_pacman_ghost_food_and_empty_cells():
    renderer = Renderer(MAZE)
    state = GameState.initial(MAZE)
    frame = renderer.frame(state)
    assert pixel(frame, renderer, (1, 1), dx=-0.2) == COLOURS["pacman"]  # behind the mouth
    assert pixel(frame, renderer, (7, 1), dy=0.3) == COLOURS["ghosts"][0]  # below the eyes
    assert pixel(frame, renderer, (2, 1)) == COLOURS["food"]
    assert pixel(frame, renderer, (3, 1)) == COLOURS["capsule"]
    assert pixel(frame, renderer, (5, 1)) == COLOURS["background"]


def test_walls_are_outlines_not_grey_squares():
    renderer = Renderer(MAZE)
    frame = renderer.frame(GameState.initial(MAZE))
    x, y = cell_center(renderer, (3, 2))  # a wall in the top row, joined left and right
    block = frame[int(y - 16):int(y + 16), int(x - 16):int(x + 16)].reshape(-1, 3)
    colours = {tuple(int(v) for v in p) for p in block}
    assert COLOURS["wall"] in colours and COLOURS["wall_fill"] in colours and COLOURS["background"] in colours


def scared_state():
    """Pacman eats the food then the capsule; the ghost, coming west, is then scared."""
    state = GameState.initial(MAZE).successor(0, Action.EAST).successor(1, Action.WEST)
    return state.successor(0, Action.EAST)


def test_scared_ghost_is_blue_then_flashes():
    state = scared_state()
    renderer = Renderer(MAZE)
    assert state.scared_timers == (40,) and state.ghost_positions == ((6, 1),)
    frame = renderer.frame(state)
    assert pixel(frame, renderer, (6, 1), dy=0.3) == COLOURS["scared"]
    apart = parse_layout("%%%%%%%%\n%Po.%1 %\n%%%%%%%%\n", name="apart")  # the ghost cannot reach Pacman
    late = GameState.initial(apart).successor(0, Action.EAST)
    while late.scared_timers[0] > 5:
        late = late.successor(1, late.legal_actions(1)[0]).successor(0, Action.STOP)
    renderer = Renderer(apart)
    position = late.ghost_positions[0]
    flashing = renderer.frame(late, tick=1)
    steady = renderer.frame(late, tick=0)
    assert pixel(flashing, renderer, position, dy=0.3) == COLOURS["scared_flash"]
    assert pixel(steady, renderer, position, dy=0.3) == COLOURS["scared"]


def test_half_cell_ghost_and_interpolated_pacman_are_drawn_half_way():
    after = scared_state().successor(1, Action.WEST)
    assert after.ghost_positions == ((5.5, 1),)
    renderer = Renderer(MAZE)
    frame = renderer.frame(after)
    assert pixel(frame, renderer, (5.5, 1), dy=0.3) == COLOURS["scared"]
    start = GameState.initial(MAZE)
    moved = start.successor(0, Action.EAST)
    half = renderer.frame(moved, previous=start, fraction=0.5, pacman_direction=Action.EAST)
    assert pixel(half, renderer, (1.5, 1), dx=-0.2) == COLOURS["pacman"]


@pytest.mark.parametrize("chosen", [Action.EAST, Action.STOP])
def test_values_panel_highlights_the_chosen_action(chosen):
    renderer = Renderer(MAZE, panel=True)
    state = GameState.initial(MAZE)
    values = {Action.EAST: 9.0, Action.STOP: -1.0}
    frame = renderer.frame(state, values=values, chosen=chosen, info={"depth": 2, "nodes": 10, "ms": 1.0})
    panel = frame[:, renderer.panel_left:]
    highlighted = np.all(panel == np.array(COLOURS["pacman"], dtype=np.uint8), axis=2)
    rows = np.nonzero(highlighted.any(axis=1))[0]
    assert rows.size > 0
    first_row = 90 - 4 if chosen is Action.EAST else 90 + 30 - 4
    assert rows.min() == first_row  # the box around the chosen line
