"""Configurations with no difference compared as a user does: both sides played and stored under their names.

Two sides that are the same game setup (the same flags, or flags equal once the
agent's defaults are filled in) play the same game on every seed: every pair
ties, McNemar's p is 1, and the trinomial SPRT of ``win-rate:0,0.1`` accepts H0
at pair 28, the first n with ``n * log(1 - 0.1) <= log(0.05 / 0.95)``.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pacman.batch import BatchError, GameConfig, deterministic_part, read_results, run_batch
from pacman.compare import compare

ENV = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
#: `a` states the default evaluation, `b` leaves it out: the same configuration once defaults are filled in.
SAME = ["--layout", "small", "--agent-args", "depth=1", "--config", "a:--agent-args evaluation=dots",
        "--config", "b:"]
#: The pairs after which `win-rate:0,0.1` accepts H0 when every pair ties, and the LLR there.
H0_PAIRS = 28
H0_LLR = 28 * math.log(0.9)


def _compare(folder: Path, *argv: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pacman", "compare", *argv], cwd=folder, env=ENV,
                          capture_output=True, text=True, timeout=timeout)


def _without(record: dict, *names: str) -> dict:
    return {k: v for k, v in deterministic_part(record).items() if k not in names}


def test_identical_sides_are_both_played_and_the_sprt_accepts_h0(tmp_path):
    done = _compare(tmp_path, *SAME, "--sprt", "win-rate:0,0.1", "--games", "200", "--jobs", "2",
                    "--out", "same.jsonl", "--summary", "same.json", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data == json.loads((tmp_path / "same.json").read_text())  # --summary holds what --json prints
    assert [c["name"] for c in data["configurations"]] == ["a", "b"]
    assert data["configurations"][0]["agent_args"] == data["configurations"][1]["agent_args"]
    sprt = data["sprt"]
    assert (sprt["verdict"], sprt["pairs"], sprt["games"]) == ("H0", H0_PAIRS, 2 * H0_PAIRS)
    assert sprt["llr"] == pytest.approx(H0_LLR, rel=1e-12) and sprt["llr"] <= sprt["lower_bound"]
    paired = data["paired"]
    assert data["pairs"] == paired["pairs"] == H0_PAIRS
    assert paired["mcnemar_p"] == 1.0 and paired["win_difference"] == 0.0
    assert paired["wins"]["only_a"] == paired["wins"]["only_b"] == 0
    assert paired["wins"]["both"] + paired["wins"]["neither"] == H0_PAIRS
    assert (paired["b_better"], paired["a_better"], paired["equal"]) == (0, 0, H0_PAIRS)
    assert paired["score_difference"] == 0.0 and paired["score_interval_t"] == [0.0, 0.0]
    assert paired["wilcoxon"] is None
    assert data["win_probabilities"] == {"a": {"b": 0.5}, "b": {"a": 0.5}}
    # Both sides are in the file, each game under its side's name, and they are the same games.
    lines = read_results(tmp_path / "same.jsonl")
    by_name = {name: {r["index"]: r for r in lines if r["name"] == name} for name in ("a", "b")}
    assert set(by_name["a"]) >= set(range(H0_PAIRS)) and set(by_name["b"]) >= set(range(H0_PAIRS))
    assert len(lines) == len(by_name["a"]) + len(by_name["b"])
    for index in range(H0_PAIRS):
        assert _without(by_name["a"][index], "name") == _without(by_name["b"][index], "name")


def test_identical_sides_resume_and_a_renamed_side_is_refused(tmp_path):
    first = _compare(tmp_path, *SAME, "--games", "6", "--jobs", "2", "--out", "c.jsonl", "--json")
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["played"] == 12
    assert first.stderr.splitlines()[-1].startswith("compare: 12/12 games, won ")  # the progress, named for it
    resumed = _compare(tmp_path, *SAME, "--games", "10", "--jobs", "2", "--out", "c.jsonl", "--resume", "--quiet",
                       "--json")
    assert resumed.returncode == 0, resumed.stderr
    data = json.loads(resumed.stdout)
    assert (data["played"], data["pairs"], data["paired"]["mcnemar_p"], data["paired"]["equal"]) == (8, 10, 1.0, 10)
    assert sorted((r["name"], r["index"]) for r in read_results(tmp_path / "c.jsonl")) == \
        sorted((name, i) for name in "ab" for i in range(10))
    before = (tmp_path / "c.jsonl").read_bytes()
    renamed = _compare(tmp_path, "--layout", "small", "--agent-args", "depth=1", "--config", "a:", "--config", "c:",
                       "--games", "10", "--out", "c.jsonl", "--resume", "--quiet")
    assert renamed.returncode == 2 and renamed.stdout == ""
    assert renamed.stderr.startswith("pacman-ai: c.jsonl: line ") and len(renamed.stderr.splitlines()) == 1
    assert "was played with another configuration: configuration name 'b' in the file, none of the command's " \
           "('a', 'c')" in renamed.stderr
    other = _compare(tmp_path, "--layout", "small", "--agent-args", "depth=1", "--config", "a:",
                     "--config", "b:--agent-args depth=2", "--games", "10", "--out", "c.jsonl", "--resume", "--quiet")
    assert other.returncode == 2 and "--agent-args depth=1 in the file, depth=2 in the command" in other.stderr
    assert (tmp_path / "c.jsonl").read_bytes() == before


def test_the_python_api_compares_a_configuration_with_itself_as_a_script(tmp_path):
    script = tmp_path / "same.py"
    script.write_text(
        "from pacman.batch import GameConfig, read_results\n"
        "from pacman.compare import compare\n"
        "config = GameConfig.create('small', 'expectimax', {'depth': 1})\n"
        "result = compare({'a': config, 'b': config}, games=100, jobs=2, sprt='win-rate:0,0.1', out='same.jsonl')\n"
        "print(result.sprt.verdict, result.sprt.pairs, result.sprt.llr)\n"
        "print(result.pairs, result.win_difference, result.mcnemar_p, result.equal, result.wilcoxon)\n"
        "print(sorted({line['name'] for line in read_results('same.jsonl')}))\n",
        encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=ENV, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    first, second, third = done.stdout.splitlines()
    verdict, pairs, llr = first.split()
    assert (verdict, int(pairs)) == ("H0", H0_PAIRS) and float(llr) == pytest.approx(H0_LLR, rel=1e-12)
    assert second.split() == [str(H0_PAIRS), "0.0", "1.0", str(H0_PAIRS), "None"]
    assert third == "['a', 'b']"


#: A random walker that sleeps 0.1 s in every game: Ctrl-C always lands mid-run (see test_compare).
PACED = str(Path(__file__).with_name("batch_agents.py")) + ":SleepyAgent"


def test_identical_sides_survive_ctrl_c_and_resume_to_all_tied_pairs(tmp_path):
    argv = [sys.executable, "-m", "pacman", "compare", "--layout", "small", "--pacman", PACED, "--max-moves", "40",
            "--agent-args", "sleep_below=1.0,seconds=0.1", "--config", "one:", "--config", "two:", "--games", "24",
            "--jobs", "2", "--out", "c.jsonl", "--summary", "c.json"]
    process = subprocess.Popen(argv, cwd=tmp_path, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    out = tmp_path / "c.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if out.exists() and out.read_text().count("\n") >= 4:
            break
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    partial = read_results(out)
    assert 4 <= len(partial) < 48
    assert not (tmp_path / "c.json").exists()  # no summary of an interrupted run
    resumed = subprocess.run([*argv, "--resume", "--json", "--quiet"], cwd=tmp_path, env=ENV, capture_output=True,
                             text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    data = json.loads(resumed.stdout)
    assert data == json.loads((tmp_path / "c.json").read_text())
    assert data["pairs"] == 24 and data["played"] == 48 - len(partial)
    assert data["paired"]["equal"] == 24 and data["paired"]["mcnemar_p"] == 1.0
    assert sorted((r["name"], r["index"]) for r in read_results(out)) == \
        sorted((name, i) for name in ("one", "two") for i in range(24))


SMALL = GameConfig.create("small", "expectimax", {"depth": 1})


def test_a_batch_line_carries_a_name_only_when_its_configuration_has_one(tmp_path):
    plain = run_batch(SMALL, games=2, jobs=1, out=tmp_path / "plain.jsonl")
    assert all("name" not in line for line in read_results(tmp_path / "plain.jsonl"))
    assert "name" not in plain.summary()["configurations"][0]
    # An unnamed batch's file resumes as it always did: the name is in the key only when set.
    again = run_batch(SMALL, games=3, jobs=1, out=tmp_path / "plain.jsonl", resume=True)
    assert again.played == 1 and len(again.records) == 3
    named = run_batch([GameConfig.create("small", "expectimax", {"depth": 1}, name="x"),
                       GameConfig.create("small", "expectimax", {"depth": 1, "evaluation": "dots"}, name="y")],
                      games=2, jobs=1)
    assert [line["name"] for line in named.records] == ["x", "x", "y", "y"]
    assert [_without(r, "name") for r in named.records_of(0)] == [_without(r, "name") for r in named.records_of(1)]
    assert [c["name"] for c in named.summary()["configurations"]] == ["x", "y"]
    with pytest.raises(BatchError, match="the same configuration is listed twice"):
        run_batch([GameConfig.create("small", name="x"), GameConfig.create("small", name="x")], games=1)
    with pytest.raises(BatchError, match="line 1 \\(game 0\\) was played with another configuration: "
                                         "configuration name none in the file, none of the command's \\('a', 'b'\\)"):
        compare({"a": SMALL, "b": SMALL}, games=3, out=tmp_path / "plain.jsonl", resume=True)


def _strict(text: str) -> dict:
    """JSON as a strict parser reads it: NaN and Infinity are not JSON."""
    def refuse(constant: str) -> None:
        raise ValueError(f"{constant} is not JSON")
    return json.loads(text, parse_constant=refuse)


def test_identical_sides_on_the_score_sprt_accept_h0_at_its_first_pairs_with_a_finite_llr(tmp_path):
    # Every difference is exactly 0 = H0: the normal model's spread about H0 is its floor, 1e-12 * 20^2,
    # so the LLR after n pairs is n/2 * log(1e-12), and the test stops at its first allowed pair (10).
    done = _compare(tmp_path, *SAME, "--sprt", "score:0,20", "--games", "100", "--jobs", "2", "--quiet", "--json",
                    "--summary", "s.json")
    assert done.returncode == 0, done.stderr
    data = _strict(done.stdout)
    assert _strict((tmp_path / "s.json").read_text()) == data
    assert (data["sprt"]["verdict"], data["sprt"]["pairs"]) == ("H0", 10)
    assert data["sprt"]["llr"] == pytest.approx(5 * math.log(1e-12), rel=1e-9)
    assert data["paired"]["score_difference"] == 0.0 and data["paired"]["mcnemar_p"] == 1.0
