"""Every example of the README, run as a reader runs it.

- Each shell block (but the quickstart's, which `.ci/run` runs verbatim in a fresh
  virtual environment) is typed into `bash` in a fresh directory, command by
  command, with the installed `pacman-ai` on the PATH and no screen, and what it
  prints or writes is checked. A block the README gains without an entry in
  `EXAMPLES` fails here, and so does an entry whose block the README lost.
- The quickstart block is read the way `.ci/run` reads it (its own `awk` line,
  taken from `.ci/run`): exactly the two commands.
- The Python examples are copied into a script file in a fresh directory and run
  with `python` (the Gymnasium one by tests/test_envs_examples.py), and so is the
  `run_batch` example of docs/guide/batch.md.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
EXAMPLES_PY = re.findall(r"```python\n(.*?)```", README, flags=re.S)
BIN = str(Path(sys.executable).parent)  # where the install put `pacman-ai`


def _python(tmp_path: Path, code: str) -> subprocess.CompletedProcess:
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    return subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={"PATH": "/usr/bin:/bin", "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy",
                               "HOME": str(tmp_path)})


def _example(text: str, marker: str) -> str:
    found = [code for code in re.findall(r"```python\n(.*?)```", text, flags=re.S) if marker in code]
    assert len(found) == 1, f"expected one example with {marker!r}, found {len(found)}"
    return found[0]


# -- the shell examples --------------------------------------------------------------------------------------


def _shell_blocks(text: str) -> list[list[str]]:
    """The commands of each ```sh block after the quickstart's, one list per block (comments and blanks left out)."""
    after = text.split("<!-- quickstart -->", 1)[1].split("```", 2)[2]  # past the quickstart block
    blocks = re.findall(r"```sh\n(.*?)```", after, flags=re.S)
    return [[line.strip() for line in block.splitlines() if line.strip() and not line.strip().startswith("#")]
            for block in blocks]


def _layout_names() -> list[str]:
    return sorted(path.stem for path in (ROOT / "layouts").glob("*.lay"))


def _check_play(folder: Path, outputs: list[str]) -> None:
    # No screen: the game is drawn in the terminal, round by round, and ends with its result line.
    lines = outputs[0].splitlines()
    assert "%" in outputs[0] and re.fullmatch(r"(won|lost|cut-off): score -?\d+ after \d+ moves \(seed 7\)", lines[-1])


def _check_page_and_replay(folder: Path, outputs: list[str]) -> None:
    played = re.match(r"game 1: (won|lost|cut-off), score (-?\d+), (\d+) moves, seed 5\b", outputs[0])
    assert played, outputs[0]
    assert "PacmanAI.mount" in (folder / "game.html").read_text(encoding="utf-8")
    replayed = json.loads(outputs[1])
    assert (replayed["outcome"], replayed["score"], replayed["moves"]) == (
        played.group(1), int(played.group(2)), int(played.group(3)))


def _check_batch(folder: Path, outputs: list[str]) -> None:
    summary = json.loads((folder / "small.json").read_text())
    assert summary["games"] == 200 and 0 <= summary["wins"] <= 200
    low, high = summary["win_rate_ci95"]
    assert low <= summary["win_rate"] <= high
    assert len((folder / "small.jsonl").read_text().splitlines()) == 200


def _check_compare(folder: Path, outputs: list[str]) -> None:
    assert "score" in outputs[0] and "better" in outputs[0] and "50" in outputs[0]


def _check_tree(folder: Path, outputs: list[str]) -> None:
    # The README says what it prints.
    assert "prints `value: 54.5` and `action: right`" in README
    assert outputs[0] == "value: 54.5\naction: right\n"


def _check_solve(folder: Path, outputs: list[str]) -> None:
    assert "two games in three at best" in README
    assert outputs[0].splitlines()[0] == "threeway with 1 random ghost: optimal probability of winning 0.666666666667"


def _check_grade(folder: Path, outputs: list[str]) -> None:
    assert "def better_evaluation" in (folder / "multi_agents.py").read_text()
    assert "scores\n0 of 24" in README and re.search(r"^Total: 0/24 ", outputs[1], flags=re.M), outputs[1]


def _check_bench(folder: Path, outputs: list[str]) -> None:
    assert "successors per second on medium (median of 1 runs" in outputs[0]


def _check_layouts(folder: Path, outputs: list[str]) -> None:
    rows = outputs[0].splitlines()
    assert rows[0].split() == ["name", "size", "ghosts", "food", "capsules"]
    assert [row.split()[0] for row in rows[1:]] == _layout_names()


#: Each shell block of the README after the quickstart, in order: its commands and what they must give.
EXAMPLES: list[tuple[list[str], Callable[[Path, list[str]], None]]] = [
    (["pacman-ai play --layout small --seed 7"], _check_play),
    (["pacman-ai play --layout small --seed 5 --max-moves 60 --display none --save game.json --html game.html",
      "pacman-ai replay game.json --display none --json"], _check_page_and_replay),
    (["pacman-ai batch --layout small --games 200 --jobs 2 --out small.jsonl --summary small.json"], _check_batch),
    (["pacman-ai compare --layout small --agent-args depth=1 --config score:'--agent-args evaluation=score' "
      "--config better:'--agent-args evaluation=better' --games 50"], _check_compare),
    (["pacman-ai tree examples/trees/expectimax-max-of-chances.json"], _check_tree),
    (["pacman-ai solve threeway"], _check_solve),
    (["pacman-ai grade expectimax --starter > multi_agents.py", "pacman-ai grade expectimax multi_agents.py"],
     _check_grade),
    (["pacman-ai bench --part engine --runs 1"], _check_bench),
    (["pacman-ai layouts"], _check_layouts),
]


def test_every_shell_example_of_the_readme_is_run_here():
    assert _shell_blocks(README) == [commands for commands, _ in EXAMPLES]


#: The examples that play many of the default agent's games on a big maze: minutes on the Python engine, whose
#: moves near a ghost search NEAR_GHOST_NODES nodes in Python. The default run (the compiled core) runs them as
#: typed; the engines' games are the same (tests/test_auto_depth.py and the parity tests).
MANY_GAMES = {"pacman-ai batch --layout small --games 200 --jobs 2 --out small.jsonl --summary small.json"}
ON_THE_PYTHON_ENGINE = os.environ.get("PACMAN_AI_ENGINE") == "python"


@pytest.mark.parametrize("commands, check", [
    pytest.param(commands, check, marks=pytest.mark.skipif(
        ON_THE_PYTHON_ENGINE and commands[0] in MANY_GAMES,
        reason="many default games on a big maze: the core's run plays them as typed"))
    for commands, check in EXAMPLES], ids=[commands[0].split()[1] + "-" + str(i)
                                           for i, (commands, _) in enumerate(EXAMPLES)])
def test_a_readme_example_runs_as_typed(tmp_path, commands, check):
    folder = tmp_path / "fresh"
    folder.mkdir()
    if any("examples/" in command for command in commands):  # "from the clone": the example files are there
        shutil.copytree(ROOT / "examples", folder / "examples")
    # A reader's shell without a screen (SDL's dummy driver counts as none on every platform), the installed command
    # on the PATH.
    env = {key: value for key, value in os.environ.items() if key not in ("DISPLAY", "WAYLAND_DISPLAY", "PYTHONPATH")}
    env.update(PATH=f"{BIN}{os.pathsep}/usr/bin{os.pathsep}/bin", HOME=str(tmp_path), SDL_VIDEODRIVER="dummy",
               SDL_AUDIODRIVER="dummy")
    outputs = []
    for command in commands:
        done = subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, f"{command}: exit {done.returncode}: {done.stderr[-2000:]}"
        assert "Traceback" not in done.stderr, done.stderr
        outputs.append(done.stdout)
    check(folder, outputs)


# -- the quickstart, as .ci/run reads it ---------------------------------------------------------------------


def test_ci_reads_exactly_the_two_quickstart_commands(tmp_path):
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    line = next(line for line in ci.splitlines() if line.startswith("mapfile -t quickstart"))
    awk = re.search(r"awk '([^']*)' README\.md", line).group(1)
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    done = subprocess.run(["awk", awk, "README.md"], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ['python -m pip install -e ".[test]" && pacman-ai play', "pytest"]


# -- the Python examples -------------------------------------------------------------------------------------


def test_every_python_example_of_the_readme_is_checked_here():
    # The Gymnasium example is run as a script by tests/test_envs_examples.py; the other one below.
    assert len(EXAMPLES_PY) == 2 and len([code for code in EXAMPLES_PY if "import pacman.envs" in code]) == 1


@pytest.mark.parametrize("document", ["README.md", "docs/guide/python.md"])
def test_using_it_from_python_runs_as_a_script_and_imports_the_agents_as_pacman_agents(tmp_path, document):
    code = _example((ROOT / document).read_text(encoding="utf-8"), "from pacman.agents import ExpectimaxAgent, make_ghosts")
    done = _python(tmp_path, code)
    assert done.returncode == 0, done.stderr
    outcome, score, moves = done.stdout.split()
    assert outcome in ("won", "lost", "cut-off") and 0 < int(moves) <= 500 and float(score) == float(score)
    # The game is seeded: the same script prints the same game.
    assert _python(tmp_path, code).stdout == done.stdout


@pytest.mark.slow
def test_the_batch_example_runs_as_a_script_and_writes_its_results_file(tmp_path):
    done = _python(tmp_path, _example((ROOT / "docs" / "guide" / "batch.md").read_text(encoding="utf-8"), "run_batch"))
    assert done.returncode == 0, done.stderr
    rate, interval = done.stdout.split(" ", 1)
    assert 0.0 <= float(rate) <= 1.0 and interval.strip()[0] in "(["
    assert len((tmp_path / "small.jsonl").read_text().splitlines()) >= 200
