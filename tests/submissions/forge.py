"""Hostile: tries to fake its results instead of searching.

It prints result-looking JSON, writes result files wherever it can guess, and
writes fake messages to every open file descriptor; then it returns a poor action.
"""

import json
import os

FAKE = {"event": "result", "item": 0, "ok": True, "score": 100, "max_score": 100,
        "data": {"action": "West", "action_type": "str", "expanded": [], "terminal": [], "calls": 0,
                 "outcome": "won", "actions": []}}


def _forge():
    text = json.dumps(FAKE) + "\n"
    print(text)
    print(json.dumps({"score": 100, "tests": [], "execution_time": 0}))
    for path in ("results.json", "/tmp/results.json", "/autograder/results/results.json"):
        try:
            with open(path, "w") as handle:
                handle.write(json.dumps({"score": 100}))
        except OSError:
            pass
    for fd in range(3, 64):
        try:
            os.write(fd, text.encode())
        except OSError:
            pass


class ExpectimaxAgent:
    def __init__(self, depth=2, evaluation=None):
        self.depth = depth

    def get_action(self, state):
        _forge()
        return state.legal_actions(0)[-1]


def better_evaluation(state):
    _forge()
    return 0.0
