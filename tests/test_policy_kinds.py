"""The research harness against hunting ghosts: `research.policy.policy_value` and `scripts/optimality_gap.py
--ghosts`, checked against two references they do not share code with: the solver's optimum (its own policy
valued by the chain must give it back) and seeded games of the policy (`run_game`)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pacman import load_layout, parse_layout, run_game
from pacman.agents import ExpectimaxAgent, make_ghosts
from pacman.agents.ghosts import GHOST_KINDS
from pacman.agents.solver import OptimalAgent, solve
from research.mazes import draw_set
from research.policy import policy_value

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "optimality_gap.py"
#: Every kind but random, from the registry: the kinds whose chance layers the chain weighs by `distribution`.
HUNTING = [kind for kind in GHOST_KINDS if kind != "random"]
#: Mazes of the tuning set (not the held-out one): the research generator's shapes, drawn by seed.
MAZES = [maze.layout for maze in draw_set("tuning", 4, 400)]


@pytest.mark.parametrize("kind", HUNTING)
def test_the_solvers_own_policy_is_worth_its_optimum_against_every_kind(kind):
    for layout in MAZES:
        agent = OptimalAgent("win")
        agent.reset(np.random.default_rng(0), make_ghosts(kind, layout.num_ghosts), layout)
        value = policy_value(layout, agent.get_action, ghosts=kind)
        assert math.isclose(value.win, solve(layout, kind).value, abs_tol=1e-9), layout.name


def test_a_policys_worth_against_directional_ghosts_is_what_its_games_win():
    # threeway against one directional ghost: the default's policy, valued exactly, then played 600 times
    layout = load_layout("threeway")
    agent = ExpectimaxAgent(depth=2)
    agent.reset(np.random.default_rng(0), make_ghosts("directional", layout.num_ghosts), layout)
    exact = policy_value(layout, agent.get_action, ghosts="directional").win
    games = 600
    wins = sum(run_game(layout, ExpectimaxAgent(depth=2), make_ghosts("directional", layout.num_ghosts), seed=seed,
                        max_moves=500).outcome == "won" for seed in range(games))
    spread = math.sqrt(exact * (1 - exact) / games)
    assert abs(wins / games - exact) <= 4 * spread + 1e-9, (wins, exact)
    # and the random ghosts' worth is another number: the kind is not ignored
    random_worth = policy_value(layout, ExpectimaxAgent(depth=2).get_action).win
    assert not math.isclose(random_worth, exact, abs_tol=1e-6)


def test_the_ghost_kinds_flag_of_optimality_gap(tmp_path):
    maze = tmp_path / "maze.lay"
    maze.write_text(MAZES[0].text)
    out = tmp_path / "gaps.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "--layout", str(maze), "--ghosts", "arcade", "--agent",
                           "optimal:objective=win", "--cache", str(tmp_path / "cache"), "--json", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "1 mazes (layouts, arcade ghosts)" in done.stdout
    report = json.loads(out.read_text())
    assert report["ghosts"] == "arcade"
    assert math.isclose(report["mazes"][0]["optimum"], solve(parse_layout(MAZES[0].text), "arcade").value)
    assert report["agents"]["optimal:objective=win"]["summary"]["mean_gap"] == pytest.approx(0.0, abs=1e-7)
    # cached under the kind's own name, beside nothing of random ghosts'
    assert [p.name.endswith("-arcade.json") for p in (tmp_path / "cache").iterdir()] == [True]
    refused = subprocess.run([sys.executable, str(SCRIPT), "--layout", str(maze), "--ghosts", "directional",
                              "--draw", str(tmp_path / "x.png")], capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2 and "--draw with --ghosts directional" in refused.stderr
    assert not (tmp_path / "x.png").exists() and "Traceback" not in refused.stderr
