"""Users' own agents and evaluations: resolved, defaulted, and refused in one line when they fail.

The watch commands of docs/grading.md and of the expectimax starter file are run
verbatim (plus ``--display none`` and a move cap) against a student-style
solution that stores ``evaluation`` without any fallback.
"""

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from pacman.agents import (
    DEFAULT_EVALUATION,
    ExpectimaxAgent,
    better_evaluation,
    dots_evaluation,
    score_evaluation,
)
from pacman.agent_specs import effective_agent_args, make_pacman_agent
from pacman import AgentSpecError, load_layout, parse_layout, run_game
from pacman.errors import describe_failure

ROOT = Path(__file__).resolve().parent.parent

# A student's solution: it keeps `evaluation` as given, with no fallback, and calls it.
STUDENT = '''
class ExpectimaxAgent:
    def __init__(self, depth=2, evaluation=None):
        self.depth = depth
        self.evaluation = evaluation

    def get_action(self, state):
        def value(s, agent, depth):
            if s.is_win() or s.is_lose() or depth == 0:
                return self.evaluation(s)
            following = (agent + 1) % s.num_agents
            left = depth - 1 if following == 0 else depth
            values = [value(s.successor(agent, a), following, left) for a in s.legal_actions(agent)]
            return max(values) if agent == 0 else sum(values) / len(values)

        following = 1 % state.num_agents
        left = self.depth - 1 if following == 0 else self.depth
        return max(state.legal_actions(0), key=lambda a: value(state.successor(0, a), following, left))


def better_evaluation(state):
    return state.score - 3 * state.food_count
'''

EXITING = '''
import sys

class ExitsInGetAction:
    def get_action(self, state):
        sys.exit("get_action: not implemented")

class ExitsInReset:
    def reset(self, rng, ghost_agents):
        quit()
    def get_action(self, state):
        return "Stop"

class RaisesInReset:
    def reset(self, rng, ghost_agents):
        raise KeyError("lost")
    def get_action(self, state):
        return "Stop"

class RaisesInInit:
    def __init__(self):
        raise RuntimeError("not ready\\nsecond line")
    def get_action(self, state):
        return "Stop"

class ExitsInInit:
    def __init__(self):
        exit(4)

def exits(state):
    sys.exit(1)

def nan_value(state):
    return float("nan")

def text_value(state):
    return "high"
'''


def _cli(args, cwd, timeout=120):
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    return subprocess.run([sys.executable, "-m", "pacman", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env)


def _documented_watch_commands():
    """The expectimax assignment's 'watch it play' commands exactly as the docs and its starter print them.

    (The multiagent assignment's, which play its other classes, are run by tests/test_multiagent_assignment.py.)
    """
    guide = (ROOT / "docs" / "grading.md").read_text()
    starter = (ROOT / "pacman" / "grading" / "assignments" / "expectimax" / "starter.py").read_text()
    found = []
    for text in (guide, starter):
        lines = [line.strip() for line in text.splitlines()]
        found.append([line for line in lines if line.startswith("pacman-ai play --pacman multi_agents.py:ExpectimaxAgent")])
    return found


GUIDE_COMMANDS, STARTER_COMMANDS = _documented_watch_commands()
WATCH_COMMANDS = sorted(set(GUIDE_COMMANDS + STARTER_COMMANDS))


def test_the_docs_and_the_starter_have_watch_commands():
    assert GUIDE_COMMANDS and STARTER_COMMANDS
    assert any("evaluation=multi_agents.py:better_evaluation" in c for c in WATCH_COMMANDS)
    assert any("evaluation" not in c for c in WATCH_COMMANDS)


@pytest.mark.parametrize("command", WATCH_COMMANDS)
def test_documented_watch_command_plays_a_student_solution(tmp_path, command):
    (tmp_path / "multi_agents.py").write_text(STUDENT)
    words = shlex.split(command)
    assert words[:2] == ["pacman-ai", "play"]
    proc = _cli(words[1:] + ["--display", "none", "--max-moves", "8", "--seed", "3", "--json"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    record = json.loads(proc.stdout.strip().splitlines()[-1])
    assert record["outcome"] in ("cut-off", "won", "lost"), record
    assert record["moves"] >= 1
    # A game cut off by --max-moves says why; any other game has no error.
    assert record["error"] == ("cut off after 8 Pacman moves, the move limit" if record["outcome"] == "cut-off"
                               else None), record


def test_student_solution_plays_through_batch(tmp_path):
    (tmp_path / "multi_agents.py").write_text(STUDENT)
    for agent_args in ("depth=1", "depth=1,evaluation=multi_agents.py:better_evaluation"):
        out = tmp_path / f"games-{len(agent_args)}.jsonl"
        proc = _cli(["batch", "--pacman", "multi_agents.py:ExpectimaxAgent", "--agent-args", agent_args,
                     "--games", "2", "--jobs", "1", "--max-moves", "5", "--out", str(out), "--quiet"], tmp_path)
        assert proc.returncode == 0, proc.stderr
        records = [json.loads(line) for line in out.read_text().splitlines()]
        assert [r["outcome"] for r in records] == ["cut-off", "cut-off"], records
        assert all(r["moves"] == 5 and not r["crashed"] for r in records)


def test_custom_agent_gets_a_callable_evaluation(tmp_path):
    (tmp_path / "multi_agents.py").write_text(STUDENT)
    spec = f"{tmp_path / 'multi_agents.py'}:ExpectimaxAgent"
    agent = make_pacman_agent(spec, {"depth": 1})
    assert agent.evaluation is dots_evaluation  # DEFAULT_EVALUATION, resolved, over the constructor's None
    assert DEFAULT_EVALUATION == "dots"
    named = make_pacman_agent(spec, {"evaluation": "score"})
    assert named.evaluation is score_evaluation
    own = make_pacman_agent(spec, {"evaluation": f"{tmp_path / 'multi_agents.py'}:better_evaluation"})
    assert own.evaluation.__name__ == "better_evaluation" and own.evaluation is not better_evaluation
    assert make_pacman_agent(spec, {"evaluation": None}).evaluation is dots_evaluation
    result = run_game(load_layout("small"), agent, [], seed=0, max_moves=4)
    assert result.cut_off and result.moves == 4
    assert effective_agent_args(spec, {"depth": 1}) == {"depth": 1, "evaluation": "dots"}
    with pytest.raises(AgentSpecError, match="evaluation 'nope'"):
        make_pacman_agent(spec, {"evaluation": "nope"})


def test_required_evaluation_parameter_gets_the_default(tmp_path):
    file = tmp_path / "bots.py"
    file.write_text("class Needs:\n    def __init__(self, evaluation):\n        self.evaluation = evaluation\n"
                    "    def get_action(self, state):\n        return 'Stop'\n")
    assert make_pacman_agent(f"{file}:Needs").evaluation is dots_evaluation
    assert effective_agent_args(f"{file}:Needs") == {"evaluation": "dots"}


def test_builtin_agents_keep_the_evaluation_name():
    assert make_pacman_agent("expectimax").evaluation_name == "dots"
    assert make_pacman_agent("expectimax", {"evaluation": "score"}).evaluation_name == "score"
    assert ExpectimaxAgent(evaluation=None).evaluation is dots_evaluation


@pytest.mark.parametrize("cls, message", [
    ("RaisesInInit", "Pacman agent '{f}:RaisesInInit': building it raised RuntimeError: not ready second line"),
    ("ExitsInInit", "Pacman agent '{f}:ExitsInInit': building it called sys.exit(4)"),
])
def test_a_constructor_that_fails_is_one_agent_spec_error(tmp_path, cls, message):
    file = tmp_path / "exiting.py"
    file.write_text(EXITING)
    with pytest.raises(AgentSpecError) as info:
        make_pacman_agent(f"{file}:{cls}")
    assert str(info.value) == message.format(f=file)


@pytest.mark.parametrize("body, expected, frame", [
    ("import sys\nsys.exit(3)\n", "importing {f} called sys.exit(3)", "{f}:2 in <module>: sys.exit(3)"),
    ("raise SystemExit\n", "importing {f} called sys.exit()", "{f}:1 in <module>: raise SystemExit"),
    ("1/0\n", "importing {f} raised ZeroDivisionError: division by zero", "{f}:1 in <module>: 1/0"),
])
def test_a_module_that_fails_at_import_is_one_agent_spec_error(tmp_path, body, expected, frame):
    """One error, then the line of the user's file where it happened."""
    file = tmp_path / "broken.py"
    file.write_text(body)
    for spec, kind in ((f"{file}:Agent", "Pacman agent"), (f"{file}:f", "evaluation")):
        with pytest.raises(AgentSpecError) as info:
            if kind == "evaluation":
                make_pacman_agent("expectimax", {"evaluation": spec})
            else:
                make_pacman_agent(spec)
        assert str(info.value).splitlines() == [f"{kind} {spec!r}: " + expected.format(f=file),
                                                "  " + frame.format(f=file)]


def test_keyboard_interrupt_in_a_constructor_still_stops(tmp_path):
    file = tmp_path / "ctrlc.py"
    file.write_text("class A:\n    def __init__(self):\n        raise KeyboardInterrupt\n")
    with pytest.raises(KeyboardInterrupt):
        make_pacman_agent(f"{file}:A")


@pytest.mark.parametrize("limit", [None, 5.0])
def test_sys_exit_in_get_action_is_a_crashed_game(tmp_path, limit):
    file = tmp_path / "exiting.py"
    file.write_text(EXITING)
    agent = make_pacman_agent(f"{file}:ExitsInGetAction")
    result = run_game(load_layout("test"), agent, [], seed=0, max_moves=5, move_time_limit=limit)
    assert result.crashed and result.failed_agent == 0 and result.moves == 0
    assert result.error == "Pacman (agent 0) called sys.exit('get_action: not implemented')"


@pytest.mark.parametrize("cls, error", [
    ("ExitsInReset", "Pacman (agent 0) reset() called sys.exit()"),
    ("RaisesInReset", "Pacman (agent 0) reset() raised KeyError: 'lost'"),
])
def test_a_failing_reset_is_a_crashed_game(tmp_path, cls, error):
    file = tmp_path / "exiting.py"
    file.write_text(EXITING)
    result = run_game(load_layout("test"), make_pacman_agent(f"{file}:{cls}"), [], seed=0, max_moves=5)
    assert result.crashed and result.failed_agent == 0 and result.moves == 0 and result.error == error


def test_keyboard_interrupt_in_get_action_stops_the_program():
    class Interrupted:
        def get_action(self, state):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_game(load_layout("test"), Interrupted(), [], seed=0, max_moves=5)


def test_an_evaluation_that_exits_crashes_its_game_only(tmp_path):
    file = tmp_path / "exiting.py"
    file.write_text(EXITING)
    agent = make_pacman_agent("expectimax", {"depth": 1, "evaluation": f"{file}:exits"})
    result = run_game(load_layout("test"), agent, [], seed=0, max_moves=5)
    assert result.crashed and result.error == "Pacman (agent 0) called sys.exit(1)"


@pytest.mark.parametrize("function, shown", [("nan_value", "nan (float)"), ("text_value", "'high' (str)")])
def test_an_evaluation_that_is_not_a_number_is_named(tmp_path, function, shown):
    file = tmp_path / "exiting.py"
    file.write_text(EXITING)
    layout = parse_layout("%%%%%%\n%P..G%\n%%%%%%\n")
    agent = make_pacman_agent("expectimax", {"depth": 1, "evaluation": f"{file}:{function}"})
    result = run_game(layout, agent, [], seed=0, max_moves=5)
    assert result.crashed and result.moves == 0
    assert f"evaluation '{file}:{function}' returned {shown} for a state; expected a number" in result.error


def test_describe_failure_is_one_line():
    assert describe_failure(SystemExit("bye")) == "called sys.exit('bye')"
    assert describe_failure(SystemExit()) == "called sys.exit()"
    assert describe_failure(ValueError("a\n  b")) == "raised ValueError: a b"
    assert describe_failure(RuntimeError()) == "raised RuntimeError"
    assert len(describe_failure(ValueError("x" * 1000))) == 300


@pytest.mark.parametrize("cls, stdout", [
    ("ExitsInGetAction", "crashed, score 0, 0 moves, seed 1 - Pacman (agent 0) called sys.exit('get_action: not implemented')"),
    ("ExitsInReset", "crashed, score 0, 0 moves, seed 1 - Pacman (agent 0) reset() called sys.exit()"),
])
def test_cli_play_survives_an_agent_that_exits(tmp_path, cls, stdout):
    (tmp_path / "exiting.py").write_text(EXITING)
    proc = _cli(["play", "--pacman", f"exiting.py:{cls}", "--display", "none", "--seed", "1",
                 "--max-moves", "5"], tmp_path)
    assert proc.returncode == 4, proc.stderr  # a crashed game: EXIT_GAMES_FAILED
    assert proc.stdout.strip() == f"game 1: {stdout}"
    assert proc.stderr.splitlines()[0] == f"pacman-ai: 1 of 1 game crashed or timed out; the first (seed 1, " \
                                          f"medium): {stdout.split(' - ', 1)[1]}"
    assert proc.stderr.splitlines()[1].startswith("  exiting.py:")


def test_cli_batch_survives_an_agent_that_exits(tmp_path):
    (tmp_path / "exiting.py").write_text(EXITING)
    out = tmp_path / "games.jsonl"
    proc = _cli(["batch", "--pacman", "exiting.py:ExitsInGetAction", "--games", "2", "--jobs", "1",
                 "--max-moves", "5", "--out", str(out), "--quiet"], tmp_path)
    assert "Traceback" not in proc.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 2
    assert all(r["crashed"] and r["error"] == "Pacman (agent 0) called sys.exit('get_action: not implemented')"
               for r in records)


@pytest.mark.parametrize("cls, message", [
    ("RaisesInInit", "building it raised RuntimeError: not ready second line"),
    ("ExitsInInit", "building it called sys.exit(4)"),
])
def test_cli_refuses_an_agent_whose_constructor_fails_in_one_line(tmp_path, cls, message):
    (tmp_path / "exiting.py").write_text(EXITING)
    for command in (["play", "--display", "none"], ["batch", "--games", "1", "--jobs", "1", "--quiet"]):
        proc = _cli([*command, "--pacman", f"exiting.py:{cls}", "--max-moves", "3"], tmp_path)
        assert proc.returncode == 2, (command, proc.stdout, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and message in lines[0] and f"exiting.py:{cls}" in lines[0], proc.stderr
