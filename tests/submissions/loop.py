"""Hostile: never returns."""


class ExpectimaxAgent:
    def __init__(self, depth=2, evaluation=None):
        self.depth = depth

    def get_action(self, state):
        while True:
            pass


def better_evaluation(state):
    while True:
        pass
