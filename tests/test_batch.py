"""Batch runs through the API: seeds, identical results whatever the executor, files, resume, faults.

Results are compared without their TIMING_FIELDS (seconds, ms per move, worker
id and memory): those depend on the machine, everything else on the seed only.
"""

import concurrent.futures as cf
import os
import statistics

import numpy as np
import pytest

from pacman.batch import (
    BatchError,
    GameConfig,
    GameJob,
    TIMING_FIELDS,
    deterministic_part,
    game_seed,
    read_results,
    run_batch,
)
from pacman.errors import AgentSpecError, LayoutError
from pacman.game import agent_streams
from pacman.batch.stats import wilson_interval

HELPERS = os.path.join(os.path.dirname(__file__), "batch_agents.py")
SMALL = GameConfig.create("small", "expectimax", {"depth": 1}, max_moves=60)


def _same(records):
    return [deterministic_part(r) for r in records]


def _first_draws(batch_seed, games, num_agents):
    """What each game's helper agent draws first: which games misbehave."""
    return [agent_streams(game_seed(batch_seed, i), num_agents)[0].random() for i in range(games)]


def test_game_seeds_come_from_seed_sequence_and_do_not_depend_on_the_number_of_games():
    children = np.random.SeedSequence(7).spawn(5)
    assert [game_seed(7, i) for i in range(5)] == [int(c.generate_state(1)[0]) for c in children]
    assert len({game_seed(7, i) for i in range(200)}) == 200
    assert game_seed(7, 3) != game_seed(8, 3)


def test_one_and_two_jobs_and_a_thread_pool_give_identical_games():
    one = run_batch(SMALL, games=8, seed=3, jobs=1)
    two = run_batch(SMALL, games=8, seed=3, jobs=2)
    with cf.ThreadPoolExecutor(2) as pool:
        threads = run_batch(SMALL, games=8, seed=3, jobs=2, executor=pool)
    assert _same(one.records) == _same(two.records) == _same(threads.records)
    assert [r["index"] for r in one.records] == list(range(8))
    assert len({r["score"] for r in one.records}) > 1  # the games do differ from each other
    assert one.executor == "process pool, 1 worker" and two.executor == "process pool, 2 workers"


def test_lines_stream_to_the_file_and_the_summary_matches_them(tmp_path):
    out = tmp_path / "games.jsonl"
    seen = []
    result = run_batch(SMALL, games=6, seed=1, jobs=2, out=out, on_game=seen.append)
    lines = read_results(out)
    assert len(lines) == 6 == len(seen) and sorted(r["index"] for r in lines) == list(range(6))
    assert sorted(_same(lines), key=lambda r: r["index"]) == _same(result.records)
    required = {"index", "seed", "layout", "pacman", "agent_args", "ghosts", "num_ghosts", "won", "lost", "score",
                "moves", "cut_off", "crashed", "error", "timed_out", "seconds", "ms_per_move_mean",
                "ms_per_move_max"}
    assert required <= set(lines[0]) and set(TIMING_FIELDS) <= set(lines[0])
    assert lines[0]["agent_args"] == {"depth": 1, "engine": "auto", "evaluation": "dots", "ghost_model": "random",
                                      "node_limit": None, "ordering": False, "pruning": True, "star2": True,
                                      "time_limit": None, "transposition": True}  # the effective arguments
    assert lines[0]["num_ghosts"] == 2
    summary = result.summary()
    wins = sum(r["won"] for r in lines)
    assert summary["games"] == 6 and summary["wins"] == wins and summary["complete"]
    assert summary["win_rate_ci95"] == list(wilson_interval(wins, 6))
    assert summary["mean_score"] == pytest.approx(statistics.fmean(r["score"] for r in lines))
    assert summary["score_sd"] == pytest.approx(statistics.stdev(r["score"] for r in lines))
    assert summary["mean_moves"] == pytest.approx(statistics.fmean(r["moves"] for r in lines))
    assert summary["cut_offs"] == sum(r["cut_off"] for r in lines)
    assert summary["games_per_second"] > 0 and summary["played"] == 6
    for line in lines:
        assert line["seed"] == game_seed(1, line["index"])
        assert line["ms_per_move_max"] >= line["ms_per_move_mean"] > 0
        assert len(line["move_ms"]) == line["moves"]


def test_an_interrupted_file_resumed_equals_an_uninterrupted_run(tmp_path):
    whole = run_batch(SMALL, games=9, seed=5, jobs=2)
    out = tmp_path / "games.jsonl"
    run_batch(SMALL, games=9, seed=5, jobs=2, out=out)
    text = out.read_text().splitlines(keepends=True)
    out.write_text("".join(text[:4]) + text[4][: len(text[4]) // 2])  # a run killed while writing line 5
    resumed = run_batch(SMALL, games=9, seed=5, jobs=2, out=out, resume=True)
    lines = read_results(out)
    assert resumed.played == 5 and len(lines) == 9
    assert sorted(r["index"] for r in lines) == list(range(9))  # no game twice, the half line is gone
    assert _same(resumed.records) == _same(whole.records)
    assert out.read_text().endswith("\n")
    again = run_batch(SMALL, games=9, seed=5, jobs=1, out=out, resume=True)
    assert again.played == 0 and len(read_results(out)) == 9


def test_resume_extends_a_batch_with_more_games(tmp_path):
    out = tmp_path / "games.jsonl"
    run_batch(SMALL, games=3, seed=2, jobs=1, out=out)
    more = run_batch(SMALL, games=5, seed=2, jobs=1, out=out, resume=True)
    assert more.played == 2 and [r["index"] for r in more.records] == list(range(5))
    assert _same(more.records) == _same(run_batch(SMALL, games=5, seed=2, jobs=1).records)


@pytest.mark.parametrize("change,flag", [
    (dict(layout="medium"), "--layout"),
    (dict(agent_args=(("depth", 2),)), "--agent-args"),
    (dict(max_moves=61), "--max-moves"),
    (dict(ghosts="directional"), "--ghosts"),
])
def test_resuming_with_another_configuration_is_refused(tmp_path, change, flag):
    out = tmp_path / "games.jsonl"
    run_batch(SMALL, games=2, seed=2, jobs=1, out=out)
    before = out.read_bytes()
    other = GameConfig(**{**SMALL.__dict__, **change})
    with pytest.raises(BatchError, match=f"{flag} .* in the file, .* in the command"):
        run_batch(other, games=2, seed=2, jobs=1, out=out, resume=True)
    with pytest.raises(BatchError, match="--seed 2 in the file, 3 in the command"):
        run_batch(SMALL, games=2, seed=3, jobs=1, out=out, resume=True)
    assert out.read_bytes() == before


def test_an_existing_file_is_neither_clobbered_nor_appended_to_without_being_asked(tmp_path):
    out = tmp_path / "games.jsonl"
    out.write_text("precious\n")
    with pytest.raises(BatchError, match="file exists; --resume continues it, --force overwrites it"):
        run_batch(SMALL, games=1, jobs=1, out=out)
    assert out.read_text() == "precious\n"
    with pytest.raises(BatchError, match="line 1 is not JSON"):
        run_batch(SMALL, games=1, jobs=1, out=out, resume=True)
    run_batch(SMALL, games=2, jobs=1, out=out, overwrite=True)
    assert len(read_results(out)) == 2


def test_bad_input_is_refused_before_any_game_or_file(tmp_path):
    out = tmp_path / "games.jsonl"
    with pytest.raises(LayoutError):
        run_batch(GameConfig.create("no-such-layout"), games=1, out=out)
    with pytest.raises(AgentSpecError, match="dpth"):
        run_batch(GameConfig.create("small", agent_args={"dpth": 2}), games=1, out=out)
    with pytest.raises(BatchError, match="--num-ghosts 3: layout 'small' has 2 ghosts"):
        run_batch(GameConfig.create("small", num_ghosts=3), games=1, out=out)
    with pytest.raises(BatchError, match="--games"):
        run_batch(SMALL, games=0)
    with pytest.raises(BatchError, match="does not exist"):
        run_batch(SMALL, games=1, out=tmp_path / "missing" / "games.jsonl")
    assert not out.exists()


MOVE_LIMIT_20 = "cut off after 20 Pacman moves, the move limit"


def test_agent_exceptions_and_time_outs_are_recorded_in_their_games():
    raising = GameConfig.create("small", f"{HELPERS}:RaisingAgent", {"raise_below": 0.5}, max_moves=20)
    sleepy = GameConfig.create("small", f"{HELPERS}:SleepyAgent", {"sleep_below": 0.5, "seconds": 1.5},
                               max_moves=20, move_time_limit=0.3)
    result = run_batch([raising, sleepy], games=8, seed=4, jobs=2)
    draws = _first_draws(4, 8, 3)
    doomed = [draw < 0.5 for draw in draws]
    assert 0 < sum(doomed) < 8
    crashed, timed = result.records_of(0), result.records_of(1)
    assert [r["crashed"] for r in crashed] == doomed
    for record, bad in zip(crashed, doomed):
        # a game that went wrong has its error; one cut off by its limit says that (pacman.limits)
        assert (record["error"] not in (None, MOVE_LIMIT_20)) == bad
        if bad:
            assert "RuntimeError: deliberate failure" in record["error"] and record["failed_agent"] == 0
    for record, slow in zip(timed, doomed):
        if slow:  # unless a ghost caught Pacman before his second move
            assert record["timed_out"] or (record["lost"] and record["moves"] == 1)
        else:
            assert not record["timed_out"] and record["error"] in (None, MOVE_LIMIT_20)
            assert (record["error"] == MOVE_LIMIT_20) == record["cut_off"]
        if record["timed_out"]:
            assert "0.3 s move time limit" in record["error"] and record["failed_agent"] == 0
    assert sum(r["timed_out"] for r in timed) > 0
    summary = result.summary()["configurations"]
    assert summary[0]["crashes"] == sum(doomed) and summary[1]["timeouts"] == sum(r["timed_out"] for r in timed)


def test_a_worker_killed_mid_game_is_retried_once_then_recorded_as_failed():
    killer = GameConfig.create("small", f"{HELPERS}:KillerAgent", {"kill_below": 0.25}, max_moves=30)
    result = run_batch(killer, games=10, seed=6, jobs=2)
    doomed = [draw < 0.25 for draw in _first_draws(6, 10, 3)]
    assert 0 < sum(doomed) < 10
    assert [r["index"] for r in result.records] == list(range(10))
    for record, dies in zip(result.records, doomed):
        assert record["crashed"] == dies
        if dies:
            assert "worker process died" in record["error"] and record["score"] is None
        else:
            assert record["moves"] > 0
            assert record["error"] == ("cut off after 30 Pacman moves, the move limit" if record["cut_off"] else None)
    assert result.retried >= sum(doomed) and result.complete


def test_a_game_whose_worker_died_once_gives_the_same_result_on_its_retry(tmp_path):
    once = GameConfig.create("small", f"{HELPERS}:KillerAgent", {"kill_below": 0.3, "marker": str(tmp_path)},
                             max_moves=30)
    never = GameConfig.create("small", f"{HELPERS}:KillerAgent", {"kill_below": 0.0}, max_moves=30)
    died = run_batch(once, games=6, seed=9, jobs=2)
    clean = run_batch(never, games=6, seed=9, jobs=2)
    assert sum(draw < 0.3 for draw in _first_draws(9, 6, 3)) == len(os.listdir(tmp_path)) > 0
    strip = lambda records: [{k: v for k, v in deterministic_part(r).items() if k != "agent_args"} for r in records]
    assert strip(died.records) == strip(clean.records)
    assert not any(r["crashed"] for r in died.records) and died.retried >= 1


class _BreaksUnseen(cf.Executor):
    """Plays each game in this process as it is sent, except game `dies`, whose worker dies unnoticed.

    A process pool marks itself broken when it sees a worker dead, before it fails the futures in flight: a
    worker that dies after the batch's last wait is seen first as a BrokenExecutor from `submit`. So here:
    that game's future stays pending, and the next game sent is refused (failing the pending future too).
    """

    def __init__(self, dies):
        self.dies, self.hung = dies, None

    def submit(self, fn, *args, **kwargs):
        if self.hung is not None:
            if not self.hung.done():
                self.hung.set_exception(cf.BrokenExecutor("a worker died"))
            raise cf.BrokenExecutor("a worker died")
        future = cf.Future()
        if isinstance(args[0], GameJob) and args[0].index == self.dies:
            self.hung = future
        else:
            future.set_result(fn(*args, **kwargs))
        return future


def test_a_pool_found_broken_when_sending_a_game_loses_no_game():
    broken = run_batch(SMALL, games=6, seed=9, jobs=2, executor=_BreaksUnseen(dies=2))
    assert not broken.interrupted and broken.complete and broken.retried == 1
    assert [r["index"] for r in broken.records] == list(range(6))
    assert _same(broken.records) == _same(run_batch(SMALL, games=6, seed=9, jobs=2).records)


def test_workers_never_import_pygame():
    config = GameConfig.create("small", f"{HELPERS}:NoPygameAgent", max_moves=10)
    result = run_batch(config, games=3, jobs=1)
    assert not any(r["crashed"] for r in result.records)


def test_a_sweep_plays_the_same_seeds_in_every_configuration():
    configs = [GameConfig.create("small", "expectimax", {"depth": d}, max_moves=40) for d in (1, 2)]
    result = run_batch(configs, games=3, seed=11, jobs=2)
    summary = result.summary()
    assert [c["label"] for c in summary["configurations"]] == ["depth=1", "depth=2"]
    assert "win_rate" not in summary  # only a single configuration has its figures at the top
    seeds = [[r["seed"] for r in result.records_of(i)] for i in (0, 1)]
    assert seeds[0] == seeds[1] == [game_seed(11, i) for i in range(3)]
    assert summary["games"] == 6 and summary["games_planned"] == 6


def test_dask_local_cluster_gives_the_same_games_as_a_process_pool():
    pytest.importorskip("distributed")
    from pacman.batch import dask_executor

    with dask_executor("local", workers=1) as (executor, threads, description):
        on_dask = run_batch(SMALL, games=6, seed=3, jobs=threads, executor=executor)
    assert description.startswith("Dask LocalCluster, 1 worker")
    assert _same(on_dask.records) == _same(run_batch(SMALL, games=6, seed=3, jobs=2).records)


def test_an_unreachable_scheduler_fails_fast_with_a_batch_error():
    pytest.importorskip("distributed")
    import socket

    from pacman.batch import dask_executor

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(BatchError, match=f"--dask tcp://127.0.0.1:{port}: cannot reach a Dask scheduler within 1 s"):
        with dask_executor(f"tcp://127.0.0.1:{port}", timeout=1):
            pass


#: What `pacman.batch` exported when it was one module: each name stays importable from the package.
_NAMES_BEFORE_THE_SPLIT = (
    "BatchError", "GameConfig", "GameJob", "BatchResult", "TIMING_FIELDS", "CONFIG_FIELDS", "MAX_GAMES",
    "MAX_CONFIGURATIONS", "MAX_SEED", "MAX_MOVE_TIME_LIMIT", "FAILURE_WINDOW", "WORKER_START_TIMEOUT", "game_seed",
    "max_jobs", "check_batch_numbers", "validate_config", "play_game", "run_batch", "read_results",
    "deterministic_part", "dask_executor", "default_jobs", "check_writable", "check_out", "write_atomically",
)


def test_every_name_of_the_former_batch_module_is_still_importable_from_the_package():
    import pacman.batch

    missing = [name for name in _NAMES_BEFORE_THE_SPLIT if not hasattr(pacman.batch, name)]
    assert missing == []
    assert set(pacman.batch.__all__) <= set(_NAMES_BEFORE_THE_SPLIT)


def test_the_worker_entry_points_are_pickled_by_a_stable_module_path():
    import pickle

    from pacman.batch import worker

    for function in (worker.play_game, worker.start_worker, worker.worker_check):
        assert function.__module__ == "pacman.batch.worker"
        assert pickle.loads(pickle.dumps(function)) is function
    job = GameJob(0, SMALL, 3, 7)
    assert pickle.loads(pickle.dumps(job)) == job


def test_a_stopped_pool_has_no_manager_thread_left_for_the_exit_to_wake():
    """stop_pool waits for the pool's manager thread: CPython 3.11 wakes such a thread at exit through a pipe the
    thread closes as it ends, with no lock between, and a stop that exited while it ended printed an OSError."""
    import time

    from pacman.batch.pool import process_pool, stop_pool

    pool = process_pool(1)
    future = pool.submit(time.sleep, 60)
    deadline = time.monotonic() + 60
    while not future.running() and time.monotonic() < deadline:
        time.sleep(0.05)
    manager = pool._executor_manager_thread
    wakeup = pool._executor_manager_thread_wakeup
    assert manager is not None and manager.is_alive()
    stop_pool(pool)
    assert not manager.is_alive()
    assert wakeup._closed  # so the exit's wake-up call does nothing
