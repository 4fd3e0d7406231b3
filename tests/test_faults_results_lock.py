"""The results-file lock belongs to the file, not to its name: a symlink or a hard link to a file in use is refused
(docs/long-runs.md, "Faults"), in this process and from another, before and after the file exists."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pacman.batch import BatchError, GameConfig, deterministic_part, read_results, run_batch
from pacman.batch.results import ResultsFile, lock_results

posix = pytest.mark.skipif(os.name != "posix", reason="links and flock: POSIX")
SLEEPY = str(Path(__file__).with_name("batch_agents.py")) + ":SleepyAgent"


def _holder(path: Path, ready: Path, write_first: bool = False) -> subprocess.Popen:
    """Another process that holds the lock of `path` (and, with `write_first`, writes the file's first line)."""
    code = textwrap.dedent(f"""
        import time
        from pacman.batch.results import ResultsFile, lock_results
        with lock_results({str(path)!r}):
            if {write_first!r}:
                out = ResultsFile({str(path)!r}, truncate=True)
                out.write({{"index": 0}})
            open({str(ready)!r}, "w").close()
            time.sleep(60)
    """)
    process = subprocess.Popen([sys.executable, "-c", code])
    deadline = time.monotonic() + 30
    while not ready.exists():
        assert process.poll() is None and time.monotonic() < deadline, "the holder did not start"
        time.sleep(0.02)
    return process


@posix
@pytest.mark.parametrize("alias", ["symlink", "hardlink", "symlink to a symlink", "relative symlink"])
def test_a_second_name_of_a_file_in_use_in_another_process_is_refused(tmp_path, alias):
    path = tmp_path / "games.jsonl"
    path.write_text("")
    other = tmp_path / "sub" / "other.jsonl"
    other.parent.mkdir()
    if alias == "hardlink":
        os.link(path, other)
    elif alias == "symlink to a symlink":
        os.symlink(path, tmp_path / "middle.jsonl")
        os.symlink(tmp_path / "middle.jsonl", other)
    elif alias == "relative symlink":
        os.symlink("../games.jsonl", other)
    else:
        os.symlink(path, other)
    holder = _holder(path, tmp_path / "ready")
    try:
        with pytest.raises(BatchError, match=rf"in use by process {holder.pid} \("):
            with lock_results(other):
                pass
    finally:
        holder.kill()
        holder.wait()
    with lock_results(other):  # free once the holder ended (even killed)
        pass


@posix
def test_a_hard_link_made_after_the_run_created_the_file_is_refused(tmp_path):
    path = tmp_path / "games.jsonl"
    holder = _holder(path, tmp_path / "ready", write_first=True)  # the file did not exist when it locked
    try:
        os.link(path, tmp_path / "alias.jsonl")
        with pytest.raises(BatchError, match=rf"in use by process {holder.pid} .*through another name"):
            with lock_results(tmp_path / "alias.jsonl"):
                pass
    finally:
        holder.kill()
        holder.wait()


@posix
def test_two_names_of_one_file_in_one_process_are_refused(tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_text("")
    os.link(path, tmp_path / "hard.jsonl")
    os.symlink(path, tmp_path / "soft.jsonl")
    with lock_results(path):
        for alias in ("hard.jsonl", "soft.jsonl"):
            with pytest.raises(BatchError, match="in use"):
                with lock_results(tmp_path / alias):
                    pass
    with lock_results(tmp_path / "hard.jsonl"):  # released
        pass


@posix
def test_a_run_that_creates_its_file_still_writes_it_under_its_own_lock(tmp_path):
    path = tmp_path / "games.jsonl"
    with lock_results(path):
        out = ResultsFile(str(path), truncate=True)
        out.write({"index": 0})
        out.write({"index": 1})
        out.close()
    assert path.read_text() == '{"index":0}\n{"index":1}\n'
    with lock_results(path):  # and releases it
        pass


#: 30 games of a walker that sleeps 0.2 s in each: the first run lasts 3 s on two workers.
SLEEPY_ARGS = {"sleep_below": 1.0, "seconds": 0.2}


def _batch(out: Path, *extra: str) -> subprocess.Popen:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    return subprocess.Popen([sys.executable, "-m", "pacman", "batch", "--layout", "small", "--pacman", SLEEPY,
                             "--agent-args", "sleep_below=1.0,seconds=0.2", "--max-moves", "40", "--games", "30",
                             "--seed", "5", "--jobs", "2", "--quiet", "--out", str(out), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


@posix
@pytest.mark.slow
def test_resume_through_a_symlink_while_the_file_is_written_is_refused_and_nothing_is_duplicated(tmp_path):
    out = tmp_path / "games.jsonl"
    link = tmp_path / "link.jsonl"
    os.symlink(out, link)
    first = _batch(out)
    deadline = time.monotonic() + 60
    while not (out.exists() and out.read_text().count("\n") >= 1):
        assert first.poll() is None and time.monotonic() < deadline
        time.sleep(0.01)
    others = [_batch(link, extra) for extra in ("--resume", "--force")]
    for second in others:
        stdout, stderr = second.communicate(timeout=60)
        assert second.returncode == 2 and stdout == "", (first.poll(), stdout, stderr)
        assert f"in use by process {first.pid} (" in stderr and "Traceback" not in stderr
    assert first.poll() is None  # the refusals came while the first run was writing
    stdout, stderr = first.communicate(timeout=120)
    assert first.returncode == 0, stderr
    lines = read_results(out)
    assert sorted(line["index"] for line in lines) == list(range(30))  # each game once, none torn
    clean = run_batch(GameConfig.create("small", SLEEPY, SLEEPY_ARGS, max_moves=40), games=30, seed=5, jobs=2)
    assert sorted((deterministic_part(r) for r in lines), key=lambda r: r["index"]) == \
        [deterministic_part(r) for r in clean.records]
