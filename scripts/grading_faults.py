"""The grader's fault figures of docs/long-runs.md, measured as a user meets them: `pacman-ai grade` of a hostile
submission in a fresh folder with a fresh TMPDIR, three runs each, medians.

    python scripts/grading_faults.py flood   # 8 MB files from two processes, into its folder and outside it
    python scripts/grading_faults.py busy    # the correct file, then the same with 16 threads spinning
    python scripts/grading_faults.py cost    # the correct file's tree tests, with and without the namespace

`flood` runs each case with the submission's namespace (the default where the machine allows one) and, where
`unshare -Ur` works, without one (user namespaces switched off inside, so the grader falls back to polling).
It prints, per run, what the report's disk line says was written, how much was left outside the folder and
what was left in TMPDIR, then the medians. `busy` prints each grading's wall time and first limit line;
`cost` the wall time of grading the tree tests with the namespace and without one.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORRECT = (ROOT / "tests" / "submissions" / "correct.py").read_text()
RUNS = 3

FLOOD = """
import os as _os
def _flood(where):
    _os.fork()
    for _i in range(40):
        try:
            with open(_os.path.join(where, f"{_os.getpid()}-{_i}"), "wb") as _out:
                for _ in range(8):
                    _out.write(b"x" * (1 << 20))
        except OSError:
            pass
_flood(%r)
"""

BUSY = """
import threading
def _spin():
    while True:
        pass
for _ in range(16):
    threading.Thread(target=_spin, daemon=True).start()
"""

#: Run the grader where no user namespace can be made (the fallback the report calls LIMITS NOT EXACT).
NO_NAMESPACE = ["unshare", "-Ur", "sh", "-c", 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"', "sh"]


def grade(source: str, wrap: list[str], extra: list[str]) -> tuple[int, float, dict, int, int]:
    """One grading in a fresh folder: (exit status, seconds, the --json report, bytes outside, files left in TMPDIR)."""
    top = Path(tempfile.mkdtemp(prefix="pacman-grading-faults-"))
    try:
        (top / "tmp").mkdir()
        (top / "outside").mkdir()
        submission = top / "multi_agents.py"
        submission.write_text(source.replace("OUTSIDE", str(top / "outside")))
        env = dict(os.environ, TMPDIR=str(top / "tmp"), SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
        started = time.perf_counter()
        done = subprocess.run([*wrap, sys.executable, "-m", "pacman", "grade", "expectimax", str(submission),
                               "--json", str(top / "report.json"), *extra],
                              cwd=top, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - started
        report = json.loads((top / "report.json").read_text()) if (top / "report.json").exists() else {}
        outside = sum(f.stat().st_size for f in (top / "outside").iterdir())
        left = sum(1 for _ in (top / "tmp").rglob("*"))
        return done.returncode, seconds, report, outside, left
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _line(report: dict, word: str) -> str:
    return next((line for line in report.get("limits", []) if word in line), "")


def _modes() -> list[tuple[str, list[str]]]:
    """With the namespace and, where `unshare -Ur` works, without one."""
    if subprocess.run(["unshare", "-Ur", "true"], capture_output=True).returncode == 0:
        return [("namespace", []), ("no namespace", NO_NAMESPACE)]
    print("unshare -Ur does not work here: the no-namespace runs are left out", file=sys.stderr)
    return [("namespace", [])]


def flood() -> None:
    for mode, wrap in _modes():
        for target, where in (("its folder", "."), ("outside", "OUTSIDE")):
            written, outside, left = [], [], []
            for _ in range(RUNS):
                code, seconds, report, out, tmp = grade(FLOOD % where + CORRECT, wrap, ["--question", "trees"])
                line = _line(report, "disk:")
                match = re.search(r"(?:wrote|filled the) ([0-9.]+) MB", line)
                if match:
                    written.append(float(match.group(1)))
                outside.append(out / 2**20)
                left.append(tmp)
                print(f"{mode}, {target}: exit {code}, {seconds:.1f} s, outside {out / 2**20:.1f} MB, "
                      f"{tmp} files left in TMPDIR; {line[:160]}", flush=True)
            median = f"{statistics.median(written):.1f} MB" if written else "no disk line"
            print(f"median, {mode}, {target}: written {median}, outside {statistics.median(outside):.1f} MB, "
                  f"at most {max(left)} files left in TMPDIR", flush=True)


def busy() -> None:
    for label, source in (("correct", CORRECT), ("16 busy threads", BUSY + CORRECT)):
        times = []
        for _ in range(RUNS):
            code, seconds, report, _, _ = grade(source, [], [])
            times.append(seconds)
            print(f"{label}: exit {code}, {seconds:.1f} s, score {report.get('score')}; "
                  f"{(report.get('limits') or ['no limit hit'])[0][:120]}", flush=True)
        print(f"median, {label}: {statistics.median(times):.1f} s", flush=True)


def cost() -> None:
    for mode, wrap in _modes():
        times = []
        for _ in range(RUNS):
            code, seconds, report, _, _ = grade(CORRECT, wrap, ["--question", "trees"])
            if code != 0 or report.get("score") != report.get("max_score"):
                raise SystemExit(f"{mode}: the correct file did not get full marks (exit {code})")
            times.append(seconds)
        print(f"{mode}: {', '.join(f'{t:.2f}' for t in times)} s, median {statistics.median(times):.2f} s", flush=True)


MODES = {"flood": flood, "busy": busy, "cost": cost}


def main() -> int:
    if len(sys.argv) != 2 or sys.argv[1] not in MODES:
        print(f"usage: python scripts/grading_faults.py {'|'.join(MODES)}", file=sys.stderr)
        return 2
    MODES[sys.argv[1]]()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
