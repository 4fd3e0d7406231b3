"""No program a test starts outlives it, and each gets Ctrl-C however the suite was started (tests/conftest.py): a
small suite with this project's conftest.py, run with `python -m pytest` in its folder as a developer runs it."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from pathlib import Path

CONFTEST = Path(__file__).resolve().parent / "conftest.py"

SUITE = '''
import os, subprocess, sys
from pathlib import Path
import pytest

SLEEP = [sys.executable, "-c", "import time; time.sleep(600)"]


def alive(pid):
    try:
        state = Path(f"/proc/{pid}/status").read_text().split("State:")[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


@pytest.fixture(scope="module")
def server():
    process = subprocess.Popen(SLEEP)
    yield process
    process.kill()
    process.wait()


def test_1_fails_with_a_program_running(server, tmp_path_factory):
    process = subprocess.Popen(SLEEP)
    (tmp_path_factory.getbasetemp() / "pids").write_text(f"{process.pid} {server.pid}")
    assert False, "failed half-way"


def test_2_that_program_is_gone_and_the_module_fixture_s_is_not(server, tmp_path_factory):
    mine, shared = map(int, (tmp_path_factory.getbasetemp() / "pids").read_text().split())
    assert shared == server.pid and alive(shared)
    assert not alive(mine)
'''


def _run_suite(folder: Path, name: str, text: str, **options) -> subprocess.CompletedProcess:
    """`python -m pytest` in `folder`, a suite of this project's conftest.py and one test file `name` of `text`."""
    tests = folder / "tests"
    tests.mkdir()
    shutil.copy(CONFTEST, tests / "conftest.py")
    (tests / name).write_text(text)
    (folder / "pytest.ini").write_text("[pytest]\n")
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-q",
                           "-n", "0"], cwd=folder, capture_output=True, text=True, timeout=120, **options)


def test_a_program_a_failed_test_left_running_is_killed_and_a_module_fixtures_is_kept(tmp_path):
    done = _run_suite(tmp_path, "test_programs.py", SUITE)
    assert "1 failed, 1 passed" in done.stdout, done.stdout + done.stderr
    assert "FAILED tests/test_programs.py::test_1_fails_with_a_program_running" in done.stdout
    assert "AssertionError: failed half-way" in done.stdout  # it failed where it meant to, not elsewhere


CTRL_C = '''
import signal, subprocess, sys, time


def test_a_program_started_here_stops_on_ctrl_c():
    process = subprocess.Popen([sys.executable, "-c", "import time; print('up', flush=True); time.sleep(60)"],
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline() == "up\\n"
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=20) != 0  # KeyboardInterrupt, not the minute's sleep to its end
'''


def test_a_suite_started_with_ctrl_c_ignored_still_gives_it_to_the_programs_its_tests_start(tmp_path):
    def ignore_ctrl_c() -> None:  # as `pytest &` in a script without job control starts it
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    done = _run_suite(tmp_path, "test_ctrl_c.py", CTRL_C, preexec_fn=ignore_ctrl_c)
    assert "1 passed" in done.stdout, done.stdout + done.stderr
