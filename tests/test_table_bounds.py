"""The transposition table keeps bounds (agents/search.py: Searcher._keep; agents/core/table.c: table_keep): a
node whose search fails its window is kept as a bound, widened by the slack, and a later window the bound lies
beyond is answered from it. The values stay exact: the window promise holds when every window shares one table,
and deep searches on random small mazes equal unpruned expectimax at the depth they reach, on both engines."""

from __future__ import annotations

import math

import pytest
from test_compiled_core import MODELS, USABLE, pacman_positions
from test_star2 import keeps_window_promise, windows

from pacman import load_layout
from pacman.agents import DirectionalGhost, ExpectimaxAgent
from pacman.agents.evaluation import better_evaluation
from pacman.agents.expectimax import PacmanGame
from pacman.agents.ghosts import RandomGhost
from pacman.agents.search import CHANCE, Searcher
from research.mazes import random_maze

ENGINES = ("python", "compiled") if USABLE else ("python",)


def game_for(state, model):
    models = None if model is None else [DirectionalGhost(j) for j in range(1, state.num_agents)]
    return PacmanGame(state.num_agents, better_evaluation, models)


def test_a_failed_window_is_kept_as_a_bound_and_answers_a_window_beyond_it():
    state = pacman_positions(load_layout("small"), 1, seed=5)[0]
    game = game_for(state, None)
    root = (state, 0)
    node = next(child for child in game.children(root) if game.kind(child) == CHANCE)  # a ghost to move
    value = Searcher(game).value(node, 3)
    searcher = Searcher(game, prune=True, table_size=10**5, star2=True, ordering=True)
    searcher._start(root, 3)
    entry = (game.key(node), 3)

    above = searcher._ordered_value(node, 3, value + 10.0, value + 11.0)  # fails low
    assert above <= value + 10.0
    lower, upper = searcher.table[entry]
    assert lower == -math.inf and value <= upper <= value + 10.0 + 1e-6
    searcher.nodes = 0
    assert searcher._ordered_value(node, 3, value + 10.0, value + 11.0) == upper
    assert searcher.nodes == 1  # answered by the bound: no child searched

    below = searcher._ordered_value(node, 3, value - 11.0, value - 10.0)  # fails high: the bounds tighten
    assert below >= value - 10.0
    kept_lower, kept_upper = searcher.table[entry]
    assert kept_upper == upper and value - 10.0 - 1e-6 <= kept_lower <= value

    searcher.nodes = 0
    assert searcher._ordered_value(node, 3, -math.inf, math.inf) == value  # a window inside the bounds: searched
    assert searcher.nodes > 1
    assert searcher.table[entry] == value  # and now the exact value


@pytest.mark.parametrize("name", ["small", "medium"])
def test_windows_sharing_one_table_keep_the_window_promise(name):
    """As tests/test_star2.py's window promise, but every window of a node is searched on one searcher, in turn
    and then in reverse, so that the bounds earlier windows left are used by later ones."""
    layout = load_layout(name)
    answered = 0
    for i, state in enumerate(pacman_positions(layout, 3, seed=31)):
        depth = 2 + i % 2
        for model in MODELS.values():
            game = game_for(state, model)
            plain = Searcher(game)
            root = (state, 0)
            nodes = [root, *game.children(root)]
            values = [plain.value(node, depth) for node in nodes]
            for node, value in zip(nodes, values):
                around = windows(value, values)
                for order in (around, around[::-1]):
                    searcher = Searcher(game, prune=True, table_size=10**5, star2=True, ordering=True)
                    searcher._start(root, depth)
                    for alpha, beta in order:
                        searcher.nodes = 0
                        found = searcher._ordered_value(node, depth, alpha, beta)
                        keeps_window_promise(found, value, alpha, beta, (name, depth))
                        answered += searcher.nodes == 1 and not alpha < found < beta
    assert answered > 100  # bounds answered windows: the promise was checked where they are used


def small_maze_agent(layout, **options):
    agent = ExpectimaxAgent(**options)
    agent.reset(None, [RandomGhost(i) for i in range(1, layout.num_ghosts + 1)], layout)
    return agent


def test_deep_searches_equal_unpruned_expectimax_at_the_depth_they_reach():
    """On random small mazes no one here drew, a node limit deepens two plies at a time, where bounds in the
    table cut most: every root move's value equals unpruned expectimax's at the depth reached (to rounding: the
    table's score-free keys move a value found there by the score; without them, exactly), and both engines
    count the same nodes."""
    depths = []
    for seed in range(5_000_000, 5_000_010):
        layout = random_maze(seed).layout
        for state in pacman_positions(layout, 2, seed=seed):
            depths.append(search_and_compare(layout, state, seed))
    assert sorted(depths)[len(depths) // 2] >= 8  # deep: where bounds from earlier iterations are met again


def search_and_compare(layout, state, seed):
    """The node-limited search of `state` on each engine, held to each other and to unpruned expectimax at the
    depth reached; that depth."""
    found = {}
    for engine in ENGINES:
        limited = small_maze_agent(layout, depth=None, node_limit=6_000, engine=engine)
        found[engine] = (limited.action_values(state), limited.last_search.depth, limited.last_search.nodes)
    values, depth, nodes = found[ENGINES[0]]
    assert all(other == (values, depth, nodes) for other in found.values()), seed
    game = small_maze_agent(layout, engine="python")._searcher_for(state).game  # the agent's evaluation
    assert game.score_free  # a node limit searches from scratch: the table keys positions without the score
    exact = PacmanGame(game.num_agents, game.evaluation, game.ghost_models)  # the same game, keys with the score
    plain = Searcher(exact, table_size=10**6).search((state, 0), depth)  # no pruning: every node's exact value
    assert values.keys() == plain.action_values.keys()
    for move, value in values.items():  # a kept value less one score, plus another: a few units in the last place
        assert value == pytest.approx(plain.action_values[move], rel=1e-12, abs=1e-9), (seed, depth, move)
    pruned = Searcher(exact, prune=True, table_size=10**6, star2=True).search((state, 0), depth)
    assert pruned.action_values == plain.action_values, (seed, depth)  # Star1, Star2, bounds kept: to the bit
    return depth
