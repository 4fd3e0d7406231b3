"""examples/layouts/narrow.lay: the maze docs/guide/strength.md names where the default is short-sighted against
random ghosts ("Narrow corridors"). Its shape is what the page says, and its games are the page's."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pacman import load_layout
from pacman.agents.expectimax import AUTO, AUTO_DEPTH, NEAR_GHOST_NODES, Depth, Nodes
from pacman.agents.small_mazes import is_small_maze

ROOT = Path(__file__).resolve().parent.parent
LAYOUT = Path("examples") / "layouts" / "narrow.lay"
PAGE = ROOT / "docs" / "guide" / "strength.md"


def _claims() -> dict[str, int]:
    """The games the page says each depth wins, out of 200: {"default": N, "2": N, "3": N, "4": N}."""
    text = " ".join(PAGE.read_text().split())
    found = re.search(r"Of 200 games the default wins (\d+)\. A fixed depth wins fewer: depth 2 wins (\d+), "
                      r"depth 3 wins (\d+) and depth 4 wins (\d+)", text)
    assert found, "docs/guide/strength.md no longer states the narrow maze's games"
    return {"default": int(found[1]), "2": int(found[2]), "3": int(found[3]), "4": int(found[4])}


def test_the_maze_has_three_ghosts_three_capsules_and_corridors_one_cell_wide():
    """The page's four commands are those the slow test runs; the maze is as the page draws it."""
    text = PAGE.read_text()
    for depth in ("", " --agent-args depth=2", " --agent-args depth=3", " --agent-args depth=4"):
        assert f"pacman-ai batch --layout {LAYOUT.as_posix()} --games 200 --seed 0{depth}\n" in text
    layout = load_layout(str(ROOT / LAYOUT))
    assert layout.num_ghosts == 3 and len(layout.capsules) == 3
    assert "three ghosts, three capsules" in " ".join(PAGE.read_text().split())
    rows = layout.text.strip().splitlines()
    open_cell = [[ch != "%" for ch in row] for row in rows]
    blocks = [(x, y) for y in range(len(rows) - 1) for x in range(len(rows[y]) - 1)
              if open_cell[y][x] and open_cell[y][x + 1] and open_cell[y + 1][x] and open_cell[y + 1][x + 1]]
    assert blocks == []  # no 2x2 room anywhere: every corridor is one cell wide
    # not a small maze: against random ghosts the default searches AUTO_DEPTH plies there, deeper near a ghost
    assert not is_small_maze(layout) and AUTO.on(layout) == Depth(AUTO_DEPTH)
    assert AUTO.on(layout, near=True) == Nodes(NEAR_GHOST_NODES, min_depth=AUTO_DEPTH)


@pytest.mark.slow
@pytest.mark.parametrize("depth", ["default", "2", "3", "4"])
def test_the_pages_commands_win_the_games_it_states(tmp_path, depth):
    """The page's batch commands, run as a user runs them from a checkout's root (a copy of the maze in a fresh
    folder), win the games the page states, out of 200."""
    (tmp_path / LAYOUT).parent.mkdir(parents=True)
    shutil.copy(ROOT / LAYOUT, tmp_path / LAYOUT)
    command = [sys.executable, "-m", "pacman", "batch", "--layout", LAYOUT.as_posix(), "--games", "200", "--seed", "0"]
    if depth != "default":
        command += ["--agent-args", f"depth={depth}"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    row = re.search(r"^\S*narrow\.lay .*?\s200\s+(\d+)\s+[\d.]+%", done.stdout, re.M)
    assert row, done.stdout
    assert int(row[1]) == _claims()[depth]
