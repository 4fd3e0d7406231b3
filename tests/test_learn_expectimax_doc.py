"""docs/learn-expectimax.md, run as a reader runs it: every command and the Python example, outputs compared."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "learn-expectimax.md"


def _blocks() -> list[tuple[str, str]]:
    """(language, text) of every fenced block of the page."""
    return re.findall(r"```(\w*)\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def _commands() -> list[tuple[list[str], list[str]]]:
    """Each `$ pacman-ai ...` line with the output lines printed under it."""
    found: list[tuple[list[str], list[str]]] = []
    for language, text in _blocks():
        if language:
            continue
        for line in text.splitlines():
            if line.startswith("$ "):
                found.append((shlex.split(line[2:]), []))
            elif found:
                found[-1][1].append(line)
    return found


def _workspace(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    (tmp_path / "docs" / "images").mkdir(parents=True)
    return tmp_path


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    assert argv[0] == "pacman-ai"
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    return subprocess.run([sys.executable, "-m", "pacman", *argv[1:]], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=env)


def test_the_page_shows_only_pictures_it_makes_and_that_exist():
    text = DOC.read_text(encoding="utf-8")
    shown = set(re.findall(r"\]\(images/([\w.-]+)\)", text))
    assert shown and all((ROOT / "docs" / "images" / name).is_file() for name in shown)
    drawn = {Path(argv[argv.index("--draw") + 1]).name for argv, _ in _commands() if "--draw" in argv}
    recorded = {f"panel-{Path(argv[argv.index('--record') + 1]).name.replace('frames-', '')}.png"
                for argv, _ in _commands() if "--record" in argv}
    assert shown == drawn | recorded


def test_every_tree_command_prints_what_the_page_says_and_draws_its_picture(tmp_path):
    work = _workspace(tmp_path)
    commands = [(argv, out) for argv, out in _commands() if argv[1] == "tree"]
    assert len(commands) >= 6
    for argv, expected in commands:
        done = _run(argv, work)
        assert done.returncode == 0, (argv, done.stderr)
        assert done.stdout.splitlines() == expected, argv
        picture = work / argv[argv.index("--draw") + 1]
        with Image.open(picture) as image:
            assert image.size == Image.open(ROOT / "docs" / "images" / picture.name).size


@pytest.mark.slow
def test_every_game_command_runs_and_records_the_frame_the_page_shows(tmp_path):
    work = _workspace(tmp_path)
    commands = [argv for argv, _ in _commands() if argv[1] in ("play", "replay")]
    assert len(commands) >= 5
    for argv in commands:
        done = _run(argv, work)
        assert done.returncode == 0, (argv, done.stderr)
        if "--record" in argv:
            moves = int(argv[argv.index("--max-moves") + 1])
            frame = work / argv[argv.index("--record") + 1] / f"frame_{2 * moves:05d}.png"
            with Image.open(frame) as image:
                assert image.size[0] > 1000  # the board, the values panel and the tree panel


def test_the_python_example_prints_what_the_page_says(tmp_path):
    python = [text for language, text in _blocks() if language == "python"]
    outputs = [text for language, text in _blocks() if language == "" and text.startswith("MinimaxAgent")]
    assert len(python) == 1 and len(outputs) == 1
    script = tmp_path / "example.py"
    script.write_text(python[0], encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout == outputs[0]
