"""Forced plies (docs/search-strength.md, "A ghost with one move"): where each move searches from scratch, a
ghost with a single legal move is searched through, not counted as a node, so a budget reaches deeper. Its one
outcome has probability 1, so the value is the child's to the bit, and both engines fold the same plies."""

from __future__ import annotations

import pytest
from test_compiled_core import USABLE, pacman_positions

from pacman import GameState, load_layout, parse_layout
from pacman.agents import ExpectimaxAgent
from pacman.agents.compiled import CompiledSearcher
from pacman.agents.evaluation import scaled_evaluation
from pacman.agents.expectimax import PacmanGame
from pacman.agents.ghosts import RandomGhost
from pacman.agents.search import Searcher
from pacman.research.mazes import random_maze

needs_core = pytest.mark.skipif(not USABLE, reason="the compiled core is not in use here")

#: A ghost in a corridor can neither stop nor turn back: from its second move on it has one move until a turning.
CORRIDOR = "%%%%%%%%%%%\n%P.  .   G%\n%%%%%%%%%%%\n"


def searcher(engine: str, layout, fold: bool, star2: bool = True):
    game = PacmanGame(layout.num_ghosts + 1, scaled_evaluation, score_free=True, fold_forced=fold)
    if engine == "python":
        return Searcher(game, prune=True, table_size=10**5, star2=star2)
    return CompiledSearcher(layout, layout.num_ghosts + 1, game, True, 10**5, star2=star2)


def agent(layout, **args):
    made = ExpectimaxAgent(**args)
    made.reset(None, [RandomGhost(i) for i in range(1, layout.num_ghosts + 1)], layout)
    return made


def test_only_a_live_ghost_with_one_move_is_a_forced_ply():
    layout = parse_layout(CORRIDOR, "corridor")
    game = PacmanGame(2, scaled_evaluation, fold_forced=True)
    start = GameState.initial(layout)
    assert game.forced((start, 0)) is None  # Pacman's turn: always a node
    # the ghost's first move: West only (East is a wall), so forced even before it has a direction
    after = start.successor(0, start.legal_actions(0)[0])
    child = game.forced((after, 1))
    assert child is not None and child[1] == 0 and child[0] == after.successor(1, after.legal_actions(1)[0])
    cross = GameState.initial(parse_layout("%%%%%\n%%.%%\n%PG %\n%% %%\n%%%%%\n", "cross"))
    assert len(cross.legal_actions(1)) == 4 and game.forced((cross, 1)) is None  # a choice: a chance node
    assert PacmanGame(2, scaled_evaluation, fold_forced=True, ghosts_minimise=True).fold_forced is False


@pytest.mark.parametrize("engine", ["python", pytest.param("compiled", marks=needs_core)])
def test_folding_changes_no_value_and_counts_fewer_nodes(engine):
    """Every root value of a search to a fixed depth is the same with forced plies folded as without (to
    rounding: Star1's windows are computed once less), on random small mazes no one drew; fewer nodes."""
    fewer = 0
    for seed in (3, 17, 40, 88):
        layout = random_maze(seed).layout
        for state in pacman_positions(layout, 3, seed=seed):
            found = {}
            for fold in (False, True):
                result = searcher(engine, layout, fold).search((state, 0), 6, all_values=True)
                found[fold] = result
            assert found[True].action == found[False].action
            for move, value in found[False].action_values.items():
                assert found[True].action_values[move] == pytest.approx(value, rel=1e-12, abs=1e-9)
            assert found[True].nodes <= found[False].nodes
            fewer += found[True].nodes < found[False].nodes
    assert fewer >= 6  # most positions of small mazes have a ghost in a corridor somewhere in six plies


def test_only_the_star2_or_ordering_search_folds():
    """The plain search (no Star2, no ordering) counts every ply, fold or not: folding lives in the other one."""
    layout = parse_layout(CORRIDOR, "corridor")
    state = GameState.initial(layout)
    plain = [searcher("python", layout, fold, star2=False).search((state, 0), 4).nodes for fold in (False, True)]
    assert plain[0] == plain[1]
    star2 = [searcher("python", layout, fold).search((state, 0), 4).nodes for fold in (False, True)]
    assert star2[1] < star2[0]


@needs_core
def test_both_engines_fold_the_same_plies_to_the_node():
    for seed in (5, 21, 63):
        layout = random_maze(seed).layout
        for state in pacman_positions(layout, 3, seed=seed):
            python, core = (searcher(engine, layout, True).search((state, 0), 6, all_values=False)
                            for engine in ("python", "compiled"))
            assert (python.action, python.nodes) == (core.action, core.nodes)
            assert python.value == pytest.approx(core.value, rel=1e-12, abs=1e-9)


def test_the_default_folds_where_it_searches_from_scratch_and_nowhere_else():
    tiny, big = load_layout("trapped"), load_layout("small")
    state = GameState.initial(tiny)
    for args, fold in (({}, True), ({"depth": None, "node_limit": 5_000}, True), ({"depth": 2}, False),
                       ({"time_limit": 1.0}, False)):
        found = agent(tiny, engine="python", **args)._searcher_for(state)
        assert found.game.fold_forced is fold and (found._forced is not None) is fold, args
    assert not agent(big, engine="python")._searcher_for(GameState.initial(big)).game.fold_forced
