"""The examples in the library's docstrings (``>>>`` lines) run and print what they show.

A docstring example is documentation a reader copies, so it must stay true
when the code changes. Each module of `pacman` (and of `agents/`, installed as
`pacman.agents`) whose source holds an example is found here by reading the
source, not listed by hand, so a new one is tested without a line here.
"""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: the source folders and the package each installs as (setup.py's mapping)
PACKAGES = {"pacman": ROOT / "pacman", "pacman.agents": ROOT / "agents"}
#: folders of course-shaped code (a course's own files, imported by the course's names), not the library's modules
COURSE_FOLDERS = (ROOT / "pacman" / "cs188" / "classic", ROOT / "pacman" / "cs188" / "current")


def _modules_with_examples() -> list[str]:
    names = []
    for package, folder in PACKAGES.items():
        for path in sorted(folder.rglob("*.py")):
            if any(path.is_relative_to(course) for course in COURSE_FOLDERS):
                continue
            if ">>> " not in path.read_text(encoding="utf-8"):
                continue
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            names.append(".".join((package, *parts)))
    return names


MODULES = _modules_with_examples()
#: what a module's examples need beyond the test extra: (an optional package to import, the compiled core)
NEEDS = {"pacman.envs.sb3": ("stable_baselines3", True)}


def test_the_library_has_docstring_examples_to_run():
    assert "pacman.agents.expectimax" in MODULES and "pacman.agents.registry" in MODULES
    assert len(MODULES) >= 20


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_print_what_they_show(name):
    package, core = NEEDS.get(name, (None, False))
    if package is not None:
        pytest.importorskip(package, reason=f"{name}'s examples need {package} (the rl extra)")
    if core:
        from pacman.agents.compiled import core_status

        built, why = core_status()
        if not built:
            pytest.skip(f"{name}'s examples need the compiled core: {why}")
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    failures = []
    found = 0
    for test in finder.find(module, name):
        if test.examples and test.filename and Path(test.filename).resolve() != Path(module.__file__).resolve():
            continue  # an object imported from another module: tested with that module
        found += len(test.examples)  # those marked ``+SKIP`` (a sketch that writes files) are found, not run
        runner.run(test, out=failures.append)
    assert found > 0, f"{name}: its source has '>>> ' but no docstring example was found"
    assert not failures, "".join(failures)
