"""Replay files: a saved game replays exactly, and bad files are refused cleanly."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pacman.agents import ExpectimaxAgent, make_ghosts
from pacman import GameState, load_layout, run_game
from pacman.cli import main
from pacman import Action
from pacman.replay import READ_VERSIONS, VERSION, MoveSearch, ReplayError, SearchLog, load_replay, save_replay


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
    # the same line as play's, with the same reason for a cut-off game (pacman.limits.move_limit_reason)
    assert played["outcome"] == "cut-off" and played["error"] == "cut off after 40 Pacman moves, the move limit"
    assert capsys.readouterr().out == (f"{played['outcome']}: score {played['score']} after {played['moves']} moves "
                                       f"(seed 3) - {played['error']}\n")
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


# -- the search recorded per move (version 2), and version-1 files ------------------------------

OLD_REPLAY = Path(__file__).parent / "replays" / "v1_small.json"
"""A version-1 replay written by `pacman-ai play --save` before replays recorded the search."""


@pytest.fixture
def searched(tmp_path):
    layout = load_layout("small")
    agent = ExpectimaxAgent(depth=1)
    log = SearchLog(agent)
    result = run_game(layout, agent, make_ghosts("random", 2), seed=7, max_moves=50, display=log)
    path = tmp_path / "searched.json"
    save_replay(path, layout, result, {"pacman": "expectimax", "agent_args": {"depth": 1}, "ghosts": "random"},
                search=log.moves)
    return result, log, path


def test_the_search_of_every_move_is_saved_and_read_back(searched):
    result, log, path = searched
    data = json.loads(path.read_text())
    assert data["version"] == VERSION == 2 and len(data["search"]) == result.moves == 50
    replay = load_replay(path)
    pacman_moves = result.actions[::3]
    assert len(replay.search) == len(pacman_moves)
    for entry, kept, action in zip(replay.search, log.moves, pacman_moves):
        assert entry.action is action is kept.action
        assert entry.values.keys() == kept.values.keys() and action in entry.values
        assert all(abs(entry.values[a] - kept.values[a]) <= 5e-5 for a in entry.values)
        # expectimax moves to a best action, ties broken by the action order
        assert entry.values[action] == max(entry.values.values())
        assert entry.depth == 1 and entry.nodes > 0 and entry.milliseconds >= 0
    replay.final_state()  # the game replays to its recorded outcome


def test_a_version_1_file_still_loads_and_replays():
    data = json.loads(OLD_REPLAY.read_text())
    assert data["version"] == 1 and "search" not in data
    replay = load_replay(OLD_REPLAY)
    assert replay.search == () and 1 in READ_VERSIONS
    assert replay.final_state().score == data["result"]["score"] == 830


def test_a_file_in_the_old_schema_made_now_loads(tmp_path):
    layout = load_layout("small")
    result = run_game(layout, ExpectimaxAgent(depth=1), make_ghosts("random", 2), seed=2, max_moves=30)
    old = {"format": "pacman-ai replay", "version": 1, "layout": {"name": layout.name, "text": layout.text},
           "num_ghosts": 2, "seed": 2, "agents": {"pacman": "expectimax", "agent_args": {}, "ghosts": "random"},
           "actions": [a.value for a in result.actions], "result": result.to_dict()}
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    replay = load_replay(path)
    assert replay.search == () and replay.final_state().score == result.score


def test_an_agent_without_a_search_saves_no_search(tmp_path):
    from pacman.agents import GreedyAgent

    layout = load_layout("small")
    agent = GreedyAgent()
    log = SearchLog(agent)
    result = run_game(layout, agent, make_ghosts("random", 2), seed=1, max_moves=10, display=log)
    path = tmp_path / "greedy.json"
    save_replay(path, layout, result, {"pacman": "greedy"}, search=log.moves)
    assert log.moves == [None] * result.moves
    assert "search" not in json.loads(path.read_text()) and load_replay(path).search == ()


def test_infinite_values_are_kept_as_words():
    entry = MoveSearch(action=Action.EAST, values={Action.EAST: float("inf"), Action.WEST: float("-inf"),
                                                   Action.STOP: 1.23456789}, depth=2.0, nodes=5, milliseconds=1.0)
    assert entry.to_json() == {"action": "East", "values": {"East": "inf", "West": "-inf", "Stop": 1.2346},
                               "depth": 2, "nodes": 5, "ms": 1.0}


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d["search"].pop(), "\"search\" has 49 entries for 50 Pacman moves"),
        (lambda d: d.update(search={}), "\"search\" must be a list"),
        (lambda d: d["search"].__setitem__(3, 7), "search[3] is int, expected an object or null"),
        (lambda d: d["search"][0].update(action="Up"), "search[0]['action'] is 'Up'"),
        (lambda d: d["search"][0]["values"].update(Up=1), "search[0]['values'] has 'Up'"),
        (lambda d: d["search"][0]["values"].update(North="high"), "search[0]['values']['North'] is 'high'"),
        (lambda d: d["search"][0].update(nodes=-1), "search[0]['nodes'] is -1"),
        (lambda d: d["search"][0].update(ms=True), "search[0]['ms'] is True"),
        (lambda d: d.update(version=1), "\"search\" needs version 2"),
        (lambda d: d["search"][0].update(score=1), "search[0] has the unknown key 'score'"),
        (lambda d: d["search"][0].update(cached="yes"), "search[0]['cached'] is 'yes', expected true or false"),
    ],
)
def test_a_bad_search_is_refused_naming_the_file(searched, tmp_path, change, message):
    _, _, path = searched
    data = json.loads(path.read_text())
    change(data)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(ReplayError) as info:
        load_replay(bad)
    assert str(bad) in str(info.value) and message in str(info.value)


def test_a_search_that_chose_another_move_is_refused(searched, tmp_path):
    _, _, path = searched
    data = json.loads(path.read_text())
    made = data["search"][0]["action"]
    data["search"][0]["action"] = next(a for a in ("North", "South", "East", "West", "Stop") if a != made)
    bad = tmp_path / "other.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(ReplayError, match=f"search\\[0\\] chose .* but Pacman's move 0 was {made}"):
        load_replay(bad)


#: A ring of eight cells without food, a ghost across it: Pacman meets the same positions again and again, so
#: the agent's decision cache answers many of his moves (tests/test_auto_depth.py plays it too).
RING = "%%%%%\n%P  %\n% % %\n%  G%\n%%%%%\n"


def test_a_remembered_move_is_saved_as_cached_and_read_back_as_a_user_saves_it(tmp_path):
    (tmp_path / "ring.lay").write_text(RING)
    done = subprocess.run([sys.executable, "-m", "pacman", "play", "--layout", "ring.lay", "--seed", "4",
                           "--max-moves", "60", "--agent-args", "depth=None,node_limit=3000", "--display", "none",
                           "--save", "g.json"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    entries = json.loads((tmp_path / "g.json").read_text())["search"]
    remembered = [e for e in entries if e.get("cached")]
    searched = [e for e in entries if "cached" not in e]
    assert remembered and searched and len(remembered) + len(searched) == len(entries) == 60
    assert all(e["cached"] is True and e["nodes"] == 0 for e in remembered)
    assert all(e["nodes"] > 0 for e in searched)
    replay = load_replay(tmp_path / "g.json")
    assert [m.cached for m in replay.search] == [bool(e.get("cached")) for e in entries]
    assert [m.to_json() for m in replay.search] == entries  # read back, written again: the same entries


def test_a_replay_writer_finds_the_temporary_folder_before_its_game_starts(tmp_path, monkeypatch):
    """The first use of the temporary folder writes a probe file and removes it; a stop signal between the two
    left the file behind. The writer makes that first use when it is built, before a game can be stopped."""
    import tempfile

    from pacman.replay import ReplayWriter

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    ReplayWriter()
    assert tempfile.tempdir == str(tmp_path)
    assert list(tmp_path.iterdir()) == []
