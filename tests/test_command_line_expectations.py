"""The command line a person expects: --version, NO_COLOR and TERM=dumb, help texts that are true,
a first batch ETA that is not wildly pessimistic, bench progress, agent-spec errors that list what a
file defines, and one story about game numbers and seeds.

Each test runs `pacman-ai` as a user does: a subprocess in a fresh folder.
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PLAY_GUIDE = (ROOT / "docs" / "guide" / "play.md").read_text()


def _env(**changes: str | None) -> dict[str, str]:
    env = dict(os.environ)
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def _cli(cwd: Path, *args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pacman", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env)


def _on_a_terminal(cwd: Path, args: list[str], env: dict) -> bytes:
    """What `pacman-ai ARGS` writes to stdout when stdout is a terminal."""
    leader, follower = pty.openpty()
    try:
        process = subprocess.Popen([sys.executable, "-m", "pacman", *args], cwd=cwd, stdout=follower,
                                   stderr=subprocess.PIPE, env=env)
        os.close(follower)
        follower = -1
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 1 << 16)
            except OSError:  # the other side closed
                break
            if not chunk:
                break
            shown += chunk
        assert process.wait(timeout=60) == 0, process.stderr.read()
        process.stderr.close()
    finally:
        if follower != -1:
            os.close(follower)
        os.close(leader)
    return shown


# -- --version -----------------------------------------------------------------------------------------


def test_version_prints_the_installed_version(tmp_path):
    done = _cli(tmp_path, "--version")
    assert (done.returncode, done.stdout, done.stderr) == (0, f"pacman-ai {metadata.version('pacman-ai')}\n", "")
    assert re.fullmatch(r"pacman-ai \d+\.\d+\.\d+\S*\n", done.stdout)
    assert "--version" in _cli(tmp_path, "--help").stdout


# -- NO_COLOR and TERM=dumb ------------------------------------------------------------------------------

PLAY_TEXT = ["play", "--display", "text", "--layout", "test", "--max-moves", "3", "--seed", "1", "--fps", "1000"]
COLOUR = re.compile(rb"\x1b\[(1;)?38;2;\d+;\d+;\d+m")
REDRAW = b"\x1b[H\x1b[J"


@pytest.mark.parametrize("changes, colour, redraw", [
    ({"NO_COLOR": None, "TERM": "xterm-256color"}, True, True),
    ({"NO_COLOR": "1", "TERM": "xterm-256color"}, False, True),
    ({"NO_COLOR": "", "TERM": "xterm-256color"}, True, True),  # no-color.org: an empty value does not count
    ({"NO_COLOR": None, "TERM": "dumb"}, False, False),
])
def test_the_terminal_view_honours_no_color_and_dumb_terminals(tmp_path, changes, colour, redraw):
    shown = _on_a_terminal(tmp_path, PLAY_TEXT, _env(**changes))
    assert bool(COLOUR.search(shown)) is colour
    assert (REDRAW in shown) is redraw
    if not colour and not redraw:
        assert b"\x1b" not in shown  # a dumb terminal gets no escape code at all
    assert b"cut-off: score" in shown  # the game was still shown to its end


# -- help texts that are true -------------------------------------------------------------------------------


def _help_of(tmp_path: Path, command: str, flag: str) -> str:
    """The help text of `flag` in `pacman-ai COMMAND --help`, on one line."""
    lines = _cli(tmp_path, command, "--help").stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(flag))
    block = [lines[start]]
    for line in lines[start + 1:]:
        if not line.startswith("     "):  # the next option (indented by 2) or section
            break
        block.append(line)
    return " ".join(" ".join(block).split())


def test_replay_help_states_the_default_display_it_uses(tmp_path):
    expected = "(default: a pygame window when a display exists, else the terminal; none with --json or --html)"
    assert expected in _help_of(tmp_path, "replay", "--display")
    assert _cli(tmp_path, "play", "--layout", "test", "--max-moves", "4", "--seed", "2", "--display", "none",
                "--save", "g.json").returncode == 0
    # No display here: the terminal, as the help says (a window would print nothing on stdout).
    headless = _env(DISPLAY=None, WAYLAND_DISPLAY=None, SDL_VIDEODRIVER=None)
    shown = _cli(tmp_path, "replay", "g.json", "--fps", "1000", env=headless)
    assert shown.returncode == 0 and "%" in shown.stdout and "test  start" in shown.stdout, shown.stderr
    quiet = _cli(tmp_path, "replay", "g.json", "--json", env=headless)
    assert quiet.returncode == 0 and "%" not in quiet.stdout and json.loads(quiet.stdout)["moves"] == 4
    page = _cli(tmp_path, "replay", "g.json", "--html", "g.html", env=headless)
    assert page.returncode == 0 and "%" not in page.stdout and (tmp_path / "g.html").stat().st_size > 0
    # the result only, no board; the reason a cut-off game gives everywhere (pacman.limits)
    assert page.stdout == "cut-off: score 26 after 4 moves (seed 2) - cut off after 4 Pacman moves, the move limit\n"


def test_tree_help_points_at_a_section_that_exists(tmp_path):
    text = _help_of(tmp_path, "tree", "FILE.json")
    match = re.search(r"format: (docs/[\w/-]+\.md), section '([^']+)'", " ".join(text.split()))
    assert match, text
    page = (ROOT / match.group(1)).read_text(encoding="utf-8")
    headings = [re.sub(r"[`*]", "", line.lstrip("#").strip()) for line in page.splitlines()
                if line.startswith("#")]
    assert match.group(2) in headings
    section = page.split(f"## `{match.group(2)}`", 1)[1].split("\n## ", 1)[0]
    assert "The format, in JSON" in section  # the section does describe the tree format


# -- the first ETA of a batch --------------------------------------------------------------------------------


def _seconds(text: str) -> float:
    if text.endswith(" s"):
        return float(text[:-2])
    parts = [int(p) for p in text.split(":")]
    return float(sum(value * 60 ** power for power, value in enumerate(reversed(parts))))


def test_the_first_eta_of_a_batch_leaves_out_the_start_up(tmp_path):
    started = time.monotonic()
    # depth 2: a cheap game on either engine (the default searches deeper near a ghost, slow on Python's)
    done = _cli(tmp_path, "batch", "--layout", "small", "--games", "60", "--jobs", "2", "--agent-args", "depth=2",
                timeout=600)
    wall = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("batch: ") and " games, won " in line]
    first = re.fullmatch(r"batch: 1/60 games, won [\d.]+%, [\d.]+ games/s, ETA (.+)", lines[0])
    assert first, lines
    # The start-up (workers starting, imports) once counted as the first game's time: a 3 s batch
    # then announced 3:55. The whole batch, start-up included, bounds what is left after its first game.
    assert _seconds(first.group(1)) <= max(3 * wall, wall + 5), (first.group(1), wall)


# -- bench progress --------------------------------------------------------------------------------------------

SMALL_BENCH = ["bench", "--layout", "tiny", "--runs", "1", "--successors", "20", "--depths", "1", "--positions", "1",
               "--compare", "tiny", "--small-mazes", "coinflip", "--moves", "2"]


def test_bench_says_which_part_it_is_measuring_and_how_long_each_took(tmp_path):
    done = _cli(tmp_path, *SMALL_BENCH, timeout=600)
    assert done.returncode == 0, done.stderr
    # The heartbeat repeats a part's line with the time so far while it runs (pacman.progress): left out here.
    beats = [line for line in done.stderr.splitlines() if re.search(r" \.\.\. \((\d+ s|[\d:]+) so far\)$", line)]
    assert all(line.startswith("bench: [") for line in beats), beats
    lines = [re.sub(r"\d+\.\d s", "T s", line) for line in done.stderr.splitlines() if line not in beats]
    assert lines == [
        "bench: [1/7] engine: successors per second on tiny, 1 runs ...",
        "bench: [1/7] engine: done in T s (T s so far)",
        "bench: [2/7] search: expectimax ms per decision on tiny, depths 1, 1 positions ...",
        "bench: [2/7] search: done in T s (T s so far)",
        "bench: [3/7] engines: Python engine and compiled core side by side on tiny, depths 1 ...",
        "bench: [3/7] engines: done in T s (T s so far)",
        "bench: [4/7] pruning: nodes per move with plain, Star1, Star2 and Star2 with ordering on tiny, depths 1 ...",
        "bench: [4/7] pruning: done in T s (T s so far)",
        "bench: [5/7] auto: the default agent's ms per move (depth 'auto') on coinflip ...",
        "bench: [5/7] auto: done in T s (T s so far)",
        "bench: [6/7] record: ms per frame of a 2-move game recorded to GIF ...",
        "bench: [6/7] record: done in T s (T s so far)",
        "bench: [7/7] env: steps per second of the learning environments on tiny ...",
        "bench: [7/7] env: done in T s (T s so far)",
    ]
    assert "successors per second on tiny" in done.stdout  # the figures themselves stay on stdout


def test_bench_quiet_and_json_keep_stdout_clean(tmp_path):
    done = _cli(tmp_path, *SMALL_BENCH[:7], "--part", "engine", "--json", "--quiet")
    assert done.returncode == 0 and done.stderr == ""
    assert json.loads(done.stdout)["engine"]["runs"] == 1
    shown = _cli(tmp_path, *SMALL_BENCH[:7], "--part", "engine", "--json")
    assert json.loads(shown.stdout)["engine"]["runs"] == 1
    assert shown.stderr.splitlines()[0] == "bench: [1/1] engine: successors per second on tiny, 1 runs ..."


# -- agent-spec errors -------------------------------------------------------------------------------------------

AGENT_FILE = """\
import os
import random as rnd
from collections import OrderedDict
from pacman import Action, GameState
from pacman.agents.simple import GreedyAgent

LIMIT = 3


class MyAgent:
    def get_action(self, state):
        return Action.STOP


class Helper:
    pass


def my_evaluation(state):
    return 0.0
"""


@pytest.mark.parametrize("args, message", [
    (["--pacman", "mine.py:Nope"],
     "pacman-ai: Pacman agent 'mine.py:Nope': mine.py has no 'Nope' (it defines the classes Helper, MyAgent and "
     "the function my_evaluation)"),
    (["--agent-args", "evaluation=mine.py:nope"],
     "pacman-ai: evaluation 'mine.py:nope': mine.py has no 'nope' (it defines the classes Helper, MyAgent and "
     "the function my_evaluation)"),
    (["--pacman", "empty.py:Agent"], "pacman-ai: Pacman agent 'empty.py:Agent': empty.py has no 'Agent' "
                                     "(it defines no public class or function)"),
])
def test_an_agent_spec_error_lists_what_the_file_defines_not_what_it_imports(tmp_path, args, message):
    (tmp_path / "mine.py").write_text(AGENT_FILE)
    (tmp_path / "empty.py").write_text("import os\nfrom pacman import Action\n")
    done = _cli(tmp_path, "play", "--display", "none", "--layout", "test", "--max-moves", "2", *args)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", message + "\n")


# -- game numbers and seeds ------------------------------------------------------------------------------------


def test_game_numbers_and_seeds_are_as_the_readme_says(tmp_path):
    # docs/guide/play.md: lines count games from 1 (game 1 has seed N); --json and numbered files count from 0
    # (seed N + k).
    assert "(`game 1: ... seed N`, `game 2: ... seed N + 1`)" in PLAY_GUIDE
    assert "(`\"game\": k`)" in PLAY_GUIDE and "game *k* there has\n  seed N + *k*" in PLAY_GUIDE
    common = ["play", "--display", "none", "--layout", "test", "--max-moves", "3", "--games", "3", "--seed", "7"]
    lines = _cli(tmp_path, *common, "--save", "g.json").stdout.splitlines()
    assert [re.match(r"game (\d+): .*, seed (\d+)(?: - .*)?$", line).groups() for line in lines[:3]] == [
        ("1", "7"), ("2", "8"), ("3", "9")]
    objects = [json.loads(line) for line in _cli(tmp_path, *common, "--json").stdout.splitlines()]
    assert [(o["game"], o["seed"]) for o in objects] == [(0, 7), (1, 8), (2, 9)]
    assert [json.loads((tmp_path / f"g-{k}.json").read_text())["seed"] for k in range(3)] == [7, 8, 9]
    help_text = _help_of(tmp_path, "play", "--seed")
    assert "seed of the first game; the next games use seed + 1, seed + 2, ..." in help_text


# -- misuse refused by name, before anything runs ------------------------------------------------------------

#: (arguments, environment changes, what the one line says). Each is refused with exit status 2, one line on
#: stderr naming the input, nothing on stdout, no traceback, in seconds.
MISUSE = [
    (["play", "--port", "8000"], {},
     "pacman-ai play: --port 8000 applies to the live web view only: add --display web, or leave --port out"),
    (["play", "--host", "0.0.0.0", "--display", "text"], {},
     "pacman-ai play: --host 0.0.0.0 applies to the live web view only"),
    (["play", "--no-browser"], {}, "pacman-ai play: --no-browser applies to the live web view only"),
    (["replay", "game.json", "--port", "8000"], {}, "pacman-ai replay: --port 8000 applies to the live web view only"),
    (["play", "--display", "web", "--host", ""], {},
     "pacman-ai play: argument --host: expected an address such as 127.0.0.1 (this machine only) or 0.0.0.0 "
     "(every interface), got ''"),
    (["replay", "game.json", "--display", "web", "--host", " "], {}, "argument --host: expected an address"),
    (["compare", "--config", "a:--agent-args depth=x", "--config", "b:", "--games", "2"], {},
     "pacman-ai compare: --config a:--agent-args depth=x: ExpectimaxAgent: depth must be an int >= 1, 'auto' or None, got 'x'"),
    (["compare", "--config", "a:", "--config", "b:--layout nowhere", "--games", "2"], {},
     "pacman-ai compare: --config b:--layout nowhere: nowhere: unknown layout"),
    (["compare", "--config", "a:", "--config", "b:--pacman bogus", "--games", "2"], {},
     "pacman-ai compare: --config b:--pacman bogus: unknown Pacman agent 'bogus'"),
    (["compare", "--config", "a:", "--config", "b:", "--max-moves", "0"], {},
     "argument --max-moves: expected a positive integer or 'none' (no limit), got '0'"),
    # play takes no --max-nodes: its hint names the agent argument that play does take
    (["play", "--pacman", "optimal", "--layout", "tiny", "--display", "none"], {},
     "(--agent-args max_nodes=N up to 100,000,000 lets it try"),
    (["solve", "tiny"], {}, "(--max-nodes up to 100,000,000 lets it try"),
    # ... and so do batch and compare, whose games (and refusals) happen in worker processes
    (["batch", "--pacman", "optimal", "--layout", "tiny", "--games", "1", "--quiet"], {},
     "(--agent-args max_nodes=N up to 100,000,000 lets it try"),
    (["compare", "--config", "a:--pacman optimal", "--config", "b:", "--layout", "tiny", "--games", "1", "--quiet"],
     {}, "(--agent-args max_nodes=N up to 100,000,000 lets it try"),
    # a search too large for the maze: the hints name the flags of the command that asked (pacman.hints)
    *[([command, "--layout", "medium", "--agent-args", "depth=5,pruning=false", *more], {},
       "is too large a search (about 1.8e+08 leaves per move, limit 1e+08 unpruned); use a smaller depth "
       "(--agent-args depth=N), fewer ghosts (--num-ghosts), or a time limit (--agent-args time_limit=SECONDS)")
      for command, more in (("play", ["--display", "none"]), ("batch", ["--games", "2", "--quiet"]),
                            ("compare", ["--config", "a:", "--config", "b:", "--games", "2", "--quiet"]))],
    (["play", "--tree", "--display", "none"], {},
     "pacman-ai play: --tree applies to the pygame window and --record only, not to --display none"),
    (["play", "--zoom", "2", "--display", "text"], {},
     "pacman-ai play: --zoom 2 applies to the pygame window and --record only, not to --display text"),
    (["play", "--force"], {}, "pacman-ai play: --force applies to --record FOLDER only"),
    (["replay", "game.json", "--tree", "--display", "text"], {},
     "pacman-ai replay: --tree applies to the pygame window only, not to --display text"),
    # 1,000,000 lines of 4 KB and 500 move times of 32 bytes, and one worker of 128 MB (pacman.memory.batch_bytes)
    (["batch", "--layout", "medium", "--games", "1000000", "--jobs", "1", "--quiet"], {"PACMAN_AI_MEMORY_LIMIT": "1G"},
     "pacman-ai: a batch of 1,000,000 games needs about 18.8 GB (every game's line is kept until the summary), "
     "more than the 1.0 GB of memory PACMAN_AI_MEMORY_LIMIT allows"),
    (["compare", "--config", "a:", "--config", "b:", "--games", "100000"], {"PACMAN_AI_MEMORY_LIMIT": "100M"},
     "pacman-ai: a comparison of 200,000 games needs about"),
    (["solve", "trapped"], {"PACMAN_AI_MEMORY_LIMIT": "1G"},
     "pacman-ai: solving 'trapped' with 2 ghosts needs about 4.6 GB (up to 7,793,268 states of 640 bytes), more "
     "than the 1.0 GB of memory PACMAN_AI_MEMORY_LIMIT allows"),
    (["solve", "test"], {"PACMAN_AI_MEMORY_LIMIT": "lots"},
     "pacman-ai: PACMAN_AI_MEMORY_LIMIT='lots': expected a number of bytes, optionally with K, M, G or T (e.g. 4G)"),
]


def _flags_of(command: str) -> set[str]:
    """The flags `pacman-ai COMMAND` takes (compare's --config takes the same flags as the command)."""
    from pacman.cli import SUBCOMMANDS, build_parser

    parser = build_parser()
    commands = next(action for action in parser._actions if action.dest == "command")
    assert set(commands.choices) == set(SUBCOMMANDS)
    return {flag for action in commands.choices[command]._actions for flag in action.option_strings}


@pytest.mark.parametrize("args, changes, message", MISUSE, ids=[" ".join(case[0])[:60] for case in MISUSE])
def test_misuse_is_refused_by_name_in_one_line(tmp_path, args, changes, message):
    started = time.monotonic()
    done = _cli(tmp_path, *args, env=_env(**changes), timeout=60)
    elapsed = time.monotonic() - started
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and message in lines[0], lines
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", lines[0]))
    assert named <= _flags_of(args[0]), named - _flags_of(args[0])  # a hint names only flags the command takes
    assert elapsed < 30, elapsed  # before anything is played or allocated (the bound allows for a busy machine)


def test_a_batch_too_large_for_this_machine_names_its_memory(tmp_path):
    done = _cli(tmp_path, "batch", "--layout", "medium", "--games", "100000000", "--quiet", env=_env())
    assert done.returncode == 2 and done.stdout == "" and len(done.stderr.splitlines()) == 1, done.stderr
    assert re.fullmatch(r"pacman-ai: a batch of 100,000,000 games needs about [\d.]+ TB \(every game's line is kept "
                        r"until the summary\), more than the [\d.]+ [KMGT]B of memory this machine has free "
                        r"\([\d.]+ [KMGT]B in all\)\n", done.stderr), done.stderr


MAKE_VEC = """\
import time
import gymnasium as gym
import pacman.envs
from pacman.errors import PacmanError

for options in ({NUM}, dict(num_envs=0), dict(num_envs="many")):
    started = time.perf_counter()
    try:
        gym.make_vec("pacman_ai/Pacman-v0", **options)
    except PacmanError as exc:
        print(f"{{time.perf_counter() - started:.3f}} {{type(exc).__name__}}: {{exc}}")
"""


@pytest.mark.parametrize("engine", ["compiled", "python"])
def test_make_vec_with_ten_million_games_is_refused_in_under_a_second(tmp_path, engine):
    pytest.importorskip("gymnasium")
    from pacman.envs.core_games import core_obstacle

    if engine == "compiled" and core_obstacle() is not None:
        pytest.skip(core_obstacle())
    script = tmp_path / "vec.py"
    script.write_text(MAKE_VEC.format(NUM=f"dict(num_envs=10**7, engine={engine!r})"), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env=_env(PACMAN_AI_MEMORY_LIMIT="8G"))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    refused, zero, many = done.stdout.splitlines()
    seconds, _, message = refused.partition(" ")
    assert float(seconds) < 1.0
    # 7 grid observations (6 x 11 x 20 bytes) and 1 KB a game in the core; 200 bytes a cell, 13 observations and
    # 8 KB a game for Python environments (pacman.memory.vector_env_bytes).
    figure = ("95.6 GB (10.0 KB a game)" if engine == "compiled" else "645.9 GB (67.7 KB a game)")
    assert message == (f"MemoryRefusal: make_vec(num_envs=10,000,000) on 'medium' needs about {figure}, more than "
                       f"the 8.0 GB of memory PACMAN_AI_MEMORY_LIMIT allows "
                       f"({message.rsplit('(', 1)[1]}")
    assert message.endswith(" in all)")
    assert zero.split(" ", 1)[1] == "PacmanError: num_envs must be a positive int, got 0"
    assert many.split(" ", 1)[1] == "PacmanError: num_envs must be a positive int, got 'many'"


#: Pacman cannot reach the second dot and the ghost cannot reach him: no policy surely ends the game.
SPLIT = "%%%%%\n%P .%\n%%%%%\n%G .%\n%%%%%\n"


@pytest.mark.parametrize("args, hint", [
    (["solve", "split.lay", "--objective", "score"], "use --objective win"),
    (["play", "--layout", "split.lay", "--pacman", "optimal", "--agent-args", "objective=score", "--display", "none"],
     "use --agent-args objective=win"),
])
def test_the_solvers_hint_names_what_the_command_takes(tmp_path, args, hint):
    (tmp_path / "split.lay").write_text(SPLIT)
    done = _cli(tmp_path, *args, "--quiet" if args[0] == "solve" else "--json", timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("pacman-ai: 'split': no policy ends the game with probability 1")
    assert lines[0].endswith(hint)
