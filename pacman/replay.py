"""Replay files: everything needed to reproduce a game exactly, as JSON.

A replay holds the layout's text (so it replays without the layout file), the
agents and their arguments, the seed, every action in turn order and the
outcome. Replaying applies the actions to a fresh state; it needs no agent and
no randomness, and checks that it ends where the recorded game ended.

Version 2 adds, optionally, what Pacman's search found at each of his moves
(the value of every action, the depth, nodes and milliseconds, and whether the
agent remembered the move rather than searched it: `MoveSearch`),
so that views of a replay can show what he thought. Version 1 files, written
before that, still load, with no search recorded.

Both sides share one limit: a file holds at most `MAX_REPLAY_MOVES` Pacman
moves and `MAX_REPLAY_BYTES` bytes, `max_replay_moves` says how many moves of a
given maze fit for certain, and the writer never writes a file the reader
refuses. `ReplayWriter` streams a game being played to temporary files, move
by move, so that saving a long game keeps flat memory.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import IO, Any, Iterable, Iterator, Sequence

from pacman.actions import Action
from pacman.errors import IllegalActionError, PacmanError
from pacman.files import read_input_file, write_atomically
from pacman.hints import hint
from pacman.game import GameResult, replay_actions
from pacman.layout import Layout, parse_layout
from pacman.state import GameState

__all__ = ["ReplayError", "Replay", "MoveSearch", "SearchLog", "ReplayWriter", "save_replay", "load_replay",
           "max_replay_moves", "MAX_REPLAY_BYTES", "MAX_REPLAY_MOVES"]

FORMAT = "pacman-ai replay"
VERSION = 2
"""The version written. 2 added the optional per-move "search"."""
READ_VERSIONS = (1, 2)
"""The versions read."""


class ReplayError(PacmanError):
    """A replay file that cannot be read or does not reproduce its game."""


@dataclass(frozen=True)
class MoveSearch:
    """What Pacman's search found for one of his moves, as a replay file keeps it."""

    action: Action
    """The action chosen (the move made)."""
    values: dict[Action, float] = field(default_factory=dict)
    """The value of each legal action (may be only the chosen one's, or +-inf)."""
    depth: float | None = None
    """The search depth completed, in Pacman plies."""
    nodes: int | None = None
    """Nodes visited."""
    milliseconds: float | None = None
    """Time the decision took."""
    cached: bool = False
    """The agent remembered this decision rather than searched it (its ``extra["cached"]``: the decision cache,
    docs/search-strength.md, "Deeper on small mazes"); `nodes` is then 0. Written as ``"cached": true``."""

    @classmethod
    def from_search(cls, info: Any) -> MoveSearch | None:
        """From an agent's `last_search` (action, action_values, depth, nodes, milliseconds); None if it has none."""
        if info is None:
            return None
        try:
            action = Action(getattr(info, "action"))
            values = {Action(a): float(v) for a, v in dict(getattr(info, "action_values", None) or {}).items()}
            depth, nodes, ms = (getattr(info, name, None) for name in ("depth", "nodes", "milliseconds"))
            extra = getattr(info, "extra", None)
            return cls(action=action, values=values,
                       depth=None if depth is None else float(depth),
                       nodes=None if nodes is None else int(nodes),
                       milliseconds=None if ms is None else float(ms),
                       cached=isinstance(extra, dict) and bool(extra.get("cached")))
        except (AttributeError, TypeError, ValueError):  # an agent's own `last_search` of another shape
            return None

    def kept(self) -> MoveSearch:
        """This search as the file keeps it and a replay reads it back: values rounded to 1e-4, the depth and the
        milliseconds to 1e-3. A recording shows this, so that a game's recording is the same made as it is played
        (`pacman.view.record.FrameRecorder`) or from its file (``pacman-ai replay --record``)."""

        def rounded(value: float | None, digits: int) -> float | None:
            return value if value is None or not math.isfinite(value) else round(value, digits)

        return MoveSearch(action=self.action, values={a: rounded(v, 4) for a, v in self.values.items()},
                          depth=rounded(self.depth, 3), nodes=self.nodes, milliseconds=rounded(self.milliseconds, 3),
                          cached=self.cached)

    def as_last_search(self) -> SimpleNamespace:
        """This search in the shape of an agent's `last_search`, where the views look for it: the depth an int
        where it is whole, as the agents give it."""
        return SimpleNamespace(action=self.action, action_values=self.values, nodes=self.nodes,
                               milliseconds=self.milliseconds,
                               depth=None if self.depth is None else _whole_as_int(self.depth),
                               extra={"cached": self.cached})

    def to_json(self) -> dict[str, Any]:
        """The file's form (`kept`): action names, values rounded to 1e-4 ("inf"/"-inf" for infinite ones)."""
        kept = self.kept()
        data: dict[str, Any] = {"action": kept.action.value,
                                "values": {a.value: _number_json(v) for a, v in kept.values.items()}}
        if kept.depth is not None:
            data["depth"] = _whole_as_int(kept.depth)
        if kept.nodes is not None:
            data["nodes"] = kept.nodes
        if kept.milliseconds is not None:
            data["ms"] = kept.milliseconds
        if kept.cached:
            data["cached"] = True
        return data


def _whole_as_int(depth: float) -> float | int:
    """A depth as the agents give it: an int where it is whole (2, not 2.0)."""
    return int(depth) if float(depth).is_integer() else depth


def _number_json(value: float) -> float | str:
    if math.isfinite(value):
        return value
    if math.isnan(value):
        raise ValueError("a search value is NaN")
    return "inf" if value > 0 else "-inf"


def kept_search(agent: Any) -> Any:
    """`agent`'s `last_search` as a replay file keeps it (`MoveSearch.kept`), for a recording to show; the agent's
    own when it is not of a search's shape, None when it has none."""
    last = getattr(agent, "last_search", None)
    found = MoveSearch.from_search(last)
    return last if found is None else found.kept().as_last_search()


class SearchLog:
    """A `Display` that keeps what Pacman's agent found at each of his moves, for `save_replay(search=...)`.

    It reads the agent's `last_search` after each Pacman move (None where the
    agent has none, or where it does not match the move made), and sets the
    agent's `explain`, as the views do, so that every action's value is exact.
    """

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        if hasattr(agent, "explain"):
            agent.explain = True
        self.moves: list[MoveSearch | None] = []
        """One entry per Pacman move of the game being played."""

    def start(self, state: GameState) -> None:
        self.moves = []

    def update(self, state: GameState, agent: int, action: Action) -> None:
        if agent == 0:
            self.moves.append(_found(self.agent, action))

    def finish(self, state: GameState, result: GameResult) -> None:
        """Nothing more to keep: every move was kept as it came."""


def _found(agent: Any, action: Action) -> MoveSearch | None:
    """What `agent` says it found for the move just made: None if it says nothing, or about another move."""
    found = MoveSearch.from_search(getattr(agent, "last_search", None))
    return found if found is not None and found.action is Action(action) else None


class ReplayWriter:
    """A `Display` that streams the game being played to temporary files, for `save`: flat memory however long.

    Every action, and (with `agent`) what Pacman's search found at each of his
    moves, is written to a spool file as it happens, as `SearchLog` reads it; the
    replay file is assembled from the spools when the game is over. Use
    ``run_game(..., keep_moves=False)`` with it so that the game keeps nothing per
    move either.

    >>> writer = ReplayWriter(agent)                                        # doctest: +SKIP
    >>> result = run_game(layout, agent, ghosts, display=writer, keep_moves=False)  # doctest: +SKIP
    >>> writer.save("game.json", layout, result, {"pacman": "expectimax"})  # doctest: +SKIP
    """

    def __init__(self, agent: Any = None) -> None:
        self.agent = agent
        if agent is not None and hasattr(agent, "explain"):
            agent.explain = True
        self._actions: IO[bytes] | None = None
        self._search: IO[bytes] | None = None
        self._turns = 0
        self._searched = 0
        self._problem: str | None = None
        # The first use of the temporary folder writes a probe file there and removes it; a stop signal between
        # the two left it behind. Done here, before the game starts, no Ctrl-C during the game can land there.
        tempfile.gettempdir()

    def start(self, state: GameState) -> None:
        self.close()
        self._actions = tempfile.TemporaryFile()
        self._search = tempfile.TemporaryFile()
        self._turns = self._searched = 0
        self._problem = None

    def update(self, state: GameState, agent: int, action: Action) -> None:
        assert self._actions is not None and self._search is not None, "start() comes first"
        separator = b"" if self._turns == 0 else b",\n" if agent == 0 else b","
        self._actions.write(separator + b'"' + Action(action).value.encode("ascii") + b'"')
        self._turns += 1
        if agent == 0:
            found = _found(self.agent, action) if self.agent is not None else None
            try:
                entry = "null" if found is None else _entry_json(found)
            except ReplayError as exc:
                self._problem, entry, found = self._problem or str(exc), "null", None
            self._searched += found is not None
            self._search.write((b"" if self._turns == 1 else b",\n") + entry.encode("utf-8"))

    def finish(self, state: GameState, result: GameResult) -> None:
        """The game is over: nothing more to spool."""

    def save(self, path: str | os.PathLike[str], layout: Layout, result: GameResult, agents: dict[str, Any]) -> None:
        """Write the replay of the game just played to `path`, atomically (see `save_replay`)."""
        if self._actions is None or self._search is None:
            raise ReplayError(f"{path}: no game was played with this ReplayWriter")
        if self._problem is not None:
            raise ReplayError(f"{path}: {self._problem}")
        moves = sum(1 for _ in range(0, self._turns, result.num_agents))
        if moves != result.moves:
            raise ReplayError(f"{path}: the writer saw {moves} Pacman moves, the game has {result.moves}")
        parts = [_spooled(self._actions)] + ([_spooled(self._search)] if self._searched else [])
        _write_replay(path, layout, result, agents, parts, bool(self._searched))

    def close(self) -> None:
        """Remove the spool files (they are removed at exit in any case)."""
        for spool in (self._actions, self._search):
            if spool is not None:
                with contextlib.suppress(OSError):
                    spool.close()
        self._actions = self._search = None


def _spooled(spool: IO[bytes]) -> Iterator[bytes]:
    spool.flush()
    spool.seek(0)
    while True:
        chunk = spool.read(1 << 16)
        if not chunk:
            return
        yield chunk


def _entry_json(entry: MoveSearch) -> str:
    try:
        return json.dumps(entry.to_json(), separators=(",", ":"))
    except ValueError as exc:
        raise ReplayError(f"cannot write replay: {exc}") from None


@dataclass(frozen=True, repr=False)
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
    search: tuple[MoveSearch | None, ...] = ()
    """What Pacman's search found at each of his moves (None for a move without); () if the file has none."""

    def __repr__(self) -> str:
        moves = len(self.actions[:: 1 + self.num_ghosts])
        return (f"Replay(layout={self.layout.name!r}, num_ghosts={self.num_ghosts}, seed={self.seed}, "
                f"moves={moves}, score={self.result.get('score')!r}, "
                f"search={'recorded' if self.search else 'none'})")

    def states(self) -> Iterator[tuple[GameState, int | None, Action | None]]:
        """The initial state, then (state, agent, action) after every recorded action."""
        state = GameState.initial(self.layout, num_ghosts=self.num_ghosts)
        yield state, None, None
        try:
            for (agent, state), action in zip(replay_actions(state, self.actions), self.actions):
                yield state, agent, action
        except IllegalActionError as exc:  # it names the action: "action 7 (West by agent 0): ..."
            raise ReplayError(f"replay diverges at {exc}") from None

    def final_state(self) -> GameState:
        """The state after the last action, checked against the recorded score and outcome."""
        state = None
        for state, _, _ in self.states():
            pass
        assert state is not None
        moves = sum(1 for turn in range(len(self.actions)) if turn % state.num_agents == 0)
        if "moves" in self.result and self.result["moves"] != moves:
            raise ReplayError(f"replay has {moves} Pacman moves but the file records {self.result['moves']}")
        if "seed" in self.result and self.result["seed"] != self.seed:
            raise ReplayError(f"replay's seed {self.seed} differs from its result's seed {self.result['seed']}")
        if state.score != self.result.get("score") or state.is_win() != self.result.get("won") \
                or state.is_lose() != self.result.get("lost"):
            raise ReplayError(
                f"replay ends with score {state.score} (won={state.is_win()}, lost={state.is_lose()}) but the "
                f"file records score {self.result.get('score')} (won={self.result.get('won')}, "
                f"lost={self.result.get('lost')})"
            )
        return state


def save_replay(path: str | os.PathLike[str], layout: Layout, result: GameResult, agents: dict[str, Any],
                search: Sequence[MoveSearch | None] | None = None) -> None:
    """Write a replay of `result` to `path`, atomically: the file is whole or absent.

    `search`, one entry per Pacman move (a `SearchLog`'s `moves`), is kept in the
    file when any move has one. A game longer than the reader takes
    (`max_replay_moves`) is refused with ReplayError, and nothing is written.
    """
    if search is not None and len(search) != result.moves:
        raise ReplayError(f"{path}: the search has {len(search)} entries for a game of {result.moves} moves")
    num_agents = result.num_agents
    actions = (("" if turn == 0 else ",\n" if turn % num_agents == 0 else ",") + f'"{action.value}"'
               for turn, action in enumerate(result.actions))
    parts: list[Iterable[bytes]] = [(text.encode("ascii") for text in actions)]
    searched = search is not None and any(entry is not None for entry in search)
    if searched:
        assert search is not None
        try:
            entries = [("" if move == 0 else ",\n") + ("null" if entry is None else _entry_json(entry))
                       for move, entry in enumerate(search)]
        except ReplayError as exc:
            raise ReplayError(f"{path}: {exc}") from None
        parts.append(text.encode("utf-8") for text in entries)
    _write_replay(path, layout, result, agents, parts, searched)


def _write_replay(path: str | os.PathLike[str], layout: Layout, result: GameResult, agents: dict[str, Any],
                  parts: Sequence[Iterable[bytes]], searched: bool) -> None:
    """Assemble a replay file from its actions (and search entries), given as JSON fragments, atomically.

    The file is checked against the reader's limits before it takes the name:
    a file `load_replay` would refuse is never written.
    """
    moves = result.moves
    limit = max_replay_moves(layout, result.num_agents - 1)
    if moves > MAX_REPLAY_MOVES:
        raise ReplayError(f"{path}: a game of {moves:,} Pacman moves is too long for a replay file "
                          f"(at most {MAX_REPLAY_MOVES:,}); play at most {limit:,} moves ({hint('max_moves')}) to save it")
    head = json.dumps({"format": FORMAT, "version": VERSION, "layout": {"name": layout.name, "text": layout.text},
                       "num_ghosts": result.num_agents - 1, "seed": result.seed, "agents": agents}, indent=1)
    tail = json.dumps(result.to_dict(), indent=1)

    def write(temporary: str) -> None:
        with open(temporary, "wb") as out:
            out.write(head[:-2].encode("utf-8") + b',\n "actions": [\n')
            for chunk in parts[0]:
                out.write(chunk)
            out.write(b"\n ],\n")
            if searched:
                out.write(b' "search": [\n')
                for chunk in parts[1]:
                    out.write(chunk)
                out.write(b"\n ],\n")
            out.write(b' "result": ' + tail.encode("utf-8") + b"\n}\n")
            size = out.tell()
        if size > MAX_REPLAY_BYTES:
            raise ReplayError(f"{path}: the replay would take {size:,} bytes, more than the {MAX_REPLAY_BYTES:,} "
                              f"a replay file may have; play fewer moves ({hint('max_moves')}) to save it")

    try:
        write_atomically(path, write)
    except OSError as exc:
        raise ReplayError(f"{path}: cannot write replay ({exc.strerror or exc})") from None


def max_replay_moves(layout: Layout, num_ghosts: int) -> int:
    """The most Pacman moves a replay of a game on `layout` with `num_ghosts` ghosts holds for certain.

    At most `MAX_REPLAY_MOVES`, and fewer where the worst case (every ghost's
    move and a search entry at every Pacman move, of the longest form) would not
    fit in `MAX_REPLAY_BYTES`. `play --save` plays within it; `load_replay` reads
    every file written within it.
    """
    fixed = 3 * len(json.dumps(layout.text)) + 16 * 1024  # layout, agents and the result with its error
    per_move = _ACTION_BYTES * (1 + num_ghosts) + 2 + _SEARCH_ENTRY_BYTES
    return max(1, min(MAX_REPLAY_MOVES, (MAX_REPLAY_BYTES - fixed) // per_move))


MAX_REPLAY_MOVES = 200_000
"""The most Pacman moves a replay file holds (twice the 100,000 a long game may take)."""
_ACTION_BYTES = 9
"""An action in the file at most: ``"North",`` and a newline."""
_SEARCH_ENTRY_BYTES = 300
"""A search entry in the file at most, in practice: five values, the depth, nodes, milliseconds and `cached`."""

MAX_REPLAY_BYTES = 64 * 1024 * 1024
"""The largest replay file read or written (a 1500-move game with four ghosts takes about 50 kB, with the
search of every move about 200 kB)."""

_RESULT_FIELDS: dict[str, tuple[type, ...]] = {
    "score": (int,), "won": (bool,), "lost": (bool,), "moves": (int,), "seed": (int,),
    "cut_off": (bool,), "crashed": (bool,), "timed_out": (bool,),
    "failed_agent": (int, type(None)), "error": (str, type(None)), "layout": (str,),
}
_AGENT_FIELDS: dict[str, tuple[type, ...]] = {"pacman": (str,), "agent_args": (dict,), "ghosts": (str,)}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_fields(path: Any, where: str, data: dict[str, Any], fields: dict[str, tuple[type, ...]]) -> None:
    for key, types in fields.items():
        if key not in data:
            continue
        value = data[key]
        ok = _is_int(value) if types == (int,) else isinstance(value, types) and not (
            isinstance(value, bool) and bool not in types)
        if not ok:
            expected = " or ".join("null" if t is type(None) else t.__name__ for t in types)
            raise ReplayError(f"{path}: {where}[{key!r}] is {value!r}, expected {expected}")


def load_replay(path: str | os.PathLike[str]) -> Replay:
    """Read a replay file; ReplayError names the file and what is wrong.

    FIFOs, devices and files over `MAX_REPLAY_BYTES` are refused before they are
    read; every field is checked for its type. Replays written before the agents'
    arguments were recorded in full (``"agent_args": {}``) still load.
    """
    raw = read_input_file(path, "a replay file", MAX_REPLAY_BYTES, ReplayError)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReplayError(f"{path}: not a replay file: not UTF-8 text (byte {exc.start})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReplayError(f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise ReplayError(f"{path}: invalid JSON: nested too deeply") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ReplayError(f"{path}: not a pacman-ai replay file (no \"format\": \"{FORMAT}\")")
    version = data.get("version")
    if version not in READ_VERSIONS or isinstance(version, bool):
        raise ReplayError(f"{path}: replay version {version!r} is not supported "
                          f"(expected {' or '.join(map(str, READ_VERSIONS))})")
    missing = [key for key in ("layout", "num_ghosts", "seed", "actions", "result") if key not in data]
    if missing:
        raise ReplayError(f"{path}: malformed replay: no {', '.join(repr(k) for k in missing)}")
    layout_data = data["layout"]
    if not isinstance(layout_data, dict) or not isinstance(layout_data.get("text"), str):
        raise ReplayError(f"{path}: malformed replay: \"layout\" must be an object with the layout's \"text\"")
    name = layout_data.get("name", "replay")
    if not isinstance(name, str):
        raise ReplayError(f"{path}: malformed replay: the layout's \"name\" is {name!r}, expected a string")
    try:
        layout = parse_layout(layout_data["text"], name=name)
    except PacmanError as exc:
        raise ReplayError(f"{path}: the replay's layout is invalid: {exc}") from None
    actions_data = data["actions"]
    if not isinstance(actions_data, list):
        raise ReplayError(f"{path}: malformed replay: \"actions\" must be a list of action names")
    names = {a.value: a for a in Action}
    num_ghosts_data = data["num_ghosts"]
    agents_per_move = 1 + num_ghosts_data if _is_int(num_ghosts_data) and num_ghosts_data >= 0 else 1
    if len(actions_data) > MAX_REPLAY_MOVES * agents_per_move:
        raise ReplayError(f"{path}: {len(actions_data):,} actions is more than {MAX_REPLAY_MOVES:,} Pacman moves, "
                          f"the most a replay file holds")
    actions = []
    for turn, name in enumerate(actions_data):
        action = names.get(name) if isinstance(name, str) else None
        if action is None:
            raise ReplayError(f"{path}: action {turn} is {name!r}, expected one of {', '.join(names)}")
        actions.append(action)
    num_ghosts, seed, result = data["num_ghosts"], data["seed"], data["result"]
    if not _is_int(num_ghosts) or not 0 <= num_ghosts <= layout.num_ghosts:
        raise ReplayError(f"{path}: num_ghosts {num_ghosts!r} does not fit the layout's {layout.num_ghosts} ghosts "
                          f"(expected an integer from 0 to {layout.num_ghosts})")
    if not _is_int(seed) or seed < 0:
        raise ReplayError(f"{path}: seed {seed!r} is not a non-negative integer")
    if not isinstance(result, dict):
        raise ReplayError(f"{path}: malformed replay: \"result\" is {type(result).__name__}, expected an object")
    for key in ("score", "won", "lost"):
        if key not in result:
            raise ReplayError(f"{path}: malformed replay: the result has no {key!r}")
    _check_fields(path, "result", result, _RESULT_FIELDS)
    agents = data.get("agents", {})
    if not isinstance(agents, dict):
        raise ReplayError(f"{path}: malformed replay: \"agents\" is {type(agents).__name__}, expected an object")
    _check_fields(path, "agents", agents, _AGENT_FIELDS)
    agents = {key: agents[key] for key in _AGENT_FIELDS if key in agents}
    search: tuple[MoveSearch | None, ...] = ()
    if "search" in data:
        if version < 2:
            raise ReplayError(f"{path}: malformed replay: \"search\" needs version 2, the file says {version}")
        search = _read_search(path, data["search"], actions[:: 1 + num_ghosts])
    return Replay(layout=layout, num_ghosts=num_ghosts, actions=tuple(actions), seed=seed, agents=agents,
                  result=result, search=search)


#: The keys of a search entry (`MoveSearch.to_json`); any other is refused by name.
_SEARCH_KEYS = ("action", "values", "depth", "nodes", "ms", "cached")


def _read_search(path: Any, entries: Any, moves: list[Action]) -> tuple[MoveSearch | None, ...]:
    """The "search" list: one entry (null or an object) per Pacman move, each checked."""
    if not isinstance(entries, list):
        raise ReplayError(f"{path}: malformed replay: \"search\" must be a list with one entry per Pacman move")
    if len(entries) != len(moves):
        raise ReplayError(f"{path}: malformed replay: \"search\" has {len(entries)} entries for "
                          f"{len(moves)} Pacman moves")
    names = {a.value: a for a in Action}

    def number(move: int, key: str, value: Any, whole: bool = False) -> Any:
        if value is None:
            return None
        if whole and _is_int(value) and value >= 0:
            return value
        if not whole and isinstance(value, (int, float)) and not isinstance(value, bool) \
                and math.isfinite(value) and value >= 0:
            return float(value)
        raise ReplayError(f"{path}: search[{move}][{key!r}] is {value!r}, expected a non-negative "
                          f"{'integer' if whole else 'number'}")

    out: list[MoveSearch | None] = []
    for move, (entry, made) in enumerate(zip(entries, moves)):
        if entry is None:
            out.append(None)
            continue
        if not isinstance(entry, dict):
            raise ReplayError(f"{path}: search[{move}] is {type(entry).__name__}, expected an object or null")
        unknown = [key for key in entry if key not in _SEARCH_KEYS]
        if unknown:
            raise ReplayError(f"{path}: search[{move}] has the unknown key {unknown[0]!r} (a search entry has "
                              f"{', '.join(_SEARCH_KEYS)})")
        cached = entry.get("cached", False)
        if not isinstance(cached, bool):
            raise ReplayError(f"{path}: search[{move}]['cached'] is {cached!r}, expected true or false")
        action = names.get(entry.get("action")) if isinstance(entry.get("action"), str) else None
        if action is None:
            raise ReplayError(f"{path}: search[{move}]['action'] is {entry.get('action')!r}, expected one of "
                              f"{', '.join(names)}")
        if action is not made:
            raise ReplayError(f"{path}: search[{move}] chose {action.value} but Pacman's move {move} was "
                              f"{made.value}")
        raw_values = entry.get("values", {})
        if not isinstance(raw_values, dict):
            raise ReplayError(f"{path}: search[{move}]['values'] must be an object of action names to numbers")
        values: dict[Action, float] = {}
        for key, value in raw_values.items():
            if key not in names:
                raise ReplayError(f"{path}: search[{move}]['values'] has {key!r}, expected action names")
            if value in ("inf", "-inf"):
                values[names[key]] = float(value)
            elif isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
                values[names[key]] = float(value)
            else:
                raise ReplayError(f"{path}: search[{move}]['values'][{key!r}] is {value!r}, expected a number, "
                                  f"\"inf\" or \"-inf\"")
        out.append(MoveSearch(action=action, values=values, depth=number(move, "depth", entry.get("depth")),
                              nodes=number(move, "nodes", entry.get("nodes"), whole=True),
                              milliseconds=number(move, "ms", entry.get("ms")), cached=cached))
    return tuple(out)
