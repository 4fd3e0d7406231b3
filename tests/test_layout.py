"""The layout parser: the format, and a clear LayoutError for every kind of bad input."""

import pytest

from pacman import LayoutError, load_layout, parse_layout
from pacman.layout import LayoutWarning, layout_names

MAZE = """\
%%%%%%%
%P.o 2%
%.%%%.%
%1 . G%
%%%%%%%
"""


def test_parse_positions_count_from_bottom_left():
    layout = parse_layout(MAZE, name="maze")
    assert (layout.width, layout.height) == (7, 5)
    assert layout.pacman_start == (1, 3)
    assert layout.food == ((1, 2), (2, 3), (3, 1), (5, 2))
    assert layout.capsules == ((3, 3),)
    assert layout.food_count == 4
    assert layout.is_wall(0, 0) and layout.is_wall(2, 2) and not layout.is_wall(1, 1)


def test_agents_ordered_by_index_then_x_then_y():
    # 'G' counts as index 1: the '1' at (1,1) and the 'G' at (5,1) tie on index and
    # are ordered by x; the '2' comes after both.
    layout = parse_layout(MAZE)
    assert layout.agent_starts == ((1, 3), (1, 1), (5, 1), (5, 3))
    assert layout.num_ghosts == 3


def test_same_index_ghosts_ordered_by_y_when_x_ties():
    layout = parse_layout("%%%%\n%G %\n%GP%\n%%%%\n")
    assert layout.ghost_starts == ((1, 1), (1, 2))


def test_crlf_and_trailing_whitespace_are_tolerated():
    crlf = MAZE.replace("\n", "  \r\n")
    assert parse_layout(crlf).text == parse_layout(MAZE).text
    assert parse_layout("\n\n" + MAZE + "\n\n\n").height == 5


def test_outside_the_grid_counts_as_wall():
    layout = parse_layout("P.\n..\n")
    assert layout.is_wall(-1, 0) and layout.is_wall(2, 1) and layout.is_wall(0, 2)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", "empty layout"),
        ("   \n\t\n", "empty layout"),
        ("%%%\n%.%\n%%%\n", "no Pacman"),
        ("%%%%\n%PP%\n%%%%\n", "maze:2:3: a second Pacman"),
        ("%%%%\n%P.%\n%%%\n", "maze:3: row is 3 cells wide but the first row (line 1) is 4; "
                                "a row may not be shorter than the first"),
        ("%%%%\n%P.%\n\n%%%%\n", "maze:3: row is 0 cells wide"),
        ("%%%%%\n%P%G%\n%%%%%\n", "maze:2:4: the ghost here is walled in"),
    ],
)
def test_bad_text_raises_layout_error_naming_the_place(text, expected):
    with pytest.raises(LayoutError) as info:
        parse_layout(text, name="maze")
    assert expected in str(info.value)


def test_bad_file_errors_name_the_file(tmp_path):
    empty = tmp_path / "empty.lay"
    empty.write_text("")
    binary = tmp_path / "binary.lay"
    binary.write_bytes(b"%%%\x00\x01\x02P")
    latin = tmp_path / "latin.lay"
    latin.write_bytes(b"%%%\n%P\xe9%\n")
    short = tmp_path / "short.lay"
    short.write_text("%%%%\n%P.%\n%%\n")
    cases = {
        str(empty): "empty layout",
        str(binary): "binary file",
        str(latin): "not a text layout",
        str(tmp_path): "is a directory",
        str(short): f"{short}:3: row is 2 cells wide",
    }
    for path, expected in cases.items():
        with pytest.raises(LayoutError) as info:
            load_layout(path)
        assert path in str(info.value) and expected in str(info.value)


def test_unreadable_file_is_a_layout_error(tmp_path, monkeypatch):
    locked = tmp_path / "locked.lay"
    locked.write_text("%%%\n%P%\n%%%\n")

    import pacman.files

    real_open = pacman.files.os.open

    def refuse(path, *args, **kwargs):
        if str(path) == str(locked):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(pacman.files.os, "open", refuse)
    with pytest.raises(LayoutError) as info:
        load_layout(locked)
    assert str(locked) in str(info.value) and "cannot read a layout (Permission denied)" in str(info.value)


def test_unknown_name_suggests_close_matches():
    with pytest.raises(LayoutError) as info:
        load_layout("meduim")
    message = str(info.value)
    assert "meduim: unknown layout" in message and "'medium'" in message


def test_load_by_name_and_path(tmp_path):
    medium = load_layout("medium")
    assert medium.name == "medium"
    assert load_layout("medium.lay").text == medium.text
    copy = tmp_path / "mine.lay"
    copy.write_text(medium.text)
    mine = load_layout(copy)
    assert mine.name == "mine" and mine.text == medium.text


def test_every_shipped_layout_round_trips_through_its_text():
    for name in layout_names():
        layout = load_layout(name)
        again = parse_layout(layout.text, name=name)
        assert (again.walls, again.food, again.capsules, again.agent_starts) == (
            layout.walls, layout.food, layout.capsules, layout.agent_starts)


def test_rows_are_read_the_classic_way_stripped_and_cut_to_the_first_rows_width(tmp_path):
    maze = tmp_path / "wide.lay"
    maze.write_text("  %%%%%\n%P..%%G\n\t%...%  x\n%%%%%\n")
    with pytest.warns(LayoutWarning) as caught:
        layout = load_layout(maze)
    assert layout.text == "%%%%%\n%P..%\n%...%\n%%%%%\n"
    assert layout.num_ghosts == 0 and layout.food_count == 5  # the 'G' beyond the width is ignored
    assert [str(w.message) for w in caught] == [
        "row is wider than the first row (line 1, 5 cells) (and 1 more row): the characters beyond column 5 "
        "are ignored, as the classic loader ignores them"]
    assert (caught[0].filename, caught[0].lineno) == (str(maze), 2)


def test_the_longer_row_warning_is_shown_once_per_file(tmp_path):
    import subprocess
    import sys

    for name in ("a.lay", "b.lay"):
        (tmp_path / name).write_text("%%%%\n%P.%%\n%%%%\n")
    code = "from pacman import load_layout\nfor name in ('a.lay', 'b.lay', 'a.lay', 'b.lay'): load_layout(name)\n"
    err = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         check=True).stderr
    assert err.count("a.lay:2: LayoutWarning: row is wider") == 1
    assert err.count("b.lay:2: LayoutWarning: row is wider") == 1


def test_a_classic_maze_name_is_a_file_of_the_user_or_an_error_naming_the_closest_shipped_layout(
        tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(LayoutError) as info:
        load_layout("mediumClassic")
    assert str(info.value) == (
        "mediumClassic: a CS188 maze, not shipped here (this project's mazes are its own); put your copy at "
        "layouts/mediumClassic.lay or give its path; the closest shipped layout is 'medium'")
    (tmp_path / "layouts").mkdir()
    (tmp_path / "layouts" / "mediumClassic.lay").write_text("%%%%%\n%P. %\n%%%%%\n")
    assert load_layout("mediumClassic").food_count == 1
    (tmp_path / "elsewhere.lay").write_text("%%%%%\n%P..%\n%%%%%\n")
    assert load_layout(str(tmp_path / "elsewhere.lay")).food_count == 2
