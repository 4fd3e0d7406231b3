"""Test support shipped with the product: slow, obviously correct versions that the fast code is checked against.

`simple_engine.SimpleState` plays the rules by deep-copying plain lists; the fast
engine (`pacman.state.GameState`) must agree with it move by move.
`textbook.textbook_action_values` is expectimax by the book; `agents.ExpectimaxAgent`
must agree with it value for value. The tests use both, and `pacman-ai bench`
times them as the slow baselines. Nothing here is used to play a game.
"""

from pacman.conformance.simple_engine import SimpleState
from pacman.conformance.textbook import textbook_action, textbook_action_values, uniform_ghosts

__all__ = ["SimpleState", "textbook_action", "textbook_action_values", "uniform_ghosts"]
