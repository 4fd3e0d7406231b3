"""The compiled core's arcade ghosts and Pacman's heading against the Python engine.

Every comparison is exact: the core's arcade kernel (agents/core/ghosts.c) works
on the doubled grid in integers, the Python model (agents/ghosts.py) in floats
that are exact at half cells, and the probabilities come from one table. States
come from random headed playouts (scared ghosts and half cells included) and from
positions drawn at random, every heading given to each; guards count the cases
that matter (half cells, ties, heading 4, Stop), so that a test that could not
fail does not pass unnoticed.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_differential import SCARY, layouts

from pacman import AgentSpecError, GameState, load_layout, parse_layout
from pacman.actions import ACTIONS, Action
from pacman.agents import ExpectimaxAgent
from pacman.agents.compiled import CompiledSearcher, core_games, core_state, core_status, game_state
from pacman.agents.evaluation import score_evaluation
from pacman.agents.expectimax import PacmanGame
from pacman.agents.ghosts import ARCADE_TIE_ORDER, GHOST_KINDS, ArcadeGhost, make_ghosts, model_reads_heading

USABLE, WHY = core_status()
pytestmark = pytest.mark.skipif(not USABLE, reason=f"the compiled core is not in use here: {WHY}")
#: The kinds of the arcade kernel, each with its own class.
ARCADE_KINDS = [name for name, cls in GHOST_KINDS.items() if issubclass(cls, ArcadeGhost)]
#: An open room: targets ahead of Pacman, the shy ghost's switch and ties between two moves all happen here.
ROOM = parse_layout(
    "%%%%%%%%%%%%\n"
    "%.......1..%\n"
    "%..o.......%\n"
    "%.3........%\n"
    "%....4..o..%\n"
    "%..........%\n"
    "%...%%.....%\n"
    "%.........2%\n"
    "%..P.......%\n"
    "%%%%%%%%%%%%\n",
    name="room",
)


def headed_playout(layout, rng, steps):
    """(state, agent to move) along a random game that keeps Pacman's heading, Stop chosen often."""
    state, agent = GameState.initial(layout, heading=True), 0
    out = [(state, agent)]
    for _ in range(steps):
        legal = state.legal_actions(agent)
        if not legal:
            break
        action = Action.STOP if agent == 0 and rng.random() < 0.2 else legal[rng.randrange(len(legal))]
        state = state.successor(agent, action)
        agent = (agent + 1) % state.num_agents
        out.append((state, agent))
    return out


def with_heading(state, heading):
    """`state` with Pacman's heading `heading` (0-4)."""
    return GameState.from_position_key(state.layout, state.position_key[:7] + (heading,))


def drawn_positions(layout, rng, count):
    """`count` live headed states of `layout` with Pacman, ghosts, timers and the heading drawn at random: ghosts
    on cells or half-way between two open cells (scared then, going along that way), the rest as it starts."""
    h = layout.height
    open_cells = [(x, y) for x in range(layout.width) for y in range(h) if not layout.is_wall(x, y)]
    halves = []
    for x, y in open_cells:
        for dx, dy, directions in ((1, 0, (2, 3)), (0, 1, (0, 1))):
            if (x + dx, y + dy) in open_cells:
                halves.append((2 * x + dx, 2 * y + dy, directions))
    start = GameState.initial(layout, heading=True)
    out = []
    for _ in range(count):
        pac = rng.choice(open_cells)
        keys, timers = [], []
        for _ in range(start.num_ghosts):
            if halves and rng.random() < 0.35:
                x2, y2, directions = rng.choice(halves)
                keys.append((x2 * 2 * h + y2) * 5 + rng.choice(directions))
                timers.append(rng.randint(1, 40))
            else:
                x, y = rng.choice(open_cells)
                keys.append((2 * x * 2 * h + 2 * y) * 5 + rng.randrange(5))
                timers.append(0 if rng.random() < 0.7 else rng.randint(1, 40))
        key = list(start.position_key)
        key[0] = 2 * pac[0] * 2 * h + 2 * pac[1]
        key[3], key[4], key[7] = tuple(keys), tuple(timers), rng.randrange(5)
        out.append(GameState.from_position_key(layout, tuple(key)))
    return out


def arcade_searcher(layout, num_agents, kind, **probabilities):
    """A core searcher whose chance layers are `kind`'s ghosts (with `probabilities`), and those ghosts."""
    models = [GHOST_KINDS[kind](i, **probabilities) for i in range(1, num_agents)]
    return CompiledSearcher(layout, num_agents, PacmanGame(num_agents, score_evaluation, models), False, 0), models


def is_tie(ghost, state):
    """Whether two of the ghost's legal moves are equally near its target (the tie order decides)."""
    tx, ty = ghost.target(state)
    x, y = state.agent_position(ghost.index)
    distances = [(x + a.vector[0] - tx) ** 2 + (y + a.vector[1] - ty) ** 2 for a in state.legal_actions(ghost.index)]
    return distances.count(min(distances)) > 1


def check_distributions(states, kind, seen, **probabilities):
    """Every ghost's distribution in every live state, core and Python, exactly; counts what was seen."""
    layout, agents = states[0].layout, states[0].num_agents
    core, models = arcade_searcher(layout, agents, kind, **probabilities)
    for state in states:
        if state.is_terminal():
            continue
        for ghost in models:
            if not state.legal_actions(ghost.index):
                continue
            assert core.distribution(state, ghost.index) == ghost.distribution(state), (kind, ghost, repr(state))
            scared = state.scared_timers[ghost.index - 1] > 0
            seen["checked"] += 1
            seen["scared"] += scared
            seen["half cell"] += any(v % 1 for position in state.ghost_positions for v in position)
            if not scared:
                seen["tie"] += is_tie(ghost, state)
                seen["heading 4"] += state.pacman_heading is Action.STOP and ghost.reads_heading
                seen["shy near"] += ghost.personality == "shy" and ghost.target(state) != state.pacman_position
                seen["ghost 1 half-way"] += ghost.personality == "flanker" and any(
                    v % 1 for v in state.agent_position(1))


# -- the heading in the core's states ---------------------------------------------------------------------


@pytest.mark.parametrize("layout", [SCARY, ROOM, load_layout("small")], ids=lambda layout: layout.name)
def test_pacman_successors_set_the_heading_as_python_and_stop_keeps_it(layout):
    core, _ = arcade_searcher(layout, GameState.initial(layout).num_agents, "ambusher")
    stops = 0
    for seed in range(4):
        for state, agent in headed_playout(layout, random.Random(seed), 200):
            assert core.game_state(core.core_state(state)) == state
            if state.is_terminal():
                break
            for mover in range(state.num_agents):
                got = core.successors(state, mover)
                expected = [(a, state.successor(mover, a)) for a in state.legal_actions(mover)]
                assert [(a, s.position_key) for a, s in got] == [(a, s.position_key) for a, s in expected]
                if mover == 0:
                    for action, child in got:
                        assert len(child.position_key) == 8
                        assert child.pacman_heading is (state.pacman_heading if action is Action.STOP else action)
                        stops += action is Action.STOP
    assert stops > 100


def test_the_heading_before_the_first_step_survives_stops_in_the_core():
    state = GameState.initial(ROOM, heading=True)
    core, _ = arcade_searcher(ROOM, state.num_agents, "flanker")
    for _ in range(3):
        ((action, state),) = [(a, s) for a, s in core.successors(state, 0) if a is Action.STOP]
        assert state.pacman_heading is Action.STOP and state.position_key[7] == 4
    ((_, state),) = [(a, s) for a, s in core.successors(state, 0) if a is Action.EAST]
    ((_, state),) = [(a, s) for a, s in core.successors(state, 0) if a is Action.STOP]
    assert state.pacman_heading is Action.EAST


def test_states_round_trip_through_the_core_with_and_without_the_heading():
    untracked = GameState.initial(SCARY)
    core, _ = arcade_searcher(SCARY, untracked.num_agents, "chaser")
    assert len(core_state(untracked)) == 7 and core.game_state(core.core_state(untracked)) == untracked
    for state in drawn_positions(SCARY, random.Random(1), 50):
        assert core_state(state)[7] == ACTIONS.index(state.pacman_heading)
        assert game_state(SCARY, core_state(state)) == state
        back = core._core.successors(core.core_state(state), 1)  # the raw tuples: eight fields, the heading last
        assert all(len(s) == 8 and s[7] == state.position_key[7] for _, s in back)
    for bad in (-1, 5):
        with pytest.raises(ValueError, match="heading is out of range"):
            core._core.successors(core_state(untracked) + (bad,), 0)


def test_untracked_games_keep_their_words_and_node_counts():
    """Node counts and moves of searches in games without a heading, pinned from the core before it kept one
    (commit 955b712): the heading's bits left those games' words, hashes and tables as they were."""
    def positions(name, count, seed):
        layout = load_layout(name)
        rng = random.Random(seed)
        out = []
        state, agent = GameState.initial(layout), 0
        while len(out) < count:
            if state.is_terminal():
                state, agent = GameState.initial(layout), 0
            if agent == 0 and rng.random() < 0.15:
                out.append(state)
            legal = state.legal_actions(agent)
            state = state.successor(agent, legal[rng.randrange(len(legal))])
            agent = (agent + 1) % state.num_agents
        return out

    totals, moves = {}, ""
    for name, depth in (("small", 3), ("medium", 3), ("tricky", 2), ("capsules", 3)):
        for state in positions(name, 3, len(name)):
            assert state.pacman_heading is None
            for evaluation in ("score", "better"):
                for model in (None, "directional"):
                    for options in (dict(), dict(star2=True, ordering=True)):
                        agent = ExpectimaxAgent(depth=depth, evaluation=evaluation, ghost_model=model,
                                                engine="compiled", **options)
                        info = agent._decide(state, all_values=True)
                        totals[name] = totals.get(name, 0) + info.nodes
                        moves += info.action.value[0]
    assert totals == {"small": 9332, "medium": 7125, "tricky": 35053, "capsules": 15404}
    assert moves == PINNED_MOVES


#: The moves of the searches above, first letters, from the same build as their node counts.
PINNED_MOVES = "EEEEEEEENNNNWWWWNNNNWWWWEEEEEEEEEEEEEEEENNNNNNNNEEEEEEEENNNNNNNNNNNNNNNNNNNNEEEEEEEEWWEENNNNSSSS"


# -- the arcade kernel's distributions ---------------------------------------------------------------------


@pytest.mark.parametrize("kind", ARCADE_KINDS)
def test_every_personality_gives_pythons_distribution_in_playouts_and_drawn_positions(kind):
    seen = dict.fromkeys(("checked", "scared", "half cell", "tie", "heading 4", "shy near", "ghost 1 half-way"), 0)
    for layout in (SCARY, ROOM):
        for seed in range(3):
            states = [s for s, _ in headed_playout(layout, random.Random(seed), 300)]
            check_distributions(states, kind, seen)
            # the same positions with every heading, and with other probabilities
            check_distributions([with_heading(s, h) for s in states[::7] for h in range(5)], kind, seen,
                                prob_attack=0.55, prob_scared_flee=0.3)
        check_distributions(drawn_positions(layout, random.Random(len(kind)), 300), kind, seen)
    assert seen["checked"] > 3000 and seen["scared"] > 300 and seen["half cell"] > 300 and seen["tie"] > 50
    if kind in ("ambusher", "flanker", "arcade"):
        assert seen["heading 4"] > 20
    if kind in ("shy", "arcade"):
        assert seen["shy near"] > 20
    if kind in ("flanker", "arcade"):
        assert seen["ghost 1 half-way"] > 20


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layout=layouts(), seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(ARCADE_KINDS))
def test_every_personality_gives_pythons_distribution_on_random_layouts(layout, seed, kind):
    if not layout.num_ghosts:
        return
    rng = random.Random(seed)
    seen = dict.fromkeys(("checked", "scared", "half cell", "tie", "heading 4", "shy near", "ghost 1 half-way"), 0)
    check_distributions([s for s, _ in headed_playout(layout, rng, 120)] + drawn_positions(layout, rng, 40), kind,
                        seen)


def test_ties_go_up_left_down_right_in_the_core():
    """A chaser one cell diagonally from Pacman: two moves are as near him, and ARCADE_TIE_ORDER picks."""
    assert ARCADE_TIE_ORDER == (Action.NORTH, Action.WEST, Action.SOUTH, Action.EAST)
    start = GameState.initial(ROOM, heading=True)
    core, models = arcade_searcher(ROOM, start.num_agents, "chaser")
    h = ROOM.height
    key = list(start.position_key)
    key[3] = ((2 * 7 * 2 * h + 2 * 5) * 5 + 4,) + tuple(key[3][1:])  # ghost 1 at (7, 5), every way open
    for pac_cell, aimed in (((6, 6), Action.NORTH), ((6, 4), Action.WEST), ((8, 4), Action.SOUTH),
                            ((8, 6), Action.NORTH)):
        key[0] = 2 * pac_cell[0] * 2 * h + 2 * pac_cell[1]
        state = GameState.from_position_key(ROOM, tuple(key))
        legal = state.legal_actions(1)
        assert len(legal) == 4 and models[0].aimed(state, legal) is aimed and is_tie(models[0], state)
        distribution = core.distribution(state, 1)
        assert distribution == models[0].distribution(state)
        assert max(distribution, key=lambda pair: pair[1])[0] is aimed


# -- whole searches and games ------------------------------------------------------------------------------


def same_search(make, state):
    """One decision on each engine: the same values (exactly), action, depth and node count. (The order of
    ``action_values`` is not compared: with Star2 and move ordering the engines list them in different orders,
    for every ghost kind alike.)"""
    python, core = make("python"), make("compiled")
    assert python.action_values(state) == core.action_values(state)
    assert (python.last_search.depth, python.last_search.nodes) == (core.last_search.depth, core.last_search.nodes)
    assert python.get_action(state) == core.get_action(state)
    assert core.engine_used == "compiled" and python.engine_used == "python"
    return python.last_search


@pytest.mark.parametrize("kind", ARCADE_KINDS)
@pytest.mark.parametrize("options", [dict(), dict(star2=True, ordering=True), dict(pruning=False, transposition=False)],
                         ids=["star1", "star2", "plain"])
def test_searches_with_every_personality_equal_the_python_engine(kind, options):
    for layout, depths in ((SCARY, (1, 2, 3)), (ROOM, (1, 2)), (load_layout("small"), (2, 3))):
        states = [s for seed in range(2) for s, agent in headed_playout(layout, random.Random(seed), 150)
                  if agent == 0 and not s.is_terminal()]
        for i, state in enumerate(states[::max(1, len(states) // 5)]):
            state = with_heading(state, i % 5)
            depth = depths[i % len(depths)]
            for evaluation in ("score", "better"):
                info = same_search(lambda engine: ExpectimaxAgent(depth=depth, evaluation=evaluation, ghost_model=kind,
                                                                  engine=engine, **options), state)
                assert info.nodes > 1


def test_the_far_ghost_shortcut_on_headed_states_equals_python(monkeypatch):
    """Uniform models in a game that keeps the heading (the game's ghosts aim ahead, Pacman's model is random):
    the far-ghost shortcut runs on states with a heading, in both engines alike."""
    hits = []
    far_value = PacmanGame.far_value

    def counted(self, node, depth):
        found = far_value(self, node, depth)
        hits.append(found is not None)
        return found

    monkeypatch.setattr(PacmanGame, "far_value", counted)
    medium = load_layout("medium")
    states = [s for s, agent in headed_playout(medium, random.Random(2), 120) if agent == 0 and not s.is_terminal()]
    for i, state in enumerate(states[::12]):
        same_search(lambda engine: ExpectimaxAgent(depth=3, evaluation="better", ghost_model="random", star2=True,
                                                   ordering=True, engine=engine), with_heading(state, i % 5))
    assert sum(hits) > 20


def test_a_heading_reading_model_refuses_a_state_without_the_heading_on_both_engines():
    state = GameState.initial(ROOM)
    for kind in ("ambusher", "flanker", "arcade"):
        for engine in ("python", "compiled"):
            with pytest.raises(AgentSpecError, match="do not keep his heading"):
                ExpectimaxAgent(depth=1, ghost_model=kind, engine=engine).get_action(state)
        core, _ = arcade_searcher(ROOM, state.num_agents, kind)
        with pytest.raises(ValueError, match="keeps no heading"):  # the core itself, asked around the bridge
            core._core.distribution(core_state(state), 1)
        with pytest.raises(AgentSpecError, match="do not keep his heading"):
            core_games(state, make_ghosts(kind, state.num_ghosts), 1, None, {})
    # ghosts that do not read it search a state without it, on both engines alike
    same_search(lambda engine: ExpectimaxAgent(depth=2, ghost_model="chaser", engine=engine), state)


def test_whole_games_against_every_personality_are_the_same_on_either_engine():
    from pacman import run_game

    small = load_layout("small")
    for kind in ARCADE_KINDS:
        for seed in range(2):
            games = [run_game(small, ExpectimaxAgent(depth=2, engine=engine), make_ghosts(kind, small.num_ghosts),
                              seed=seed, max_moves=60) for engine in ("python", "compiled")]
            assert games[0].actions == games[1].actions and games[0].score == games[1].score
            assert len(games[0].actions) > 10


# -- the environments --------------------------------------------------------------------------------------

gym = pytest.importorskip("gymnasium")

from pacman.envs import PacmanEnv  # noqa: E402
from pacman.envs.observations import state_fields  # noqa: E402


@pytest.mark.parametrize("kind", ARCADE_KINDS)
def test_the_state_observation_carries_the_heading_in_games_that_keep_it(kind):
    from gymnasium.utils.env_checker import check_env

    compiled = PacmanEnv("capsules", ghosts=kind, max_moves=60, observation="state")
    python = PacmanEnv("capsules", ghosts=kind, max_moves=60, observation="state", engine="python")
    assert compiled.engine == "compiled"
    keeps = compiled.start.pacman_heading is not None
    assert keeps == model_reads_heading(kind)
    assert compiled.observation_space.shape == (len(state_fields(compiled.num_ghosts, heading=keeps)),)
    check_env(PacmanEnv("capsules", ghosts=kind, max_moves=60, observation="state"), skip_render_check=True)
    rng = np.random.default_rng(len(kind))
    a, _ = compiled.reset(seed=5)
    b, _ = python.reset(seed=5)
    headings = set()
    for _ in range(60):
        assert np.array_equal(a, b) and a in compiled.observation_space
        assert compiled.state == python.state
        if keeps:
            headings.add(int(a[-1]))
            assert ACTIONS[int(a[-1])] is compiled.state.pacman_heading
        action = int(rng.integers(5))
        a, ra, ta, ua, _ = compiled.step(action)
        b, rb, tb, ub, _ = python.step(action)
        assert (ra, ta, ua) == (rb, tb, ub)
        if ta or ua:
            a, _ = compiled.reset()
            b, _ = python.reset()
    if keeps:
        assert 4 in headings and len(headings) >= 2


def test_the_state_fields_name_the_heading_last():
    assert state_fields(1, heading=True)[-1] == "pacman_heading"
    assert "pacman_heading" not in state_fields(1)
    env = PacmanEnv("capsules", ghosts="ambusher", observation="state")
    assert env.observation_space.high[-1] == len(ACTIONS) - 1
