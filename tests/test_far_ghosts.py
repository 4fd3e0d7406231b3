"""Far ghosts: where no ghost can matter any more, Star2's search values a node from Pacman's moves alone
(`PacmanGame.far_value`), and gets exactly the value plain expectimax adds up, rounding included, on both
engines."""

from __future__ import annotations

import pytest
from test_compiled_core import USABLE, pacman_positions

from pacman import AgentSpecError, GameState, load_layout, parse_layout
from pacman.agents import ExpectimaxAgent
from pacman.agents.evaluation import better_evaluation, score_evaluation
from pacman.agents.expectimax import PacmanGame, _sums_exactly
from pacman.agents.search import Searcher
from pacman.bench.search import bench_positions
from pacman.distances import DistanceTable
from pacman.layout import layout_names

ENGINES = ("python", "compiled") if USABLE else ("python",)

# Pacman in a corridor, one ghost in a 3 x 3 room 19 steps away, where it has three or four moves: sums over
# three moves round.
ROOM = parse_layout(
    "%%%%%%%%%%%%%%%%%%%%%%\n"
    "%P.......%%%%%%%%%...%\n"
    "%%%%%%%%...........G.%\n"
    "%%%%%%%%%%%%%%%%%%...%\n"
    "%%%%%%%%%%%%%%%%%%%%%%\n",
    name="room",
)


def corridor(gap: int) -> GameState:
    """Pacman at the west end of a straight corridor with food, the ghost `gap` cells east of him."""
    layout = parse_layout("%" * (gap + 3) + "\n%P" + "." * (gap - 1) + "G%\n" + "%" * (gap + 3) + "\n",
                          name=f"corridor{gap}")
    return GameState.initial(layout)


def plain_value(state: GameState, agent: int, depth: int, evaluation) -> float:
    """Textbook expectimax's value of (state, agent) at `depth`: no pruning, no table, no far ghosts."""
    return Searcher(PacmanGame(state.num_agents, evaluation)).value((state, agent), depth)


def room_state(score: int) -> GameState:
    """`ROOM` with the given score and the ghost in the middle of its room heading east: it has three moves
    (not back west), so the first chance layer adds up thirds."""
    pac, food, capsules, ghosts, timers, _, status = GameState.initial(ROOM).position_key
    east = (ghosts[0] // 5 * 5 + 2,)
    state = GameState.from_position_key(ROOM, (pac, food, capsules, east, timers, score, status))
    assert [a.value for a in state.legal_actions(1)] == ["North", "South", "East"]
    return state


@pytest.mark.parametrize("evaluation, horizon", [(better_evaluation, 8), (score_evaluation, 0)])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_a_ghost_is_far_from_one_step_beyond_the_horizon_at_every_node_below(evaluation, horizon, depth):
    game = PacmanGame(2, evaluation)
    # at Pacman's move both have `depth` moves left; he and the ghost close in by one step each a move
    edge = horizon + 2 * depth + 1
    far, near = corridor(edge), corridor(edge - 1)
    assert DistanceTable.of(far.layout).distance(far.pacman_position, far.ghost_positions[0]) == edge
    assert game.far_value((near, 0), depth) is None
    value, visited = game.far_value((far, 0), depth)
    assert value == plain_value(far, 0, depth, evaluation)
    assert visited >= depth + 1  # Pacman's line to the depth limit at least
    # at the ghost's move Pacman has moved: one move fewer for him
    after = far.successor(0, far.legal_actions(0)[0])
    assert DistanceTable.of(far.layout).distance(after.pacman_position, after.ghost_positions[0]) == edge - 1
    assert game.far_value((after, 1), depth) is not None
    assert game.far_value((near.successor(0, near.legal_actions(0)[0]), 1), depth) is None


def test_nothing_is_skipped_where_a_ghost_may_still_matter():
    state = GameState.initial(ROOM)
    game = PacmanGame(2, better_evaluation)
    assert game.far_value((state, 0), 2) is not None
    pac, food, capsules, ghosts, timers, score, status = state.position_key
    scared = GameState.from_position_key(ROOM, (pac, food, capsules, ghosts, (40,), score, status))
    assert game.far_value((scared, 0), 2) is None  # a scared ghost he can reach in time pulls him
    first = food & -food
    two = first | (food ^ first) & -(food ^ first)
    two_dots = GameState.from_position_key(ROOM, (pac, two, capsules, ghosts, timers, score, status))
    assert two_dots.food_count == 2
    assert game.far_value((two_dots, 0), 2) is None  # he might win: a won game is no chance node
    assert game.far_value((two_dots, 0), 1) is not None
    for other in (PacmanGame(2, better_evaluation, ghost_models=[object()]),  # a model that is not uniform
                  PacmanGame(2, better_evaluation, ghosts_minimise=True),
                  PacmanGame(2, lambda s: float(s.score))):  # an evaluation that declares no horizon
        assert other.far_value((state, 0), 2) is None


def test_a_capsule_within_reach_keeps_the_ghosts_in_play():
    layout = parse_layout(
        "%%%%%%%%%%%%%%%%%%%%%%\n"
        "%P..o....%%%%%%%%%...%\n"
        "%%%%%%%%...........G.%\n"
        "%%%%%%%%%%%%%%%%%%...%\n"
        "%%%%%%%%%%%%%%%%%%%%%%\n", name="capsule")
    state = GameState.initial(layout)
    game = PacmanGame(2, better_evaluation)
    assert game.far_value((state, 0), 3) is None  # the capsule is 3 steps away: it would scare the ghost
    value, _ = game.far_value((state, 0), 2)
    assert value == plain_value(state, 0, 2, better_evaluation)


def test_sums_over_three_moves_round_and_the_far_value_rounds_the_same():
    # 3.5 over three moves, a third each, adds up to a rounding away from 3.5: the reason for _sums_exactly
    third = 1.0 / 3
    assert (0.0 + third * 3.5 + third * 3.5) + third * 3.5 != 3.5
    assert not _sums_exactly(3.5) and _sums_exactly(-4802.0)
    game = PacmanGame(2, score_evaluation)
    rounded = 0
    for score in range(-40, 41):
        state = room_state(score)
        for depth in (1, 2, 3):
            value, _ = game.far_value((state, 0), depth)
            best = max(s.score for s in _lines(state, depth))
            expected = plain_value(state, 0, depth, score_evaluation)
            assert value == expected
            rounded += expected != best
    assert rounded > 10  # the ghost-only sums were needed, and reproduced


def _lines(state: GameState, moves: int) -> list[GameState]:
    """Every state Pacman reaches in `moves` moves with the ghosts standing still."""
    if moves == 0:
        return [state]
    return [end for child in state.successors(0) for end in _lines(child, moves - 1)]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("evaluation", ["better", "safe", "score"])
def test_far_ghosts_leave_every_value_and_move_as_plain_expectimax_has_them(engine, evaluation):
    states = [room_state(score) for score in range(-12, 13)]
    states += [state for name in ("medium", "tricky", "large") for state in pacman_positions(load_layout(name), 3, seed=4)]
    for i, state in enumerate(states):
        depth = 1 + i % 3
        plain = ExpectimaxAgent(depth=depth, evaluation=evaluation, ghost_model="random", pruning=False,
                                engine="python")
        star2 = ExpectimaxAgent(depth=depth, evaluation=evaluation, ghost_model="random", engine=engine)
        assert star2.action_values(state) == plain.action_values(state)
        star2.clear_table()
        assert star2.get_action(state) == plain.get_action(state)


@pytest.mark.skipif(not USABLE, reason="the compiled core is not in use here")
def test_both_engines_count_the_same_nodes_where_ghosts_are_far():
    states = [room_state(score) for score in (-16, -2, 0, 5, 19)]
    states += [state for state, _ in bench_positions(load_layout("tricky"), 3, seed=0)]
    for state in states:
        counts = {}
        for engine in ("python", "compiled"):
            agent = ExpectimaxAgent(depth=3, ghost_model="random", engine=engine)
            agent.get_action(state)
            counts[engine] = agent.last_search.nodes
        assert counts["python"] == counts["compiled"]


def test_the_start_of_tricky_needs_a_few_hundred_nodes_at_depth_4():
    """Four ghosts in their pen, 17 or more steps from Pacman: at depth 4 none can come within the horizon,
    so the whole search is Pacman's own moves (3.7 million nodes without skipping the ghosts)."""
    state = GameState.initial(load_layout("tricky"))
    depth = 4 if USABLE else 2
    engine = "compiled" if USABLE else "python"
    agent = ExpectimaxAgent(depth=depth, ghost_model="random", engine=engine)
    star1 = ExpectimaxAgent(depth=depth, ghost_model="random", engine=engine, star2=False)
    assert agent.action_values(state) == star1.action_values(state)
    assert agent.last_search.nodes < 1000 < star1.last_search.nodes


def test_better_ignores_hunting_ghosts_beyond_its_horizon():
    """The premise: moving a ghost while no ghost is scared or within `ghost_horizon` steps of Pacman leaves
    `better` (and the score) unchanged, bit for bit."""
    horizon = better_evaluation.ghost_horizon
    checked = 0
    for name in layout_names():
        layout = load_layout(name)
        table = DistanceTable.of(layout)
        for state in pacman_positions(layout, 20, seed=9):
            if state.num_ghosts == 0 or any(state.scared_timers):
                continue
            row = table.rows[table.cell(state.pacman_position)]
            if min(row[table.cell(g)] for g in state.ghost_positions) <= horizon:
                continue
            for i in range(state.num_ghosts):
                for moved in state.successors(i + 1):
                    if min(row[table.cell(g)] for g in moved.ghost_positions) > horizon:
                        assert better_evaluation(moved) == better_evaluation(state), name
                        assert score_evaluation(moved) == score_evaluation(state), name
                        checked += 1
    assert checked > 100


def by_score(state):
    """The score alone, declared blind to ghosts that cannot reach Pacman."""
    return float(state.score)


by_score.ghost_horizon = 0


def test_a_users_evaluation_that_declares_a_horizon_has_far_ghosts_skipped_exactly():
    states = [room_state(score) for score in (-2, 5, 16)]
    for depth, state in enumerate(states, start=1):
        game = PacmanGame(2, by_score)
        assert game.far_value((state, 0), depth)[0] == plain_value(state, 0, depth, by_score)
        agent = ExpectimaxAgent(depth=depth, evaluation=by_score, ghost_model="random")
        plain = ExpectimaxAgent(depth=depth, evaluation=by_score, ghost_model="random", pruning=False)
        assert agent.action_values(state) == plain.action_values(state)
        assert agent.engine_used == "python" and agent.last_search.nodes < plain.last_search.nodes


@pytest.mark.parametrize("horizon", [-1, 2.5, "8", True])
def test_a_bad_horizon_is_refused_when_the_agent_is_made(horizon):
    def evaluation(state):
        return 0.0

    evaluation.ghost_horizon = horizon
    with pytest.raises(AgentSpecError, match=r"evaluation 'evaluation': ghost_horizon must be an int >= 0"):
        ExpectimaxAgent(evaluation=evaluation)


@pytest.mark.parametrize("evaluation", [better_evaluation, score_evaluation])
def test_a_scared_ghost_is_far_while_pacman_cannot_reach_it_in_time(evaluation):
    """19 steps away, depth 2: at the leaves Pacman has come 2 steps nearer, and the timer (less the ghost's
    2 moves) must not exceed the distance (less the ghost's moves and a half-step's rounding): timers up to
    16 leave the ghost out of reach; 17 does not."""
    game = PacmanGame(2, evaluation)
    pac, food, capsules, ghosts, _, score, status = GameState.initial(ROOM).position_key
    for timer, far in ((1, True), (2, True), (9, True), (16, True), (17, False), (40, False)):
        state = GameState.from_position_key(ROOM, (pac, food, capsules, ghosts, (timer,), score, status))
        found = game.far_value((state, 0), 2)
        assert (found is not None) == far, timer
        if far:
            assert found[0] == plain_value(state, 0, 2, evaluation)
        for engine in ENGINES:
            agent = ExpectimaxAgent(depth=2, evaluation=evaluation.__name__.split("_")[0], ghost_model="random",
                                    engine=engine)
            plain = ExpectimaxAgent(depth=2, evaluation=evaluation.__name__.split("_")[0], ghost_model="random",
                                    pruning=False, engine="python")
            assert agent.action_values(state) == plain.action_values(state)
