"""`pacman-ai tree` prints a value rounded to what the input can mean (12 significant digits: the
floating-point noise of 0.1 * 1 + 0.9 * 2 = 1.9000000000000001 goes), while --json keeps the exact float."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


@pytest.mark.parametrize("tree, shown, exact", [
    ({"chance": [1, 2], "p": [0.1, 0.9]}, "1.9", 1.9000000000000001),
    ({"max": [{"chance": [0.1, 0.2]}, 0.1]}, "0.15", 0.15000000000000002),
    ({"min": [1 / 3, 5]}, "0.333333333333", 1 / 3),
    ({"max": [123456789.125, 1]}, "123456789.125", 123456789.125),
    ({"max": [-7, -2.5]}, "-2.5", -2.5),
])
def test_values_are_printed_rounded_and_kept_exact_in_json(tmp_path, tree, shown, exact):
    path = tmp_path / "tree.json"
    path.write_text(json.dumps(tree))

    def run(*flags):
        done = subprocess.run([sys.executable, "-m", "pacman", "tree", str(path), *flags], cwd=tmp_path,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert run().splitlines()[0] == f"value: {shown}"
    assert json.loads(run("--json"))["value"] == exact
