"""A reflex agent that chases the nearest food and never looks at the ghost (graded on `reflex` only): 0 of 4."""


class ReflexAgent:
    def get_action(self, state):
        best_value, best_action = None, None
        for action in state.legal_actions(0):
            value = self.score_action(state, action)
            if best_value is None or value > best_value:
                best_value, best_action = value, action
        return best_action

    def score_action(self, state, action):
        after = state.successor(0, action)
        px, py = after.pacman_position
        return after.score - min((abs(px - x) + abs(py - y) for x, y in after.food), default=0)
