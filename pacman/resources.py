"""Files shipped with the package: the layouts and the view assets.

In an installed wheel they live inside the package (`pacman/layouts`,
`pacman/assets`); in a source checkout or an editable install, at the top of the
repository.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path

__all__ = ["resource_dir", "palette"]

Colour = tuple[int, int, int]


def resource_dir(name: str) -> Path:
    """The folder of shipped files `name` ("layouts" or "assets")."""
    packaged = Path(str(resources.files("pacman"))) / name
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / name


@lru_cache(maxsize=1)
def palette() -> dict[str, object]:
    """The views' colours from `assets/palette.json`: RGB triples (a list of them for "ghosts")."""
    data = json.loads((resource_dir("assets") / "palette.json").read_text(encoding="utf-8"))
    out: dict[str, object] = {}
    for key, value in data.items():
        if key == "about":
            continue
        out[key] = [tuple(c) for c in value] if key == "ghosts" else tuple(value)
    return out
