"""Hostile: asks for far more memory than the cap allows, at once."""


class ExpectimaxAgent:
    def __init__(self, depth=2, evaluation=None):
        self.depth = depth

    def get_action(self, state):
        return len(bytearray(8 << 30))


def better_evaluation(state):
    return len(bytearray(8 << 30))
