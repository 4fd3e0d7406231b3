"""The README's and docs' figures say what their commands give today (scripts/docs_figures.py).

The script is run as a maintainer runs it, `python scripts/docs_figures.py`, from a
fresh folder; the slow exact figures (the 1000-game batch) are checked by CI
(`.ci/run`: `--all`), the timings only measured on request (`--timings`).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "docs_figures.py"
FAST_EXACT = ["tree-examples", "web-page-size", "web-page-bytes", "game-gif", "screenshot", "readme-default-agent",
              "play-default-evaluation", "grading-default-evaluation", "import-seconds", "ghost-kinds-commands", "ghost-kinds-play",
              "ghost-kinds-games", "ghost-kinds-contest", "cs188-engine-limits", "cs188-default-forbidden",
              "class-similarity-threshold", "cs188-forbidden-example",
              "grading-forbidden-example", "grade-limits", "layouts-table", "solve-threeway",
              "mcts-rollouts", "strength-default-agent", "memory-estimates"]


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
    shutil.copy(ROOT / "docs" / "screenshot.png", root / "docs" / "screenshot.png")
    return root


@pytest.mark.slow  # 14 s; CI runs it with -m slow, and `python scripts/docs_figures.py --all` checks these too
def test_the_documents_say_what_their_commands_give_now(tmp_path):
    done = _script(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    checked = [line.split()[1] for line in done.stdout.splitlines() if line.startswith("ok  ")]
    assert checked == FAST_EXACT, done.stdout


def test_list_names_every_figure_with_its_document_and_command(tmp_path):
    done = _script(tmp_path, "--list")
    assert done.returncode == 0
    rows = {line.split()[0]: line for line in done.stdout.splitlines()}
    assert list(rows)[:len(FAST_EXACT) + 2] == FAST_EXACT + ["batch-outcome", "batch-speed"]
    assert {row.split()[1] for row in rows.values()} == {"exact", "timing", "tested", "recorded"}
    assert "recorded (data)" in rows["held-out-gaps"] and "[results: scripts/figures-data/held-out-gaps.json]" in rows[
        "held-out-gaps"]
    # the strength table, RL training and the env speed table: recorded or timed, each with its command
    assert "recorded" in rows["strength-table"] and "python scripts/strength_table.py table" in rows["strength-table"]
    assert "recorded" in rows["rl-recipe"] and "python examples/rl/train.py --layout small" in rows["rl-recipe"]
    assert "timing" in rows["env-speed"] and "pacman-ai bench --part env --runs 5" in rows["env-speed"]
    assert "exact" in rows["memory-estimates"] and "docs/long-runs.md" in rows["memory-estimates"]
    assert "exact (slow)" in rows["default-agent-table"] and "exact (slow)" in rows["play-layout-outcomes"]
    for name in ("two-configurations", "many-configurations", "sprt-same-config-output", "pairing-trapped-output"):
        assert "exact (slow)" in rows[name] and "docs/experiments.md" in rows[name]
    assert "exact (slow)" in rows["q-learning-example"] and "python examples/envs/q_learning.py" in rows[
        "q-learning-example"]
    assert "tested" in rows["make-vec-refusal"] and "-k make_vec_with_ten_million" in rows["make-vec-refusal"]
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


def test_a_screenshot_the_window_no_longer_draws_is_reported_with_the_command_to_run(tmp_path, copy):
    from PIL import Image

    shot = copy / "docs" / "screenshot.png"
    with Image.open(shot) as image:
        stale = image.convert("RGB")
    stale.putpixel((20, 20), (255, 0, 255))  # one pixel of the board, not the search's time
    stale.save(shot)
    done = _script(tmp_path, "--root", str(copy), "--only", "screenshot")
    assert done.returncode == 1
    assert ("docs/screenshot.png differs from frame 121 of `pacman-ai play --layout medium --display none --seed 7 "
            "--max-moves 60 --record frames` (pixels 20,20 to 21,21; ") in done.stdout
    assert "run python scripts/docs_figures.py --write --screenshot" in done.stdout
    done = _script(tmp_path, "--root", str(copy), "--only", "screenshot", "--write", "--screenshot")
    assert done.returncode == 0 and "recorded docs/screenshot.png: frame 121 of" in done.stdout
    assert _script(tmp_path, "--root", str(copy), "--only", "screenshot").returncode == 0


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


def test_every_figure_looking_number_in_the_docs_is_marked(tmp_path):
    done = _script(tmp_path, "--lint")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("every figure-looking number of ")


@pytest.mark.parametrize("sentence, number", [
    ("It won 97.3% of its games.", "97.3%"),
    ("A move took 4.2 ms at the median.", "4.2 ms"),
    ("The run peaked at 812 MB of memory.", "812 MB"),
    ("The core is 7.5x faster here.", "7.5x"),
    ("It explored 1,234,567 nodes.", "1,234,567"),
    ("The mean score was 1412.5 over the seeds.", "1412.5"),
])
def test_an_unmarked_figure_fails_and_the_message_says_how_to_mark_it(tmp_path, copy, sentence, number):
    page = copy / "docs" / "guide" / "compare.md"
    page.write_text(page.read_text() + f"\n{sentence}\n")
    done = _script(tmp_path, "--root", str(copy), "--lint")
    assert done.returncode == 1 and done.stdout == ""
    lines = done.stderr.splitlines()
    line = len(page.read_text().splitlines())
    assert lines[0] == (f"docs_figures: docs/guide/compare.md line {line}: {number!r} looks like a figure and is not "
                        f"marked: {sentence}")
    assert "<!-- figure NAME -->the text with the figure<!-- /figure NAME -->" in done.stderr
    assert "add a Figure to FIGURES in scripts/docs_figures.py" in done.stderr and "NOT_FIGURES" in done.stderr
    # the default check fails the same way, before any command is run
    assert _script(tmp_path, "--root", str(copy)).returncode == 1


@pytest.mark.parametrize("text", [
    "Run `pacman-ai batch --games 1,000 --max-moves 2.5`.",  # inline code: a command, not a figure
    "```python\nx = 12.5  # 30%\n```",  # code
    "```\n$ pacman-ai compare --sprt win-rate:0,0.1\n```",  # the command line of an output block
    "With Python 3.11 or newer.",  # a version
    "<!-- figure made-up -->It won 99.9%.<!-- /figure made-up -->",  # marked (and then unknown: see below)
])
def test_what_is_not_a_figure_or_is_marked_is_not_flagged(tmp_path, copy, text):
    page = copy / "docs" / "guide" / "compare.md"
    page.write_text(page.read_text() + f"\n{text}\n")
    done = _script(tmp_path, "--root", str(copy), "--lint")
    assert "looks like a figure" not in done.stderr, done.stderr
    if "made-up" in text:  # a marker needs its Figure: named, not ignored
        assert done.returncode == 1
        assert "marked figure 'made-up' is not in scripts/docs_figures.py FIGURES" in done.stderr
    else:
        assert done.returncode == 0, done.stderr


def test_a_recorded_figure_whose_command_no_longer_parses_is_named():
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import docs_figures
    finally:
        sys.path.remove(str(SCRIPT.parent))
    assert docs_figures.command_problems("pacman-ai batch --layout small --games 1000 --jobs 2") == []
    assert docs_figures.command_problems("PACMAN_AI_ENGINE=python pacman-ai bench --part env --runs 5") == []
    assert docs_figures.command_problems("nice -n 5 python examples/rl/train.py --layout small --minutes 25") == []
    [problem] = docs_figures.command_problems("pacman-ai batch --layout small --gmaes 1000")
    assert problem.startswith("`pacman-ai batch --layout small --gmaes 1000`: ") and "--gmaes" in problem
    assert docs_figures.command_problems("python examples/rl/train.py --no-such-flag 1") == [
        "`python examples/rl/train.py --no-such-flag 1`: examples/rl/train.py defines no --no-such-flag"]
    assert docs_figures.command_problems("python scripts/nowhere.py") == [
        "`python scripts/nowhere.py`: scripts/nowhere.py is not in the repository"]
    # every recorded and timing figure of the documents parses now, and names the kind it is
    for figure in docs_figures.FIGURES:
        assert figure.kind in docs_figures.KINDS
        if figure.kind != "exact":
            assert [p for c in figure.commands() for p in docs_figures.command_problems(c)] == [], figure.name


def test_the_memory_table_is_made_from_pacman_memory_and_only_the_machine_may_differ(tmp_path, copy):
    page = copy / "docs" / "long-runs.md"
    text = page.read_text()
    # the machine's free and total memory in the example refusal are this machine's: not part of the figure
    page.write_text(re.sub(r"more than the [\d.]+ GB of memory this machine has free \([\d.]+ GB in all\)",
                           "more than the 1.5 GB of memory this machine has free (2.0 GB in all)", text))
    assert _script(tmp_path, "--root", str(copy), "--only", "memory-estimates").returncode == 0
    page.write_text(text.replace("640 bytes a state", "600 bytes a state"))
    done = _script(tmp_path, "--root", str(copy), "--only", "memory-estimates")
    assert done.returncode == 1 and "+| `pacman-ai solve`, the `optimal` agent | 640 bytes a state" in done.stdout


@pytest.mark.slow
def test_the_default_agents_table_is_checked_column_by_column_except_the_milliseconds(tmp_path, copy):
    """The table cut to its `medium` row (the check is the same for every row; `docs_figures.py --all`, which CI
    runs, plays every row's 100 games: seven minutes here, twice over if this test kept them all)."""
    page = copy / "docs" / "guide" / "strength.md"
    whole = page.read_text()
    start, end = whole.index("<!-- figure default-agent-table -->"), whole.index("<!-- /figure default-agent-table -->")
    table = whole[start:end].splitlines(keepends=True)
    rows = [line for line in table if line.startswith("| ") and not line.startswith("| layout |")]
    assert len(rows) >= 10 and sum(line.startswith("| medium | 2 |") for line in rows) == 1
    kept = "".join(line for line in table if line not in rows or line.startswith("| medium |"))
    text = whole[:start] + kept + whole[end:]
    page.write_text(text)
    row = next(line for line in text.splitlines() if line.startswith("| medium | 2 |"))
    cells = row.split("|")
    timing = cells.copy()
    timing[6] = " 9.99 "  # a machine's milliseconds: not checked
    page.write_text(text.replace(row, "|".join(timing)))
    assert _script(tmp_path, "--root", str(copy), "--only", "default-agent-table").returncode == 0
    wrong = cells.copy()
    wrong[4] = " 1 "  # the mean score: checked
    page.write_text(text.replace(row, "|".join(wrong)))
    done = _script(tmp_path, "--root", str(copy), "--only", "default-agent-table")
    assert done.returncode == 1
    assert (f"medium: the table says won {cells[3].strip()}, mean score 1, mean moves {cells[5].strip()}; "
            f"`pacman-ai play --layout medium --games 100 --seed 0 --display none` gives {cells[3].strip()}, "
            f"{cells[4].strip()}, {cells[5].strip()}") in done.stdout


def test_the_held_out_table_is_made_again_from_its_recorded_results(tmp_path, copy):
    (copy / "scripts" / "figures-data").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "figures-data" / "held-out-gaps.json", copy / "scripts" / "figures-data")
    shutil.copy(ROOT / "scripts" / "optimality_gap.py", copy / "scripts")  # the command's script: its flags
    page = copy / "docs" / "search-strength.md"
    text = page.read_text()
    assert _script(tmp_path, "--root", str(copy), "--only", "held-out-gaps").returncode == 0
    row = next(line for line in text.splitlines() if line.startswith("| greedy |"))
    cells = row.split("|")
    cells[5] = " 143 "
    page.write_text(text.replace(row, "|".join(cells)))
    done = _script(tmp_path, "--root", str(copy), "--only", "held-out-gaps")
    assert done.returncode == 1
    assert ("DIFFERS  held-out-gaps (docs/search-strength.md, recorded): its results file gives another text"
            in done.stdout)
    assert (f"greedy: mazes > 3 points short: the document says 143, scripts/figures-data/held-out-gaps.json gives "
            f"{row.split('|')[5].strip()}") in done.stdout
    page.write_text(text)
    (copy / "scripts" / "figures-data" / "held-out-gaps.json").unlink()
    done = _script(tmp_path, "--root", str(copy), "--only", "held-out-gaps")
    assert done.returncode == 2 and "scripts/figures-data/held-out-gaps.json: [Errno 2]" in done.stderr


def test_the_second_generators_table_is_made_again_from_its_recorded_results(tmp_path, copy):
    (copy / "scripts" / "figures-data").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "figures-data" / "wild-gaps.json", copy / "scripts" / "figures-data")
    shutil.copy(ROOT / "scripts" / "optimality_gap.py", copy / "scripts")
    page = copy / "docs" / "search-strength.md"
    text = page.read_text()
    assert _script(tmp_path, "--root", str(copy), "--only", "wild-gaps").returncode == 0
    row = next(line for line in text.splitlines() if line.startswith("| **the default (`dots`)** | **89.8**"))
    cells = row.split("|")
    cells[5] = " **9.99 (0.00-0.01)** "
    page.write_text(text.replace(row, "|".join(cells)))
    done = _script(tmp_path, "--root", str(copy), "--only", "wild-gaps")
    assert done.returncode == 1
    assert (f"expectimax: worst tenth: the document says 9.99 (0.00-0.01), scripts/figures-data/wild-gaps.json gives "
            f"{row.split('|')[5].strip().strip('*')}") in done.stdout
    family = "- holes: 126 mazes, mean gap 0.30, 6 more than 3 points short;"
    assert family in text
    page.write_text(text.replace(family, family.replace("6 more", "5 more")))
    done = _script(tmp_path, "--root", str(copy), "--only", "wild-gaps")
    assert done.returncode == 1 and "holes: the document says 126 0.30 5, " in done.stdout


def test_a_command_reads_the_repositorys_files_by_path_and_writes_only_in_its_scratch_folder():
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_figures_under_test", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    argv = ["pacman-ai", "play", "--pacman", "sb3:examples/rl/small.zip", "--record", "docs/game.gif",
            "--layout", "layouts/small.lay"]
    made = module._absolute_argv(argv)
    assert made[3] == f"sb3:{ROOT / 'examples' / 'rl' / 'small.zip'}"  # read: the repository's file
    assert made[5] == "docs/game.gif"  # written: in the folder the command runs in, never over the repository's
    assert made[7] == str(ROOT / "layouts" / "small.lay")


@pytest.mark.slow
def test_the_readmes_count_of_tests_is_a_floor_true_with_and_without_the_extras(tmp_path, copy):
    """The count moves with the extras installed, so the README gives a floor, checked as one: below the count
    pytest collects, and not stale (within TEST_COUNT_SLACK)."""
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        from docs_figures import TEST_COUNT_SLACK
    finally:
        sys.path.remove(str(SCRIPT.parent))
    readme = copy / "README.md"
    text = readme.read_text()
    claim = re.search(r"<!-- figure readme-test-count -->over ([\d,]+) tests<!--", text)
    assert claim, "README.md no longer says \"over N tests\""
    assert _script(tmp_path, "--root", str(copy), "--all", "--only", "readme-test-count").returncode == 0
    floor = int(claim.group(1).replace(",", ""))
    for wrong in (floor - TEST_COUNT_SLACK, floor + TEST_COUNT_SLACK):  # stale, then more than there are
        readme.write_text(text.replace(claim.group(0), f"<!-- figure readme-test-count -->over {wrong:,} tests<!--"))
        done = _script(tmp_path, "--root", str(copy), "--all", "--only", "readme-test-count")
        assert done.returncode == 1
        assert f'README.md: "over {wrong:,} tests", but pytest collects ' in done.stdout
