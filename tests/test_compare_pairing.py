"""Why pairing pays with random ghosts (docs/experiments.md, "When pairing pays: random ghosts").

Random ghosts do not look at Pacman and each draws from a seeded stream of its own, so on a layout
without capsules the ghosts walk the same in both games of a pair whatever the two Pacmans do; the
games' outcomes then go together and the paired interval is narrower than the unpaired one.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest

from pacman.agents.ghosts import make_ghosts
from pacman.agent_specs import make_pacman_agent
from pacman.game import run_game
from pacman.layout import load_layout

ENV = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")


def _ghost_moves(actions: list, num_ghosts: int) -> list:
    """The ghosts' moves of a game's interleaved actions (Pacman's are every (num_ghosts + 1)th, from 0)."""
    return [action for turn, action in enumerate(actions) if turn % (num_ghosts + 1)]


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 5, 6, 7])
def test_random_ghosts_walk_the_same_in_both_games_of_a_pair_on_a_layout_without_capsules(seed):
    layout = load_layout("trapped")
    assert not layout.capsules
    games = [run_game(layout, make_pacman_agent("expectimax", {"depth": depth}), make_ghosts("random", 2), seed=seed)
             for depth in (2, 3)]
    shallow, deep = (_ghost_moves(game.actions, 2) for game in games)
    shorter = min(len(shallow), len(deep))
    assert shorter >= 2  # each ghost moved at least once in both games
    assert shallow[:shorter] == deep[:shorter]


def test_the_same_pacmans_against_directional_ghosts_part_ways():
    # The contrast: directional ghosts chase Pacman, so once the Pacmans differ the ghosts do too.
    layout = load_layout("tricky")
    parted = 0
    for seed in range(3):
        games = [run_game(layout, make_pacman_agent("expectimax", {"depth": depth}), make_ghosts("directional", 4),
                          seed=seed, max_moves=60) for depth in (1, 2)]
        shallow, deep = (_ghost_moves(game.actions, 4) for game in games)
        shorter = min(len(shallow), len(deep))
        parted += shallow[:shorter] != deep[:shorter]
    assert parted == 3


def test_paired_win_interval_is_narrower_than_the_unpaired_one_on_the_same_games(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "pacman", "compare", "--layout", "trapped", "--ghosts", "random",
         "--config", "d2:--agent-args depth=2,evaluation=scaled", "--config", "d3:--agent-args depth=3",
         "--games", "40", "--jobs", "2", "--json", "--quiet"],
        cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    paired = json.loads(done.stdout)["paired"]
    assert paired["pairs"] == 40
    wins = paired["wins"]
    both, only_a, only_b, neither = wins["both"], wins["only_a"], wins["only_b"], wins["neither"]
    # Depth 3 with `dots` wins more often than depth 2 with `scaled`, and the two sides win on the same seeds far
    # more than chance would have it.
    assert only_b > only_a
    phi = (both * neither - only_a * only_b) / math.sqrt(
        (both + only_a) * (only_b + neither) * (both + only_b) * (only_a + neither))
    assert phi > 0.3
    low, high = paired["win_interval"]
    unpaired_low, unpaired_high = paired["win_interval_unpaired"]
    assert low <= paired["win_difference"] <= high
    assert high - low < 0.9 * (unpaired_high - unpaired_low)
