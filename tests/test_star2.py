"""Star2 and move ordering are exact: the same values and actions as plain expectimax and Star1 on random positions
of every shipped layout, both ghost models, depths 1-4, on both engines (which also agree on node counts)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from test_compiled_core import MODELS, USABLE, pacman_positions

from pacman import AgentSpecError, load_layout, run_game
from pacman.agents import ExpectimaxAgent, estimated_leaves
from pacman.agents import expectimax as expectimax_module
from pacman.bench.search import PRUNING_MODES, bench_positions
from pacman.layout import layout_names

MODES = {name: options for name, options in PRUNING_MODES.items()}
ENGINES = ("python", "compiled") if USABLE else ("python",)


def decisions(state, depth, model, evaluation="better"):
    """For each engine and pruning mode: (every action's value, the chosen action and its value, nodes)."""
    out = {}
    for engine in ENGINES:
        for mode, options in MODES.items():
            agent = ExpectimaxAgent(depth=depth, evaluation=evaluation, ghost_model=model, engine=engine, **options)
            values = agent.action_values(state)
            agent.clear_table()
            action = agent.get_action(state)
            out[engine, mode] = (values, action, agent.last_search.action_values[action], agent.last_search.nodes)
    return out


def deepest(layout, limit):
    """The deepest of depths 1-4 whose tree is at most `limit` estimated leaves on `layout`."""
    return max([1] + [d for d in (2, 3, 4) if estimated_leaves(layout, layout.num_ghosts, d) <= limit])


@pytest.mark.parametrize("name", layout_names())
def test_star2_and_ordering_equal_plain_expectimax_on_every_shipped_layout(name):
    layout = load_layout(name)
    top = deepest(layout, 3e3)
    for i, state in enumerate(pacman_positions(layout, 4, seed=11)):
        depth = 1 + i % top
        for model in MODELS.values():
            for evaluation in ("better", "safe", "score"):
                found = decisions(state, depth, model, evaluation)
                plain = found["python", "plain"]
                for (engine, mode), (values, action, value, nodes) in found.items():
                    assert values == plain[0], (name, depth, engine, mode)
                    assert (action, value) == (plain[1], plain[2]), (name, depth, engine, mode)
                    assert nodes == found["python", mode][3], (name, depth, engine, mode)  # engines agree


@pytest.mark.slow
@pytest.mark.parametrize("name", layout_names())
def test_star2_and_ordering_equal_plain_expectimax_deeper(name):
    layout = load_layout(name)
    top = deepest(layout, 2e5)
    for i, state in enumerate(pacman_positions(layout, 12, seed=5)):
        depth = 1 + i % top
        for model in MODELS.values():
            found = decisions(state, depth, model)
            plain = found["python", "plain"]
            for (engine, mode), (values, action, value, nodes) in found.items():
                assert values == plain[0] and (action, value) == (plain[1], plain[2]), (name, depth, engine, mode)
                assert nodes == found["python", mode][3]


def constant(state):
    """Every state is worth the same: actions tie (up to the rounding of the chance sums)."""
    return 7.0


constant.bounds = (-10.0, 10.0)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_ties_still_go_to_the_first_action_in_order(depth):
    layout = load_layout("minimax")
    for state in pacman_positions(layout, 5, seed=depth):
        plain = ExpectimaxAgent(depth=depth, evaluation=constant, pruning=False)
        values = plain.action_values(state)
        best = max(values.values())
        expected = next(action for action, value in values.items() if value == best)
        assert plain.get_action(state) == expected
        for options in MODES.values():
            agent = ExpectimaxAgent(depth=depth, evaluation=constant, **options)
            agent.get_action(state)  # a first decision fills the table with best moves
            assert agent.get_action(state) == expected


def tied(state):
    """Only the score counts, so moves that eat nothing tie; bounds declared so that Star1 and Star2 prune."""
    return float(state.score)


tied.bounds = (-2000.0, 2000.0)


def test_ties_under_pruning_equal_plain_on_the_python_engine():
    layout = load_layout("small")
    for state in pacman_positions(layout, 8, seed=2):
        plain = ExpectimaxAgent(depth=2, evaluation=tied, pruning=False)
        expected = plain.get_action(state)
        for options in MODES.values():
            agent = ExpectimaxAgent(depth=2, evaluation=tied, **options)
            agent.get_action(state)
            assert agent.get_action(state) == expected  # the second decision has the table's moves to order by


@pytest.mark.skipif(not USABLE, reason="the compiled core is not in use here")
def test_star2_expands_fewer_nodes_than_star1_on_tricky_at_depth_3():
    """Measured, not promised everywhere: on small trees the probes cost more than they save (see
    docs/engine.md); on the four-ghost maze's bench positions at depth 3 Star2 saves nodes."""
    layout = load_layout("tricky")
    totals = {}
    for state, _ in bench_positions(layout, 4, seed=0):
        for mode in ("star1", "star2"):
            agent = ExpectimaxAgent(depth=3, ghost_model="random", engine="compiled", **MODES[mode])
            agent.get_action(state)
            totals[mode] = totals.get(mode, 0) + agent.last_search.nodes
    assert totals["star2"] < totals["star1"]


@pytest.mark.skipif(not USABLE, reason="the compiled core is not in use here")
@pytest.mark.parametrize("depth", [2, 3])
def test_star2_expands_no_more_nodes_than_star1_in_total_on_tricky(depth):
    """No null-window tests on the last plies and no probes of leaves: over the bench positions of the
    four-ghost maze, Star2 (and with ordering) visits at most Star1's nodes, also on small trees."""
    layout = load_layout("tricky")
    totals = {}
    for state, _ in bench_positions(layout, 10, seed=0):
        for mode in ("star1", "star2", "star2_ordering"):
            agent = ExpectimaxAgent(depth=depth, ghost_model="random", engine="compiled", **MODES[mode])
            agent.get_action(state)
            totals[mode] = totals.get(mode, 0) + agent.last_search.nodes
    assert totals["star2"] <= totals["star1"] and totals["star2_ordering"] <= totals["star1"], totals


@pytest.mark.parametrize("size", [30, 100])
def test_a_table_that_fills_keeps_its_newer_half_the_same_way_on_both_engines(monkeypatch, size):
    """With Star2 or ordering a full table forgets its older half (else it is cleared): a small table fills
    many times in one search, and the values, actions and node counts still agree (engines) and equal plain
    expectimax's."""
    monkeypatch.setattr(expectimax_module, "DEFAULT_TABLE_SIZE", size)
    layout = load_layout("medium")
    largest = 0
    for state in pacman_positions(layout, 3, seed=4):
        for model in MODELS.values():
            found = decisions(state, 3, model)
            plain = found["python", "plain"]
            for (engine, mode), (values, action, value, nodes) in found.items():
                assert values == plain[0] and (action, value) == (plain[1], plain[2]), (engine, mode)
                assert nodes == found["python", mode][3], (engine, mode)
            largest = max(largest, found["python", "star2"][3])
    assert largest > 4 * size  # the table filled (and was halved) several times in a search


@pytest.mark.parametrize("flag", ["star2", "ordering"])
def test_the_flags_must_be_true_or_false(flag):
    with pytest.raises(AgentSpecError, match=f"{flag} must be true or false"):
        ExpectimaxAgent(**{flag: "yes"})


def test_star2_without_ordering_is_the_default():
    agent = ExpectimaxAgent()
    assert (agent.pruning, agent.star2, agent.ordering) == (True, True, False)


def played_positions(name, seed, depth, max_moves=400):
    """Every position Pacman moved from in a game of expectimax with `better` on `name` (the positions real
    games meet: ghosts far and near, scared ones, many near-ties)."""
    from pacman.agents import make_ghosts

    layout = load_layout(name)
    seen = []

    class Spy:
        def __init__(self):
            self.agent = ExpectimaxAgent(depth=depth, evaluation="better")

        def get_action(self, state):
            seen.append(state)
            return self.agent.get_action(state)

    run_game(layout, Spy(), make_ghosts("random", layout.num_ghosts), seed=seed, max_moves=max_moves)
    return seen


def tied_positions():
    """The positions of a `small` game (seed 4095311256 of `batch --seed 0`) where two root moves tie under
    plain expectimax at depth 2 (West and Stop at 27.33 among them)."""
    seen = played_positions("small", seed=4095311256, depth=2, max_moves=200)
    plain = ExpectimaxAgent(depth=2, evaluation="better", pruning=False, transposition=False)
    return [state for state in seen
            if sorted(plain.action_values(state).values())[-2:][0] == max(plain.action_values(state).values())]


def test_every_pruning_breaks_a_root_tie_as_plain_expectimax_does():
    """Star2 once took Stop here: the null-window test of West (value 27.33, window just above East's
    11.17) summed a child's bound into a chance node's value, which rounding put on the window's lower
    edge, so West looked no better than East. A chance node now returns a bound when a child fails."""
    tied = tied_positions()
    assert len(tied) >= 3, "too few root ties in this game"
    plain = ExpectimaxAgent(depth=2, evaluation="better", pruning=False, transposition=False)
    for state in tied:
        expected = plain.get_action(state)
        for engine in ENGINES:
            for mode, options in MODES.items():
                agent = ExpectimaxAgent(depth=2, evaluation="better", engine=engine, **options)
                assert agent.get_action(state) == expected, (engine, mode)


def windows(value, others):
    """Windows around, at, just beside and away from `value`, and null windows (one rounding step wide) at
    each of `others` (the values of sibling moves: where a search's windows come from)."""
    up, down = math.nextafter(value, math.inf), math.nextafter(value, -math.inf)
    out = [(down, up), (value, up), (down, value), (math.nextafter(down, -math.inf), down),
           (up, math.nextafter(up, math.inf)), (value - 1.0, value + 1.0), (value + 1e-7, value + 50.0),
           (value - 50.0, value - 1e-7), (value - 50.0, value), (value, value + 50.0), (-math.inf, value),
           (value, math.inf)]
    for other in others:
        for edge in (other, value + (other - value) / 3.0):
            out += [(edge, math.nextafter(edge, math.inf)), (math.nextafter(edge, -math.inf), edge)]
    return out


def keeps_window_promise(found, value, alpha, beta, where):
    """Assert that `found`, a search's result with the window (alpha, beta), keeps the window's promise about
    the node's exact `value`: equal to it inside the window, else a bound on the side it failed."""
    if alpha < found < beta:
        assert found == value, (where, alpha, beta)
    elif found <= alpha:
        assert value <= alpha, (where, alpha, beta, found)
    else:
        assert value >= beta, (where, alpha, beta, found)


@pytest.mark.parametrize("star2", [False, True], ids=["star1", "star2"])
# `tricky` (four ghosts: 20 s of the default run's time for the two cases) with the slow tests; small and medium
# keep the promise checked by default.
@pytest.mark.parametrize("name", ["small", pytest.param("tricky", marks=pytest.mark.slow), "medium"])
def test_a_pruned_search_keeps_its_window_promise_at_every_window(name, star2):
    """Searched with a window (alpha, beta), a node's result r is its exact value when alpha < r < beta, and
    else a bound on the right side: value <= alpha when r <= alpha, value >= beta when r >= beta. Checked
    for max roots and for the chance nodes under them, at windows one rounding step wide."""
    from pacman.agents import DirectionalGhost
    from pacman.agents.evaluation import better_evaluation
    from pacman.agents.expectimax import PacmanGame
    from pacman.agents.search import Searcher

    layout = load_layout(name)
    positions = [(1 + i % 2, state) for i, state in enumerate(pacman_positions(layout, 4, seed=21))]
    if name == "small":
        positions += [(2, state) for state in tied_positions()]
    for depth, state in positions:
        for model in MODELS.values():
            models = None if model is None else [DirectionalGhost(j) for j in range(1, state.num_agents)]
            game = PacmanGame(state.num_agents, better_evaluation, models)
            plain = Searcher(game)
            root = (state, 0)
            nodes = [root, *game.children(root)]
            values = [plain.value(node, depth) for node in nodes]
            for node, value in zip(nodes, values):
                for alpha, beta in windows(value, values):
                    searcher = Searcher(game, prune=True, table_size=10**5, star2=star2)
                    searcher._start(root, depth)
                    search = searcher._ordered_value if star2 else searcher._value
                    keeps_window_promise(search(node, depth, alpha, beta), value, alpha, beta, (name, depth))


def test_bench_reports_nodes_by_pruning_side_by_side(tmp_path):
    command = [sys.executable, "-m", "pacman", "bench", "--part", "search", "--depths", "1,2", "--positions", "2",
               "--runs", "1", "--compare", "minimax", "--small-mazes", "coinflip"]
    report = json.loads(subprocess.run(command + ["--json"], capture_output=True, text=True, check=True,
                                       cwd=tmp_path).stdout)
    rows = report["pruning"]["rows"]
    assert [(r["layout"], r["depth"]) for r in rows] == [("minimax", 1), ("minimax", 2)]
    for row in rows:
        assert list(row["modes"]) == ["plain", "star1", "star2", "star2_ordering"]
        assert row["same_answers"] is True
        assert row["modes"]["star1"]["nodes_over_star1"] == 1.0
        assert all(m["nodes_per_move_mean"] > 0 for m in row["modes"].values())
    text = subprocess.run(command, capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    assert "Star2+ordering" in text and "nodes per move by pruning" in text and "DIFFERENT ANSWERS" not in text


def check_against_plain(states, depth, python_every):
    """At each state: every pruning mode's move and value equal plain expectimax's (on the core when it is in
    use), and every `python_every`-th state on the Python engine too; returns the positions checked."""
    engine = "compiled" if USABLE else "python"
    for i, state in enumerate(states):
        plain = ExpectimaxAgent(depth=depth, pruning=False, transposition=False, engine=engine)
        expected = plain.get_action(state)
        value = plain.last_search.action_values[expected]
        engines = ENGINES if i % python_every == 0 else (engine,)
        for used in engines:
            for mode, options in MODES.items():
                agent = ExpectimaxAgent(depth=depth, engine=used, **options)
                action = agent.get_action(state)
                assert (action, agent.last_search.action_values[action]) == (expected, value), (i, used, mode)
    return len(states)


@pytest.mark.parametrize("name, depth", [("small", 3), ("tricky", 2), ("medium", 2), ("capsules", 2)])
def test_every_pruning_plays_plain_expectimax_moves_along_a_real_game(name, depth):
    """Random positions missed a Star2 flaw that changed a fifth of `tricky`'s games (a window wholly outside a
    chance node's own bounds gave its first child an empty window): along a real game, every move is checked."""
    assert check_against_plain(played_positions(name, seed=3241444873, depth=depth), depth, python_every=15) > 50


@pytest.mark.slow
@pytest.mark.parametrize("name", layout_names())
def test_every_pruning_plays_plain_expectimax_moves_along_real_games_of_every_layout(name):
    for seed in range(6):
        for depth in (2, 3):
            if estimated_leaves(load_layout(name), load_layout(name).num_ghosts, depth) > 1e6:
                continue
            check_against_plain(played_positions(name, seed=seed, depth=depth), depth, python_every=40)
