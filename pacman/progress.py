"""Progress of long work, on stderr: one policy for every command (solve, compare, batch, grade, bench).

A `Progress` writes lines such as ``solve: 1,200,000 states explored, 14 s``:

- on stderr only, so that ``--json`` output on stdout is never mixed with it;
- rate-limited: redrawn in place at most every `TERMINAL_EVERY` seconds on a
  terminal, else a plain line at most every `PLAIN_EVERY` seconds;
- with a heartbeat: when the work itself has said nothing for that long (a slow
  first game, a long sweep), the last line is shown again with the time so far,
  so a long job is never silent for more than a few seconds;
- off with ``--quiet``: the commands then make no `Progress` at all (`progress_for`).

`GameProgress` is the games-done display of `batch` and `compare` (win rate, rate,
ETA). `interruption_note` is what a command says after Ctrl-C about its results
file: only what is true (how many finished games the file holds, or none).
Nothing here imports anything but the standard library.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any, Sequence, TextIO

__all__ = ["Progress", "GameProgress", "progress_for", "interruption_note", "stopped_run_note", "games_in", "duration", "TERMINAL_EVERY",
           "PLAIN_EVERY", "HEARTBEAT"]

TERMINAL_EVERY = 0.2
"""Seconds between two redraws of a progress line on a terminal."""
PLAIN_EVERY = 5.0
"""Seconds between two progress lines written to a file or a pipe."""
HEARTBEAT = 5.0
"""Seconds of silence after which the last line is shown again with the time so far."""


def duration(seconds: float) -> str:
    """``42 s``, ``3:07``, ``1:02:09``."""
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


def _is_terminal(stream: TextIO) -> bool:
    return bool(getattr(stream, "isatty", lambda: False)()) and os.environ.get("TERM", "") != "dumb"


class Progress:
    """One command's progress line on `stream` (stderr): ``command: text``, rate-limited, with a heartbeat.

    Call it with the current text (``progress("3 sweeps")``); `note` shows a line
    at once; `close` ends it (and its heartbeat). Use it as a context manager.
    `heartbeat` None turns the heartbeat off.

    >>> import io
    >>> out = io.StringIO()
    >>> with Progress("solve", stream=out, heartbeat=None) as progress:
    ...     progress.note("exploring the maze")
    >>> out.getvalue()
    'solve: exploring the maze\\n'
    """

    def __init__(self, command: str, *, stream: TextIO | None = None, every: float | None = None,
                 heartbeat: float | None = HEARTBEAT) -> None:
        self.command = command
        self.stream = sys.stderr if stream is None else stream
        self.terminal = _is_terminal(self.stream)
        self.every = every if every is not None else TERMINAL_EVERY if self.terminal else PLAIN_EVERY
        self.started = time.monotonic()
        self._text: str | None = None
        self._shown_at = -float("inf")  # when a line was last written
        self._drawn = False  # a terminal line is open (no newline yet)
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._thread: threading.Thread | None = None
        if heartbeat is not None:
            self._thread = threading.Thread(target=self._beat, args=(heartbeat,), name=f"{command} progress",
                                            daemon=True)
            self._thread.start()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def elapsed(self) -> float:
        """Seconds since this progress began."""
        return time.monotonic() - self.started

    def __call__(self, text: str, *, force: bool = False) -> None:
        """The current state of the work; shown if the last line is `every` seconds old (or `force`)."""
        with self._lock:
            self._text = text
            now = time.monotonic()
            if force or now - self._shown_at >= self.every:
                self._write(text, now)

    def hold(self, text: str) -> None:
        """Make `text` the current state without showing it now (the heartbeat repeats it)."""
        with self._lock:
            self._text = text

    def note(self, text: str) -> None:
        """A line shown at once (and kept on a terminal): a start, a phase, an end."""
        with self._lock:
            self._text = text
            self._write(text, time.monotonic(), keep=True)

    def _write(self, text: str, now: float, keep: bool = False) -> None:
        if self._closed.is_set():
            return
        self._shown_at = now
        line = f"{self.command}: {text}"
        try:  # a stream that is gone (a closed terminal after SIGHUP) does not stop the run
            if self.terminal:
                self.stream.write(f"\r\x1b[K{line}" + ("\n" if keep else ""))
                self._drawn = not keep
            else:
                self.stream.write(line + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            pass

    def _beat(self, interval: float) -> None:
        while not self._closed.wait(min(interval, 1.0)):
            with self._lock:
                now = time.monotonic()
                if self._text is not None and now - max(self._shown_at, self.started) >= interval:
                    self._write(f"{self._text} ({duration(now - self.started)} so far)", now)

    def close(self) -> None:
        """Stop the heartbeat and end the line on a terminal; later calls write nothing."""
        with self._lock:
            if self._closed.is_set():
                return
            self._closed.set()
            if self.terminal and self._drawn:
                try:
                    self.stream.write("\n")
                    self.stream.flush()
                except (OSError, ValueError):
                    pass
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)


def progress_for(command: str, quiet: bool, **options: Any) -> Progress | None:
    """The `Progress` of a command, or None with ``--quiet``."""
    return None if quiet else Progress(command, **options)


class GameProgress:
    """Games done, win rate so far and ETA, for `batch` and `compare`: a `Progress` fed one game line at a time.

    The rate leaves out the start-up (worker processes starting, importing, loading
    the layouts), which would otherwise count as the first game's time and make the
    first ETA many times too long: until games have been finishing for
    `SETTLING` seconds it is the `workers` running in parallel over the mean time of
    a game (each record's ``seconds``); after that, the games finished per second
    since the first one finished. `start` says at once what is being played, so the
    command is not silent until its first game ends; the heartbeat repeats the last
    line while games are long.
    """

    #: Seconds of finished games after which the observed rate replaces the estimate from game times.
    SETTLING = 2.0

    def __init__(self, total: int, done: int = 0, wins: int = 0, stream: TextIO | None = None,
                 every: float | None = None, workers: int = 1, command: str = "batch",
                 heartbeat: float | None = HEARTBEAT) -> None:
        self.total, self.done, self.wins = total, done, wins
        self.workers = max(1, workers)
        self.line = Progress(command, stream=stream, every=every, heartbeat=heartbeat)
        self._start_done = done
        self._started = time.monotonic()
        self._first_at: float | None = None  # when the first game of this run finished
        self._game_seconds = 0.0  # summed over the games of this run

    @property
    def command(self) -> str:
        """The subcommand a line starts with."""
        return self.line.command

    @command.setter
    def command(self, value: str) -> None:
        self.line.command = value

    @property
    def stream(self) -> TextIO:
        return self.line.stream

    @property
    def terminal(self) -> bool:
        return self.line.terminal

    def start(self, what: str) -> None:
        """Say at once what is being played (before any game ends)."""
        self.line.note(what)
        self.line.hold(f"{self.done}/{self.total} games, waiting for the first to finish")

    def resumed(self, records: Sequence[dict[str, Any]]) -> None:
        """Count the games read back from a resumed file as done (they are not part of the rate)."""
        self.done = self._start_done = len(records)
        self.wins = sum(1 for record in records if record.get("won"))

    def __call__(self, record: dict[str, Any]) -> None:
        self.done += 1
        self.wins += bool(record.get("won"))
        seconds = record.get("seconds")
        if isinstance(seconds, (int, float)) and seconds >= 0:
            self._game_seconds += float(seconds)
        now = time.monotonic()
        if self._first_at is None:
            self._first_at = now
        # The first game of the run is always shown: the first rate and ETA arrive as soon as there are any.
        self.line(self._text(now), force=self.done == self.total or self.done - self._start_done == 1)

    def rate(self, now: float) -> float:
        """Games per second, start-up left out (see the class docstring); 0.0 before any game finished."""
        played = self.done - self._start_done
        if played <= 0 or self._first_at is None:
            return 0.0
        settled = now - self._first_at
        if settled >= self.SETTLING and played > 1:
            return (played - 1) / settled
        if self._game_seconds > 0:
            return min(self.workers, self.total - self._start_done) * played / self._game_seconds
        elapsed = now - self._started
        return played / elapsed if elapsed > 0 else 0.0

    def _text(self, now: float) -> str:
        rate = self.rate(now)
        eta = (self.total - self.done) / rate if rate > 0 else None
        win = f"{100 * self.wins / self.done:.1f}%" if self.done else "-"
        eta_text = "-" if eta is None else duration(eta)
        if self.terminal:
            width = 24
            filled = int(width * self.done / self.total) if self.total else width
            bar = "#" * filled + "." * (width - filled)
            return f"[{bar}] {self.done}/{self.total} games  won {win}  {rate:.1f} games/s  ETA {eta_text}"
        return f"{self.done}/{self.total} games, won {win}, {rate:.1f} games/s, ETA {eta_text}"

    def close(self) -> None:
        """End the line on a terminal and stop the heartbeat."""
        self.line.close()


def games_in(path: str | os.PathLike[str] | None) -> int:
    """Finished games in the results file `path`: its complete lines (0 if it is missing).

    After Ctrl-C this, not the run's own count, is what the file keeps: a signal that lands between a game's line
    reaching the file and the run counting it leaves the file one line ahead (the line is flushed as the file is
    closed), and ``--resume`` goes by the file.
    """
    if path is None:
        return 0
    try:
        with open(path, "rb") as file:
            return sum(1 for line in file if line.endswith(b"\n") and line.strip())
    except OSError:
        return 0


def stopped_run_note(out: str | os.PathLike[str] | None, resumed: bool, played: int, why: str) -> str | None:
    """`interruption_note` for a `batch` or `compare` run that stopped early (the one rule both commands ask): the
    finished games its results file `out` keeps (`games_in`), where the run resumed that file or played a game
    into it; a file it did neither to is as it was (none of its lines are this run's), so it keeps none of the
    run's games."""
    return interruption_note(out, games_in(out) if resumed or played else 0, why=why)


def interruption_note(out: str | os.PathLike[str] | None, kept: int, why: str = "interrupted") -> str | None:
    """What to say about the results file `out` after a run stopped early (Ctrl-C, a signal, a lost executor:
    `why`), `kept` being the finished games it holds.

    None without a file (the printed summary already says how many games finished).
    """
    if out is None:
        return None
    if kept <= 0:
        return f"pacman-ai: {why} before any game finished: nothing was written to {out}"
    return (f"pacman-ai: {why}; {out} keeps the {kept:,} finished game{'s' if kept != 1 else ''}: add --resume "
            f"to finish")
