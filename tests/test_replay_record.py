"""`pacman-ai replay GAME.json --record OUT`: the film `play --record` makes of the same game, and stopping it
leaves nothing behind.

Each command runs as the `pacman-ai` console script in a fresh folder. A replay recorded is the recording of
the game played: the same GIF, byte for byte, values panel included (from the search the file keeps). Stopped
by Ctrl-C, SIGTERM or SIGHUP while recording (shown in the terminal, so that it is still running), it exits
130, 143 or 129 with one line on stderr naming what it did not write, and the folder (and the temporary
folder) hold what they held before, byte for byte.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

PACMAN_AI = str(Path(sys.executable).with_name("pacman-ai"))
ENV = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
SIGNALS = {
    "SIGINT": (signal.SIGINT, 130, "interrupted"),
    "SIGTERM": (signal.SIGTERM, 143, "stopped by SIGTERM"),
    "SIGHUP": (signal.SIGHUP, 129, "stopped by SIGHUP"),
}
OLD = b"an earlier file of this name, to be kept as it is\n"
HAS_MP4 = importlib.util.find_spec("imageio_ffmpeg") is not None
V1_REPLAY = Path(__file__).parent / "replays" / "v1_small.json"


def _run(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([PACMAN_AI, *args], cwd=folder, capture_output=True, timeout=300, env=ENV)


def _listing(folder: Path) -> dict[str, bytes | None]:
    """Every name in `folder`, hidden ones included, with the bytes of each file (None for a folder)."""
    return {path.name: path.read_bytes() if path.is_file() else None for path in sorted(folder.iterdir())}


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a game of the small maze saved (game.json) and recorded (play.gif) by one `play`."""
    folder = tmp_path_factory.mktemp("played")
    done = _run(folder, "play", "--layout", "small", "--seed", "3", "--max-moves", "40", "--display", "none",
                "--save", "game.json", "--record", "play.gif")
    assert done.returncode == 0, done.stderr
    return folder


@pytest.fixture(scope="module")
def long_game(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A replay file of a game of the medium maze: shown at 8 rounds a second, far longer than a test waits."""
    folder = tmp_path_factory.mktemp("long")
    done = _run(folder, "play", "--layout", "medium", "--seed", "1", "--max-moves", "400", "--display", "none",
                "--save", "saved.json")
    assert done.returncode == 0, done.stderr
    return (folder / "saved.json").read_bytes()


def test_a_recorded_replay_is_the_recording_of_the_game_played(played, tmp_path):
    (tmp_path / "game.json").write_bytes((played / "game.json").read_bytes())
    done = _run(tmp_path, "replay", "game.json", "--record", "replay.gif")
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    assert done.stdout.decode().startswith("cut-off: score ")  # nothing shown: the result line only
    assert (tmp_path / "replay.gif").read_bytes() == (played / "play.gif").read_bytes()
    assert sorted(os.listdir(tmp_path)) == ["game.json", "replay.gif"]


def test_a_replay_records_png_frames_and_a_web_page_beside_them(played, tmp_path):
    from PIL import Image

    (tmp_path / "game.json").write_bytes((played / "game.json").read_bytes())
    done = _run(tmp_path, "replay", "game.json", "--record", "frames", "--html", "game.html")
    assert done.returncode == 0, done.stderr
    with Image.open(played / "play.gif") as gif:
        frames, size = gif.n_frames, gif.size
    names = sorted(os.listdir(tmp_path / "frames"))
    assert names == [f"frame_{n:05d}.png" for n in range(1, frames + 1)]  # the GIF's frames, unquantised
    with Image.open(tmp_path / "frames" / names[0]) as png:
        assert png.size == size
    assert (tmp_path / "game.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")

    again = _run(tmp_path, "replay", "game.json", "--record", "frames")  # a folder of frames: --force replaces
    assert again.returncode == 2 and b"--force replaces them" in again.stderr


def test_a_replay_without_search_records_the_board_alone(tmp_path):
    from PIL import Image

    from pacman.replay import load_replay
    from pacman.view.renderer import cell_pixels, frame_size

    done = _run(tmp_path, "replay", str(V1_REPLAY), "--record", "old.gif")
    assert done.returncode == 0, done.stderr
    with Image.open(tmp_path / "old.gif") as gif:
        assert gif.size == frame_size(load_replay(V1_REPLAY).layout, cell_pixels(1.0), panel=False)


@pytest.mark.parametrize("args, message", [
    (["--record", "x.txt"], "pacman-ai replay: --record x.txt: expected a .gif, a .mp4 or a folder for PNG frames "
                            "(no suffix)"),
    (["--force"], "pacman-ai replay: --force applies to --record FOLDER only (it replaces the frames a folder "
                  "holds): leave it out"),
    (["--record", "x.gif", "--tree"], "pacman-ai replay: --tree applies to the pygame window only; a replay's "
                                      "--record has no tree panel: leave it out (or add --display pygame)"),
    (["--record", "x.gif", "--tree", "--display", "text"], "pacman-ai replay: --tree applies to the pygame window "
                                                           "only, not to --display text: leave it out"),
    (["--record", "no/such/folder/x.gif"], "pacman-ai replay: --record 'no/such/folder/x.gif': "),
])
def test_a_bad_record_flag_is_one_line_before_anything_is_written(played, tmp_path, args, message):
    (tmp_path / "game.json").write_bytes((played / "game.json").read_bytes())
    done = _run(tmp_path, "replay", "game.json", *args)
    assert done.returncode == 2 and done.stdout == b""
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message), lines
    assert sorted(os.listdir(tmp_path)) == ["game.json"]


#: What is stopped: (the arguments after the replay file, what the folder holds before, the output not written).
#: The web page is written before the game is shown, so it is whole by then, and the recording is not.
CASES = {
    "GIF": (["--record", "x.gif"], {"x.gif": OLD}, "x.gif"),
    "MP4": (["--record", "x.mp4"], {"x.mp4": OLD}, "x.mp4"),
    "FOLDER": (["--record", "frames", "--force"], {"frames": {"frame_00001.png": OLD}}, "frames"),
    "GIF and a page": (["--record", "x.gif", "--html", "page.html"], {"x.gif": OLD, "page.html": OLD}, "x.gif"),
}


def _run_and_stop(tmp_path: Path, args: list[str], number: int) -> tuple[int, str]:
    """Start `pacman-ai ARGS` in tmp_path/run showing the game in the terminal; once it is recording (the board
    is drawn, so the first frames are written, and its hidden temporary output is in the folder), send `number`;
    returns its exit status and stderr."""
    folder, spool = tmp_path / "run", tmp_path / "spool"
    spool.mkdir()
    stdout = tmp_path / "stdout.txt"
    with open(stdout, "wb") as out:
        process = subprocess.Popen([PACMAN_AI, *args], cwd=folder, stdout=out, stderr=subprocess.PIPE,
                                   env={**ENV, "TMPDIR": str(spool)})
    try:
        deadline = time.monotonic() + 60
        while process.poll() is None and time.monotonic() < deadline:
            if stdout.stat().st_size > 0 and any(".tmp" in name for name in os.listdir(folder)):
                break
            time.sleep(0.01)
        assert process.poll() is None, f"ended before it was stopped: {process.stderr.read().decode()}"
        assert time.monotonic() < deadline, "never got ready"
        process.send_signal(number)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert os.listdir(spool) == []
    return process.returncode, stderr.decode()


@pytest.mark.parametrize("stop", SIGNALS)
@pytest.mark.parametrize("case", CASES)
def test_a_stopped_recording_of_a_replay_leaves_nothing_behind_and_says_so(tmp_path, long_game, case, stop):
    args, before, unwritten = CASES[case]
    if "x.mp4" in args and not HAS_MP4:
        pytest.skip("MP4 needs the video extra (imageio-ffmpeg)")
    number, status, words = SIGNALS[stop]
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "saved.json").write_bytes(long_game)
    for name, content in before.items():
        if isinstance(content, dict):
            (folder / name).mkdir()
            for frame, frame_bytes in content.items():
                (folder / name / frame).write_bytes(frame_bytes)
        else:
            (folder / name).write_bytes(content)
    listing = _listing(folder)
    folders = {name: _listing(folder / name) for name, content in listing.items() if content is None}

    returncode, stderr = _run_and_stop(tmp_path, ["replay", "saved.json", "--display", "text", *args], number)

    assert returncode == status, stderr
    lines = stderr.splitlines()
    if "--html" in args:  # written whole before the game was shown, and said so
        page = (folder / "page.html").read_text(encoding="utf-8")
        assert lines[0].startswith("wrote page.html (") and page.rstrip().endswith("</html>"), stderr
        listing["page.html"] = page.encode("utf-8")
        lines = lines[1:]
    assert lines == [f"pacman-ai: {words}; {unwritten} not written"]
    assert _listing(folder) == listing  # no temporary file, no half-written output, the old ones as they were
    assert {name: _listing(folder / name) for name in folders} == folders


#: An agent whose every decision took 12.04951 ms and values 0.04951: shown as they are, "12.0 ms" and "0.0";
#: as the file keeps them (12.05 and 0.0495), "12.1 ms" and "0.0". The recording shows what the file keeps.
_EDGE_AGENT = '''
from types import SimpleNamespace


class Edge:
    def __init__(self, evaluation=None):
        self.evaluation_name = "better"  # the panel's line about the agent, as a replay writes it
        self.last_search = None

    def get_action(self, state):
        actions = state.legal_actions(0)
        action = actions[0]
        self.last_search = SimpleNamespace(action=action, action_values={a: 0.04951 * (i + 1) for i, a in
                                                                            enumerate(actions)},
                                           depth=2, nodes=7, milliseconds=12.04951, extra={})
        return action
'''


def test_a_recording_is_the_same_made_as_played_and_from_the_file_where_rounding_differs(tmp_path):
    """The file keeps milliseconds to 1e-3 and values to 1e-4. A recording made as the game is played shows the
    search as the file keeps it, not as the agent gave it, so its replay's recording is the same, byte for byte."""
    import json
    from types import SimpleNamespace

    from pacman.actions import Action
    from pacman.replay import kept_search
    from pacman.view.renderer import duration_text

    (tmp_path / "edge.py").write_text(_EDGE_AGENT)
    played = _run(tmp_path, "play", "--layout", "small", "--seed", "3", "--max-moves", "6", "--display", "none",
                  "--pacman", "edge.py:Edge", "--agent-args", "evaluation=better", "--save", "game.json",
                  "--record", "play.gif")
    assert played.returncode == 0, played.stderr
    assert json.loads((tmp_path / "game.json").read_text())["search"][0]["ms"] == 12.05
    again = _run(tmp_path, "replay", "game.json", "--record", "replay.gif")
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "replay.gif").read_bytes() == (tmp_path / "play.gif").read_bytes()
    # the edge itself: the agent's figure and the file's are written differently
    agent = SimpleNamespace(last_search=SimpleNamespace(action=Action.NORTH, action_values={Action.NORTH: 1.0},
                                                        depth=2, nodes=7, milliseconds=12.04951, extra={}))
    assert duration_text(agent.last_search.milliseconds) == "12.0 ms"
    assert duration_text(kept_search(agent).milliseconds) == "12.1 ms"
