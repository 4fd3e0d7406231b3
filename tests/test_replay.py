"""Replay files: a saved game replays exactly, and bad files are refused cleanly."""

import json

import pytest

from agents import ExpectimaxAgent, make_ghosts
from pacman import GameState, load_layout, run_game
from pacman.cli import main
from pacman.replay import ReplayError, load_replay, save_replay


@pytest.fixture
def recorded(tmp_path):
    layout = load_layout("small")
    result = run_game(layout, ExpectimaxAgent(depth=1), make_ghosts("directional", 2), seed=4, max_moves=120)
    path = tmp_path / "game.json"
    save_replay(path, layout, result, {"pacman": "expectimax", "agent_args": {"depth": 1}, "ghosts": "directional"})
    return layout, result, path


def test_a_replay_equals_the_original_game_step_by_step(recorded):
    layout, result, path = recorded
    replay = load_replay(path)
    original = GameState.initial(layout, num_ghosts=2)
    steps = list(replay.states())
    assert len(steps) == len(result.actions) + 1
    for turn, (state, agent, action) in enumerate(steps[1:]):
        original = original.successor(turn % 3, result.actions[turn])
        assert (agent, action) == (turn % 3, result.actions[turn])
        assert state.score == original.score and state.pacman_position == original.pacman_position
        assert state.ghost_positions == original.ghost_positions and state.food == original.food
    final = replay.final_state()
    assert final.score == result.score and final.is_win() == result.won
    assert replay.agents["agent_args"] == {"depth": 1} and replay.seed == 4


def test_a_tampered_replay_is_refused(recorded, tmp_path):
    _, result, path = recorded
    data = json.loads(path.read_text())
    data["result"]["score"] += 1
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps(data))
    with pytest.raises(ReplayError, match="but the file records score"):
        load_replay(wrong).final_state()
    data = json.loads(path.read_text())
    data["actions"][1] = "Stop"  # ghost 1's first move: ghosts may never stop
    bad_move = tmp_path / "bad_move.json"
    bad_move.write_text(json.dumps(data))
    with pytest.raises(ReplayError, match="replay diverges at action"):
        load_replay(bad_move).final_state()


@pytest.mark.parametrize(
    "content, message",
    [
        ("{", "invalid JSON at line 1"),
        ("[]", "not a pacman-ai replay file"),
        ('{"format": "pacman-ai replay", "version": 99}', "version 99 is not supported"),
        ('{"format": "pacman-ai replay", "version": 1}', "malformed replay"),
    ],
)
def test_bad_replay_files_name_the_file(tmp_path, content, message):
    path = tmp_path / "r.json"
    path.write_text(content)
    with pytest.raises(ReplayError) as info:
        load_replay(path)
    assert str(path) in str(info.value) and message in str(info.value)


def test_cli_save_then_replay_reports_the_same_result(tmp_path, capsys):
    saved = tmp_path / "g.json"
    assert main(["play", "--layout", "small", "--seed", "3", "--max-moves", "40", "--save", str(saved), "--json"]) == 0
    played = json.loads(capsys.readouterr().out)
    assert main(["replay", str(saved), "--display", "none", "--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    for key in ("score", "won", "lost", "moves", "cut_off", "seed", "layout"):
        assert replayed[key] == played[key]


def test_cli_replay_without_json_prints_one_result_line(tmp_path, capsys):
    saved = tmp_path / "g.json"
    assert main(["play", "--layout", "small", "--seed", "3", "--max-moves", "40", "--save", str(saved), "--json"]) == 0
    played = json.loads(capsys.readouterr().out)
    assert main(["replay", str(saved), "--display", "none"]) == 0
    assert capsys.readouterr().out == (f"{played['outcome']}: score {played['score']} after {played['moves']} moves "
                                       f"(seed 3)\n")
    assert main(["replay", str(saved), "--display", "text"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert sum(f"score {played['score']} after" in line for line in lines) == 1  # the view's own line, not twice


def test_cli_save_to_a_missing_folder_fails_before_playing(tmp_path, capsys):
    status = main(["play", "--max-moves", "5", "--save", str(tmp_path / "no" / "g.json"), "--display", "none"])
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and "--save" in err and "does not exist" in err
    assert not (tmp_path / "no").exists()


def test_cli_save_numbers_several_games(tmp_path, capsys):
    assert main(["play", "--layout", "tiny", "--games", "2", "--seed", "0", "--max-moves", "10",
                 "--save", str(tmp_path / "g.json"), "--display", "none"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g-0.json", "g-1.json"]
