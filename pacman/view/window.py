"""The pygame window: watch games play, see what the agent thinks, control the pace.

The game runs on a worker thread (so a deep search never freezes the window);
the main thread owns the window and draws. They meet in `_Bridge`, the `Display`
the game loop talks to: it hands each finished round to the window and waits
while the window is two rounds behind, so the game never runs far ahead.

Keys: space pause/resume, right arrow or n one round, + and - speed, r restart
with the same seed, v the values panel, t the tree panel (the top of the decision
just made, searched again only while the panel is shown), q or Esc quit
(closing the window too).
With a keyboard-driven Pacman, the arrow keys and WASD steer.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from pacman.actions import Action
from pacman.game import GameResult
from pacman.state import GameState
from pacman.view.renderer import agent_label, decision_for, search_panel

__all__ = ["WindowDisplay", "ReplayWindow", "KeyboardAgent", "display_available", "real_display", "replay_rounds", "QuitGame",
           "decision_for"]

_KEY_ACTIONS = {
    "up": Action.NORTH, "w": Action.NORTH,
    "down": Action.SOUTH, "s": Action.SOUTH,
    "right": Action.EAST, "d": Action.EAST,
    "left": Action.WEST, "a": Action.WEST,
}


_MAX_FRAME_RATE = 120.0
"""Frames drawn per second at most, whatever --fps asks."""


class QuitGame(Exception):
    """Raised on the game thread when the window asks the game to stop."""


class _Restart(Exception):
    """Raised on the game thread when the window asks for the game again."""


def real_display() -> bool:
    """True if a window here would be seen by a person (not SDL's dummy or off-screen driver)."""
    driver = os.environ.get("SDL_VIDEODRIVER", "")
    if driver in ("dummy", "offscreen"):
        return False
    if driver or os.name == "nt" or sys.platform == "darwin":
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def display_available() -> bool:
    """True if a pygame window can be opened: a real screen, or SDL told to draw off screen."""
    return real_display() or os.environ.get("SDL_VIDEODRIVER") in ("dummy", "offscreen")


class KeyboardAgent:
    """Pacman steered from the keyboard: the window passes key presses in.

    It keeps going in the last direction pressed while that is legal, and stops otherwise.
    """

    def __init__(self) -> None:
        self._pressed: queue.Queue[Action] = queue.Queue()
        self._heading = Action.STOP
        self.wants_keys = True

    def press(self, action: Action) -> None:
        """Called by the window on an arrow key or WASD."""
        self._pressed.put(action)

    def get_action(self, state: GameState) -> Action:
        legal = state.legal_actions(0)
        while True:
            try:
                self._heading = self._pressed.get_nowait()
            except queue.Empty:
                break
        return self._heading if self._heading in legal else Action.STOP


@dataclass
class _Round:
    state: GameState
    pacman_action: Action | None
    info: Any
    result: GameResult | None = None
    decided_in: GameState | None = None
    """The state Pacman's action of this round was chosen in (for the tree panel)."""
    decision: Any = None
    """The tree panel's picture of that decision, computed when first shown."""


class _Bridge:
    """The game thread's Display: queues each round for the window."""

    def __init__(self, agent: Any) -> None:
        self.rounds: queue.Queue[_Round] = queue.Queue(maxsize=2)
        self.agent = agent
        if hasattr(agent, "explain"):
            agent.explain = True  # the values panel shows every action's value
        self.stop: type[Exception] | None = None
        self._pacman_action: Action | None = None
        self._before: GameState | None = None
        self._decided_in: GameState | None = None

    def _put(self, item: _Round) -> None:
        while True:
            if self.stop is not None:
                raise self.stop()
            try:
                self.rounds.put(item, timeout=0.05)
                return
            except queue.Full:
                continue

    def start(self, state: GameState) -> None:
        self._before = state
        self._put(_Round(state, None, None))

    def update(self, state: GameState, agent: int, action: Action) -> None:
        if self.stop is not None:
            raise self.stop()
        if agent == 0:
            self._pacman_action = action
            self._decided_in = self._before
        if agent == state.num_agents - 1 or state.is_terminal():
            self._before = state
            self._put(_Round(state, self._pacman_action, getattr(self.agent, "last_search", None),
                             decided_in=self._decided_in))

    def finish(self, state: GameState, result: GameResult) -> None:
        self._put(_Round(state, None, None, result))


class WindowDisplay:
    """Plays games in a pygame window (render mode "human").

    `run(play)` calls ``play(display)`` on a worker thread, where `play` runs one
    game with the given display and returns its GameResult; `run` returns that
    result, or None if the window was closed first. At the end the final board
    and its banner stay up for about a second, or, with `hold_at_end`, until the
    window is closed. `frame_sink`, if given, gets every drawn frame as an
    (h, w, 3) uint8 array.
    """

    def __init__(self, layout: Any, agent: Any = None, fps: float = 8.0, zoom: float = 1.0,
                 show_values: bool = True, frame_sink: Callable[[Any], None] | None = None,
                 frames_per_round: int = 4, hold_at_end: bool = False, show_tree: bool = False,
                 keys: list[tuple[int, str]] | None = None) -> None:
        from pacman.view.renderer import MAX_ZOOM, MIN_ZOOM, cell_pixels

        if not MIN_ZOOM <= zoom <= MAX_ZOOM:
            raise ValueError(f"zoom must be between {MIN_ZOOM} and {MAX_ZOOM}, got {zoom}")
        self.layout = layout
        self.agent = agent
        self.fps = fps
        self.show_values = show_values
        self.frame_sink = frame_sink
        self.frames_per_round = frames_per_round
        self.hold_at_end = hold_at_end
        self.show_tree = show_tree
        self.keys = sorted(keys or [])
        """For tests: (round, key name) pairs, each pressed once that many rounds have been shown."""
        self._cell = cell_pixels(zoom)
        self._renderers: dict[tuple[bool, bool], Any] = {}

    def _renderer(self) -> Any:
        """The renderer for the panels shown now (each made once, on first use)."""
        from pacman.view.renderer import Renderer

        key = (self.show_values, self.show_tree)
        if key not in self._renderers:
            self._renderers[key] = Renderer(self.layout, cell=self._cell, panel=key[0], tree=key[1])
            self._renderers[key].agent = agent_label(self.agent)
        return self._renderers[key]

    def _frames_per_round(self) -> int:
        """In-between frames of a round: `frames_per_round`, fewer when that many would pass _MAX_FRAME_RATE."""
        return max(1, min(self.frames_per_round, int(_MAX_FRAME_RATE // self.fps)))

    def run(self, play: Callable[[Any], GameResult]) -> GameResult | None:
        import pygame

        pygame.display.init()
        pygame.font.init()
        try:
            return self._loop(pygame, play)
        finally:
            pygame.display.quit()

    def _loop(self, pygame: Any, play: Callable[[Any], GameResult]) -> GameResult | None:
        renderer = self._renderer()
        window = pygame.display.set_mode(renderer.size, pygame.RESIZABLE)
        pygame.display.set_caption(f"pacman-ai - {self.layout.name}")
        clock = pygame.time.Clock()

        outcome: dict[str, Any] = {}

        def start_game() -> tuple[_Bridge, threading.Thread]:
            bridge = _Bridge(self.agent)

            def work() -> None:
                try:
                    outcome["result"] = play(bridge)
                except (QuitGame, _Restart):
                    pass
                except BaseException as exc:  # shown in the window's place: on stderr, after it closes
                    outcome["error"] = exc

            thread = threading.Thread(target=work, name="pacman-game", daemon=True)
            thread.start()
            return bridge, thread

        bridge, thread = start_game()
        previous: _Round | None = None
        current: _Round | None = None
        facing = Action.EAST
        progress = 1.0  # of the animation from previous to current
        paused = False
        step = False
        tick = 0
        move = 0
        result: GameResult | None = None
        ended_at = 0.0
        quit_requested = False
        while True:
            names = []
            while self.keys and self.keys[0][0] <= move:
                names.append(self.keys.pop(0)[1])
            for event in pygame.event.get():
                if event.type == pygame.QUIT:
                    quit_requested = True
                elif event.type == pygame.VIDEORESIZE:
                    window = pygame.display.set_mode(event.size, pygame.RESIZABLE)
                elif event.type == pygame.KEYDOWN:
                    names.append(pygame.key.name(event.key))
            for name in names:
                if name in ("q", "escape"):
                    quit_requested = True
                elif name == "space":
                    paused = not paused
                elif name in ("right", "n") and paused:
                    step = True
                elif name in ("+", "=", "[+]"):
                    self.fps = min(self.fps * 1.5, max(self.fps, 120.0))
                elif name in ("-", "[-]"):
                    self.fps = max(self.fps / 1.5, min(self.fps, 0.5))
                elif name in ("v", "t"):
                    flags = (not self.show_values, self.show_tree) if name == "v" \
                        else (self.show_values, not self.show_tree)
                    if _frame_fits(self.layout, self._cell, *flags):
                        self.show_values, self.show_tree = flags
                        renderer = self._renderer()
                        window = pygame.display.set_mode(renderer.size, pygame.RESIZABLE)
                elif name == "r":
                    bridge.stop = _Restart
                    thread.join(timeout=5)
                    bridge, thread = start_game()
                    previous = current = None
                    result, move, progress, facing = None, 0, 1.0, Action.EAST
                if getattr(self.agent, "wants_keys", False) and name in _KEY_ACTIONS:
                    self.agent.press(_KEY_ACTIONS[name])
            if quit_requested:
                bridge.stop = QuitGame
                thread.join(timeout=1)
                return result

            if progress >= 1.0 and result is None and (not paused or step):
                try:
                    next_round = bridge.rounds.get_nowait()
                except queue.Empty:
                    next_round = None
                if next_round is not None:
                    step = False
                    if next_round.result is not None:
                        result = next_round.result
                        ended_at = time.monotonic()
                    else:
                        previous, current = current, next_round
                        if next_round.pacman_action is not None:
                            move += 1
                            if next_round.pacman_action is not Action.STOP:
                                facing = next_round.pacman_action
                            progress = 0.0 if previous is not None else 1.0
            elif progress < 1.0:
                progress = min(1.0, progress + 1.0 / self._frames_per_round())

            if current is not None:
                banner = None
                if result is not None:
                    banner = "You win!" if result.won else "Game over" if result.lost else result.outcome
                info = current.info
                if self.show_tree and current.decision is None and current.decided_in is not None:
                    current.decision = decision_for(self.agent, current.decided_in, info)
                surface = pygame.Surface(renderer.size)
                renderer.draw(
                    surface, current.state, previous=previous.state if previous is not None and progress < 1 else None,
                    fraction=progress, pacman_direction=facing, tick=tick, move=move,
                    values=getattr(info, "action_values", None) if self.show_values else None,
                    chosen=getattr(info, "action", None),
                    info=None if info is None else search_panel(self.agent, info),
                    banner=banner, decision=current.decision if self.show_tree else None,
                )
                _present(pygame, window, surface)
                if self.frame_sink is not None:
                    self.frame_sink(pygame.surfarray.array3d(surface).swapaxes(0, 1))
            tick += 1
            # Fast games show fewer in-between frames, not more frames than a screen can show.
            frame_rate = min(self.fps * self._frames_per_round(), _MAX_FRAME_RATE)
            if result is not None and not self.hold_at_end and time.monotonic() - ended_at > 1.0:
                thread.join(timeout=5)
                return result
            clock.tick(frame_rate)


def _frame_fits(layout: Any, cell: int, panel: bool, tree: bool) -> bool:
    """True if frames with these panels stay within the renderer's size limits (else a panel key does nothing)."""
    from pacman.view.renderer import MAX_FRAME_PIXELS, MAX_FRAME_SIDE, frame_size

    width, height = frame_size(layout, cell, panel, tree)
    return width * height <= MAX_FRAME_PIXELS and max(width, height) <= MAX_FRAME_SIDE


def _present(pygame: Any, window: Any, surface: Any) -> None:
    """Show a drawn frame, scaled to the window if the user resized it."""
    if window.get_size() != surface.get_size():
        window.blit(pygame.transform.smoothscale(surface, window.get_size()), (0, 0))
    else:
        window.blit(surface, (0, 0))
    pygame.display.flip()


def replay_rounds(steps: Any) -> list[tuple[GameState, Action]]:
    """Group a replay's (state, agent, action) steps into rounds: (state after the round, Pacman's action)."""
    rounds: list[tuple[GameState, Action]] = []
    facing = Action.EAST
    for state, agent, action in steps:
        if agent is None:
            rounds.append((state, facing))
            continue
        if agent == 0 and action is not Action.STOP:
            facing = action
        if agent == state.num_agents - 1 or state.is_terminal():
            rounds.append((state, facing))
    return rounds


class ReplayWindow:
    """A saved game in a window, at any speed, stepping back and forth.

    Keys: space play/pause, right and left arrows one round forward and back
    (pausing), Home and End the first and last round, + and - speed, t the tree
    panel, q or Esc quit.

    The tree panel shows the decision of each round's Pacman move, searched again
    from the state it was made in by `make_agent()` (the recorded agent, made
    when the panel is first shown; a string instead says why there is none).
    """

    def __init__(self, layout: Any, rounds: list[tuple[GameState, Action]], fps: float = 8.0,
                 zoom: float = 1.0, banner: str | None = None, hold_at_end: bool = True,
                 make_agent: Callable[[], Any] | None = None, show_tree: bool = False,
                 frame_sink: Callable[[Any], None] | None = None) -> None:
        from pacman.view.renderer import Renderer, cell_pixels

        self.layout = layout
        self.rounds = rounds
        self.fps = fps
        self.banner = banner
        self.hold_at_end = hold_at_end
        self.make_agent = make_agent
        self.show_tree = show_tree
        self.frame_sink = frame_sink
        self._cell = cell_pixels(zoom)
        self._renderers = {False: Renderer(layout, cell=self._cell)}
        self.position = 0
        self.frames_drawn = 0
        self._agent: Any = None
        self._decisions: dict[int, Any] = {}
        """Decisions shown, by round: the last few only (stepping back and forth reuses them)."""

    @property
    def renderer(self) -> Any:
        from pacman.view.renderer import Renderer

        if self.show_tree not in self._renderers:
            self._renderers[self.show_tree] = Renderer(self.layout, cell=self._cell, tree=self.show_tree)
        return self._renderers[self.show_tree]

    def decision(self, position: int) -> Any:
        """The decision of round `position`'s Pacman move (searched once, then kept while near), or why none."""
        if position == 0:
            return None
        if position not in self._decisions:
            if self._agent is None:
                self._agent = self.make_agent() if self.make_agent is not None else \
                    "no agent recorded: no tree to show"
            if isinstance(self._agent, str):
                found = self._agent
            else:
                state = self.rounds[position - 1][0]
                info = None
                if getattr(self._agent, "time_limit", None) is not None and not state.is_terminal():
                    self._agent.get_action(state)  # deepens under its time limit now: the depth it reaches
                    info = self._agent.last_search
                found = decision_for(self._agent, state, info)
            if len(self._decisions) >= 16:
                self._decisions.pop(next(iter(self._decisions)))
            self._decisions[position] = found
        return self._decisions[position]

    def run(self, keys: list[str] | None = None) -> int:
        """Show the replay until closed (or, without `hold_at_end`, until its end); returns the last round shown.

        `keys`, for tests, are key names fed in one per frame before the real events.
        """
        import pygame

        pygame.display.init()
        pygame.font.init()
        try:
            window = pygame.display.set_mode(self.renderer.size, pygame.RESIZABLE)
            pygame.display.set_caption("pacman-ai replay")
            clock = pygame.time.Clock()
            playing, progress, tick = True, 1.0, 0
            scripted = list(keys or [])
            last = len(self.rounds) - 1
            while True:
                names = [scripted.pop(0)] if scripted else []
                for event in pygame.event.get():
                    if event.type == pygame.QUIT:
                        return self.position
                    if event.type == pygame.VIDEORESIZE:
                        window = pygame.display.set_mode(event.size, pygame.RESIZABLE)
                    elif event.type == pygame.KEYDOWN:
                        names.append(pygame.key.name(event.key))
                for name in names:
                    if name in ("q", "escape"):
                        return self.position
                    if name == "space":
                        playing = not playing
                    elif name == "right":
                        playing, progress = False, 1.0
                        self.position = min(last, self.position + 1)
                    elif name == "left":
                        playing, progress = False, 1.0
                        self.position = max(0, self.position - 1)
                    elif name == "home":
                        playing, progress, self.position = False, 1.0, 0
                    elif name == "end":
                        playing, progress, self.position = False, 1.0, last
                    elif name in ("+", "=", "[+]"):
                        self.fps = min(self.fps * 1.5, max(self.fps, 120.0))
                    elif name in ("-", "[-]"):
                        self.fps = max(self.fps / 1.5, min(self.fps, 0.5))
                    elif name == "t" and _frame_fits(self.layout, self._cell, False, not self.show_tree):
                        self.show_tree = not self.show_tree
                        window = pygame.display.set_mode(self.renderer.size, pygame.RESIZABLE)
                in_between = max(1, min(4, int(_MAX_FRAME_RATE // self.fps)))
                if playing:
                    if progress >= 1.0 and self.position < last:
                        self.position += 1
                        progress = 0.0
                    elif progress < 1.0:
                        progress = min(1.0, progress + 1.0 / in_between)
                state, facing = self.rounds[self.position]
                previous = self.rounds[self.position - 1][0] if self.position > 0 and progress < 1.0 else None
                surface = pygame.Surface(self.renderer.size)
                self.renderer.draw(surface, state, previous=previous, fraction=progress, pacman_direction=facing,
                                   tick=tick, move=self.position,
                                   banner=self.banner if self.position == last else None,
                                   decision=self.decision(self.position) if self.show_tree else None)
                _present(pygame, window, surface)
                if self.frame_sink is not None:
                    self.frame_sink(pygame.surfarray.array3d(surface).swapaxes(0, 1))
                self.frames_drawn += 1
                tick += 1
                if not self.hold_at_end and not scripted and self.position == last and progress >= 1.0:
                    return self.position
                clock.tick(min(self.fps * in_between, _MAX_FRAME_RATE))
        finally:
            pygame.display.quit()
