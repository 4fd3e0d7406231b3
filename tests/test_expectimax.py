"""Search agents on Pacman: exact values against a textbook expectimax, and exact speed-ups."""

import random
import time

import pytest

from pacman.agents import AlphaBetaAgent, ExpectimaxAgent, MinimaxAgent, make_ghosts
from pacman.agents.evaluation import better_evaluation, resolve_evaluation
from pacman import Action, AgentSpecError, GameState, load_layout, parse_layout, run_game
from pacman.conformance import SimpleState, textbook_action_values, uniform_ghosts
from pacman.layout import layout_names

# -- the textbook expectimax (pacman.conformance) on the simple engine ------------------


def directional(state, agent, prob=0.8):
    """The directional ghost, written out again from its definition."""
    legal = state.legal_actions(agent)
    x, y = state.ghost_positions[agent - 1]
    px, py = state.pacman_position
    scared = state.scared_timers[agent - 1] > 0
    step = 0.5 if scared else 1.0
    dist = [abs(x + a.vector[0] * step - px) + abs(y + a.vector[1] * step - py) for a in legal]
    target = max(dist) if scared else min(dist)
    best = [a for a, d in zip(legal, dist) if d == target]
    weights = {a: (prob / len(best) if a in best else 0.0) + (1 - prob) / len(legal) for a in legal}
    total = sum(weights.values())
    return [(a, weights[a] / total) for a in legal]


def portable_evaluation(state):
    """Works on both engines: score, food left, and a pull toward the east."""
    return state.score - 3.0 * state.food_count + 0.25 * state.pacman_position[0]


def random_positions(layout, count, seed, num_ghosts=None):
    """Pairs of (fast, simple engine) states reached by the same random moves."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        fast = GameState.initial(layout, num_ghosts=num_ghosts)
        ref = SimpleState.initial(layout, num_ghosts=num_ghosts)
        for turn in range(rng.randrange(0, 40)):
            agent = turn % fast.num_agents
            legal = fast.legal_actions(agent)
            if not legal:
                break
            action = rng.choice(legal)
            fast, ref = fast.successor(agent, action), ref.successor(agent, action)
        # Stop at a position where Pacman is to move and the game goes on.
        if not fast.is_terminal() and turn % fast.num_agents == fast.num_agents - 1:
            out.append((fast, ref))
    return out


SMALL_MAZES = [
    parse_layout("%%%%%%%\n%o...G%\n%.%%%.%\n%P..1.%\n%%%%%%%\n", name="ring"),
    load_layout("minimax"),
    load_layout("test"),
]


@pytest.mark.parametrize("model_name, model", [("random", uniform_ghosts), ("directional", directional)])
@pytest.mark.parametrize("depth", [1, 2])
def test_action_values_equal_textbook_expectimax_on_the_simple_engine(model_name, model, depth):
    for layout in SMALL_MAZES:
        for fast, ref in random_positions(layout, 4, seed=depth):
            agent = ExpectimaxAgent(depth=depth, evaluation=portable_evaluation, ghost_model=model_name)
            ours = agent.action_values(fast)
            theirs = textbook_action_values(ref, depth, portable_evaluation, model)
            assert list(ours) == list(theirs)
            for action in ours:
                assert ours[action] == pytest.approx(theirs[action], abs=1e-9)


def test_action_values_with_better_equal_textbook_on_medium():
    layout = load_layout("medium")
    for fast, _ in random_positions(layout, 3, seed=5):
        ours = ExpectimaxAgent(depth=2, evaluation="better", ghost_model="random").action_values(fast)
        theirs = textbook_action_values(fast, 2, better_evaluation, uniform_ghosts)
        assert ours == pytest.approx(theirs, abs=1e-9)


def test_get_action_is_the_first_best_action():
    layout = load_layout("medium")
    for fast, _ in random_positions(layout, 6, seed=8):
        agent = ExpectimaxAgent(depth=2, evaluation="score")
        values = agent.action_values(fast)
        best = max(values.values())
        first_best = next(a for a in fast.legal_actions(0) if values[a] == best)
        assert agent.get_action(fast) == first_best


def test_ties_break_by_action_order():
    state = GameState.initial(parse_layout("%%%%%\n%   %\n% P %\n%   %\n%%%%%\n"))
    agent = ExpectimaxAgent(depth=1, evaluation=lambda s: 0.0)
    assert agent.action_values(state) == {a: 0.0 for a in (Action.NORTH, Action.SOUTH, Action.EAST,
                                                          Action.WEST, Action.STOP)}
    assert agent.get_action(state) == Action.NORTH


def test_depth_counts_plies_of_all_agents():
    # One ghost: depth 1 is Pacman's move then the ghost's; the evaluation sees two moves.
    layout = parse_layout("%%%%%%%%\n%P    G%\n%%%%%%%%\n")
    seen = []

    def spy(state):
        seen.append((state.pacman_position, state.ghost_positions[0]))
        return 0.0

    ExpectimaxAgent(depth=1, evaluation=spy, transposition=False).action_values(GameState.initial(layout))
    assert sorted(seen) == [((1, 1), (5, 1)), ((2, 1), (5, 1))]


@pytest.mark.parametrize("name", ["medium", "small", "capsules", "tricky"])
def test_transposition_table_changes_no_value_or_move(name):
    layout = load_layout(name)
    for fast, _ in random_positions(layout, 3, seed=len(name)):
        for evaluation in ("score", "better"):
            plain = ExpectimaxAgent(depth=2, evaluation=evaluation, transposition=False, pruning=False)
            fast_agent = ExpectimaxAgent(depth=2, evaluation=evaluation, transposition=True)
            assert fast_agent.action_values(fast) == plain.action_values(fast)
            assert fast_agent.get_action(fast) == plain.get_action(fast)


def bounded(state):
    """An evaluation with declared bounds, so that Star1 can prune."""
    return min(max(state.score - 2 * state.food_count, -600.0), 600.0)


bounded.bounds = (-600.0, 600.0)


def test_star1_pruning_gives_the_same_moves_and_values_with_fewer_nodes():
    layout = load_layout("minimax")
    pruned_nodes = plain_nodes = 0
    for fast, _ in random_positions(layout, 10, seed=3):
        plain = ExpectimaxAgent(depth=2, evaluation=bounded, transposition=False, pruning=False)
        star1 = ExpectimaxAgent(depth=2, evaluation=bounded, transposition=False, pruning=True, star2=False)
        assert star1.get_action(fast) == plain.get_action(fast)
        assert star1.action_values(fast) == plain.action_values(fast)
        star1.get_action(fast)
        plain.get_action(fast)
        pruned_nodes += star1.last_search.nodes
        plain_nodes += plain.last_search.nodes
    assert pruned_nodes < plain_nodes


def test_alpha_beta_equals_minimax_with_fewer_nodes():
    fewer = 0
    for name in ("minimax", "small", "trapped"):
        for fast, _ in random_positions(load_layout(name), 6, seed=11):
            minimax = MinimaxAgent(depth=2, evaluation="better", transposition=False)
            alphabeta = AlphaBetaAgent(depth=2, evaluation="better", transposition=False)
            assert alphabeta.action_values(fast) == minimax.action_values(fast)
            assert alphabeta.get_action(fast) == minimax.get_action(fast)
            assert alphabeta.last_search.nodes <= minimax.last_search.nodes
            fewer += alphabeta.last_search.nodes < minimax.last_search.nodes
    assert fewer >= 6


def test_minimax_values_are_the_worst_case():
    # Pacman next to a ghost in a corridor: the min layer assumes the ghost steps onto him.
    layout = parse_layout("%%%%%%%\n%P.G .%\n%%%%%%%\n")
    values = MinimaxAgent(depth=1, evaluation="score").action_values(GameState.initial(layout))
    assert values[Action.EAST] == -1 + 10 - 500 and values[Action.STOP] == -1


def test_iterative_deepening_returns_a_finished_depth_within_the_limit():
    layout = load_layout("medium")
    state = GameState.initial(layout)
    agent = ExpectimaxAgent(depth=None, evaluation="better", time_limit=0.05, transposition=False)
    started = time.perf_counter()
    action = agent.get_action(state)
    elapsed = time.perf_counter() - started
    info = agent.last_search
    assert info.depth >= 1 and action in state.legal_actions(0)
    assert elapsed < 0.05 + 0.5  # bounded overshoot even on a loaded machine
    # The answer is that of a full search to the depth it reports.
    full = ExpectimaxAgent(depth=int(info.depth), evaluation="better", transposition=False)
    assert full.get_action(state) == action


def test_iterative_deepening_stops_at_the_maximum_depth():
    agent = ExpectimaxAgent(depth=3, evaluation="score", time_limit=30.0)
    state = GameState.initial(load_layout("small"))
    action = agent.get_action(state)
    assert agent.last_search.depth == 3
    assert action == ExpectimaxAgent(depth=3, evaluation="score").get_action(state)


def test_unlimited_depth_is_capped_when_stop_makes_the_tree_infinite(monkeypatch):
    import pacman.agents.expectimax as expectimax

    monkeypatch.setattr(expectimax, "MAX_DEPTH", 4)
    layout = parse_layout("%%%%%%\n%P. .%\n%%%%%%\n")  # no ghosts: Stop forever never ends
    agent = ExpectimaxAgent(depth=None, evaluation="score", time_limit=60.0)
    assert agent.get_action(GameState.initial(layout)) == Action.EAST
    assert agent.last_search.depth == 4


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_transposition_table_stays_within_its_bound(monkeypatch, engine):
    import pacman.agents.expectimax as expectimax
    from pacman.agents.compiled import core_status

    if engine == "compiled" and not core_status()[0]:
        pytest.skip(f"the compiled core is not in use here: {core_status()[1]}")
    monkeypatch.setattr(expectimax, "DEFAULT_TABLE_SIZE", 50)
    agent = ExpectimaxAgent(depth=2, evaluation="score", engine=engine)
    layout = load_layout("medium")
    for fast, _ in random_positions(layout, 5, seed=2):
        agent.get_action(fast)
        searcher = agent._searcher
        entries = len(searcher.table) if engine == "python" else searcher.table_entries
        assert 0 < entries <= 50


def test_ghost_model_defaults_to_the_ghosts_in_play():
    layout = load_layout("small")
    state = GameState.initial(layout)
    agent = ExpectimaxAgent(depth=1, evaluation="better")
    agent.reset(None, make_ghosts("directional", 2))
    directional_values = agent.action_values(state)
    assert directional_values == ExpectimaxAgent(depth=1, ghost_model="directional").action_values(state)
    agent.reset(None, make_ghosts("random", 2))
    assert agent.action_values(state) == ExpectimaxAgent(depth=1, ghost_model="random").action_values(state)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(depth=0), "depth must be an int >= 1"),
        (dict(depth="3"), "depth must be an int >= 1"),
        (dict(depth=None), "needs a time_limit"),
        (dict(time_limit=0), "time_limit must be a positive number"),
        (dict(ghost_model="smart"), "ghost_model must be"),
        (dict(evaluation="nope"), "not a registered name (score, better, safe, scaled, dots)"),
        (dict(transposition="yes"), "transposition must be true or false"),
    ],
)
def test_bad_agent_arguments_name_the_argument(kwargs, message):
    with pytest.raises(AgentSpecError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ExpectimaxAgent(**kwargs)


def test_evaluation_specs_resolve_from_modules_and_files(tmp_path):
    assert resolve_evaluation("score")(GameState.initial(load_layout("test"))) == 0.0
    assert resolve_evaluation("pacman.agents.evaluation:better_evaluation") is better_evaluation
    file = tmp_path / "mine.py"
    file.write_text("def eval_east(state):\n    return float(state.pacman_position[0])\n")
    function = resolve_evaluation(f"{file}:eval_east")
    assert function(GameState.initial(load_layout("test"))) == 1.0
    with pytest.raises(AgentSpecError, match="has no 'nope' \\(it defines the function eval_east\\)"):
        resolve_evaluation(f"{file}:nope")
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('bad import')\n")
    with pytest.raises(AgentSpecError, match="raised RuntimeError: bad import"):
        resolve_evaluation(f"{broken}:f")


def test_agent_loaded_from_a_file_plays(tmp_path):
    from pacman.agent_specs import make_pacman_agent

    file = tmp_path / "bots.py"
    file.write_text(
        "from pacman import Action\n"
        "class Stopper:\n"
        "    def get_action(self, state):\n"
        "        return Action.STOP\n"
    )
    agent = make_pacman_agent(f"{file}:Stopper")
    result = run_game(load_layout("test"), agent, [], seed=0, max_moves=5)
    assert result.cut_off and result.score == -5


@pytest.mark.slow
@pytest.mark.parametrize("name", ["small", "medium"])
def test_default_agent_wins_at_least_95_percent_against_random_ghosts(name):
    layout = load_layout(name)
    wins = sum(
        run_game(layout, ExpectimaxAgent(), make_ghosts("random", layout.num_ghosts), seed=seed, max_moves=3000).won
        for seed in range(100)
    )
    assert wins >= 95


@pytest.mark.slow
@pytest.mark.parametrize("name", layout_names())
def test_speed_ups_are_exact_on_every_layout(name):
    layout = load_layout(name)
    for fast, _ in random_positions(layout, 3, seed=1):
        plain = ExpectimaxAgent(depth=3, evaluation="better", transposition=False, pruning=False)
        quick = ExpectimaxAgent(depth=3, evaluation="better")
        assert quick.action_values(fast) == plain.action_values(fast)


def test_a_time_limited_search_deeper_than_the_stack_answers_with_the_last_depth():
    layout = parse_layout("%%%%%%%%\n%P    G%\n%%%%%%%%\n")
    agent = ExpectimaxAgent(depth=10**6, time_limit=2.0)
    result = run_game(layout, agent, make_ghosts("random", 1), seed=1, max_moves=2)
    assert not result.crashed, result.error
    assert result.moves >= 1
