"""Long, endless and shared runs, as a user meets them: every command in a subprocess, in a fresh folder.

No game runs forever (a default move limit from the maze, `--max-moves none`
for the classic game), long games save and replay, the default agent answers in
real time on a crowded maze, two batches never write one results file, a torn
line is repaired and said, a resumed file that does not match says what differs,
and a folder of old frames is not mixed with new ones.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pacman import load_layout, parse_layout
from pacman.agents.expectimax import estimated_leaves
from pacman.batch.results import read_results
from pacman.replay import max_replay_moves
from pacman.game import MIN_DEFAULT_MAX_MOVES, MOVES_PER_CELL, default_max_moves

#: No food, a loop, one ghost that can reach Pacman: without a limit, a dodging agent plays forever.
NO_FOOD = """\
%%%%%%%%%
%P      %
% %%%%% %
%      G%
%%%%%%%%%
"""
#: Ten ghosts, crossings of three ways only: depth 2 is allowed (about 1.7e7 leaves) but takes seconds a move.
CROWDED = """\
%%%%%%%%%%%%%%%%%%%%
%P........%........%
%.%%%%%%%.%.%%%%%%.%
%.GGGGGGGGGG.......%
%%%%%%%%%%%%%%%%%%%%
"""

ENV = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}


def pacman_ai(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pacman", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=ENV)


def start(*args: str, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "pacman", *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=ENV)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    # Games of nofood.lay that run to the 1,000-move limit play depth 2: the default depth "auto" searches up to
    # SMALL_MAZE_NODES a move on a maze this small, minutes a game on the Python engine (PACMAN_AI_ENGINE=python).
    (tmp_path / "nofood.lay").write_text(NO_FOOD)
    (tmp_path / "crowded.lay").write_text(CROWDED)
    return tmp_path


# -- 1. no game runs forever --------------------------------------------------------------------------------


def test_the_default_limit_is_twenty_moves_per_open_cell_at_least_a_thousand():
    medium = load_layout("medium")
    open_cells = medium.width * medium.height - len(medium.walls)
    assert default_max_moves(medium) == MOVES_PER_CELL * open_cells == 2200
    assert default_max_moves(parse_layout(NO_FOOD)) == MIN_DEFAULT_MAX_MOVES == 1000
    assert default_max_moves(load_layout("large")) == 6680


def test_play_ends_a_game_without_food_on_its_own_and_says_why(folder):
    done = pacman_ai("play", "--layout", "nofood.lay", "--agent-args", "depth=2", "--display", "none", "--seed", "1", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ("game 1: cut-off, score -1000, 1000 moves, seed 1 - cut off after 1,000 Pacman moves, "
                           "the move limit\n")
    as_json = pacman_ai("play", "--layout", "nofood.lay", "--json", "--seed", "1", "--max-moves", "40",
                        cwd=folder)
    record = json.loads(as_json.stdout)
    assert (record["outcome"], record["moves"], record["error"]) == (
        "cut-off", 40, "cut off after 40 Pacman moves, the move limit")


def test_max_moves_none_is_the_classic_game_without_a_limit(folder):
    (folder / "line.lay").write_text("%%%%%%\n%P...%\n%%%%%%\n")
    done = pacman_ai("play", "--layout", "line.lay", "--pacman", "greedy", "--json", "--max-moves", "none",
                     cwd=folder)
    assert json.loads(done.stdout)["outcome"] == "won"
    bad = pacman_ai("play", "--layout", "line.lay", "--max-moves", "never", cwd=folder)
    assert bad.returncode == 2
    assert "--max-moves: expected a positive integer or 'none' (no limit), got 'never'" in bad.stderr


def test_batch_ends_games_without_food_on_their_own_and_records_the_limit(folder):
    done = pacman_ai("batch", "--layout", "nofood.lay", "--agent-args", "depth=2", "--games", "2", "--jobs", "1", "--out", "r.jsonl",
                     "--quiet", cwd=folder)
    assert done.returncode == 0, done.stderr
    lines = read_results(folder / "r.jsonl")
    # cut off by the limit the line records, with the message `play` prints (pacman.limits.move_limit_reason)
    assert [(r["outcome"], r["moves"], r["max_moves"], r["error"]) for r in lines] == [
        ("cut-off", 1000, 1000, "cut off after 1,000 Pacman moves, the move limit")] * 2
    assert "max 1000 moves" in done.stdout
    unlimited = pacman_ai("batch", "--layout", "test", "--pacman", "greedy", "--games", "2", "--jobs", "1",
                          "--max-moves", "none", "--out", "u.jsonl", "--quiet", cwd=folder)
    assert unlimited.returncode == 0, unlimited.stderr
    lines = read_results(folder / "u.jsonl")
    assert [r["max_moves"] for r in lines] == [None, None]
    assert all(r["move_ms"] == [] and r["ms_per_move_mean"] > 0 for r in lines)  # flat memory: no per-move list


def test_a_file_of_unlimited_games_is_not_resumed_with_the_default_limit(folder):
    first = pacman_ai("batch", "--layout", "test", "--pacman", "greedy", "--games", "1", "--jobs", "1",
                      "--max-moves", "none", "--out", "r.jsonl", "--quiet", cwd=folder)
    assert first.returncode == 0
    again = pacman_ai("batch", "--layout", "test", "--pacman", "greedy", "--games", "2", "--jobs", "1",
                      "--out", "r.jsonl", "--resume", "--quiet", cwd=folder)
    assert again.returncode == 2
    assert "--max-moves none in the file, 1000 in the command" in again.stderr


def test_save_refuses_a_limit_that_replay_could_not_read(folder):
    done = pacman_ai("play", "--layout", "nofood.lay", "--display", "none", "--max-moves", "none",
                     "--save", "g.json", cwd=folder)
    assert done.returncode == 2
    assert done.stderr == ("pacman-ai play: --save with --max-moves none: a replay file of 'nofood' with 1 ghost "
                           "holds at most 200,000 Pacman moves (64 MB, what `pacman-ai replay` reads); give "
                           "--max-moves 200000 or fewer\n")
    assert not (folder / "g.json").exists()
    crowded = pacman_ai("play", "--layout", "crowded.lay", "--display", "none", "--max-moves", "190000",
                        "--save", "g.json", cwd=folder)
    most = max_replay_moves(parse_layout(CROWDED), 10)
    assert most < 190000 and crowded.returncode == 2
    assert f"with 10 ghosts holds at most {most:,} Pacman moves" in crowded.stderr


def test_the_reader_refuses_more_moves_than_the_writer_writes(folder, monkeypatch):
    from pacman import replay

    (folder / "game.json").write_text(json.dumps({
        "format": replay.FORMAT, "version": 2, "layout": {"name": "t", "text": "%%%%\n%PG%\n%%%%\n"},
        "num_ghosts": 1, "seed": 0, "actions": ["Stop", "Stop"] * 4, "result": {"score": 0, "won": False,
                                                                                 "lost": False}}))
    monkeypatch.setattr(replay, "MAX_REPLAY_MOVES", 3)
    with pytest.raises(replay.ReplayError, match="8 actions is more than 3 Pacman moves, the most a replay file"):
        replay.load_replay(folder / "game.json")


@pytest.mark.slow
def test_a_hundred_thousand_move_game_saves_and_replays(folder):
    saved = pacman_ai("play", "--layout", "nofood.lay", "--display", "none", "--seed", "1", "--max-moves",
                      "100000", "--save", "long.json", cwd=folder, timeout=300)
    assert saved.returncode == 0, saved.stderr
    size = (folder / "long.json").stat().st_size
    from pacman.replay import MAX_REPLAY_BYTES

    assert size < MAX_REPLAY_BYTES
    replayed = pacman_ai("replay", "long.json", "--json", cwd=folder, timeout=300)
    assert replayed.returncode == 0, replayed.stderr
    record = json.loads(replayed.stdout)
    assert (record["moves"], record["score"], record["outcome"]) == (100000, -100000, "cut-off")


def _rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads resident memory from /proc")
@pytest.mark.parametrize("extra", [["--max-moves", "none"], ["--max-moves", "190000", "--save", "g.json"]])
def test_memory_of_a_long_game_stays_flat(folder, extra):
    game = start("play", "--layout", "nofood.lay", "--display", "none", "--seed", "1", *extra, cwd=folder)
    samples = []
    try:
        time.sleep(2)  # imports done, the game under way
        deadline = time.monotonic() + 6  # tens of thousands of moves later
        while time.monotonic() < deadline:
            try:
                rss = _rss_kb(game.pid)
            except (OSError, StopIteration):
                break
            if game.poll() is not None:  # a fast machine may finish the saved game first: keep what ran
                break
            samples.append(rss)
            time.sleep(0.25)
    finally:
        game.kill()
        game.communicate()
    assert len(samples) >= 8, f"the game ran for only {len(samples)} samples"
    grown = max(samples) - samples[0]
    assert grown < 2048, f"resident memory grew by {grown} kB over {len(samples) / 4:.1f} s"  # 3 MB/s before


# -- 2. the default agent never stalls ----------------------------------------------------------------------


def test_the_default_agent_searches_in_real_time_on_a_crowded_maze_and_says_so_once(folder):
    crowded = parse_layout(CROWDED)
    assert 2e6 < estimated_leaves(crowded, 10, 2) < 1e8  # allowed at depth 2, seconds a move
    done = pacman_ai("play", "--layout", "crowded.lay", "--json", "--max-moves", "3", "--games", "2",
                     cwd=folder, timeout=60)
    assert done.returncode == 0, done.stderr
    note = ("pacman-ai: expectimax depth 2 on 'crowded' with 10 ghosts could take seconds a move (about 2e+07 "
            "leaves): searching with time_limit=0.05 (iterative deepening while the time lasts); give --agent-args "
            "depth=N or time_limit=S to choose\n")
    assert done.stderr == note
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["agent_args"]["time_limit"] for r in records] == [0.05, 0.05]


CROWDED_BIG = """\
%%%%%%%%%%%%%%%%%%%%
%P........%........%
%.%%%%%%%.%.%%%%%%.%
%.GGGGGGGGGG.......%
%.%%%%%%%%%%%%%%%%.%
%..................%
%.%%%%%%%%%%%%%%%%.%
%..................%
%%%%%%%%%%%%%%%%%%%%
"""


def test_on_a_crowded_maze_of_64_cells_or_more_the_real_time_search_stops_at_depth_two(folder):
    """Where `auto` is depth 2 (Pacman's region of 64 cells or more) the time limit deepens up to depth 2 only, and
    the note says so; on a smaller maze (above) it deepens while the time lasts, in place of auto's node budget."""
    from pacman.agents.evaluation import region_cells
    crowded = parse_layout(CROWDED_BIG)
    assert region_cells(crowded) >= 64 and 2e6 < estimated_leaves(crowded, 10, 2) < 1e8
    (folder / "crowded.lay").write_text(CROWDED_BIG)
    done = pacman_ai("play", "--layout", "crowded.lay", "--json", "--max-moves", "3", cwd=folder, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ("pacman-ai: expectimax depth 2 on 'crowded' with 10 ghosts could take seconds a move "
                           "(about 2e+07 leaves): searching with time_limit=0.05 (iterative deepening up to depth "
                           "2); give --agent-args depth=N or time_limit=S to choose\n")
    assert json.loads(done.stdout)["agent_args"]["time_limit"] == 0.05


def test_where_depth_two_is_fast_the_default_agent_is_unchanged(folder):
    done = pacman_ai("play", "--layout", "tricky", "--json", "--max-moves", "2", cwd=folder)
    assert done.stderr == ""
    assert json.loads(done.stdout)["agent_args"]["time_limit"] is None


def test_an_agent_time_limit_without_a_margin_under_the_move_limit_is_refused(folder):
    done = pacman_ai("play", "--layout", "test", "--display", "none", "--agent-args", "time_limit=1",
                     "--move-time-limit", "1", cwd=folder)
    assert done.returncode == 2
    assert ("--agent-args time_limit=1 with --move-time-limit 1: the agent searches until its time_limit and then "
            "needs time to answer, so every move would time out; give time_limit=0.8 or less") in done.stderr
    fits = pacman_ai("play", "--layout", "test", "--json", "--agent-args", "time_limit=0.05",
                     "--move-time-limit", "1", "--max-moves", "3", cwd=folder)
    assert fits.returncode == 0 and json.loads(fits.stdout)["outcome"] != "timed-out"
    batch = pacman_ai("batch", "--layout", "test", "--games", "1", "--agent-args", "time_limit=2",
                      "--move-time-limit", "2", "--quiet", cwd=folder)
    assert batch.returncode == 2
    assert "time_limit=2 with --move-time-limit 2" in batch.stderr


# -- 3. shared results files --------------------------------------------------------------------------------


def test_a_second_batch_on_the_same_file_is_refused_at_start(folder):
    out = folder / "r.jsonl"
    first = start("batch", "--layout", "medium", "--games", "100000", "--jobs", "1", "--out", "r.jsonl",
                  "--quiet", cwd=folder)
    try:
        deadline = time.monotonic() + 60
        while not (out.exists() and out.stat().st_size > 0) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert first.poll() is None
        second = pacman_ai("batch", "--layout", "medium", "--games", "100000", "--jobs", "1", "--out", "r.jsonl",
                           "--resume", "--quiet", cwd=folder)
        assert second.returncode == 2
        assert second.stdout == ""
        assert second.stderr.startswith(f"pacman-ai: r.jsonl: the results file is in use by process {first.pid} "
                                        f"(pacman-ai batch --layout medium --games 100000 --jobs 1 --out r.jsonl "
                                        f"--quiet), running since ")
        assert second.stderr.rstrip().endswith("wait for it to end, or choose another file")
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=60)
    assert first.returncode == 130
    games = read_results(out)
    assert [r["index"] for r in games] == list(range(len(games)))  # one writer: no game twice, no torn line
    resumed = pacman_ai("batch", "--layout", "medium", "--games", str(len(games) + 2), "--jobs", "1",
                        "--out", "r.jsonl", "--resume", "--quiet", cwd=folder)
    assert resumed.returncode == 0, resumed.stderr
    assert [r["index"] for r in read_results(out)] == list(range(len(games) + 2))
    assert not (folder / "r.jsonl.lock").exists()


def test_the_lock_is_one_small_api(tmp_path):
    from pacman.batch.config import BatchError
    from pacman.batch.results import lock_results

    path = tmp_path / "r.jsonl"
    with lock_results(path):
        assert (tmp_path / "r.jsonl.lock").read_text().startswith(f"process {os.getpid()} (pacman-ai")
        # flock locks belong to an open file: a second open in this process is refused as another would be
        with pytest.raises(BatchError, match=rf"r.jsonl: the results file is in use by process {os.getpid()} "):
            with lock_results(path):
                pass
        assert not path.exists()  # the results file itself is never created by the lock
    assert not (tmp_path / "r.jsonl.lock").exists()
    with lock_results(path):  # released: free again
        pass


def test_a_torn_last_line_is_cut_and_said_on_resume(folder):
    first = pacman_ai("batch", "--layout", "test", "--pacman", "greedy", "--games", "2", "--jobs", "1",
                      "--out", "r.jsonl", "--quiet", cwd=folder)
    assert first.returncode == 0
    whole = (folder / "r.jsonl").read_bytes()
    (folder / "r.jsonl").write_bytes(whole + b'{"index":2,"seed":12')
    resumed = pacman_ai("batch", "--layout", "test", "--pacman", "greedy", "--games", "3", "--jobs", "1",
                        "--out", "r.jsonl", "--resume", "--quiet", cwd=folder)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stderr == ("pacman-ai: r.jsonl: cut its unfinished last line (20 bytes after line 2), left by a "
                              "run that was stopped while writing it; that game is played again\n")
    assert [r["index"] for r in read_results(folder / "r.jsonl")] == [0, 1, 2]
    assert (folder / "r.jsonl").read_bytes().startswith(whole)


def test_a_resume_mismatch_names_the_key_and_both_values(folder):
    first = pacman_ai("batch", "--layout", "test", "--games", "1", "--jobs", "1", "--agent-args",
                      "transposition=true", "--out", "r.jsonl", "--quiet", cwd=folder)
    assert first.returncode == 0
    again = pacman_ai("batch", "--layout", "test", "--games", "2", "--jobs", "1", "--agent-args",
                      "transposition=false", "--out", "r.jsonl", "--resume", "--quiet", cwd=folder)
    assert again.returncode == 2
    assert again.stderr == ("pacman-ai: r.jsonl: line 1 (game 0) was played with another configuration: "
                            "--agent-args transposition=true in the file, transposition=false in the command; give "
                            "the same flags, or another --out\n")


def test_record_into_a_folder_of_old_frames_is_refused_unless_forced(folder):
    frames = folder / "frames"
    frames.mkdir()
    for number in range(1, 301):
        (frames / f"frame_{number:05d}.png").write_bytes(b"old")
    args = ("play", "--layout", "test", "--pacman", "greedy", "--display", "none", "--seed", "0", "--record",
            "frames")
    refused = pacman_ai(*args, cwd=folder)
    assert refused.returncode == 2
    assert refused.stderr == ("pacman-ai play: --record frames: the folder already holds 300 frames of "
                              "another recording; --force replaces them, or record into an empty or new folder\n")
    assert len(list(frames.iterdir())) == 300
    replaced = pacman_ai(*args, "--force", cwd=folder)
    assert replaced.returncode == 0, replaced.stderr
    names = sorted(p.name for p in frames.iterdir())
    assert 1 < len(names) < 300 and names == [f"frame_{n:05d}.png" for n in range(1, len(names) + 1)]
    assert all((frames / name).read_bytes().startswith(b"\x89PNG") for name in names)
    (frames / "notes.txt").write_text("mine")
    other = pacman_ai(*args, "--force", cwd=folder)
    assert other.returncode == 2
    assert "the folder holds files other than frames (notes.txt)" in other.stderr
    assert (frames / "notes.txt").read_text() == "mine"
