"""Replay files: everything needed to reproduce a game exactly, as JSON.

A replay holds the layout's text (so it replays without the layout file), the
agents and their arguments, the seed, every action in turn order and the
outcome. Replaying applies the actions to a fresh state; it needs no agent and
no randomness, and checks that it ends where the recorded game ended.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from pacman.actions import Action
from pacman.errors import PacmanError
from pacman.files import write_json
from pacman.game import GameResult
from pacman.layout import Layout, parse_layout
from pacman.state import GameState

__all__ = ["ReplayError", "Replay", "save_replay", "load_replay"]

FORMAT = "pacman-ai replay"
VERSION = 1


class ReplayError(PacmanError):
    """A replay file that cannot be read or does not reproduce its game."""


@dataclass(frozen=True)
class Replay:
    """A recorded game."""

    layout: Layout
    """The layout, rebuilt from the text stored in the file."""
    num_ghosts: int
    """Ghosts in play (the layout's first ones)."""
    actions: tuple[Action, ...]
    """Every action, in turn order: Pacman, ghost 1, ..., Pacman, ..."""
    seed: int
    """The game's seed."""
    agents: dict[str, Any]
    """How the agents were made: {"pacman": name, "agent_args": {...}, "ghosts": kind}."""
    result: dict[str, Any]
    """The recorded outcome (GameResult.to_dict())."""

    def states(self) -> Iterator[tuple[GameState, int | None, Action | None]]:
        """The initial state, then (state, agent, action) after every recorded action."""
        state = GameState.initial(self.layout, num_ghosts=self.num_ghosts)
        yield state, None, None
        for turn, action in enumerate(self.actions):
            agent = turn % state.num_agents
            try:
                state = state.successor(agent, action)
            except PacmanError as exc:
                raise ReplayError(f"replay diverges at action {turn} ({action.value} by agent {agent}): {exc}") from None
            yield state, agent, action

    def final_state(self) -> GameState:
        """The state after the last action, checked against the recorded score and outcome."""
        state = None
        for state, _, _ in self.states():
            pass
        assert state is not None
        if state.score != self.result.get("score") or state.is_win() != self.result.get("won") \
                or state.is_lose() != self.result.get("lost"):
            raise ReplayError(
                f"replay ends with score {state.score} (won={state.is_win()}, lost={state.is_lose()}) but the "
                f"file records score {self.result.get('score')} (won={self.result.get('won')}, "
                f"lost={self.result.get('lost')})"
            )
        return state


def save_replay(path: str | os.PathLike[str], layout: Layout, result: GameResult, agents: dict[str, Any]) -> None:
    """Write a replay of `result` to `path`, atomically: the file is whole or absent."""
    data = {
        "format": FORMAT,
        "version": VERSION,
        "layout": {"name": layout.name, "text": layout.text},
        "num_ghosts": result.num_agents - 1,
        "seed": result.seed,
        "agents": agents,
        "actions": [a.value for a in result.actions],
        "result": result.to_dict(),
    }
    try:
        write_json(path, data, indent=1)
    except OSError as exc:
        raise ReplayError(f"{path}: cannot write replay ({exc.strerror or exc})") from None


def load_replay(path: str | os.PathLike[str]) -> Replay:
    """Read a replay file; ReplayError names the file and what is wrong."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReplayError(f"{path}: cannot read replay ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReplayError(f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ReplayError(f"{path}: not a pacman-ai replay file (no \"format\": \"{FORMAT}\")")
    if data.get("version") != VERSION:
        raise ReplayError(f"{path}: replay version {data.get('version')!r} is not supported (expected {VERSION})")
    try:
        layout_data = data["layout"]
        layout = parse_layout(layout_data["text"], name=layout_data.get("name", "replay"))
        actions = tuple(Action(a) for a in data["actions"])
        num_ghosts = data["num_ghosts"]
        seed = data["seed"]
        result = data["result"]
        agents = data.get("agents", {})
    except (KeyError, TypeError, ValueError) as exc:
        raise ReplayError(f"{path}: malformed replay ({type(exc).__name__}: {exc})") from None
    if not isinstance(num_ghosts, int) or not 0 <= num_ghosts <= layout.num_ghosts:
        raise ReplayError(f"{path}: num_ghosts {num_ghosts!r} does not fit the layout's {layout.num_ghosts} ghosts")
    return Replay(layout=layout, num_ghosts=num_ghosts, actions=actions, seed=seed, agents=agents, result=result)
