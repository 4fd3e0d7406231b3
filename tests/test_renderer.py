"""The renderer: frame shape and the colours at the places that matter (headless)."""

import numpy as np
import pygame
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


# -- layout of the frame on narrow layouts ------------------------------------------------------

TINY_STRIP = parse_layout("%%%\n%P%\n%%%\n", name="speck")  # smaller than any shipped layout


@pytest.mark.parametrize("name", ["test", "tiny", "speck", "medium"])
@pytest.mark.parametrize("zoom", [0.1, 0.25, 0.5, 1.0])
@pytest.mark.parametrize("panel", [False, True])
def test_banner_status_and_panel_fit_inside_the_frame(name, zoom, panel):
    from pacman.view.renderer import cell_pixels, frame_size

    layout = TINY_STRIP if name == "speck" else load_layout(name)
    renderer = Renderer(layout, cell=cell_pixels(zoom), panel=panel)
    assert renderer.size == frame_size(layout, cell_pixels(zoom), panel=panel)
    state = GameState.initial(layout)
    values = {Action.NORTH: -20348.0, Action.SOUTH: -20360.5, Action.EAST: -1e9, Action.WEST: -20348.25,
              Action.STOP: float("-inf")}
    frame = renderer.frame(state, values=values, chosen=Action.NORTH, move=12345,
                           info={"depth": 2, "nodes": 123456789, "ms": 12345.6, "evaluation": "a_long_name_here"},
                           banner="timed-out after a very long game")
    height, width, _ = frame.shape
    window = pygame.Rect(0, 0, width, height)
    layout_rects = renderer.last_layout
    assert window.contains(layout_rects["status"]) and window.contains(layout_rects["banner"])
    board = pygame.Rect(renderer.board_offset, renderer.board_size)
    assert window.contains(board)
    if panel:
        panel_area = pygame.Rect(renderer.panel_left, 0, width - renderer.panel_left, renderer.area_size[1])
        assert all(panel_area.contains(rect) for _, rect in layout_rects["panel"])
        assert not layout_rects["banner"].colliderect(panel_area)
        tops = [rect.top for _, rect in layout_rects["panel"]]
        assert tops == sorted(tops)  # line after line, nothing drawn over the status line
        assert max(rect.bottom for _, rect in layout_rects["panel"]) <= renderer.area_size[1]
    assert layout_rects["status"].top >= renderer.area_size[1]  # the status line is below the board


def test_the_panel_shows_values_relative_to_the_best_and_names_the_evaluation():
    renderer = Renderer(MAZE, panel=True)
    values = {Action.EAST: -20348.0, Action.WEST: -20360.5, Action.STOP: -20349.0}
    renderer.frame(GameState.initial(MAZE), values=values, chosen=Action.EAST,
                   info={"depth": 2, "nodes": 10, "ms": 1.0, "evaluation": "better"})
    texts = [text for text, _ in renderer.last_layout["panel"]]
    assert "evaluation: better" in texts
    rows = texts[texts.index("vs best") + 1:]
    assert rows[:6] == ["East", "0.0", "West", "-12.5", "Stop", "-1.0"]
    assert not any("20,34" in text or "20348" in text for text in texts)


def test_relative_values_format():
    from pacman.view.renderer import _relative

    assert _relative(5.0, 5.0) == "0.0" and _relative(5.0, 5.04) == "0.0"
    assert _relative(-7.5, 5.0) == "-12.5" and _relative(-995.0, 5.0) == "-1,000.0"
    assert _relative(float("-inf"), 5.0) == "-inf"


def test_arrows_stay_with_pacman_while_he_glides():
    wide = parse_layout("%%%%%%%%%\n%       %\n%   P   %\n%       %\n%%%%%%%%%\n", name="open")
    renderer = Renderer(wide, panel=False)
    start = GameState.initial(wide)
    moved = start.successor(0, Action.EAST)
    values = {Action.NORTH: 1.0, Action.SOUTH: 0.0, Action.EAST: 5.0, Action.WEST: 2.0, Action.STOP: 0.5}
    green = np.array(COLOURS["win"], dtype=np.uint8)

    def arrow_columns(fraction):
        frame = renderer.frame(moved, previous=start, fraction=fraction, pacman_direction=Action.EAST,
                               values=values, chosen=Action.NORTH)
        return np.nonzero(np.all(frame == green, axis=2).any(axis=0))[0]

    # The chosen (green) arrow points north from Pacman's centre: its columns follow him.
    for fraction in (0.0, 0.25, 0.5, 1.0):
        x, _ = cell_center(renderer, (4 + fraction, 2))
        columns = arrow_columns(fraction)
        assert columns.size and abs((columns.min() + columns.max()) / 2 - x) <= 1.0, (fraction, columns, x)


def test_the_small_font_spaces_letters_evenly():
    """The values panel's text: no gap inside a word wider than the font's spacing ("bet ter" was one)."""
    import pygame

    from pacman import load_layout
    from pacman.view.renderer import Renderer

    renderer = Renderer(load_layout("small"), panel=True)
    label = renderer.small_font.render("better", True, (255, 255, 255))
    alpha = pygame.surfarray.array_alpha(label)
    inked = (alpha > 100).any(axis=1)
    first, last = inked.argmax(), len(inked) - inked[::-1].argmax()
    gaps, run = [], 0
    for column in inked[first:last]:
        if column:
            if run:
                gaps.append(run)
            run = 0
        else:
            run += 1
    assert max(gaps, default=0) <= 2, gaps


def test_the_panel_says_what_the_agent_is_and_times_under_a_millisecond_in_microseconds():
    import pygame

    from pacman import GameState, load_layout
    from pacman.agents import GreedyAgent
    from pacman.view.renderer import Renderer, agent_label, duration_text

    assert duration_text(0.0123) == "12 \u00b5s" and duration_text(0.9994) == "999 \u00b5s"
    assert duration_text(1.0) == "1.0 ms" and duration_text(1234.56) == "1,234.6 ms"
    assert agent_label(GreedyAgent()) == "agent: GreedyAgent"
    layout = load_layout("small")
    renderer = Renderer(layout, panel=True)
    renderer.agent = agent_label(GreedyAgent())
    surface = pygame.Surface(renderer.size)
    renderer.draw(surface, GameState.initial(layout), info={"depth": 2, "nodes": 10, "ms": 0.25, "evaluation": None})
    texts = [text for text, _ in renderer.last_layout["panel"]]
    assert "agent: GreedyAgent" in texts and "time   250 \u00b5s" in texts
    assert not any("?" in text for text in texts)


def test_the_panel_says_when_the_agent_remembered_its_move_rather_than_searched():
    from pacman.agents import ExpectimaxAgent
    from pacman.agents.ghosts import RandomGhost

    from pacman.view.renderer import search_view
    agent = ExpectimaxAgent(depth=None, node_limit=300)
    agent.reset(None, [RandomGhost(i) for i in range(1, MAZE.num_ghosts + 1)], MAZE)
    state = GameState.initial(MAZE)
    shown = []
    for _ in range(2):  # the same position twice: searched, then remembered
        agent.get_action(state)
        view = search_view(agent)
        renderer = Renderer(MAZE, panel=True)
        renderer.frame(state, values=view["values"], chosen=view["chosen"], info=view["info"])
        shown.append([text for text, _ in renderer.last_layout["panel"] if text.startswith("nodes")])
    assert view["info"]["cached"] is True and view["info"]["nodes"] == 0
    assert shown[0] != ["nodes  0 (remembered)"] and not shown[0][0].endswith("(remembered)")
    assert shown[1] == ["nodes  0 (remembered)"]
