"""The README's and docs' figures say what their commands give today (scripts/docs_figures.py).

The script is run as a maintainer runs it, `python scripts/docs_figures.py`, from a
fresh folder; the slow exact figures (the 1000-game batch) are checked by CI
(`.ci/run`: `--all`), the timings only measured on request (`--timings`).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "docs_figures.py"
FAST_EXACT = ["tree-examples", "web-page-size", "web-page-bytes", "game-gif", "layouts-table", "solve-threeway",
              "mcts-rollouts"]


def _script(cwd: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture
def copy(tmp_path):
    """The documents of this repository in a folder of their own, to be spoilt."""
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    shutil.copy(ROOT / "README.md", root / "README.md")
    for path in (ROOT / "docs").rglob("*.md"):
        (root / path.parent.relative_to(ROOT)).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, root / path.relative_to(ROOT))
    shutil.copy(ROOT / "docs" / "game.gif", root / "docs" / "game.gif")
    return root


def test_the_documents_say_what_their_commands_give_now(tmp_path):
    done = _script(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    checked = [line.split()[1] for line in done.stdout.splitlines() if line.startswith("ok  ")]
    assert checked == FAST_EXACT, done.stdout


def test_list_names_every_figure_with_its_document_and_command(tmp_path):
    done = _script(tmp_path, "--list")
    assert done.returncode == 0
    rows = {line.split()[0]: line for line in done.stdout.splitlines()}
    assert list(rows) == FAST_EXACT + ["batch-outcome", "batch-speed"]
    assert "docs/search-strength.md" in rows["mcts-rollouts"] and "docs/guide/batch.md" in rows["batch-outcome"]
    assert "pacman-ai play --display none --seed 7 --max-moves 150 --record docs/game.gif --zoom 0.75" in rows["game-gif"]
    assert "exact (slow)" in rows["batch-outcome"] and "timing" in rows["batch-speed"]


def test_a_figure_that_no_longer_matches_is_named_with_its_difference(tmp_path, copy):
    page = copy / "docs" / "guide" / "tree.md"  # a page in a subfolder of docs/
    page.write_text(page.read_text().replace("value: 54.5\n", "value: 54.0\n", 1))
    done = _script(tmp_path, "--root", str(copy), "--only", "tree-examples")
    assert done.returncode == 1
    assert ("DIFFERS  tree-examples (docs/guide/tree.md): "
            "pacman-ai tree examples/trees/expectimax-max-of-chances.json") in done.stdout
    assert "    -value: 54.0" in done.stdout and "    +value: 54.5" in done.stdout
    assert "1 figure(s) differ" in done.stderr
    # --write puts the figure back as the command gives it, and nothing else changes.
    done = _script(tmp_path, "--root", str(copy), "--only", "tree-examples", "--write")
    assert done.returncode == 0 and "wrote tree-examples into docs/guide/tree.md" in done.stdout
    assert page.read_text() == (ROOT / "docs" / "guide" / "tree.md").read_text()


def test_the_mcts_figure_is_marked_where_its_games_are_told():
    # docs/search-strength.md once said 51 wins on `corridor` where its command, deterministic, played 46: the figure
    # is now marked, so the first test above makes it again (and would name it, as it names the tree figure below).
    # With `scaled` as MCTS's default evaluation (it was `better`) the same command plays 51.
    text = (ROOT / "docs" / "search-strength.md").read_text(encoding="utf-8")
    figure = text.split("<!-- figure mcts-rollouts -->", 1)[1].split("<!-- /figure mcts-rollouts -->", 1)[0]
    assert "`rollout_depth=0` won 100 and 51" in " ".join(figure.split())
    assert "iterations=100,rollout_depth=D --games 100 --seed 0 --display none" in " ".join(text.split())


def test_a_gif_that_does_not_match_its_command_is_reported(tmp_path, copy):
    from PIL import Image

    Image.new("RGB", (40, 30)).save(copy / "docs" / "game.gif")
    done = _script(tmp_path, "--root", str(copy), "--only", "game-gif")
    assert done.returncode == 1
    assert "docs/game.gif is 40x30 pixels, 1 frames; `pacman-ai play --display none --seed 7 --max-moves 150 " \
           "--record docs/game.gif --zoom 0.75` now records" in done.stdout


@pytest.mark.parametrize("spoil, message", [
    (lambda t: t + "\n<!-- figure nope -->x<!-- /figure nope -->\n",
     "docs_figures: docs/web-page.md: marked figure 'nope' is not in scripts/docs_figures.py FIGURES"),
    (lambda t: t.replace("<!-- figure web-page-bytes -->", "").replace("<!-- /figure web-page-bytes -->", ""),
     "docs_figures: docs/web-page.md: no markers for figure 'web-page-bytes'"),
])
def test_markers_and_figures_must_pair_up(tmp_path, copy, spoil, message):
    page = copy / "docs" / "web-page.md"
    page.write_text(spoil(page.read_text()))
    done = _script(tmp_path, "--root", str(copy), "--only", "tree-examples")
    assert done.returncode == 1 and message in done.stderr, done.stderr


def test_a_marker_left_open_is_a_one_line_error(tmp_path, copy):
    page = copy / "docs" / "web-page.md"
    page.write_text(page.read_text().replace("<!-- /figure web-page-bytes -->", ""))
    done = _script(tmp_path, "--root", str(copy), "--only", "tree-examples")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("docs_figures: docs/web-page.md: figure 'web-page-bytes' is never closed "
                           "(<!-- /figure web-page-bytes -->)\n")
