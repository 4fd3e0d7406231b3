"""Faults a long batch survives (docs/long-runs.md, "Faults"): each is caused for real, then the file is resumed
and compared with a clean run of the same batch, game by game (index, seed, score, outcome and the rest).

A lost Dask scheduler (a real scheduler and worker, the scheduler killed), SIGTERM / SIGHUP / SIGINT / SIGKILL
to the batch's own process, a stopped (SIGSTOP) worker. After each: no hang, no process of the batch left, no
line for a game that was not played, and `--resume` gives the clean run's lines.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pacman.batch import GameConfig, deterministic_part, read_results, run_batch
from pacman.batch.worker import play_game

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals and /proc: Linux")

#: Games per batch of these tests.
GAMES = 24
#: A random walker that sleeps 0.05 s in each game: a batch takes over half a second on two workers, however
#: idle the machine, so a signal lands mid-run; its results do not depend on the sleep.
SLEEPY = str(Path(__file__).with_name("batch_agents.py")) + ":SleepyAgent"
ARGS = ("--layout", "small", "--pacman", SLEEPY, "--agent-args", "sleep_below=1.0,seconds=0.05",
        "--max-moves", "40", "--games", str(GAMES), "--seed", "11")
CONFIG = GameConfig.create("small", SLEEPY, {"sleep_below": 1.0, "seconds": 0.05}, max_moves=40)


def _env() -> dict[str, str]:
    return dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")


def _batch(out: Path, *extra: str, args: tuple[str, ...] = ARGS) -> subprocess.Popen:
    """`pacman-ai batch` in a session of its own (so that every process it starts can be found)."""
    return subprocess.Popen([sys.executable, "-m", "pacman", "batch", *args, "--out", str(out), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
                            start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _wait_for_lines(out: Path, count: int, process: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None:
        if out.exists() and out.read_text().count("\n") >= count:
            return
        time.sleep(0.01)
    raise AssertionError(f"the batch wrote fewer than {count} lines (exit status {process.poll()})")


def _session(sid: int) -> list[tuple[int, str]]:
    """Live (not zombie) processes of session `sid`: what a batch started in its own session left running."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            if int(fields[3]) == sid and fields[0] != "Z":
                with open(f"/proc/{name}/cmdline", "rb") as handle:
                    found.append((int(name), handle.read().replace(b"\0", b" ").decode()[:100]))
        except (OSError, IndexError, ValueError):
            continue
    return found


def _no_process_left(sid: int, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while _session(sid) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = _session(sid)
    for pid, _ in left:  # never leave them to the next test
        os.kill(pid, signal.SIGKILL)
    assert left == [], f"processes of the batch still running {seconds:g} s after it ended: {left}"


def _clean(games: int = GAMES, seed: int = 11, config: GameConfig = CONFIG) -> list[dict]:
    return [deterministic_part(r) for r in run_batch(config, games=games, seed=seed, jobs=2).records]


def _by_index(path: Path) -> list[dict]:
    return sorted((deterministic_part(r) for r in read_results(path)), key=lambda r: r["index"])


def _resume_equals_clean(out: Path, partial: int, args: tuple[str, ...] = ARGS, clean: list[dict] | None = None):
    resumed = _batch(out, "--resume", "--quiet", "--jobs", "2", args=args)
    stdout, stderr = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, stderr
    total = len(clean) if clean is not None else GAMES
    assert f"{total} of {total} games" in stdout and f"{total - partial} played" in stdout
    assert _by_index(out) == (clean if clean is not None else _clean())


# --- signals to the batch's own process ---------------------------------------------------------------------------

@pytest.mark.parametrize("name, status", [
    ("SIGTERM", 143),
    pytest.param("SIGHUP", 129, marks=pytest.mark.slow),
    pytest.param("SIGINT", 130, marks=pytest.mark.slow),
])
def test_a_signal_stops_the_batch_keeps_its_games_and_leaves_no_process(tmp_path, name, status):
    out = tmp_path / "games.jsonl"
    process = _batch(out, "--jobs", "2", "--quiet")
    _wait_for_lines(out, 3, process)
    started = time.monotonic()
    process.send_signal(getattr(signal, name))
    stdout, stderr = process.communicate(timeout=30)  # it ends, and nothing of it holds the pipes open
    assert time.monotonic() - started < 10
    assert process.returncode == status, stderr
    assert "Traceback" not in stderr
    partial = read_results(out)
    assert 3 <= len(partial) < GAMES and out.read_text().endswith("\n")
    assert f"interrupted: {len(partial)} of {GAMES} games" in stdout and "win rate" in stdout  # what finished
    said = [line for line in stderr.splitlines() if line.startswith("pacman-ai: ")]
    word = "interrupted" if name == "SIGINT" else f"stopped by {name}"
    kept = f"the {len(partial)} finished game{'s' if len(partial) != 1 else ''}"
    assert said == [f"pacman-ai: {word}; {out} keeps {kept}: add --resume to finish"]
    _no_process_left(process.pid)
    _resume_equals_clean(out, len(partial))



def test_sigterm_stops_a_compare_as_it_stops_a_batch(tmp_path):
    """`compare` shares the batch's stop policy: SIGTERM gives the same line naming what the file keeps, 143,
    and no process left behind."""
    out = tmp_path / "pairs.jsonl"
    agent = ("--pacman " + SLEEPY + " --agent-args sleep_below=1.0,seconds=0.05")
    process = subprocess.Popen(
        [sys.executable, "-m", "pacman", "compare", "--layout", "small", "--max-moves", "40", "--games", str(GAMES),
         "--seed", "11", "--config", "a:" + agent, "--config", "b:" + agent, "--jobs", "2", "--quiet",
         "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(), start_new_session=True)
    _wait_for_lines(out, 3, process)
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 143, stderr
    assert "Traceback" not in stderr
    kept = len(read_results(out))
    said = [line for line in stderr.splitlines() if line.startswith("pacman-ai: ")]
    assert said == [f"pacman-ai: stopped by SIGTERM; {out} keeps the {kept} finished game{'s' if kept != 1 else ''}: "
                    f"add --resume to finish"]
    _no_process_left(process.pid)

def test_sigkill_of_the_batch_leaves_no_worker_forkserver_or_tracker_running(tmp_path):
    out = tmp_path / "games.jsonl"
    process = _batch(out, "--jobs", "2", "--quiet")
    _wait_for_lines(out, 3, process)
    assert len(_session(process.pid)) >= 3  # the batch, its forkserver, its workers (and resource tracker)
    process.kill()
    process.communicate(timeout=20)  # would hang while an orphan held the batch's stdout or stderr
    _no_process_left(process.pid)
    lines = out.read_text().splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):  # killed mid-line: resume cuts it
        lines.pop()
    _resume_equals_clean(out, len(lines))


def test_a_stopped_worker_is_noticed_killed_and_its_games_replayed(tmp_path):
    out = tmp_path / "games.jsonl"
    process = _batch(out, "--jobs", "2", "--quiet", "--stall-timeout", "1")
    _wait_for_lines(out, 3, process)
    forkserver = [pid for pid, command in _session(process.pid) if "forkserver" in command
                  and int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1]) == process.pid]
    workers = [pid for pid, command in _session(process.pid) if "forkserver" in command and pid not in forkserver]
    assert len(forkserver) == 1 and len(workers) == 2
    os.kill(workers[0], signal.SIGSTOP)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, stderr
    assert (f"pacman-ai: worker process {workers[0]} gave no sign of life for 1 s (stopped, or hung in code that "
            f"holds the interpreter): it is killed and its games are played again in fresh processes") in stderr
    assert f"{GAMES} of {GAMES} games" in stdout and "replayed after a worker died or stalled" in stdout
    assert _by_index(out) == _clean()
    _no_process_left(process.pid)


def test_stall_timeout_with_dask_is_a_usage_error(capsys):
    from pacman.cli import main

    assert main(["batch", "--dask", "local", "--stall-timeout", "5", "--games", "1"]) == 2
    assert capsys.readouterr().err == ("pacman-ai batch: --stall-timeout applies to the process pool; Dask watches "
                                       "its own workers (its distributed.scheduler.worker-ttl setting)\n")


# --- an executor that is lost -------------------------------------------------------------------------------------

class _LosesItsScheduler(cf.ThreadPoolExecutor):
    """Plays `keep` games, then behaves as a Dask client whose scheduler died: games in flight cancelled, new ones
    never answered, and `lost()` says why."""

    def __init__(self, keep: int) -> None:
        super().__init__(2)
        self.keep, self.sent, self.gone = keep, 0, False

    def submit(self, fn, *args, **kwargs):
        if fn is not play_game:
            return super().submit(fn, *args, **kwargs)
        self.sent += 1
        if self.sent <= self.keep:
            return super().submit(fn, *args, **kwargs)
        self.gone = True
        future = cf.Future()
        if self.sent % 2:
            future.set_exception(cf.CancelledError())
        return future  # else: never answered

    def lost(self):
        return "lost the connection to the scheduler (a test)" if self.gone else None


def test_a_lost_executor_stops_the_run_and_writes_no_game_it_did_not_play(tmp_path):
    out = tmp_path / "games.jsonl"
    config = GameConfig.create("small", "expectimax", {"depth": 1}, max_moves=40)
    started = time.monotonic()
    with _LosesItsScheduler(keep=5) as pool:
        result = run_batch(config, games=30, seed=3, executor=pool, jobs=2, out=out)
    assert time.monotonic() - started < 10
    assert result.interrupted and not result.complete and result.stop_signal is None
    assert result.stopped_by == "lost the connection to the scheduler (a test)"
    lines = read_results(out)
    assert 1 <= len(lines) <= 5 and not any(line["crashed"] for line in lines)
    clean = [deterministic_part(r) for r in run_batch(config, games=30, seed=3, jobs=2).records]
    assert [deterministic_part(r) for r in lines] == [clean[r["index"]] for r in lines]
    more = run_batch(config, games=30, seed=3, jobs=2, out=out, resume=True)
    assert more.complete and _by_index(out) == clean


def test_an_executor_lost_before_any_game_is_a_batch_error_and_no_file(tmp_path):
    from pacman.batch import BatchError

    out = tmp_path / "games.jsonl"
    with _LosesItsScheduler(keep=0) as pool, pytest.raises(BatchError, match=r"^the batch cannot run: lost the "
                                                                             r"connection to the scheduler"):
        run_batch(GameConfig.create("small", "expectimax", {"depth": 1}, max_moves=40), games=5, executor=pool,
                  out=out)
    assert not out.exists()


def test_a_file_with_games_an_earlier_version_faked_is_refused_on_resume(tmp_path):
    from pacman.batch import BatchError

    config = GameConfig.create("small", "expectimax", {"depth": 1}, max_moves=40)
    out = tmp_path / "games.jsonl"
    run_batch(config, games=3, seed=2, jobs=1, out=out)
    lines = out.read_text().splitlines()
    fake = json.loads(lines[1])  # game 1, as the lost scheduler used to leave it
    fake.update(outcome="crashed", won=False, lost=False, score=None, moves=None, crashed=True, failed_agent=None,
                error="the worker failed: CancelledError", move_ms=[])
    out.write_text("\n".join([lines[0], json.dumps(fake), lines[2]]) + "\n")
    with pytest.raises(BatchError, match=r"line 2 \(game 1\) is a game that was never played: its executor failed "
                                         r"it \(the worker failed: CancelledError\)"):
        run_batch(config, games=5, seed=2, jobs=1, out=out, resume=True)
    out.write_text("\n".join([lines[0], lines[2]]) + "\n")  # as the message says: delete it, and resume
    more = run_batch(config, games=5, seed=2, jobs=1, out=out, resume=True)
    assert more.complete and more.played == 3
    assert _by_index(out) == [deterministic_part(r) for r in run_batch(config, games=5, seed=2, jobs=1).records]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start(command: list[str], log: Path) -> subprocess.Popen:
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=open(log, "wb"), env=_env(),
                            start_new_session=True)


def _wait_in_log(log: Path, text: str, process: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if text in log.read_text(errors="replace"):
            return
        if process.poll() is not None:
            break
        time.sleep(0.1)
    raise AssertionError(f"{text!r} never appeared in {log}:\n{log.read_text(errors='replace')[-2000:]}")


@pytest.mark.slow
def test_killing_a_real_dask_scheduler_stops_the_batch_in_seconds_and_resume_equals_a_clean_run(tmp_path):
    pytest.importorskip("distributed")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    scheduler = _start([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port",
                        str(port), "--no-dashboard"], tmp_path / "scheduler.log")
    worker = None
    try:
        _wait_in_log(tmp_path / "scheduler.log", "Scheduler at:", scheduler)
        worker = _start([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "2",
                         "--no-dashboard"], tmp_path / "worker.log")
        _wait_in_log(tmp_path / "worker.log", "Registered to", worker)
        out = tmp_path / "games.jsonl"
        process = _batch(out, "--dask", address, "--quiet")
        _wait_for_lines(out, 3, process)
        os.kill(scheduler.pid, signal.SIGKILL)
        killed = time.monotonic()
        stdout, stderr = process.communicate(timeout=60)
        assert time.monotonic() - killed < 15, "the batch did not end within seconds of losing its scheduler"
        assert process.returncode == 3, stderr
        assert "Traceback" not in stderr
        partial = read_results(out)
        kept = f"the {len(partial)} finished game{'s' if len(partial) != 1 else ''}"
        assert stderr.strip().splitlines() == [
            f"pacman-ai: stopped: lost the connection to the Dask scheduler {address} (the client is "
            f"reconnecting: did the scheduler stop?); {out} keeps {kept}: add --resume to finish"]
        assert not any("the worker failed" in (line["error"] or "") for line in partial)  # no fake crashed game
        assert f"interrupted: {len(partial)} of {GAMES} games" in stdout and "win rate" in stdout
        _no_process_left(process.pid)
    finally:
        for started in (worker, scheduler):
            if started is not None and started.poll() is None:
                os.killpg(started.pid, signal.SIGKILL)
                started.wait()
    _resume_equals_clean(out, len(partial))


@pytest.mark.slow
def test_sigkill_of_a_batch_on_a_local_dask_cluster_leaves_no_process(tmp_path):
    pytest.importorskip("distributed")
    out = tmp_path / "games.jsonl"
    process = _batch(out, "--dask", "local", "--jobs", "2", "--quiet")
    _wait_for_lines(out, 3, process)
    process.kill()
    process.communicate(timeout=20)
    _no_process_left(process.pid)


# --- a worker that starts after its batch ended -------------------------------------------------------------------

_GONE_LOCK = '''
import multiprocessing.synchronize


def rebuild():
    """What a new worker does with a lock of a batch that already ended: its semaphore is gone."""
    lock = object.__new__(multiprocessing.synchronize.Lock)
    lock.__setstate__((0, 1, 1, "/pacman-ai-test-no-such-semaphore"))


class GoneLock:
    def __reduce__(self):
        return rebuild, ()
'''

_START_AFTER_THE_BATCH = '''
import multiprocessing, sys
sys.path.insert(0, {here!r})
from gone_lock import GoneLock

if __name__ == "__main__":
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload({preload!r})
    process = context.Process(target=print, args=(GoneLock(),))
    process.start()
    process.join()
    print("exit code", process.exitcode)
'''


@pytest.mark.parametrize("guarded", [True, False])
def test_a_worker_started_after_its_batch_ended_dies_without_a_traceback(tmp_path, guarded):
    # A Ctrl-C while the pool starts a worker: the batch removes its locks, and the forkserver's new child fails
    # to rebuild them. With the guard the batch's pool preloads, it dies silently (the batch says what was kept).
    (tmp_path / "gone_lock.py").write_text(_GONE_LOCK)
    preload = ["pacman.batch._forkserver_guard"] if guarded else []
    script = tmp_path / "start.py"
    script.write_text(_START_AFTER_THE_BATCH.format(here=str(tmp_path), preload=preload))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=_env(), timeout=60,
                          cwd=tmp_path)
    assert done.stdout == "exit code 1\n"
    if guarded:
        assert done.stderr == ""
    else:  # the control: without the guard the child prints the error
        assert "FileNotFoundError" in done.stderr and "synchronize.py" in done.stderr


def test_the_guard_reports_every_other_error_of_a_new_worker(capsys):
    from pacman.batch import _forkserver_guard as guard

    try:
        raise FileNotFoundError(2, "No such file or directory", "layouts/none.lay")
    except FileNotFoundError as exc:
        guard._quiet_when_batch_is_gone(type(exc), exc, exc.__traceback__)
    err = capsys.readouterr().err
    assert err.startswith("Traceback") and err.endswith("FileNotFoundError: [Errno 2] No such file or directory: "
                                                        "'layouts/none.lay'\n")
