"""Games as web pages: `replay --html` and `play --html` write one self-contained page that plays the game.

The page is checked statically (no network request of any kind, size grows with
moves) and, where the system has Chromium, in a real headless browser driven
over the DevTools protocol: it loads without errors, playing changes the canvas,
the keys and the scrubber work, and it ends on the recorded score.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pacman.agents import ExpectimaxAgent, make_ghosts
from pacman.agents.expectimax import NEAR_GHOST_NODES
from pacman import load_layout, run_game
from pacman.replay import SearchLog, load_replay, save_replay
from pacman.view.web import game_data, game_fragment, game_page, replay_of, write_game_page

from headless_browser import Browser, chromium_or_skip

OLD_REPLAY = Path(__file__).parent / "replays" / "v1_small.json"


def _played(layout_name: str = "small", seed: int = 7, max_moves: int = 60, ghosts: int = 2, depth: int = 1,
            evaluation: str = "better"):
    layout = load_layout(layout_name)
    agent = ExpectimaxAgent(depth=depth, evaluation=evaluation)
    log = SearchLog(agent)
    result = run_game(layout, agent, make_ghosts("random", ghosts), seed=seed, max_moves=max_moves, display=log)
    agents = {"pacman": "expectimax", "agent_args": {"depth": depth, "evaluation": evaluation}, "ghosts": "random"}
    return layout, result, agents, log.moves


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    """A recorded game with its search, saved as a replay file and as a page."""
    folder = tmp_path_factory.mktemp("html")
    layout, result, agents, search = _played()
    saved = folder / "game.json"
    save_replay(saved, layout, result, agents, search=search)
    replay = load_replay(saved)
    page = folder / "game.html"
    write_game_page(page, replay)
    return replay, result, page


def _embedded(page_text: str) -> dict:
    """The game data the page carries."""
    match = re.search(r'<script type="application/json" id="pacman-ai-data">(.*?)</script>', page_text, re.S)
    assert match, "no game data in the page"
    return json.loads(match.group(1))


# -- the file, statically ------------------------------------------------------------------------

def _network_uses(text: str) -> list[str]:
    """Everything in `text` that could make a browser fetch something."""
    patterns = [
        r"https?:", r"wss?:", r"ftp:",
        r"""\b(?:src|href|action|poster|srcset|formaction|background)\s*=""",  # any attribute that loads
        r"""url\s*\(""", r"@import", r"<\s*(?:link|iframe|img|object|embed|audio|video|source|base|frame)\b",
        r"<\s*script[^>]*\bsrc\b", r"\bfetch\s*\(", r"XMLHttpRequest", r"\bimport\s*\(", r"importScripts",
        r"WebSocket", r"EventSource", r"sendBeacon", r"new\s+Image\b", r"""["'(=]\s*//[^\s*/]""",
    ]
    return [m.group(0) for p in patterns for m in re.finditer(p, text, re.I)]


def test_the_page_makes_no_network_request(game):
    _, _, page = game
    text = page.read_text(encoding="utf-8")
    assert _network_uses(text) == []
    # and the browser is told to refuse any request anyway
    assert "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; " in text
    fragment = game_fragment(game[0])
    assert _network_uses(fragment) == []


def test_the_network_check_would_see_a_request():
    for bad in ('<script src="x.js"></script>', '<link rel="stylesheet" href="a.css">', "background: url(a.png)",
                'fetch("data.json")', 's = "//cdn.example.org/lib.js"', '<img src="data:,">', "@import 'a.css';"):
        assert _network_uses(bad), bad


def test_the_page_holds_the_engine_s_rounds(game):
    replay, result, page = game
    data = _embedded(page.read_text(encoding="utf-8"))
    assert data == json.loads(json.dumps(game_data(replay)))
    final = replay.final_state()
    rounds = data["rounds"]
    assert rounds[0][:5] == [0, *replay.layout.pacman_start, 2, 0]  # move 0, Pacman's start, facing East, score 0
    assert rounds[-1][0] == result.moves and rounds[-1][4] == result.score == data["result"]["score"]
    assert [r[0] for r in rounds] == list(range(result.moves + 1))  # one round per Pacman move
    eaten_food = [tuple(e[1:]) for e in data["eaten"] if e[1:] in data["food"]]
    assert len(eaten_food) == len(set(eaten_food)) == len(data["food"]) - final.food_count
    assert len(data["search"]) == result.moves and data["search"][0]["action"] == result.actions[0].value


def test_the_page_is_deterministic(game, tmp_path):
    replay, _, page = game
    again = tmp_path / "again.html"
    write_game_page(again, replay)
    assert again.read_bytes() == page.read_bytes()


def test_script_closing_text_in_the_data_cannot_end_the_script(tmp_path):
    layout = load_layout("test")
    from pacman.layout import parse_layout

    odd = parse_layout(layout.text, name="</script><b>x")
    result = run_game(odd, ExpectimaxAgent(depth=1), make_ghosts("random", odd.num_ghosts), seed=0, max_moves=5)
    text = game_page(replay_of(odd, result))
    assert "</script><b>" not in text and _embedded(text)["layout"]["name"] == "</script><b>x"


def test_size_grows_with_moves_not_frames():
    sizes = {}
    for moves in (40, 400):
        layout, result, agents, search = _played("medium", seed=1, max_moves=moves, ghosts=0, evaluation="score")
        assert result.moves == moves
        sizes[moves] = len(game_page(replay_of(layout, result, agents, search)).encode())
    per_move = (sizes[400] - sizes[40]) / 360
    # a round with its search costs about 120 bytes; one drawn frame of medium (640x352) is 675,840 RGB bytes
    assert per_move < 250, sizes
    assert sizes[400] < 150_000, sizes


# -- the command line ------------------------------------------------------------------------------

def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pacman", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**__import__("os").environ, "SDL_VIDEODRIVER": "dummy"})


def test_play_html_writes_the_page_of_the_game_played(tmp_path):
    done = _cli("play", "--layout", "small", "--seed", "3", "--max-moves", "30", "--display", "none", "--json",
                "--html", "game.html", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    played = json.loads(done.stdout)
    data = _embedded((tmp_path / "game.html").read_text(encoding="utf-8"))
    assert data["result"]["score"] == played["score"] and data["result"]["moves"] == played["moves"] == 30
    # depth 2, and deeper within NEAR_GHOST_NODES nodes near a ghost (`depth="auto"` on a big maze)
    assert len(data["search"]) == 30 and all(entry["depth"] >= 2 for entry in data["search"])
    assert all(entry["nodes"] <= NEAR_GHOST_NODES + 1 for entry in data["search"] if entry["depth"] > 2)
    assert data["agents"]["evaluation"] == "dots"


def test_replay_html_of_an_old_replay_file(tmp_path):
    done = _cli("replay", str(OLD_REPLAY), "--html", "old.html", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "wrote old.html" in done.stderr and "score 830" in done.stdout
    data = _embedded((tmp_path / "old.html").read_text(encoding="utf-8"))
    assert data["search"] == [] and data["result"]["score"] == 830 and len(data["rounds"]) == 61


@pytest.mark.parametrize("command", ["play", "replay"])
@pytest.mark.parametrize("target, problem", [("missing/out.html", "folder .*missing does not exist"),
                                             (".", "is a folder, expected a file name")])
def test_a_bad_html_path_exits_2_before_any_work(tmp_path, command, target, problem):
    args = ["play", "--layout", "small", "--max-moves", "5", "--display", "none"] if command == "play" \
        else ["replay", str(OLD_REPLAY)]
    done = _cli(*args, "--html", target, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and re.search(f"--html '{re.escape(target)}': {problem}", done.stderr)
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_a_bad_replay_file_writes_no_page(tmp_path):
    bad = tmp_path / "bad.json"
    data = json.loads(OLD_REPLAY.read_text())
    data["actions"][1] = "Stop"  # a ghost may never stop
    bad.write_text(json.dumps(data))
    done = _cli("replay", str(bad), "--html", "out.html", cwd=tmp_path)
    assert done.returncode == 2 and "replay diverges at action 1" in done.stderr
    assert not (tmp_path / "out.html").exists()


def test_play_html_and_save_may_not_name_one_file(tmp_path):
    done = _cli("play", "--layout", "small", "--display", "none", "--save", "same", "--html", "same", cwd=tmp_path)
    assert done.returncode == 2 and "name the same file" in done.stderr


def test_play_never_writes_over_the_layout_it_plays(tmp_path):
    """--save, --html and --record naming the .lay file read, by another spelling, through a link, or as one
    of --games' numbered files: refused before any game, the maze left as it was."""
    maze = "%%%%%\n%P..%\n%%%%%\n"
    (tmp_path / "mine.lay").write_text(maze)
    (tmp_path / "link.lay").symlink_to(tmp_path / "mine.lay")
    (tmp_path / "two-1.lay").write_text(maze)
    for layout, flag, target, games in (("mine.lay", "--save", "mine.lay", "1"),
                                        ("./mine.lay", "--html", "mine.lay", "1"),
                                        ("link.lay", "--save", "mine.lay", "1"),
                                        ("two-1.lay", "--save", "two.lay", "2")):
        done = _cli("play", "--layout", layout, "--display", "none", "--games", games, flag, target, cwd=tmp_path)
        assert done.returncode == 2 and f"{flag} {target} is the layout being played" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr and done.stdout == ""
        assert (tmp_path / "mine.lay").read_text() == maze and (tmp_path / "two-1.lay").read_text() == maze


# -- in a real browser -----------------------------------------------------------------------------

ROOT = "document.querySelector('.pacman-ai')"


@pytest.fixture(scope="module")
def browser():
    started = Browser(chromium_or_skip())
    yield started
    started.close()


def _state(browser: Browser) -> dict:
    return browser.evaluate(f"{ROOT}.pacmanAI.state()")


def test_the_page_plays_to_the_recorded_score_in_a_browser(browser, game):
    replay, result, page = game
    browser.open(page.as_uri())
    assert browser.evaluate("document.documentElement.dataset.status") == "paused"
    start = _state(browser)
    assert (start["round"], start["score"], start["rounds"]) == (0, 0, result.moves + 1)
    first = browser.evaluate(f"{ROOT}.pacmanAI.canvasHash()")
    browser.press(" ")
    browser.wait_until(f"{ROOT}.pacmanAI.state().round", lambda r: r >= 2)
    browser.wait_until(f"{ROOT}.pacmanAI.canvasHash()", lambda h: h != first)  # playing changes the canvas
    for _ in range(10):
        browser.press("+")
    assert _state(browser)["speed"] == 120
    assert browser.wait_until("document.documentElement.dataset.status", lambda s: s != "playing") == "done"
    end = _state(browser)
    assert (end["round"], end["move"], end["score"]) == (result.moves, result.moves, result.score)
    assert browser.evaluate(f"{ROOT}.querySelector('.pa-score').textContent") == str(result.score)
    assert browser.evaluate(f"{ROOT}.querySelector('.pa-move').textContent") == str(result.moves)
    assert browser.evaluate(f"{ROOT}.querySelector('.pa-outcome').textContent") == result.outcome
    assert browser.errors() == []
    assert browser.requests() == [page.as_uri()]  # the page itself, and nothing else


def test_keys_and_scrubber_move_through_the_game(browser, game):
    replay, result, page = game
    browser.open(page.as_uri())
    browser.press("End")
    assert _state(browser)["round"] == result.moves and _state(browser)["status"] == "done"
    browser.press("Home")
    assert _state(browser)["round"] == 0
    browser.press("ArrowRight")
    browser.press("ArrowRight")
    browser.press("ArrowLeft")
    assert _state(browser)["round"] == 1 and not _state(browser)["playing"]
    speed = _state(browser)["speed"]
    browser.press("-")
    assert _state(browser)["speed"] == pytest.approx(speed / 1.5)
    browser.evaluate(f"(function () {{ var s = {ROOT}.querySelector('.pa-scrub'); s.value = '12';"
                     f" s.dispatchEvent(new Event('input')); }})()")
    assert _state(browser)["round"] == 12
    # the values panel shows move 12's search: every action's value, the chosen one highlighted
    search = replay.search[11]
    rows = browser.evaluate(f"Array.from({ROOT}.querySelectorAll('.pa-values tbody tr')).map("
                            "function (r) { return [r.className, r.cells[0].textContent, r.cells[1].textContent]; })")
    assert [name for _, name, _ in rows] == [a.value for a in search.values]
    assert [name for cls, name, _ in rows if cls == "pa-chosen"] == [search.action.value]
    chosen_value = next(text for cls, _, text in rows if cls == "pa-chosen")
    assert float(chosen_value.replace(",", "")) == pytest.approx(search.values[search.action], abs=0.05)
    figures = browser.evaluate(f"{ROOT}.querySelector('.pa-figures').textContent")
    assert f"depth{search.depth:g}" in figures and f"nodes{search.nodes:,}" in figures
    assert browser.evaluate(f"{ROOT}.querySelector('.pa-caption').textContent") == \
        f"Move 12: expectimax chose {search.action.value}."  # the agent, by name
    # time: microseconds under a millisecond, milliseconds above
    ms = search.milliseconds
    shown = f"{round(ms * 1000)} \u00b5s" if ms < 1 else f"{ms:,.1f} ms"
    assert figures.endswith("time" + shown)
    assert browser.errors() == []


def test_the_page_says_what_the_agent_is(browser, tmp_path):
    layout = load_layout("small")
    result = run_game(layout, __import__("pacman.agents", fromlist=["GreedyAgent"]).GreedyAgent(),
                      make_ghosts("random", 2), seed=3, max_moves=10)
    page = tmp_path / "greedy.html"
    write_game_page(page, replay_of(layout, result, {"pacman": "greedy", "agent_args": {}, "ghosts": "random"}))
    browser.open(page.as_uri() + "#end")
    assert browser.evaluate(f"{ROOT}.querySelector('.pa-agent').textContent") == "agent: greedy"
    assert browser.evaluate(f"{ROOT}.querySelector('.pa-about').textContent").startswith(
        "small \u00b7 greedy against random ghosts \u00b7 seed 3")
    expectimax = tmp_path / "expectimax.html"
    layout2, result2, agents2, search2 = _played(max_moves=5)
    write_game_page(expectimax, replay_of(layout2, result2, agents2, search2))
    browser.open(expectimax.as_uri() + "#end")
    assert browser.evaluate(f"{ROOT}.querySelector('.pa-agent').textContent") == "evaluation: better \u00b7 depth 1"
    assert browser.evaluate(f"{ROOT}.querySelector('.pa-about').textContent").startswith(
        "small \u00b7 expectimax (depth 1, evaluation better) against random ghosts")
    assert browser.errors() == []


def test_the_end_banner_covers_a_band_not_the_board(browser, tmp_path):
    """The banner's band is at most a fifth of the board's height, on a short board and a tall one."""
    for name, moves in (("test", 30), ("medium", 25)):
        layout, result, agents, search = _played(name, max_moves=moves, ghosts=0)
        page = tmp_path / f"{name}.html"
        write_game_page(page, replay_of(layout, result, agents, search))
        browser.open(page.as_uri() + "#end")
        banner = browser.evaluate(f"{ROOT}.pacmanAI.state().banner")
        assert banner["board"] == browser.evaluate(f"{ROOT}.querySelector('canvas').getBoundingClientRect().height")
        assert 12 <= banner["font"] and banner["height"] <= banner["board"] / 6 + 1, (name, banner)
        assert browser.evaluate(f"{ROOT}.pacmanAI.state().status") == "done"


def test_a_page_from_an_old_replay_plays_without_search(browser, tmp_path):
    page = tmp_path / "old.html"
    write_game_page(page, load_replay(OLD_REPLAY))
    browser.open(page.as_uri() + "#play&speed=120")
    assert browser.wait_until("document.documentElement.dataset.status", lambda s: s != "playing") == "done"
    assert _state(browser)["score"] == 830
    assert "No search was recorded" in browser.evaluate(f"{ROOT}.querySelector('.pa-note').textContent")
    assert browser.errors() == []


def test_the_hash_can_open_the_last_round(browser, game):
    _, result, page = game
    browser.open(page.as_uri() + "#end")
    assert _state(browser)["round"] == result.moves and _state(browser)["score"] == result.score
    assert browser.evaluate("document.title").startswith("pacman-ai: small, ")


def test_the_commands_of_the_docs_page(tmp_path):
    text = (Path(__file__).resolve().parent.parent / "docs" / "web-page.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", text, re.S).group(1)
    commands = [line.split("#")[0].split() for line in block.splitlines() if line.strip()]
    assert [c[:2] for c in commands] == [["pacman-ai", "play"], ["pacman-ai", "replay"]]
    for command in commands:
        done = _cli(*command[1:], cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    assert (tmp_path / "again.html").read_bytes() == (tmp_path / "game.html").read_bytes()
    assert load_replay(tmp_path / "game.json").final_state().score == 640  # the game of the docs' picture


def test_play_html_numbers_the_pages_of_several_games(tmp_path):
    done = _cli("play", "--layout", "small", "--seed", "4", "--games", "2", "--max-moves", "10", "--display", "none",
                "--json", "--html", "g.html", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    played = [json.loads(line) for line in done.stdout.splitlines()]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g-0.html", "g-1.html"]
    for game, record in enumerate(played):
        data = _embedded((tmp_path / f"g-{game}.html").read_text(encoding="utf-8"))
        assert (data["result"]["seed"], data["result"]["score"]) == (4 + game, record["score"])


def test_a_game_that_crashed_inside_a_round_ends_on_its_last_move():
    class Crashing:
        """A ghost that fails on its fifth move."""

        index = 1

        def __init__(self):
            self.moves = 0

        def get_action(self, state, rng):
            self.moves += 1
            if self.moves == 5:
                raise RuntimeError("ghost bug")
            return state.legal_actions(1)[0]

    layout = load_layout("small")
    result = run_game(layout, ExpectimaxAgent(depth=1, ghost_model="random"), [Crashing(), make_ghosts("random", 2)[1]],
                      seed=0)
    assert result.crashed and len(result.actions) == 3 * 4 + 1  # four rounds, then Pacman's fifth move
    data = game_data(replay_of(layout, result))
    final = replay_of(layout, result).final_state()
    assert len(data["rounds"]) == 6 and data["rounds"][-1][:3] == [5, *final.pacman_position]
    assert data["result"]["score"] == final.score == result.score and data["result"]["outcome"] == "crashed"


def test_a_crash_in_the_users_file_is_shown_on_the_page_where_it_was(browser, tmp_path):
    # As a student meets it: an evaluation that calls a property, played with --html from a fresh folder.
    (tmp_path / "bad.py").write_text("def f(state):\n    x, y = state.pacman_position()\n    return state.score\n")
    done = _cli("play", "--layout", "small", "--seed", "3", "--display", "none",
                "--agent-args", "evaluation=bad.py:f", "--html", "crash.html", cwd=tmp_path)
    assert done.returncode == 4, done.stderr
    data = _embedded((tmp_path / "crash.html").read_text(encoding="utf-8"))
    assert data["result"]["error_frames"] == ["bad.py:2 in f: x, y = state.pacman_position()"]
    assert "is a property" in data["result"]["error_hint"]
    browser.open((tmp_path / "crash.html").as_uri() + "#end")
    shown = browser.evaluate(f"{ROOT}.querySelector('.pa-error').textContent")
    assert shown == ("bad.py:2 in f: x, y = state.pacman_position()\nhint: " + data["result"]["error_hint"])
    assert browser.errors() == []
