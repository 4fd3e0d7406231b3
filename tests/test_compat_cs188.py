"""The classic CS188 API (`pacman.cs188`): the state view's facts, the classic ghosts'
randomness, loading student files, and classic agents playing our games."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pacman.agents import make_ghosts
from pacman import AgentSpecError, GameState, TerminalStateError, parse_layout, run_game
from pacman.agent_specs import effective_agent_args, make_pacman_agent
from pacman.cs188 import (
    CLASSIC_DIR,
    ClassicAgent,
    ClassicState,
    DirectionalGhost,
    RandomGhost,
    classic_ghosts,
    is_classic_agent,
    is_classic_file,
    load_classic_module,
)
from pacman.cs188.classic_util import Counter, sample

STUDENT = Path(__file__).resolve().parent / "classic_agents" / "multiAgents.py"

# Pacman (3, 2) has all four moves; the ghost (5, 2) only West.
CROSS = parse_layout("%%%%%%%\n%%%.%%%\n%%.P.G%\n%%%.%%%\n%%%%%%%\n", name="cross")
# A corridor without food next to Pacman, and no ghost.
CORRIDOR = parse_layout("%%%%%%%%%\n%.  P  .%\n%%%%%%%%%\n", name="corridor")


@pytest.fixture(autouse=True)
def _fresh_explored():
    ClassicState.getAndResetExplored()
    yield
    ClassicState.getAndResetExplored()


def start(layout=CROSS) -> ClassicState:
    return ClassicState(GameState.initial(layout))


def play(state: ClassicState, *moves: tuple[int, str]) -> ClassicState:
    for agent, action in moves:
        state = state.generateSuccessor(agent, action)
    return state


# -- the state view ------------------------------------------------------------------


def test_legal_actions_come_in_the_classic_order_west_stop_east_north_south():
    state = start()
    assert state.getLegalActions(0) == ["West", "Stop", "East", "North", "South"]
    assert state.getLegalPacmanActions() == ["West", "Stop", "East", "North", "South"]
    assert state.getLegalActions(1) == ["West"]  # a ghost never has Stop
    corner = play(start(), (0, "North"))
    assert corner.getLegalActions(0) == ["Stop", "South"]


def test_legal_actions_are_a_fresh_list_a_student_may_change():
    state = start()
    state.getLegalActions(0).remove("Stop")
    assert state.getLegalActions(0) == ["West", "Stop", "East", "North", "South"]


def test_a_finished_game_has_no_legal_actions_and_no_successor():
    lost = play(start(), (0, "East"), (1, "West"))  # the ghost steps onto Pacman
    assert lost.isLose() and not lost.isWin()
    assert lost.getLegalActions(0) == [] and lost.getLegalActions(1) == []
    with pytest.raises(TerminalStateError):
        lost.generateSuccessor(0, "Stop")


def test_score_is_a_float():
    state = play(start(), (0, "West"))
    assert state.getScore() == 9.0 and isinstance(state.getScore(), float)


def test_identity_is_score_food_capsules_and_each_agents_position_direction_and_timer():
    corridor = start(CORRIDOR)
    west_east_west = play(corridor, (0, "West"), (0, "East"), (0, "West"))
    east_west_west = play(corridor, (0, "East"), (0, "West"), (0, "West"))
    west_stop_stop = play(corridor, (0, "West"), (0, "Stop"), (0, "Stop"))  # Stop keeps facing West
    west_west_east = play(corridor, (0, "West"), (0, "West"), (0, "East"))  # same cell and score, facing East
    assert west_east_west.getPacmanPosition() == west_west_east.getPacmanPosition() == (3, 1)
    assert west_east_west == east_west_west == west_stop_stop
    assert len({west_east_west, east_west_west, west_stop_stop}) == 1
    assert west_west_east != west_east_west
    assert west_west_east.getScore() == west_east_west.getScore() == -3.0
    assert west_stop_stop.getPacmanState().getDirection() == "West"
    assert corridor.getPacmanState().getDirection() == "Stop"  # every agent starts facing Stop


def test_a_ghost_faces_stop_at_first_and_then_its_last_move():
    state = start()
    assert state.getGhostState(1).getDirection() == "Stop"
    moved = play(state, (0, "Stop"), (1, "West"))
    assert moved.getGhostState(1).getDirection() == "West" and moved.getGhostPosition(1) == (4, 2)
    assert moved != play(state, (0, "Stop"))


def test_every_generate_successor_adds_its_state_and_the_result_to_the_explored_set():
    state = start()
    west = state.generateSuccessor(0, "West")
    again = state.generateSuccessor(0, "West")
    assert again == west and again is not west
    assert len(ClassicState.explored) == 2
    state.generateSuccessor(0, "Stop")
    west.generateSuccessor(1, "West")
    explored = ClassicState.getAndResetExplored()
    assert len(explored) == 4 and state in explored and west in explored
    assert ClassicState.getAndResetExplored() == set()


def test_the_view_answers_the_classic_questions():
    state = play(start(), (0, "West"))
    assert state.getNumAgents() == 2 and state.getNumFood() == 3
    assert state.getPacmanPosition() == (2, 2)
    assert state.getGhostPositions() == [(5, 2)] and state.getGhostPosition(1) == (5, 2)
    assert [g.scaredTimer for g in state.getGhostStates()] == [0]
    food = state.getFood()
    assert food.asList() == [(3, 1), (3, 3), (4, 2)] and food[4][2] and not food[2][2] and food.count() == 3
    assert state.getWalls()[0][0] and not state.getWalls()[3][2] and state.getWalls().width == 7
    assert state.hasFood(4, 2) and not state.hasFood(2, 2) and state.hasWall(0, 0) and not state.hasWall(2, 2)
    assert state.getCapsules() == [] and state.deepCopy() == state
    assert "Score: 9" in str(state)
    with pytest.raises(Exception, match="Pacman's index"):
        state.getGhostPosition(0)


def test_capsules_are_listed_bottom_row_first():
    layout = parse_layout("%%%%%\n%o.o%\n%P%.%\n%o..%\n%%%%%\n")
    assert start(layout).getCapsules() == [(1, 1), (1, 3), (3, 3)]


# -- the classic ghosts ---------------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_a_classic_ghost_draws_one_random_number_and_walks_its_actions_sorted_by_name(seed):
    # The ghost at (3, 2) may go West, East, North, South: sorted, East, North, South, West.
    state = play(start(parse_layout("%%%%%\n%%.%%\n%.G.%\n%%.%%\n%%P%%\n%%%%%\n")), (0, "Stop"))
    assert state.getLegalActions(1) == ["West", "East", "North", "South"]
    random.seed(seed)
    draw, after = random.random(), random.random()
    expected = ["East", "North", "South", "West"][min(3, int(draw / 0.25 - 1e-12))]
    random.seed(seed)
    assert RandomGhost(1).getAction(state) == expected
    assert random.random() == after  # exactly one draw per move


def test_the_directional_distribution_uses_the_classic_floating_point_operations():
    state = play(start(parse_layout("%%%%%\n%%.%%\n%.G.%\n%%.%%\n%%P%%\n%%%%%\n")), (0, "Stop"))
    distribution = DirectionalGhost(1).getDistribution(state)
    legal = ["West", "East", "North", "South"]  # South brings it closest to Pacman
    expected = {action: 0.0 for action in legal}
    expected["South"] = 0.8 / 1
    for action in legal:
        expected[action] += (1 - 0.8) / 4
    total = float(sum(expected[a] for a in ["South", "West", "East", "North"]))
    assert distribution == {a: expected[a] / total for a in expected}
    assert list(distribution) == ["South", "West", "East", "North"]  # best first, then the legal order


def test_sample_takes_the_first_value_whose_cumulative_probability_reaches_the_draw(monkeypatch):
    monkeypatch.setattr(random, "random", lambda: 0.5)
    assert sample([0.25, 0.25, 0.5], ["a", "b", "c"]) == "b"  # 0.25 + 0.25 reaches 0.5
    assert sample(Counter({"z": 0.5, "a": 0.5})) == "a"  # sorted by key
    assert sample([1.0, 1.0], ["x", "y"]) == "x"  # normalised first


# -- loading student files ------------------------------------------------------------


def test_a_student_file_loads_with_the_classic_imports_and_leaves_the_import_path_as_it_was():
    path_before = list(sys.path)
    module = load_classic_module(STUDENT)
    assert sys.path == path_before and CLASSIC_DIR not in sys.path
    assert "util" not in sys.modules and "game" not in sys.modules
    assert module.manhattanDistance((0, 0), (2, 3)) == 5
    # "from pacman import GameState" gives the course's GameState (our classic view), for that import only.
    assert module.Directions.STOP == "Stop" and module.GameState is ClassicState
    assert sys.modules["pacman"].GameState is GameState
    assert is_classic_agent(module.MinimaxAgent) and not is_classic_agent(module.better)


def test_a_users_own_util_module_is_not_shadowed_after_loading_a_classic_file(tmp_path):
    (tmp_path / "util.py").write_text("MARK = 'mine'\n")
    code = textwrap.dedent(f"""
        import util as before
        from pacman.cs188 import load_classic_module
        module = load_classic_module({str(STUDENT)!r})
        import util
        print(before.MARK, util.MARK, util is before, hasattr(module.util, 'Counter'))
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["mine", "mine", "True", "True"]


def test_a_file_that_fails_at_import_is_an_agent_spec_error_naming_it(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import util\nfrom game import NoSuchThing\n")
    with pytest.raises(AgentSpecError, match=r"broken\.py: importing it raised ImportError"):
        load_classic_module(broken)
    assert "util" not in sys.modules


# -- classic agents playing -----------------------------------------------------------


@pytest.mark.parametrize("name, args", [
    ("ReflexAgent", {}),
    ("MinimaxAgent", {"depth": 2}),
    ("AlphaBetaAgent", {"depth": 2, "evalFn": "better"}),
    ("ExpectimaxAgent", {"depth": 2, "evalFn": "better"}),
])
def test_classic_agents_play_shipped_layouts_and_seeded_games_replay(name, args):
    spec = f"{STUDENT}:{name}"
    games = [run_game("small", make_pacman_agent(spec, args), make_ghosts("directional", 2), seed=5, max_moves=60)
             for _ in range(2)]
    assert not games[0].crashed and games[0].moves > 0, games[0].error
    assert games[0].actions == games[1].actions and games[0].score == games[1].score


def test_a_classic_agent_is_built_the_classic_way():
    agent = make_pacman_agent(f"{STUDENT}:ExpectimaxAgent", {"depth": 3, "evalFn": "better"})
    assert isinstance(agent, ClassicAgent)
    student = agent.agent
    assert student.index == 0 and student.depth == 3
    assert student.evaluationFunction.__name__ == "betterEvaluationFunction"  # util.lookup in the student's module
    assert effective_agent_args(f"{STUDENT}:ExpectimaxAgent", {"depth": 3}) == {"evalFn": "scoreEvaluationFunction",
                                                                              "depth": "3"}
    with pytest.raises(AgentSpecError, match="takes no argument 'evaluation'"):
        make_pacman_agent(f"{STUDENT}:ExpectimaxAgent", {"evaluation": "better"})
    with pytest.raises(AgentSpecError, match="has no 'Nobody'"):
        make_pacman_agent(f"{STUDENT}:Nobody")


def test_a_classic_agents_random_is_seeded_from_the_games_seed():
    spec = f"{STUDENT}:ReflexAgent"
    first = run_game("medium", make_pacman_agent(spec), make_ghosts("random", 2), seed=11, max_moves=40)
    random.seed(12345)  # the global state before the game does not matter
    second = run_game("medium", make_pacman_agent(spec), make_ghosts("random", 2), seed=11, max_moves=40)
    assert first.actions == second.actions


def test_classic_ghosts_play_in_our_games_and_replay_with_the_seed():
    spec = f"{STUDENT}:AlphaBetaAgent"
    games = [run_game("small", make_pacman_agent(spec, {"depth": 1}), classic_ghosts("directional", 2), seed=2,
                      max_moves=50) for _ in range(2)]
    assert not games[0].crashed and games[0].actions == games[1].actions


def test_raise_not_defined_in_get_action_crashes_the_game_saying_what_is_not_implemented(tmp_path):
    unfinished = tmp_path / "unfinished.py"
    unfinished.write_text("import util\nfrom game import Agent\n\n"
                          "class Lazy(Agent):\n    def getAction(self, gameState):\n        util.raiseNotDefined()\n")
    result = run_game("small", make_pacman_agent(f"{unfinished}:Lazy"), seed=0)
    assert result.crashed and "not implemented: getAction" in result.error


def test_a_project_agent_file_is_not_taken_for_a_classic_one(tmp_path):
    ours = tmp_path / "ours.py"
    ours.write_text("from pacman import Action\n\nclass Still:\n    def get_action(self, state):\n"
                    "        return Action.STOP\n")
    agent = make_pacman_agent(f"{ours}:Still")
    assert not isinstance(agent, ClassicAgent)
    (tmp_path / "util.py").write_text("STEP = 'Stop'\n")  # the user's own util, beside their agent
    mine = tmp_path / "mine.py"
    mine.write_text("import util\nfrom pacman import Action\n\nclass Mine:\n    def get_action(self, state):\n"
                    "        return Action(util.STEP)\n")
    assert is_classic_file(ours, "Still") is False and is_classic_file(mine, "Mine") is False
    assert is_classic_file(STUDENT, "MinimaxAgent") is True and is_classic_file(STUDENT, "Nobody") is True


def test_the_agents_registry_alone_refuses_a_classic_class_saying_where_to_build_it(tmp_path):
    from pacman.agents.registry import build_agent

    plain = tmp_path / "plain.py"
    plain.write_text("class Still:\n    def getAction(self, gameState):\n        return 'Stop'\n")
    with pytest.raises(AgentSpecError, match="classic CS188 agent .getAction.: build it with pacman.agent_specs"):
        build_agent(f"{plain}:Still")
    assert isinstance(make_pacman_agent(f"{plain}:Still"), ClassicAgent)


# -- the command line -----------------------------------------------------------------


def _pacman_ai(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pacman", *argv], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def test_play_a_classic_student_file_from_the_command_line_and_replay_its_seeded_game(tmp_path):
    student = tmp_path / "multiAgents.py"
    student.write_text(STUDENT.read_text())
    (tmp_path / "util.py").write_text("raise ImportError('the course folder util.py must not be imported')\n")
    argv = ("play", "--pacman", "multiAgents.py:ExpectimaxAgent", "--agent-args", "depth=2", "--layout", "small",
            "--display", "none", "--seed", "4", "--max-moves", "40", "--json")
    runs = [_pacman_ai(*argv, cwd=tmp_path) for _ in range(2)]
    assert runs[0].returncode == 0, runs[0].stderr
    games = [json.loads(run.stdout.splitlines()[0]) for run in runs]
    assert games[0]["outcome"] in ("won", "lost", "cut-off") and games[0]["moves"] > 0
    assert games[0]["agent_args"] == {"evalFn": "scoreEvaluationFunction", "depth": "2"}
    assert games[0] == {**games[1], "ms_per_move_mean": games[0]["ms_per_move_mean"],
                        "ms_per_move_max": games[0]["ms_per_move_max"]}


def test_batch_runs_classic_student_agents_on_shipped_layouts(tmp_path):
    out = tmp_path / "games.jsonl"
    result = _pacman_ai("batch", "--pacman", f"{STUDENT}:ExpectimaxAgent,{STUDENT}:AlphaBetaAgent",
                        "--agent-args", "depth=1,evalFn=better", "--layout", "small,medium", "--games", "2",
                        "--max-moves", "30", "--jobs", "2", "--out", str(out), "--quiet", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    games = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(games) == 8 and not any(game["crashed"] for game in games)
