"""What a wheel ships: every package of the project is listed in pyproject.toml, and the console script exists."""

import os
import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _setup_arguments() -> dict:
    """What setup.py gives setuptools.setup (run with setup itself replaced: nothing is built)."""
    import runpy
    from unittest import mock

    captured: dict = {}
    before = os.getcwd()
    os.chdir(ROOT)  # as pip runs it: discovery is relative to the project's root
    try:
        with mock.patch("setuptools.setup", lambda **arguments: captured.update(arguments)):
            runpy.run_path(str(ROOT / "setup.py"), run_name="__main__")
    finally:
        os.chdir(before)
    return captured


def test_every_package_of_the_project_is_found_for_the_wheel():
    """No hand-written list: setuptools' discovery finds every package, the research tools stay out."""
    arguments = _setup_arguments()
    listed = set(arguments["packages"])
    mapped = {folder: package for package, folder in arguments["package_dir"].items()}
    found = set()
    for top in ("pacman", "agents"):
        for path in (ROOT / top).rglob("__init__.py"):
            parts = path.parent.relative_to(ROOT).parts
            found.add(".".join([mapped.get(parts[0], parts[0]), *parts[1:]]))
    assert sorted(found - listed) == []
    assert {"pacman.layouts", "pacman.assets", "pacman.grading.assignments.expectimax.trees"} <= listed
    assert not any("research" in name for name in listed)
    assert "packages" not in PROJECT["tool"]["setuptools"]


def test_the_wheel_installs_one_import_namespace(tmp_path):
    """agents/ installs as pacman.agents: a top-level `agents` would collide with other distributions."""
    arguments = _setup_arguments()
    assert sorted({name.split(".")[0] for name in arguments["packages"]}) == ["pacman"]
    assert arguments["package_dir"]["pacman.agents"] == "agents"
    # A fresh interpreter outside the checkout finds the agents under the project's name only.
    code = ("import importlib.util, pacman.agents.search; "
            "print(pacman.agents.search.__name__, importlib.util.find_spec('agents') is None)")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["pacman.agents.search", "True"], out.stderr


def test_the_console_script_names_the_command_line_main():
    from pacman.cli import main

    module, _, name = PROJECT["project"]["scripts"]["pacman-ai"].partition(":")
    assert (module, name) == ("pacman.cli", "main")
    assert callable(main)
