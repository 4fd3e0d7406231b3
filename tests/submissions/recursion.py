"""Hostile: unbounded recursion with the recursion limit raised (may crash the interpreter)."""

import sys


def _down(n):
    return _down(n + 1) + 1


class ExpectimaxAgent:
    def __init__(self, depth=2, evaluation=None):
        self.depth = depth

    def get_action(self, state):
        sys.setrecursionlimit(10 ** 8)
        return _down(0)


def better_evaluation(state):
    sys.setrecursionlimit(10 ** 8)
    return _down(0)
