"""The README's Python examples, run as a reader runs them: copied into a script file in a fresh directory, run with `python`."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
EXAMPLES = re.findall(r"```python\n(.*?)```", README, flags=re.S)


def _run(tmp_path: Path, code: str) -> subprocess.CompletedProcess:
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    return subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={"PATH": "/usr/bin:/bin", "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy",
                               "HOME": str(tmp_path)})


def _example(marker: str) -> str:
    found = [code for code in EXAMPLES if marker in code]
    assert len(found) == 1, f"expected one README example with {marker!r}, found {len(found)}"
    return found[0]


def test_every_python_example_of_the_readme_is_checked_here():
    # The Gymnasium example is run as a script by tests/test_envs_examples.py; the other two below.
    assert len(EXAMPLES) == 3 and len([code for code in EXAMPLES if "import pacman.envs" in code]) == 1


def test_using_it_from_python_runs_as_a_script_and_imports_the_agents_as_pacman_agents(tmp_path):
    code = _example("from pacman.agents import ExpectimaxAgent, make_ghosts")
    done = _run(tmp_path, code)
    assert done.returncode == 0, done.stderr
    outcome, score, moves = done.stdout.split()
    assert outcome in ("won", "lost", "cut-off") and 0 < int(moves) <= 500 and float(score) == float(score)
    # The game is seeded: the same script prints the same game.
    assert _run(tmp_path, code).stdout == done.stdout


@pytest.mark.slow
def test_the_batch_example_runs_as_a_script_and_writes_its_results_file(tmp_path):
    done = _run(tmp_path, _example("run_batch"))
    assert done.returncode == 0, done.stderr
    rate, interval = done.stdout.split(" ", 1)
    assert 0.0 <= float(rate) <= 1.0 and interval.strip()[0] in "(["
    assert len((tmp_path / "small.jsonl").read_text().splitlines()) >= 200
