"""Ghosts with personalities (pacman.agents.ArcadeGhost): their targets, the tie order, the heading they read,
and the engines, environments, solver and command line that play them."""

from __future__ import annotations

import json
import math
import os
import pickle
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pacman import AgentSpecError, GameState, run_game
from pacman.actions import Action
from pacman.agents import ExpectimaxAgent, make_ghosts
from pacman.agents.compiled import core_ghost_kinds, core_obstacle, core_state, core_status
from pacman.agents.ghosts import (AMBUSH_CELLS, ARCADE_LINEUP, ARCADE_TIE_ORDER, FLANK_CELLS, GHOST_KINDS,
                                  PERSONALITIES,
                                  SHY_CORNER, SHY_DISTANCE, AmbusherGhost,
                                  ArcadeGhost, ChaserGhost, DirectionalGhost, FlankerGhost, ShyGhost,
                                  model_reads_heading)
from pacman.agents.solver import OptimalAgent, solve
from pacman.game import needs_heading
from pacman.layout import Layout, load_layout, parse_layout

#: An open room, walls around it: Pacman at (2, 2); ghost 1 at (8, 9), ghost 2 at (8, 2), ghost 3 at (2, 7),
#: ghost 4 at (5, 5). The last line is y = 0.
ROOM = """\
%%%%%%%%%%%
%.......1.%
%.........%
%.3.......%
%.........%
%....4....%
%.........%
%.........%
%.P.....2.%
%.........%
%%%%%%%%%%%"""


def _room(text: str = ROOM) -> Layout:
    return parse_layout(text, name="room")


def _walk(state: GameState, actions: list[Action]) -> GameState:
    """`state` after Pacman takes `actions`, the ghosts not moving in between."""
    for action in actions:
        state = state.successor(0, action)
    return state


# -- the heading in the state ------------------------------------------------------------------------------


def test_a_game_keeps_pacmans_heading_only_where_asked():
    layout = _room()
    plain = GameState.initial(layout)
    assert plain.pacman_heading is None and len(plain.position_key) == 7
    headed = GameState.initial(layout, heading=True)
    assert headed.pacman_heading is Action.STOP and len(headed.position_key) == 8
    east = headed.successor(0, Action.EAST)
    assert east.pacman_heading is Action.EAST
    assert east.successor(0, Action.STOP).pacman_heading is Action.EAST  # a Stop keeps the heading
    assert east.successor(1, east.legal_actions(1)[0]).pacman_heading is Action.EAST  # ghosts' moves keep it
    for agent in range(headed.num_agents):  # whole nodes and single steps agree
        assert headed.successors(agent) == [headed.successor(agent, a) for a in headed.legal_actions(agent)]
    assert [s.pacman_heading for s in headed.successors(0)] == [a if a is not Action.STOP else Action.STOP
                                                                 for a in headed.legal_actions(0)]
    assert headed.successors(0, iter([Action.NORTH, Action.STOP])) == [headed.successor(0, Action.NORTH),
                                                                        headed.successor(0, Action.STOP)]
    for state in (plain, headed, east):
        assert pickle.loads(pickle.dumps(state)) == state
        assert GameState.from_position_key(layout, state.position_key) == state


def test_without_the_heading_two_ways_to_one_position_are_one_state_as_before():
    layout = _room(ROOM.replace(".", " "))  # no food: both ways leave the board alike
    for heading, equal in ((False, True), (True, False)):
        start = GameState.initial(layout, heading=heading)
        a = _walk(start, [Action.NORTH, Action.EAST])
        b = _walk(start, [Action.EAST, Action.NORTH])
        assert a.pacman_position == b.pacman_position and a.food == b.food and a.score == b.score
        assert (a == b) is equal and (hash(a) == hash(b)) is equal


def test_the_game_keeps_the_heading_when_any_agent_reads_it():
    assert not needs_heading(make_ghosts("random", 4) + make_ghosts("directional", 4))
    for kind in ("arcade", "ambusher", "flanker"):
        assert needs_heading(make_ghosts(kind, 4)) and model_reads_heading(kind)
    for kind in ("chaser", "shy"):
        assert not needs_heading(make_ghosts(kind, 4)) and not model_reads_heading(kind)
    assert [g.reads_heading for g in make_ghosts("arcade", 4)] == [False, True, True, False]
    assert ExpectimaxAgent(depth=1, ghost_model="arcade").reads_heading
    assert not ExpectimaxAgent(depth=1).reads_heading
    # Pacman's model alone makes the game keep it, so the model can read it against other ghosts.
    result = run_game(_room(), ExpectimaxAgent(depth=1, ghost_model="ambusher"), make_ghosts("random", 4),
                      seed=2, max_moves=30)
    assert result.outcome in ("won", "lost", "cut-off")


# -- targets and the tie order -----------------------------------------------------------------------------


def test_each_personality_aims_at_its_cell():
    layout = _room()
    start = GameState.initial(layout, heading=True)
    assert [ArcadeGhost(i).personality for i in range(1, 9)] == list(ARCADE_LINEUP) * 2
    assert start.pacman_position == (2, 2) and start.agent_position(1) == (8, 9)
    # Before his first step the heading is none: the ambusher aims at his cell, the flanker pivots on it.
    assert ArcadeGhost(2).target(start) == (2, 2)
    assert ArcadeGhost(3).target(start) == (2 * 2 - 8, 2 * 2 - 9)
    state = _walk(start, [Action.EAST, Action.NORTH])  # Pacman at (3, 3), heading North
    assert state.pacman_position == (3, 3) and state.pacman_heading is Action.NORTH
    assert ChaserGhost(1).target(state) == (3, 3)
    assert AmbusherGhost(2).target(state) == (3, 7)  # four ahead
    pivot = (3, 5)  # two ahead
    assert FlankerGhost(3).target(state) == (2 * pivot[0] - 8, 2 * pivot[1] - 9)
    # The shy ghost (4, at (5, 5)) is within 8 cells of Pacman: it heads for its corner; far away, it chases.
    assert ShyGhost(4).target(state) == SHY_CORNER
    far = GameState.initial(_room(ROOM.replace("4", ".")), heading=True)
    assert ShyGhost(1).target(far) == far.pacman_position  # ghost 1 at (8, 9): 9.2 cells from (2, 2)


@pytest.mark.parametrize("target, first", [((4, 6), Action.NORTH), ((4, 4), Action.WEST), ((6, 4), Action.SOUTH),
                                           ((6, 6), Action.NORTH), ((5, 5), Action.NORTH)])
def test_ties_go_up_left_down_right(target, first):
    # A ghost at (5, 5) that has not moved yet (all four moves legal), Pacman (the chaser's target) at `target`.
    rows = ["%%%%%%%%%%%"] + ["%.........%"] * 9 + ["%%%%%%%%%%%"]
    grid = [list(row) for row in rows]
    grid[10 - 5][5] = "G"
    tx, ty = target
    if (tx, ty) != (5, 5):
        grid[10 - ty][tx] = "P"
    else:
        grid[10 - 1][1] = "P"
    state = GameState.initial(parse_layout("\n".join("".join(row) for row in grid), name="ties"))
    ghost = ChaserGhost(1)
    if (tx, ty) == (5, 5):  # all four moves equally far from the target: the first of the order wins
        ghost.target = lambda s: (5, 5)  # type: ignore[method-assign]
    assert ghost.aimed(state, state.legal_actions(1)) is first
    assert ARCADE_TIE_ORDER == (Action.NORTH, Action.WEST, Action.SOUTH, Action.EAST)


def test_the_distribution_gives_the_aimed_move_p_and_shares_the_rest():
    layout = load_layout("medium")
    rng = random.Random(5)
    checked = 0
    for game in range(30):
        state = GameState.initial(layout, heading=True)
        ghosts = make_ghosts("arcade", state.num_ghosts)
        for turn in range(rng.randrange(10, 200)):
            agent = turn % state.num_agents
            if state.is_terminal():
                break
            if agent:
                ghost = ghosts[agent - 1]
                distribution = ghost.distribution(state)
                legal = state.legal_actions(agent)
                assert [a for a, _ in distribution] == list(legal)
                assert math.isclose(sum(p for _, p in distribution), 1.0)
                if state.scared_timers[agent - 1]:
                    assert distribution == DirectionalGhost(agent).distribution(state)
                else:
                    aimed = ghost.aimed(state, legal)
                    n = len(legal)
                    for action, p in distribution:
                        expected = (0.8 if action is aimed else 0.0) + 0.2 / n
                        assert math.isclose(p, expected), (action, p, expected)
                checked += 1
            state = state.successor(agent, rng.choice(state.legal_actions(agent)))
    assert checked > 500


# -- against an independent reading of the rules, on random mazes ------------------------------------------


def _random_maze(rng: random.Random) -> str:
    """A walled rectangle with random walls inside, Pacman and four ghosts on open cells with an open side."""
    while True:
        width, height = rng.randrange(7, 14), rng.randrange(7, 12)
        grid = [["%" if x in (0, width - 1) or y in (0, height - 1) or rng.random() < 0.18 else "."
                 for x in range(width)] for y in range(height)]
        cells = [(x, y) for y in range(height) for x in range(width) if grid[y][x] == "."
                 and any(grid[y + dy][x + dx] == "." for dx, dy in ((0, 1), (0, -1), (1, 0), (-1, 0)))]
        if len(cells) >= 5:
            break
    picks = rng.sample(cells, 5)
    grid[picks[0][1]][picks[0][0]] = "P"
    for digit, (x, y) in zip("1234", picks[1:]):
        grid[y][x] = digit
    return "\n".join("".join(row) for row in grid)


def _reference_aim(personality: str, ghost: tuple, pacman: tuple, heading: tuple, first_ghost: tuple,
                   legal: list[Action]) -> Action:
    """The rule as docs/architecture.md writes it, computed afresh: the target, then the legal move whose cell
    is nearest it in a straight line, ties up, left, down, right."""
    px, py = pacman
    hx, hy = heading
    if personality == "chaser":
        target = pacman
    elif personality == "ambusher":
        target = (px + 4 * hx, py + 4 * hy)
    elif personality == "flanker":
        target = (first_ghost[0] + 2 * (px + 2 * hx - first_ghost[0]), first_ghost[1] + 2 * (py + 2 * hy - first_ghost[1]))
    else:
        target = pacman if math.dist(ghost, pacman) > 8 else (0, 0)
    order = {"North": 0, "West": 1, "South": 2, "East": 3}
    steps = {"North": (0, 1), "South": (0, -1), "East": (1, 0), "West": (-1, 0)}
    return min(legal, key=lambda a: (math.dist((ghost[0] + steps[a.value][0], ghost[1] + steps[a.value][1]), target),
                                      order[a.value]))


@pytest.mark.parametrize("seeds", [range(0, 60), range(10_000, 10_060)], ids=["tuning", "held-out"])
def test_the_aimed_move_is_the_rules_on_random_mazes_and_positions(seeds):
    # The heading is followed here from Pacman's own actions, not read from the state.
    vectors = {Action.NORTH: (0, 1), Action.SOUTH: (0, -1), Action.EAST: (1, 0), Action.WEST: (-1, 0)}
    checked = 0
    for seed in seeds:
        rng = random.Random(seed)
        layout = parse_layout(_random_maze(rng), name=f"random-{seed}")
        state = GameState.initial(layout, heading=True)
        ghosts = make_ghosts("arcade", state.num_ghosts)
        heading = (0, 0)
        for turn in range(300):
            if state.is_terminal():
                break
            agent = turn % state.num_agents
            legal = state.legal_actions(agent)
            if agent and not state.scared_timers[agent - 1]:
                ghost = ghosts[agent - 1]
                expected = _reference_aim(ghost.personality, state.agent_position(agent), state.pacman_position,
                                          heading, state.agent_position(1), list(legal))
                assert ghost.aimed(state, legal) is expected, (seed, turn, ghost)
                checked += 1
            action = rng.choice(legal)
            if agent == 0 and action is not Action.STOP:
                heading = vectors[action]
            state = state.successor(agent, action)
    assert checked > 1500


# -- engines, solver, environments, command line -----------------------------------------------------------


def test_the_compiled_core_plays_them_and_auto_chooses_it():
    ghosts = make_ghosts("arcade", 2)
    assert {"arcade", *PERSONALITIES} <= set(core_ghost_kinds())  # each class declares its core form
    agent = ExpectimaxAgent(depth=2)
    result = run_game(load_layout("small"), agent, ghosts, seed=4, max_moves=40)
    python = run_game(load_layout("small"), ExpectimaxAgent(depth=2, engine="python"), make_ghosts("arcade", 2),
                      seed=4, max_moves=40)
    assert agent.engine_used == ("compiled" if core_status()[0] else "python") and result.moves > 0
    assert (result.actions, result.score) == (python.actions, python.score)
    start = GameState.initial(load_layout("small"), heading=True)
    assert core_state(start)[7:] == (4,)  # the heading, last, where the game keeps it
    assert len(core_state(GameState.initial(load_layout("small")))) == 7
    if core_status()[0]:
        assert core_obstacle(None, ghosts) is None
        ExpectimaxAgent(depth=2, engine="compiled").reset(ghost_agents=ghosts)


def test_a_model_reading_the_heading_refuses_a_state_without_it():
    with pytest.raises(AgentSpecError, match="do not keep his heading"):
        AmbusherGhost(1).distribution(GameState.initial(load_layout("small")))


@pytest.mark.parametrize("layout_name, kind", [("threeway", "arcade"), ("threeway", "ambusher"),
                                               ("coinflip", "flanker"), ("corridor", "shy")])
def test_the_solvers_optimum_is_what_its_own_policy_wins_in_seeded_games(layout_name, kind):
    layout = load_layout(layout_name)
    value = solve(layout, ghosts=kind).value
    games = 400
    wins = sum(run_game(layout, OptimalAgent(ghost_model=kind), make_ghosts(kind, layout.num_ghosts), seed=seed,
                        max_moves=1000).outcome == "won" for seed in range(games))
    spread = 4 * math.sqrt(max(value * (1 - value), 0.01) / games)
    assert abs(wins / games - value) < spread, (wins, value)


def test_every_personality_is_a_registered_kind_of_its_own():
    for name, cls in (("arcade", ArcadeGhost), ("chaser", ChaserGhost), ("ambusher", AmbusherGhost),
                      ("flanker", FlankerGhost), ("shy", ShyGhost)):
        assert GHOST_KINDS[name] is cls
        assert {g.personality for g in make_ghosts(name, 4)} == (set(ARCADE_LINEUP) if name == "arcade" else {name})


def test_the_environments_play_them_with_the_heading():
    from pacman.envs import PacmanEnv
    from pacman.envs.vector import make_vector_env

    env = PacmanEnv("small", ghosts="arcade", max_moves=60, observation="state")
    assert env.start.pacman_heading is Action.STOP
    assert env.engine == ("compiled" if core_status()[0] else "python")
    observations = []
    for _ in range(2):
        obs, _ = env.reset(seed=11)
        trace = [obs]
        for step in range(40):
            obs, reward, terminated, truncated, info = env.step(step % 4)
            trace.append(obs)
            if terminated or truncated:
                break
        observations.append(np.stack(trace))
    assert np.array_equal(*observations)  # the same seed, the same episode
    vector = make_vector_env(3, layout="small", ghosts="ambusher", observation="state")
    obs, _ = vector.reset(seed=3)
    assert obs.shape[0] == 3
    vector.step(np.zeros(3, dtype=np.int64))
    vector.close()


def test_the_command_line_plays_arcade_ghosts(tmp_path):
    done = subprocess.run([sys.executable, "-m", "pacman", "play", "--ghosts", "arcade", "--layout", "small",
                           "--display", "none", "--seed", "3", "--max-moves", "200", "--json"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 4), done.stderr
    result = json.loads(done.stdout)
    assert result["outcome"] in ("won", "lost", "cut-off") and result["moves"] > 0
    again = subprocess.run([sys.executable, "-m", "pacman", "solve", "threeway", "--ghosts", "ambusher", "--json"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert math.isclose(json.loads(again.stdout)["value"], solve(load_layout("threeway"), ghosts="ambusher").value)


# -- docs/guide/ghosts.md, as a reader runs it ------------------------------------------------------------

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "guide" / "ghosts.md"
_WORDS = {2: "two", 4: "four", 8: "eight"}


def test_the_guides_numbers_are_the_codes():
    import inspect

    text = GUIDE.read_text(encoding="utf-8")
    assert f"aims {_WORDS[AMBUSH_CELLS]} cells ahead of Pacman's heading" in text
    assert f"the cell {_WORDS[FLANK_CELLS]} ahead of Pacman" in text
    assert f"farther than {_WORDS[SHY_DISTANCE]} cells from him, else at its corner, cell {SHY_CORNER}" in text
    defaults = {name: p.default for name, p in inspect.signature(ArcadeGhost).parameters.items() if name != "index"}
    assert set(defaults.values()) == {0.8} and "Both probabilities default to 0.8." in text
    assert [row.split("|")[1].strip(" `") for row in text.split("## The kinds")[1].split("##")[0].splitlines()
            if row.startswith("| `")] == list(GHOST_KINDS)


def test_the_guides_compiled_core_column_is_the_registrys():
    rows = [row.split("|") for row in GUIDE.read_text(encoding="utf-8").split("## The kinds")[1].split("##")[0]
            .splitlines() if row.startswith("| `")]
    assert {row[1].strip(" `"): row[3].strip() for row in rows} == {
        kind: "yes" if kind in core_ghost_kinds() else "no" for kind in GHOST_KINDS}


def _readers_environment() -> dict[str, str]:
    """The environment of a reader who installed as the README says: the engine left to choose, so the compiled
    core where it is built. The guide says that without it the default agent takes seconds a move against these
    ghosts (a suite run with PACMAN_AI_ENGINE=python would play the guide's 40 games for hours)."""
    return {name: value for name, value in os.environ.items() if name != "PACMAN_AI_ENGINE"}


def test_the_guides_python_example_runs_as_a_script(tmp_path):
    code = re.search(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), flags=re.S).group(1)
    (tmp_path / "example.py").write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env=_readers_environment())
    assert done.returncode == 0, done.stderr
    outcome, score = done.stdout.split()
    assert outcome in ("won", "lost", "cut-off") and int(score) != 0


def test_the_guides_commands_run_in_a_fresh_folder(tmp_path):
    block = re.search(r"```sh\n(.*?)```", GUIDE.read_text(encoding="utf-8"), flags=re.S).group(1)
    commands = [line for line in block.splitlines() if line.strip()]
    assert len(commands) == 3
    env = {**_readers_environment(), "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy",
           "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")}
    outputs = []
    for command in commands:
        if command.startswith("pacman-ai play"):
            command += " --display none --max-moves 200"  # no screen here, and a short game
        done = subprocess.run(command, shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
        assert done.returncode in (0, 4), (command, done.stderr)
        outputs.append(done.stdout)
    assert outputs[0].startswith("game 1: ")
    assert [line.split()[0] for line in outputs[1].splitlines()[1:4]] == ["arcade", "directional", "random"]
    assert "threeway with 1 ambusher ghost: optimal probability of winning" in outputs[2]


def test_the_solve_guide_names_the_kinds_that_keep_the_heading_in_its_states():
    text = (GUIDE.parent / "solve.md").read_text(encoding="utf-8")
    named = re.search(r"Against a kind that aims ahead of\s+Pacman\s+\((.*?)\)", text, re.S).group(1)
    alone = re.findall(r"`(\w+)`(?! with)", named)
    in_pairs = re.findall(r"`(\w+)` with two ghosts or more", named)
    reads = {n: {kind for kind in GHOST_KINDS if model_reads_heading(make_ghosts(kind, n))} for n in (1, 2)}
    assert set(alone) == reads[1]
    assert set(in_pairs) == reads[2] - reads[1]
    from pacman.agents.solver import solve

    corridor = load_layout("corridor")  # "the same maze has more states"
    assert all(solve(corridor, kind).nodes > solve(corridor, "random").nodes for kind in alone)
