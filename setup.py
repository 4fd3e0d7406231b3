"""Build the optional compiled search core, `pacman.agents._core` (agents/core/*.c), and find the packages;
everything else is in pyproject.toml.

The extension is optional: where it cannot be compiled (no C compiler, no Python
headers) setuptools prints a warning, skips it, and the install succeeds; every
agent then runs on the Python engine. ``PACMAN_AI_BUILD_CORE=0`` skips it on
purpose. See docs/engine.md.
"""

import os
import platform

from setuptools import Extension, find_namespace_packages, setup
from setuptools.command.build_ext import build_ext

BUILD_VARIABLE = "PACMAN_AI_BUILD_CORE"

# One C file per Python seam, one private header (agents/core/core.h has the map); one extension.
CORE_SOURCES = [
    f"agents/core/{name}.c"
    for name in ("state", "ghosts", "evaluation", "table", "search", "far", "searcher", "random", "games", "module")
]
CORE_HEADER = "agents/core/core.h"


class BuildCore(build_ext):
    """build_ext with the floating-point flags the core needs to give the Python engine's exact values."""

    def build_extensions(self):
        if self.compiler.compiler_type == "msvc":
            # /fp:precise is MSVC's default and does not contract a * b + c; say so explicitly.
            flags = ["/O2", "/fp:precise"]
        else:
            # No fused multiply-add (a * b + c rounds twice in Python), no fast-math reordering.
            flags = ["-O3", "-ffp-contract=off", "-fno-fast-math"]
            if platform.machine().lower() in ("i386", "i486", "i586", "i686", "x86"):
                # 32-bit x86: SSE2 doubles, not the x87's 80-bit registers, which round differently.
                flags += ["-msse2", "-mfpmath=sse"]
        for extension in self.extensions:
            extension.extra_compile_args = flags + list(extension.extra_compile_args or [])
        super().build_extensions()

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception:
            # setuptools warns and goes on (the extension is optional); a binary left in build/ by an
            # earlier build must not slip into this wheel as if it had been built now.
            stale = self.get_ext_fullpath(ext.name)
            if os.path.exists(stale):
                os.remove(stale)
            raise


def core_extensions():
    """The core, unless PACMAN_AI_BUILD_CORE says 0 (or false, no, off)."""
    if os.environ.get(BUILD_VARIABLE, "1").strip().lower() in ("0", "false", "no", "off"):
        print(f"{BUILD_VARIABLE}={os.environ[BUILD_VARIABLE]}: not building the compiled core (pacman.agents._core)")
        return []
    return [Extension("pacman.agents._core", CORE_SOURCES, depends=[CORE_HEADER], optional=True)]


#: Top-level folders that install inside the pacman package (one import namespace: a top-level `agents`
#: would collide with other distributions).
MAPPED = {"pacman.agents": "agents", "pacman.layouts": "layouts", "pacman.assets": "assets"}


def packages():
    """Every package and data folder under pacman/, found by setuptools, and the `MAPPED` folders."""
    found = find_namespace_packages(include=["pacman", "pacman.*"], exclude=["*.__pycache__"])
    return sorted(set(found) | set(MAPPED))


setup(ext_modules=core_extensions(), cmdclass={"build_ext": BuildCore}, packages=packages(), package_dir=MAPPED,
      exclude_package_data={"pacman.agents": ["core/*.c"]})  # compiled into _core; the sdist keeps them
