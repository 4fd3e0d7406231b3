"""Stopping `play` and `replay` leaves nothing behind, as a user meets it: Ctrl-C, SIGTERM or SIGHUP.

Each command runs as the `pacman-ai` console script in a fresh folder, showing
its game in the terminal (so that it is still running when the signal comes);
the signal is sent once it is really writing (its temporary output is there, or
the board is drawn). Then: the exit status of a stopped `batch` (130, 143, 129),
one line on stderr that says why and what was not written, no file in the folder
but those from before, and those byte for byte as they were. The same holds in
process for the pieces the commands share: `pacman.files.PendingFile` and
`write_atomically`, the GIF and MP4 writers, a folder of PNG frames.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pty
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from pacman.files import PendingFile, write_atomically
from pacman.process_guard import RunSignal

PACMAN_AI = str(Path(sys.executable).with_name("pacman-ai"))
#: Each signal, the exit status `batch` gives for it, and its words in the stop line (`stop_words`).
SIGNALS = {
    "SIGINT": (signal.SIGINT, 130, "interrupted"),
    "SIGTERM": (signal.SIGTERM, 143, "stopped by SIGTERM"),
    "SIGHUP": (signal.SIGHUP, 129, "stopped by SIGHUP"),
}
#: A game of the medium maze shown on a terminal at 8 rounds a second: about 24 s (189 moves), far longer
#: than any test waits. Into a file it is not paced, and ends in under 2 s.
GAME = ("--layout", "medium", "--seed", "1", "--max-moves", "400", "--display", "text")
OLD = b"an earlier file of this name, to be kept as it is\n"
HAS_MP4 = importlib.util.find_spec("imageio_ffmpeg") is not None


def _listing(folder: Path) -> dict[str, bytes | None]:
    """Every name in `folder`, hidden ones included, with the bytes of each file (None for a folder)."""
    return {path.name: path.read_bytes() if path.is_file() else None for path in sorted(folder.iterdir())}


def _run_and_stop(tmp_path: Path, args: list[str], ready: str, number: int) -> tuple[int, str]:
    """Start `pacman-ai ARGS` in tmp_path/run with a terminal (a pseudo-terminal) as its stdout, so that it shows
    the game at its `--fps` pace, wait until it is `ready` ("temporary": a hidden .tmp name is in the folder;
    "drawn": the board is on the terminal), send `number`; returns its exit status and stderr."""
    folder, spool = tmp_path / "run", tmp_path / "spool"
    spool.mkdir()
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "TMPDIR": str(spool)}
    controller, terminal = pty.openpty()
    shown = bytearray()

    def drain() -> None:  # read what the command shows, so that it never waits on a full terminal
        with contextlib.suppress(OSError):  # EIO once the command has closed its end
            while chunk := os.read(controller, 65536):
                shown.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    try:
        process = subprocess.Popen([PACMAN_AI, *args], cwd=folder, stdout=terminal, stderr=subprocess.PIPE,
                                   env=env)
    finally:
        os.close(terminal)
    reader.start()
    try:
        deadline = time.monotonic() + 60  # a second or two, unless the machine is very busy
        while process.poll() is None and time.monotonic() < deadline:
            if ready == "temporary" and any(".tmp" in name for name in os.listdir(folder)):
                break
            if ready == "drawn" and shown:
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
        reader.join(timeout=10)
        os.close(controller)
    assert os.listdir(spool) == []  # nothing left in the temporary folder either (the replay's spools)
    return process.returncode, stderr.decode()


#: What is stopped: (arguments, what exists before the run, how to know it is writing, the output not written).
CASES = {
    "play --record GIF": (["play", *GAME, "--record", "x.gif"], {"x.gif": OLD}, "temporary", "x.gif"),
    "play --record MP4": (["play", *GAME, "--record", "x.mp4"], {"x.mp4": OLD}, "temporary", "x.mp4"),
    "play --record FOLDER": (["play", *GAME, "--record", "frames", "--force"],
                             {"frames": {"frame_00001.png": OLD}}, "temporary", "frames"),
    "play --save": (["play", *GAME, "--save", "game.json"], {"game.json": OLD}, "drawn", "game.json"),
    "play --html": (["play", *GAME, "--html", "page.html"], {"page.html": OLD}, "drawn", "page.html"),
    "play, every output": (["play", *GAME, "--record", "x.gif", "--save", "game.json", "--html", "page.html"],
                           {"x.gif": OLD}, "temporary", "game.json, x.gif and page.html"),
    "replay": (["replay", "saved.json", "--display", "text"], {}, "drawn", None),
}


@pytest.fixture(scope="module")
def saved_game(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A replay file of a game of the medium maze, made with `play --save`."""
    folder = tmp_path_factory.mktemp("saved")
    done = subprocess.run([PACMAN_AI, "play", "--layout", "medium", "--seed", "1", "--max-moves", "400",
                           "--display", "none", "--save", "saved.json"], cwd=folder, capture_output=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return (folder / "saved.json").read_bytes()


@pytest.mark.parametrize("stop", SIGNALS)
@pytest.mark.parametrize("case", CASES)
def test_a_stopped_command_leaves_nothing_behind_and_says_so(tmp_path, saved_game, case, stop):
    args, before, ready, unwritten = CASES[case]
    if "x.mp4" in args and not HAS_MP4:
        pytest.skip("MP4 needs the video extra (imageio-ffmpeg)")
    number, status, words = SIGNALS[stop]
    folder = tmp_path / "run"
    folder.mkdir()
    if args[0] == "replay":
        before = {args[1]: saved_game}
    for file, content in before.items():
        if isinstance(content, dict):  # a folder of frames
            (folder / file).mkdir()
            for frame, frame_bytes in content.items():
                (folder / file / frame).write_bytes(frame_bytes)
        else:
            (folder / file).write_bytes(content)
    listing = _listing(folder)
    folders = {file: _listing(folder / file) for file, content in listing.items() if content is None}

    returncode, stderr = _run_and_stop(tmp_path, args, ready, number)

    assert returncode == status, stderr
    assert stderr.splitlines() == [f"pacman-ai: {words}" + (f"; {unwritten} not written" if unwritten else "")]
    assert _listing(folder) == listing  # no temporary file, no half-written output, the old ones as they were
    assert {file: _listing(folder / file) for file in folders} == folders


# -- the shared pieces, in process --------------------------------------------------------------------------


@pytest.mark.parametrize("stop", [KeyboardInterrupt(), RunSignal(signal.SIGTERM), OSError(28, "No space left")])
def test_write_atomically_stopped_mid_write_keeps_the_old_file_and_nothing_else(tmp_path, stop):
    target = tmp_path / "page.html"
    target.write_bytes(OLD)

    def write(temporary: str) -> None:
        assert Path(temporary).name.startswith(".page.") and temporary.endswith(".tmp.html")
        Path(temporary).write_text("<html>half a page")
        raise stop

    with pytest.raises(type(stop)):
        write_atomically(target, write)
    assert _listing(tmp_path) == {"page.html": OLD}


def test_a_pending_file_takes_its_name_only_when_committed(tmp_path):
    target = tmp_path / "x.gif"
    target.write_bytes(OLD)
    pending = PendingFile(target)
    assert Path(pending.temporary).parent == tmp_path and Path(pending.temporary).suffix == ".gif"
    Path(pending.temporary).write_bytes(b"new")
    assert target.read_bytes() == OLD
    pending.commit()
    pending.discard()  # after the commit: nothing to do
    assert _listing(tmp_path) == {"x.gif": b"new"}
    with pytest.raises(ValueError, match="committed or discarded already"):
        pending.commit()

    dropped = PendingFile(tmp_path / "y.gif")
    assert len(os.listdir(tmp_path)) == 2
    del dropped  # dropped while pending, say by a signal before its owner kept it
    assert _listing(tmp_path) == {"x.gif": b"new"}

    frames = PendingFile(tmp_path / "frames", folder=True)
    (Path(frames.temporary) / "frame_00001.png").write_bytes(b"png")
    frames.discard()
    frames.discard()
    assert _listing(tmp_path) == {"x.gif": b"new"}


def _frame(value: int) -> np.ndarray:
    return np.full((16, 24, 3), value, dtype=np.uint8)


def test_a_gif_stopped_by_a_signal_leaves_the_old_file(tmp_path):
    from pacman.view.gif import GifWriter

    target = tmp_path / "x.gif"
    target.write_bytes(OLD)
    with pytest.raises(RunSignal):
        with GifWriter(target) as writer:
            writer.add(_frame(0))
            raise RunSignal(signal.SIGHUP)
    assert _listing(tmp_path) == {"x.gif": OLD}


def test_an_mp4_is_written_beside_its_name_and_moved_there_at_the_end(tmp_path, monkeypatch):
    from pacman.view import record

    written: list[str] = []

    def write_frames(path, size, fps, macro_block_size):  # imageio-ffmpeg's generator, writing what it is sent
        written.append(path)
        with open(path, "wb") as out:
            out.write(b"mp4:")
            while True:
                frame = yield
                if frame is not None:
                    out.write(b"#")

    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", type(sys)("imageio_ffmpeg"))
    monkeypatch.setattr(sys.modules["imageio_ffmpeg"], "write_frames", write_frames, raising=False)
    target = tmp_path / "x.mp4"
    target.write_bytes(OLD)

    stopped = record.open_frame_writer(target, 8)
    stopped.add(_frame(0))
    assert written[-1].endswith(".tmp.mp4") and Path(written[-1]).parent == tmp_path  # ffmpeg picks MP4 by it
    assert target.read_bytes() == OLD
    stopped.abort()
    assert _listing(tmp_path) == {"x.mp4": OLD}

    finished = record.open_frame_writer(target, 8)
    finished.add(_frame(0))
    finished.add(_frame(1))
    finished.close()
    assert _listing(tmp_path) == {"x.mp4": b"mp4:##"}

    record.open_frame_writer(tmp_path / "empty.mp4", 8).close()  # no frame: no file, as before
    assert _listing(tmp_path) == {"x.mp4": b"mp4:##"}


def test_a_folder_of_frames_is_replaced_only_by_a_finished_recording(tmp_path):
    from pacman.view import record

    folder = tmp_path / "frames"
    folder.mkdir()
    (folder / "frame_00001.png").write_bytes(OLD)
    (folder / "frame_00002.png").write_bytes(OLD)
    stopped = record.open_frame_writer(folder, 8)
    stopped.add(_frame(0))
    stopped.abort()
    assert _listing(tmp_path) == {"frames": None}
    assert _listing(folder) == {"frame_00001.png": OLD, "frame_00002.png": OLD}

    finished = record.open_frame_writer(folder, 8)
    finished.add(_frame(0))
    finished.close()
    assert _listing(tmp_path) == {"frames": None}
    assert list(_listing(folder)) == ["frame_00001.png"] and _listing(folder)["frame_00001.png"] != OLD

    new = record.open_frame_writer(tmp_path / "new", 8)
    new.add(_frame(0))
    new.add(_frame(1))
    new.close()
    assert list(_listing(tmp_path / "new")) == ["frame_00001.png", "frame_00002.png"]
    assert sorted(os.listdir(tmp_path)) == ["frames", "new"]
