"""docs/guide/evaluation.md against the code: its table of `GameState` is the class's (every public name, its
kind, type and example), every public name has a docstring that help() and the API reference both show, and the
worked example runs as a reader runs it."""

from __future__ import annotations

import ast
import inspect
import os
import re
import shlex
import subprocess
import sys
import types
import typing
from operator import itemgetter
from pathlib import Path

import pytest

from pacman import Action, GameState, Layout

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "guide" / "evaluation.md"
PUBLIC = sorted(name for name in dir(GameState) if not name.startswith("_"))
ARROW = " → "  # between a method's call and what it gives, in the example column
NO_EXAMPLE = "—"


def _page() -> str:
    return DOC.read_text(encoding="utf-8")


def _blocks(language: str) -> list[str]:
    """The text of every fenced block of the page in `language`."""
    return [text for lang, text in re.findall(r"```(\w*)\n(.*?)```", _page(), flags=re.S) if lang == language]


def _one_block(language: str, holding: str) -> str:
    found = [text for text in _blocks(language) if holding in text]
    assert len(found) == 1, f"expected one {language} block holding {holding!r}, found {len(found)}"
    return found[0]


def _table() -> dict[str, dict[str, str]]:
    """The rows of the table between the page's gamestate-table markers, by name, each by column heading."""
    body = re.search(r"<!-- gamestate-table -->\n(.*?)\n<!-- /gamestate-table -->", _page(), flags=re.S)
    assert body, "the gamestate-table markers are missing"
    lines = [line.strip() for line in body.group(1).splitlines() if line.strip()]
    assert all(line.startswith("|") and line.endswith("|") for line in lines), "only the table goes between markers"
    header, rows = _cells(lines[0]), [_cells(line) for line in lines[2:]]
    assert header == ["name", "type", "property or method", "meaning", "example value"]
    table = {}
    for cells in rows:
        assert len(cells) == len(header), cells
        row = dict(zip(header, cells))
        name = row["name"].strip("`")
        assert name not in table, f"{name} has two rows"
        table[name] = row
    return table


def _cells(line: str) -> list[str]:
    """A row's cells: split at the pipes outside `code` (a pipe inside code is part of it, as the docs site's
    Markdown reads tables)."""
    return [cell.strip() for cell in re.split(r"\|(?=(?:[^`]*`[^`]*`)*[^`]*$)", line.strip().strip("|"))]


def _code(cell: str) -> str:
    """The text of a cell that is one piece of inline code."""
    assert re.fullmatch(r"`[^`]+`", cell), f"expected one `code` piece: {cell!r}"
    return cell[1:-1]


def _namespace() -> dict:
    """The names of the page's own set-up block (its `state` among them), as the examples see them."""
    namespace: dict = {}
    exec(_one_block("python", "GameState.initial("), namespace)  # noqa: S102 - the page's own example
    return namespace


def _kind(name: str) -> str:
    """'property', 'class method' or 'method', from the class itself."""
    member = inspect.getattr_static(GameState, name)
    if isinstance(member, property):
        return "property"
    if isinstance(member, classmethod):
        return "class method"
    assert callable(getattr(GameState, name)), name
    return "method"


def _annotation(name: str) -> str | None:
    """The return annotation of a member, as written in the source, or None."""
    member = inspect.getattr_static(GameState, name)
    function = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
    return getattr(function, "__annotations__", {}).get("return")


def test_the_table_has_a_row_for_every_public_name_of_gamestate_and_no_other():
    table = _table()
    assert set(table) == set(PUBLIC), (
        f"missing from the table: {sorted(set(PUBLIC) - set(table))}; not in GameState: {sorted(set(table) - set(PUBLIC))}")


@pytest.mark.parametrize("name", PUBLIC)
def test_each_row_says_whether_its_name_is_a_property_or_a_method(name):
    assert _table()[name]["property or method"] == _kind(name)


@pytest.mark.parametrize("name", PUBLIC)
def test_each_row_s_type_is_the_code_s(name):
    written = _code(_table()[name]["type"])
    annotation = _annotation(name)
    if annotation is not None:
        assert written == annotation
    if _kind(name) == "property":  # the itemgetter fields have no annotation: their values say the type
        namespace = _namespace()
        declared = eval(written, {"Action": Action, "GameState": GameState, "Layout": Layout})  # noqa: S307
        if isinstance(declared, types.UnionType):  # X | None: any of its members
            kinds = tuple(typing.get_origin(member) or member for member in typing.get_args(declared))
        else:
            kinds = typing.get_origin(declared) or declared
        assert isinstance(getattr(namespace["state"], name), kinds)


@pytest.mark.parametrize("name", PUBLIC)
def test_each_example_is_what_the_page_s_state_gives(name):
    example = _table()[name]["example value"]
    namespace = _namespace()
    if example == NO_EXAMPLE:  # only the tuple methods a state inherits, which are no part of the game
        assert name not in vars(GameState) and name in vars(tuple)
        return
    if _kind(name) == "property":
        assert getattr(namespace["state"], name) == eval(_code(example), namespace)  # noqa: S307
        return
    call, _, value = example.partition(ARROW)
    call, value = _code(call), _code(value)
    assert re.search(rf"\b(state|GameState)\.{name}\(", call), f"the example of {name} does not call it: {call}"
    assert eval(call, namespace) == eval(value, namespace)  # noqa: S307


def test_the_pictured_board_is_the_state_of_the_examples():
    assert _one_block("text", "%P").rstrip("\n") == _namespace()["state"].to_text()


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_name_has_a_docstring(name):
    member = inspect.getattr_static(GameState, name)
    member = getattr(member, "__func__", member)  # a class method's function
    assert (member.__doc__ or "").strip(), f"GameState.{name} has no docstring"


def _source_docstrings() -> dict[str, str]:
    """The docstring of each member of GameState as a reader of the source finds it, which is what the API
    reference (griffe, which does not run the code) shows: a function's own, or the string under an assignment."""
    tree = ast.parse((ROOT / "pacman" / "state.py").read_text(encoding="utf-8"))
    (cls,) = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "GameState"]
    found = {}
    for statement, following in zip(cls.body, [*cls.body[1:], None]):
        if isinstance(statement, ast.FunctionDef):
            found[statement.name] = ast.get_docstring(statement) or ""
        elif isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name):
            is_string = (isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant)
                         and isinstance(following.value.value, str))
            found[statement.targets[0].id] = following.value.value if is_string else ""
    return found


def test_the_api_reference_shows_a_docstring_for_every_public_name_defined_in_gamestate():
    in_source = _source_docstrings()
    own = [name for name in PUBLIC if name in vars(GameState)]
    assert not [name for name in own if not in_source.get(name, "").strip()]


def test_the_itemgetter_fields_say_the_same_in_the_source_as_at_run_time():
    fields = {name: member for name, member in vars(GameState).items()
              if isinstance(member, property) and isinstance(member.fget, itemgetter)}
    assert {"score", "scared_timers", "food_mask", "capsule_mask", "ghost_keys"} <= set(fields)
    in_source = _source_docstrings()
    for name, member in fields.items():
        assert " ".join(in_source[name].split()) == " ".join(member.__doc__.split()), name


# -- the worked example, run as a reader runs it ------------------------------------------------------------------


def _command(program: str) -> list[str]:
    """The page's one `pacman-ai PROGRAM ...` command line, split as a shell splits it."""
    found = [shlex.split(line) for text in _blocks("sh") for line in text.splitlines()
             if line.startswith(f"pacman-ai {program} ")]
    assert len(found) == 1, f"expected one `pacman-ai {program}` command on the page, found {len(found)}"
    return found[0]


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """`argv` in `cwd` with the pacman-ai console script of this Python, as a reader's shell runs it."""
    assert argv[0] == "pacman-ai"
    script = Path(sys.executable).with_name("pacman-ai")
    assert script.is_file(), f"no console script at {script}"
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    return subprocess.run([str(script), *argv[1:]], cwd=cwd, capture_output=True, text=True, timeout=300, env=env)


@pytest.fixture
def folder(tmp_path):
    """A fresh folder holding the page's my_eval.py, as its reader saves it."""
    (tmp_path / "my_eval.py").write_text(_one_block("python", "def evaluate(state)"), encoding="utf-8")
    return tmp_path


def _flag(argv: list[str], flag: str) -> str:
    return argv[argv.index(flag) + 1]


def test_the_play_command_plays_the_games_it_asks_for_with_the_page_s_evaluation(folder):
    argv = _command("play")
    assert "evaluation=my_eval.py:evaluate" in _flag(argv, "--agent-args")
    done = _run(argv, folder)
    assert done.returncode == 0, done.stdout + done.stderr
    games = int(_flag(argv, "--games"))
    seed = int(_flag(argv, "--seed"))
    results = re.findall(r"^game (\d+): ([\w-]+), .*seed (\d+)", done.stdout, flags=re.M)
    assert [(int(k), int(s)) for k, _, s in results] == [(k, seed + k - 1) for k in range(1, games + 1)], done.stdout
    # A failing evaluation ends its game as `crashed`, with exit status 0: the outcomes tell.
    assert {outcome for _, outcome, _ in results} <= {"won", "lost", "cut-off"}, done.stdout
    assert re.search(rf"^{games} games: \d+ won", done.stdout, flags=re.M), done.stdout


def test_the_batch_command_plays_the_games_it_asks_for_and_the_page_quotes_its_last_line(folder):
    argv = _command("batch")
    done = _run(argv, folder)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.strip().splitlines()
    header, row = lines[0], next(line for line in lines if "evaluation=my_eval.py:evaluate" in line)
    assert header.split()[-5:] == ["crashed", "timed", "out", "cut", "off"], done.stdout
    crashed, timed_out, _ = row.split()[-3:]
    assert (crashed, timed_out) == ("0", "0"), done.stdout
    games = int(_flag(argv, "--games"))
    (quoted,) = re.findall(r"`(\d+ of \d+ games \(seed \d+\))`", _page())
    assert quoted.startswith(f"{games} of {games} games") and lines[-1].startswith(quoted), done.stdout
