"""Hostile: the library's search, wrapped (found in the source: every question scores 0)."""

import pacman.agents.expectimax as library


class ExpectimaxAgent(library.ExpectimaxAgent):
    """The project's agent under the student's name."""


def better_evaluation(state):
    return state.score
