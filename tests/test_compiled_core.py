"""The compiled search core (pacman.agents._core) against the Python engine: the rules step for step, the evaluations,
the chance layers, and whole searches (values, chosen actions, node counts) on random positions.

The core repeats the Python engine's floating-point operations in the same order,
so every comparison here is exact (``==``), stronger than the 1e-9 the contract
asks for. Positions come from random playouts on shipped layouts, on random
layouts (the strategy of tests/test_differential.py) and on a maze built for
scared ghosts, half-cell positions and eaten ghosts. Tests that need the core
skip, saying why, only where it is not built or is switched off
(``PACMAN_AI_ENGINE=python``); the engine-choice tests run everywhere.
"""

from __future__ import annotations

import random
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_differential import SCARY, layouts
from test_expectimax import directional, random_positions

import pacman.agents.compiled as compiled
from pacman.agents import (AlphaBetaAgent, DirectionalGhost, ExpectimaxAgent, MinimaxAgent, RandomGhost, estimated_leaves,
                    make_ghosts)
from pacman.agents.compiled import CompiledSearcher, core_status, engine_line
from pacman.agents.evaluation import (EVALUATIONS, better_bounds_within, better_evaluation, safe_bounds_within,
                                      safe_evaluation, scaled_bounds_within, scaled_evaluation, score_evaluation)
from pacman.agents.expectimax import PacmanGame
from pacman import AgentSpecError, GameState, load_layout, parse_layout, run_game
from pacman.conformance import textbook_action_values, uniform_ghosts
from pacman.distances import DistanceTable
from pacman.layout import layout_names

USABLE, WHY = core_status()
needs_core = pytest.mark.skipif(not USABLE, reason=f"the compiled core is not in use here: {WHY}")
ROOT = Path(__file__).resolve().parent.parent
MODELS = {"random": None, "directional": "directional"}


def playout_states(layout, rng, steps, num_ghosts=None):
    """(state, agent to move) along one random game, the start included, until it ends or `steps` moves."""
    state, agent = GameState.initial(layout, num_ghosts=num_ghosts), 0
    out = [(state, agent)]
    for _ in range(steps):
        legal = state.legal_actions(agent)
        if not legal:
            break
        state = state.successor(agent, legal[rng.randrange(len(legal))])
        agent = (agent + 1) % state.num_agents
        out.append((state, agent))
    return out


def pacman_positions(layout, count, seed, num_ghosts=None, steps=300):
    """`count` live states with Pacman to move, from random playouts (scared ghosts and half cells included)."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        states = [s for s, agent in playout_states(layout, rng, rng.randrange(steps), num_ghosts)
                  if agent == 0 and not s.is_terminal()]
        if states:
            out.append(states[-1])
    return out


def searchers(layout, num_agents):
    """A core searcher for each built-in evaluation and chance model (for the rules, any one does)."""
    out = {}
    for evaluation in (score_evaluation, better_evaluation, safe_evaluation, scaled_evaluation):
        for name, models in (("random", None),
                             ("directional", [DirectionalGhost(i) for i in range(1, num_agents)])):
            game = PacmanGame(num_agents, evaluation, models)
            out[evaluation.__name__, name] = CompiledSearcher(layout, num_agents, game, True, 0)
    return out


def check_step_for_step(layout, rng, steps, num_ghosts=None):
    """At every state of a random game: legal actions, successors (field by field), win and loss, chance
    probabilities and both evaluations of the core equal the Python engine's. Returns the states seen."""
    states = playout_states(layout, rng, steps, num_ghosts)
    by_kind = searchers(layout, states[0][0].num_agents)
    core = by_kind["score_evaluation", "random"]
    for state, agent in states:
        for kind, searcher in by_kind.items():
            evaluation = EVALUATIONS[kind[0].removesuffix("_evaluation")]
            assert searcher.evaluate(state) == evaluation(state), (kind, repr(state))
        for plies in (1, 2, 3, 4, 7):  # Star1's bounds, which the core computes for itself
            assert by_kind["better_evaluation", "random"].bounds(state, plies) == better_bounds_within(state, plies)
            assert by_kind["safe_evaluation", "random"].bounds(state, plies) == safe_bounds_within(state, plies)
            assert by_kind["scaled_evaluation", "random"].bounds(state, plies) == scaled_bounds_within(state, plies)
        assert core.game_state(core.core_state(state)) == state
        if state.is_terminal():
            break
        for mover in range(state.num_agents):
            expected = [(a, state.successor(mover, a)) for a in state.legal_actions(mover)]
            got = core.successors(state, mover)
            assert [a for a, _ in got] == [a for a, _ in expected], (mover, repr(state))
            for (action, mine), (_, theirs) in zip(got, expected):
                assert mine.position_key == theirs.position_key, (mover, action, repr(state))
                assert (mine.is_win(), mine.is_lose()) == (theirs.is_win(), theirs.is_lose())
            if mover:
                assert by_kind["score_evaluation", "random"].distribution(state, mover) == \
                    RandomGhost(mover).distribution(state)
                assert by_kind["score_evaluation", "directional"].distribution(state, mover) == \
                    DirectionalGhost(mover).distribution(state)
    return states


def corridor_mazes(width, height, ghosts, count, seed):
    """`count` positions in one maze of long rows joined at alternating ends (traps with two ends): Pacman on
    a random cell, `ghosts` ghosts on random cells at most r steps (along the rows) from him, r random, so that
    some have him cornered and some not; food on every other cell."""
    rng = random.Random(seed)
    grid = []
    for y in range(height):
        if y in (0, height - 1):
            grid.append(["%"] * width)
        elif y % 2:
            grid.append(["%"] + ["."] * (width - 2) + ["%"])
        else:  # a wall row with one gap, at alternating ends
            row = ["%"] * width
            row[1 if y % 4 == 0 else width - 2] = "."
            grid.append(row)
    cells = [(x, y) for y in range(height) for x in range(width) if grid[y][x] == "."]
    for _ in range(count):
        px, py = rng.choice(cells)
        reach = rng.choice((3, 6, 10, 20, width * height))
        near = [c for c in cells if c != (px, py) and abs(c[0] - px) + abs(c[1] - py) <= reach]
        rows = [row[:] for row in grid]
        rows[py][px] = "P"
        for x, y in rng.sample(near, min(ghosts, len(near))):
            rows[y][x] = "G"
        yield parse_layout("\n".join("".join(row) for row in rows), "corridors")


@needs_core
@pytest.mark.parametrize("width, height, ghosts", [(21, 11, 4), (31, 31, 17), (41, 31, 4)],
                         ids=["order-walk", "17-hunters", "over-1024-cells"])
def test_the_room_term_equals_the_python_engine_by_either_count(width, height, ghosts):
    """The core counts Pacman's room walking the cells nearest him first and stops at 12 (where it stops
    costing) when the layout has an order table and at most 16 hunters; else over the whole maze. Either way
    `better` equals the Python engine's, in states with a small room (the term costs) and a large one."""
    assert (width * height > compiled._ORDER_CELLS) == (width * height > 1024)
    rooms = []
    for layout in corridor_mazes(width, height, ghosts, 8, seed=width * 1000 + ghosts):
        searcher = CompiledSearcher(layout, layout.num_ghosts + 1,
                                    PacmanGame(layout.num_ghosts + 1, better_evaluation), True, 0)
        state = GameState.initial(layout)
        assert searcher.evaluate(state) == better_evaluation(state), repr(state)
        distances = DistanceTable.of(state.layout)
        rooms.append(distances.room(distances.cell(state.pacman_position),
                                    [distances.cell(p) for p in state.ghost_positions]))
    assert min(rooms) < 12 <= max(rooms), (min(rooms), max(rooms))


@needs_core
def test_only_a_feature_evaluations_own_bounds_are_computed_in_the_core():
    """The core computes `better`'s and `safe`'s bounds from their weights; any other bounds stay in Python."""
    layout = load_layout("small")
    agents = layout.num_ghosts + 1
    for evaluation, prune, expected in ((better_evaluation, True, True), (safe_evaluation, True, True),
                                        (better_evaluation, False, False), (score_evaluation, True, False)):
        searcher = CompiledSearcher(layout, agents, PacmanGame(agents, evaluation), prune, 0)
        assert searcher._bounds_in_core is expected, (evaluation.__name__, prune)
    game = PacmanGame(agents, safe_evaluation)
    game._bounds_within = better_evaluation.bounds_within  # not safe's: the core would compute other bounds
    assert CompiledSearcher(layout, agents, game, True, 0)._bounds_in_core is False


# -- the rules, step for step --------------------------------------------------------------------------


@needs_core
@pytest.mark.parametrize("seed", range(12))
def test_rules_step_for_step_around_scared_ghosts(seed):
    states = check_step_for_step(SCARY, random.Random(seed), 400)
    assert len(states) > 10


@needs_core
def test_the_step_for_step_games_reach_half_cells_snaps_and_eaten_ghosts():
    """Guard for the test above: its games do put ghosts between cells and score eaten ghosts."""
    half = eaten = 0
    for seed in range(12):
        states = playout_states(SCARY, random.Random(seed), 400)
        half += sum(any(x % 1 or y % 1 for x, y in s.ghost_positions) for s, _ in states)
        eaten += sum(b.score - a.score in (199, 200) for (a, _), (b, _) in zip(states, states[1:]))
    assert half >= 200 and eaten >= 3


@needs_core
@pytest.mark.parametrize("name", ["medium", "tricky", "capsules", "small", "minimax"])
def test_rules_step_for_step_on_shipped_layouts(name):
    for seed in range(2):
        check_step_for_step(load_layout(name), random.Random(seed), 250)


@needs_core
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layout=layouts(), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_rules_step_for_step_on_random_layouts(layout, seed, data):
    num_ghosts = data.draw(st.integers(0, layout.num_ghosts))
    check_step_for_step(layout, random.Random(seed), 150, num_ghosts)


@needs_core
@pytest.mark.slow
@pytest.mark.parametrize("name", layout_names())
def test_rules_step_for_step_on_every_shipped_layout(name):
    for seed in range(10):
        check_step_for_step(load_layout(name), random.Random(seed), 1000)


# -- whole searches -------------------------------------------------------------------------------------


def same_search(make, state):
    """One decision on each engine: the same values (exactly), action, depth and node count."""
    python, core = make("python"), make("compiled")
    assert python.action_values(state) == core.action_values(state)
    assert (python.last_search.depth, python.last_search.nodes) == (core.last_search.depth, core.last_search.nodes)
    assert list(python.last_search.action_values) == list(core.last_search.action_values)
    assert python.get_action(state) == core.get_action(state)
    assert python.last_search.nodes == core.last_search.nodes
    assert core.engine_used == "compiled" and python.engine_used == "python"
    return python.last_search


SEARCHES = [
    (ExpectimaxAgent, dict(transposition=True, pruning=True)),
    (ExpectimaxAgent, dict(transposition=False, pruning=True)),
    (ExpectimaxAgent, dict(transposition=True, pruning=False)),
    (MinimaxAgent, dict(transposition=True)),
    (AlphaBetaAgent, dict(transposition=True)),
    (AlphaBetaAgent, dict(transposition=False)),
]


@needs_core
@pytest.mark.parametrize("name,depths", [("medium", (1, 2, 3)), ("tricky", (1, 2)), ("minimax", (1, 2, 3, 4)),
                                         ("tiny", (1, 2, 3, 4))])
@pytest.mark.parametrize("evaluation", ["score", "better", "safe", "scaled"])
def test_searches_equal_the_python_engine_on_shipped_layouts(name, depths, evaluation):
    layout = load_layout(name)
    for i, state in enumerate(pacman_positions(layout, 4, seed=len(name))):
        depth = depths[i % len(depths)]
        for model in MODELS.values():
            same_search(lambda engine: ExpectimaxAgent(depth=depth, evaluation=evaluation, ghost_model=model,
                                                       engine=engine), state)
        cls, options = SEARCHES[i % len(SEARCHES)]
        if cls is not ExpectimaxAgent:
            same_search(lambda engine: cls(depth=depth, evaluation=evaluation, engine=engine, **options), state)


@needs_core
@pytest.mark.parametrize("seed", [0, 1] + [pytest.param(seed, marks=pytest.mark.slow) for seed in range(2, 6)])
def test_searches_equal_the_python_engine_around_scared_ghosts(seed):
    states = pacman_positions(SCARY, 6, seed=seed)
    for i, state in enumerate(states):
        cls, options = SEARCHES[i % len(SEARCHES)]
        for evaluation in ("score", "better", "safe", "scaled"):
            depth = 1 + (i + seed) % 3
            if cls is ExpectimaxAgent:
                for model in MODELS.values():
                    same_search(lambda engine: cls(depth=depth, evaluation=evaluation, ghost_model=model,
                                                   engine=engine, **options), state)
            else:
                same_search(lambda engine: cls(depth=depth, evaluation=evaluation, engine=engine, **options), state)


def test_the_scared_ghost_positions_have_scared_and_half_cell_ghosts():
    """Guard for the test above: its roots do have scared ghosts, some of them between two cells."""
    states = [s for seed in range(6) for s in pacman_positions(SCARY, 6, seed=seed)]
    assert sum(any(s.scared_timers) for s in states) >= 10
    assert sum(any(x % 1 or y % 1 for x, y in s.ghost_positions) for s in states) >= 5


@needs_core
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layout=layouts(), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_searches_equal_the_python_engine_on_random_layouts(layout, seed, data):
    state = pacman_positions(layout, 1, seed)[0]
    depth = data.draw(st.integers(1, 4 if layout.num_ghosts <= 1 else 3))
    evaluation = data.draw(st.sampled_from(["score", "better", "safe", "scaled"]))
    cls, options = data.draw(st.sampled_from(SEARCHES))
    model = data.draw(st.sampled_from(sorted(MODELS)))
    extra = {"ghost_model": MODELS[model]} if cls is ExpectimaxAgent else {}
    same_search(lambda engine: cls(depth=depth, evaluation=evaluation, engine=engine, **options, **extra), state)


@needs_core
@pytest.mark.slow
def test_searches_equal_the_python_engine_on_thousands_of_positions():
    """The big sweep: every shipped layout (up to depth 4 where the Python engine's tree is small, depth 3 on
    a few positions of the four-ghost mazes), random layouts, both chance models, every search kind; over
    3,000 decisions."""
    decisions = 0
    for name in layout_names():
        layout = load_layout(name)
        top = max(d for d in (1, 2, 3, 4) if estimated_leaves(layout, layout.num_ghosts, d) <= 2e5)
        for i, state in enumerate(pacman_positions(layout, 60, seed=7)):
            depth = 1 + i % top if i % 20 else top + 1
            cls, options = SEARCHES[i % len(SEARCHES)]
            for evaluation in ("score", "better"):
                for model in MODELS.values() if cls is ExpectimaxAgent else (None,):
                    extra = {"ghost_model": model} if cls is ExpectimaxAgent else {}
                    same_search(lambda engine: cls(depth=depth, evaluation=evaluation, engine=engine, **options,
                                                   **extra), state)
                    decisions += 1
    rng = random.Random(11)
    for _ in range(600):
        layout = random_layout(rng)
        state = pacman_positions(layout, 1, rng.randrange(10**6))[0]
        cls, options = SEARCHES[rng.randrange(len(SEARCHES))]
        extra = {"ghost_model": rng.choice(list(MODELS.values()))} if cls is ExpectimaxAgent else {}
        depth = rng.randint(1, 4 if layout.num_ghosts <= 1 else 3)
        for evaluation in ("score", "better"):
            same_search(lambda engine: cls(depth=depth, evaluation=evaluation, engine=engine, **options, **extra),
                        state)
            decisions += 1
    assert decisions >= 3000


def random_layout(rng):
    """A random closed maze of up to 9 x 7 with up to three ghosts, capsules and food (for the slow sweep)."""
    while True:
        width, height = rng.randint(4, 9), rng.randint(3, 7)
        rows = []
        for y in range(height):
            row = ""
            for x in range(width):
                edge = x in (0, width - 1) or y in (0, height - 1)
                row += "%" if edge else rng.choice("%%.....oo   ")
            rows.append(list(row))
        cells = [(x, y) for y in range(1, height - 1) for x in range(1, width - 1)]
        rng.shuffle(cells)
        if len(cells) < 2:
            continue
        ghosts = rng.randint(0, min(3, len(cells) - 1))
        for i, (x, y) in enumerate(cells[:1 + ghosts]):
            rows[y][x] = "P" if i == 0 else "G"
        try:
            return parse_layout("\n".join("".join(r) for r in rows) + "\n", name="drawn")
        except Exception:  # a walled-in agent: draw again
            continue


@needs_core
@pytest.mark.parametrize("model", ["random", "directional"])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_compiled_values_equal_the_textbook_expectimax(model, depth):
    """Independent of both engines: plain recursion over the simple engine's rules (pacman.conformance), and
    the directional ghost written out again from its definition (tests/test_expectimax.py)."""
    ghosts = uniform_ghosts if model == "random" else directional
    for layout in (load_layout("minimax"), SCARY, load_layout("small")):
        for fast, simple in random_positions(layout, 3, seed=depth):
            got = ExpectimaxAgent(depth=depth, evaluation="score", ghost_model=model, engine="compiled")
            values = got.action_values(fast)
            expected = textbook_action_values(simple, depth, lambda s: float(s.score), ghosts)
            assert list(values) == list(expected)
            for action, value in expected.items():
                assert abs(values[action] - value) <= 1e-9 * max(1.0, abs(value))
            # better needs the maze distances of the fast engine's layout: the textbook recursion on fast states
            better = ExpectimaxAgent(depth=min(depth, 2), evaluation="better", ghost_model=model, engine="compiled")
            expected = textbook_action_values(fast, min(depth, 2), better_evaluation,
                                              ghosts)
            assert better.action_values(fast) == pytest.approx(expected, rel=1e-9, abs=1e-9)


# -- games, time limits, search info ----------------------------------------------------------------------


@needs_core
@pytest.mark.parametrize("ghosts", ["random", "directional"])
def test_whole_games_are_the_same_on_either_engine(ghosts):
    layout = load_layout("small")
    results = [run_game(layout, ExpectimaxAgent(depth=2, engine=engine), make_ghosts(ghosts, layout.num_ghosts),
                        seed=4, max_moves=150) for engine in ("python", "compiled")]
    assert results[0].actions == results[1].actions and results[0].score == results[1].score


@needs_core
def test_iterative_deepening_answers_with_a_finished_depth_on_either_engine():
    state = pacman_positions(load_layout("medium"), 1, seed=3)[0]
    for engine in ("python", "compiled"):
        agent = ExpectimaxAgent(depth=3, time_limit=60.0, engine=engine)
        agent.get_action(state)
        assert agent.last_search.depth == 3
    same_search(lambda engine: ExpectimaxAgent(depth=3, time_limit=60.0, engine=engine), state)
    # Without a depth, the compiled search deepens until its time is up, and its answer is a finished depth's.
    agent = ExpectimaxAgent(depth=None, time_limit=0.05, engine="compiled")
    action = agent.get_action(state)
    depth = agent.last_search.depth
    fixed = ExpectimaxAgent(depth=depth, engine="python")
    assert action == fixed.get_action(state) and depth >= 1


@needs_core
def test_search_info_has_the_same_fields_on_either_engine():
    state = pacman_positions(load_layout("medium"), 1, seed=8)[0]
    infos = []
    for engine in ("python", "compiled"):
        agent = ExpectimaxAgent(depth=2, engine=engine)
        agent.explain = True  # as the window sets it: every action's value
        agent.get_action(state)
        infos.append(agent.last_search)
    python, core = infos
    assert (python.action, python.action_values, python.depth, python.nodes) == \
        (core.action, core.action_values, core.depth, core.nodes)
    assert python.extra == {"engine": "python"} and core.extra == {"engine": "compiled"}
    assert core.milliseconds > 0


@needs_core
def test_only_the_best_value_is_kept_without_explain_as_in_python():
    state = pacman_positions(load_layout("medium"), 1, seed=9)[0]
    python, core = (ExpectimaxAgent(depth=3, engine=e) for e in ("python", "compiled"))
    assert python.get_action(state) == core.get_action(state)
    assert python.last_search.action_values == core.last_search.action_values
    assert len(core.last_search.action_values) == 1


# -- which engine an agent uses ---------------------------------------------------------------------------


def my_eval(state):
    return float(state.score)


def test_auto_runs_a_python_evaluation_on_the_python_engine():
    agent = ExpectimaxAgent(depth=1, evaluation=my_eval)
    agent.get_action(GameState.initial(load_layout("tiny")))
    assert agent.engine_used == "python"
    assert "my_eval" in agent.engine_reason or not USABLE


def test_compiled_with_a_python_evaluation_is_refused_naming_it():
    with pytest.raises(AgentSpecError, match="engine='compiled'") as error:
        ExpectimaxAgent(depth=1, evaluation=my_eval, engine="compiled")
    assert ("'my_eval' is a Python function" in str(error.value)) or not USABLE


class SlyGhost(RandomGhost):
    """A user's ghost model: a subclass, so its distribution may differ from the built-in one."""


@needs_core
def test_compiled_with_a_users_ghost_model_is_refused_when_the_game_starts():
    layout = load_layout("small")
    agent = ExpectimaxAgent(depth=1, ghost_model=[SlyGhost(1), SlyGhost(2)], engine="compiled")
    with pytest.raises(AgentSpecError, match="SlyGhost"):
        run_game(layout, agent, make_ghosts("random", 2), seed=0, max_moves=5)
    auto = ExpectimaxAgent(depth=1, ghost_model=[SlyGhost(1), SlyGhost(2)])
    run_game(layout, auto, make_ghosts("random", 2), seed=0, max_moves=5)
    assert auto.engine_used == "python" and "SlyGhost" in auto.engine_reason


def test_an_unknown_engine_is_refused():
    with pytest.raises(AgentSpecError, match="engine must be one of auto, python, compiled"):
        ExpectimaxAgent(engine="gpu")


def test_the_environment_switches_the_core_off(monkeypatch):
    monkeypatch.setenv("PACMAN_AI_ENGINE", "python")
    assert core_status() == (False, "PACMAN_AI_ENGINE=python") or not USABLE
    assert engine_line().startswith("engine: python (")
    agent = ExpectimaxAgent(depth=1)
    agent.get_action(GameState.initial(load_layout("tiny")))
    assert agent.engine_used == "python"
    with pytest.raises(AgentSpecError, match="PACMAN_AI_ENGINE=python|not built"):
        ExpectimaxAgent(depth=1, engine="compiled")
    monkeypatch.setenv("PACMAN_AI_ENGINE", "turbo")
    with pytest.raises(AgentSpecError, match="PACMAN_AI_ENGINE='turbo'"):
        ExpectimaxAgent(depth=1)


def test_without_the_core_auto_falls_back_and_compiled_says_why(monkeypatch):
    monkeypatch.setattr(compiled, "_core", None)
    monkeypatch.setattr(compiled, "_IMPORT_PROBLEM", "compiled core not built: No module named 'pacman.agents._core'")
    assert engine_line() == "engine: python (compiled core not built: No module named 'pacman.agents._core')"
    agent = ExpectimaxAgent(depth=2)
    state = GameState.initial(load_layout("small"))
    assert agent.get_action(state) == ExpectimaxAgent(depth=2, engine="python").get_action(state)
    assert agent.engine_used == "python" and "not built" in agent.engine_reason
    with pytest.raises(AgentSpecError, match="engine='compiled' cannot be used: compiled core not built"):
        ExpectimaxAgent(engine="compiled")


@needs_core
def test_the_default_agent_and_the_command_line_use_the_core():
    assert ExpectimaxAgent().engine == "auto"
    from pacman.agent_specs import make_pacman_agent

    agent = make_pacman_agent("expectimax", {"depth": 2})
    agent.get_action(GameState.initial(load_layout("small")))
    assert agent.engine_used == "compiled"


# -- installing ---------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("builds", [("1",), ("-e 1", "0")], ids=["core", "editable-core-then-without"])
def test_a_plain_wheel_install_ships_the_core_unless_told_not_to(tmp_path, builds):
    """`pip install .` (not editable) in a fresh virtual environment builds and ships pacman.agents._core;
    with PACMAN_AI_BUILD_CORE=0 it installs without it, and agents run on the Python engine -- also
    from a source folder where an editable install (the README's quickstart) left the core's binary."""
    import os
    import shutil

    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".venv", "build", "*.egg-info", "*.so", "*.pyd",
                                                                 "__pycache__", ".git", ".hypothesis"))
    for number, step in enumerate(builds):
        editable, build = step.startswith("-e "), step.split()[-1]
        env_dir = tmp_path / f"venv{number}"
        venv.create(env_dir, with_pip=True)
        python = env_dir / ("Scripts" if sys.platform == "win32" else "bin") / "python"
        environment = dict(os.environ, PACMAN_AI_BUILD_CORE=build)
        environment.pop("PACMAN_AI_ENGINE", None)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", *(["-e"] if editable else []), str(source)],
                       check=True, env=environment, timeout=900, cwd=tmp_path)
    probe = ("from pacman.agents.compiled import engine_line; from pacman.agents import ExpectimaxAgent; "
             "from pacman import GameState, load_layout; a = ExpectimaxAgent(depth=2); "
             "a.get_action(GameState.initial(load_layout('medium'))); print(engine_line()); print(a.engine_used)")
    out = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, check=True, timeout=120,
                         cwd=tmp_path, env=environment).stdout.splitlines()
    if build == "1":
        assert out == ["engine: compiled (pacman.agents._core) for the evaluations score, better, safe, scaled, dots and the ghost "
                       "kinds random, directional, arcade, chaser, ambusher, flanker, shy; python otherwise", "compiled"]
    else:
        assert out[0].startswith("engine: python (compiled core not built: ") and out[1] == "python"


# -- bench ----------------------------------------------------------------------------------------------------


def test_bench_sets_both_engines_side_by_side(tmp_path):
    """As a user runs it: the engine line first, then the side-by-side table; JSON has the same rows."""
    command = [sys.executable, "-m", "pacman", "bench", "--part", "search", "--depths", "1,2", "--positions", "2",
               "--runs", "1", "--compare", "tiny,small", "--small-mazes", "coinflip"]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == engine_line()
    assert any(line.startswith("Python engine and compiled core") for line in lines)
    proc = subprocess.run(command + ["--json"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    engines = __import__("json").loads(proc.stdout)["engines"]
    assert engines["engine"] == engine_line() and engines["compiled_available"] == USABLE
    rows = engines["rows"]
    expected = [(name, depth, evaluation, engine) for name in ("tiny", "small") for depth in (1, 2)
                for evaluation in ("score", "better") for engine in (("python", "compiled") if USABLE else ("python",))]
    assert [(r["layout"], r["depth"], r["evaluation"], r["engine"]) for r in rows] == expected
    for row in rows:
        assert row["ms_per_move_median"] <= row["ms_per_move_p95"] <= row["ms_per_move_max"]
        if row["engine"] == "compiled":
            assert row["same_answers"] is True and row["ratio_nodes_per_second"] > 0
    python_rows = [r for r in rows if r["engine"] == "python"]
    assert all(r["nodes_per_move_mean"] > 0 for r in python_rows)


def test_bench_refuses_an_unknown_layout_to_compare(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "pacman", "bench", "--part", "search", "--compare", "medium,nope"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 2 and "nope" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stdout == ""


def test_the_engine_line_follows_the_environment_as_a_user_sets_it(tmp_path):
    import os

    command = [sys.executable, "-m", "pacman", "bench", "--part", "engine", "--layout", "tiny", "--runs", "1",
               "--successors", "20"]
    forced = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=tmp_path,
                            env=dict(os.environ, PACMAN_AI_ENGINE="python"))
    assert forced.returncode == 0 and forced.stdout.splitlines()[0] == "engine: python (PACMAN_AI_ENGINE=python)"
    default = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=tmp_path,
                             env={k: v for k, v in os.environ.items() if k != "PACMAN_AI_ENGINE"})
    first = default.stdout.splitlines()[0]
    assert default.returncode == 0
    assert first.startswith("engine: compiled (pacman.agents._core)") if compiled._core is not None else \
        first.startswith("engine: python (compiled core not built: ")
