"""The shipped mazes: well formed, enclosed, winnable, and the sizes and counts documented."""

from collections import deque
from pathlib import Path

import pytest

from pacman.layout import LAYOUT_ALIASES, layout_names, load_layout

# name: (width, height, ghosts) as documented; sizes may drift by up to SIZE_SLACK.
EXPECTED = {
    "tiny": (5, 10, 1),
    "small": (20, 7, 2),
    "medium": (20, 11, 2),
    "large": (28, 27, 4),
    "open": (20, 9, 1),
    "tricky": (20, 13, 4),
    "capsules": (19, 11, 3),
    "trapped": (10, 5, 2),
    "minimax": (9, 5, 3),
    "test": (5, 5, None),  # a ghost is optional in the sanity maze
}
SIZE_SLACK = 3
MOVES = ((0, 1), (0, -1), (1, 0), (-1, 0))


def reachable(layout):
    """Open cells reachable from Pacman's start by N/S/E/W moves."""
    start = layout.pacman_start
    seen = {start}
    queue = deque([start])
    while queue:
        x, y = queue.popleft()
        for dx, dy in MOVES:
            cell = (x + dx, y + dy)
            if cell not in seen and not layout.is_wall(*cell):
                seen.add(cell)
                queue.append(cell)
    return seen


def test_all_ten_layouts_are_shipped():
    assert set(EXPECTED) <= set(layout_names())


def test_every_alias_names_a_shipped_layout():
    for alias, name in LAYOUT_ALIASES.items():
        assert load_layout(alias).text == load_layout(name).text, alias


@pytest.mark.parametrize("name", layout_names())
def test_file_is_clean_text(name):
    raw = Path(load_layout(name).path).read_bytes()
    assert b"\r" not in raw and b"\t" not in raw
    assert raw.endswith(b"\n") and not raw.endswith(b"\n\n")
    lines = raw.decode("ascii").split("\n")[:-1]
    assert all(line == line.rstrip() for line in lines)
    assert len({len(line) for line in lines}) == 1  # rectangular as written, not only after stripping
    assert set("".join(lines)) <= set("%.oPG1234 ")


@pytest.mark.parametrize("name", layout_names())
def test_layout_is_enclosed_and_rectangular(name):
    layout = load_layout(name)
    rows = layout.text.splitlines()
    assert len(rows) == layout.height
    assert all(len(row) == layout.width for row in rows)
    for x in range(layout.width):
        assert (x, 0) in layout.walls and (x, layout.height - 1) in layout.walls
    for y in range(layout.height):
        assert (0, y) in layout.walls and (layout.width - 1, y) in layout.walls


@pytest.mark.parametrize("name", layout_names())
def test_everything_is_reachable_from_pacman(name):
    layout = load_layout(name)
    assert layout.text.count("P") == 1
    assert layout.food_count >= 1
    seen = reachable(layout)
    assert not [cell for cell in layout.food if cell not in seen], "unreachable food"
    assert not [cell for cell in layout.capsules if cell not in seen], "unreachable capsule"
    assert not [cell for cell in layout.ghost_starts if cell not in seen], "sealed-off ghost"
    starts = layout.agent_starts
    assert len(set(starts)) == len(starts)  # no two agents share a start cell
    assert not set(starts) & (set(layout.food) | set(layout.capsules))


@pytest.mark.parametrize("name, expected", sorted(EXPECTED.items()))
def test_documented_size_and_ghost_count(name, expected):
    width, height, ghosts = expected
    layout = load_layout(name)
    assert abs(layout.width - width) <= SIZE_SLACK, layout.width
    assert abs(layout.height - height) <= SIZE_SLACK, layout.height
    if ghosts is None:
        assert layout.num_ghosts <= 1
    else:
        assert layout.num_ghosts == ghosts


def test_capsule_counts():
    assert len(load_layout("tricky").capsules) == 6
    assert len(load_layout("capsules").capsules) >= 5
    assert 2 <= len(load_layout("medium").capsules) <= 4
    assert len(load_layout("large").capsules) == 4


def test_numbered_ghosts_are_used():
    assert any(set(load_layout(name).text) & set("1234") for name in EXPECTED)


@pytest.mark.parametrize("name", ["small", "medium", "large", "open", "tricky", "capsules"])
def test_bigger_mazes_have_loops(name):
    # A tree maze lets a ghost corner Pacman for good: require several independent cycles.
    layout = load_layout(name)
    cells = reachable(layout)
    edges = sum((x + 1, y) in cells for x, y in cells) + sum((x, y + 1) in cells for x, y in cells)
    assert edges - len(cells) + 1 >= 4


def test_trapped_starts_pacman_in_a_pocket_guarded_by_a_ghost():
    layout = load_layout("trapped")
    x, y = layout.pacman_start
    exits = [(x + dx, y + dy) for dx, dy in MOVES if not layout.is_wall(x + dx, y + dy)]
    assert len(exits) == 1  # a dead end
    # Walk the pocket to where it opens up; a ghost waits next to that cell.
    previous, cell = (x, y), exits[0]
    while True:
        around = [(cell[0] + dx, cell[1] + dy) for dx, dy in MOVES]
        onward = [c for c in around if c != previous and not layout.is_wall(*c)]
        if len(onward) != 1:
            break
        previous, cell = cell, onward[0]
    assert set(around) & set(layout.ghost_starts)
