"""Hostile: ends the process from inside the search and the evaluation."""

import os


class ExpectimaxAgent:
    def __init__(self, depth=2, evaluation=None):
        self.depth = depth

    def get_action(self, state):
        os._exit(0)


def better_evaluation(state):
    os._exit(3)
