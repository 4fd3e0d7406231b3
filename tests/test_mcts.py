"""MCTS with chance nodes: budgets, reproducibility by seed, sensible choices, the registry and the command line."""

import json
import subprocess
import sys

import pytest

from pacman import Action, GameState, load_layout, run_game
from pacman.agents import make_ghosts
from pacman.agent_specs import make_pacman_agent
from pacman.agents.mcts import DEFAULT_ITERATIONS, MCTSAgent
from pacman.errors import AgentSpecError


def test_an_iteration_budget_is_spent_exactly_and_the_most_visited_move_is_played():
    state = GameState.initial(load_layout("small"))
    agent = MCTSAgent(iterations=120, seed=5)
    action = agent.get_action(state)
    info = agent.last_search
    visits = info.extra["visits"]
    assert info.nodes == 120 and sum(visits.values()) == 120
    assert set(visits) == set(state.legal_actions(0)) and action in state.legal_actions(0)
    assert visits[action] == max(visits.values())
    assert MCTSAgent().iterations == DEFAULT_ITERATIONS


def test_the_same_seed_gives_the_same_moves():
    state = GameState.initial(load_layout("medium"))

    def decisions(seed):
        agent = MCTSAgent(iterations=60, seed=seed)
        s, moves = state, []
        for _ in range(6):
            moves.append(agent.get_action(s))
            s = s.successor(0, moves[-1])
            for ghost in (1, 2):
                s = s.successor(ghost, s.legal_actions(ghost)[0])
        return moves, agent.last_search.extra["visits"]

    assert decisions(11) == decisions(11)


def test_a_game_replays_from_its_seed():
    layout = load_layout("small")

    def game(seed):
        result = run_game(layout, MCTSAgent(iterations=30), make_ghosts("random", 2), seed=seed, max_moves=40)
        return result.actions, result.score

    first = game(3)
    assert first == game(3) and len(first[0]) > 0


def test_it_takes_the_winning_bite():
    # One food left beside Pacman: eating it wins at once (+500).
    state = GameState.initial(load_layout("coinflip"))
    for _ in range(2):  # Pacman East, ghost East, twice: Pacman at x=3, the food at x=4
        state = state.successor(0, Action.EAST).successor(1, Action.EAST)
    assert state.successor(0, Action.EAST).is_win()
    for seed in range(5):
        assert MCTSAgent(iterations=50, seed=seed).get_action(state) is Action.EAST


def test_a_time_budget_stops_the_search():
    agent = MCTSAgent(time_limit=0.05, seed=1)
    agent.get_action(GameState.initial(load_layout("medium")))
    assert agent.last_search.nodes >= 1 and agent.iterations is None


@pytest.mark.parametrize("args, message", [
    ({"iterations": 0}, "iterations"), ({"time_limit": -1}, "time_limit"), ({"rollout_depth": -2}, "rollout_depth"),
    ({"exploration": -1.0}, "exploration"), ({"ghost_model": "smart"}, "ghost_model"), ({"seed": -3}, "seed"),
])
def test_bad_arguments_are_named(args, message):
    with pytest.raises(AgentSpecError, match=message):
        make_pacman_agent("mcts", args)


def test_registered_by_name_with_the_evaluation_resolved():
    agent = make_pacman_agent("mcts", {"iterations": 10, "evaluation": "score"})
    assert isinstance(agent, MCTSAgent) and agent.evaluation_name == "score"
    assert agent.evaluation(GameState.initial(load_layout("test"))) == 0


def test_play_with_mcts_is_reproducible_from_the_command_line(tmp_path):
    command = [sys.executable, "-m", "pacman", "play", "--layout", "test", "--pacman", "mcts", "--agent-args",
               "iterations=40", "--seed", "7", "--games", "2", "--json"]
    runs = []
    for _ in range(2):
        done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        runs.append([{k: v for k, v in json.loads(line).items() if not k.startswith("ms_")}
                     for line in done.stdout.splitlines()])
    assert runs[0] == runs[1] and len(runs[0]) == 2
    done = subprocess.run([sys.executable, "-m", "pacman", "play", "--pacman", "mcts", "--agent-args",
                           "iterations=0"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "iterations" in done.stderr and "Traceback" not in done.stderr


def test_a_saved_game_keeps_what_mcts_found_and_replays(tmp_path):
    command = [sys.executable, "-m", "pacman", "play", "--layout", "small", "--pacman", "mcts", "--agent-args",
               "iterations=3", "--max-moves", "4", "--display", "none", "--seed", "2", "--save", "g.json"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    search = json.loads((tmp_path / "g.json").read_text())["search"]
    assert len(search) == 4 and all(s["nodes"] == 3 and s["depth"] >= 1 for s in search)
    assert all(len(s["values"]) <= 3 for s in search)  # three iterations try at most three moves
    replay = subprocess.run([sys.executable, "-m", "pacman", "replay", "g.json", "--display", "none", "--json"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert replay.returncode == 0, replay.stderr
    assert json.loads(replay.stdout)["moves"] == 4


def test_the_documented_time_budget_with_the_score_evaluation(tmp_path):
    done = subprocess.run([sys.executable, "-m", "pacman", "play", "--pacman", "mcts", "--agent-args",
                           "time_limit=0.02,evaluation=score", "--max-moves", "3", "--display", "none", "--json"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    game = json.loads(done.stdout.splitlines()[0])
    assert game["moves"] == 3 and game["agent_args"]["time_limit"] == 0.02
    assert game["agent_args"]["evaluation"] == "score" and game["agent_args"]["iterations"] is None


def test_an_iteration_budget_memory_cannot_hold_is_refused_before_any_game(tmp_path, monkeypatch):
    # each iteration keeps a node of the tree until the move is made: 10**11 of them would run until killed
    from pacman.memory import LIMIT_VARIABLE, MCTS_ITERATION_BYTES, MemoryRefusal

    monkeypatch.setenv(LIMIT_VARIABLE, "1M")
    fits = 2**20 // MCTS_ITERATION_BYTES
    assert MCTSAgent(iterations=fits).iterations == fits
    with pytest.raises(MemoryRefusal, match=rf"MCTSAgent\(iterations={fits + 1:,}\) needs about .* {LIMIT_VARIABLE}"):
        MCTSAgent(iterations=fits + 1)
    monkeypatch.delenv(LIMIT_VARIABLE)
    for command in (["play", "--display", "none", "--seed", "1"], ["batch", "--games", "2", "--jobs", "1"]):
        proc = subprocess.run([sys.executable, "-m", "pacman", *command, "--layout", "small", "--pacman", "mcts",
                               "--agent-args", "iterations=100000000000"], cwd=tmp_path, capture_output=True,
                              text=True, timeout=120)
        assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr, proc.stderr
        assert "iterations=100,000,000,000" in proc.stderr and "TB" in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []
