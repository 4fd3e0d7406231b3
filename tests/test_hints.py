"""Refusals name only what their caller takes (pacman.hints): a command's flags, or Python's keywords."""

from __future__ import annotations

import re

import pytest

from pacman import load_layout
from pacman.agents import ExpectimaxAgent, check_search_size
from pacman.cli import SUBCOMMANDS, build_parser
from pacman.errors import AgentSpecError
from pacman.hints import HINTS, PYTHON, caller, calling, hint, set_caller


def _flags_of(command: str) -> set[str]:
    commands = next(action for action in build_parser()._actions if action.dest == "command")
    return {flag for action in commands.choices[command]._actions for flag in action.option_strings}


@pytest.mark.parametrize("command", sorted(set(HINTS) - {PYTHON}))
def test_every_flag_a_hint_names_is_one_its_command_takes(command):
    assert command in SUBCOMMANDS
    for key, text in HINTS[command].items():
        named = set(re.findall(r"--[a-z][a-z-]*", text))
        assert named and named <= _flags_of(command), (command, key, text)


def test_python_hints_name_keywords_not_flags():
    assert all("--" not in text for text in HINTS[PYTHON].values())
    # every key a command's refusal may suggest, Python has a way to give
    assert set().union(*(HINTS[c] for c in HINTS)) == set(HINTS[PYTHON])


def test_the_caller_is_the_command_within_it_and_python_outside():
    assert caller() == PYTHON and hint("num_ghosts") == "num_ghosts"
    with calling("batch"):
        assert caller() == "batch" and hint("depth") == "--agent-args depth=N"
        with calling("solve"):
            assert hint("max_nodes") == "--max-nodes"
        assert hint("max_nodes") == "--agent-args max_nodes=N"
    with calling("tree"):  # a command that takes no agent flags: Python's words, never another command's flags
        assert caller() == PYTHON
    assert caller() == PYTHON


def test_a_key_the_caller_cannot_give_is_a_named_error_not_a_bare_key_error():
    with calling("solve"), pytest.raises(LookupError, match="the caller 'solve' has no hint for 'depth'"):
        hint("depth")


def test_a_too_large_search_names_the_callers_words():
    medium = load_layout("medium")
    agent = ExpectimaxAgent(depth=5, pruning=False)
    with pytest.raises(AgentSpecError) as python:
        check_search_size(agent, medium, 2)
    assert str(python.value).endswith("use a smaller depth (depth), fewer ghosts (num_ghosts), or a time limit "
                                      "(time_limit)")
    with calling("play"), pytest.raises(AgentSpecError) as play:
        check_search_size(agent, medium, 2)
    assert str(play.value).endswith("use a smaller depth (--agent-args depth=N), fewer ghosts (--num-ghosts), or a "
                                    "time limit (--agent-args time_limit=SECONDS)")


def test_set_caller_lasts_for_the_thread_as_a_worker_needs(tmp_path):
    import contextvars

    def worker() -> tuple[str, str]:
        set_caller("compare")
        return caller(), hint("num_ghosts")

    assert contextvars.copy_context().run(worker) == ("compare", "--num-ghosts")
    assert caller() == PYTHON  # the copy changed, not this context
