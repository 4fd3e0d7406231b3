"""Root ties: `Searcher.search`'s `prefer` (and the core's), which `iterative_search` passes each depth.

Where a deep search cannot tell two moves apart (waiting now or a step later reach the same leaves), the first
in action order used to take the tie, and on corridor maze 6,000,054 Pacman paced North and South for ever.
Each depth now gives its ties to the move the depth before chose, which can tell them apart.
"""

from __future__ import annotations

import random
import subprocess
import sys

import pytest
from test_compiled_core import needs_core, pacman_positions

from pacman import load_layout, parse_layout
from pacman.agents import ExpectimaxAgent
from pacman.agents.search import Searcher, _ranks_before, iterative_search
from pacman.agents.trees import TreeGame, parse_tree


def _expected(values: dict, prefer, best=max):
    """The action a search must choose: `prefer` when its value is the best, else the first best in order."""
    top = best(values.values())
    if prefer in values and values[prefer] == top:
        return prefer
    return next(action for action, value in values.items() if value == top)


def _random_tree(rng: random.Random, kind: str) -> dict:
    """A root of `kind` over 2-5 chance nodes of small whole leaves, so that ties between root moves are common."""
    def leaf():
        return rng.choice([0, 1, 2, 2, 3])

    children = [{"chance": [leaf() for _ in range(rng.randint(1, 3))], "action": f"m{i}"}
                for i in range(rng.randint(2, 5))]
    return {kind: children}


SEARCHERS = [dict(prune=False), dict(prune=True), dict(prune=True, star2=True), dict(prune=True, prune_ties=False)]


@pytest.mark.parametrize("options", SEARCHERS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
@pytest.mark.parametrize("kind", ["max", "min"])
def test_ties_go_to_the_preferred_move_and_else_to_action_order(options, kind):
    rng = random.Random(f"{kind}{sorted(options.items())}")
    ties = 0
    for _ in range(300):
        root = parse_tree(_random_tree(rng, kind))
        values = Searcher(TreeGame(root)).search(root).action_values
        best = max if kind == "max" else min
        ties += sum(value == best(values.values()) for value in values.values()) > 1
        for prefer in [None, *values, "not a move"]:
            for all_values in (True, False):
                result = Searcher(TreeGame(root), **options).search(root, all_values=all_values, prefer=prefer)
                assert result.action == _expected(values, prefer, best), (values, prefer, all_values)
                assert result.value == best(values.values())
    assert ties >= 50  # the trees do tie often


def test_ranks_before_puts_the_preferred_index_first_then_action_order():
    assert _ranks_before(2, 0, 2) and not _ranks_before(0, 2, 2)
    assert _ranks_before(0, 1, -1) and not _ranks_before(1, 0, -1)
    assert _ranks_before(0, 1, 3) and not _ranks_before(3, 3, -1)


class _Ladder:
    """A searcher for `iterative_search` whose every depth ties moves a and b, and whose depth 1 alone chooses b."""

    def __init__(self):
        self.deadline, self.node_limit, self.nodes = None, float("inf"), 0
        self.preferred = []

    def search(self, node, depth, all_values=True, prefer=None):
        from pacman.agents.search import SearchResult
        self.preferred.append(prefer)
        action = "b" if depth == 1 or prefer == "b" else "a"
        return SearchResult(1.0, action, depth, 1, 0.0)


def test_iterative_search_keeps_the_shallow_choice_through_deeper_ties():
    ladder = _Ladder()
    result = iterative_search(ladder, None, 6, None)
    assert result.action == "b"
    assert ladder.preferred == [None, "b", "b", "b", "b", "b"]


def _ties_on_either_engine(layout, evaluation, depth, positions, seed):
    """For each position and each root move (and None) as `prefer`: both engines choose the move the exact values
    say, with the same value and node count; the number of positions with a tie at the root."""
    ties = 0
    for state in pacman_positions(layout, positions, seed=seed):
        agents = {engine: ExpectimaxAgent(depth=depth, evaluation=evaluation, engine=engine)
                  for engine in ("python", "compiled")}
        searchers = {engine: agent._searcher_for(state) for engine, agent in agents.items()}
        values = searchers["python"].search((state, 0), depth, all_values=True).action_values
        assert searchers["compiled"].search((state, 0), depth, all_values=True).action_values == values
        ties += sum(value == max(values.values()) for value in values.values()) > 1
        for prefer in [None, *values]:
            found = {}
            for engine, searcher in searchers.items():
                searcher.clear()
                result = searcher.search((state, 0), depth, all_values=False, prefer=prefer)
                found[engine] = (result.action, result.value, result.nodes)
            assert found["python"] == found["compiled"], (state, prefer)
            assert found["python"][0] == _expected(values, prefer), (values, prefer)
    return ties


CORRIDOR = parse_layout("""\
%%%%%%%%%%%
%         %
% %%% %%% %
% %.% %   %
% % % %P%%%
%   % %   %
%%%%% % % %
%.  G %   %
%%%%%%%%%%%
""", name="corridors 6000054")


@needs_core
@pytest.mark.parametrize(("name", "evaluation", "depth", "positions"), [
    ("tiny", "score", 2, 6), ("trapped", "scaled", 2, 6), ("minimax", "dots", 3, 6), ("corridor", "dots", 6, 10)])
def test_both_engines_give_ties_to_the_preferred_move(name, evaluation, depth, positions):
    layout = CORRIDOR if name == "corridor" else load_layout(name)
    assert _ties_on_either_engine(layout, evaluation, depth, positions, seed=len(name)) >= 1


@needs_core
def test_the_default_no_longer_paces_where_a_deep_search_ties_waiting_with_going():
    """Corridor maze 6,000,054 (`research.mazes`, held out): the optimum wins for certain; the default used
    to pace North and South from the start, the game never ending. On the core: the Python engine takes a second or
    more a move at the small maze's budget, and plays the same moves (the engines' tests above and elsewhere)."""
    from research.gap import AgentSpec, agent_value, optimum
    from research.mazes import MAZE_SETS
    assert MAZE_SETS["corridors"][1](6000054).layout.text == CORRIDOR.text
    assert optimum(CORRIDOR, None).win == pytest.approx(1.0, abs=1e-9)
    assert agent_value(AgentSpec.parse("expectimax"), CORRIDOR).win == pytest.approx(1.0, abs=1e-9)


@needs_core
def test_the_command_line_wins_every_game_on_that_maze(tmp_path):
    """As a user plays it: the maze in a .lay file, `pacman-ai play` in a fresh folder with its defaults (the
    default agent, the default move limit), ten games, all won (on the core, as the test above)."""
    (tmp_path / "corr54.lay").write_text(CORRIDOR.text)
    done = subprocess.run([sys.executable, "-m", "pacman", "play", "--layout", "corr54.lay", "--games", "10",
                           "--seed", "0", "--display", "none"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("10 games: 10 won (100%)")
