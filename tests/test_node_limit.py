"""`node_limit`: iterative deepening by a node budget, which depends on the position alone, so both engines and
every machine reach the same depth and play the same move."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from test_compiled_core import USABLE, pacman_positions

from pacman import AgentSpecError, load_layout
from pacman.agents import ExpectimaxAgent
from pacman.agents.expectimax import AUTO_DEPTH, SMALL_MAZE_NODES
from pacman.state import GameState

ENGINES = ("python", "compiled") if USABLE else ("python",)


@pytest.mark.parametrize("limit", [300, 3000])
def test_the_deepest_search_within_the_budget_answers_the_same_on_both_engines(limit):
    layout = load_layout("small")
    depths = set()
    for state in pacman_positions(layout, 6, seed=8):
        found = {}
        for engine in ENGINES:
            agent = ExpectimaxAgent(depth=3, node_limit=limit, engine=engine)
            action = agent.get_action(state)
            found[engine] = (action, agent.last_search.depth, agent.last_search.nodes)
        assert len(set(found.values())) == 1, found
        action, depth, nodes = found["python"]
        depths.add(depth)
        fixed = ExpectimaxAgent(depth=depth, engine="python")
        assert fixed.get_action(state) == action  # the move of a plain search to the depth reached
        if depth < 3:
            assert nodes > limit  # the next depth did not fit
        else:
            assert nodes <= limit
    assert len(depths) > 1 or limit == 3000  # a small budget stops short of depth 3 somewhere


def test_a_deeper_budget_reaches_deeper_and_depth_one_always_finishes():
    state = pacman_positions(load_layout("tricky"), 1, seed=3)[0]
    reached = []
    for limit in (1, 1_000, 100_000):
        agent = ExpectimaxAgent(depth=None, node_limit=limit)
        agent.get_action(state)
        reached.append(agent.last_search.depth)
    assert reached[0] == 1 and reached == sorted(reached) and reached[-1] >= 3


@pytest.mark.parametrize("bad", [0, -5, 2.5, True, "many", 10**12 + 1, 2**64 - 1, 10**23])
def test_a_node_limit_must_be_a_positive_int_up_to_the_ceiling(bad):
    with pytest.raises(AgentSpecError, match="node_limit must be an int from 1 to 1,000,000,000,000 "):
        ExpectimaxAgent(node_limit=bad)
    assert ExpectimaxAgent(node_limit=10**12).node_limit == 10**12


def test_a_node_limit_too_large_is_a_usage_error_on_the_command_line_not_a_crashed_game(tmp_path):
    """Beyond the ceiling the compiled core's 64-bit counter would overflow in every game: refused first."""
    for command in (["play", "--display", "none", "--games", "1"], ["batch", "--games", "2", "--jobs", "1", "--quiet"]):
        done = subprocess.run([sys.executable, "-m", "pacman", *command, "--layout", "test",
                               "--agent-args", "node_limit=18446744073709551615"], cwd=tmp_path, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 2 and "node_limit must be an int from 1 to 1,000,000,000,000" in done.stderr
        assert "Traceback" not in done.stderr and "crashed" not in done.stdout


def test_depth_none_needs_a_limit_of_time_or_nodes():
    with pytest.raises(AgentSpecError, match="needs a time_limit or a node_limit"):
        ExpectimaxAgent(depth=None)


def _play(tmp_path, engine):
    env = {**os.environ, "PACMAN_AI_ENGINE": engine, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    command = [sys.executable, "-m", "pacman", "play", "--layout", "small", "--display", "none", "--seed", "5",
               "--agent-args", "depth=3,node_limit=2000", "--json"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.skipif(not USABLE, reason="the compiled core is not in use here")
def test_play_with_a_node_limit_plays_the_same_game_on_both_engines(tmp_path):
    compiled, python = _play(tmp_path, "compiled"), _play(tmp_path, "python")
    assert (compiled["score"], compiled["moves"], compiled["outcome"]) == \
        (python["score"], python["moves"], python["outcome"])
    assert compiled["moves"] > 10


def test_the_readme_example_plays_from_the_command_line(tmp_path):
    """README: ``pacman-ai play --layout tricky --agent-args depth=4,node_limit=100000`` (here without a window
    and cut short): it plays, and the same seed plays the same game again."""
    import shutil

    executable = shutil.which("pacman-ai") or sys.exec_prefix + "/bin/pacman-ai"
    command = [executable, "play", "--layout", "tricky", "--agent-args", "depth=4,node_limit=100000",
               "--display", "none", "--max-moves", "25", "--seed", "2", "--json"]
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    runs = [subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
            for _ in range(2)]
    assert all(run.returncode == 0 for run in runs), runs[0].stderr
    first, second = (json.loads(run.stdout) for run in runs)
    assert first["moves"] == 25 or first["outcome"] in ("won", "lost")
    assert (first["score"], first["moves"], first["outcome"]) == (second["score"], second["moves"], second["outcome"])


class _Recorder:
    """A searcher for `iterative_search` that records the depths asked and counts `cost` nodes a depth."""

    def __init__(self, cost):
        self.cost, self.asked, self.preferred = cost, [], []
        self.deadline, self.node_limit, self.nodes = None, float("inf"), 0

    def search(self, node, depth, all_values=True, prefer=None):
        from pacman.agents.search import OutOfTime, SearchResult
        self.asked.append(depth)
        self.preferred.append(prefer)
        self.nodes = self.cost(depth)
        if self.nodes > self.node_limit:
            raise OutOfTime
        return SearchResult(float(depth), f"move at {depth}", depth, self.nodes, 0.0)


@pytest.mark.parametrize(("step", "max_depth", "limit", "cost", "asked", "reached"), [
    (1, 7, None, "depth", [1, 2, 3, 4, 5, 6, 7], 7),
    (2, 7, None, "depth", [1, 2, 4, 6, 7], 7),  # the last search is max_depth itself
    (2, 8, None, "depth", [1, 2, 4, 6, 8], 8),
    (2, 30, 21, "depth", [1, 2, 4, 6, 8], 8),  # 1 + 2 + 4 + 6 + 8 = 21 nodes: the budget is spent, no depth 10
    (2, 30, 20, "depth", [1, 2, 4, 6, 8], 6),  # depth 8 would make 21: it stops, and depth 6 answers
    (3, 30, 60, "2**depth", [1, 2, 5, 8], 5),  # 2 + 4 + 32 = 38 nodes; depth 8's 256 do not fit
])
def test_iterative_search_deepens_by_its_step_past_depth_two(step, max_depth, limit, cost, asked, reached):
    from pacman.agents.search import iterative_search
    searcher = _Recorder((lambda depth: depth) if cost == "depth" else (lambda depth: 2 ** depth))
    result = iterative_search(searcher, None, max_depth, None, node_limit=limit, step=step)
    assert searcher.asked == asked
    assert result.depth == reached
    # each depth gives its ties to the move the depth before chose (the first, to action order)
    assert searcher.preferred == [None] + [f"move at {depth}" for depth in asked[:-1]]


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_iterative_search_refuses_a_step_that_is_not_a_positive_int(bad):
    from pacman.agents.search import iterative_search
    with pytest.raises(ValueError, match="step must be an int >= 1"):
        iterative_search(_Recorder(lambda depth: depth), None, 5, None, step=bad)


@pytest.mark.parametrize(("layout_name", "node_steps"), [("tiny", [1, 2, 4, 5]), ("small", [1, 2, 3, 4, 5])])
def test_a_node_limit_deepens_two_plies_at_a_time_on_a_small_maze_only(layout_name, node_steps):
    """`deepening_step`: a node budget on a small maze (`tiny`, 49 cells) goes 1, 2, 4, ... up to the depth asked
    (5 here, last); on `small` (64 cells or more) one ply at a time, as a time limit everywhere."""
    from pacman.agents.expectimax import DEEPENING_STEP, deepening_step, is_small_maze
    layout = load_layout(layout_name)
    assert DEEPENING_STEP == 2
    assert is_small_maze(layout) == (layout_name == "tiny")
    assert deepening_step(layout) == (2 if layout_name == "tiny" else 1)
    asked = {}
    state = next(iter(pacman_positions(layout, 1, seed=3)))
    for label, args in (("nodes", {"node_limit": 10**9}), ("time", {"time_limit": 600.0})):
        agent = ExpectimaxAgent(depth=5, engine="python", **args)
        searcher = agent._searcher_for(state)
        real = searcher.search
        depths = asked[label] = []

        def recording(node, depth, all_values=True, prefer=None, real=real, depths=depths):
            depths.append(depth)
            return real(node, depth, all_values=all_values, prefer=prefer)
        searcher.search = recording
        agent.get_action(state)
    assert asked == {"nodes": node_steps, "time": [1, 2, 3, 4, 5]}


@pytest.mark.parametrize("limit", [dict(node_limit=200_000), dict(time_limit=0.5)])
def test_a_limit_takes_the_place_of_autos_budget_on_a_small_maze(limit):
    """docs/guide/play.md: with a time or node limit and no depth, ``auto`` deepens under the limit on a small
    maze, where its own budget is 70,000 nodes; a bigger node limit searches deeper than the default."""
    state = GameState.initial(load_layout("trapped"))
    default = ExpectimaxAgent()
    default.get_action(state)
    limited = ExpectimaxAgent(**limit)
    limited.get_action(state)
    assert default.last_search.depth > AUTO_DEPTH and default.last_search.nodes <= SMALL_MAZE_NODES + 1
    assert limited.last_search.depth > AUTO_DEPTH
    if "node_limit" in limit:  # nodes are counted alike on both engines: deeper than the default, within the limit
        assert default.last_search.depth < limited.last_search.depth
        assert SMALL_MAZE_NODES < limited.last_search.nodes <= 200_001
        same = ExpectimaxAgent(depth=None, node_limit=200_000)
        assert same.action_values(state) == limited.action_values(state)
        assert (same.last_search.depth, same.last_search.nodes) == (limited.last_search.depth,
                                                                    limited.last_search.nodes)


def test_a_node_limit_with_auto_is_a_limit_even_below_depth_two():
    """Auto's own budget always finishes depth 2; a node_limit is kept as it is everywhere else: depth 1 always
    finishes, and a deeper search only if the searches together fit."""
    state = GameState.initial(load_layout("trapped"))
    tiny = ExpectimaxAgent(node_limit=1)
    tiny.get_action(state)
    assert tiny.last_search.depth == 1


@pytest.mark.parametrize("limit", [dict(node_limit=1_000_000), dict(time_limit=5.0)])
def test_on_a_big_maze_a_limit_with_auto_cuts_depth_two_short_and_never_deepens(limit):
    state = GameState.initial(load_layout("small"))
    # a ghost is near at the start: the default alone deepens there (NEAR_GHOST_NODES), a limit given does not
    two, limited = ExpectimaxAgent(depth=2), ExpectimaxAgent(**limit)
    assert limited.get_action(state) == two.get_action(state)
    assert two.last_search.depth == limited.last_search.depth == AUTO_DEPTH
