"""What a wheel ships: every package of the project is listed in pyproject.toml, and the console script exists."""

from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_package_of_the_project_is_listed_for_the_wheel():
    listed = set(PROJECT["tool"]["setuptools"]["packages"])
    found = {".".join(path.parent.relative_to(ROOT).parts)
             for top in ("pacman", "agents") for path in (ROOT / top).rglob("__init__.py")}
    assert sorted(found - listed) == []


def test_the_console_script_names_the_command_line_main():
    from pacman.cli import main

    module, _, name = PROJECT["project"]["scripts"]["pacman-ai"].partition(":")
    assert (module, name) == ("pacman.cli", "main")
    assert callable(main)
