"""The game state: immutable, hashable, compact, and fast enough to sit inside every search node.

A `GameState` is a tuple; its fields are named once, below (`BOARD` ... `STATUS`),
and read elsewhere through properties. Positions live on a doubled grid so that a
scared ghost's half-cell position is an int too: position ``p = (2x) * S + 2y``
with ``S = 2 * height``. A ghost is stored as ``p * 5 + d``, its position and its
last direction (0-3 for North, South, East, West; 4 for none), which indexes the
move tables directly. Food and capsules are bitmask ints. Every table is built once
per layout (`_Board`) and shared by all states of that layout.

Value semantics: states compare and hash by value. Equal layouts share one board
(`_Board.of`), so a state pickles as its layout and its own fields (well under
2 KB) and an unpickled state, in this process or another, equals the original.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from operator import itemgetter
from typing import TYPE_CHECKING
from weakref import WeakValueDictionary

from pacman.actions import ACTIONS, DIRECTIONS, Action
from pacman.errors import IllegalActionError, PacmanError, TerminalStateError
from pacman.rules import FOOD_POINTS, GHOST_POINTS, LOSE_POINTS, MOVE_COST, SCARED_TIME, WIN_POINTS

if TYPE_CHECKING:
    from pacman.layout import Layout

__all__ = ["GameState"]

# The fields of the GameState tuple, in order. Only this module reads them by position.
BOARD = 0     # the layout's tables (`_Board`), shared by all its states
PACMAN = 1    # Pacman's doubled-grid position
FOOD = 2      # food mask: bit x * height + y
CAPSULES = 3  # capsule mask, numbered like FOOD
GHOSTS = 4    # each ghost's key: doubled-grid position * 5 + last direction
TIMERS = 5    # each ghost's scared timer
SCORE = 6     # the score
STATUS = 7    # _PLAYING, _WON or _LOST
HEADING = 8   # Pacman's heading (0-3, 4 before his first step), or None in a game that does not track it

_PLAYING, _WON, _LOST = 0, 1, 2
_NO_DIRECTION = 4
_DIRECTION_INDEX = {action: i for i, action in enumerate(DIRECTIONS)}
_new = tuple.__new__
#: The moves of a position no agent can occupy (shared; never changed).
_NO_MOVES: dict = {}

# Score changes of one Pacman move, from the rules: a plain move, eating food, eating the last food.
_MOVE_POINTS = -MOVE_COST
_FOOD_MOVE_POINTS = FOOD_POINTS - MOVE_COST
_WINNING_MOVE_POINTS = FOOD_POINTS + WIN_POINTS - MOVE_COST


class _Board:
    """Per-layout tables shared by every state of one layout. Built once, never changed.

    Each table is a list indexed by a doubled-grid position (Pacman, `bit`,
    `coords`, `touch`) or by a ghost key (the ghost tables), made by one function
    below. Positions no agent can occupy hold the empty value of the table's type.
    """

    __slots__ = (
        "layout", "stride", "coords", "bit", "cell_of_bit", "pac_moves", "pac_legal", "pac_next",
        "near", "touch", "snap", "ghost_legal", "ghost_moves", "scared_moves", "ghost_next", "scared_next",
        "starts", "__weakref__",
    )

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.stride = 2 * layout.height
        self.coords = _coordinates(layout)
        self.bit = _position_bits(layout)
        self.cell_of_bit = _cells_by_bit(layout)
        self.near = _touching_cells(layout)
        self.touch = _ghosts_touching(self.near, len(self.coords))
        self.pac_moves = _pacman_steps(layout, self.bit, self.touch)
        self.pac_legal = [tuple(steps) for steps in self.pac_moves]
        self.pac_next = [tuple(steps.values()) for steps in self.pac_moves]
        self.snap = _snaps(layout)
        self.ghost_legal = _ghost_actions(layout)
        self.ghost_moves = _ghost_targets(layout, self.ghost_legal, scared=False)
        self.scared_moves = _ghost_targets(layout, self.ghost_legal, scared=True)
        self.ghost_next = [tuple(moves.values()) for moves in self.ghost_moves]
        self.scared_next = [tuple(moves.values()) for moves in self.scared_moves]
        self.starts = tuple(_position(layout, 2 * x, 2 * y) for x, y in layout.agent_starts)

    @classmethod
    def of(cls, layout: Layout) -> _Board:
        """The board of a layout: built on first use, kept on the layout, and shared by equal layouts.

        Sharing makes states of two equal layouts (two loads of one file, an
        unpickled layout) share their first field, so they compare and hash alike
        with no Python-level ``__eq__`` in the hot path.
        """
        return layout.derived("board", _shared_board)

    def cells(self, mask: int) -> tuple[tuple[int, int], ...]:
        """The (x, y) cells of the set bits of a food or capsule mask, in (x, y) order."""
        out = []
        while mask:
            low = mask & -mask
            out.append(self.cell_of_bit[low.bit_length() - 1])
            mask ^= low
        return tuple(out)


#: The board of every layout alive in this process, by `Layout.key` (strings: a key must
#: not hold its board). Weak, so a board lives exactly as long as some layout or state uses it.
_BOARDS: WeakValueDictionary[tuple, _Board] = WeakValueDictionary()


def _shared_board(layout: Layout) -> _Board:
    """The board of an equal layout if one is alive, else a new board for `layout`."""
    board = _BOARDS.get(layout.key)
    if board is None:
        board = _BOARDS[layout.key] = _Board(layout)
    return board


# -- the board's tables, one function each ------------------------------------------


def _position(layout: Layout, x2: int, y2: int) -> int:
    """The doubled-grid position of doubled coordinates (x2, y2) = (2x, 2y)."""
    return x2 * 2 * layout.height + y2


def _size(layout: Layout) -> int:
    """How many doubled-grid positions a layout has."""
    return 4 * layout.width * layout.height


def _coordinates(layout: Layout) -> list[tuple[float, float]]:
    """coords[p]: the (x, y) of position p, ints on cells and x.5 half-way between two."""
    coords: list[tuple[float, float]] = [(0, 0)] * _size(layout)
    for x2 in range(2 * layout.width):
        for y2 in range(2 * layout.height):
            coords[_position(layout, x2, y2)] = (x2 // 2 if x2 % 2 == 0 else x2 / 2,
                                                 y2 // 2 if y2 % 2 == 0 else y2 / 2)
    return coords


def _position_bits(layout: Layout) -> list[int]:
    """bit[p]: the food/capsule mask bit of the cell at position p (0 between cells)."""
    bits = [0] * _size(layout)
    for x in range(layout.width):
        for y in range(layout.height):
            bits[_position(layout, 2 * x, 2 * y)] = 1 << (x * layout.height + y)
    return bits


def _cells_by_bit(layout: Layout) -> list[tuple[int, int]]:
    """cell_of_bit[i]: the (x, y) cell of mask bit i."""
    return [(x, y) for x in range(layout.width) for y in range(layout.height)]


def _ghost_places(layout: Layout) -> Iterator[tuple[int, int, bool, tuple[int, ...]]]:
    """Every position a ghost can stand on: (x2, y2, on a cell?, the positions of the cells it touches).

    That is every open cell, and every half-way point between two open cells
    side by side (where a scared ghost can be).
    """
    w, h = layout.width, layout.height
    for x2 in range(2 * w):
        for y2 in range(2 * h):
            x_half, y_half = x2 % 2, y2 % 2
            if not x_half and not y_half:
                if not layout.is_wall(x2 // 2, y2 // 2):
                    yield x2, y2, True, (_position(layout, x2, y2),)
            elif x_half and not y_half:
                a, b = (x2 - 1) // 2, (x2 + 1) // 2
                if b < w and not layout.is_wall(a, y2 // 2) and not layout.is_wall(b, y2 // 2):
                    yield x2, y2, False, (_position(layout, 2 * a, y2), _position(layout, 2 * b, y2))
            elif y_half and not x_half:
                a, b = (y2 - 1) // 2, (y2 + 1) // 2
                if b < h and not layout.is_wall(x2 // 2, a) and not layout.is_wall(x2 // 2, b):
                    yield x2, y2, False, (_position(layout, x2, 2 * a), _position(layout, x2, 2 * b))


def _touching_cells(layout: Layout) -> list[tuple[int, ...]]:
    """near[k]: the cell positions where Pacman collides with the ghost of key k (within 0.7)."""
    near: list[tuple[int, ...]] = [()] * (_size(layout) * 5)
    for x2, y2, _, touching in _ghost_places(layout):
        p = _position(layout, x2, y2)
        for d in range(5):
            near[p * 5 + d] = touching
    return near


def _ghosts_touching(near: list[tuple[int, ...]], size: int) -> list[frozenset[int]]:
    """touch[p]: every ghost key whose ghost collides with Pacman on cell position p."""
    touch: list[set[int]] = [set() for _ in range(size)]
    for k, cells in enumerate(near):
        for p in cells:
            touch[p].add(k)
    return [frozenset(keys) for keys in touch]


def _pacman_steps(layout: Layout, bit: list[int], touch: list[frozenset[int]]) -> list[dict[Action, tuple]]:
    """pac_moves[p]: Pacman's legal actions on cell p (N, S, E, W order, then Stop), each to
    (target position, its mask bit, the ghost keys that collide there): one unpack per
    successor in the hot loop instead of three look-ups. Empty off the open cells."""
    steps: list[dict[Action, tuple]] = [_NO_MOVES] * _size(layout)
    for x in range(layout.width):
        for y in range(layout.height):
            if layout.is_wall(x, y):
                continue
            moves = steps[_position(layout, 2 * x, 2 * y)] = {}
            for action in ACTIONS:
                dx, dy = action.vector
                if not layout.is_wall(x + dx, y + dy):
                    q = _position(layout, 2 * (x + dx), 2 * (y + dy))
                    moves[action] = (q, bit[q], touch[q])
    return steps


def _snaps(layout: Layout) -> list[int]:
    """snap[k]: the key a ghost of key k has when its scared timer runs out: on the nearest
    cell, x.5 rounding up. Identity where there is nothing to snap."""
    snap = list(range(_size(layout) * 5))
    for x2, y2, _, _ in _ghost_places(layout):
        p = _position(layout, x2, y2)
        snapped = _position(layout, x2 + x2 % 2, y2 + y2 % 2)
        for d in range(5):
            snap[p * 5 + d] = snapped * 5 + d
    return snap


def _ghost_actions(layout: Layout) -> list[tuple[Action, ...]]:
    """ghost_legal[k]: a ghost's legal actions. On a cell: any open neighbour, no Stop, no
    reverse unless it is the only move. Between two cells (scared, half-way): only straight
    on; such a ghost always has a direction."""
    legal: list[tuple[Action, ...]] = [()] * (_size(layout) * 5)
    for x2, y2, on_cell, _ in _ghost_places(layout):
        p = _position(layout, x2, y2)
        for d in range(5):
            if on_cell:
                x, y = x2 // 2, y2 // 2
                options = [a for a in DIRECTIONS if not layout.is_wall(x + a.vector[0], y + a.vector[1])]
                if d != _NO_DIRECTION:
                    back = DIRECTIONS[d].reverse
                    if back in options and len(options) > 1:
                        options.remove(back)
            elif d == _NO_DIRECTION:
                continue
            else:
                options = [DIRECTIONS[d]]
            legal[p * 5 + d] = tuple(options)
    return legal


def _ghost_targets(layout: Layout, legal: list[tuple[Action, ...]], scared: bool) -> list[dict[Action, int]]:
    """ghost_moves[k] (full speed) or scared_moves[k] (half speed): each legal action to the
    key it leads to. Full-speed moves exist on cells only, since a ghost that is not
    scared is never between cells."""
    targets: list[dict[Action, int]] = [_NO_MOVES] * (_size(layout) * 5)
    step = 1 if scared else 2
    for x2, y2, on_cell, _ in _ghost_places(layout):
        if not (on_cell or scared):
            continue
        p = _position(layout, x2, y2)
        for d in range(5):
            if not legal[p * 5 + d]:
                continue
            moves = targets[p * 5 + d] = {}
            for action in legal[p * 5 + d]:
                dx, dy = action.vector
                moves[action] = _position(layout, x2 + step * dx, y2 + step * dy) * 5 + _DIRECTION_INDEX[action]
    return targets


class GameState(tuple):
    """One position of a game: immutable, hashable, equal by value.

    Build the first one with `GameState.initial` and the rest with `successor`.
    The state does not know whose turn it is; callers pass the agent index
    (Pacman is 0, ghosts 1..n). Two states are equal when their layouts are equal
    (`Layout` compares by value) and every agent, dot, timer and the score match;
    this holds across `pickle` and processes.

    >>> from pacman import load_layout
    >>> state = GameState.initial(load_layout("test"))
    >>> state.legal_actions(0)[-1]
    <Action.STOP: 'Stop'>
    >>> state.successor(0, Action.STOP).score
    -1
    """

    # A tuple subclass, fields BOARD ... STATUS above: creation, hashing and equality run in C.
    __slots__ = ()

    @classmethod
    def initial(cls, layout: Layout, num_ghosts: int | None = None, *, heading: bool = False) -> GameState:
        """The start of a game on `layout`, keeping the first `num_ghosts` ghosts (all if None).

        With `heading`, the states of the game keep Pacman's heading (`pacman_heading`), which ghosts that aim
        ahead of him read (`pacman.game.needs_heading` decides). Without it the heading is None in every state,
        so that positions reached by different ways compare equal, as the classic game's do.
        """
        available = layout.num_ghosts
        if num_ghosts is None:
            num_ghosts = available
        elif isinstance(num_ghosts, bool) or not isinstance(num_ghosts, int) or not 0 <= num_ghosts <= available:
            raise PacmanError(
                f"{layout.name}: num_ghosts={num_ghosts!r}, but the layout has {available} "
                f"ghost{'s' if available != 1 else ''} (expected 0..{available})"
            )
        board = _Board.of(layout)
        food = 0
        for x, y in layout.food:
            food |= 1 << (x * layout.height + y)
        capsules = 0
        for x, y in layout.capsules:
            capsules |= 1 << (x * layout.height + y)
        ghosts = tuple(p * 5 + _NO_DIRECTION for p in board.starts[1:1 + num_ghosts])
        return _new(cls, (board, board.starts[0], food, capsules, ghosts, (0,) * num_ghosts, 0, _PLAYING,
                          _NO_DIRECTION if heading else None))

    # -- rules -------------------------------------------------------------------

    def legal_actions(self, agent: int) -> tuple[Action, ...]:
        """The actions `agent` may take, in North, South, East, West, Stop order; () when terminal."""
        board, pac, _, _, ghosts, _, _, status, _ = self
        if status:
            return ()
        if agent == 0:
            return board.pac_legal[pac]
        if not 0 < agent <= len(ghosts):
            raise IllegalActionError(self._bad_agent(agent))
        return board.ghost_legal[ghosts[agent - 1]]

    def successor(self, agent: int, action: Action) -> GameState:
        """The state after `agent` takes `action`. Raises IllegalActionError, TerminalStateError."""
        return self.successors(agent, (action,))[0]

    def successors(self, agent: int, actions: Iterable[Action] | None = None) -> list[GameState]:
        """The successors for `actions` (default: every legal action of `agent`, in order).

        ``state.successors(i)`` equals ``[state.successor(i, a) for a in
        state.legal_actions(i)]`` and is several times faster: search expands whole
        nodes. It is [] on a terminal state when `actions` is None.
        """
        # One implementation of the rules for single steps and whole nodes. Its
        # shape (locals, common cases first) is for speed.
        board, pac, food, capsules, ghosts, timers, score, status, heading = self
        if status:
            if actions is None:
                return []
            raise TerminalStateError(
                f"no successor of a terminal state ({'won' if status == _WON else 'lost'}): "
                f"agent {agent} cannot take {', '.join(map(str, actions))}"
            )
        # Where the mover stands (`here`) and its move tables: every legal move (`every`)
        # and the move of each action (`chosen`).
        if agent == 0:
            here, every, chosen = pac, board.pac_next, board.pac_moves
        else:
            i = agent - 1
            if not 0 <= i < len(ghosts):
                raise IllegalActionError(self._bad_agent(agent))
            here, timer = ghosts[i], timers[i]
            if timer:
                every, chosen = board.scared_next, board.scared_moves
            else:
                every, chosen = board.ghost_next, board.ghost_moves
        if actions is None:
            targets = every[here]
        else:
            if heading is not None:
                actions = tuple(actions)  # read twice: for the moves, then for the headings (`_headed`)
            moves = chosen[here]
            try:
                targets = [moves[action] for action in actions]
            except (KeyError, TypeError):
                raise IllegalActionError(self._first_illegal(agent, actions)) from None

        out: list[GameState] = []
        append = out.append
        if agent == 0:
            eat = food | capsules
            moved = score + _MOVE_POINTS
            for p, bit, touch in targets:
                if not eat & bit:
                    state = _new(GameState, (board, p, food, capsules, ghosts, timers, moved, _PLAYING, heading))
                elif food & bit:
                    left = food ^ bit
                    if left:
                        state = _new(GameState, (board, p, left, capsules, ghosts, timers,
                                                 score + _FOOD_MOVE_POINTS, _PLAYING, heading))
                    else:
                        state = _new(GameState, (board, p, left, capsules, ghosts, timers,
                                                 score + _WINNING_MOVE_POINTS, _WON, heading))
                else:
                    scared = (SCARED_TIME,) * len(ghosts)
                    state = _new(GameState, (board, p, food, capsules ^ bit, ghosts, scared, moved, _PLAYING,
                                             heading))
                if not touch.isdisjoint(ghosts):
                    state = _pacman_collisions(state)
                append(state)
            if heading is not None:
                out = _headed(out, board.pac_legal[pac] if actions is None else actions, heading)
            return out

        before, after = ghosts[:i], ghosts[i + 1:]
        if not timer:
            caught = board.touch[pac]
            for g in targets:
                moved = before + (g,) + after if before else (g,) + after
                if g in caught:  # caught by a ghost that is not scared
                    append(_new(GameState, (board, pac, food, capsules, moved, timers, score - LOSE_POINTS, _LOST,
                                            heading)))
                else:
                    append(_new(GameState, (board, pac, food, capsules, moved, timers, score, _PLAYING, heading)))
            return out

        # A scared ghost moves half a cell; its timer drops after each of its own
        # moves, and on reaching 0 the ghost snaps to the nearest cell (x.5 rounds up).
        near = board.near
        timer -= 1
        for g in targets:
            new_score, new_status, new_timer = score, _PLAYING, timer
            if not timer:
                g = board.snap[g]
            if pac in near[g]:
                if timer:  # Pacman eats the ghost: it goes home, no longer scared
                    new_score += GHOST_POINTS
                    g, new_timer = board.starts[agent] * 5 + _NO_DIRECTION, 0
                else:
                    new_score -= LOSE_POINTS
                    new_status = _LOST
            new_timers = timers[:i] + (new_timer,) + timers[i + 1:]
            append(_new(GameState, (board, pac, food, capsules, before + (g,) + after, new_timers, new_score, new_status,
                                    heading)))
        return out

    # -- questions ---------------------------------------------------------------

    def is_win(self) -> bool:
        """True once Pacman has eaten the last food."""
        return self[STATUS] == _WON

    def is_lose(self) -> bool:
        """True once a ghost that is not scared has caught Pacman."""
        return self[STATUS] == _LOST

    def is_terminal(self) -> bool:
        """True when the game is won or lost: no agent has a move."""
        return self[STATUS] != _PLAYING

    @property
    def layout(self) -> Layout:
        """The layout this game is played on."""
        return self[BOARD].layout

    @property
    def num_agents(self) -> int:
        """1 + the number of ghosts: Pacman is agent 0."""
        return 1 + len(self[GHOSTS])

    @property
    def num_ghosts(self) -> int:
        """How many ghosts are in the game."""
        return len(self[GHOSTS])

    # Plain fields, read in C by itemgetter: no Python call per read in the search's hot loop. `doc=` is the
    # docstring at run time (help(), inspect); the string under each line says the same to readers that do not
    # run the code, such as the API reference's griffe. tests/test_evaluation_guide.py keeps the two equal.
    score = property(itemgetter(SCORE), doc="The game score so far.")
    """The game score so far."""
    scared_timers = property(itemgetter(TIMERS), doc="Each ghost's remaining scared moves (0: not scared).")
    """Each ghost's remaining scared moves (0: not scared)."""
    food_mask = property(
        itemgetter(FOOD), doc="The food as a bitmask: bit ``x * height + y`` is set when cell (x, y) holds food.")
    """The food as a bitmask: bit ``x * height + y`` is set when cell (x, y) holds food."""
    capsule_mask = property(itemgetter(CAPSULES), doc="The capsules as a bitmask, numbered like `food_mask`.")
    """The capsules as a bitmask, numbered like `food_mask`."""
    ghost_keys = property(itemgetter(GHOSTS), doc="Each ghost's key, doubled-grid position * 5 + last direction "
                                                  "(4: none), in agent order: its place and way in one int.")
    """Each ghost's key, doubled-grid position * 5 + last direction (4: none), in agent order: its place and way in
    one int."""

    @property
    def pacman_position(self) -> tuple[int, int]:
        """Pacman's cell (x, y)."""
        return self[BOARD].coords[self[PACMAN]]

    @property
    def pacman_heading(self) -> Action | None:
        """The direction of Pacman's last step (a Stop keeps it); STOP before his first step; None in a game that
        does not track it (`GameState.initial`'s `heading`)."""
        heading = self[HEADING]
        return None if heading is None else ACTIONS[heading]

    @property
    def ghost_positions(self) -> tuple[tuple[float, float], ...]:
        """Each ghost's (x, y), in agent order; a scared ghost may stand half-way: (3.5, 4)."""
        coords = self[BOARD].coords
        return tuple(coords[k // 5] for k in self[GHOSTS])

    @property
    def ghost_directions(self) -> tuple[Action, ...]:
        """Each ghost's last direction; STOP for a ghost that has not moved since (re)starting."""
        return tuple(ACTIONS[k % 5] for k in self[GHOSTS])

    @property
    def food_count(self) -> int:
        """Food dots left."""
        return self[FOOD].bit_count()

    @property
    def food(self) -> frozenset[tuple[int, int]]:
        """The cells that still hold food."""
        return frozenset(self[BOARD].cells(self[FOOD]))

    @property
    def capsules(self) -> tuple[tuple[int, int], ...]:
        """The cells that still hold a capsule, in (x, y) order."""
        return self[BOARD].cells(self[CAPSULES])

    @property
    def position_key(self) -> tuple:
        """Every field but the board, as ints and tuples of ints: what makes two states of one layout
        differ, and what a pickle carries beside the layout.

        In order: Pacman's doubled-grid position, the food mask, the capsule mask, each ghost's key
        (doubled-grid position * 5 + last direction), each ghost's scared timer, the score, the
        status (0 playing, 1 won, 2 lost), and, only in a game that keeps it, Pacman's heading (0-3 for North,
        South, East, West, 4 before his first step); the module docstring describes the doubled grid.
        """
        return self[PACMAN:HEADING] if self[HEADING] is None else self[PACMAN:]

    @classmethod
    def from_position_key(cls, layout: Layout, position_key: tuple) -> GameState:
        """The state of `layout` whose `position_key` is `position_key` (an engine that computes
        states elsewhere, such as the compiled search core, hands them back this way). A key of seven
        fields, without the heading, is a state whose game does not track it. Not checked: give only keys
        that came from states of this layout."""
        return _rebuild(layout, tuple(position_key))

    def has_food(self, x: int, y: int) -> bool:
        """True if cell (x, y) holds food."""
        layout = self[BOARD].layout
        return 0 <= x < layout.width and 0 <= y < layout.height and bool(self[FOOD] >> (x * layout.height + y) & 1)

    def agent_position(self, agent: int) -> tuple[float, float]:
        """The position of agent `agent` (0 is Pacman)."""
        if agent == 0:
            return self.pacman_position
        if not 0 < agent <= len(self[GHOSTS]):
            raise IllegalActionError(self._bad_agent(agent))
        return self[BOARD].coords[self[GHOSTS][agent - 1] // 5]

    # -- presentation --------------------------------------------------------------

    def to_text(self) -> str:
        """The board as layout-style text: walls, food, capsules, ``P`` and ghosts (``G``, scared ``g``)."""
        layout = self.layout
        h = layout.height
        grid = [["%" if (x, y) in layout.walls else " " for x in range(layout.width)] for y in range(h)]
        for x, y in self.food:
            grid[y][x] = "."
        for x, y in self.capsules:
            grid[y][x] = "o"
        for (x, y), timer in zip(self.ghost_positions, self.scared_timers):
            grid[int(y + 0.5)][int(x + 0.5)] = "g" if timer else "G"
        x, y = self.pacman_position
        grid[y][x] = "P"
        return "\n".join("".join(row) for row in reversed(grid))

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        status = ("playing", "won", "lost")[self[STATUS]]
        return (
            f"GameState(layout={self.layout.name!r}, score={self.score}, {status}, "
            f"pacman={self.pacman_position}, ghosts={self.ghost_positions}, "
            f"scared={self.scared_timers}, food={self.food_count}, capsules={self.capsules})"
        )

    def __reduce__(self):
        # The layout (which pickles as its text, name and path) instead of the board:
        # the board is found again, or built once, where the state is unpickled.
        return (_rebuild, (self.layout, self.position_key))

    def _bad_agent(self, agent: object) -> str:
        return f"agent {agent!r} does not exist: this game has agents 0..{len(self[GHOSTS])}"

    def _first_illegal(self, agent: int, actions: Iterable[object]) -> str:
        legal = self.legal_actions(agent)
        for action in actions:
            if not isinstance(action, Hashable) or action not in legal:
                return self._bad_action(agent, action)
        return self._bad_action(agent, actions)

    def _bad_action(self, agent: int, action: object) -> str:
        legal = ", ".join(a.value for a in self.legal_actions(agent))
        who = "Pacman" if agent == 0 else f"ghost {agent}"
        return (
            f"illegal action {action!r} for {who} (agent {agent}) at {self.agent_position(agent)}; "
            f"legal: {legal}"
        )


def _rebuild(layout: Layout, position_key: tuple) -> GameState:
    """A state from its layout and `GameState.position_key` (unpickling; seven fields: no heading)."""
    if len(position_key) == HEADING - 1:
        position_key += (None,)
    return _new(GameState, (_Board.of(layout),) + position_key)


def _pacman_collisions(state: GameState) -> GameState:
    """Pacman has just moved onto or beside ghosts: resolve each collision in ghost order.

    A scared ghost is eaten (+GHOST_POINTS, sent home); any other catches Pacman
    (-LOSE_POINTS, lost) unless this move has already won. Every colliding ghost counts.
    """
    board, pac, food, capsules, ghosts, timers, score, status, heading = state
    ghosts = list(ghosts)
    timers = list(timers)
    near = board.near
    for i, g in enumerate(ghosts):
        if pac in near[g]:
            if timers[i]:
                score += GHOST_POINTS
                ghosts[i] = board.starts[i + 1] * 5 + _NO_DIRECTION
                timers[i] = 0
            elif status != _WON:
                score -= LOSE_POINTS
                status = _LOST
    return _new(GameState, (board, pac, food, capsules, tuple(ghosts), tuple(timers), score, status, heading))


def _headed(states: list[GameState], actions: Iterable[Action], heading: int) -> list[GameState]:
    """`states`, Pacman's successors by `actions`, each with his heading after its action: the action's
    direction, or for Stop the heading he had (`HEADING`)."""
    return [_new(GameState, state[:HEADING] + (heading if action is Action.STOP else _DIRECTION_INDEX[action],))
            for state, action in zip(states, actions)]
