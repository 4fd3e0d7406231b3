"""The table's score-free keys (docs/search-strength.md, "Deeper on small mazes"): where each move searches
from scratch, a position reached with two scores is one table entry, whose value moves with the score."""

from __future__ import annotations

import statistics

import pytest
from test_compiled_core import USABLE, pacman_positions

from pacman import GameState, load_layout
from pacman.agents import ExpectimaxAgent
from pacman.agents.compiled import ENGINES, CompiledSearcher
from pacman.agents.evaluation import better_evaluation, scaled_evaluation, score_evaluation
from pacman.agents.expectimax import DEFAULT_TABLE_SIZE, MAX_DEPTH, PacmanGame, is_score_additive
from pacman.agents.ghosts import RandomGhost
from pacman.agents.search import Searcher, iterative_search
from research.mazes import random_maze

needs_core = pytest.mark.skipif(not USABLE, reason="the compiled core is not in use here")


def agent(layout, **args):
    made = ExpectimaxAgent(**args)
    made.reset(None, [RandomGhost(i) for i in range(1, layout.num_ghosts + 1)], layout)
    return made


def rescored(state: GameState, by: int) -> GameState:
    """`state` with its score moved by `by` points, all else the same."""
    key = list(state.position_key)
    key[5] += by
    return GameState.from_position_key(state.layout, tuple(key))


def test_the_registered_evaluations_are_the_score_plus_the_rest_and_one_of_your_own_is_not_taken_to_be():
    for evaluation in (score_evaluation, better_evaluation, scaled_evaluation):
        assert is_score_additive(evaluation)
    assert not is_score_additive(lambda state: state.score ** 2)

    def mine(state):  # the score plus the rest, in fact; but it could read the score otherwise
        return state.score - 3 * state.num_food

    assert not is_score_additive(mine)
    state = GameState.initial(load_layout("trapped"))
    assert not agent(state.layout, engine="python", evaluation=mine)._searcher_for(state).game.score_free


def test_only_searches_from_scratch_key_the_table_without_the_score():
    """On a small maze under depth="auto" or a node limit (the table emptied each move) the keys leave the
    score out; at a fixed depth, or on a big maze, where the table lives from move to move, they keep it."""
    tiny, big = load_layout("trapped"), load_layout("small")
    state = GameState.initial(tiny)
    for args, free in (({}, True), ({"depth": None, "node_limit": 5_000}, True), ({"depth": 2}, False),
                       ({"time_limit": 1.0}, False), ({"evaluation": lambda s: s.score ** 2}, False)):
        searcher = agent(tiny, engine="python", **args)._searcher_for(state)
        assert searcher.game.score_free is free, args
        assert (searcher._offset is not None) is free, args
    assert not agent(big, engine="python")._searcher_for(GameState.initial(big)).game.score_free


@pytest.mark.parametrize("engine", ["python", pytest.param("compiled", marks=needs_core)])
def test_a_position_searched_with_one_score_answers_it_with_another_moved_by_the_difference(engine):
    """The second search of one position, 37 points lower, finds its root's children in the table: a node each,
    and every value 37 lower, to rounding."""
    layout = load_layout("trapped")
    state = GameState.initial(layout)
    game = PacmanGame(layout.num_ghosts + 1, scaled_evaluation, score_free=True)
    if engine == "python":
        searcher = Searcher(game, prune=True, table_size=10**5, star2=True)
    else:
        searcher = CompiledSearcher(layout, layout.num_ghosts + 1, game, True, 10**5, star2=True)
    first = searcher.search((state, 0), 6)
    again = searcher.search((rescored(state, -37), 0), 6)
    assert first.nodes > 200 and again.nodes == 1 + len(first.action_values)
    for move, value in first.action_values.items():
        assert again.action_values[move] == pytest.approx(value - 37, rel=1e-12, abs=1e-9)
    assert not again.complete  # a value found in the table may be an earlier search's, cut off by its depth


def test_with_the_score_in_the_keys_the_same_second_search_is_a_whole_search():
    layout = load_layout("trapped")
    state = GameState.initial(layout)
    searcher = Searcher(PacmanGame(layout.num_ghosts + 1, scaled_evaluation), prune=True, table_size=10**5,
                        star2=True)
    first = searcher.search((state, 0), 6)
    again = searcher.search((rescored(state, -37), 0), 6)
    assert again.nodes == first.nodes


def test_an_evaluation_that_is_not_the_score_plus_the_rest_keeps_the_score_in_the_keys():
    game = PacmanGame(2, lambda state: state.score ** 2, score_free=True)
    assert not game.score_free and game.table_offset is None
    state = GameState.initial(load_layout("trapped"))
    assert game.key((state, 0)) == (state, 0)


@needs_core
def test_both_engines_agree_to_the_bit_and_unpruned_expectimax_to_rounding_on_mazes_no_one_drew():
    """Random small mazes of a set no one tuned on: the default's search on each engine gives the same values,
    depth and nodes; each value is unpruned expectimax's at that depth within a few units in the last place."""
    checked = 0
    for seed in range(6_000_000, 6_000_008):
        layout = random_maze(seed).layout
        for state in pacman_positions(layout, 2, seed=seed):
            found = {}
            for engine in ENGINES:
                searched = agent(layout, depth=None, node_limit=8_000, engine=engine)
                found[engine] = (searched.action_values(state), searched.last_search.depth,
                                 searched.last_search.nodes)
            values, depth, _ = found[ENGINES[0]]
            assert all(other == found[ENGINES[0]] for other in found.values()), seed
            evaluation = searched._searcher_for(state).game.evaluation  # the agent's
            plain = Searcher(PacmanGame(layout.num_ghosts + 1, evaluation), table_size=10**6)
            exact = plain.search((state, 0), depth).action_values
            for move, value in values.items():
                assert value == pytest.approx(exact[move], rel=1e-12, abs=1e-9), (seed, move)
                checked += 1
    assert checked > 30


@needs_core
def test_the_same_budget_reaches_deeper_with_score_free_keys():
    """The point of it: at the default's budget, positions of random small mazes are searched deeper (as
    measured in the docs: a mean depth of 19.1 before, 24.7 with them, over 166 positions)."""
    before, after = [], []
    for seed in range(6_100_000, 6_100_006):
        layout = random_maze(seed).layout
        for state in pacman_positions(layout, 3, seed=seed):
            searched = agent(layout, engine="compiled")
            searched.get_action(state)
            after.append(searched.last_search.depth)
            game = searched._searcher_for(state).game
            keyed = CompiledSearcher(layout, layout.num_ghosts + 1,
                                     PacmanGame(game.num_agents, game.evaluation), True, DEFAULT_TABLE_SIZE, star2=True)
            before.append(iterative_search(keyed, (state, 0), MAX_DEPTH, None, all_values=False, node_limit=70_000,
                                           min_depth=2, step=2).depth)
    assert len(after) == 18
    assert statistics.mean(after) >= statistics.mean(before) + 2


@needs_core
def test_the_depth_script_runs_as_documented_from_a_fresh_folder(tmp_path):
    """`python scripts/search_depths.py`, as docs/search-strength.md runs it, from another folder: both rows,
    the score-free one no shallower; a bad count is a usage error."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parent.parent / "scripts" / "search_depths.py"
    done = subprocess.run([sys.executable, str(script), "--mazes", "3", "--positions", "3"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("9 positions of 3 random mazes from seed 0, a budget of 70,000 nodes")
    depths = [float(d) for d in re.findall(r"mean depth +([\d.]+)", done.stdout)]
    assert len(depths) == 2 and depths[0] >= depths[1] >= 2
    bad = subprocess.run([sys.executable, str(script), "--mazes", "0"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and "--mazes and --positions must be at least 1" in bad.stderr
    assert "Traceback" not in bad.stderr
