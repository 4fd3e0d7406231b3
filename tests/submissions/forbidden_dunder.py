"""Hostile: the library's search through __import__ with a computed name, at import (every question scores 0)."""

_search = __import__(".".join(["pacman", "agents", "expectimax"]), fromlist=["ExpectimaxAgent"])
ExpectimaxAgent = _search.ExpectimaxAgent


def better_evaluation(state):
    return state.score
