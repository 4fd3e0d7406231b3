"""The optional extras: the learning stack's torch stays out of the core and the test extra."""

from __future__ import annotations

from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def _project():
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _names(requirements):
    return {requirement.split(">")[0].split("=")[0].split("[")[0].split(";")[0].strip().lower()
            for requirement in requirements}


def test_the_rl_extra_brings_sb3_sb3_contrib_and_supersuit():
    rl = _names(_project()["optional-dependencies"]["rl"])
    assert {"stable-baselines3", "sb3-contrib", "supersuit", "gymnasium", "pettingzoo"} <= rl


def test_torch_is_in_no_dependency_but_what_the_rl_extra_pulls():
    project = _project()
    assert "torch" not in _names(project["dependencies"])
    for extra, requirements in project["optional-dependencies"].items():
        names = _names(requirements)
        assert "torch" not in names, extra
        if extra != "rl":
            assert not names & {"stable-baselines3", "sb3-contrib", "supersuit"}, extra
