"""A tidy layout of a game tree as lecture slides draw it, shared by every output format.

The input is a tree of `DrawNode`s (what to draw: kind, value text, edge label
and probability, whether it is on the chosen path or cut by the depth). `lay_out`
turns it into a `Figure`: every node's shape, every text's box and every edge's
polyline, in one coordinate system (units are CSS pixels, which are PDF points at
the default scale). The SVG and the raster writers only paint a `Figure`, so the
pictures agree.

The layout is the classic "leaves side by side, parents centred over their
children": each subtree owns a horizontal interval as wide as its widest level
needs, so no two subtrees' boxes can meet. Text widths are measured with the font
the raster writer uses (Pillow's built-in Aileron). A tree too wide or too tall
for one block (`max_width`, `max_height`) is cut into continuation blocks: a node
drawn with a tag ("see B") starts block B further down, and blocks flow left to
right in rows, like a figure continued on the next line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterator

__all__ = ["DrawNode", "Box", "TextItem", "NodeItem", "EdgeItem", "Figure", "lay_out", "text_width",
           "format_value", "format_probability", "MAX", "MIN", "CHANCE", "LEAF", "KINDS",
           "MAX_WIDTH", "MAX_HEIGHT"]

MAX, MIN, CHANCE, LEAF = "max", "min", "chance", "leaf"
KINDS = (MAX, MIN, CHANCE, LEAF)

#: A block of the tree wider or taller than this (in units) is continued in further blocks.
MAX_WIDTH = 1600.0
MAX_HEIGHT = 1400.0

VALUE_SIZE = 13.0
"""Font size of the values written in the nodes."""
LABEL_SIZE = 12.0
"""Font size of action labels and probabilities on edges."""
CAPTION_SIZE = 14.0
LINE = 1.25
"""Line height as a multiple of the font size."""
H_GAP = 8.0
"""Least horizontal space between two nodes' columns."""
EDGE_RISE = 26.0
"""Vertical run of an edge between a parent's shape and its child's label band."""
LABEL_GAP = 3.0
"""Space between a label band and the shape under it."""
MARGIN = 16.0
BLOCK_GAP = 36.0
"""Space between continuation blocks (across and down)."""
LABEL_CHARS = 18
"""Edge labels longer than this wrap onto further lines."""


@dataclass
class DrawNode:
    """One node to draw: what it is and what is written at it. Children are drawn left to right."""

    kind: str
    """MAX, MIN, CHANCE or LEAF."""
    value: str
    """The text written in the node, e.g. "54.5" or, for a node cut by the depth, "h=5"."""
    children: list[DrawNode] = field(default_factory=list)
    label: str = ""
    """The action on the edge into this node ("" for none)."""
    probability: str = ""
    """The probability on the edge into this node, for children of chance nodes ("" for none)."""
    on_path: bool = False
    """On the chosen path: the node and the edge into it are highlighted."""
    cut: bool = False
    """Cut off by the depth limit: its value is the heuristic; drawn with a dashed outline."""
    title: str = ""
    """A longer description (an SVG tooltip), e.g. the full label and the exact value."""


@dataclass(frozen=True)
class Box:
    """An axis-aligned rectangle: left, top, width, height."""

    x: float
    y: float
    w: float
    h: float

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h

    def overlaps(self, other: Box) -> bool:
        """True if the two rectangles share interior points (touching edges do not count)."""
        return self.x < other.right and other.x < self.right and self.y < other.bottom and other.y < self.bottom

    def moved(self, dx: float, dy: float) -> Box:
        return Box(self.x + dx, self.y + dy, self.w, self.h)


@dataclass(frozen=True)
class TextItem:
    """One line of text, centred in `box`; `role` says what it is ("value", "label", "probability",
    "tag", "caption", "summary") and sets its style."""

    text: str
    box: Box
    size: float
    role: str
    on_path: bool = False


@dataclass(frozen=True)
class NodeItem:
    """A node's shape in its bounding box, with its value text inside."""

    node: DrawNode
    box: Box
    value: TextItem
    ident: int
    """The node's number in depth-first order over the whole tree (stable across blocks)."""
    tag: str = ""
    """A continuation tag: "B" on a stub node continued in block B, or on the root of block B."""


@dataclass(frozen=True)
class EdgeItem:
    """Line segments from a parent's shape to its child's: broken where the edge's label is written."""

    segments: tuple[tuple[tuple[float, float], tuple[float, float]], ...]
    on_path: bool
    child: int
    """The `ident` of the child node."""


@dataclass
class Figure:
    """Everything to paint, in units; width and height include the margins."""

    width: float
    height: float
    nodes: list[NodeItem] = field(default_factory=list)
    edges: list[EdgeItem] = field(default_factory=list)
    texts: list[TextItem] = field(default_factory=list)
    frames: list[Box] = field(default_factory=list)
    """Light frames around continuation blocks."""

    def boxes(self) -> Iterator[tuple[str, Box]]:
        """Every node's shape box and every text's box outside a node (for overlap checks)."""
        for node in self.nodes:
            yield f"node {node.ident}", node.box
        for text in self.texts:
            yield f"{text.role} {text.text!r}", text.box


# -- text ------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _measuring_font() -> object:
    from PIL import ImageFont

    return ImageFont.load_default(size=100)


@lru_cache(maxsize=4096)
def text_width(text: str, size: float) -> float:
    """The width of `text` at font `size`, in units, with a small safety margin (fonts hint small sizes wider)."""
    font = _measuring_font()
    length = font.getlength(text) if hasattr(font, "getlength") else 6.0 * len(text) * 100 / 11
    return math.ceil(length * size / 100 * 1.06 + 1)


def format_value(value: float, compact: bool = False) -> str:
    """A node value as written in a drawing: whole numbers as such, others to two decimals ("54.5", "3.33");
    `compact` rounds values of 100 or more to whole numbers ("-4638.5" -> "-4638"), for narrow panels."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if abs(value) >= 1e9:
        return f"{value:.3g}"
    if compact and abs(value) >= 100:
        return str(round(value)) if round(value) != 0 else "0"
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def format_probability(p: float) -> str:
    """A probability as a small fraction when it is one ("1/3", "1/2", "1"), else to two decimals ("0.27")."""
    for denominator in range(1, 13):
        numerator = round(p * denominator)
        if numerator and abs(p * denominator - numerator) < 1e-9:
            if denominator == 1:
                return str(numerator)
            from math import gcd

            g = gcd(numerator, denominator)
            return f"{numerator // g}/{denominator // g}"
    if p == 0:
        return "0"
    text = f"{p:.2f}"
    return text if text != "0.00" else f"{p:.1e}"


def _wrap(text: str, limit: int = LABEL_CHARS) -> list[str]:
    """Split a long label into lines of at most `limit` characters, at spaces where possible."""
    if len(text) <= limit:
        return [text]
    lines: list[str] = []
    rest = text
    while len(rest) > limit:
        cut = rest.rfind(" ", 1, limit + 1)
        if cut <= 0:
            cut = limit
        lines.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest:
        lines.append(rest)
    return lines


# -- measuring nodes ---------------------------------------------------------------------


_TRIANGLE_HEIGHT = 40.0


def shape_size(kind: str, value: str) -> tuple[float, float]:
    """Width and height of a node's shape, large enough for its value text inside."""
    tw = text_width(value, VALUE_SIZE)
    th = VALUE_SIZE * LINE
    if kind == LEAF:
        return max(32.0, tw + 12), 30.0
    if kind == CHANCE:
        d = max(34.0, tw + 10)
        return d, d
    # A triangle: the text sits against the base, where the triangle is widest.
    h = _TRIANGLE_HEIGHT
    room = h - 4 - th
    return max(48.0, math.ceil((tw + 8) * h / room)), h


def value_box(kind: str, box: Box, value: str) -> Box:
    """Where a node's value text goes inside its shape."""
    tw = text_width(value, VALUE_SIZE)
    th = VALUE_SIZE * LINE
    cx = box.x + box.w / 2
    if kind == MAX:
        top = box.bottom - 4 - th
    elif kind == MIN:
        top = box.y + 4
    else:
        top = box.y + (box.h - th) / 2
    return Box(cx - tw / 2, top, tw, th)


class _Measured:
    """A node's sizes and, once laid out, its subtree's extents relative to its centre."""

    __slots__ = ("node", "depth", "ident", "parent", "shape", "lines", "band_w", "column", "children", "left",
                 "right", "offsets", "stub", "tag")

    def __init__(self, node: DrawNode, depth: int, ident: int, parent: int) -> None:
        self.node = node
        self.parent = parent
        self.depth = depth
        self.ident = ident
        self.shape = shape_size(node.kind, node.value)
        self.lines: list[tuple[str, str]] = [(line, "label") for line in _wrap(node.label)] if node.label else []
        if node.probability:
            self.lines.append((node.probability, "probability"))
        self.band_w = max((text_width(t, LABEL_SIZE) for t, _ in self.lines), default=0.0)
        self.children: list[_Measured] = []
        self.stub = False
        self.tag = ""
        self.column = 0.0
        self.left = self.right = 0.0
        self.offsets: list[float] = []


def _measure(root: DrawNode) -> list[_Measured]:
    """Every node, in depth-first (preorder) order, with its children linked."""
    order: list[_Measured] = []
    stack: list[tuple[DrawNode, int, _Measured | None]] = [(root, 0, None)]
    while stack:
        node, depth, parent = stack.pop()
        measured = _Measured(node, depth, len(order), -1 if parent is None else parent.ident)
        order.append(measured)
        if parent is not None:
            parent.children.append(measured)
        stack.extend((child, depth + 1, measured) for child in reversed(node.children))
    return order


def _tag_width(tag: str) -> float:
    return text_width(f"see {tag}", LABEL_SIZE) if tag else 0.0


def _extents(block: list[_Measured], cut_depth: int | None) -> None:
    """Compute each node's subtree interval (left, right of its centre) and its children's offsets.

    `block` is a subtree in preorder; nodes `cut_depth` below its root are stubs (drawn
    without their children). Children are packed side by side and the parent is centred
    over its first and last child, so sibling subtrees never share a column.
    """
    base = block[0].depth
    for m in reversed(block):
        stub = cut_depth is not None and m.depth - base >= cut_depth and bool(m.children)
        own = max(m.shape[0], m.band_w, _tag_width("W" * 3) if stub else 0.0) + H_GAP
        m.column = own
        kids = [] if stub or (cut_depth is not None and m.depth - base >= cut_depth) else m.children
        if not kids:
            m.left, m.right, m.offsets = -own / 2, own / 2, []
            continue
        centres = [-kids[0].left]
        for previous, child in zip(kids, kids[1:]):
            centres.append(centres[-1] + previous.right - child.left)
        middle = (centres[0] + centres[-1]) / 2
        m.offsets = [c - middle for c in centres]
        m.left = min(-own / 2, m.offsets[0] + kids[0].left)
        m.right = max(own / 2, m.offsets[-1] + kids[-1].right)


def _subtree(root: _Measured) -> list[_Measured]:
    out: list[_Measured] = []
    stack = [root]
    while stack:
        m = stack.pop()
        out.append(m)
        stack.extend(reversed(m.children))
    return out


def _level_heights(block: list[_Measured], cut_depth: int | None) -> list[tuple[float, float]]:
    """Per level of the block: (label band height, shape band height)."""
    base = block[0].depth
    levels: dict[int, list[float]] = {}
    for m in block:
        level = m.depth - base
        if cut_depth is not None and level > cut_depth:
            continue
        band, shape = levels.setdefault(level, [0.0, 0.0])
        lines = len(m.lines) + (1 if level == 0 and m.tag else 0)
        levels[level] = [max(band, lines * LABEL_SIZE * LINE), max(shape, m.shape[1])]
    return [(levels[i][0], levels[i][1]) for i in range(len(levels))]


def _block_size(block: list[_Measured], cut_depth: int | None) -> tuple[float, float]:
    _extents(block, cut_depth)
    root = block[0]
    heights = _level_heights(block, cut_depth)
    tags = LABEL_SIZE * LINE + 2 if cut_depth is not None and len(heights) > cut_depth else 0.0
    height = sum(b + LABEL_GAP + s for b, s in heights) + EDGE_RISE * (len(heights) - 1) + tags
    return root.right - root.left, height


# -- the layout ------------------------------------------------------------------------


def _tag_name(index: int) -> str:
    """A, B, ..., Z, AA, AB, ...: the names of continuation blocks."""
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(ord("A") + rest) + name
    return name


@dataclass
class _Block:
    root: _Measured
    cut_depth: int | None
    members: list[_Measured]
    width: float = 0.0
    height: float = 0.0


def _copy_with(root: _Measured, children: list[_Measured], part: str) -> _Measured:
    """`root` again, with only some of its children: one part of a node whose children do not fit in one row."""
    copy = _Measured(root.node, root.depth, root.ident, root.parent)
    copy.children = children
    copy.tag = part
    return copy


def _fits(members: list[_Measured], cut: int | None, max_width: float, max_height: float) -> bool:
    width, height = _block_size(members, cut)
    return width <= max_width and height <= max_height


def _last_true(low: int, high: int, test: Any) -> int | None:
    """The largest k in [low, high] with test(k), for a test true up to some k and false after; None if none."""
    found = None
    while low <= high:
        middle = (low + high) // 2
        if test(middle):
            found, low = middle, middle + 1
        else:
            high = middle - 1
    return found


def _first_true(low: int, high: int, test: Any) -> int | None:
    """The smallest k in [low, high] with test(k), for a test false up to some k and true after; None if none."""
    found = None
    while low <= high:
        middle = (low + high) // 2
        if test(middle):
            found, high = middle, middle - 1
        else:
            low = middle + 1
    return found


def _split(order: list[_Measured], max_width: float, max_height: float) -> list[_Block]:
    """Cut the tree into blocks that fit `max_width` x `max_height` where possible, in reading order.

    A block too large is cut at the shallowest depth where its top fits and so does
    every subtree continued below the cut (else at the deepest depth where its top
    fits); a node with more children than fit side by side is drawn once per group
    of children that does fit ("part 1/3", ...).
    """
    blocks: list[_Block] = []
    pending = [order[0]]
    tags = 0
    while pending:
        root = pending.pop(0)
        members = _subtree(root)
        levels = max(m.depth for m in members) - root.depth
        if levels == 0 or _fits(members, None, max_width, max_height):
            blocks.append(_Block(root, None, members))
            continue
        _extents(members, 1)
        if len(root.children) > 1 and root.right - root.left > max_width:
            groups: list[list[_Measured]] = [[]]
            used = 0.0
            for child in root.children:
                w = child.right - child.left
                if groups[-1] and used + w > max_width:
                    groups.append([])
                    used = 0.0
                groups[-1].append(child)
                used += w
            if len(groups) > 1:
                parts = [_copy_with(root, group, f"part {i + 1}/{len(groups)}") for i, group in enumerate(groups)]
                if root.tag:  # a continued node split into parts keeps its tag on the first
                    parts[0].tag = f"{root.tag}, {parts[0].tag}"
                pending = parts + pending
                continue
        # The top grows and the subtrees below shrink as the cut goes deeper: two binary searches.
        deepest = _last_true(1, levels - 1, lambda k: _fits(members, k, max_width, max_height))
        cut = deepest or 1
        if deepest:
            def below_fit(k: int) -> bool:
                below = [m for m in members if m.depth - root.depth == k and m.children]
                return all(_fits(_subtree(m), None, max_width, max_height) for m in below)

            shallowest = _first_true(1, deepest, below_fit)
            if shallowest:
                cut = shallowest
        block = _Block(root, cut, members)
        stubs = [m for m in members if m.depth - root.depth == cut and m.children]
        for stub in stubs:
            stub.stub = True
            stub.tag = _tag_name(tags)
            tags += 1
        pending = pending + stubs  # breadth first: blocks appear in the order of their tags
        blocks.append(block)
    return blocks


def lay_out(root: DrawNode, caption: list[str] | None = None, summary: str = "",
            max_width: float = MAX_WIDTH, max_height: float = MAX_HEIGHT) -> Figure:
    """Place every node, edge and text of the tree under `root`; `caption` lines and a `summary`
    line go above it (wrapped to the figure's width)."""
    order = _measure(root)
    blocks = _split(order, max_width, max_height)
    # The final extents of each block (splitting measured several cut depths).
    for block in blocks:
        block.width, block.height = _block_size(block.members, block.cut_depth)

    # Blocks flow in rows, in reading order.
    rows: list[list[_Block]] = [[]]
    row_width = 0.0
    for block in blocks:
        if rows[-1] and row_width + BLOCK_GAP + block.width > max_width:
            rows.append([])
            row_width = 0.0
        row_width += (BLOCK_GAP if rows[-1] else 0.0) + block.width
        rows[-1].append(block)
    content_w = max(sum(b.width for b in row) + BLOCK_GAP * (len(row) - 1) for row in rows)
    width = max(content_w, 300.0) + 2 * MARGIN

    figure = Figure(width=width, height=0.0)
    y = MARGIN
    inner = width - 2 * MARGIN
    for line in _caption_lines(caption or [], inner):
        w = text_width(line, CAPTION_SIZE)
        figure.texts.append(TextItem(line, Box(MARGIN + (inner - w) / 2, y, w, CAPTION_SIZE * LINE),
                                     CAPTION_SIZE, "caption"))
        y += CAPTION_SIZE * LINE
    if summary:
        for line in _caption_lines([summary], inner, LABEL_SIZE):
            w = text_width(line, LABEL_SIZE)
            figure.texts.append(TextItem(line, Box(MARGIN + (inner - w) / 2, y, w, LABEL_SIZE * LINE),
                                         LABEL_SIZE, "summary"))
            y += LABEL_SIZE * LINE
    if caption or summary:
        y += 12
    for row in rows:
        row_w = sum(b.width for b in row) + BLOCK_GAP * (len(row) - 1)
        x = MARGIN + (inner - row_w) / 2 if len(rows) == 1 else MARGIN
        for block in row:
            _place_block(figure, block, x, y, framed=len(blocks) > 1)
            x += block.width + BLOCK_GAP
        y += max(b.height for b in row) + BLOCK_GAP
    figure.height = y - BLOCK_GAP + MARGIN
    return figure


def _caption_lines(lines: list[str], width: float, size: float = CAPTION_SIZE) -> list[str]:
    """Caption lines wrapped at spaces to fit `width`."""
    out: list[str] = []
    for line in lines:
        words = line.split()
        current = ""
        for word in words:
            candidate = f"{current} {word}" if current else word
            if current and text_width(candidate, size) > width:
                out.append(current)
                current = word
            else:
                current = candidate
        if current:
            out.append(current)
    return out


def _place_block(figure: Figure, block: _Block, left: float, top: float, framed: bool) -> None:
    """Put one block's nodes, edges and texts on the figure with its top-left corner at (left, top)."""
    members, cut = block.members, block.cut_depth
    _extents(members, cut)
    heights = _level_heights(members, cut)
    base = block.root.depth
    level_top: list[float] = []
    y = top
    for band, shape in heights:
        level_top.append(y)
        y += band + LABEL_GAP + shape + EDGE_RISE
    if framed:
        figure.frames.append(Box(left - BLOCK_GAP / 3, top - BLOCK_GAP / 3,
                                 block.width + 2 * BLOCK_GAP / 3, block.height + 2 * BLOCK_GAP / 3))

    centre_of: dict[int, float] = {block.root.ident: left - block.root.left}
    shape_of: dict[int, Box] = {}
    band_of: dict[int, Box] = {}
    stack = [block.root]
    while stack:
        m = stack.pop()
        level = m.depth - base
        cx = centre_of[m.ident]
        band_h, shape_h = heights[level]
        lines = list(m.lines)
        if level == 0 and m.tag:
            lines.insert(0, (m.tag, "tag"))
        line_h = LABEL_SIZE * LINE
        band_top = level_top[level] + band_h - len(lines) * line_h
        for i, (text, role) in enumerate(lines):
            w = text_width(text, LABEL_SIZE)
            figure.texts.append(TextItem(text, Box(cx - w / 2, band_top + i * line_h, w, line_h), LABEL_SIZE, role,
                                         on_path=m.node.on_path))
        if lines:
            band_of[m.ident] = Box(cx - m.band_w / 2, band_top, m.band_w, len(lines) * line_h)
        w, h = m.shape
        shape_top = level_top[level] + band_h + LABEL_GAP + (shape_h - h) / 2
        box = Box(cx - w / 2, shape_top, w, h)
        shape_of[m.ident] = box
        value = TextItem(m.node.value, value_box(m.node.kind, box, m.node.value), VALUE_SIZE, "value",
                         on_path=m.node.on_path)
        figure.nodes.append(NodeItem(m.node, box, value, m.ident, m.tag if (m.stub or level == 0) else ""))
        is_stub = m.stub and level == cut
        if is_stub:
            text = f"see {m.tag}"
            tw = text_width(text, LABEL_SIZE)
            figure.texts.append(TextItem(text, Box(cx - tw / 2, box.bottom + 2, tw, line_h), LABEL_SIZE, "tag"))
        if cut is not None and level >= cut:
            continue
        for child, offset in zip(m.children, m.offsets):
            centre_of[child.ident] = cx + offset
        stack.extend(reversed(m.children))

    # Edges: from the parent's shape to the child's label band, then on to the child's shape.
    for m in members:
        level = m.depth - base
        if level == 0 or (cut is not None and level > cut):
            continue
        parent_box = shape_of[m.parent]
        child_box = shape_of[m.ident]
        start = (parent_box.x + parent_box.w / 2, parent_box.bottom)
        end = (child_box.x + child_box.w / 2, child_box.y)
        band = band_of.get(m.ident)
        segments = ((start, (end[0], band.y)), ((end[0], band.bottom), end)) if band is not None else ((start, end),)
        figure.edges.append(EdgeItem(segments, m.node.on_path, m.ident))

