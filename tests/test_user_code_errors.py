"""A student's mistakes, run as a student runs them: each ends fast, names their file and line, and says so in
the exit status.

Every case writes the student's file into a fresh folder and runs the ``pacman-ai`` console script there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pacman.user_code import hint_for, user_frames

PACMAN_AI = str(Path(sys.executable).parent / "pacman-ai")

MISTAKES = {
    # file text, the frame's source line, the hint (None: no hint)
    "property_called": ("def evaluate(state):\n    x, y = state.pacman_position()\n    return x\n",
                        "bad.py:2 in evaluate: x, y = state.pacman_position()",
                        "GameState.pacman_position is a property: write state.pacman_position, without ()"),
    "returns_none": ("def evaluate(state):\n    score = state.score\n    if score > 10 ** 9:\n        return score\n",
                     None, "a function returned None: does every path of it end in return (an evaluation returns a "
                           "number)?"),
    "wrong_signature": ("def evaluate(state, depth):\n    return 0.0\n", None,
                        "a wrong signature: an evaluation is called as f(state), an agent's get_action as "
                        "get_action(state), a ghost's distribution as distribution(state)"),
    "raises_deep": ("def helper(state):\n    return {}[state.score]\n\n\ndef evaluate(state):\n"
                    "    return helper(state)\n", "bad.py:2 in helper: return {}[state.score]", None),
    "exits": ("import os\n\n\ndef evaluate(state):\n    os._exit(7)\n", "bad.py:5 in evaluate: os._exit(7)", None),
}


def _run(folder: Path, *args: str, timeout: float = 120, **env: str) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    done = subprocess.run([PACMAN_AI, *args], cwd=folder, capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", **env))
    return done, time.monotonic() - started


def _student(tmp_path: Path, mistake: str) -> Path:
    (tmp_path / "bad.py").write_text(MISTAKES[mistake][0])
    return tmp_path


def _check_report(stderr: str, mistake: str, games: int, total: int) -> None:
    _, frame, hint = MISTAKES[mistake]
    lines = stderr.splitlines()
    assert lines[0].startswith(f"pacman-ai: {games} of {total} game{'s' if total != 1 else ''} crashed or timed "
                               f"out; the first (seed "), stderr
    if frame is not None:
        assert f"  {frame}" in lines[1:], stderr
    if hint is not None:
        assert lines[-1] == f"  hint: {hint}", stderr
    assert "Traceback" not in stderr


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_play_names_the_students_line_and_exits_4(tmp_path, mistake):
    done, seconds = _run(_student(tmp_path, mistake), "play", "--display", "none", "--layout", "small",
                         "--agent-args", "evaluation=bad.py:evaluate", "--max-moves", "20")
    assert done.returncode == 4, done.stderr
    assert done.stdout.startswith("game 1: crashed")
    _check_report(done.stderr, mistake, 1, 1)
    assert seconds < 30


def test_os_exit_in_an_evaluation_is_named(tmp_path):
    done, _ = _run(_student(tmp_path, "exits"), "play", "--display", "none", "--layout", "small",
                   "--agent-args", "evaluation=bad.py:evaluate", "--max-moves", "20")
    assert done.returncode == 4 and "Pacman (agent 0) called os._exit(7)" in done.stderr


@pytest.mark.parametrize("mistake", ["property_called", "exits"])
def test_a_batch_whose_games_all_crash_exits_4_with_its_table_and_whole_file(tmp_path, mistake):
    folder = _student(tmp_path, mistake)
    done, _ = _run(folder, "batch", "--layout", "small", "--games", "4", "--jobs", "2", "--quiet",
                   "--agent-args", "evaluation=bad.py:evaluate", "--out", "games.jsonl")
    assert done.returncode == 4, done.stderr
    assert "crashed" in done.stdout.splitlines()[0] and "4 of 4 games" in done.stdout
    _check_report(done.stderr, mistake, 4, 4)
    records = [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]
    assert len(records) == 4 and all(r["crashed"] for r in records)
    _, frame, _ = MISTAKES[mistake]
    assert all(r["error_frames"] == [frame] for r in records)


def test_compare_exits_4_when_one_configuration_crashes(tmp_path):
    folder = _student(tmp_path, "property_called")
    done, _ = _run(folder, "compare", "--config", "a:--agent-args evaluation=bad.py:evaluate",
                   "--config", "b:--agent-args depth=1", "--layout", "small", "--games", "2", "--quiet")
    assert done.returncode == 4, done.stderr
    _check_report(done.stderr, "property_called", 2, 4)


def test_a_batch_without_crashes_still_exits_0(tmp_path):
    done, _ = _run(tmp_path, "batch", "--layout", "tiny", "--games", "2", "--jobs", "1", "--quiet",
                   "--agent-args", "depth=1")
    assert done.returncode == 0 and done.stderr == ""


@pytest.mark.parametrize("command", [["play", "--display", "none"], ["batch", "--games", "1", "--quiet"]])
def test_a_file_that_loops_at_import_ends_within_its_limit_naming_file_and_line(tmp_path, command):
    (tmp_path / "loop.py").write_text("import time\n\nwhile True:\n    time.sleep(0.01)\n\n\ndef f(state):\n"
                                      "    return 0\n")
    done, seconds = _run(tmp_path, *command, "--layout", "small", "--agent-args", "evaluation=loop.py:f",
                         PACMAN_AI_IMPORT_SECONDS="2")
    assert done.returncode == 2 and done.stdout == ""
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith("pacman-ai: ") and "loop.py:4: importing it took longer than 2 s (a loop at import?); " \
                                              "give --import-seconds SECONDS to allow more" in line, line
    assert seconds < 20


def test_hints_for_the_common_mistakes():
    try:
        (1, 2)()  # noqa: the mistake itself
    except TypeError as exc:
        assert hint_for(exc, "x = state.ghost_positions()") == (
            "GameState.ghost_positions is a property: write state.ghost_positions, without ()")
        assert hint_for(exc, "x = f()") == "a value was called as a function: is it a property (no ())?"
    assert hint_for(KeyError("x"), "d['x']") is None


def test_frames_of_the_project_are_left_out_unless_every_frame_is_asked(tmp_path):
    from pacman import GameState, load_layout

    (tmp_path / "student.py").write_text("def evaluate(state):\n    return state.successor(0, 'Up')\n")
    namespace: dict = {}
    code = compile((tmp_path / "student.py").read_text(), str(tmp_path / "student.py"), "exec")
    exec(code, namespace)  # noqa: S102 - the student's file, as a loader runs it
    state = GameState.initial(load_layout("tiny"))
    with pytest.raises(Exception) as info:
        namespace["evaluate"](state)
    frames = user_frames(info.value)  # this test's own frame is a user's file too: not the project's
    assert [(Path(f.file).name, f.line, f.function) for f in frames][-1] == ("student.py", 2, "evaluate")
    assert not any("/pacman/" in str(Path(f.file).resolve()) for f in frames)
    every = user_frames(info.value, every_frame=True)
    assert len(every) > len(frames) and any("pacman" in f.file for f in every)


def test_the_guides_crash_example_is_what_play_prints(tmp_path):
    page = (Path(__file__).parent.parent / "docs" / "guide" / "evaluation.md").read_text(encoding="utf-8")
    shown = page.split("```text\npacman-ai: 1 of 1 game", 1)[1].split("```", 1)[0]
    (tmp_path / "my_eval.py").write_text("def evaluate(state):\n    x, y = state.pacman_position()\n    return x\n")
    done, _ = _run(tmp_path, "play", "--display", "none", "--layout", "small", "--seed", "1",
                   "--agent-args", "evaluation=my_eval.py:evaluate")
    assert done.returncode == 4 and done.stderr == "pacman-ai: 1 of 1 game" + shown
