"""scripts/strength_table.py as a user runs it: play some cells with pacman-ai batch, resume, tabulate."""

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "strength_table.py"


def script(tmp_path, *args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)


def test_run_then_table_shows_win_rates_intervals_and_the_gap_to_the_optimum(tmp_path):
    done = script(tmp_path, "run", "--games", "6", "--jobs", "1", "--results", "r", "--layouts", "coinflip",
                  "--only", "greedy")
    assert done.returncode == 0, done.stderr
    files = sorted(p.name for p in (tmp_path / "r").iterdir())
    assert files == ["coinflip__greedy__default.jsonl"]
    assert len((tmp_path / "r" / files[0]).read_text().splitlines()) == 6
    again = script(tmp_path, "run", "--games", "8", "--jobs", "1", "--results", "r", "--layouts", "coinflip",
                   "--only", "greedy")
    assert "--resume" in again.stdout  # the cell's file is continued, not replayed
    assert len((tmp_path / "r" / files[0]).read_text().splitlines()) == 8
    table = script(tmp_path, "table", "--games", "10", "--results", "r", "--layouts", "coinflip")
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].startswith("| layout | optimum | greedy | expectimax d1 |")
    row = next(line for line in lines if line.startswith("| coinflip |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "50.0%"
    wins = round(float(cells[2].split()[0]) * 8 / 100)
    assert cells[2].endswith(f"gap {100 * (0.5 - wins / 8):+.1f} (8 games)")
    assert cells[3:] == ["-"] * 9 + ["n/a", "-"]  # not played yet; no learned model of coinflip


def test_an_unknown_layout_is_named(tmp_path):
    for command in ("table", "run"):
        done = script(tmp_path, command, "--layouts", "nosuch", "--results", "r")
        assert done.returncode == 2 and "--layouts 'nosuch': not a shipped layout" in done.stderr
        assert "Traceback" not in done.stderr and not (tmp_path / "r").exists()


def test_bad_flags_and_a_missing_results_folder_are_refused_before_any_work(tmp_path):
    for args, named in ((("run", "--jobs", "0"), "--jobs 0: expected a positive number"),
                        (("table", "--results", "nowhere"), "--results nowhere: no such folder")):
        done = script(tmp_path, *args, "--layouts", "coinflip")
        assert done.returncode == 2 and named in done.stderr and done.stdout == "", done.stderr
        assert "Traceback" not in done.stderr and list(tmp_path.iterdir()) == []


def test_a_cell_that_cannot_be_resumed_is_named_and_the_run_fails(tmp_path):
    (tmp_path / "r").mkdir()
    broken = tmp_path / "r" / "coinflip__greedy__default.jsonl"
    broken.write_text('{"layout": "small", "seed": 0}\n')
    done = script(tmp_path, "run", "--games", "2", "--jobs", "1", "--results", "r", "--layouts", "coinflip",
                  "--only", "greedy")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "the cell coinflip__greedy__default.jsonl cannot be resumed: " in done.stderr
    assert "1 of the cells failed: coinflip__greedy__default.jsonl" in done.stderr
    assert broken.read_text() == '{"layout": "small", "seed": 0}\n'  # left as it was
    table = script(tmp_path, "table", "--games", "2", "--results", "r", "--layouts", "coinflip")
    assert table.returncode == 1 and table.stdout == "" and "line 1 is not a game line" in table.stderr


def test_run_plays_the_optimal_cell_only_where_the_solver_can_solve(tmp_path):
    done = script(tmp_path, "run", "--games", "2", "--jobs", "1", "--results", "r", "--layouts", "coinflip,large",
                  "--only", "optimal")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == ["coinflip__optimal__objective-win.jsonl"]
    played = [line for line in done.stdout.splitlines() if " batch " in line]
    assert len(played) == 1 and "--layout coinflip " in played[0]  # large is never tried
    assert "failed" not in done.stderr


def test_the_learned_column_plays_the_shipped_model_of_each_maze(tmp_path):
    import pytest

    pytest.importorskip("sb3_contrib", reason='the learned column needs the extra: pip install "pacman-ai[rl]"')
    done = script(tmp_path, "run", "--games", "3", "--jobs", "1", "--results", "r", "--layouts", "small,coinflip",
                  "--only", "learned")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == ["small__learned__default.jsonl"]
    played = [line for line in done.stdout.splitlines() if " batch " in line]
    assert len(played) == 1 and "--pacman sb3:" in played[0] and played[0].split("--pacman sb3:")[1].split()[0] \
        == str(SCRIPT.parent.parent / "examples" / "rl" / "small.zip")
    table = script(tmp_path, "table", "--games", "3", "--results", "r", "--layouts", "small,coinflip")
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    titles = [c.strip() for c in lines[0].strip("|").split("|")]
    column = titles.index("learned")
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.strip("|").split("|")] for line in lines[2:]}
    assert rows["coinflip"][column] == "n/a"
    shown = rows["small"][column]
    assert shown.split()[0] in {"0.0", "33.3", "66.7", "100.0"} and "[" in shown
