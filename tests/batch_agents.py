"""Misbehaving Pacman agents for the batch tests, loaded by the workers as ``tests/batch_agents.py:Class``."""

import os
import signal
import sys
import time


class _Walker:
    """Moves at random from its own stream; every subclass draws the same numbers, so games stay comparable."""

    def reset(self, rng, ghost_agents=()):
        self.rng = rng
        self.draw = rng.random()          # decides whether this game misbehaves
        self.token = int(rng.integers(2**62))  # names this game's marker file

    def get_action(self, state):
        actions = state.legal_actions(0)
        return actions[int(self.rng.integers(len(actions)))]


class KillerAgent(_Walker):
    """Kills its own worker process (SIGKILL) on its first move in games whose first draw is below `kill_below`.

    With `marker` (a folder), it kills only the first time a game is played: the
    retry finds the game's marker file and plays on.
    """

    def __init__(self, kill_below=0.3, marker=None):
        self.kill_below = kill_below
        self.marker = marker

    def get_action(self, state):
        if self.draw < self.kill_below:
            path = None if self.marker is None else os.path.join(self.marker, str(self.token))
            if path is None or not os.path.exists(path):
                if path is not None:
                    open(path, "w").close()
                os.kill(os.getpid(), signal.SIGKILL)
        return super().get_action(state)


class RaisingAgent(_Walker):
    """Raises on its third move in games whose first draw is below `raise_below`."""

    def __init__(self, raise_below=0.5):
        self.raise_below = raise_below
        self.moves = 0

    def get_action(self, state):
        self.moves += 1
        if self.draw < self.raise_below and self.moves == 3:
            raise RuntimeError("deliberate failure")
        return super().get_action(state)


class SleepyAgent(_Walker):
    """Sleeps `seconds` on its second move in games whose first draw is below `sleep_below`."""

    def __init__(self, sleep_below=0.5, seconds=1.0):
        self.sleep_below = sleep_below
        self.seconds = seconds
        self.moves = 0

    def get_action(self, state):
        self.moves += 1
        if self.draw < self.sleep_below and self.moves == 2:
            time.sleep(self.seconds)
        return super().get_action(state)


class NoPygameAgent(_Walker):
    """Crashes its game if pygame has been imported in the worker process."""

    def get_action(self, state):
        if "pygame" in sys.modules:
            raise RuntimeError("pygame was imported in a batch worker")
        return super().get_action(state)


class ExitingAgent(_Walker):
    """Calls ``sys.exit("not implemented")`` on its first move, as course stubs of unfinished methods do."""

    def get_action(self, state):
        sys.exit("not implemented")


class ExitCallingAgent(_Walker):
    """Calls the interactive ``exit()`` on its first move."""

    def get_action(self, state):
        exit()


class WorkerOnlyFailure(_Walker):
    """Builds in the parent process, raises when built in any other process (an environment that differs)."""

    def __init__(self):
        if os.getpid() != int(os.environ.get("BATCH_TEST_PARENT", "-1")):
            raise RuntimeError("cannot be built in a worker")


class KillThenExitAgent(_Walker):
    """Kills its worker on a game's first run (leaving a marker in `marker`), calls sys.exit on the retry."""

    def __init__(self, marker):
        self.marker = marker

    def get_action(self, state):
        path = os.path.join(self.marker, str(self.token))
        if not os.path.exists(path):
            open(path, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
        sys.exit("not implemented")
