"""The default agent on the two shapes issue 38 names, drawn here by their own parameters (not by
`research.mazes`): a corridor with a ghost in a side pocket (a fork), and a cross with dots at the ends of
its arms. On such mazes the depth-2 agent once won 0% where the optimum wins 32% and 41%. Each maze is solved
exactly and the default agent's policy valued exactly against random ghosts (`research.policy`): it must be
within 3 points of the optimum on every one, the issue's bar."""

from __future__ import annotations

import itertools

import pytest

from pacman import parse_layout
from pacman.agents import ExpectimaxAgent
from pacman.agents.compiled import core_status
from pacman.agents.ghosts import RandomGhost
from pacman.agents.solver import solve
from research.policy import policy_value

needs_core = pytest.mark.skipif(not core_status()[0], reason="the sweep values ~130 mazes: the compiled core's job")


def _text(cells: set[tuple[int, int]], items: dict[tuple[int, int], str]) -> str:
    """Layout text of the open `cells` (walls around them), `items` ("P", "G", ".") on some."""
    width = max(x for x, _ in cells) + 2
    height = max(y for _, y in cells) + 2
    return "".join("".join(items.get((x, y), " ") if (x, y) in cells else "%" for x in range(width)) + "\n"
                   for y in range(height - 1, -1, -1))


def fork(length: int, pocket: int, depth: int, pacman: int, ghost: int, dots: str, second: bool) -> str:
    """A corridor of `length` cells with a pocket `depth` deep under cell `pocket` (and, with `second`, another
    under its mirror cell), a ghost `ghost` cells down the first, Pacman in the corridor at `pacman`; dots at the
    corridor's West (W) and East (E) ends and at the bottom of the second pocket (B)."""
    top = depth + 1
    cells = {(x, top) for x in range(1, length + 1)}
    pockets = [pocket] + ([length + 1 - pocket] if second and length + 1 - pocket != pocket else [])
    for x in pockets:
        cells |= {(x, top - d) for d in range(1, depth + 1)}
    items = {(pocket, top - ghost): "G"}
    ends = {"W": (1, top), "E": (length, top), "B": (pockets[-1], 1)}
    items.update({ends[d]: "." for d in dots if d != "B" or len(pockets) > 1})
    items[(pacman, top)] = "P"
    return _text(cells, items)


def cross(arms: tuple[int, int, int, int], pacman: tuple[int, int], ghost_arm: str, ghost: int, dots: str) -> str:
    """A cross with arms North, South, East, West of the given lengths, Pacman at `pacman` from the crossing,
    a ghost `ghost` cells out along `ghost_arm`, a dot at the end of each arm named in `dots`."""
    north, south, east, west = arms
    cx, cy = west + 1, south + 1
    ways = {"N": (0, 1, north), "S": (0, -1, south), "E": (1, 0, east), "W": (-1, 0, west)}
    cells = {(cx, cy)}
    for dx, dy, n in ways.values():
        cells |= {(cx + dx * i, cy + dy * i) for i in range(1, n + 1)}
    items = {}
    for arm in dots:
        dx, dy, n = ways[arm]
        items[(cx + dx * n, cy + dy * n)] = "."
    dx, dy, _ = ways[ghost_arm]
    items[(cx + dx * ghost, cy + dy * ghost)] = "G"
    items[(cx + pacman[0], cy + pacman[1])] = "P"
    return _text(cells, items)


def _forks() -> list[str]:
    made = []
    for length, depth in itertools.product((4, 6, 9), (1, 2, 3)):
        for pocket, pacman in ((2, length), (length // 2, 1), (length - 1, 2)):
            if pocket == pacman:
                continue
            for ghost, (dots, second) in itertools.product(sorted({1, depth}), (("W", False), ("WE", False),
                                                                                  ("WEB", True))):
                made.append(fork(length, pocket, depth, pacman, ghost, dots, second))
    return made


def _crosses() -> list[str]:
    made = []
    for arms in ((1, 1, 1, 1), (2, 2, 2, 2), (3, 1, 2, 3), (2, 3, 3, 1), (1, 2, 1, 2), (3, 3, 1, 1), (2, 1, 3, 2),
                 (1, 3, 2, 2)):
        for pacman, ghost_arm, dots in (((0, 0), "N", "NSEW"), ((0, 0), "S", "NEW"), ((1, 0), "W", "NSEW"),
                                        ((0, -1), "E", "NW")):
            for ghost in sorted({1, arms["NSEW".index(ghost_arm)]}):
                if pacman == (1, 0) and ghost_arm == "E" or pacman == (0, -1) and ghost_arm == "S":
                    continue
                made.append(cross(arms, pacman, ghost_arm, ghost, dots))
    return made


def _valid(text: str) -> bool:
    """Pacman, a ghost and a dot each on a cell of its own, none on another."""
    return all(text.count(c) >= 1 for c in "PG.")


FORKS = [t for t in dict.fromkeys(_forks()) if _valid(t)]
CROSSES = [t for t in dict.fromkeys(_crosses()) if _valid(t)]


def test_the_shapes_are_drawn_as_described():
    assert len(FORKS) >= 60 and len(CROSSES) >= 40
    # a fork: the corridor on top, the ghost in the pocket under it, a dot at each corridor end
    assert fork(6, 3, 2, 6, 2, "WE", False) == "%%%%%%%%\n%.    P%\n%%% %%%%\n%%%G%%%%\n%%%%%%%%\n"
    # a cross of arms 2: Pacman at the crossing, the ghost one step North, dots at the four ends
    assert cross((2, 2, 2, 2), (0, 0), "N", 1, "NSEW") == ("%%%%%%%\n%%%.%%%\n%%%G%%%\n%. P .%\n%%% %%%\n"
                                                          "%%%.%%%\n%%%%%%%\n")


#: More than 3 points short on how many, by shape: depth 2 `safe` (the default before issue 38), and the default
#: (docs/search-strength.md, "The shapes the issue names").
SHORT = {"fork": {"safe": 50, "default": 0}, "cross": {"safe": 44, "default": 0}}


@needs_core
@pytest.mark.parametrize("shape", ["fork", "cross"])
def test_the_default_agent_is_within_3_points_of_the_optimum_on_every_fork_and_cross(shape):
    texts = FORKS if shape == "fork" else CROSSES
    assert len(texts) == {"fork": 105, "cross": 52}[shape]  # as docs/search-strength.md says
    gaps = {"safe": [], "default": []}
    uncertain = 0
    for i, text in enumerate(texts):
        layout = parse_layout(text, f"{shape}{i}")
        best = solve(layout, "random", "win").value
        uncertain += 0.05 < best < 0.95
        for name, args in (("safe", {"depth": 2, "evaluation": "safe"}), ("default", {})):
            agent = ExpectimaxAgent(**args)
            agent.reset(None, [RandomGhost(g) for g in range(1, layout.num_ghosts + 1)], layout)
            won = policy_value(layout, agent.get_action).win
            assert won <= best + 1e-9  # nothing beats the optimum: the two valuations agree
            gaps[name].append((best - won, text))
    worst = max(gaps["default"])
    assert worst[0] <= 0.03, f"{100 * worst[0]:.1f} points short of the optimum on\n{worst[1]}"
    assert {name: sum(gap > 0.03 for gap, _ in found) for name, found in gaps.items()} == SHORT[shape]
    # not a sweep of trivial mazes: the optimum is uncertain on a quarter of them at least
    assert uncertain >= len(texts) // 4
