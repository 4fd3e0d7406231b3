"""The game loop: outcomes, seeded replay, and agents that crash, cheat or hang."""

import threading
import time

import pytest

from pacman.agents import GreedyAgent, RandomAgent, RandomGhost, make_ghosts
from pacman import Action, GameState, parse_layout, run_game
from pacman.errors import PacmanError

ARENA = parse_layout(
    "%%%%%%%%%%\n"
    "%P...... %\n"
    "%.%%.%%%.%\n"
    "%.  G  1.%\n"
    "%%%%%%%%%%\n",
    name="arena",
)
LINE = parse_layout("%%%%%%\n%P...%\n%%%%%%\n", name="line")


class StopAgent:
    """Always stops; draws `draws` numbers from its own stream first."""

    def __init__(self, draws=0):
        self.draws = draws

    def reset(self, rng, ghost_agents=()):
        self.rng = rng

    def get_action(self, state):
        self.rng.random(self.draws)
        return Action.STOP


def test_greedy_eats_everything_without_ghosts():
    result = run_game(LINE, GreedyAgent(), [], seed=0)
    assert result.won and not result.lost
    assert result.moves == 3
    assert result.score == 3 * 10 - 3 + 500
    assert result.actions == (Action.EAST,) * 3
    assert len(result.move_times) == 3 and all(t >= 0 for t in result.move_times)
    assert result.outcome == "won"


def test_same_seed_replays_the_same_game():
    a = run_game(ARENA, RandomAgent(), make_ghosts("random", 2), seed=11, max_moves=200)
    b = run_game(ARENA, RandomAgent(), make_ghosts("random", 2), seed=11, max_moves=200)
    c = run_game(ARENA, RandomAgent(), make_ghosts("random", 2), seed=12, max_moves=200)
    assert a.actions == b.actions and a.score == b.score
    assert a.actions != c.actions


def test_ghost_streams_do_not_depend_on_pacman_randomness():
    quiet = run_game(ARENA, StopAgent(draws=0), make_ghosts("random", 2), seed=5, max_moves=60)
    noisy = run_game(ARENA, StopAgent(draws=7), make_ghosts("random", 2), seed=5, max_moves=60)
    assert quiet.actions == noisy.actions


def test_replaying_the_actions_reproduces_the_final_state():
    result = run_game(ARENA, RandomAgent(), make_ghosts("directional", 2), seed=3, max_moves=100)
    state = GameState.initial(ARENA, num_ghosts=2)
    for turn, action in enumerate(result.actions):
        state = state.successor(turn % state.num_agents, action)
    assert state.score == result.score
    assert state.is_win() == result.won and state.is_lose() == result.lost


def test_max_moves_cuts_the_game_off():
    apart = parse_layout("%%%%%%%\n%P.%G %\n%%%%%%%\n", name="apart")  # the ghost cannot reach Pacman
    result = run_game(apart, StopAgent(), make_ghosts("random", 1), seed=0, max_moves=7)
    assert result.cut_off and not (result.won or result.lost) and result.outcome == "cut-off"
    assert result.moves == 7 and result.score == -7
    assert len(result.actions) == 14  # each Pacman move answered by the ghost


def test_a_crashing_agent_ends_its_game_as_a_crash():
    class Crasher:
        def get_action(self, state):
            raise RuntimeError("boom")

    result = run_game(ARENA, Crasher(), make_ghosts("random", 2), seed=0)
    assert result.crashed and result.failed_agent == 0
    assert result.error == "Pacman (agent 0) raised RuntimeError: boom"
    assert not (result.won or result.lost or result.cut_off) and result.moves == 0


def test_an_illegal_action_is_recorded_as_a_crash():
    class Cheater:
        def get_action(self, state):
            return Action.WEST  # into the wall

    result = run_game(LINE, Cheater(), [], seed=0)
    assert result.crashed and result.failed_agent == 0
    assert "chose <Action.WEST: 'West'>" in result.error and "legal: East, Stop" in result.error


def test_a_hanging_agent_times_out_and_the_game_goes_on():
    release = threading.Event()

    class Hanger:
        def get_action(self, state):
            release.wait(60)
            return Action.STOP

    started = time.monotonic()
    result = run_game(LINE, Hanger(), [], seed=0, move_time_limit=0.05)
    waited = time.monotonic() - started
    release.set()
    assert result.timed_out and result.failed_agent == 0 and not result.crashed
    assert "0.05 s move time limit" in result.error
    assert waited < 30  # abandoned, not waited for


def test_time_limit_works_off_the_main_thread():
    results = []
    thread = threading.Thread(target=lambda: results.append(
        run_game(LINE, GreedyAgent(), [], seed=0, move_time_limit=5.0)))
    thread.start()
    thread.join(60)
    assert results and results[0].won and not results[0].timed_out


def test_a_ghost_crash_names_the_ghost():
    class BadGhost(RandomGhost):
        def get_action(self, state, rng):
            raise ValueError("no idea")

    result = run_game(ARENA, StopAgent(), [BadGhost(1)], seed=0)
    assert result.crashed and result.failed_agent == 1 and "ghost 1 raised ValueError" in result.error


def test_display_sees_every_move():
    class Recorder:
        def __init__(self):
            self.calls = []

        def start(self, state):
            self.calls.append("start")

        def update(self, state, agent, action):
            self.calls.append((agent, action))

        def finish(self, state, result):
            self.calls.append(("finish", result.outcome))

    display = Recorder()
    result = run_game(ARENA, RandomAgent(), make_ghosts("random", 2), seed=2, max_moves=20, display=display)
    assert display.calls[0] == "start" and display.calls[-1] == ("finish", result.outcome)
    assert [action for _, action in display.calls[1:-1]] == list(result.actions)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(seed=-1), "seed"),
        (dict(max_moves=0), "max_moves"),
        (dict(move_time_limit=0), "move_time_limit"),
    ],
)
def test_bad_arguments_are_rejected(kwargs, message):
    with pytest.raises(PacmanError, match=message):
        run_game(LINE, GreedyAgent(), [], **kwargs)


def test_ghosts_must_come_in_index_order():
    with pytest.raises(PacmanError, match="index 2"):
        run_game(ARENA, GreedyAgent(), [RandomGhost(2), RandomGhost(1)])
