"""examples/layouts/house.lay and eight-capsules.lay: the two mazes drawn for ghosts that hunt, which
docs/guide/strength.md names ("Two mazes drawn for hunters"). Each has the shape the page says, the page's figures
agree with themselves, and the page's batch command runs on each maze as a user runs it."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pacman import load_layout
from pacman.agents.expectimax import AUTO, AUTO_DEPTH, HUNTED_NODES, Nodes
from pacman.agents.small_mazes import is_small_maze

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "guide" / "strength.md"
#: (the maze, its ghosts, its capsules), as the page describes them
MAZES = [(Path("examples") / "layouts" / "house.lay", 3, 4),
         (Path("examples") / "layouts" / "eight-capsules.lay", 4, 8)]


def _section() -> str:
    found = re.search(r"<!-- figure hunter-mazes -->(.*?)<!-- /figure hunter-mazes -->", PAGE.read_text(), re.S)
    assert found, "docs/guide/strength.md no longer has the hunter-mazes figure"
    return found[1]


@pytest.mark.parametrize(("maze", "ghosts", "capsules"), MAZES, ids=lambda value: getattr(value, "name", None))
def test_each_maze_has_its_ghosts_and_capsules_and_is_big(maze, ghosts, capsules):
    layout = load_layout(str(ROOT / maze))
    assert layout.num_ghosts == ghosts and len(layout.capsules) == capsules
    # not small: against hunters every move deepens under HUNTED_NODES, as the page says
    assert not is_small_maze(layout)
    assert AUTO.on(layout, hunted=True) == Nodes(HUNTED_NODES, min_depth=AUTO_DEPTH)


def test_the_house_holds_the_ghosts_beside_pacmans_start():
    layout = load_layout(str(ROOT / MAZES[0][0]))
    (px, py) = layout.pacman_start
    assert all(abs(gx - px) + abs(gy - py) <= 4 for gx, gy in layout.agent_starts[1:])


def test_the_page_gives_each_maze_its_rows_and_commands(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    from strength_table import REFERENCE_NODES

    section = _section()
    for maze, _, _ in MAZES:
        assert f"| `{maze.name}` |" in section
    command = "pacman-ai batch --layout examples/layouts/NAME.lay --ghosts KIND --games 200 --seed 0 --max-moves 500"
    assert f"{command}\n" in section and f"{command} --agent-args depth=2\n" in section
    reference = "pacman-ai batch --layout examples/layouts/NAME.lay --ghosts KIND --games 30 --seed 0 --max-moves 500"
    assert f"{reference} --agent-args node_limit={REFERENCE_NODES}\n" in section
    # each row's shares are its counts: "won of 200 (share%)" and "won of 30"
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert len(rows) == 4
    for row in rows:
        for won, share in re.findall(r"(\d+) \(([\d.]+)%\)", row):
            assert float(share) == pytest.approx(100 * int(won) / 200, abs=0.05)
        firsts = [int(n) for n in re.findall(r"(\d+) of 30", row)]
        assert len(firsts) == 2 and all(0 <= n <= 30 for n in firsts)


@pytest.mark.parametrize("maze", [maze for maze, _, _ in MAZES], ids=lambda path: path.name)
def test_the_pages_command_runs_from_a_fresh_folder(tmp_path, maze):
    """The page's command with two games of a small search (the page's games take minutes): the maze loads as the
    command line loads it, relative to the folder the user runs in, and its games against hunters play out."""
    (tmp_path / maze).parent.mkdir(parents=True)
    shutil.copy(ROOT / maze, tmp_path / maze)
    done = subprocess.run([sys.executable, "-m", "pacman", "batch", "--layout", maze.as_posix(), "--ghosts",
                           "directional", "--games", "2", "--seed", "0", "--max-moves", "500", "--agent-args",
                           "node_limit=2000", "--json", "--quiet"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout)
    assert summary["games"] == 2 and summary["complete"]
    assert summary["num_ghosts"] == load_layout(str(ROOT / maze)).num_ghosts
