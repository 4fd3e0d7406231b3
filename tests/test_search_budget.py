"""A search agent's budget: one value (`Depth`, `Nodes`, `Time`, `Auto`) chosen once from its arguments.

The keywords (``depth``, ``time_limit``, ``node_limit``) and a budget given whole as `depth` are two ways of
saying the same search: each maps to one budget object, both play the same moves to the same depths with the
same node counts, and bad arguments are refused with the messages the keywords always had.
"""

from __future__ import annotations

import math
import pickle
import random

import pytest

from pacman import AgentSpecError, load_layout
from pacman.agents import GHOST_KINDS, AlphaBetaAgent, ExpectimaxAgent, MinimaxAgent, parse_agent_args
from pacman.agent_specs import make_pacman_agent
from pacman.agents.evaluation import EVALUATIONS, better_evaluation, resolve_evaluation
from pacman.agents.expectimax import (AUTO, AUTO_DEPTH, MAX_NODE_LIMIT, SMALL_MAZE_NODES, Auto, Depth, Nodes, Time,
                                      PacmanGame)
from pacman.agents.ghosts import RandomGhost
from pacman.state import GameState

LAYOUTS = ("small", "medium", "tricky", "trapped", "pocket", "capsules")
SMALL, TRAPPED = load_layout("small"), load_layout("trapped")  # 64 cells (not a small maze), 18 (small)


# -- (a) each way of giving a budget maps to the right budget object ------------------------------------------


@pytest.mark.parametrize("args, budget", [
    ({}, AUTO),
    ({"depth": "auto"}, Auto()),
    ({"depth": 3}, Depth(3)),
    ({"depth": None, "node_limit": 500}, Nodes(500)),
    ({"depth": 4, "node_limit": 500}, Nodes(500, 4)),
    ({"node_limit": 500}, Auto(nodes=500)),
    ({"time_limit": 0.5}, Auto(seconds=0.5)),
    ({"time_limit": 1, "node_limit": 9}, Auto(nodes=9, seconds=1.0)),
    ({"depth": None, "time_limit": 2}, Time(2.0)),
    ({"depth": 3, "time_limit": 1, "node_limit": 100}, Time(1.0, 3, 100)),
    ({"depth": Nodes(2000)}, Nodes(2000)),
    ({"depth": Time(1.5, 4)}, Time(1.5, 4)),
    ({"depth": Depth(1)}, Depth(1)),
    ({"depth": Auto(nodes=300)}, Auto(nodes=300)),
])
def test_expectimax_arguments_map_to_one_budget(args, budget):
    assert ExpectimaxAgent(**args).budget == budget


def test_the_other_search_agents_take_the_same_budgets_but_auto():
    assert MinimaxAgent().budget == Depth(2) == AlphaBetaAgent().budget
    assert MinimaxAgent(depth=None, time_limit=1).budget == Time(1.0)
    assert AlphaBetaAgent(Nodes(800, 3)).budget == Nodes(800, 3)


def test_agent_args_from_the_command_line_give_the_same_budgets():
    for text, budget in (("depth=3", Depth(3)), ("depth=none,node_limit=5000", Nodes(5000)), ("", AUTO),
                         ("node_limit=70000", Auto(nodes=70000)), ("depth=auto,time_limit=0.25", Auto(seconds=0.25)),
                         ("depth=2,time_limit=1,node_limit=40", Time(1.0, 2, 40))):
        assert make_pacman_agent("expectimax", parse_agent_args(text)).budget == budget, text


def test_the_old_attributes_read_the_budget_as_the_keywords_said_it():
    for args, said in (({}, (AUTO_DEPTH, None, None, True)), ({"depth": 3}, (3, None, None, False)),
                       ({"depth": None, "node_limit": 500}, (None, None, 500, False)),
                       ({"node_limit": 500, "time_limit": 2}, (AUTO_DEPTH, 2.0, 500, True)),
                       ({"depth": Time(2.0, 5)}, (5, 2.0, None, False))):
        agent = ExpectimaxAgent(**args)
        assert (agent.depth, agent.time_limit, agent.node_limit, agent.auto_depth) == said, args


def test_auto_is_a_budget_of_its_own_on_each_maze():
    assert AUTO.on(TRAPPED) == Nodes(SMALL_MAZE_NODES, min_depth=AUTO_DEPTH) and AUTO.on(SMALL) == Depth(AUTO_DEPTH)
    assert Auto(nodes=500).on(TRAPPED) == Nodes(500) and Auto(nodes=500).on(SMALL) == Nodes(500, AUTO_DEPTH)
    assert Auto(seconds=1.0).on(TRAPPED) == Time(1.0) and Auto(seconds=1.0).on(SMALL) == Time(1.0, AUTO_DEPTH)
    assert Auto(nodes=9, seconds=1.0).on(SMALL) == Time(1.0, AUTO_DEPTH, 9)
    for budget in (Depth(2), Nodes(10), Time(1.0)):
        assert budget.on(TRAPPED) is budget
    assert ExpectimaxAgent().small_maze_budget(TRAPPED) == SMALL_MAZE_NODES
    assert ExpectimaxAgent(Nodes(500)).small_maze_budget(TRAPPED) is None


# -- (b) the same search either way ----------------------------------------------------------------------------


def positions(name, count, seed):
    """`count` live positions of layout `name`, Pacman to move, a few random moves of every agent from the start."""
    layout = load_layout(name)
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state = GameState.initial(layout)
        for _ in range(rng.randrange(1, 8)):  # rounds: Pacman's move, then each ghost's
            for agent in range(state.num_agents):
                if not state.is_terminal():
                    state = state.successor(agent, rng.choice(state.legal_actions(agent)))
        if not state.is_terminal():
            out.append(state)
    return out


SAME_SEARCH = [  # (keywords, the budget they give)
    ({"depth": 2}, Depth(2)),
    ({}, AUTO),
    ({"depth": None, "node_limit": 3000}, Nodes(3000)),
    ({"depth": 3, "node_limit": 3000}, Nodes(3000, 3)),
    ({"node_limit": 2000}, Auto(nodes=2000)),
    ({"depth": 2, "time_limit": 600.0}, Time(600.0, 2)),  # time to spare: the depths finish, the nodes are exact
    ({"depth": 3, "time_limit": 600.0, "node_limit": 4000}, Time(600.0, 3, 4000)),
]


def _decision(state, explain, **args):
    agent = ExpectimaxAgent(evaluation="better", **args)
    agent.reset(None, [RandomGhost(i) for i in range(1, state.num_agents)], state.layout)
    agent.explain = explain
    action = agent.get_action(state)
    info = agent.last_search
    return action, info.depth, info.nodes, info.action_values


@pytest.mark.parametrize("name", LAYOUTS)
def test_keywords_and_budget_objects_search_the_same(name):
    for i, state in enumerate(positions(name, 3, seed=len(name))):
        for keywords, budget in SAME_SEARCH:
            assert ExpectimaxAgent(**keywords).budget == budget
            explain = i == 1  # every value wanted: under a node budget the move must not change
            by_keywords = _decision(state, explain, **keywords)
            assert by_keywords == _decision(state, explain, depth=budget), (name, keywords)


@pytest.mark.parametrize("make", [MinimaxAgent, AlphaBetaAgent])
def test_the_min_agents_search_the_same_either_way_too(make):
    for state in positions("small", 2, seed=3):
        for keywords, budget in (({"depth": 2}, Depth(2)), ({"depth": 2, "time_limit": 600.0}, Time(600.0, 2))):
            decisions = []
            for args in (keywords, {"depth": budget}):
                agent = make(evaluation="better", **args)
                action = agent.get_action(state)
                decisions.append((action, agent.last_search.depth, agent.last_search.nodes))
            assert decisions[0] == decisions[1], (make.__name__, keywords)


def test_auto_on_a_small_maze_is_its_node_budget_given_whole():
    for state in positions("trapped", 3, seed=5):
        assert _decision(state, False) == _decision(state, False, depth=Nodes(SMALL_MAZE_NODES, min_depth=AUTO_DEPTH))
        assert _decision(state, False, node_limit=900) == _decision(state, False, depth=Nodes(900))


# -- (c) bad arguments: one-line messages, as the keywords always gave them -----------------------------------

LIMIT = f"{MAX_NODE_LIMIT:,}"


@pytest.mark.parametrize("make, args, message", [
    (ExpectimaxAgent, {"depth": "x"}, "ExpectimaxAgent: depth must be an int >= 1, 'auto' or None, got 'x'"),
    (ExpectimaxAgent, {"depth": 0}, "ExpectimaxAgent: depth must be an int >= 1, got 0"),
    (ExpectimaxAgent, {"depth": True}, "ExpectimaxAgent: depth must be an int >= 1, got True"),
    (ExpectimaxAgent, {"depth": 2.5, "time_limit": 1}, "ExpectimaxAgent: depth must be an int >= 1, got 2.5"),
    (ExpectimaxAgent, {"depth": None}, "ExpectimaxAgent: depth=None (no limit) needs a time_limit or a node_limit"),
    (MinimaxAgent, {"depth": "auto"}, "MinimaxAgent: depth must be an int >= 1, got 'auto'"),
    (AlphaBetaAgent, {"depth": None}, "AlphaBetaAgent: depth=None (no limit) needs a time_limit or a node_limit"),
    (ExpectimaxAgent, {"time_limit": 0}, "ExpectimaxAgent: time_limit must be a positive number of seconds, got 0"),
    (ExpectimaxAgent, {"time_limit": "1"}, "ExpectimaxAgent: time_limit must be a positive number of seconds, got '1'"),
    (MinimaxAgent, {"time_limit": math.inf}, "MinimaxAgent: time_limit must be a positive number of seconds, got inf"),
    (ExpectimaxAgent, {"time_limit": math.nan}, "ExpectimaxAgent: time_limit must be a positive number of seconds, "
                                                "got nan"),
    (ExpectimaxAgent, {"node_limit": 0}, f"ExpectimaxAgent: node_limit must be an int from 1 to {LIMIT} "
                                         f"(nodes a move), got 0"),
    (ExpectimaxAgent, {"depth": None, "node_limit": 1e5}, f"ExpectimaxAgent: node_limit must be an int from 1 to "
                                                          f"{LIMIT} (nodes a move), got 100000.0"),
    (ExpectimaxAgent, {"node_limit": MAX_NODE_LIMIT + 1}, f"ExpectimaxAgent: node_limit must be an int from 1 to "
                                                          f"{LIMIT} (nodes a move), got {MAX_NODE_LIMIT + 1}"),
    (ExpectimaxAgent, {"transposition": "yes"}, "ExpectimaxAgent: transposition must be true or false, got 'yes'"),
    (ExpectimaxAgent, {"pruning": 1}, "ExpectimaxAgent: pruning must be true or false, got 1"),
    (ExpectimaxAgent, {"star2": "yes"}, "ExpectimaxAgent: star2 must be true or false, got 'yes'"),
    (ExpectimaxAgent, {"ordering": None}, "ExpectimaxAgent: ordering must be true or false, got None"),
    (ExpectimaxAgent, {"ghost_model": "smart"}, "ExpectimaxAgent: ghost_model must be a ghost kind ("
                                                + ", ".join(repr(kind) for kind in GHOST_KINDS)
                                                + "), a list of ghost agents or None, got 'smart'"),
    (ExpectimaxAgent, {"engine": "gpu"}, "ExpectimaxAgent: engine must be one of auto, python, compiled, got 'gpu'"),
    (ExpectimaxAgent, {"evaluation": "nope"}, "evaluation 'nope': not a registered name (score, better, safe, "
                                              "scaled, dots), nor module:function, nor path/to/file.py:function"),
])
def test_bad_arguments_are_refused_with_the_keywords_messages(make, args, message):
    with pytest.raises(AgentSpecError) as refused:
        make(**args)
    assert str(refused.value) == message


@pytest.mark.parametrize("make, args, message", [
    (ExpectimaxAgent, {"depth": Nodes(0)}, f"ExpectimaxAgent: node_limit must be an int from 1 to {LIMIT} "
                                           f"(nodes a move), got 0"),
    (ExpectimaxAgent, {"depth": Depth(0)}, "ExpectimaxAgent: depth must be an int >= 1, got 0"),
    (ExpectimaxAgent, {"depth": Time(-1.0)}, "ExpectimaxAgent: time_limit must be a positive number of seconds, "
                                             "got -1.0"),
    (ExpectimaxAgent, {"depth": Nodes(10, min_depth=0)}, "ExpectimaxAgent: min_depth must be an int >= 1, got 0"),
    (ExpectimaxAgent, {"depth": Depth(3), "time_limit": 1.0},
     "ExpectimaxAgent: depth=Depth(depth=3) is a whole budget: give no time_limit or node_limit with it"),
    (MinimaxAgent, {"depth": AUTO},
     "MinimaxAgent: depth=Auto(nodes=None, seconds=None) is ExpectimaxAgent's budget; give a Depth, Nodes or Time"),
])
def test_a_bad_budget_given_whole_is_refused_as_its_keywords_would_be(make, args, message):
    with pytest.raises(AgentSpecError) as refused:
        make(**args)
    assert str(refused.value) == message and "\n" not in message


# -- evaluations: one typed object, a plain function wrapped at the door ---------------------------------------


def test_a_plain_function_is_wrapped_with_the_declarations_it_carries():
    def mine(state):
        return float(state.score)

    mine.ghost_horizon = 0
    mine.bounds = (-1e9, 1e9)
    wrapped = resolve_evaluation(mine)
    assert wrapped.function is mine and wrapped.__name__ == "mine" and wrapped.ghost_horizon == 0
    assert wrapped.bounds == (-1e9, 1e9) and wrapped.bounds_within is None and wrapped.core_form is None
    assert not wrapped.score_additive and resolve_evaluation(wrapped) is wrapped
    agent = ExpectimaxAgent(depth=1, evaluation=mine)
    assert agent.evaluation == wrapped and agent.evaluation_name == "mine"
    assert PacmanGame(2, mine).bounds == (-1e9, 1e9)


def test_registered_evaluations_are_typed_and_pickle_by_name():
    for name, evaluation in EVALUATIONS.items():
        assert resolve_evaluation(name) is evaluation and evaluation.score_additive
        assert evaluation.core_form is not None and evaluation.core_form.function is evaluation.function
        assert pickle.loads(pickle.dumps(evaluation)) is evaluation
    assert better_evaluation.ghost_horizon == 8 and better_evaluation.bounds is None
    agent = pickle.loads(pickle.dumps(ExpectimaxAgent(Nodes(500), evaluation="better")))
    assert agent.evaluation is better_evaluation and agent.budget == Nodes(500)
