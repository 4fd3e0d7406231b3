"""Reports of a grading run: the terminal text, ``--json``, Gradescope's results.json, and its autograder files.

Result files are written atomically (a temporary file, then a rename), so a
reader never sees half a file, and they are written only by the grading process,
after every submission process has ended.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any

from pacman.files import write_json
from pacman.grading.grader import GradeReport

__all__ = ["format_report", "gradescope_results", "write_json", "write_gradescope_package"]


def _points(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def format_report(report: GradeReport, verbose: bool = False) -> str:
    """The readable report: per question, each test's verdict, points and why; the total."""
    lines = [f"Grading {report.submission} on assignment {report.assignment!r}", ""]
    for question in report.questions:
        lines.append(f"Question {question.id}: {question.title}  "
                     f"{_points(question.score)}/{_points(question.max_score)}"
                     + ("  (all tests must pass)" if question.scoring == "all" else ""))
        for test in question.tests:
            verdict = "PASS" if test.passed else "FAIL"
            lines.append(f"  {verdict} {test.name} ({test.kind})  {_points(test.score)}/{_points(test.max_score)}")
            shown = test.messages if (verbose or not test.passed) else test.messages[:0]
            for message in shown:
                lines.append(f"       {message}")
        lines.append("")
    lines.append(f"Total: {_points(report.score)}/{_points(report.max_score)}  "
                 f"(graded in {report.seconds:.1f} s)")
    if verbose and report.output:
        lines.append("")
        lines.append("What the submission printed (never part of the grade):")
        lines.extend(report.output)
    return "\n".join(lines)


def gradescope_results(report: GradeReport) -> dict[str, Any]:
    """Gradescope's results.json: one entry per question, its output the tests' verdicts and reasons."""
    tests = []
    for number, question in enumerate(report.questions, start=1):
        output = []
        for test in question.tests:
            output.append(f"{'PASS' if test.passed else 'FAIL'} {test.name} ({test.kind}): "
                          f"{_points(test.score)}/{_points(test.max_score)}")
            output.extend(f"    {m}" for m in test.messages)
        tests.append({
            "name": f"{question.id}: {question.title}",
            "number": str(number),
            "score": question.score,
            "max_score": question.max_score,
            "status": "passed" if question.score >= question.max_score else "failed",
            "output": "\n".join(output),
            "visibility": question.visibility,
        })
    return {
        "score": report.score,
        "execution_time": round(report.seconds, 3),
        "output": f"Total: {_points(report.score)}/{_points(report.max_score)}",
        "stdout_visibility": "hidden",
        "tests": tests,
    }


_SETUP = """#!/usr/bin/env bash
# Gradescope autograder setup: installs Python and pacman-ai. Written by `pacman-ai grade --gradescope-package`.
set -euo pipefail
apt-get update
apt-get install -y python3 python3-pip python3-venv
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install --upgrade pip
/autograder/venv/bin/pip install @REQUIREMENT@
# Submissions run as the user nobody, who must be able to read Python and the installed project.
chmod -R a+rX /autograder/venv
"""

_RUN = """#!/usr/bin/env bash
# Gradescope autograder run: grades the submission and writes results.json.
# Written by `pacman-ai grade --gradescope-package`.
set -uo pipefail
mkdir -p /autograder/results
submission=/autograder/submission/@SUBMISSION@
if [ ! -f "$submission" ]; then
  # A single .py file under another name is accepted too.
  found=$(find /autograder/submission -maxdepth 2 -name '*.py' | head -n 1)
  submission=${found:-$submission}
fi
cd /tmp
/autograder/venv/bin/pacman-ai grade @ASSIGNMENT@ "$submission" --sandbox-user nobody \\
    --gradescope /autograder/results/results.json
status=$?
if [ ! -s /autograder/results/results.json ]; then
  # The grader could not run at all: still give Gradescope a whole results file that says so.
  /autograder/venv/bin/python - "$status" <<'END'
import json, sys
message = f"The autograder could not run (exit status {sys.argv[1]}); please tell your instructor."
with open("/autograder/results/results.json", "w") as handle:
    json.dump({"score": 0, "output": message, "tests": [], "stdout_visibility": "visible"}, handle)
END
fi
"""


def write_gradescope_package(directory: str | os.PathLike[str], assignment: str, submission_file: str,
                             requirement: str = "pacman-ai", assignment_files: Path | None = None) -> list[Path]:
    """Write Gradescope's ``setup.sh`` and ``run_autograder`` into `directory`; returns the paths written.

    `assignment` is the shipped id, or (with `assignment_files`, a directory) the
    assignment is copied into the package and graded from /autograder/source.
    """
    import shutil

    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    target = assignment
    if assignment_files is not None:
        copy = folder / "assignment"
        if copy.exists():
            shutil.rmtree(copy)
        shutil.copytree(assignment_files, copy)
        written.append(copy)
        target = "/autograder/source/assignment"
    setup = folder / "setup.sh"
    setup.write_text(_SETUP.replace("@REQUIREMENT@", shlex.quote(requirement)), encoding="utf-8")
    run = folder / "run_autograder"
    run.write_text(_RUN.replace("@ASSIGNMENT@", shlex.quote(target)).replace("@SUBMISSION@", submission_file),
                   encoding="utf-8")
    for path in (setup, run):
        path.chmod(0o755)
        written.append(path)
    return written
