"""The game state: immutable, hashable, compact, and fast enough to sit inside every search node.

A `GameState` is a tuple of small ints. Positions live on a doubled grid so that a
scared ghost's half-cell position is an int too: position ``p = (2x) * S + 2y``
with ``S = 2 * height``. A ghost is stored as ``p * 5 + d``, its position and its
last direction (0-3 for North, South, East, West; 4 for none), which indexes the
move tables directly. Food and capsules are bitmask ints. Every table is built once
per layout (`_Board`) and shared by all states of that layout.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import TYPE_CHECKING, Any

from pacman.actions import ACTIONS, DIRECTIONS, Action
from pacman.errors import IllegalActionError, PacmanError, TerminalStateError
from pacman.rules import GHOST_POINTS, LOSE_POINTS, SCARED_TIME

if TYPE_CHECKING:
    from pacman.layout import Layout

__all__ = ["GameState"]

_PLAYING, _WON, _LOST = 0, 1, 2
_NO_DIRECTION = 4
_DIRECTION_INDEX = {action: i for i, action in enumerate(DIRECTIONS)}
_new = tuple.__new__


class _Board:
    """Per-layout tables shared by every state of one layout. Built once, never changed."""

    __slots__ = (
        "layout", "stride", "coords", "bit", "pac_legal", "pac_moves", "pac_next",
        "ghost_next", "scared_next",
        "ghost_legal", "ghost_moves", "scared_moves", "snap", "near", "touch", "starts",
        "cell_of_bit",
    )

    def __init__(self, layout: Layout) -> None:
        w, h = layout.width, layout.height
        s = 2 * h
        self.layout = layout
        self.stride = s
        size = 2 * w * s
        open_cell = [[not layout.is_wall(x, y) for y in range(h)] for x in range(w)]

        def pos(x2: int, y2: int) -> int:
            return x2 * s + y2

        # coords[p]: the (x, y) of a doubled-grid position, ints on cells, x.5 between.
        self.coords: list[tuple[float, float] | None] = [None] * size
        self.bit = [0] * size
        self.cell_of_bit: list[tuple[int, int]] = [(0, 0)] * (w * h)
        for x2 in range(2 * w):
            for y2 in range(s):
                x = x2 // 2 if x2 % 2 == 0 else x2 / 2
                y = y2 // 2 if y2 % 2 == 0 else y2 / 2
                self.coords[pos(x2, y2)] = (x, y)
        for x in range(w):
            for y in range(h):
                self.bit[pos(2 * x, 2 * y)] = 1 << (x * h + y)
                self.cell_of_bit[x * h + y] = (x, y)

        # Pacman: on cells only. Legal actions in N, S, E, W order, then Stop.
        self.pac_legal: list[tuple[Action, ...]] = [()] * size
        self.pac_moves: list[dict[Action, Any] | None] = [None] * size
        self.pac_next: list[tuple[tuple[int, int, frozenset[int]], ...]] = [()] * size
        for x in range(w):
            for y in range(h):
                if not open_cell[x][y]:
                    continue
                moves: dict[Action, int] = {}
                for action in DIRECTIONS:
                    dx, dy = action.vector
                    if not layout.is_wall(x + dx, y + dy):
                        moves[action] = pos(2 * (x + dx), 2 * (y + dy))
                moves[Action.STOP] = pos(2 * x, 2 * y)
                p = pos(2 * x, 2 * y)
                self.pac_moves[p] = moves
                self.pac_legal[p] = tuple(moves)

        # Ghosts: key k = p * 5 + last direction. On a cell: any open neighbour, no
        # Stop, no reverse unless it is the only move. Between two cells (scared,
        # half-way): only straight on. Full-speed moves exist on cells only, since a
        # ghost that is not scared is never between cells.
        self.ghost_legal: list[tuple[Action, ...]] = [()] * (size * 5)
        self.ghost_moves: list[dict[Action, int] | None] = [None] * (size * 5)
        self.scared_moves: list[dict[Action, int] | None] = [None] * (size * 5)
        self.ghost_next: list[tuple[int, ...]] = [()] * (size * 5)
        self.scared_next: list[tuple[int, ...]] = [()] * (size * 5)
        self.snap = list(range(size * 5))
        self.near: list[tuple[int, ...]] = [()] * (size * 5)
        for x2 in range(2 * w):
            for y2 in range(s):
                on_cell = x2 % 2 == 0 and y2 % 2 == 0
                p = pos(x2, y2)
                if on_cell:
                    if not open_cell[x2 // 2][y2 // 2]:
                        continue
                    touching = (p,)
                elif x2 % 2 == 1 and y2 % 2 == 0:
                    a, b = (x2 - 1) // 2, (x2 + 1) // 2
                    if b >= w or not (open_cell[a][y2 // 2] and open_cell[b][y2 // 2]):
                        continue
                    touching = (pos(2 * a, y2), pos(2 * b, y2))
                elif x2 % 2 == 0 and y2 % 2 == 1:
                    a, b = (y2 - 1) // 2, (y2 + 1) // 2
                    if b >= h or not (open_cell[x2 // 2][a] and open_cell[x2 // 2][b]):
                        continue
                    touching = (pos(x2, 2 * a), pos(x2, 2 * b))
                else:
                    continue
                # x.5 rounds up: the snap goes to the higher of the two cells.
                snapped = pos(x2 + x2 % 2, y2 + y2 % 2)
                for d in range(5):
                    k = p * 5 + d
                    self.near[k] = touching
                    self.snap[k] = snapped * 5 + d
                    if on_cell:
                        options = [a for a in DIRECTIONS if not layout.is_wall(x2 // 2 + a.vector[0], y2 // 2 + a.vector[1])]
                        if d != _NO_DIRECTION:
                            back = DIRECTIONS[d].reverse
                            if back in options and len(options) > 1:
                                options.remove(back)
                    elif d == _NO_DIRECTION:
                        continue  # between cells a ghost always has a direction
                    else:
                        options = [DIRECTIONS[d]]
                    full: dict[Action, int] = {}
                    half: dict[Action, int] = {}
                    for action in options:
                        dx, dy = action.vector
                        nd = _DIRECTION_INDEX[action]
                        half[action] = pos(x2 + dx, y2 + dy) * 5 + nd
                        if on_cell:
                            full[action] = pos(x2 + 2 * dx, y2 + 2 * dy) * 5 + nd
                    self.ghost_legal[k] = tuple(options)
                    self.scared_moves[k] = half
                    self.scared_next[k] = tuple(half.values())
                    if on_cell:
                        self.ghost_moves[k] = full
                        self.ghost_next[k] = tuple(full.values())
        # touch[p]: every ghost key whose ghost collides with Pacman on cell p.
        touch: list[set[int]] = [set() for _ in range(size)]
        for k, cells in enumerate(self.near):
            for p in cells:
                touch[p].add(k)
        self.touch = [frozenset(keys) for keys in touch]
        # Pacman's moves as (target, its bit, ghost keys that collide there): one
        # unpack per successor in the hot loop instead of three lookups.
        for p, moves in enumerate(self.pac_moves):
            if moves is not None:
                steps = {a: (q, self.bit[q], self.touch[q]) for a, q in moves.items()}
                self.pac_moves[p] = steps
                self.pac_next[p] = tuple(steps.values())
        self.starts = tuple(pos(2 * x, 2 * y) for x, y in layout.agent_starts)

    @classmethod
    def of(cls, layout: Layout) -> _Board:
        """The board of a layout, built on first use and kept on the layout itself."""
        return layout.derived("board", cls)

    def cells(self, mask: int) -> tuple[tuple[int, int], ...]:
        """The (x, y) cells of the set bits of a food or capsule mask, in (x, y) order."""
        out = []
        while mask:
            low = mask & -mask
            out.append(self.cell_of_bit[low.bit_length() - 1])
            mask ^= low
        return tuple(out)


class GameState(tuple):
    """One position of a game: immutable, hashable, equal by value.

    Build the first one with `GameState.initial` and the rest with `successor`.
    The state does not know whose turn it is; callers pass the agent index
    (Pacman is 0, ghosts 1..n).

    >>> from pacman import load_layout
    >>> state = GameState.initial(load_layout("test"))
    >>> state.legal_actions(0)[-1]
    <Action.STOP: 'Stop'>
    >>> state.successor(0, Action.STOP).score
    -1
    """

    # Fields: board, pacman position, food mask, capsule mask, ghost keys, scared
    # timers, score, status. A tuple subclass: creation, hashing and equality run in C.
    __slots__ = ()

    @classmethod
    def initial(cls, layout: Layout, num_ghosts: int | None = None) -> GameState:
        """The start of a game on `layout`, keeping the first `num_ghosts` ghosts (all if None)."""
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
        return tuple.__new__(cls, (board, board.starts[0], food, capsules, ghosts, (0,) * num_ghosts, 0, _PLAYING))

    # -- rules -------------------------------------------------------------------

    def legal_actions(self, agent: int) -> tuple[Action, ...]:
        """The actions `agent` may take, in North, South, East, West, Stop order; () when terminal."""
        board, pac, _, _, ghosts, timers, _, status = self
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
        # shape (locals, literals, common cases first) is for speed.
        board, pac, food, capsules, ghosts, timers, score, status = self
        if status:
            if actions is None:
                return []
            raise TerminalStateError(
                f"no successor of a terminal state ({'won' if status == _WON else 'lost'}): "
                f"agent {agent} cannot take {', '.join(map(str, actions))}"
            )
        out: list[GameState] = []
        append = out.append
        if agent == 0:
            if actions is None:
                targets = board.pac_next[pac]
            else:
                try:
                    targets = [board.pac_moves[pac][action] for action in actions]
                except (KeyError, TypeError):
                    raise IllegalActionError(self._first_illegal(agent, actions)) from None
            eat = food | capsules
            moved = score - 1
            for p, bit, touch in targets:
                # Literals for speed: MOVE_COST 1, FOOD_POINTS 10, WIN_POINTS 500 (pacman.rules).
                if not eat & bit:
                    state = _new(GameState, (board, p, food, capsules, ghosts, timers, moved, 0))
                elif food & bit:
                    left = food ^ bit
                    if left:
                        state = _new(GameState, (board, p, left, capsules, ghosts, timers, score + 9, 0))
                    else:
                        state = _new(GameState, (board, p, left, capsules, ghosts, timers, score + 509, _WON))
                else:
                    scared = (SCARED_TIME,) * len(ghosts)
                    state = _new(GameState, (board, p, food, capsules ^ bit, ghosts, scared, score - 1, 0))
                if not touch.isdisjoint(ghosts):
                    state = _pacman_collisions(state)
                append(state)
            return out

        i = agent - 1
        if not 0 <= i < len(ghosts):
            raise IllegalActionError(self._bad_agent(agent))
        key = ghosts[i]
        before, after = ghosts[:i], ghosts[i + 1:]
        timer = timers[i]
        near = board.near
        if not timer:
            if actions is None:
                targets = board.ghost_next[key]
            else:
                try:
                    targets = [board.ghost_moves[key][action] for action in actions]
                except (KeyError, TypeError):
                    raise IllegalActionError(self._first_illegal(agent, actions)) from None
            caught = board.touch[pac]
            for g in targets:
                moved = before + (g,) + after if before else (g,) + after
                if g in caught:  # caught by a ghost that is not scared
                    append(_new(GameState, (board, pac, food, capsules, moved, timers, score - 500, _LOST)))
                else:
                    append(_new(GameState, (board, pac, food, capsules, moved, timers, score, 0)))
            return out

        # A scared ghost moves half a cell; its timer drops after each of its own
        # moves, and on reaching 0 the ghost snaps to the nearest cell (x.5 rounds up).
        if actions is None:
            targets = board.scared_next[key]
        else:
            try:
                targets = [board.scared_moves[key][action] for action in actions]
            except (KeyError, TypeError):
                raise IllegalActionError(self._first_illegal(agent, actions)) from None
        timer -= 1
        for g in targets:
            new_score, new_status, new_timer = score, 0, timer
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
            append(_new(GameState, (board, pac, food, capsules, before + (g,) + after, new_timers, new_score, new_status)))
        return out

    # -- questions ---------------------------------------------------------------

    def is_win(self) -> bool:
        """True once Pacman has eaten the last food."""
        return self[7] == _WON

    def is_lose(self) -> bool:
        """True once a ghost that is not scared has caught Pacman."""
        return self[7] == _LOST

    def is_terminal(self) -> bool:
        """True when the game is won or lost: no agent has a move."""
        return self[7] != _PLAYING

    @property
    def layout(self) -> Layout:
        """The layout this game is played on."""
        return self[0].layout

    @property
    def num_agents(self) -> int:
        """1 + the number of ghosts: Pacman is agent 0."""
        return 1 + len(self[4])

    @property
    def num_ghosts(self) -> int:
        """How many ghosts are in the game."""
        return len(self[4])

    @property
    def score(self) -> int:
        """The game score so far."""
        return self[6]

    @property
    def pacman_position(self) -> tuple[int, int]:
        """Pacman's cell (x, y)."""
        return self[0].coords[self[1]]

    @property
    def ghost_positions(self) -> tuple[tuple[float, float], ...]:
        """Each ghost's (x, y), in agent order; a scared ghost may stand half-way: (3.5, 4)."""
        coords = self[0].coords
        return tuple(coords[k // 5] for k in self[4])

    @property
    def ghost_directions(self) -> tuple[Action, ...]:
        """Each ghost's last direction; STOP for a ghost that has not moved since (re)starting."""
        return tuple(ACTIONS[k % 5] for k in self[4])

    @property
    def scared_timers(self) -> tuple[int, ...]:
        """Each ghost's remaining scared moves (0: not scared)."""
        return self[5]

    @property
    def food_count(self) -> int:
        """Food dots left."""
        return self[2].bit_count()

    @property
    def food_mask(self) -> int:
        """The food as a bitmask: bit ``x * height + y`` is set when cell (x, y) holds food."""
        return self[2]

    @property
    def capsule_mask(self) -> int:
        """The capsules as a bitmask, numbered like `food_mask`."""
        return self[3]

    @property
    def food(self) -> frozenset[tuple[int, int]]:
        """The cells that still hold food."""
        return frozenset(self[0].cells(self[2]))

    @property
    def capsules(self) -> tuple[tuple[int, int], ...]:
        """The cells that still hold a capsule, in (x, y) order."""
        return self[0].cells(self[3])

    def has_food(self, x: int, y: int) -> bool:
        """True if cell (x, y) holds food."""
        layout = self[0].layout
        return 0 <= x < layout.width and 0 <= y < layout.height and bool(self[2] >> (x * layout.height + y) & 1)

    def agent_position(self, agent: int) -> tuple[float, float]:
        """The position of agent `agent` (0 is Pacman)."""
        if agent == 0:
            return self.pacman_position
        if not 0 < agent <= len(self[4]):
            raise IllegalActionError(self._bad_agent(agent))
        return self[0].coords[self[4][agent - 1] // 5]

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
        status = ("playing", "won", "lost")[self[7]]
        return (
            f"GameState(layout={self.layout.name!r}, score={self.score}, {status}, "
            f"pacman={self.pacman_position}, ghosts={self.ghost_positions}, "
            f"scared={self.scared_timers}, food={self.food_count}, capsules={self.capsules})"
        )

    def __reduce__(self):
        return (_rebuild, (tuple(self),))

    def _bad_agent(self, agent: object) -> str:
        return f"agent {agent!r} does not exist: this game has agents 0..{len(self[4])}"

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


def _rebuild(fields: tuple) -> GameState:
    return tuple.__new__(GameState, fields)


def _pacman_collisions(state: GameState) -> GameState:
    """Pacman has just moved onto or beside ghosts: resolve each collision in ghost order.

    A scared ghost is eaten (+200, sent home); any other catches Pacman (-500, lost)
    unless this move has already won. Every colliding ghost counts.
    """
    board, pac, food, capsules, ghosts, timers, score, status = state
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
    return _new(GameState, (board, pac, food, capsules, tuple(ghosts), tuple(timers), score, status))
