"""Hostile: tries to kill the process that runs it (the grader) and then its own process group."""

import os
import signal


def _attack():
    for pid in (os.getppid(), -os.getpgrp()):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return "Stop"


class ExpectimaxAgent:
    def __init__(self, depth=2, evaluation=None):
        self.depth = depth

    def get_action(self, state):
        return _attack()


def better_evaluation(state):
    _attack()
    return 0.0
