"""Layouts: the `.lay` text format, parsed once into an unchanging `Layout`.

The format, one character per cell, the last line being y = 0::

    %  wall            .  food           o  capsule
    P  Pacman          G  ghost          1-4  numbered ghost
    any other digit (0, 5-9): refused, since it looks like a ghost but is none
    anything else (space, letters, punctuation, tab): an empty cell

Rules this parser applies, so that every file either loads or fails clearly:

- at most `MAX_CELLS` cells (width x height, 4096: a 64 x 64 maze; the largest
  shipped layout has 756), checked before anything per-cell is built: the game's
  move tables grow with the cell count and the maze-distance table of the
  `better` evaluation with its square (at 4096 open cells about 7 s and 250 MB to
  build, where 500 x 500 would need tens of gigabytes);
- line endings may be LF, CRLF or CR; a leading byte-order mark is dropped;
- rows are read as the classic CS188 loader reads them: each line is stripped
  of whitespace at both ends, and the first row sets the width; characters
  beyond it are ignored, with one `LayoutWarning` per file (through `warnings`,
  so it is printed to stderr once and can be filtered or made an error); a row
  shorter than the first is a `LayoutError` naming the line;
- blank lines before the first row and after the last row are ignored;
- there must be exactly one Pacman; there may be no ghost and no food (such a game
  can only be lost or cut off); a ghost may not be walled in on all four sides;
- cells outside the grid count as walls, so an open border is not a crash.

Agents are ordered as in the classic game: Pacman first, then ghosts by
(index, x, y), where ``G`` counts as index 1.
"""

from __future__ import annotations

import difflib
import functools
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TypeVar

from pacman.errors import LayoutError
from pacman.files import read_input_file
from pacman.resources import resource_dir

__all__ = ["Layout", "load_layout", "parse_layout", "layout_names", "LayoutWarning", "CLASSIC_LAYOUTS",
           "LAYOUT_ALIASES", "MAX_CELLS"]

#: The CS188 project's maze names, each with the shipped layout closest to it in role. Those
#: mazes are not shipped here (this project's mazes are its own): a classic name loads only a
#: file the user has (``./layouts/NAME.lay`` or a path); otherwise the error names the closest.
CLASSIC_LAYOUTS: dict[str, str] = {
    "smallClassic": "small",
    "mediumClassic": "medium",
    "originalClassic": "large",
    "openClassic": "open",
    "trickyClassic": "tricky",
    "capsuleClassic": "capsules",
    "trappedClassic": "trapped",
    "minimaxClassic": "minimax",
    "testClassic": "test",
}

#: Other names for shipped layouts: none any more (a classic name is not our maze); kept, empty,
#: for code that imported it.
LAYOUT_ALIASES: dict[str, str] = {}


class LayoutWarning(UserWarning):
    """A layout loaded, but not exactly as written: rows longer than the first were cut to its width."""


#: A `warnings` registry per layout file: each file's warning is shown once per process.
_WARNED: dict[str, dict] = {}

_MAX_BYTES = 1 << 20
#: The most cells (width x height) a layout may have; larger ones are refused at parse time.
MAX_CELLS = 4096
T = TypeVar("T")


@dataclass(frozen=True, eq=False)
class Layout:
    """A parsed maze: walls, food, capsules and agent start cells. It never changes.

    Positions are (x, y) with (0, 0) the bottom-left cell. Layouts compare and
    hash by value: by their `text`, `name` and `path`, which determine every
    other field (two loads of one file are equal layouts, and their games' states
    compare equal). A layout pickles as those three strings; unpickling parses
    them again, once per process for a recently seen layout.
    """

    name: str
    """The shipped name, or the file's stem."""
    width: int
    """Number of columns."""
    height: int
    """Number of rows."""
    walls: frozenset[tuple[int, int]]
    """Cells that are walls (cells outside the grid count as walls too)."""
    food: tuple[tuple[int, int], ...]
    """Cells holding food, ordered by (x, y)."""
    capsules: tuple[tuple[int, int], ...]
    """Cells holding a capsule, ordered by (x, y)."""
    agent_starts: tuple[tuple[int, int], ...]
    """Start cells: Pacman's first, then each ghost's in agent order."""
    text: str = field(repr=False)
    """The layout as normalised text (LF line endings, trailing whitespace stripped)."""
    path: str | None = field(default=None, repr=False)
    """The file it was read from, if any."""

    @property
    def num_ghosts(self) -> int:
        """How many ghosts the layout places."""
        return len(self.agent_starts) - 1

    @property
    def food_count(self) -> int:
        """How many food dots the layout places."""
        return len(self.food)

    @property
    def pacman_start(self) -> tuple[int, int]:
        """Pacman's start cell."""
        return self.agent_starts[0]

    @property
    def ghost_starts(self) -> tuple[tuple[int, int], ...]:
        """Each ghost's start cell, in agent order."""
        return self.agent_starts[1:]

    def derived(self, key: str, build: Callable[[Layout], T]) -> T:
        """A value computed from this layout on first use and kept with it (move tables, distances).

        It lives and dies with the layout: nothing global grows per layout or per game.
        """
        cache = self.__dict__.setdefault("_derived", {})
        value = cache.get(key)
        if value is None:
            value = cache[key] = build(self)
        return value

    def region(self, cell: tuple[int, int]) -> int:
        """The number of the connected open region that holds `cell` (-1 for a wall or outside the grid).

        Agents never leave their start cell's region: walls never change, and an
        eaten ghost goes back to its own start cell.
        """
        return self.derived("regions", _label_regions).get(cell, -1)

    def is_wall(self, x: int, y: int) -> bool:
        """True for a wall cell or any cell outside the grid."""
        return not (0 <= x < self.width and 0 <= y < self.height) or (x, y) in self.walls

    def __str__(self) -> str:
        return self.text

    @property
    def key(self) -> tuple[str, str, str | None]:
        """(text, name, path): what defines this layout. Layouts compare, hash and pickle by it."""
        return (self.text, self.name, self.path)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Layout):
            return NotImplemented
        return self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __reduce__(self):
        # Only what defines the layout: not its derived tables (move tables, distances).
        return (_restore_layout, self.key)


@functools.lru_cache(maxsize=4)
def _restore_layout(text: str, name: str, path: str | None) -> Layout:
    """An unpickled layout. Bounded cache: unpickling many states of a few layouts parses
    each layout, and builds its tables, once (not once per state)."""
    return parse_layout(text, name=name, path=path)


def _label_regions(layout: Layout) -> dict[tuple[int, int], int]:
    """Every open cell's region number: flood fill over the four neighbours."""
    labels: dict[tuple[int, int], int] = {}
    label = -1
    for x in range(layout.width):
        for y in range(layout.height):
            if (x, y) in labels or layout.is_wall(x, y):
                continue
            label += 1
            labels[(x, y)] = label
            stack = [(x, y)]
            while stack:
                cx, cy = stack.pop()
                for nxt in ((cx, cy + 1), (cx, cy - 1), (cx + 1, cy), (cx - 1, cy)):
                    if nxt not in labels and not layout.is_wall(*nxt):
                        labels[nxt] = label
                        stack.append(nxt)
    return labels


def parse_layout(text: str, name: str = "<text>", path: str | None = None) -> Layout:
    """Parse layout text. Errors name `path` (or `name`), the line and the column.

    >>> layout = parse_layout("%%%%%\\n%P.G%\\n%%%%%")
    >>> layout.width, layout.height, layout.num_ghosts, layout.food_count
    (5, 3, 1, 1)
    """
    where = path if path is not None else name
    if not isinstance(text, str):
        raise LayoutError(f"{where}: layout text must be a str, got {type(text).__name__}")
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = [line.strip() for line in text.splitlines()]
    first = 0
    while first < len(lines) and not lines[first]:
        first += 1
    last = len(lines)
    while last > first and not lines[last - 1]:
        last -= 1
    if first == last:
        raise LayoutError(f"{where}: empty layout (no rows)")
    rows = lines[first:last]
    width = len(rows[0])
    longer: list[int] = []  # the line numbers of rows cut to the width
    for offset, row in enumerate(rows):
        if len(row) < width:
            raise LayoutError(
                f"{where}:{first + offset + 1}: row is {len(row)} cells wide but the first row "
                f"(line {first + 1}) is {width}; a row may not be shorter than the first"
            )
        if len(row) > width:
            longer.append(first + offset + 1)
            rows[offset] = row[:width]
    if longer:
        more = f" (and {len(longer) - 1} more row{'s' if len(longer) > 2 else ''})" if len(longer) > 1 else ""
        warnings.warn_explicit(
            f"row is wider than the first row (line {first + 1}, {width} cells){more}: the characters "
            f"beyond column {width} are ignored, as the classic loader ignores them",
            LayoutWarning, filename=where, lineno=longer[0], registry=_WARNED.setdefault(where, {}))
    height = len(rows)
    if width * height > MAX_CELLS:
        raise LayoutError(
            f"{where}: {width} x {height} = {width * height:,} cells is too large "
            f"(limit {MAX_CELLS:,} cells, such as 64 x 64)"
        )

    walls: set[tuple[int, int]] = set()
    food: list[tuple[int, int]] = []
    capsules: list[tuple[int, int]] = []
    pacmen: list[tuple[int, int, int]] = []  # (line, column, ...) for messages
    agents: list[tuple[int, int, int]] = []  # (index, x, y)
    for offset, row in enumerate(rows):
        y = height - 1 - offset
        for x, char in enumerate(row):
            if char == "%":
                walls.add((x, y))
            elif char == ".":
                food.append((x, y))
            elif char == "o":
                capsules.append((x, y))
            elif char == "P":
                pacmen.append((first + offset + 1, x + 1, 0))
                agents.append((0, x, y))
            elif char == "G":
                agents.append((1, x, y))
            elif char in "1234":
                agents.append((int(char), x, y))
            elif char.isdigit():
                raise LayoutError(
                    f"{where}:{first + offset + 1}:{x + 1}: {char!r} is not a layout character: "
                    f"ghosts are 'G' or '1'-'4' (another digit looks like a ghost but would be an empty cell)"
                )
    if not pacmen:
        raise LayoutError(f"{where}: no Pacman ('P') in the layout")
    if len(pacmen) > 1:
        (line1, col1, _), (line2, col2, _) = pacmen[:2]
        raise LayoutError(
            f"{where}:{line2}:{col2}: a second Pacman ('P'); the first is at line {line1}, "
            f"column {col1}; a layout has exactly one"
        )
    agents.sort()
    open_cells = {(x, y) for x in range(width) for y in range(height)} - walls
    for index, x, y in agents[1:]:
        if not any((x + dx, y + dy) in open_cells for dx, dy in ((0, 1), (0, -1), (1, 0), (-1, 0))):
            line_no = first + (height - 1 - y) + 1
            raise LayoutError(
                f"{where}:{line_no}:{x + 1}: the ghost here is walled in (no open neighbour); "
                f"a ghost must always have a move"
            )
    normalised = "\n".join(rows) + "\n"
    return Layout(
        name=name,
        width=width,
        height=height,
        walls=frozenset(walls),
        food=tuple(sorted(food)),
        capsules=tuple(sorted(capsules)),
        agent_starts=tuple((x, y) for _, x, y in agents),
        text=normalised,
        path=path,
    )


def _layouts_dir() -> Path:
    return resource_dir("layouts")


def layout_names() -> list[str]:
    """The names of the shipped layouts, sorted."""
    return sorted(p.stem for p in _layouts_dir().glob("*.lay"))


def _read_text(path: Path, shown: str) -> str:
    data = read_input_file(path, "a layout", _MAX_BYTES, LayoutError)
    if b"\0" in data:
        raise LayoutError(f"{shown}: binary file (contains NUL bytes), not a text layout")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LayoutError(f"{shown}: not a text layout (invalid UTF-8 at byte {exc.start})") from None


def load_layout(name_or_path: str | os.PathLike[str]) -> Layout:
    """Load a layout by name (``"medium"``) or a `.lay` file by path.

    A plain name is looked up as ``./layouts/NAME.lay`` first (course folders keep
    their mazes there), then among the shipped layouts; anything else is read as
    a path. A file name ending in ``.lay`` that exists (``pocket.lay`` in the
    working directory) is that file, never the shipped maze of the same name; a
    plain name that picks a shipped maze while ``./NAME.lay`` holds another one
    warns (`LayoutWarning`) naming the file it did not read. A CS188 maze name
    (``mediumClassic``) that is none of these is an error naming the closest
    shipped layout. Raises `LayoutError` naming the input.
    """
    try:
        text = os.fspath(name_or_path)
    except TypeError:
        text = None
    if not isinstance(text, str):
        raise LayoutError(f"layout {name_or_path!r}: expected a shipped name or a path")
    if not text.strip():
        raise LayoutError("layout name is empty (give a shipped name such as 'medium', or a path)")
    if "\0" in text:
        raise LayoutError(f"layout {text!r}: a name or path cannot contain a NUL character")
    plain = os.sep not in text and "/" not in text
    own = Path("layouts") / (text if text.endswith(".lay") else f"{text}.lay")
    if plain and _exists(own, Path.is_file):  # a course folder's layouts/NAME.lay comes first
        return parse_layout(_read_text(own, text), name=own.stem, path=str(own))
    if plain and text.endswith(".lay") and _exists(Path(text), Path.is_file):  # the file named, not a shipped maze
        return parse_layout(_read_text(Path(text), text), name=Path(text).stem, path=text)
    shipped = _layouts_dir()
    bare = text[:-4] if text.endswith(".lay") else text
    if plain and _exists(shipped / f"{bare}.lay", Path.is_file):
        file = shipped / f"{bare}.lay"
        layout = parse_layout(_read_text(file, text), name=bare, path=str(file))
        local = Path(f"{bare}.lay")
        if _exists(local, Path.is_file) and not _same_text(local, layout.text):  # ("NAME.lay" was read above)
            warnings.warn_explicit(f"not read: layout {text!r} is the shipped maze of that name; to play this "
                                   f"file instead, give its file name ({local})", LayoutWarning,
                                   filename=str(local), lineno=1)
        return layout
    try:
        path = Path(text).expanduser()
    except RuntimeError:  # "~user" with no such home directory
        path = Path(text)
    if _exists(path, Path.exists):
        stem = path.stem
        return parse_layout(_read_text(path, text), name=stem, path=text)
    if plain and bare in CLASSIC_LAYOUTS:
        raise LayoutError(
            f"{text}: a CS188 maze, not shipped here (this project's mazes are its own); put your copy at "
            f"layouts/{bare}.lay or give its path; the closest shipped layout is {CLASSIC_LAYOUTS[bare]!r}"
        )
    names = layout_names()
    shown = text if len(text) <= 200 else text[:200] + "..."
    matches = difflib.get_close_matches(bare[:200], names, n=3, cutoff=0.5)
    hint = f"did you mean {', '.join(repr(m) for m in matches)}? " if matches else ""
    raise LayoutError(
        f"{shown}: unknown layout (not a shipped name, not an existing file); "
        f"{hint}shipped: {', '.join(names)}"
    )


def _same_text(path: Path, text: str) -> bool:
    """Whether the layout file at `path` holds the maze `text` (False if it cannot be read or parsed)."""
    try:
        with warnings.catch_warnings():  # its own faults are said when it is loaded, not here
            warnings.simplefilter("ignore", LayoutWarning)
            return parse_layout(_read_text(path, str(path)), name=path.stem).text == text
    except (OSError, LayoutError):
        return False


def _exists(path: Path, test: Callable[[Path], bool]) -> bool:
    """`test(path)`, False where the OS refuses the name itself (too long, bad characters)."""
    try:
        return test(path)
    except (OSError, ValueError):
        return False
