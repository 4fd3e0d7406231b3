#!/usr/bin/env python3
"""The figures of the README and docs/ (the documentation site's pages), made again by the commands that make them.

Every figure sits in its document between two markers that name it:

    <!-- figure web-page-size -->about 160 bytes per move ...<!-- /figure web-page-size -->

and is listed in `FIGURES` below with the command a reader runs to get it and its
kind, which says how it is checked (`KINDS`):

- **exact** figures (game outcomes, file sizes, tree values, the GIF's frames,
  the screenshot, the memory estimates, the grader's limits, compare outputs)
  are the same on every machine; the default check makes them again (a `render`
  function writes the text between the markers; a `verify` checks a table's
  exact columns, a command's output or a picture, with the machine's parts such
  as a run's time left out) and fails, naming each figure
  that differs; ``--write`` writes the text as the command gives it. The slow ones
  (``slow=True``, up to a minute) are checked with ``--all`` (CI).
- **timing** figures (seconds, steps per second) depend on the machine and its
  load: the default check parses their commands as their programs do (a flag
  renamed or removed fails it); ``--timings`` runs them, prints the documented
  text beside the new output (or the new text, with a `render`; medians of
  ``--repeat`` runs) and fails if the output no longer names their `fields`.
- **tested** figures are made again and compared by a test of the suite that
  their command names (``python -m pytest PATH -k NAME``); ``--all`` collects it.
- **recorded** figures (the strength tables, RL training, batches of thousands of
  games, the harness's hundreds of mazes) take minutes to hours: their commands
  are parsed on every check, and when the run's results are checked into
  scripts/figures-data/ (`data`), the text is made again from them on every check.

Every figure-looking number of the documents (a percentage, a duration, a size, a
ratio, a count with thousands separators, a decimal) must sit between markers or be
listed in `NOT_FIGURES` (versions, limits, defaults): the default check and
``--lint`` fail naming each one, and say how to mark it.

Usage:

    python scripts/docs_figures.py                        # check the fast exact figures (the tests do this)
    python scripts/docs_figures.py --all                  # ... and the slow ones (CI does this)
    python scripts/docs_figures.py --write                # write the exact figures into the documents
    python scripts/docs_figures.py --write --gif          # ... and record docs/game.gif again
    python scripts/docs_figures.py --write --screenshot   # ... and make docs/screenshot.png again
    python scripts/docs_figures.py --timings              # measure the timings, print them with their commands
    python scripts/docs_figures.py --list                 # every figure, its document and its command
    python scripts/docs_figures.py --lint                 # only: is every figure-looking number marked?

To add a figure: put the markers around its text in the document, add a `Figure`
to `FIGURES` or `RECORDED_AND_TIMED` (its name, document, command and kind, and
for an exact one the function that renders it from `Measurements`), and run
``--write`` for an exact one (docs/guide/development.md, "Figures in the docs").
A marker without a figure, or a figure without its markers, is an error of the
check.

Exit status: 0 when every checked figure matches (or was written), 1 when one
differs, 2 on a usage error or a command that failed.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import math
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent

#: An opening or closing marker: <!-- figure NAME --> and <!-- /figure NAME -->.
MARKER = re.compile(r"<!-- (/?)figure ([a-z0-9][a-z0-9-]*) -->")


class FigureError(Exception):
    """A document or a command that the figures cannot be made from; the message says which."""


# -- running pacman-ai as a reader does ---------------------------------------------------------------------


def _absolute(token: str) -> str:
    """`token` with a repository path it names (``examples/...``, ``sb3:examples/...``) made absolute."""
    prefix, _, path = token.rpartition(":") if ":" in token and "/" in token else ("", "", token)
    first = path.split("/", 1)[0]
    if "/" in path and first and (ROOT / first).is_dir() and (ROOT / path).exists():
        return f"{prefix}{':' if prefix else ''}{ROOT / path}"
    return token


def _absolute_argv(argv: list[str]) -> list[str]:
    """`argv` with the repository files it reads made absolute (`_absolute`), never a file it writes (the value
    of an output flag such as ``--record``): a command run in the scratch folder writes there."""
    return [token if before in _OUTPUT_FLAGS else _absolute(token) for before, token in zip([""] + argv, argv)]


class Measurements:
    """What the documented commands give, each command run once (cached) in a scratch folder.

    Commands run as ``python -m pacman ...`` with this Python, in a fresh temporary
    folder, headless (``SDL_VIDEODRIVER=dummy``).
    """

    def __init__(self, scratch: Path, repeat: int = 3) -> None:
        self.scratch = scratch
        self.repeat = repeat
        self.env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}

    def run(self, command: str, cwd: Path | None = None, timeout: float = 1800) -> subprocess.CompletedProcess:
        """Run a documented ``pacman-ai ...`` command; FigureError with its stderr if it fails."""
        argv = _absolute_argv(shlex.split(command))  # the repository's files by path
        if argv[0] != "pacman-ai":
            raise FigureError(f"not a pacman-ai command: {command}")
        done = subprocess.run([sys.executable, "-m", "pacman", *argv[1:]], cwd=cwd or self.scratch, env=self.env,
                              capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise FigureError(f"{command}: exit status {done.returncode}: {done.stderr.strip()[-500:]}")
        return done

    def output_of(self, command: str, stderr: bool = True) -> str:
        """What `command` (``pacman-ai ...``, or ``python ...`` run from the repository's root) prints: its stdout,
        and its stderr after it unless `stderr` is false."""
        argv = shlex.split(command)
        env = dict(self.env)
        while argv and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", argv[0]):
            name, _, value = argv.pop(0).partition("=")
            env[name] = value
        if argv[:2] == ["nice", "-n"]:
            argv = argv[3:]
        program = [sys.executable, "-m", "pacman"] if argv[0] == "pacman-ai" else [sys.executable]
        if argv[0] == "pacman-ai":  # run in the scratch folder (it may write files), the repository's files by path
            argv = _absolute_argv(argv)
        done = subprocess.run([*program, *argv[1:]], cwd=ROOT if argv[0] != "pacman-ai" else self.scratch, env=env,
                              capture_output=True, text=True, timeout=3600)
        if done.returncode != 0:
            raise FigureError(f"{command}: exit status {done.returncode}: {done.stderr.strip()[-500:]}")
        return done.stdout + (done.stderr if stderr else "")

    @functools.lru_cache(maxsize=None)
    def output(self, command: str) -> str:
        """The stdout of `command`."""
        return self.run(command).stdout

    @functools.lru_cache(maxsize=None)
    def html_bytes(self, layout: str, seed: int, max_moves: int | None) -> tuple[int, int]:
        """(size in bytes, Pacman moves) of the web page `play --html` writes for that game."""
        folder = Path(tempfile.mkdtemp(dir=self.scratch))
        limit = f" --max-moves {max_moves}" if max_moves is not None else ""
        done = self.run(f"pacman-ai play --layout {layout} --seed {seed} --display none --json --html g.html{limit}",
                        cwd=folder)
        return (folder / "g.html").stat().st_size, json.loads(done.stdout)["moves"]

    @functools.lru_cache(maxsize=None)
    def recorded(self, command: str) -> Path:
        """The file a ``play ... --record PATH`` command writes, recorded in the scratch folder."""
        argv = shlex.split(command)
        target = argv[argv.index("--record") + 1]
        folder = Path(tempfile.mkdtemp(dir=self.scratch))
        (folder / Path(target).parent).mkdir(parents=True, exist_ok=True)
        self.run(command, cwd=folder)
        return folder / target

    @functools.lru_cache(maxsize=None)
    def batch(self, command: str) -> dict:
        """The summary (``--summary``) of a batch command, run once."""
        folder = Path(tempfile.mkdtemp(dir=self.scratch))
        self.run(f"{command} --quiet --summary summary.json", cwd=folder)
        return json.loads((folder / "summary.json").read_text())

    @functools.lru_cache(maxsize=None)
    def batch_timing(self, command: str) -> tuple[float, float]:
        """(median seconds, median games per second) of `command` over `repeat` runs, from its summary."""
        seconds, rates = [], []
        for _ in range(self.repeat):
            folder = Path(tempfile.mkdtemp(dir=self.scratch))
            self.run(f"{command} --quiet --summary summary.json", cwd=folder)
            summary = json.loads((folder / "summary.json").read_text())
            seconds.append(summary["seconds"])
            rates.append(summary["games_per_second"])
        return statistics.median(seconds), statistics.median(rates)


# -- the figures ----------------------------------------------------------------------------------------------


#: The kinds of figure and what the default check (``python scripts/docs_figures.py``) does with each.
KINDS = {
    "exact": "made again by its command and compared with the text (the slow ones with --all)",
    "timing": "its command parsed as the program parses it; --timings runs it, checks it prints the figure's "
              "fields and shows the documented text beside the new measurement",
    "recorded": "its command parsed as the program parses it; the run itself is too long for CI (the document "
                "says what it took), so its text is made again only by running the command by hand",
    "tested": "made again and compared by the test its command names (the test suite runs it); the check "
              "finds the test file, and with --all collects the named tests (at least one)",
}


@dataclass(frozen=True)
class Figure:
    """One figure: where it is, how it is made, and how it is written."""

    name: str
    """The name in its markers."""
    document: str
    """The file that holds it, relative to the repository root."""
    command: str
    """What a reader runs to get it (shown by --list and --timings)."""
    kind: str
    """``exact`` (the same everywhere: made again and compared), ``timing`` (a machine's speed: measured again
    with --timings) or ``recorded`` (a result too slow to make again in CI: its command is checked)."""
    render: Callable[[Measurements], str | None] | None = None
    """The text between the markers, from the measurements (every exact figure has one; a timing figure
    without one has its command's output printed by --timings, to compare by eye)."""
    slow: bool = False
    """Exact but slow to make (minutes): checked with --all only."""
    verify: Callable[[Measurements | None, Path], list[str]] | None = None
    """Further checks (a file the document shows): problems, [] if none. A recorded figure's verify makes its
    text again from its results file (`data`), on every check, with no Measurements (nothing is run)."""
    data: str | None = None
    """A recorded figure's results file, checked into scripts/figures-data/: what its command gave, in full."""
    machine: str | None = None
    """Exact figures: a pattern for the parts of the text that describe the machine it was made on (its free
    memory); they are left out when the text is compared, so only the figure itself is checked."""
    fields: tuple[str, ...] = ()
    """Timing figures: what the command's output must still name (its rows, its units), checked by --timings."""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"figure {self.name!r}: kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if self.kind == "exact" and self.render is None:
            raise ValueError(f"figure {self.name!r}: an exact figure needs a render function")

    def commands(self) -> list[str]:
        """The commands of a timing or recorded figure, each checked as its program parses it (`; ` between)."""
        return [part.strip() for part in self.command.split("; ") if part.strip()]


def _kb(size: int) -> str:
    return f"{size / 1000:.0f} kB"


def _page_figures(m: Measurements, layout: str, seed: int, short: int) -> tuple[int, int, int, int]:
    """(bytes per move to the nearest 10, the whole game's page size, its moves, the page of its first `short` moves)."""
    whole, moves = m.html_bytes(layout, seed, None)
    first, _ = m.html_bytes(layout, seed, short)
    per_move = int(round((whole - first) / (moves - short) / 10.0) * 10)
    return per_move, whole, moves, first


def _default_agent(m: Measurements) -> str:
    """The default agent in one phrase, from the constants that make it (README's "Play and watch")."""
    from pacman.agents.evaluation import DEFAULT_EVALUATION
    from pacman.agents.expectimax import (AUTO_DEPTH, DEEPENING_STEP, HUNTED_NODES, NEAR_GHOST_NODES,
                                          NEAR_GHOST_STEPS, SMALL_MAZE_NODES)
    from pacman.agents.small_mazes import SMALL_MAZE_CELLS

    return (f"expectimax at depth `auto` ({AUTO_DEPTH}; deeper on mazes under {SMALL_MAZE_CELLS} cells, "
            f"{_WORDS[DEEPENING_STEP]} plies at a time, at most {SMALL_MAZE_NODES:,} nodes a move, its table keyed "
            f"without the score; on bigger mazes deeper one ply at a time, at most {NEAR_GHOST_NODES:,} nodes a move "
            f"when a ghost is within {NEAR_GHOST_STEPS} steps and {HUNTED_NODES:,} against ghosts that "
            f"hunt) with the `{DEFAULT_EVALUATION}`")


_WORDS = {1: "one", 2: "two", 3: "three", 4: "four"}


def _default_evaluation(m: Measurements) -> str:
    from pacman.agents.evaluation import DEFAULT_EVALUATION

    return f"`{DEFAULT_EVALUATION}`"


def _ghost_kinds(m: Measurements) -> str:
    """Every registered ghost kind, as the command line's --ghosts takes them (`GHOST_KINDS`)."""
    from pacman.agents.ghosts import GHOST_KINDS

    return ", ".join(f"`{kind}`" for kind in GHOST_KINDS)


def _import_seconds(m: Measurements) -> str:
    """The default time limit of importing a user's file (every command's --import-seconds)."""
    from pacman.user_code import IMPORT_SECONDS

    return f"{IMPORT_SECONDS:g} s"


def _course_engine_limits(m: Measurements) -> str:
    """The limits of the child that asks a course's engine, from the constants that set them."""
    from pacman.cs188 import engine_probe, quirks

    rows = [("files", "all read-only (a namespace of its own, where the system allows user namespaces)"),
            ("network", "none (a network namespace of its own)"),
            ("memory", f"{engine_probe.MEMORY_BYTES >> 30} GiB of address space"),
            ("CPU time", f"{engine_probe.CPU_SECONDS} s"), ("wall clock", f"{quirks.RUN_SECONDS:g} s"),
            ("output", "captured, not shown")]
    return "\n\n| limit | value |\n|---|---|\n" + "\n".join(f"| {name} | {value} |" for name, value in rows) + "\n\n"


def _grade_limits(m: Measurements) -> str:
    """The limits a grading holds a submission to, from the constants of the sandbox and its worker that set them."""
    from pacman.grading import sandbox, worker

    def megabytes(count: int) -> str:
        return f"{count >> 20} MB"

    rows = [("wall clock", "each tree, position and game: the assignment's `time_limit` (`move_time_limit` and "
                           "`game_time_limit` for a game), held by the grader"),
            ("memory", "the assignment's `memory_mb` (`RLIMIT_AS`)"),
            ("import", f"{sandbox.IMPORT_TIME_LIMIT:g} s for the submission's module-level code"),
            ("disk writes", f"{megabytes(sandbox.WRITE_BUDGET)} over the whole grading, all its processes together "
                            f"(what it prints left out); {megabytes(worker._OUTPUT_LIMIT)} a file"),
            ("CPU time", f"the time limits of the tests started, plus {sandbox.IMPORT_CPU_LIMIT:g} s for the import, "
                         "over every thread of every process"),
            ("processes", f"{sandbox.MAX_PROCESSES} at once"),
            ("threads", f"{sandbox.MAX_THREADS} in each process"),
            ("sockets", "none"),
            ("printed output", f"never a failure; the report keeps the first and last {sandbox._OUTPUT_KEPT:,} "
                               "characters of each test's")]
    return "\n\n| limit | value |\n|---|---|\n" + "\n".join(f"| {name} | {value} |" for name, value in rows) + "\n\n"


def _classic_forbidden(m: Measurements) -> str:
    """A classic folder's default ``forbid_imports``, from the constant the grader reads."""
    from pacman.grading.forbidden import CLASSIC_FORBIDDEN_IMPORTS

    return "\n\n```text\n" + " ".join(CLASSIC_FORBIDDEN_IMPORTS) + "\n```\n\n"


def _classic_forbidden_example(m: Measurements) -> str:
    """A classic ``CONFIG`` that forbids the default list plus maze distances."""
    from pacman.grading.forbidden import CLASSIC_FORBIDDEN_IMPORTS

    names = " ".join((*CLASSIC_FORBIDDEN_IMPORTS, "pacman.distances"))
    return f'\n\n```text\norder: "q1 q2 q3"\nforbid_imports: "{names}"\n```\n\n'


#: How far below the count of tests the README's floor may be before it is stale: the count moves with the
#: extras installed (the RL extra's test files are skipped whole without it), so no one rounding fits both.
TEST_COUNT_SLACK = 300


def _test_count(m: Measurements, root: Path) -> list[str]:
    """The README's "over N tests": N below the default run's tests as pytest collects them here, and less than
    TEST_COUNT_SLACK below (a floor true with the extras installed and without, not stale)."""
    text = (root / "README.md").read_text(encoding="utf-8")
    start, end = regions(text, "README.md")["readme-test-count"]
    claim = re.fullmatch(r"over (\d{1,3}(?:,\d{3})*) tests", text[start:end].strip())
    if claim is None:
        return [f"README.md: readme-test-count says {text[start:end].strip()!r}; expected \"over N tests\""]
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, env=m.env)  # this checkout's tests
    found = re.search(r"(\d+)(?:/\d+)? tests? collected", done.stdout)
    if found is None:
        raise FigureError(f"pytest --collect-only: no count of tests in its output: {done.stdout[-300:]}")
    floor, count = int(claim.group(1).replace(",", "")), int(found.group(1))
    if not floor < count < floor + TEST_COUNT_SLACK:
        return [f"README.md: \"over {floor:,} tests\", but pytest collects {count:,} here (the floor must be "
                f"below the count by less than {TEST_COUNT_SLACK}): write over {count // 100 * 100:,}"]
    return []


def _similarity_threshold(m: Measurements) -> str:
    from pacman.grading.similarity import DEFAULT_THRESHOLD

    return f"{DEFAULT_THRESHOLD:g} (a share of {DEFAULT_THRESHOLD:.0%})"


CLASS_COMMAND = "pacman-ai grade expectimax class --jobs 2 --gradebook grades.csv"


def _class_example(m: Measurements) -> str:
    """The worked example of grading a class: the made-up class of scripts/make_class.py, graded; the summary and
    the gradebook's first rows."""
    folder = Path(tempfile.mkdtemp(dir=m.scratch))
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_class.py"), "class"], cwd=folder, check=True,
                   capture_output=True, env=m.env)
    done = m.run(CLASS_COMMAND + " --quiet", cwd=folder)
    rows = (folder / "grades.csv").read_text(encoding="utf-8").splitlines()[:6]
    return ("\n\n```text\n" + done.stdout.rstrip("\n") + "\n$ head -6 grades.csv\n" + "\n".join(rows)
            + "\n```\n\n")


def _default_forbidden(m: Measurements) -> str:
    """The shipped assignments' ``forbid_imports`` plus maze distances, as TOML, from the default list."""
    from pacman.grading.forbidden import DEFAULT_FORBIDDEN_IMPORTS

    names = [f'"{name}"' for name in (*DEFAULT_FORBIDDEN_IMPORTS, "pacman.distances")]
    lines, line = [], "   "
    for name in names:
        if len(line) + len(name) + 2 > 100:
            lines.append(line)
            line = "   "
        line += f" {name},"
    lines.append(line)
    return "\n\n```toml\n[assignment]\nforbid_imports = [\n" + "\n".join(lines) + "\n]\n```\n\n"


def _web_page_readme(m: Measurements) -> str:
    per_move, whole, moves, first = _page_figures(m, "medium", 1, 40)
    return (f"about {per_move} bytes per move -- {_kb(whole)} for a {moves}-move game on `medium`, {_kb(first)}\n"
            f"for its first 40 moves (`pacman-ai play --layout medium --seed 1 --display none\n"
            f"--html g.html`, then with `--max-moves 40`; `wc -c g.html`)")


def _web_page_doc(m: Measurements) -> str:
    medium, whole, moves, _ = _page_figures(m, "medium", 1, 40)
    tricky, tricky_whole, tricky_moves, _ = _page_figures(m, "tricky", 1, 40)
    return (f"about {medium} bytes a move on `medium` (2 ghosts) and {tricky} on `tricky` (4 ghosts):\n"
            f"the {moves}-move game of `pacman-ai play --layout medium --seed 1 --display none --html g.html`\n"
            f"is {_kb(whole)}, the {tricky_moves}-move one with `--layout tricky` {_kb(tricky_whole)} (the bytes a move are the\n"
            f"difference from the same game cut at 40 moves, `--max-moves 40`)")


TREE_COMMANDS = (
    "pacman-ai tree examples/trees/expectimax-max-of-chances.json",
    "pacman-ai tree examples/trees/expectimax-weighted-chance.json --json",
    "pacman-ai tree examples/trees/depth-limited.json --depth 1",
)


def _console(*commands: str) -> Callable[[Measurements], str]:
    """A fenced block of each command after `$ ` and what it prints, run from the repository's root."""

    def render(m: Measurements) -> str:
        lines = ["", "```"]
        for command in commands:
            done = m.run(command, cwd=ROOT)  # the example paths are the repository's
            lines.append(f"$ {command}")
            lines.extend(done.stdout.rstrip("\n").splitlines())
        lines += ["```", ""]
        return "\n".join(lines)

    return render


_tree_examples = _console(*TREE_COMMANDS)


GIF_COMMAND = "pacman-ai play --display none --seed 7 --max-moves 150 --record docs/game.gif --zoom 0.75"


def _gif_command(m: Measurements) -> str:
    return f"`{GIF_COMMAND}`"


def _gif_matches(m: Measurements, root: Path) -> list[str]:
    """docs/game.gif against the one its command records now: frame size, frame count, the first frame."""
    from PIL import Image, ImageChops

    fresh = m.recorded(GIF_COMMAND)
    stored_path = root / "docs" / "game.gif"
    if not stored_path.is_file():
        return [f"{stored_path}: missing; run scripts/docs_figures.py --write --gif"]
    with Image.open(stored_path) as stored, Image.open(fresh) as made:
        problems = []
        if (stored.size, stored.n_frames) != (made.size, made.n_frames):
            problems.append(f"docs/game.gif is {stored.size[0]}x{stored.size[1]} pixels, {stored.n_frames} frames; "
                            f"`{GIF_COMMAND}` now records {made.size[0]}x{made.size[1]}, {made.n_frames} frames")
        elif ImageChops.difference(stored.convert("RGB"), made.convert("RGB")).getbbox() is not None:
            # Only the first frame: later ones show each move's search time, which differs run to run.
            problems.append(f"docs/game.gif: its first frame differs from the one `{GIF_COMMAND}` records now")
    if problems:
        problems[-1] += "; run scripts/docs_figures.py --write --gif"
    return problems


#: docs/screenshot.png: a frame of the window's own drawing (the board, the values panel, the status line), as
#: `play --record FOLDER` writes it: the renderer the window draws with, off screen, one frame per glide step.
SCREENSHOT_COMMAND = "pacman-ai play --layout medium --display none --seed 7 --max-moves 60 --record frames"
#: The frame of SCREENSHOT_COMMAND that is the screenshot: the start, then two frames a round, so frame
#: 1 + 2 x 60 is the board after move 60, before the end's banner.
SCREENSHOT_FRAME_NUMBER = 121
SCREENSHOT_FRAME = f"frame_{SCREENSHOT_FRAME_NUMBER:05d}.png"


def _screenshot_command(m: Measurements) -> str:
    return f"frame {SCREENSHOT_FRAME_NUMBER} of `{SCREENSHOT_COMMAND}`"


def _screenshot_made(m: Measurements) -> Path:
    """The frame of SCREENSHOT_COMMAND that docs/screenshot.png must be, recorded now."""
    frame = m.recorded(SCREENSHOT_COMMAND) / SCREENSHOT_FRAME
    if not frame.is_file():
        raise FigureError(f"`{SCREENSHOT_COMMAND}` wrote no {SCREENSHOT_FRAME} (did the game end sooner?)")
    return frame


def _search_time_band(layout_name: str, cell: int) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) of the values panel's "time" line in a frame of `layout_name` at `cell` pixels:
    how long the search took, the one part of a frame that differs run to run. Drawn off screen by the window's
    own renderer (pygame's font module only, as the renderer needs: no window)."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame

    from pacman import Action, GameState, load_layout
    from pacman.view.renderer import Renderer

    layout = load_layout(layout_name)
    renderer = Renderer(layout, cell=cell, panel=True)
    surface = pygame.Surface(renderer.size)
    renderer.draw(surface, GameState.initial(layout), values={action: 0.0 for action in Action}, chosen=Action.STOP,
                  info={"depth": 2, "nodes": 1, "ms": 1.0, "evaluation": "dots", "cached": False})
    line = next(rect for text, rect in renderer.last_layout["panel"] if text.startswith("time"))
    return renderer.panel_left, line.top, renderer.size[0], line.bottom


def _screenshot_matches(m: Measurements, root: Path) -> list[str]:
    """docs/screenshot.png against the frame its command records now: the size, and every pixel but the search's
    time (`_search_time_band`)."""
    from PIL import Image, ImageChops, ImageDraw

    from pacman.view.renderer import cell_pixels

    stored_path = root / "docs" / "screenshot.png"
    again = "; the view's drawing changed: run python scripts/docs_figures.py --write --screenshot"
    if not stored_path.is_file():
        return [f"{stored_path}: missing{again}"]
    fresh = _screenshot_made(m)
    with Image.open(stored_path) as stored_file, Image.open(fresh) as made_file:
        stored, made = stored_file.convert("RGB"), made_file.convert("RGB")
    if stored.size != made.size:
        return [f"docs/screenshot.png is {stored.size[0]}x{stored.size[1]} pixels; {_screenshot_command(m)} is "
                f"{made.size[0]}x{made.size[1]} now{again}"]
    band = _search_time_band("medium", cell_pixels(1.0))
    for picture in (stored, made):
        ImageDraw.Draw(picture).rectangle((band[0], band[1], band[2] - 1, band[3] - 1), fill=(0, 0, 0))
    differs = ImageChops.difference(stored, made).getbbox()
    if differs is not None:
        return [f"docs/screenshot.png differs from {_screenshot_command(m)} (pixels {differs[0]},{differs[1]} to "
                f"{differs[2]},{differs[3]}; the search's time, which differs run to run, left out){again}"]
    return []


BATCH_COMMAND = "pacman-ai batch --layout small --agent-args depth=2 --games 1000 --jobs 2 --out small.jsonl"


def _batch_outcome(m: Measurements) -> str:
    summary = m.batch(BATCH_COMMAND.replace(" --out small.jsonl", ""))
    row = summary["configurations"][0]
    low, high = row["win_rate_ci95"]
    return (f"{row['wins']} won ({100 * row['win_rate']:.1f}%, 95% CI {100 * low:.1f}-{100 * high:.1f}%), "
            f"mean score {row['mean_score']:,.1f}")


#: The shipped learned agent's games on `small` (needs the rl extra: CI installs it before --all).
LEARNED_COMMAND = ("pacman-ai batch --layout small --pacman sb3:examples/rl/small.zip --games 1000 --seed 0 "
                   "--max-moves 500 --jobs 2")


def _learned_outcome(m: Measurements) -> str:
    row = m.batch(LEARNED_COMMAND)["configurations"][0]
    return (f"wins {100 * row['win_rate']:.1f}% of `small` ({row['wins']}\n"
            f"of {row['games']:,} games)")


def _batch_speed(m: Measurements) -> str:
    two = m.batch_timing(BATCH_COMMAND.replace(" --out small.jsonl", ""))
    one = m.batch_timing(BATCH_COMMAND.replace(" --out small.jsonl", "").replace("--jobs 2", "--jobs 1"))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{two[0]:.1f} s: **{two[1]:.0f} games per second** with two workers, and {one[0]:.1f} s\n"
            f"({one[1]:.0f} games per second) with `--jobs 1` (medians of {m.repeat} runs; load average\n"
            f"{load:.1f} when measured)")


MEMORY_REFUSAL_COMMAND = "pacman-ai batch --layout medium --games 100000000"
#: What a memory refusal says about the machine (its free and total memory): not part of the figure.
MACHINE_MEMORY = r"the [\d.,]+ [KMGT]?B of memory this machine has free \([\d.,]+ [KMGT]?B in all\)"


def _memory_estimates(m: Measurements) -> str:
    """docs/long-runs.md's table of estimates, from pacman.memory's own figures, and a batch's refusal."""
    from pacman import load_layout
    from pacman.memory import (MOVE_TIME_BYTES, RECORD_BYTES, SOLVER_NODE_BYTES, WORKER_BYTES, batch_bytes,
                               format_bytes, vector_env_bytes)

    def per(cells: int, observation: int, compiled: bool) -> int:
        return vector_env_bytes(cells, observation, 1, compiled)

    observations_core, game_core = per(0, 1, True) - per(0, 0, True), per(0, 0, True)
    cell_python = per(1, 0, False) - per(0, 0, False)
    observations_python, game_python = per(0, 1, False) - per(0, 0, False), per(0, 0, False)
    medium = load_layout("medium")
    medium_game = per(medium.width * medium.height, 6 * medium.width * medium.height, True)
    counted = (batch_bytes(1, [10**9], 0) - RECORD_BYTES) // MOVE_TIME_BYTES
    done = subprocess.run([sys.executable, "-m", "pacman", *shlex.split(MEMORY_REFUSAL_COMMAND)[1:]],
                          cwd=m.scratch, capture_output=True, text=True, timeout=120,
                          env={k: v for k, v in m.env.items() if k != "PACMAN_AI_MEMORY_LIMIT"})
    if done.returncode != 2 or not done.stderr.startswith("pacman-ai: a batch of"):
        raise FigureError(f"{MEMORY_REFUSAL_COMMAND}: expected a refusal, got exit status {done.returncode}: "
                          f"{done.stderr.strip()[-300:]}")
    return (f"\n\n| what | estimate (measured, rounded up) |\n|---|---|\n"
            f"| `gymnasium.make_vec(..., num_envs=N)`, `PacmanVectorEnv` | compiled core: {observations_core} grid "
            f"observations and {format_bytes(game_core).replace('.0 ', ' ')} a game (`medium`: "
            f"{format_bytes(medium_game)}); Python environments: {cell_python} bytes a cell, {observations_python} "
            f"observations and {format_bytes(game_python).replace('.0 ', ' ')} a game |\n"
            f"| `pacman-ai solve`, the `optimal` agent | {SOLVER_NODE_BYTES} bytes a state, for the smaller of the "
            f"maze's state bound and the most the solver explores |\n"
            f"| `pacman-ai batch`, `compare` | every game's line until the summary "
            f"({format_bytes(RECORD_BYTES).replace('.0 ', ' ')}, and {MOVE_TIME_BYTES} bytes a move time up to "
            f"{counted} moves for a bounded game) and {format_bytes(WORKER_BYTES).replace('.0 ', ' ')} a local "
            f"worker |\n\n```text\n$ {MEMORY_REFUSAL_COMMAND}\n{done.stderr.strip()}\n```\n\n")


def _unchanged(m: Measurements) -> None:
    """The text as documented: an exact figure whose `verify` checks the parts that are exact (a table with
    timing columns beside exact ones)."""
    return None


PLAY_SUMMARY = re.compile(r"^(\d+) games: (\d+) won \([\d.]+%\), mean score (-?[\d.]+), mean moves ([\d.]+), "
                          r"[\d.]+ ms per move$", re.M)


def _play_summary(m: Measurements, command: str) -> tuple[int, int, float, float]:
    """(games, won, mean score, mean moves) from the last line of a ``play --games N`` command."""
    found = PLAY_SUMMARY.findall(m.output(command))
    if not found:
        raise FigureError(f"{command}: no summary line (N games: W won (P%), mean score S, mean moves M, ...)")
    games, won, score, moves = found[-1]
    return int(games), int(won), float(score), float(moves)


DEFAULT_AGENT_COMMAND = "pacman-ai play --layout {layout} --games 100 --seed 0 --display none"


def _default_agent_table(m: Measurements, root: Path) -> list[str]:
    """The won, mean score and mean moves columns of docs/guide/strength.md's first table, against its command
    (the milliseconds are the machine's: not checked)."""
    text = (root / "docs" / "guide" / "strength.md").read_text(encoding="utf-8")
    start, end = regions(text, "docs/guide/strength.md")["default-agent-table"]
    problems = []
    rows = [line.split("|")[1:-1] for line in text[start:end].splitlines() if line.startswith("| ")][1:]
    if not rows:
        return ["docs/guide/strength.md: the default agent's table has no rows"]
    for cells in rows:
        layout, _, won, score, moves = (cell.strip() for cell in cells[:5])
        command = DEFAULT_AGENT_COMMAND.format(layout=layout)
        games, made_won, made_score, made_moves = _play_summary(m, command)
        made = (str(made_won), f"{made_score:.0f}", f"{made_moves:.0f}")
        if (won, score, moves) != made:
            problems.append(f"{layout}: the table says won {won}, mean score {score}, mean moves {moves}; "
                            f"`{command}` gives {made[0]}, {made[1]}, {made[2]}")
    return problems


LAYOUT_OUTCOMES_COMMAND = "pacman-ai play --layout {layout} --games 200 --seed 0 --display none"


def _layout_outcomes(m: Measurements) -> str:
    parts = []
    for layout in ("medium", "tricky", "large"):
        games, won, score, _ = _play_summary(m, LAYOUT_OUTCOMES_COMMAND.format(layout=layout))
        parts.append(f"`{layout}` {won} of {games}, {score:.1f}")
    return f"after ({'; '.join(parts)})"


HELD_OUT_AGENTS = ("greedy", "expectimax:depth=2,evaluation=safe", "expectimax:depth=2,evaluation=better",
                   "expectimax:depth=2,evaluation=scaled", "expectimax:depth=None,node_limit=2000,evaluation=scaled",
                   "expectimax:evaluation=scaled", "expectimax")
HELD_OUT_COMMAND = ("python scripts/optimality_gap.py --set held-out --mazes 300 --jobs 2 "
                    + " ".join(f"--agent {agent}" for agent in HELD_OUT_AGENTS) + " --json held-out.json")
#: The per-maze results of HELD_OUT_COMMAND (its --json, without the mazes' text and the agents' first moves).
HELD_OUT_DATA = "scripts/figures-data/held-out-gaps.json"


def _held_out_summaries(root: Path) -> tuple[dict, list]:
    """The recorded results file and each agent's `GapSummary` made again from it, as the script makes them."""
    return _gap_summaries(root, HELD_OUT_DATA, HELD_OUT_AGENTS, HELD_OUT_COMMAND)


def _gap_summaries(root: Path, data: str, agents: tuple[str, ...], command: str) -> tuple[dict, list]:
    """An optimality_gap.py results file (`data`, made by `command` with `agents`) and each agent's `GapSummary`
    made again from it, as the script makes them: [(summary, policy values, mazes, optima)]."""
    from types import SimpleNamespace

    from research.gap import summarize

    path = root / data
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise FigureError(f"{data}: {exc}") from None
    if list(report.get("agents", {})) != list(agents):
        raise FigureError(f"{data}: its agents are not the documented command's ({command})")

    def finite(score: float | None) -> float:
        return -math.inf if score is None else score

    mazes = [SimpleNamespace(layout=SimpleNamespace(name=m["name"]), family=m["family"]) for m in report["mazes"]]
    optima = [SimpleNamespace(win=m["optimum"], score=finite(m["optimum_score"])) for m in report["mazes"]]
    summaries = []
    for agent, values in report["agents"].items():
        policy = [SimpleNamespace(win=w, score=finite(sc)) for w, sc in zip(values["win"], values["score"])]
        if len(policy) != len(mazes):
            raise FigureError(f"{data}: {agent} has {len(policy)} results for {len(mazes)} mazes")
        summaries.append((summarize(agent, mazes, optima, policy), policy))
    return report, [(s, policy, mazes, optima) for s, policy in summaries]


def _expecter(problems: list[str], data: str) -> Callable[[str, str, str], None]:
    """expect(what, documented, made): a problem in `problems` when a document's figure is not what `data` gives."""

    def expect(what: str, documented: str, made: str) -> None:
        if documented != made:
            problems.append(f"{what}: the document says {documented}, {data} gives {made}")
    return expect


def _held_out_gaps(m: Measurements | None, root: Path) -> list[str]:
    """docs/search-strength.md's held-out table, its mean optimum, its families and the default's count of mazes
    within 3 points, against the summaries made again from the recorded results file."""
    text = (root / "docs" / "search-strength.md").read_text(encoding="utf-8")
    start, end = regions(text, "docs/search-strength.md")["held-out-gaps"]
    region = text[start:end]
    prose = " ".join(region.split())
    report, summaries = _held_out_summaries(root)
    problems: list[str] = []
    expect = _expecter(problems, HELD_OUT_DATA)

    mean_optimum = re.search(r"mean optimum (\d+(?:\.\d+)?)", prose)
    expect("mean optimum", mean_optimum.group(1) if mean_optimum else "nothing",
           f"{100 * summaries[0][0].mean_optimum:.1f}")
    rows = [line for line in region.splitlines() if line.startswith("| ") and not line.startswith("| agent")]
    if len(rows) != len(summaries):
        return problems + [f"the table has {len(rows)} rows for {len(summaries)} agents"]
    for row, (s, _, _, _) in zip(rows, summaries):
        cells = [cell.strip().strip("*").strip() for cell in row.split("|")[2:-1]]
        made = [f"{100 * s.mean_win:.1f}",
                f"{s.mean_gap:.2f} ({s.mean_gap_interval[0]:.2f}-{s.mean_gap_interval[1]:.2f})",
                f"{s.worst_tenth_gap:.1f} ({s.worst_tenth_interval[0]:.1f}-{s.worst_tenth_interval[1]:.1f})",
                str(s.over_3_points), "-" if s.score_gap is None else f"{s.score_gap:.1f}", str(s.never_ends)]
        for column, documented, value in zip(("mean win", "mean gap", "worst tenth", "mazes > 3 points short",
                                              "expected score gap", "mazes never ending"), cells, made):
            expect(f"{s.agent}: {column}", documented, value)
    families: dict[str, list[int]] = {}
    for index, maze in enumerate(report["mazes"]):
        families.setdefault(maze["family"], []).append(index)
    counts = re.search(r"(\d+) blobs, (\d+) forks with a ghost in a pocket, (\d+) crosses, (\d+) pens\)", prose)
    order = ("blob", "fork", "cross", "pen")
    expect("mazes by family", " ".join(counts.groups()) if counts else "nothing",
           " ".join(str(len(families.get(family, []))) for family in order))
    by_family = re.findall(r"(?:greedy|`safe`|`better`|`scaled`|`scaled` with the node limit|`auto`|`dots`) "
                           r"(\d+\.\d), (\d+\.\d), (\d+\.\d), (\d+\.\d)", prose)
    for found, (s, policy, _, optima) in zip(by_family, summaries):
        gaps = [statistics.mean(100 * (optima[i].win - policy[i].win) for i in families[family]) for family in order]
        expect(f"{s.agent}: mean gap by family", ", ".join(found),
               ", ".join(f"{round(gap, 1) + 0.0:.1f}" for gap in gaps))  # + 0.0: no "-0.0"
    if len(by_family) != len(summaries):
        problems.append(f"the families' gaps name {len(by_family)} agents, not {len(summaries)}")
    within = re.search(r"it is on (\d+) of the (\d+) mazes", prose)
    default = summaries[3][0]
    expect("the default within 3 points", " of ".join(within.groups()) if within else "nothing",
           f"{default.mazes - default.over_3_points} of {default.mazes}")
    return problems


WILD_AGENTS = ("greedy", "expectimax:depth=2,evaluation=scaled", "expectimax:evaluation=scaled", "expectimax")
WILD_COMMAND = ("python scripts/optimality_gap.py --set wild --mazes 300 --jobs 2 "
                + " ".join(f"--agent {agent}" for agent in WILD_AGENTS) + " --json wild.json")
#: The per-maze results of WILD_COMMAND (its --json, without the mazes' text and the agents' first moves).
WILD_DATA = "scripts/figures-data/wild-gaps.json"


CORRIDOR_AGENTS = ("expectimax", "expectimax:evaluation=scaled", "expectimax:depth=2,evaluation=scaled", "greedy")
CORRIDOR_COMMAND = ("python scripts/optimality_gap.py --set corridors --mazes 300 --jobs 2 "
                    + " ".join(f"--agent {agent}" for agent in CORRIDOR_AGENTS) + " --json corridors.json")
#: The per-maze results of CORRIDOR_COMMAND (its --json, without the mazes' text and the agents' first moves).
CORRIDOR_DATA = "scripts/figures-data/corridor-gaps.json"


def _set_gaps(m: Measurements | None, root: Path, *, figure: str, data: str, agents: tuple[str, ...], command: str,
              prefix: str | None = None, families_of: str = "expectimax") -> list[str]:
    """A check of docs/search-strength.md's table of a generator's set (figure `figure`, results file `data` made by
    `command` with `agents`) against the summaries made again from that file: every agent's row; the families
    (``FAMILY: N mazes, mean gap G, K more than 3 points short``) of the agent `families_of`; and, when `prefix` is
    given, that agent's mazes more than 3 points short, named PREFIX-SEED. A figure's `verify` is this function
    with all but `m` and `root` given (functools.partial)."""
    text = (root / "docs" / "search-strength.md").read_text(encoding="utf-8")
    start, end = regions(text, "docs/search-strength.md")[figure]
    region = text[start:end]
    prose = " ".join(region.split())
    report, summaries = _gap_summaries(root, data, agents, command)
    problems: list[str] = []
    expect = _expecter(problems, data)

    lines = region.splitlines()
    first = next((k for k, line in enumerate(lines) if line.startswith("| agent")), len(lines))
    rows = list(itertools.takewhile(lambda line: line.startswith("|"), lines[first + 2:]))  # the agents' table
    if len(rows) != len(summaries):
        return problems + [f"the table has {len(rows)} rows for {len(summaries)} agents"]
    for row, (s, _, _, _) in zip(rows, summaries):
        cells = [cell.strip().strip("*").strip() for cell in row.split("|")[2:-1]]
        made = [f"{100 * s.mean_win:.1f}", f"{100 * s.mean_optimum:.1f}",
                f"{s.mean_gap:.2f} ({s.mean_gap_interval[0]:.2f}-{s.mean_gap_interval[1]:.2f})",
                f"{s.worst_tenth_gap:.2f} ({s.worst_tenth_interval[0]:.2f}-{s.worst_tenth_interval[1]:.2f})",
                str(s.over_3_points), f"{s.worst_gap:.1f} ({s.worst_maze})"]
        for column, documented, value in zip(("mean win", "mean optimum", "mean gap", "worst tenth",
                                              "mazes > 3 points short", "worst"), cells, made):
            expect(f"{s.agent}: {column}", documented, value)
    families: dict[str, list[int]] = {}
    for index, maze in enumerate(report["mazes"]):
        families.setdefault(maze["family"], []).append(index)
    _, policy, _, optima = summaries[agents.index(families_of)]
    for family, members in sorted(families.items()):
        gaps = [100 * (optima[i].win - policy[i].win) for i in members]
        found = re.search(rf"{family}: (\d+) mazes, mean gap (\d+\.\d+), (\d+) more than 3 points short", prose)
        expect(f"{family}", " ".join(found.groups()) if found else "nothing",
               f"{len(members)} {statistics.mean(gaps):.2f} {sum(gap > 3 for gap in gaps)}")
    if prefix is None:
        return problems
    short = sorted(((100 * (optima[i].win - policy[i].win), report["mazes"][i]["name"])
                    for i in range(len(optima))), reverse=True)
    named = re.findall(rf"({prefix}-\d+) \((\d+\.\d) short\)", prose)
    expect("the short mazes", ", ".join(f"{name} {gap}" for name, gap in named),
           ", ".join(f"{name} {gap:.1f}" for gap, name in short if gap > 3))
    return problems


def _readme_corridor_gap(m: Measurements | None, root: Path) -> list[str]:
    """The README's sentence on the corridor set (its size, the default's mean gap and mazes more than 3 points
    short) against the summaries made again from the recorded results file."""
    text = (root / "README.md").read_text(encoding="utf-8")
    start, end = regions(text, "README.md")["readme-corridor-gap"]
    prose = " ".join(text[start:end].split())
    _, summaries = _gap_summaries(root, CORRIDOR_DATA, CORRIDOR_AGENTS, CORRIDOR_COMMAND)
    default = summaries[CORRIDOR_AGENTS.index("expectimax")][0]
    problems: list[str] = []
    found = re.search(r"(\d+) bigger mazes of corridors, 25-45 cells, (\d+\.\d\d) points on average, and (?:more "
                      r"than 3 points short on (\d+) of them|within 3 points on every one)", prose)
    said = f"{found[1]} {found[2]} {found[3] or 0}" if found else "nothing"
    _expecter(problems, CORRIDOR_DATA)("the default on the corridor set", said,
                                       f"{default.mazes} {default.mean_gap:.2f} {default.over_3_points}")
    return problems


#: What a compare or batch output says about the run's speed and workers: the machine's, not the figure.
RUN_SPEED = r"\d+ games played in [\d.]+ s on [^\n]*"


def _output_block(document: str, figure: str, command: str, block: int, machine: str = RUN_SPEED
                  ) -> Callable[[Measurements | None, Path], list[str]]:
    """A check that the `block`-th fenced block of a figure is what `command` prints now (its stdout), but for the
    `machine` parts (the run's time and workers)."""

    def verify(m: Measurements | None, root: Path) -> list[str]:
        text = (root / document).read_text(encoding="utf-8")
        start, end = regions(text, document)[figure]
        blocks = re.findall(r"(?ms)^```[^\n]*\n(.*?)^```", text[start:end])
        if len(blocks) <= block:
            return [f"{document}: figure {figure!r} has no block {block + 1} to compare with `{command}`"]
        if m is None:
            raise FigureError(f"figure {figure!r}: its check runs `{command}`")
        shown = blocks[block].rstrip("\n")
        if shown.startswith(f"{command}\n"):  # a block that shows the command, then what it prints
            shown = shown[len(command) + 1:]
        documented = re.sub(machine, "<this machine>", shown)
        made = re.sub(machine, "<this machine>", m.output_of(command, stderr=False).rstrip("\n"))
        if documented == made:
            return []
        return [f"the output shown differs from what `{command}` prints now:\n{_diff(documented, made)}"]

    return verify


COMPARE_TWO = ("pacman-ai compare --layout small --agent-args depth=1 --config score:'--agent-args evaluation=score' "
               "--config better:'--agent-args evaluation=better' --games 50")
COMPARE_SPRT_SAME = ("pacman-ai compare --layout small --agent-args depth=1 --config a:'--agent-args evaluation=dots' "
                     "--config b: --sprt win-rate:0,0.1 --jobs 2")
COMPARE_TRAPPED = ("pacman-ai compare --layout trapped --ghosts random --config d2:'--agent-args depth=2,evaluation=better' "
                   "--config d3:'--agent-args depth=3,evaluation=better' --games 500 --jobs 2")
Q_LEARNING = "python examples/envs/q_learning.py"
COMPARE_MANY = ("pacman-ai compare --layout small --config d1:'--agent-args depth=1,evaluation=better' "
                "--config d2:'--agent-args depth=2,evaluation=better' --config greedy:'--pacman greedy' --games 40")


MCTS_COMMAND = ("pacman-ai play --layout {layout} --pacman mcts --agent-args iterations=100,rollout_depth={depth} "
                "--games 100 --seed 0 --display none")


def _mcts_wins(m: Measurements, layout: str, depth: int) -> int:
    """Games won of the 100 that MCTS (100 iterations a move, deterministic) plays with `depth` rollout rounds."""
    games = [json.loads(line) for line in m.output(MCTS_COMMAND.format(layout=layout, depth=depth) + " --json")
             .splitlines() if line.strip()]
    if len(games) != 100:
        raise FigureError(f"{MCTS_COMMAND.format(layout=layout, depth=depth)} --json: {len(games)} games, expected 100")
    return sum(1 for game in games if game["won"])


def _mcts_rollouts(m: Measurements) -> str:
    return (f"{_mcts_wins(m, 'test', 3)} games on `test` and {_mcts_wins(m, 'corridor', 3)} on\n"
            f"`corridor`, `rollout_depth=0` won {_mcts_wins(m, 'test', 0)} and {_mcts_wins(m, 'corridor', 0)}")


#: Figures not made again by this script (kind "recorded": runs of minutes to hours; kind "timing": a
#: machine's speed). Each is the text between its markers, usually a section's tables and the sentences
#: that quote them; the check parses its commands as their programs do (`command_problems`).
RECORDED_AND_TIMED: tuple[Figure, ...] = (
    Figure('hunted-strength', 'docs/guide/ghosts.md', kind='recorded',
           command='; '.join(f'pacman-ai play --layout {layout} --ghosts {kind} --games 100 --seed 0 --display none'
                             f'{extra}' for kind in ('directional', 'arcade')
                             for layout in ('small', 'medium', 'tricky', 'capsules')
                             for extra in ('', ' --agent-args depth=2'))),
    Figure('kinds-table', 'docs/guide/strength.md', kind='recorded',
           command='python scripts/strength_table.py run --kinds --games 100 --reference-games 10 --jobs 2 '
                   '--results kinds-results; python scripts/strength_table.py table --kinds --games 100 '
                   '--reference-games 10 --results kinds-results'),
    Figure('hunters-gaps', 'docs/guide/ghosts.md', kind='recorded',
           command='; '.join(f'python scripts/optimality_gap.py --set held-out --mazes 300 --ghosts {kind} '
                             '--agent expectimax --agent expectimax:depth=2' for kind in ('directional', 'arcade'))),
    Figure('default-agent-strength', 'docs/guide/strength.md', kind='recorded',
           command='python scripts/strength_table.py table --games 1000 --results strength-results; pacman-ai solve minimax --max-nodes 100000000; pacman-ai batch --layout small --games 10000 --seed 0 --max-moves 500 --jobs 2'),
    Figure('default-agent-notes', 'docs/guide/strength.md', kind='timing',
           command='pacman-ai play --layout tricky --games 100 --seed 0 --display none; PACMAN_AI_ENGINE=python pacman-ai play --layout tricky --games 20 --seed 0 --display none'),
    Figure('strength-table', 'docs/guide/strength.md', kind='recorded',
           command='python scripts/strength_table.py table --games 1000 --results strength-results; pacman-ai batch --layout small --games 10000 --seed 0 --max-moves 500 --jobs 2; pacman-ai batch --layout tricky --games 10000 --seed 0 --max-moves 500 --jobs 2; pacman-ai batch --layout small --games 40000 --seed 3 --max-moves 500 --jobs 2 --agent-args depth=2,evaluation=safe'),
    Figure('held-out-gaps', 'docs/search-strength.md', kind='recorded', command=HELD_OUT_COMMAND,
           data=HELD_OUT_DATA, verify=_held_out_gaps),
    Figure('wild-gaps', 'docs/search-strength.md', kind='recorded', command=WILD_COMMAND, data=WILD_DATA,
           verify=functools.partial(_set_gaps, figure='wild-gaps', data=WILD_DATA, agents=WILD_AGENTS,
                                    command=WILD_COMMAND, families_of='expectimax:evaluation=scaled')),
    Figure('corridor-gaps', 'docs/search-strength.md', kind='recorded', command=CORRIDOR_COMMAND,
           data=CORRIDOR_DATA, verify=functools.partial(_set_gaps, figure='corridor-gaps', data=CORRIDOR_DATA,
                                                        agents=CORRIDOR_AGENTS, command=CORRIDOR_COMMAND,
                                                        families_of='expectimax:evaluation=scaled')),
    Figure('default-move-time', 'docs/search-strength.md', kind='timing',
           command='; '.join(f'pacman-ai batch --layout {layout} --games 100 --seed 0 --max-moves 500 --jobs 1'
                             for layout in ('tiny', 'examples/layouts/two-ghosts.lay', 'trapped', 'minimax')),
           fields=('ms/move', 'p99')),
    Figure('default-budget-machine', 'docs/search-strength.md', kind='recorded',
           command='pacman-ai bench --layout medium --part engine --runs 3; '
                   + '; '.join(f'pacman-ai batch --layout {layout} --games 100 --seed 0 --max-moves 500 --jobs 1'
                               f'{args}' for layout in ('trapped', 'minimax', 'tiny')
                               for args in ('', ' --agent-args depth=None,node_limit=160000'))),
    Figure('solver-layouts', 'docs/search-strength.md', kind='recorded',
           command='; '.join(f'pacman-ai solve {layout}{flags}{limit}'
                             for layout, limit in (('coinflip', ''), ('threeway', ''), ('corridor', ''), ('test', ''),
                                                   ('pocket', ''), ('trapped', ''),
                                                   ('minimax', ' --max-nodes 100000000'),
                                                   ('tiny', ' --max-nodes 100000000'))
                             for flags in ('', ' --ghosts directional', ' --objective score'))),
    Figure('default-every-set', 'docs/search-strength.md', kind='recorded',
           command='; '.join(f'python scripts/optimality_gap.py {where} --mazes 300 --jobs 2 --agent expectimax'
                             for where in ('--set tuning', '--set held-out', '--set held-out --first 2000000',
                                           '--set held-out --first 3000000', '--set wild', '--set corridors'))),
    Figure('shipped-layouts-gap', 'docs/search-strength.md', kind='recorded',
           command='python scripts/optimality_gap.py --layout trapped --layout minimax --per-maze --agent expectimax; '
                   'python scripts/optimality_gap.py --layout threeway --layout corridor --layout coinflip '
                   '--layout pocket --layout test --layout tiny --per-maze --agent expectimax'),
    Figure('big-layouts-99', 'docs/search-strength.md', kind='recorded',
           command='; '.join(f'pacman-ai batch --layout {layout} --games {games} --seed 0 --max-moves {moves} --jobs 2'
                             for layout, games, moves in (('small', 10000, 500), ('tricky', 10000, 500),
                                                          ('medium', 4000, 500), ('capsules', 4000, 500),
                                                          ('large', 4000, 2000)))
           + '; pacman-ai batch --layout small --games 40000 --seed 3 --max-moves 500 --jobs 2 '
             '--agent-args depth=2,evaluation=safe; pacman-ai batch --layout tricky --games 3000 --seed 1 '
             '--max-moves 500 --jobs 2 --agent-args depth=3,evaluation=better'),
    Figure('default-limits', 'docs/search-strength.md', kind='recorded',
           command='python scripts/optimality_gap.py --set corridors --mazes 300 --jobs 2 --agent expectimax; '
                   'python scripts/optimality_gap.py --layout trapped --layout minimax --per-maze --agent expectimax; '
                   'pacman-ai play --layout corr54.lay --games 40 --seed 0 --display none'),
    Figure('narrow-corridors', 'docs/guide/strength.md', kind='tested',
           command='python -m pytest -m slow tests/test_narrow_example.py'),
    Figure('narrow-hunters', 'docs/guide/strength.md', kind='recorded',
           command='; '.join(f'pacman-ai batch --layout examples/layouts/narrow.lay --ghosts {kind} --games {games} '
                             f'--seed 0 --max-moves 500{extra}' for kind in ('directional', 'arcade')
                             for games, extra in ((100, ''), (10, ' --agent-args node_limit=1000000')))),
    Figure('squat-mazes', 'docs/guide/strength.md', kind='recorded',
           command='; '.join(f'pacman-ai batch --layout examples/layouts/squat-{n}.lay{extra}' for n in (1, 2, 3, 4)
                             for extra in (' --games 400 --seed 100',
                                           ' --ghosts directional --games 100 --seed 100 --max-moves 500',
                                           ' --ghosts directional --games 40 --seed 100 --max-moves 500',
                                           ' --ghosts directional --games 40 --seed 100 --max-moves 500 '
                                           '--agent-args node_limit=1000000'))
           + '; pacman-ai batch --layout examples/layouts/squat-4.lay --games 40 --seed 100 '
             '--agent-args node_limit=1000000'),
    Figure('reference-games', 'docs/guide/strength.md', kind='recorded',
           command='; '.join(f'pacman-ai batch --layout {layout} --ghosts directional --games {games} --seed 100 '
                             f'--max-moves {moves}{extra}'
                             for layout, games, moves in (('small', 60, 500), ('tricky', 40, 500), ('large', 20, 2000),
                                                          ('examples/layouts/squat-4.lay', 20, 500))
                             for extra in ('', ' --agent-args node_limit=1000000'))),
    Figure('hunter-mazes', 'docs/guide/strength.md', kind='recorded',
           command='; '.join(f'pacman-ai batch --layout examples/layouts/{maze}.lay --ghosts {kind} {extra}'
                             for maze in ('house', 'eight-capsules') for kind in ('directional', 'arcade', 'random')
                             for extra in (('--games 400 --seed 0 --max-moves 500',) if kind == 'random' else
                                           ('--games 200 --seed 0 --max-moves 500',
                                            '--games 200 --seed 0 --max-moves 500 --agent-args depth=2',
                                            '--games 30 --seed 0 --max-moves 500 --agent-args node_limit=1000000')))),
    Figure('readme-strength', 'README.md', kind='recorded',
           command='python scripts/strength_table.py table --games 1000 --results strength-results; pacman-ai batch --layout small --games 10000 --seed 0 --max-moves 500 --jobs 2; pacman-ai batch --layout tricky --games 10000 --seed 0 --max-moves 500 --jobs 2'),
    Figure('class-speed', 'docs/guide/grade.md', kind='timing',
           command='pacman-ai grade expectimax class --jobs 2 --quiet --force'),
    Figure('readme-suite-time', 'README.md', kind='timing',
           command='python -m pytest -q -p no:cacheprovider'),
    Figure('cs188-classic-report', 'docs/cs188.md', kind='tested',
           command='python -m pytest tests/test_cs188_generations.py -k worked_example_of_each_generation'),
    Figure('make-vec-refusal', 'docs/environments.md', kind='tested',
           command='python -m pytest tests/test_command_line_expectations.py -k make_vec_with_ten_million'),
    Figure('grade-progress-line', 'docs/grading.md', kind='timing',
           command='pacman-ai grade expectimax tests/submissions/correct.py',
           fields=('Total:', 'graded in')),
    Figure('student-shapes', 'docs/search-strength.md', kind='tested',
           command='python -m pytest tests/test_student_mazes.py -k within_3_points'),
    Figure('reflex-games', 'docs/grading.md', kind='tested',
           command='python -m pytest tests/test_multiagent_assignment.py -k reflex_games'),
    Figure('multiagent-grading-time', 'docs/grading.md', kind='timing',
           command='pacman-ai grade multiagent tests/submissions/multiagent/reference.py'),
    Figure('batch-sweep-table', 'docs/guide/batch.md', kind='recorded',
           command='pacman-ai batch --layout small,medium --agent-args depth=1,2,3,evaluation=score,better --games 100 --max-moves 500 --jobs 2 --out sweep.jsonl --summary sweep.json --plot sweep.png'),
    Figure('batch-worker-memory', 'docs/guide/batch.md', kind='timing',
           command='pacman-ai batch --layout small --agent-args depth=2 --games 1000 --jobs 2 --out small.jsonl'),
    Figure('expectimax-grading-times', 'docs/guide/grade.md', kind='timing',
           command='pacman-ai grade expectimax tests/submissions/correct.py'),
    Figure('multiagent-grade-time', 'docs/guide/grade.md', kind='timing',
           command='pacman-ai grade multiagent tests/submissions/multiagent/reference.py'),
    Figure('play-depth-cost', 'docs/guide/play.md', kind='timing',
           command='pacman-ai bench --part search --depths 2,3,4 --positions 10 --runs 3 --compare tricky',
           fields=('median ms', 'max ms')),
    Figure('star2-play-figures', 'docs/guide/play.md', kind='timing',
           command='pacman-ai bench --part search --depths 2,3,4 --positions 10 --runs 3 --compare tricky',
           fields=('Star1', 'Star2', 'nodes/move', 'max nodes')),
    Figure('play-engine-times', 'docs/guide/play.md', kind='recorded',
           command='pacman-ai play --layout crowded.lay --json --max-moves 3 --seed 1; pacman-ai play --layout crowded.lay --json --max-moves 3 --seed 1 --agent-args depth=2'),
    Figure('web-stream-bytes', 'docs/guide/play.md', kind='timing',
           command='python -m pytest -m slow -s tests/test_live_web.py -k keeps_up'),
    Figure('solve-large-mazes', 'docs/guide/solve.md', kind='recorded',
           command='pacman-ai solve minimax --max-nodes 100000000; pacman-ai solve tiny --max-nodes 100000000'),
    Figure('learn-chance-tree', 'docs/learn-expectimax.md', kind='tested',
           command='python -m pytest tests/test_learn_expectimax_doc.py -k every_tree_command'),
    Figure('learn-depth-limit', 'docs/learn-expectimax.md', kind='tested',
           command='python -m pytest tests/test_learn_expectimax_doc.py -k every_tree_command'),
    Figure('learn-same-position', 'docs/learn-expectimax.md', kind='tested',
           command='python -m pytest tests/test_learn_expectimax_doc.py -k python_example'),
    Figure('flat-memory', 'docs/long-runs.md', kind='timing',
           command='python -m pytest -m slow tests/test_long_and_shared_runs.py -k test_memory_of_a_long_game_stays_flat'),
    Figure('replay-100k', 'docs/long-runs.md', kind='timing',
           command='pacman-ai play --layout nofood.lay --display none --seed 1 --max-moves 100000 --save long.json; pacman-ai replay long.json --display none'),
    Figure('mcts-optimum', 'docs/search-strength.md', kind='recorded',
           command='pacman-ai solve test; pacman-ai solve corridor'),
    Figure('batch-speed-before-core', 'docs/guide/batch.md', kind='timing',
           command='PACMAN_AI_ENGINE=python pacman-ai batch --layout small --agent-args depth=2 --games 1000 --jobs 2'),
    Figure('readme-optimum-gap', 'README.md', kind='recorded',
           command=HELD_OUT_COMMAND.replace(' --json held-out.json', '') + ''.join(
               f'; python scripts/optimality_gap.py --set held-out --first {first} --mazes 300 --jobs 2 --agent expectimax'
               for first in (2000000, 3000000))),
    Figure('readme-corridor-gap', 'README.md', kind='recorded', command=CORRIDOR_COMMAND, data=CORRIDOR_DATA,
           verify=_readme_corridor_gap),
    Figure('readme-learned-training', 'README.md', kind='recorded',
           command='python examples/rl/train.py --layout small --out small.zip --timesteps 4000000 --minutes 25 '
                   '--eval-every 250000 --eval-games 500 --loss-penalty 1500 --seed 0'),
    Figure('step-chance-agreement', 'docs/environments.md', kind='recorded',
           command='python -m pytest tests/test_envs_sb3.py -k step_chance_is_the_true_directions'),
    Figure('grading-polled-overshoot', 'docs/grading.md', kind='recorded',
           command='python scripts/grading_faults.py flood'),
    Figure('grading-namespace-cost', 'docs/grading.md', kind='recorded',
           command='python scripts/grading_faults.py cost'),
    Figure('grading-write-budget-namespace', 'docs/long-runs.md', kind='recorded',
           command='python scripts/grading_faults.py flood'),
    Figure('grading-write-budget-runs', 'docs/long-runs.md', kind='recorded',
           command='python scripts/grading_faults.py flood'),
    Figure('grading-busy-threads', 'docs/long-runs.md', kind='recorded',
           command='python scripts/grading_faults.py busy'),
    Figure('crowded-search-size', 'docs/guide/play.md', kind='recorded',
           command='python -m pytest tests/test_layout_limits.py'),
    Figure('core-why-c', 'docs/engine.md', kind='timing',
           command='pacman-ai bench --part search --depths 2,3,4 --positions 20 --runs 3',
           fields=('nodes/s', 'compiled')),
    Figure('core-same-answers', 'docs/engine.md', kind='timing',
           command='pacman-ai bench --part search --depths 2,3,4 --positions 20 --runs 3',
           fields=('nodes/move', 'compiled')),
    Figure('core-figures', 'docs/engine.md', kind='timing',
           command='pacman-ai bench --part search --depths 2,3,4 --positions 20 --runs 3',
           fields=('ms/move', 'nodes/move', 'nodes/s', 'compiled')),
    Figure('star2-ordering', 'docs/engine.md', kind='timing',
           command='pacman-ai bench --part search --depths 2,3,4 --positions 10 --runs 3 --compare tricky',
           fields=('Star1', 'Star2', 'nodes/move')),
    Figure('far-ghosts', 'docs/engine.md', kind='timing',
           command='pacman-ai bench --part search --depths 2,3,4 --positions 10 --runs 3 --compare tricky',
           fields=('Star2', 'nodes/move')),
    Figure('core-memory', 'docs/engine.md', kind='recorded',
           command='pacman-ai bench --part search --depths 2,3,4 --positions 20 --runs 3'),
    Figure('sprt-model', 'docs/experiments.md', kind='recorded',
           command="pacman-ai compare --layout small --agent-args depth=1 --config a:'--agent-args evaluation=dots' --config b: --sprt win-rate:0,0.1 --jobs 2"),
    Figure('sprt-same-config', 'docs/experiments.md', kind='recorded',
           command="pacman-ai compare --layout small --agent-args depth=1 --config a:'--agent-args evaluation=dots' --config b: --sprt win-rate:0,0.1 --jobs 2"),
    Figure('sprt-same-config-notes', 'docs/experiments.md', kind='recorded',
           command="pacman-ai compare --layout small --agent-args depth=1 --config a:'--agent-args evaluation=dots' --config b: --sprt win-rate:0,0.1 --jobs 2"),
    Figure('sprt-d2-d3', 'docs/experiments.md', kind='recorded',
           command="pacman-ai compare --layout tricky --ghosts directional --config d2:'--agent-args depth=2,evaluation=better' --config d3:'--agent-args depth=3,evaluation=better' --sprt win-rate:0,0.1 --out d2-d3.jsonl --plot d2-d3-sprt.png --jobs 2"),
    Figure('paired-unpaired', 'docs/experiments.md', kind='recorded',
           command="pacman-ai compare --layout tricky --ghosts directional --config d2:'--agent-args depth=2,evaluation=better' --config d3:'--agent-args depth=3,evaluation=better' --games 447 --out d2-d3.jsonl --resume --json --quiet"),
    Figure('pairing-pays', 'docs/experiments.md', kind='recorded',
           command="pacman-ai compare --layout trapped --ghosts random --config d2:'--agent-args depth=2,evaluation=better' --config d3:'--agent-args depth=3,evaluation=better' --games 500 --out trapped-d2-d3.jsonl --jobs 2; pacman-ai compare --layout tricky --ghosts random --config d1:'--agent-args depth=1,evaluation=better' --config d2:'--agent-args depth=2,evaluation=better' --games 500 --out tricky-d1-d2.jsonl --jobs 2"),
    Figure('pairing-pays-notes', 'docs/experiments.md', kind='recorded',
           command="pacman-ai compare --layout trapped --ghosts random --config d2:'--agent-args depth=2,evaluation=better' --config d3:'--agent-args depth=3,evaluation=better' --games 500 --out trapped-d2-d3.jsonl --jobs 2; pacman-ai compare --layout tricky --ghosts random --config d1:'--agent-args depth=1,evaluation=better' --config d2:'--agent-args depth=2,evaluation=better' --games 500 --out tricky-d1-d2.jsonl --jobs 2"),
    Figure('bench-figures', 'docs/guide/bench.md', kind='timing',
           command='pacman-ai bench --runs 5'),
    Figure('bench-auto', 'docs/guide/bench.md', kind='timing',
           command='pacman-ai bench --part auto --positions 20 --runs 3'),
    Figure('rl-recipe', 'docs/environments.md', kind='recorded',
           command='nice -n 5 python examples/rl/train.py --layout small --out small.zip --timesteps 4000000 --minutes 25 --eval-every 100000; pacman-ai batch --layout small --pacman sb3:examples/rl/small.zip --games 1000 --seed 0 --max-moves 500 --jobs 2; pacman-ai compare --layout small --config "learned:--pacman sb3:examples/rl/small.zip" --config "expectimax:--pacman expectimax" --games 1000 --max-moves 500 --jobs 2; pacman-ai batch --layout medium --pacman sb3:examples/rl/medium.zip --games 1000 --seed 0 --max-moves 500 --jobs 2'),
    Figure('env-speed', 'docs/environments.md', kind='timing',
           command='pacman-ai bench --part env --runs 5',
           fields=('single env, gymnasium.make (benchmark_step), compiled engine', 'vector env, 1,024 games (compiled core)', 'vector env, 1,024 games, copy=False', 'Jumanji')),
    Figure('sb3-vecenv-speed', 'docs/environments.md', kind='timing',
           command='pacman-ai bench --part env --runs 5',
           fields=('SB3 VecEnv', 'vector env, 1,024 games (compiled core)', 'SAME_STEP')),
    Figure('web-measured', 'docs/web.md', kind='timing',
           command='python -m pytest -m slow -s tests/test_live_web.py -k keeps_up'),
    Figure('suite-time', 'docs/guide/development.md', kind='timing',
           command='python -m pytest -q -p no:cacheprovider'),
    Figure('ci-time', 'docs/guide/development.md', kind='timing', command='bash .ci/run'),
)

FIGURES: tuple[Figure, ...] = (
    Figure("tree-examples", "docs/guide/tree.md", "; ".join(TREE_COMMANDS), "exact", _tree_examples),
    Figure("web-page-size", "docs/guide/play.md",
           "pacman-ai play --layout medium --seed 1 --display none --html g.html [--max-moves 40]", "exact",
           _web_page_readme),
    Figure("web-page-bytes", "docs/web-page.md",
           "pacman-ai play --layout medium|tricky --seed 1 --display none --html g.html [--max-moves 40]", "exact",
           _web_page_doc),
    Figure("game-gif", "README.md", GIF_COMMAND, "exact", _gif_command, verify=_gif_matches),
    Figure("screenshot", "README.md", SCREENSHOT_COMMAND, "exact", _screenshot_command, verify=_screenshot_matches),
    Figure("readme-default-agent", "README.md", "pacman-ai play --help", "exact", _default_agent),
    Figure("play-default-evaluation", "docs/guide/play.md", "pacman-ai play --help", "exact", _default_evaluation),
    Figure("grading-default-evaluation", "docs/grading.md", "pacman-ai play --help", "exact", _default_evaluation),
    Figure("import-seconds", "docs/guide/evaluation.md", "pacman-ai play --help", "exact", _import_seconds),
    *(Figure(f"ghost-kinds-{where}", page, "pacman-ai play --help", "exact", _ghost_kinds)
      for where, page in (("commands", "docs/guide/commands.md"), ("play", "docs/guide/play.md"), ("games", "docs/grading.md"),
                          ("contest", "docs/grading.md"))),
    Figure("cs188-engine-limits", "docs/cs188.md", "python -c 'import pacman.cs188.quirks'", "exact",
           _course_engine_limits),
    Figure("cs188-default-forbidden", "docs/cs188.md", "python -c 'import pacman.grading.forbidden'", "exact",
           _classic_forbidden),
    Figure("class-similarity-threshold", "docs/guide/grade.md",
           "python -c 'import pacman.grading.similarity'", "exact", _similarity_threshold),
    Figure("cs188-forbidden-example", "docs/cs188.md", "python -c 'import pacman.grading.forbidden'", "exact",
           _classic_forbidden_example),
    Figure("grading-forbidden-example", "docs/grading.md", "python -c 'import pacman.grading.forbidden'", "exact",
           _default_forbidden),
    Figure("grade-limits", "docs/guide/grade.md", "python -c 'import pacman.grading.sandbox'", "exact",
           _grade_limits),
    Figure("layouts-table", "docs/guide/layouts.md", "pacman-ai layouts", "exact", _console("pacman-ai layouts")),
    Figure("solve-threeway", "docs/guide/solve.md", "pacman-ai solve threeway", "exact",
           _console("pacman-ai solve threeway")),
    Figure("mcts-rollouts", "docs/search-strength.md",
           MCTS_COMMAND.format(layout="test|corridor", depth="3|0"), "exact", _mcts_rollouts),
    Figure("strength-default-agent", "docs/search-strength.md", "pacman-ai play --help", "exact", _default_agent),
    Figure("memory-estimates", "docs/long-runs.md", MEMORY_REFUSAL_COMMAND, "exact", _memory_estimates,
           machine=MACHINE_MEMORY),
    Figure("batch-outcome", "docs/guide/batch.md", BATCH_COMMAND, "exact", _batch_outcome, slow=True),
    Figure("batch-speed", "docs/guide/batch.md", f"{BATCH_COMMAND}; {BATCH_COMMAND.replace('--jobs 2', '--jobs 1')}",
           "timing", _batch_speed),
    Figure("readme-learned", "README.md", LEARNED_COMMAND, "exact", _learned_outcome, slow=True),
    Figure("readme-test-count", "README.md", "python -m pytest --collect-only -q", "exact", _unchanged, slow=True,
           verify=_test_count),
    Figure("class-example", "docs/guide/grade.md", CLASS_COMMAND, "exact", _class_example, slow=True),
    Figure("two-configurations", "docs/experiments.md", COMPARE_TWO, "exact", _unchanged, slow=True,
           verify=_output_block("docs/experiments.md", "two-configurations", COMPARE_TWO, 1)),
    Figure("many-configurations", "docs/experiments.md", COMPARE_MANY + " --plot ranking.png", "exact", _unchanged,
           slow=True, verify=_output_block("docs/experiments.md", "many-configurations", COMPARE_MANY, 1)),
    Figure("sprt-same-config-output", "docs/experiments.md", COMPARE_SPRT_SAME, "exact", _unchanged, slow=True,
           verify=_output_block("docs/experiments.md", "sprt-same-config-output", COMPARE_SPRT_SAME, 0)),
    Figure("pairing-trapped-output", "docs/experiments.md", COMPARE_TRAPPED + " --out trapped-d2-d3.jsonl", "exact",
           _unchanged, slow=True,
           verify=_output_block("docs/experiments.md", "pairing-trapped-output", COMPARE_TRAPPED, 0)),
    Figure("q-learning-example", "docs/environments.md", Q_LEARNING, "exact", _unchanged, slow=True,
           verify=_output_block("docs/environments.md", "q-learning-example", Q_LEARNING, 0, machine=r"(?!)")),
    Figure("default-agent-table", "docs/guide/strength.md", DEFAULT_AGENT_COMMAND.format(layout="NAME"), "exact",
           _unchanged, slow=True, verify=_default_agent_table),
    Figure("play-layout-outcomes", "docs/guide/play.md", LAYOUT_OUTCOMES_COMMAND.format(layout="medium|tricky|large"),
           "exact", _layout_outcomes, slow=True),
) + RECORDED_AND_TIMED




# -- the commands of figures that are not made again -------------------------------------------------------


def command_problems(command: str, root: Path = ROOT) -> list[str]:
    """Why `command` would not run as written (no run: parsed only): [] when it parses.

    ``pacman-ai ...`` is parsed by pacman-ai's own argument parser; ``python PATH ...``
    (after an optional ``nice -n N``) needs PATH in the repository and each ``--flag``
    it gives among the flags PATH defines; ``bash PATH`` needs PATH in the repository.
    """
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        return [f"`{command}`: {exc}"]
    while argv and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", argv[0]):  # NAME=value before the command
        argv = argv[1:]
    if argv[:2] == ["nice", "-n"]:
        argv = argv[3:]
    problems = _missing_paths(command, argv, root)
    if problems:
        return problems
    if argv and argv[0] == "pacman-ai":
        import contextlib
        import io

        from pacman.cli import build_parser
        from pacman.cli.args import UsageError

        errors = io.StringIO()
        try:
            with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
                build_parser().parse_args(argv[1:])
        except UsageError as exc:  # pacman-ai's parser says what is wrong in one line
            return [f"`{command}`: {exc}"]
        except SystemExit:
            return [f"`{command}`: {' '.join(errors.getvalue().split()) or 'pacman-ai refuses it'}"]
        return []
    if argv[:3] == ["python", "-m", "pytest"]:
        missing = [a for a in argv[3:] if a.endswith(".py") and not (root / a).is_file()]
        return [f"`{command}`: {path} is not in the repository" for path in missing]
    if argv[:1] == ["bash"] and len(argv) == 2:  # a script of the repository's, as CI's `bash .ci/run`
        return [] if (root / argv[1]).is_file() else [f"`{command}`: {argv[1]} is not in the repository"]
    if len(argv) >= 2 and argv[0] == "python" and argv[1].endswith(".py"):
        script = root / argv[1]
        if not script.is_file():
            return [f"`{command}`: {argv[1]} is not in the repository"]
        text = script.read_text(encoding="utf-8")
        unknown = [a.split("=")[0] for a in argv[2:] if a.startswith("--") and f'"{a.split("=")[0]}"' not in text]
        return [f"`{command}`: {argv[1]} defines no {flag}" for flag in unknown]
    return [f"`{command}`: not a command this script can check (pacman-ai ..., python PATH.py ... or bash PATH)"]


#: Flags whose value is a file the command writes, not one it reads.
_OUTPUT_FLAGS = {"--out", "--record", "--plot", "--summary", "--save", "--html", "--results", "--draw", "--json",
                 "--cache", "--init"}


def _missing_paths(command: str, argv: list[str], root: Path) -> list[str]:
    """The repository files a command reads (a path under one of the repository's folders) that are not there."""
    missing = []
    for before, token in zip([""] + argv, argv):
        if before in _OUTPUT_FLAGS:
            continue
        path = token.split("=", 1)[-1].rsplit(":", 1)[-1] if ":" in token and "/" in token else token.split("=")[-1]
        first = path.split("/", 1)[0]
        if "/" in path and first and (root / first).is_dir() and not (root / path).exists():
            missing.append(f"`{command}`: {path} is not in the repository")
    return missing


def _tests_not_collected(commands: list[str]) -> list[str]:
    """The ``python -m pytest ...`` commands that select no test (each collected, not run)."""
    missing = []
    for command in commands:
        argv = shlex.split(command)
        if argv[:3] != ["python", "-m", "pytest"]:
            missing.append(f"`{command}`: a tested figure names a test: python -m pytest PATH [-k NAME]")
            continue
        done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                               "-n", "0", "-m", "", *argv[3:]], cwd=ROOT, capture_output=True, text=True,
                              timeout=300)
        if done.returncode != 0 or not re.search(r"^\d+ tests? collected|^\S+::\S+", done.stdout, re.M):
            missing.append(f"`{command}` selects no test")
    return missing


# -- figures without markers -----------------------------------------------------------------------------

#: What looks like a figure in prose: a percentage, a duration, a size, a ratio, a count with thousands
#: separators, a decimal number. Code (fenced blocks other than output, `inline code`) and marked figures
#: are not looked at.
FIGURE_LIKE = re.compile(r"""(?x)
    (?<![\w.\-/=])(?:
        \d[\d,]*(?:\.\d+)?\s?%                                               # 86.8%
      | \d[\d,]*(?:\.\d+)?\s?(?:ms|us|µs|ns|s|seconds?|minutes?|min|hours?)\b(?![-/])  # 0.30 ms, 7.5 minutes
      | \d[\d,]*(?:\.\d+)?\s?(?:[kKMGT]i?B|bytes)\b                           # 708 KB
      | \d[\d,]*(?:\.\d+)?x\b                                               # 9.85x
      | \d{1,3}(?:,\d{3})+(?:\.\d+)?                                          # 1,618,957
      | \d+\.\d+                                                           # 551.0
    )(?![.\d])""")

#: Numbers that look like figures and are not: (document or "*", a literal piece of the line that holds the
#: number). A hit inside such a piece is allowed. Keep each piece as short as makes it unique and say why.
NOT_FIGURES: tuple[tuple[str, str], ...] = (
    # the size cap of the dot games (pacman.agents.dot_games.MAX_TABLE_BYTES), a constant
    ("docs/guide/python.md", "games take at most 16 MiB"),
    # the confidence level of the leaderboard's intervals (pacman.batch.stats), a constant
    ("docs/guide/grade.md", "with 95% intervals"),
    # a kind of slow test named in prose (games that long), not a measurement
    ("docs/guide/development.md", "100,000-move games"),
    # versions of Python and of libraries
    ("*", "Python 3.10"), ("*", "Python 3.11"), ("*", "Python 3.12"), ("*", ">= 1.0"), ("*", "Gymnasium 1.0"), ("*", "Python 2.7"), ("*", "PettingZoo 1."),
    # limits, defaults and constants the code sets (pacman.limits, pacman.memory, the grader's sandbox, the
    # flags' ranges), the course's classic constants, a confidence level, a heading that names a claim, and
    # the values of a tree a worked example writes by hand: none is measured
    ('README.md', 'ends, win rates with 95%'),
    ('docs/cs188.md', 'classic values (40, 0.7'),
    # the grader's limits (pacman.grading.sandbox: IMPORT_TIME_LIMIT, the output kept, the watch's period)
    ('docs/grading.md', 'first and last 2,000 characters'), ('docs/grading.md', "time limit, 10 s for the"),
    ('docs/grading.md', 'every 0.2 s of CPU time'), ('docs/grading.md', 'keeping the first and last 2,000'),
    ('docs/search-strength.md', 'move is made (about 1 KB,'),
    ('docs/cs188.md', 'with a memory cap (1024 MB'),
    ('docs/cs188.md', 'MB), a CPU-time cap, 8 MB'),
    ('docs/cs188.md', 'of output at most, 10 seconds'),
    ('docs/cs188.md', '`GraphGameTreeTest`, 120 seconds'),
    ('docs/cs188.md', 'hold here too (one 32 MB'),
    ('docs/cs188.md', 'at most 256 MB'),
    ('docs/environments.md', '`max_moves` (default 1,000'),
    ('docs/experiments.md', 'bootstrap interval (10,000'),
    ('docs/guide/play.md', 'count at most 70,000 nodes'),
    ('README.md', 'at most 70,000 nodes a move'),
    ('docs/grading.md', 'what is left of the 32 MB'),
    ('docs/grading.md', 'One budget of 32 MB'),
    ('docs/grading.md', 'budget (less 4 KB'),
    ('docs/grading.md', '32.0 MB they may write'),
    ('docs/grading.md', 'Ubuntu 24.04'),
    ('docs/grading.md', 'that took 1 s'),
    ('docs/grading.md', 'a line, or one every 10 s'),
    ('docs/grading.md', 'module, `exit()`, 10 s'),
    ('docs/grading.md', 'at most 500 moves, 1 s'),
    ('docs/grading.md', 'moves, 1 s a move, 30 s'),
    ('docs/grading.md', '| 6 trees (1, 2 and 3 min'),
    ('docs/grading.md', 'the starter at most 1 MB'),
    ('docs/grading.md', 'a tree file at most 16 MB'),
    ('docs/grading.md', '200,000'),
    ('docs/grading.md', '`points` at most 1,000,000'),
    ('docs/grading.md', '10,000'),
    ('docs/grading.md', 'time limit at most 3600 s'),
    ('docs/grading.md', 'may expand at most 300,000'),
    ('docs/grading.md', 'is worth -230, Stop 2.75'),
    ('docs/grading.md', '(worth 2.75'),
    ('docs/grading.md', 'library from 3.11'),
    ('docs/grading.md', '`python3`** (Ubuntu 22.04'),
    ('docs/grading.md', 'is 3.10'),
    ('docs/grading.md', "Ubuntu 24.04's is 3.12"),
    ('docs/grading.md', 'only before Python 3.11'),
    ('docs/grading.md', 'cp --python-version 3.10'),
    ('docs/grading.md', 'with glibc up to 2.35'),
    ('docs/grading.md', '- 10 seconds'),
    ('docs/grading.md', '- a cap of 8 MB'),
    ('docs/grading.md', 'every 0.05 s'),
    ('docs/grading.md', 'one write budget of 32 MB'),
    ('docs/grading.md', 'tests started (plus 10 s'),
    ('docs/grading.md', 'socket (at most 0.05 s'),
    ('docs/guide/batch.md', 'least 1,000'),
    ('docs/guide/batch.md', 'stays honest near 0%'),
    ('docs/guide/batch.md', 'honest near 0% and 100%'),
    ('docs/guide/batch.md', 'line at most every 5 s'),
    ('docs/guide/batch.md', 'been finishing for 2 s'),
    ('docs/guide/batch.md', 'the layouts within 60 s'),
    ('docs/guide/batch.md', 'most 86400 s'),
    ('docs/guide/batch.md', 'rises by less than 5 MB'),
    ('docs/guide/batch.md', 'not answer within 5 s'),
    ('docs/guide/commands.md', 'the maze, at least 1,000'),
    ('docs/guide/compare.md', 'alpha and beta 0.05'),
    ('docs/guide/layouts.md', 'A layout has at most 4,096'),
    ('docs/guide/layouts.md', '0.7'),
    ('docs/guide/play.md', 'open cell, at least 1,000'),
    ('docs/guide/play.md', '1,000 (`medium`: 2,200'),
    ('docs/guide/play.md', '2,200; `large`: 6,680'),
    ('docs/guide/play.md', 'maze, 4,096'),
    ('docs/guide/play.md', 'to answer: at most 80%'),
    ('docs/guide/play.md', 'at most 80% of S and 50 ms'),
    ('docs/guide/play.md', '(half of S under 100 ms'),
    ('docs/guide/play.md', 'the compiled core, 200,000'),
    ('docs/guide/play.md', 'runs: `--fps` 0.1'),
    ('docs/guide/play.md', 'may have at most 8,388,608'),
    ('docs/guide/play.md', '8,388,608 pixels and 16,384'),
    ('docs/guide/play.md', '`--games` at most 10,000'),
    ('docs/guide/play.md', 'one (the best is 0.0'),
    ('docs/guide/play.md', '(limit 64 MB'),
    ('docs/guide/python.md', 'open cell, at least 1,000'),
    ('docs/guide/solve.md', '(8,000,000'),
    ('docs/guide/solve.md', 'goes (at most 100,000,000'),
    ('docs/guide/solve.md', 'with an error past 15,000,000'),
    ('docs/learn-expectimax.md', 'Trees of more than 5,000'),
    ('docs/long-runs.md', 'open cell, at least 1,000'),
    ('docs/long-runs.md', '1,000 (`medium` 2,200'),
    ('docs/long-runs.md', '2,200, `tricky` 2,560'),
    ('docs/long-runs.md', '2,560, `large` 6,680'),
    ('docs/long-runs.md', '6,680; at most 81,920'),
    ('docs/long-runs.md', '1 - cut off after 1,000'),
    ('docs/long-runs.md', '`tricky`, estimate 1.6'),
    ('docs/long-runs.md', '(80%'),
    ('docs/long-runs.md', '50 ms'),
    ('docs/long-runs.md', 'of S when S is under 100 ms'),
    ('docs/long-runs.md', 'at most every 5 seconds'),
    ('docs/long-runs.md', '5 minutes'),
    ('docs/long-runs.md', 'the whole grading, 32 MB'),
    ('docs/long-runs.md', 'out), on top of the 8 MB'),
    ('docs/long-runs.md', 'processes every 0.05 s'),
    ('docs/long-runs.md', 'tests started plus 10 s'),
    ('docs/search-strength.md', '### The 99%'),
    ('docs/web-page.md', 'and the speed (0.5'),
    ('docs/web.md', 'rounds per second, 0.1'),
    ('docs/web.md', 'received it (at most 3 s'),
    ('docs/web.md', 'that falls more than 2,048'),
    ('docs/cs188.md', '10 seconds per `GraphGameTreeTest`'),
    ('docs/guide/play.md', '4,096 cells: 81,920'),
    ('docs/guide/play.md', '`--fps` 0.1-1000, `--zoom` 0.1'),
    ('docs/guide/play.md', '64 MB and 200,000'),
    ('docs/long-runs.md', 'silent for 5 seconds'),
)

_FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")
#: Fenced blocks shown as a program's output (no language, or one of these) are looked at; code is not.
_OUTPUT_FENCES = {"", "text", "console", "output"}
_COMMAND_LINE = re.compile(r"^\s*(\$ |>>> |\.\.\. |#|pacman-ai |python |nice |pip |cd |export |pytest |--|[A-Z_]+=)")


def unmarked_figures(documents: dict[str, str], allowed: tuple[tuple[str, str], ...] = NOT_FIGURES
                     ) -> list[tuple[str, int, str, str]]:
    """Every figure-looking number outside a figure's markers: (document, line, number, the line)."""
    found = []
    for document, text in documents.items():
        spans = regions(text, document)
        blank = list(text)
        for start, end in spans.values():
            for i in range(start, end):
                if blank[i] != "\n":
                    blank[i] = " "
        fence = None
        for number, line in enumerate("".join(blank).split("\n"), 1):
            opened = _FENCE.match(line)
            if opened and fence is None:
                fence = opened.group(3).lower()
                continue
            if opened and fence is not None:
                fence = None
                continue
            if fence is not None and (fence not in _OUTPUT_FENCES or _COMMAND_LINE.match(line)):
                continue
            prose = re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), line) if fence is None else line
            prose = re.sub(r"<!--.*?-->|\]\([^)]*\)|https?://\S+", lambda m: " " * len(m.group(0)), prose)
            pieces = [(piece, line.find(piece)) for where, piece in allowed if where in ("*", document)
                      and piece in line]
            for hit in FIGURE_LIKE.finditer(prose):
                if any(0 <= at <= hit.start() and hit.end() <= at + len(piece) for piece, at in pieces):
                    continue
                found.append((document, number, hit.group(0), line.strip()))
    return found


UNMARKED_HELP = """\
A number that looks like a figure (a rate, a duration, a size, a count, a result) is not marked.
Every figure of the docs is checked by scripts/docs_figures.py. To mark one:
  1. put markers around it (the sentence, table or block that holds it):
       <!-- figure NAME -->the text with the figure<!-- /figure NAME -->
     (NAME: lowercase letters, digits and dashes; a table: each marker on a line of its own, a blank line
     between a marker and the table);
  2. add a Figure to FIGURES in scripts/docs_figures.py: its NAME, the document, the exact command that makes
     it, and its kind: "exact" (deterministic: give a render function; it is made again and compared),
     "timing" (a speed: its command is parsed; --timings runs it) or "recorded" (too slow for CI: its command is
     parsed as its program parses it);
  3. run python scripts/docs_figures.py (and --write for an exact figure).
A number that is not a figure (a version, a flag's default, a count in prose) goes into NOT_FIGURES in
scripts/docs_figures.py with a short piece of its line. See docs/guide/development.md, "Figures in the docs"."""


# -- documents --------------------------------------------------------------------------------------------


def regions(text: str, document: str) -> dict[str, tuple[int, int]]:
    """The marked regions of a document: name -> (start, end) of the text between its markers (not in code blocks).

    FigureError for a marker left open, closed without being opened, or used twice.
    """
    found: dict[str, tuple[int, int]] = {}
    open_name, open_end = None, 0
    fenced = [m.span() for m in re.finditer(r"(?ms)^[ \t]*(```+|~~~+).*?^[ \t]*\1[ \t]*$", text)]
    for match in MARKER.finditer(text):
        if any(start <= match.start() < end for start, end in fenced):
            continue  # a marker shown in a code block (the development guide's example) marks nothing
        closing, name = match.group(1) == "/", match.group(2)
        line = text.count("\n", 0, match.start()) + 1
        if not closing:
            if open_name is not None:
                raise FigureError(f"{document} line {line}: figure {name!r} opens inside figure {open_name!r}")
            if name in found:
                raise FigureError(f"{document} line {line}: figure {name!r} is marked twice")
            open_name, open_end = name, match.end()
        else:
            if name != open_name:
                raise FigureError(f"{document} line {line}: <!-- /figure {name} --> closes no open figure "
                                  f"{'(open: ' + repr(open_name) + ')' if open_name else ''}")
            found[name] = (open_end, match.start())
            open_name = None
    if open_name is not None:
        raise FigureError(f"{document}: figure {open_name!r} is never closed (<!-- /figure {open_name} -->)")
    return found


def _documents(root: Path) -> dict[str, str]:
    """Every document that may hold figures: README.md and the Markdown pages of docs/, its subfolders included."""
    paths = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in paths if p.is_file()}


def check_markers(documents: dict[str, str], figures: tuple[Figure, ...]) -> list[str]:
    """Markers naming no figure, and figures whose markers are missing or in another document."""
    known = {f.name: f for f in figures}
    problems = []
    seen: set[str] = set()
    for document, text in documents.items():
        for name in regions(text, document):
            if name not in known:
                problems.append(f"{document}: marked figure {name!r} is not in scripts/docs_figures.py FIGURES")
            elif known[name].document != document:
                problems.append(f"{document}: figure {name!r} belongs in {known[name].document}")
            seen.add(name)
    for figure in figures:
        if figure.name not in seen:
            problems.append(f"{figure.document}: no markers for figure {figure.name!r} "
                            f"(<!-- figure {figure.name} -->...<!-- /figure {figure.name} -->)")
    return problems


def _replace(text: str, span: tuple[int, int], new: str) -> str:
    return text[:span[0]] + new + text[span[1]:]


def _diff(old: str, new: str) -> str:
    import difflib

    lines = difflib.unified_diff(old.splitlines(), new.splitlines(), "documented", "made now", lineterm="", n=1)
    return "\n".join("    " + line for line in lines)


# -- the command line ---------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/docs_figures.py",
                                     description="Check the README's and docs' figures against their commands: "
                                                 "every figure-looking number marked, the exact figures made "
                                                 "again, the commands of timing and recorded ones parsed, recorded "
                                                 "results summarised again (default); write the exact ones, or "
                                                 "measure the timings again.")
    parser.add_argument("--all", action="store_true",
                        help="also the slow exact figures (about two minutes) and the tested figures' tests")
    parser.add_argument("--write", action="store_true", help="write the figures into the documents instead of "
                                                             "checking them")
    parser.add_argument("--gif", action="store_true", help="with --write: record docs/game.gif again too")
    parser.add_argument("--screenshot", action="store_true",
                        help="with --write: make docs/screenshot.png again too (a frame of the window's drawing)")
    parser.add_argument("--timings", action="store_true",
                        help="measure the timing figures again and print them with their commands (with --write: "
                             "write them too)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing figure, the median shown (default: 3)")
    parser.add_argument("--only", action="append", default=None, metavar="NAME", help="only this figure (repeat)")
    parser.add_argument("--list", action="store_true", help="list the figures and exit")
    parser.add_argument("--lint", action="store_true",
                        help="only look for figure-looking numbers without markers (and markers without figures)")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="the repository whose documents are checked or written (default: this one)")
    args = parser.parse_args(argv)
    if args.gif and not args.write:
        parser.error("--gif records docs/game.gif again: give it with --write")
    if args.screenshot and not args.write:
        parser.error("--screenshot makes docs/screenshot.png again: give it with --write")
    if args.repeat < 1:
        parser.error("--repeat: expected a positive number of runs")
    figures = FIGURES
    if args.only:
        unknown = [name for name in args.only if name not in {f.name for f in FIGURES}]
        if unknown:
            parser.error(f"--only: no figure {', '.join(map(repr, unknown))} "
                         f"(figures: {', '.join(f.name for f in FIGURES)})")
        figures = tuple(f for f in FIGURES if f.name in args.only)
    if args.list:
        for figure in FIGURES:
            kind = figure.kind + (" (slow)" if figure.slow else " (data)" if figure.data else "")
            print(f"{figure.name:<24} {kind:<15} {figure.document:<26} {figure.command}"
                  + (f" [results: {figure.data}]" if figure.data else ""))
        return 0
    try:
        return _run(args, figures)
    except FigureError as exc:
        print(f"docs_figures: {exc}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace, figures: tuple[Figure, ...]) -> int:
    root = args.root.resolve()
    documents = _documents(root)
    problems = check_markers(documents, FIGURES)
    problems += [f"{document} line {line}: {number!r} looks like a figure and is not marked: {text}"
                 for document, line, number, text in unmarked_figures(documents)]
    if problems:
        for problem in problems:
            print(f"docs_figures: {problem}", file=sys.stderr)
        if any("is not marked" in problem for problem in problems):
            print(UNMARKED_HELP, file=sys.stderr)
        return 1
    if args.lint:
        print(f"every figure-looking number of {len(documents)} documents is marked or allowed")
        return 0
    # Every timing and recorded figure: its commands still parse (they are not run here).
    differ = 0
    if not args.timings and not args.write:
        for figure in figures:
            if figure.kind == "exact":
                continue
            problems = [p for command in figure.commands() for p in command_problems(command, root)]
            if figure.kind == "recorded" and figure.verify is not None and not problems:
                problems = figure.verify(None, root)  # from its recorded results file: nothing is run
            if problems:
                differ += 1
                print(f"DIFFERS  {figure.name} ({figure.document}, {figure.kind}): "
                      + ("its results file gives another text" if figure.verify is not None and
                         not any(problem.startswith("`") for problem in problems) else
                         "its command no longer parses"))
                for problem in problems:
                    print(f"    {problem}")
            elif figure.kind == "tested" and args.all and (missing := _tests_not_collected(figure.commands())):
                differ += 1
                print(f"DIFFERS  {figure.name} ({figure.document}, tested): {'; '.join(missing)}")
            else:
                found = ("its tests are there" if figure.kind == "tested" and args.all else
                         f"its command parses, its text is {figure.data}'s" if figure.verify is not None else
                         "its command parses")
                print(f"parses  {figure.name} ({figure.document}, {figure.kind}: {found})")
    # --timings: the timing figures; otherwise the exact ones (the slow ones with --all, or when named).
    chosen = [f for f in figures if (f.kind == "timing" if args.timings else f.kind == "exact")
              and (args.all or args.only or not f.slow)]
    with tempfile.TemporaryDirectory(prefix="docs-figures-") as scratch:
        measurements = Measurements(Path(scratch), repeat=args.repeat)
        changed: dict[str, str] = {}
        for figure in chosen:
            text = changed.get(figure.document, documents[figure.document])
            span = regions(text, figure.document)[figure.name]
            documented = text[span[0]:span[1]]
            started = time.perf_counter()
            if figure.render is None:  # a timing figure shown beside its command's output, to compare by eye
                print(f"{figure.name} ({figure.document}): {figure.command}")
                print(f"    documented: {' '.join(documented.split())[:600]}")
                for command in figure.commands():
                    output = measurements.output_of(command)
                    missing = [field for field in figure.fields if field not in output]
                    print(f"    $ {command}")
                    print("\n".join("      " + line for line in output.rstrip().splitlines()[-40:]))
                    if missing:
                        differ += 1
                        print(f"    DIFFERS: the output no longer names {', '.join(map(repr, missing))}")
                continue
            made = figure.render(measurements)
            if made is None:  # `_unchanged`: its verify checks it
                made = documented
            extra = figure.verify(measurements, root) if figure.verify is not None else []
            took = time.perf_counter() - started
            if figure.kind == "timing":
                print(f"{figure.name} ({figure.document}): {figure.command}")
                print(f"    documented: {' '.join(documented.split())}")
                print(f"    measured:   {' '.join(made.split())}")
            if args.write:
                if made != documented:
                    changed[figure.document] = _replace(text, span, made)
                    print(f"wrote {figure.name} into {figure.document}")
                if figure.name == "game-gif" and args.gif:
                    target = root / "docs" / "game.gif"
                    target.write_bytes(measurements.recorded(GIF_COMMAND).read_bytes())
                    print(f"recorded {target.relative_to(root)}: {GIF_COMMAND}")
                elif figure.name == "screenshot" and args.screenshot:
                    target = root / "docs" / "screenshot.png"
                    target.write_bytes(_screenshot_made(measurements).read_bytes())
                    print(f"recorded {target.relative_to(root)}: {_screenshot_command(measurements)}")
                elif extra:
                    for problem in extra:
                        print(f"{figure.name}: {problem}", file=sys.stderr)
                    differ += 1
                continue
            if figure.kind == "timing":
                continue
            if figure.machine is not None and not args.write:
                made = re.sub(figure.machine, lambda m: "<this machine>", made)
                documented = re.sub(figure.machine, lambda m: "<this machine>", documented)
            if made == documented and not extra:
                print(f"ok  {figure.name} ({figure.document}, {took:.1f} s)")
                continue
            differ += 1
            print(f"DIFFERS  {figure.name} ({figure.document}): {figure.command}")
            if made != documented:
                print(_diff(documented, made))
            for problem in extra:
                print(f"    {problem}")
        for document, text in changed.items():
            (root / document).write_text(text, encoding="utf-8")
    if differ and not args.write:
        print(f"docs_figures: {differ} figure(s) differ from what their commands give now; "
              f"run python scripts/docs_figures.py --write (and --gif for docs/game.gif, --screenshot for "
              f"docs/screenshot.png) for exact ones; a recorded "
              f"figure's text is written by hand from its results file or its command", file=sys.stderr)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
