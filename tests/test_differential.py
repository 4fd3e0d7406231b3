"""The fast engine equals the simple engine (pacman.conformance) at every step of random games.

Hypothesis draws small random layouts (walls, food, capsules, up to three ghosts)
and random legal action sequences; after every single move every observable part
of the two states must agree: legal actions of every agent, score, positions,
directions, scared timers, food, capsules, win and loss.
"""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pacman import GameState, LayoutError, load_layout, parse_layout
from pacman.conformance import SimpleState
from pacman.layout import layout_names


def observe(state):
    """Everything the rules decide, in comparable form."""
    return {
        "legal": [tuple(state.legal_actions(i)) for i in range(state.num_agents)],
        "score": state.score,
        "pacman": tuple(state.pacman_position),
        "ghosts": tuple(tuple(p) for p in state.ghost_positions),
        "directions": tuple(state.ghost_directions),
        "timers": tuple(state.scared_timers),
        "food": frozenset(state.food),
        "food_count": state.food_count,
        "capsules": tuple(sorted(state.capsules)),
        "win": state.is_win(),
        "lose": state.is_lose(),
    }


@st.composite
def layouts(draw):
    width = draw(st.integers(4, 9))
    height = draw(st.integers(3, 7))
    inner = [(x, y) for x in range(1, width - 1) for y in range(1, height - 1)]
    kinds = draw(st.lists(st.sampled_from("%%.....oo   "), min_size=len(inner), max_size=len(inner)))
    grid = {cell: kind for cell, kind in zip(inner, kinds)}
    open_cells = [cell for cell in inner if grid[cell] != "%"]
    if not open_cells:
        open_cells = [inner[0]]
        grid[inner[0]] = " "
    order = draw(st.permutations(open_cells))
    num_ghosts = draw(st.integers(0, min(3, len(order) - 1)))
    grid[order[0]] = "P"
    for i, cell in enumerate(order[1:1 + num_ghosts]):
        grid[cell] = draw(st.sampled_from(["G", "1", "2", "3", "4"]))
    rows = []
    for y in reversed(range(height)):
        rows.append("".join(grid.get((x, y), "%") for x in range(width)))
    text = "\n".join(rows) + "\n"
    try:
        return parse_layout(text, name="drawn")
    except LayoutError:  # a walled-in ghost: fall back to the same maze without ghosts
        return parse_layout(text.translate(str.maketrans("G1234", "     ")), name="drawn")


def play_both(layout, choose, steps, num_ghosts=None):
    """Play the same random game in both engines, comparing after every move."""
    fast = GameState.initial(layout, num_ghosts=num_ghosts)
    ref = SimpleState.initial(layout, num_ghosts=num_ghosts)
    assert observe(fast) == observe(ref)
    agent = 0
    for step in range(steps):
        legal = fast.legal_actions(agent)
        if not legal:
            break
        action = legal[choose(len(legal))]
        fast = fast.successor(agent, action)
        ref = ref.successor(agent, action)
        fast_view, ref_view = observe(fast), observe(ref)
        assert fast_view == ref_view, f"step {step}: agent {agent} took {action}\n{layout.text}"
        agent = (agent + 1) % fast.num_agents
    return fast


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layout=layouts(), data=st.data())
def test_fast_engine_equals_simple_engine_on_random_layouts(layout, data):
    play_both(layout, lambda n: data.draw(st.integers(0, n - 1)), steps=120)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layout=layouts(), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_fast_engine_equals_simple_engine_with_fewer_ghosts(layout, seed, data):
    k = data.draw(st.integers(0, layout.num_ghosts))
    rng = random.Random(seed)
    play_both(layout, rng.randrange, steps=200, num_ghosts=k)


# A maze built to reach the rare cases often: a capsule in every corner, ghosts
# close by, short corridors, so scared ghosts, half steps, snaps and eaten ghosts
# all happen within a few hundred moves.
SCARY = parse_layout(
    "%%%%%%%%%%%\n"
    "%1   .   2%\n"
    "% %o%.%o% %\n"
    "%  o P o  %\n"
    "% %o%.%o% %\n"
    "%G   .   3%\n"
    "%%%%%%%%%%%\n",
    name="scary",
)


def test_the_scary_maze_reaches_the_rare_cases():
    """Guard for the test below: random play here does eat capsules and ghosts, and snaps timers."""
    eaten = snaps = half = 0
    for seed in range(25):
        rng = random.Random(seed)
        state, agent = GameState.initial(SCARY), 0
        while not state.is_terminal():
            legal = state.legal_actions(agent)
            before = state
            state = state.successor(agent, legal[rng.randrange(len(legal))])
            eaten += state.score - before.score in (199, 200)
            snaps += agent > 0 and before.scared_timers[agent - 1] == 1
            half += any(x % 1 or y % 1 for x, y in state.ghost_positions)
            agent = (agent + 1) % state.num_agents
    assert eaten >= 10 and snaps >= 5 and half >= 500


@pytest.mark.parametrize("seed", range(25))
def test_fast_engine_equals_simple_engine_around_scared_ghosts(seed):
    rng = random.Random(seed)
    play_both(SCARY, rng.randrange, steps=600)


@pytest.mark.slow
@pytest.mark.parametrize("name", layout_names())
def test_fast_engine_equals_simple_engine_on_every_shipped_layout(name):
    layout = load_layout(name)
    for seed in range(20):
        rng = random.Random(seed)
        play_both(layout, rng.randrange, steps=1500)
