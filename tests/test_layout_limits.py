"""Layouts too large or too crowded to play are refused before anything large is built; odd characters are named."""

import json
import os
import subprocess
import sys
import warnings

import pytest

from pacman.agents import (
    MAX_CORE_SEARCH_LEAVES,
    MAX_SEARCH_LEAVES,
    AlphaBetaAgent,
    ExpectimaxAgent,
    GreedyAgent,
    check_search_size,
    estimated_leaves,
    make_ghosts,
)
from pacman import AgentSpecError, LayoutError, load_layout, parse_layout, run_game
from pacman.distances import DistanceTable
from pacman.agents.compiled import core_status
from pacman.agents.ghosts import RandomGhost
from pacman.layout import MAX_CELLS, LayoutWarning, layout_names

#: The limit and its wording for the default (pruned) agent where these tests run: the core unless it is off.
ON_CORE = core_status()[0]
DEFAULT_LIMIT = "limit 3e+10 pruned, on the compiled core" if ON_CORE else "limit 1e+08 in Python"


def _open_maze(width, height, ghosts=""):
    rows = ["%" * width, "%P" + ghosts + " " * (width - 3 - len(ghosts)) + "%"]
    rows += ["%" + "." * (width - 2) + "%" for _ in range(height - 3)]
    rows.append("%" * width)
    return "\n".join(rows) + "\n"


def test_max_cells_is_4096_and_every_shipped_layout_fits():
    assert MAX_CELLS == 4096
    assert max(load_layout(n).width * load_layout(n).height for n in layout_names()) <= 28 * 28


def test_a_layout_at_the_limit_loads_and_one_past_it_is_refused():
    assert parse_layout(_open_maze(64, 64)).width == 64
    with pytest.raises(LayoutError) as info:
        parse_layout(_open_maze(65, 64), name="big")
    assert str(info.value) == "big: 65 x 64 = 4,160 cells is too large (limit 4,096 cells, such as 64 x 64)"


def test_a_huge_layout_is_refused_by_the_cli_in_one_line(tmp_path):
    (tmp_path / "huge.lay").write_text(_open_maze(500, 500))
    proc = subprocess.run([sys.executable, "-m", "pacman", "play", "--layout", "huge.lay", "--display", "none"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("pacman-ai: huge.lay: 500 x 500 = 250,000 cells is too large "
                                   "(limit 4,096 cells, such as 64 x 64)")


def test_large_distance_tables_share_the_matrix():
    layout = parse_layout(_open_maze(40, 30))  # 1,200 cells: rows are views, not a second copy
    table = DistanceTable.of(layout)
    assert isinstance(table.rows[0], memoryview)
    assert table.distance((1, 1), (38, 28)) == 37 + 27 == table.rows[table.cell((1, 1))][table.cell((38, 28))]
    small = DistanceTable.of(load_layout("medium"))
    assert isinstance(small.rows[0], list)


@pytest.mark.parametrize("char", list("0567895"))
def test_digits_that_are_not_ghosts_are_refused(char):
    with pytest.raises(LayoutError) as info:
        parse_layout(f"%%%%%\n%P.{char}%\n%%%%%\n", name="odd.lay")
    assert str(info.value).startswith(f"odd.lay:2:4: {char!r} is not a layout character: ghosts are 'G' or '1'-'4'")


def test_digit_errors_name_the_file_line_and_column(tmp_path):
    path = tmp_path / "five.lay"
    path.write_text("\n%%%%%%\n%P  .%\n%  5 %\n%%%%%%\n")
    with pytest.raises(LayoutError, match=r"five.lay:4:4: '5' is not a layout character"):
        load_layout(str(path))


def test_other_characters_are_empty_and_a_bom_is_dropped():
    layout = parse_layout("\ufeff%%%%%%\n%P\tx.%\n%%%%%%\n")
    assert layout.width == 6 and layout.food == ((4, 1),) and (2, 1) not in layout.walls


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_given_as_a_layout_is_refused(tmp_path):
    fifo = tmp_path / "pipe.lay"
    os.mkfifo(fifo)
    with pytest.raises(LayoutError, match="is a FIFO"):
        load_layout(str(fifo))


def test_estimated_leaves_are_exact_powers():
    medium = load_layout("medium")
    assert round(estimated_leaves(medium, 2, 2)) == (5 * 3**2) ** 2 == 2025
    assert round(estimated_leaves(load_layout("tricky"), 4, 3)) == (5 * 3**4) ** 3
    corridor = parse_layout("%%%%%%\n%P  G%\n%%%%%%\n")
    assert round(estimated_leaves(corridor, 1, 3)) == (3 * 1) ** 3  # two open sides: 3 for Pacman, 1 per ghost


def test_crowded_searches_are_refused_before_the_first_move():
    crowded = parse_layout(_open_maze(20, 8, ghosts="G" * 10), name="crowd")
    agent = ExpectimaxAgent()
    with pytest.raises(AgentSpecError) as info:
        run_game(crowded, agent, make_ghosts("random", 10), seed=0, max_moves=3)
    assert str(info.value) == ("ExpectimaxAgent: depth 2 with 10 ghosts on 'crowd' is too large a search "
                               f"(about 8.7e+10 leaves per move, {DEFAULT_LIMIT}); use a smaller depth (depth), "
                               "fewer ghosts (num_ghosts), or a time limit (time_limit)")
    with pytest.raises(AgentSpecError, match="depth 7 with 2 ghosts"):
        check_search_size(AlphaBetaAgent(depth=7), crowded, 2)  # 3.7e11
    check_search_size(ExpectimaxAgent(depth=2), crowded, 6)  # 1.3e7: allowed
    check_search_size(ExpectimaxAgent(depth=None, time_limit=0.05), crowded, 10)  # depth 1: 3e5
    check_search_size(GreedyAgent(), crowded, 10)  # not a search
    result = run_game(crowded, ExpectimaxAgent(depth=1), make_ghosts("random", 3), seed=0, max_moves=2)
    assert result.cut_off and result.moves == 2


class _OwnGhost(RandomGhost):
    """A ghost model the core does not know: its searches run in Python."""


def test_the_limit_is_the_engines():
    tricky = load_layout("tricky")
    leaves = estimated_leaves(tricky, 4, 4)
    assert MAX_SEARCH_LEAVES < leaves < MAX_CORE_SEARCH_LEAVES
    python_limit = "(about 2.7e+10 leaves per move, limit 1e+08 in Python)"
    with pytest.raises(AgentSpecError) as info:
        check_search_size(ExpectimaxAgent(depth=4, engine="python"), tricky, 4)
    assert python_limit in str(info.value)
    with pytest.raises(AgentSpecError) as info:
        check_search_size(ExpectimaxAgent(depth=4, pruning=False), tricky, 4)
    assert "(about 2.7e+10 leaves per move, limit 1e+08 unpruned)" in str(info.value)
    # Ghosts the core cannot model put the search in Python, and the game's ghosts decide.
    own = [_OwnGhost(i) for i in range(1, 5)]
    with pytest.raises(AgentSpecError) as info:
        check_search_size(ExpectimaxAgent(depth=4), tricky, 4, own)
    assert python_limit in str(info.value)
    with pytest.raises(AgentSpecError) as info:
        run_game(tricky, ExpectimaxAgent(depth=4), own, seed=0, max_moves=1)
    assert python_limit in str(info.value)
    with pytest.raises(AgentSpecError, match=r"depth 5 with 2 ghosts on 'medium' .* limit 1e\+08 in Python"):
        check_search_size(ExpectimaxAgent(depth=5, engine="python"), load_layout("medium"), 2)
    # Depth 5 is past the core's limit as well.
    with pytest.raises(AgentSpecError, match=r"depth 5 with 4 ghosts .* limit 3e\+10 pruned, on the compiled core"
                       if ON_CORE else r"depth 5 with 4 ghosts .* limit 1e\+08 in Python"):
        check_search_size(ExpectimaxAgent(depth=5), tricky, 4)


@pytest.mark.skipif(not ON_CORE, reason="the compiled core is off or not built: searches run in Python")
def test_the_core_takes_depth_4_on_every_shipped_layout():
    for name in layout_names():
        layout = load_layout(name)
        check_search_size(ExpectimaxAgent(depth=4), layout, layout.num_ghosts)
        check_search_size(AlphaBetaAgent(depth=4), layout, layout.num_ghosts)
    result = run_game(load_layout("tricky"), ExpectimaxAgent(depth=4), make_ghosts("random", 4), seed=0, max_moves=2)
    assert result.moves == 2


def test_every_shipped_layout_allows_depth_3():
    for name in layout_names():
        layout = load_layout(name)
        assert estimated_leaves(layout, layout.num_ghosts, 3) <= MAX_SEARCH_LEAVES, name


def test_the_cli_refuses_a_crowded_search_the_user_asked_for_in_one_line(tmp_path):
    (tmp_path / "crowd.lay").write_text(_open_maze(20, 8, ghosts="G" * 10))
    proc = subprocess.run([sys.executable, "-m", "pacman", "play", "--layout", "crowd.lay", "--display", "none",
                           "--agent-args", "depth=2"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "too large a search" in lines[0] and DEFAULT_LIMIT in lines[0], lines


def test_the_cli_plays_depth_4_on_tricky_where_the_core_runs_and_refuses_depth_5(tmp_path):
    def play(depth):
        return subprocess.run([sys.executable, "-m", "pacman", "play", "--layout", "tricky", "--display", "none",
                               "--agent-args", f"depth={depth}", "--max-moves", "2", "--seed", "1"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)
    four, five = play(4), play(5)
    assert five.returncode == 2 and five.stderr.count("\n") == 1
    assert "depth 5 with 4 ghosts on 'tricky' is too large a search" in five.stderr and DEFAULT_LIMIT in five.stderr
    if ON_CORE:
        assert four.returncode == 0 and "cut off after 2 Pacman moves" in four.stdout, four.stderr
    else:
        assert four.returncode == 2 and "limit 1e+08 in Python" in four.stderr


def test_the_default_agent_plays_a_crowded_maze_under_a_time_budget_and_says_so_once(tmp_path):
    (tmp_path / "crowd.lay").write_text(_open_maze(20, 8, ghosts="G" * 10))
    proc = subprocess.run([sys.executable, "-m", "pacman", "play", "--layout", "crowd.lay", "--display", "none",
                           "--max-moves", "3", "--seed", "1"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    notes = proc.stderr.strip().splitlines()
    assert len(notes) == 1 and "time_limit=0.05" in notes[0] and "10 ghosts" in notes[0], notes
    assert "cut off after 3 Pacman moves" in proc.stdout


@pytest.mark.parametrize("name, message", [
    ("a\0b", "layout 'a\\x00b': a name or path cannot contain a NUL character"),
    (123, "layout 123: expected a shipped name or a path"),
    ("~no_such_user_here/x.lay", "~no_such_user_here/x.lay: unknown layout"),
    ("x" * 5000, "x" * 200 + "...: unknown layout"),
])
def test_odd_layout_names_are_layout_errors(name, message):
    with pytest.raises(LayoutError) as info:
        load_layout(name)
    assert str(info.value).startswith(message)


def test_layout_text_must_be_text():
    with pytest.raises(LayoutError, match="layout text must be a str, got bytes"):
        parse_layout(b"%%%\n%P%\n%%%\n")


def test_a_one_cell_layout_is_an_endless_game_cut_off_at_once():
    result = run_game(parse_layout("P"), GreedyAgent(), [], seed=0)
    assert result.cut_off and result.moves == 0 and "no food" in result.error


def test_a_course_folder_layout_comes_before_the_shipped_one(tmp_path, monkeypatch):
    (tmp_path / "layouts").mkdir()
    (tmp_path / "layouts" / "mine.lay").write_text("%%%%%\n%P..%\n%%%%%\n")
    (tmp_path / "layouts" / "medium.lay").write_text("%%%%\n%P.%\n%%%%\n")
    monkeypatch.chdir(tmp_path)
    mine = load_layout("mine")
    assert (mine.name, mine.food_count, mine.path) == ("mine", 2, os.path.join("layouts", "mine.lay"))
    assert load_layout("mine.lay").food_count == 2
    assert load_layout("medium").width == 4  # the course's own maze, not the shipped one
    assert load_layout("small").width > 4


def test_a_lay_file_in_the_working_directory_is_read_not_the_shipped_maze_of_its_name(tmp_path, monkeypatch):
    """`load_layout("pocket.lay")` with ./pocket.lay present is that file (it once loaded the shipped pocket)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pocket.lay").write_text("%%%%%%\n%P...%\n%%%%%%\n")
    mine = load_layout("pocket.lay")
    assert (mine.name, mine.food_count, mine.width, mine.path) == ("pocket", 3, 6, "pocket.lay")
    with pytest.warns(LayoutWarning, match=r"^not read: layout 'pocket' is the shipped maze of that name; to play "
                                           r"this file instead, give its file name \(pocket\.lay\)$") as caught:
        shipped = load_layout("pocket")
    assert caught[0].filename == "pocket.lay"  # shown as "pocket.lay:1: LayoutWarning: not read: ..."
    assert shipped.text != mine.text and shipped.path.endswith(os.path.join("layouts", "pocket.lay"))
    assert load_layout("small.lay").width > 6  # no such file here: the shipped one, as before


def test_a_copy_of_the_shipped_maze_beside_it_is_not_warned_about(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pocket.lay").write_text(load_layout("pocket").text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_layout("pocket").name == "pocket"


def test_the_cli_reads_the_lay_file_it_is_given_in_a_fresh_folder(tmp_path):
    (tmp_path / "tiny.lay").write_text("%%%%%\n%P.G%\n%%%%%\n")
    done = subprocess.run([sys.executable, "-m", "pacman", "play", "--layout", "tiny.lay", "--display", "none",
                           "--seed", "1", "--max-moves", "20", "--json"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    game = json.loads(done.stdout)
    # Its one dot is next to Pacman: eaten on the first move (10 + 500 - 1); the shipped `tiny` has 9 dots.
    assert (game["layout"], game["won"], game["moves"], game["score"]) == ("tiny", True, 1, 509)
