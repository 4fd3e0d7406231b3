"""A course's engine facts come from its own code: generated ``game.py`` files, graded, against ``import game``.

Each variant is a ``game.py`` of our own (nothing from CS188) that builds the order of actions in a way no
reader here was written for: a key function, a lambda, a staticmethod's ``__func__``, a comprehension,
``reversed``, a module constant, a loop in the class body, ``OrderedDict``, and Python 2 courses (an
``autograder.py`` with ``print`` statements beside it, or ``print`` statements in ``game.py`` itself). A fixed
student returns its legal actions joined, so the report shows the order grading used; the reference is what
``import game`` gives in a child process of the course's own Python (Python 2.7 for a Python 2 course, where
one is installed). Seeds 0-29 were looked at while writing the code; seeds 1000-1011 are the held-out share,
never printed or tuned on.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pacman.cs188.quirks import read_engine_quirks, read_engine_quirks_statically

HERE = Path(__file__).parent
SORTED = HERE / "cs188_variants" / "sorted_order"
NAMES = ("North", "South", "East", "West", "Stop")
CONSTANTS = {"North": "NORTH", "South": "SOUTH", "East": "EAST", "West": "WEST", "Stop": "STOP"}
LOOKED_AT = list(range(30))
#: The console script, as a user runs it (``python -m pacman`` in a course folder would run its pacman.py).
PACMAN_AI = str(Path(sys.executable).parent / "pacman-ai")
HELD_OUT = list(range(1000, 1012))
#: Whether this Python has lib2to3 (gone in 3.13), whose fixers rewrite a Python 2 file's statements to run it.
HAS_2TO3 = importlib.util.find_spec("lib2to3") is not None

_HEAD = '''\
# A course engine file generated for pacman-ai's tests (nothing from CS188).
import collections
{module}

class Directions:
    NORTH = 'North'
    SOUTH = 'South'
    EAST = 'East'
    WEST = 'West'
    STOP = 'Stop'


class Configuration:
    def __init__(self, pos, direction):
        self.pos = pos
        self.direction = direction

    def getDirection(self):
        return self.direction


class Grid:
    def __init__(self, width, height, initialValue=False):
        self.data = [[initialValue for y in range(height)] for x in range(width)]

    def __getitem__(self, i):
        return self.data[i]


class Actions:
    _directions = {{{pairs}}}
{body}
    TOLERANCE = .001

    def getPossibleActions(config, walls):
        possible = []
        x, y = config.pos
        for dir, vec in Actions._directionsAsList:
            dx, dy = vec
            if not walls[x + dx][y + dy]:
                possible.append(dir)
        return possible
    getPossibleActions = staticmethod(getPossibleActions)
{tail}'''

_VECTORS = {"North": "(0, 1)", "South": "(0, -1)", "East": "(1, 0)", "West": "(-1, 0)", "Stop": "(0, 0)"}
_PRINT_FUNCTION = "\ndef report(message):\n    print('engine: %s' % message)\n"
_PRINT_STATEMENT = "\ndef report(message):\n    print 'engine: %s' % message\n"


def _listed(names: list[str]) -> str:
    return "[" + ", ".join(f"Directions.{CONSTANTS[n]}" for n in names) + "]"


def _variant(seed: int) -> tuple[str, str, str]:
    """(form, the game.py text, the course's Python): one generated engine file."""
    rng = random.Random(seed)
    written = rng.sample(NAMES, 5)
    pairs = ", ".join(f"Directions.{CONSTANTS[n]}: {_VECTORS[n]}" for n in written)
    wanted = rng.sample(NAMES, 5)
    module = ""
    forms = ["key function", "lambda", "staticmethod __func__", "comprehension", "reversed", "module constant",
             "loop", "OrderedDict", "items", "python 2 print"]
    form = forms[seed % len(forms)] if seed < 1000 else rng.choice(forms)
    if form == "key function":
        body = f"""
    def _sort(direction_tuple):
        return {_listed(wanted)}.index(direction_tuple[0])

    _directionsAsList = sorted(_directions.items(), key=_sort)"""
    elif form == "lambda":
        key = rng.choice(["x[0]", "x[1]", "-len(x[0])", "x[0][::-1]", "(x[1][1], x[1][0])"])
        body = f"\n    _directionsAsList = sorted(_directions.items(), key=lambda x:{key})"
    elif form == "staticmethod __func__":
        body = f"""
    @staticmethod
    def _sort(direction_tuple):
        return {_listed(wanted)}.index(direction_tuple[0])

    _directionsAsList = sorted(_directions.items(), key=_sort.__func__)"""
    elif form == "comprehension":
        body = f"\n    _directionsAsList = [pair for pair in sorted(_directions.items(), reverse={rng.random() < 0.5})]"
    elif form == "reversed":
        body = "\n    _directionsAsList = list(reversed(list(_directions.items())))"
    elif form == "module constant":
        module = f"ORDER = {wanted!r}\n"
        body = "\n    _directionsAsList = sorted(_directions.items(), key=lambda pair: ORDER.index(pair[0]))"
    elif form == "loop":
        body = f"""
    _directionsAsList = []
    for _name in {wanted!r}:
        _directionsAsList.append((_name, _directions[_name]))
    del _name"""
    elif form == "OrderedDict":
        body = f"""
    _directionsAsList = collections.OrderedDict(sorted(_directions.items(), key=lambda p: {wanted!r}.index(p[0])))
    _directionsAsList = list(_directionsAsList.items())"""
    else:  # "items" and "python 2 print": the classic form, whose order is the dictionary's
        body = "\n    _directionsAsList = _directions.items()"
    python = "2" if form == "python 2 print" or rng.random() < 0.3 else "3"
    tail = _PRINT_STATEMENT if form == "python 2 print" else _PRINT_FUNCTION
    return form, _HEAD.format(module=module, pairs=pairs, body=body, tail=tail), python


def _python27() -> str | None:
    pyenv = Path.home() / ".pyenv" / "versions"
    candidates = [os.environ.get("PYTHON27"), shutil.which("python2.7"),
                  *(str(p) for p in sorted(pyenv.glob("2.7*/bin/python2.7")))]
    for candidate in filter(None, candidates):
        try:
            if subprocess.run([candidate, "-c", "print 1"], capture_output=True, timeout=30).returncode == 0:
                return candidate
        except (OSError, subprocess.SubprocessError):
            continue
    return None


PYTHON27 = _python27()


def _import_game(folder: Path, python: str) -> list[str] | None:
    """The order ``import game`` gives in a child process of the course's Python (None: no such Python here)."""
    interpreter = sys.executable if python == "3" else PYTHON27
    if interpreter is None:
        return None
    code = ("import sys, json; sys.path.insert(0, sys.argv[1]); import game; "
            "sys.stdout.write(json.dumps([d for d, _ in game.Actions._directionsAsList]))")
    # Python 2 randomizes string hashes only when PYTHONHASHSEED is set (pytest-xdist sets one): a course runs without it.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
    done = subprocess.run([interpreter, "-c", code, str(folder)], capture_output=True, text=True, timeout=60,
                          env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _course(tmp_path: Path, text: str, python: str) -> Path:
    folder = tmp_path / "course"
    shutil.copytree(SORTED, folder, ignore=shutil.ignore_patterns("__pycache__", "students", "pacman.py"))
    (folder / "game.py").write_text(text)
    if python == "2":
        (folder / "autograder.py").write_text("import sys\n\nif __name__ == '__main__':\n    print 'Starting'\n")
    (folder / "order_student.py").write_text(textwrap.dedent('''\
        from game import Agent


        class MultiAgentSearchAgent(Agent):
            def __init__(self, evalFn='scoreEvaluationFunction', depth='2'):
                self.depth = int(depth)


        class MinimaxAgent(MultiAgentSearchAgent):
            """Returns the legal actions joined: the report shows the order grading used."""

            def getAction(self, gameState):
                return "|".join(gameState.getLegalActions(0))
        '''))
    return folder


def _graded_orders(folder: Path) -> list[list[str]]:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    done = subprocess.run([PACMAN_AI, "grade", "test_cases", "order_student.py", "--question",
                           "q2", "--json", "-", "--quiet"], cwd=folder, capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert "from game.py, run (Actions." in report["context"] or ", read (it cannot run here" in report["context"]
    test = next(t for t in report["questions"][0]["tests"] if t["kind"] == "PacmanGameTreeTest")
    return [action.split("|") for action in test["items"][0]["actions"]]


def _check(seed: int, tmp_path: Path) -> None:
    form, text, python = _variant(seed)
    folder = _course(tmp_path, text, python)
    expected = _import_game(folder, python)
    if expected is None:
        pytest.skip("no Python 2.7 here to import a Python 2 course's game.py")
    order = list(read_engine_quirks(folder).action_order)
    assert order == expected, form
    for legal in _graded_orders(folder):  # every list of legal actions grading used follows the course's order
        assert legal == sorted(legal, key=order.index), form
    if form == "python 2 print" and HAS_2TO3:  # its print statements rewritten as 2to3 does, then run, said so
        assert read_engine_quirks(folder).order_evidence.endswith(", its Python 2 statements rewritten as 2to3 does")


@pytest.mark.parametrize("seed", LOOKED_AT)
def test_a_generated_engine_is_graded_in_the_order_import_game_gives(tmp_path, seed):
    _check(seed, tmp_path)


@pytest.mark.parametrize("seed", HELD_OUT)
def test_held_out_engines_are_graded_in_the_order_import_game_gives(tmp_path, seed):
    _check(seed, tmp_path)


def test_the_generated_forms_cover_every_form_and_both_pythons():
    variants = [_variant(seed) for seed in LOOKED_AT]
    assert {form for form, _, _ in variants} >= {"key function", "lambda", "staticmethod __func__", "comprehension",
                                                 "reversed", "module constant", "loop", "OrderedDict",
                                                 "python 2 print"}
    assert {python for _, _, python in variants} == {"2", "3"}


@pytest.mark.parametrize("seed", LOOKED_AT + HELD_OUT)
def test_the_static_reading_agrees_where_it_reads_the_file(tmp_path, seed):
    """Where both work, running and reading give the same order (the reader refuses the forms it cannot read)."""
    from pacman.cs188.quirks import QuirksError

    form, text, python = _variant(seed)
    folder = _course(tmp_path, text, python)
    try:
        read = read_engine_quirks_statically(folder)
    except QuirksError:
        assert form not in ("items", "python 2 print"), form
        return
    assert read.action_order == read_engine_quirks(folder).action_order, form


@pytest.mark.parametrize("folder", ["sorted_order", "python3_port"])
def test_running_and_reading_agree_on_every_shipped_course_folder(folder):
    root = HERE / "cs188_variants" / folder
    ran, read = read_engine_quirks(root), read_engine_quirks_statically(root)
    assert ran.order_evidence.startswith("game.py, run") and read.order_evidence.endswith(", read")
    assert (ran.action_order, ran.unsupported, ran.python) == (read.action_order, read.unsupported, read.python)


def test_the_course_code_runs_read_only_without_network_and_bounded(tmp_path):
    """A course file that tries the network, writes beside itself and prints: the child answers with none of it."""
    from pacman.cs188.quirks import run_course_engine
    from pacman.grading.sandbox import namespace_unavailable

    (tmp_path / "game.py").write_text(textwrap.dedent('''\
        import socket
        try:
            socket.create_connection(("192.0.2.1", 80), timeout=2)
            NETWORK = "reached"
        except OSError as exc:
            NETWORK = str(exc)
        try:
            open("written.txt", "w").write("x")
            WRITTEN = "written"
        except OSError as exc:
            WRITTEN = str(exc)
        print("x" * 100000)
        raise SystemExit(NETWORK + " | " + WRITTEN)
        '''))
    answer = run_course_engine(tmp_path)
    assert answer["game"]["error"].startswith("SystemExit: ") and answer["printed"] == 100001
    if namespace_unavailable() is None:
        assert answer["isolation"] == "read-only, no network"
        assert "Network is unreachable" in answer["game"]["error"]
        assert "Read-only file system" in answer["game"]["error"]
    assert not (tmp_path / "written.txt").exists()


def test_a_course_engine_that_loops_at_import_is_stopped_and_read(tmp_path, monkeypatch):
    from pacman.cs188 import quirks

    monkeypatch.setattr(quirks, "RUN_SECONDS", 2.0)
    (tmp_path / "game.py").write_text(_variant(8)[1] + "\nwhile True:\n    pass\n")
    found = quirks.read_engine_quirks(tmp_path)
    assert found.action_order == read_engine_quirks_statically(tmp_path).action_order
    assert "it cannot run here: " in found.order_evidence
    assert ("did not end within 2 s" in found.order_evidence or "killed by signal" in found.order_evidence)


def _grade(folder: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    return subprocess.run([PACMAN_AI, "grade", "test_cases", *args], cwd=folder,
                          capture_output=True, text=True, env=env, timeout=300)


def test_solutions_written_under_another_order_are_named_with_the_flag_that_grades_by_it(tmp_path):
    """A port: its game.py now lists the dictionary as written (Python 3), its solutions were written sorted."""
    folder = tmp_path / "port"
    shutil.copytree(SORTED, folder, ignore=shutil.ignore_patterns("__pycache__"))
    game = folder / "game.py"
    game.write_text(game.read_text().replace("sorted(_directions.items())", "_directions.items()"))
    done = _grade(folder, "multiAgents.py", "--json", "-", "--quiet")
    report = json.loads(done.stdout)
    # graded as its own grader grades: by its game.py, so its right alpha-beta fails on the counts
    assert [(q["id"], q["score"]) for q in report["questions"]] == [("q2", 5.0), ("q3", 0.0)]
    assert report["context"].endswith(
        "actions North, South, East, West, Stop from game.py, run (Actions._directionsAsList); rule constants "
        "classic from pacman.py, run; the alpha-beta solutions' expanded-state counts fit another order, East, "
        "North, South, Stop, West (sorted): grade by it with --action-order sorted")
    by_flag = _grade(folder, "multiAgents.py", "--json", "-", "--quiet", "--action-order", "sorted")
    report = json.loads(by_flag.stdout)
    assert [(q["id"], q["score"]) for q in report["questions"]] == [("q2", 5.0), ("q3", 5.0)]
    assert "actions East, North, South, Stop, West from --action-order (the course's engine: North, South, East, " \
           "West, Stop from game.py, run" in report["context"] and "fit another order" not in report["context"]
    listed = _grade(folder, "multiAgents.py", "--quiet", "--action-order", "North,South,East,West,Stop")
    assert "fit another order, East, North, South, Stop, West (sorted)" in listed.stdout.splitlines()[0]


def test_solutions_that_fit_the_courses_order_add_nothing_to_the_first_line(tmp_path):
    done = _grade(HERE / "cs188_variants" / "sorted_order", "multiAgents.py", "--quiet", "--question", "q3")
    assert done.returncode == 0 and "fit another order" not in done.stdout.splitlines()[0]


@pytest.mark.parametrize("value", ["Nort", "North,South", "North,North,East,West,Stop", ""])
def test_a_bad_action_order_is_one_line_and_status_2(value):
    done = _grade(HERE / "cs188_variants" / "sorted_order", "multiAgents.py", "--action-order", value)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (f"pacman-ai grade: --action-order {value!r}: expected classic, python3, sorted or the "
                           f"five actions West, Stop, East, North, South in some order, comma-separated (see "
                           f"pacman-ai grade --help)\n")


def test_the_action_order_flag_is_for_classic_folders_only(tmp_path):
    done = subprocess.run([PACMAN_AI, "grade", "expectimax", "x.py", "--action-order",
                           "classic"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "--action-order is for classic test folders" in done.stderr


def test_the_pages_example_of_a_file_read_instead_of_run_is_what_grading_prints(tmp_path):
    from test_cs188_variants import _GAME

    (tmp_path / "game.py").write_text(_GAME % "_directions.items()" + "\n\nimport graphicsUtils\n\n"
                                      + "\ndef warn(agent):\n    print 'Agent %d timed out' % agent\n")
    line = read_engine_quirks(tmp_path).describe()
    assert line.startswith("engine: game.py, Python 2 (game.py:22): actions West, Stop, East, North, South")
    assert "read (it cannot run here: importing game.py raised ModuleNotFoundError" in line
    assert f"```text\n{line}\n```" in (HERE.parent / "docs" / "cs188.md").read_text(encoding="utf-8")


_ISSUE_HEAD = '''\
class Directions:
    NORTH = 'North'
    SOUTH = 'South'
    EAST = 'East'
    WEST = 'West'
    STOP = 'Stop'


class Actions:
    _directions = {Directions.NORTH: (0, 1), Directions.SOUTH: (0, -1), Directions.EAST: (1, 0),
                   Directions.WEST: (-1, 0), Directions.STOP: (0, 0)}

'''
#: The three forms three schools' game.py files use, as the issue quotes them (verbatim, indentation kept).
_ISSUE_FORMS = [
    ("""    def _sort(direction_tuple):
        return [Directions.WEST, Directions.STOP, Directions.EAST,
                Directions.NORTH, Directions.SOUTH].index(direction_tuple[0])

    _directions_as_list = sorted(_directions.items(), key=_sort)
""", ("West", "Stop", "East", "North", "South")),
    ("""    @staticmethod
    def _sort(direction_tuple):
        return [Directions.WEST, Directions.STOP, Directions.EAST,
                Directions.NORTH, Directions.SOUTH].index(direction_tuple[0])

    _directions_as_list = sorted(_directions.items(), key=_sort.__func__)     # _sort a staticmethod above
""", ("West", "Stop", "East", "North", "South")),
    ("""    _directionsAsList = sorted(_directions.items(), key=lambda x:x[0])
""", ("East", "North", "South", "Stop", "West")),
]


@pytest.mark.parametrize("form, order", _ISSUE_FORMS)
def test_the_three_forms_the_static_reader_refused_are_asked_of_the_code(tmp_path, form, order):
    from pacman.cs188.quirks import QuirksError

    (tmp_path / "game.py").write_text(_ISSUE_HEAD + form)
    found = read_engine_quirks(tmp_path)
    assert found.action_order == order and found.order_evidence.startswith("game.py, run (Actions._directions")
    with pytest.raises(QuirksError, match="not a form pacman-ai reads statically"):
        read_engine_quirks_statically(tmp_path)


@pytest.mark.parametrize("form, order", _ISSUE_FORMS)
def test_the_three_forms_in_a_python_2_file_run_with_its_statements_rewritten(tmp_path, form, order):
    # A Python 2 school's game.py in one of the forms the static reader does not know: not refused, run.
    if not HAS_2TO3:
        pytest.skip("no lib2to3 in this Python (3.13 and later): a Python 2 file is read, not run")
    text = _ISSUE_HEAD + form + "\n\ndef warn(agent):\n    print 'Agent %d timed out' % agent\n"
    (tmp_path / "game.py").write_text(text)
    found = read_engine_quirks(tmp_path)
    assert found.python == "2"
    assert found.order_evidence.startswith("game.py, run (Actions._direction")
    assert found.order_evidence.endswith(", its Python 2 statements rewritten as 2to3 does")
    assert list(found.action_order) == list(order)
    if PYTHON27 is not None:  # and it is what the course's own Python gives
        code = ("import sys, json; sys.path.insert(0, sys.argv[1]); import game; listed = getattr(game.Actions, "
                "'_directionsAsList', None) or game.Actions._directions_as_list; "
                "sys.stdout.write(json.dumps([d for d, _ in listed]))")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
        done = subprocess.run([PYTHON27, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=60,
                              env=env)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout.splitlines()[-1]) == list(order)
