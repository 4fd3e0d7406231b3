#!/usr/bin/env python3
"""The figures of the README and docs/ (the documentation site's pages), made again by the commands that make them.

Every figure sits in its document between two markers that name it:

    <!-- figure web-page-size -->about 160 bytes per move ...<!-- /figure web-page-size -->

and is listed in `FIGURES` below with the command a reader runs to get it and a
function that writes the text between the markers from what that command gives.
Two kinds:

- **exact** figures (game outcomes, file sizes, tree values, the GIF's frames) are
  the same on every machine; ``--check`` (the default) makes them again and fails,
  naming each figure that differs, if a document does not say what the command
  gives now. The test suite runs it, so a change that moves a figure fails until
  the figure is written again with ``--write``.
- **timing** figures (seconds, games per second) depend on the machine and its
  load; ``--timings`` measures them again (medians of ``--repeat`` runs) and prints
  each with its command, the documented text and the new one. ``--write
  --timings`` puts the new ones into the documents.

Usage:

    python scripts/docs_figures.py                    # check the fast exact figures (the tests do this)
    python scripts/docs_figures.py --all              # ... and the slow ones (CI does this)
    python scripts/docs_figures.py --write            # write the exact figures into the documents
    python scripts/docs_figures.py --write --gif      # ... and record docs/game.gif again
    python scripts/docs_figures.py --timings          # measure the timings, print them with their commands
    python scripts/docs_figures.py --list             # every figure, its document and its command

To add a figure: put the markers around its text in the document, add a `Figure`
to `FIGURES` (its name, document, command, kind, and the function that renders
it from `Measurements`), and run ``--write``. A marker without a figure, or a
figure without its markers, is an error of ``--check``.

Exit status: 0 when every checked figure matches (or was written), 1 when one
differs, 2 on a usage error or a command that failed.
"""

from __future__ import annotations

import argparse
import functools
import json
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
        argv = shlex.split(command)
        if argv[0] != "pacman-ai":
            raise FigureError(f"not a pacman-ai command: {command}")
        done = subprocess.run([sys.executable, "-m", "pacman", *argv[1:]], cwd=cwd or self.scratch, env=self.env,
                              capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise FigureError(f"{command}: exit status {done.returncode}: {done.stderr.strip()[-500:]}")
        return done

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
    """``exact`` (the same everywhere: checked) or ``timing`` (measured again on request)."""
    render: Callable[[Measurements], str]
    """The text between the markers, from the measurements."""
    slow: bool = False
    """Exact but slow to make (minutes): checked with --all only."""
    verify: Callable[[Measurements, Path], list[str]] | None = None
    """Further checks (a file the document shows): problems, [] if none."""


def _kb(size: int) -> str:
    return f"{size / 1000:.0f} kB"


def _page_figures(m: Measurements, layout: str, seed: int, short: int) -> tuple[int, int, int, int]:
    """(bytes per move to the nearest 10, the whole game's page size, its moves, the page of its first `short` moves)."""
    whole, moves = m.html_bytes(layout, seed, None)
    first, _ = m.html_bytes(layout, seed, short)
    per_move = int(round((whole - first) / (moves - short) / 10.0) * 10)
    return per_move, whole, moves, first


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


BATCH_COMMAND = "pacman-ai batch --layout small --agent-args depth=2 --games 1000 --jobs 2 --out small.jsonl"


def _batch_outcome(m: Measurements) -> str:
    summary = m.batch(BATCH_COMMAND.replace(" --out small.jsonl", ""))
    row = summary["configurations"][0]
    low, high = row["win_rate_ci95"]
    return (f"{row['wins']} won ({100 * row['win_rate']:.1f}%, 95% CI {100 * low:.1f}-{100 * high:.1f}%), "
            f"mean score {row['mean_score']:,.1f}")


def _batch_speed(m: Measurements) -> str:
    two = m.batch_timing(BATCH_COMMAND.replace(" --out small.jsonl", ""))
    one = m.batch_timing(BATCH_COMMAND.replace(" --out small.jsonl", "").replace("--jobs 2", "--jobs 1"))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{two[0]:.1f} s: **{two[1]:.0f} games per second** with two workers, and {one[0]:.1f} s\n"
            f"({one[1]:.0f} games per second) with `--jobs 1` (medians of {m.repeat} runs; load average\n"
            f"{load:.1f} when measured)")


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


FIGURES: tuple[Figure, ...] = (
    Figure("tree-examples", "docs/guide/tree.md", "; ".join(TREE_COMMANDS), "exact", _tree_examples),
    Figure("web-page-size", "docs/guide/play.md",
           "pacman-ai play --layout medium --seed 1 --display none --html g.html [--max-moves 40]", "exact",
           _web_page_readme),
    Figure("web-page-bytes", "docs/web-page.md",
           "pacman-ai play --layout medium|tricky --seed 1 --display none --html g.html [--max-moves 40]", "exact",
           _web_page_doc),
    Figure("game-gif", "README.md", GIF_COMMAND, "exact", _gif_command, verify=_gif_matches),
    Figure("layouts-table", "docs/guide/layouts.md", "pacman-ai layouts", "exact", _console("pacman-ai layouts")),
    Figure("solve-threeway", "docs/guide/solve.md", "pacman-ai solve threeway", "exact",
           _console("pacman-ai solve threeway")),
    Figure("mcts-rollouts", "docs/search-strength.md",
           MCTS_COMMAND.format(layout="test|corridor", depth="3|0"), "exact", _mcts_rollouts),
    Figure("batch-outcome", "docs/guide/batch.md", BATCH_COMMAND, "exact", _batch_outcome, slow=True),
    Figure("batch-speed", "docs/guide/batch.md", f"{BATCH_COMMAND} (and with --jobs 1)", "timing", _batch_speed),
)


# -- documents --------------------------------------------------------------------------------------------


def regions(text: str, document: str) -> dict[str, tuple[int, int]]:
    """The marked regions of a document: name -> (start, end) of the text between its markers.

    FigureError for a marker left open, closed without being opened, or used twice.
    """
    found: dict[str, tuple[int, int]] = {}
    open_name, open_end = None, 0
    for match in MARKER.finditer(text):
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
                                     description="Make the README's and docs' figures again from their commands: "
                                                 "check the exact ones (default), write them, or measure the "
                                                 "timings again.")
    parser.add_argument("--all", action="store_true", help="also the slow exact figures (minutes)")
    parser.add_argument("--write", action="store_true", help="write the figures into the documents instead of "
                                                             "checking them")
    parser.add_argument("--gif", action="store_true", help="with --write: record docs/game.gif again too")
    parser.add_argument("--timings", action="store_true",
                        help="measure the timing figures again and print them with their commands (with --write: "
                             "write them too)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing figure, the median shown (default: 3)")
    parser.add_argument("--only", action="append", default=None, metavar="NAME", help="only this figure (repeat)")
    parser.add_argument("--list", action="store_true", help="list the figures and exit")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="the repository whose documents are checked or written (default: this one)")
    args = parser.parse_args(argv)
    if args.gif and not args.write:
        parser.error("--gif records docs/game.gif again: give it with --write")
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
            print(f"{figure.name:<16} {figure.kind + (' (slow)' if figure.slow else ''):<12} {figure.document:<24} "
                  f"{figure.command}")
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
    if problems:
        for problem in problems:
            print(f"docs_figures: {problem}", file=sys.stderr)
        return 1
    # --timings: the timing figures; otherwise the exact ones (the slow ones with --all, or when named).
    chosen = [f for f in figures if (f.kind == "timing") == args.timings and (args.all or args.only or not f.slow)]
    differ = 0
    with tempfile.TemporaryDirectory(prefix="docs-figures-") as scratch:
        measurements = Measurements(Path(scratch), repeat=args.repeat)
        changed: dict[str, str] = {}
        for figure in chosen:
            text = changed.get(figure.document, documents[figure.document])
            span = regions(text, figure.document)[figure.name]
            documented = text[span[0]:span[1]]
            started = time.perf_counter()
            made = figure.render(measurements)
            took = time.perf_counter() - started
            extra = figure.verify(measurements, root) if figure.verify is not None else []
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
                elif extra:
                    for problem in extra:
                        print(f"{figure.name}: {problem}", file=sys.stderr)
                    differ += 1
                continue
            if figure.kind == "timing":
                continue
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
              f"run python scripts/docs_figures.py --write (and --gif for docs/game.gif)", file=sys.stderr)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
