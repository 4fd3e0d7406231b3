"""What every subcommand shares: argument types, the one-line usage error, exit codes, output checks.

A command-line mistake (a bad flag value, an output that cannot be written)
is a `UsageError`: `pacman.cli.main` prints its one line and exits with
`EXIT_USAGE`. The argument types raise `argparse.ArgumentTypeError`, which
`OneLineParser` turns into such a line naming the flag.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
from typing import Callable, NoReturn

from pacman.files import output_problem
from pacman.limits import NO_LIMIT, parse_max_moves

__all__ = [
    "EXIT_USAGE",
    "EXIT_INTERRUPTED",
    "EXIT_STOPPED",
    "EXIT_GAMES_FAILED",
    "failed_games_report",
    "is_failed_game",
    "stop_words",
    "stop_status",
    "report_stop",
    "UsageError",
    "OneLineParser",
    "positive_int",
    "max_moves",
    "NO_MOVE_LIMIT",
    "non_negative_int",
    "non_negative_int_list",
    "positive_float",
    "bounded_int",
    "bounded_float",
    "check_output",
    "numbered",
]

EXIT_USAGE = 2
"""Exit status of a usage error (a bad flag, layout, agent spec, file)."""
EXIT_INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as shells report it; SIGTERM and SIGHUP give 128 + their number."""
EXIT_STOPPED = 3
"""Exit status of a run that stopped before its end for a cause other than a signal (its executor lost)."""


EXIT_GAMES_FAILED = 4
"""Exit status of `play`, `batch` and `compare` when a game crashed or timed out (the table and files are whole)."""


def failed_games_report(first: dict | None, failed: int, total: int) -> list[str]:
    """The lines that tell of a run's `failed` crashed or timed-out games out of `total`: how many, then the
    `first` one's error (its record as `GameResult.to_dict` writes it), the frames of the user's own files it
    passed through and its hint; [] when none failed. `play`, `batch` and `compare` print these on stderr and
    exit with `EXIT_GAMES_FAILED`."""
    if first is None or not failed:
        return []
    where = f"seed {first.get('seed')}" + (f", {first['layout']}" if first.get("layout") else "")
    lines = [f"pacman-ai: {failed} of {total} game{'s' if total != 1 else ''} crashed or timed out; "
             f"the first ({where}): {first.get('error') or first.get('outcome')}"]
    lines.extend(f"  {frame}" for frame in first.get("error_frames") or ())
    if first.get("error_hint"):
        lines.append(f"  hint: {first['error_hint']}")
    return lines


def is_failed_game(record: dict) -> bool:
    """A game that crashed or timed out (its record as `GameResult.to_dict` writes it)."""
    return bool(record.get("crashed") or record.get("timed_out"))


def stop_words(stop_signal: int | None, stopped_by: str) -> str:
    """Why a run of games stopped early, in a few words: ``interrupted`` (Ctrl-C), ``stopped by SIGTERM``, or
    ``stopped: `` and what its executor did; `batch` and `compare` say it alike."""
    if stop_signal is not None:
        return "interrupted" if stop_signal == signal.SIGINT else f"stopped by {signal.Signals(stop_signal).name}"
    return f"stopped: {stopped_by}" if stopped_by else "interrupted"


def stop_status(stop_signal: int | None, stopped_by: str) -> int:
    """The exit status of a run that stopped early: 130 after Ctrl-C, 128 + N after signal N, else `EXIT_STOPPED`
    for a lost executor (and 130 for a run that says nothing more: an interruption)."""
    if stop_signal is not None:
        return EXIT_INTERRUPTED if stop_signal == signal.SIGINT else 128 + int(stop_signal)
    return EXIT_STOPPED if stopped_by else EXIT_INTERRUPTED


def report_stop(exc: KeyboardInterrupt, unwritten: list[str]) -> int:
    """Say in one line on stderr why `play` or `replay` stopped (Ctrl-C, or SIGTERM / SIGHUP as a `RunSignal`)
    and which of its outputs it did not write (each is whole or absent: an earlier file of that name is as it
    was), in the words of `stop_words`: ``pacman-ai: stopped by SIGTERM; game.gif and game.json not written``.
    Returns the exit status, as `stop_status` gives it."""
    number = getattr(exc, "signal", signal.SIGINT)
    note = f"pacman-ai: {stop_words(number, '')}"
    if unwritten:
        names = unwritten[0] if len(unwritten) == 1 else f"{', '.join(unwritten[:-1])} and {unwritten[-1]}"
        note += f"; {names} not written"
    with contextlib.suppress(OSError, ValueError):  # after SIGHUP the terminal may be gone
        print(note, file=sys.stderr, flush=True)
    return stop_status(number, "")


class UsageError(Exception):
    """A command-line mistake: reported in one line, exit status 2."""


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line, not a usage block."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


def positive_int(text: str) -> int:
    """An argparse type: an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


NO_MOVE_LIMIT = NO_LIMIT
"""What the --max-moves type returns for ``--max-moves none``: the classic game, without a limit."""

max_moves = parse_max_moves
"""The --max-moves type of every command (`pacman.limits.parse_max_moves`): a positive integer or ``none``."""


def non_negative_int(text: str) -> int:
    """An argparse type: an integer of at least 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value


def non_negative_int_list(text: str) -> list[int]:
    """An argparse type: comma-separated non-negative integers, ``0,1,2``."""
    return [non_negative_int(item) for item in text.split(",")]


def positive_float(text: str) -> float:
    """An argparse type: a finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not value > 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def bounded_int(low: int, high: int, why: str = "") -> Callable[[str], int]:
    """An argparse type: an integer from `low` to `high` (the error names the range and `why`)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected an integer from {low:,} to {high:,}{why}, got {text!r}")
        return value

    return parse


def bounded_float(low: float, high: float, why: str = "") -> Callable[[str], float]:
    """An argparse type: a number from `low` to `high`."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:  # NaN fails both
            raise argparse.ArgumentTypeError(f"expected a number from {low:g} to {high:g}{why}, got {text!r}")
        return value

    return parse


def check_output(command: str, flag: str, target: str, *, folder: bool = False) -> None:
    """Refuse an output path before anything runs: a UsageError naming the flag, the path and the problem."""
    if not target:
        raise UsageError(f"pacman-ai {command}: {flag}: expected a file name, got an empty string")
    problem = output_problem(target, folder=folder)
    if problem is not None:
        raise UsageError(f"pacman-ai {command}: {flag} {target!r}: {problem}")


def check_run_flags(prog: str, args: argparse.Namespace) -> None:
    """The flags batch and compare share, checked alike: --resume and --force (each about --out) and --dask."""
    if args.resume and args.out is None:
        raise UsageError(f"{prog}: --resume needs --out FILE.jsonl (the file to continue)")
    if args.force and args.out is None:
        raise UsageError(f"{prog}: --force needs --out FILE.jsonl (the file it lets a run overwrite)")
    if args.resume and args.force:
        raise UsageError(f"{prog}: --resume and --force contradict each other: continue the file or overwrite it")
    if args.dask is not None and not args.dask.strip():
        raise UsageError(f"{prog}: --dask needs a scheduler address (HOST:PORT or tcp://HOST:PORT) or 'local', "
                         f"got an empty one")
    if args.dask and args.dask != "local" and args.jobs is not None:
        raise UsageError(f"{prog}: --jobs applies to --dask local only; a scheduler's workers are its own")


def numbered(path: str, index: int) -> str:
    """The output of game `index` of several: ``game.json`` -> ``game-3.json``, ``frames`` -> ``frames-3``."""
    stem, dot, suffix = path.rpartition(".")
    return f"{stem}-{index}.{suffix}" if dot and "/" not in suffix else f"{path}-{index}"
