"""`--verbose` and `--import-seconds` of `play`, `batch` and `compare`, as a student meets them.

`--verbose` keeps every frame of a crash's traceback, the project's too, on stderr and in the results lines;
without it only the student's own frames are shown. `--import-seconds S` sets how long a student's file may take
to import, in the command's own process and in its batch workers; a bad value is a one-line usage error.
Every case writes the student's files into a fresh folder and runs the ``pacman-ai`` console script there.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pacman.user_code import (IMPORT_SECONDS, IMPORT_SECONDS_VARIABLE, VERBOSE_VARIABLE, UserCodeOptions, applied,
                              current_options, import_seconds, is_verbose)

PACMAN_AI = str(Path(sys.executable).parent / "pacman-ai")
#: The student's mistake: calling a property (line 2 of bad.py).
BAD = "def evaluate(state):\n    x, y = state.pacman_position()\n    return x\n"
FRAME = "bad.py:2 in evaluate: x, y = state.pacman_position()"
HINT = "  hint: GameState.pacman_position is a property: write state.pacman_position, without ()"
#: A file that takes SECONDS to import in a batch's worker processes only (at once in the command's own).
SLOW_IN_WORKERS = ("import multiprocessing\nimport time\n\nif multiprocessing.parent_process() is not None:\n"
                   "    time.sleep({seconds})\n\n\ndef evaluate(state):\n    return float(state.score)\n")


def _run(folder: Path, *args: str, timeout: float = 120) -> tuple[subprocess.CompletedProcess, float]:
    env = {name: value for name, value in os.environ.items() if name not in (VERBOSE_VARIABLE,
                                                                              IMPORT_SECONDS_VARIABLE)}
    started = time.monotonic()
    done = subprocess.run([PACMAN_AI, *args], cwd=folder, capture_output=True, text=True, timeout=timeout,
                          env=dict(env, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy"))
    return done, time.monotonic() - started


def _frame_lines(stderr: str) -> list[str]:
    """The frame lines under the report's first line, without the hint."""
    lines = stderr.splitlines()
    assert lines[0].startswith("pacman-ai: ") and "crashed or timed out" in lines[0], stderr
    return [line[2:] for line in lines[1:] if line.startswith("  ") and not line.startswith("  hint: ")]


def _is_project_frame(frame: str) -> bool:
    return frame.split(":", 1)[0].endswith(("pacman/game.py", "agents/expectimax.py"))


PLAY = ("play", "--display", "none", "--layout", "small", "--seed", "1", "--max-moves", "20",
        "--agent-args", "evaluation=bad.py:evaluate")
BATCH = ("batch", "--layout", "small", "--games", "2", "--jobs", "1", "--quiet", "--max-moves", "20",
         "--agent-args", "evaluation=bad.py:evaluate", "--out", "games.jsonl")
COMPARE = ("compare", "--layout", "small", "--games", "2", "--jobs", "1", "--quiet", "--max-moves", "20",
           "--config", "a:--agent-args evaluation=bad.py:evaluate", "--config", "b:--agent-args depth=1",
           "--out", "games.jsonl")


@pytest.mark.parametrize("command", [PLAY, BATCH, COMPARE], ids=lambda command: command[0])
def test_verbose_keeps_the_projects_frames_and_without_it_only_the_students_are_shown(tmp_path, command):
    (tmp_path / "bad.py").write_text(BAD)
    plain, _ = _run(tmp_path, *command)
    assert plain.returncode == 4, plain.stderr
    assert _frame_lines(plain.stderr) == [FRAME]
    assert plain.stderr.splitlines()[-1] == HINT

    (tmp_path / "games.jsonl").unlink(missing_ok=True)
    verbose, _ = _run(tmp_path, *command, "--verbose")
    assert verbose.returncode == 4, verbose.stderr
    frames = _frame_lines(verbose.stderr)
    assert frames[-1] == FRAME  # the innermost frame is still the student's line
    assert len(frames) > 3 and any(_is_project_frame(frame) for frame in frames), verbose.stderr
    assert verbose.stderr.splitlines()[-1] == HINT
    assert "Traceback" not in verbose.stderr


@pytest.mark.parametrize("command", [BATCH, COMPARE], ids=lambda command: command[0])
def test_verbose_keeps_every_frame_in_the_results_lines_too(tmp_path, command):
    (tmp_path / "bad.py").write_text(BAD)
    done, _ = _run(tmp_path, *command, "--verbose")
    assert done.returncode == 4, done.stderr
    crashed = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    crashed = [record for record in crashed if record["crashed"]]
    assert len(crashed) == 2
    for record in crashed:
        assert record["error_frames"][-1] == FRAME
        assert any(_is_project_frame(frame) for frame in record["error_frames"]), record["error_frames"]


def test_play_json_holds_every_frame_with_verbose(tmp_path):
    (tmp_path / "bad.py").write_text(BAD)
    done, _ = _run(tmp_path, *PLAY, "--json", "--verbose")
    assert done.returncode == 4
    record = json.loads(done.stdout)
    assert record["error_frames"][-1] == FRAME and any(_is_project_frame(f) for f in record["error_frames"])
    plain, _ = _run(tmp_path, *PLAY, "--json")
    assert json.loads(plain.stdout)["error_frames"] == [FRAME]


def test_verbose_shows_the_frames_of_an_import_that_fails(tmp_path):
    (tmp_path / "broken.py").write_text("def helper():\n    return {}['x']\n\n\nhelper()\n")
    plain, _ = _run(tmp_path, "play", "--display", "none", "--layout", "small",
                    "--agent-args", "evaluation=broken.py:f")
    verbose, _ = _run(tmp_path, "play", "--display", "none", "--layout", "small",
                      "--agent-args", "evaluation=broken.py:f", "--verbose")
    assert plain.returncode == verbose.returncode == 2
    plain_frames = [line.strip() for line in plain.stderr.splitlines()[1:]]
    assert plain_frames == ["broken.py:5 in <module>: helper()", "broken.py:2 in helper: return {}['x']"]
    verbose_frames = [line.strip() for line in verbose.stderr.splitlines()[1:]]
    assert verbose_frames[-2:] == plain_frames and len(verbose_frames) > len(plain_frames)


@pytest.mark.parametrize("command", [("play", "--display", "none"), ("batch", "--quiet"),
                                     ("compare", "--config", "a:", "--config", "b:")], ids=lambda c: c[0])
@pytest.mark.parametrize("value", ["0", "-2", "abc", "nan", "1e9"])
def test_a_bad_import_time_limit_is_a_one_line_usage_error(tmp_path, command, value):
    done, _ = _run(tmp_path, *command, "--import-seconds", value)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"pacman-ai {command[0]}: argument --import-seconds: expected a number of seconds above 0, at most 86400, "
        f"got {value!r} (see pacman-ai {command[0]} --help)"]


@pytest.mark.parametrize("command", [("play", "--display", "none"), ("batch", "--games", "1", "--quiet"),
                                     ("compare", "--games", "1", "--quiet", "--config", "a:",
                                      "--config", "b:--agent-args evaluation=slow.py:evaluate")],
                         ids=lambda c: c[0])
def test_import_seconds_lowers_and_raises_the_limit(tmp_path, command):
    (tmp_path / "slow.py").write_text("import time\n\ntime.sleep(2.5)\n\n\ndef evaluate(state):\n"
                                      "    return float(state.score)\n")
    args = (*command, "--layout", "small", "--max-moves", "5", "--jobs", "1") if command[0] != "play" else \
        (*command, "--layout", "small", "--max-moves", "5")
    if command[0] != "compare":
        args += ("--agent-args", "evaluation=slow.py:evaluate")
    stopped, seconds = _run(tmp_path, *args, "--import-seconds", "0.5")
    assert stopped.returncode == 2 and seconds < 15, stopped.stderr
    assert stopped.stderr.strip().endswith("slow.py:3: importing it took longer than 0.5 s (a loop at import?); "
                                           "give --import-seconds SECONDS to allow more"), stopped.stderr
    allowed, _ = _run(tmp_path, *args, "--import-seconds", "30")
    assert allowed.returncode == 0, allowed.stderr


def test_the_limit_reaches_the_batch_workers(tmp_path):
    (tmp_path / "slow.py").write_text(SLOW_IN_WORKERS.format(seconds=3))
    args = ("batch", "--layout", "small", "--games", "1", "--jobs", "1", "--quiet", "--max-moves", "5",
            "--agent-args", "evaluation=slow.py:evaluate")
    stopped, _ = _run(tmp_path, *args, "--import-seconds", "1")  # the command's own import is quick
    assert stopped.returncode == 2, stopped.stderr
    assert "slow.py:5: importing it took longer than 1 s" in stopped.stderr, stopped.stderr
    allowed, _ = _run(tmp_path, *args, "--import-seconds", "20")
    assert allowed.returncode == 0, allowed.stderr


def test_the_help_names_the_default_from_the_constant():
    done = subprocess.run([PACMAN_AI, "play", "--help"], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, COLUMNS="200"))
    text = " ".join(done.stdout.split())  # argparse wraps the lines
    assert f"(default: {IMPORT_SECONDS:g}, or {IMPORT_SECONDS_VARIABLE} from the environment)" in text
    assert "--verbose report a crash with every frame of its traceback" in text


# -- the options in process: what a worker is handed -------------------------------------------------------------


def test_the_options_are_in_force_within_applied_only(monkeypatch):
    monkeypatch.delenv(VERBOSE_VARIABLE, raising=False)
    monkeypatch.setenv(IMPORT_SECONDS_VARIABLE, "4")
    assert current_options() == UserCodeOptions(every_frame=False, import_seconds=4.0)
    with applied(current_options(verbose=True, seconds=2.5)):
        assert is_verbose() and import_seconds() == 2.5
        assert current_options() == UserCodeOptions(every_frame=True, import_seconds=2.5)
    assert not is_verbose() and import_seconds() == 4.0 and VERBOSE_VARIABLE not in os.environ


def test_a_games_job_carries_the_options_it_was_made_under_to_its_worker(tmp_path, monkeypatch):
    from pacman.batch.config import GameConfig, GameJob, validate_config
    from pacman.batch.worker import play_game

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(VERBOSE_VARIABLE, raising=False)
    (tmp_path / "bad.py").write_text(BAD)
    config = validate_config(GameConfig.create("small", "expectimax", {"evaluation": "bad.py:evaluate", "depth": 1},
                                               max_moves=5))
    with applied(UserCodeOptions(every_frame=True, import_seconds=3.0)):
        job = GameJob(0, config, 0, 0)
    assert job.user_code == UserCodeOptions(every_frame=True, import_seconds=3.0)
    job = pickle.loads(pickle.dumps(job))  # as it travels to a worker process
    assert not is_verbose()  # a worker started without the command's environment

    verbose = play_game(job)
    assert verbose["error_frames"][-1] == FRAME and any(_is_project_frame(f) for f in verbose["error_frames"])
    assert not is_verbose()  # the worker's environment as it was, for its next game
    plain = play_game(GameJob(0, config, 0, 0))
    assert plain["error_frames"] == [FRAME]
