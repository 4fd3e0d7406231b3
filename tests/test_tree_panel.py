"""The decision's tree top (pacman.agents.decision) and the window's tree panel (the `t` key), headless."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pacman.agents.decision
from pacman.agents import AlphaBetaAgent, ExpectimaxAgent, MinimaxAgent, make_ghosts
from pacman.agents.decision import decision_tree
from pacman.agents.ghosts import DirectionalGhost
from pacman.agents.search import CHANCE, MIN
from pacman import GameState, load_layout, run_game
from pacman.errors import AgentSpecError
from pacman.view.renderer import Renderer, frame_size
from pacman.view.window import ReplayWindow, WindowDisplay, replay_rounds

AGENTS = [
    ("expectimax depth 1", lambda: ExpectimaxAgent(depth=1)),
    ("expectimax depth 2", lambda: ExpectimaxAgent(depth=2)),
    ("expectimax directional", lambda: ExpectimaxAgent(depth=2, ghost_model="directional")),
    ("expectimax score no pruning", lambda: ExpectimaxAgent(depth=2, evaluation="score", pruning=False,
                                                            transposition=False)),
    ("minimax", lambda: MinimaxAgent(depth=2)),
    ("alpha-beta", lambda: AlphaBetaAgent(depth=2)),
]


def positions(layout_name: str, count: int, seed: int = 0):
    """States of a game played by a depth-1 agent with random ghosts (not terminal)."""
    layout = load_layout(layout_name)
    player = ExpectimaxAgent(depth=1)
    ghosts = make_ghosts("random", layout.num_ghosts)
    rng = np.random.default_rng(seed)
    state = GameState.initial(layout)
    out = []
    while len(out) < count and not state.is_terminal():
        out.append(state)
        state = state.successor(0, player.get_action(state))
        for ghost in ghosts:
            if state.is_terminal():
                break
            state = state.successor(ghost.index, ghost.get_action(state, rng))
    return layout, out


@pytest.mark.parametrize("name,make", AGENTS, ids=[a[0] for a in AGENTS])
@pytest.mark.parametrize("layout_name", ["small", "tricky"])
def test_branch_values_are_the_agents_action_values_exactly(name, make, layout_name):
    layout, states = positions(layout_name, 6)
    agent = make()
    agent.reset(ghost_agents=make_ghosts("random", layout.num_ghosts))
    for state in states:
        decision = decision_tree(agent, state)
        assert {b.action: b.value for b in decision.branches} == agent.action_values(state)
        assert decision.action == agent.get_action(state)
        assert decision.value == max(b.value for b in decision.branches)
        assert [b.action for b in decision.branches] == list(state.legal_actions(0))
        for branch in decision.branches:
            assert branch.kind == (MIN if agent.ghosts_minimise else CHANCE)
            if branch.kind == CHANCE:
                total = sum(o.probability for o in branch.outcomes)
                assert math.isclose(total, 1.0, abs_tol=1e-12)
                assert branch.value == pytest.approx(sum(o.probability * o.value for o in branch.outcomes))
            else:
                assert branch.value == min(o.value for o in branch.outcomes)
                assert all(o.probability is None for o in branch.outcomes)


def test_probabilities_are_the_ghost_models():
    layout, states = positions("medium", 5, seed=2)
    agent = ExpectimaxAgent(depth=1, ghost_model="directional")
    model = DirectionalGhost(1)
    for state in states:
        for branch in decision_tree(agent, state).branches:
            after = state.successor(0, branch.action)
            if after.is_terminal():
                assert branch.outcomes == ()
                continue
            assert [(o.action, o.probability) for o in branch.outcomes] == model.distribution(after)
            # depth 1 with 2 ghosts: below ghost 1 comes ghost 2's chance layer, not a cut
            assert all(o.kind in (CHANCE, "terminal") and not o.cut for o in branch.outcomes)
    uniform = decision_tree(ExpectimaxAgent(depth=1, ghost_model="random"), states[-1])
    for branch in uniform.branches:
        assert len({o.probability for o in branch.outcomes}) <= 1


def test_a_one_ghost_depth_one_tree_ends_in_evaluations_and_says_so():
    layout, states = positions("tiny", 3)
    agent = ExpectimaxAgent(depth=1, evaluation="score")
    decision = decision_tree(agent, states[-1])
    for branch in decision.branches:
        for outcome in branch.outcomes:
            after = states[-1].successor(0, branch.action).successor(1, outcome.action)
            assert outcome.value == after.score
            assert outcome.cut == (not after.is_terminal())


def test_agents_that_do_not_search_and_finished_games_are_refused_by_name():
    from pacman.agents.simple import GreedyAgent

    layout, states = positions("small", 1)
    with pytest.raises(AgentSpecError, match="GreedyAgent"):
        decision_tree(GreedyAgent(), states[0])
    with pytest.raises(AgentSpecError, match="time limit"):
        decision_tree(ExpectimaxAgent(depth=None, time_limit=0.1), states[0])
    assert decision_tree(ExpectimaxAgent(depth=None, time_limit=0.1), states[0], depth=1).depth == 1


# -- the window ------------------------------------------------------------------------------


def _game(layout_name="small", max_moves=6, seed=3, evaluation="better"):
    layout = load_layout(layout_name)
    agent = ExpectimaxAgent(depth=1, evaluation=evaluation)
    ghosts = make_ghosts("random", layout.num_ghosts)

    def play(display):
        return run_game(layout, agent, ghosts, seed=seed, max_moves=max_moves, display=display)

    return layout, agent, play


class _Counter:
    def __init__(self, monkeypatch):
        self.calls = []
        real = pacman.agents.decision.decision_tree

        def counting(agent, state, depth=None):
            self.calls.append(state)
            return real(agent, state, depth)

        monkeypatch.setattr(pacman.agents.decision, "decision_tree", counting)


def test_t_shows_the_tree_panel_and_hides_it_again(monkeypatch):
    counter = _Counter(monkeypatch)
    layout, agent, play = _game(max_moves=8)
    frames = []
    window = WindowDisplay(layout, agent=agent, fps=60, frame_sink=frames.append, keys=[(2, "t"), (5, "t")])
    assert window.run(play).moves == 8
    plain, wide = frame_size(layout, 32, panel=True), frame_size(layout, 32, panel=True, tree=True)
    sizes = [(f.shape[1], f.shape[0]) for f in frames]
    assert sizes[0] == plain and wide in sizes and sizes[-1] == plain
    first_wide = sizes.index(wide)
    assert all(s == wide for s in sizes[first_wide:sizes.index(plain, first_wide)])
    shown = [f for f in frames if (f.shape[1], f.shape[0]) == wide]
    panel = shown[-1][:, plain[0]:]
    assert (panel == 255).all(axis=2).sum() > 10_000  # the white card with the tree
    assert len(np.unique(panel.reshape(-1, 3), axis=0)) > 20  # and something drawn on it
    # One search per round shown with the panel, none before or after.
    assert 1 <= len(counter.calls) <= 4


def test_a_hidden_panel_searches_nothing_more(monkeypatch):
    counter = _Counter(monkeypatch)
    evaluations = []

    def counting_score(state):
        evaluations.append(1)
        return float(state.score)

    layout = load_layout("small")
    ghosts = make_ghosts("random", layout.num_ghosts)

    def played(display):
        agent = ExpectimaxAgent(depth=2, evaluation=counting_score)
        agent.explain = True  # the window asks for every action's value; so does this reference run
        return run_game(layout, agent, ghosts, seed=5, max_moves=10, display=display), agent

    evaluations.clear()
    reference, _ = played(None)
    alone = len(evaluations)
    evaluations.clear()
    agent = ExpectimaxAgent(depth=2, evaluation=counting_score)
    window = WindowDisplay(layout, agent=agent, fps=120)
    result = window.run(lambda display: run_game(layout, agent, ghosts, seed=5, max_moves=10, display=display))
    assert result.score == reference.score and len(evaluations) == alone
    assert counter.calls == []


def test_the_panel_shows_the_decision_of_the_state_it_was_made_in(monkeypatch):
    counter = _Counter(monkeypatch)
    layout, agent, play = _game(max_moves=5)
    window = WindowDisplay(layout, agent=agent, fps=60, show_tree=True)
    result = window.run(play)
    states = [GameState.initial(layout)]
    state = states[0]
    for turn, action in enumerate(result.actions):
        state = state.successor(turn % state.num_agents, action)
        if turn % state.num_agents == state.num_agents - 1:
            states.append(state)
    assert counter.calls and all(s in states[:-1] for s in counter.calls)
    assert counter.calls[0] == states[0]


@pytest.mark.parametrize("layout_name", ["tiny", "small", "medium", "tricky", "large"])
def test_the_tree_fits_its_panel_readably_on_every_size_of_layout(layout_name):
    layout, states = positions(layout_name, 3)
    agent = ExpectimaxAgent(depth=2)
    agent.reset(ghost_agents=make_ghosts("random", layout.num_ghosts))
    decision = decision_tree(agent, states[-1])
    renderer = Renderer(layout, panel=True, tree=True)
    frame = renderer.frame(states[-1], decision=decision)
    assert frame.shape[:2] == (renderer.size[1], renderer.size[0])
    spot = dict((name, rect) for name, rect in renderer.last_layout["tree"])["tree"]
    assert spot.left >= renderer.tree_left and spot.right <= renderer.size[0]
    assert spot.top >= 0 and spot.bottom <= renderer.area_size[1]
    from pacman.draw.layout import lay_out
    from pacman.draw.trees import decision_top

    figure = lay_out(decision_top(decision), max_width=1e5, max_height=1e5)
    assert spot.width / figure.width >= 0.8  # text at 80% of its size or more: 10-pixel digits at least
    # the white card holds the tree with a small margin, whatever the maze's height (no tall empty box)
    card = renderer.last_layout["tree_card"]
    assert card.contains(spot) and card.height - spot.height <= 12


def test_panel_messages_for_agents_without_a_tree():
    from pacman.view.window import KeyboardAgent, decision_for

    layout, states = positions("small", 1)
    assert "does not search" in decision_for(KeyboardAgent(), states[0])
    assert decision_for(ExpectimaxAgent(depth=1), None) is None
    renderer = Renderer(layout, tree=True)
    renderer.frame(states[0], decision="KeyboardAgent does not search: no tree to show")
    assert [text for text, _ in renderer.last_layout["tree"]][-1].startswith("KeyboardAgent")


def test_replays_show_the_recorded_agents_decision_searched_again(tmp_path):
    from pacman.cli.replay import recorded_agent
    from pacman.replay import load_replay, save_replay

    layout, agent, play = _game("small", max_moves=6)
    result = play(None)
    path = tmp_path / "game.json"
    save_replay(path, layout, result, {"pacman": "expectimax", "agent_args": {"depth": 1}, "ghosts": "random"})
    replay = load_replay(path)
    rounds = replay_rounds(replay.states())
    made = []

    def make():
        made.append(recorded_agent(replay))
        return made[-1]

    hidden = ReplayWindow(replay.layout, rounds, fps=120, hold_at_end=False, make_agent=make)
    hidden.run()
    assert made == []  # never shown: the agent is not even made
    frames = []
    window = ReplayWindow(replay.layout, rounds, fps=120, hold_at_end=False, make_agent=make, frame_sink=frames.append)
    window.run(keys=["t", "right", "right", "end"])
    assert len(made) == 1 and frames[-1].shape[1] == frame_size(layout, 32, tree=True)[0]
    reference = ExpectimaxAgent(depth=1)
    reference.reset(ghost_agents=make_ghosts("random", layout.num_ghosts))
    for position in (1, 2):
        shown = window.decision(position)
        expected = decision_tree(reference, rounds[position - 1][0])
        assert shown == expected
        assert shown.action == result.actions[(position - 1) * rounds[0][0].num_agents]
    assert window.decision(0) is None


def test_a_replay_of_a_keyboard_game_explains_why_there_is_no_tree(tmp_path):
    from pacman.cli.replay import recorded_agent
    from pacman.replay import load_replay, save_replay

    layout, agent, play = _game("small", max_moves=3)
    path = tmp_path / "game.json"
    save_replay(path, layout, play(None), {"pacman": "keyboard", "agent_args": {}, "ghosts": "random"})
    assert "keyboard" in recorded_agent(load_replay(path))
    save_replay(path, layout, play(None), {"pacman": "no_such_agent", "agent_args": {}, "ghosts": "random"})
    assert "no_such_agent" in recorded_agent(load_replay(path))


def test_a_replay_naming_code_gets_a_sentence_and_its_code_is_never_run(tmp_path):
    # A replay is a file anyone may send; its tree panel must not import what it names.
    from pacman.cli.replay import recorded_agent
    from pacman.replay import load_replay, save_replay

    marker = tmp_path / "ran"
    (tmp_path / "evil.py").write_text(f"open({str(marker)!r}, 'w').write('x')\n"
                                      "class Agent:\n    def get_action(self, state): return 'Stop'\n"
                                      "def value(state): return 0.0\n")
    layout, agent, play = _game("small", max_moves=3)
    path = tmp_path / "game.json"
    for agents, named in (({"pacman": f"{tmp_path / 'evil.py'}:Agent", "agent_args": {}}, "evil.py:Agent"),
                          ({"pacman": "expectimax", "agent_args": {"depth": 1, "evaluation": f"{tmp_path / 'evil.py'}:value"}},
                           "evil.py:value"),
                          ({"pacman": "sb3:model.zip", "agent_args": {}}, "sb3:model.zip")):
        save_replay(path, layout, play(None), {**agents, "ghosts": "random"})
        said = recorded_agent(load_replay(path))
        assert isinstance(said, str) and named in said and "replay runs none" in said and "--seed" in said
        assert not marker.exists()
    # a built-in agent and evaluation are made again as before
    save_replay(path, layout, play(None), {"pacman": "expectimax", "agent_args": {"depth": 1, "evaluation": "safe"},
                                           "ghosts": "random"})
    assert isinstance(recorded_agent(load_replay(path)), ExpectimaxAgent)


# -- the commands, as a user runs them ----------------------------------------------------------


def _pacman_ai(*args, cwd):
    import os
    import subprocess
    import sys

    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    return subprocess.run([sys.executable, "-m", "pacman", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env=env)


def test_play_tree_records_the_panel_in_every_frame(tmp_path):
    from PIL import Image

    done = _pacman_ai("play", "--layout", "small", "--seed", "2", "--max-moves", "3", "--display", "none", "--tree",
                      "--record", "frames", "--save", "game.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    layout = load_layout("small")
    with Image.open(tmp_path / "frames" / "frame_00006.png") as image:
        assert image.size == frame_size(layout, 32, panel=True, tree=True)
        card = np.asarray(image.convert("RGB"))[:, frame_size(layout, 32, panel=True)[0]:]
        assert (card == 255).all(axis=2).sum() > 10_000
    done = _pacman_ai("replay", "game.json", "--display", "pygame", "--tree", "--fps", "1000", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "score" in done.stdout


def test_a_zoom_too_large_for_the_tree_panel_is_refused_up_front(tmp_path):
    done = _pacman_ai("play", "--layout", "large", "--zoom", "8", "--display", "none", "--tree", "--record", "f.gif",
                      cwd=tmp_path)
    assert done.returncode == 2 and "--zoom 8" in done.stderr and not (tmp_path / "f.gif").exists()
