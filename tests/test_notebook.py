"""Notebooks: a GameState shows as a PNG, a game as the inline player; the IPython extension registers both.

IPython is not a dependency: the module imports without it, and the extension is
tested against a small stand-in for IPython's display formatters. The example
notebook in docs/ runs cell by cell in a fresh process, so it cannot rot.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PIL import Image

from pacman.agents import ExpectimaxAgent, make_ghosts
from pacman import Action, GameState, load_layout, run_game
from pacman.replay import Replay, SearchLog, load_replay
from pacman.resources import palette
from pacman.view.notebook import (GamePlayer, StateImage, game_html, load_ipython_extension, show, state_png,
                                  unload_ipython_extension)
from pacman.view.renderer import frame_size

from headless_browser import Browser, chromium_or_skip

DOCS = Path(__file__).resolve().parent.parent / "docs"
OLD_REPLAY = Path(__file__).parent / "replays" / "v1_small.json"


class _Formatter:
    """Stands in for one of IPython's display formatters: ``for_type`` and ``pop``."""

    def __init__(self) -> None:
        self.functions: dict[type, object] = {}

    def for_type(self, kind: type, function: object) -> object:
        old = self.functions.get(kind)
        self.functions[kind] = function
        return old

    def pop(self, kind: type, default: object = None) -> object:
        return self.functions.pop(kind, default)


class _FakeIPython:
    def __init__(self) -> None:
        self.display_formatter = type("DisplayFormatter", (), {})()
        self.display_formatter.formatters = {mime: _Formatter() for mime in ("text/plain", "text/html", "image/png")}


def _pixel(png: bytes, xy: tuple[float, float]) -> tuple[int, int, int]:
    return Image.open(io.BytesIO(png)).convert("RGB").getpixel((int(xy[0]), int(xy[1])))


def test_a_state_is_a_png_of_the_renderer_s_size():
    layout = load_layout("small")
    state = GameState.initial(layout)
    for zoom, cell in ((1.0, 32), (0.5, 16), (2.0, 64)):
        image = Image.open(io.BytesIO(state_png(state, zoom=zoom)))
        assert image.format == "PNG" and image.size == frame_size(layout, cell)
    png = state_png(state)
    x, y = state.pacman_position
    assert _pixel(png, ((x + 0.5) * 32 - 6, (layout.height - 1 - y + 0.5) * 32)) == palette()["pacman"]
    gx, gy = state.ghost_positions[0]
    assert _pixel(png, ((gx + 0.5) * 32, (layout.height - 1 - gy + 0.5) * 32 + 4)) == palette()["ghosts"][0]


def test_the_picture_follows_the_state():
    state = GameState.initial(load_layout("small"))
    moved = state.successor(0, Action.WEST)
    assert state_png(moved) != state_png(state) and state_png(state) == state_png(state)


@pytest.mark.parametrize("bad, error", [("not a state", TypeError), (None, TypeError)])
def test_state_png_refuses_what_is_not_a_state(bad, error):
    with pytest.raises(error, match="GameState"):
        state_png(bad)


def test_state_png_refuses_a_zoom_out_of_range():
    with pytest.raises(ValueError, match="zoom must be between"):
        state_png(GameState.initial(load_layout("test")), zoom=100)


def test_the_extension_registers_and_removes_the_formatters():
    ipython = _FakeIPython()
    load_ipython_extension(ipython)
    formatters = ipython.display_formatter.formatters
    state = GameState.initial(load_layout("small"))
    png = formatters["image/png"].functions[GameState](state)
    assert Image.open(io.BytesIO(png)).size == (640, 254)
    replay = load_replay(OLD_REPLAY)
    html = formatters["text/html"].functions[Replay](replay)
    assert 'class="pacman-ai"' in html and "PacmanAI.mount" in html and "<html" not in html
    assert formatters["text/plain"].functions == {}
    unload_ipython_extension(ipython)
    assert all(f.functions == {} for f in formatters.values())


def test_the_module_imports_without_ipython():
    code = ("import sys; sys.modules['IPython'] = None; import pacman.view.notebook as n; "
            "assert 'IPython' not in {m.split('.')[0] for m in sys.modules if sys.modules[m] is not None}; print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_show_wraps_states_and_games():
    layout = load_layout("small")
    state = GameState.initial(layout)
    picture = show(state, zoom=0.5)
    assert isinstance(picture, StateImage) and Image.open(io.BytesIO(picture._repr_png_())).size == (320, 142)
    agent = ExpectimaxAgent(depth=1)
    log = SearchLog(agent)
    result = run_game(layout, agent, make_ghosts("random", 2), seed=3, max_moves=20, display=log)
    player = show(result, layout=layout, search=log.moves)
    assert isinstance(player, GamePlayer) and len(player.replay.search) == 20
    html = player._repr_html_()
    assert f'"score":{result.score},' in html and '"search":[{"action":' in html
    # by the layout's name, without the search: the panel says none was recorded
    assert '"search":[]' in game_html(result)
    assert isinstance(show(load_replay(OLD_REPLAY)), GamePlayer)
    with pytest.raises(TypeError, match="expected a Replay or a GameResult"):
        show(42)


def test_two_players_in_one_output_get_their_own_elements():
    replay = load_replay(OLD_REPLAY)
    first, second = game_html(replay), game_html(replay)
    ids = [part.split('"')[1] for part in (first, second) for part in [part[part.index('id="'):][3:]]]
    assert ids[0] != ids[1]


# -- the example notebook ------------------------------------------------------------------------

NOTEBOOK = DOCS / "notebook-example.ipynb"

_RUNNER = textwrap.dedent('''
    """Runs a notebook's code cells in order, as Jupyter would, and checks what each cell would show."""
    import ast, json, sys

    from pacman.view import notebook

    class Formatter:
        def __init__(self):
            self.functions = {}
        def for_type(self, kind, function):
            self.functions[kind] = function
        def pop(self, kind, default=None):
            return self.functions.pop(kind, default)

    class IPython:
        pass

    ipython = IPython()
    ipython.display_formatter = IPython()
    ipython.display_formatter.formatters = {"image/png": Formatter(), "text/html": Formatter()}

    def shown(value):
        """The MIME types Jupyter would show for a cell's value."""
        kinds = []
        for mime, formatter in ipython.display_formatter.formatters.items():
            for kind, function in formatter.functions.items():
                if isinstance(value, kind) and function(value):
                    kinds.append(mime)
        if hasattr(value, "_repr_png_") and value._repr_png_():
            kinds.append("image/png")
        if hasattr(value, "_repr_html_") and value._repr_html_():
            kinds.append("text/html")
        return kinds

    cells = [c for c in json.load(open(sys.argv[1], encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
    namespace = {"__name__": "__main__"}
    for number, cell in enumerate(cells):
        source = "".join(cell["source"])
        lines = []
        for line in source.splitlines():
            if line.strip() == "%load_ext pacman.view.notebook":
                notebook.load_ipython_extension(ipython)
            elif line.lstrip().startswith(("%", "!")):
                raise SystemExit(f"cell {number}: a magic this runner does not know: {line}")
            else:
                lines.append(line)
        tree = ast.parse("\\n".join(lines))
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, f"<cell {number}>", "exec"), namespace)
        value = eval(compile(ast.Expression(last.value), f"<cell {number}>", "eval"), namespace) if last else None
        print("CELL", json.dumps({"cell": number, "shows": shown(value) if value is not None else []}))
''')


def test_the_example_notebook_is_valid_nbformat_4():
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    assert notebook["nbformat"] == 4 and notebook["nbformat_minor"] >= 4
    assert isinstance(notebook["metadata"], dict) and notebook["cells"]
    for cell in notebook["cells"]:
        assert cell["cell_type"] in ("markdown", "code") and isinstance(cell["metadata"], dict)
        assert isinstance(cell["source"], (str, list)) and isinstance(cell.get("id"), str)
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None


def test_the_example_notebook_passes_nbformat_s_own_validation():
    nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (the JSON structure is checked "
                                                      "without it above)")
    nbformat.validate(nbformat.reads(NOTEBOOK.read_text(encoding="utf-8"), as_version=4))


def test_the_example_notebook_runs_cell_by_cell(tmp_path):
    runner = tmp_path / "run_notebook.py"
    runner.write_text(_RUNNER, encoding="utf-8")
    done = subprocess.run([sys.executable, str(runner), str(NOTEBOOK)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    shows = [json.loads(line[5:])["shows"] for line in done.stdout.splitlines() if line.startswith("CELL ")]
    printed = [line for line in done.stdout.splitlines() if not line.startswith("CELL ")]
    # %load_ext; the state (a picture); values and the next state (a picture); the game (a player);
    # show(result) (a player); show(state) (a picture)
    assert shows == [[], ["image/png"], ["image/png"], ["text/html"], ["text/html"], ["image/png"]]
    assert any(line.startswith("{'") for line in printed)  # the action values
    assert (tmp_path / "game.json").exists()


# -- in a real browser ---------------------------------------------------------------------------

def test_two_notebook_players_work_side_by_side_in_a_browser(tmp_path):
    replay = load_replay(OLD_REPLAY)
    page = tmp_path / "cells.html"
    page.write_text("<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>"
                    f"<div class='output'>{game_html(replay)}</div><div class='output'>{game_html(replay)}</div>"
                    "</body></html>", encoding="utf-8")
    browser = Browser(chromium_or_skip())
    try:
        browser.open(page.as_uri())
        players = "Array.from(document.querySelectorAll('.pacman-ai'))"
        assert browser.evaluate(f"{players}.map(function (p) {{ return p.dataset.status; }})") == ["paused", "paused"]
        browser.press("End")  # nothing has the focus: the keys are the notebook's, not the players'
        assert browser.evaluate(f"{players}.map(function (p) {{ return p.pacmanAI.state().round; }})") == [0, 0]
        browser.evaluate(f"{players}[1].focus()")
        browser.press("End")
        assert browser.evaluate(f"{players}.map(function (p) {{ return p.pacmanAI.state().round; }})") == [0, 60]
        assert browser.evaluate(f"{players}[1].querySelector('.pa-score').textContent") == "830"
        assert browser.errors() == [] and browser.requests() == [page.as_uri()]
    finally:
        browser.close()


def test_the_code_of_the_docs_page_runs(tmp_path):
    text = (DOCS / "notebooks.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 4
    script = "\n".join(line for block in blocks for line in block.splitlines() if not line.startswith("%"))
    script += "\nprint(type(state).__name__, type(show(state, zoom=0.5)).__name__, len(log.moves))\n"
    (tmp_path / "docs_code.py").write_text(script, encoding="utf-8")
    done = subprocess.run([sys.executable, "docs_code.py"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["GameState", "StateImage", "100"] and (tmp_path / "game.json").exists()
