"""`pacman-ai grade --gradescope-package`: what the package holds, where it may be written, and that it installs offline and grades."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from pacman.grading.gradescope import MARKER, build_project_wheel

ROOT = Path(__file__).resolve().parent.parent
SUBMISSIONS = Path(__file__).resolve().parent / "submissions"


def _cli(*args: str, cwd: Path, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pacman", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env)


def _check_wheel(path: Path) -> list[str]:
    """The wheel's file names, after checking that RECORD lists every file with its true hash and size."""
    with zipfile.ZipFile(path) as wheel:
        names = wheel.namelist()
        record_name = next(n for n in names if n.endswith(".dist-info/RECORD"))
        rows = list(csv.reader(io.StringIO(wheel.read(record_name).decode())))
        listed = {row[0]: row for row in rows}
        assert set(listed) == set(names)
        for name in names:
            if name == record_name:
                continue
            data = wheel.read(name)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert listed[name][1:] == [f"sha256={digest}", str(len(data))], name
    return names


def test_project_wheel_holds_the_packages_the_data_and_the_metadata(tmp_path):
    wheel = build_project_wheel(tmp_path)
    assert wheel.name == "pacman_ai-0.1.0-py3-none-any.whl"
    names = _check_wheel(wheel)
    assert "pacman/cli/__init__.py" in names and "pacman/agents/trees.py" in names
    assert "pacman/conformance/simple_engine.py" in names and "pacman/bench/engine.py" in names
    assert "pacman/layouts/medium.lay" in names and "pacman/assets/palette.json" in names
    assert "pacman/grading/assignments/expectimax/assignment.toml" in names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    with zipfile.ZipFile(wheel) as zf:
        assert "Tag: py3-none-any" in zf.read("pacman_ai-0.1.0.dist-info/WHEEL").decode()
        assert "pacman-ai = pacman.cli:main" in zf.read("pacman_ai-0.1.0.dist-info/entry_points.txt").decode()
        metadata = zf.read("pacman_ai-0.1.0.dist-info/METADATA").decode()
    assert "Name: pacman-ai" in metadata and "Requires-Dist: numpy" in metadata


def test_a_stray_egg_info_in_the_working_directory_is_passed_over(tmp_path):
    # A source build leaves pacman_ai.egg-info (PKG-INFO, no METADATA) where it ran; the
    # wheel is still built from the installed distribution's metadata.
    (tmp_path / "pacman_ai.egg-info").mkdir()
    (tmp_path / "pacman_ai.egg-info" / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: pacman-ai\n"
                                                              "Version: 0.0.0\n")
    script = ("import sys; from pacman.grading.gradescope import build_project_wheel; "
              "print(build_project_wheel(sys.argv[1]).name)")
    (tmp_path / "out").mkdir()
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "out")], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().startswith("pacman_ai-0.1.0-")


def test_requirement_overrides_the_bundled_wheels(tmp_path):
    done = _cli("grade", "--gradescope-package", "pkg", "--requirement", "pacman-ai==0.1.0", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    package = tmp_path / "pkg"
    assert not (package / "wheels").exists()
    setup = (package / "setup.sh").read_text()
    assert '"$root/venv/bin/pip" install pacman-ai==0.1.0' in setup and MARKER in setup
    assert os.access(package / "setup.sh", os.X_OK) and os.access(package / "run_autograder", os.X_OK)
    run = (package / "run_autograder").read_text()
    assert 'submission="$root/submission/multi_agents.py"' in run and "assignment=expectimax" in run
    assert '--gradescope "$results"' in run and 'root=${AUTOGRADER_ROOT:-/autograder}' in run
    for script in ("setup.sh", "run_autograder"):
        subprocess.run(["bash", "-n", str(package / script)], check=True)
    # Written again over a previous package: allowed, and replaced as a whole.
    (package / "stale.txt").write_text("old")
    done = _cli("grade", "--gradescope-package", "pkg", "--requirement", "pacman-ai", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not (package / "stale.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]  # no staging folder left behind


def _refused(tmp_path: Path, target: str) -> str:
    done = _cli("grade", "--gradescope-package", target, "--requirement", "pacman-ai", cwd=tmp_path, timeout=30)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert done.stdout == ""
    return done.stderr


def test_an_existing_file_is_refused_and_left_alone(tmp_path):
    (tmp_path / "out").write_text("keep me")
    err = _refused(tmp_path, "out")
    assert "--gradescope-package out: is a file" in err
    assert (tmp_path / "out").read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    assert "--gradescope-package pipe: is a FIFO" in _refused(tmp_path, "pipe")


def test_a_folder_with_other_files_is_refused(tmp_path):
    (tmp_path / "course").mkdir()
    (tmp_path / "course" / "solutions.py").write_text("secret")
    err = _refused(tmp_path, "course")
    assert "--gradescope-package course: folder is not empty and not a previous package" in err
    assert sorted(p.name for p in (tmp_path / "course").iterdir()) == ["solutions.py"]


def test_a_missing_parent_folder_is_refused(tmp_path):
    assert "does not exist" in _refused(tmp_path, "no/such/pkg")


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_an_unwritable_parent_is_refused(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    assert f"cannot write in folder {locked} (Permission denied)" in _refused(tmp_path, "locked/pkg")


def test_a_package_for_an_own_assignment_copies_it(tmp_path):
    course = tmp_path / "course"
    shutil.copytree(ROOT / "pacman" / "grading" / "assignments" / "expectimax", course)
    done = _cli("grade", "course", "--gradescope-package", "pkg", "--requirement", "pacman-ai", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "pkg" / "assignment" / "assignment.toml").is_file()
    assert "assignment=source/assignment" in (tmp_path / "pkg" / "run_autograder").read_text()


@pytest.mark.parametrize("trouble, message", [
    ("fifo", "course/pipe: is a FIFO (named pipe); the assignment folder copied into the package may hold only"),
    ("link", "course/root: is a symbolic link; the assignment folder copied into the package may hold only"),
    ("inside", "--gradescope-package course/pkg: is inside the assignment folder course"),
    ("empty", "--gradescope-package: expected a folder name, got an empty string"),
])
def test_an_own_assignment_that_cannot_be_copied_is_refused(tmp_path, trouble, message):
    course = tmp_path / "course"
    shutil.copytree(ROOT / "pacman" / "grading" / "assignments" / "expectimax", course)
    if trouble == "fifo":
        os.mkfifo(course / "pipe")
    elif trouble == "link":
        (course / "root").symlink_to("/")
    target = {"inside": "course/pkg", "empty": ""}.get(trouble, "pkg")
    done = _cli("grade", "course", "--gradescope-package", target, "--requirement", "pacman-ai", cwd=tmp_path,
                timeout=30)
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert message in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["course"]


def _autograder_tree(tmp_path: Path, package: Path, submission: Path, name: str) -> tuple[Path, dict]:
    """Gradescope's layout (source/: the unzipped package, submission/, results/) with a stand-in venv whose
    pacman-ai is this environment's, and the environment run_autograder is run with (no sandbox user)."""
    root = tmp_path / "autograder"
    shutil.copytree(package, root / "source")
    (root / "submission").mkdir()
    shutil.copy(submission, root / "submission" / name)
    bin_dir = root / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "pacman-ai").write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m pacman "$@"\n')
    (bin_dir / "pacman-ai").chmod(0o755)
    (bin_dir / "python").symlink_to(sys.executable)
    env = dict(os.environ, AUTOGRADER_ROOT=str(root), PACMAN_AI_SANDBOX_USER="", PYTHONPATH=str(ROOT))
    return root, env


@pytest.mark.parametrize("course, name, expected", [
    ("classic_course", "multiAgents.py", [("q1", 4.0, 4.0), ("q2", 5.0, 5.0), ("q3", 3.0, 3.0)]),
    ("classic_course2", "mySolution.py", [("q1", 3.0, 3.0), ("q2", 4.0, 4.0)]),  # a lone file of another name
])
def test_a_classic_test_folder_is_packaged_and_graded_by_run_autograder(tmp_path, course, name, expected):
    """The package copies test_cases (and layouts/ beside it: classic_course2's EvalAgentTest maze is not shipped)
    and its run_autograder grades the course's correct multiAgents.py: full marks, from the copy alone."""
    source = tmp_path / "course"
    shutil.copytree(ROOT / "tests" / course, source, ignore=shutil.ignore_patterns("__pycache__"))
    done = _cli("grade", "course/test_cases", "--gradescope-package", "pkg", "--requirement", "pacman-ai",
                cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "students submit multiAgents.py" in done.stderr
    package = tmp_path / "pkg"
    copied = sorted(str(p.relative_to(package / "course")) for p in (package / "course").rglob("*") if p.is_file())
    wanted = sorted(str(p.relative_to(source)) for p in source.rglob("*") if p.is_file()
                    and p.parts[len(source.parts)] in ("test_cases", "layouts"))
    assert copied == wanted and ("layouts/twoRooms.lay" in copied) == (course == "classic_course2")
    run = (package / "run_autograder").read_text()
    assert 'submission="$root/submission/multiAgents.py"' in run and "assignment=source/course/test_cases" in run
    assert "classic test folder 'test_cases'" in (package / "README.txt").read_text()

    root, env = _autograder_tree(tmp_path, package, source / "multiAgents.py", name)
    shutil.rmtree(source)  # graded from the package's copy only
    graded = subprocess.run(["bash", str(root / "source" / "run_autograder")], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)
    assert graded.returncode == 0, graded.stderr[-2000:]
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == sum(points for _, points, _ in expected)
    assert [(t["name"].split(":")[0], t["score"], t["max_score"]) for t in results["tests"]] == expected


@pytest.mark.parametrize("trouble, message", [
    ("fifo", "test_cases/q1/pipe: is a FIFO (named pipe); the assignment folder copied into the package may hold"),
    ("link", "course/layouts: is a symbolic link; the folders copied into the package may hold only files"),
    ("inside", "--gradescope-package course/layouts/pkg: is inside the layouts folder"),
    ("broken", "test_cases/CONFIG"),
    ("maze here", "q2/1-two-rooms: its maze layouts/twoRooms.lay is found only in the working directory, whose"),
])
def test_a_classic_folder_that_cannot_be_packaged_is_refused(tmp_path, trouble, message):
    source = tmp_path / "course"
    shutil.copytree(ROOT / "tests" / "classic_course2", source, ignore=shutil.ignore_patterns("__pycache__"))
    cwd, folder, target = tmp_path, "course/test_cases", "pkg"
    if trouble == "fifo":
        os.mkfifo(source / "test_cases" / "q1" / "pipe")
    elif trouble == "link":
        shutil.move(source / "layouts", tmp_path / "mazes")
        (source / "layouts").symlink_to(tmp_path / "mazes")
    elif trouble == "inside":
        target = "course/layouts/pkg"
    elif trouble == "broken":
        (source / "test_cases" / "CONFIG").write_text('order: "q1 q9"\n')
    elif trouble == "maze here":  # found in ./layouts when building, but not beside the test folder
        (tmp_path / "work").mkdir()
        shutil.move(source / "layouts", tmp_path / "work" / "layouts")
        cwd, folder = tmp_path / "work", "../course/test_cases"
    before = sorted(p.name for p in cwd.iterdir())
    done = _cli("grade", folder, "--gradescope-package", target, "--requirement", "pacman-ai", cwd=cwd, timeout=60)
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert message in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert sorted(p.name for p in cwd.iterdir()) == before and not (source / "layouts" / "pkg").exists()


@pytest.mark.slow
def test_the_package_installs_offline_in_a_fresh_venv_and_grades(tmp_path):
    """Build the default package, run setup.sh as Gradescope would (but into tmp, pip without an index), then
    run_autograder on a correct submission: full marks. Then the installed wheel packages itself again."""
    done = _cli("grade", "--gradescope-package", "pkg", cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    wheels = sorted(p.name for p in (tmp_path / "pkg" / "wheels").iterdir())
    assert wheels[0].startswith("numpy-") and "pacman_ai-0.1.0-py3-none-any.whl" in wheels
    assert any(w.startswith("pygame_ce-") for w in wheels)
    for wheel in wheels:
        _check_wheel(tmp_path / "pkg" / "wheels" / wheel)

    root = tmp_path / "autograder"  # Gradescope's layout: source/ (the unzipped package), submission/, results/
    shutil.copytree(tmp_path / "pkg", root / "source")
    (root / "submission").mkdir()
    shutil.copy(SUBMISSIONS / "correct.py", root / "submission" / "multi_agents.py")
    base_python = getattr(sys, "_base_executable", sys.executable)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PIP_", "VIRTUAL_ENV", "PYTHON"))}
    env.update(AUTOGRADER_ROOT=str(root), PYTHON=base_python, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
               PACMAN_AI_SANDBOX_USER="")
    setup = subprocess.run(["bash", str(root / "source" / "setup.sh")], cwd=root / "source", env=env,
                           capture_output=True, text=True, timeout=600)
    assert setup.returncode == 0, setup.stdout[-2000:] + setup.stderr[-2000:]
    assert "using the package index" not in setup.stderr
    installed = root / "venv" / "bin" / "pacman-ai"
    assert installed.is_file()

    run = subprocess.run(["bash", str(root / "source" / "run_autograder")], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 24.0
    assert [(t["score"], t["max_score"]) for t in results["tests"]] == [(8.0, 8.0), (10.0, 10.0), (6.0, 6.0)]

    # The installed project is a plain wheel install (no source tree): it can build the package too.
    again = subprocess.run([str(installed), "grade", "--gradescope-package", str(tmp_path / "pkg2")], cwd=tmp_path,
                           env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    first = _check_wheel(tmp_path / "pkg" / "wheels" / "pacman_ai-0.1.0-py3-none-any.whl")
    second = _check_wheel(tmp_path / "pkg2" / "wheels" / "pacman_ai-0.1.0-py3-none-any.whl")
    assert sorted(first) == sorted(second)
