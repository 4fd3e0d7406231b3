"""A corpus of bad and unusual inputs, through every input surface of the `pacman-ai` command line.

Each case runs one command in a fresh directory and asserts what the README and
issue 10 demand of any input a user may hand the program:

- the exit status: 2 for a usage error or bad input; 0 where the input is unusual
  but valid (then the result is checked too); a few documented others;
- a refusal is a message of at most three non-empty lines on stderr that names
  the input (the path, flag or value given);
- no "Traceback" anywhere in the output;
- a time bound: cases that could hang (FIFOs, devices, endless games, huge
  layouts) or kill the interpreter (agents calling sys.exit or os._exit) run in a
  subprocess with a timeout, so that a hang fails the case instead of the suite.

The other cases run in-process through `pacman.cli.main(argv)` for speed. Files a
case needs are written into its temporary directory at test time (FIFOs and big
files included); nothing here is committed but this module.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable

import pytest

from pacman.cli.args import EXIT_GAMES_FAILED

REPO = Path(__file__).resolve().parent.parent
SUBMISSIONS = Path(__file__).resolve().parent / "submissions"

# -- the harness -------------------------------------------------------------------------------


class Fifo:
    """A named pipe, made at test time."""


class Directory:
    """An empty directory, made at test time."""


@dataclass(frozen=True)
class Symlink:
    target: str


@dataclass
class Result:
    status: int
    out: str
    err: str
    seconds: float
    tmp: Path

    def json_lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.out.splitlines() if line.strip().startswith("{")]

    def only_game(self) -> dict[str, Any]:
        games = self.json_lines()
        assert len(games) == 1, f"expected one JSON game on stdout, got {len(games)}:\n{self.out[-2000:]}"
        return games[0]


@dataclass
class Case:
    id: str
    argv: list[str]
    status: int | tuple[int, ...] = 2
    names: tuple[str | tuple[str, ...], ...] = ()
    """Substrings the message on stderr must contain (the input it names); a tuple entry: any one of them."""
    files: dict[str, Any] = field(default_factory=dict)
    setup: Callable[[Path], None] | None = None
    check: Callable[[Result], None] | None = None
    sub: bool = False
    """Run apart from pytest (anything that could hang or end the interpreter): in a forked child of this
    process, which has imported the project already, or in a fresh interpreter (`process`)."""
    process: bool = False
    """With `sub`: a fresh `python -m pacman` (agents that exit or leave threads behind, batch workers)."""
    timeout: float = 20.0
    slow: bool = False
    check_always: bool = False
    """Run `check` whatever the status (else only on status 0)."""
    silent: tuple[int, ...] = ()
    """Non-zero statuses allowed without a message (an agent's own os._exit status)."""

    def param(self) -> Any:
        marks = [pytest.mark.slow] if self.slow else []
        return pytest.param(self, id=self.id, marks=marks)


def _make_files(tmp: Path, files: dict[str, Any]) -> None:
    for name, content in files.items():
        path = tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Fifo):
            os.mkfifo(path)
        elif isinstance(content, Directory):
            path.mkdir(exist_ok=True)
        elif isinstance(content, Symlink):
            os.symlink(content.target, path)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        elif callable(content):
            content(path)
        else:
            path.write_text(content, encoding="utf-8", newline="")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONDONTWRITEBYTECODE="1",
               COLUMNS="120", PYTHONIOENCODING="utf-8")
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    return env


def run_subprocess(argv: list[str], tmp: Path, timeout: float) -> Result:
    started = time.monotonic()
    process = subprocess.Popen([sys.executable, "-m", "pacman", *argv], cwd=tmp, env=_env(),
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, 9)
        out, err = process.communicate()
        pytest.fail(f"hang: `pacman-ai {' '.join(argv)}` did not finish within {timeout} s\n"
                    f"stdout: {out.decode(errors='replace')[-1500:]}\nstderr: {err.decode(errors='replace')[-1500:]}")
    return Result(process.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
                  time.monotonic() - started, tmp)


def run_forked(argv: list[str], tmp: Path, timeout: float) -> Result:
    """`pacman.cli.main(argv)` in a forked child: what `python -m pacman` does, without its start-up time.

    The child's stdout and stderr are files, its status main's return value (a traceback is printed as the
    interpreter would); a child still running after `timeout` is killed and the case fails as a hang.
    """
    import io
    import signal

    folder = Path(tempfile.mkdtemp(prefix="corpus-fork-"))
    out_path, err_path = folder / "stdout", folder / "stderr"
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        status = 70
        try:
            os.setsid()
            os.chdir(tmp)
            os.environ.update(_env())
            stdin = os.open(os.devnull, os.O_RDONLY)
            out = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            err = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(stdin, 0)
            os.dup2(out, 1)
            os.dup2(err, 2)
            sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False))
            sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8")
            sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8",
                                          errors="backslashreplace", line_buffering=True)
            sys.argv = ["pacman-ai", *argv]
            signal.signal(signal.SIGINT, signal.default_int_handler)
            try:
                from pacman.cli import main

                status = main(list(argv))
            except SystemExit as exc:
                if exc.code is None or isinstance(exc.code, int):
                    status = exc.code or 0
                else:
                    print(exc.code, file=sys.stderr)
                    status = 1
            except BaseException:
                traceback.print_exc()
                status = 1
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(status if isinstance(status, int) else 1)
    deadline = started + timeout
    wait_status = None
    while wait_status is None:
        done, raw = os.waitpid(pid, os.WNOHANG)
        if done:
            wait_status = raw
        elif time.monotonic() > deadline:
            os.killpg(pid, 9)
            os.waitpid(pid, 0)
            out_text = out_path.read_text(errors="replace")[-1500:]
            err_text = err_path.read_text(errors="replace")[-1500:]
            shutil.rmtree(folder, ignore_errors=True)
            pytest.fail(f"hang: `pacman-ai {' '.join(argv)[:300]}` did not finish within {timeout} s\n"
                        f"stdout: {out_text}\nstderr: {err_text}")
        else:
            time.sleep(0.005)
    seconds = time.monotonic() - started
    result = Result(os.waitstatus_to_exitcode(wait_status), out_path.read_text("utf-8", "replace"),
                    err_path.read_text("utf-8", "replace"), seconds, tmp)
    shutil.rmtree(folder, ignore_errors=True)
    return result


def run_inprocess(argv: list[str], tmp: Path, capsys: Any) -> Result:
    from pacman.cli import main

    previous = os.getcwd()
    os.chdir(tmp)
    started = time.monotonic()
    capsys.readouterr()
    try:
        try:
            status = main(list(argv))
        except SystemExit as exc:  # argparse --help; anything else escaping main is a bug
            status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:  # what a user would see as a traceback
            captured = capsys.readouterr()
            return Result(1, captured.out, captured.err + "Traceback (in-process):\n" + traceback.format_exc(),
                          time.monotonic() - started, tmp)
    finally:
        os.chdir(previous)
    captured = capsys.readouterr()
    return Result(status, captured.out, captured.err, time.monotonic() - started, tmp)


def assert_case(case: Case, result: Result) -> None:
    command = f"pacman-ai {' '.join(case.argv)}"
    command = command if len(command) < 400 else command[:200] + " ... " + command[-100:]
    context = (f"\n  command: {command}\n  status: {result.status}  ({result.seconds:.2f} s)"
               f"\n  stdout: {result.out[-800:]!r}\n  stderr: {result.err[-1500:]!r}")
    assert "Traceback" not in result.out + result.err, "traceback" + context
    expected = case.status if isinstance(case.status, tuple) else (case.status,)
    failed_games = result.status == EXIT_GAMES_FAILED and result.err.startswith("pacman-ai: ") and \
        " crashed or timed out; the first (" in result.err.splitlines()[0]
    if 0 in expected and failed_games:  # a run whose games crashed ends whole, with the documented status 4
        expected = (*expected, EXIT_GAMES_FAILED)
    assert result.status in expected, f"exit status {result.status}, expected {' or '.join(map(str, expected))}" + context
    if result.status != 0 and result.status not in case.silent:
        lines = [line for line in result.err.splitlines() if line.strip()]
        assert lines, "refused without a message on stderr" + context
        if failed_games:  # the count and first error, then the user's frames and a hint
            lines = lines[:1]
        assert len(lines) <= 3, f"message of {len(lines)} lines (at most 3)" + context
        for name in () if failed_games else case.names:  # a tuple: any of these; failed games name the file
            choices = name if isinstance(name, tuple) else (name,)
            assert any(choice in result.err for choice in choices), \
                f"message does not name {' or '.join(map(repr, choices))}" + context
    assert result.seconds <= case.timeout, f"took {result.seconds:.1f} s (bound {case.timeout} s)" + context
    if case.check is not None and (result.status == 0 or case.check_always or failed_games):
        try:
            case.check(result)
        except AssertionError as exc:
            raise AssertionError(f"{exc}" + context) from None


# -- shared inputs ------------------------------------------------------------------------------

TEST_LAY = "%%%%%\n%P..%\n%.%.%\n%..G%\n%%%%%\n"  # the shipped `test` layout's shape
NO_GHOST_LAY = "%%%%%%\n%P...%\n%%%%%%\n"

PLAY = ["play", "--display", "none", "--json", "--seed", "1"]


def play(layout: str, *more: str, max_moves: str | None = "30") -> list[str]:
    argv = [*PLAY, "--layout", layout]
    if max_moves is not None:
        argv += ["--max-moves", max_moves]
    return argv + list(more)


AGENTS_PY = '''
import os
import sys


class Good:
    def __init__(self, depth=1):
        self.depth = depth

    def get_action(self, state):
        return state.legal_actions(0)[0]


class InitRaises:
    def __init__(self):
        raise RuntimeError("boom in __init__")

    def get_action(self, state):
        return state.legal_actions(0)[0]


class InitExits:
    def __init__(self):
        sys.exit(3)

    def get_action(self, state):
        return state.legal_actions(0)[0]


class Garbage:
    def get_action(self, state):
        return "banana"


class ReturnsNone:
    def get_action(self, state):
        return None


class Raises:
    def get_action(self, state):
        raise ZeroDivisionError("agent divided by zero")


class Exits:
    def get_action(self, state):
        sys.exit(4)


class ExitsBuiltin:
    def get_action(self, state):
        raise SystemExit("not implemented yet")


class OsExit:
    def get_action(self, state):
        os._exit(9)


class Loops:
    def get_action(self, state):
        while True:
            pass


class Interrupts:
    def get_action(self, state):
        raise GeneratorExit()


class NoGetAction:
    pass


NOT_A_CLASS = 42


def factory_none():
    return None
'''

STUDENT_PY = '''
"""Written as a student would: stores evaluation as given, no fallback."""


class ExpectimaxAgent:
    def __init__(self, depth=2, evaluation=None):
        self.depth = depth
        self.evaluation = evaluation

    def get_action(self, state):
        best, choice = None, None
        for action in state.legal_actions(0):
            value = self.evaluation(state.successor(0, action))
            if best is None or value > best:
                best, choice = value, action
        return choice


def better_evaluation(state):
    return state.score
'''

EVALS_PY = '''
def ok(state):
    return state.score


def raises(state):
    raise ValueError("evaluation failed")


def returns_text(state):
    return "high"


NOT_CALLABLE = 3
'''


def bad_grid(rows: Iterable[str]) -> str:
    return "\n".join(rows) + "\n"


def huge_layout(path: Path) -> None:
    n = 500
    rows = ["%" * n] + ["%" + "." * (n - 2) + "%" for _ in range(n - 2)] + ["%" * n]
    rows[1] = "%P" + "." * (n - 4) + "G%"
    path.write_text("\n".join(rows) + "\n")


def long_row_layout(path: Path) -> None:
    path.write_text("P" + "." * 200_000 + "G\n")


def crowded_layout(path: Path) -> None:
    path.write_text(bad_grid(["%%%%%%%%%%%%", "%P.........%", "%.%%%%%%%%.%", "%GGGGGGGGGG%", "%%%%%%%%%%%%"]))


# Game-ending checks


def outcome_is(*outcomes: str) -> Callable[[Result], None]:
    def check(result: Result) -> None:
        game = result.only_game()
        assert game["outcome"] in outcomes, f"outcome {game['outcome']!r}, expected {outcomes}"
    return check


def _warned_once(result: Result, warning: str) -> None:
    assert result.err.count(warning) == 1, f"expected {warning!r} once on stderr, got {result.err!r}"


def never_won(result: Result) -> None:
    game = result.only_game()
    assert not game["won"], "a game without reachable food cannot be won"
    assert game["outcome"] != "won"


def same_as_lf(result: Result) -> None:
    game = result.only_game()
    assert (game["outcome"], game["score"], game["moves"]) == ("won", 553, 7), game


# -- layouts ------------------------------------------------------------------------------------


LAYOUT_CASES = [
    Case("layout-empty-file", play("bad.lay"), files={"bad.lay": ""}, names=("bad.lay",)),
    Case("layout-only-blank-lines", play("bad.lay"), files={"bad.lay": "\n\n   \n\t\n"}, names=("bad.lay",)),
    Case("layout-only-walls", play("bad.lay"), files={"bad.lay": "%%%\n%%%\n%%%\n"}, names=("bad.lay",)),
    Case("layout-no-pacman", play("bad.lay"), files={"bad.lay": "%%%%\n%.G%\n%%%%\n"}, names=("bad.lay",)),
    Case("layout-two-pacmen", play("bad.lay"), files={"bad.lay": "%%%%%\n%P.P%\n%%%%%\n"}, names=("bad.lay:2",)),
    Case("layout-ragged-short-row", play("bad.lay"), files={"bad.lay": "%%%%%\n%P.%\n%%%%%\n"}, names=("bad.lay:2",)),
    Case("layout-longer-later-row", play("long.lay"), status=0, sub=True, process=True, files={"long.lay": "%%%%%\n%P..%.\n%%%%%\n"},
         check=lambda r: (outcome_is("won")(r), _warned_once(r, "long.lay:2: LayoutWarning"))),
    Case("layout-tab-inside-row", play("ok.lay"), status=0, files={"ok.lay": "%%%%%\n%P\t.%\n%%%%%\n"},
         check=outcome_is("won")),
    Case("layout-bom", play("ok.lay"), status=0, files={"ok.lay": b"\xef\xbb\xbf" + TEST_LAY.encode()},
         check=same_as_lf),
    Case("layout-crlf", play("ok.lay"), status=0, files={"ok.lay": TEST_LAY.replace("\n", "\r\n").encode()},
         check=same_as_lf),
    Case("layout-cr-only", play("ok.lay"), status=0, files={"ok.lay": TEST_LAY.replace("\n", "\r").encode()},
         check=same_as_lf),
    Case("layout-trailing-spaces-and-blank-lines", play("ok.lay"), status=0,
         files={"ok.lay": "\n\n" + TEST_LAY.replace("\n", "   \n") + "\n\n\n"}, check=same_as_lf),
    Case("layout-no-final-newline", play("ok.lay"), status=0, files={"ok.lay": TEST_LAY.rstrip("\n")},
         check=same_as_lf),
    Case("layout-binary-nul", play("bad.lay"), files={"bad.lay": b"%%%\x00\x01\x02P\xff\xfe\n" * 4},
         names=("bad.lay",)),
    Case("layout-random-bytes", play("bad.lay"), files={"bad.lay": bytes(range(256)) * 8}, names=("bad.lay",)),
    Case("layout-non-utf8-latin1", play("bad.lay"), status=(0, 2),
         files={"bad.lay": "%%%%%\n%P.\xe9%\n%%%%%\n".encode("latin-1")}, names=("bad.lay",)),
    Case("layout-utf16", play("bad.lay"), files={"bad.lay": TEST_LAY.encode("utf-16")}, names=("bad.lay",)),
    Case("layout-emoji-cells-are-empty", play("ok.lay"), status=0, files={"ok.lay": "%%%%%\n%P\U0001F600.%\n%%%%%\n"},
         check=outcome_is("won")),
    Case("layout-1x1-pacman-only", play("one.lay", max_moves=None), status=0, files={"one.lay": "P\n"},
         sub=True, check=never_won),
    Case("layout-1x1-wall", play("one.lay"), files={"one.lay": "%\n"}, names=("one.lay",)),
    Case("layout-open-border", play("ok.lay"), status=0, files={"ok.lay": "P..\n...\n"}, check=outcome_is("won")),
    Case("layout-huge-500x500", play("huge.lay", max_moves="3"), status=(0, 2), files={"huge.lay": huge_layout},
         sub=True, timeout=30, names=("huge.lay",)),
    Case("layout-one-row-200k-cells", play("long.lay", max_moves="3"), status=(0, 2),
         files={"long.lay": long_row_layout}, sub=True, timeout=30, names=("long.lay",)),
    Case("layout-over-size-limit", play("big.lay"), files={"big.lay": lambda p: p.write_bytes(b"%" * (3 << 20))},
         names=("big.lay",)),
    Case("layout-ten-ghosts", play("crowd.lay", max_moves="3"), status=(0, 2), files={"crowd.lay": crowded_layout},
         sub=True, timeout=30, names=("crowd.lay",)),
    Case("layout-ghost-digits-5-9", play("digits.lay"), status=(0, 2),
         files={"digits.lay": "%%%%%%%%%\n%P.56789%\n%%%%%%%%%\n"}, names=("digits.lay",)),
    Case("layout-ghost-digit-0", play("digits.lay"), status=(0, 2), files={"digits.lay": "%%%%%\n%P.0%\n%%%%%\n"},
         names=("digits.lay",)),
    Case("layout-ghost-walled-in", play("bad.lay"), files={"bad.lay": "%%%%%%\n%P.%G%\n%%%%%%\n"},
         names=("bad.lay:2:5",)),
    Case("layout-pacman-walled-in-no-ghost", play("walled.lay", max_moves=None), status=0,
         files={"walled.lay": "%%%%%%\n%P%..%\n%%%%%%\n"}, sub=True, check=never_won),
    Case("layout-pacman-walled-in-no-ghost-max-moves", play("walled.lay", max_moves="10000000"), status=0,
         files={"walled.lay": "%%%%%%\n%P%..%\n%%%%%%\n"}, sub=True, check=never_won),
    Case("layout-no-food-no-ghosts", play("empty.lay", max_moves=None), status=0,
         files={"empty.lay": "%%%%%%\n%P   %\n%%%%%%\n"}, sub=True, check=never_won),
    Case("layout-no-food-no-ghosts-random-pacman", play("empty.lay", "--pacman", "random", max_moves=None),
         status=0, files={"empty.lay": "%%%%%%\n%P   %\n%%%%%%\n"}, sub=True, check=never_won),
    Case("layout-no-ghost-wins", play("ok.lay"), status=0, files={"ok.lay": NO_GHOST_LAY}, check=outcome_is("won")),
    Case("layout-fifo", play("pipe.lay"), files={"pipe.lay": Fifo()}, sub=True, names=("pipe.lay",)),
    Case("layout-dev-zero", play("/dev/zero"), sub=True, names=("/dev/zero",)),
    Case("layout-dev-null", play("/dev/null"), sub=True, names=("/dev/null",)),
    Case("layout-directory", play("folder"), files={"folder": Directory()}, names=("folder",)),
    Case("layout-directory-with-lay-suffix", play("maze.lay"), files={"maze.lay": Directory()}, names=("maze.lay",)),
    Case("layout-missing-path", play("nowhere/missing.lay"), names=("nowhere/missing.lay",)),
    Case("layout-name-typo", play("mediun"), names=("mediun", "medium")),
    Case("layout-name-empty", play(""), names=("layout",)),
    Case("layout-name-blank", play("   "), names=("layout",)),
    Case("layout-name-nul-byte", play("med\x00ium"), names=("med",)),
    Case("layout-name-very-long", play("x" * 300 + ".lay"), names=("xxxxxxxxxx",)),
    Case("layout-symlink-loop", play("loop.lay"), files={"loop.lay": Symlink("loop.lay")}, names=("loop.lay",)),
    Case("layout-dangling-symlink", play("gone.lay"), files={"gone.lay": Symlink("nowhere.lay")}, names=("gone.lay",)),
    Case("layout-classic-name-not-shipped", play("testClassic"), names=("testClassic", "CS188", "'test'")),
    Case("layout-classic-name-course-file", play("testClassic"), status=0, files={"layouts/testClassic.lay": NO_GHOST_LAY},
         check=outcome_is("won")),
    Case("layout-row-longer-than-first-is-cut", play("wider.lay"), status=0,
         files={"wider.lay": "%%%%%%\n%P...%  %%\n%%%%%%\n"}, check=outcome_is("won")),
    Case("layout-course-folder", play("mine"), status=0, files={"layouts/mine.lay": NO_GHOST_LAY},
         check=outcome_is("won")),
    Case("layout-course-folder-broken", play("mine"), files={"layouts/mine.lay": "%%%\n%%%\n"}, names=("mine",)),
    Case("batch-layout-fifo", ["batch", "--layout", "pipe.lay", "--games", "1", "--quiet"],
         files={"pipe.lay": Fifo()}, sub=True, names=("pipe.lay",)),
    Case("batch-layout-missing", ["batch", "--layout", "missing.lay", "--games", "1", "--quiet"],
         names=("missing.lay",)),
    Case("batch-layout-directory", ["batch", "--layout", "folder", "--games", "1", "--quiet"],
         files={"folder": Directory()}, names=("folder",)),
    Case("batch-layout-two-pacmen", ["batch", "--layout", "bad.lay", "--games", "1", "--quiet"],
         files={"bad.lay": "%%%%%\n%P.P%\n%%%%%\n"}, names=("bad.lay",)),
    Case("batch-layout-empty-in-list", ["batch", "--layout", "test,,small", "--games", "1", "--quiet"],
         names=("--layout",)),
    Case("batch-layout-walled-in", ["batch", "--layout", "walled.lay", "--games", "2", "--jobs", "1", "--quiet",
                                    "--out", "w.jsonl"], status=0,
         files={"walled.lay": "%%%%%%\n%P%..%\n%%%%%%\n"}, sub=True, timeout=30,
         check=lambda r: _lines_where(r, "w.jsonl", 2, lambda line: not line["won"])),
    Case("bench-layout-fifo", ["bench", "--layout", "pipe.lay", "--runs", "1"], files={"pipe.lay": Fifo()},
         sub=True, names=("pipe.lay",)),
    Case("bench-layout-dev-zero", ["bench", "--layout", "/dev/zero", "--runs", "1"], sub=True,
         names=("/dev/zero",)),
    Case("bench-layout-typo", ["bench", "--layout", "trickyy"], names=("trickyy",)),
]


def _lines_where(result: Result, name: str, count: int, predicate: Callable[[dict], bool]) -> None:
    lines = [json.loads(line) for line in (result.tmp / name).read_text().splitlines() if line.strip()]
    assert len(lines) == count, f"{name}: {len(lines)} lines, expected {count}"
    assert all(predicate(line) for line in lines), lines


# -- trees --------------------------------------------------------------------------------------


def tree(name: str = "t.json", *more: str) -> list[str]:
    return ["tree", name, *more]


def tree_value(value: float, action: str | None) -> Callable[[Result], None]:
    def check(result: Result) -> None:
        report = json.loads(result.out)
        assert report == {"value": value, "action": action}, report
    return check


def tree_value_near(value: float, action: str | None) -> Callable[[Result], None]:
    def check(result: Result) -> None:
        report = json.loads(result.out)
        assert report["action"] == action and report["value"] == pytest.approx(value, abs=1e-9), report
    return check


def deep_tree(path: Path) -> None:
    depth = 100_000
    path.write_text('{"max": [' * depth + "1" + "]}" * depth)


def huge_tree(path: Path) -> None:
    with open(path, "w") as handle:
        handle.write('{"max": [')
        handle.write(",".join(["1"] * 6_000_000))
        handle.write("]}")


def chance(p: str, children: str = "[1, 2]") -> str:
    return f'{{"max": [{{"chance": {children}, "p": {p}}}, 0]}}'


TREE_CASES = [
    Case("tree-invalid-json", tree(), files={"t.json": '{"max": [1, 2'}, names=("t.json",)),
    Case("tree-empty-file", tree(), files={"t.json": ""}, names=("t.json",)),
    Case("tree-json-null", tree(), files={"t.json": "null"}, names=("t.json",)),
    Case("tree-json-string", tree(), files={"t.json": '"max"'}, names=("t.json",)),
    Case("tree-json-list", tree(), files={"t.json": "[1, 2, 3]"}, names=("t.json",)),
    Case("tree-json-empty-object", tree(), files={"t.json": "{}"}, names=("t.json",)),
    Case("tree-unknown-kind", tree(), files={"t.json": '{"maximum": [1, 2]}'}, names=("t.json",)),
    Case("tree-two-kinds", tree(), files={"t.json": '{"max": [1], "min": [2]}'}, names=("t.json",)),
    Case("tree-children-not-list", tree(), files={"t.json": '{"max": 5}'}, names=("t.json",)),
    Case("tree-children-object", tree(), files={"t.json": '{"max": {"a": 1}}'}, names=("t.json",)),
    Case("tree-empty-children", tree(), files={"t.json": '{"max": []}'}, names=("t.json", "$")),
    Case("tree-empty-chance", tree(), files={"t.json": '{"max": [{"chance": []}]}'}, names=("t.json",)),
    Case("tree-p-sum-not-1", tree(), files={"t.json": chance("[0.5, 0.6]")}, names=("t.json", "$.max[0]")),
    Case("tree-p-sum-0", tree(), files={"t.json": chance("[0, 0]")}, names=("t.json",)),
    Case("tree-p-negative", tree(), files={"t.json": chance("[1.5, -0.5]")}, names=("t.json",)),
    Case("tree-p-nan", tree(), files={"t.json": chance("[NaN, 1]")}, names=("t.json",)),
    Case("tree-p-infinity", tree(), files={"t.json": chance("[Infinity, 0]")}, names=("t.json",)),
    Case("tree-p-strings", tree(), files={"t.json": chance('["0.5", "0.5"]')}, names=("t.json",)),
    Case("tree-p-booleans", tree(), files={"t.json": chance("[true, false]")}, names=("t.json",)),
    Case("tree-p-too-short", tree(), files={"t.json": chance("[1]")}, names=("t.json",)),
    Case("tree-p-too-long", tree(), files={"t.json": chance("[0.5, 0.5, 0]")}, names=("t.json",)),
    Case("tree-p-not-list", tree(), files={"t.json": chance("1")}, names=("t.json",)),
    Case("tree-p-null", tree(), files={"t.json": chance("null")}, names=("t.json",)),
    Case("tree-leaf-string", tree(), files={"t.json": '{"max": ["7", 2]}'}, names=("t.json",)),
    Case("tree-leaf-boolean", tree(), files={"t.json": '{"max": [true, 2]}'}, names=("t.json",)),
    Case("tree-leaf-null", tree(), files={"t.json": '{"max": [null, 2]}'}, names=("t.json",)),
    Case("tree-leaf-nan", tree(), files={"t.json": '{"max": [NaN, 2]}'}, names=("t.json",)),
    Case("tree-leaf-value-string", tree(), files={"t.json": '{"max": [{"value": "x"}, 2]}'}, names=("t.json",)),
    Case("tree-action-not-string", tree(), files={"t.json": '{"max": [{"value": 1, "action": 5}, 2]}'},
         names=("t.json",)),
    Case("tree-duplicate-actions", tree(), files={"t.json": '{"max": [{"value": 1, "action": "a"}, '
                                                             '{"value": 2, "action": "a"}]}'},
         names=("t.json",)),
    Case("tree-unknown-key", tree(), files={"t.json": '{"max": [1, 2], "colour": "red"}'}, names=("t.json",)),
    Case("tree-deep-nesting-100000", tree(), files={"t.json": deep_tree}, sub=True, names=("t.json",)),
    Case("tree-fifo", tree("pipe.json"), files={"pipe.json": Fifo()}, sub=True, names=("pipe.json",)),
    Case("tree-dev-zero", tree("/dev/zero"), sub=True, names=("/dev/zero",)),
    Case("tree-dev-null", tree("/dev/null"), sub=True, names=("/dev/null",)),
    Case("tree-directory", tree("folder"), files={"folder": Directory()}, names=("folder",)),
    Case("tree-missing", tree("missing.json"), names=("missing.json",)),
    Case("tree-binary", tree(), files={"t.json": bytes(range(256)) * 4}, names=("t.json",)),
    Case("tree-non-utf8", tree(), files={"t.json": '{"max": [1, 2], "name": "caf\xe9"}'.encode("latin-1")},
         names=("t.json",)),
    Case("tree-huge", tree("big.json", "--json"), status=(0, 2), files={"big.json": huge_tree}, sub=True,
         timeout=30, names=("big.json",), check=tree_value(1, "0")),
    Case("tree-depth-cut-without-value", tree("t.json", "--depth", "1"),
         files={"t.json": '{"max": [{"max": [1]}, 2]}'}, names=("t.json", "$.max[0]")),
    Case("tree-depth-negative", tree("t.json", "--depth", "-1"), files={"t.json": '{"max": [1, 2]}'},
         names=("--depth",)),
    Case("tree-depth-not-int", tree("t.json", "--depth", "two"), files={"t.json": '{"max": [1, 2]}'},
         names=("--depth", "two")),
    Case("tree-depth-float", tree("t.json", "--depth", "1.5"), files={"t.json": '{"max": [1, 2]}'},
         names=("--depth", "1.5")),
    Case("tree-depth-huge", tree("t.json", "--depth", str(10**30), "--json"), status=0,
         files={"t.json": '{"max": [1, {"chance": [4, 8]}]}'}, check=tree_value(6.0, "1")),
    Case("tree-depth-zero", tree("t.json", "--depth", "0", "--json"), status=0,
         files={"t.json": '{"max": [1, 2], "value": 3}'}, check=tree_value(3, None)),
    Case("tree-p-tenths-sum-within-tolerance", tree("t.json", "--json"), status=0,
         files={"t.json": '{"chance": [10, 10, 10, 10, 10, 10, 10, 10, 10, 10], "p": [0.1, 0.1, 0.1, 0.1, 0.1, '
                          '0.1, 0.1, 0.1, 0.1, 0.1]}'}, check=tree_value(10.0, None)),
    Case("tree-leaf-root", tree("t.json", "--json"), status=0, files={"t.json": "7"}, check=tree_value(7, None)),
    Case("tree-crlf-and-bom", tree("t.json", "--json"), status=(0, 2),
         files={"t.json": b"\xef\xbb\xbf{\r\n\"min\": [3, 1]\r\n}\r\n"}, names=("t.json",),
         check=tree_value(1, "1")),
    Case("tree-no-file-argument", ["tree"], names=("FILE.json",)),
    Case("tree-nul-in-name", tree("t\x00.json"), names=("t",)),
]


# -- replays ------------------------------------------------------------------------------------


@lru_cache(maxsize=None)
def base_replay() -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="corpus-replay-"))
    try:
        result = run_subprocess(["play", "--layout", "test", "--seed", "3", "--max-moves", "40", "--display", "none",
                                 "--save", "g.json", "--json"], folder, 30)
        assert result.status == 0, result.err
        return json.loads((folder / "g.json").read_text())
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def replay_file(mutate: Callable[[dict], Any] | None = None, raw: Callable[[str], str] | None = None,
                encoding: str = "utf-8") -> Callable[[Path], None]:
    def write(path: Path) -> None:
        data = json.loads(json.dumps(base_replay()))
        if mutate is not None:
            replaced = mutate(data)
            data = data if replaced is None else replaced
        text = json.dumps(data)
        if raw is not None:
            text = raw(text)
        path.write_bytes(text.encode(encoding))
    return write


def _set(key: str, value: Any) -> Callable[[dict], None]:
    def mutate(data: dict) -> None:
        data[key] = value
    return mutate


def _delete(key: str) -> Callable[[dict], None]:
    def mutate(data: dict) -> None:
        del data[key]
    return mutate


def _other_searched_move(data: dict) -> None:
    made = data["search"][0]["action"]
    data["search"][0]["action"] = "Stop" if made != "Stop" else "North"


def _illegal_first_move(data: dict) -> None:
    data["actions"][0] = "West"  # test layout: Pacman starts at (1, 3) with a wall to the west


def _after_end(data: dict) -> None:
    data["actions"] += ["North", "South"] * 4


def _score_off(data: dict) -> None:
    data["result"]["score"] += 1


def _won_flipped(data: dict) -> None:
    data["result"]["won"] = not data["result"]["won"]


def _layout_text(text: Any) -> Callable[[dict], None]:
    def mutate(data: dict) -> None:
        data["layout"]["text"] = text
    return mutate


def _crlf_layout(data: dict) -> None:
    data["layout"]["text"] = data["layout"]["text"].replace("\n", "\r\n")


def _replay_ok(result: Result) -> None:
    replayed = result.only_game()
    recorded = base_replay()["result"]
    assert (replayed["score"], replayed["moves"], replayed["outcome"]) == \
        (recorded["score"], recorded["moves"], recorded["outcome"]), (replayed, recorded)


def replay(name: str = "g.json", *more: str) -> list[str]:
    return ["replay", name, "--display", "none", "--json", *more]


REPLAY_CASES = [
    Case("replay-valid-baseline", replay(), status=0, files={"g.json": replay_file()}, check=_replay_ok),
    Case("replay-layout-crlf", replay(), status=0, files={"g.json": replay_file(_crlf_layout)}, check=_replay_ok),
    Case("replay-not-json", replay(), files={"g.json": "this is not json"}, names=("g.json",)),
    Case("replay-empty-file", replay(), files={"g.json": ""}, names=("g.json",)),
    Case("replay-json-list", replay(), files={"g.json": "[1, 2]"}, names=("g.json",)),
    Case("replay-json-number", replay(), files={"g.json": "42"}, names=("g.json",)),
    Case("replay-wrong-format", replay(), files={"g.json": replay_file(_set("format", "chess pgn"))},
         names=("g.json",)),
    Case("replay-no-format", replay(), files={"g.json": replay_file(_delete("format"))}, names=("g.json",)),
    Case("replay-version-3", replay(), files={"g.json": replay_file(_set("version", 3))}, names=("g.json", "3")),
    Case("replay-version-1-with-search", replay(), files={"g.json": replay_file(_set("version", 1))},
         names=("g.json", "search", "version 2")),
    Case("replay-search-not-list", replay(), files={"g.json": replay_file(_set("search", 17))},
         names=("g.json", "search")),
    Case("replay-search-short", replay(), files={"g.json": replay_file(lambda d: d.update(search=d["search"][:-1]))},
         names=("g.json", "search")),
    Case("replay-search-other-move", replay(), files={"g.json": replay_file(_other_searched_move)},
         names=("g.json", "search[0]")),
    Case("replay-search-value-word", replay(),
         files={"g.json": replay_file(lambda d: d["search"][0]["values"].update(East="big"))},
         names=("g.json", "search[0]", "'big'")),
    Case("replay-html-missing-folder", replay("g.json", "--html", "missing/g.html"), files={"g.json": replay_file()},
         names=("--html", "missing")),
    Case("replay-html-is-a-folder", replay("g.json", "--html", "."), files={"g.json": replay_file()},
         names=("--html", "folder")),
    Case("replay-version-string", replay(), files={"g.json": replay_file(_set("version", "1"))}, names=("g.json",)),
    Case("replay-version-true", replay(), files={"g.json": replay_file(_set("version", True))}, names=("g.json",)),
    Case("replay-no-actions", replay(), files={"g.json": replay_file(_delete("actions"))}, names=("g.json",)),
    Case("replay-actions-not-list", replay(), files={"g.json": replay_file(_set("actions", 17))}, names=("g.json",)),
    Case("replay-actions-unknown-word", replay(), files={"g.json": replay_file(_set("actions", ["North", "Jump"]))},
         names=("g.json",)),
    Case("replay-actions-lowercase", replay(), files={"g.json": replay_file(_set("actions", ["east"]))},
         names=("g.json",)),
    Case("replay-illegal-action", replay(), files={"g.json": replay_file(_illegal_first_move)},
         names=("g.json", "West")),
    Case("replay-actions-after-end", replay(), files={"g.json": replay_file(_after_end)}, names=("g.json",)),
    Case("replay-num-ghosts-string", replay(), files={"g.json": replay_file(_set("num_ghosts", "1"))},
         names=("g.json", "num_ghosts")),
    Case("replay-num-ghosts-negative", replay(), files={"g.json": replay_file(_set("num_ghosts", -1))},
         names=("g.json", "num_ghosts")),
    Case("replay-num-ghosts-too-many", replay(), files={"g.json": replay_file(_set("num_ghosts", 5))},
         names=("g.json", "num_ghosts")),
    Case("replay-num-ghosts-bool", replay(), files={"g.json": replay_file(_set("num_ghosts", True))},
         names=("g.json", "num_ghosts")),
    Case("replay-num-ghosts-float", replay(), files={"g.json": replay_file(_set("num_ghosts", 1.0))},
         names=("g.json", "num_ghosts")),
    Case("replay-num-ghosts-null", replay(), files={"g.json": replay_file(_set("num_ghosts", None))},
         names=("g.json", "num_ghosts")),
    Case("replay-score-mismatch", replay(), files={"g.json": replay_file(_score_off)}, names=("g.json", "score")),
    Case("replay-outcome-mismatch", replay(), files={"g.json": replay_file(_won_flipped)}, names=("g.json",)),
    Case("replay-result-not-object", replay(), files={"g.json": replay_file(_set("result", [1, 2]))},
         names=("g.json", "result")),
    Case("replay-result-missing", replay(), files={"g.json": replay_file(_delete("result"))}, names=("g.json",)),
    Case("replay-agents-not-object", replay(), files={"g.json": replay_file(_set("agents", "expectimax"))},
         names=("g.json", "agents")),
    Case("replay-seed-string", replay(), files={"g.json": replay_file(_set("seed", "three"))},
         names=("g.json", "seed")),
    Case("replay-layout-not-object", replay(), files={"g.json": replay_file(_set("layout", "test"))},
         names=("g.json", "layout")),
    Case("replay-layout-text-number", replay(), files={"g.json": replay_file(_layout_text(12))},
         names=("g.json", "layout")),
    Case("replay-layout-two-pacmen", replay(), files={"g.json": replay_file(_layout_text("%%%%%\n%P.P%\n%%%%%\n"))},
         names=("g.json",)),
    Case("replay-truncated", replay(), files={"g.json": replay_file(raw=lambda t: t[: len(t) // 2])},
         names=("g.json",)),
    Case("replay-truncated-last-byte", replay(), files={"g.json": replay_file(raw=lambda t: t[:-1])},
         names=("g.json",)),
    Case("replay-binary", replay(), files={"g.json": b"\x89PNG\r\n\x1a\n" + bytes(range(256))}, names=("g.json",)),
    Case("replay-non-utf8", replay(), files={"g.json": replay_file(raw=lambda t: t.replace('"name": "test"',
                                                                                        '"name": "t\xe9st"', 1),
                                                                  encoding="latin-1")}, names=("g.json",)),
    Case("replay-fifo", replay("pipe.json"), files={"pipe.json": Fifo()}, sub=True, names=("pipe.json",)),
    Case("replay-dev-zero", replay("/dev/zero"), sub=True, names=("/dev/zero",)),
    Case("replay-directory", replay("folder"), files={"folder": Directory()}, names=("folder",)),
    Case("replay-missing", replay("missing.json"), names=("missing.json",)),
    Case("replay-fps-zero", replay("g.json", "--fps", "0"), files={"g.json": replay_file()}, names=("--fps",)),
    Case("replay-zoom-negative", replay("g.json", "--zoom", "-2"), files={"g.json": replay_file()},
         names=("--zoom",)),
    Case("replay-display-unknown", replay("g.json", "--display", "hologram"), files={"g.json": replay_file()},
         names=("--display", "hologram")),
    Case("replay-no-file-argument", ["replay"], names=("GAME.json",)),
]


# -- play flags ---------------------------------------------------------------------------------


def flag(*more: str) -> list[str]:
    return [*PLAY, "--layout", "test", "--max-moves", "30", *more]


PLAY_FLAG_CASES = [
    Case("cli-no-arguments", [], names=(("COMMAND", "command"),)),
    Case("cli-unknown-subcommand", ["fly"], names=("fly",)),
    Case("cli-unknown-subcommand-typo", ["plya"], names=("plya",)),
    Case("cli-help", ["--help"], status=0, check=lambda r: _contains(r.out, "play")),
    Case("play-help", ["play", "--help"], status=0, check=lambda r: _contains(r.out, "--layout")),
    Case("play-unknown-flag", flag("--bogus"), names=("--bogus",)),
    Case("play-unknown-flag-typo", flag("--max-mvoes", "3"), names=("--max-mvoes",)),
    Case("play-extra-positional", flag("extra"), names=("extra",)),
    Case("play-flag-missing-value", ["play", "--seed"], names=("--seed",)),
    Case("play-seed-negative", flag("--seed", "-1"), names=("--seed",)),
    Case("play-seed-text", flag("--seed", "abc"), names=("--seed", "abc")),
    Case("play-seed-float", flag("--seed", "1.5"), names=("--seed", "1.5")),
    Case("play-seed-empty", flag("--seed", ""), names=("--seed",)),
    Case("play-seed-huge", flag("--seed", str(10**30)), status=(0, 2), names=("--seed",),
         check=lambda r: _equal(r.only_game()["seed"], 10**30)),
    Case("play-games-zero", flag("--games", "0"), names=("--games",)),
    Case("play-games-negative", flag("--games", "-3"), names=("--games",)),
    Case("play-games-huge", flag("--games", str(10**30)), names=("--games",), sub=True),
    Case("play-games-nan", flag("--games", "nan"), names=("--games", "nan")),
    Case("play-max-moves-zero", flag("--max-moves", "0"), names=("--max-moves",)),
    Case("play-max-moves-float", flag("--max-moves", "2.5"), names=("--max-moves",)),
    Case("play-max-moves-huge", [*PLAY, "--layout", "test", "--max-moves", str(10**30)], status=0,
         check=outcome_is("won")),
    Case("play-max-moves-one", [*PLAY, "--layout", "test", "--max-moves", "1"], status=0,
         check=outcome_is("cut-off")),
    Case("play-num-ghosts-too-many", flag("--num-ghosts", "2"), names=("--num-ghosts",)),
    Case("play-num-ghosts-huge", flag("--num-ghosts", str(10**30)), names=("--num-ghosts",)),
    Case("play-num-ghosts-negative", flag("--num-ghosts", "-1"), names=("--num-ghosts",)),
    Case("play-num-ghosts-zero", flag("--num-ghosts", "0"), status=0, check=outcome_is("won")),
    Case("play-ghosts-unknown", flag("--ghosts", "purple"), names=("--ghosts", "purple")),
    Case("play-ghosts-empty", flag("--ghosts", ""), names=("--ghosts",)),
    Case("play-move-time-limit-zero", flag("--move-time-limit", "0"), names=("--move-time-limit",)),
    Case("play-move-time-limit-negative", flag("--move-time-limit", "-1"), names=("--move-time-limit",)),
    Case("play-move-time-limit-nan", flag("--move-time-limit", "nan"), names=("--move-time-limit",)),
    Case("play-move-time-limit-inf", flag("--move-time-limit", "inf"), status=(0, 2), names=("--move-time-limit",),
         check=outcome_is("won")),
    Case("play-move-time-limit-tiny", flag("--move-time-limit", "1e-9"), status=0, check=outcome_is("timed-out")),
    Case("play-fps-zero", flag("--fps", "0"), names=("--fps",)),
    Case("play-fps-negative", flag("--fps", "-8"), names=("--fps",)),
    Case("play-fps-nan", flag("--fps", "nan"), names=("--fps",)),
    Case("play-fps-inf", flag("--fps", "inf"), names=("--fps",)),
    Case("play-fps-text", flag("--fps", "fast"), names=("--fps", "fast")),
    Case("play-fps-tiny-text-display", ["play", "--layout", "test", "--max-moves", "30", "--display", "text",
                                        "--fps", "1e-300", "--seed", "1"], status=(0, 2), sub=True, names=("--fps",)),
    Case("play-fps-huge-text-display", ["play", "--layout", "test", "--max-moves", "30", "--display", "text",
                                        "--fps", "1e300", "--seed", "1"], status=(0, 2), sub=True, names=("--fps",)),
    Case("play-zoom-zero", flag("--zoom", "0"), names=("--zoom",)),
    Case("play-zoom-nan", flag("--zoom", "nan"), names=("--zoom",)),
    Case("play-zoom-huge-record", flag("--zoom", "1000", "--record", "g.gif"), sub=True, names=("--zoom",)),
    Case("play-zoom-huge-pygame", ["play", "--layout", "test", "--max-moves", "5", "--display", "pygame",
                                   "--zoom", "1e6", "--seed", "1"], sub=True, names=("--zoom",)),
    Case("play-zoom-tiny-record", flag("--zoom", "1e-6", "--record", "g.gif"), sub=True, names=("--zoom",)),
    Case("play-display-unknown", flag("--display", "vr"), names=("--display", "vr")),
    Case("play-keyboard-without-window", flag("--pacman", "keyboard"), names=("keyboard",)),
    Case("play-keyboard-with-agent-args", ["play", "--pacman", "keyboard", "--display", "pygame",
                                           "--agent-args", "depth=2"], names=("keyboard",)),
    Case("play-json-records-effective-agent-args", [*PLAY, "--layout", "test"], status=0,
         check=lambda r: _effective(r.only_game()["agent_args"])),
    Case("play-games-two-json", flag("--games", "2"), status=0,
         check=lambda r: _equal([g["seed"] for g in r.json_lines()], [1, 2])),
]


def _contains(text: str, part: str) -> None:
    assert part in text, f"{part!r} not in output"


def _equal(actual: Any, expected: Any) -> None:
    assert actual == expected, f"{actual!r} != {expected!r}"


def _effective(agent_args: dict[str, Any]) -> None:
    assert agent_args.get("depth") == "auto" and agent_args.get("evaluation") == "dots", \
        f"--json records agent_args {agent_args}, not the effective depth=auto, evaluation=dots"


# -- output paths (play, batch, grade) ----------------------------------------------------------


def _regular_replay(name: str) -> Callable[[Result], None]:
    def check(result: Result) -> None:
        path = result.tmp / name
        assert path.is_file() and not path.is_fifo(), f"{name} is not a regular file"
        json.loads(path.read_text())
    return check


def _png_frames(result: Result) -> None:
    frames = sorted((result.tmp / "frames").glob("*.png"))
    assert frames, "no PNG frames written into the existing folder"


OUTPUT_CASES = [
    Case("play-save-directory", flag("--save", "out"), files={"out": Directory()}, names=("out",)),
    Case("play-save-missing-folder", flag("--save", "nowhere/g.json"), names=("nowhere",)),
    Case("play-save-fifo", flag("--save", "pipe.json"), status=(0, 2), files={"pipe.json": Fifo()}, sub=True,
         names=("pipe.json",), check=_regular_replay("pipe.json")),
    Case("play-save-empty-name", flag("--save", ""), names=("--save",)),
    Case("play-save-into-file-as-folder", flag("--save", "afile/g.json"), files={"afile": "x"}, names=("afile",)),
    Case("play-record-missing-folder", flag("--record", "nowhere/g.gif"), names=("nowhere",)),
    Case("play-record-bad-suffix", flag("--record", "g.txt"), names=("g.txt",)),
    Case("play-record-fifo", flag("--record", "pipe"), files={"pipe": Fifo()}, sub=True, names=("pipe",)),
    Case("play-record-gif-is-directory", flag("--record", "g.gif"), files={"g.gif": Directory()}, sub=True,
         names=("g.gif",)),
    Case("play-record-existing-file-as-frame-folder", flag("--record", "frames"), files={"frames": "x"}, sub=True,
         names=("frames",)),
    Case("play-record-empty-name", flag("--record", ""), names=("--record",)),
    Case("play-record-existing-folder-png-frames", flag("--record", "frames", "--max-moves", "3"), status=0,
         files={"frames": Directory()}, sub=True, check=_png_frames),
    Case("batch-out-directory", ["batch", "--layout", "test", "--games", "1", "--out", "out", "--quiet"],
         files={"out": Directory()}, names=("out",)),
    Case("batch-out-missing-folder", ["batch", "--layout", "test", "--games", "1", "--out", "no/r.jsonl", "--quiet"],
         names=("no/r.jsonl",)),
    Case("batch-out-fifo", ["batch", "--layout", "test", "--games", "1", "--out", "pipe.jsonl", "--quiet",
                            "--force"], files={"pipe.jsonl": Fifo()}, sub=True, names=("pipe.jsonl",)),
    Case("batch-out-empty-name", ["batch", "--layout", "test", "--games", "1", "--out", "", "--quiet"],
         names=("--out",)),
    Case("batch-out-exists", ["batch", "--layout", "test", "--games", "1", "--out", "r.jsonl", "--quiet"],
         files={"r.jsonl": "my notes, not results\n"}, names=("r.jsonl",)),
    Case("batch-summary-directory", ["batch", "--layout", "test", "--games", "1", "--summary", "out", "--quiet"],
         files={"out": Directory()}, names=("out",)),
    Case("batch-summary-missing-folder", ["batch", "--layout", "test", "--games", "1", "--summary", "no/s.json",
                                          "--quiet"], names=("no/s.json",)),
    Case("batch-summary-fifo", ["batch", "--layout", "test", "--games", "1", "--max-moves", "20", "--jobs", "1",
                                "--summary", "pipe.json", "--quiet"], status=(0, 2), files={"pipe.json": Fifo()},
         sub=True, names=("pipe.json",), check=_regular_replay("pipe.json")),
    Case("batch-summary-empty-name", ["batch", "--layout", "test", "--games", "1", "--summary", "", "--quiet"],
         names=("--summary",)),
    Case("batch-plot-bad-suffix", ["batch", "--layout", "test", "--games", "1", "--plot", "p.txt", "--quiet"],
         names=("p.txt",)),
    Case("batch-plot-directory", ["batch", "--layout", "test", "--games", "1", "--plot", "p.png", "--quiet"],
         files={"p.png": Directory()}, names=("p.png",)),
    Case("batch-plot-missing-folder", ["batch", "--layout", "test", "--games", "1", "--plot", "no/p.png",
                                       "--quiet"], names=("no/p.png",)),
]


# -- agent and evaluation specs -----------------------------------------------------------------


AGENT_FILES = {"agents_x.py": AGENTS_PY, "evals.py": EVALS_PY, "student.py": STUDENT_PY,
               "syntax.py": "class Broken(:\n    pass\n",
               "import_raises.py": "raise ImportError('missing dependency for this agent')\n",
               "import_exits.py": "import sys\nsys.exit(5)\n",
               "import_exit_builtin.py": "raise SystemExit('bye')\n"}


def agent(spec: str, *more: str, layout: str = "test") -> list[str]:
    return [*PLAY, "--layout", layout, "--max-moves", "30", "--pacman", spec, *more]


def args(text: str, *more: str) -> list[str]:
    return [*PLAY, "--layout", "test", "--max-moves", "30", "--agent-args", text, *more]


def crashed_with(*words: str) -> Callable[[Result], None]:
    def check(result: Result) -> None:
        game = result.only_game()
        assert game["outcome"] == "crashed" and game["crashed"], game
        for word in words:
            assert word in (game.get("error") or ""), f"error {game.get('error')!r} does not mention {word!r}"
    return check


def not_crashed(result: Result) -> None:
    game = result.only_game()
    assert not game["crashed"] and game["outcome"] in ("won", "lost", "cut-off"), game


AGENT_CASES = [
    Case("agent-unknown-name", agent("expectimaxx"), names=("expectimaxx",)),
    Case("agent-empty-name", agent(""), names=(("--pacman", "Pacman agent"),)),
    Case("agent-missing-file", agent("missing.py:Agent"), names=("missing.py",)),
    Case("agent-missing-module", agent("no_such_module_zz:Agent"), names=("no_such_module_zz",)),
    Case("agent-file-without-class", agent("agents_x.py:Nope"), files=AGENT_FILES, names=("Nope",)),
    Case("agent-empty-class-name", agent("agents_x.py:"), files=AGENT_FILES, names=("agents_x.py",)),
    Case("agent-empty-module", agent(":Good"), names=(":Good",)),
    Case("agent-two-colons", agent("agents_x.py:Good:Extra"), files=AGENT_FILES, names=("Extra",)),
    Case("agent-syntax-error", agent("syntax.py:Broken"), files=AGENT_FILES, names=("syntax.py",)),
    Case("agent-module-raises-at-import", agent("import_raises.py:Agent"), files=AGENT_FILES,
         names=("import_raises.py",)),
    Case("agent-module-exits-at-import", agent("import_exits.py:Agent"), files=AGENT_FILES, sub=True,
         names=("import_exits.py",)),
    Case("agent-module-raises-systemexit-at-import", agent("import_exit_builtin.py:Agent"), files=AGENT_FILES,
         sub=True, names=("import_exit_builtin.py",)),
    Case("agent-not-a-class", agent("agents_x.py:NOT_A_CLASS"), files=AGENT_FILES, names=("NOT_A_CLASS",)),
    Case("agent-factory-returns-none", agent("agents_x.py:factory_none"), files=AGENT_FILES,
         names=("factory_none",)),
    Case("agent-no-get-action", agent("agents_x.py:NoGetAction"), files=AGENT_FILES, names=("NoGetAction",)),
    Case("agent-module-function-not-agent", agent("os:getcwd"), names=("os:getcwd",)),
    Case("agent-init-raises", agent("agents_x.py:InitRaises"), files=AGENT_FILES, names=("InitRaises",)),
    Case("agent-init-sys-exit", agent("agents_x.py:InitExits"), status=(0, 2), files=AGENT_FILES, sub=True,
         names=("InitExits",), check=crashed_with()),
    Case("agent-get-action-garbage", agent("agents_x.py:Garbage"), status=0, files=AGENT_FILES,
         check=crashed_with("banana")),
    Case("agent-get-action-none", agent("agents_x.py:ReturnsNone"), status=0, files=AGENT_FILES,
         check=crashed_with()),
    Case("agent-get-action-raises", agent("agents_x.py:Raises"), status=0, files=AGENT_FILES,
         check=crashed_with("divided by zero")),
    Case("agent-get-action-sys-exit", agent("agents_x.py:Exits"), status=0, files=AGENT_FILES, sub=True,
         check=crashed_with()),
    Case("agent-get-action-systemexit-message", agent("agents_x.py:ExitsBuiltin"), status=0, files=AGENT_FILES,
         sub=True, check=crashed_with("not implemented yet")),
    Case("agent-get-action-generator-exit", agent("agents_x.py:Interrupts"), status=0, files=AGENT_FILES,
         sub=True, check=crashed_with()),
    # os._exit ends the interpreter at once: play (one process) cannot record the game; the status is the agent's.
    Case("agent-get-action-os-exit", agent("agents_x.py:OsExit"), status=(0, 2, 9), silent=(9,), files=AGENT_FILES, sub=True,
         names=("OsExit",), check=crashed_with()),
    Case("agent-get-action-loops-with-time-limit", agent("agents_x.py:Loops", "--move-time-limit", "0.3"),
         status=0, files=AGENT_FILES, sub=True, check=outcome_is("timed-out")),
    Case("agent-good-with-arg", agent("agents_x.py:Good", "--agent-args", "depth=3"), status=0, files=AGENT_FILES,
         check=not_crashed),
    Case("agent-good-unknown-arg", agent("agents_x.py:Good", "--agent-args", "width=3"), files=AGENT_FILES,
         names=("width",)),
    Case("agent-student-with-evaluation", agent("student.py:ExpectimaxAgent", "--agent-args",
                                                "depth=2,evaluation=student.py:better_evaluation"),
         status=0, files=AGENT_FILES, check=not_crashed),
    Case("agent-student-without-evaluation", agent("student.py:ExpectimaxAgent", "--agent-args", "depth=2"),
         status=0, files=AGENT_FILES, check=not_crashed),
    Case("agent-student-default-args", agent("student.py:ExpectimaxAgent"), status=0, files=AGENT_FILES,
         check=not_crashed),
    Case("agent-random-with-depth", agent("random", "--agent-args", "depth=2"), names=("depth",)),
    Case("agent-greedy-with-evaluation", agent("greedy", "--agent-args", "evaluation=score"),
         status=(0, 2), names=("evaluation",), check=not_crashed),
    # --agent-args
    Case("args-depth-text", args("depth=abc"), names=("depth", "abc")),
    Case("args-depth-negative", args("depth=-1"), names=("depth", "-1")),
    Case("args-depth-zero", args("depth=0"), names=("depth", "0")),
    Case("args-depth-float", args("depth=1.5"), names=("depth", "1.5")),
    Case("args-depth-huge", args(f"depth={10**30}"), names=("depth",), sub=True),
    Case("args-depth-nan", args("depth=nan"), names=("depth",)),
    Case("args-depth-none-without-time-limit", args("depth=none"), names=("depth",)),
    Case("args-depth-bool", args("depth=true"), names=("depth",)),
    Case("args-time-limit-zero", args("depth=none,time_limit=0"), names=("time_limit",)),
    Case("args-time-limit-negative", args("time_limit=-1"), names=("time_limit",)),
    Case("args-time-limit-nan", args("depth=none,time_limit=nan"), names=("time_limit",)),
    Case("args-time-limit-text", args("time_limit=soon"), names=("time_limit", "soon")),
    Case("args-node-limit-zero", args("node_limit=0"), names=("node_limit",)),
    Case("args-node-limit-float", args("node_limit=1e5"), names=("node_limit",)),
    Case("args-node-limit-text", args("node_limit=lots"), names=("node_limit",)),
    Case("args-unknown-key", args("speed=3"), names=("speed",)),
    Case("args-unicode-key", args("dépth=3"), names=("dépth",)),
    Case("args-no-equals", args("depth"), names=("depth",)),
    Case("args-empty-key", args("=3"), names=("=3",)),
    Case("args-duplicate-key", args("depth=2,depth=3"), names=("depth",)),
    Case("args-only-commas", args(",,,"), names=((",,,", "--agent-args"),)),
    Case("args-empty-string", args(""), status=0, check=not_crashed),
    Case("args-ghost-model-unknown", args("ghost_model=purple"), names=("purple",)),
    Case("args-transposition-text", args("transposition=maybe"), names=("transposition", "maybe")),
    Case("args-pruning-number", args("pruning=7"), names=("pruning",)),
    # evaluation specs
    Case("eval-unknown-name", args("evaluation=smartest"), names=("smartest",)),
    Case("eval-empty", args("evaluation="), names=("evaluation",)),
    Case("eval-missing-file", args("evaluation=missing.py:f"), names=("missing.py",)),
    Case("eval-missing-function", args("evaluation=evals.py:nope"), files=AGENT_FILES, names=("nope",)),
    Case("eval-not-callable", args("evaluation=evals.py:NOT_CALLABLE"), files=AGENT_FILES, names=("NOT_CALLABLE",)),
    Case("eval-syntax-error", args("evaluation=syntax.py:f"), files=AGENT_FILES, names=("syntax.py",)),
    Case("eval-module-exits-at-import", args("evaluation=import_exits.py:f"), files=AGENT_FILES, sub=True,
         names=("import_exits.py",)),
    Case("eval-missing-module", args("evaluation=no_such_module_zz:f"), names=("no_such_module_zz",)),
    Case("eval-raises-during-game", args("evaluation=evals.py:raises"), status=0, files=AGENT_FILES,
         check=crashed_with("evaluation failed")),
    Case("eval-returns-text", args("evaluation=evals.py:returns_text"), status=(0, 2), files=AGENT_FILES,
         names=("returns_text",), check=crashed_with()),
    Case("eval-file-function-ok", args("evaluation=evals.py:ok,depth=1"), status=0, files=AGENT_FILES,
         check=not_crashed),
    Case("eval-module-function-ok", args("evaluation=pacman.agents.evaluation:score_evaluation,depth=1"), status=(0, 2),
         names=("score_evaluation",), check=not_crashed),
]


# -- batch flags and resume files ---------------------------------------------------------------


def batch(*more: str) -> list[str]:
    return ["batch", "--layout", "test", "--games", "3", "--max-moves", "20", "--jobs", "1", "--quiet", *more]


BATCH_FLAG_CASES = [
    Case("batch-games-zero", batch("--games", "0"), names=("--games",)),
    Case("batch-games-negative", batch("--games", "-5"), names=("--games",)),
    Case("batch-games-huge", batch("--games", str(10**30)), names=("--games",), sub=True),
    Case("batch-games-text", batch("--games", "many"), names=("--games", "many")),
    Case("batch-jobs-zero", batch("--jobs", "0"), names=("--jobs",)),
    Case("batch-jobs-huge", batch("--jobs", str(10**30), "--games", "2"), status=(0, 2), names=("--jobs",),
         sub=True),
    Case("batch-seed-negative", batch("--seed", "-1"), names=("--seed",)),
    Case("batch-seed-huge", batch("--seed", str(10**30), "--games", "1"), status=(0, 2), names=("--seed",),
         sub=True),
    Case("batch-max-moves-zero", batch("--max-moves", "0"), names=("--max-moves",)),
    Case("batch-move-time-limit-nan", batch("--move-time-limit", "nan"), names=("--move-time-limit",)),
    Case("batch-num-ghosts-text", batch("--num-ghosts", "1,x"), names=("--num-ghosts",)),
    Case("batch-num-ghosts-too-many", batch("--num-ghosts", "5"), names=("--num-ghosts",)),
    Case("batch-num-ghosts-empty-item", batch("--num-ghosts", "0,,1"), names=("--num-ghosts",)),
    Case("batch-ghosts-unknown", batch("--ghosts", "random,purple"), names=("purple",)),
    Case("batch-ghosts-empty", batch("--ghosts", ""), names=("--ghosts",)),
    Case("batch-pacman-unknown-in-list", batch("--pacman", "expectimax,nope"), names=("nope",)),
    Case("batch-pacman-missing-file", batch("--pacman", "missing.py:Agent"), names=("missing.py",)),
    Case("batch-pacman-init-raises", batch("--pacman", "agents_x.py:InitRaises"), files=AGENT_FILES,
         names=("InitRaises",)),
    Case("batch-agent-args-bad-depth", batch("--agent-args", "depth=1,x"), names=("depth",)),
    Case("batch-agent-args-unknown-key", batch("--agent-args", "speed=1,2"), names=("speed",)),
    Case("batch-resume-without-out", batch("--resume"), names=("--resume", "--out")),
    Case("batch-resume-and-force", batch("--out", "r.jsonl", "--resume", "--force"), names=("--resume", "--force")),
    Case("batch-jobs-with-remote-dask", batch("--dask", "tcp://127.0.0.1:1", "--jobs", "2"),
         names=("--jobs",)),
    Case("batch-dask-unreachable", ["batch", "--layout", "test", "--games", "1", "--quiet", "--dask",
                                    "tcp://127.0.0.1:9"], sub=True, timeout=20, slow=True, names=("tcp://127.0.0.1:9",)),
    Case("batch-dask-garbage-address", ["batch", "--layout", "test", "--games", "1", "--quiet", "--dask",
                                        "not an address"], sub=True, timeout=20, names=("not an address",)),
    Case("batch-unknown-flag", batch("--verbosity"), names=("--verbosity",)),
    Case("batch-agent-sys-exit-every-game", batch("--pacman", "agents_x.py:Exits", "--out", "r.jsonl"), status=0,
         files=AGENT_FILES, sub=True, timeout=30,
         check=lambda r: _lines_where(r, "r.jsonl", 3, lambda line: line["crashed"])),
    # README: a worker killed by an agent's os._exit is a crashed game and the batch goes on; a batch that stops
    # instead because every game's worker died must at least name the agent.
    # The agent's os._exit is caught where it is called (pacman.user_code): a crash named by the call, the worker kept.
    Case("batch-agent-os-exit-every-game", batch("--pacman", "agents_x.py:OsExit", "--out", "r.jsonl"), status=(0, 2),
         files=AGENT_FILES, sub=True, timeout=60, slow=True, names=("OsExit",),
         check=lambda r: _lines_where(r, "r.jsonl", 3, lambda line: line["crashed"]
                                      and line["error"] == "Pacman (agent 0) called os._exit(9)"
                                      and line["error_frames"][0].startswith("agents_x.py:"))),
    Case("batch-agent-garbage-every-game", batch("--pacman", "agents_x.py:Garbage", "--out", "r.jsonl"), status=0,
         files=AGENT_FILES, sub=True,
         check=lambda r: _lines_where(r, "r.jsonl", 3, lambda line: line["crashed"])),
    Case("batch-lines-record-effective-agent-args", batch("--out", "r.jsonl", "--games", "1"), status=0, sub=True,
         check=lambda r: _lines_where(r, "r.jsonl", 1, lambda line: line["agent_args"].get("depth") == "auto"
                                      and line["agent_args"].get("evaluation") == "dots")),
]


@lru_cache(maxsize=None)
def base_results() -> tuple[str, ...]:
    """The lines of a complete 3-game batch with the flags of `batch()`."""
    folder = Path(tempfile.mkdtemp(prefix="corpus-batch-"))
    try:
        result = run_subprocess(batch("--out", "r.jsonl"), folder, 60)
        assert result.status == 0, result.err
        return tuple((folder / "r.jsonl").read_text().splitlines())
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def results_file(edit: Callable[[list[str]], list[str] | bytes]) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        lines = edit(list(base_results()))
        if isinstance(lines, bytes):
            path.write_bytes(lines)
        else:
            path.write_text("".join(line + "\n" for line in lines))
    return write


def _line_with(line: str, **changes: Any) -> str:
    record = json.loads(line)
    record.update(changes)
    return json.dumps(record)


def resume(*more: str) -> list[str]:
    return batch("--out", "r.jsonl", "--resume", *more)


def _resumed(count: int) -> Callable[[Result], None]:
    def check(result: Result) -> None:
        _lines_where(result, "r.jsonl", count, lambda line: True)
        indexes = sorted(json.loads(line)["index"] for line in (result.tmp / "r.jsonl").read_text().splitlines()
                         if line.strip())
        assert indexes == list(range(count)), indexes
    return check


RESUME_CASES = [
    Case("resume-complete-file", resume(), status=0, files={"r.jsonl": results_file(lambda lines: lines)}, sub=True,
         check=_resumed(3)),
    Case("resume-extend-games", resume("--games", "5"), status=0,
         files={"r.jsonl": results_file(lambda lines: lines)}, sub=True, check=_resumed(5)),
    Case("resume-empty-file", resume(), status=0, files={"r.jsonl": ""}, sub=True, check=_resumed(3)),
    Case("resume-half-last-line", resume(), status=0,
         files={"r.jsonl": results_file(lambda lines: ("\n".join(lines[:2]) + "\n" + lines[2][:40]).encode())},
         sub=True, check=_resumed(3)),
    Case("resume-duplicated-line", resume(), files={"r.jsonl": results_file(lambda lines: lines[:2] + lines[1:2])},
         sub=True, names=("r.jsonl", "line 3")),
    Case("resume-index-beyond-games", resume("--games", "2"), files={"r.jsonl": results_file(lambda lines: lines)},
         sub=True, names=("r.jsonl", "line")),
    Case("resume-index-far-beyond", resume(), files={"r.jsonl": results_file(
        lambda lines: lines[:2] + [_line_with(lines[2], index=999)])}, sub=True, names=("r.jsonl", "line 3")),
    Case("resume-index-negative", resume(), files={"r.jsonl": results_file(
        lambda lines: [_line_with(lines[0], index=-1)] + lines[1:])}, sub=True, names=("r.jsonl", "line 1")),
    Case("resume-index-string", resume(), files={"r.jsonl": results_file(
        lambda lines: [_line_with(lines[0], index="0")] + lines[1:])}, sub=True, names=("r.jsonl", "line 1")),
    Case("resume-malformed-middle-line", resume(), files={"r.jsonl": results_file(
        lambda lines: [lines[0], "{not json", lines[2]])}, sub=True, names=("r.jsonl", "line 2")),
    Case("resume-array-line", resume(), files={"r.jsonl": results_file(lambda lines: [lines[0], "[1, 2]"])},
         sub=True, names=("r.jsonl", "line 2")),
    Case("resume-other-depth", resume("--agent-args", "depth=3"), files={"r.jsonl": results_file(lambda lines: lines)},
         sub=True, names=("r.jsonl", "--agent-args")),
    Case("resume-other-layout", ["batch", "--layout", "tiny", "--games", "3", "--max-moves", "20", "--jobs", "1",
                                 "--quiet", "--out", "r.jsonl", "--resume"],
         files={"r.jsonl": results_file(lambda lines: lines)}, sub=True, names=("r.jsonl", "--layout")),
    Case("resume-other-seed", resume("--seed", "7"), files={"r.jsonl": results_file(lambda lines: lines)}, sub=True,
         names=("r.jsonl", "seed")),
    Case("resume-binary", resume(), files={"r.jsonl": bytes(range(256)) * 4 + b"\n"}, sub=True, names=("r.jsonl",)),
    Case("resume-non-utf8-line", resume(), files={"r.jsonl": results_file(
        lambda lines: (lines[0] + "\n" + "\xe9\n").encode("latin-1"))}, sub=True, names=("r.jsonl", "line 2")),
    Case("resume-line-without-index", resume(), files={"r.jsonl": results_file(
        lambda lines: [json.dumps({k: v for k, v in json.loads(lines[0]).items() if k != "index"})] + lines[1:])},
         sub=True, names=("r.jsonl", "line 1")),
    Case("resume-score-of-wrong-type", resume(), files={"r.jsonl": results_file(
        lambda lines: [_line_with(lines[0], won="yes")] + lines[1:])}, sub=True, names=("r.jsonl", "line 1")),
    Case("resume-directory", resume(), files={"r.jsonl": Directory()}, names=("r.jsonl",)),
    Case("resume-fifo", resume(), files={"r.jsonl": Fifo()}, sub=True, names=("r.jsonl",)),
]


# -- bench, layouts ----------------------------------------------------------------------------


BENCH_CASES = [
    Case("bench-runs-zero", ["bench", "--runs", "0"], names=("--runs",)),
    Case("bench-runs-huge", ["bench", "--runs", str(10**30), "--part", "engine"], sub=True, names=("--runs",)),
    Case("bench-successors-huge", ["bench", "--successors", str(10**30), "--runs", "1", "--part", "engine"],
         sub=True, names=("--successors",)),
    Case("bench-successors-text", ["bench", "--successors", "lots"], names=("--successors", "lots")),
    Case("bench-depths-empty", ["bench", "--depths", ""], names=("--depths",)),
    Case("bench-depths-zero", ["bench", "--depths", "0"], names=("--depths",)),
    Case("bench-depths-gap", ["bench", "--depths", "2,,3"], names=("--depths",)),
    Case("bench-depths-huge", ["bench", "--part", "search", "--depths", "100", "--positions", "1"], sub=True,
         names=("--depths",)),
    Case("bench-positions-huge", ["bench", "--part", "search", "--positions", str(10**30), "--depths", "2"],
         sub=True, names=("--positions",)),
    Case("bench-positions-zero", ["bench", "--positions", "0"], names=("--positions",)),
    Case("bench-part-unknown", ["bench", "--part", "gpu"], names=("--part", "gpu")),
    Case("bench-seed-negative", ["bench", "--seed", "-4"], names=("--seed",)),
    Case("layouts-extra-argument", ["layouts", "medium"], names=("medium",)),
    Case("layouts-unknown-flag", ["layouts", "--all"], names=("--all",)),
    Case("layouts-json", ["layouts", "--json"], status=0,
         check=lambda r: _contains(json.dumps(json.loads(r.out)), '"name": "medium"')),
]


# -- assignments and submissions -----------------------------------------------------------------


MINI_TREE = '{"max": [{"action": "West", "chance": [8, 8]}, {"action": "Stop", "chance": [2, 20]}, ' \
            '{"action": "East", "chance": [0, 25, 2]}]}'

MINI_HEAD = '[assignment]\nid = "mini"\nsubmission_file = "multi_agents.py"\n\n'
MINI_QUESTION = '[[questions]]\nid = "q1"\npoints = 2\n\n'
MINI_TEST = '[[questions.tests]]\nname = "t1"\nkind = "tree"\ntree = "trees/t.json"\nghosts = 1\ndepth = 1\n'
MINI_TOML = MINI_HEAD + MINI_QUESTION + MINI_TEST


def assignment(toml: str = MINI_TOML, **extra: Any) -> dict[str, Any]:
    files: dict[str, Any] = {"asg/assignment.toml": toml, "asg/trees/t.json": MINI_TREE,
                             "sub.py": (SUBMISSIONS / "correct.py").read_text()}
    files.update({f"asg/{k}" if not k.startswith("/") else k[1:]: v for k, v in extra.items()})
    return files


def grade(*more: str) -> list[str]:
    return ["grade", "asg", "sub.py", *more]


def tree_toml(**changes: Any) -> str:
    """MINI_TOML with the tree test's keys changed (None removes a key)."""
    keys = {"name": '"t1"', "kind": '"tree"', "tree": '"trees/t.json"', "ghosts": "1", "depth": "1"}
    keys.update(changes)
    body = "".join(f"{k} = {v}\n" for k, v in keys.items() if v is not None)
    return MINI_HEAD + MINI_QUESTION + "[[questions.tests]]\n" + body


def positions_toml(positions: str, ghosts: str = "1", depth: str = "1") -> str:
    return (MINI_HEAD + MINI_QUESTION + f'[[questions.tests]]\nname = "p"\nkind = "positions"\nghosts = {ghosts}\n'
            f"depth = {depth}\npositions = {positions}\n")


def games_toml(body: str) -> str:
    return MINI_HEAD + MINI_QUESTION + '[[questions.tests]]\nname = "g"\nkind = "games"\n' + body


GAMES_OK = 'layout = "test"\nseeds = [0]\nthresholds = [{ measure = "wins", at_least = 1, points = 1 }]\n'


def full_score(result: Result) -> None:
    report = json.loads((result.tmp / "out.json").read_text())
    assert report["score"] == report["max_score"] == 2, report


def zero_score(result: Result) -> None:
    report = json.loads((result.tmp / "out.json").read_text())
    assert report["score"] == 0 and report["max_score"] == 2, report


ASSIGNMENT_CASES = [
    Case("asg-valid-baseline", grade("--json", "out.json"), status=0, files=assignment(), sub=True,
         check=full_score),
    Case("asg-no-assignment-table", grade("--json", "out.json"), status=0,
         files=assignment(MINI_QUESTION + MINI_TEST), sub=True, check=full_score),
    Case("asg-missing-directory", ["grade", "nowhere", "sub.py"], names=("nowhere",)),
    Case("asg-directory-without-toml", grade(), files={"asg": Directory(), "sub.py": "x = 1\n"}, names=("asg",)),
    Case("asg-unknown-shipped-id", ["grade", "expectimaxx", "sub.py"], files={"sub.py": "x = 1\n"},
         names=("expectimaxx",)),
    Case("asg-toml-invalid", grade(), files=assignment("[assignment\nid = 3\n"), names=("assignment.toml",)),
    Case("asg-toml-empty", grade(), files=assignment(""), names=("assignment.toml",)),
    Case("asg-toml-binary", grade(), files=assignment(bytes(range(256))), names=("assignment.toml",)),
    Case("asg-toml-non-utf8", grade(), files=assignment(MINI_TOML.replace('"mini"', '"min\xe9"').encode("latin-1")),
         names=("assignment.toml",)),
    Case("asg-toml-is-directory", grade(), files={"asg/assignment.toml": Directory(), "sub.py": "x = 1\n"},
         names=("asg",)),
    Case("asg-toml-fifo", grade(), files={"asg/assignment.toml": Fifo(), "sub.py": "x = 1\n"}, sub=True,
         names=("assignment.toml",)),
    Case("asg-toml-dev-zero", grade(), files={"asg/assignment.toml": Symlink("/dev/zero"), "sub.py": "x = 1\n"},
         sub=True, names=("assignment.toml",)),
    Case("asg-unknown-top-key", grade(), files=assignment(MINI_TOML + "\n[extra]\nx = 1\n"), names=("extra",)),
    Case("asg-unknown-assignment-key", grade(), files=assignment(MINI_TOML.replace('id = "mini"',
                                                                                   'id = "mini"\nauthor = "me"')),
         names=("author",)),
    Case("asg-no-questions", grade(), files=assignment(MINI_HEAD), names=("questions",)),
    Case("asg-questions-not-tables", grade(), files=assignment("questions = 3\n" + MINI_HEAD),
         names=("assignment.toml",)),
    Case("asg-question-without-points", grade(), files=assignment(MINI_HEAD + '[[questions]]\nid = "q1"\n\n'
                                                                  + MINI_TEST), names=("points",)),
    Case("asg-question-negative-points", grade(), files=assignment(MINI_TOML.replace("points = 2", "points = -2")),
         names=("points",)),
    Case("asg-question-points-text", grade(), files=assignment(MINI_TOML.replace("points = 2", 'points = "two"')),
         names=("points",)),
    Case("asg-question-points-nan", grade(), files=assignment(MINI_TOML.replace("points = 2", "points = nan")),
         names=("points",)),
    Case("asg-question-points-inf", grade(), files=assignment(MINI_TOML.replace("points = 2", "points = inf")),
         names=("points",)),
    Case("asg-question-bad-id", grade(), files=assignment(MINI_TOML.replace('id = "q1"', 'id = "q 1!"')),
         names=("id",)),
    Case("asg-question-duplicate-id", grade(), files=assignment(MINI_TOML + "\n" + MINI_QUESTION + MINI_TEST),
         names=("questions[1]",)),
    Case("asg-question-no-tests", grade(), files=assignment(MINI_HEAD + MINI_QUESTION), names=("tests",)),
    Case("asg-question-bad-scoring", grade(), files=assignment(MINI_TOML.replace("points = 2",
                                                                                 'points = 2\nscoring = "most"')),
         names=("scoring",)),
    Case("asg-duplicate-test-name", grade(), files=assignment(MINI_TOML + "\n" + MINI_TEST), names=("name",)),
    Case("asg-submission-file-with-slash", grade(), files=assignment(MINI_TOML.replace('"multi_agents.py"',
                                                                                       '"../x.py"')),
         names=("submission_file",)),
    Case("asg-submission-file-not-py", grade(), files=assignment(MINI_TOML.replace('"multi_agents.py"',
                                                                                   '"multi_agents.txt"')),
         names=("submission_file",)),
    Case("asg-memory-too-small", grade(), files=assignment(MINI_TOML.replace('id = "mini"',
                                                                             'id = "mini"\nmemory_mb = 10')),
         names=("memory_mb",)),
    Case("asg-memory-huge", grade("--json", "out.json"), status=(0, 2),
         files=assignment(MINI_TOML.replace('id = "mini"', f'id = "mini"\nmemory_mb = {10**15}')), sub=True,
         names=("memory_mb",), check=full_score),
    Case("asg-starter-missing", ["grade", "asg", "--starter"],
         files=assignment(MINI_TOML.replace('id = "mini"', 'id = "mini"\nstarter = "nope.py"')), names=("nope.py",)),
    Case("asg-starter-fifo", ["grade", "asg", "--starter"],
         files=assignment(MINI_TOML.replace('id = "mini"', 'id = "mini"\nstarter = "s.py"'), **{"s.py": Fifo()}),
         sub=True, names=("s.py",)),
    Case("asg-starter-directory", ["grade", "asg", "--starter"],
         files=assignment(MINI_TOML.replace('id = "mini"', 'id = "mini"\nstarter = "s"'), s=Directory()),
         names=("asg",)),
    Case("asg-no-starter", ["grade", "asg", "--starter"], files=assignment(), names=("starter",)),
    Case("asg-test-unknown-kind", grade(), files=assignment(tree_toml(kind='"maze"')), names=("kind",)),
    Case("asg-test-unknown-key", grade(), files=assignment(tree_toml(colour='"red"')), names=("colour",)),
    Case("asg-tree-missing-file", grade(), files=assignment(tree_toml(tree='"trees/nope.json"')),
         names=("nope.json",)),
    Case("asg-tree-fifo", grade(), files=assignment(tree_toml(tree='"trees/p.json"'), **{"trees/p.json": Fifo()}),
         sub=True, names=("p.json",)),
    Case("asg-tree-dev-zero", grade(), files=assignment(tree_toml(tree='"/dev/zero"')), sub=True,
         names=("/dev/zero",)),
    Case("asg-tree-directory", grade(), files=assignment(tree_toml(tree='"trees"')), names=("trees",)),
    Case("asg-tree-invalid-json", grade(), files=assignment(**{"trees/t.json": "{"}), names=("t.json",)),
    Case("asg-tree-binary", grade(), files=assignment(**{"trees/t.json": bytes(range(256))}), names=("t.json",)),
    Case("asg-tree-deep", grade(), files=assignment(**{"trees/t.json": deep_tree}), sub=True, names=("t.json",)),
    Case("asg-tree-bad-probabilities", grade(),
         files=assignment(**{"trees/t.json": '{"max": [{"chance": [1, 2], "p": [0.5, 0.7]}]}'}), names=("t.json",)),
    Case("asg-tree-not-layered", grade(), files=assignment(**{"trees/t.json": '{"max": [{"max": [1, 2]}]}'}),
         names=("t.json",)),
    Case("asg-tree-min-root", grade(), files=assignment(**{"trees/t.json": '{"min": [{"chance": [1, 2]}]}'}),
         names=("t.json",)),
    Case("asg-tree-cut-without-value", grade(), files=assignment(
        **{"trees/t.json": '{"max": [{"chance": [{"max": [{"chance": [1]}]}]}]}'}), names=("t.json",)),
    Case("asg-tree-depth-float", grade(), files=assignment(tree_toml(depth="1.5")), names=("depth", "1.5")),
    Case("asg-tree-depth-zero", grade(), files=assignment(tree_toml(depth="0")), names=("depth",)),
    Case("asg-tree-depth-string", grade(), files=assignment(tree_toml(depth='"1"')), names=("depth",)),
    Case("asg-tree-depth-bool", grade(), files=assignment(tree_toml(depth="true")), names=("depth",)),
    Case("asg-tree-depth-missing", grade(), files=assignment(tree_toml(depth=None)), names=("depth",)),
    Case("asg-tree-ghosts-zero", grade(), files=assignment(tree_toml(ghosts="0")), names=("ghosts",)),
    Case("asg-tree-time-limit-negative", grade(), files=assignment(tree_toml(time_limit="-1")),
         names=("time_limit",)),
    Case("asg-tree-time-limit-huge", grade("--json", "out.json"), status=(0, 2),
         files=assignment(tree_toml(time_limit="1e300")), sub=True, names=("time_limit",), check=full_score),
    Case("asg-tree-action-not-root", grade(), files=assignment(tree_toml(action='"North"')), names=("action",)),
    Case("asg-tree-expansions-zero", grade(), files=assignment(tree_toml(expansions="0")), names=("expansions",)),
    Case("asg-tree-path-escapes", grade(), files=assignment(tree_toml(tree='"../outside.json"'),
                                                            **{"/outside.json": MINI_TREE}),
         status=(0, 2), names=("outside.json",), sub=True),
    Case("asg-positions-unknown-layout", grade(), files=assignment(positions_toml('[{ layout = "mediun" }]')),
         names=("mediun",)),
    Case("asg-positions-layout-fifo", grade(), files=assignment(positions_toml('[{ layout = "p.lay" }]'),
                                                                **{"p.lay": Fifo()}), sub=True, names=("p.lay",)),
    Case("asg-positions-illegal-prefix", grade(), files=assignment(positions_toml(
        '[{ layout = "test", prefix = "West North" }]')), names=("prefix",)),
    Case("asg-positions-prefix-not-action", grade(), files=assignment(positions_toml(
        '[{ layout = "test", prefix = "Jump North" }]')), names=("Jump",)),
    Case("asg-positions-partial-round", grade(), files=assignment(positions_toml(
        '[{ layout = "test", prefix = "East" }]')), names=("prefix",)),
    Case("asg-positions-too-many-ghosts", grade(), files=assignment(positions_toml('[{ layout = "test" }]',
                                                                                  ghosts="3")),
         names=("ghosts", "test")),
    Case("asg-positions-empty", grade(), files=assignment(positions_toml("[]")), names=("positions",)),
    Case("asg-positions-prefix-number", grade(), files=assignment(positions_toml('[{ layout = "test", prefix = 5 }]')),
         names=("prefix",)),
    Case("asg-games-no-thresholds", grade(), files=assignment(games_toml('layout = "test"\nseeds = [0]\n')),
         names=("thresholds",)),
    Case("asg-games-unknown-measure", grade(), files=assignment(games_toml(GAMES_OK.replace('"wins"', '"luck"'))),
         names=("luck",)),
    Case("asg-games-both-bounds", grade(), files=assignment(games_toml(GAMES_OK.replace(
        "at_least = 1", "at_least = 1, at_most = 2"))), names=("thresholds[0]",)),
    Case("asg-games-negative-seed", grade(), files=assignment(games_toml(GAMES_OK.replace("[0]", "[-1]"))),
         names=("seeds",)),
    Case("asg-games-seeds-and-seed", grade(), files=assignment(games_toml(GAMES_OK + "seed = 3\n")),
         names=("seeds",)),
    Case("asg-games-require-too-many-wins", grade(), files=assignment(games_toml(GAMES_OK + "require_wins = 5\n")),
         names=("require_wins",)),
    Case("asg-games-huge-count", grade(), files=assignment(games_toml(
        'layout = "test"\nseed = 0\ngames = 1000000000000\nthresholds = [{ measure = "wins", at_least = 1 }]\n')),
         sub=True, names=("games",)),
    Case("asg-games-layout-two-pacmen", grade(), files=assignment(games_toml(GAMES_OK.replace('"test"', '"bad.lay"')),
                                                                  **{"bad.lay": "%%%%%\n%P.P%\n%%%%%\n"}),
         names=("bad.lay",)),
    Case("asg-games-num-ghosts-too-many", grade(), files=assignment(games_toml(GAMES_OK + "num_ghosts = 4\n")),
         names=("num_ghosts",)),
    Case("asg-question-unknown-flag", grade("--question", "nope"), files=assignment(), names=("nope",)),
]


SUBMISSION_CASES = [
    Case("sub-missing", ["grade", "asg", "missing.py"], files=assignment(), sub=True, names=("missing.py",)),
    Case("sub-directory", ["grade", "asg", "folder"], files={**assignment(), "folder": Directory()}, sub=True,
         names=("folder",)),
    Case("sub-fifo", ["grade", "asg", "pipe.py"], files={**assignment(), "pipe.py": Fifo()}, sub=True,
         names=("pipe.py",)),
    Case("sub-dev-zero", ["grade", "asg", "/dev/zero"], files=assignment(), sub=True, names=("/dev/zero",)),
    Case("sub-binary", ["grade", "asg", "bin.py"], files={**assignment(), "bin.py": bytes(range(256)) * 4},
         sub=True, names=("bin.py",)),
    Case("sub-too-large", ["grade", "asg", "big.py"], files={**assignment(), "big.py": "# x\n" * 600_000},
         sub=True, names=("big.py",)),
    Case("sub-missing-argument", ["grade", "asg"], files=assignment(), names=("SUBMISSION",)),
    Case("sub-empty-file", grade("--json", "out.json"), status=2, files={**assignment(), "sub.py": ""}, sub=True,
         check=zero_score),
    Case("sub-syntax-error", grade("--json", "out.json"), status=2,
         files={**assignment(), "sub.py": "def broken(:\n"}, sub=True, names=("sub.py:1:", "SyntaxError")),
    Case("sub-import-exit", grade("--json", "out.json"), status=2,
         files={**assignment(), "sub.py": (SUBMISSIONS / "import_exit.py").read_text()}, sub=True, check=zero_score),
    Case("sub-import-sys-exit", grade("--json", "out.json"), status=2,
         files={**assignment(), "sub.py": "import sys\nsys.exit(3)\n"}, sub=True, check=zero_score),
    Case("sub-init-raises", grade("--json", "out.json"), status=0,
         files={**assignment(), "sub.py": "class ExpectimaxAgent:\n    def __init__(self, **k):\n"
                                          "        raise RuntimeError('no')\n"}, sub=True, check=zero_score),
    Case("sub-returns-garbage", grade("--json", "out.json"), status=0,
         files={**assignment(), "sub.py": "class ExpectimaxAgent:\n    def __init__(self, **k):\n        pass\n"
                                          "    def get_action(self, state):\n        return 'banana'\n"},
         sub=True, check=zero_score),
    Case("sub-bom-crlf-valid", grade("--json", "out.json"), status=0,
         files={**assignment(), "sub.py": b"\xef\xbb\xbf" + (SUBMISSIONS / "correct.py").read_bytes().replace(
             b"\n", b"\r\n")}, sub=True, check=full_score),
    Case("sub-sandbox-user-unknown", grade("--sandbox-user", "no_such_user_zz"), files=assignment(), sub=True,
         names=("no_such_user_zz",)),
    Case("grade-json-directory", grade("--json", "outdir"), files={**assignment(), "outdir": Directory()}, sub=True,
         names=("outdir",)),
    Case("grade-json-missing-folder", grade("--json", "no/out.json"), files=assignment(), names=("no/out.json",)),
    Case("grade-json-fifo", grade("--json", "pipe.json"), status=(0, 2), files={**assignment(), "pipe.json": Fifo()},
         sub=True, names=("pipe.json",), check=_regular_replay("pipe.json")),
    Case("grade-json-empty-name", grade("--json", ""), files=assignment(), sub=True, names=("--json",)),
    Case("grade-gradescope-directory", grade("--gradescope", "outdir"), files={**assignment(), "outdir": Directory()},
         sub=True, names=("outdir",)),
    Case("grade-gradescope-stdout", grade("--gradescope", "-"), files=assignment(), names=("--gradescope",)),
    Case("grade-gradescope-missing-folder", grade("--gradescope", "no/r.json"), files=assignment(),
         names=("no/r.json",)),
    Case("grade-package-existing-file", ["grade", "--gradescope-package", "afile"], files={"afile": "x"}, sub=True,
         names=("afile",)),
    Case("grade-package-fifo", ["grade", "--gradescope-package", "pipe"], files={"pipe": Fifo()}, sub=True,
         names=("pipe",)),
    Case("grade-package-under-a-file", ["grade", "--gradescope-package", "afile/pkg"], files={"afile": "x"},
         sub=True, names=("afile",)),
    Case("grade-package-with-submission", ["grade", "expectimax", "sub.py", "--gradescope-package", "pkg"],
         files={"sub.py": "x = 1\n"}, names=("--gradescope-package",)),
    Case("grade-package-unknown-assignment", ["grade", "nowhere", "--gradescope-package", "pkg"],
         names=("nowhere",)),
    Case("grade-no-assignment", ["grade"], names=("ASSIGNMENT",)),
    Case("grade-unknown-flag", ["grade", "expectimax", "sub.py", "--fast"], names=("--fast",)),
]


# -- more of every kind: long and odd names, special files in every slot, limits ---------------

LONG = "y" * 300
AGENT_MORE = {**AGENT_FILES,
              "recursive_import.py": "import importlib.util, sys\n"
                                     "def f(n):\n    return f(n + 1)\nf(0)\n",
              "bin_agent.py": bytes(range(256)) * 4,
              "pipe_agent.py": Fifo(),
              "more_agents.py": """
import sys


class Recurses:
    def get_action(self, state):
        return self.get_action(state)


class MemoryHog:
    def get_action(self, state):
        raise MemoryError()


class ResetRaises:
    def reset(self, rng, ghost_agents):
        raise RuntimeError("reset failed")

    def get_action(self, state):
        return state.legal_actions(0)[0]


class Chatty:
    def get_action(self, state):
        print("thinking...")
        return state.legal_actions(0)[0]


class StringAction:
    def get_action(self, state):
        return "Stop"
"""}


def separate_rooms(path: Path) -> None:
    path.write_text(bad_grid(["%%%%%%%%%", "%P%..%G.%", "%%%%%%%%%"]))


def tree_of_depth(depth: int) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        path.write_text('{"max": [' * depth + "1" + "]}" * depth)
    return write


def wide_tree(nodes: int) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        path.write_text('{"max": [' + ",".join(["1"] * nodes) + "]}")
    return write


def deep_toml(path: Path) -> None:
    path.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n" + MINI_TOML)


def many_actions(path: Path) -> None:
    data = json.loads(json.dumps(base_replay()))
    data["actions"] = ["Stop", "North"] * 500_000
    path.write_text(json.dumps(data))


def _files_exist(*names: str) -> Callable[[Result], None]:
    def check(result: Result) -> None:
        for name in names:
            assert (result.tmp / name).is_file(), f"{name} was not written"
    return check


EXTRA_CASES = [
    # long names, NUL bytes and non-directories in paths, on every surface
    Case("tree-name-too-long", tree(LONG + ".json"), names=("yyyyyyyyyy",)),
    Case("replay-name-too-long", replay(LONG + ".json"), names=("yyyyyyyyyy",)),
    Case("replay-nul-in-name", replay("g\x00.json"), names=("g",)),
    Case("agent-file-name-too-long", agent(LONG + ".py:Agent"), names=("yyyyyyyyyy",)),
    Case("eval-file-name-too-long", args(f"evaluation={LONG}.py:f"), names=("yyyyyyyyyy",)),
    Case("asg-name-too-long", ["grade", LONG, "sub.py"], files={"sub.py": "x = 1\n"}, names=("yyyyyyyyyy",)),
    Case("asg-nul-in-name", ["grade", "as\x00g", "sub.py"], files={"sub.py": "x = 1\n"}, names=("as",)),
    Case("sub-name-too-long", ["grade", "asg", LONG + ".py"], files=assignment(), sub=True, names=("yyyyyyyyyy",)),
    Case("play-save-name-too-long", flag("--save", LONG + ".json"), names=("yyyyyyyyyy",)),
    Case("batch-out-name-too-long", batch("--out", LONG + ".jsonl"), names=("yyyyyyyyyy",)),
    Case("batch-summary-name-too-long", batch("--summary", LONG + ".json"), names=("yyyyyyyyyy",)),
    Case("grade-json-name-too-long", grade("--json", LONG + ".json"), files=assignment(), sub=True,
         names=("yyyyyyyyyy",)),
    Case("layout-under-a-file", play("afile/x.lay"), files={"afile": "x"}, names=("afile/x.lay",)),
    Case("tree-under-a-file", tree("afile/t.json"), files={"afile": "x"}, names=("afile/t.json",)),
    Case("replay-under-a-file", replay("afile/g.json"), files={"afile": "x"}, names=("afile/g.json",)),
    Case("batch-out-under-a-file", batch("--out", "afile/r.jsonl"), files={"afile": "x"}, names=("afile",)),
    Case("grade-json-under-a-file", grade("--json", "afile/x.json"), files={**assignment(), "afile": "x"},
         names=("afile",)),
    Case("layout-dot", play("."), names=(".",)),
    Case("layout-dot-dot", play(".."), names=("..",)),
    Case("layout-trailing-slash", play("test/"), names=("test/",)),
    Case("layout-home-missing", play("~no_such_user_zz/x.lay"), names=("~no_such_user_zz/x.lay",)),
    Case("layout-shipped-name-with-suffix", play("test.lay"), status=0, check=outcome_is("won")),
    Case("layout-fullwidth-name", play("\uff54est"), names=("\uff54est",)),
    Case("layout-symlink-to-dev-zero", play("z.lay"), files={"z.lay": Symlink("/dev/zero")}, sub=True,
         names=("z.lay",)),
    Case("tree-symlink-to-fifo", tree("t.json"), files={"p": Fifo(), "t.json": Symlink("p")}, sub=True,
         names=("t.json",)),
    Case("replay-symlink-to-dev-zero", replay("z.json"), files={"z.json": Symlink("/dev/zero")}, sub=True,
         names=("z.json",)),
    Case("sub-symlink-to-dev-zero", ["grade", "asg", "z.py"], files={**assignment(), "z.py": Symlink("/dev/zero")},
         sub=True, names=("z.py",)),
    # outputs that cannot be written although the folder looks writable (root may write anywhere but /proc)
    Case("play-save-unwritable", flag("--save", "/proc/corpus-g.json"), sub=True, names=("/proc/corpus-g.json",)),
    Case("play-record-unwritable", flag("--record", "/proc/corpus-g.gif", "--max-moves", "3"), sub=True,
         names=("/proc/corpus-g.gif",)),
    Case("batch-out-unwritable", batch("--out", "/proc/corpus-r.jsonl"), sub=True, names=("/proc/corpus-r.jsonl",)),
    Case("batch-summary-unwritable", batch("--summary", "/proc/corpus-s.json", "--games", "1"), sub=True,
         names=("/proc/corpus-s.json",)),
    Case("batch-plot-unwritable", batch("--plot", "/proc/corpus-p.png", "--games", "1"), sub=True,
         names=("/proc/corpus-p.png",)),
    Case("grade-json-unwritable", grade("--json", "/proc/corpus-x.json"), files=assignment(), sub=True,
         names=("/proc/corpus-x.json",)),
    Case("grade-gradescope-unwritable", grade("--gradescope", "/proc/corpus-r.json"), files=assignment(), sub=True,
         names=("/proc/corpus-r.json",)),
    Case("grade-package-unwritable", ["grade", "--gradescope-package", "/proc/corpus-pkg"], sub=True,
         names=("/proc/corpus-pkg",)),
    Case("play-record-mp4-without-extra", flag("--record", "g.mp4", "--max-moves", "3"), status=(0, 2), sub=True,
         names=("mp4",), check=_files_exist("g.mp4")),
    Case("play-save-several-games", flag("--save", "g.json", "--games", "2", "--max-moves", "3"), status=0,
         check=_files_exist("g-0.json", "g-1.json")),
    Case("play-save-several-games-one-is-directory", flag("--save", "g.json", "--games", "2", "--max-moves", "3"),
         files={"g-1.json": Directory()}, names=("g-1.json",)),
    # layouts: more endless games, limits
    Case("layout-separate-rooms-endless", play("rooms.lay", max_moves=None), status=0,
         files={"rooms.lay": separate_rooms}, sub=True, check=never_won),
    Case("layout-capsule-only-endless", play("caps.lay", max_moves=None), status=0,
         files={"caps.lay": "%%%%%%\n%Po  %\n%%%%%%\n"}, sub=True, check=never_won),
    Case("layout-at-cell-limit-64x64", play("big.lay", max_moves="3"), status=(0, 2), sub=True, timeout=30, slow=True,
         files={"big.lay": lambda p: p.write_text("\n".join(["P" + "." * 63] + ["." * 64] * 63) + "\n")},
         names=("big.lay",)),
    Case("layout-at-cell-limit-64x64-four-ghosts", play("big.lay", max_moves="3"), status=(0, 2), sub=True,
         timeout=60, slow=True, names=("big.lay",),
         files={"big.lay": lambda p: p.write_text("\n".join(["P" + "." * 62 + "1", "2" + "." * 62 + "3"]
                                                            + ["." * 64] * 61 + ["." * 63 + "4"]) + "\n")}),
    Case("layout-wide-1000x3", play("wide.lay", max_moves="3"), status=(0, 2), sub=True,
         files={"wide.lay": lambda p: p.write_text("%" * 1000 + "\n%P" + "." * 997 + "%\n" + "%" * 1000 + "\n")},
         names=("wide.lay",)),
    Case("batch-endless-layout", batch("--layout", "empty.lay", "--out", "r.jsonl", "--games", "1"), status=0,
         files={"empty.lay": "%%%%%%\n%P   %\n%%%%%%\n"}, sub=True,
         check=lambda r: _lines_where(r, "r.jsonl", 1, lambda line: not line["won"])),
    Case("batch-max-moves-huge", batch("--max-moves", str(10**30), "--out", "r.jsonl", "--games", "1"), status=0,
         sub=True, check=lambda r: _lines_where(r, "r.jsonl", 1, lambda line: line["won"])),
    # trees at and past their limits
    Case("tree-depth-1000", tree("t.json", "--json"), status=0, files={"t.json": tree_of_depth(1000)}, sub=True,
         check=tree_value(1, "0")),
    Case("tree-depth-1001", tree("t.json"), files={"t.json": tree_of_depth(1001)}, sub=True, names=("t.json",)),
    Case("tree-too-many-nodes", tree("t.json"), files={"t.json": wide_tree(300_000)}, names=("t.json",)),
    Case("tree-duplicate-keys", tree(), files={"t.json": '{"max": [1], "max": [2]}'}, names=("t.json",)),
    Case("tree-number-5000-digits", tree(), files={"t.json": '{"max": [' + "9" * 5000 + ", 1]}"}, names=("t.json",)),
    Case("tree-number-overflows-to-inf", tree(), files={"t.json": '{"max": [1e400, 1]}'}, names=("t.json",)),
    Case("tree-name-not-string", tree(), files={"t.json": '{"max": [1, 2], "name": 5}'}, names=("t.json",)),
    Case("tree-inner-value-string", tree("t.json", "--depth", "1"),
         files={"t.json": '{"max": [{"max": [1], "value": "x"}, 2]}'}, names=("t.json",)),
    Case("tree-uniform-thirds", tree("t.json", "--json"), status=0,
         files={"t.json": '{"chance": [3, 6, 9], "p": [0.3333333333333333, 0.3333333333333333, '
                          '0.3333333333333334]}'}, check=tree_value_near(6.0, None)),
    # replays
    Case("replay-bom", replay(), status=(0, 2), files={"g.json": lambda p: (replay_file()(p), p.write_bytes(
        b"\xef\xbb\xbf" + p.read_bytes()))[0]}, names=("g.json",), check=_replay_ok),
    Case("replay-extra-keys", replay(), status=0, files={"g.json": replay_file(_set("comment", "from a friend"))},
         check=_replay_ok),
    Case("replay-action-null", replay(), files={"g.json": replay_file(_set("actions", [None]))}, names=("g.json",)),
    Case("replay-result-score-string", replay(), files={"g.json": replay_file(
        lambda d: d["result"].update(score=str(d["result"]["score"])))}, names=("g.json",)),
    Case("replay-result-won-string", replay(), files={"g.json": replay_file(
        lambda d: d["result"].update(won=str(d["result"]["won"]).lower()))}, names=("g.json",)),
    Case("replay-million-actions", replay(), files={"g.json": many_actions}, sub=True, names=("g.json",)),
    Case("replay-layout-too-big", replay(), files={"g.json": replay_file(_layout_text(
        "\n".join(["P" + "." * 199] + ["." * 200] * 199)))}, sub=True, names=("g.json",)),
    Case("replay-fps-tiny-text", ["replay", "g.json", "--display", "text", "--fps", "1e-300"], status=(0, 2),
         files={"g.json": replay_file()}, sub=True, names=("--fps",)),
    # agents
    Case("agent-file-is-directory", agent("pkg.py:Agent"), files={"pkg.py": Directory()}, names=("pkg.py",)),
    Case("agent-file-fifo", agent("pipe_agent.py:Agent"), files=AGENT_MORE, sub=True, names=("pipe_agent.py",)),
    Case("agent-file-binary", agent("bin_agent.py:Agent"), files=AGENT_MORE, names=("bin_agent.py",)),
    Case("agent-import-recursion", agent("recursive_import.py:Agent"), files=AGENT_MORE, sub=True,
         names=("recursive_import.py",)),
    Case("agent-get-action-recursion", agent("more_agents.py:Recurses"), status=0, files=AGENT_MORE, sub=True,
         check=crashed_with()),
    Case("agent-get-action-memory-error", agent("more_agents.py:MemoryHog"), status=0, files=AGENT_MORE, sub=True,
         check=crashed_with()),
    Case("agent-reset-raises", agent("more_agents.py:ResetRaises"), status=(0, 2), files=AGENT_MORE,
         names=("ResetRaises",), check=crashed_with("reset failed")),
    Case("agent-chatty-with-json", agent("more_agents.py:Chatty"), status=0, files=AGENT_MORE,
         check=lambda r: _equal(len(r.json_lines()), 1)),
    Case("agent-good-given-evaluation", agent("agents_x.py:Good", "--agent-args", "evaluation=better"),
         files=AGENT_FILES, names=("evaluation",)),
    Case("batch-agent-init-sys-exit", batch("--pacman", "agents_x.py:InitExits", "--out", "r.jsonl"),
         status=(0, 2), files=AGENT_FILES, sub=True, names=("InitExits",),
         check=lambda r: _lines_where(r, "r.jsonl", 3, lambda line: line["crashed"])),
    Case("batch-agent-module-exits-at-import", batch("--pacman", "import_exits.py:A"), files=AGENT_FILES, sub=True,
         names=("import_exits.py",)),
    Case("batch-evaluation-exits-at-import", batch("--agent-args", "evaluation=import_exits.py:f"),
         files=AGENT_FILES, sub=True, names=("import_exits.py",)),
    Case("batch-agent-loops-with-time-limit", batch("--pacman", "agents_x.py:Loops", "--move-time-limit", "0.3",
                                                    "--games", "2", "--out", "r.jsonl"),
         status=0, files=AGENT_FILES, sub=True, timeout=30,
         check=lambda r: _lines_where(r, "r.jsonl", 2, lambda line: line["timed_out"])),
    # sweeps and flags
    Case("batch-sweep-too-large", batch("--agent-args", "depth=" + ",".join(["1"] * 20000)), names=("--agent-args",)),
    Case("batch-sweep-layouts-too-many", batch("--layout", ",".join(["test"] * 5000)), names=("--layout",)),
    Case("batch-num-ghosts-huge", batch("--num-ghosts", str(10**30)), names=("--num-ghosts",)),
    Case("batch-json-and-summary", batch("--json", "--summary", "s.json"), status=0, sub=True,
         check=lambda r: _equal(json.loads(r.out)["games"], json.loads((r.tmp / "s.json").read_text())["games"])),
    Case("play-move-time-limit-huge", flag("--move-time-limit", "1e300"), status=(0, 2), names=("--move-time-limit",),
         check=outcome_is("won")),
    Case("play-flag-repeated-last-wins", [*PLAY, "--layout", "medium", "--layout", "test", "--max-moves", "30"],
         status=0, check=outcome_is("won")),
    # resume files
    Case("resume-blank-line-in-middle", resume(), status=0, files={"r.jsonl": results_file(
        lambda lines: [lines[0], "", lines[1], lines[2]])}, sub=True, check=_resumed(3)),
    Case("resume-crlf-lines", resume(), status=(0, 2), files={"r.jsonl": results_file(
        lambda lines: "".join(line + "\r\n" for line in lines).encode())}, sub=True, names=("r.jsonl",)),
    Case("resume-seed-of-other-game", resume(), files={"r.jsonl": results_file(
        lambda lines: [_line_with(lines[0], seed=json.loads(lines[1])["seed"])] + lines[1:])}, sub=True,
         names=("r.jsonl", "line 1")),
    Case("resume-index-float", resume(), files={"r.jsonl": results_file(
        lambda lines: [_line_with(lines[0], index=0.0)] + lines[1:])}, sub=True, names=("r.jsonl", "line 1")),
    Case("resume-index-bool", resume(), files={"r.jsonl": results_file(
        lambda lines: lines[:1] + [_line_with(lines[1], index=True)] + lines[2:])}, sub=True,
         names=("r.jsonl", "line 2")),
    Case("resume-symlink-to-dev-zero", resume(), files={"r.jsonl": Symlink("/dev/zero")}, sub=True,
         names=("r.jsonl",)),
    # assignments and submissions
    Case("asg-toml-path-given", ["grade", "asg/assignment.toml", "sub.py", "--json", "out.json"], status=0,
         files=assignment(), sub=True, check=full_score),
    Case("asg-is-a-python-file", ["grade", "sub.py", "sub.py"], files={"sub.py": "x = 1\n"}, names=("sub.py",)),
    Case("asg-deeply-nested-toml", grade(), files=assignment(deep_toml), sub=True, names=("assignment.toml",)),
    Case("asg-points-huge", grade("--json", "out.json"), status=(0, 2), sub=True,
         files=assignment(MINI_TOML.replace("points = 2", f"points = {10**30}")), names=("points",)),
    Case("asg-starter-binary", ["grade", "asg", "--starter"],
         files=assignment(MINI_TOML.replace('id = "mini"', 'id = "mini"\nstarter = "s.py"'),
                          **{"s.py": bytes(range(256))}), names=("s.py",)),
    Case("asg-positions-layout-too-big", grade(), files=assignment(positions_toml('[{ layout = "big.lay" }]'),
                                                                   **{"big.lay": huge_layout}), sub=True,
         names=("big.lay",)),
    Case("asg-tree-symlink-outside", grade(), status=(0, 2), sub=True,
         files=assignment(tree_toml(tree='"trees/link.json"'), **{"trees/link.json": Symlink("/etc/hostname")}),
         names=("link.json",)),
    Case("grade-question-empty", grade("--question", ""), files=assignment(), names=(("--question", "question ''"),)),
    Case("sub-not-py-suffix", ["grade", "asg", "sub.txt", "--json", "out.json"], status=(0, 2), sub=True,
         files={**assignment(), "sub.txt": (SUBMISSIONS / "correct.py").read_text()}, names=("sub.txt",),
         check=full_score),
    Case("sub-prints-a-lot", grade("--json", "out.json"), status=0, sub=True,
         files={**assignment(), "sub.py": "print('x' * 100000)\n" + (SUBMISSIONS / "correct.py").read_text()},
         check=full_score),
]


def _gradescope_zero(result: Result) -> None:
    data = json.loads((result.tmp / "results.json").read_text())
    assert data["score"] == 0 and "missing.py" in data["output"], data


def _stdout_has(part: str) -> Callable[[Result], None]:
    return lambda result: _contains(result.out, part)


MORE_CASES = [
    # two outputs naming one file
    Case("batch-out-and-summary-same-file", batch("--out", "r.json", "--summary", "r.json"), names=("r.json",)),
    Case("batch-out-and-plot-same-file", batch("--out", "r.png", "--plot", "r.png"), names=("r.png",)),
    Case("grade-json-and-gradescope-same-file", grade("--json", "o.json", "--gradescope", "o.json"),
         files=assignment(), sub=True, names=("o.json",)),
    Case("play-save-and-record-same-file", flag("--save", "g.gif", "--record", "g.gif"), sub=True,
         names=("g.gif",)),
    Case("grade-gradescope-written-when-not-graded", ["grade", "asg", "missing.py", "--gradescope", "results.json"],
         files=assignment(), sub=True, check_always=True, check=_gradescope_zero, names=("missing.py",)),
    # layouts: rows and tiny games
    Case("layout-blank-line-in-middle", play("bad.lay"), files={"bad.lay": "%%%%%\n%P..%\n\n%..G%\n%%%%%\n"},
         names=("bad.lay:3",)),
    Case("layout-first-row-trailing-spaces", play("ok.lay"), status=0, sub=True, process=True, files={"ok.lay": "%P. \n%%%%\n"},
         check=lambda r: (outcome_is("won")(r), _warned_once(r, "ok.lay:2: LayoutWarning"))),
    Case("layout-pacman-beside-ghost", play("ok.lay"), status=0, files={"ok.lay": "PG\n"},
         check=outcome_is("lost")),
    Case("layout-many-rows-one-column", play("tall.lay"), files={"tall.lay": "P\n" + ".\n" * 100_000},
         names=("tall.lay",)),
    # agent arguments that are valid but unusual
    Case("args-iterative-deepening", args("depth=none,time_limit=0.05", "--max-moves", "3"), status=0,
         check=outcome_is("cut-off", "won", "lost")),
    Case("args-iterative-deepening-endless-time", args("depth=none,time_limit=1e300", "--max-moves", "3"),
         status=(0, 2), sub=True, names=("time_limit",), check=outcome_is("cut-off", "won", "lost")),
    Case("args-node-limit-deepening", args("depth=none,node_limit=5000", "--max-moves", "3"), status=0,
         check=outcome_is("cut-off", "won", "lost")),
    Case("args-ghost-model-directional", args("ghost_model=directional,depth=1"), status=0, check=not_crashed),
    Case("args-alphabeta-depth-3", agent("alphabeta", "--agent-args", "depth=3,evaluation=score"), status=0,
         check=not_crashed),
    Case("agent-spec-trailing-space", agent("agents_x.py:Good "), files=AGENT_FILES, names=("Good",)),
    Case("agent-spec-wrong-case-file", agent("AGENTS_X.PY:Good"), files=AGENT_FILES, names=("AGENTS_X.PY",)),
    # windows under the dummy video driver
    Case("play-pygame-window", ["play", "--layout", "test", "--display", "pygame", "--fps", "1000", "--max-moves",
                                "5", "--seed", "1"], status=0, sub=True, check=_stdout_has("game 1")),
    Case("play-pygame-zoom-tiny", ["play", "--layout", "test", "--display", "pygame", "--fps", "1000",
                                   "--max-moves", "5", "--zoom", "0.001", "--seed", "1"], status=(0, 2), sub=True,
         names=("--zoom",)),
    Case("replay-pygame-window", ["replay", "g.json", "--display", "pygame", "--fps", "1000"], status=0, sub=True,
         files={"g.json": replay_file()}),
    Case("replay-pygame-zoom-huge", ["replay", "g.json", "--display", "pygame", "--fps", "1000", "--zoom", "1e6"],
         sub=True, files={"g.json": replay_file()}, names=("--zoom",)),
    Case("replay-text-display", ["replay", "g.json", "--display", "text", "--fps", "1000"], status=0,
         files={"g.json": replay_file()}),
    # documented commands as a user types them
    Case("grade-starter", ["grade", "expectimax", "--starter"], status=0, check=_stdout_has("class ExpectimaxAgent")),
    Case("batch-plot-png", batch("--plot", "p.png", "--games", "2"), status=0, sub=True, check=_files_exist("p.png")),
    Case("tree-shipped-example", ["tree", str(REPO / "examples/trees/expectimax-max-of-chances.json")], status=0,
         check=_stdout_has("value: 54.5")),
]


FINAL_CASES = [
    Case("tree-p-on-max-node", tree(), files={"t.json": '{"max": [1, 2], "p": [0.5, 0.5]}'}, names=("t.json",)),
    Case("tree-depth-on-leaf-root", tree("t.json", "--depth", "1", "--json"), status=0, files={"t.json": "7"},
         check=tree_value(7, None)),
    Case("tree-value-on-leaf-and-number", tree(), files={"t.json": '{"max": [{"value": 1, "min": [2]}]}'},
         status=(0, 2), names=("t.json",)),
    Case("replay-layout-name-not-string", replay(), status=(0, 2), names=("g.json",),
         files={"g.json": replay_file(lambda d: d["layout"].update(name=5))}, check=_replay_ok),
    Case("replay-zero-ghosts-actions-for-two", replay(), files={"g.json": replay_file(_set("num_ghosts", 0))},
         names=("g.json",)),
    Case("replay-no-layout-text", replay(), files={"g.json": replay_file(lambda d: d["layout"].pop("text"))},
         names=("g.json",)),
    Case("asg-visibility-unknown", grade(), files=assignment(MINI_TOML.replace("points = 2",
                                                                               'points = 2\nvisibility = "secret"')),
         names=("visibility",)),
    Case("asg-games-ghosts-unknown", grade(), files=assignment(games_toml(GAMES_OK + 'ghosts = "purple"\n')),
         names=("purple",)),
    Case("asg-games-evaluation-file", grade(), files=assignment(games_toml(GAMES_OK + 'evaluation = "e.py:f"\n')),
         names=("evaluation",)),
    Case("asg-games-agent-unknown", grade(), files=assignment(games_toml(GAMES_OK + 'agent = "mine"\n')),
         names=("agent",)),
    Case("asg-games-max-moves-zero", grade(), files=assignment(games_toml(GAMES_OK + "max_moves = 0\n")),
         names=("max_moves",)),
    Case("asg-games-max-moves-huge", grade(), files=assignment(games_toml(GAMES_OK + f"max_moves = {10**15}\n")),
         status=(0, 2), sub=True, names=("max_moves",)),
    Case("asg-games-seeds-empty", grade(), files=assignment(games_toml(GAMES_OK.replace("[0]", "[]"))),
         names=("seeds",)),
    Case("asg-games-seeds-strings", grade(), files=assignment(games_toml(GAMES_OK.replace("[0]", '["0"]'))),
         names=("seeds",)),
    Case("asg-games-threshold-points-negative", grade(), files=assignment(games_toml(GAMES_OK.replace(
        "points = 1 }", "points = -1 }"))), names=("points",)),
    Case("asg-games-threshold-not-table", grade(), files=assignment(games_toml(
        'layout = "test"\nseeds = [0]\nthresholds = [3]\n')), names=("thresholds[0]",)),
    Case("asg-positions-evaluation-submission", grade(), files=assignment(positions_toml(
        '[{ layout = "test" }]').replace("depth = 1\n", 'depth = 1\nevaluation = "submission"\n')),
         names=("evaluation",)),
    Case("asg-positions-game-over-prefix", grade(), files=assignment(positions_toml(
        '[{ layout = "test", prefix = "South West South West" }]')), status=2, names=("prefix",)),
    Case("asg-positions-depth-huge", grade(), files=assignment(positions_toml('[{ layout = "test" }]',
                                                                               depth="1000")),
         sub=True, status=(0, 2), names=("depth",)),
    Case("asg-tree-ghosts-huge", grade(), files=assignment(tree_toml(ghosts="1000000000")), names=("ghosts",),
         status=(0, 2), sub=True),
    Case("asg-title-empty", grade(), files=assignment(MINI_TOML.replace('id = "mini"', 'id = "mini"\ntitle = ""')),
         names=("title",)),
    Case("asg-id-number", grade(), files=assignment(MINI_TOML.replace('id = "mini"', "id = 7")), names=("id",)),
]


ALL_CASES = (LAYOUT_CASES + TREE_CASES + REPLAY_CASES + PLAY_FLAG_CASES + OUTPUT_CASES
             + AGENT_CASES + BATCH_FLAG_CASES + RESUME_CASES + BENCH_CASES + ASSIGNMENT_CASES + SUBMISSION_CASES
             + EXTRA_CASES + MORE_CASES + FINAL_CASES)


def test_corpus_is_large_and_ids_are_unique() -> None:
    ids = [case.id for case in ALL_CASES]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})
    assert len(ids) >= 230


@pytest.mark.parametrize("case", [case.param() for case in ALL_CASES])
def test_input(case: Case, tmp_path: Path, capsys: Any) -> None:
    _make_files(tmp_path, case.files)
    if case.setup is not None:
        case.setup(tmp_path)
    statuses = case.status if isinstance(case.status, tuple) else (case.status,)
    runs_agents = case.argv[:1] == ["batch"] or case.id.startswith(("agent-", "eval-"))
    if case.sub and (case.process or (runs_agents and 0 in statuses)):
        result = run_subprocess(case.argv, tmp_path, case.timeout)
    elif case.sub:
        result = run_forked(case.argv, tmp_path, case.timeout)
    else:
        result = run_inprocess(case.argv, tmp_path, capsys)
    assert_case(case, result)


def test_ghost_digit_means_the_same_in_every_front_end(tmp_path: Path) -> None:
    """A layout character that looks like a ghost (5-9) is refused everywhere or empty everywhere."""
    (tmp_path / "digits.lay").write_text("%%%%%%%\n%P.567%\n%%%%%%%\n")
    runs = {
        "play": run_subprocess(play("digits.lay"), tmp_path, 20),
        "batch": run_subprocess(["batch", "--layout", "digits.lay", "--games", "1", "--jobs", "1", "--quiet",
                                 "--max-moves", "30"], tmp_path, 20),
        "bench": run_subprocess(["bench", "--layout", "digits.lay", "--runs", "1", "--successors", "10",
                                 "--part", "engine"], tmp_path, 60),
    }
    for run in runs.values():
        assert "Traceback" not in run.out + run.err, run.err
    statuses = {name: run.status for name, run in runs.items()}
    assert len(set(statuses.values())) == 1, f"front ends disagree on digits.lay: {statuses}"
