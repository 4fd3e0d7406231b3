"""Games that can never end are cut off before the first move, and say why; every other game plays as before."""

import subprocess
import sys

import pytest

from pacman.agents import GreedyAgent, RandomAgent, make_ghosts
from pacman import Action, GameState, load_layout, parse_layout, run_game
from pacman.game import endless_reason

WALLED_IN = parse_layout("%%%%%%%\n%P%.G %\n%%%%%%%\n", name="walled")
NO_FOOD_NO_GHOST = parse_layout("%%%%%\n%P  %\n%%%%%\n", name="empty")
FOOD_OUTSIDE = parse_layout("%%%%%%%\n%P.%. %\n%%%%%%%\n", name="outside")
GHOST_ELSEWHERE = parse_layout("%%%%%%%%\n%P %G  %\n%%%%%%%%\n", name="elsewhere")
CAN_BE_LOST = parse_layout("%%%%%%\n%P  G%\n%%%%%%\n", name="lost-only")


class Counting:
    """Stops; counts its calls."""

    def __init__(self):
        self.calls = 0

    def get_action(self, state):
        self.calls += 1
        return Action.STOP


@pytest.mark.parametrize("layout, ghosts, reason", [
    (WALLED_IN, 1, "1 of 1 food dot cannot be reached by Pacman and no ghost in play can reach him"),
    (NO_FOOD_NO_GHOST, 0, "there is no food and there are no ghosts in play"),
    (FOOD_OUTSIDE, 0, "1 of 2 food dots cannot be reached by Pacman and there are no ghosts in play"),
    (GHOST_ELSEWHERE, 1, "there is no food and no ghost in play can reach him"),
    (CAN_BE_LOST, 0, "there is no food and there are no ghosts in play"),
])
@pytest.mark.parametrize("max_moves", [None, 50])
def test_a_game_that_can_never_end_is_cut_off_at_once(layout, ghosts, reason, max_moves):
    agent = Counting()
    result = run_game(layout, agent, make_ghosts("random", ghosts), seed=0, max_moves=max_moves)
    assert result.cut_off and not (result.won or result.lost or result.crashed)
    assert result.moves == 0 and result.actions == () and result.score == 0 and agent.calls == 0
    assert result.error == f"the game can never end: {reason}; stopped before the first move"
    assert result.outcome == "cut-off"


def test_games_that_can_end_are_not_touched():
    assert endless_reason(GameState.initial(CAN_BE_LOST)) is None  # the ghost can catch him
    result = run_game(CAN_BE_LOST, Counting(), make_ghosts("random", 1), seed=0)
    assert result.lost and result.error is None
    for name in ("test", "medium", "tricky"):
        layout = load_layout(name)
        assert endless_reason(GameState.initial(layout, num_ghosts=0)) is None
        assert endless_reason(GameState.initial(layout)) is None
    result = run_game(FOOD_OUTSIDE, GreedyAgent(), [], seed=0, max_moves=3)
    assert result.cut_off and result.error is not None and result.moves == 0
    line = parse_layout("%%%%%%\n%P...%\n%%%%%%\n")
    assert run_game(line, GreedyAgent(), [], seed=0).won


def test_the_display_sees_the_start_and_the_end():
    events = []

    class Recorder:
        def start(self, state):
            events.append("start")

        def update(self, state, agent, action):
            events.append("update")

        def finish(self, state, result):
            events.append(("finish", result.outcome))

    run_game(NO_FOOD_NO_GHOST, RandomAgent(), [], seed=0, display=Recorder())
    assert events == ["start", ("finish", "cut-off")]


def test_regions_number_the_connected_parts():
    assert WALLED_IN.region((1, 1)) != WALLED_IN.region((3, 1))
    assert WALLED_IN.region((3, 1)) == WALLED_IN.region((5, 1))
    assert WALLED_IN.region((0, 0)) == -1 and WALLED_IN.region((99, 99)) == -1


def test_cli_play_ends_an_endless_game(tmp_path):
    (tmp_path / "walled.lay").write_text("%%%%%\n%P%.%\n%%%%%\n")
    proc = subprocess.run([sys.executable, "-m", "pacman", "play", "--layout", "walled.lay", "--display", "none",
                           "--seed", "0"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ("game 1: cut-off, score 0, 0 moves, seed 0 - the game can never end: 1 of 1 food "
                                   "dot cannot be reached by Pacman and there are no ghosts in play; "
                                   "stopped before the first move")
