"""``depth="auto"`` against ghosts that hunt: deeper than depth 2 on every maze, under HUNTED_NODES nodes a move.

Depth 2 cannot see two hunters closing a corridor from both ends; the default agent lost a third of `small`'s
games to directional ghosts there (docs/guide/ghosts.md, "The default agent against hunters"). Random ghosts
on a big maze keep depth 2, so every figure measured against them stands.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from test_compiled_core import pacman_positions

from pacman import load_layout
from pacman.agents import ExpectimaxAgent, make_ghosts
from pacman.agents.compiled import core_status
from pacman.agents.expectimax import (AUTO, AUTO_DEPTH, HUNTED_NODES, NEAR_GHOST_NODES, SMALL_MAZE_NODES, Auto,
                                      Depth, Nodes, Time, ghost_near)
from pacman.agents.ghosts import GHOST_KINDS
from pacman.cli.play import REAL_TIME_BUDGET

BIG, TINY = load_layout("medium"), load_layout("trapped")
needs_core = pytest.mark.skipif(not core_status()[0], reason="the compiled core is not built")
#: The kinds whose chance layers are not uniform: every kind but `random`, read from the registry.
HUNTING = [kind for kind in GHOST_KINDS if kind != "random"]


def reset(agent, layout, kind):
    agent.reset(None, make_ghosts(kind, layout.num_ghosts), layout)
    return agent


def test_auto_deepens_under_hunted_nodes_on_a_big_maze_only_when_hunted():
    assert HUNTED_NODES < SMALL_MAZE_NODES
    assert AUTO.on(BIG) == Depth(AUTO_DEPTH)
    assert AUTO.on(BIG, hunted=True) == Nodes(HUNTED_NODES, min_depth=AUTO_DEPTH)
    # a small maze deepens under its own budget, hunted or not
    assert AUTO.on(TINY) == AUTO.on(TINY, hunted=True) == Nodes(SMALL_MAZE_NODES, min_depth=AUTO_DEPTH)
    # a limit given takes the place of the budget, as on a small maze
    assert Auto(nodes=500).on(BIG, hunted=True) == Nodes(500) and Auto(nodes=500).on(BIG) == Nodes(500, AUTO_DEPTH)
    assert Auto(seconds=1.0).on(BIG, hunted=True) == Time(1.0) and Auto(seconds=1.0).on(BIG) == Time(1.0, AUTO_DEPTH)
    # the other budgets are what they say, hunted or not
    for budget in (Depth(3), Nodes(800), Time(0.5)):
        assert budget.on(BIG, hunted=True) is budget


@pytest.mark.parametrize("kind", HUNTING)
def test_every_kind_but_random_hunts_and_random_does_not(kind):
    assert reset(ExpectimaxAgent(), BIG, kind).hunted(BIG.num_ghosts)
    assert not reset(ExpectimaxAgent(), BIG, "random").hunted(BIG.num_ghosts)
    # the model searched decides, not the ghosts in play
    assert reset(ExpectimaxAgent(ghost_model=kind), BIG, "random").hunted(BIG.num_ghosts)
    assert not reset(ExpectimaxAgent(ghost_model="random"), BIG, kind).hunted(BIG.num_ghosts)
    assert not reset(ExpectimaxAgent(), BIG, kind).hunted(0)


@needs_core
def test_against_directional_ghosts_the_default_is_the_hunted_budget_and_goes_deeper():
    depths = []
    for state in pacman_positions(BIG, 12, seed=65):
        # on the core whatever PACMAN_AI_ENGINE says: the Python engine's searches are the last test's
        default = reset(ExpectimaxAgent(engine="compiled"), BIG, "directional")
        given = reset(ExpectimaxAgent(Nodes(HUNTED_NODES, min_depth=AUTO_DEPTH), engine="compiled"), BIG,
                      "directional")
        action = default.get_action(state)
        assert action == given.get_action(state)
        assert (default.last_search.depth, default.last_search.nodes) == (given.last_search.depth,
                                                                          given.last_search.nodes)
        depths.append(default.last_search.depth)
        # against random ghosts: depth 2, deeper within NEAR_GHOST_NODES only with a ghost near
        plain = reset(ExpectimaxAgent(engine="compiled"), BIG, "random")
        plain.get_action(state)
        if ghost_near(state):
            assert plain.last_search.nodes <= NEAR_GHOST_NODES + 1
        else:
            assert plain.last_search.depth == AUTO_DEPTH
    assert min(depths) >= AUTO_DEPTH and max(depths) > AUTO_DEPTH + 1


@needs_core
def test_both_engines_reach_the_same_depth_and_move_under_the_hunted_budget():
    for state in pacman_positions(BIG, 2, seed=7):
        seen = []
        for engine in ("compiled", "python"):
            agent = reset(ExpectimaxAgent(engine=engine), BIG, "directional")
            seen.append((agent.get_action(state), agent.last_search.depth, agent.last_search.nodes))
        assert seen[0] == seen[1]
        assert seen[0][1] > AUTO_DEPTH


def _play(tmp_path, engine, ghosts, *extra):
    env = {**os.environ, "PACMAN_AI_ENGINE": engine}
    return subprocess.run([sys.executable, "-m", "pacman", "play", "--layout", "medium", "--ghosts", ghosts, "--json",
                           "--max-moves", "2", *extra], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)


def test_play_on_the_python_engine_against_hunters_searches_in_real_time_and_says_so(tmp_path):
    done = _play(tmp_path, "python", "directional")
    assert done.returncode == 0, done.stderr
    assert done.stderr == (f"pacman-ai: expectimax depth auto against directional ghosts searches at most "
                           f"{HUNTED_NODES:,} nodes a move, seconds a move on the Python engine: searching with "
                           f"time_limit={REAL_TIME_BUDGET:g} (iterative deepening while the time lasts); give "
                           f"--agent-args depth=N or time_limit=S to choose\n")
    assert json.loads(done.stdout)["agent_args"]["time_limit"] == REAL_TIME_BUDGET
    # what the user chose stands, said nothing of
    for chosen in ("depth=2", "time_limit=0.2", "node_limit=3000"):
        again = _play(tmp_path, "python", "directional", "--agent-args", chosen)
        assert again.returncode == 0 and again.stderr == "", again.stderr
    # random ghosts keep depth 2 there: nothing to say
    plain = _play(tmp_path, "python", "random")
    assert plain.stderr == "" and json.loads(plain.stdout)["agent_args"]["time_limit"] is None


@needs_core
def test_play_on_the_compiled_core_against_hunters_keeps_the_node_budget(tmp_path):
    done = _play(tmp_path, "compiled", "arcade")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert json.loads(done.stdout)["agent_args"]["time_limit"] is None
