"""The terminal view and the shipped palette it draws with."""

import io
import subprocess
import sys

from pacman import Action, GameState, load_layout, parse_layout
from pacman.resources import palette
from pacman.view.text import TextDisplay, render_board


def test_the_terminal_view_loads_without_pygame():
    code = "import sys, pacman.view.text; print('pygame' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


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
    from pacman.agents import GreedyAgent

    result = run_game(load_layout("test"), GreedyAgent(), [], seed=0, display=TextDisplay(stream=out))
    text = out.getvalue()
    assert text.count("score") == result.moves + 2  # the start, each round, the result line
    assert text.rstrip().endswith(f"won: score {result.score} after {result.moves} moves (seed 0)")


def crowded_layout(ghosts=12):
    """A layout with `ghosts` ghosts in a row (digits only go to 4, so they are Gs)."""
    width = ghosts + 4
    rows = ["%" * width, "%P" + "." * (width - 3) + "%", "%." + "G" * ghosts + ".%", "%" * width]
    return parse_layout("\n".join(rows) + "\n", name="crowded")


def test_columns_line_up_with_twelve_ghosts():
    layout = crowded_layout(12)
    state = GameState.initial(layout)
    assert state.num_agents == 13
    lines = render_board(state).splitlines()
    assert [len(line) for line in lines] == [layout.width] * layout.height
    assert lines[2] == "%.123456789ABC.%"
    for index, (x, y) in enumerate(state.ghost_positions, start=1):
        from pacman.view.text import ghost_glyph

        assert lines[layout.height - 1 - y][x] == ghost_glyph(index)
    # In colour, the visible characters (escape codes removed) line up the same way.
    import re

    coloured = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in render_board(state, color=True).splitlines()]
    assert coloured == lines


def test_ghost_glyphs_are_single_distinct_characters():
    from pacman.view.text import ghost_glyph

    glyphs = [ghost_glyph(i) for i in range(1, 40)]
    assert all(len(g) == 1 for g in glyphs)
    assert len(set(glyphs[:32])) == 32 and not {"G", "P", "g", "o", ".", "%"} & set(glyphs)
    assert glyphs[9:12] == ["A", "B", "C"] and glyphs[-1] == "*"


def test_a_twelve_ghost_game_in_the_terminal_through_the_cli(tmp_path):
    """As a user would: a .lay file with 12 Gs, played in the terminal view by the command line."""
    import subprocess
    import sys

    layout = tmp_path / "crowded.lay"
    layout.write_text(crowded_layout(12).text)
    proc = subprocess.run([sys.executable, "-m", "pacman", "play", "--layout", str(layout), "--pacman", "random",
                           "--display", "text", "--max-moves", "3", "--seed", "1"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    boards = [line for line in proc.stdout.splitlines() if line.startswith("%")]
    assert boards and all(len(line) == 16 for line in boards)
