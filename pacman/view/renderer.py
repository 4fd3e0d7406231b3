"""Drawing a game state with pygame: the maze as connected wall tubes, food, pulsing capsules,
a chomping Pacman, ghosts with eyes, a status bar, and the agent's values.

A `Renderer` draws onto any `pygame.Surface` and needs no window; `frame()` gives
an RGB numpy array (render mode "rgb_array"). The static maze is drawn once per
renderer and blitted under every frame.
"""

from __future__ import annotations

import math
from typing import Any

from pacman.actions import Action
from pacman.resources import palette
from pacman.state import GameState

__all__ = ["Renderer", "agent_label", "duration_text", "cell_center", "cell_pixels", "frame_size", "search_view", "decision_for", "MIN_ZOOM", "MAX_ZOOM",
           "MAX_FRAME_PIXELS", "MAX_FRAME_SIDE"]

_STATUS_HEIGHT = 30
_PANEL_WIDTH = 210
_MIN_AREA_WIDTH = 240
"""The board area is at least this wide (narrow layouts are centred in it), so the status line and banner fit."""
_MIN_AREA_HEIGHT = 80
_PANEL_HEIGHT = 344
"""Height the values panel needs: title, evaluation, five actions, search figures."""
_TREE_WIDTH = 600
"""Width of the tree panel (the `t` key): room for five Pacman actions and the first ghost's answers."""
_TREE_HEIGHT = 400
"""The least height of the board area when the tree panel is shown."""
_TREE_SCALE = 1.5
"""The tree panel never draws its tree larger than this (units to pixels); smaller when it must fit."""

MIN_ZOOM, MAX_ZOOM = 0.1, 8.0
"""The range of --zoom: 1 is 32-pixel cells; cells are never under 8 pixels."""
MAX_FRAME_PIXELS = 8_388_608
"""The largest frame drawn or recorded, in pixels: 8 megapixels, a 4K screen (an RGB frame of 24 MB)."""
MAX_FRAME_SIDE = 16384
"""The widest or tallest frame (SDL's usual texture limit)."""


def cell_pixels(zoom: float) -> int:
    """Pixels per cell at `zoom`: 32 at zoom 1, never under 8."""
    return max(8, round(32 * zoom))


def frame_size(layout: Any, cell: int, panel: bool = False, tree: bool = False) -> tuple[int, int]:
    """(width, height) in pixels of a frame of `layout` at `cell` pixels per cell (with the values `panel` and
    the `tree` panel), computed without pygame."""
    board_w, board_h = layout.width * cell, layout.height * cell
    area_w = max(board_w, _MIN_AREA_WIDTH)
    area_h = max(board_h, _MIN_AREA_HEIGHT, _PANEL_HEIGHT if panel else 0, _TREE_HEIGHT if tree else 0)
    return area_w + (_PANEL_WIDTH if panel else 0) + (_TREE_WIDTH if tree else 0), area_h + _STATUS_HEIGHT


def search_view(agent: Any, last: Any = None) -> dict[str, Any]:
    """What a view shows of `agent`'s last decision: ``values``, ``chosen`` and ``info`` for `Renderer.draw`.
    `last`: the decision to show in place of the agent's own `last_search`."""
    if last is None:
        last = getattr(agent, "last_search", None)
    if last is None:
        return {"values": None, "chosen": None, "info": None}
    return {"values": getattr(last, "action_values", None), "chosen": getattr(last, "action", None),
            "info": search_panel(agent, last)}


def search_panel(agent: Any, search: Any) -> dict[str, Any]:
    """The ``info`` of `Renderer.draw` for `agent`'s decision `search` (a `SearchInfo`): depth, nodes, time,
    evaluation and whether it was remembered."""
    return {"depth": search.depth, "nodes": search.nodes, "ms": search.milliseconds,
            "evaluation": getattr(agent, "evaluation_name", None), "cached": remembered(search)}


def remembered(search: Any) -> bool:
    """Whether a `last_search` is a decision the agent remembered rather than searched (its ``extra["cached"]``:
    the search agents' decision cache, docs/search-strength.md, "Deeper on small mazes")."""
    extra = getattr(search, "extra", None)
    return bool(extra.get("cached")) if isinstance(extra, dict) else False


def agent_label(agent: Any) -> str | None:
    """The values panel's line about Pacman's agent: "evaluation: better" for an agent with an evaluation,
    else what it is ("agent: keyboard", "agent: GreedyAgent"); None without an agent."""
    if agent is None:
        return None
    evaluation = getattr(agent, "evaluation_name", None)
    if evaluation:
        return f"evaluation: {evaluation}"
    if getattr(agent, "wants_keys", False):
        return "agent: keyboard"
    return f"agent: {type(agent).__name__}"


def duration_text(ms: float | None) -> str:
    """A search's time as the panels write it: microseconds under a millisecond ("850 us" with the micro
    sign), milliseconds with one decimal above."""
    if ms is None or not math.isfinite(ms):
        return "?"
    if ms < 1:
        return f"{round(ms * 1000)} \u00b5s"
    return f"{ms:,.1f} ms"


def decision_for(agent: Any, state: GameState | None, info: Any = None) -> Any:
    """The top of `agent`'s decision in `state` for the tree panel (an `pacman.agents.decision.DecisionNode`), or a
    sentence saying why there is none. `info` (the agent's `last_search`) gives the depth it completed."""
    from pacman.agents.decision import decision_tree
    from pacman.errors import PacmanError

    if state is None:
        return None
    if not hasattr(agent, "ghosts_minimise"):
        return f"{type(agent).__name__} does not search: no tree to show"
    try:
        return decision_tree(agent, state, depth=getattr(info, "depth", None))
    except PacmanError as exc:
        return str(exc)


def _pygame() -> Any:
    try:
        import pygame
    except ImportError:
        raise ImportError('the pygame view needs pygame: pip install pygame-ce') from None
    if not pygame.font.get_init():
        pygame.font.init()
    return pygame


class Renderer:
    """Draws states of one layout at `cell` pixels per cell; `panel` adds the values panel on the right,
    `tree` the tree panel (the top of the decision just made) to the right of that.

    The frame is the board area (the board, centred in it when the layout is
    narrower or shorter than the status line, banner or panels need), the panels on
    its right, and the status line across the bottom.
    """

    def __init__(self, layout: Any, cell: int = 32, panel: bool = False, tree: bool = False) -> None:
        self.pg = _pygame()
        self.layout = layout
        self.cell = cell
        self.panel = panel
        self.tree = tree
        self.colours = palette()
        self.board_size = (layout.width * cell, layout.height * cell)
        self.size = frame_size(layout, cell, panel, tree)
        self.area_size = (self.size[0] - (_PANEL_WIDTH if panel else 0) - (_TREE_WIDTH if tree else 0),
                          self.size[1] - _STATUS_HEIGHT)
        self.tree_left = self.area_size[0] + (_PANEL_WIDTH if panel else 0)
        self._tree_drawn: tuple[Any, Any] | None = None
        """(what was drawn, its surface): the last tree panel's picture, redrawn only when the decision changes."""
        self.board_offset = ((self.area_size[0] - self.board_size[0]) // 2,
                             (self.area_size[1] - self.board_size[1]) // 2)
        self.panel_left = self.area_size[0]
        self.font = self.pg.font.Font(None, max(18, _STATUS_HEIGHT - 6))
        self.small_font = _SmoothFont(self.pg, 22)
        self.banner_font = self.pg.font.Font(None, max(28, cell * 2))
        self._maze = self._draw_maze()
        self.agent: str | None = None
        """The values panel's line about the agent (`agent_label`) when the search gives no evaluation."""
        self.last_layout: dict[str, Any] = {}
        """Where the last frame put its status text and banner (pygame.Rect) and its panel lines ((text, Rect)),
        for tests."""

    # -- geometry ----------------------------------------------------------------------

    def center(self, position: tuple[float, float]) -> tuple[float, float]:
        """Pixel centre of a board position (half-way positions included)."""
        x, y = position
        ox, oy = getattr(self, "board_offset", (0, 0))
        return (ox + (x + 0.5) * self.cell, oy + (self.layout.height - 1 - y + 0.5) * self.cell)

    # -- the static maze ---------------------------------------------------------------

    def _draw_maze(self) -> Any:
        pg, c, colours = self.pg, self.cell, self.colours
        surface = pg.Surface(self.board_size)
        surface.fill(colours["background"])
        walls = self.layout.walls
        ox, oy = self.board_offset
        outer = max(4, int(c * 0.5))
        inner = max(2, outer - max(3, c // 8))
        for width, colour in ((outer, colours["wall"]), (inner, colours["wall_fill"])):
            for (x, y) in walls:
                cx, cy = self.center((x, y))
                cx, cy = cx - ox, cy - oy
                for dx, dy in ((1, 0), (0, 1)):
                    if (x + dx, y + dy) in walls:
                        nx, ny = self.center((x + dx, y + dy))
                        pg.draw.line(surface, colour, (cx, cy), (nx - ox, ny - oy), width)
                pg.draw.circle(surface, colour, (cx, cy), width / 2)
        return surface

    # -- a frame -----------------------------------------------------------------------

    def frame(self, state: GameState, **options: Any) -> Any:
        """The drawing of `state` as an (height, width, 3) uint8 array; options as for `draw`."""
        surface = self.pg.Surface(self.size)
        self.draw(surface, state, **options)
        return surface_rgb(surface)

    def draw(self, surface: Any, state: GameState, *, previous: GameState | None = None, fraction: float = 1.0,
             pacman_direction: Action | None = None, tick: int = 0, move: int | None = 0,
             values: dict[Action, float] | None = None, chosen: Action | None = None,
             info: dict[str, Any] | None = None, banner: str | None = None, decision: Any = None) -> None:
        """Draw `state` (gliding from `previous` by `fraction`) with the status bar, banner and panels.

        `decision`, for the tree panel: an `pacman.agents.decision.DecisionNode`, or a string
        to show in its place (why there is no tree), or None (nothing decided yet).
        """
        pg, c, colours = self.pg, self.cell, self.colours
        surface.fill(colours["background"])
        surface.blit(self._maze, self.board_offset)
        self.last_layout = {}
        for position in state.food:
            pg.draw.circle(surface, colours["food"], self.center(position), max(2, c * 0.1))
        pulse = 0.22 + 0.07 * math.sin(tick * 0.35)
        for position in state.capsules:
            pg.draw.circle(surface, colours["capsule"], self.center(position), max(3, c * pulse))

        def glide(old: tuple[float, float] | None, new: tuple[float, float]) -> tuple[float, float]:
            if old is None or fraction >= 1.0 or abs(old[0] - new[0]) + abs(old[1] - new[1]) > 1.0:
                return new
            return (old[0] + (new[0] - old[0]) * fraction, old[1] + (new[1] - old[1]) * fraction)

        old_ghosts = previous.ghost_positions if previous is not None else (None,) * state.num_ghosts
        for index, (position, old, direction, timer) in enumerate(
            zip(state.ghost_positions, old_ghosts, state.ghost_directions, state.scared_timers)
        ):
            self._draw_ghost(surface, glide(old, position), index, direction, timer, tick)
        pacman = glide(previous.pacman_position if previous is not None else None, state.pacman_position)
        if values:
            self._draw_arrows(surface, pacman, values, chosen)
        self._draw_pacman(surface, pacman, pacman_direction or Action.EAST, tick)
        self._draw_status(surface, state, move)
        if banner:
            self._draw_banner(surface, banner, state)
        if self.panel:
            self._draw_panel(surface, values, chosen, info)
        if self.tree:
            self._draw_tree_panel(surface, decision)

    def _draw_pacman(self, surface: Any, position: tuple[float, float], facing: Action, tick: int) -> None:
        pg, c = self.pg, self.cell
        cx, cy = self.center(position)
        radius = c * 0.42
        pg.draw.circle(surface, self.colours["pacman"], (cx, cy), radius)
        opening = math.radians(4 + 36 * abs(math.sin(tick * 0.45)))
        heading = {Action.EAST: 0.0, Action.NORTH: math.pi / 2, Action.WEST: math.pi,
                   Action.SOUTH: -math.pi / 2}.get(facing, 0.0)
        reach = radius * 1.15
        points = [(cx, cy)]
        for angle in (heading - opening, heading, heading + opening):
            points.append((cx + reach * math.cos(angle), cy - reach * math.sin(angle)))
        pg.draw.polygon(surface, self.colours["background"], points)

    def _draw_ghost(self, surface: Any, position: tuple[float, float], index: int, direction: Action,
                    timer: int, tick: int) -> None:
        pg, c, colours = self.pg, self.cell, self.colours
        cx, cy = self.center(position)
        if timer:
            body = colours["scared_flash"] if timer <= 5 and tick % 2 else colours["scared"]
        else:
            body = colours["ghosts"][index % len(colours["ghosts"])]
        r = c * 0.42
        top = cy - r * 0.15
        pg.draw.circle(surface, body, (cx, top), r)
        pg.draw.rect(surface, body, pg.Rect(cx - r, top, 2 * r, r * 1.05))
        feet = 4
        for i in range(feet):  # a wavy skirt: small bumps along the bottom edge
            fx = cx - r + (i + 0.5) * (2 * r / feet)
            pg.draw.circle(surface, body, (fx, top + r * 1.05), r / feet)
        dx, dy = direction.vector
        if timer:
            for side in (-1, 1):
                pg.draw.circle(surface, colours["ghost_eyes"], (cx + side * r * 0.35, top - r * 0.1), max(1, r * 0.12))
            pg.draw.line(surface, colours["ghost_eyes"], (cx - r * 0.5, top + r * 0.45),
                         (cx + r * 0.5, top + r * 0.45), max(1, int(c / 16)))
            return
        for side in (-1, 1):
            ex, ey = cx + side * r * 0.38, top - r * 0.1
            pg.draw.circle(surface, colours["ghost_eyes"], (ex, ey), r * 0.28)
            pg.draw.circle(surface, colours["ghost_pupils"], (ex + dx * r * 0.12, ey - dy * r * 0.12), r * 0.13)

    def _draw_arrows(self, surface: Any, pacman: tuple[float, float], values: dict[Action, float],
                     chosen: Action | None) -> None:
        """Arrows around Pacman where he is drawn (gliding too), longest for the chosen action."""
        pg, c = self.pg, self.cell
        cx, cy = self.center(pacman)
        ranked = sorted(values, key=lambda a: values[a], reverse=True)
        for action in values:
            dx, dy = action.vector
            if (dx, dy) == (0, 0):
                continue
            best = action is chosen
            colour = self.colours["win"] if best else (120, 120, 140)
            length = c * (0.95 if best else 0.75 - 0.1 * ranked.index(action))
            tip = (cx + dx * length, cy - dy * length)
            pg.draw.line(surface, colour, (cx + dx * c * 0.45, cy - dy * c * 0.45), tip, 3 if best else 2)
            back = (-dx, dy)
            side = (dy, dx)
            head = [tip, (tip[0] + back[0] * 7 + side[0] * 5, tip[1] + back[1] * 7 + side[1] * 5),
                    (tip[0] + back[0] * 7 - side[0] * 5, tip[1] + back[1] * 7 - side[1] * 5)]
            pg.draw.polygon(surface, colour, head)

    def _fit(self, label: Any, width: int) -> Any:
        """`label` scaled down to `width` pixels if it is wider: text always fits its box."""
        if label.get_width() <= width:
            return label
        height = max(1, round(label.get_height() * width / label.get_width()))
        return self.pg.transform.smoothscale(label, (max(1, width), height))

    def _draw_status(self, surface: Any, state: GameState, move: int | None) -> None:
        colours = self.colours
        top = self.area_size[1]
        self.pg.draw.rect(surface, colours["background"], self.pg.Rect(0, top, self.size[0], _STATUS_HEIGHT))
        # A state alone does not know how many moves led to it: without `move` the line leaves it out.
        text = f"Score {state.score}   " + (f"Move {move}   " if move is not None else "") + f"Food {state.food_count}"
        label = self._fit(self.font.render(text, True, colours["text"]), self.size[0] - 16)
        rect = surface.blit(label, (8, top + (_STATUS_HEIGHT - label.get_height()) // 2))
        self.last_layout["status"] = rect

    def _draw_banner(self, surface: Any, banner: str, state: GameState) -> None:
        pg = self.pg
        colour = self.colours["win"] if state.is_win() else self.colours["lose"] if state.is_lose() else self.colours["text"]
        width = self.area_size[0]
        label = self._fit(self.banner_font.render(banner, True, colour), width - 16)
        band = pg.Surface((width, label.get_height() + 20), pg.SRCALPHA)
        band.fill((0, 0, 0, 190))
        y = (self.area_size[1] - band.get_height()) // 2
        surface.blit(band, (0, y))
        self.last_layout["banner"] = surface.blit(label, ((width - label.get_width()) // 2, y + 10))

    def _draw_panel(self, surface: Any, values: dict[Action, float] | None, chosen: Action | None,
                    info: dict[str, Any] | None) -> None:
        """Each action's value minus the best one's (the best is 0), under the evaluation's name."""
        pg, colours = self.pg, self.colours
        left, inner = self.panel_left, _PANEL_WIDTH - 24
        pg.draw.rect(surface, (16, 16, 28), pg.Rect(left, 0, _PANEL_WIDTH, self.area_size[1]))
        lines: list[Any] = []

        def put(text: str, font: Any, colour: Any, y: int, right: bool = False) -> None:
            label = self._fit(font.render(text, True, colour), inner)
            x = left + _PANEL_WIDTH - 12 - label.get_width() if right else left + 12
            lines.append((text, surface.blit(label, (x, y))))

        y = 10
        put("What Pacman thinks", self.font, colours["text"], y)
        y += 30
        evaluation = (info or {}).get("evaluation")
        put(f"evaluation: {evaluation}" if evaluation else self.agent or "agent: unknown", self.small_font,
            (170, 170, 190), y)
        y += 24
        put("move", self.small_font, (170, 170, 190), y)
        put("vs best", self.small_font, (170, 170, 190), y, right=True)
        y += 26
        finite = [v for v in (values or {}).values() if math.isfinite(v)]
        best = max(finite) if finite else 0.0
        for action, value in (values or {}).items():
            is_chosen = action is chosen
            if is_chosen:
                pg.draw.rect(surface, colours["pacman"], pg.Rect(left + 6, y - 4, _PANEL_WIDTH - 12, 26), 2)
            colour = colours["pacman"] if is_chosen else colours["text"]
            put(action.value, self.small_font, colour, y)
            put(_relative(value, best), self.small_font, colour, y, right=True)
            y += 30
        if info:
            y = max(y, 10 + 30 + 24 + 26 + 5 * 30) + 8
            for line in (f"depth  {info.get('depth')}", f"nodes  {info.get('nodes')}{' (remembered)' if info.get('cached') else ''}",
                         f"time   {duration_text(info.get('ms'))}"):
                put(line, self.small_font, colours["text"], y)
                y += 24
        self.last_layout["panel"] = lines


    def _draw_tree_panel(self, surface: Any, decision: Any) -> None:
        """The top of the decision just made, drawn as a lecture tree on a white card, scaled to fit."""
        pg, colours = self.pg, self.colours
        left, height = self.tree_left, self.area_size[1]
        pg.draw.rect(surface, (16, 16, 28), pg.Rect(left, 0, _TREE_WIDTH, height))
        lines: list[Any] = []
        title = self._fit(self.font.render("The decision just made", True, colours["text"]), _TREE_WIDTH - 24)
        lines.append(("The decision just made", surface.blit(title, (left + 12, 10))))
        card = pg.Rect(left + 10, 42, _TREE_WIDTH - 20, height - 52)
        if decision is None or isinstance(decision, str):
            text = decision or "waiting for Pacman's first move"
            label = self._fit(self.small_font.render(text, True, (170, 170, 190)), card.width)
            lines.append((text, surface.blit(label, (card.x, card.y + 8))))
            self.last_layout["tree"] = lines
            return
        from pacman.draw.layout import format_value

        ghosts = {"chance": "ghosts are chance nodes", "min": "ghosts are min nodes"}
        kinds = {branch.kind for branch in decision.branches}
        layer = next((ghosts[k] for k in ("chance", "min") if k in kinds), "no ghost moves next")
        for i, text in enumerate((f"Pacman plays {decision.action.value}: value {format_value(decision.value)}",
                                  f"depth {decision.depth:g}; {layer}")):
            label = self._fit(self.small_font.render(text, True, (170, 170, 190)), card.width)
            lines.append((text, surface.blit(label, (card.x + 2, card.y + i * 20))))
        card = pg.Rect(card.x, card.y + 46, card.width, card.height - 46)
        if self._tree_drawn is None or self._tree_drawn[0] is not decision:
            self._tree_drawn = (decision, self._tree_picture(decision, card.width - 12, card.height - 12))
        picture = self._tree_drawn[1]
        # The card is as tall as its tree, not the whole board's height (a tall maze left it mostly empty).
        card = pg.Rect(card.x, card.y, card.width, min(card.height, picture.get_height() + 12))
        pg.draw.rect(surface, (255, 255, 255), card, border_radius=8)
        spot = surface.blit(picture, (card.x + (card.width - picture.get_width()) // 2,
                                      card.y + (card.height - picture.get_height()) // 2))
        self.last_layout["tree_card"] = card
        lines.append(("tree", spot))
        self.last_layout["tree"] = lines

    def _tree_picture(self, decision: Any, width: int, height: int) -> Any:
        """The decision's tree as a surface of at most `width` x `height` pixels (painted by pacman.draw)."""
        from pacman.draw.layout import lay_out
        from pacman.draw.raster import figure_image
        from pacman.draw.trees import decision_top

        figure = lay_out(decision_top(decision), max_width=100_000, max_height=100_000)
        scale = min(_TREE_SCALE, width / figure.width, height / figure.height)
        image = figure_image(figure, scale=scale)
        return self.pg.image.frombytes(image.tobytes(), image.size, "RGB")


class _SmoothFont:
    """pygame's font at a small size, drawn at twice the size and scaled down: the hinting of the default font
    at small sizes leaves uneven gaps between letters ("bet ter"); drawn large, the spacing is the font's."""

    def __init__(self, pg: Any, size: int) -> None:
        self.pg = pg
        self.size = size
        self._font = pg.font.Font(None, size * 2)

    def render(self, text: str, antialias: bool, colour: Any) -> Any:
        pg = self.pg
        large = self._font.render(text, antialias, colour)
        width, height = large.get_size()
        canvas = pg.Surface((width, height), pg.SRCALPHA, 32)
        canvas.blit(large, (0, 0))
        return pg.transform.smoothscale(canvas, (max(1, round(width / 2)), max(1, round(height / 2))))

    def get_height(self) -> int:
        return max(1, round(self._font.get_height() / 2))


def _relative(value: float, best: float) -> str:
    """A value as a difference from the best: "0.0" for the best, "-12.5" below it."""
    if not math.isfinite(value):
        return "-inf" if value < 0 else "+inf" if value > 0 else "?"
    difference = value - best
    return "0.0" if abs(difference) < 0.05 else f"{difference:,.1f}"


def surface_rgb(surface: Any) -> Any:
    """A pygame surface's pixels as a new (height, width, 3) uint8 array (one C copy: ~25x faster than array3d)."""
    import numpy as np
    import pygame

    width, height = surface.get_size()
    return np.frombuffer(bytearray(pygame.image.tobytes(surface, "RGB")), np.uint8).reshape(height, width, 3)


def cell_center(renderer: Renderer, position: tuple[float, float]) -> tuple[float, float]:
    """Pixel centre of a board position in `renderer`'s frames."""
    return renderer.center(position)
