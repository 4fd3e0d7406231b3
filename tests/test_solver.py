"""The exact optimum of small mazes: hand-checked values, an independent horizon search, the size limit, the agent."""

import json
import subprocess
import sys
from fractions import Fraction

import pytest

from pacman import Action, GameState, load_layout, run_game
from pacman.agents import make_ghosts
from pacman.agent_specs import make_pacman_agent
from pacman.agents import solver as solver_module
from pacman.agents.ghosts import DirectionalGhost
from pacman.agents.solver import DEFAULT_MAX_NODES, OptimalAgent, SolverError, estimated_nodes, node_key, solve
from pacman.errors import AgentSpecError

SMALL = ["test", "coinflip", "threeway", "corridor", "pocket"]


# -- hand-checked optima -------------------------------------------------------------
#
# coinflip: %P G.     %  Pacman must walk two cells to the food; the ghost, with no last
# direction, goes West (onto Pacman's path: he is caught whatever he does) or East (it
# cannot turn back in time): 1/2. A directional ghost goes West with 0.8 + 0.2/2: 1/10.
# Score, East first: a win after 3 moves (-3 + 10 + 500 = 507) or a loss after 1 (-501): 3;
# Stop first: 506 or -502: 2.
#
# threeway: the ghost stands on a junction with three ways; only West catches Pacman: 2/3
# (directional: 2 * 0.2/3 = 2/15). Score East first: (2 * 507 - 501) / 3 = 171.


@pytest.mark.parametrize("layout, ghosts, expected", [
    ("coinflip", "random", Fraction(1, 2)),
    ("coinflip", "directional", Fraction(1, 10)),
    ("threeway", "random", Fraction(2, 3)),
    ("threeway", "directional", Fraction(2, 15)),
])
def test_win_probability_equals_the_hand_computed_value(layout, ghosts, expected):
    solution = solve(load_layout(layout), ghosts, "win")
    assert solution.value == pytest.approx(float(expected), abs=1e-12)
    assert solution.first_action in solution.best_actions


def test_expected_score_equals_the_hand_computed_value():
    coinflip = solve(load_layout("coinflip"), "random", "score")
    assert coinflip.value == pytest.approx(3.0, abs=1e-9)
    assert coinflip.action_values == pytest.approx({Action.EAST: 3.0, Action.STOP: 2.0}, abs=1e-9)
    assert coinflip.best_actions == (Action.EAST,) and coinflip.first_action is Action.EAST
    threeway = solve(load_layout("threeway"), "random", "score")
    assert threeway.value == pytest.approx(171.0, abs=1e-9)
    assert threeway.best_actions == (Action.EAST,)


def test_a_ghostless_maze_is_won_surely_at_the_cost_of_the_shortest_tour(tmp_path):
    maze = tmp_path / "line.lay"
    maze.write_text("%%%%%%\n%.P..%\n%%%%%%\n")
    win = solve(load_layout(str(maze)), "random", "win")
    assert win.value == 1.0
    score = solve(load_layout(str(maze)), "random", "score")
    # West (1 move), then East 3 moves: 4 moves, 3 food, the win.
    assert score.value == pytest.approx(-4 + 30 + 500, abs=1e-9)
    assert score.best_actions == (Action.WEST,)


# -- an independent computation: expectimax to a horizon ------------------------------


def horizon_values(layout, ghosts, objective, horizon, optimistic=False):
    """Plain memoised expectimax over `horizon` Pacman moves, written apart from the solver.

    Win: a game not won by the horizon counts 0, so the values rise to the optimum.
    Score: a game unfinished at the horizon counts -1000 (or +1000 if `optimistic`) more.
    """
    start = GameState.initial(load_layout(layout))
    n = start.num_agents
    models = [DirectionalGhost(i) for i in range(1, n)] if ghosts == "directional" else None
    memo = {}

    def value(state, agent, left):
        if state.is_terminal():
            if objective == "win":
                return 1.0 if state.is_win() else 0.0
            return 0.0
        if agent == 0 and left == 0:
            return 0.0 if objective == "win" else (1000.0 if optimistic else -1000.0)
        key = (state.position_key[:5], agent, left)
        if key in memo:
            return memo[key]
        following = (agent + 1) % n
        nleft = left - 1 if agent == 0 else left
        if agent == 0:
            result = max(step(state, child, following, nleft) for child in state.successors(0))
        else:
            if models is None:
                distribution = [(a, 1 / len(state.legal_actions(agent))) for a in state.legal_actions(agent)]
            else:
                distribution = models[agent - 1].distribution(state)
            result = sum(p * step(state, state.successor(agent, a), following, nleft) for a, p in distribution)
        memo[key] = result
        return result

    def step(state, child, following, left):
        gain = child.score - state.score if objective == "score" else 0.0
        return gain + value(child, following, left)

    return value(start, 0, horizon)


@pytest.mark.parametrize("layout", ["coinflip", "threeway", "corridor", "test", "pocket"])
@pytest.mark.parametrize("ghosts", ["random", "directional"])
def test_win_probability_is_the_limit_of_horizon_expectimax(layout, ghosts):
    optimum = solve(load_layout(layout), ghosts, "win").value
    previous = -1.0
    for horizon in (2, 5, 10, 25):
        bounded = horizon_values(layout, ghosts, "win", horizon)
        assert previous - 1e-12 <= bounded <= optimum + 1e-12  # rises, never above the optimum
        previous = bounded
    assert bounded == pytest.approx(optimum, abs=1e-9)


@pytest.mark.parametrize("layout", ["coinflip", "corridor", "test"])
def test_expected_score_lies_between_pessimistic_and_optimistic_horizon_values(layout):
    optimum = solve(load_layout(layout), "random", "score").value
    low = horizon_values(layout, "random", "score", 25)
    high = horizon_values(layout, "random", "score", 25, optimistic=True)
    assert low - 1e-9 <= optimum <= high + 1e-9
    assert high - low < 1e-6  # by 25 moves almost every optimal game has ended


# -- the size limit --------------------------------------------------------------------


def test_few_dots_bound_the_nodes_by_food_left_and_pacman_cell():
    # coinflip (`%P G.     %`): 9 cells; one ghost on a cell with the direction it entered by (2 x 8 corridor
    # ends) or none (its start): 17; one dot. The connected sets of Pacman's visited cells count 1,530, but
    # only 2 food sets times 9 Pacman cells can occur, times 17 ghosts, times 2 agents to move.
    assert estimated_nodes(load_layout("coinflip")) == 9 * 2 * 17 * 2
    # minimax: three ghosts and 4 dots, 17 cells, 36 directed edges plus 3 starts; no capsule.
    assert estimated_nodes(load_layout("minimax")) == 17 * 2 ** 4 * (36 + 3) ** 3 * 4


def test_the_bound_holds_on_every_small_maze():
    for name in SMALL:
        layout = load_layout(name)
        solution = solve(layout, "random", "win")
        assert solution.nodes <= estimated_nodes(layout) == solution.estimated_nodes


def test_large_mazes_are_refused_before_anything_is_explored(monkeypatch):
    def explode(*args, **kwargs):
        raise AssertionError("the state space was explored")

    monkeypatch.setattr(solver_module, "_Graph", explode)
    for name in ("medium", "small", "tricky", "minimax", "tiny"):
        with pytest.raises(SolverError, match=rf"'{name}' with \d ghosts? is too large.*limit"):
            solve(load_layout(name), "random", "win")
    with pytest.raises(SolverError, match="too large"):
        solve(load_layout("coinflip"), "random", "win", max_nodes=100)
    assert estimated_nodes(load_layout("large"), limit=DEFAULT_MAX_NODES) > DEFAULT_MAX_NODES


def test_a_maze_admitted_by_a_raised_limit_is_explored_only_so_far(monkeypatch):
    # The bound admits `tiny` only with max_nodes raised, and says so; exploring stops past MAX_EXPLORED.
    with pytest.raises(SolverError, match=r"'tiny' with 1 ghost is too large.*8,000,000 nodes possible \(the "
                                          r"limit\) \(max_nodes up to 100,000,000 lets it try"):
        solve(load_layout("tiny"), "random", "win")
    with pytest.raises(SolverError) as refused:
        solve(load_layout("medium"), "random", "win")
    assert "lets it try" not in str(refused.value)  # its bound is beyond the ceiling too
    with pytest.raises(SolverError, match="max_nodes must be an int from 1 to 100,000,000"):
        solve(load_layout("tiny"), "random", "win", max_nodes=solver_module.MAX_NODES_CEILING + 1)
    pocket = load_layout("pocket")  # 5,825 nodes reached
    monkeypatch.setattr(solver_module, "MAX_EXPLORED", 5_825)
    assert solve(pocket, "random", "win").nodes == 5_825
    monkeypatch.setattr(solver_module, "MAX_EXPLORED", 5_824)
    with pytest.raises(SolverError, match=r"'pocket' with 1 ghost is too large to solve exactly: it has more than "
                                          r"5,824 reachable nodes \(bound 1,078,790\), the most the solver explores"):
        solve(pocket, "random", "win")


def test_a_maze_no_policy_can_end_has_no_expected_score(tmp_path):
    maze = tmp_path / "walled.lay"
    maze.write_text("%%%%%\n%P%.%\n%%%%%\n")
    assert solve(load_layout(str(maze)), "random", "win").value == 0.0
    with pytest.raises(SolverError, match="unbounded below"):
        solve(load_layout(str(maze)), "random", "score")


def test_bad_arguments_are_named():
    layout = load_layout("coinflip")
    with pytest.raises(SolverError, match="objective 'money'"):
        solve(layout, "random", "money")
    with pytest.raises(SolverError, match="ghost model 'smart'"):
        solve(layout, "smart", "win")
    with pytest.raises(AgentSpecError, match="objective"):
        OptimalAgent(objective="fast")


# -- the optimal agent -------------------------------------------------------------------


def test_the_optimal_agent_wins_as_often_as_the_optimum_says():
    layout = load_layout("coinflip")
    wins = sum(run_game(layout, make_pacman_agent("optimal"), make_ghosts("random", 1), seed=s).won
               for s in range(400))
    assert 160 <= wins <= 240  # 1/2 of 400 within about 4 standard deviations


@pytest.mark.parametrize("name", ["test", "pocket"])
def test_the_optimal_policy_never_dawdles_when_a_win_is_sure(name):
    layout = load_layout(name)
    assert solve(layout, "random", "win").value == 1.0
    for seed in range(20):
        result = run_game(layout, OptimalAgent(), make_ghosts("random", layout.num_ghosts), seed=seed, max_moves=200)
        assert result.won, (seed, result)


def test_the_policy_plays_the_optimal_moves_everywhere():
    solution = solve(load_layout("corridor"), "random", "score")
    state = GameState.initial(load_layout("corridor"))
    assert solution.action(state) is solution.first_action
    assert node_key(state) in solution.policy and len(solution.policy) < solution.nodes


def test_the_optimal_agent_refuses_a_large_maze_and_unknown_ghosts():
    with pytest.raises(AgentSpecError, match="too large"):
        run_game(load_layout("medium"), OptimalAgent(), make_ghosts("random", 2), seed=0)
    odd = [DirectionalGhost(1, prob_attack=0.5)]
    with pytest.raises(AgentSpecError, match="ghost_model"):
        run_game(load_layout("coinflip"), OptimalAgent(), odd, seed=0)


# -- the command line, as a user runs it ----------------------------------------------


def cli(tmp_path, *args):
    return subprocess.run([sys.executable, "-m", "pacman", *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)


def test_solve_prints_the_optimum_and_the_first_moves(tmp_path):
    done = cli(tmp_path, "solve", "threeway")
    assert done.returncode == 0, done.stderr
    assert "optimal probability of winning 0.666666666667" in done.stdout
    assert "optimal first moves: East, Stop (the optimal policy plays East)" in done.stdout
    done = cli(tmp_path, "solve", "coinflip", "--objective", "score", "--ghosts", "directional", "--json")
    data = json.loads(done.stdout)
    assert data["value"] == pytest.approx(-400.2, abs=1e-9) and data["best_actions"] == ["East"]
    assert data["objective"] == "score" and data["ghosts"] == "directional" and data["tolerance"] == 1e-9


def test_solve_refuses_bad_input_in_one_line(tmp_path):
    for args, expected in [(("solve", "medium"), "too large to solve exactly"),
                           (("solve", "nosuchmaze"), "nosuchmaze"),
                           (("solve", "coinflip", "--num-ghosts", "3"), "--num-ghosts 3"),
                           (("solve", "coinflip", "--objective", "fun"), "fun")]:
        done = cli(tmp_path, *args)
        assert done.returncode == 2 and expected in done.stderr, (args, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_play_with_the_optimal_agent(tmp_path):
    done = cli(tmp_path, "play", "--layout", "threeway", "--pacman", "optimal", "--games", "30", "--json")
    assert done.returncode == 0, done.stderr
    games = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(games) == 30 and all(g["won"] or g["lost"] for g in games)
    assert all(g["moves"] == 3 for g in games if g["won"])  # the optimal policy walks straight to the food
    done = cli(tmp_path, "play", "--layout", "medium", "--pacman", "optimal", "--json")
    assert done.returncode == 2 and "too large" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
def test_trapped_is_solved_as_the_readme_says(tmp_path):
    done = cli(tmp_path, "solve", "trapped", "--objective", "score", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["nodes"] == 1_119_420 and data["estimated_nodes"] == 7_793_268
    assert data["value"] == pytest.approx(-112.418457, abs=1e-5) and data["best_actions"] == ["East"]


def test_solve_says_how_to_try_tiny_and_bounds_max_nodes(tmp_path):
    for name in ("tiny", "minimax"):
        done = cli(tmp_path, "solve", name)
        assert done.returncode == 2 and "(--max-nodes up to 100,000,000 lets it try" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    done = cli(tmp_path, "solve", "tiny", "--max-nodes", str(solver_module.MAX_NODES_CEILING + 1))
    assert done.returncode == 2 and "--max-nodes" in done.stderr and "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []


def solved_with_the_limit_raised(tmp_path, name):
    """`pacman-ai solve NAME --max-nodes 100000000 --json`, run as a user runs it; its JSON."""
    done = subprocess.run([sys.executable, "-m", "pacman", "solve", name, "--max-nodes", "100000000", "--json"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.slow(minutes=2)
def test_minimax_is_solved_with_the_limit_raised_as_the_docs_say(tmp_path):
    # Three ghosts and four dots: 3.1 million nodes under a bound of 65 million; about a minute and 1.3 GB.
    data = solved_with_the_limit_raised(tmp_path, "minimax")
    assert data["nodes"] == 3_061_193 and data["estimated_nodes"] == 64_539_072
    assert data["value"] == pytest.approx(0.483705, abs=1e-6) and data["best_actions"] == ["Stop"]
    assert data["action_values"]["North"] < data["value"] and data["action_values"]["South"] < data["value"]


@pytest.mark.slow(minutes=7)
def test_tiny_is_solved_with_the_limit_raised(tmp_path):
    # One ghost and a capsule: 11.6 million nodes under a bound of 83 million; about 5 min and 7 GB.
    data = solved_with_the_limit_raised(tmp_path, "tiny")
    assert data["nodes"] == 11_609_710 and data["estimated_nodes"] == 82_942_420
    assert data["value"] == pytest.approx(1.0, abs=1e-9)
    assert set(data["best_actions"]) == {"East", "West", "Stop"}


def test_a_batch_of_the_optimal_agent_on_a_large_maze_stops_with_the_reason(tmp_path):
    done = cli(tmp_path, "batch", "--layout", "medium", "--pacman", "optimal", "--games", "2", "--jobs", "1",
               "--quiet")
    assert done.returncode == 2 and "too large to solve exactly" in done.stderr
    assert "Traceback" not in done.stderr
