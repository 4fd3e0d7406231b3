"""`pacman.compare` and `pacman-ai compare` on real games: pairing, SPRT verdicts, resume, refusal, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pacman.batch import BatchError, GameConfig, deterministic_part, read_results, run_batch
from pacman.cli import main
from pacman.compare import CompareError, SprtError, compare, mcnemar_exact

#: depth-1 expectimax on `small`: `score` wins a few games, `better` nearly all (fast with the compiled core).
WEAK = GameConfig.create("small", "expectimax", {"depth": 1, "evaluation": "score"})
STRONG = GameConfig.create("small", "expectimax", {"depth": 1, "evaluation": "better"})
SIDES = ["--layout", "small", "--agent-args", "depth=1", "--config", "score:--agent-args evaluation=score",
         "--config", "better:--agent-args evaluation=better"]


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_compare_pairs_the_batch_games_seed_by_seed_and_its_statistics_follow_from_them():
    result = compare({"score": WEAK, "better": STRONG}, games=16, seed=3, jobs=2)
    batch = run_batch([WEAK, STRONG], games=16, seed=3, jobs=1)
    assert result.pairs == 16 and result.names == ["score", "better"]
    # A comparison's lines are the batch's, each with its side's name.
    assert [deterministic_part(r) for r in result.records["score"]] == \
        [{**deterministic_part(r), "name": "score"} for r in batch.records_of(0)]
    assert [deterministic_part(r) for r in result.records["better"]] == \
        [{**deterministic_part(r), "name": "better"} for r in batch.records_of(1)]
    a, b = batch.records_of(0), batch.records_of(1)
    only_b = sum(rb["won"] and not ra["won"] for ra, rb in zip(a, b))
    only_a = sum(ra["won"] and not rb["won"] for ra, rb in zip(a, b))
    assert (result.wins.only_a, result.wins.only_b) == (only_a, only_b)
    assert result.win_difference == (only_b - only_a) / 16
    assert result.mcnemar_p == mcnemar_exact(only_a, only_b) < 0.01
    differences = [rb["score"] - ra["score"] for ra, rb in zip(a, b)]
    assert result.score_difference == pytest.approx(sum(differences) / 16)
    assert (result.b_better, result.a_better, result.equal) == (
        sum(d > 0 for d in differences), sum(d < 0 for d in differences), sum(d == 0 for d in differences))
    assert result.win_rate_b > result.win_rate_a
    ranking = result.ranking()
    assert [row["name"] for row in ranking] == ["better", "score"] and ranking[0]["rating"] > 0
    assert result.win_probabilities()[1, 0] == pytest.approx((result.b_better + 0.5 * result.equal) / 16)


def test_sprt_stops_on_a_known_difference_with_h1_before_the_fixed_size_test_and_independently_of_jobs():
    one = compare([("score", WEAK), ("better", STRONG)], games=400, seed=0, sprt="win-rate:0,0.1", jobs=1)
    two = compare([("score", WEAK), ("better", STRONG)], games=400, seed=0, sprt="win-rate:0,0.1", jobs=2)
    assert one.sprt.verdict == two.sprt.verdict == "H1"
    assert one.sprt.pairs == two.sprt.pairs == one.pairs < one.sprt.fixed_pairs
    assert one.sprt.llr >= one.sprt.hypotheses.upper and one.sprt.llr == two.sprt.llr
    assert len(one.sprt.path) == one.sprt.pairs
    assert one.played < 2 * 400


def test_sprt_accepts_h0_for_configurations_that_play_the_same_games():
    # The two engines play the same moves: every pair is a tie, and the trinomial says H0 after
    # ceil(log(beta / (1 - alpha)) / log(1 - h1)) = 28 pairs.
    same = [("python", GameConfig.create("small", "expectimax", {"depth": 1, "engine": "python"})),
            ("compiled", GameConfig.create("small", "expectimax", {"depth": 1, "engine": "auto"}))]
    result = compare(same, games=200, sprt="win-rate:0,0.1", jobs=2)
    assert (result.sprt.verdict, result.sprt.pairs) == ("H0", 28)
    assert result.win_difference == 0 and result.mcnemar_p == 1.0 and result.wilcoxon is None
    assert result.equal == 28 and result.score_difference == 0


def test_resume_plays_only_the_missing_games_and_gives_the_result_of_one_run(tmp_path):
    out = tmp_path / "c.jsonl"
    first = compare({"score": WEAK, "better": STRONG}, games=6, seed=5, jobs=2, out=out)
    assert first.played == 12 and len(read_results(out)) == 12
    with pytest.raises(BatchError, match="file exists; --resume continues it"):
        compare({"score": WEAK, "better": STRONG}, games=10, seed=5, jobs=2, out=out)
    resumed = compare({"score": WEAK, "better": STRONG}, games=10, seed=5, jobs=2, out=out, resume=True)
    whole = compare({"score": WEAK, "better": STRONG}, games=10, seed=5, jobs=1)
    assert resumed.played == 8 and resumed.pairs == 10
    for name in ("score", "better"):
        assert [deterministic_part(r) for r in resumed.records[name]] == \
            [deterministic_part(r) for r in whole.records[name]]
    assert resumed.paired == whole.paired


def test_a_file_of_other_configurations_or_another_seed_is_refused_and_left_alone(tmp_path):
    out = tmp_path / "c.jsonl"
    compare({"score": WEAK, "better": STRONG}, games=4, seed=5, jobs=1, out=out)
    before = out.read_bytes()
    deeper = GameConfig.create("small", "expectimax", {"depth": 2, "evaluation": "better"})
    with pytest.raises(BatchError, match=r"line \d \(game 0\) was played with another configuration: "
                                         r"configuration name 'better' in the file, none of the command's "
                                         r"\('score', 'deeper'\); give the same flags"):
        compare({"score": WEAK, "deeper": deeper}, games=4, seed=5, out=out, resume=True)
    with pytest.raises(BatchError, match=r"line \d \(game 0\) was played with another configuration: "
                                         r"--agent-args depth=1 in the file, depth=2 in the command; give"):
        compare({"score": WEAK, "better": deeper}, games=4, seed=5, out=out, resume=True)
    with pytest.raises(BatchError, match="played with another configuration: --seed 5 in the file, 6"):
        compare({"score": WEAK, "better": STRONG}, games=4, seed=6, out=out, resume=True)
    assert out.read_bytes() == before


def test_a_decided_sprt_resumes_to_the_same_verdict_without_playing(tmp_path):
    out = tmp_path / "s.jsonl"
    first = compare({"score": WEAK, "better": STRONG}, games=300, sprt="win-rate:0,0.1", jobs=2, out=out)
    again = compare({"score": WEAK, "better": STRONG}, games=300, sprt="win-rate:0,0.1", jobs=2, out=out,
                    resume=True)
    assert again.played == 0 and (again.sprt.verdict, again.sprt.pairs) == (first.sprt.verdict, first.sprt.pairs)
    assert again.paired == first.paired


def test_three_configurations_are_ranked_with_pairwise_probabilities():
    deeper = GameConfig.create("small", "expectimax", {"depth": 2, "evaluation": "better"})
    result = compare({"score": WEAK, "better": STRONG, "deeper": deeper}, games=12, jobs=2)
    names = [row["name"] for row in result.ranking()]
    assert names[-1] == "score"
    data = result.to_dict()
    assert data["win_probabilities"]["score"]["better"] == pytest.approx(
        1 - data["win_probabilities"]["better"]["score"])
    assert "paired" not in data and result.pair("score", "deeper").pairs == 12
    with pytest.raises(KeyError, match="no configuration named 'nope'"):
        result.pair("score", "nope")


def test_bad_api_input_is_refused_before_any_game():
    with pytest.raises(CompareError, match="at least two configurations"):
        compare({"only": WEAK}, games=4)
    with pytest.raises(CompareError, match="exactly two configurations"):
        compare([WEAK, STRONG, GameConfig.create("small", "greedy")], games=4, sprt="win-rate:0,0.1")
    with pytest.raises(SprtError, match="H1 must be greater than H0"):
        compare([WEAK, STRONG], games=4, sprt="score:5,0")
    with pytest.raises(CompareError, match="the name 'a' is given to two configurations"):
        compare([("a", WEAK), ("a", STRONG)], games=4)
    with pytest.raises(BatchError, match=r"a configuration's name must be a printable, non-blank string .* "
                                         r"got 'a\\nb'"):
        compare({"a\nb": WEAK, "b": STRONG}, games=4)


def test_command_line_prints_the_paired_table_and_json(capsys, tmp_path):
    status, stdout, err = run(capsys, "compare", *SIDES, "--games", "10", "--jobs", "2", "--quiet")
    assert status == 0 and err == ""
    assert "A = score: small expectimax depth=1 evaluation=score random x2" in stdout
    assert "paired over 10 seeds, B - A:" in stdout and "McNemar exact p = " in stdout
    assert "Wilcoxon signed-rank p = " in stdout
    status, stdout, err = run(capsys, "compare", *SIDES, "--games", "10", "--jobs", "2", "--quiet", "--json")
    data = json.loads(stdout)
    assert data["pairs"] == 10 and data["paired"]["a"] == "score" and data["paired"]["b"] == "better"
    assert [c["agent_args"]["evaluation"] for c in data["configurations"]] == ["score", "better"]
    assert data["sprt"] is None


def test_command_line_sprt_prints_the_llr_and_the_verdict(capsys):
    status, stdout, err = run(capsys, "compare", *SIDES, "--sprt", "win-rate:0,0.1", "--jobs", "2")
    assert status == 0
    assert "sprt: " in err and "LLR " in err and err.strip().splitlines()[-1].endswith("H1 accepted")
    assert "SPRT win-rate:0,0.1 (alpha 0.05, beta 0.05)" in stdout
    assert "H1 accepted: better's win rate is 10 points above score's or more" in stdout
    assert "a fixed-size test of the same alpha and power needs" in stdout


@pytest.mark.parametrize("argv, message", [
    (["--config", "a:"], "give at least two configurations"),
    (["--config", "a", "--config", "b:"], "expected NAME:FLAGS"),
    (["--config", "a:--depth 3", "--config", "b:"], "'--depth' is not one of its flags"),
    (["--config", "a:--layout small,medium", "--config", "b:"], "one value per configuration"),
    (["--config", "a:--agent-args", "--config", "b:"], "--agent-args needs a value"),
    (["--config", "a:--layout 'small", "--config", "b:"], "cannot split its flags"),
    (["--config", "a\tb:", "--config", "b:"], "--config 'a\\tb:': a name is printable and at most 100"),
    (["--config", "a" * 101 + ":", "--config", "b:"], "a name is printable and at most 100 characters"),
    (["--config", "a:", "--config", "b:", "--alpha", "0.1"], "they need --sprt"),
    (["--config", "a:", "--config", "b:", "--sprt", "wins:0,1"], "expected one of win-rate, score"),
    (["--config", "a:", "--config", "b:", "--config", "c:--agent-args depth=1", "--sprt", "score:0,1"],
     "exactly two configurations"),
    (["--config", "a:--layout nowhere", "--config", "b:"], "nowhere"),
    (["--config", "a:", "--config", "b:", "--resume"], "--resume needs --out"),
    (["--config", "a:", "--config", "b:", "--force"], "--force needs --out FILE.jsonl"),
    (["--config", "a:", "--config", "b:", "--dask", ""], "--dask needs a scheduler address"),
    (["--config", "a:", "--config", "b:", "--dask", "  "], "--dask needs a scheduler address"),
    (["--config", "a:", "--config", "b:", "--plot", "x.txt"], "expected a .png, .svg or .pdf"),
    (["--config", "a:", "--config", "b:", "--out", "c.jsonl", "--summary", "./c.jsonl"],
     "--out and --summary name the same file ./c.jsonl"),
    (["--config", "a:", "--config", "b:", "--summary", "no/such/folder/s.json"], "--summary no/such/folder/s.json"),
])
def test_command_line_errors_are_one_line_with_status_2(capsys, argv, message):
    status, stdout, err = run(capsys, "compare", "--layout", "small", *argv)
    assert status == 2 and stdout == ""
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_plots_are_written_for_two_and_for_three_configurations(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    two, three = tmp_path / "two.png", tmp_path / "three.svg"
    assert run(capsys, "compare", *SIDES, "--games", "12", "--sprt", "win-rate:0,0.1", "--jobs", "2", "--quiet",
               "--plot", str(two))[0] == 0
    assert two.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert run(capsys, "compare", *SIDES, "--config", "d2:--agent-args depth=2", "--games", "6", "--jobs", "2",
               "--quiet", "--plot", str(three))[0] == 0
    assert b"<svg" in three.read_bytes()[:500] and b"Bradley-Terry" in three.read_bytes()


#: A random walker that sleeps 0.1 s in every game: Ctrl-C always lands mid-run (see test_batch_cli).
PACED = str(Path(__file__).with_name("batch_agents.py")) + ":SleepyAgent"


def _compare_process(out, *extra):
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    return subprocess.Popen([sys.executable, "-m", "pacman", "compare", "--layout", "small", "--pacman", PACED,
                             "--max-moves", "40", "--config", "fast:--agent-args sleep_below=1.0,seconds=0.1",
                             "--config", "slow:--agent-args sleep_below=1.0,seconds=0.11", "--games", "30",
                             "--jobs", "2", "--out", str(out), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def test_ctrl_c_keeps_finished_games_exits_130_and_resume_completes_the_comparison(tmp_path):
    out = tmp_path / "c.jsonl"
    process = _compare_process(out)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if out.exists() and out.read_text().count("\n") >= 4:
            break
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "interrupted: " in stdout and "add --resume to finish" in stderr
    partial = read_results(out)
    assert 4 <= len(partial) < 60 and out.read_text().endswith("\n")
    resumed = _compare_process(out, "--resume", "--json", "--quiet")
    stdout, stderr = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, stderr
    data = json.loads(stdout)
    assert data["pairs"] == 30 and data["played"] == 60 - len(partial)
    assert sorted((r["agent_args"]["seconds"], r["index"]) for r in read_results(out)) == \
        sorted((s, i) for s in (0.1, 0.11) for i in range(30))


def test_sprt_on_mean_score_accepts_h1_for_a_known_difference(capsys):
    status, stdout, _ = run(capsys, "compare", *SIDES, "--sprt", "score:0,200", "--jobs", "2", "--quiet", "--json")
    data = json.loads(stdout)
    assert status == 0 and data["sprt"]["verdict"] == "H1" and data["sprt"]["metric"] == "score"
    assert data["sprt"]["pairs"] == data["pairs"] < data["sprt"]["fixed_pairs"]
    assert data["sprt"]["llr"] >= data["sprt"]["upper_bound"]


@pytest.mark.slow
def test_dask_local_gives_the_same_comparison_as_the_process_pool(capsys, tmp_path):
    pytest.importorskip("distributed")
    on_dask, on_pool = tmp_path / "dask.jsonl", tmp_path / "pool.jsonl"
    assert run(capsys, "compare", *SIDES, "--games", "8", "--dask", "local", "--jobs", "2", "--quiet",
               "--out", str(on_dask))[0] == 0
    assert run(capsys, "compare", *SIDES, "--games", "8", "--jobs", "2", "--quiet", "--out", str(on_pool))[0] == 0
    key = lambda r: (r["agent_args"]["evaluation"], r["index"])  # noqa: E731
    assert sorted(map(deterministic_part, read_results(on_dask)), key=key) == \
        sorted(map(deterministic_part, read_results(on_pool)), key=key)
