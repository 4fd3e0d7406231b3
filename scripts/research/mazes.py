"""Random small mazes of the kind a student draws, small enough for the exact solver.

`random_maze(seed)` draws one maze from a seeded generator: a family (an open
blob grown cell by cell, with loops and dead ends; a corridor with side pockets,
a ghost waiting in one; a cross with food at the end of every arm; a room with a
ghost pen and a door), then Pacman, one to three ghosts, one to six dots and, in
a quarter of the mazes, a capsule. A maze whose solver bound
(`pacman.agents.solver.estimated_nodes`) exceeds `max_nodes` is drawn again
with the next sub-seed, so the same seed always gives the same maze.

`wild_maze(seed)` is a second generator, written apart and never tuned on: other
shapes (`WILD_FAMILIES`) and another placement, for a held-out set that does not
share the first generator's habits (``optimality_gap.py --set wild``).

`corridor_maze(seed)` is a third, of bigger mazes: corridors one cell wide, 25-45
cells (the other two draw 9-35), with dead ends and a few loops, one ghost, and
dots mostly at the dead ends (``--set corridors``). Never tuned on.

`MAZE_SETS` names the sets, each with its first seed and its generator; every
command that draws a set by name asks it (`draw_set`).

>>> maze = random_maze(7)
>>> maze.layout.num_ghosts >= 1 and maze.layout.food_count >= 1
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pacman.agents.solver import estimated_nodes
from pacman.layout import Layout, parse_layout

__all__ = ["FAMILIES", "WILD_FAMILIES", "CORRIDOR_FAMILIES", "Maze", "random_maze", "wild_maze", "corridor_maze",
           "maze_set", "draw_set", "MAZE_SETS", "HELD_OUT_SEED", "TUNING_SEED", "WILD_SEED", "CORRIDOR_SEED"]

#: The kinds of maze drawn, with their weights.
FAMILIES = {"blob": 0.4, "fork": 0.25, "cross": 0.2, "pen": 0.15}
#: The held-out set starts from this seed: never tune on it.
HELD_OUT_SEED = 1_000_000
#: The tuning set starts from this seed.
TUNING_SEED = 0
#: The second held-out set (`wild_maze`, another generator) starts from this seed: never tune on it either.
WILD_SEED = 5_000_000
#: The third held-out set (`corridor_maze`, bigger corridor mazes) starts from this seed: never tune on it either.
CORRIDOR_SEED = 6_000_000
#: The default ceiling on the solver's bound for a generated maze (solves in about a second or less).
DEFAULT_MAX_NODES = 300_000

_STEPS = ((0, 1), (0, -1), (1, 0), (-1, 0))


@dataclass(frozen=True)
class Maze:
    """One generated maze."""

    seed: int
    """The seed it was drawn from (`random_maze(seed)` draws it again)."""
    family: str
    """What kind of maze: one of `FAMILIES`."""
    layout: Layout
    """The maze, named ``rand-SEED``."""


def random_maze(seed: int, max_nodes: int = DEFAULT_MAX_NODES) -> Maze:
    """The maze of `seed`: the first draw of its generator whose solver bound is at most `max_nodes`."""
    return _first_fit(seed, 38, FAMILIES, lambda rng, family: _place(rng, _DRAW[family](rng), family), "rand",
                      max_nodes)


def _first_fit(seed: int, stream: int, families: dict[str, float],
               draw: Callable[[np.random.Generator, str], str | None], prefix: str, max_nodes: int) -> Maze:
    """A generator's maze of `seed`: a family drawn by its weight, then `draw`'s layout text for it (None: draw
    again), the first whose solver bound is at most `max_nodes`, named PREFIX-SEED."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"a maze's seed must be an int >= 0, got {seed!r}")
    rng = np.random.default_rng([seed, stream])
    for _ in range(1000):
        family = str(rng.choice(list(families), p=list(families.values())))
        text = draw(rng, family)
        if text is None:
            continue
        layout = parse_layout(text, name=f"{prefix}-{seed}")
        if estimated_nodes(layout, limit=max_nodes) <= max_nodes:
            return Maze(seed, family, layout)
    raise RuntimeError(f"{prefix} maze {seed}: no maze under {max_nodes:,} nodes in 1000 draws")


def maze_set(first_seed: int, count: int, max_nodes: int = DEFAULT_MAX_NODES) -> list[Maze]:
    """`count` mazes from consecutive seeds starting at `first_seed`."""
    return [random_maze(seed, max_nodes) for seed in range(first_seed, first_seed + count)]


# -- the families: each returns the open cells (x, y) of a maze, (0, 0) being the first open cell's corner --


def _blob(rng: np.random.Generator) -> set[tuple[int, int]]:
    """Cells grown one at a time from a seed cell inside a small box: loops, dead ends, a few open squares."""
    width, height = int(rng.integers(4, 9)), int(rng.integers(3, 6))
    target = int(rng.integers(9, min(22, width * height - 2) + 1))
    open_squares = rng.random() < 0.3
    cells = {(int(rng.integers(width)), int(rng.integers(height)))}
    tries = 0
    while len(cells) < target and tries < 5000:
        tries += 1
        x, y = list(cells)[int(rng.integers(len(cells)))]
        dx, dy = _STEPS[int(rng.integers(4))]
        nx, ny = x + dx, y + dy
        if not (0 <= nx < width and 0 <= ny < height) or (nx, ny) in cells:
            continue
        if not open_squares and _closes_square(cells, nx, ny):
            continue
        cells.add((nx, ny))
    return cells


def _closes_square(cells: set[tuple[int, int]], x: int, y: int) -> bool:
    return any({(x + dx, y), (x, y + dy), (x + dx, y + dy)} <= cells for dx in (-1, 1) for dy in (-1, 1))


def _fork(rng: np.random.Generator) -> set[tuple[int, int]]:
    """A corridor with pockets hanging off it, up or down (a ghost is placed in one of them)."""
    length = int(rng.integers(5, 10))
    cells = {(x, 2) for x in range(length)}
    for x in rng.choice(np.arange(1, length - 1), size=int(rng.integers(1, 3)), replace=False):
        direction = 1 if rng.random() < 0.5 else -1
        for k in range(1, int(rng.integers(1, 3)) + 1):
            cells.add((int(x), 2 + direction * k))
    return cells


def _cross(rng: np.random.Generator) -> set[tuple[int, int]]:
    """A plus: four arms of one to three cells around a centre (food goes at the arms' ends)."""
    arms = [int(rng.integers(1, 4)) for _ in range(4)]
    c = 3
    cells = {(c, c)}
    for (dx, dy), n in zip(_STEPS, arms):
        for k in range(1, n + 1):
            cells.add((c + dx * k, c + dy * k))
    return cells


def _pen(rng: np.random.Generator) -> set[tuple[int, int]]:
    """A loop around a pen of one or two cells whose door opens onto the loop."""
    width, height = int(rng.integers(5, 8)), 4
    cells = {(x, 0) for x in range(width)} | {(x, height - 1) for x in range(width)}
    cells |= {(0, y) for y in range(height)} | {(width - 1, y) for y in range(height)}
    inside = int(rng.integers(2, width - 2))
    cells |= {(inside, 1), (inside, 2)}  # the pen, open at the top: its door
    if rng.random() < 0.5:
        cells.discard((0, 1))  # cut the loop: a dead end on the left
    return cells


_DRAW = {"blob": _blob, "fork": _fork, "cross": _cross, "pen": _pen}


def _ends(cells: set[tuple[int, int]]) -> list[tuple[int, int]]:
    return sorted(c for c in cells if sum((c[0] + dx, c[1] + dy) in cells for dx, dy in _STEPS) == 1)


def _distances(cells: set[tuple[int, int]], start: tuple[int, int]) -> dict[tuple[int, int], int]:
    seen, frontier = {start: 0}, [start]
    while frontier:
        following = []
        for x, y in frontier:
            for dx, dy in _STEPS:
                nxt = (x + dx, y + dy)
                if nxt in cells and nxt not in seen:
                    seen[nxt] = seen[(x, y)] + 1
                    following.append(nxt)
        frontier = following
    return seen


def _place(rng: np.random.Generator, cells: set[tuple[int, int]], family: str) -> str | None:
    """Pacman, ghosts, food and maybe a capsule on `cells`, as layout text; None when they do not fit."""
    cells = set(_distances(cells, min(cells)))  # keep one connected region
    left, bottom = min(x for x, _ in cells), min(y for _, y in cells)
    cells = {(x - left, y - bottom) for x, y in cells}
    if len(cells) < 5:
        return None
    order = sorted(cells)
    ends = _ends(cells)
    pacman = order[int(rng.integers(len(order)))]
    away = _distances(cells, pacman)
    num_ghosts = int(rng.choice([1, 2, 3], p=[0.5, 0.38, 0.12]))
    candidates = [c for c in order if away[c] >= 2]
    if family == "fork":  # a ghost waits in a pocket: a cell off the corridor's row
        pockets = [c for c in candidates if c[1] != 2]
        if pockets:
            first = pockets[int(rng.integers(len(pockets)))]
            candidates = [first] + [c for c in candidates if c != first]
    if family == "pen":
        pen = [c for c in candidates if 0 < c[1] < 3 and 0 < c[0]]
        if pen:
            first = pen[int(rng.integers(len(pen)))]
            candidates = [first] + [c for c in candidates if c != first]
    if len(candidates) < num_ghosts:
        return None
    if family in ("fork", "pen"):
        ghosts = [candidates[0]] + _pick(rng, candidates[1:], num_ghosts - 1)
    else:
        ghosts = _pick(rng, candidates, num_ghosts)
    free = [c for c in order if away[c] >= 2 and c not in ghosts]  # no dot next to Pacman's start
    ends = [c for c in ends if c in free]
    num_food = int(rng.integers(1, 7))
    if family == "cross":
        food = list(ends)
        if not food:
            return None
    else:
        food = _pick(rng, ends, min(len(ends), int(rng.integers(0, num_food + 1))))
        rest = [c for c in free if c not in food]
        food += _pick(rng, rest, min(len(rest), num_food - len(food)))
    if not food:
        return None
    capsule = None
    if rng.random() < 0.25:
        spare = [c for c in free if c not in food]
        if spare:
            capsule = spare[int(rng.integers(len(spare)))]
    return _text(cells, pacman, ghosts, food, capsule)


def _text(cells: set[tuple[int, int]], pacman: tuple[int, int], ghosts: list, food: list,
          capsule: tuple[int, int] | None) -> str:
    """The layout text of open `cells` (x, y from the bottom left, walled all round) and what stands on them."""
    width = max(x for x, _ in cells) + 3
    height = max(y for _, y in cells) + 3
    grid = [["%"] * width for _ in range(height)]
    for x, y in cells:
        grid[y + 1][x + 1] = " "
    for x, y in food:
        grid[y + 1][x + 1] = "."
    if capsule is not None:
        grid[capsule[1] + 1][capsule[0] + 1] = "o"
    for x, y in ghosts:
        grid[y + 1][x + 1] = "G"
    grid[pacman[1] + 1][pacman[0] + 1] = "P"
    return "\n".join("".join(row) for row in reversed(grid))


def _pick(rng: np.random.Generator, items: list, count: int) -> list:
    if count <= 0 or not items:
        return []
    chosen = rng.choice(len(items), size=min(count, len(items)), replace=False)
    return [items[int(i)] for i in sorted(chosen)]


# -- a second generator, for a held-out set of other shapes ------------------------------------------------------

#: The kinds of maze `wild_maze` draws, with their weights: none of them is one of `FAMILIES`.
WILD_FAMILIES = {"holes": 0.4, "rooms": 0.3, "ring": 0.3}


def wild_maze(seed: int, max_nodes: int = DEFAULT_MAX_NODES) -> Maze:
    """The maze of `seed` from a second generator, written apart from `random_maze` and never tuned on: other
    shapes (`WILD_FAMILIES`: a box with walls dropped at random, two rooms joined by a corridor, a ring with
    spurs and spokes) and another placement (ghosts anywhere two steps or more from Pacman, dots anywhere else
    but next to him, a capsule in a fifth of them). The first draw whose solver bound is at most `max_nodes`."""
    return _first_fit(seed, 3838, WILD_FAMILIES, lambda rng, family: _scatter(rng, _WILD_DRAW[family](rng)),
                      "wild", max_nodes)


def _holes(rng: np.random.Generator) -> set[tuple[int, int]]:
    """A box of 4-7 x 3-5 cells, each a wall with some chance: its largest connected part."""
    width, height = int(rng.integers(4, 8)), int(rng.integers(3, 6))
    wall = float(rng.uniform(0.15, 0.4))
    cells = {(x, y) for x in range(width) for y in range(height) if rng.random() >= wall}
    best: set[tuple[int, int]] = set()
    while cells:
        part = set(_distances(cells, min(cells)))
        cells -= part
        if len(part) > len(best):
            best = part
    return best


def _rooms(rng: np.random.Generator) -> set[tuple[int, int]]:
    """Two open rooms of 2-3 x 2-3 cells, side by side, joined by a corridor of 1-4 cells at some row."""
    w1, h1, w2, h2 = (int(rng.integers(2, 4)) for _ in range(4))
    length = int(rng.integers(1, 5))
    row = int(rng.integers(0, min(h1, h2)))
    cells = {(x, y) for x in range(w1) for y in range(h1)}
    cells |= {(w1 + k, row) for k in range(length)}
    cells |= {(w1 + length + x, y) for x in range(w2) for y in range(h2)}
    return cells


def _ring(rng: np.random.Generator) -> set[tuple[int, int]]:
    """A rectangular ring of 4-7 x 3-5 cells with 0-2 spokes into its middle and 0-2 spurs out of it."""
    width, height = int(rng.integers(4, 8)), int(rng.integers(3, 6))
    ring = {(x, y) for x in range(width) for y in range(height) if x in (0, width - 1) or y in (0, height - 1)}
    cells = {(x + 2, y + 2) for x, y in ring}  # room around it for the spurs
    for _ in range(int(rng.integers(0, 3))):  # a spoke: a cell of the middle next to the ring
        inner = [(x + 2, y + 2) for x in range(1, width - 1) for y in range(1, height - 1)
                 if x in (1, width - 2) or y in (1, height - 2)]
        if inner:
            cells.add(inner[int(rng.integers(len(inner)))])
    outer = sorted(cells)
    for _ in range(int(rng.integers(0, 3))):  # a spur: one or two cells out of the ring, away from it
        x, y = outer[int(rng.integers(len(outer)))]
        dx, dy = _STEPS[int(rng.integers(4))]
        for k in range(1, int(rng.integers(1, 3)) + 1):
            nx, ny = x + dx * k, y + dy * k
            if 0 < nx and 0 < ny and (nx, ny) not in cells and not (2 < nx < width + 1 and 2 < ny < height + 1):
                cells.add((nx, ny))
    return set(_distances(cells, min(cells)))


_WILD_DRAW = {"holes": _holes, "rooms": _rooms, "ring": _ring}


def _scatter(rng: np.random.Generator, cells: set[tuple[int, int]]) -> str | None:
    """`wild_maze`'s placement on `cells`: Pacman anywhere; one to three ghosts two steps or more from him; one to
    seven dots on the cells left but those next to him; in a fifth of the mazes a capsule. None if they do not fit."""
    if len(cells) < 6:
        return None
    left, bottom = min(x for x, _ in cells), min(y for _, y in cells)
    cells = {(x - left, y - bottom) for x, y in cells}
    order = sorted(cells)
    pacman = order[int(rng.integers(len(order)))]
    away = _distances(cells, pacman)
    far = [c for c in order if away[c] >= 2]
    ghosts = _pick(rng, far, int(rng.choice([1, 2, 3], p=[0.45, 0.4, 0.15])))
    free = [c for c in far if c not in ghosts]
    food = _pick(rng, free, int(rng.integers(1, 8)))
    if not ghosts or not food:
        return None
    spare = [c for c in free if c not in food]
    capsule = spare[int(rng.integers(len(spare)))] if spare and rng.random() < 0.2 else None
    return _text(cells, pacman, ghosts, food, capsule)


# -- a third generator: bigger mazes of corridors --------------------------------------------------------------

#: The kinds of maze `corridor_maze` draws, with their weights: a maze of corridors with no loop (a tree), or
#: with one to three.
CORRIDOR_FAMILIES = {"tree": 0.3, "loops": 0.7}
#: The open cells of a corridor maze: at least, at most.
CORRIDOR_CELLS = (25, 45)


def corridor_maze(seed: int, max_nodes: int = DEFAULT_MAX_NODES) -> Maze:
    """The maze of `seed` from a third generator, of bigger mazes than the other two and never tuned on: corridors
    one cell wide through a grid of 4-7 x 3-4 rooms (a random depth-first walk), with one to three walls between
    rooms opened (`CORRIDOR_FAMILIES` "loops") or none ("tree"), 25-45 open cells; Pacman anywhere, one ghost four
    steps or more from him, two to five dots, at dead ends first. The first draw whose solver bound is at most
    `max_nodes`."""
    return _first_fit(seed, 383838, CORRIDOR_FAMILIES, lambda rng, family: _corridor_place(rng, _corridors(rng, family)),
                      "corr", max_nodes)


def _corridors(rng: np.random.Generator, family: str) -> set[tuple[int, int]] | None:
    """A depth-first maze over a grid of rooms (room (i, j) is cell (2i, 2j), the cell between two rooms their
    passage), with 1-3 extra passages for "loops"; None when it is not 25-45 cells."""
    width, height = int(rng.integers(4, 8)), int(rng.integers(3, 5))
    cells, seen, stack = {(0, 0)}, {(0, 0)}, [(0, 0)]
    while stack:
        x, y = stack[-1]
        fresh = [(x + dx, y + dy) for dx, dy in _STEPS
                 if 0 <= x + dx < width and 0 <= y + dy < height and (x + dx, y + dy) not in seen]
        if not fresh:
            stack.pop()
            continue
        nx, ny = fresh[int(rng.integers(len(fresh)))]
        seen.add((nx, ny))
        stack.append((nx, ny))
        cells |= {(2 * nx, 2 * ny), (x + nx, y + ny)}
    if family == "loops":
        walls = sorted((x, y) for x in range(2 * width - 1) for y in range(2 * height - 1)
                       if (x + y) % 2 == 1 and (x, y) not in cells)
        cells |= set(_pick(rng, walls, int(rng.integers(1, 4))))
    low, high = CORRIDOR_CELLS
    return cells if low <= len(cells) <= high else None


def _corridor_place(rng: np.random.Generator, cells: set[tuple[int, int]] | None) -> str | None:
    """`corridor_maze`'s placement: Pacman anywhere; one ghost four steps or more from him; two to five dots on
    cells two steps or more from him, the dead ends first. None if they do not fit."""
    if cells is None:
        return None
    order = sorted(cells)
    pacman = order[int(rng.integers(len(order)))]
    away = _distances(cells, pacman)
    far = [c for c in order if away[c] >= 4]
    if not far:
        return None
    ghost = far[int(rng.integers(len(far)))]
    free = [c for c in order if away[c] >= 2 and c != ghost]
    ends = [c for c in _ends(cells) if c in free]
    count = int(rng.integers(2, 6))
    food = _pick(rng, ends, count)
    food += _pick(rng, [c for c in free if c not in food], count - len(food))
    return _text(cells, pacman, [ghost], food, None)


#: The maze sets by name: (first seed, generator). "tuning" is the one set tuned on.
MAZE_SETS: dict[str, tuple[int, Callable[[int], Maze]]] = {
    "held-out": (HELD_OUT_SEED, random_maze),
    "tuning": (TUNING_SEED, random_maze),
    "wild": (WILD_SEED, wild_maze),
    "corridors": (CORRIDOR_SEED, corridor_maze),
}


def draw_set(name: str, count: int, first: int | None = None) -> list[Maze]:
    """`count` mazes of the set `name` (one of `MAZE_SETS`), from seed `first` (default: the set's own)."""
    if name not in MAZE_SETS:
        raise ValueError(f"no maze set {name!r}; the sets are {', '.join(MAZE_SETS)}")
    start, draw = MAZE_SETS[name]
    start = start if first is None else first
    return [draw(seed) for seed in range(start, start + count)]
