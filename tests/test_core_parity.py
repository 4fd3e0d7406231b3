"""Parity generated from the registry: every registered evaluation and ghost kind, on both engines.

The lists come from the registry itself (pacman.agents.evaluation.EVALUATIONS,
pacman.agents.ghosts.GHOST_KINDS, read through pacman.agents.compiled), so an
evaluation or a ghost kind added there is tested here without a line written:
played on both engines when it declares a core form (search values, actions
and node counts; environment episodes; the vector environment), refused by
name by the core and played in Python otherwise. The scenario of issue 35 is
written out: a ghost kind added to GHOST_KINDS as docs/architecture.md says,
without a core form, is never played by the compiled environment as a random
ghost.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_compiled_core import pacman_positions

from pacman import AgentSpecError, GameState, load_layout, run_game
from pacman.agents import ExpectimaxAgent, RandomGhost
from pacman.agents import declarations
from pacman.agents.compiled import core_evaluations, core_ghost_kinds, core_obstacle, core_status
from pacman.agents.evaluation import EVALUATIONS
from pacman.agents.expectimax import PacmanGame
from pacman.agents.ghosts import GHOST_KINDS, PERSONALITIES, _Ghost, make_ghosts, model_reads_heading
from pacman.agents.search import Searcher
from pacman.agents.solver import solve
from pacman.errors import PacmanError

USABLE, WHY = core_status()
needs_core = pytest.mark.skipif(not USABLE, reason=f"the compiled core is not in use here: {WHY}")


class FirstMoveGhost(_Ghost):
    """A ghost kind as a newcomer adds it (docs/architecture.md): it always takes its first legal move."""

    def distribution(self, state):
        legal = state.legal_actions(self.index)
        return [(legal[0], 1.0)] if legal else []


class StubbornGhost(RandomGhost):
    """A subclass of a kind the core plays, moving otherwise: it must not inherit the core form."""

    def distribution(self, state):
        legal = state.legal_actions(self.index)
        return [(action, 1.0 if i == len(legal) - 1 else 0.0) for i, action in enumerate(legal)]


@pytest.fixture
def first_kind(monkeypatch):
    """GHOST_KINDS with the newcomer's kind "first" added, as the docs say to add one."""
    monkeypatch.setitem(GHOST_KINDS, "first", FirstMoveGhost)
    return "first"


# -- the registry itself --------------------------------------------------------------


def test_the_registry_lists_what_the_definitions_declare():
    assert core_evaluations() == tuple(name for name, f in EVALUATIONS.items() if declarations.core_evaluation(f))
    assert set(core_evaluations()) == {"score", "better", "safe", "scaled", "dots"}
    assert set(core_ghost_kinds()) == {"random", "directional", "arcade", "chaser", "ambusher", "flanker", "shy"}
    for name in core_evaluations():
        form = EVALUATIONS[name].core_form
        assert form.function is EVALUATIONS[name].function and form.kernel in declarations.EVALUATION_KERNELS


def test_a_core_form_copied_to_another_function_or_inherited_by_a_subclass_does_not_count():
    def copy(state):
        return 0.0

    copy.core_form = EVALUATIONS["score"].core_form  # functools.wraps would copy it the same way
    assert declarations.core_evaluation(copy) is None
    assert declarations.core_ghost(StubbornGhost(1)) is None
    assert declarations.core_ghost(RandomGhost(1)).kernel == "uniform"


@needs_core
def test_the_built_core_computes_exactly_the_kernels_the_declarations_may_name():
    from pacman.agents.compiled import _core

    assert _core.EVALUATION_KERNELS == declarations.EVALUATION_KERNELS
    assert _core.GHOST_KERNELS == declarations.GHOST_KERNELS
    assert _core.ARCADE_PERSONALITIES == PERSONALITIES


@needs_core
def test_a_kernel_the_core_does_not_have_is_refused_by_name():
    class Odd(RandomGhost):
        def core_form(self):
            return declarations.CoreGhost("chasing")

    def odd(state):
        return 0.0

    odd.core_form = declarations.CoreEvaluation(odd, "neural")
    assert "whose core kernel 'chasing' this build of the core does not have" in core_obstacle(None, [Odd(1)])
    assert "core kernel 'neural', which this build" in core_obstacle(odd, None, evaluation_name="odd")


@needs_core
def test_the_core_refuses_by_name_what_declares_no_core_form(first_kind):
    assert core_obstacle(None, [RandomGhost(1)]) is None
    why = core_obstacle(None, [RandomGhost(1), FirstMoveGhost(2)])
    assert why.startswith("ghost 2 is a FirstMoveGhost, a kind the compiled core does not play")
    assert "StubbornGhost" in core_obstacle(None, [StubbornGhost(1)])
    assert "'flat' is a Python function without" in core_obstacle(lambda s: 0.0, None, evaluation_name="flat")
    assert "model of another ghost" in core_obstacle(None, [RandomGhost(2)])


# -- searches: every registered evaluation with every registered ghost kind --------------------------------

SMALL = load_layout("small")


def _decision(state, engine, evaluation, kind, options):
    agent = ExpectimaxAgent(depth=2, evaluation=evaluation, ghost_model=kind, engine=engine, **options)
    info = agent._decide(state, all_values=True)
    return agent, (info.action, dict(info.action_values), info.nodes)


@needs_core
@pytest.mark.parametrize("evaluation", list(EVALUATIONS))
@pytest.mark.parametrize("kind", list(GHOST_KINDS))
@pytest.mark.parametrize("options", [dict(star2=False), dict(star2=True, ordering=True),
                                     dict(pruning=False, star2=False)], ids=["star1", "star2", "plain"])
def test_every_registered_evaluation_and_ghost_kind_searches_alike_on_both_engines(evaluation, kind, options):
    runs_on_core = core_obstacle(EVALUATIONS[evaluation], make_ghosts(kind, SMALL.num_ghosts)) is None
    states = pacman_positions(SMALL, 4, seed=len(evaluation) + len(kind))
    if model_reads_heading(kind):  # its games keep Pacman's heading: give each position one (every one in turn)
        states = [GameState.from_position_key(SMALL, s.position_key[:7] + (i % 5,)) for i, s in enumerate(states)]
    for state in states:
        _, python = _decision(state, "python", evaluation, kind, options)
        auto, answer = _decision(state, "auto", evaluation, kind, options)
        assert answer == python
        assert auto.engine_used == ("compiled" if runs_on_core else "python")


@pytest.mark.parametrize("evaluation", list(EVALUATIONS))
def test_an_evaluation_the_core_cannot_run_is_refused_by_name_or_played_in_python(monkeypatch, evaluation):
    def flat(state):
        return float(state.score) / 2

    monkeypatch.setitem(EVALUATIONS, "flat", flat)
    assert "flat" not in core_evaluations()
    state = pacman_positions(SMALL, 1, seed=3)[0]
    agent = ExpectimaxAgent(depth=2, evaluation="flat")
    assert agent._decide(state, True).action_values == ExpectimaxAgent(
        depth=2, evaluation="flat", engine="python")._decide(state, True).action_values
    assert agent.engine_used == "python"
    if USABLE:
        assert "without one" in agent.engine_reason
        with pytest.raises(AgentSpecError, match="engine='compiled' cannot be used: .*'flat' is a Python function"):
            ExpectimaxAgent(depth=2, evaluation="flat", engine="compiled")


# -- the newcomer's ghost kind everywhere ------------------------------------------------------------------


def test_a_new_ghost_kind_is_searched_in_python_and_refused_by_the_core_by_name(first_kind):
    state = pacman_positions(SMALL, 1, seed=5)[0]
    ghosts = make_ghosts(first_kind, state.num_ghosts)
    auto = ExpectimaxAgent(depth=2, evaluation="better", ghost_model=first_kind)
    python = ExpectimaxAgent(depth=2, evaluation="better", ghost_model=first_kind, engine="python")
    assert auto._decide(state, True).action_values == python._decide(state, True).action_values
    assert auto.engine_used == "python"
    if USABLE:
        agent = ExpectimaxAgent(depth=2, evaluation="better", engine="compiled")
        with pytest.raises(AgentSpecError, match="ghost 1 is a FirstMoveGhost"):
            agent.reset(ghost_agents=ghosts)
    # the game's own ghosts as the model (ghost_model=None): the same refusal, the same Python fallback
    played = run_game(SMALL, ExpectimaxAgent(depth=1), ghosts, seed=2, max_moves=30)
    again = run_game(SMALL, ExpectimaxAgent(depth=1, engine="python"), make_ghosts(first_kind, SMALL.num_ghosts),
                     seed=2, max_moves=30)
    assert played.actions == again.actions and played.score == again.score


def test_a_new_ghost_kind_is_solved_by_its_own_distribution(first_kind):
    layout = load_layout("test")
    first = solve(layout, ghosts=first_kind, objective="win")
    assert first.ghosts == first_kind
    # its ghost takes one move where a random one may take any: fewer states are reachable
    assert first.nodes < solve(layout, ghosts="random", objective="win").nodes


# -- environments: every registered ghost kind, and the newcomer's ------------------------------------------

gym = pytest.importorskip("gymnasium")
from gymnasium.vector import SyncVectorEnv  # noqa: E402

from pacman.envs import ENV_ID, PacmanEnv  # noqa: E402
from pacman.envs.vector import PacmanVectorEnv  # noqa: E402


def _episodes(env, seed, steps=120):
    """What a single environment hands out over `steps` seeded random actions, resets included."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    out = [(obs.tobytes(), env.unwrapped.state)]
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(int(rng.integers(5)))
        out.append((obs.tobytes(), reward, terminated, truncated, env.unwrapped.state))
        if terminated or truncated:
            obs, info = env.reset()
            out.append((obs.tobytes(), env.unwrapped.state))
    return out


@pytest.mark.parametrize("kind", list(GHOST_KINDS))
def test_every_registered_ghost_kind_plays_the_same_episodes_in_every_engine(kind):
    python = PacmanEnv("capsules", ghosts=kind, max_moves=40, engine="python")
    auto = PacmanEnv("capsules", ghosts=kind, max_moves=40)
    assert auto.engine == ("compiled" if core_obstacle(None, auto.ghost_agents) is None else "python")
    assert _episodes(auto, 4) == _episodes(python, 4)


@needs_core
@pytest.mark.parametrize("kind", core_ghost_kinds())
def test_every_ghost_kind_with_a_core_form_plays_the_same_vector_episodes(kind):
    options = dict(num_envs=3, layout="capsules", ghosts=kind, max_episode_steps=30)
    fast, slow = gym.make_vec(ENV_ID, **options), gym.make_vec(ENV_ID, vectorization_mode="sync", engine="python",
                                                                 **options)
    assert isinstance(fast, PacmanVectorEnv) and isinstance(slow, SyncVectorEnv)
    rng = np.random.default_rng(0)
    a, b = fast.reset(seed=1), slow.reset(seed=1)
    assert np.array_equal(a[0], b[0])
    for _ in range(100):
        actions = rng.integers(5, size=3)
        for x, y in zip(fast.step(actions)[:4], slow.step(actions)[:4]):
            assert np.array_equal(x, y)


def test_a_new_ghost_kind_is_never_played_by_the_core_as_a_random_ghost(first_kind):
    """Issue 35's scenario: the same seed gives the same game in every engine and environment, or a refusal
    that names the kind; before, the compiled environment played it as a uniform random ghost."""
    python = PacmanEnv("small", ghosts=first_kind, max_moves=30, engine="python")
    auto = PacmanEnv("small", ghosts=first_kind, max_moves=30)
    assert auto.engine == "python"
    reference = _episodes(python, 7)
    assert _episodes(auto, 7) == reference
    # and the Python episodes are the kind's own: every ghost move is its first legal move
    assert _episodes(PacmanEnv("small", ghosts="random", max_moves=30, engine="python"), 7) != reference
    vec = gym.make_vec(ENV_ID, num_envs=2, layout="small", ghosts=first_kind, max_episode_steps=30)
    assert isinstance(vec, SyncVectorEnv)
    assert {env.unwrapped.engine for env in vec.envs} == {"python"}
    if USABLE:
        with pytest.raises(PacmanError, match="engine='compiled', but the compiled core cannot run: ghost 1 is a "
                                              "FirstMoveGhost, a kind the compiled core does not play"):
            PacmanEnv("small", ghosts=first_kind, engine="compiled")
        with pytest.raises(PacmanError, match="PacmanVectorEnv needs the compiled core to play ghosts='first': "
                                              "ghost 1 is a FirstMoveGhost"):
            PacmanVectorEnv(2, "small", ghosts=first_kind)
        with pytest.raises(PacmanError, match="FirstMoveGhost"):
            gym.make_vec(ENV_ID, num_envs=2, layout="small", ghosts=first_kind, engine="compiled")


# -- the proofs, switched off by declaration ----------------------------------------------------------------


def test_a_ghost_kind_that_declares_no_proof_switches_the_bounds_and_far_ghosts_off(first_kind):
    game = PacmanGame(3, EVALUATIONS["better"], [FirstMoveGhost(1), FirstMoveGhost(2)])
    assert set(game.proof_gaps) == {"bounds", "far_ghosts"}
    assert "FirstMoveGhost, does not declare" in game.proof_gaps["bounds"]
    assert game.bounds is None and game._bounds_within is None and game.horizon(SMALL) is None
    covered = PacmanGame(3, EVALUATIONS["better"], make_ghosts("directional", 2))
    assert set(covered.proof_gaps) == {"far_ghosts"} and covered._bounds_within is not None
    uniform = PacmanGame(3, EVALUATIONS["better"], None)
    assert uniform.proof_gaps == {} and uniform.horizon(SMALL) == 8
    # off means exact and unpruned: Star1 on such a game searches what plain expectimax searches
    state = pacman_positions(SMALL, 1, seed=9)[0]
    models = make_ghosts(first_kind, state.num_ghosts)
    pruned = Searcher(PacmanGame(state.num_agents, EVALUATIONS["better"], models), prune=True)
    plain = Searcher(PacmanGame(state.num_agents, EVALUATIONS["better"], models), prune=False)
    a, b = pruned.search((state, 0), 2), plain.search((state, 0), 2)
    assert (a.value, a.action_values, a.nodes) == (b.value, b.action_values, b.nodes)


def test_rules_other_than_the_proofs_assume_switch_every_proof_off(monkeypatch):
    import pacman.rules

    monkeypatch.setattr(pacman.rules, "COLLISION_DISTANCE", 1.5)
    game = PacmanGame(2, EVALUATIONS["better"], None)
    assert set(game.proof_gaps) == set(declarations.PROOFS)
    assert game.proof_gaps["bounds"] == "pacman.rules.COLLISION_DISTANCE is 1.5, the proofs assume 0.7"
    assert game._bounds_within is None and game.horizon(SMALL) is None


def test_the_ghost_kind_recipe_run_as_a_user_script(tmp_path):
    """docs/architecture.md's recipe, step 1, in a fresh interpreter: the kind is taken by name everywhere."""
    import subprocess
    import sys
    import textwrap

    script = tmp_path / "first_ghost.py"
    script.write_text(textwrap.dedent("""
        from pacman.agents.ghosts import GHOST_KINDS, _Ghost
        from pacman.envs import PacmanEnv
        from pacman.errors import PacmanError

        class FirstMoveGhost(_Ghost):
            def distribution(self, state):
                legal = state.legal_actions(self.index)
                return [(legal[0], 1.0)] if legal else []

        GHOST_KINDS["first"] = FirstMoveGhost
        env = PacmanEnv("small", ghosts="first", max_moves=20)
        env.reset(seed=1)
        for _ in range(20):
            _, reward, terminated, truncated, _ = env.step(4)
            if terminated or truncated:
                break
        print(env.engine, env.state.ghost_positions)
        try:
            PacmanEnv("small", ghosts="first", engine="compiled")
        except PacmanError as error:
            print("refused:", error)
    """), encoding="utf-8")
    out = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("python ")
    if USABLE:
        assert lines[1].startswith("refused: engine='compiled', but the compiled core cannot run: ghost 1 is a "
                                   "FirstMoveGhost, a kind the compiled core does not play")
