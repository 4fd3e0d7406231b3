"""Progress of long work (`pacman.progress`): on stderr, rate-limited, with a heartbeat, off with --quiet, never
in --json output; and a Ctrl-C message that says only what is true.

The commands run as a user runs them: a subprocess in a fresh folder.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pacman.progress import GameProgress, Progress, interruption_note, stopped_run_note

ENV = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "PYTHONUNBUFFERED": "1"}


def pacman_ai(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pacman", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=ENV)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_lines_are_rate_limited_and_notes_always_shown():
    out = io.StringIO()
    with Progress("solve", stream=out, every=3600, heartbeat=None) as progress:
        for states in (10, 20, 30):
            progress(f"{states} states")
        progress.note("sweeping")
        progress("sweep 2")
        progress("sweep 3", force=True)
    progress("after close")
    assert out.getvalue().splitlines() == ["solve: 10 states", "solve: sweeping", "solve: sweep 3"]


def test_the_heartbeat_repeats_the_last_line_when_the_work_is_silent():
    out = io.StringIO()
    progress = Progress("compare", stream=out, every=3600, heartbeat=0.3)
    progress.hold("0/8 games, waiting for the first to finish")
    time.sleep(1.6)
    progress.close()
    lines = out.getvalue().splitlines()
    assert lines and all(line.startswith("compare: 0/8 games, waiting for the first to finish (") for line in lines)
    assert lines[0].endswith("(0 s so far)") or lines[0].endswith("(1 s so far)")
    shown = len(lines)
    time.sleep(0.5)
    assert len(out.getvalue().splitlines()) == shown  # closed: silent


def test_on_a_terminal_the_line_is_redrawn_in_place_and_ended_on_close():
    out = Terminal()
    progress = Progress("solve", stream=out, every=0.0, heartbeat=None)
    progress("1 state")
    progress("2 states")
    progress.close()
    assert out.getvalue() == "\r\x1b[Ksolve: 1 state\r\x1b[Ksolve: 2 states\n"


def test_game_progress_shows_the_first_game_at_once_and_the_last():
    out = io.StringIO()
    progress = GameProgress(5, stream=out, every=3600, command="compare", heartbeat=None)
    progress.start("2 configurations x 5 games")
    for won in (True, False, True, True, True):
        progress({"won": won, "seconds": 0.01})
    progress.close()
    lines = out.getvalue().splitlines()
    assert lines[0] == "compare: 2 configurations x 5 games"
    assert lines[1].startswith("compare: 1/5 games, won 100.0%, ") and lines[2].startswith("compare: 5/5 games, won 80.0%")
    assert len(lines) == 3


def test_a_stopped_runs_note_counts_the_files_lines_only_where_the_run_touched_it(tmp_path):
    """`stopped_run_note`, which batch and compare both ask: the file's complete lines where the run resumed it or
    played into it (a line ahead of the run's own count after a badly timed signal), and none of an old file's
    lines where it did neither."""
    out = tmp_path / "r.jsonl"
    out.write_text('{"game": 0}\n{"game": 1}\n{"game": 2}\n{"gam')  # the last line cut short: not a game
    assert stopped_run_note(out, resumed=False, played=2, why="interrupted") == (
        f"pacman-ai: interrupted; {out} keeps the 3 finished games: add --resume to finish")
    assert "keeps the 3 finished games" in stopped_run_note(out, resumed=True, played=0, why="interrupted")
    assert stopped_run_note(out, resumed=False, played=0, why="stopped by SIGTERM") == (
        f"pacman-ai: stopped by SIGTERM before any game finished: nothing was written to {out}")
    assert stopped_run_note(None, resumed=True, played=5, why="interrupted") is None
    assert "before any game finished" in stopped_run_note(tmp_path / "missing.jsonl", True, 0, "interrupted")


def test_interruption_notes_say_only_what_is_true():
    assert interruption_note(None, 3) is None
    assert interruption_note("r.jsonl", 0) == ("pacman-ai: interrupted before any game finished: nothing was written "
                                               "to r.jsonl")
    assert interruption_note("r.jsonl", 1) == "pacman-ai: interrupted; r.jsonl keeps the 1 finished game: add --resume to finish"
    assert interruption_note("r.jsonl", 1200).startswith("pacman-ai: interrupted; r.jsonl keeps the 1,200 finished games")


def test_solve_reports_on_stderr_and_quiet_silences_it_and_json_stays_clean(tmp_path):
    done = pacman_ai("solve", "test", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["layout"] == "test"  # stdout is the JSON alone
    lines = done.stderr.splitlines()
    assert lines[0] == "solve: exploring 'test' with 1 ghost: at most 5,032 states"
    assert lines[-1].startswith("solve: solved in ")
    quiet = pacman_ai("solve", "test", "--json", "--quiet", cwd=tmp_path)
    assert quiet.returncode == 0 and quiet.stderr == "" and json.loads(quiet.stdout) == json.loads(done.stdout)


def test_solve_progress_names_states_and_sweeps():
    from pacman import load_layout
    from pacman.agents.solver import solve

    said: list[str] = []
    solution = solve(load_layout("test"), progress=said.append)
    assert said[0] == "exploring 'test' with 1 ghost: at most 5,032 states"
    sweeps = [line for line in said if line.startswith("value iteration over ")]
    assert len(sweeps) == solution.sweeps
    assert sweeps[0].startswith(f"value iteration over {solution.nodes:,} states: sweep 1, last change inf")
    assert said[-1] == (f"converged after {solution.sweeps:,} sweeps; choosing the optimal move of each of "
                        f"{solution.nodes:,} states")


def test_compare_speaks_before_its_first_game_ends_and_ctrl_c_says_nothing_was_written(tmp_path):
    # Depth 4 in Python on medium: the first game takes far longer than the few seconds this test waits.
    slow = "--agent-args depth=4,engine=python"
    process = subprocess.Popen([sys.executable, "-m", "pacman", "compare", "--layout", "medium", "--config",
                                f"a:{slow}", "--config", f"b:{slow}", "--games", "2", "--jobs", "1", "--out",
                                "r.jsonl"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=ENV)
    try:
        first = process.stderr.readline()  # blocks until compare says something
        assert first == "compare: 2 configurations x 2 games (seed 0): a, b\n"
        assert process.poll() is None  # still playing its first games
        time.sleep(1)
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert err.rstrip().splitlines()[-1] == ("pacman-ai: interrupted before any game finished: nothing was written "
                                             "to r.jsonl")
    assert "keeps every finished game" not in err and not (tmp_path / "r.jsonl").exists()


@pytest.mark.parametrize("command", [["batch"], ["compare", "--config", "a:", "--config", "b:"]])
def test_ctrl_c_says_how_many_finished_games_the_file_keeps(tmp_path, command):
    out = tmp_path / "r.jsonl"
    process = subprocess.Popen([sys.executable, "-m", "pacman", *command, "--layout", "medium", "--games", "100000",
                                "--jobs", "1", "--out", "r.jsonl", "--quiet"], cwd=tmp_path, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and (not out.exists() or out.read_bytes().count(b"\n") < 2):
            time.sleep(0.2)
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    kept = out.read_bytes().count(b"\n")
    assert kept >= 2
    assert err.rstrip().splitlines()[-1] == (f"pacman-ai: interrupted; r.jsonl keeps the {kept:,} finished games: "
                                             f"add --resume to finish")
