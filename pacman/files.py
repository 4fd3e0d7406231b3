"""Writing result files whole or not at all: a temporary file beside the target, then a rename."""

from __future__ import annotations

import contextlib
import json
import os
from typing import Any, Callable

__all__ = ["write_atomically", "write_json"]


def write_atomically(path: str | os.PathLike[str], write: Callable[[str], None]) -> None:
    """Call `write(temporary_path)`, then move that file onto `path`: readers see the whole file or none.

    The temporary file keeps the target's suffix (matplotlib picks the format by
    it). On any failure it is removed and `path` is left as it was; the OSError
    (or whatever `write` raised) propagates.
    """
    target = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(target))
    base, suffix = os.path.splitext(os.path.basename(target))
    temporary = os.path.join(folder, f".{base}.{os.getpid()}.tmp{suffix}")
    try:
        write(temporary)
        os.replace(temporary, target)
    finally:
        with contextlib.suppress(OSError):
            os.remove(temporary)


def write_json(path: str | os.PathLike[str], data: Any, indent: int = 2) -> None:
    """Write `data` as JSON (and a final newline) to `path` atomically."""

    def dump(temporary: str) -> None:
        with open(temporary, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=indent)
            out.write("\n")

    write_atomically(path, dump)
