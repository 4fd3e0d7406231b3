"""How the compiled core is built: one optional extension from the C files of agents/core/, in sdists and wheels.

The sources follow the Python seams (docs/architecture.md); these tests pin that
the build lists every file there, that an sdist carries them (and the private
header) and builds the core from them, and that ``PACMAN_AI_BUILD_CORE=0``
still gives a wheel without it.
"""

import os
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "agents" / "core"
#: "No file over about 1,000 lines": the core's files stay small enough to read.
MAX_LINES = 1000


def _setup_sources() -> list[str]:
    text = (ROOT / "setup.py").read_text(encoding="utf-8")
    names = re.search(r"for name in \(([^)]*)\)", text).group(1)
    return [f"agents/core/{name}.c" for name in re.findall(r'"(\w+)"', names)]


def test_setup_builds_every_c_file_of_the_core_and_nothing_else():
    on_disk = sorted(str(p.relative_to(ROOT)) for p in CORE.glob("*.c"))
    assert sorted(_setup_sources()) == on_disk
    assert not (ROOT / "agents" / "_core.c").exists()


def test_no_file_of_the_core_is_over_a_thousand_lines():
    lengths = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in CORE.iterdir() if p.suffix in (".c", ".h")}
    assert len(lengths) >= 10
    assert {name: n for name, n in lengths.items() if n > MAX_LINES} == {}


def test_every_c_file_includes_only_the_private_header():
    for path in CORE.glob("*.c"):
        includes = re.findall(r'^#include\s+(\S+)', path.read_text(encoding="utf-8"), flags=re.M)
        assert includes == ['"core.h"'], path.name


def _sdist(tmp_path: Path) -> Path:
    """An sdist of the checkout, made the way a release is (`python -m build --sdist`, PyPA's `build`)."""
    pytest.importorskip("build", reason="PyPA's build makes the sdist (CI installs it)")
    out = subprocess.run([sys.executable, "-m", "build", "--sdist", "-o", str(tmp_path / "dist"), str(ROOT)],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    (archive,) = (tmp_path / "dist").glob("*.tar.gz")
    return archive


def _wheel(archive: Path, wheels: Path, **env: str) -> list[str]:
    """The names in the wheel pip builds from `archive` (in an isolated build environment, as users get)."""
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(archive)],
                         capture_output=True, text=True, timeout=900, env=dict(os.environ, **env))
    assert out.returncode == 0, out.stderr[-3000:]
    (wheel,) = wheels.glob("*.whl")
    with zipfile.ZipFile(wheel) as zf:
        return zf.namelist()


@pytest.mark.slow
def test_an_sdist_carries_the_core_sources_and_builds_the_core_from_them(tmp_path):
    archive = _sdist(tmp_path)
    with tarfile.open(archive) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    assert set(_setup_sources()) | {"agents/core/core.h"} <= names
    names = _wheel(archive, tmp_path / "wheels")
    assert [n for n in names if re.match(r"pacman/agents/_core\..*(so|pyd)$", n)], names


@pytest.mark.slow
def test_build_core_0_gives_a_wheel_without_the_core(tmp_path):
    archive = _sdist(tmp_path)
    names = _wheel(archive, tmp_path / "wheels", PACMAN_AI_BUILD_CORE="0")
    assert "pacman/agents/compiled.py" in names
    assert not [n for n in names if "_core." in n and n.endswith((".so", ".pyd"))]
