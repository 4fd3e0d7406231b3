"""`pacman-ai batch` on the command line: table, files, sweeps, plot, one-line errors, Ctrl-C and --resume."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from pacman.batch import deterministic_part, read_results
from pacman.cli import main

FAST = ("--layout", "small", "--agent-args", "depth=1", "--max-moves", "40", "--quiet")


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_batch_prints_a_table_and_writes_lines_and_summary(capsys, tmp_path):
    out, summary = tmp_path / "g.jsonl", tmp_path / "s.json"
    status, stdout, err = run(capsys, "batch", *FAST, "--games", "5", "--jobs", "2", "--seed", "4",
                              "--out", str(out), "--summary", str(summary))
    assert status == 0 and err == ""
    lines = stdout.splitlines()
    assert lines[0].split()[:4] == ["configuration", "games", "won", "win"]
    assert lines[1].startswith("small expectimax depth=1 random x2 max 40 moves")
    assert lines[-1].startswith("5 of 5 games (seed 4), 5 played in ")
    data = json.loads(summary.read_text())
    for key in ("games", "wins", "win_rate", "win_rate_ci95", "mean_score", "score_sd", "score_ci95", "mean_moves",
                "ms_per_move_p50", "ms_per_move_p95", "ms_per_move_p99", "crashes", "timeouts", "cut_offs", "seconds",
                "games_per_second"):
        assert key in data, key
    games = read_results(out)
    assert data["games"] == len(games) == 5 and data["wins"] == sum(g["won"] for g in games)
    assert data["complete"] is True and not list(tmp_path.glob(".*tmp*"))
    # the table's ms a move are the percentiles of every move of the results file, the 99th too
    moves = [ms for game in games for ms in game["move_ms"]]
    assert lines[0].split()[-8:] == ["p50", "p95", "p99", "crashed", "timed", "out", "cut", "off"]
    shown = lines[1].split()[-6:-3]  # the row's p50, p95 and p99; crashed, timed out and cut off follow
    for name, q, cell in zip(("p50", "p95", "p99"), (50, 95, 99), shown):
        expected = float(np.percentile(moves, q))
        assert data[f"ms_per_move_{name}"] == pytest.approx(expected)
        assert float(cell) == pytest.approx(expected, abs=0.005)


def test_sweep_runs_every_combination_and_plots_it(capsys, tmp_path):
    plot = tmp_path / "sweep.png"
    status, stdout, _ = run(capsys, "batch", "--layout", "small,test", "--agent-args", "depth=1,2",
                            "--ghosts", "random,directional", "--max-moves", "30", "--games", "2", "--quiet",
                            "--jobs", "2", "--plot", str(plot), "--json")
    assert status == 0
    summary = json.loads(stdout)
    labels = [c["label"] for c in summary["configurations"]]
    assert labels == ["small depth=1 random", "small depth=1 directional", "small depth=2 random",
                      "small depth=2 directional", "test depth=1 random", "test depth=1 directional",
                      "test depth=2 random", "test depth=2 directional"]
    assert summary["games"] == 16 and all(c["games"] == 2 for c in summary["configurations"])
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_num_ghosts_sweep(capsys):
    status, stdout, _ = run(capsys, "batch", "--layout", "small", "--num-ghosts", "0,1,2", "--pacman", "greedy",
                            "--max-moves", "20", "--games", "2", "--quiet", "--jobs", "1", "--json")
    assert status == 0
    assert [c["num_ghosts"] for c in json.loads(stdout)["configurations"]] == [0, 1, 2]


@pytest.mark.parametrize("argv,message", [
    (["--games", "0"], "--games: expected a positive integer, got '0'"),
    (["--jobs", "x"], "--jobs: expected a positive integer"),
    (["--resume"], "--resume needs --out"),
    (["--force"], "--force needs --out FILE.jsonl (the file it lets a run overwrite)"),
    (["--dask", ""], "--dask needs a scheduler address (HOST:PORT or tcp://HOST:PORT) or 'local', got an empty one"),
    (["--layout", "nowhere"], "nowhere"),
    (["--agent-args", "dpth=2"], "dpth"),
    (["--agent-args", "2,depth=1"], "'2' comes before any key=value"),
    (["--layout", "small,,test"], "--layout 'small,,test': empty item"),
    (["--ghosts", "random,sneaky"], "sneaky"),
    (["--num-ghosts", "5"], "--num-ghosts 5: layout 'small' has 2 ghosts"),
    (["--out", "/nonexistent-folder/g.jsonl"], "folder /nonexistent-folder does not exist"),
    (["--summary", "/nonexistent-folder/s.json"], "--summary /nonexistent-folder/s.json"),
    (["--plot", "sweep.gif"], "expected a .png, .svg or .pdf"),
    (["--dask", "tcp://127.0.0.1:1", "--jobs", "2"], "--jobs applies to --dask local only"),
])
def test_bad_flags_are_one_line_errors_with_status_2(capsys, argv, message):
    status, stdout, err = run(capsys, "batch", "--layout", "small", "--games", "2", *argv)
    assert status == 2 and stdout == ""
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_an_unwritable_output_file_writes_nothing(capsys, tmp_path):
    folder = tmp_path / "is-a-folder.jsonl"
    folder.mkdir()
    status, stdout, err = run(capsys, "batch", *FAST, "--games", "2", "--out", str(folder))
    assert status == 2 and "is a folder" in err and stdout == ""
    existing = tmp_path / "old.jsonl"
    existing.write_text('{"index": 0}\n')
    status, _, err = run(capsys, "batch", *FAST, "--games", "2", "--out", str(existing))
    assert status == 2 and "--resume continues it, --force overwrites it" in err
    assert existing.read_text() == '{"index": 0}\n'
    status, _, err = run(capsys, "batch", *FAST, "--games", "2", "--out", str(existing), "--resume", "--force")
    assert status == 2 and "contradict" in err


#: A random walker that sleeps 0.1 s in every game: the batch takes at least 3 s of wall time however idle
#: or loaded the machine, so Ctrl-C always lands mid-batch (sleeping costs no CPU).
PACED = (str(Path(__file__).with_name("batch_agents.py")) + ":SleepyAgent", {"sleep_below": 1.0, "seconds": 0.05})


def _batch_process(out, *extra):
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    return subprocess.Popen([sys.executable, "-m", "pacman", "batch", "--layout", "small", "--pacman", PACED[0],
                             "--agent-args", "sleep_below=1.0,seconds=0.05", "--max-moves", "40",
                             "--games", "60", "--seed", "8", "--jobs", "2", "--out", str(out), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            # a shell that started us in the background (`cmd &`) ignores SIGINT, and an ignored
                            # signal stays ignored in children: give the batch Ctrl-C back, as a terminal would
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def test_ctrl_c_keeps_finished_games_exits_130_and_resume_completes_the_same_batch(tmp_path):
    out = tmp_path / "g.jsonl"
    process = _batch_process(out)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if out.exists() and out.read_text().count("\n") >= 3:
            break
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "interrupted: " in stdout and "add --resume to finish" in stderr
    text = out.read_text()
    assert text.endswith("\n")
    partial = [json.loads(line) for line in text.splitlines()]  # whole lines only
    assert 3 <= len(partial) < 60
    assert f"interrupted: {len(partial)} of 60 games" in stdout

    resumed = _batch_process(out, "--resume")
    stdout, stderr = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, stderr
    assert f"60 of 60 games (seed 8), {60 - len(partial)} played" in stdout
    lines = read_results(out)
    assert sorted(line["index"] for line in lines) == list(range(60))

    from pacman.batch import GameConfig, run_batch

    whole = run_batch(GameConfig.create("small", PACED[0], PACED[1], max_moves=40), games=60, seed=8, jobs=2)
    assert sorted((deterministic_part(r) for r in lines), key=lambda r: r["index"]) == \
        [deterministic_part(r) for r in whole.records]


def test_progress_lines_when_stderr_is_not_a_terminal(capsys):
    status, _, err = run(capsys, "batch", "--layout", "test", "--games", "3", "--jobs", "1")
    assert status == 0
    last = err.strip().splitlines()[-1]
    assert last.startswith("batch: 3/3 games, won 100.0%, ") and "ETA 0 s" in last


@pytest.mark.slow
def test_dask_local_on_the_command_line_gives_the_same_lines_as_jobs(tmp_path, capsys):
    pytest.importorskip("distributed")
    on_dask, on_pool = tmp_path / "dask.jsonl", tmp_path / "pool.jsonl"
    assert run(capsys, "batch", *FAST, "--games", "6", "--dask", "local", "--jobs", "2", "--out", str(on_dask))[0] == 0
    assert run(capsys, "batch", *FAST, "--games", "6", "--jobs", "1", "--out", str(on_pool))[0] == 0
    by_index = lambda path: sorted((deterministic_part(r) for r in read_results(path)), key=lambda r: r["index"])
    assert by_index(on_dask) == by_index(on_pool)


@pytest.mark.slow
def test_unreachable_scheduler_on_the_command_line(capsys, tmp_path):
    pytest.importorskip("distributed")
    out = tmp_path / "g.jsonl"
    started = time.monotonic()
    status, stdout, err = run(capsys, "batch", *FAST, "--dask", "tcp://127.0.0.1:1", "--out", str(out))
    assert status == 2 and stdout == "" and len(err.strip().splitlines()) == 1
    assert "cannot reach a Dask scheduler within 5 s" in err
    assert time.monotonic() - started < 30 and not out.exists()


def test_progress_bar_redraws_in_place_on_a_terminal():
    import io

    from pacman.cli.batch import Progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    stream = Terminal()
    progress = Progress(total=4, done=1, wins=1, stream=stream, every=0.0)  # every game redraws
    for won in (True, False, True):
        progress({"won": won})
    progress.close()
    text = stream.getvalue()
    assert text.count("\r\x1b[Kbatch: [") == 3 and "\n" not in text[:-1] and text.endswith("\n")
    assert "4/4 games  won 75.0%" in text and "[########################]" in text


def test_the_batch_command_never_imports_pygame():
    code = ("import sys; from pacman.cli import main; "
            "status = main(['batch', '--layout', 'test', '--games', '2', '--jobs', '1', '--quiet']); "
            "sys.exit(3 if 'pygame' in sys.modules else status)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_missing_extras_are_named_with_their_install_command(capsys, monkeypatch, tmp_path):
    import importlib.util

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *args: None if name == "matplotlib" else real_find_spec(name, *args))
    out = tmp_path / "g.jsonl"
    status, stdout, err = run(capsys, "batch", *FAST, "--plot", str(tmp_path / "p.png"), "--out", str(out))
    assert status == 2 and stdout == "" and "install the plot extra: pip install -e '.[plot]'" in err
    assert not out.exists()
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    status, stdout, err = run(capsys, "batch", *FAST, "--dask", "local")
    assert status == 2 and "install the dask extra: pip install -e '.[dask]'" in err
