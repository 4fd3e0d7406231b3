"""Live games in the browser (`play --display web`, `replay --display web`): a local web server streams
the game to a page as it is played.

The server is the standard library's `http.server.ThreadingHTTPServer`; the
game reaches the page as Server-Sent Events (one short JSON message per round),
and the page's controls come back as small POST requests. The page is the
`--html` player (`player.js`, `player.css`) in its live mode, plus `live.js`
(the connection). See docs/web.md for why, and for the measured figures.

Threads: the game runs on the caller's thread with a `LiveDisplay`; the server
runs on its own thread, one more per connected page. They meet in `_Hub`, under
one condition variable. Pausing in the page blocks the game loop inside the
display (the next round is not published, so the game does not go on); until a
page is connected the game waits, and when the last page closes it pauses until
one connects again.

Safe by default: the server binds 127.0.0.1 on a free port, every address
carries a random token (a request without it gets 403), and the page's Content
Security Policy is the `--html` page's plus ``connect-src 'self'`` (the stream
and the controls go to this server only; nothing is loaded from anywhere).
"""

from __future__ import annotations

import hmac
import html
import json
import math
import queue
import secrets
import sys
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable
from urllib.parse import urlsplit

from pacman.actions import Action
from pacman.errors import PacmanError
from pacman.game import GameResult
from pacman.resources import palette
from pacman.state import GameState
from pacman.view.web import _asset, _number, agent_description

__all__ = ["LiveServer", "LiveDisplay", "LiveStopped", "LiveServerError", "live_page", "LIVE_CSP",
           "DEFAULT_HOST", "CLIENT_QUEUE", "warn_public"]

DEFAULT_HOST = "127.0.0.1"
"""Where the server listens unless told otherwise: this machine only."""

LIVE_CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'")
"""The live page's Content Security Policy: the `--html` page's, plus requests to this server (the stream and
the controls); nothing is loaded from anywhere."""

CLIENT_QUEUE = 2048
"""Messages waiting for one page at most; a page that falls this far behind is disconnected (its browser
reconnects at once and starts again from the current state), so the server's memory stays flat."""

_KEEPALIVE = 15.0
"""Seconds between comment lines on an idle stream (proxies close silent connections)."""

_END_HOLD = 1.0
"""Seconds the end of a game stays up before the next game of --games N starts."""

_DRAIN = 3.0
"""Seconds, at the very end, the server waits for connected pages to receive the last messages."""

_KEYS = {"North": Action.NORTH, "South": Action.SOUTH, "East": Action.EAST, "West": Action.WEST}
_DIRECTIONS = tuple(Action)
_MIN_FPS, _MAX_FPS = 0.1, 1000.0


class LiveStopped(Exception):
    """Raised on the game's thread when the server stops (Ctrl-C, or the server closed) during a game."""


class LiveServerError(PacmanError):
    """The live server cannot start (the port is taken, the host is not an address of this machine)."""


class _Hub:
    """What the game thread and the request threads share, under one condition variable."""

    def __init__(self, fps: float, games: int) -> None:
        self.cond = threading.Condition()
        self.fps = fps
        self.paused = False
        self.steps = 0
        self.stopped = False
        self.clients: list[queue.Queue[bytes | None]] = []
        self.ever_connected = False
        self.tree = False
        """A page asked for the tree panel: the display searches each decision again and sends its picture."""
        self.display: LiveDisplay | None = None
        self.games = games
        self.tally = {"played": 0, "won": 0, "lost": 0, "total": 0, "games": games}
        self.moves = 0
        """Pacman moves published in the current game: the server's move counter."""
        self.rounds = 0
        """Rounds published over the whole run."""
        self.stream_bytes = 0
        """Bytes of round messages sent to the pages (each page counted once)."""
        self.round_messages = 0

    # -- publishing (game thread) ----------------------------------------------------------------

    def publish(self, event: str, data: dict[str, Any]) -> int:
        """Send one message to every connected page; returns its size in bytes."""
        message = _message(event, data)
        with self.cond:
            for client in list(self.clients):
                try:
                    client.put_nowait(message)
                except queue.Full:  # far behind: drop it, its browser reconnects from the current state
                    self.clients.remove(client)
                    _close_queue(client)
            if event == "round":
                self.rounds += 1
                self.round_messages += 1
                self.stream_bytes += len(message)
        return len(message)

    def control_message(self) -> dict[str, Any]:
        return {"paused": self.paused, "fps": self.fps, "tree": self.tree, "pages": len(self.clients)}

    # -- the game's pace (game thread) ---------------------------------------------------------------

    def wait_turn(self, last: float) -> None:
        """Block until the next round may be published: a page is connected, the game is not paused (or a step
        was asked for), and 1/fps seconds have passed since `last`. Raises LiveStopped when the server stops."""
        with self.cond:
            while True:
                if self.stopped:
                    raise LiveStopped()
                if not self.clients or (self.paused and self.steps == 0):
                    self.cond.wait(0.5)
                    continue
                remaining = last + 1.0 / self.fps - time.monotonic()
                if remaining > 0 and not self.paused:
                    self.cond.wait(remaining)
                    continue
                if self.paused:
                    self.steps -= 1
                return

    # -- the page's requests (request threads) ------------------------------------------------------

    def command(self, body: dict[str, Any]) -> dict[str, Any]:
        """Apply one control from the page; returns the controls' state. Raises ValueError on a bad one."""
        name = body.get("command")
        with self.cond:
            if name == "pause":
                self.paused = True
            elif name == "resume":
                self.paused, self.steps = False, 0
            elif name == "step":
                self.paused = True
                self.steps = min(self.steps + 1, 1000)
            elif name == "speed":
                fps = body.get("fps")
                if not isinstance(fps, (int, float)) or isinstance(fps, bool) or not math.isfinite(fps):
                    raise ValueError("speed needs a number fps")
                self.fps = min(_MAX_FPS, max(_MIN_FPS, float(fps)))
            elif name == "tree":
                self.tree = bool(body.get("on"))
            elif name == "key":
                action = _KEYS.get(body.get("key"))  # type: ignore[arg-type]
                if action is None:
                    raise ValueError(f"key must be one of {', '.join(_KEYS)}")
                display = self.display
                agent = getattr(display, "agent", None)
                if agent is None or not hasattr(agent, "press"):
                    raise ValueError("Pacman is not steered from the keyboard in this game")
                agent.press(action)
            else:
                raise ValueError(f"unknown command {name!r}")
            self.cond.notify_all()
            state = self.control_message()
        if name != "key":
            self.publish("control", state)
        return state

    def connect(self) -> queue.Queue[bytes | None]:
        client: queue.Queue[bytes | None] = queue.Queue(maxsize=CLIENT_QUEUE)
        with self.cond:
            display = self.display
            hello = display.snapshot() if display is not None else None
            if hello is not None:
                client.put_nowait(_message("game", hello))
            client.put_nowait(_message("control", self.control_message()))
            self.clients.append(client)
            self.ever_connected = True
            self.cond.notify_all()
        return client

    def disconnect(self, client: queue.Queue[bytes | None]) -> None:
        with self.cond:
            if client in self.clients:
                self.clients.remove(client)
            self.cond.notify_all()

    def status(self) -> dict[str, Any]:
        with self.cond:
            return {**self.control_message(), "move": self.moves, "rounds": self.rounds,
                    "game": self.display.game if self.display is not None else None, "tally": dict(self.tally),
                    "stream_bytes": self.stream_bytes, "round_messages": self.round_messages,
                    "stopped": self.stopped}


def _close_queue(client: queue.Queue[bytes | None]) -> None:
    """Tell a page's stream to end now: what it had not sent yet is dropped."""
    with client.mutex:
        client.queue.clear()
    client.put_nowait(None)


def _message(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'), allow_nan=False)}\n\n".encode()


def live_page(title: str = "pacman-ai live") -> str:
    """The live page: the player and its style inline, and the script that connects to the stream.

    The stream and the controls are addressed relative to the page (``events``, ``control`` beside
    ``/TOKEN/``), so the page also works behind a proxy that adds a prefix (jupyter-server-proxy)."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en" data-status="connecting">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{LIVE_CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="generator" content="pacman-ai">\n<title>{html.escape(title)}</title>\n'
        f"<style>\nhtml, body {{ margin: 0; background: #0b0b14; }}\n{_asset('player.css')}</style>\n"
        "</head>\n<body>\n"
        "<noscript>This page shows a pacman-ai game as it is played; it needs JavaScript.</noscript>\n"
        '<div class="pacman-ai" id="pacman-ai-game"><p class="pa-dim">connecting to the game...</p></div>\n'
        "<script>\n"
        "window.onerror = function (message) {\n"
        '  document.documentElement.setAttribute("data-status", "error: " + message);\n'
        "};\n"
        f"{_asset('player.js')}\n{_asset('live.js')}\n"
        f'PacmanLive.connect(document.getElementById("pacman-ai-game"), "./",\n'
        "  {keys: document, statusOn: document.documentElement});\n"
        "</script>\n</body>\n</html>\n"
    )


class LiveDisplay:
    """The `Display` of one live game: it publishes each round to the pages and sets the game's pace.

    `search_of(move)` gives what Pacman's search found at his move number `move`
    (a `MoveSearch` or None); by default it is read from the agent's `last_search`.
    """

    def __init__(self, hub: _Hub, layout: Any, agent: Any = None, game: int = 0, agents: dict[str, Any] | None = None,
                 seed: int | None = None, search_of: Callable[[int], Any] | None = None) -> None:
        self.hub = hub
        self.layout = layout
        self.agent = agent
        self.game = game
        self.agents = dict(agents or {})
        self.seed = seed
        self.search_of = search_of
        if agent is not None and hasattr(agent, "explain"):
            agent.explain = True  # the values panel shows every action's value
        self.keyboard = hasattr(agent, "press")
        self._state: GameState | None = None
        self._before: GameState | None = None
        """The state Pacman's last decision was made in (for the tree panel)."""
        self._decided_in: GameState | None = None
        self._facing = Action.EAST
        self._move = 0
        self._search: dict[str, Any] | None = None
        self._pending_search: dict[str, Any] | None = None
        self._result: dict[str, Any] | None = None
        self._last = 0.0

    # -- what a page that connects now is sent ---------------------------------------------------

    def snapshot(self) -> dict[str, Any] | None:
        """The game as it stands (called under the hub's lock): the board, what is left on it, the last round."""
        state = self._state
        if state is None:
            return None
        layout = self.layout
        walls = ["".join("%" if (x, y) in layout.walls else " " for x in range(layout.width))
                 for y in range(layout.height - 1, -1, -1)]
        return {
            "layout": {"name": layout.name, "width": layout.width, "height": layout.height, "walls": walls},
            "palette": palette(), "food": sorted(state.food), "capsules": sorted(state.capsules),
            "numGhosts": state.num_agents - 1, "round": self._entry(state), "search": self._search,
            "agents": self.agents, "agent": agent_description(self.agents), "seed": self.seed,
            "game": self.game, "games": self.hub.games, "keyboard": self.keyboard, "tally": dict(self.hub.tally),
            "result": self._result,
        }

    def _entry(self, state: GameState) -> list[Any]:
        entry: list[Any] = [self._move, *state.pacman_position, _DIRECTIONS.index(self._facing), state.score]
        for (x, y), direction, timer in zip(state.ghost_positions, state.ghost_directions, state.scared_timers):
            entry += [_number(x), _number(y), _DIRECTIONS.index(direction), timer]
        return entry

    # -- the Display protocol (game thread) -------------------------------------------------------

    def start(self, state: GameState) -> None:
        hub = self.hub
        with hub.cond:
            self._state = self._before = state
            self._move, self._facing, self._search, self._result = 0, Action.EAST, None, None
            hub.display = self
            hub.moves = 0
            hello = self.snapshot()
            assert hello is not None
        hub.publish("game", hello)
        self._last = time.monotonic() - 1.0 / hub.fps
        with hub.cond:  # a game starts when a page is there to see it
            while not hub.clients:
                if hub.stopped:
                    raise LiveStopped()
                hub.cond.wait(0.5)

    def update(self, state: GameState, agent: int, action: Action) -> None:
        if self.hub.stopped:
            raise LiveStopped()
        if agent == 0:
            self._move += 1
            if action is not Action.STOP:
                self._facing = Action(action)
            self._decided_in = self._before
            self._pending_search = self._found(Action(action))
        if agent == state.num_agents - 1 or state.is_terminal():
            self._before = state
            self._publish_round(state)

    def _found(self, action: Action) -> dict[str, Any] | None:
        from pacman.replay import MoveSearch

        if self.search_of is not None:
            found = self.search_of(self._move)
        else:
            found = MoveSearch.from_search(getattr(self.agent, "last_search", None))
        if found is None or found.action is not action:
            return None
        return found.to_json()

    def _publish_round(self, state: GameState) -> None:
        hub = self.hub
        previous = self._state
        hub.wait_turn(self._last)
        eaten: list[list[int]] = []
        if previous is not None:
            eaten = [list(p) for p in sorted(previous.food - state.food)]
            eaten += [list(p) for p in sorted(set(previous.capsules) - set(state.capsules))]
        message: dict[str, Any] = {"r": self._entry(state)}
        if eaten:
            message["e"] = eaten
        search = self._pending_search
        if search is not None:
            message["s"] = search
        if hub.tree and self.search_of is None and self.agent is not None:
            message["t"] = self._tree_picture()
        with hub.cond:
            self._state = state
            self._search = search
            hub.moves = self._move
        hub.publish("round", message)
        self._last = time.monotonic()

    def _tree_picture(self) -> str:
        """The top of the decision just made as an SVG document, or a sentence saying why there is none."""
        from pacman.draw.layout import lay_out
        from pacman.draw.svg import figure_svg
        from pacman.draw.trees import decision_top
        from pacman.view.renderer import decision_for

        decision = decision_for(self.agent, self._decided_in, getattr(self.agent, "last_search", None))
        if decision is None:
            return "waiting for Pacman's first move"
        if isinstance(decision, str):
            return decision
        figure = lay_out(decision_top(decision), max_width=100_000, max_height=100_000)
        return figure_svg(figure)

    def finish(self, state: GameState, result: GameResult | dict[str, Any]) -> None:
        record = result.to_dict() if isinstance(result, GameResult) else dict(result)
        hub = self.hub
        shown = {"score": state.score, "won": state.is_win(), "lost": state.is_lose(),
                 "outcome": record.get("outcome") or _outcome(record), "moves": self._move,
                 "seed": record.get("seed", self.seed), "error": record.get("error"),
                 "error_frames": list(record.get("error_frames") or ()), "error_hint": record.get("error_hint")}
        with hub.cond:
            self._state = state
            self._result = shown
            tally = hub.tally
            tally["played"] += 1
            tally["won"] += bool(shown["won"])
            tally["lost"] += bool(shown["lost"])
            tally["total"] += int(state.score)
            last = tally["played"] == hub.games
        hub.publish("end", {"result": shown, "tally": dict(hub.tally), "last": last})


def _outcome(record: dict[str, Any]) -> str:
    for name, key in (("won", "won"), ("lost", "lost"), ("cut-off", "cut_off"), ("crashed", "crashed"),
                      ("timed-out", "timed_out")):
        if record.get(key):
            return name
    return "unfinished"


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    server_version = "pacman-ai"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        """Quiet: the terminal shows the game's lines, not one per request."""

    def _route(self) -> str | None:
        """The path after the token, or None (and a 403 already sent) when the token is missing or wrong."""
        path = urlsplit(self.path).path
        token = self.server.token
        parts = path.split("/", 2)
        given = parts[1] if len(parts) > 1 else ""
        if not hmac.compare_digest(given.encode(), token.encode()):
            self._send(HTTPStatus.FORBIDDEN, b"403 forbidden: this address needs the token the server printed\n",
                       "text/plain; charset=utf-8")
            return None
        return parts[2] if len(parts) > 2 else ""

    def _send(self, status: HTTPStatus, body: bytes, kind: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        route = self._route()
        if route is None:
            return
        if route == "":
            if not urlsplit(self.path).path.endswith("/"):  # /TOKEN: relative addresses need /TOKEN/
                self._send(HTTPStatus.MOVED_PERMANENTLY, b"", "text/plain", {"Location": self.server.token + "/"})
                return
            page = live_page(self.server.title).encode()
            self._send(HTTPStatus.OK, page, "text/html; charset=utf-8", {"Content-Security-Policy": LIVE_CSP})
        elif route == "events":
            self._stream()
        elif route == "state":
            self._send(HTTPStatus.OK, json.dumps(self.server.hub.status()).encode(), "application/json")
        else:
            self._send(HTTPStatus.NOT_FOUND, b"404 not found\n", "text/plain; charset=utf-8")

    do_HEAD = do_GET

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        route = self._route()
        if route is None:
            return
        if route != "control":
            self._send(HTTPStatus.NOT_FOUND, b"404 not found\n", "text/plain; charset=utf-8")
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
            if not 0 < length <= 4096:
                raise ValueError("expected a JSON body of at most 4096 bytes")
            body = json.loads(self.rfile.read(length))
            if not isinstance(body, dict):
                raise ValueError("expected a JSON object")
            state = self.server.hub.command(body)
        except (ValueError, UnicodeDecodeError) as exc:
            self._send(HTTPStatus.BAD_REQUEST, json.dumps({"error": str(exc)}).encode(), "application/json")
            return
        self._send(HTTPStatus.OK, json.dumps(state).encode(), "application/json")

    def _stream(self) -> None:
        hub = self.server.hub
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        client = hub.connect()
        try:
            self.wfile.write(b"retry: 1000\n\n")
            self.wfile.flush()
            while True:
                try:
                    message = client.get(timeout=_KEEPALIVE)
                except queue.Empty:
                    message = b": keep-alive\n\n"
                if message is None:  # the server stops, or this page fell too far behind
                    break
                self.wfile.write(message)
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError):
            pass
        finally:
            hub.disconnect(client)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    hub: _Hub
    token: str
    title: str


class LiveServer:
    """The live view's web server: `start()` (or ``with``) listens and prints nothing; `url` is the page's address.

    `display(layout, agent, game, agents, seed)` makes the `LiveDisplay` of one
    game. `close()` lets connected pages receive the last messages (a few
    seconds at most), then stops every connection and the server.
    """

    def __init__(self, host: str = DEFAULT_HOST, port: int = 0, fps: float = 8.0, games: int = 1,
                 title: str = "pacman-ai live") -> None:
        self.hub = _Hub(fps, games)
        self.host = host
        try:
            self._server = _Server((host, port), _Handler)
        except OSError as exc:
            raise LiveServerError(f"cannot listen on {host}:{port} ({exc.strerror or exc})") from None
        self._server.hub = self.hub
        self._server.token = secrets.token_urlsafe(18)
        self._server.title = title
        self._thread: threading.Thread | None = None

    @property
    def token(self) -> str:
        return self._server.token

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """The page's address, token included."""
        host = self.host
        if host in ("0.0.0.0", ""):
            host = "127.0.0.1"
        elif host == "::":
            host = "[::1]"
        elif ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/{self.token}/"

    def start(self) -> LiveServer:
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.2},
                                        name="pacman-live-server", daemon=True)
        self._thread.start()
        return self

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close(drain=exc[0] is None)

    def display(self, layout: Any, agent: Any = None, game: int = 0, agents: dict[str, Any] | None = None,
                seed: int | None = None, search_of: Callable[[int], Any] | None = None) -> LiveDisplay:
        return LiveDisplay(self.hub, layout, agent, game=game, agents=agents, seed=seed, search_of=search_of)

    def hold(self, seconds: float = _END_HOLD) -> None:
        """Keep the end of a game up for `seconds` (longer while paused) before the next game starts."""
        hub = self.hub
        deadline = time.monotonic() + seconds
        with hub.cond:
            while not hub.stopped and (time.monotonic() < deadline or hub.paused):
                hub.cond.wait(0.1)

    def close(self, drain: bool = True) -> None:
        """Stop: with `drain`, first let connected pages receive what was sent (at most a few seconds)."""
        hub = self.hub
        if drain:
            deadline = time.monotonic() + _DRAIN
            while time.monotonic() < deadline:
                with hub.cond:
                    if all(client.empty() for client in hub.clients):
                        break
                time.sleep(0.05)
            time.sleep(0.1)  # the last write leaves the socket
        with hub.cond:
            hub.stopped = True
            for client in hub.clients:
                _close_queue(client)
            hub.cond.notify_all()
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=5)
        self._server.server_close()


def warn_public(host: str, stream: Any = None) -> None:
    """The warning printed when the server listens on more than this machine."""
    print(f"pacman-ai: warning: --host {host}: the live view is reachable from other machines; anyone with the "
          f"address (it carries the token) can watch and control the game", file=stream or sys.stderr)
