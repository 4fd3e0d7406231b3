"""One game-limit policy (`pacman.limits`) across play, batch, compare, replay and the Gymnasium environments.

Every command runs as a user runs it: a subprocess in a fresh folder. The same
flags give the same limit, the same word for no limit, the same message for a
game cut off and the same results-file fields everywhere.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pacman import load_layout, parse_layout
from pacman.batch.results import read_results
from pacman.errors import PacmanError
from pacman.limits import (DEFAULT, MAX_MOVES_HELP, NO_LIMIT, default_max_moves, move_limit_reason,
                           resolve_max_moves)

#: No food, a loop, one ghost that can reach Pacman: without a limit, a dodging agent plays forever.
NO_FOOD = """\
%%%%%%%%%
%P      %
% %%%%% %
%      G%
%%%%%%%%%
"""
ENV = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "PYTHONUNBUFFERED": "1"}
#: Fields of a results line that depend on the machine or the run, not on the game.
RUN_FIELDS = {"seconds", "worker", "worker_rss_mb", "ms_per_move_mean", "ms_per_move_max", "move_ms", "name"}


def pacman_ai(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pacman", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=ENV)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A maze without food: every game runs to the move limit. The games here play depth 2 (the limit does not
    depend on the agent): the default depth "auto" searches up to SMALL_MAZE_NODES a move on a maze this small, which
    on the Python engine (PACMAN_AI_ENGINE=python, a run of CI) makes a 1,000-move game take minutes."""
    (tmp_path / "nofood.lay").write_text(NO_FOOD)
    return tmp_path


def test_the_policy_resolves_the_default_none_and_a_number():
    medium = load_layout("medium")
    assert resolve_max_moves(medium) == resolve_max_moves(medium, DEFAULT) == default_max_moves(medium) == 2200
    assert resolve_max_moves(medium, NO_LIMIT) is None and resolve_max_moves(medium, None) is None
    assert resolve_max_moves(medium, 7) == 7
    assert resolve_max_moves(parse_layout(NO_FOOD)) == 1000  # 20 x 23 open cells is under the floor of 1000
    assert move_limit_reason(2200) == "cut off after 2,200 Pacman moves, the move limit"
    for bad in (0, -3, 2.5, True, "never", "20"):
        with pytest.raises(PacmanError, match="max_moves must be a positive int"):
            resolve_max_moves(medium, bad)


def test_compare_ends_games_on_a_maze_without_food_with_the_default_limit(folder):
    # It ran forever: compare had no default limit. Now it plays batch's, and says it in every line.
    done = pacman_ai("compare", "--layout", "nofood.lay", "--agent-args", "depth=2", "--config", "a:", "--config", "b:", "--games", "2",
                     "--jobs", "1", "--out", "c.jsonl", "--quiet", cwd=folder, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = read_results(folder / "c.jsonl")
    assert [(r["outcome"], r["moves"], r["max_moves"], r["error"]) for r in lines] == [
        ("cut-off", 1000, 1000, "cut off after 1,000 Pacman moves, the move limit")] * 4
    assert "max 1000 moves" in done.stdout


def test_compare_and_batch_files_with_the_same_flags_hold_the_same_games(folder):
    flags = ["--layout", "nofood.lay", "--agent-args", "depth=2", "--games", "2", "--jobs", "1", "--quiet", "--seed", "5"]
    for limit in ([], ["--max-moves", "30"]):
        batch = pacman_ai("batch", *flags, *limit, "--out", "b.jsonl", "--force", cwd=folder)
        compare = pacman_ai("compare", *flags, *limit, "--config", "a:", "--config", "b:", "--out", "c.jsonl",
                            "--force", cwd=folder)
        assert batch.returncode == 0 and compare.returncode == 0, batch.stderr + compare.stderr
        batch_games = [{k: v for k, v in r.items() if k not in RUN_FIELDS} for r in read_results(folder / "b.jsonl")]
        compared = [r for r in read_results(folder / "c.jsonl") if r["name"] == "a"]
        compare_games = [{k: v for k, v in r.items() if k not in RUN_FIELDS} for r in compared]
        assert sorted(compare_games, key=lambda r: r["index"]) == sorted(batch_games, key=lambda r: r["index"])
        assert {r["max_moves"] for r in batch_games} == {30 if limit else 1000}


def test_max_moves_none_means_no_limit_in_batch_and_compare(folder):
    # `test` is a maze a greedy Pacman finishes: without a limit the lines record null and the games end won.
    for command in (["batch"], ["compare", "--config", "a:", "--config", "b:"]):
        done = pacman_ai(*command, "--layout", "test", "--pacman", "greedy", "--games", "2", "--jobs", "1",
                         "--max-moves", "none", "--out", "r.jsonl", "--force", "--quiet", cwd=folder)
        assert done.returncode == 0, done.stderr
        assert {r["max_moves"] for r in read_results(folder / "r.jsonl")} == {None}


def test_every_playing_command_documents_the_same_limit(folder):
    for command in ("play", "batch", "compare"):
        shown = " ".join(pacman_ai(command, "--help", cwd=folder).stdout.split())
        assert " ".join(MAX_MOVES_HELP.split()) in shown.replace("%%", "%"), command


def test_play_and_replay_say_the_same_cut_off_message(folder):
    played = pacman_ai("play", "--layout", "nofood.lay", "--agent-args", "depth=2", "--display", "none", "--seed", "1", "--save", "g.json",
                       cwd=folder)
    assert played.returncode == 0, played.stderr
    message = "cut off after 1,000 Pacman moves, the move limit"
    assert played.stdout.strip().endswith(message)
    replayed = pacman_ai("replay", "g.json", "--display", "none", cwd=folder)
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout.strip() == f"cut-off: score -1000 after 1000 moves (seed 1) - {message}"


def test_the_registered_ids_and_make_vec_truncate_at_the_command_lines_default(folder):
    pytest.importorskip("gymnasium")
    script = folder / "user.py"
    script.write_text(
        "import gymnasium as gym\n"
        "import pacman.envs\n"
        "env = gym.make('pacman_ai/Pacman-v0', layout='nofood.lay')\n"
        "vec = gym.make_vec('pacman_ai/Pacman-v0', num_envs=2, layout='nofood.lay')\n"
        "short = gym.make_vec('pacman_ai/Pacman-v0', num_envs=2, layout='nofood.lay', max_episode_steps=30)\n"
        "free = gym.make('pacman_ai/Pacman-v0', layout='medium', max_moves='none')\n"
        "env.reset(seed=1)\n"
        "steps, terminated, truncated = 0, False, False\n"
        "while not (terminated or truncated):\n"
        "    _, _, terminated, truncated, _ = env.step(4)\n"
        "    steps += 1\n"
        "def limit(v):  # the compiled vector env says it; a SyncVectorEnv (no core) through its environments\n"
        "    return v.max_moves if hasattr(v, 'max_moves') else v.get_attr('max_moves')[0]\n"
        "print(env.unwrapped.max_moves, limit(vec), limit(short), free.unwrapped.max_moves, steps, truncated)\n")
    done = subprocess.run([sys.executable, str(script)], cwd=folder, capture_output=True, text=True, env=ENV,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    # Pacman stops where he is: the ghost catches him (terminated) or the episode is truncated at the limit.
    limit, vector, short, free, steps, truncated = done.stdout.split()
    assert (limit, vector, short, free) == ("1000", "1000", "30", "None")
    assert int(steps) == 1000 if truncated == "True" else 1 <= int(steps) < 1000
