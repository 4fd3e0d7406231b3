"""The command line: play, layouts, bench; one-line errors with exit status 2."""

import json
import subprocess
import sys

import pytest

from pacman.cli import main
from pacman.layout import layout_names


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_play_json_prints_one_object_per_game(capsys):
    status, out, err = run(capsys, "play", "--layout", "small", "--seed", "4", "--games", "3",
                           "--max-moves", "50", "--json")
    assert status == 0 and err == ""
    games = [json.loads(line) for line in out.splitlines()]
    assert [g["seed"] for g in games] == [4, 5, 6]
    for game in games:
        assert {"seed", "won", "score", "moves", "lost", "cut_off", "outcome"} <= set(game)
        assert game["moves"] <= 50 and game["layout"] == "small"


def test_play_is_reproducible_by_seed(capsys):
    args = ("play", "--layout", "medium", "--seed", "9", "--max-moves", "80", "--json", "--pacman", "random",
            "--ghosts", "directional")
    timing = ("ms_per_move_mean", "ms_per_move_max")

    def games():
        _, out, _ = run(capsys, *args)
        return [{k: v for k, v in json.loads(line).items() if k not in timing} for line in out.splitlines()]

    first, second = games(), games()
    assert first == second and first[0]["moves"] > 0


def test_play_text_display_draws_the_board(capsys):
    status, out, _ = run(capsys, "play", "--layout", "test", "--seed", "0", "--max-moves", "3",
                         "--display", "text")
    assert status == 0
    assert "P" in out and "%%%" in out and "score" in out
    assert "\x1b[" not in out  # no colour codes when stdout is not a terminal


def test_play_display_none_prints_a_summary_line(capsys):
    status, out, _ = run(capsys, "play", "--layout", "small", "--seed", "1", "--max-moves", "30",
                         "--display", "none", "--games", "2")
    lines = out.splitlines()
    assert status == 0 and lines[0].startswith("game 1: ") and lines[-1].startswith("2 games: ")


def test_num_ghosts_and_agent_args_are_passed_on(capsys):
    status, out, _ = run(capsys, "play", "--layout", "large", "--num-ghosts", "1", "--seed", "2",
                         "--max-moves", "10", "--json", "--pacman", "random", "--agent-args", "seed=3")
    game = json.loads(out)
    assert status == 0 and game["num_agents"] == 2 and game["agent_args"] == {"seed": 3}


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["play", "--layout", "nowhere"], "nowhere: unknown layout"),
        (["play", "--games", "0"], "--games: expected an integer from 1 to 10,000 (use `pacman-ai batch` for more), got '0'"),
        (["play", "--seed", "abc"], "--seed: expected a non-negative integer"),
        (["play", "--ghosts", "smart"], "invalid choice: 'smart'"),
        (["play", "--pacman", "clever"], "unknown Pacman agent 'clever'"),
        (["play", "--pacman", "no_such_module:Agent"], "cannot import module 'no_such_module'"),
        (["play", "--pacman", "missing.py:Agent"], "no such file 'missing.py'"),
        (["play", "--agent-args", "depth"], "expected key=value"),
        (["play", "--pacman", "greedy", "--agent-args", "depth=2"], "takes no argument 'depth'"),
        (["play", "--agent-args", "dpeth=2"], "takes no argument 'dpeth'"),
        (["play", "--agent-args", "depth=two"], "depth must be an int >= 1, 'auto' or None, got 'two'"),
        (["play", "--agent-args", "evaluation=smartest"], "evaluation 'smartest': not a registered name"),
        (["play", "--agent-args", "time_limit=-1"], "time_limit must be a positive number"),
        (["play", "--layout", "tiny", "--num-ghosts", "3"], "has only 1 ghost"),
        (["play", "--bogus"], "unrecognized arguments: --bogus"),
        (["play", "--move-time-limit", "-1"], "expected a positive number"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        ([], "required: COMMAND"),
    ],
)
def test_usage_errors_are_one_line_with_status_2(capsys, argv, expected):
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and expected in err
    assert "Traceback" not in err


def test_bad_layout_file_is_a_one_line_error(capsys, tmp_path):
    bad = tmp_path / "bad.lay"
    bad.write_text("%%%%\n%..%\n%%%%\n")
    status, _, err = run(capsys, "play", "--layout", str(bad))
    assert status == 2 and len(err.strip().splitlines()) == 1 and f"{bad}: no Pacman" in err


def test_layouts_lists_every_shipped_layout(capsys):
    status, out, _ = run(capsys, "layouts")
    lines = out.splitlines()
    assert status == 0 and lines[0].split()[:5] == ["name", "size", "ghosts", "food", "capsules"]
    assert [line.split()[0] for line in lines[1:]] == layout_names()
    status, out, _ = run(capsys, "layouts", "--json")
    rows = json.loads(out)
    medium = next(r for r in rows if r["name"] == "medium")
    assert medium == {"name": "medium", "width": 20, "height": 11, "ghosts": 2, "food": 101, "capsules": 4}


def test_bench_json_reports_medians_and_ratio(capsys):
    status, out, _ = run(capsys, "bench", "--layout", "small", "--runs", "3", "--successors", "20000", "--json",
                         "--part", "engine")
    report = json.loads(out)["engine"]
    rates = report["successors_per_second"]
    assert status == 0 and report["runs"] == 3
    assert sorted(report["samples"]["fast"])[1] == rates["fast"]  # the median of three
    # the ratio is of the unrounded medians rounded to a tenth; the rates are rounded to whole successors,
    # which moves their quotient by at most quotient * (0.5 / fast + 0.5 / reference)
    quotient = rates["fast"] / rates["reference"]
    rounding = quotient * (0.5 / rates["fast"] + 0.5 / rates["reference"])
    assert abs(report["ratio_fast_to_reference"] - quotient) <= 0.05 + rounding + 1e-9


def test_bench_search_reports_every_configuration(capsys):
    status, out, _ = run(capsys, "bench", "--layout", "small", "--part", "search", "--depths", "1,2",
                         "--positions", "3", "--small-mazes", "coinflip", "--json")
    search = json.loads(out)["search"]
    assert status == 0 and search["positions"] == 3
    configs = [(r["depth"], r["evaluation"], r["transposition"], r["pruning"]) for r in search["agent"]]
    assert sorted(configs, key=str) == sorted(
        [(d, "score", t, None) for d in (1, 2) for t in (True, False)]
        + [(d, "better", t, p) for d in (1, 2) for t in (True, False) for p in (True, False)], key=str)
    assert all(r["ms_per_move_median"] > 0 and r["nodes_per_second"] > 0 for r in search["agent"])
    # Star1 with better's bounds is exact and never expands more: the same positions, fewer or equal nodes
    rows = {(r["depth"], r["evaluation"], r["transposition"], r["pruning"]): r for r in search["agent"]}
    for depth in (1, 2):
        assert rows[depth, "better", False, True]["nodes_per_move_mean"] <= \
            rows[depth, "better", False, False]["nodes_per_move_mean"]
    assert [r["depth"] for r in search["textbook"]] == [1, 2]


def test_python_dash_m_pacman_runs_the_same_cli():
    proc = subprocess.run([sys.executable, "-m", "pacman", "layouts"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "medium" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "pacman", "play", "--frob"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1


EXAMPLES = __import__("pathlib").Path(__file__).resolve().parent.parent / "examples" / "trees"


def test_tree_solves_the_literature_examples(capsys):
    status, out, _ = run(capsys, "tree", str(EXAMPLES / "expectimax-max-of-chances.json"), "--json")
    assert status == 0 and json.loads(out) == {"value": 54.5, "action": "right"}
    status, out, _ = run(capsys, "tree", str(EXAMPLES / "expectimax-weighted-chance.json"), "--json")
    assert status == 0 and json.loads(out) == {"value": 10.0, "action": None}
    status, out, _ = run(capsys, "tree", str(EXAMPLES / "depth-limited.json"), "--depth", "2")
    assert status == 0 and out == "value: 6\naction: bold\n"


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"max": [1, {"chance": [1, 2], "p": [0.5, 0.6]}]}', "$.max[1].chance: probabilities sum to 1.1"),
        ('{"max": [1, {"avg": [1, 2]}]}', "$.max[1]: unknown node kind 'avg'"),
        ('{"max": [}', "invalid JSON at line 1 column 10"),
        ('{"min": []}', "$.min: empty child list"),
    ],
)
def test_bad_trees_are_one_line_errors_naming_the_node(capsys, tmp_path, text, expected):
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    status, out, err = run(capsys, "tree", str(bad))
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert f"{bad}: " in err and expected in err


def test_tree_depth_cut_without_heuristic_is_refused(capsys):
    status, _, err = run(capsys, "tree", str(EXAMPLES / "minimax-classic.json"), "--depth", "1")
    assert status == 2 and '$.max[0]: depth limit reached at an inner node with no "value" heuristic' in err


def test_play_summary_reports_ms_per_move_over_every_move(capsys):
    """The strength table's ms-per-move column comes from this line: thinking time over all Pacman moves."""
    status, out, _ = run(capsys, "play", "--layout", "test", "--seed", "0", "--display", "none", "--games", "3",
                         "--json")
    games = [json.loads(line) for line in out.splitlines()]
    status2, out2, _ = run(capsys, "play", "--layout", "test", "--seed", "0", "--display", "none", "--games", "3")
    summary = out2.splitlines()[-1]
    moves = sum(g["moves"] for g in games)
    assert status == status2 == 0
    assert summary.startswith(f"3 games: {sum(g['won'] for g in games)} won")
    assert f"mean moves {moves / 3:.1f}, " in summary and summary.endswith(" ms per move")
    assert float(summary.rsplit(", ", 1)[1].split()[0]) > 0
