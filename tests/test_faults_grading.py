"""Hostile submissions the grader contains (docs/long-runs.md, "Faults"): a flood of files from the submission's
processes, busy threads, many processes, a socket, reading the grader's environment; and the grader itself stopped
by SIGTERM or SIGKILL. Each limit hit is a line of the report; nothing of the sandbox outlives the grader."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pacman.cli import main
from pacman.grading import format_report, grade, load_assignment
from pacman.grading import sandbox

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and prctl: Linux")

SUBMISSIONS = Path(__file__).with_name("submissions")
TREES = load_assignment("expectimax").directory / "trees"

TOML = """
[assignment]
id = "faults"
submission_file = "multi_agents.py"

[[questions]]
id = "tree"
points = 2

[[questions.tests]]
kind = "tree"
name = "first"
tree = "one.json"
ghosts = 1
depth = 1
time_limit = {limit}

[[questions.tests]]
kind = "tree"
name = "second"
tree = "one.json"
ghosts = 1
depth = 1
time_limit = {limit}
"""


def _assignment(folder: Path, limit: float = 20):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "assignment.toml").write_text(TOML.format(limit=limit))
    (folder / "one.json").write_text((TREES / "one-ghost-depth1.json").read_text())
    return load_assignment(folder)


def _submission(folder: Path, in_get_action: str = "", at_import: str = "") -> Path:
    """The correct submission, with hostile code run at import and/or at the start of every get_action."""
    source = (SUBMISSIONS / "correct.py").read_text()
    if in_get_action:
        source = source.replace("    def get_action(self, state):\n",
                                "    def get_action(self, state):\n        _hostile()\n", 1)
    body = textwrap.indent(textwrap.dedent(in_get_action), "    ") or "    pass\n"
    path = folder / "multi_agents.py"
    path.write_text(source + "\n\ndef _hostile():\n" + body + "\n" + textwrap.dedent(at_import))
    return path


@pytest.fixture
def polled(monkeypatch):
    """The grader as where submissions cannot have a namespace of their own: the write budget only polled."""
    monkeypatch.setattr(sandbox, "namespace_unavailable", lambda ids=None: "switched off by the test")


def test_a_flood_of_files_from_its_processes_is_stopped_at_the_write_budget_and_reported(tmp_path, polled):
    """Without a namespace (tests/test_faults_grading_namespace.py has it): stopped by the watch, listed, kept."""
    flood = tmp_path / "flood"
    flood.mkdir()
    assignment = _assignment(tmp_path / "a")
    # Each of its processes (itself and a fork) writes 40 files of 8 MB (the per-file cap) outside its folder, at
    # about 100 MB/s each: the polled watch (every 0.05 s) stops it whatever the load; a flood at the disk's speed
    # can outrun a watch starved of CPU (CI's loaded run: 324 MB) and is the namespace's to stop, exactly (the
    # test of tests/test_faults_grading_namespace.py).
    path = _submission(tmp_path, f"""
        import os, time
        os.fork()
        for i in range(40):
            with open(os.path.join({str(flood)!r}, f"{{os.getpid()}}-{{i}}"), "wb") as out:
                for _ in range(8):
                    try:
                        out.write(b"x" * (1 << 20))
                    except OSError:
                        break
                    time.sleep(0.01)
    """)
    out = tmp_path / "report.json"
    assert main(["grade", str(assignment.directory), str(path), "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    on_disk = sum(f.stat().st_size for f in flood.iterdir())
    assert on_disk < 2 * 40 * (8 << 20) / 2  # stopped long before the 640 MB it meant to write
    assert data["score"] == 0
    first, second = (test["messages"][0] for test in data["questions"][0]["tests"])
    assert "disk: the submission's processes wrote " in first and "over its 32.0 MB write budget" in first
    written = float(first.split("wrote ")[1].split(" MB")[0])
    # the kernel's count, everything its processes wrote (files, output, pipes), passed the budget and holds the
    # files; the files alone may come to the budget exactly when the watch stops them (32.0 MB on disk, 32.5 written)
    assert written > 32 and written >= on_disk / 2**20 > 16
    assert second.endswith("not run: the submission used up the 32.0 MB write budget of the grading in earlier "
                           "tests")
    limits = data["limits"]
    assert limits[0].startswith("tree / first: disk: the submission's processes wrote ")
    assert any("wrote files outside its folder: " + str(flood) in line and "left in place" in line
               for line in limits)
    assert data["limit_notes"] == [sandbox._polled_line("switched off by the test")]
    assert data["limit_notes"][0].startswith("write budget: enforced by polling, not as a hard cap (no namespace "
                                             "for the submission here: switched off by the test): it can overshoot")
    report = grade(assignment, path)  # through the API: the same lines, in the text report
    text = format_report(report)
    assert "LIMITS HIT:" in text and all(line.split(" MB")[0] in text for line in report.limits)
    assert "LIMITS NOT EXACT here:\n  write budget: enforced by polling" in text


def test_the_submissions_python_writes_no_bytecode_cache_that_would_count_as_its_files(tmp_path, polled):
    """The child runs isolated (-I ignores PYTHONDONTWRITEBYTECODE) and with -B: an import of a module that has no cache
    yet (the grader's own, in a fresh checkout; CI's rehearsal once listed pacman/grading/__pycache__/forbidden...pyc
    as the submission's file outside its folder) writes none."""
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "helper_module.py").write_text("ANSWER = 42\n")
    path = _submission(tmp_path, at_import=f"""
        import sys
        if not sys.flags.dont_write_bytecode:
            raise SystemExit("this Python writes bytecode caches")
        sys.path.insert(0, {str(lib)!r})
        import helper_module
        assert helper_module.ANSWER == 42
    """)
    out = tmp_path / "report.json"
    assert main(["grade", str(_assignment(tmp_path / "a").directory), str(path), "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["score"] == data["max_score"] == 2  # it imported its module and graded as the correct submission
    assert not (lib / "__pycache__").exists()
    assert not any("outside its folder" in line for line in data["limits"])


@pytest.mark.slow
def test_busy_processes_are_stopped_by_the_cpu_limit_of_all_their_processes(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox, "IMPORT_CPU_LIMIT", 2.0)
    assignment = _assignment(tmp_path / "a")
    # Three processes spinning, under every per-process limit, then an import that waits: the wall-clock limit of
    # the import (10 s) is far; the CPU time of all of them together passes 2 s first.
    path = _submission(tmp_path, at_import="""
        import os, time
        for _ in range(2):
            if os.fork() == 0:
                break
        end = time.monotonic() + 9
        while time.monotonic() < end:
            pass
    """)
    started = time.monotonic()
    report = grade(assignment, path)
    assert time.monotonic() - started < 30
    message = report.questions[0].tests[0].messages[0]
    assert "CPU: the submission's processes used " in message and "(all their threads together), more than " \
        "the 2 s its time limits allow: stopped" in message
    assert report.score == 0 and report.limits and report.limits[0].startswith("tree / first: CPU: ")


def test_busy_threads_are_stopped_before_they_stretch_the_grading(tmp_path):
    assignment = _assignment(tmp_path / "a")
    # Sixteen threads spinning in Python: one core between them and the item, which would crawl to its time limit.
    path = _submission(tmp_path, at_import="""
        import threading
        def _spin():
            while True:
                pass
        for _ in range(16):
            threading.Thread(target=_spin, daemon=True).start()
    """)
    started = time.monotonic()
    report = grade(assignment, path)
    assert time.monotonic() - started < 20  # two tests of 20 s each, which the threads would stretch to 40 s
    message = report.questions[0].tests[0].messages[0]
    assert "CPU: the submission ran " in message and f"threads in one process, more than {sandbox.MAX_THREADS} " \
        "(busy threads would stretch every test to its time limit): stopped" in message
    assert report.score == 0 and report.limits[0].startswith("tree / first: CPU: the submission ran ")


def test_too_many_processes_are_stopped_and_reported(tmp_path):
    assignment = _assignment(tmp_path / "a")
    path = _submission(tmp_path, """
        import os, time
        for _ in range(30):
            if os.fork() == 0:
                time.sleep(60)
                os._exit(0)
        time.sleep(10)
    """)
    report = grade(assignment, path)
    message = report.questions[0].tests[0].messages[0]
    assert "processes: the submission ran " in message and f"at once, more than {sandbox.MAX_PROCESSES}: stopped" \
        in message
    assert report.limits[0].startswith("tree / first: processes: ")


def test_a_socket_is_stopped_and_reported(tmp_path):
    assignment = _assignment(tmp_path / "a")
    path = _submission(tmp_path, """
        import socket, time
        _hostile.kept = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        time.sleep(10)
    """)
    report = grade(assignment, path)
    message = report.questions[0].tests[0].messages[0]
    assert message.endswith("sockets: the submission opened 1 socket (no network, no local servers while "
                            "grading): stopped")
    assert report.limits == [f"tree / {test}: sockets: the submission opened 1 socket (no network, no local "
                             f"servers while grading): stopped" for test in ("first", "second")]


def _env(**extra: str) -> dict[str, str]:
    return dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", **extra)


def test_the_submission_cannot_read_the_graders_environment(tmp_path):
    assignment = _assignment(tmp_path / "a")
    # What it saw is printed (shown by --verbose): in a namespace it could not write a file outside its folder.
    path = _submission(tmp_path, """
        import json, os
        seen = {}
        pid = os.getpid()
        for step in range(4):  # itself, the stand-in, the grader, the grader's parent
            try:
                with open(f"/proc/{pid}/environ", "rb") as handle:
                    seen[step] = handle.read().decode(errors="replace")
            except OSError as exc:
                seen[step] = type(exc).__name__
            try:
                with open(f"/proc/{pid}/stat") as handle:
                    pid = int(handle.read().rsplit(")", 1)[1].split()[1])
            except OSError:  # in a namespace: the stand-in's parent is outside it, pid 0
                pid = 0
        print("SEEN " + json.dumps(seen))
    """)
    # As root, the grader runs without any capability (as an ordinary user would run): what stops the reading
    # is the grader, not the test's privileges.
    command = [sys.executable, "-m", "pacman", "grade", str(assignment.directory), str(path), "--verbose"]
    if os.geteuid() == 0:
        command = ["setpriv", "--bounding-set=-all", "--inh-caps=-all", *command]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120,
                          env=_env(GRADER_SECRET_TOKEN="s3cr3t-value-123"))
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("SEEN ")]
    assert len(lines) == 2  # one per test
    seen = json.loads(lines[0][len("SEEN "):])
    assert len(seen) == 4
    assert not any("s3cr3t-value-123" in text for text in seen.values()), seen
    own, stand_in, grader, _ = seen.values()
    assert "HOME=" in own and "GRADER_SECRET" not in stand_in  # its own and its stand-in's: a minimal environment
    # The grader is not dumpable while the submission runs; in a namespace it is not even visible (/proc/0).
    assert grader in ("PermissionError", "FileNotFoundError")


def _tree(root: int) -> list[int]:
    return [pid for pid in sandbox._proc_tree(root) if pid != root]


def _live(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as handle:
                if handle.read().rsplit(")", 1)[1].split()[0] != "Z":
                    alive.append(pid)
        except OSError:
            pass
    return alive


@pytest.mark.parametrize("name", ["SIGTERM", pytest.param("SIGKILL", marks=pytest.mark.slow), "SIGHUP"])
def test_a_grader_stopped_by_a_signal_leaves_no_process_and_no_folder(tmp_path, name):
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    assignment = _assignment(tmp_path / "a", limit=60)
    path = _submission(tmp_path, """
        import os, time
        if os.fork() == 0:  # and a process of its own, in a session of its own
            os.setsid()
        time.sleep(60)
    """)
    grader = subprocess.Popen([sys.executable, "-m", "pacman", "grade", str(assignment.directory), str(path)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=_env(TMPDIR=str(temporary)))
    deadline = time.monotonic() + 60
    while len(_tree(grader.pid)) < 3:  # the stand-in, the submission, its fork
        assert grader.poll() is None and time.monotonic() < deadline, grader.communicate()
        time.sleep(0.05)
    sandboxed = _tree(grader.pid)
    assert [p.name for p in temporary.iterdir() if p.name.startswith("pacman-grade-")]
    grader.send_signal(getattr(signal, name))
    stdout, stderr = grader.communicate(timeout=30)
    expected = {"SIGTERM": 143, "SIGHUP": 129, "SIGKILL": -9}[name]
    assert grader.returncode == expected, stderr
    if name != "SIGKILL":
        assert stderr.strip().splitlines()[-1] == f"pacman-ai: stopped by {name}" and "Traceback" not in stderr
    deadline = time.monotonic() + 10
    while (_live(sandboxed) or list(temporary.iterdir())) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = _live(sandboxed)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == [], "sandboxed processes outlived the grader"
    assert list(temporary.iterdir()) == [], "the grader's temporary folders outlived it"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0, reason="making files of another user needs root")
def test_the_sandbox_users_files_in_the_shared_folders_are_removed_and_no_one_elses(tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    (shared / "theirs").mkdir(parents=True)
    mine = shared / "mine.txt"
    mine.write_text("the grader's")
    for path in (shared / "theirs" / "a.bin", shared / "b.bin"):
        path.write_bytes(b"x" * 100)
        os.chown(path, 65534, 65534)
    os.chown(shared / "theirs", 65534, 65534)
    monkeypatch.setattr(sandbox, "_SHARED_TEMPORARY", (str(shared),))
    removed = sandbox._remove_files_of(65534)
    assert sorted(removed) == sorted(str(p) for p in (shared / "theirs" / "a.bin", shared / "b.bin", shared / "theirs"))
    assert [p.name for p in shared.iterdir()] == ["mine.txt"] and mine.read_text() == "the grader's"


def test_a_classic_course_grading_stops_a_flood_at_the_write_budget(tmp_path, capsys, polled):
    """A CS188 folder is graded under the same total write budget as an assignment: a flood at import is
    stopped and named, and the grading refused (no grade that looks complete)."""
    flood = tmp_path / "flood"
    flood.mkdir()
    course = Path(__file__).parent / "cs188_classic"
    student = (course / "multiAgents.py").read_text()
    # At import: 40 files of 8 MB (the per-file cap) outside its folder, at about 100 MB/s (so that the polled
    # watch stops it under any load: the test above says why).
    path = tmp_path / "multiAgents.py"
    path.write_text(textwrap.dedent(f"""
        import os as _os, time as _time
        for _i in range(40):
            with open(_os.path.join({str(flood)!r}, f"{{_os.getpid()}}-{{_i}}"), "wb") as _out:
                for _ in range(8):
                    try:
                        _out.write(b"x" * (1 << 20))
                    except OSError:
                        break
                    _time.sleep(0.01)
    """) + student)
    out = tmp_path / "report.json"
    status = main(["grade", str(course / "test_cases"), str(path), "--json", str(out)])
    err = capsys.readouterr().err
    on_disk = sum(f.stat().st_size for f in flood.iterdir())
    assert status != 0 and not out.exists()
    assert "disk: the submission's processes wrote " in err and "over its 32.0 MB write budget" in err
    assert on_disk < 40 * (8 << 20)  # stopped before the 320 MB it meant to write
