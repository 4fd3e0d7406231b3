"""The command synopses in the docs (``pacman-ai play [--layout NAME|PATH] ...``) are the parsers' own options.

A synopsis is typed by hand, so it drifts: `solve` took every ghost kind while the
synopsis still said ``--ghosts random|directional``. These tests read each synopsis
in the docs and ask the command line's parsers (`pacman.cli.build_parser`): every
flag shown exists, a list of values shown (``a|b|c``) is exactly the flag's choices,
and "Commands at a glance" shows every flag of every command.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from pacman.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
AT_A_GLANCE = ROOT / "docs" / "guide" / "commands.md"
#: a flag and the value it is shown with: ``--ghosts KIND``, ``--display pygame|text|web|none``
FLAG = re.compile(r"(--[a-z][a-z0-9-]*)(?:[ =]([^\s\[\]]+))?")


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(commands.choices)


COMMANDS = _subcommands()


def synopses(text: str) -> list[tuple[str, str]]:
    """(command, its synopsis text) for each synopsis in `text`'s code blocks: a ``pacman-ai COMMAND`` line with
    an optional part (``[--``), and the lines below it that continue it (indented, starting with ``[`` or
    ``--``)."""
    found: list[tuple[str, str]] = []
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.S):
        current: list[str] | None = None
        for line in block.splitlines():
            start = re.match(r"pacman-ai (\w+)\s", line)
            if start and "[--" in line:
                current = [start.group(1), line[start.end():]]
                found.append(current)  # type: ignore[arg-type]
            elif current is not None and re.match(r"\s+[\[-]", line):
                current[1] += " " + line.strip()
            else:
                current = None
    return [(command, text) for command, text in found]


def _options(command: str) -> dict[str, argparse.Action]:
    return {option: action for action in COMMANDS[command]._actions for option in action.option_strings
            if option.startswith("--") and option != "--help"}


SHOWN = [(page.relative_to(ROOT).as_posix(), command, text) for page in PAGES
         for command, text in synopses(page.read_text(encoding="utf-8"))]


def test_the_docs_have_synopses_to_check():
    pages = {page for page, _, _ in SHOWN}
    assert "docs/guide/commands.md" in pages and len(SHOWN) >= 12
    assert {command for page, command, _ in SHOWN if page == "docs/guide/commands.md"} == set(COMMANDS)


def test_the_synopsis_finder_reads_continued_lines_and_values():
    text = "```\npacman-ai solve LAYOUT [--ghosts KIND]\n                [--objective win|score]\nnot this\n```\n"
    ((command, shown),) = synopses(text)
    assert command == "solve" and FLAG.findall(shown) == [("--ghosts", "KIND"), ("--objective", "win|score")]


@pytest.mark.parametrize("page, command, text", SHOWN, ids=[f"{p}:{c}:{i}" for i, (p, c, _) in enumerate(SHOWN)])
def test_every_flag_a_synopsis_shows_exists_with_the_values_it_shows(page, command, text):
    assert command in COMMANDS, f"{page}: `pacman-ai {command}` is no command ({', '.join(COMMANDS)})"
    options = _options(command)
    for flag, value in FLAG.findall(text):
        assert flag in options, f"{page}: `pacman-ai {command}` has no {flag}"
        choices = options[flag].choices
        if value and "|" in value and choices is not None and re.fullmatch(r"[a-z0-9-]+(\|[a-z0-9-]+)+", value):
            assert value.split("|") == [str(c) for c in choices], (
                f"{page}: `pacman-ai {command} {flag}` shows {value}; it takes {'|'.join(map(str, choices))}")
        # a single value shown must be one of the choices; a placeholder (KIND) stands for a list named elsewhere
        if choices is not None and value and "|" not in value and not value.isupper():
            assert value in [str(c) for c in choices], f"{page}: `pacman-ai {command} {flag} {value}`"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_commands_at_a_glance_shows_every_flag(command):
    shown = " ".join(text for page, name, text in SHOWN if page == "docs/guide/commands.md" and name == command)
    missing = sorted(set(_options(command)) - {flag for flag, _ in FLAG.findall(shown)})
    assert not missing, f"docs/guide/commands.md: `pacman-ai {command}` does not show {', '.join(missing)}"
