"""Batches on users' own inputs: the README example as a script, batches that cannot run, agents that exit,
resumed files that cannot be right, special files, extreme flags, effective agent arguments."""

import concurrent.futures as cf
import json
import os
import re
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import pytest

from pacman.batch import (
    MAX_CONFIGURATIONS,
    MAX_GAMES,
    BatchError,
    GameConfig,
    deterministic_part,
    play_game,
    read_results,
    run_batch,
)
from pacman.cli import main

ROOT = Path(__file__).resolve().parent.parent
HELPERS = os.path.join(os.path.dirname(__file__), "batch_agents.py")
TEST = GameConfig.create("test", "greedy", max_moves=20)


def _readme_python_example() -> str:
    """The `run_batch` example of docs/guide/batch.md, verbatim (the python block after "From Python:")."""
    text = (ROOT / "docs" / "guide" / "batch.md").read_text(encoding="utf-8")
    match = re.search(r"From Python:\s*```python\n(.*?)```", text, re.S)
    assert match, "docs/guide/batch.md has no 'From Python:' example"
    code = match.group(1)
    assert "run_batch(" in code and "__main__" not in code  # an unguarded script, as users write them
    return code


def _run_script(tmp_path, code, timeout):
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=timeout, env=env)


def _expected_line(config, games):
    summary = run_batch(config, games=games, seed=0, jobs=1).summary()
    return f"{summary['win_rate']} {summary['win_rate_ci95']}"


def test_the_readme_example_as_an_unguarded_script_with_fewer_games(tmp_path):
    code = _readme_python_example()
    assert "games=200" in code
    done = _run_script(tmp_path, code.replace("games=200", "games=6"), timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == _expected_line(GameConfig.create("small", "expectimax", {"depth": 2}), 6)
    assert "Traceback" not in done.stderr
    lines = read_results(tmp_path / "small.jsonl")
    assert len(lines) == 6 and not any(line["crashed"] for line in lines)


@pytest.mark.slow
def test_the_readme_example_verbatim(tmp_path):
    done = _run_script(tmp_path, _readme_python_example(), timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == _expected_line(GameConfig.create("small", "expectimax", {"depth": 2}), 200)
    assert "Traceback" not in done.stderr


def test_a_script_naming_its_own_main_module_is_told_to_use_a_file(tmp_path):
    code = ("from pacman.batch import GameConfig, run_batch\n"
            "class Mine:\n    def get_action(self, state):\n        return state.legal_actions(0)[0]\n"
            "run_batch(GameConfig.create('test', '__main__:Mine'), games=2, jobs=1)\n")
    done = _run_script(tmp_path, code, timeout=60)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert "__main__:Mine" in last and "path/to/file.py:Mine" in last


SELF_NAMING = """from pacman.batch import GameConfig, run_batch

class MyAgent:
    def get_action(self, state):
        return state.legal_actions(0)[0]

"""
RUN = """result = run_batch(GameConfig.create("test", "run.py:MyAgent", max_moves=10), games=4, jobs=2)
print(result.summary()["games"], result.summary()["crashes"])
"""


def test_a_script_that_names_itself_as_the_agents_file_needs_its_guard_and_says_so(tmp_path):
    (tmp_path / "run.py").write_text(SELF_NAMING + RUN, encoding="utf-8")
    done = subprocess.run([sys.executable, "run.py"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    lines = done.stderr.strip().splitlines()
    last = next(line for line in lines if "importing run.py raised" in line)
    assert done.returncode != 0 and "importing run.py raised BatchError: run_batch was called while the batch " \
                                    "imported it" in last and 'if __name__ == "__main__":' in last
    assert lines[-1].startswith("  run.py:") and "in <module>: result = run_batch(" in lines[-1]  # the line
    guarded = SELF_NAMING + 'if __name__ == "__main__":\n' + textwrap.indent(RUN, "    ")
    (tmp_path / "run.py").write_text(guarded, encoding="utf-8")
    done = subprocess.run([sys.executable, "run.py"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0 and done.stdout == "4 0\n", done.stderr


# ---------------------------------------------------------------------------------------------------------------
# A batch that cannot run stops; an agent's own failures never stop it


def test_an_agent_that_cannot_be_built_on_the_workers_stops_the_batch_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("BATCH_TEST_PARENT", str(os.getpid()))
    out = tmp_path / "games.jsonl"
    config = GameConfig.create("test", f"{HELPERS}:WorkerOnlyFailure", max_moves=10)
    with pytest.raises(BatchError, match=r"the first 5 games failed the same way before any game was played: "
                                         r"could not start the game: .*cannot be built in a worker"):
        run_batch(config, games=20, jobs=2, out=out)
    assert not out.exists()
    with pytest.raises(BatchError, match="the only game to play failed the same way"):
        run_batch(config, games=1, jobs=1)


def test_one_configuration_of_a_sweep_that_cannot_run_stops_the_sweep(monkeypatch):
    monkeypatch.setenv("BATCH_TEST_PARENT", str(os.getpid()))
    broken = GameConfig.create("test", f"{HELPERS}:WorkerOnlyFailure", max_moves=10)
    with pytest.raises(BatchError, match=r"the first 3 games of \S*WorkerOnlyFailure max 10 moves failed the same way"):
        run_batch([TEST, broken], games=3, jobs=2)


def test_a_layout_the_workers_cannot_read_stops_the_batch_before_any_game(tmp_path):
    layout = tmp_path / "mine.lay"
    layout.write_text("%%%%%\n%P.G%\n%%%%%\n", encoding="ascii")

    def vanish(records):  # after the parent checked the layout, before the workers start
        layout.unlink()

    with pytest.raises(BatchError, match=r"layout '.*mine.lay' cannot be loaded on the workers"):
        run_batch(GameConfig.create(str(layout), "greedy"), games=3, jobs=1, on_resume=vanish)


class _BrokenAtStart(cf.Executor):
    """An executor whose workers die before they run anything."""

    def submit(self, fn, *args, **kwargs):
        future = cf.Future()
        future.set_exception(cf.BrokenExecutor("a child process terminated abruptly"))
        return future


class _FailsEveryGame(cf.ThreadPoolExecutor):
    """Answers the worker check, then fails every game before it is played (say, it cannot be sent)."""

    def submit(self, fn, *args, **kwargs):
        if fn is play_game:
            future = cf.Future()
            future.set_exception(RuntimeError("cannot pickle the job"))
            return future
        return super().submit(fn, *args, **kwargs)


def test_workers_that_cannot_start_stop_the_batch():
    with pytest.raises(BatchError, match="workers exit as soon as they start"):
        run_batch(TEST, games=4, executor=_BrokenAtStart())


def test_an_executor_that_fails_every_game_stops_the_batch_without_a_line():
    seen = []
    with _FailsEveryGame(2) as pool, pytest.raises(BatchError, match=r"the batch cannot run: the executor failed "
                                                                     r"game 0 on each of 3 tries: RuntimeError: "
                                                                     r"cannot pickle"):
        run_batch(TEST, games=50, executor=pool, on_game=seen.append)
    assert seen == []  # a game the executor never played is never a result


def test_agents_that_crash_or_exit_in_every_game_are_crashed_games_not_a_batch_failure():
    configs = [GameConfig.create("test", f"{HELPERS}:{name}", max_moves=10)
               for name in ("ExitingAgent", "ExitCallingAgent")]
    result = run_batch(configs, games=6, seed=2, jobs=2)
    assert result.complete and len(result.records) == 12
    exiting, exit_call = (result.records_of(n) for n in range(2))
    for record in exiting:
        assert record["crashed"] and record["failed_agent"] == 0 and record["score"] is not None
        assert record["error"] == "Pacman (agent 0) called sys.exit('not implemented')"
    for record in exit_call:
        assert record["crashed"] and record["failed_agent"] == 0 and record["error"] == "Pacman (agent 0) called sys.exit()"
    summary = result.summary()["configurations"]
    assert [entry["crashes"] for entry in summary] == [6, 6] and summary[0]["win_rate"] == 0.0


def test_an_agent_that_exits_on_the_retry_after_its_worker_died_is_a_crashed_game(tmp_path):
    config = GameConfig.create("test", f"{HELPERS}:KillThenExitAgent", {"marker": str(tmp_path)}, max_moves=10)
    result = run_batch(config, games=1, seed=0, jobs=1)
    assert result.retried == 1 and len(result.records) == 1
    record = result.records[0]
    assert record["crashed"] and record["failed_agent"] == 0
    assert record["error"] == "Pacman (agent 0) called sys.exit('not implemented')"


class _FailsTheFirstTwoGames(cf.ThreadPoolExecutor):
    """Fails the first try of games 0 and 1 before they are played, plays everything else."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.failed = set()

    def submit(self, fn, *args, **kwargs):
        if fn is play_game and args[0].index < 2 and args[0].index not in self.failed:
            self.failed.add(args[0].index)
            future = cf.Future()
            future.set_exception(RuntimeError("lost"))
            return future
        return super().submit(fn, *args, **kwargs)


def test_games_the_executor_failed_are_sent_again_and_never_recorded_as_crashed():
    with _FailsTheFirstTwoGames(1) as pool:
        result = run_batch(TEST, games=4, executor=pool)
    assert pool.failed == {0, 1}
    clean = run_batch(TEST, games=4, jobs=1)
    assert result.complete and [r["crashed"] for r in result.records] == [False] * 4
    assert [deterministic_part(r) for r in result.records] == [deterministic_part(r) for r in clean.records]


def test_an_exiting_agent_on_the_command_line_ends_its_games_and_the_batch_exits_4(capsys):
    status = main(["batch", "--layout", "test", "--pacman", f"{HELPERS}:ExitingAgent", "--games", "3", "--quiet",
                   "--json"])
    out, err = capsys.readouterr()
    assert status == 4 and err.startswith("pacman-ai: 3 of 3 games crashed or timed out"), err
    summary = json.loads(out)
    assert summary["crashes"] == 3 and summary["games"] == 3 and summary["wins"] == 0


# ---------------------------------------------------------------------------------------------------------------
# Jobs are made lazily; limits


def test_jobs_are_made_as_games_run_not_all_before(tmp_path):
    seen = []

    def stop_after_three(record):
        seen.append(record)
        if len(seen) == 3:
            raise KeyboardInterrupt

    tracemalloc.start()
    try:
        with cf.ThreadPoolExecutor(1) as pool:
            result = run_batch(TEST, games=MAX_GAMES, executor=pool, jobs=1, on_game=stop_after_three)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.interrupted and len(result.records) == 3
    assert peak < 20 * 2**20  # a list of a billion jobs would need some 100 GB


@pytest.mark.parametrize("kwargs, message", [
    ({"games": MAX_GAMES + 1}, "a batch plays at most 1,000,000,000 games"),
    ({"games": 10, "seed": 2**64}, "--seed must be an integer from 0 to 18446744073709551615"),
    ({"games": 10, "jobs": 10**6}, "--jobs 1,000,000: at most"),
    ({"games": 10, "seed": True}, "--seed must be an integer"),
])
def test_numbers_out_of_range_are_refused_before_anything_starts(kwargs, message):
    with pytest.raises(BatchError, match=re.escape(message)):
        run_batch(TEST, **kwargs)


def test_extreme_limits_in_a_config_are_refused_or_honoured():
    with pytest.raises(BatchError, match=r"--move-time-limit 1e\+300: at most 86400 s"):
        run_batch(GameConfig.create("test", "greedy", move_time_limit=1e300), games=1)
    huge = run_batch(GameConfig.create("test", "greedy", max_moves=10**30), games=2, jobs=1)
    assert huge.complete and all(r["max_moves"] == 10**30 and not r["cut_off"] for r in huge.records)


def test_a_callable_agent_argument_is_refused_with_the_way_to_name_it():
    with pytest.raises(BatchError, match="evaluation=.*name a function as 'module:function'"):
        run_batch(GameConfig.create("test", "expectimax", {"evaluation": len}), games=1)


# ---------------------------------------------------------------------------------------------------------------
# Effective agent arguments


EXPECTIMAX_DEFAULTS = {"depth": "auto", "engine": "auto", "evaluation": "dots", "ghost_model": "random", "pruning": True,
                       "time_limit": None, "transposition": True, "star2": True, "ordering": False, "node_limit": None}


def test_lines_and_summary_record_the_effective_agent_arguments(tmp_path):
    out = tmp_path / "g.jsonl"
    result = run_batch(GameConfig.create("test", "expectimax", max_moves=5), games=2, jobs=1, out=out)
    assert [line["agent_args"] for line in read_results(out)] == [EXPECTIMAX_DEFAULTS] * 2
    summary = result.summary()
    assert summary["agent_args"] == EXPECTIMAX_DEFAULTS and summary["label"] == "test expectimax random x1 max 5 moves"
    directional = run_batch(GameConfig.create("test", "expectimax", {"depth": 1}, ghosts="directional",
                                              max_moves=5), games=1, jobs=1)
    assert directional.records[0]["agent_args"] == {**EXPECTIMAX_DEFAULTS, "depth": 1, "ghost_model": "directional"}


def test_the_same_configuration_spelt_twice_is_refused():
    with pytest.raises(BatchError, match="the same configuration is listed twice"):
        run_batch([GameConfig.create("test", "expectimax"), GameConfig.create("test", "expectimax", {"depth": "auto"})],
                  games=1)


def test_a_file_written_before_effective_arguments_were_recorded_resumes(tmp_path):
    out = tmp_path / "old.jsonl"
    config = GameConfig.create("test", "expectimax", {"depth": 1}, max_moves=5)
    first = run_batch(config, games=3, jobs=1, out=out)
    old_style = [dict(line, agent_args={"depth": 1}) for line in read_results(out)]  # as older versions wrote
    out.write_text("".join(json.dumps(line) + "\n" for line in old_style), encoding="utf-8")
    more = run_batch(config, games=5, jobs=1, out=out, resume=True)
    assert more.played == 2 and more.complete and len(more.records) == 5
    assert [deterministic_part(r) for r in more.records[:3]] == [
        dict(deterministic_part(r), agent_args={"depth": 1}) for r in first.records]
    with pytest.raises(BatchError, match=r"line 1 \(game 0\) was played with another configuration: "
                                         r"--agent-args depth=1 in the file, depth=2 in the command; give"):
        run_batch(GameConfig.create("test", "expectimax", {"depth": 2}, max_moves=5), games=5, out=out, resume=True)


# ---------------------------------------------------------------------------------------------------------------
# Resumed files that cannot be right


@pytest.fixture
def played(tmp_path):
    """A results file of four games of TEST, and its lines."""
    out = tmp_path / "games.jsonl"
    run_batch(TEST, games=4, seed=1, jobs=1, out=out)
    return out, out.read_text(encoding="utf-8").splitlines(keepends=True)


def _rewrite(path, lines):
    path.write_text("".join(lines), encoding="utf-8")


def _edited(line, **changes):
    return json.dumps({**json.loads(line), **changes}) + "\n"


@pytest.mark.parametrize("edit, message", [
    (lambda lines: lines + [lines[1]], r"line 5 is game \d again \(already on line 2\)"),
    (lambda lines: lines[:2] + ["{not json\n"] + lines[2:], r"line 3 is not JSON"),
    (lambda lines: lines[:3] + [_edited(lines[3], index=7)], r"line 4 is game 7, beyond --games 4 .*--games 8"),
    (lambda lines: lines[:3] + [_edited(lines[3], index=-1)], r"line 4 is not a game line"),
    (lambda lines: [_edited(lines[0], seed=12)] + lines[1:], r"line 1 \(game \d\) has seed 12"),
    (lambda lines: lines[:1] + [_edited(lines[1], layout="small")], r"line 2 \(game \d\) was played with another "
                                                                    r"configuration: --layout small in the file"),
    (lambda lines: lines[:1] + [_edited(lines[1], batch_seed=9)], r"line 2 .*--seed 9 in the file, 1 in the command"),
    (lambda lines: lines[:2] + [_edited(lines[2], won="yes")], r"line 3 \(game \d\): 'won' is 'yes'"),
    (lambda lines: lines[:2] + [_edited(lines[2], won=True, lost=True)], r"line 3 .*both won and lost"),
    (lambda lines: lines[:2] + ["[1, 2]\n"], r"line 3 is not a game line"),
    (lambda lines: lines[:2] + [_edited(lines[2], seconds="slow")], r"line 3 \(game \d\): 'seconds' is 'slow'"),
    (lambda lines: lines[:2] + [_edited(lines[2], moves=None)], r"line 3 .*a score without moves"),
    (lambda lines: lines[:2] + [_edited(lines[2], score=float("inf"))], r"line 3 .*'score' is inf"),
])
def test_a_resumed_file_that_cannot_be_right_is_refused_naming_the_line(played, edit, message):
    out, lines = played
    _rewrite(out, edit(lines))
    before = out.read_bytes()
    with pytest.raises(BatchError, match=f"{re.escape(str(out))}: {message}"):
        run_batch(TEST, games=4, seed=1, jobs=1, out=out, resume=True)
    assert out.read_bytes() == before


def test_a_killed_runs_half_line_is_still_cut_and_replayed(played):
    out, lines = played
    _rewrite(out, lines[:3] + [lines[3][:25]])
    result = run_batch(TEST, games=4, seed=1, jobs=1, out=out, resume=True)
    assert result.played == 1 and result.complete and len(read_results(out)) == 4


def test_the_command_line_refuses_a_file_with_a_duplicated_game(played, capsys):
    out, lines = played
    _rewrite(out, lines + [lines[0]])
    status = main(["batch", "--layout", "test", "--pacman", "greedy", "--max-moves", "20", "--games", "4",
                   "--seed", "1", "--out", str(out), "--resume", "--quiet"])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and f"{out}: line 5 is game" in err


# ---------------------------------------------------------------------------------------------------------------
# Special files, bad flags: one line, status 2, no hang


def _cli(tmp_path, *argv, timeout=60):
    done = subprocess.run([sys.executable, "-m", "pacman", "batch", "--quiet", *argv], cwd=tmp_path,
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    return done.returncode, done.stdout, done.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
@pytest.mark.parametrize("flags, message", [
    (["--out", "pipe"], "--out pipe: is a FIFO (named pipe), not a regular file"),
    (["--out", "pipe", "--resume"], "--out pipe: is a FIFO (named pipe), not a regular file"),
    (["--summary", "pipe"], "--summary pipe: is a FIFO (named pipe), not a regular file"),
    (["--plot", "pipe.png"], "--plot pipe.png: is a FIFO (named pipe), not a regular file"),
    (["--out", "/dev/null"], "--out /dev/null: is a character device, not a regular file"),
])
def test_special_files_as_outputs_are_refused_without_blocking(tmp_path, flags, message):
    os.mkfifo(tmp_path / "pipe")
    os.mkfifo(tmp_path / "pipe.png")
    status, _, err = _cli(tmp_path, "--layout", "test", "--games", "1", *flags, timeout=30)
    assert status == 2 and err.strip().splitlines() == [f"pacman-ai: {message}"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_read_results_refuses_a_fifo_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(BatchError, match="is a FIFO"):
        read_results(tmp_path / "pipe")


@pytest.mark.parametrize("argv, message", [
    (["--games", str(MAX_GAMES + 1)], "a batch plays at most 1,000,000,000 games"),
    (["--games", "600000000", "--ghosts", "random,directional"],
     "--games 600,000,000 x 2 configurations: a batch plays at most"),
    (["--jobs", "100000"], "--jobs 100,000: at most"),
    (["--seed", "1" + "0" * 30], "--seed must be an integer from 0 to 18446744073709551615"),
    (["--move-time-limit", "1e300"], "--move-time-limit 1e+300: at most 86400 s"),
    (["--agent-args", "depth=" + ",".join(map(str, range(1, 41))) + ",time_limit=" + ",".join(map(str, range(1, 31)))],
     ": 1,200 configurations; a sweep has at most 1,000"),
    (["--layout", "test,small", "--agent-args", "depth=" + ",".join(map(str, range(1, 30))),
      "--ghosts", "random,directional", "--num-ghosts", "0,1,2,3,4,5,6,7,8"],
     "the sweep --layout 2 x --agent-args 29 x --ghosts 2 x --num-ghosts 9: 1,044 configurations"),
    (["--layout", "test,,small"], "--layout 'test,,small': empty item in the comma list"),
    (["--out", "same.json", "--summary", "same.json"], "--out and --summary name the same file"),
    (["--out", "."], "--out .: is a folder, expected a file"),
    (["--out="], "--out '': not a file name"),
    (["--summary="], "--summary '': not a file name"),
    (["--agent-args", "depth=1,,2"], "--agent-args 'depth=1,,2': empty item in the comma list"),
    (["--dask", "not an address"], "--dask not an address: not a scheduler address"),
    (["--pacman", "__main__:Mine"], "--pacman __main__:Mine: the worker processes do not run your script"),
])
def test_bad_batch_flags_are_one_line_errors(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    status = main(["batch", "--layout", "test", "--games", "1", "--quiet", *argv])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and message in err, err
    assert "Traceback" not in err and os.listdir(tmp_path) == []


def test_configuration_limit_is_what_the_sweep_module_enforces():
    from pacman.batch.sweep import parse_agent_args_sweep

    assert len(parse_agent_args_sweep("depth=" + ",".join(map(str, range(MAX_CONFIGURATIONS))))) == 1000
    with pytest.raises(BatchError, match="1,001 configurations"):
        parse_agent_args_sweep("depth=" + ",".join(map(str, range(MAX_CONFIGURATIONS + 1))))
