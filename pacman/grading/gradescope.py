"""Gradescope's autograder package: ``setup.sh``, ``run_autograder``, and the wheels they install from.

By default the package carries a wheel of the running pacman-ai (written here
from its installed files, so that neither a source tree nor build tools nor the
network are needed) and wheels of its runtime dependencies repacked from the
installed distributions, so that ``setup.sh`` installs without the package index
when the autograder's Python matches the one that built the package (and falls
back to the index when it does not). ``--requirement SPEC`` replaces all that with
``pip install SPEC``.

The wheel is pure Python: the compiled core (``pacman.agents._core``) must be
compiled for the autograder's own Python. So when pacman-ai runs from a source
tree (a checkout, an editable install) the package also carries an sdist of it
and the wheels of its build requirements (setuptools), and ``setup.sh`` builds
the core there (`install_core`) when the image has a C compiler and Python's
headers, keeping the pure wheel where it cannot; `engine_statement` is the line
that says which engine grades.

An assignment folder of one's own is copied into the package; so is a classic
CS188 test folder, with the ``layouts/`` folder beside it (its EvalAgentTests'
mazes), graded against the student's ``multiAgents.py``.

The package is written into a temporary folder beside the target and renamed into
place, so a failure leaves nothing half-written; an existing target is replaced
only if it is empty or a package written by this module.
"""

from __future__ import annotations

import base64
import calendar
import contextlib
import fnmatch
import gzip
import hashlib
import io
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
import zipfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from pacman.errors import PacmanError
from pacman.files import file_kind, output_problem

__all__ = ["PackageError", "write_gradescope_package", "build_project_wheel", "build_project_sdist",
           "bundle_build_requirements", "bundle_wheels", "download_wheels", "parse_python_version", "classic_layouts",
           "classic_engine_files", "source_tree", "install_core", "engine_statement", "MARKER", "CLASSIC_SUBMISSION"]

#: The line every script of the package carries; a folder holding it may be replaced.
MARKER = "Written by `pacman-ai grade --gradescope-package`."
#: The file students submit for a classic test folder (run_autograder takes a lone .py file of another name too).
CLASSIC_SUBMISSION = "multiAgents.py"
#: The folder of the package that holds the wheels.
WHEELS = "wheels"
#: The folder of the package that holds what ``setup.sh`` builds the compiled core from: the sdist of pacman-ai
#: and the wheels of its build requirements (kept apart from `WHEELS`, which holds what is installed).
BUILD = "build"
#: The folder of the package that holds a classic test folder and the ``layouts/`` beside it.
COURSE = "course"
#: The compiled core's module, as setup.py names its extension.
CORE_MODULE = "pacman.agents._core"
#: The environment variable setup.py reads to skip the core (``0``, ``false``, ``no``, ``off``).
BUILD_CORE_VARIABLE = "PACMAN_AI_BUILD_CORE"
_DISTRIBUTION = "pacman-ai"
#: The date (UTC) every file of the wheels and the sdist written here carries: a package written twice is the same.
_FILE_DATE = (2020, 1, 1, 0, 0, 0)
#: dist-info files that describe an installation, not a distribution: never put into a wheel.
_INSTALL_ONLY = {"INSTALLER", "REQUESTED", "direct_url.json", "RECORD"}


class PackageError(PacmanError):
    """The package cannot be written as asked (bad target, nothing to bundle); the message names it."""


# -- the scripts ---------------------------------------------------------------------------

_SETUP = """#!/usr/bin/env bash
# Gradescope autograder setup: installs Python and pacman-ai (with its compiled core where it can be built).
# @MARKER@
# AUTOGRADER_ROOT (default /autograder) and PYTHON (default python3) may be set to try it elsewhere;
# PACMAN_AI_BUILD_CORE=0 installs pacman-ai without building the compiled core.
set -euo pipefail
root=${AUTOGRADER_ROOT:-/autograder}
python=${PYTHON:-python3}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if ! "$python" -c "import ensurepip, venv" 2>/dev/null; then
  apt-get update
  apt-get install -y python3 python3-pip python3-venv
fi
"$python" -m venv "$root/venv"
@INSTALL@
# Which engine grades here, as the grading report says it.
"$root/venv/bin/python" -I -m pacman.grading.gradescope engine || true
# Submissions run as the user nobody, who must be able to read Python and the installed project.
chmod -R a+rX "$root/venv"
"""

_INSTALL_BUNDLED = """wheel="$here/@WHEELS@/@WHEEL@"
# The bundled wheels first, without the network. The dependency wheels fit @DEPENDENCY_TAGS@ only:
# on another Python, pip fetches those from the package index instead.
if ! "$root/venv/bin/pip" install --no-index --find-links "$here/@WHEELS@" "$wheel"; then
  echo "setup.sh: the bundled dependency wheels do not fit this Python; using the package index" >&2
  "$root/venv/bin/pip" install --find-links "$here/@WHEELS@" "$wheel"
fi
@CORE@"""

_INSTALL_CORE = """# The compiled core: pacman-ai built again from its sdist where a C compiler and Python's headers are here
# (apt-get installs the headers if they alone are missing); otherwise, or if that build fails, the pure wheel
# just installed stays, and the Python engine grades.
if ! "$root/venv/bin/python" -I -m pacman.grading.gradescope install-core "$here/@BUILD@/@SDIST@" "$wheel"; then
  echo "setup.sh: building the compiled core failed unexpectedly (above); pacman-ai stays installed from the" \\
       "pure wheel, without it" >&2
fi"""

_NO_CORE_SOURCE = """echo "setup.sh: this package carries no source of pacman-ai to build the compiled core from" \\
     "(@WHY@); the Python engine grades" >&2"""

_INSTALL_REQUIREMENT = """"$root/venv/bin/pip" install @REQUIREMENT@"""

_RUN = """#!/usr/bin/env bash
# Gradescope autograder run: grades the submission and writes results.json.
# @MARKER@
# AUTOGRADER_ROOT (default /autograder) may be set to try it elsewhere; PACMAN_AI_SANDBOX_USER
# (default nobody; empty: none, for a trial run without root) is the user the submission runs as.
set -uo pipefail
root=${AUTOGRADER_ROOT:-/autograder}
user=${PACMAN_AI_SANDBOX_USER-nobody}
mkdir -p "$root/results"
results="$root/results/results.json"
submission="$root/submission/@SUBMISSION@"
if [ ! -f "$submission" ]; then
  # A single .py file under another name is accepted too.
  found=$(find "$root/submission" -maxdepth 2 -name '*.py' -type f | head -n 1)
  submission=${found:-$submission}
fi
assignment=@ASSIGNMENT@
case "$assignment" in
  source/*) assignment="$root/$assignment" ;;
esac
cd /tmp
errors=$(mktemp)
"$root/venv/bin/pacman-ai" grade "$assignment" "$submission" ${user:+--sandbox-user "$user"} \\
    --gradescope "$results" 2> "$errors"
status=$?
cat "$errors" >&2
if [ ! -s "$results" ]; then
  # The grader could not run at all: still give Gradescope a whole results file that says why
  # (the grader's last line on stderr: its one-line error, or the last line of a traceback).
  "$root/venv/bin/python" - "$status" "$results" "$errors" <<'END'
import json, sys
status, results, errors = sys.argv[1:]
with open(errors, encoding="utf-8", errors="replace") as handle:
    lines = [line.strip() for line in handle if line.strip()]
reason = lines[-1] if lines else "it printed no error"
prefix = "pacman-ai: "
reason = reason[len(prefix):] if reason.startswith(prefix) else reason
message = (f"The autograder could not run: {reason} (exit status {status}); "
           f"please tell your instructor.")
with open(results, "w") as handle:
    json.dump({"score": 0, "output": message, "tests": [], "stdout_visibility": "visible"}, handle)
END
fi
rm -f "$errors"
"""

_README = """Gradescope autograder for the pacman-ai {kind} {assignment!r}.
{marker}

Zip the contents of this folder (not the folder itself) and upload the zip as
the assignment's autograder; students submit {submission}.

setup.sh        creates the virtual environment /autograder/venv and installs pacman-ai
                (building its compiled core there when the image has a C compiler)
run_autograder  grades /autograder/submission/{submission} into /autograder/results/results.json
{contents}
"""


# -- wheels ----------------------------------------------------------------------------------


def _record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


class _WheelWriter:
    """A wheel being written: files go in with their RECORD lines; `close` adds RECORD itself."""

    def __init__(self, path: Path, dist_info: str) -> None:
        self.zip = zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6)
        self.dist_info = dist_info
        self.record: list[str] = []

    def add(self, name: str, data: bytes, executable: bool = False) -> None:
        info = zipfile.ZipInfo(name, date_time=_FILE_DATE)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
        self.zip.writestr(info, data)
        self.record.append(f"{_csv_field(name)},{_record_hash(data)},{len(data)}")

    def close(self) -> None:
        record = f"{self.dist_info}/RECORD"
        self.record.append(f"{_csv_field(record)},,")
        self.add_raw(record, ("\n".join(self.record) + "\n").encode("utf-8"))
        self.zip.close()

    def add_raw(self, name: str, data: bytes) -> None:
        info = zipfile.ZipInfo(name, date_time=_FILE_DATE)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = (0o644 | stat.S_IFREG) << 16
        self.zip.writestr(info, data)


def _csv_field(name: str) -> str:
    return f'"{name}"' if ("," in name or '"' in name) else name


def _normalized(name: str) -> str:
    """A distribution name as wheel file names spell it: ``pygame-ce`` -> ``pygame_ce``."""
    return re.sub(r"[-_.]+", "_", name).lower()


def _distribution(name: str) -> metadata.Distribution:
    """The installed distribution `name`: the first one on the path with a METADATA file, so that a
    stray ``*.egg-info`` folder in the working directory (left by a source build) is passed over."""
    found = list(metadata.distributions(name=name))
    for dist in found:
        if dist.read_text("METADATA"):
            return dist
    if found:
        return found[0]
    try:
        return metadata.distribution(name)
    except metadata.PackageNotFoundError:
        raise PackageError(f"{name} is not installed in this Python ({sys.executable}), so it cannot be "
                           f"bundled; install it, or give --requirement SPEC") from None


def _is_packaged_file(path: Path) -> bool:
    return not (path.suffix in (".pyc", ".pyo", ".so", ".pyd") or "__pycache__" in path.parts
                or any(part.startswith(".") for part in path.parts))


#: The compiled core's C files as a wheel names them: left out of wheels, as setup.py leaves them out of its own
#: (the sdist carries them), so that the pure wheel holds what a wheel built from the sdist holds, less the core.
_CORE_SOURCES = "pacman/agents/core/*.c"


def build_project_wheel(folder: str | os.PathLike[str]) -> Path:
    """Write a pure-Python wheel of the running pacman-ai into `folder`; returns its path.

    It has no compiled core (built for the autograder's Python from the sdist, see
    `install_core`), nor the core's C files.

    Built from the imported `pacman` and `pacman.agents` packages (with the layouts and
    assets, wherever this installation keeps them) and the installed distribution's
    metadata, so it works from an editable install and from a wheel install alike,
    without build tools or the network.
    """
    import pacman
    import pacman.agents
    from pacman.resources import resource_dir

    dist = _distribution(_DISTRIBUTION)
    version = dist.version
    name = _normalized(_DISTRIBUTION)
    dist_info = f"{name}-{version}.dist-info"
    path = Path(folder) / f"{name}-{version}-py3-none-any.whl"
    files: dict[str, Path] = {}
    # pacman.agents is the folder agents/ beside pacman/ in a source tree, pacman/agents/ in a wheel.
    for package, prefix in ((pacman, "pacman"), (pacman.agents, "pacman/agents")):
        root = Path(package.__file__).resolve().parent
        for file in sorted(root.rglob("*")):
            relative = file.relative_to(root)
            if file.is_file() and _is_packaged_file(relative):
                files.setdefault(f"{prefix}/{relative.as_posix()}", file)
    for data in ("layouts", "assets"):  # outside the package in a source tree, inside it in a wheel
        source = resource_dir(data)
        for file in sorted(source.rglob("*")):
            relative = file.relative_to(source)
            if file.is_file() and _is_packaged_file(relative):
                files.setdefault(f"pacman/{data}/{relative.as_posix()}", file)
    for name in [n for n in files if fnmatch.fnmatch(n, _CORE_SOURCES)]:
        del files[name]
    if not any(n.startswith("pacman/layouts/") for n in files):
        raise PackageError("the running pacman-ai has no layouts folder to bundle; give --requirement SPEC")
    meta = dist.read_text("METADATA")
    if not meta:
        raise PackageError(f"the installed {_DISTRIBUTION} has no METADATA; give --requirement SPEC")
    writer = _WheelWriter(path, dist_info)
    try:
        for arcname, file in files.items():
            writer.add(arcname, file.read_bytes())
        writer.add(f"{dist_info}/METADATA", meta.encode("utf-8"))
        writer.add(f"{dist_info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: pacman-ai grade --gradescope-package\n"
                                         b"Root-Is-Purelib: true\nTag: py3-none-any\n")
        entry_points = dist.read_text("entry_points.txt") or "[console_scripts]\npacman-ai = pacman.cli:main\n"
        writer.add(f"{dist_info}/entry_points.txt", entry_points.encode("utf-8"))
        for extra in ("top_level.txt",):
            text = dist.read_text(extra)
            if text:
                writer.add(f"{dist_info}/{extra}", text.encode("utf-8"))
        for item in dist.files or ():
            parts = Path(str(item)).parts
            if len(parts) >= 2 and parts[0] == dist_info and parts[1] == "licenses":
                writer.add(str(item), Path(str(item.locate())).read_bytes())
    finally:
        writer.close()
    return path


#: What the sdist takes from the source tree: the files setup.py and pyproject.toml read, and the folders that
#: become the packages (pacman/; agents/, layouts/ and assets/, installed as pacman.agents, .layouts, .assets).
_SOURCE_FILES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE")
_SOURCE_FOLDERS = ("pacman", "agents", "layouts", "assets")


def source_tree() -> Path | None:
    """The source tree the running pacman-ai is imported from (a checkout, an editable install), which holds
    the compiled core's C files and setup.py; None for a wheel install, which has neither."""
    import pacman
    import pacman.agents

    root = Path(pacman.__file__).resolve().parent.parent
    if not ((root / "setup.py").is_file() and (root / "pyproject.toml").is_file()
            and Path(pacman.agents.__file__).resolve().parent == root / "agents"
            and any((root / "agents" / "core").glob("*.c"))):
        return None
    return root


def _pyproject(root: Path) -> dict:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib
    try:
        return tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PackageError(f"{root / 'pyproject.toml'}: cannot be read: {exc}") from None


def build_project_sdist(folder: str | os.PathLike[str], root: str | os.PathLike[str]) -> Path:
    """Write an sdist of the running pacman-ai from its source tree `root` into `folder`; returns its path.

    It holds what building pacman-ai needs and nothing else (pyproject.toml, setup.py,
    the packages with the compiled core's C files, the layouts and assets; no tests),
    with the installed distribution's metadata as PKG-INFO. Written here, without build
    tools and without writing into the source tree, and the same bytes each time.
    """
    root = Path(root)
    dist = _distribution(_DISTRIBUTION)
    project = _pyproject(root).get("project", {})
    if project.get("name") != _DISTRIBUTION:
        raise PackageError(f"{root / 'pyproject.toml'}: is not pacman-ai's (its name is {project.get('name')!r})")
    meta = dist.read_text("METADATA")
    if not meta:
        raise PackageError(f"the installed {_DISTRIBUTION} has no METADATA; give --requirement SPEC")
    base = f"{_normalized(_DISTRIBUTION)}-{dist.version}"
    files = [(name, root / name) for name in _SOURCE_FILES if (root / name).is_file()]
    for name in _SOURCE_FOLDERS:
        for file in sorted((root / name).rglob("*")):
            relative = file.relative_to(root / name)
            if file.is_file() and not file.is_symlink() and _is_packaged_file(relative):
                files.append((f"{name}/{relative.as_posix()}", file))
    path = Path(folder) / f"{base}.tar.gz"
    stamp = calendar.timegm(_FILE_DATE)
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as packed, \
            tarfile.open(fileobj=packed, mode="w", format=tarfile.PAX_FORMAT) as archive:
        entries = [("PKG-INFO", meta.encode("utf-8"), False)]
        entries += [(name, file.read_bytes(), bool(file.stat().st_mode & stat.S_IXUSR)) for name, file in files]
        for name, data, executable in entries:
            info = tarfile.TarInfo(f"{base}/{name}")
            info.size, info.mtime, info.mode = len(data), stamp, 0o755 if executable else 0o644
            archive.addfile(info, io.BytesIO(data))
    return path


def _wheel_tag(dist: metadata.Distribution) -> str:
    """The compressed tag set of an installed distribution, from its WHEEL file (``py3-none-any`` if none)."""
    text = dist.read_text("WHEEL") or ""
    tags = [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Tag:")]
    if not tags:
        return "py3-none-any"
    split = [tag.split("-") for tag in tags if tag.count("-") == 2]
    if not split:
        return "py3-none-any"
    if all(s[0] == split[0][0] and s[1] == split[0][1] for s in split):
        platforms = list(dict.fromkeys(s[2] for s in split))
        return f"{split[0][0]}-{split[0][1]}-{'.'.join(platforms)}"
    return "-".join(split[0])


def _repack(dist: metadata.Distribution, folder: Path) -> Path:
    """A wheel of an installed distribution, from the files its RECORD lists (scripts excepted)."""
    name = _normalized(dist.metadata["Name"])
    path = folder / f"{name}-{dist.version}-{_wheel_tag(dist)}.whl"
    entries = dist.files
    if not entries:
        raise PackageError(f"{dist.metadata['Name']}: its installation lists no files (no RECORD)")
    dist_info = next((str(e).split("/")[0] for e in entries if str(e).split("/")[0].endswith(".dist-info")), None)
    if dist_info is None:
        raise PackageError(f"{dist.metadata['Name']}: its installation has no .dist-info folder")
    writer = _WheelWriter(path, dist_info)
    try:
        for entry in entries:
            relative = Path(str(entry))
            if relative.parts[0] == ".." or "__pycache__" in relative.parts or relative.suffix == ".pyc":
                continue  # scripts (pip writes them again from entry_points.txt) and byte code
            if relative.parts[0] == dist_info and len(relative.parts) == 2 and relative.name in _INSTALL_ONLY:
                continue
            file = Path(str(entry.locate()))
            if not file.is_file():
                raise PackageError(f"{dist.metadata['Name']}: installed file {file} is missing")
            writer.add(relative.as_posix(), file.read_bytes(),
                       executable=bool(file.stat().st_mode & stat.S_IXUSR))
    finally:
        writer.close()
    return path


def _requirement_names(dist: metadata.Distribution) -> list[str]:
    """Names of the distribution's requirements that are not extras (markers are not evaluated)."""
    names = []
    for requirement in dist.requires or ():
        if re.search(r"\bextra\s*==", requirement):
            continue
        match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
        if match:
            names.append(match.group(1))
    return names


#: The platforms of the wheels downloaded for ``--python``: Linux x86-64 with glibc 2.17 to 2.35
#: (Gradescope's images are Ubuntu on x86-64; Ubuntu 22.04 has glibc 2.35).
LINUX_PLATFORMS = ("manylinux2014_x86_64",) + tuple(f"manylinux_2_{minor}_x86_64" for minor in range(17, 36))
#: The oldest Python pacman-ai runs on (pyproject's requires-python).
OLDEST_PYTHON = (3, 10)


def parse_python_version(text: str) -> str:
    """``3.10`` -> ``"3.10"``: a CPython minor version pacman-ai runs on; PackageError otherwise."""
    match = re.fullmatch(r"3\.(\d{1,2})", text.strip())
    if match is None:
        raise PackageError(f"--python {text!r}: expected a Python version such as 3.10 or 3.12")
    if (3, int(match.group(1))) < OLDEST_PYTHON:
        raise PackageError(f"--python {text}: pacman-ai needs Python {'.'.join(map(str, OLDEST_PYTHON))} or later")
    return f"3.{int(match.group(1))}"


def download_wheels(folder: str | os.PathLike[str], python: str) -> list[Path]:
    """Binary wheels of pacman-ai's dependencies for CPython `python` on Linux x86-64, into `folder`.

    pip resolves them for that interpreter without running it (the markers of
    pacman-ai's requirements are evaluated here for it: tomli for 3.10): ``pip download --only-binary=:all: --python-version ... --abi cpXY
    --platform ...``, from the package index pip is configured with. Returns the
    wheels written; PackageError with pip's reason if
    one has no wheel for that Python.
    """
    abi = "cp" + python.replace(".", "")
    try:
        return _pip_download(Path(folder), _requirements_for(python), python)
    except OSError as exc:
        raise PackageError(f"--python {python}: cannot run pip to download the wheels: {exc}") from None
    except _DownloadError as exc:
        raise PackageError(f"--python {python}: pip could not download the dependency wheels for CPython {python} "
                           f"on Linux x86-64 ({abi}, manylinux): {exc}") from None


class _DownloadError(Exception):
    """pip could not download what was asked; the message is pip's reason."""


def _pip_download(folder: Path, requirements: list[str], python: str | None, timeout: float = 1800) -> list[Path]:
    """Binary wheels of `requirements` (and what they require) into `folder`, by ``pip download``: for the
    running Python, or for CPython `python` on Linux x86-64. Returns the wheels written; _DownloadError with
    pip's reason, OSError if pip cannot be run."""
    before = set(folder.iterdir())
    command = [sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "--no-input", "--quiet",
               "--only-binary=:all:", "--dest", str(folder)]
    if python is not None:
        command += ["--implementation", "cp", "--python-version", python, "--abi", "cp" + python.replace(".", "")]
        for platform in LINUX_PLATFORMS:
            command += ["--platform", platform]
    command.extend(requirements)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        done = None
    if done is None or done.returncode != 0:
        for partial in set(folder.iterdir()) - before:  # what pip fetched before it failed
            partial.unlink()
        if done is None:
            raise _DownloadError(f"pip took longer than {timeout:g} s")
        lines = [line.strip() for line in (done.stderr + done.stdout).splitlines() if line.strip()]
        errors = [line for line in lines if line.startswith("ERROR:")] or lines or ["pip printed nothing"]
        if "No module named pip" in errors[-1]:
            raise _DownloadError(f"pip is not installed in {sys.executable}")
        raise _DownloadError(errors[0].removeprefix("ERROR: "))
    return sorted(p for p in set(folder.iterdir()) - before if p.suffix == ".whl")


def _requirements_for(python: str) -> list[str]:
    """pacman-ai's runtime requirements that hold on CPython `python` on Linux x86-64, markers left out.

    pip evaluates markers for the Python it runs on even when downloading for another
    (``--python-version`` sets the tags only), so they are evaluated here: tomli is
    needed before 3.11 whatever builds the package.
    """
    try:
        from packaging.requirements import InvalidRequirement, Requirement
    except ImportError:  # pip's own copy: pip is there, since it downloads the wheels
        from pip._vendor.packaging.requirements import InvalidRequirement, Requirement
    target = {"python_version": python, "python_full_version": f"{python}.0", "implementation_name": "cpython",
              "platform_python_implementation": "CPython", "sys_platform": "linux", "platform_system": "Linux",
              "platform_machine": "x86_64", "os_name": "posix", "extra": ""}
    wanted = []
    for text in _distribution(_DISTRIBUTION).requires or ():
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            raise PackageError(f"pacman-ai's requirement {text!r} cannot be read") from None
        if requirement.marker is None or requirement.marker.evaluate(target):
            wanted.append(f"{requirement.name}{requirement.specifier}")
    return wanted


def bundle_wheels(folder: str | os.PathLike[str], python: str | None = None) -> tuple[Path, list[Path], list[str]]:
    """Wheels of the running pacman-ai and of its runtime dependencies, written into `folder`.

    The dependencies are repacked from their installations here, or, with `python`
    (``"3.10"``), downloaded for that CPython version (`download_wheels`).
    Returns (our wheel, the dependency wheels, the names of requirements not installed
    here and so not bundled: e.g. tomli, needed only before Python 3.11).
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    ours = build_project_wheel(folder)
    if python is not None:
        return ours, download_wheels(folder, python), []
    wanted = _requirement_names(_distribution(_DISTRIBUTION))
    seen: set[str] = set()
    dependencies, missing = [], []
    while wanted:
        name = wanted.pop(0)
        key = _normalized(name)
        if key in seen:
            continue
        seen.add(key)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            missing.append(name)
            continue
        dependencies.append(_repack(dist, folder))
        wanted.extend(_requirement_names(dist))
    return ours, dependencies, missing


def bundle_build_requirements(folder: str | os.PathLike[str], root: str | os.PathLike[str],
                              python: str | None = None) -> tuple[list[Path], str | None]:
    """Wheels of what building pacman-ai needs (pyproject.toml's ``[build-system] requires``: setuptools), into
    `folder`, so that ``setup.sh`` builds the compiled core without the network.

    An installed distribution that satisfies a requirement is repacked; the others are
    downloaded by pip (for CPython `python` with it). Returns (the wheels, None), or
    (the wheels repacked, why not the others) when pip cannot download them: setup.sh
    then fetches them from the package index, and a package is still written.
    """
    try:
        from packaging.requirements import InvalidRequirement, Requirement
    except ImportError:  # pip's own copy
        from pip._vendor.packaging.requirements import InvalidRequirement, Requirement
    folder = Path(folder)
    wanted = _pyproject(Path(root)).get("build-system", {}).get("requires", [])
    repacked, download = [], []
    for text in wanted:
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            raise PackageError(f"{Path(root) / 'pyproject.toml'}: build requirement {text!r} cannot be read") from None
        try:
            dist = metadata.distribution(requirement.name)
        except metadata.PackageNotFoundError:
            dist = None
        if dist is not None and requirement.specifier.contains(dist.version, prereleases=True) and dist.files:
            repacked.append(_repack(dist, folder))
        else:
            download.append(text)
    if not download:
        return repacked, None
    try:
        return repacked + _pip_download(folder, download, python, timeout=600), None
    except (OSError, _DownloadError) as exc:
        return repacked, f"pip could not download {', '.join(download)}: {exc}"


# -- on the autograder: setup.sh's helpers -----------------------------------------------------


def engine_statement() -> str:
    """The line that says which engine runs the project's own searches in a grading here, and why.

    The compiled core runs the project's agents with a built-in evaluation (a games test
    with ``agent = "project"`` and ``evaluation = "score"`` or ``"better"``); the
    submission's own code, and the project's expectimax with the submission's
    evaluation, run in Python on either engine.

    >>> engine_statement().startswith(("engine: compiled core", "engine: Python ("))
    True
    """
    from pacman.agents.compiled import core_status

    usable, why = core_status()
    if usable:
        return ("engine: compiled core for the project's own agents with a built-in evaluation; "
                "the submission's code runs in Python")
    not_built = "compiled core not built: "
    if why.startswith(not_built):
        return f"engine: Python (the compiled core is not built here: {why[len(not_built):]})"
    return f"engine: Python (the compiled core is switched off: {why})"


def _say(message: str, problem: bool = False) -> None:
    """A line of setup.sh's output: what it does on stdout, why it falls back on stderr."""
    print(f"setup.sh: {message}", file=sys.stderr if problem else sys.stdout, flush=True)


def _core_obstacle() -> str | None:
    """Why the compiled core cannot be compiled for this Python, as setuptools would compile it; None if it can.

    Python's missing headers are installed with apt-get where that can work: as
    root, for a Python of the system (its headers under /usr/include).
    """
    value = os.environ.get(BUILD_CORE_VARIABLE, "1")
    if value.strip().lower() in ("0", "false", "no", "off"):  # as setup.py reads it
        return f"{BUILD_CORE_VARIABLE}={value}"
    compiler = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"  # setuptools: $CC, else Python's own
    command = (shlex.split(compiler) or ["cc"])[0]
    if shutil.which(command) is None:
        return f"no C compiler here ({command} is not on PATH)"
    include = Path(sysconfig.get_paths()["include"])
    if (include / "Python.h").is_file():
        return None
    package = f"python{sys.version_info.major}.{sys.version_info.minor}-dev"
    if not (os.geteuid() == 0 and shutil.which("apt-get") and include.is_relative_to("/usr/include")):
        return f"Python's headers are not here ({include / 'Python.h'}; {package} or the like has them)"
    _say(f"Python's headers are not here ({include / 'Python.h'}): installing {package} with apt-get")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", package]):
        try:
            subprocess.run(command, env=env, check=True, timeout=900, stdout=sys.stderr)
        except (OSError, subprocess.SubprocessError) as exc:
            return f"Python's headers are not here, and {' '.join(command)} failed ({exc})"
    if not (include / "Python.h").is_file():
        return f"Python's headers are not here, even after installing {package} ({include / 'Python.h'})"
    return None


def _build_lines(log: str, limit: int = 20) -> list[str]:
    """The lines of a build's output that say why it failed: the compiler's errors, setuptools' warning."""
    wanted = [line.strip() for line in log.splitlines()
              if re.search(r"\berror\b", line, re.IGNORECASE) or f'building extension "{CORE_MODULE}" failed' in line]
    return (wanted or [line.strip() for line in log.splitlines() if line.strip()])[-limit:]


def install_core(sdist: str | os.PathLike[str], wheel: str | os.PathLike[str]) -> bool:
    """setup.sh's second step: build pacman-ai from its `sdist` with the compiled core and install it into this
    Python's environment, over the pure `wheel` installed before; True if the core imports afterwards.

    Nothing is tried without a C compiler and Python's headers (`_core_obstacle`);
    the build's requirements come from the sdist's folder, without the network first,
    then from the package index. If the core does not compile, or does not import once
    installed, the pure wheel stays (or is put back) and the Python engine grades. Every
    step is said on stdout, every fallback on stderr with its reason.
    """
    sdist, wheel = Path(sdist), Path(wheel)
    obstacle = _core_obstacle()
    if obstacle is not None:
        _say(f"not building the compiled core: {obstacle}; pacman-ai stays installed from the pure wheel",
             problem=True)
        return False
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    started = time.perf_counter()
    _say(f"building pacman-ai from {sdist.name} with the compiled core ({CORE_MODULE})")
    with tempfile.TemporaryDirectory(prefix="pacman-ai-core-") as built:
        log = ""
        for offline in (True, False):
            done = subprocess.run([*pip, "wheel", "--verbose", "--no-deps", *(["--no-index"] if offline else []),
                                   "--find-links", str(sdist.parent), "--wheel-dir", built, str(sdist)],
                                  text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=1800)
            log += done.stdout
            if done.returncode == 0 and any(Path(built).glob("*.whl")):
                break
            if offline:
                _say("the build without the network failed (are its build requirements bundled?); trying again "
                     "with the package index", problem=True)
        else:
            _say("the build failed; pacman-ai stays installed from the pure wheel, without the compiled core. "
                 "pip's last lines:", problem=True)
            for line in _build_lines(log):
                print(f"    {line}", file=sys.stderr)
            return False
        found = sorted(Path(built).glob("*.whl"))
        module = CORE_MODULE.replace(".", "/")
        with zipfile.ZipFile(found[0]) as archive:
            has_core = any(name.startswith(module + ".") for name in archive.namelist())
        if not has_core:
            _say("the compiled core did not compile; pacman-ai stays installed from the pure wheel, without it. "
                 "The build said:", problem=True)
            for line in _build_lines(log):
                print(f"    {line}", file=sys.stderr)
            return False
        subprocess.run([*pip, "install", "--quiet", "--no-index", "--no-deps", "--force-reinstall", str(found[0])],
                       check=True, timeout=600)
    probe = subprocess.run([sys.executable, "-I", "-c", f"import {CORE_MODULE}"], capture_output=True, text=True,
                           timeout=120)
    if probe.returncode != 0:
        reason = (probe.stderr.strip().splitlines() or ["no error printed"])[-1]
        _say(f"the compiled core was built but does not import ({reason}); putting the pure wheel back",
             problem=True)
        subprocess.run([*pip, "install", "--quiet", "--no-index", "--no-deps", "--force-reinstall", str(wheel)],
                       check=True, timeout=600)
        return False
    _say(f"built and installed the compiled core in {time.perf_counter() - started:.1f} s")
    return True


def main(argv: list[str] | None = None) -> int:
    """setup.sh's helpers, run in the autograder's virtual environment (not a command for users):
    ``install-core SDIST WHEEL`` (`install_core`) and ``engine`` (prints `engine_statement`)."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["install-core"] and len(args) == 3:
        install_core(args[1], args[2])
        return 0
    if args == ["engine"]:
        _say(engine_statement())
        return 0
    print("usage: python -m pacman.grading.gradescope install-core SDIST WHEEL | engine", file=sys.stderr)
    return 2


# -- the package -------------------------------------------------------------------------------


def check_package_target(directory: str | os.PathLike[str]) -> Path:
    """The package folder, if it can be written: absent, empty or a previous package; else PackageError."""
    target = Path(directory)
    shown = os.fspath(directory)
    if not shown.strip():
        raise PackageError("--gradescope-package: expected a folder name, got an empty string")
    try:
        info = target.lstat()
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise PackageError(f"--gradescope-package {shown}: cannot use it: {exc.strerror or exc}") from None
    if info is not None:
        if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
            kind = _kind(info.st_mode)
            raise PackageError(f"--gradescope-package {shown}: is {kind}; give a new or empty folder")
        try:
            entries = os.listdir(target)
        except OSError as exc:
            raise PackageError(f"--gradescope-package {shown}: cannot list it: {exc.strerror or exc}") from None
        if entries and not _is_previous_package(target):
            raise PackageError(f"--gradescope-package {shown}: folder is not empty and not a previous package; "
                               f"give a new or empty folder")
    # The package is written beside the target and renamed into place: that folder must be made.
    problem = output_problem(_beside(target, "tmp"), folder=True)
    if problem is not None:
        raise PackageError(f"--gradescope-package {shown}: {problem}")
    return target


def _beside(target: Path, kind: str) -> Path:
    """A hidden working folder next to `target` ("tmp": the package being written, "old": the one replaced)."""
    return target.absolute().parent / f".{target.name}.{os.getpid()}.{kind}"


def _kind(mode: int) -> str:
    """What a file that is not a folder is, in words (a link is not followed)."""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "a file" if stat.S_ISREG(mode) else file_kind(mode)


def _is_previous_package(folder: Path) -> bool:
    for name in ("setup.sh", "run_autograder"):
        script = folder / name
        try:
            if not script.is_file() or script.is_symlink() or MARKER not in script.read_text(encoding="utf-8",
                                                                                              errors="replace"):
                return False
        except OSError:
            return False
    return True


#: Bytes of an assignment folder the package may copy.
MAX_ASSIGNMENT_BYTES = 256 << 20


def _copy_assignment(source: Path, target: Path, total: int = 0) -> int:
    """Copy the assignment's folder: regular files and folders only (a link or a FIFO is refused, not followed).

    `total` is the bytes already copied into the package (the cap is on the sum); returns the new sum.
    """
    target.mkdir()
    for folder, names, files in os.walk(source):
        names[:] = sorted(n for n in names if n != "__pycache__")
        relative = Path(folder).relative_to(source)
        for name in names:
            path = Path(folder) / name
            if path.is_symlink():
                raise PackageError(f"{path}: is a symbolic link; the assignment folder copied into the package "
                                   f"may hold only files and folders")
            (target / relative / name).mkdir()
        for name in sorted(files):
            path = Path(folder) / name
            info = path.lstat()
            if not stat.S_ISREG(info.st_mode):
                raise PackageError(f"{path}: is {_kind(info.st_mode)}; the assignment folder copied into the "
                                   f"package may hold only files and folders")
            if name.endswith(".pyc"):
                continue
            total += info.st_size
            if total > MAX_ASSIGNMENT_BYTES:
                raise PackageError(f"{source}: more than {MAX_ASSIGNMENT_BYTES >> 20} MB to copy into the package; "
                                   f"keep only the assignment's files in its folder")
            shutil.copyfile(path, target / relative / name, follow_symlinks=False)
    return total


def classic_layouts(test_folder: str | os.PathLike[str]) -> Path | None:
    """The ``layouts/`` folder beside a classic test folder, where its EvalAgentTests look for mazes; None if none.

    A link there is refused (PackageError), as anywhere in what the package copies.
    """
    layouts = Path(test_folder).absolute().parent / "layouts"
    if layouts.is_symlink():
        raise PackageError(f"{layouts}: is a symbolic link; the folders copied into the package may hold only "
                           f"files and folders")
    if not layouts.is_dir() or layouts.resolve() == Path(test_folder).resolve():
        return None
    return layouts


#: The course's own engine files beside a classic test folder, read for its quirks (order of actions, rules):
#: copied into the package so that Gradescope grades on the same engine.
CLASSIC_ENGINE_FILES = ("game.py", "pacman.py")


def classic_engine_files(test_folder: str | os.PathLike[str]) -> list[Path]:
    """The course's ``game.py`` and ``pacman.py`` beside a classic test folder (those that are there).

    A link or anything but a regular file under those names is refused (PackageError).
    """
    found = []
    for name in CLASSIC_ENGINE_FILES:
        path = Path(test_folder).absolute().parent / name
        if path.is_symlink() or (path.exists() and not path.is_file()):
            raise PackageError(f"{path}: is not a regular file; the package copies the course's engine files as "
                               f"files only")
        if path.is_file():
            found.append(path)
    return found


def write_gradescope_package(directory: str | os.PathLike[str], assignment: str, submission_file: str,
                             requirement: str | None = None, assignment_files: Path | None = None,
                             classic: bool = False, python: str | None = None) -> list[Path]:
    """Write Gradescope's autograder files into `directory`; returns the paths written (inside it).

    `assignment` is the shipped id, or (with `assignment_files`, a directory) the
    assignment is copied into the package and graded from /autograder/source.
    With `classic`, `assignment_files` is a classic test folder: it is copied to
    ``course/NAME`` with the ``layouts/`` folder beside it, if any, to ``course/layouts``.
    `requirement` None bundles wheels (see the module docstring): repacked from this
    installation, or with `python` (``"3.10"``) downloaded for that CPython version;
    a string is what ``setup.sh`` pip-installs instead. `directory` must be absent, empty or a
    package written before (PackageError otherwise); it is replaced as a whole.
    """
    target = check_package_target(directory)
    if classic and assignment_files is None:
        raise PackageError("a classic package needs the test folder to copy")
    if assignment_files is not None:
        inside = Path(os.path.realpath(target.absolute().parent))
        sources = [assignment_files]
        if classic:
            sources += [p for p in [classic_layouts(assignment_files)] if p is not None]
        for copied in sources:
            source = Path(os.path.realpath(copied))
            if inside == source or source in inside.parents:
                raise PackageError(f"--gradescope-package {os.fspath(directory)}: is inside the "
                                   f"{'assignment' if copied == assignment_files else 'layouts'} folder {copied}, "
                                   f"which the package copies; write it elsewhere")
    staging, old = _beside(target, "tmp"), _beside(target, "old")
    for leftover in (staging, old):
        if leftover.exists():
            shutil.rmtree(leftover)
    try:
        staging.mkdir()
        names = _write_contents(staging, assignment, submission_file, requirement, assignment_files, classic,
                                python)
        if target.exists():
            target.rename(old)
        staging.rename(target)
    except OSError as exc:
        raise PackageError(f"--gradescope-package {os.fspath(directory)}: cannot write the package: "
                           f"{exc.strerror or exc}") from None
    finally:
        for leftover in (staging, old):
            with contextlib.suppress(OSError):
                shutil.rmtree(leftover)
    return [target / name for name in names]


@dataclass(frozen=True)
class _CoreSource:
    """What a package carries to build the compiled core on the autograder, and what setup.sh and README say."""

    sdist: Path | None
    """The sdist of pacman-ai; None when the running pacman-ai has no source tree (a wheel install)."""
    script: str
    """setup.sh's lines that build the core, or say why they cannot."""
    readme: list[str]
    """README.txt's lines about it."""


def _bundle_core_source(folder: Path, python: str | None) -> _CoreSource:
    """The sdist of the running pacman-ai and its build requirements in `folder`, when it runs from a source tree."""
    root = source_tree()
    if root is None:
        why = "it was built from a wheel install of pacman-ai, which has no C files or setup.py"
        readme = (f"No compiled core: {why}; Gradescope grades on the Python engine. To build the core there, "
                  f"write the package from a source checkout of pacman-ai (pip install -e .).")
        return _CoreSource(None, _NO_CORE_SOURCE.replace("@WHY@", why), [readme])
    folder.mkdir()
    sdist = build_project_sdist(folder, root)
    requirements, missing = bundle_build_requirements(folder, root, python)
    readme = [f"{BUILD}/          what setup.sh builds the compiled core from (with the image's C compiler; without",
              f"                one the Python engine grades): {sdist.name} (this project's source)"
              + (" and" if requirements else "")]
    readme.extend(f"                {p.name} (its build requirement)" for p in requirements)
    if missing is not None:
        readme.append(f"Not bundled: build requirements ({missing}); setup.sh fetches them from the package index.")
    return _CoreSource(sdist, _INSTALL_CORE.replace("@BUILD@", BUILD).replace("@SDIST@", sdist.name), readme)


def _write_contents(folder: Path, assignment: str, submission_file: str, requirement: str | None,
                    assignment_files: Path | None, classic: bool = False, python: str | None = None) -> list[str]:
    written = []
    target = assignment
    if classic and assignment_files is not None:
        name = Path(assignment_files).resolve().name
        (folder / COURSE).mkdir()
        total = _copy_assignment(assignment_files, folder / COURSE / name)
        layouts = classic_layouts(assignment_files)
        if layouts is not None:
            total = _copy_assignment(layouts, folder / COURSE / "layouts", total)
        for engine in classic_engine_files(assignment_files):
            shutil.copyfile(engine, folder / COURSE / engine.name, follow_symlinks=False)
        written.append(COURSE)
        target = f"source/{COURSE}/{name}"
    elif assignment_files is not None:
        _copy_assignment(assignment_files, folder / "assignment")
        written.append("assignment")
        target = "source/assignment"
    contents = []
    if requirement is None:
        ours, dependencies, missing = bundle_wheels(folder / WHEELS, python)
        tags = sorted({"-".join(p.name[:-4].split("-")[2:4]) for p in dependencies if not p.name.endswith("-any.whl")})
        tags = tags or ["any Python"]
        core = _bundle_core_source(folder / BUILD, python)
        install = (_INSTALL_BUNDLED.replace("@CORE@", core.script).replace("@WHEELS@", WHEELS)
                   .replace("@WHEEL@", ours.name).replace("@DEPENDENCY_TAGS@", ", ".join(tags)))
        written.append(WHEELS)
        contents.append(f"{WHEELS}/          wheels setup.sh installs from: {ours.name} (this project, pure Python) "
                        f"and")
        contents.extend(f"                {p.name}" for p in dependencies)
        if core.sdist is not None:
            written.append(BUILD)
        contents.extend(core.readme)
        if missing:
            contents.append(f"Not bundled (not installed where the package was built; fetched from the "
                            f"package index if the autograder's Python needs them): {', '.join(missing)}")
        if python is not None:
            contents.append(f"The dependency wheels were downloaded for CPython {python} on Linux x86-64 "
                            f"(pacman-ai grade --gradescope-package --python {python}): setup.sh installs them "
                            f"offline when the autograder image's python3 is {python}.")
        else:
            contents.append(f"The dependency wheels fit {', '.join(tags)} (Python version and ABI) on the platform "
                            f"in their names only: to install offline, build the package with the Python version of "
                            f"the autograder image's python3, or give --python VERSION (else setup.sh fetches them "
                            f"from the package index).")
    else:
        install = _INSTALL_REQUIREMENT.replace("@REQUIREMENT@", shlex.quote(requirement))
        contents.append(f"setup.sh pip-installs {requirement} (from the package index, unless it is a path or URL).")
    if classic and assignment_files is not None:
        contents.append(f"{COURSE}/         the classic test folder, graded from /autograder/{target} "
                        f"(with {COURSE}/layouts/ if the folder had layouts/ beside it, and the course's own "
                        f"game.py and pacman.py, read for its engine's quirks, if it had them)")
    elif assignment_files is not None:
        contents.append("assignment/     the assignment, graded from /autograder/source/assignment")
    setup = folder / "setup.sh"
    setup.write_text(_SETUP.replace("@MARKER@", MARKER).replace("@INSTALL@", install), encoding="utf-8")
    run = folder / "run_autograder"
    run.write_text(_RUN.replace("@MARKER@", MARKER).replace("@ASSIGNMENT@", shlex.quote(target))
                   .replace("@SUBMISSION@", submission_file), encoding="utf-8")
    for path in (setup, run):
        path.chmod(0o755)
    readme = folder / "README.txt"
    kind = "classic test folder" if classic else "assignment"
    readme.write_text(_README.format(kind=kind, assignment=assignment, marker=MARKER, submission=submission_file,
                                     contents="\n".join(contents)), encoding="utf-8")
    return written + ["setup.sh", "run_autograder", "README.txt"]


if __name__ == "__main__":
    sys.exit(main())
