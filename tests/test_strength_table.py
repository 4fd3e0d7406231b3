"""scripts/strength_table.py as a user runs it: play some cells with pacman-ai batch, resume, tabulate."""

import json
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


def test_the_ghost_kinds_table_plays_the_default_and_the_reference_on_the_same_seeds(tmp_path):
    from pacman.agents.solver import solve
    from pacman.layout import load_layout

    sys.path.insert(0, str(SCRIPT.parent))
    import strength_table

    done = script(tmp_path, "run", "--kinds", "--games", "3", "--reference-games", "2", "--jobs", "1", "--results",
                  "r", "--layouts", "threeway")
    assert done.returncode == 0, done.stderr
    hunting = [kind for kind in strength_table.KINDS if kind != "random"]
    assert hunting and strength_table.KINDS[0] == "random"
    expected = {"threeway__expectimax__default.jsonl"} | {
        f"threeway__expectimax__{args}__{kind}.jsonl" for kind in hunting
        for args in ("default", f"node_limit-{strength_table.REFERENCE_NODES}")}
    assert {p.name for p in (tmp_path / "r").iterdir()} == expected
    # the reference's cells are played after every default cell, with their own count of games
    played = [line for line in done.stdout.splitlines() if " batch " in line]
    assert [("node_limit=" in line) for line in played] == [False] * len(strength_table.KINDS) + [True] * len(hunting)
    assert all("--games 2 " in line for line in played if "node_limit=" in line)
    table = script(tmp_path, "table", "--kinds", "--games", "3", "--reference-games", "2", "--results", "r",
                   "--layouts", "threeway")
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    titles = [c.strip() for c in lines[0].strip("|").split("|")]
    row = dict(zip(titles, (c.strip() for c in lines[2].strip("|").split("|"))))
    assert row["layout"] == "threeway"
    for kind in strength_table.KINDS:
        best = solve(load_layout("threeway"), kind).value
        assert row[f"{kind}: optimum"] == f"{100 * best:.1f}%"
        cell = strength_table.cell_name("threeway", "expectimax", "", kind)
        wins = sum(json.loads(line)["won"] for line in (tmp_path / "r" / cell).read_text().splitlines())
        assert row[f"{kind}: default"].startswith(f"{100 * wins / 3:.1f} [")
        assert row[f"{kind}: default"].endswith(f" gap {100 * (best - wins / 3):+.1f}")
    for kind in hunting:
        assert row[f"{kind}: reference"].split()[0] in {"0.0", "50.0", "100.0"}
        assert row[f"{kind}: default, first 2"].split()[0] in {"0.0", "50.0", "100.0"}
    assert lines[-2].startswith("| ms per move (median game) |")
    assert lines[-1].startswith("| ms per move (99th percentile of the moves) |")


def test_reference_games_are_refused_without_the_kinds_table(tmp_path):
    done = script(tmp_path, "run", "--reference-games", "5", "--layouts", "coinflip")
    assert done.returncode == 2 and "--reference-games: only with --kinds" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_reference_on_more_games_is_the_kinds_tables_reference_on_the_commands_shown(monkeypatch):
    """docs/guide/strength.md, "The reference on more games": its reference is `REFERENCE_NODES` nodes a move, as
    in the kinds table; each row's games are the figure's command's, and no count exceeds its games."""
    import re

    root = SCRIPT.parent.parent
    monkeypatch.syspath_prepend(str(root / "scripts"))
    from docs_figures import FIGURES
    from strength_table import REFERENCE_NODES

    text = (root / "docs" / "guide" / "strength.md").read_text()
    section = re.search(r"<!-- figure reference-games -->(.*?)<!-- /figure reference-games -->", text, re.S).group(1)
    assert f"--agent-args node_limit={REFERENCE_NODES}\n" in section
    rows = re.findall(r"^\| (\S+) \| (\d+) \| (\d+) \| (\d+) \|$", section, re.M)
    assert len(rows) == 4
    commands = next(f for f in FIGURES if f.name == "reference-games").commands()
    for layout, games, default, reference in rows:
        assert int(default) <= int(games) and int(reference) <= int(games)
        mine = [c for c in commands if f"--layout {layout} " in c]
        assert len(mine) == 2 and all(f"--games {games} " in c for c in mine)
        assert sum(c.endswith(f"node_limit={REFERENCE_NODES}") for c in mine) == 1
        assert (layout == "large") == all("--max-moves 2000" in c for c in mine)
