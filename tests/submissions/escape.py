"""Hostile: leaves a process behind in a session of its own, which keeps overwriting the grader's results.

The process double-forks and calls setsid(), so killing the submission's process
group does not reach it. It notes its pid in `escapees.txt` beside this file and,
for a few seconds, writes a forged score into `out.json` there, as often as it can.
"""

import json
import os
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def _escape():
    if os.fork() != 0:
        return
    os.setsid()
    if os.fork() != 0:
        os._exit(0)
    with open(os.path.join(HERE, "escapees.txt"), "a") as handle:
        handle.write(f"{os.getpid()}\n")
    ends = time.monotonic() + 6
    while time.monotonic() < ends:
        try:
            with open(os.path.join(HERE, "out.json"), "w") as handle:
                json.dump({"score": 999, "max_score": 7, "questions": []}, handle)
        except OSError:
            pass
        time.sleep(0.05)
    os._exit(0)


_escape()


class ExpectimaxAgent:
    def __init__(self, depth=2, evaluation=None):
        self.depth = depth

    def get_action(self, state):
        return state.legal_actions(0)[-1]


def better_evaluation(state):
    return 0.0
