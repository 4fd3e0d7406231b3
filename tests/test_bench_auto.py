"""`pacman-ai bench --part auto`: the default agent's time a move (depth "auto") on each engine, run as a user
runs it (a subprocess in a fresh directory), with figures checked against the agent itself."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from pacman import load_layout
from pacman.agents import ExpectimaxAgent
from pacman.agents.compiled import core_status, engine_line
from pacman.agents.expectimax import AUTO_DEPTH, NEAR_GHOST_NODES, NEAR_GHOST_STEPS, SMALL_MAZE_NODES
from pacman.bench.search import auto_benchmark, bench_positions
from pacman.errors import PacmanError

USABLE, _ = core_status()
ENGINES = ("python", "compiled") if USABLE else ("python",)


def _bench(cwd: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pacman", "bench", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env=env)


def test_bench_auto_times_the_default_agent_on_each_engine(tmp_path):
    """As a user runs it: the JSON rows, layout by engine, and the text table with the same figures."""
    args = ["--part", "auto", "--small-mazes", "tiny,small", "--positions", "2", "--runs", "1", "--quiet"]
    done = _bench(tmp_path, *args, "--json")
    assert done.returncode == 0, done.stderr
    auto = json.loads(done.stdout)["auto"]
    assert auto["engine"] == engine_line() and auto["budget"] == SMALL_MAZE_NODES and auto["positions"] == 2
    rows = auto["rows"]
    assert [(r["layout"], r["engine"]) for r in rows] == [(name, e) for name in ("tiny", "small") for e in ENGINES]
    by = {(r["layout"], r["engine"]): r for r in rows}
    # tiny (19 cells) deepens under the budget; small (64 cells) is depth 2, deeper within NEAR_GHOST_NODES only
    # with a ghost near, as "Deeper on small mazes" says
    assert (auto["near_budget"], auto["near_steps"]) == (NEAR_GHOST_NODES, NEAR_GHOST_STEPS)
    assert by["tiny", "python"]["cells"] == 19 and by["tiny", "python"]["deepens"] is True
    assert by["small", "python"]["cells"] == 64 and by["small", "python"]["deepens"] is False
    assert by["small", "python"]["depth_min"] >= AUTO_DEPTH
    assert by["small", "python"]["depth_max"] == AUTO_DEPTH or by["small", "python"]["nodes_per_move_max"] <= \
        NEAR_GHOST_NODES + 1
    assert by["tiny", "python"]["depth_max"] > AUTO_DEPTH
    for row in rows:
        assert row["ms_per_move_median"] <= row["ms_per_move_p99"] <= row["ms_per_move_max"]
        assert row["repeatable"] is True
        if row["deepens"]:
            assert row["nodes_per_move_max"] <= SMALL_MAZE_NODES + 1  # the budget, plus the node that passes it
        if row["engine"] == "compiled":
            assert row["same_answers"] is True
    text = _bench(tmp_path, *args)
    lines = text.stdout.splitlines()
    assert text.returncode == 0 and lines[0] == engine_line()
    assert lines[1].startswith("the default agent (depth 'auto', dots) a move, the same 2 positions on each engine")
    table = [line.split() for line in lines[3:3 + len(rows)]]
    assert [(cells[0], cells[4]) for cells in table] == [(r["layout"], r["engine"]) for r in rows]
    assert [cells[3] for cells in table][-1] == "-".join(dict.fromkeys(
        str(by["small", ENGINES[-1]][key]) for key in ("depth_min", "depth_max")))  # small's depths
    assert f"deepens within {NEAR_GHOST_NODES:,} nodes when a ghost is at most {NEAR_GHOST_STEPS} steps away" in \
        " ".join(text.stdout.split())
    assert "DIFFERENT ANSWERS" not in text.stdout and "NOT REPEATABLE" not in text.stdout


def test_bench_auto_counts_what_the_agent_counts():
    """The figures are the agent's own: on `small` and `trapped` the depths and nodes are those of the default
    agent's decisions on the same positions."""
    small, trapped = load_layout("small"), load_layout("trapped")
    report = auto_benchmark([small, trapped], positions=3, seed=0, runs=1)
    rows = {(r["layout"], r["engine"]): r for r in report["rows"]}
    for layout, agent in ((small, ExpectimaxAgent()), (trapped, ExpectimaxAgent())):
        nodes, depths = [], []
        for state, _ in bench_positions(layout, 3, 0):
            agent.clear_table()
            agent.get_action(state)
            nodes.append(agent.last_search.nodes)
            depths.append(agent.last_search.depth)
        for engine in ENGINES:
            row = rows[layout.name, engine]
            assert row["nodes_per_move_mean"] == round(statistics.fmean(nodes), 1) and \
                row["nodes_per_move_max"] == max(nodes)
            assert (row["depth_min"], row["depth_max"]) == (min(depths), max(depths))


def test_bench_auto_on_the_python_engine_alone_and_bad_layouts(tmp_path):
    forced = _bench(tmp_path, "--part", "auto", "--small-mazes", "tiny", "--positions", "1", "--runs", "1", "--json",
                    "--quiet", env=dict(os.environ, PACMAN_AI_ENGINE="python"))
    assert forced.returncode == 0, forced.stderr
    auto = json.loads(forced.stdout)["auto"]
    assert auto["compiled_available"] is False and [r["engine"] for r in auto["rows"]] == ["python"]
    bad = _bench(tmp_path, "--part", "auto", "--small-mazes", "tiny,nope")
    assert bad.returncode == 2 and "nope" in bad.stderr and "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1 and bad.stdout == ""
    for flag, value, named in (("--small-mazes", "tiny,tiny", "tiny is listed twice in 'tiny,tiny'"),
                               ("--compare", "test,small,test", "test is listed twice in 'test,small,test'"),
                               ("--depths", "2,3,2", "2 is listed twice in '2,3,2'")):
        twice = _bench(tmp_path, "--part", "auto", flag, value)
        assert twice.returncode == 2 and f"argument {flag}: {named}" in twice.stderr and twice.stdout == ""
    empty = _bench(tmp_path, "--part", "auto", "--small-mazes", "tiny,")
    assert empty.returncode == 2 and "--small-mazes" in empty.stderr and "Traceback" not in empty.stderr


def test_a_maze_whose_games_never_start_is_refused_not_searched_for_positions_forever(tmp_path):
    """Pacman walled into his cell, the one dot out of reach: every game stops before its first move, so no
    seed gives a position; both parts that time searches on positions say so instead of trying seeds forever."""
    (tmp_path / "walled.lay").write_text("%%%%%\n%P%.%\n%%%G%\n%%%%%\n")
    for args in (("--part", "search", "--layout", "walled.lay", "--depths", "1", "--compare", "test"),
                 ("--part", "auto", "--small-mazes", "walled.lay")):
        done = _bench(tmp_path, *args, "--positions", "1", "--runs", "1", "--quiet")
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert "walled: no position to measure a search on: the game can never end" in done.stderr
    with pytest.raises(PacmanError, match="stopped before the first move"):
        bench_positions(load_layout(str(tmp_path / "walled.lay")), 1)


FLAG_VALUES = {"layout": "tiny", "successors": "100", "moves": "3", "depths": "1", "positions": "1",
               "compare": "tiny", "small_mazes": "tiny", "num_envs": "4", "no_jumanji": None}


def test_a_flag_the_chosen_part_does_not_use_is_refused_by_name_not_ignored(tmp_path, capsys):
    from pacman.cli import main
    from pacman.cli.bench import PART_FLAGS

    assert set(FLAG_VALUES) == set(PART_FLAGS)
    refused = 0
    for dest, (parts, _) in PART_FLAGS.items():
        flag = "--" + dest.replace("_", "-")
        given = [flag] if FLAG_VALUES[dest] is None else [flag, FLAG_VALUES[dest]]
        for part in {"engine", "search", "auto", "record", "env"} - set(parts):
            assert main(["bench", "--part", part, "--runs", "1", *given]) == 2
            out, err = capsys.readouterr()
            assert out == "" and err.strip() == (f"bench: {flag} applies to --part {' or '.join(parts)} (or all); "
                                                 f"--part {part} does not use it")
            refused += 1
    assert refused == 31
    # as a user runs it: one line, status 2, nothing measured; the part's own flags still run it
    proc = _bench(tmp_path, "--part", "engine", "--runs", "1", "--successors", "100", "--moves", "3")
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == ["bench: --moves applies to --part record (or all); --part engine "
                                                "does not use it"]
    proc = _bench(tmp_path, "--part", "engine", "--runs", "1", "--successors", "100", "--layout", "tiny", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["engine"]["layout"] == "tiny"
