"""The live web view: `pacman-ai play --display web` (and `replay --display web`) run as a user runs them, a
subprocess printing an address, and a headless Chromium opened on it (skipped without Chromium unless
PACMAN_AI_REQUIRE_CHROMIUM is set).

The page must connect, show the moves as they are played, pause and step the game loop itself (the
server's move counter), steer Pacman with the arrow keys, show the game's own final score, refuse every
request without the token, and the server must exit at the end of the games or on SIGINT, leaving nothing
behind.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from headless_browser import Browser, chromium_or_skip

ROOT = Path(__file__).resolve().parent.parent
ADDRESS = re.compile(r"the game is at (http://\S+/)")


class Served:
    """`pacman-ai ARGS --display web` in a subprocess: its address, its output, its server's /state."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
        env.pop("DISPLAY", None)
        env.pop("WAYLAND_DISPLAY", None)
        self.process = subprocess.Popen([sys.executable, "-m", "pacman", *args, "--display", "web"], cwd=cwd,
                                        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
        self.err: list[str] = []
        self.out: list[str] = []
        found = threading.Event()

        def read(stream, lines):
            for line in stream:
                lines.append(line)
                if ADDRESS.search(line):
                    found.set()

        for stream, lines in ((self.process.stderr, self.err), (self.process.stdout, self.out)):
            threading.Thread(target=read, args=(stream, lines), daemon=True).start()
        assert found.wait(30), f"no address printed: {self.err}"
        self.url = ADDRESS.search("".join(self.err)).group(1)
        self.origin = self.url.split("/", 3)[:3]
        self.port = int(self.url.split(":")[2].split("/")[0])

    def state(self) -> dict:
        with urllib.request.urlopen(self.url + "state", timeout=5) as answer:
            return json.load(answer)

    def wait(self, timeout: float = 30) -> int:
        code = self.process.wait(timeout=timeout)
        time.sleep(0.1)  # the reader threads take the last lines
        return code

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def _closed(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return True
    return False


@pytest.fixture(scope="module")
def browser():
    found = chromium_or_skip()
    opened = Browser(found, timeout=30)
    yield opened
    opened.close()


@pytest.fixture
def serve(tmp_path):
    started = []

    def start(*args: str) -> Served:
        served = Served(list(args), tmp_path)
        started.append(served)
        return served

    yield start
    for served in started:
        served.kill()


STATE = "document.getElementById('pacman-ai-game').pacmanAI ? document.getElementById('pacman-ai-game').pacmanAI.state() : null"


def _page_state(browser):
    return browser.evaluate(STATE)


def test_the_page_shows_the_games_as_they_are_played_and_their_own_results(browser, serve):
    served = serve("play", "--layout", "small", "--seed", "5", "--fps", "25", "--max-moves", "40", "--games", "2",
                   "--json")
    assert served.state()["move"] == 0  # the game waits for a page
    browser.open(served.url)
    first = browser.wait_until(STATE, lambda s: s is not None and s["live"] and s["move"] >= 2)
    canvas = "document.getElementById('pacman-ai-game').pacmanAI.canvasHash()"
    hash_before = browser.evaluate(canvas)
    later = browser.wait_until(STATE, lambda s: s["move"] >= first["move"] + 3)
    # the page keeps up: never ahead of the server, and behind it by less than half a second of play at 25 moves
    # a second (a page that polled, or fell further behind with every move, would be seconds behind by now)
    behind = served.state()["move"] - later["move"]
    assert 0 <= behind < 25 / 2
    # the board is drawn again as moves arrive (on the browser's next frame, which a loaded machine delays)
    browser.wait_until(canvas, lambda h: h != hash_before)
    assert served.wait(60) == 0
    results = [json.loads(line) for line in served.out if line.startswith("{")]
    assert [r["game"] for r in results] == [0, 1]
    shown = browser.wait_until(STATE, lambda s: s["finished"] and s["status"] == "done")
    last = results[-1]
    assert shown["score"] == last["score"] and shown["outcome"] == last["outcome"]
    assert browser.evaluate("document.getElementById('pacman-ai-game').getAttribute('data-score')") == str(last["score"])
    tally = json.loads(browser.evaluate("document.getElementById('pacman-ai-game').getAttribute('data-tally')"))
    assert tally == {"played": 2, "won": sum(r["won"] for r in results), "lost": sum(r["lost"] for r in results),
                     "total": sum(r["score"] for r in results), "games": 2}
    assert browser.evaluate("document.querySelector('.pa-tally').textContent").startswith("Game 2 of 2")
    assert browser.errors() == []
    origin = "/".join(served.origin)
    assert browser.requests() and all(url.startswith(origin + "/") for url in browser.requests())
    assert _closed(served.port)


def test_pause_stops_the_game_loop_and_step_plays_one_round(browser, serve):
    served = serve("play", "--layout", "small", "--seed", "2", "--fps", "15", "--agent-args", "depth=1")
    browser.open(served.url)
    browser.wait_until(STATE, lambda s: s is not None and s["move"] >= 3)
    browser.evaluate("document.body.focus()")
    browser.press(" ")
    browser.wait_until(STATE, lambda s: s["status"] == "paused")
    time.sleep(0.3)
    held = served.state()
    assert held["paused"] is True
    time.sleep(1.0)
    assert served.state()["move"] == held["move"]  # the game loop itself stopped, not only the drawing
    browser.press("ArrowRight")  # one round
    stepped = browser.wait_until(STATE, lambda s: s["move"] == held["move"] + 1)
    time.sleep(0.6)
    assert served.state()["move"] == held["move"] + 1 and stepped["status"] == "paused"
    browser.press(" ")
    browser.wait_until(STATE, lambda s: s["move"] >= held["move"] + 4)
    # closing the page pauses the game until a page connects again
    browser.open("about:blank")
    deadline = time.monotonic() + 10
    while served.state()["pages"] and time.monotonic() < deadline:
        time.sleep(0.05)
    away = served.state()["move"]
    time.sleep(0.8)
    assert served.state()["move"] in (away, away + 1)
    served.process.send_signal(signal.SIGINT)
    assert served.wait(15) == 130
    assert "interrupted" in "".join(served.err)
    assert _closed(served.port)


def test_arrow_keys_steer_pacman_in_keyboard_play_and_sigint_ends_it(browser, serve):
    served = serve("play", "--layout", "small", "--seed", "1", "--pacman", "keyboard", "--fps", "10",
                   "--num-ghosts", "0")
    browser.open(served.url)
    start = browser.wait_until(STATE, lambda s: s is not None and s["move"] >= 1)
    assert start["pacman"] == [9, 1]  # small's Pacman; Stop until a key is pressed
    browser.evaluate("document.body.focus()")
    browser.press("ArrowLeft")
    browser.wait_until(STATE, lambda s: s["pacman"][0] <= 7)
    browser.press("ArrowRight")
    west = _page_state(browser)["pacman"][0]
    browser.wait_until(STATE, lambda s: s["pacman"][0] >= west + 2)
    assert browser.errors() == []
    served.process.send_signal(signal.SIGINT)
    assert served.wait(15) == 130
    assert _closed(served.port)


def test_every_request_without_the_token_is_refused(serve):
    served = serve("play", "--layout", "small", "--seed", "1", "--max-moves", "5")
    base = "/".join(served.origin)
    token = served.url.rstrip("/").rsplit("/", 1)[1]
    for path in ("/", "/events", "/state", "/favicon.ico", "/x" + token + "/", "/" + token[:-1] + "/events"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(base + path, timeout=5)
        assert refused.value.code == 403, path
    post = urllib.request.Request(base + "/control", data=b'{"command": "pause"}', method="POST")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(post, timeout=5)
    assert refused.value.code == 403
    assert served.state()["paused"] is False
    # with the token: the page, with the --html page's policy plus this server for the stream
    with urllib.request.urlopen(served.url, timeout=5) as answer:
        policy = answer.headers["Content-Security-Policy"]
        page = answer.read().decode()
    assert policy == "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'"
    assert f'content="{policy}"' in page
    assert not re.search(r"https?://|//[a-z]", page.replace("http://www.w3.org", ""))
    bad = urllib.request.Request(served.url + "control", data=b'{"command": "jump"}', method="POST")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(bad, timeout=5)
    assert refused.value.code == 400 and b"unknown command 'jump'" in refused.value.read()
    served.process.send_signal(signal.SIGINT)
    assert served.wait(15) == 130


def test_replay_plays_live_with_the_recorded_score(browser, serve, tmp_path):
    saved = tmp_path / "game.json"
    subprocess.run([sys.executable, "-m", "pacman", "play", "--layout", "small", "--seed", "4", "--max-moves", "30",
                    "--display", "none", "--save", str(saved)], check=True, cwd=tmp_path, capture_output=True)
    recorded = json.loads(saved.read_text())
    served = serve("replay", str(saved), "--fps", "60")
    browser.open(served.url)
    shown = browser.wait_until(STATE, lambda s: s is not None and s["finished"])
    assert served.wait(30) == 0
    assert shown["score"] == recorded["result"]["score"]
    assert shown["move"] == recorded["result"]["moves"]
    assert browser.evaluate("document.querySelector('.pa-values tbody tr') !== null")  # the recorded search


def test_usage_errors(tmp_path):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "pacman", *args], cwd=tmp_path, capture_output=True,
                              text=True, timeout=60)

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        busy = run("play", "--layout", "small", "--display", "web", "--port", str(taken.getsockname()[1]))
    finally:
        taken.close()
    assert busy.returncode == 2 and "Traceback" not in busy.stderr
    assert busy.stderr.startswith("pacman-ai: pacman-ai play: --display web: cannot listen on 127.0.0.1:") or \
        "cannot listen on 127.0.0.1" in busy.stderr
    port = run("play", "--display", "web", "--port", "70000")
    assert port.returncode == 2 and "expected a port number from 0 (any free port) to 65535, got '70000'" in \
        port.stderr
    keyboard = run("play", "--pacman", "keyboard", "--display", "text")
    assert keyboard.returncode == 2 and "(--display web)" in keyboard.stderr


def test_a_public_host_is_only_used_when_asked_and_warns(serve):
    served = serve("play", "--layout", "small", "--max-moves", "3", "--host", "0.0.0.0")
    assert "warning: --host 0.0.0.0: the live view is reachable from other machines" in "".join(served.err)
    assert served.url.startswith("http://127.0.0.1:")
    served.process.send_signal(signal.SIGINT)
    assert served.wait(15) == 130


@pytest.mark.slow
def test_the_page_keeps_up_at_60_fps_on_large_and_the_stream_is_small(browser, serve, capsys):
    """The measurement docs/web.md quotes: over a 60 s game at --fps 60 on `large` (3,600 moves: a random
    Pacman without ghosts never finishes the food sooner), the page's move counter stays within one move of
    the server's, and a round costs the stream under 1 kB on average."""
    served = serve("play", "--layout", "large", "--seed", "1", "--fps", "60", "--pacman", "random",
                   "--num-ghosts", "0", "--max-moves", "3600", "--json")
    browser.open(served.url)
    browser.wait_until(STATE, lambda s: s is not None and s["move"] >= 1)
    gaps, server = [], {}
    while served.process.poll() is None:
        try:
            server = served.state()
            page = _page_state(browser)
        except (OSError, urllib.error.URLError):
            break
        if server["tally"]["played"]:
            break
        gaps.append(server["move"] - page["move"])
        time.sleep(0.1)
    assert served.wait(120) == 0
    result = json.loads(served.out[-1])
    per_round = server["stream_bytes"] / server["round_messages"]
    with capsys.disabled():
        print(f"\nlive view, large, --fps 60: {result['moves']} moves, {len(gaps)} samples, page behind the server "
              f"by at most {max(gaps)} move(s) (median {sorted(gaps)[len(gaps) // 2]}), {per_round:.0f} bytes per "
              f"round over {server['round_messages']} rounds")
    assert result["moves"] == 3600 and len(gaps) > 300 and max(gaps) <= 1
    assert per_round < 1000


def test_the_notebook_one_liner_shows_the_live_page_in_an_iframe(tmp_path):
    script = tmp_path / "cell.py"
    script.write_text(
        "from pacman.view.notebook import live\n"
        "game = live('--layout', 'small', '--max-moves', '3')\n"
        "import urllib.request\n"
        "print(game._repr_html_())\n"
        "print(urllib.request.urlopen(game.url, timeout=5).status)\n"
        "print(game.stop())\n"
        "proxied = live('--layout', 'small', proxy='/proxy/{port}/')\n"
        "print(proxied.src)\n"
        "proxied.stop()\n")
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    env.pop("DISPLAY", None)
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=90,
                          env=env)
    assert done.returncode == 0, done.stderr
    frame, status, code, proxied = done.stdout.splitlines()
    url = re.search(r'src="(http://127\.0\.0\.1:\d+/[\w-]+/)"', frame).group(1)
    assert frame.startswith("<iframe ") and 'height="640"' in frame
    assert status == "200" and code == "130"
    assert re.fullmatch(r"/proxy/\d+/[\w-]+/", proxied) and url not in proxied


def test_a_crash_in_the_users_file_is_shown_where_it_was_in_the_live_page(browser, serve, tmp_path):
    # A student's evaluation that crashes after a few moves, watched live.
    (tmp_path / "late.py").write_text("def f(state):\n    if state.score > 30:\n        state.pacman_position()\n"
                                      "    return state.score\n")
    served = serve("play", "--layout", "small", "--seed", "5", "--fps", "25", "--max-moves", "200",
                   "--agent-args", "evaluation=late.py:f")
    browser.open(served.url)
    browser.wait_until(STATE, lambda s: s is not None and s["finished"])
    shown = browser.wait_until("document.querySelector('.pa-error') && document.querySelector('.pa-error').textContent",
                               lambda text: bool(text))
    assert shown.splitlines()[0] == "late.py:3 in f: state.pacman_position()"
    assert shown.splitlines()[1].startswith("hint: GameState.pacman_position is a property")
    assert served.wait(60) == 4
    assert browser.errors() == []
