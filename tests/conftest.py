"""Test-wide setup: headless SDL, Ctrl-C for the programs tests start, no program a test starts outliving it, and a
progress line per test file.

When every test of a file has finished, one line goes to the terminal:

    [12/84] tests/test_game.py 3.2 s (1:05 in)

the files finished of those collected, the file, the time its tests took
(setup, call and teardown, summed over its tests: under pytest-xdist they run on
several workers at once) and the time since the run started. It works the same
with and without xdist (`-n 0`): with xdist the lines are
printed by the controller, from the reports the workers send. `-p
no:file_progress` turns it off.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict

import pytest

# The research tools (scripts/research) live beside the scripts that run them, outside the wheel.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

# A suite started in the background by a shell without job control (`pytest &` in a script, `nohup pytest &`)
# inherits Ctrl-C ignored, and so would every program its tests start: the tests that press Ctrl-C on a batch or
# a live page would wait in vain. Programs started from here get Ctrl-C back (a handler is not inherited; the
# default is).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _no_program_outlives_its_test(monkeypatch: pytest.MonkeyPatch):
    """Kill each program a test started (`subprocess.Popen`) that still runs when the test ends.

    A test that fails between starting a program and stopping it (a batch of 100,000 games that a Ctrl-C test
    waits for in vain) would otherwise leave it running for hours, slowing every test after
    it. Programs started by module- or session-scoped fixtures, set up before this fixture, are not touched. A
    batch's workers end with it (`pacman.process_guard.set_parent_death_signal`).
    """
    started: list[subprocess.Popen] = []
    original = subprocess.Popen.__init__

    def tracked(self: subprocess.Popen, *args, **kwargs) -> None:
        original(self, *args, **kwargs)
        started.append(self)

    monkeypatch.setattr(subprocess.Popen, "__init__", tracked)
    yield
    monkeypatch.undo()
    for process in started:
        if process.poll() is None:
            process.kill()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


class FileProgress:
    """Counts each file's tests as their teardown reports come in; prints a line when a file is done."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.expected: Counter[str] | None = None  # tests per file, once the collection is known
        self.done: Counter[str] = Counter()
        self.seconds: defaultdict[str, float] = defaultdict(float)
        self.finished = 0
        self.started = time.monotonic()

    # -- the collection: this process's (no xdist), or the first worker's (xdist controller) --

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if not _is_xdist_controller(self.config):
            self._expect(item.nodeid for item in session.items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids) -> None:
        if self.expected is None:  # every worker collects the same tests
            self._expect(ids)

    def _expect(self, nodeids) -> None:
        self.expected = Counter(_file_of(nodeid) for nodeid in nodeids)
        self.started = time.monotonic()

    # -- the reports --

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        path = _file_of(report.nodeid)
        self.seconds[path] += getattr(report, "duration", 0.0) or 0.0
        if report.when != "teardown" or self.expected is None:
            return
        self.done[path] += 1
        if self.done[path] == self.expected.get(path, -1):
            self.finished += 1
            self._line(path)

    def _line(self, path: str) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None:
            return
        minutes, seconds = divmod(int(time.monotonic() - self.started), 60)
        if getattr(reporter, "_width_of_current_line", 0):  # after a row of dots: a line of its own
            reporter.write("\n")
        reporter.write_line(f"[{self.finished}/{len(self.expected)}] {path} {self.seconds[path]:.1f} s "
                            f"({minutes}:{seconds:02d} in)")


def _is_xdist_controller(config: pytest.Config) -> bool:
    """True in the process that hands tests to pytest-xdist workers (it collects nothing itself)."""
    return (not hasattr(config, "workerinput") and config.pluginmanager.has_plugin("dsession")
            and (getattr(config.option, "numprocesses", None) or 0) != 0)


def _minutes(item: pytest.Item) -> float:
    marker = item.get_closest_marker("slow")
    if marker is None:
        return 0.0
    if marker.args or set(marker.kwargs) - {"minutes"}:
        raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.slow takes only minutes=N, got "
                                f"{marker.args or ''}{marker.kwargs or ''}")
    return float(marker.kwargs.get("minutes", 0))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest tests first: those marked ``@pytest.mark.slow(minutes=N)``, by N (the minutes one takes on the
    development machine beside another worker), the rest in their usual order. With ``--dist worksteal``
    (pyproject.toml) a free worker takes the tests still queued on a busy one, so the run ends when its work is
    done rather than with a twenty-minute test that happened to start last."""
    items.sort(key=_minutes, reverse=True)  # stable: the others keep the collection's order


def pytest_configure(config: pytest.Config) -> None:
    # Not in an xdist worker: its reports reach the controller, which prints.
    if not hasattr(config, "workerinput") and not config.pluginmanager.has_plugin("file_progress"):
        config.pluginmanager.register(FileProgress(config), "file_progress")
