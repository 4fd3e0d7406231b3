"""The test suite's progress line per file (tests/conftest.py), with and without pytest-xdist.

A small suite of three files (one with a skipped test, one with a test the
default `-m 'not slow'` leaves out) gets this project's conftest.py, and is run
with `python -m pytest` in its folder as a developer runs it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST = Path(__file__).resolve().parent / "conftest.py"
LINE = re.compile(r"^\[(\d+)/(\d+)\] (\S+) (\d+\.\d) s \((\d+):(\d\d) in\)$")

FILES = {
    "test_a.py": "def test_one():\n    assert 1\n\ndef test_two():\n    assert 2\n",
    "test_b.py": ("import pytest\n\n@pytest.mark.skip(reason='shown as skipped')\ndef test_skipped():\n    pass\n\n"
                  "def test_sleeps():\n    import time\n    time.sleep(0.3)\n"),
    "test_c.py": "import pytest\n\n@pytest.mark.slow\ndef test_slow():\n    pass\n\ndef test_fast():\n    pass\n",
}


def _suite(folder: Path) -> Path:
    tests = folder / "tests"
    tests.mkdir(parents=True)
    shutil.copy(CONFTEST, tests / "conftest.py")
    for name, text in FILES.items():
        (tests / name).write_text(text)
    (folder / "pytest.ini").write_text("[pytest]\naddopts = -m 'not slow'\nmarkers =\n    slow: slow\n")
    return folder


def _run(folder: Path, *args: str) -> list[re.Match]:
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=folder,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [LINE.match(line) for line in done.stdout.splitlines() if line.startswith("[")]
    assert all(lines), done.stdout  # every progress line on a line of its own, in the format
    return lines


@pytest.mark.parametrize("workers", ["0", "2"])
def test_one_line_per_file_as_its_last_test_finishes(tmp_path, workers):
    lines = _run(_suite(tmp_path), "-n", workers, "-q")
    assert [int(m.group(1)) for m in lines] == [1, 2, 3] and {m.group(2) for m in lines} == {"3"}
    assert sorted(m.group(3) for m in lines) == ["tests/test_a.py", "tests/test_b.py", "tests/test_c.py"]
    seconds = {m.group(3): float(m.group(4)) for m in lines}
    assert seconds["tests/test_b.py"] >= 0.3 > seconds["tests/test_a.py"]  # the file's tests' own time


def test_files_left_out_entirely_are_not_counted_and_the_plugin_can_be_turned_off(tmp_path):
    folder = _suite(tmp_path)
    lines = _run(folder, "-n", "0", "-m", "slow")
    assert [(m.group(1), m.group(2), m.group(3)) for m in lines] == [("1", "1", "tests/test_c.py")]
    assert _run(folder, "-n", "0", "-p", "no:file_progress") == []


def test_the_longest_tests_start_first_and_the_others_keep_their_order(tmp_path):
    """``@pytest.mark.slow(minutes=N)`` orders a run by N, longest first (tests/conftest.py), so that with
    ``--dist worksteal`` a twenty-minute test does not start last; unmarked and plain ``slow`` tests keep the
    collection's order behind them."""
    folder = _suite(tmp_path)
    (folder / "tests" / "test_d.py").write_text(
        "import pytest\n\ndef test_plain():\n    pass\n\n@pytest.mark.slow(minutes=2)\ndef test_two():\n    pass\n\n"
        "@pytest.mark.slow(minutes=20)\ndef test_twenty():\n    pass\n")
    (folder / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: slow\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "-v"], cwd=folder,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    ran = re.findall(r"^(tests/\S+::\S+) (?:PASSED|SKIPPED)", done.stdout, re.MULTILINE)
    assert ran == ["tests/test_d.py::test_twenty", "tests/test_d.py::test_two",
                   "tests/test_a.py::test_one", "tests/test_a.py::test_two", "tests/test_b.py::test_skipped",
                   "tests/test_b.py::test_sleeps", "tests/test_c.py::test_slow", "tests/test_c.py::test_fast",
                   "tests/test_d.py::test_plain"]
    lines = _run(folder, "-n", "2", "--dist", "worksteal", "-q")
    assert sorted(m.group(3) for m in lines) == [f"tests/test_{c}.py" for c in "abcd"]


def test_a_slow_mark_with_another_argument_is_refused_by_name(tmp_path):
    folder = _suite(tmp_path)
    (folder / "tests" / "test_e.py").write_text("import pytest\n\n@pytest.mark.slow(minute=3)\ndef test_x():\n    pass\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "-m", "slow"],
                          cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode == 4 and "test_e.py::test_x: @pytest.mark.slow takes only minutes=N" in done.stderr, (
        done.stdout + done.stderr)
