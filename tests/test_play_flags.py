"""play and replay on users' own inputs: flags, output paths and replay files refused up front, in one line."""

import json
import os
import subprocess
import sys

import pytest

from pacman.replay import MAX_REPLAY_BYTES

from pacman.cli import main

BIG = "\n".join(["%" * 60] + ["%P" + "." * 57 + "%"] + ["%" + "." * 58 + "%"] * 57 + ["%" * 60]) + "\n"


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def refused(capsys, *argv, names=()):
    status, out, err = run(capsys, *argv)
    assert status == 2, (status, out, err)
    assert out == "" and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    for name in names:
        assert name in err, (name, err)
    return err


QUICK = ("play", "--layout", "tiny", "--pacman", "random", "--seed", "1", "--max-moves", "3")


@pytest.mark.parametrize("flag, value", [
    ("--zoom", "100"), ("--zoom", "0"), ("--zoom", "0.01"), ("--zoom", "nan"), ("--zoom", "inf"), ("--zoom", "-1"),
    ("--fps", "1e-300"), ("--fps", "1e300"), ("--fps", "0"), ("--fps", "nan"), ("--fps", "inf"), ("--fps", "x"),
    ("--games", str(10**12)), ("--games", "10001"), ("--games", "0"),
    ("--move-time-limit", "1e300"), ("--move-time-limit", "0"), ("--move-time-limit", "nan"),
    ("--move-time-limit", "86401"),
])
@pytest.mark.parametrize("display", ["pygame", "none"])
def test_out_of_range_flags_are_refused_before_anything_runs(capsys, tmp_path, flag, value, display):
    target = tmp_path / "g.gif"
    refused(capsys, *QUICK, "--display", display, "--record", str(target), flag, value, names=(flag, repr(value)))
    assert not target.exists() and os.listdir(tmp_path) == []


def test_replay_flags_are_bounded_too(capsys, tmp_path):
    refused(capsys, "replay", str(tmp_path / "g.json"), "--fps", "1e300", names=("--fps",))
    refused(capsys, "replay", str(tmp_path / "g.json"), "--zoom", "9", names=("--zoom",))


def test_a_zoom_that_makes_frames_too_large_for_the_layout_is_refused(capsys, tmp_path):
    layout = tmp_path / "big.lay"
    layout.write_text(BIG)
    target = tmp_path / "big.gif"
    for display in ("none", "pygame"):
        err = refused(capsys, "play", "--layout", str(layout), "--pacman", "random", "--max-moves", "2",
                      "--display", display, "--record", str(target), "--zoom", "8",
                      names=("--zoom 8", "8,388,608 pixels", "big"))
        assert "use a smaller --zoom" in err
    assert not target.exists()
    # The same layout at a zoom that fits is recorded (the frame limit is about pixels, not the layout).
    status, _, err = run(capsys, "play", "--layout", str(layout), "--pacman", "random", "--max-moves", "1",
                         "--display", "none", "--record", str(target), "--zoom", "0.1", "--seed", "1")
    assert status == 0 and target.stat().st_size > 0, err


def test_the_documented_zoom_range_is_accepted(capsys, tmp_path):
    for zoom in ("0.1", "8"):
        status, _, err = run(capsys, "play", "--layout", "test", "--pacman", "random", "--max-moves", "1",
                             "--display", "none", "--record", str(tmp_path / f"z{zoom}.gif"), "--zoom", zoom)
        assert status == 0, err


def test_huge_max_moves_and_tiny_time_limit_work_in_proportion(capsys):
    status, out, _ = run(capsys, "play", "--layout", "tiny", "--pacman", "random", "--seed", "1", "--display",
                         "none", "--max-moves", str(10**30), "--json")
    assert status == 0 and json.loads(out)["moves"] >= 1
    status, out, _ = run(capsys, "play", "--layout", "tiny", "--seed", "1", "--display", "none",
                         "--move-time-limit", "1e-9", "--json")
    game = json.loads(out)
    assert status == 4 and game["timed_out"] and game["moves"] == 0  # the agent cannot think in a nanosecond


@pytest.mark.parametrize("flag", ["--save", "--record"])
def test_bad_output_paths_are_refused_before_playing(capsys, tmp_path, flag):
    (tmp_path / "folder.json").mkdir()
    (tmp_path / "folder.gif").mkdir()
    os.mkfifo(tmp_path / "pipe.json")
    os.mkfifo(tmp_path / "pipe.gif")
    suffix = ".json" if flag == "--save" else ".gif"
    before = sorted(os.listdir(tmp_path))
    for target, expected in [
        (tmp_path / f"folder{suffix}", "is a folder"),
        (tmp_path / f"pipe{suffix}", "not a regular file"),
        (tmp_path / "missing" / f"g{suffix}", "does not exist"),
    ]:
        refused(capsys, *QUICK, "--display", "none", flag, str(target), names=(flag, str(target), expected))
    refused(capsys, *QUICK, "--display", "none", flag, "", names=(flag, "empty"))
    assert sorted(os.listdir(tmp_path)) == before


def test_save_and_record_to_the_same_file_is_refused(capsys, tmp_path):
    target = str(tmp_path / "g.gif")
    refused(capsys, *QUICK, "--display", "none", "--save", target, "--record", target,
            names=("--save", "--record", "the same file"))
    assert os.listdir(tmp_path) == []


def test_two_outputs_naming_one_file_through_a_link_or_another_spelling_are_refused(capsys, tmp_path):
    # the same check as batch's and compare's (pacman.files.same_file): before, play compared spellings only
    (tmp_path / "out").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "out")
    (tmp_path / "out" / "g.json").write_text("kept")
    for first, second in ((tmp_path / "out" / "g.json", tmp_path / "link" / "g.json"),
                          (tmp_path / "out" / "new.json", tmp_path / "link" / "new.json"),
                          (tmp_path / "out" / "g.json", tmp_path / "out" / ".." / "out" / "g.json")):
        refused(capsys, *QUICK, "--display", "none", "--save", str(first), "--html", str(second),
                names=("--save", "--html", "the same file"))
    assert sorted(os.listdir(tmp_path / "out")) == ["g.json"] and (tmp_path / "out" / "g.json").read_text() == "kept"


def test_record_refuses_unknown_suffixes_and_a_file_where_png_frames_go(capsys, tmp_path):
    refused(capsys, *QUICK, "--display", "none", "--record", str(tmp_path / "g.avi"), names=("--record", ".avi"))
    (tmp_path / "frames").write_text("not a folder")
    refused(capsys, *QUICK, "--display", "none", "--record", str(tmp_path / "frames"),
            names=("--record", "not a folder"))
    os.mkfifo(tmp_path / "pipe")
    refused(capsys, *QUICK, "--display", "none", "--record", str(tmp_path / "pipe"), names=("--record", "pipe"))


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write any file")
def test_an_existing_read_only_file_is_refused(capsys, tmp_path):
    target = tmp_path / "g.json"
    target.write_text("keep me")
    target.chmod(0o444)
    refused(capsys, *QUICK, "--display", "none", "--save", str(target), names=("--save", "not writable"))
    assert target.read_text() == "keep me"


def test_save_and_record_to_a_bare_file_name_in_the_current_folder(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "pacman", *QUICK, "--display", "none", "--save", "g.json",
                           "--record", "g.gif"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert sorted(os.listdir(tmp_path)) == ["g.gif", "g.json"]


def test_json_with_the_pygame_display_keeps_stdout_pure_json(tmp_path):
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    proc = subprocess.run([sys.executable, "-m", "pacman", *QUICK, "--display", "pygame", "--fps", "1000", "--json"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["moves"] == 3


# -- the effective agent arguments ------------------------------------------------------------------


def test_json_and_replay_files_record_the_effective_agent_arguments(capsys, tmp_path):
    saved = tmp_path / "g.json"
    status, out, _ = run(capsys, "play", "--layout", "tiny", "--seed", "2", "--max-moves", "3", "--display", "none",
                         "--json", "--save", str(saved))
    args = json.loads(out)["agent_args"]
    assert status == 0 and args["depth"] == "auto" and args["evaluation"] == "dots" and args["ghost_model"] == "random"
    assert json.loads(saved.read_text())["agents"]["agent_args"] == args
    status, out, _ = run(capsys, "replay", str(saved), "--display", "none", "--json")
    assert status == 0 and json.loads(out)["agent_args"] == args
    status, out, _ = run(capsys, "play", "--layout", "tiny", "--seed", "2", "--max-moves", "3", "--display", "none",
                         "--json", "--agent-args", "depth=1,evaluation=score", "--ghosts", "directional")
    args = json.loads(out)["agent_args"]
    assert (args["depth"], args["evaluation"], args["ghost_model"]) == (1, "score", "directional")


def test_a_replay_written_before_with_empty_agent_args_still_loads(capsys, tmp_path):
    saved = tmp_path / "g.json"
    assert run(capsys, *QUICK, "--display", "none", "--save", str(saved))[0] == 0
    data = json.loads(saved.read_text())
    data["agents"] = {"pacman": "random", "agent_args": {}, "ghosts": "random"}  # as files were written before
    saved.write_text(json.dumps(data))
    status, out, err = run(capsys, "replay", str(saved), "--display", "none", "--json")
    assert status == 0 and json.loads(out)["agent_args"] == {}, err
    del data["agents"]
    saved.write_text(json.dumps(data))
    assert run(capsys, "replay", str(saved), "--display", "none")[0] == 0


# -- replay files ---------------------------------------------------------------------------------------


@pytest.fixture
def replay_data(capsys, tmp_path):
    saved = tmp_path / "good.json"
    assert run(capsys, *QUICK, "--display", "none", "--save", str(saved))[0] == 0
    return json.loads(saved.read_text())


def _tampered(data, key, value):
    copy = json.loads(json.dumps(data))
    if key.startswith("result."):
        copy["result"][key.split(".", 1)[1]] = value
    else:
        copy[key] = value
    return copy


@pytest.mark.parametrize("key, value, expected", [
    ("num_ghosts", True, "num_ghosts True"),
    ("num_ghosts", -1, "num_ghosts -1"),
    ("num_ghosts", "1", "num_ghosts '1'"),
    ("num_ghosts", 10**100, "does not fit"),
    ("seed", "x", "seed 'x'"),
    ("seed", 1.5, "seed 1.5"),
    ("seed", -3, "seed -3"),
    ("seed", None, "seed None"),
    ("layout", {"name": "x", "text": "%%%\n%P"}, "layout is invalid"),
    ("layout", {"name": "x", "text": 5}, "\"layout\" must be an object"),
    ("layout", {"name": 7, "text": "%%%\n%P%\n%%%"}, "\"name\" is 7"),
    ("layout", [1], "\"layout\" must be an object"),
    ("result", [1], "\"result\" is list"),
    ("result", None, "\"result\" is NoneType"),
    ("result", {"score": 1}, "result has no 'won'"),
    ("result.score", "7", "result['score'] is '7'"),
    ("result.won", 0, "result['won'] is 0"),
    ("result.error", 5, "result['error'] is 5"),
    ("result.moves", 999, "file records 999"),
    ("result.seed", 999, "differs from its result's seed 999"),
    ("result.score", 123456, "file records score 123456"),
    ("actions", "North", "\"actions\" must be a list"),
    ("actions", [1, 2], "action 0 is 1"),
    ("actions", ["North"] * 40, "replay diverges at action 0"),
    ("actions", ["Stop", "Stop"], "replay diverges at action 1"),  # a ghost may not stop
    ("agents", [1], "\"agents\" is list"),
    ("agents", {"pacman": [1]}, "agents['pacman'] is [1]"),
    ("agents", {"agent_args": "depth=2"}, "agents['agent_args'] is 'depth=2'"),
    ("version", True, "version True is not supported"),
])
def test_bad_replay_fields_are_one_line_errors_naming_the_file(capsys, tmp_path, replay_data, key, value, expected):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_tampered(replay_data, key, value)))
    for extra in ((), ("--json",)):
        err = refused(capsys, "replay", str(path), "--display", "none", *extra, names=(str(path), expected))
        assert len(err) < 400


def test_special_huge_binary_and_truncated_replay_files(capsys, tmp_path, replay_data):
    os.mkfifo(tmp_path / "pipe.json")
    (tmp_path / "folder.json").mkdir()
    huge = tmp_path / "huge.json"
    with open(huge, "wb") as out:
        out.truncate(MAX_REPLAY_BYTES + 1)  # sparse: large without writing it
    (tmp_path / "binary.json").write_bytes(bytes(range(256)) * 4)
    text = json.dumps(replay_data)
    (tmp_path / "cut.json").write_text(text[: len(text) // 2])
    (tmp_path / "empty.json").write_text("")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    cases = [("pipe.json", "FIFO"), ("folder.json", "directory"), ("huge.json", "too large"),
             ("binary.json", "not UTF-8"), ("cut.json", "invalid JSON"), ("empty.json", "invalid JSON"),
             ("deep.json", "nested too deeply"), ("missing.json", "No such file")]
    for name, expected in cases:
        refused(capsys, "replay", str(tmp_path / name), "--display", "none", names=(name, expected))
    refused(capsys, "replay", "/dev/zero", "--display", "none", names=("/dev/zero", "character device"))


# -- bench --part record ---------------------------------------------------------------------------------


def test_bench_record_reports_ms_per_frame_for_each_encoder(capsys):
    status, out, _ = run(capsys, "bench", "--part", "record", "--layout", "tiny", "--runs", "1", "--moves", "3",
                         "--json")
    record = json.loads(out)["record"]
    assert status == 0 and record["moves"] == 3
    assert record["frames"] == 1 + 3 * 2 + 16  # the start, two per round, a second of the end at 8 rounds/s
    assert set(record["ms_per_frame"]) == {"render", "pillow", "python"} == set(record["cpu_ms_per_frame"])
    assert all(value > 0 for value in record["ms_per_frame"].values())
    assert record["speedup_pillow_to_python"] == round(record["ms_per_frame"]["python"]
                                                       / record["ms_per_frame"]["pillow"], 1)
    assert record["gif_bytes"]["pillow"] > 0 and record["frame_size"][0] >= 240


def test_bench_record_prints_a_table(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "pacman", "bench", "--part", "record", "--layout", "tiny",
                           "--runs", "1", "--moves", "2"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "ms per frame" in proc.stdout and "Pillow" in proc.stdout and "ratio pure-Python / Pillow" in proc.stdout
