"""The classic test-file format: ``key: "value"`` lines and ``key: \"\"\"`` ... ``\"\"\"`` blocks.

Used by a classic course's ``CONFIG``, ``NAME.test`` and ``NAME.solution``
files. Outside a block, blank lines and lines starting with ``#`` are ignored;
any other line is an error naming the file and the line. A block's lines are
kept as written, up to a line that is ``\"\"\"`` alone.

>>> parse_classic_text('# a comment\\nalg: "MinimaxAgent"\\nlines: \"\"\"\\na b\\n\"\"\"\\n', "x.test").values
{'alg': 'MinimaxAgent', 'lines': 'a b'}
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from pacman.grading.assignment import AssignmentError

__all__ = ["ClassicFormatError", "UnknownClassicError", "ClassicFile", "parse_classic_text", "read_classic_file", "format_classic",
           "CURRENT_KEYS", "CLASSIC_KEYS", "key_generation"]

#: A classic test file larger than this is refused (their trees are a few kilobytes).
MAX_CLASSIC_FILE_BYTES = 4 << 20

_SINGLE = re.compile(r'^([A-Za-z_][A-Za-z0-9_.\-]*):\s*"(.*)"\s*$')
_BLOCK = re.compile(r'^([A-Za-z_][A-Za-z0-9_.\-]*):\s*"""\s*$')


class ClassicFormatError(AssignmentError):
    """A classic course file that does not follow the format (the message names the file and line)."""


class UnknownClassicError(ClassicFormatError):
    """Something a question's files name that pacman-ai does not understand -- a key, a test class, a question
    class -- so that it cannot grade the question as the course would: it costs that question only
    (reported as not graded), never the others, and is never ignored."""


#: Keys the classic generation writes in camelCase, with the current (snake_case) generation's name.
#: Every other key (``alg``, ``depth``, ``ghosts``, ``num_agents``, ``max_points`` ...) is the same in both.
CURRENT_KEYS = {
    "agentName": "agent_name", "agentArgs": "agent_args", "layoutName": "layout_name", "maxTime": "max_time",
    "numGames": "num_games", "randomSeed": "random_seed", "scoreThresholds": "score_thresholds",
    "winsThresholds": "wins_thresholds", "nonTimeoutThresholds": "non_timeout_thresholds",
    "scoreMinimum": "score_minimum", "winsMinimum": "wins_minimum", "nonTimeoutMinimum": "non_timeout_minimum",
    "optimalActions": "optimal_actions", "altDepthActions": "alt_depth_actions",
    "partialPlyBugActions": "partial_ply_bug_actions",
}
CLASSIC_KEYS = {current: classic for classic, current in CURRENT_KEYS.items()}


def key_generation(key: str) -> str | None:
    """``"classic"`` for a key only the classic generation writes (``agentName``), ``"current"`` for one only
    the current generation writes (``agent_name``), None for a key both write."""
    return "classic" if key in CURRENT_KEYS else "current" if key in CLASSIC_KEYS else None


@dataclass
class ClassicFile:
    """One parsed file: its values by key, and the line each value starts on (for error messages).

    Test classes ask for keys by their classic names; once `generation` is
    ``"current"``, those names are read as the current generation's
    (``layoutName`` reads ``layout_name``), and messages name the key as written.
    With `generation` None (a folder that shows neither generation), a missing
    key is named in both spellings.
    """

    path: str
    values: dict[str, str] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    """For a single-line value, its line; for a block, the line of its first content line."""
    key_lines: dict[str, int] = field(default_factory=dict)
    """The line each key is written on."""
    generation: str | None = "classic"

    def name(self, key: str) -> str:
        """`key` (a classic name) as this file's generation writes it."""
        return CURRENT_KEYS.get(key, key) if self.generation == "current" else key

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.values.get(self.name(key), default)

    def require(self, key: str) -> str:
        """The value of `key`; ClassicFormatError naming the file (and the key as written) if it is missing."""
        written = self.name(key)
        if written not in self.values:
            if self.generation is None and key in CURRENT_KEYS:
                raise ClassicFormatError(f"{self.path}: missing key {key!r} (classic generation) or "
                                         f"{CURRENT_KEYS[key]!r} (current generation): the folder matches neither")
            raise ClassicFormatError(f"{self.path}: missing key {written!r}")
        return self.values[written]

    def whole(self, key: str, minimum: int | None = None, default: str | None = None) -> int:
        """`key`'s value as a whole number of at least `minimum` (`default` if the key is missing, when given)."""
        raw = self.get(key, default)
        text = (self.require(key) if raw is None else raw).strip()
        try:
            value = int(text)
        except ValueError:
            raise self.error(key, f"expected a whole number, got {text!r}") from None
        if minimum is not None and value < minimum:
            raise self.error(key, f"expected at least {minimum}, got {value}")
        return value

    def class_name(self, key: str) -> str:
        """`key`'s value as the name of a class of the student's file (``alg``, ``agentName``)."""
        name = self.require(key).strip()
        if not name.isidentifier():
            raise self.error(key, f"expected the name of an agent class, got {name!r}")
        return name

    def check_keys(self, known: Iterable[str], what: str) -> None:
        """UnknownClassicError naming the file, line and key of the first key (in file order) that is not one
        of `known` (classic names, read in this file's generation) -- `what` says which file it is
        (``"an EvalAgentTest .test file"``)."""
        names = {self.name(key) for key in known}
        for key in sorted(self.values, key=lambda k: self.key_lines.get(k, 0)):
            if key not in names:
                line = self.key_lines.get(key)
                where = f"{self.path}:{line}" if line is not None else self.path
                listed = ", ".join(sorted(names)) or "none"
                raise UnknownClassicError(f"{where}: {key}: not a key of {what}, which pacman-ai cannot grade "
                                          f"as the course would (its keys: {listed})")

    def error(self, key: str, message: str, offset: int = 0) -> ClassicFormatError:
        """An error about `key`'s value (`offset` lines into a block), naming the file, line and key as written."""
        key = self.name(key)
        line = self.lines.get(key)
        where = f"{self.path}:{line + offset}" if line is not None else self.path
        return ClassicFormatError(f"{where}: {key}: {message}")


def parse_classic_text(text: str, path: str) -> ClassicFile:
    """Parse the text of a classic file shown as `path`; ClassicFormatError naming the line if malformed."""
    parsed = ClassicFile(path)
    lines = text.splitlines()
    number = 0
    while number < len(lines):
        raw = lines[number]
        number += 1
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        block = _BLOCK.match(stripped)
        single = None if block else _SINGLE.match(stripped)
        if block is None and single is None:
            shown = stripped if len(stripped) <= 60 else stripped[:57] + "..."
            raise ClassicFormatError(f'{path}:{number}: expected key: "value" or key: """ (a block), '
                                     f"or a # comment; got {shown!r}")
        key = (block or single).group(1)
        if key in parsed.values:
            raise ClassicFormatError(f"{path}:{number}: key {key!r} given twice (first on line {parsed.lines[key]})")
        if single is not None:
            parsed.values[key] = single.group(2)
            parsed.lines[key] = parsed.key_lines[key] = number
            continue
        opened = number
        body = []
        while True:
            if number >= len(lines):
                raise ClassicFormatError(f'{path}:{opened}: the block of {key!r} is never closed by a """ line')
            line = lines[number]
            number += 1
            if line.strip() == '"""':
                break
            body.append(line)
        parsed.values[key] = "\n".join(body)
        parsed.lines[key] = opened + 1
        parsed.key_lines[key] = opened
    return parsed


def read_classic_file(path: str | Path) -> ClassicFile:
    """Read and parse one classic file (a regular UTF-8 file of at most 4 MB)."""
    from pacman.files import read_input_file

    data = read_input_file(path, "a classic test file", MAX_CLASSIC_FILE_BYTES, ClassicFormatError)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ClassicFormatError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    return parse_classic_text(text, str(path))


def format_classic(values: dict[str, str], comment: str | None = None) -> str:
    """The text of a classic file holding `values` (multi-line values as blocks), the inverse of parsing."""
    out = []
    if comment:
        out.extend(f"# {line}".rstrip() for line in comment.splitlines())
    for key, value in values.items():
        if "\n" in value or '"' in value:
            out.append(f'{key}: """')
            out.extend(value.split("\n"))
            out.append('"""')
        else:
            out.append(f'{key}: "{value}"')
    return "\n".join(out) + "\n"
