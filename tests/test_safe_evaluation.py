"""`safe`, the default evaluation: `better`'s features without the pull toward scared ghosts and with the room
term at 60 a cell; and the default agent it makes, which must not circle where `better` would not."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from test_compiled_core import needs_core, pacman_positions
from test_differential import SCARY

from pacman import load_layout, run_game
from pacman.agents import DEFAULT_EVALUATION, make_ghosts
from pacman.agent_specs import make_pacman_agent
from pacman.agents.evaluation import better_evaluation, safe_evaluation
from pacman.distances import DistanceTable

#: Seeds of `tiny` (games 395, 487, 518, 612, 694, 857 and 926 of `pacman-ai batch --layout tiny --seed 0`) on
#: which the room term at 90 a cell made depth 2 circle until the 500-move limit instead of eating the last dots.
CIRCLING_SEEDS = [4258706320, 1594475909, 2019668350, 2284623035, 2041283954, 2484600060, 1289123837]


def expected_difference(state):
    """`better` minus `safe` by their definitions: better's pull toward each scared ghost Pacman can still reach
    (150 / (1 + d)), less the 30 a cell `safe` adds to the room term (12 cells, hunters within 8 steps)."""
    table = DistanceTable.of(state.layout)
    row = table.rows[table.cell(state.pacman_position)]
    pull = room_extra = 0.0
    hunters = []
    for position, timer in zip(state.ghost_positions, state.scared_timers):
        d = row[table.cell(position)]
        if timer:
            if timer > d:
                pull += 150.0 / (1.0 + d)
        else:
            hunters.append(table.cell(position))
    if hunters and min(row[c] for c in hunters) <= 8:
        room = table.room(table.cell(state.pacman_position), hunters)
        if room < 12:
            room_extra = 30.0 * (12 - room)
    return pull + room_extra, pull, room_extra


def test_safe_is_better_without_the_scared_pull_and_with_a_dearer_room():
    states = [s for layout in (SCARY, load_layout("small"), load_layout("tricky"))
              for s in pacman_positions(layout, 60, seed=3)]
    pulled = cornered = 0
    for state in states:
        difference, pull, room_extra = expected_difference(state)
        assert better_evaluation(state) - safe_evaluation(state) == pytest.approx(difference, abs=1e-9), repr(state)
        pulled += pull > 0
        cornered += room_extra > 0
    assert pulled >= 5 and cornered >= 5, (pulled, cornered)  # both terms are exercised


# Games of the agents, not of an engine, so on the compiled core only: the Python engine plays the same moves (the
# parity tests of tests/test_compiled_core.py) at 3-4 s a move on `tiny`, 15 minutes for these (CI's
# PACMAN_AI_ENGINE=python run skips them).
@needs_core
@pytest.mark.parametrize("evaluation", ["safe", "scaled", None])  # None: the default agent's, `dots`
def test_safe_and_the_default_agent_win_the_games_a_dearer_room_circled_in(evaluation):
    assert DEFAULT_EVALUATION == "dots"
    layout = load_layout("tiny")
    for seed in CIRCLING_SEEDS:
        result = run_game(layout, make_pacman_agent("expectimax", {"evaluation": evaluation}),
                          make_ghosts("random", 1), seed=seed, max_moves=500)
        assert result.won and result.moves < 100, (seed, result.moves)


@needs_core  # as above
def test_the_default_agent_wins_one_of_them_from_the_command_line(tmp_path):
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    done = subprocess.run([sys.executable, "-m", "pacman", "play", "--layout", "tiny", "--seed", str(CIRCLING_SEEDS[0]),
                           "--max-moves", "500", "--display", "none", "--json"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    game = json.loads(done.stdout)
    assert game["agent_args"]["evaluation"] == "dots" and game["won"] and not game["cut_off"], game
