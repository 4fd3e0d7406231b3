"""Hostile: the library's agent through a module that re-exports it (pacman.agent_specs.make_pacman_agent).

For an assignment that forbids only `agents`: the source imports nothing forbidden,
and the runtime guard refuses the pacman.agents.registry import that the re-exporting
function makes when it is called.
"""

from pacman.agent_specs import make_pacman_agent


class ExpectimaxAgent:
    def __init__(self, depth=2, evaluation=None):
        self.agent = make_pacman_agent("expectimax", {"depth": depth, "evaluation": evaluation})

    def get_action(self, state):
        return self.agent.get_action(state)


def better_evaluation(state):
    return state.score
