"""The documented environment commands, run as a user runs them: scripts in a fresh folder, `pacman-ai bench`."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pacman.agents.compiled import core_status

pytest.importorskip("gymnasium")

ROOT = Path(__file__).resolve().parent.parent
HEADLESS = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}


def _run(tmp_path, *command):
    return subprocess.run([sys.executable, *command], cwd=tmp_path, capture_output=True, text=True, check=True,
                          env=HEADLESS, timeout=300).stdout


def test_the_q_learning_example_learns_to_win(tmp_path):
    script = shutil.copy(ROOT / "examples" / "envs" / "q_learning.py", tmp_path)
    out = _run(tmp_path, script)
    wins = int(re.search(r"greedy policy on 100 new seeds: (\d+) wins", out).group(1))
    assert wins >= 90


def test_the_comparison_script_ranks_the_agents(tmp_path):
    script = shutil.copy(ROOT / "examples" / "envs" / "compare_policies.py", tmp_path)
    out = _run(tmp_path, script, "--episodes", "3", "--layout", "small", "--depth", "1")
    rows = {line.split()[0]: line.split() for line in out.splitlines()[2:]}
    assert set(rows) == {"random", "greedy", "expectimax"}
    assert float(rows["greedy"][1]) > float(rows["random"][1])
    assert rows["random"][2] == "0/3"


def test_the_docs_example_runs_as_written(tmp_path):
    text = (ROOT / "docs" / "environments.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks
    # The Stable-Baselines3 examples need the extra pacman-ai[rl]; tests/test_envs_sb3.py says when it is missing.
    has_sb3 = importlib.util.find_spec("stable_baselines3") is not None and importlib.util.find_spec("sb3_contrib")
    sb3_blocks = [block for block in blocks if "stable_baselines3" in block or "sb3_contrib" in block]
    assert len(sb3_blocks) == 2
    for number, block in enumerate(blocks):
        if block in sb3_blocks and not has_sb3:
            continue
        script = tmp_path / f"block{number}.py"
        script.write_text(block, encoding="utf-8")
        if "make_vec_env" in block and not core_status()[0]:
            # Without the compiled core (PACMAN_AI_ENGINE=python, or not built) SB3's vector env is refused by name.
            done = subprocess.run([sys.executable, script], cwd=tmp_path, capture_output=True, text=True,
                                  env=HEADLESS, timeout=300)
            assert done.returncode != 0 and "make_vec_env needs the compiled core" in done.stderr, done.stderr
            continue
        _run(tmp_path, script)


def test_bench_part_env_reports_steps_per_second(tmp_path):
    out = subprocess.run([sys.executable, "-m", "pacman", "bench", "--part", "env", "--runs", "1", "--num-envs", "16",
                          "--layout", "small", "--json", "--no-jumanji"], capture_output=True, text=True, check=True,
                         env=HEADLESS, timeout=300).stdout
    env = json.loads(out)["env"]
    assert env["layout"] == "small" and env["num_envs"] == 16
    assert env["single_make"] > 0 and env["single_unwrapped"] > 0
    assert env["single_engine"] in ("compiled", "python")
    if env["single_engine"] == "compiled":  # then the Python engine is measured too
        assert env["single_make_python"] > 0 and env["single_unwrapped_python"] > 0
    else:
        assert "single_make_python" not in env
    assert ("vector" in env and env["vector"] > 0) or "vector_unavailable" in env
    assert env["jumanji_unavailable"] == "skipped (--no-jumanji)" and "jumanji" not in env
    assert env["one_core"] == hasattr(os, "sched_setaffinity")


@pytest.mark.slow  # 8 s of timing windows for one line of text; CI runs it with -m slow
def test_bench_part_env_says_why_jumanji_is_not_compared_without_jax(tmp_path):
    script = tmp_path / "bench.py"
    script.write_text("import runpy, sys\n"
                      "sys.modules['jax'] = None  # as if JAX were not installed\n"
                      "sys.argv = ['pacman-ai', 'bench', '--part', 'env', '--runs', '1', '--num-envs', '8', "
                      "'--layout', 'small']\n"
                      "runpy.run_module('pacman', run_name='__main__')\n", encoding="utf-8")
    out = _run(tmp_path, str(script))
    assert re.search(r"Jumanji's PacMan: not measured \(jax is not installed \(.*\); pip install jax jumanji to "
                     r"compare\)", out), out


@pytest.mark.slow
def test_bench_part_env_compares_with_jumanji_in_the_same_run(tmp_path):
    pytest.importorskip("jax")
    pytest.importorskip("jumanji")
    out = subprocess.run([sys.executable, "-m", "pacman", "bench", "--part", "env", "--runs", "1", "--num-envs", "32",
                          "--layout", "small", "--json"], capture_output=True, text=True, check=True,
                         env=HEADLESS, timeout=900).stdout
    env = json.loads(out)["env"]
    jumanji = env["jumanji"]
    assert jumanji["env"] == "PacMan-v1" and jumanji["num_envs"] == 32 and jumanji["device"].startswith("cpu")
    assert jumanji["step"] > 0 and jumanji["scan"] > 0
    if "vector" in env:
        assert env["ratio_vector_to_jumanji"] == round(env["vector"] / max(jumanji["step"], jumanji["scan"]), 2)


def test_the_readme_example_runs_as_written(tmp_path):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Learning environments"):]
    block = re.search(r"```python\n(.*?)```", section, flags=re.S).group(1)
    script = tmp_path / "readme.py"
    script.write_text(block + "\nprint(vec.num_envs, info['state'].score)\n",
                      encoding="utf-8")
    out = _run(tmp_path, script).split()
    assert out[0] == "1024" and int(out[1]) in (-1, 9)
