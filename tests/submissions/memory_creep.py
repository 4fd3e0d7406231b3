"""Hostile: allocates memory without end, 16 MB at a time."""


class ExpectimaxAgent:
    def __init__(self, depth=2, evaluation=None):
        self.depth = depth

    def get_action(self, state):
        hoard = []
        while True:
            hoard.append(bytearray(1 << 24))


def better_evaluation(state):
    hoard = []
    while True:
        hoard.append(bytearray(1 << 24))
