"""MkDocs hooks (mkdocs.yml `hooks:`): the source tree that the API reference is generated from.

The package `pacman.agents` lives in the repository's top-level folder `agents/`
(setuptools maps it into `pacman`, see pyproject.toml), so a static reader of the
source such as griffe, which mkdocstrings uses, would not find it under `pacman/`.
Before each build this hook lays out `build/api-src/pacman/` as the installed
package looks: the Python files of `pacman/`, and those of `agents/` as
`pacman/agents/` (copies: griffe follows a linked file back to its real folder).
mkdocs.yml points mkdocstrings at `build/api-src`; nothing is imported.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parent.parent
TREE = ROOT / "build" / "api-src"
#: The package folders that setuptools maps into `pacman` from elsewhere (pyproject.toml, package-dir).
MAPPED = {"agents": ROOT / "agents"}


def _copy_sources(source: Path, target: Path) -> None:
    """The Python files of the package folder `source`, under `target` (copies: griffe resolves links)."""
    for path in source.rglob("*.py"):
        relative = path.relative_to(source)
        if "__pycache__" in relative.parts:
            continue
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target / relative)


def build_tree() -> Path:
    """Lay out build/api-src/pacman afresh and return build/api-src."""
    package = TREE / "pacman"
    if TREE.exists():
        shutil.rmtree(TREE)
    _copy_sources(ROOT / "pacman", package)
    for name, source in MAPPED.items():
        _copy_sources(source, package / name)
    return TREE


@event_priority(100)  # before mkdocstrings' own on_config, which keeps only search paths that exist
def on_config(config, **kwargs):  # noqa: ARG001 - the MkDocs hook signature
    # Laid out here rather than before the build: the Python handler drops a `paths` entry that does not exist
    # yet when it starts, and would then read the installed `pacman` (without `pacman.agents`) on a fresh clone.
    build_tree()
    return config


def on_pre_build(config, **kwargs) -> None:  # noqa: ARG001 - the MkDocs hook signature
    build_tree()  # again before each build, so that `mkdocs serve` documents the sources as they are now
