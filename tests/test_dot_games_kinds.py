"""The dot games against ghosts that hunt: solved against each ghost's own moves (`pacman.agents.ghosts.cell_rule`),
exact against the solver of that kind, the same in both engines, and what the search evaluates with."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("scipy")  # the solver's reference mazes come from the research tools

from pacman import GameState  # noqa: E402
from pacman.agents import ExpectimaxAgent  # noqa: E402
from pacman.agents.compiled import core_status  # noqa: E402
from pacman.agents.dot_games import NO_DIRECTION, RANDOM_RULE, DotGames, dot_games  # noqa: E402
from pacman.agents.evaluation import dots_against, dots_evaluation, dots_prices  # noqa: E402
from pacman.agents.ghosts import (AmbusherGhost, DirectionalGhost, RandomGhost, cell_rule, make_ghosts,  # noqa: E402
                                  rule_ghost)
from pacman.agents.solver import solve  # noqa: E402
from pacman.layout import parse_layout  # noqa: E402
from research.mazes import random_maze  # noqa: E402
from test_dot_games import _random_layout  # noqa: E402

needs_core = pytest.mark.skipif(not core_status()[0], reason="the compiled core is not built or is switched off")

#: The kinds whose hunting moves read only Pacman's cell and the ghost's own (one ghost: ghost 1's kind).
CELL_KINDS = ("directional", "chaser", "shy", "random")


def _rules(kind: str, count: int) -> list[tuple]:
    return [cell_rule(ghost) or RANDOM_RULE for ghost in make_ghosts(kind, count)]


def test_the_rules_name_the_kinds_and_make_their_ghosts_again():
    """Each kind's rule makes a ghost of that kind with the same probability; the ambusher and the flanker, which
    read Pacman's heading, and a subclass that does not declare its own rule, have none."""
    assert cell_rule(DirectionalGhost(2, prob_attack=0.6)) == ("directional", 0.6)
    assert cell_rule(RandomGhost(1)) == RANDOM_RULE
    assert [cell_rule(g) for g in make_ghosts("arcade", 4)] == [("chaser", 0.8), None, None, ("shy", 0.8)]
    assert cell_rule(AmbusherGhost(1)) is None

    class Stubborn(DirectionalGhost):  # may move otherwise: it inherits no rule
        pass

    assert cell_rule(Stubborn(1)) is None
    again = rule_ghost(("directional", 0.6))
    assert isinstance(again, DirectionalGhost) and again.prob_attack == 0.6


@pytest.mark.parametrize("kind", CELL_KINDS)
@pytest.mark.parametrize("dots", [1, 2])
def test_the_games_are_the_solvers_win_probability_against_each_kind(kind, dots):
    """On random one-ghost mazes of one or two dots, the game from the start is the solver's optimum against that
    very kind (independent code: the solver asks the ghost's distribution at each of its states)."""
    rng = np.random.default_rng(20261205 + dots + 10 * CELL_KINDS.index(kind))
    values, checked = [], 0
    while checked < 12:
        layout = _random_layout(rng, dots)
        if layout is None:
            continue
        start = GameState.initial(layout)
        exact = solve(layout, ghosts=kind, objective="win").value
        games = DotGames(layout, rules=_rules(kind, 1))
        p = games.index[start.pacman_position]
        g = games.key(start.ghost_positions[0], NO_DIRECTION)
        table = games.single(games.dots[0]) if dots == 1 else games.pair(*games.dots)
        assert table[p, g] == pytest.approx(exact, abs=1e-9), layout.name
        assert games.chance(start) == pytest.approx(exact, abs=1e-9)
        values.append(exact)
        checked += 1
    assert max(values) > min(values)  # mazes that differ


@pytest.mark.parametrize("dots", [1, 2])
def test_the_two_ghost_games_are_the_solvers_against_two_directional_ghosts(dots):
    """Both ghosts directional, their games together: the solver's optimum against them."""
    rng = np.random.default_rng(20261206 + dots)
    checked, moved = 0, 0
    while checked < 8:
        layout = _random_layout(rng, dots, ghosts=2, most=(4, 4))
        if layout is None:
            continue
        start = GameState.initial(layout)
        exact = solve(layout, ghosts="directional", objective="win").value
        games = DotGames(layout, rules=_rules("directional", 2))
        assert games.two_ghosts
        assert games.chance(start) == pytest.approx(exact, abs=1e-9), layout.name
        moved += abs(DotGames(layout).chance(start) - exact) > 0.01  # random ghosts' games are not these
        checked += 1
    assert moved >= 2


def test_a_ghost_that_reads_more_is_played_as_a_random_one():
    """Arcade ghosts on a two-ghost maze: the chaser's games are its own, the ambusher's a random ghost's."""
    layout = random_maze(1_000_001).layout
    assert layout.num_ghosts == 2
    games = dot_games(layout, _rules("arcade", 2))
    assert games.sets == (("chaser", 0.8), RANDOM_RULE)
    plain = dot_games(layout)
    dot = games.dots[0]
    assert np.array_equal(games.single(dot, ghost=2), plain.single(dot))
    assert not np.array_equal(games.single(dot, ghost=1), plain.single(dot))


def test_the_games_are_kept_per_rules_on_the_layout():
    layout = random_maze(1_000_015).layout
    rules = _rules("directional", 1)
    assert dot_games(layout, rules) is dot_games(layout, rules)
    assert dot_games(layout, rules) is not dot_games(layout)
    assert dot_games(layout, _rules("random", 1)) is dot_games(layout)


def test_dots_against_random_ghosts_is_dots_itself():
    assert dots_against(None) is dots_evaluation
    assert dots_against(make_ghosts("random", 3)) is dots_evaluation
    against = dots_against(make_ghosts("directional", 1))
    assert against is dots_against(make_ghosts("directional", 1))  # made once per rules
    assert against.core_form is not None and against.core_form.function is against.function


def test_the_search_evaluates_with_the_games_against_its_ghost_model():
    """An agent that models directional ghosts searches with `dots_against` them: on a one-ghost maze of one dot its
    leaf value at the start is `scaled` plus the weight times the solver's optimum against directional ghosts."""
    layout = parse_layout("%%%%%%%%\n%P    .%\n% %%%% %\n%   G  %\n%%%%%%%%", name="one-dot")
    ghosts = make_ghosts("directional", 1)
    agent = ExpectimaxAgent(depth=1, ghost_model="directional")
    agent.reset(np.random.default_rng(0), ghosts, layout)
    start = GameState.initial(layout)
    agent.get_action(start)
    evaluation = agent._searcher.game.evaluation
    exact = solve(layout, ghosts="directional", objective="win").value
    plain = dots_evaluation(start)
    assert evaluation is dots_against(ghosts)
    _, chance_weight, _ = dots_prices(dot_games(layout))
    assert evaluation(start) - plain == pytest.approx((exact - DotGames(layout).chance(start)) * chance_weight,
                                                      abs=1e-6)


@needs_core
@pytest.mark.parametrize("kind, seed", [("directional", 1_000_015), ("directional", 1_000_001),
                                        ("arcade", 1_000_001), ("chaser", 1_000_226)])
def test_both_engines_value_every_move_alike_against_the_kinds(kind, seed):
    """The core reads the very tables `chance` reads, each ghost its own set: every root move's value agrees."""
    layout = random_maze(seed).layout
    state = GameState.initial(layout, heading=kind == "arcade")
    values = {}
    for engine in ("compiled", "python"):
        agent = ExpectimaxAgent(depth=4, ghost_model=kind, engine=engine)
        agent.reset(np.random.default_rng(0), make_ghosts(kind, layout.num_ghosts), layout)
        values[engine] = agent.action_values(state)
    assert values["compiled"].keys() == values["python"].keys()
    for action, value in values["python"].items():
        assert values["compiled"][action] == pytest.approx(value, abs=1e-6)


@needs_core
def test_the_core_refuses_rule_sets_that_do_not_fit():
    """Each ghost's set is read by number: a list of the wrong length, or a set the values do not hold, is refused."""
    from pacman.agents.compiled import _core

    layout = random_maze(1_000_001).layout
    agent = ExpectimaxAgent(depth=2, ghost_model="arcade", engine="compiled")
    agent.reset(np.random.default_rng(0), make_ghosts("arcade", 2), layout)
    agent.get_action(GameState.initial(layout, heading=True))
    options = agent._searcher._options
    form = options["dots"]
    sets = 7  # each ghost's set, in DotGames.core_form's order
    assert np.frombuffer(form[sets], dtype=np.int32).tolist() == [0, 1]
    _core.Searcher(**options)
    for broken in (form[sets][:4], np.array([0, 2], dtype=np.int32).tobytes(),
                   np.array([0, -1], dtype=np.int32).tobytes()):
        with pytest.raises(ValueError, match=r"dots must be DotGames.core_form\(\) of this layout"):
            _core.Searcher(**{**options, "dots": form[:sets] + (broken,) + form[sets + 1:]})


# The policy walked whole takes a minute a case on the Python engine: it walks one there. The engines' values are
# the same move for move (test_both_engines_value_every_move_alike_against_the_kinds).
@pytest.mark.parametrize("kind, seed", [
    ("directional", 1_000_015), pytest.param("directional", 1_000_226, marks=needs_core),
    pytest.param("arcade", 1_000_015, marks=needs_core), pytest.param("arcade", 1_000_226, marks=needs_core)])
def test_the_default_plays_the_game_out_where_it_once_waited_for_ever(kind, seed):
    """Two held-out mazes of one ghost and four dots, where the optimum wins 19% against hunters by gambling. Weighed
    by the chance alone, the default circled a loop for ever (its game never ended); priced as the game's end, the
    games against the ghost's own moves make it play the optimum's worth (the solver's; the policy walked whole)."""
    from research.gap import AgentSpec, agent_value

    layout = random_maze(seed).layout
    optimum = solve(layout, ghosts=kind, objective="win").value
    value = agent_value(AgentSpec.parse("expectimax"), layout, kind)
    assert 0.1 < optimum < 0.3
    assert value.win == pytest.approx(optimum, abs=1e-9)
    assert value.score > -float("inf")  # its game ends
