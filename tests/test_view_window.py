"""The pygame window and the recorder, headless (SDL's dummy video driver)."""

import json
import threading
import time

import pygame
import pytest

from pacman.agents import ExpectimaxAgent, make_ghosts
from pacman import Action, GameState, load_layout, run_game
from pacman.view.record import FrameRecorder, RecordingError, open_frame_writer
from pacman.view.window import KeyboardAgent, WindowDisplay


def play_small(max_moves=12, seed=3):
    layout = load_layout("small")
    agent = ExpectimaxAgent(depth=1)
    ghosts = make_ghosts("random", 2)

    def play(display):
        return run_game(layout, agent, ghosts, seed=seed, max_moves=max_moves, display=display)

    return layout, agent, play


def test_window_plays_a_game_to_the_end_and_closes():
    layout, agent, play = play_small()
    frames = []
    window = WindowDisplay(layout, agent=agent, fps=60, frame_sink=frames.append)
    result = window.run(play)
    assert result is not None and result.moves == 12 and result.cut_off
    assert result.score == play(None).score  # the window does not change the game
    assert frames and frames[0].shape[2] == 3 and frames[0].shape[1] >= 200


def test_closing_the_window_ends_the_game_cleanly():
    layout, agent, play = play_small(max_moves=100_000)

    def close_soon():
        time.sleep(0.5)
        pygame.event.post(pygame.event.Event(pygame.QUIT))

    threading.Thread(target=close_soon, daemon=True).start()
    started = time.monotonic()
    result = WindowDisplay(layout, agent=agent, fps=20, hold_at_end=True).run(play)
    assert result is None and time.monotonic() - started < 10
    assert not any(t.name == "pacman-game" and t.is_alive() for t in threading.enumerate())


def test_q_quits_and_space_pauses():
    layout, agent, play = play_small(max_moves=100_000)
    frames = []  # (when it was drawn, the frame)
    pressed = {}

    def keys():
        time.sleep(0.3)
        pressed["space"] = time.monotonic()
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_SPACE))
        time.sleep(0.8)
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_q))

    threading.Thread(target=keys, daemon=True).start()
    result = WindowDisplay(layout, agent=agent, fps=30,
                           frame_sink=lambda frame: frames.append((time.monotonic(), frame))).run(play)
    assert result is None
    # Paused: the status bar (score, move) no longer changes. Frames are compared by when they were
    # drawn, not by count, so that a slow (loaded) machine drawing fewer frames a second still passes.
    status = slice(-30, None)  # the status bar: the bottom 30 rows of the frame
    paused = [frame[status] for when, frame in frames if when >= pressed["space"] + 0.3]
    assert len(paused) >= 2
    assert all((frame == paused[-1]).all() for frame in paused)
    assert not (paused[-1] == frames[0][1][status]).all()


def test_keyboard_agent_follows_the_last_key_while_legal():
    state = GameState.initial(load_layout("small"))
    agent = KeyboardAgent()
    assert agent.get_action(state) == Action.STOP
    agent.press(Action.NORTH)  # a wall above Pacman
    assert agent.get_action(state) == Action.STOP
    agent.press(Action.WEST)
    assert agent.get_action(state) == Action.WEST
    assert agent.get_action(state) == Action.WEST  # keeps going


def test_recording_a_game_writes_a_gif_frame_by_frame(tmp_path):
    from gif_reader import read_gif_frames

    layout, agent, play = play_small(max_moves=40)
    target = tmp_path / "game.gif"
    recorder = FrameRecorder(layout, target, fps=8, agent=agent)
    result = play(recorder)
    frames = read_gif_frames(target)
    assert result.moves == 40
    assert len(frames) == recorder.frames >= 1 + 40 * 2
    height, width, _ = frames[0].shape
    assert width >= 200 and (height, width) == recorder.renderer.frame(GameState.initial(layout)).shape[:2]


def test_recording_to_a_folder_of_pngs(tmp_path):
    layout, agent, play = play_small(max_moves=3)
    folder = tmp_path / "frames"
    play(FrameRecorder(layout, folder, fps=8, agent=agent, frames_per_round=1))
    names = sorted(p.name for p in folder.iterdir())
    assert names[0] == "frame_00001.png" and len(names) >= 4
    assert pygame.image.load(str(folder / names[0])).get_width() >= 200


def test_bad_recording_targets_are_refused(tmp_path):
    with pytest.raises(RecordingError, match="record to a .gif"):
        open_frame_writer(tmp_path / "x.avi", 8)
    with pytest.raises(RecordingError, match="does not exist"):
        open_frame_writer(tmp_path / "missing" / "x.gif", 8)
    (tmp_path / "frames").write_text("a file, not a folder")
    with pytest.raises(RecordingError, match="frames: exists and is not a folder"):
        open_frame_writer(tmp_path / "frames", 8)
    (tmp_path / "folder.gif").mkdir()
    with pytest.raises(RecordingError, match="folder.gif: is a folder, expected a file name"):
        open_frame_writer(tmp_path / "folder.gif", 8)


@pytest.mark.slow
def test_recording_a_1500_move_game_keeps_memory_flat(tmp_path):
    import subprocess
    import sys

    room = ["%" * 20] + ["%" + " " * 18 + "%"] * 8 + ["%" + " " * 17 + ".%", "%" * 20]
    room[1] = "%P" + " " * 17 + "%"
    layout = tmp_path / "room.lay"
    layout.write_text("\n".join(room) + "\n")
    # Pacman paces between his first two cells and never reaches the food: the game runs all 1500 moves.
    (tmp_path / "pacer.py").write_text(
        "from pacman import Action\n\n\n"
        "class Pacer:\n"
        "    def get_action(self, state):\n"
        "        return Action.EAST if state.pacman_position[0] == 1 else Action.WEST\n"
    )
    target = tmp_path / "long.gif"
    output, errors = tmp_path / "out.json", tmp_path / "err.txt"
    # The game is forked from a small launcher, not from this (maybe large) test process: Linux counts the pages a
    # child had before exec in its peak, so a fork of a worker that loaded torch would start at hundreds of MB.
    # wait4 in the launcher gives that game's own peak, not that of every child the launcher ever had.
    launcher = ("import json, os, sys\n"
                "pid = os.fork()\n"
                "if pid == 0:\n"
                "    os.execv(sys.executable, [sys.executable, *sys.argv[2:]])\n"
                "_, status, usage = os.wait4(pid, 0)\n"
                "open(sys.argv[1], 'w').write(json.dumps([os.waitstatus_to_exitcode(status), usage.ru_maxrss]))\n")
    peak = tmp_path / "peak.json"
    with open(output, "w") as out, open(errors, "w") as err:
        subprocess.run(
            [sys.executable, "-c", launcher, str(peak),
             "-m", "pacman", "play", "--layout", str(layout), "--pacman", str(tmp_path / "pacer.py") + ":Pacer", "--seed", "1",
             "--max-moves", "1500", "--display", "none", "--record", str(target), "--zoom", "0.5", "--json"],
            stdout=out, stderr=err, check=True, timeout=600,
        )
    returncode, maxrss = json.loads(peak.read_text())
    assert returncode == 0, errors.read_text()
    assert json.loads(output.read_text())["moves"] == 1500
    assert target.stat().st_size > 0
    assert maxrss < 400 * 1024  # kilobytes on Linux


def test_replay_window_steps_back_and_forth(tmp_path):
    from pacman.replay import load_replay, save_replay
    from pacman.view.window import ReplayWindow, replay_rounds

    layout, agent, play = play_small(max_moves=10)
    result = play(None)
    save_replay(tmp_path / "g.json", layout, result, {"pacman": "expectimax"})
    replay = load_replay(tmp_path / "g.json")
    rounds = replay_rounds(replay.states())
    assert len(rounds) == 11 and rounds[-1][0].score == result.score
    window = ReplayWindow(layout, rounds, fps=60, hold_at_end=False)
    # pause at once, three forward, one back, to the end, back to the start: round 0
    assert window.run(keys=["space", "right", "right", "right", "left", "end", "home", "q"]) == 0
    window = ReplayWindow(layout, rounds, fps=60, hold_at_end=False)
    assert window.run(keys=["space", "right", "right", "right", "left", "q"]) == 2
    window = ReplayWindow(layout, rounds, fps=120, hold_at_end=False)
    assert window.run() == 10  # plays through to the last round on its own


def test_r_restarts_the_game_with_the_same_seed():
    layout, agent, play = play_small(max_moves=30)
    starts = []

    def counting_play(display):
        starts.append(1)
        return play(display)

    def restart_soon():
        time.sleep(0.3)  # a game of 30 moves at 30 frames a second lasts a second: this is in the middle
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_r))

    threading.Thread(target=restart_soon, daemon=True).start()
    result = WindowDisplay(layout, agent=agent, fps=30).run(counting_play)
    assert len(starts) == 2  # the game was started again
    assert result is not None and result.score == play(None).score and result.moves == 30
