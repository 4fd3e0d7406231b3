"""The submission's namespace (pacman/grading/jail.py, docs/grading.md "The write budget"): the write budget a hard
cap, nothing writable outside its folder, nothing left after; the polled fallback said in the report where there
is no namespace; the same grades either way; and a real second user (--sandbox-user) whose files are removed."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pacman.grading import grade, load_assignment, sandbox
from pacman.grading.sandbox import SandboxError, WRITE_BUDGET, check_sandbox_user

from test_faults_grading import _assignment, _env, _submission

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="namespaces: Linux")

_UNAVAILABLE = sandbox.namespace_unavailable() if sys.platform.startswith("linux") else "not Linux"
needs_namespace = pytest.mark.skipif(_UNAVAILABLE is not None,
                                     reason=f"no namespace for submissions here: {_UNAVAILABLE}")
SUBMISSIONS = Path(__file__).with_name("submissions")


@pytest.fixture
def polled(monkeypatch):
    monkeypatch.setattr(sandbox, "namespace_unavailable", lambda ids=None: "switched off by the test")


def _grade_command(assignment: Path, path: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "pacman", "grade", str(assignment), str(path), *extra]


FLOOD_IN_FOLDER = """
    import os
    os.fork()
    for i in range(40):  # 40 files of 8 MB (the per-file cap) in its own folder, from each of its two processes
        with open(f"{os.getpid()}-{i}", "wb") as out:
            for _ in range(8):
                try:
                    out.write(b"x" * (1 << 20))
                except OSError:
                    break
"""


@needs_namespace
def test_a_flood_in_its_folder_stops_at_the_write_budget_exactly_and_leaves_nothing(tmp_path):
    """As a user runs it: a fresh folder, a fresh TMPDIR, `python -m pacman grade ... --json`."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    assignment = _assignment(tmp_path / "a")
    path = _submission(tmp_path, FLOOD_IN_FOLDER)
    before = sorted(p.name for p in tmp_path.iterdir())
    out = tmp_path / "report.json"
    done = subprocess.run(_grade_command(assignment.directory, path, "--json", str(out)), cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env=_env(TMPDIR=str(temporary)))
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    first, second = (test["messages"][0] for test in data["questions"][0]["tests"])
    assert first.endswith(f"disk: the submission's processes filled the {WRITE_BUDGET / 2**20 - 1 / 256:.1f} MB "
                          f"they may write (what was left of the 32.0 MB write budget of a grading, all its "
                          f"processes together; further writes failed with 'no space left on device'): stopped")
    assert "not run: the submission used up the 32.0 MB write budget of the grading in earlier tests" in second
    assert data["score"] == 0 and data["limit_notes"] == []
    assert data["limits"][0].startswith("tree / first: disk: the submission's processes filled the ")
    assert not any("outside its folder" in line for line in data["limits"]), data["limits"]
    assert list(temporary.iterdir()) == []  # its folder, its files, the grader's: all gone
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(before + ["report.json"])


@needs_namespace
def test_what_it_wrote_is_counted_and_never_over_the_budget(tmp_path):
    path = _submission(tmp_path, at_import="""
        for _i in range(80):  # 80 files of 8 MB (the per-file cap) in its own folder, at import
            with open(f"{_i}.bin", "wb") as _out:
                for _ in range(8):
                    try:
                        _out.write(b"x" * (1 << 20))
                    except OSError:
                        break
    """)
    run = sandbox.run_items(path.read_text(), str(path), [{"kind": "tree", "tree": "{}"}], [20.0])
    assert run.write_cap is None
    assert run.written == WRITE_BUDGET  # its space full: the grading's budget used up, not a byte more
    filled = sandbox._filled_line(WRITE_BUDGET - sandbox._JAIL_SLACK)
    # The import failed on 'no space left' before the watch's next look: the jail's count after it ended says so.
    assert run.limits == [filled] and run.import_error == filled


# A test whose get_action runs: max over two leaves, depth 1, no ghosts.
_TREE_ITEM = {"kind": "tree", "tree": {"max": [1, 2]}, "ghosts": 0, "depth": 1, "agent_class": "ExpectimaxAgent"}


@needs_namespace
def test_a_test_that_fails_on_the_full_disk_before_the_watch_looks_fails_for_the_disk(tmp_path, monkeypatch):
    """The race CI once lost under load: the submission's own ENOSPC reached the grader before the watch saw its
    space full. The grader finds the space full when the child ends, and the test that failed on it is the disk's."""
    monkeypatch.setattr(sandbox, "_WATCH_EVERY", 1000.0)  # the watch looks once, at the start, then never in time
    path = _submission(tmp_path, """
        i = 0
        while True:  # fill its space; the write that does not fit raises (uncaught: the test fails on it)
            with open(f"fill-{i}", "wb") as out:
                out.write(b"x" * (1 << 20))
            i += 1
    """)
    run = sandbox.run_items(path.read_text(), str(path), [_TREE_ITEM], [20.0])
    filled = sandbox._filled_line(WRITE_BUDGET - sandbox._JAIL_SLACK)
    assert run.limits == [filled]
    assert [o.error for o in run.outcomes] == [filled]  # not "OSError: [Errno 28] No space left on device"


@needs_namespace
def test_a_test_that_fails_on_its_own_oserror_keeps_its_own_error(tmp_path):
    """The other side of the rule above: an OSError that is not a full disk stays the submission's own error."""
    path = _submission(tmp_path, """
        open("/nonexistent-folder/file", "w")
    """)
    run = sandbox.run_items(path.read_text(), str(path), [_TREE_ITEM], [20.0])
    assert run.limits == []
    assert run.outcomes[0].error.startswith("FileNotFoundError: [Errno 2] No such file or directory")


ESCAPES = """
    import ctypes, os
    flood = {flood!r}
    escaped = []
    def attempt(what, path):
        try:
            with open(path, "w") as handle:
                handle.write("escaped")
            escaped.append(f"{{what}}: {{path}}")
        except OSError:
            pass
    for folder in (flood, "/tmp", "/var/tmp", os.path.dirname(os.getcwd())):  # /dev/shm is its own, below
        attempt("a shared or outside folder", os.path.join(folder, "escaped.txt"))
    pids = [name for name in os.listdir("/proc") if name.isdigit()]
    if len(pids) > 4:
        escaped.append(f"/proc shows {{len(pids)}} processes")
    for pid in pids:  # through the /proc links of every process it can see
        attempt("/proc root", f"/proc/{{pid}}/root{{flood}}/escaped-root.txt")
        attempt("/proc cwd", f"/proc/{{pid}}/cwd/../escaped-cwd.txt")
    import multiprocessing
    multiprocessing.Lock()  # a POSIX semaphore in /dev/shm: its own space, in its budget
    with open("/dev/shm/mine.txt", "w") as handle:
        handle.write("x" * 5000)
    if os.statvfs(".").f_bfree == os.statvfs(".").f_blocks:
        escaped.append("/dev/shm is not on its own space")
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mount(None, b"/", None, 32 | 4096, None) == 0:  # remount read-write: no capability for it
        escaped.append("remounted / read-write")
    child = os.fork()
    if child == 0:  # a user namespace of its own: root there, yet the mounts it inherits stay read-only
        code = 0
        if libc.unshare(0x10000000 | 0x00020000) == 0:
            for name, text in (("setgroups", "deny"), ("uid_map", f"0 {{os.getuid()}} 1"),
                               ("gid_map", f"0 {{os.getgid()}} 1")):
                try:
                    with open(f"/proc/self/{{name}}", "w") as handle:
                        handle.write(text)
                except OSError:
                    pass
            if libc.mount(None, b"/", None, 32 | 4096, None) == 0:
                code = 3
            try:
                with open(os.path.join(flood, "escaped-nested.txt"), "w"):
                    code = 4
            except OSError:
                pass
        os._exit(code)
    _, status = os.waitpid(child, 0)
    if status:
        escaped.append(f"a nested namespace got out (status {{status}})")
    if escaped:
        raise RuntimeError("; ".join(escaped))
"""


@needs_namespace
def test_nothing_outside_its_folder_can_be_written_or_reached(tmp_path):
    flood = tmp_path / "flood"
    flood.mkdir()
    assignment = _assignment(tmp_path / "a")
    path = _submission(tmp_path, ESCAPES.format(flood=str(flood)))
    report = grade(assignment, path)
    messages = [m for test in report.questions[0].tests for m in test.messages]
    assert report.score == report.max_score == 2, messages  # every way out failed, so it answered as the correct one
    assert report.limits == [] and report.limit_notes == []
    assert list(flood.iterdir()) == []


def _without_times(data):
    """A report's ``--json`` form without what the clock decides (seconds, milliseconds per move)."""
    if isinstance(data, dict):
        return {k: _without_times(v) for k, v in data.items()
                if k not in ("seconds", "execution_time", "ms_per_move_max")}
    if isinstance(data, list):
        return [_without_times(v) for v in data]
    return data


def _same_grades(monkeypatch, names: tuple[str, ...], questions: list[str] | None) -> None:
    expectimax = load_assignment("expectimax")
    reports: dict[str, list[str]] = {}
    for mode in ("namespace", "polled"):
        if mode == "polled":
            monkeypatch.setattr(sandbox, "namespace_unavailable", lambda ids=None: "switched off by the test")
        for name in names:
            data = grade(expectimax, SUBMISSIONS / f"{name}.py", questions=questions).to_dict()
            assert data.pop("limit_notes") == ([] if mode == "namespace" else
                                               [sandbox._polled_line("switched off by the test")])
            reports.setdefault(name, []).append(json.dumps(_without_times(data), sort_keys=True))
    for name, (inside, outside) in reports.items():
        assert inside == outside, name
    scores = {name: json.loads(inside)["score"] for name, (inside, _) in reports.items()}
    assert len(set(scores.values())) > 1, scores  # different grades, each the same both ways


@needs_namespace
def test_a_grade_is_the_same_with_and_without_the_namespace(monkeypatch):
    _same_grades(monkeypatch, ("minimax", "exits"), ["trees"])


@needs_namespace
@pytest.mark.slow(minutes=6)
def test_every_question_is_graded_the_same_with_and_without_the_namespace(monkeypatch):
    _same_grades(monkeypatch, ("correct", "minimax", "exits", "recursion"), None)


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs util-linux unshare")
def test_where_there_is_no_namespace_the_report_says_the_budget_is_only_polled(tmp_path):
    """A system where user namespaces are switched off (as sysctl user.max_user_namespaces=0 does): the grader
    runs, falls back to the watch, and says so in the report's LIMITS section."""
    assignment = _assignment(tmp_path / "a")
    path = _submission(tmp_path)
    script = 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"'
    probe = subprocess.run(["unshare", "-Ur", "sh", "-c", script, "sh", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot make a system without user namespaces here: {probe.stderr.strip()}")
    done = subprocess.run(["unshare", "-Ur", "sh", "-c", script, "sh", *_grade_command(assignment.directory, path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120, env=_env())
    assert done.returncode == 0, done.stderr
    assert "Total: 2/2" in done.stdout
    assert ("LIMITS NOT EXACT here:\n  write budget: enforced by polling, not as a hard cap (no namespace for the "
            "submission here: unshare (user namespaces): No space left on device): it can overshoot the 32.0 MB "
            "budget by up to what its processes write in 0.05 s (5 to 13 MB measured) before it is stopped, and "
            "files it writes outside its folder are listed, not removed") in done.stdout


# -- a real second user (--sandbox-user) ------------------------------------------------------------------------

SANDBOX_USER = "pacman-grade-test"


def _sandbox_user() -> str:
    """The dedicated user of these tests, made if it does not exist (root only); skips saying why it cannot."""
    if os.geteuid() != 0:
        pytest.skip("running a submission as another user needs root")
    import pwd

    try:
        pwd.getpwnam(SANDBOX_USER)
    except KeyError:
        useradd = shutil.which("useradd")
        if useradd is None:
            pytest.skip(f"no user {SANDBOX_USER} and no useradd to make one")
        made = subprocess.run([useradd, "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                               SANDBOX_USER], capture_output=True, text=True)
        if made.returncode != 0:
            pytest.skip(f"cannot make the user {SANDBOX_USER}: {made.stderr.strip()}")
    try:
        check_sandbox_user(SANDBOX_USER)
    except SandboxError as exc:
        pytest.skip(str(exc))
    return SANDBOX_USER


WRITES_TO_SHARED = """
    import os
    for folder in ("/tmp", "/var/tmp", "/dev/shm"):
        for name in ({token!r} + ".bin", {token!r} + "-dir/inner.bin"):
            full = os.path.join(folder, name)
            try:
                os.makedirs(os.path.dirname(full), exist_ok=True)
                with open(full, "wb") as out:
                    out.write(b"x" * 1000)
            except OSError:
                pass
"""


@pytest.mark.parametrize("mode", ["namespace", "polled"])
def test_a_sandbox_users_files_outside_its_folder_are_gone_after_grading(tmp_path, monkeypatch, mode):
    user = _sandbox_user()
    if mode == "namespace" and sandbox.namespace_unavailable(sandbox._user_ids(user)) is not None:
        pytest.skip(f"no namespace for {user}: {sandbox.namespace_unavailable(sandbox._user_ids(user))}")
    if mode == "polled":
        monkeypatch.setattr(sandbox, "namespace_unavailable", lambda ids=None: "switched off by the test")
    token = f"pacman-hostile-{secrets.token_hex(6)}"
    mine = Path("/tmp") / f"{token}-mine.txt"  # the grader's own file, beside what the submission writes
    mine.write_text("the grader's")
    try:
        assignment = _assignment(tmp_path / "a")
        os.chmod(tmp_path, 0o755)
        path = _submission(tmp_path, WRITES_TO_SHARED.format(token=token))
        os.chmod(path, 0o644)
        out = tmp_path / "report.json"
        from pacman.cli import main

        assert main(["grade", str(assignment.directory), str(path), "--sandbox-user", user, "--json", str(out)]) == 0
        data = json.loads(out.read_text())
        left = [str(p) for folder in ("/tmp", "/var/tmp", "/dev/shm") for p in Path(folder).glob(token + "*")]
        assert left == [str(mine)] and mine.read_text() == "the grader's"
        if mode == "polled":
            first, second = data["limits"]  # each test wrote them again, and they were removed again
            for line, test in ((first, "first"), (second, "second")):
                assert line.startswith(f"tree / {test}: disk: the submission wrote files outside its folder: ")
                assert f"/tmp/{token}.bin" in line and "pacman-grade-" not in line  # not its own folder
                assert line.endswith("(removed, with every file of the sandbox user in the shared temporary folders)")
            assert data["limit_notes"] == [sandbox._polled_line("switched off by the test", user=True)]
        else:  # nothing could be written there: nothing to remove, nothing to list
            assert data["limits"] == [] and data["limit_notes"] == [] and data["score"] == 2
    finally:
        mine.unlink()


@needs_namespace
def test_without_mount_setattr_every_mount_is_remounted_read_only(tmp_path):
    """Kernels before 5.12 have no mount_setattr: the jail remounts each mount of /proc/self/mountinfo instead."""
    from pacman.grading import jail

    code = textwrap.dedent(f"""
        import errno, os, sys
        sys.path.insert(0, {str(Path(jail.__file__).parent)!r})
        import jail
        jail._enter(os.geteuid() or 1000, os.getegid() or 1000)
        jail._mount(None, "/", None, jail._MS_REC | jail._MS_PRIVATE, None, "private")
        jail._read_only_everywhere(recursive_call=False)
        refused = []
        for folder in ({str(tmp_path)!r}, "/tmp", "/dev/shm", "/var/tmp"):
            try:
                with open(os.path.join(folder, "written.txt"), "w"):
                    pass
            except OSError as exc:
                refused.append(exc.errno == errno.EROFS)
        print(refused)
    """)
    done = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[True,", "True,", "True,", "True]"]
    assert not (tmp_path / "written.txt").exists()
