"""examples/layouts/squat-1.lay to squat-4.lay: the short, wide mazes docs/guide/strength.md names ("Short, wide
mazes"). Each has the shape the page says, and the page's batch commands run on it as a user runs them."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pacman import load_layout
from pacman.agents.expectimax import AUTO, AUTO_DEPTH, SMALL_MAZE_NODES, Nodes
from pacman.agents.small_mazes import SMALL_MAZE_CELLS, is_small_maze

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "guide" / "strength.md"
MAZES = [Path("examples") / "layouts" / f"squat-{n}.lay" for n in (1, 2, 3, 4)]


def _section() -> str:
    text = PAGE.read_text()
    found = re.search(r"<!-- figure squat-mazes -->(.*?)<!-- /figure squat-mazes -->", text, re.S)
    assert found, "docs/guide/strength.md no longer has the squat-mazes figure"
    return found[1]


@pytest.mark.parametrize("maze", MAZES, ids=lambda path: path.name)
def test_each_maze_is_seven_rows_three_ghosts_capsules_and_small(maze):
    layout = load_layout(str(ROOT / maze))
    assert layout.height == 7 and layout.num_ghosts == 3 and len(layout.capsules) >= 3
    region = layout.region(layout.pacman_start)
    cells = sum(layout.region((x, y)) == region for x in range(layout.width) for y in range(layout.height))
    # small, so the page's claim holds: every move searches under SMALL_MAZE_NODES, and not the near-ghost budget
    assert cells < SMALL_MAZE_CELLS and is_small_maze(layout)
    assert AUTO.on(layout) == Nodes(SMALL_MAZE_NODES, min_depth=AUTO_DEPTH)
    assert AUTO.on(layout, near=True) == AUTO.on(layout)


def test_the_page_names_each_maze_and_its_commands(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    from strength_table import REFERENCE_NODES

    section = _section()
    # the page names the first and the last; every squat maze shipped is one of them
    assert f"`{MAZES[0].as_posix()}` to `{MAZES[-1].name}`" in section
    assert sorted(path.name for path in (ROOT / "examples" / "layouts").glob("squat-*.lay")) == [
        maze.name for maze in MAZES]
    assert "pacman-ai batch --layout examples/layouts/squat-N.lay --games 400 --seed 100\n" in section
    directional = "pacman-ai batch --layout examples/layouts/squat-N.lay --ghosts directional"
    assert f"{directional} --games 100 --seed 100 --max-moves 500\n" in section
    assert f"{directional} --games 40 --seed 100 --max-moves 500\n" in section
    # the reference player is the kinds table's: REFERENCE_NODES nodes a move
    assert (f"{directional} --games 40 --seed 100 --max-moves 500 --agent-args node_limit={REFERENCE_NODES}\n"
            in section)
    text = " ".join(section.split())
    wins = [int(n) for n in re.search(r"default wins (\d+), (\d+), (\d+) and (\d+) of 400", text).groups()]
    shares = re.search(r"\(([\d.]+)%, ([\d.]+)%, ([\d.]+)% and ([\d.]+)%\)", text).groups()
    assert [float(share) for share in shares] == [100 * n / 400 for n in wins]


@pytest.mark.parametrize("maze", MAZES, ids=lambda path: path.name)
def test_the_pages_command_runs_from_a_fresh_folder(tmp_path, maze):
    """The page's command with two games of a small search (the page's 400 games take minutes, and the default's
    search takes minutes a game on the Python engine): the maze loads as the command line loads it, relative to
    the folder the user runs in, and its games are played to the end."""
    (tmp_path / maze).parent.mkdir(parents=True)
    shutil.copy(ROOT / maze, tmp_path / maze)
    done = subprocess.run([sys.executable, "-m", "pacman", "batch", "--layout", maze.as_posix(), "--games", "2",
                           "--seed", "100", "--agent-args", "node_limit=2000", "--json", "--quiet"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout)
    assert summary["games"] == 2 and summary["num_ghosts"] == 3 and summary["complete"]
