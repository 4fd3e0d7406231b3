"""The terminal view and the shipped palette it draws with."""

import io

from pacman import Action, GameState, load_layout, parse_layout
from pacman.resources import palette
from pacman.textview import TextDisplay, render_board


def test_palette_has_every_colour_as_rgb():
    colours = palette()
    for key in ("background", "wall", "food", "capsule", "pacman", "scared", "text"):
        assert len(colours[key]) == 3 and all(0 <= c <= 255 for c in colours[key])
    assert len(colours["ghosts"]) == 4


def test_board_marks_agents_and_scared_ghosts():
    layout = parse_layout("%%%%%%%\n%Po  1%\n%%%%%%%\n")
    state = GameState.initial(layout)
    assert render_board(state) == "%%%%%%%\n%Po  1%\n%%%%%%%"
    scared = state.successor(0, Action.EAST).successor(1, Action.WEST)  # half-way from x=5 to x=4.5
    assert scared.ghost_positions == ((4.5, 1),)
    assert render_board(scared) == "%%%%%%%\n% P g %\n%%%%%%%"


def test_colour_output_uses_the_palette():
    state = GameState.initial(load_layout("test"))
    r, g, b = palette()["pacman"]
    coloured = render_board(state, color=True)
    assert f"38;2;{r};{g};{b}mP" in coloured
    assert render_board(state, color=False) == state.to_text().replace("G", "1")


def test_display_into_a_pipe_writes_each_round_and_the_result():
    out = io.StringIO()
    from pacman import run_game
    from agents import GreedyAgent

    result = run_game(load_layout("test"), GreedyAgent(), [], seed=0, display=TextDisplay(stream=out))
    text = out.getvalue()
    assert text.count("score") == result.moves + 2  # the start, each round, the result line
    assert text.rstrip().endswith(f"won: score {result.score} after {result.moves} moves (seed 0)")
