"""`pacman-ai grade --gradescope-package`: what the package holds, where it may be written, that it installs
offline and grades, and that its setup.sh builds the compiled core where a C compiler is (else keeps the pure wheel)."""

from __future__ import annotations

import base64
import csv
import hashlib
import importlib.util
import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

from pacman.grading.gradescope import (
    MARKER,
    build_project_sdist,
    build_project_wheel,
    bundle_build_requirements,
    source_tree,
)

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


def test_the_project_wheel_leaves_out_the_cores_c_files_as_setup_py_does(tmp_path):
    names = _check_wheel(build_project_wheel(tmp_path))
    assert not [n for n in names if n.startswith("pacman/agents/core/") and n.endswith(".c")]
    assert "pacman/agents/core/core.h" in names  # MANIFEST.in's header: setup.py's wheel has it too
    assert not [n for n in names if "_core." in n]


def test_the_sdist_holds_what_building_pacman_ai_needs_and_is_the_same_each_time(tmp_path):
    root = source_tree()
    assert root == ROOT  # the tests run from the checkout
    sdist = build_project_sdist(tmp_path, root)
    assert sdist.name == "pacman_ai-0.1.0.tar.gz"
    with tarfile.open(sdist) as archive:
        members = archive.getmembers()
    names = {m.name.removeprefix("pacman_ai-0.1.0/") for m in members}
    assert all(m.name.startswith("pacman_ai-0.1.0/") and m.isfile() and m.uid == 0 for m in members)
    assert {"PKG-INFO", "pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE"} <= names
    sources = {f"agents/core/{p.name}" for p in (ROOT / "agents" / "core").iterdir() if p.suffix in (".c", ".h")}
    assert len(sources) >= 11 and sources <= names
    assert {"pacman/cli/__init__.py", "agents/compiled.py", "layouts/medium.lay", "assets/palette.json",
            "pacman/grading/assignments/expectimax/assignment.toml"} <= names
    assert not [n for n in names if n.startswith(("tests/", "docs/", "scripts/")) or "__pycache__" in n
                or n.endswith((".so", ".pyc")) or "egg-info" in n]
    (tmp_path / "again").mkdir()
    assert build_project_sdist(tmp_path / "again", root).read_bytes() == sdist.read_bytes()


def test_build_requirements_are_repacked_when_installed_and_a_failed_download_is_said(tmp_path, monkeypatch):
    """An installed distribution that satisfies a build requirement is repacked; one pip cannot download leaves
    nothing behind and says why (setup.sh then asks the package index)."""
    import packaging

    root = tmp_path / "tree"
    root.mkdir()
    (root / "pyproject.toml").write_text('[build-system]\nrequires = ["packaging>=1"]\n')
    (tmp_path / "one").mkdir()
    wheels, missing = bundle_build_requirements(tmp_path / "one", root)
    assert missing is None and [w.name for w in wheels] == [f"packaging-{packaging.__version__}-py3-none-any.whl"]
    assert "packaging/requirements.py" in _check_wheel(wheels[0])

    (root / "pyproject.toml").write_text('[build-system]\nrequires = ["packaging>=1", "no-such-build-tool>=1"]\n')
    (tmp_path / "links").mkdir()
    for key in [k for k in os.environ if k.startswith("PIP_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path / "links"))
    (tmp_path / "two").mkdir()
    wheels, missing = bundle_build_requirements(tmp_path / "two", root)
    assert sorted((tmp_path / "two").iterdir()) == wheels and [w.name.split("-")[0] for w in wheels] == ["packaging"]
    assert missing.startswith("pip could not download no-such-build-tool>=1: "), missing


_BLOCK_CORE = ("import sys\n"
               "class Block:\n"
               "    def find_spec(self, name, path=None, target=None):\n"
               "        if name == 'pacman.agents._core':\n"
               "            raise ModuleNotFoundError(\"No module named 'pacman.agents._core'\")\n"
               "sys.meta_path.insert(0, Block())\n"
               "from pacman.grading.gradescope import engine_statement\n"
               "print(engine_statement())\n")


def test_the_engine_statement_names_the_engine_that_grades(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PACMAN_AI_ENGINE"}
    helper = [sys.executable, "-m", "pacman.grading.gradescope", "engine"]
    done = subprocess.run(helper, capture_output=True, text=True, timeout=60, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    if importlib.util.find_spec("pacman.agents._core") is not None:  # built in this checkout
        assert done.stdout == ("setup.sh: engine: compiled core for the project's own agents "
                               "with a built-in evaluation; the submission's code runs in Python\n")
    else:
        assert done.stdout.startswith("setup.sh: engine: Python (the compiled core is not built here: ")
    blocked = subprocess.run([sys.executable, "-c", _BLOCK_CORE], capture_output=True, text=True, timeout=60, env=env,
                             cwd=ROOT)
    assert blocked.stdout == ("engine: Python (the compiled core is not built here: "
                              "No module named 'pacman.agents._core')\n"), blocked.stderr
    off = subprocess.run(helper, capture_output=True, text=True, timeout=60, env=dict(env, PACMAN_AI_ENGINE="python"),
                         cwd=ROOT)
    assert off.stdout == "setup.sh: engine: Python (the compiled core is switched off: PACMAN_AI_ENGINE=python)\n"


@pytest.mark.parametrize("setting, message", [
    ({"CC": "no-such-cc-here"}, "no C compiler here (no-such-cc-here is not on PATH)"),
    ({"PACMAN_AI_BUILD_CORE": "off"}, "PACMAN_AI_BUILD_CORE=off"),
])
def test_install_core_builds_nothing_without_a_compiler_or_when_told_not_to(tmp_path, setting, message):
    # It stops before reading its arguments (which do not exist): nothing is built or installed here.
    done = subprocess.run([sys.executable, "-m", "pacman.grading.gradescope", "install-core", str(tmp_path / "none"),
                           str(tmp_path / "none.whl")], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, **setting), cwd=ROOT)
    assert (done.returncode, done.stdout) == (0, ""), done.stderr
    assert done.stderr == (f"setup.sh: not building the compiled core: {message}; pacman-ai stays installed from "
                           f"the pure wheel\n")


def test_missing_python_headers_are_said_and_installed_with_apt_get_only_as_root(tmp_path, monkeypatch):
    """Without Python.h the core is not tried; as root, for a Python of the system, apt-get installs the headers
    first (a stand-in apt-get here, which installs nothing: so the core is still not tried, and that is said)."""
    from pacman.grading import gradescope

    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    monkeypatch.delenv("PACMAN_AI_BUILD_CORE", raising=False)
    monkeypatch.setenv("CC", "sh")  # a command that is on PATH: the compiler is found
    monkeypatch.setattr(gradescope.sysconfig, "get_paths", lambda: {"include": str(tmp_path / "include")})
    monkeypatch.setattr(gradescope.os, "geteuid", lambda: 1000)
    assert gradescope._core_obstacle() == (f"Python's headers are not here ({tmp_path}/include/Python.h; "
                                           f"python{version}-dev or the like has them)")

    system = f"/usr/include/python{version}-not-here"
    tools, calls = tmp_path / "bin", tmp_path / "calls"
    tools.mkdir()
    (tools / "apt-get").write_text(f'#!/bin/sh\necho "$@" >> {calls}\n')
    (tools / "apt-get").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
    monkeypatch.setattr(gradescope.sysconfig, "get_paths", lambda: {"include": system})
    monkeypatch.setattr(gradescope.os, "geteuid", lambda: 0)
    assert gradescope._core_obstacle() == (f"Python's headers are not here, even after installing python{version}-dev "
                                           f"({system}/Python.h)")
    assert calls.read_text() == f"update -qq\ninstall -y -qq python{version}-dev\n"


def test_the_helper_refuses_what_it_does_not_know():
    done = subprocess.run([sys.executable, "-m", "pacman.grading.gradescope", "install"], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "usage: python -m pacman.grading.gradescope install-core SDIST WHEEL | engine\n"


def test_the_default_package_carries_the_source_to_build_the_core(default_package):
    package, done = default_package
    assert done.stdout.split() == ["pkg/wheels", "pkg/build", "pkg/setup.sh", "pkg/run_autograder", "pkg/README.txt"]
    built = sorted(p.name for p in (package / "build").iterdir())
    assert "pacman_ai-0.1.0.tar.gz" in built
    requirements = [n for n in built if n.endswith(".whl")]
    readme = (package / "README.txt").read_text()
    if requirements:  # setuptools>=77, repacked from this Python or downloaded by pip
        assert [n.split("-")[0] for n in requirements] == ["setuptools"]
        assert f"{requirements[0]} (its build requirement)" in readme
    else:
        assert "Not bundled: build requirements (pip could not download setuptools>=77: " in readme
    assert not [n for n in os.listdir(package / "wheels") if not n.endswith(".whl")]
    setup = (package / "setup.sh").read_text()
    assert ('"$root/venv/bin/python" -I -m pacman.grading.gradescope install-core '
            '"$here/build/pacman_ai-0.1.0.tar.gz" "$wheel"') in setup
    assert setup.index("install-core") > setup.index('install --no-index --find-links "$here/wheels" "$wheel"')
    assert "pacman.grading.gradescope engine" in setup and "PACMAN_AI_BUILD_CORE=0" in setup
    subprocess.run(["bash", "-n", str(package / "setup.sh")], check=True)


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


@pytest.fixture(scope="module")
def default_package(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """The default package (`pacman-ai grade --gradescope-package pkg`), written once, and the command's output."""
    folder = tmp_path_factory.mktemp("default")
    done = _cli("grade", "--gradescope-package", "pkg", cwd=folder, timeout=600)
    assert done.returncode == 0, done.stderr
    return folder / "pkg", done


def _compiler() -> str | None:
    """The C compiler setuptools would use here ($CC, else Python's own), if it is on PATH."""
    return shutil.which((os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0])


def _setup(package: Path, root: Path, **settings: str) -> subprocess.CompletedProcess:
    """Run the package's setup.sh as Gradescope would, with /autograder moved to `root` (the package unzipped into
    root/source) and pip offline (no index, no configuration file): Python from `python3 -m venv`, our own."""
    shutil.copytree(package, root / "source")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "VIRTUAL_ENV", "PYTHON", "PACMAN_AI"))}
    env.update(AUTOGRADER_ROOT=str(root), PYTHON=getattr(sys, "_base_executable", sys.executable), PIP_NO_INDEX="1",
               PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1", **settings)
    return subprocess.run(["bash", str(root / "source" / "setup.sh")], cwd=root / "source", env=env,
                          capture_output=True, text=True, timeout=900)


def _installed_files(root: Path) -> set[str]:
    """The files of pacman-ai's packages that pip installed into root/venv (from its RECORD)."""
    [record] = (root / "venv").glob("lib/python*/site-packages/pacman_ai-*.dist-info/RECORD")
    return {row[0] for row in csv.reader(io.StringIO(record.read_text()))
            if row[0].startswith("pacman/") and "__pycache__" not in row[0]}  # byte code: pip's, not the wheel's


def _imports_core(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(root / "venv" / "bin" / "python"), "-I", "-c", "import pacman.agents._core"],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_the_package_installs_offline_in_a_fresh_venv_builds_the_core_and_grades(tmp_path, default_package):
    """Build the default package, run setup.sh as Gradescope would (but into tmp, pip without an index): where a C
    compiler is, the core is built and imports, and the project installed is the pure wheel's plus the core. Then
    run_autograder on a correct submission: full marks. Then the installed project (a plain wheel install, no
    source tree) packages itself again, without the source to build the core from."""
    package, _ = default_package
    wheels = sorted(p.name for p in (package / "wheels").iterdir())
    assert wheels[0].startswith("numpy-") and "pacman_ai-0.1.0-py3-none-any.whl" in wheels
    assert any(w.startswith("pygame_ce-") for w in wheels)
    for wheel in wheels:
        _check_wheel(package / "wheels" / wheel)
    assert any(p.name.startswith("setuptools-") for p in (package / "build").iterdir()), "offline build needs it"

    root = tmp_path / "autograder"  # Gradescope's layout: source/ (the unzipped package), submission/, results/
    setup = _setup(package, root)
    assert setup.returncode == 0, setup.stdout[-2000:] + setup.stderr[-2000:]
    assert "using the package index" not in setup.stderr
    pure = {n for n in _check_wheel(package / "wheels" / "pacman_ai-0.1.0-py3-none-any.whl") if n.startswith("pacman/")}
    if _compiler() is None:  # a machine without one: the pure wheel, said so
        assert "setup.sh: not building the compiled core: no C compiler here" in setup.stderr
        assert _installed_files(root) == pure
    else:
        assert "setup.sh: built and installed the compiled core in " in setup.stdout, setup.stderr[-3000:]
        assert setup.stderr == "", setup.stderr[-3000:]
        assert _imports_core(root).returncode == 0, _imports_core(root).stderr
        assert ("setup.sh: engine: compiled core for the project's own agents with a built-in "
                "evaluation; the submission's code runs in Python\n") in setup.stdout
        core = {n for n in _installed_files(root) - pure}
        assert len(core) == 1 and core.pop().startswith("pacman/agents/_core.cpython-")
        assert pure <= _installed_files(root)
    installed = root / "venv" / "bin" / "pacman-ai"
    assert installed.is_file()

    (root / "submission").mkdir()
    shutil.copy(SUBMISSIONS / "correct.py", root / "submission" / "multi_agents.py")
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PIP_", "VIRTUAL_ENV", "PYTHON"))}
    env.update(AUTOGRADER_ROOT=str(root), PACMAN_AI_SANDBOX_USER="")
    run = subprocess.run(["bash", str(root / "source" / "run_autograder")], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 24.0
    assert [(t["score"], t["max_score"]) for t in results["tests"]] == [(8.0, 8.0), (10.0, 10.0), (6.0, 6.0)]

    # The installed project is a plain wheel install (no source tree): it can build the package too, with the
    # same pure wheel, and says that it carries no source to build the core from.
    again = subprocess.run([str(installed), "grade", "--gradescope-package", str(tmp_path / "pkg2")], cwd=tmp_path,
                           env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    first = _check_wheel(package / "wheels" / "pacman_ai-0.1.0-py3-none-any.whl")
    second = _check_wheel(tmp_path / "pkg2" / "wheels" / "pacman_ai-0.1.0-py3-none-any.whl")
    assert sorted(first) == sorted(second)
    assert not (tmp_path / "pkg2" / "build").exists()
    assert "this package carries no source of pacman-ai to build the compiled core from" in \
        (tmp_path / "pkg2" / "setup.sh").read_text()
    assert "No compiled core: it was built from a wheel install of pacman-ai" in \
        (tmp_path / "pkg2" / "README.txt").read_text()


@pytest.mark.slow
@pytest.mark.parametrize("trouble", ["compiler fails", "no compiler on PATH"])
def test_setup_sh_without_a_working_compiler_installs_the_pure_wheel_and_says_so(tmp_path, default_package, trouble):
    package, _ = default_package
    root = tmp_path / "autograder"
    if trouble == "compiler fails":
        settings = {"CC": "false"}
        said = ("setup.sh: the compiled core did not compile; pacman-ai stays installed from the pure wheel, without "
                "it. The build said:\n")
    else:
        tools = tmp_path / "bin"  # what setup.sh itself runs; its Python is named by a full path
        tools.mkdir()
        for tool in ("bash", "dirname", "chmod"):
            (tools / tool).symlink_to(shutil.which(tool))
        settings = {"PATH": str(tools), "CC": ""}
        compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
        said = (f"setup.sh: not building the compiled core: no C compiler here ({compiler} is not on PATH); "
                f"pacman-ai stays installed from the pure wheel\n")
    setup = _setup(package, root, **settings)
    assert setup.returncode == 0, setup.stdout[-2000:] + setup.stderr[-2000:]
    assert said in setup.stderr, setup.stderr[-3000:]
    if trouble == "compiler fails":
        assert 'warning: BuildCore: building extension "pacman.agents._core" failed' in setup.stderr
    assert "setup.sh: engine: Python (the compiled core is not built here: No module named 'pacman.agents._core')\n" \
        in setup.stdout
    assert "ModuleNotFoundError" in _imports_core(root).stderr
    pure = {n for n in _check_wheel(package / "wheels" / "pacman_ai-0.1.0-py3-none-any.whl") if n.startswith("pacman/")}
    assert _installed_files(root) == pure
    grade = subprocess.run([str(root / "venv" / "bin" / "pacman-ai"), "grade", "expectimax",
                            str(SUBMISSIONS / "correct.py"), "--question", "trees"], capture_output=True, text=True,
                           timeout=300, cwd=tmp_path, env={**os.environ, "PATH": os.environ["PATH"]})
    assert grade.returncode == 0 and "Total: 8/8" in grade.stdout, grade.stderr[-2000:]
