"""A user's code that fails inside the environments says where, in the user's file, as the commands do.

Each case is a script and the user's module in a fresh folder, run with ``python script.py`` as a user runs it:
the traceback is Python's, and its last lines are the error, the frames of the user's files it passed through
(file, line, function, the source line) and the hint for a common mistake (PEP 678 notes: Python 3.11 and later).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="exception notes are new in Python 3.11")

PROPERTY_HINT = "  hint: GameState.pacman_position is a property: write state.pacman_position, without ()"

MY_EVAL = """\
def evaluate(state):
    x, y = state.pacman_position()
    return x
"""

MY_AGENT = """\
def _nearest(state):
    return {}[state.score]


class Crashing:
    def get_action(self, state):
        return _nearest(state)


class Lazy:
    def get_action(self, state):
        if state.score > 10 ** 9:
            return "Stop"


class BadReset:
    def reset(self, rng=None, ghost_agents=()):
        self.ghosts = ghost_agents[5]

    def get_action(self, state):
        return "Stop"
"""

MY_GHOST = """\
from pacman.agents.ghosts import RandomGhost


class Sleepy(RandomGhost):
    def distribution(self, state):
        return [(action, 1.0) for action in state.legal_actions(self.index) if action == state.pacman_position()]
"""

#: What each script does, and the lines its stderr must end with.
SCRIPTS = {
    "an evaluation, through AgentPolicy": (
        """
        from pacman.agents import ExpectimaxAgent
        from pacman.envs import PacmanEnv
        from pacman.envs.policies import AgentPolicy, evaluate_policy

        policy = AgentPolicy(ExpectimaxAgent(depth=1, evaluation="my_eval.py:evaluate"))
        evaluate_policy("mine", policy, PacmanEnv("small"), episodes=1)
        """,
        ["TypeError: 'tuple' object is not callable",
         "  my_eval.py:2 in evaluate: x, y = state.pacman_position()", PROPERTY_HINT]),
    "an evaluation, in a loop of the user's own": (
        """
        from my_eval import evaluate
        from pacman.agents import ExpectimaxAgent
        from pacman.envs import PacmanEnv
        from pacman.envs.policies import AgentPolicy

        env = PacmanEnv("small")
        observation, info = env.reset(seed=0)
        policy = AgentPolicy(ExpectimaxAgent(depth=1, evaluation=evaluate))
        policy.start(env)
        env.step(policy(observation, info))
        """,
        ["TypeError: 'tuple' object is not callable",
         "  my_eval.py:2 in evaluate: x, y = state.pacman_position()", PROPERTY_HINT]),
    "an agent's get_action": (
        """
        from my_agent import Crashing
        from pacman.envs import PacmanEnv
        from pacman.envs.policies import AgentPolicy, evaluate_policy

        evaluate_policy("crashing", AgentPolicy(Crashing()), PacmanEnv("small"), episodes=1)
        """,
        ["KeyError: 0", "  my_agent.py:7 in get_action: return _nearest(state)",
         "  my_agent.py:2 in _nearest: return {}[state.score]"]),
    "an agent's get_action that returns None": (
        """
        from my_agent import Lazy
        from pacman.envs import PacmanEnv
        from pacman.envs.policies import AgentPolicy, evaluate_policy

        evaluate_policy("lazy", AgentPolicy(Lazy()), PacmanEnv("small"), episodes=1)
        """,
        ["pacman.errors.IllegalActionError: my_agent.py:11: Lazy.get_action returned None, not an Action (North, "
         "South, East, West or Stop)",
         "  hint: a function returned None: does every path of it end in return (an evaluation returns a number)?"]),
    "an agent's reset": (
        """
        from my_agent import BadReset
        from pacman.envs import PacmanEnv
        from pacman.envs.policies import AgentPolicy, evaluate_policy

        evaluate_policy("bad reset", AgentPolicy(BadReset()), PacmanEnv("small"), episodes=1)
        """,
        ["IndexError: tuple index out of range", "  my_agent.py:18 in reset: self.ghosts = ghost_agents[5]"]),
    "a policy function": (
        """
        from my_eval import evaluate
        from pacman.envs import PacmanEnv
        from pacman.envs.policies import evaluate_policy

        def policy(observation, info):
            return int(evaluate(info["state"]))

        evaluate_policy("mine", policy, PacmanEnv("small"), episodes=1)
        """,
        ["TypeError: 'tuple' object is not callable", '  script.py:7 in policy: return int(evaluate(info["state"]))',
         "  my_eval.py:2 in evaluate: x, y = state.pacman_position()", PROPERTY_HINT]),
    "a ghost kind of the user's, in PacmanEnv": (
        """
        from my_ghost import Sleepy
        from pacman.agents.ghosts import GHOST_KINDS
        from pacman.envs import PacmanEnv

        GHOST_KINDS["sleepy"] = Sleepy
        env = PacmanEnv("small", ghosts="sleepy")
        env.reset(seed=0)
        env.step(4)
        """,
        ["TypeError: 'tuple' object is not callable",
         "  my_ghost.py:6 in distribution: return [(action, 1.0) for action in state.legal_actions(self.index) "
         "if action == state.pacman_position()]", PROPERTY_HINT]),
    "a ghost kind of the user's, in PettingZoo": (
        """
        from my_ghost import Sleepy
        from pacman.agents.ghosts import GHOST_KINDS
        from pacman.envs.pettingzoo_env import PacmanAECEnv

        GHOST_KINDS["sleepy"] = Sleepy
        env = PacmanAECEnv("small", ghosts="sleepy", controlled=())
        env.reset(seed=0)
        env.step(4)
        """,
        ["TypeError: 'tuple' object is not callable",
         "  my_ghost.py:6 in distribution: return [(action, 1.0) for action in state.legal_actions(self.index) "
         "if action == state.pacman_position()]", PROPERTY_HINT]),
}


@pytest.mark.parametrize("case", SCRIPTS)
def test_the_error_ends_with_the_users_file_and_line_and_the_hint(tmp_path, case):
    if "PettingZoo" in case:
        pytest.importorskip("pettingzoo")
    script, ending = SCRIPTS[case]
    for name, text in (("my_eval.py", MY_EVAL), ("my_agent.py", MY_AGENT), ("my_ghost.py", MY_GHOST)):
        (tmp_path / name).write_text(text)
    (tmp_path / "script.py").write_text(textwrap.dedent(script))
    done = subprocess.run([sys.executable, "script.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    lines = done.stderr.rstrip("\n").splitlines()
    assert lines[0] == "Traceback (most recent call last):", done.stderr
    assert lines[-len(ending):] == ending, done.stderr
    assert sum(line.startswith("  hint: ") for line in lines) == sum(line.startswith("  hint: ") for line in ending)


def test_a_users_error_keeps_its_type_and_is_noted_once():
    from pacman.user_code import note_user_frames

    def evaluate(state):  # this test's file counts as a user's file
        return state.pacman_position()

    from pacman import GameState, load_layout

    try:
        evaluate(GameState.initial(load_layout("tiny")))
    except TypeError as exc:
        assert note_user_frames(exc) is exc and note_user_frames(exc) is exc
        assert len(exc.__notes__) == 1
        note = exc.__notes__[0].splitlines()
        assert note[-1] == PROPERTY_HINT and note[-2].endswith("in evaluate: return state.pacman_position()")
        assert Path(note[-2].strip().split(":", 1)[0]).name == "test_envs_user_errors.py"
    else:
        pytest.fail("no error")
