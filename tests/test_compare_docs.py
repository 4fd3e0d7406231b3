"""The commands and the Python example of docs/experiments.md, and the compare commands of the README and of
docs/guide/compare.md, run as a user would."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "experiments.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")
GUIDE = (ROOT / "docs" / "guide" / "compare.md").read_text(encoding="utf-8")
ENV = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")


def _blocks(text: str, language: str = "") -> list[str]:
    """The code blocks of a Markdown text whose fence names `language` (or none), fence by fence."""
    blocks, current, inside = [], [], None
    for line in text.splitlines():
        if line.startswith("```"):
            if inside is None:
                inside, current = line[3:].strip(), []
            else:
                if inside == language:
                    blocks.append("\n".join(current) + "\n")
                inside = None
        elif inside is not None:
            current.append(line)
    return blocks


def _commands(text: str, language: str = "") -> list[str]:
    """Every `pacman-ai compare` command of the text's code blocks (fence naming `language`), continuation lines
    joined."""
    commands = []
    for block in _blocks(text, language):
        joined = block.replace("\\\n", " ")
        commands.extend(line.strip() for line in joined.splitlines()
                        if line.strip().startswith("pacman-ai compare") and "[" not in line)  # not usage lines
    return commands


def _run(command: str, folder: Path) -> subprocess.CompletedProcess:
    argv = shlex.split(command)
    assert argv[0] == "pacman-ai"
    return subprocess.run([sys.executable, "-m", "pacman", *argv[1:]], cwd=folder, env=ENV, capture_output=True,
                          text=True, timeout=600)


def _is_quick(command: str) -> bool:
    return "tricky" not in command


def _last_line(line: str, command: str) -> str:
    """The last line of a report without what the machine decides: the time, and after an SPRT's verdict, the
    games that were in flight (played, in the file, not paired)."""
    line = re.sub(r"in [\d.]+ s", "", line)
    if "--sprt" in command:
        line = re.sub(r"\d+ games played", "", re.sub(r"; \d+ finished games? not paired$", "", line))
    return line


@pytest.mark.slow  # 8 s; the same four outputs are exact figures of `python scripts/docs_figures.py --all` (CI)
def test_the_documented_outputs_are_what_the_documented_commands_print(tmp_path):
    blocks = _blocks(DOC)
    quick = [c for c in _commands(DOC) if _is_quick(c)]
    assert len(quick) == 4 and sum("--sprt" in c for c in quick) == 1
    for command in quick:
        done = _run(command, tmp_path)
        assert done.returncode == 0, done.stderr
        printed = done.stdout.splitlines()
        # The documented output is the block that follows the command's block; all but the timing line agree.
        documented = next(b for b in blocks if b.startswith(printed[0] + "\n")).splitlines()
        assert printed[:-1] == documented[:-1]
        assert _last_line(printed[-1], command) == _last_line(documented[-1], command)
        if "--sprt" not in command:
            assert done.stderr.splitlines()[-1].startswith("compare: ")  # the progress line, named for compare
    assert (tmp_path / "ranking.png").read_bytes()[:4] == b"\x89PNG"


def test_the_readme_and_guide_commands_are_the_documented_ones():
    # The README's one example and the guide's two are among those whose output docs/experiments.md shows (and the
    # test above runs); the README's is also run as typed by tests/test_readme_examples.py.
    readme, guide = _commands(README, "sh"), _commands(GUIDE)
    assert len(readme) == 1 and len(guide) == 2
    documented = [shlex.split(command) for command in _commands(DOC)]
    for command in readme + guide:
        assert shlex.split(command) in documented, command


def test_the_python_example_runs_as_a_script(tmp_path):
    example = next(b for b in _blocks(DOC, "python") if "from pacman.compare import compare" in b)
    script = tmp_path / "example.py"
    script.write_text(example, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=ENV, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    first, second, third = done.stdout.splitlines()
    verdict, pairs, fixed = first.split()
    assert verdict == "H1" and int(pairs) < int(fixed)
    assert float(second.split()[0]) > 0.5
    assert (tmp_path / "score-better.jsonl").exists()


@pytest.mark.slow(minutes=4)
def test_the_worked_example_on_tricky_reaches_a_verdict(tmp_path):
    command = next(c for c in _commands(DOC) if not _is_quick(c))
    done = _run(command, tmp_path)
    assert done.returncode == 0, done.stderr
    assert re.search(r"after \d+ pairs \(\d+ games\): H[01] accepted", done.stdout)


@pytest.mark.slow
def test_the_random_ghosts_contrast_on_tricky_prints_what_the_docs_quote(tmp_path):
    command = next(c for c in _commands(DOC) if not _is_quick(c) and "--ghosts random" in c)
    done = _run(command, tmp_path)
    assert done.returncode == 0, done.stderr
    printed = " ".join(done.stdout.split())
    section = DOC.split("## When pairing pays: random ghosts")[1].split("\n## ")[0]
    quoted = re.findall(r"`(win rate: [^`]+|score: [^`]+)`", " ".join(section.split()))
    assert len(quoted) == 2
    for line in quoted:
        assert line in printed, line
