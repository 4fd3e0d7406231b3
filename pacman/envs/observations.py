"""What an environment shows its agents: the grid of channels and the flat state vector, built from a `GameState`.

The grid is ``(C, H, W)`` uint8, one plane per channel (`CHANNELS`), row 0 at the
top of the maze (the layout's last text line is the bottom row), column x = the
cell's x. A scared ghost half-way between two cells is marked on the cell it is
heading to, as the terminal view draws it; several ghosts on one cell mark it once.
The compiled core writes the same planes for both environments (agents/core/games.c); tests check they agree cell for cell.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pacman.actions import ACTIONS
from pacman.rules import SCARED_TIME
from pacman.state import GameState

if TYPE_CHECKING:
    from pacman.layout import Layout

__all__ = ["CHANNELS", "WALLS", "FOOD", "CAPSULES", "PACMAN", "GHOSTS", "SCARED_GHOSTS", "grid_shape",
           "grid_observation", "state_vector", "state_bounds", "state_fields", "GridObserver", "MOVE_FEATURES",
           "GLOBAL_FEATURES", "feature_fields", "image_cell", "MIN_IMAGE_SIDE"]

#: The grid's channels in order; the index of each is the constant of the same name.
CHANNELS: tuple[str, ...] = ("walls", "food", "capsules", "pacman", "ghosts", "scared_ghosts")
WALLS, FOOD, CAPSULES, PACMAN, GHOSTS, SCARED_GHOSTS = range(len(CHANNELS))


def grid_shape(layout: Layout) -> tuple[int, int, int]:
    """``(C, H, W)``: channels, the layout's height, its width."""
    return (len(CHANNELS), layout.height, layout.width)


def _template(layout: Layout) -> np.ndarray:
    """The grid with only the walls drawn: the part that never changes."""
    grid = np.zeros(grid_shape(layout), dtype=np.uint8)
    for x, y in layout.walls:
        if 0 <= x < layout.width and 0 <= y < layout.height:
            grid[WALLS, layout.height - 1 - y, x] = 1
    grid.flags.writeable = False
    return grid


def _mask_plane(mask: int, layout: Layout) -> np.ndarray:
    """A food or capsule bitmask (bit x * height + y) as an (H, W) uint8 plane, row 0 at the top."""
    w, h = layout.width, layout.height
    raw = np.frombuffer(mask.to_bytes((w * h + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, count=w * h, bitorder="little").reshape(w, h).T[::-1]


def grid_observation(state: GameState, out: np.ndarray | None = None) -> np.ndarray:
    """The ``(C, H, W)`` uint8 grid of `state` (into `out` when given, which is returned).

    >>> from pacman import load_layout
    >>> grid = grid_observation(GameState.initial(load_layout("test")))
    >>> grid.shape[0], int(grid[PACMAN].sum())
    (6, 1)
    """
    layout = state.layout
    h = layout.height
    if out is None:
        out = np.empty(grid_shape(layout), dtype=np.uint8)
    out[...] = layout.derived("env_grid_template", _template)
    food = state.food_mask
    if food:
        out[FOOD] = _mask_plane(food, layout)
    for x, y in state.capsules:
        out[CAPSULES, h - 1 - y, x] = 1
    for (x, y), direction, timer in zip(state.ghost_positions, state.ghost_directions, state.scared_timers):
        if x != int(x) or y != int(y):  # half-way (scared): the cell it is heading to
            dx, dy = direction.vector
            x, y = x + 0.5 * dx, y + 0.5 * dy
        out[SCARED_GHOSTS if timer else GHOSTS, h - 1 - int(y), int(x)] = 1
    x, y = state.pacman_position
    out[PACMAN, h - 1 - y, x] = 1
    return out


def state_fields(num_ghosts: int, heading: bool = False) -> tuple[str, ...]:
    """The names of `state_vector`'s entries, in order; with `heading` (a game that keeps Pacman's heading),
    ``pacman_heading`` last."""
    fields = ["pacman_x", "pacman_y"]
    for i in range(1, num_ghosts + 1):
        fields += [f"ghost_{i}_x", f"ghost_{i}_y", f"ghost_{i}_scared_timer"]
    return tuple(fields + ["food_left", "capsules_left"] + (["pacman_heading"] if heading else []))


def state_bounds(layout: Layout, num_ghosts: int, heading: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of `state_vector` on `layout` with `num_ghosts` ghosts (and `heading`, as `state_fields`), as
    float32 arrays."""
    high = [layout.width - 1, layout.height - 1]
    high += [layout.width - 1, layout.height - 1, SCARED_TIME] * num_ghosts
    high += [layout.food_count, len(layout.capsules)]
    if heading:
        high.append(len(ACTIONS) - 1)
    return np.zeros(len(high), dtype=np.float32), np.array(high, dtype=np.float32)


def state_vector(state: GameState) -> np.ndarray:
    """Positions, timers and counts as a flat float32 vector (names: `state_fields`).

    Pacman's (x, y); each ghost's (x, y) (x.5 half-way) and scared timer; the food
    and capsules left; in a game that keeps Pacman's heading (`GameState.pacman_heading`), its index in
    `pacman.actions.ACTIONS`: 0-3 for North, South, East, West, 4 (Stop) before his first step.
    """
    values: list[float] = list(state.pacman_position)
    for (x, y), timer in zip(state.ghost_positions, state.scared_timers):
        values += [x, y, timer]
    values += [state.food_count, len(state.capsules)]
    heading = state.pacman_heading
    if heading is not None:
        values.append(ACTIONS.index(heading))
    return np.array(values, dtype=np.float32)


# -- observations built from grids, for one game or many at once ------------------------------------------------

#: The per-move fields of the "features" observation, for each of Pacman's five actions (North, South, East, West,
#: Stop): where the action takes Pacman (the target cell; Stop: where he stands), what is around that cell.
MOVE_FEATURES: tuple[str, ...] = (
    "legal",            # 1 when the action is legal (all fields of an illegal action are 0)
    "food_here",        # the target cell holds food
    "food_closeness",   # 1 / (1 + maze distance from the target to the nearest food); 0 with no food left
    "food_nearer",      # 1 when the target is nearer the nearest food than Pacman's cell is
    "ghost_on",         # a ghost that is not scared is on the target cell
    "ghost_next",       # one can be there after one move (it may step onto Pacman next; its next move never turns back)
    "ghost_two",        # one can be there after two moves, no sooner
    "ghost_three",      # one can be there after three moves, no sooner
    "ghost_closeness",  # 1 / (1 + the fewest moves before a ghost that is not scared can be there); 0 with none
    "ghost_nearing",    # that distance is smaller than at the last step (a ghost is coming this way)
    "ghost_step_chance",  # the chance a ghost steps onto the target at its next move, were the ghosts random
    "scared_closeness",  # the same for the nearest scared ghost
    "scared_nearer",    # 1 when the target is nearer the nearest scared ghost than Pacman's cell is
    "capsule_closeness",  # the same for the nearest capsule
    "capsule_nearer",   # 1 when the target is nearer the nearest capsule than Pacman's cell is
    "room",             # the share of the maze's open cells Pacman reaches from the target before any such ghost can
)
#: The fields after the five moves' blocks.
GLOBAL_FEATURES: tuple[str, ...] = ("food_left", "any_scared")
#: Cells of the smallest image SB3's default `CnnPolicy` (NatureCNN) takes: 36 x 36.
MIN_IMAGE_SIDE = 36


def feature_fields() -> tuple[str, ...]:
    """The names of the "features" observation's entries, in order."""
    moves = ("north", "south", "east", "west", "stop")
    return tuple(f"{move}_{field}" for move in moves for field in MOVE_FEATURES) + GLOBAL_FEATURES


def image_cell(layout: Layout) -> int:
    """The default pixels per cell of the "image" observation: the fewest that make both sides at least
    `MIN_IMAGE_SIDE`, so that SB3's default `CnnPolicy` takes it."""
    return max(1, -(-MIN_IMAGE_SIDE // min(layout.height, layout.width)))


class GridObserver:
    """Turns grids (``(N, C, H, W)``, as the compiled core writes them) into one kind of observation, for many
    games at once: the one place the "grid", "image" and "features" observations are computed, for every
    environment (single, vector, SB3).

    "grid": the grids themselves. "image": each cell a `cell` x `cell` block, 0 or 255, channels first
    (``(C, H * cell, W * cell)`` uint8). "features": `feature_fields()` as float32 in [0, 1], the same length on
    every layout.
    """

    KINDS = ("grid", "image", "features")

    def __init__(self, layout: Layout, kind: str, cell: int | None = None) -> None:
        if kind not in self.KINDS:
            raise ValueError(f"GridObserver: kind {kind!r} is not one of {', '.join(self.KINDS)}")
        self.layout = layout
        self.kind = kind
        c, h, w = grid_shape(layout)
        self.cell = (cell if cell is not None else image_cell(layout)) if kind == "image" else None
        if kind == "grid":
            self.shape: tuple[int, ...] = (c, h, w)
            self.low, self.high, self.dtype = 0, 1, np.uint8
        elif kind == "image":
            self.shape = (c, h * self.cell, w * self.cell)
            self.low, self.high, self.dtype = 0, 255, np.uint8
        else:
            self.shape = (len(feature_fields()),)
            self.low, self.high, self.dtype = 0.0, 1.0, np.float32
            self._prepare_features()

    def _prepare_features(self) -> None:
        from pacman.actions import ACTIONS
        from pacman.distances import UNREACHABLE, DistanceTable

        layout = self.layout
        h, w = layout.height, layout.width
        # The open cells in the grid's flat order (row 0 at the top), and their maze distances in that order.
        open_flat, cells = [], []
        for row in range(h):
            for x in range(w):
                y = h - 1 - row
                if not layout.is_wall(x, y):
                    open_flat.append(row * w + x)
                    cells.append(x * h + y)
        self._open = np.array(open_flat, dtype=np.intp)
        distances = DistanceTable.of(layout).matrix[np.ix_(cells, cells)].astype(np.float32)
        distances[distances >= UNREACHABLE] = np.inf
        self._distances = distances
        index = {cell: i for i, cell in enumerate(cells)}
        targets = np.zeros((len(cells), len(ACTIONS)), dtype=np.intp)
        legal = np.zeros((len(cells), len(ACTIONS)), dtype=np.float32)
        for i, cell in enumerate(cells):
            x, y = divmod(cell, h)
            for a, action in enumerate(ACTIONS):
                dx, dy = action.vector
                if not layout.is_wall(x + dx, y + dy):
                    targets[i, a] = index[(x + dx) * h + y + dy]
                    legal[i, a] = 1.0
                else:
                    targets[i, a] = i
        self._targets, self._legal = targets, legal
        self._legal4 = legal[:, :4].astype(bool)  # (cells, 4): the four directions open from each cell
        self._reverse = np.array([ACTIONS.index(a.reverse) for a in ACTIONS[:4]], dtype=np.intp)
        self._food_total = max(1, layout.food_count)

    def __call__(self, grids: np.ndarray, out: np.ndarray | None = None,
                 previous: np.ndarray | None = None) -> np.ndarray:
        """The observations of `grids` (``(N, C, H, W)`` uint8), into `out` when given. `previous`: the "ghosts"
        planes of the step before (``(N, H, W)``), for the "features" field ``ghost_nearing`` (None, or a game's
        first step: no ghost is nearing)."""
        if self.kind == "grid":
            if out is None:
                return grids.copy()
            out[...] = grids
            return out
        if self.kind == "image":
            cell = self.cell
            n, c, h, w = grids.shape
            if out is None:
                out = np.empty((n, c, h * cell, w * cell), dtype=np.uint8)
            blocks = out.reshape(n, c, h, cell, w, cell)
            np.multiply(grids[:, :, :, None, :, None], 255, out=blocks, casting="unsafe")
            return out
        return self._features(grids, out, previous)

    def _nearest(self, present: np.ndarray, targets: np.ndarray) -> np.ndarray:
        """For each game, the maze distance from each target cell to the nearest cell of `present` ((N, cells)
        bool); inf where there is none. `targets` is (N, T) open-cell indexes; returns (N, T)."""
        rows = self._distances[targets]  # (N, T, cells)
        return np.where(present[:, None, :], rows, np.inf).min(axis=2)

    def _room(self, arrival: np.ndarray, targets: np.ndarray) -> np.ndarray:
        """For each game and target, the share of open cells strictly nearer the target than any ghost can be
        there (`arrival`: `_ghost_arrival`): where Pacman could still go before a ghost gets there."""
        distances = self._distances
        return (distances[targets] < arrival[:, None, :]).sum(axis=2) / distances.shape[0]

    def _ghost_ways(self, ghosts: np.ndarray, previous: np.ndarray | None) -> np.ndarray:
        """(N, cells, 4) bool: the directions (North, South, East, West) in which a ghost on each cell of `ghosts`
        ((N, cells) bool, not scared) may move next; False where there is no ghost.

        A ghost moves to a neighbouring open cell and may not turn back unless that is its only way
        (`pacman.rules`). The grid shows no directions: the way a ghost came is read from `previous` (the
        ghosts' plane a step before, ``(N, H, W)``): the one neighbour of its cell that held a ghost then, when
        exactly one did and its own cell did not (else its way is unknown and any neighbour may be next, as for
        a ghost that has not moved yet)."""
        n = ghosts.shape[0]
        legal4 = self._legal4
        neighbours = self._targets[:, :4]  # (cells, 4)
        if previous is None:
            came = np.zeros((n, *legal4.shape), dtype=bool)
        else:
            before = previous.reshape(n, -1)[:, self._open].astype(bool)  # (N, cells)
            came = before[:, neighbours] & legal4  # (N, cells, 4): a ghost was on that neighbour a step ago
            came &= ((came.sum(axis=2) == 1) & ~before)[:, :, None]
        allowed = legal4 & ~came
        stuck = ~allowed.any(axis=2)  # a dead end: turning back is the only way
        allowed[stuck] = np.broadcast_to(legal4, allowed.shape)[stuck]
        return allowed & ghosts[:, :, None]

    def _ghost_steps(self, ways: np.ndarray, targets: np.ndarray) -> np.ndarray:
        """For each game and target cell ((N, T) open-cell indexes): the chance a ghost steps onto it at its next
        move were every ghost random (each of its `ways`, `_ghost_ways`, alike), (N, T)."""
        n = ways.shape[0]
        chance = ways / np.maximum(ways.sum(axis=2, keepdims=True), 1)  # (N, cells, 4)
        # A ghost on the target's neighbour in direction d reaches the target moving the reverse way.
        sources = self._targets[:, :4][targets]  # (N, T, 4)
        steps = chance[np.arange(n)[:, None, None], sources, self._reverse] * self._legal4[targets]
        return 1.0 - np.prod(1.0 - steps, axis=2)

    def _ghost_arrival(self, ghosts: np.ndarray, ways: np.ndarray) -> np.ndarray:
        """(N, cells): the fewest moves before a ghost that is not scared can be on each cell (0 where one is),
        its first move one of its `ways` (no turning back); inf where none can."""
        n, cells = ghosts.shape
        arrival = np.full((n, cells), np.inf, dtype=np.float32)
        games, at = np.nonzero(ghosts)
        if games.size:
            rows = 1.0 + self._distances[self._targets[at, :4]]  # (G, 4, cells)
            rows[~ways[games, at]] = np.inf
            rows = rows.min(axis=1)
            rows[np.arange(games.size), at] = 0.0
            np.minimum.at(arrival, games, rows)
        return arrival

    def _features(self, grids: np.ndarray, out: np.ndarray | None, previous: np.ndarray | None) -> np.ndarray:
        n = grids.shape[0]
        flat = grids.reshape(n, grids.shape[1], -1)[:, :, self._open]  # (N, C, cells)
        if out is None:
            out = np.empty((n, *self.shape), dtype=np.float32)
        pacman = flat[:, PACMAN].argmax(axis=1)
        # The five targets (North, South, East, West, Stop: Stop's is Pacman's own cell, as is an illegal move's)
        # and Pacman's cell last, for the "nearer" fields.
        targets = np.concatenate([self._targets[pacman], pacman[:, None]], axis=1)
        legal = self._legal[pacman]  # (N, 5)
        food, ghosts, scared, capsules = (flat[:, k].astype(bool) for k in (FOOD, GHOSTS, SCARED_GHOSTS, CAPSULES))
        rows = np.arange(n)[:, None]
        food_d = self._nearest(food, targets)
        ways = self._ghost_ways(ghosts, previous)
        arrival = self._ghost_arrival(ghosts, ways)
        ghost_d = arrival[rows, targets]
        if previous is None:
            nearing = np.zeros_like(ghost_d[:, :5], dtype=bool)
        else:
            before = self._nearest(previous.reshape(n, -1)[:, self._open].astype(bool), targets[:, :5])
            nearing = ghost_d[:, :5] < before
        step_chance = self._ghost_steps(ways, targets[:, :5])
        scared_d = self._nearest(scared, targets)
        capsule_d = self._nearest(capsules, targets)
        with np.errstate(invalid="ignore"):
            fields = np.stack([
                np.ones_like(legal),
                food[rows, targets[:, :5]].astype(np.float32),
                1.0 / (1.0 + food_d[:, :5]),
                food_d[:, :5] < food_d[:, 5:],
                ghost_d[:, :5] == 0,
                ghost_d[:, :5] == 1,
                ghost_d[:, :5] == 2,
                ghost_d[:, :5] == 3,
                1.0 / (1.0 + ghost_d[:, :5]),
                nearing,
                step_chance,
                1.0 / (1.0 + scared_d[:, :5]),
                scared_d[:, :5] < scared_d[:, 5:],
                1.0 / (1.0 + capsule_d[:, :5]),
                capsule_d[:, :5] < capsule_d[:, 5:],
                self._room(arrival, targets[:, :5]),
            ], axis=2).astype(np.float32)  # (N, 5, fields)
        fields *= legal[:, :, None]
        out[:, : 5 * len(MOVE_FEATURES)] = fields.reshape(n, -1)
        out[:, -2] = food.sum(axis=1) / self._food_total
        out[:, -1] = scared.any(axis=1)
        return out
