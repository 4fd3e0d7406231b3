"""A recorded game as one self-contained web page: a canvas player with the values panel.

The page holds the layout, one compact entry per round (positions, directions,
scared timers, score, what was eaten: computed here by the engine, so the page
cannot disagree with the rules) and what Pacman's search found at each move.
The browser draws every frame from that, so the file grows with the game's
length, not with frames. It makes no network request: the style and the
player are inline, the board is drawn with canvas primitives and a Content
Security Policy forbids every fetch. `game_fragment` is the same player for a
notebook's output cell.
"""

from __future__ import annotations

import html
import json
import os
import uuid
from functools import lru_cache
from importlib import resources
from typing import Any

from pacman.actions import Action
from pacman.errors import PacmanError
from pacman.files import write_atomically
from pacman.game import GameResult
from pacman.layout import Layout
from pacman.replay import Replay
from pacman.resources import palette

__all__ = ["PageError", "agent_description", "game_data", "game_page", "game_fragment", "write_game_page", "replay_of"]

_DIRECTIONS = tuple(Action)
"""Directions are written as their index in the action order (North, South, East, West, Stop)."""

PAGE_DATA_VERSION = 1
"""The version of the data the page's player reads (`game_data`)."""

_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'"
"""The page's Content Security Policy: inline script and style only, no request of any kind."""


class PageError(PacmanError):
    """A web page that cannot be written."""


@lru_cache(maxsize=None)
def _asset(name: str) -> str:
    """The player's script or style sheet, shipped beside this module."""
    return (resources.files("pacman.view") / name).read_text(encoding="utf-8")


def replay_of(layout: Layout, result: GameResult, agents: dict[str, Any] | None = None,
              search: Any = None) -> Replay:
    """A just-played game as a `Replay` (what the page and the notebook show), without a file."""
    return Replay(layout=layout, num_ghosts=result.num_agents - 1, actions=tuple(result.actions), seed=result.seed,
                  agents=dict(agents or {}), result=result.to_dict(),
                  search=tuple(search) if search is not None else ())


def agent_description(agents: dict[str, Any] | None) -> str:
    """What Pacman's agent is, in a few words, from a replay's or a game's agents record: "expectimax (depth 2,
    evaluation better)", "greedy", "keyboard", "my_agents.py:Smart (depth=3)"; "an unrecorded agent" if none."""
    agents = agents or {}
    name = agents.get("pacman")
    if not name:
        return "an unrecorded agent"
    args = dict(agents.get("agent_args") or {})
    parts = []
    if "depth" in args:
        parts.append(f"depth {args.pop('depth')}")
    if "evaluation" in args:
        parts.append(f"evaluation {args.pop('evaluation')}")
    if args.get("time_limit") is not None:
        parts.append(f"time limit {args['time_limit']:g} s" if isinstance(args["time_limit"], (int, float))
                     else f"time limit {args['time_limit']}")
    return f"{name} ({', '.join(parts)})" if parts else str(name)


def _number(value: float) -> float | int:
    """A position as JSON: 3 rather than 3.0, 3.5 kept."""
    return int(value) if float(value).is_integer() else value


def game_data(replay: Replay, fps: float = 8.0) -> dict[str, Any]:
    """What the page's player reads: the board once, then one short list per round.

    A round is Pacman's move and every ghost's (the last may be cut short by the
    end of the game). Each entry of ``rounds`` is ``[move, pacman x, pacman y,
    facing, score, then per ghost x, y, direction, scared timer]``; ``eaten``
    lists ``[round, x, y]`` for each dot or capsule eaten; ``search`` has one
    entry per Pacman move (the replay file's form) or is empty.
    """
    layout = replay.layout
    walls = ["".join("%" if (x, y) in layout.walls else " " for x in range(layout.width))
             for y in range(layout.height - 1, -1, -1)]
    rounds: list[list[Any]] = []
    eaten: list[list[int]] = []
    facing = Action.EAST
    move = 0
    previous = None
    first = None
    last_turn = len(replay.actions)
    for turn, (state, agent, action) in enumerate(replay.states()):
        if agent is None:
            first = state
        elif agent == 0:
            move += 1
            if action is not Action.STOP:
                facing = action
        # A round ends after the last ghost's move; a game that crashed or timed out may end inside one.
        if agent is not None and not (agent == state.num_agents - 1 or state.is_terminal() or turn == last_turn):
            continue
        if previous is not None:
            for x, y in sorted(previous.food - state.food) + sorted(set(previous.capsules) - set(state.capsules)):
                eaten.append([len(rounds), x, y])
        entry: list[Any] = [move, *state.pacman_position, _DIRECTIONS.index(facing), state.score]
        for (x, y), direction, timer in zip(state.ghost_positions, state.ghost_directions, state.scared_timers):
            entry += [_number(x), _number(y), _DIRECTIONS.index(direction), timer]
        rounds.append(entry)
        previous = state
    assert first is not None and previous is not None
    result = dict(replay.result)
    outcome = result.get("outcome") or ("won" if result.get("won") else "lost" if result.get("lost")
                                        else "cut-off" if result.get("cut_off") else "crashed"
                                        if result.get("crashed") else "timed-out" if result.get("timed_out")
                                        else "unfinished")
    agent_args = replay.agents.get("agent_args") or {}
    return {
        "version": PAGE_DATA_VERSION,
        "layout": {"name": layout.name, "width": layout.width, "height": layout.height, "walls": walls},
        "palette": palette(),
        "food": sorted(first.food),
        "capsules": sorted(first.capsules),
        "numGhosts": replay.num_ghosts,
        "rounds": rounds,
        "eaten": eaten,
        "search": [None if entry is None else entry.to_json() for entry in replay.search],
        "result": {"score": previous.score, "won": previous.is_win(), "lost": previous.is_lose(),
                   "outcome": outcome, "moves": move, "seed": replay.seed, "error": result.get("error"),
                   # where a crash was in the user's own files, and its hint (pacman.user_code)
                   "error_frames": list(result.get("error_frames") or ()), "error_hint": result.get("error_hint")},
        "agents": {"pacman": replay.agents.get("pacman"), "ghosts": replay.agents.get("ghosts"),
                   "evaluation": agent_args.get("evaluation"), "depth": agent_args.get("depth")},
        "agent": agent_description(replay.agents),
        "fps": fps,
    }


def _json_for_script(data: Any) -> str:
    """JSON that is safe inside a <script> element: no "<" (so no "</script>"), ASCII only."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=True, allow_nan=False).replace("<", "\\u003c")


def _title(replay: Replay) -> str:
    result = replay.result
    word = "won" if result.get("won") else "lost" if result.get("lost") else "ended"
    return f"pacman-ai: {replay.layout.name}, {word} with score {result.get('score')}"


def game_page(replay: Replay, fps: float = 8.0) -> str:
    """The whole page: one HTML document with the style, the player and the game inline."""
    title = html.escape(_title(replay))
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en" data-status="loading">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="generator" content="pacman-ai">\n<title>{title}</title>\n'
        f"<style>\nhtml, body {{ margin: 0; background: #0b0b14; }}\n{_asset('player.css')}</style>\n"
        "</head>\n<body>\n"
        "<noscript>This page replays a pacman-ai game; it needs JavaScript.</noscript>\n"
        '<div class="pacman-ai" id="pacman-ai-game"></div>\n'
        f'<script type="application/json" id="pacman-ai-data">{_json_for_script(game_data(replay, fps))}</script>\n'
        "<script>\n"
        "window.onerror = function (message) {\n"
        '  document.documentElement.setAttribute("data-status", "error: " + message);\n'
        '  document.title = "error: " + message;\n'
        "};\n"
        f"{_asset('player.js')}\n"
        'PacmanAI.mount(document.getElementById("pacman-ai-game"),\n'
        '  JSON.parse(document.getElementById("pacman-ai-data").textContent),\n'
        "  {keys: document, statusOn: document.documentElement, hash: location.hash});\n"
        "</script>\n</body>\n</html>\n"
    )


def game_fragment(replay: Replay, fps: float = 8.0) -> str:
    """The player as an HTML fragment for a notebook cell (no <html>; keys work when it has the focus)."""
    element = f"pacman-ai-{uuid.uuid4().hex[:12]}"
    return (
        f"<style>{_asset('player.css')}</style>\n"
        f'<div class="pacman-ai" id="{element}" data-status="loading">'
        f"<p>{html.escape(_title(replay))} (the player needs JavaScript: a trusted notebook)</p></div>\n"
        f"<script>\n(function () {{\n{_asset('player.js')}\n"
        f'var root = document.getElementById("{element}");\n'
        "try {\n"
        f"  PacmanAI.mount(root, {_json_for_script(game_data(replay, fps))}, {{keys: root, statusOn: root}});\n"
        '} catch (e) { root.setAttribute("data-status", "error: " + e); throw e; }\n'
        "})();\n</script>\n"
    )


def write_game_page(path: str | os.PathLike[str], replay: Replay, fps: float = 8.0) -> int:
    """Write `game_page` to `path` atomically (whole or absent); returns its size in bytes."""
    text = game_page(replay, fps).encode("utf-8")

    def write(temporary: str) -> None:
        with open(temporary, "wb") as out:
            out.write(text)

    try:
        write_atomically(path, write)
    except OSError as exc:
        raise PageError(f"{path}: cannot write the web page ({exc.strerror or exc})") from None
    return len(text)

