"""What `pacman-ai grade` tells the person running it: progress per test, --quiet, the reason a
Gradescope run could not grade, and packages whose wheels are for a named Python version.

Everything runs as a user does: `pacman-ai` in a subprocess, in a fresh folder.
"""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

SUBMISSIONS = Path(__file__).resolve().parent / "submissions"
TREE = '{"max": [{"chance": [3, 5]}, {"chance": [10, -4]}]}'


def _cli(cwd: Path, *args: str, env: dict | None = None, timeout: float = 120, **streams) -> subprocess.CompletedProcess:
    streams = streams or {"capture_output": True}
    return subprocess.run([sys.executable, "-m", "pacman", *args], cwd=cwd, text=True, timeout=timeout, env=env,
                          **streams)


def _two_tree_tests(folder: Path) -> None:
    """An assignment of one question with two tree tests, each with a 1.5 s limit."""
    folder.mkdir()
    (folder / "t.json").write_text(TREE)
    (folder / "assignment.toml").write_text(textwrap.dedent("""
        [[questions]]
        id = "q"
        points = 2
        [[questions.tests]]
        name = "first"
        kind = "tree"
        tree = "t.json"
        ghosts = 1
        depth = 1
        time_limit = 1.5
        [[questions.tests]]
        name = "second"
        kind = "tree"
        tree = "t.json"
        ghosts = 1
        depth = 1
        time_limit = 1.5
        """))


@pytest.fixture
def course(tmp_path):
    _two_tree_tests(tmp_path / "a")
    shutil.copy(SUBMISSIONS / "loop.py", tmp_path / "loop.py")
    shutil.copy(SUBMISSIONS / "correct.py", tmp_path / "ok.py")
    return tmp_path


# -- progress ----------------------------------------------------------------------------------


def test_a_slow_test_prints_its_number_name_verdict_and_time_as_it_finishes(course):
    done = _cli(course, "grade", "a", "loop.py")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 2, done.stderr
    # [number/total, seconds since grading began] question / test: verdict (the test's own time)
    first = re.fullmatch(r"\[1/2, +(\d+\.\d) s\] q / first: FAIL \((\d+\.\d\d) s\)", lines[0])
    second = re.fullmatch(r"\[2/2, +(\d+\.\d) s\] q / second: FAIL \((\d+\.\d\d) s\)", lines[1])
    assert first and second, lines
    # A looping submission is stopped at the 1.5 s limit of each test, and the clock says so.
    assert 1.5 <= float(first.group(2)) < 3.0 and 1.5 <= float(second.group(2)) < 3.0
    assert float(second.group(1)) >= float(first.group(1)) + 1.5
    assert "took longer than the 1.5 s time limit" in done.stdout


def test_a_quick_grading_writes_no_progress_into_a_log(course):
    # Into a file or pipe only tests of 1 s or more (or one every 10 s) get a line.
    done = _cli(course, "grade", "a", "ok.py")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert "Total: 2/2" in done.stdout


def test_verbose_lists_every_test_in_a_log_too(course):
    done = _cli(course, "grade", "a", "ok.py", "--verbose")
    assert done.returncode == 0
    assert [re.sub(r"[\d.]+ s", "T s", line) for line in done.stderr.splitlines()] == [
        "[1/2,   T s] q / first: pass (T s)", "[2/2,   T s] q / second: pass (T s)"]


def _on_a_terminal(cwd: Path, *args: str, env: dict | None = None) -> str:
    """What `pacman-ai ARGS` writes to stderr when stderr is a terminal."""
    leader, follower = pty.openpty()
    try:
        done = _cli(cwd, *args, env=env, stderr=follower, stdout=subprocess.PIPE)
        os.close(follower)
        follower = -1
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 1 << 16)
            except OSError:  # the other side closed
                break
            if not chunk:
                break
            shown += chunk
    finally:
        if follower != -1:
            os.close(follower)
        os.close(leader)
    assert done.returncode == 0
    return shown.decode()


def _as_seen(text: str) -> list[str]:
    """The lines a terminal shows in the end (what a carriage return wrote over is gone), times as T."""
    lines = [line.split("\r")[-1] for line in text.replace("\r\n", "\n").split("\n")]
    return [re.sub(r"[\d.]+ s", "T s", line.replace("\x1b[K", "")) for line in lines if line]


def test_a_terminal_sees_every_test_and_the_one_being_run(course):
    # On a terminal the running test is shown at once, then overwritten by its verdict.
    text = _on_a_terminal(course, "grade", "a", "loop.py", env={**os.environ, "TERM": "xterm"})
    assert re.search(r"\r\[1/2, +\d+\.\d s\] q / first: running\.\.\.\r\x1b\[K\[1/2, +\d+\.\d s\] q / first: FAIL",
                     text), repr(text)
    assert "q / second: running..." in text
    quick = _on_a_terminal(course, "grade", "a", "ok.py", env={**os.environ, "TERM": "xterm"})
    assert _as_seen(quick) == ["[1/2,   T s] q / first: pass (T s)", "[2/2,   T s] q / second: pass (T s)"]


def test_a_dumb_terminal_gets_the_finished_lines_only(course):
    text = _on_a_terminal(course, "grade", "a", "ok.py", env={**os.environ, "TERM": "dumb"})
    assert "\x1b" not in text and "running" not in text
    assert _as_seen(text) == [
        "[1/2,   T s] q / first: pass (T s)", "[2/2,   T s] q / second: pass (T s)"]


def test_quiet_prints_no_progress_even_on_a_terminal(course):
    assert _on_a_terminal(course, "grade", "a", "loop.py", "--quiet") == ""
    done = _cli(course, "grade", "a", "loop.py", "--quiet")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert "Total: 0/2" in done.stdout


def test_quiet_and_verbose_together_are_refused(course):
    done = _cli(course, "grade", "a", "ok.py", "--quiet", "--verbose")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "pacman-ai grade: --quiet and --verbose contradict each other; give one " \
                          "(see pacman-ai grade --help)\n"


# -- run_autograder says why it could not grade --------------------------------------------------


def _autograder_root(tmp_path: Path) -> Path:
    """An /autograder look-alike whose venv/bin holds this environment's pacman-ai and python."""
    done = _cli(tmp_path, "grade", "--gradescope-package", "pkg", "--requirement", "pacman-ai")
    assert done.returncode == 0, done.stderr
    root = tmp_path / "ag"
    (root / "venv" / "bin").mkdir(parents=True)
    (root / "submission").mkdir()
    shutil.copytree(tmp_path / "pkg", root / "source")
    scripts = Path(sys.executable).parent
    (root / "venv" / "bin" / "pacman-ai").symlink_to(scripts / "pacman-ai")
    (root / "venv" / "bin" / "python").symlink_to(sys.executable)
    return root


def _run_autograder(root: Path, user: str) -> tuple[subprocess.CompletedProcess, dict]:
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "PACMAN_AI_SANDBOX_USER": user}
    done = subprocess.run(["bash", str(root / "source" / "run_autograder")], capture_output=True, text=True,
                          env=env, timeout=120, cwd=root)
    return done, json.loads((root / "results" / "results.json").read_text())


def test_run_autograder_writes_the_graders_reason_when_it_cannot_grade(tmp_path):
    root = _autograder_root(tmp_path)
    shutil.copy(SUBMISSIONS / "correct.py", root / "submission" / "multi_agents.py")
    done, results = _run_autograder(root, "no-such-user-here")
    assert done.returncode == 0
    assert results == {"score": 0, "tests": [], "stdout_visibility": "visible",
                       "output": "The autograder could not run: sandbox user 'no-such-user-here' does not exist "
                                 "(exit status 2); please tell your instructor."}
    # The grader's own error is still in the log Gradescope shows the instructor.
    assert "pacman-ai: sandbox user 'no-such-user-here' does not exist" in done.stderr


def test_run_autograder_gives_a_student_the_syntax_error_once(tmp_path):
    root = _autograder_root(tmp_path)
    (root / "submission" / "multi_agents.py").write_text("class ExpectimaxAgent:\n    def f(self:\n        pass\n")
    done, results = _run_autograder(root, "")
    assert results["score"] == 0.0 and results["tests"] == []
    assert re.fullmatch(r"Not graded: \S*/submission/multi_agents.py:2:\d+: SyntaxError: .* in 'def f\(self:' "
                        r"\(not graded: fix it and grade again\)", results["output"]), results["output"]


# -- packages for a named Python version ------------------------------------------------------------


def _fake_wheel(folder: Path, filename: str, requires: tuple[str, ...] = ()) -> None:
    """A wheel with just enough in it for pip to resolve and download it."""
    name, version = filename.split("-")[:2]
    dist_info = f"{name}-{version}.dist-info"
    tag = "-".join(filename[:-4].split("-")[2:])
    meta = f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: {version}\n"
    meta += "".join(f"Requires-Dist: {r}\n" for r in requires)
    with zipfile.ZipFile(folder / filename, "w") as wheel:
        wheel.writestr(f"{name}/__init__.py", "")
        wheel.writestr(f"{dist_info}/METADATA", meta)
        wheel.writestr(f"{dist_info}/WHEEL", f"Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: {tag}\n")
        wheel.writestr(f"{dist_info}/RECORD", "")


#: An index with wheels for 3.10 and 3.12 and decoys that must not be picked (another platform, another ABI).
INDEX = [
    "numpy-2.2.6-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
    "numpy-2.2.6-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
    "numpy-2.2.6-cp310-cp310-win_amd64.whl",
    "numpy-2.2.6-cp310-cp310-macosx_14_0_arm64.whl",
    "pillow-11.3.0-cp310-cp310-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
    "pillow-11.3.0-cp312-cp312-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
    "pillow-11.3.0-cp310-cp310-manylinux_2_39_x86_64.whl",
    "pygame_ce-2.5.8-cp310-cp310-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
    "pygame_ce-2.5.8-cp312-cp312-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
    "tomli-2.4.1-py3-none-any.whl",
]


def _index(tmp_path: Path, wheels: list[str]) -> dict:
    folder = tmp_path / "index"
    folder.mkdir()
    for filename in wheels:
        _fake_wheel(folder, filename)
    # pip sees only this folder: no configured index, no network.
    return {**os.environ, "PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(folder)}


@pytest.mark.parametrize("python, expected", [
    ("3.10", ["numpy-2.2.6-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
              "pacman_ai-0.1.0-py3-none-any.whl",
              "pillow-11.3.0-cp310-cp310-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
              "pygame_ce-2.5.8-cp310-cp310-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
              "tomli-2.4.1-py3-none-any.whl"]),  # tomli: needed before 3.11, whatever Python builds the package
    ("3.12", ["numpy-2.2.6-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
              "pacman_ai-0.1.0-py3-none-any.whl",
              "pillow-11.3.0-cp312-cp312-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
              "pygame_ce-2.5.8-cp312-cp312-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"]),
])
def test_a_package_for_a_named_python_bundles_wheels_for_it(tmp_path, python, expected):
    env = _index(tmp_path, INDEX)
    done = _cli(tmp_path, "grade", "--gradescope-package", "pkg", "--python", python, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "pkg" / "wheels").iterdir()) == expected
    readme = (tmp_path / "pkg" / "README.txt").read_text()
    assert f"downloaded for CPython {python} on Linux x86-64" in readme
    setup = (tmp_path / "pkg" / "setup.sh").read_text()
    tags = f"cp{python.replace('.', '')}-cp{python.replace('.', '')}"
    assert f"The dependency wheels fit {tags} only" in setup


def test_a_python_the_index_has_no_wheels_for_is_one_line_and_nothing_written(tmp_path):
    env = _index(tmp_path, [w for w in INDEX if not w.startswith("pygame_ce-2.5.8-cp310")])
    done = _cli(tmp_path, "grade", "--gradescope-package", "pkg", "--python", "3.10", env=env, timeout=300)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("pacman-ai: --python 3.10: pip could not download the dependency wheels for "
                                  "CPython 3.10 on Linux x86-64 (cp310, manylinux): ")
    assert "pygame-ce" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index"]


@pytest.mark.parametrize("args, message", [
    (["--python", "3.9"], "pacman-ai: --python 3.9: pacman-ai needs Python 3.10 or later"),
    (["--python", "python3"], "pacman-ai: --python 'python3': expected a Python version such as 3.10 or 3.12"),
    (["--python", "3.10", "--requirement", "pacman-ai"],
     "pacman-ai grade: --python chooses the bundled wheels; --requirement replaces them: give one "
     "(see pacman-ai grade --help)"),
])
def test_bad_python_versions_are_refused(tmp_path, args, message):
    done = _cli(tmp_path, "grade", "--gradescope-package", "pkg", *args, timeout=30)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", message + "\n")
    assert list(tmp_path.iterdir()) == []


def test_python_without_a_package_is_refused(tmp_path):
    shutil.copy(SUBMISSIONS / "correct.py", tmp_path / "ok.py")
    done = _cli(tmp_path, "grade", "expectimax", "ok.py", "--python", "3.10", timeout=30)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("pacman-ai grade: --python is for --gradescope-package (the Python its bundled wheels "
                           "are for) (see pacman-ai grade --help)\n")
    done = _cli(tmp_path, "grade", "expectimax", "ok.py", "--requirement", "pacman-ai==0.1.0", timeout=30)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("pacman-ai grade: --requirement is for --gradescope-package (what its setup.sh has pip "
                           "install) (see pacman-ai grade --help)\n")


@pytest.mark.slow
def test_a_package_for_this_python_from_the_configured_index_holds_wheels_with_its_tags(tmp_path):
    # The real index pip is configured with (the local mirror here): every dependency wheel has the tags asked for.
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    done = _cli(tmp_path, "grade", "--gradescope-package", "pkg", "--python", python, timeout=900)
    assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in (tmp_path / "pkg" / "wheels").iterdir())
    abi = f"cp{sys.version_info.major}{sys.version_info.minor}"
    binary = [n for n in names if not n.endswith("-none-any.whl")]
    assert {n.split("-")[0] for n in binary} == {"numpy", "pillow", "pygame_ce"}
    for name in binary:
        interpreter, wheel_abi, platform = name[:-4].split("-")[2:5]
        assert (interpreter, wheel_abi) == (abi, abi) and "manylinux" in platform and "x86_64" in platform, name
