"""Another sensible reflex agent, weighted differently from the reference's (graded on `reflex` only).

It rewards being close to food with 10 / (1 + distance), flees a ghost that is
within one step, and never stops unless it must: it too must earn 4/4.
"""


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
        if after.is_win():
            return 1e9
        if after.is_lose():
            return -1e9
        px, py = after.pacman_position
        nearest = min((abs(px - x) + abs(py - y) for x, y in after.food), default=0)
        value = after.score + 10.0 / (1 + nearest)
        for (gx, gy), timer in zip(after.ghost_positions, after.scared_timers):
            if not timer and abs(px - gx) + abs(py - gy) < 2:
                value -= 500
        if action.value == "Stop":
            value -= 20
        return value
