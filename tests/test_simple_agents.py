"""The search-free Pacman agents and the agent registry."""

import numpy as np
import pytest

from pacman.agents import GreedyAgent, RandomAgent, parse_agent_args
from pacman.agent_specs import make_pacman_agent
from pacman import Action, AgentSpecError, GameState, parse_layout


def test_greedy_prefers_food_then_the_nearest_food():
    state = GameState.initial(parse_layout("%%%%%%%%\n%. P  .%\n%%%%%%%%\n"))
    assert GreedyAgent().get_action(state) == Action.WEST  # the food two steps west beats three east


def test_greedy_will_not_step_next_to_a_ghost_for_food():
    # East is food but ends beside the ghost; Stop is safe and stays nearest the food.
    state = GameState.initial(parse_layout("%%%%%%%%\n%  P.G %\n%%%%%%%%\n"))
    assert GreedyAgent().get_action(state) == Action.STOP


def test_random_agent_draws_from_the_stream_it_is_given():
    state = GameState.initial(parse_layout("%%%%%\n%   %\n% P %\n%   %\n%%%%%\n"))
    first, second = RandomAgent(), RandomAgent()
    first.reset(np.random.default_rng(5))
    second.reset(np.random.default_rng(5))
    picks = [first.get_action(state) for _ in range(30)]
    assert picks == [second.get_action(state) for _ in range(30)]
    assert set(picks) == set(state.legal_actions(0))  # all five, over 30 draws


def test_agent_args_parse_to_typed_values():
    assert parse_agent_args("depth=3, eval=better,on=TRUE,p=0.5,x=none") == {
        "depth": 3, "eval": "better", "on": True, "p": 0.5, "x": None}
    assert parse_agent_args("") == {}
    for bad, message in (("depth", "expected key=value"), ("a=1,a=2", "given twice"), ("1x=2", "expected key=value")):
        with pytest.raises(AgentSpecError, match=message):
            parse_agent_args(bad)


def test_registry_builds_agents_and_explains_mistakes():
    assert isinstance(make_pacman_agent("greedy"), GreedyAgent)
    assert isinstance(make_pacman_agent("random", {"seed": 4}), RandomAgent)
    with pytest.raises(AgentSpecError, match="unknown Pacman agent 'smart'.*greedy"):
        make_pacman_agent("smart")
    with pytest.raises(AgentSpecError, match="takes no argument 'depth' \\(accepted: seed\\)"):
        make_pacman_agent("random", {"depth": 2})
