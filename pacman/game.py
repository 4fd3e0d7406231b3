"""The game loop: agents take turns until the game is won, lost, cut off, or an agent fails.

Randomness is per game and per agent: the game's seed is split with numpy's
`SeedSequence` into one generator per agent, so the same seed replays the same
game whatever any agent does with its own stream. An agent that raises, returns
an illegal action or overruns the per-move time limit ends its game, and the
`GameResult` says which agent failed and why; the program goes on. That holds
for an agent that calls ``sys.exit()`` (``exit()``, ``quit()``) in ``get_action``
or ``reset`` too: its game is crashed, with the exit code in the message. Only
KeyboardInterrupt stops the program, and an AgentSpecError from ``reset`` (an
agent refusing a game it cannot play, such as a search too large for the
layout) reaches the caller.

A game that can never end ends at once: agents never leave their start cell's
region of the maze, so when no dot can be eaten to win (no food, or a dot outside
Pacman's region) and no ghost in play starts in Pacman's region, the game is cut
off before the first move (0 moves) with `GameResult.error` saying why, with or
without `max_moves` (see `endless_reason`). Every other game plays as the rules
say until it is won, lost, cut off by `max_moves`, or an agent fails.

`run_game` itself has no move limit unless given one (`max_moves=None` is the
classic unlimited game). The command line and the environments play every game
with a bound: the game-limit policy of `pacman.limits` (the maze's
`default_max_moves` unless the user says otherwise). A game cut off by its limit
says so in `GameResult.error` (`move_limit_reason`). A long game keeps
flat memory with ``keep_moves=False``: the result then holds the total and the
longest thinking time instead of every action and every move's time.
"""

from __future__ import annotations

import inspect
import os
import queue
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, Iterator, Protocol, Sequence

import numpy as np
# numpy imports numpy.random at its first use, and a stop signal (Ctrl-C, SIGTERM) that arrives during that
# import is lost inside numpy's module set-up: the game played on to its end. Imported here, with the engine,
# before any command sets up its outputs and its signal handlers.
import numpy.random  # noqa: F401

from pacman.actions import Action
from pacman.errors import AgentSpecError, IllegalActionError, PacmanError, describe_failure
from pacman.layout import Layout, load_layout
from pacman.limits import MIN_DEFAULT_MAX_MOVES, MOVES_PER_CELL, default_max_moves, move_limit_reason
from pacman.state import GameState
from pacman.user_code import describe_user_error, exits_guarded

__all__ = ["GameResult", "Display", "run_game", "needs_heading", "agent_streams", "endless_reason", "replay_actions",
           "default_max_moves", "move_limit_reason", "agent_time_allowance", "time_limit_problem", "MOVES_PER_CELL", "MIN_DEFAULT_MAX_MOVES"]



@dataclass(frozen=True)
class GameResult:
    """How one game went. Exactly one of won, lost, cut_off, crashed, timed_out is true."""

    layout: str
    """The layout's name."""
    seed: int
    """The game's seed; the same seed with the same agents replays the game."""
    won: bool
    """Pacman ate the last food."""
    lost: bool
    """A ghost that was not scared caught Pacman."""
    score: int
    """The final score."""
    moves: int
    """Pacman moves made."""
    cut_off: bool = False
    """Stopped by `max_moves`, or at once because it could never end (`error` says which); neither won nor lost."""
    crashed: bool = False
    """An agent raised an exception or returned an illegal action."""
    timed_out: bool = False
    """An agent overran the per-move time limit."""
    failed_agent: int | None = None
    """The agent that crashed or timed out (0 is Pacman)."""
    error: str | None = None
    """What went wrong, for a crash or a time-out; why, for a game cut off (its move limit, or it could never end)."""
    move_times: tuple[float, ...] = field(default=(), repr=False)
    """Seconds Pacman's agent took for each of its moves; () when the game was played with ``keep_moves=False``."""
    actions: tuple[Action, ...] = field(default=(), repr=False)
    """Every action taken, in turn order: Pacman, ghost 1, ..., Pacman, ...; () with ``keep_moves=False``."""
    num_agents: int = 1
    """Pacman plus the ghosts in play."""
    thinking_seconds: float | None = field(default=None, repr=False)
    """Seconds Pacman's agent took over all its moves (None: the sum of `move_times`)."""
    slowest_move_seconds: float | None = field(default=None, repr=False)
    """Seconds of Pacman's slowest move (None: the largest of `move_times`)."""
    error_frames: tuple[str, ...] = ()
    """For a crash: the last frames of the user's own files the error passed through
    (``file:line in function: source``, `pacman.user_code`); () when none."""
    error_hint: str | None = None
    """For a crash that is a common mistake (calling a property, returning None, a wrong signature): a hint."""

    @property
    def total_thinking(self) -> float:
        """Seconds Pacman's agent took over all its moves, whether or not every move's time was kept."""
        return sum(self.move_times) if self.thinking_seconds is None else self.thinking_seconds

    @property
    def slowest_move(self) -> float:
        """Seconds of Pacman's slowest move (0.0 for a game without moves)."""
        if self.slowest_move_seconds is not None:
            return self.slowest_move_seconds
        return max(self.move_times, default=0.0)

    @property
    def outcome(self) -> str:
        """One word: won, lost, cut-off, crashed or timed-out."""
        for name, flag in (("won", self.won), ("lost", self.lost), ("cut-off", self.cut_off),
                           ("crashed", self.crashed), ("timed-out", self.timed_out)):
            if flag:
                return name
        return "unfinished"

    def to_dict(self, actions: bool = False) -> dict[str, Any]:
        """A JSON-ready dict; the action list only when `actions` is true."""
        data = asdict(self)
        data["outcome"] = self.outcome
        del data["thinking_seconds"], data["slowest_move_seconds"]
        data["ms_per_move_mean"] = 1000 * self.total_thinking / self.moves if self.moves else 0.0
        data["ms_per_move_max"] = 1000 * self.slowest_move if self.moves else 0.0
        if actions:
            data["actions"] = [a.value for a in self.actions]
        else:
            del data["actions"]
        del data["move_times"]
        if not self.error_frames:
            del data["error_frames"]
        if self.error_hint is None:
            del data["error_hint"]
        return data


class Display(Protocol):
    """What the game loop tells a view. Every method may block (to pace the game)."""

    def start(self, state: GameState) -> None: ...

    def update(self, state: GameState, agent: int, action: Action) -> None: ...

    def finish(self, state: GameState, result: GameResult) -> None: ...


def agent_streams(seed: int, num_agents: int) -> list[np.random.Generator]:
    """One independent generator per agent, derived from the game's seed."""
    children = np.random.SeedSequence(seed).spawn(num_agents)
    return [np.random.default_rng(child) for child in children]


class _Timeout(Exception):
    pass


class _Worker:
    """A daemon thread that runs agent calls, so a call can be abandoned after a time limit.

    Python cannot kill a thread: a call that never returns keeps its thread busy
    until the program exits (the thread is a daemon and does not hold the exit up).
    """

    def __init__(self) -> None:
        self._requests: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._serve, name="pacman-agent", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            request = self._requests.get()
            if request is None:
                return
            fn, args, replies = request
            try:
                replies.put((True, fn(*args)))
            except BaseException as exc:  # handed to the game loop, which records it
                replies.put((False, exc))

    def call(self, fn: Callable, args: tuple, timeout: float) -> Any:
        replies: queue.Queue = queue.Queue(maxsize=1)
        self._requests.put((fn, args, replies))
        try:
            ok, value = replies.get(timeout=timeout)
        except queue.Empty:
            raise _Timeout from None
        if ok:
            return value
        raise value

    def close(self) -> None:
        self._requests.put(None)


def _user_error(exc: BaseException) -> dict[str, Any]:
    """The crash's frames in the user's own files and its hint, as `GameResult` fields."""
    frames, hint = describe_user_error(exc)
    return {"error_frames": tuple(frames), "error_hint": hint}


def needs_heading(agents: Iterable[Any]) -> bool:
    """Whether a game with `agents` must keep Pacman's heading in its states: whether any of them declares
    ``reads_heading`` (the ghosts that aim ahead of him, `pacman.agents.ArcadeGhost`, and a Pacman agent that
    models them). Every command, environment and the solver start their games with
    ``GameState.initial(..., heading=needs_heading(agents))``."""
    return any(getattr(agent, "reads_heading", False) is True for agent in agents)


def run_game(
    layout: Layout | str | os.PathLike[str],
    pacman_agent: Any,
    ghost_agents: Sequence[Any] = (),
    seed: int = 0,
    max_moves: int | None = None,
    display: Display | None = None,
    *,
    move_time_limit: float | None = None,
    keep_moves: bool = True,
) -> GameResult:
    """Play one game and report how it went.

    `ghost_agents` are the ghosts in play, in index order 1..n (the layout's first
    n ghosts); `pacman_agent` needs ``get_action(state)``. `max_moves` caps Pacman's
    moves; `move_time_limit` (seconds) caps every agent's thinking per move, measured
    off the main thread, so it works from any thread and on every OS. With
    `keep_moves` false the result holds no `actions` and no `move_times` (only
    their totals), so that however long the game, its memory stays flat.

    A user's ``os._exit`` inside an agent ends its game as a crash, not the process (`exits_guarded`).
    """
    with exits_guarded():
        return _run_game(layout, pacman_agent, ghost_agents, seed, max_moves, display,
                         move_time_limit=move_time_limit, keep_moves=keep_moves)


def _run_game(
    layout: Layout | str | os.PathLike[str],
    pacman_agent: Any,
    ghost_agents: Sequence[Any] = (),
    seed: int = 0,
    max_moves: int | None = None,
    display: Display | None = None,
    *,
    move_time_limit: float | None = None,
    keep_moves: bool = True,
) -> GameResult:
    if not isinstance(layout, Layout):
        layout = load_layout(layout)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise PacmanError(f"seed must be a non-negative int, got {seed!r}")
    seed = int(seed)
    if max_moves is not None and (isinstance(max_moves, bool) or not isinstance(max_moves, int) or max_moves < 1):
        raise PacmanError(f"max_moves must be a positive int or None, got {max_moves!r}")
    if move_time_limit is not None and not move_time_limit > 0:
        raise PacmanError(f"move_time_limit must be a positive number of seconds or None, got {move_time_limit!r}")
    ghost_agents = tuple(ghost_agents)
    for position, ghost in enumerate(ghost_agents, start=1):
        index = getattr(ghost, "index", position)
        if index != position:
            raise PacmanError(f"ghost_agents[{position - 1}] has index {index}; give ghosts in order 1..n")
    state = GameState.initial(layout, num_ghosts=len(ghost_agents), heading=needs_heading((pacman_agent, *ghost_agents)))
    num_agents = state.num_agents
    streams = agent_streams(seed, num_agents)
    outcome: dict[str, Any] = {}
    try:
        reset = getattr(pacman_agent, "reset", None)
        if callable(reset):
            if _takes_layout(reset):
                reset(rng=streams[0], ghost_agents=ghost_agents, layout=layout)
            else:
                reset(rng=streams[0], ghost_agents=ghost_agents)
    except (AgentSpecError, KeyboardInterrupt):
        raise  # the agent refuses this game (a search too large for it): the caller's error
    except BaseException as exc:  # an agent's bug ends its game, not the program; sys.exit() too
        outcome = dict(crashed=True, failed_agent=0, error=f"{_agent_name(0)} reset() {describe_failure(exc, 1000)}",
                       **_user_error(exc))
    if not outcome:
        reason = endless_reason(state)
        if reason is not None:
            outcome = dict(cut_off=True, error=reason)

    def decide(agent: int, current: GameState) -> Action:
        if agent == 0:
            return pacman_agent.get_action(current)
        return ghost_agents[agent - 1].get_action(current, streams[agent])

    worker = _Worker() if move_time_limit is not None and not outcome else None
    actions: list[Action] = []
    move_times: list[float] = []
    thinking = slowest = 0.0
    moves = 0
    if display is not None:
        display.start(state)
    try:
        while not outcome and not state.is_terminal():
            for agent in range(num_agents):
                started = time.perf_counter()
                try:
                    if worker is None:
                        action = decide(agent, state)
                    else:
                        action = worker.call(decide, (agent, state), move_time_limit)
                except _Timeout:
                    outcome = dict(timed_out=True, failed_agent=agent, error=(
                        f"{_agent_name(agent)} took longer than the {move_time_limit:g} s move time limit"))
                    break
                except KeyboardInterrupt:
                    raise
                except BaseException as exc:  # an agent's bug ends its game, not the program; sys.exit() too
                    outcome = dict(crashed=True, failed_agent=agent, error=(
                        f"{_agent_name(agent)} {describe_failure(exc, 1000)}"), **_user_error(exc))
                    break
                elapsed = time.perf_counter() - started
                try:
                    state = state.successor(agent, action)
                except PacmanError as exc:
                    outcome = dict(crashed=True, failed_agent=agent, error=(
                        f"{_agent_name(agent)} chose {action!r}: {exc}"))
                    break
                if keep_moves:
                    actions.append(Action(action))
                if agent == 0:
                    moves += 1
                    thinking += elapsed
                    slowest = max(slowest, elapsed)
                    if keep_moves:
                        move_times.append(elapsed)
                if display is not None:
                    display.update(state, agent, Action(action))
                if state.is_terminal():
                    break
            if outcome:
                break
            if max_moves is not None and moves >= max_moves and not state.is_terminal():
                outcome = dict(cut_off=True, error=move_limit_reason(max_moves))
                break
    finally:
        if worker is not None:
            worker.close()
    result = GameResult(
        layout=layout.name,
        seed=seed,
        won=state.is_win(),
        lost=state.is_lose(),
        score=state.score,
        moves=moves,
        move_times=tuple(move_times),
        actions=tuple(actions),
        num_agents=num_agents,
        thinking_seconds=thinking,
        slowest_move_seconds=slowest,
        **outcome,
    )
    if display is not None:
        display.finish(state, result)
    return result


def replay_actions(state: GameState, actions: Iterable[Action | str]) -> Iterator[tuple[int, GameState]]:
    """Play recorded `actions` from `state`, in turn order (Pacman, ghost 1, ..., Pacman, ...).

    Yields ``(agent, state after the action)`` for each action; the agent to move
    is the turn number modulo the number of agents. An action that is not legal
    (or not an action at all) raises IllegalActionError naming its turn, agent and
    word; the states before it have been yielded. The one home of "play these
    actions from the start" (replays, grading, bench).

    >>> from pacman import load_layout
    >>> start = GameState.initial(load_layout("test"))
    >>> [agent for agent, _ in replay_actions(start, ["South", "West"])]
    [0, 1]
    """
    num_agents = state.num_agents
    for turn, word in enumerate(actions):
        agent = turn % num_agents
        try:
            action = Action(word)
        except ValueError:
            raise IllegalActionError(f"action {turn}: {word!r} by agent {agent} is not an action "
                                     f"(expected one of {', '.join(a.value for a in Action)})") from None
        try:
            state = state.successor(agent, action)
        except IllegalActionError as exc:
            raise IllegalActionError(f"action {turn} ({action.value} by agent {agent}): {exc}") from None
        yield agent, state


def endless_reason(state: GameState) -> str | None:
    """Why a game from `state` can never end (neither be won nor lost), or None if it can end.

    Agents never leave their start cell's region of the maze (`Layout.region`), so
    the game can be won only if food is left and every dot lies in Pacman's region,
    and lost only if a ghost in play starts in that region. `run_game` ends a game
    that can do neither at once, as cut off, with this reason as its `error`.
    """
    if state.is_terminal():
        return None
    layout = state.layout
    home = layout.region(state.pacman_position)
    food = state.food
    can_win = bool(food) and all(layout.region(cell) == home for cell in food)
    if can_win:
        return None
    starts = layout.ghost_starts[: state.num_ghosts]
    if any(layout.region(start) == home for start in starts):
        return None
    if not food:
        why = "there is no food"
    else:
        outside = sum(layout.region(cell) != home for cell in food)
        why = f"{outside} of {len(food)} food dot{'s' if len(food) != 1 else ''} cannot be reached by Pacman"
    ghosts = ("no ghost in play can reach him" if starts else "there are no ghosts in play")
    return f"the game can never end: {why} and {ghosts}; stopped before the first move"


def agent_time_allowance(move_time_limit: float) -> float:
    """The longest time an agent may give its own search under a per-move time limit: time left to answer.

    80% of the limit and at least 50 ms less; half of it for a limit under 100 ms.
    An agent that searches until the whole limit has passed answers too late on
    every move.

    >>> agent_time_allowance(1.0), agent_time_allowance(0.05)
    (0.8, 0.025)
    """
    if move_time_limit < 0.1:
        return move_time_limit / 2
    return min(0.8 * move_time_limit, move_time_limit - 0.05)


def time_limit_problem(agent_time_limit: Any, move_time_limit: float | None) -> str | None:
    """Why an agent's `time_limit` cannot play under `move_time_limit` (None if it can), as a sentence naming both."""
    if move_time_limit is None or isinstance(agent_time_limit, bool) or not isinstance(agent_time_limit, (int, float)):
        return None
    allowance = agent_time_allowance(move_time_limit)
    if agent_time_limit <= allowance:
        return None
    return (f"--agent-args time_limit={agent_time_limit:g} with --move-time-limit {move_time_limit:g}: the agent "
            f"searches until its time_limit and then needs time to answer, so every move would time out; give "
            f"time_limit={allowance:.3g} or less, or a longer --move-time-limit")


def _takes_layout(reset: Callable) -> bool:
    """True if an agent's ``reset`` accepts ``layout=`` (the project's search agents check it)."""
    try:
        parameters = inspect.signature(reset).parameters
    except (TypeError, ValueError):
        return False
    return "layout" in parameters or any(p.kind is p.VAR_KEYWORD for p in parameters.values())


def _agent_name(agent: int) -> str:
    return "Pacman (agent 0)" if agent == 0 else f"ghost {agent}"
