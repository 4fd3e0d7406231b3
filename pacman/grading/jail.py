"""The submission's namespace (Linux): one writable place of a fixed size, the rest of the filesystem read-only.

Run by `pacman.grading.sandbox` as a script of its own (``python -I -B -S jail.py MODE SPEC COMMAND...``), before
the worker: it imports nothing of the project, so it works whoever runs it. It

1. creates a user, mount and PID namespace (``unshare``; an unprivileged user may, where the system allows
   user namespaces), and a network namespace too when SPEC says ``"network": false``; it maps the user it
   runs as (never as root inside: the command loses every capability when it is executed);
2. forks the namespace's first process, which makes every mount read-only (recursively), mounts a fresh
   ``/proc`` that shows only the namespace's processes (so no ``/proc/PID/root`` of a process outside is a way
   out), mounts a tmpfs of exactly ``size`` bytes on ``/dev/shm`` and binds a folder of it on the submission's
   folder (one space for both: multiprocessing's semaphores work), and executes COMMAND there;
3. stays outside as the command's parent: it ends the way the command ends (the same status, the same
   signal, as the worker reports it on a pipe), tells the grader on its own pipe (``report_fd``) how many bytes
   the tmpfs held at the end and its size, and, if the grader dies, kills the namespace (every process in
   it dies with its first) and removes the grader's temporary folder through a handle opened before the
   folder became read-only.

The tmpfs is the hard cap on what the submission's processes can store, all together (``ENOSPC`` at the
cap); it goes away with the namespace's last process, so nothing the submission wrote outlives its run.
MODE ``probe`` does the same with no command and checks the result (a file can be written in the folder, not
beside it): exit 0 if the namespace works here, else 1 with the reason on stderr. Setup errors exit 125 with
a line starting ``pacman-ai jail:``.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import signal
import sys

_CLONE_NEWNS, _CLONE_NEWUSER, _CLONE_NEWPID, _CLONE_NEWNET = 0x00020000, 0x10000000, 0x20000000, 0x40000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 32, 4096, 16384, 1 << 18
_MNT_FLAGS = {"ro": _MS_RDONLY, "nosuid": _MS_NOSUID, "nodev": _MS_NODEV, "noexec": _MS_NOEXEC,
              "noatime": 1024, "nodiratime": 2048, "relatime": 1 << 21, "strictatime": 1 << 24}
_MNT_DETACH = 2
_AT_FDCWD, _AT_RECURSIVE, _MOUNT_ATTR_RDONLY = -100, 0x8000, 1
_SYS_MOUNT_SETATTR = 442  # the same number on every architecture the generic syscall table covers
_PR_SET_PDEATHSIG, _PR_SET_NO_NEW_PRIVS = 1, 38
#: Where POSIX shared memory and semaphores live: writable in the namespace, on the submission's tmpfs.
_SHARED_MEMORY = "/dev/shm"
#: Exit status of a setup failure (the message on stderr starts with "pacman-ai jail:").
SETUP_FAILED = 125
#: The environment variable naming the pipe on which the worker reports how it ended.
STATUS_FD = "PACMAN_GRADE_STATUS_FD"

_libc = ctypes.CDLL(None, use_errno=True)  # libc, loaded already (find_library would run ldconfig)


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64), ("propagation", ctypes.c_uint64),
                ("userns_fd", ctypes.c_uint64)]


def _check(result: int, what: str) -> None:
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def _mount(source: str | None, target: str, kind: str | None, flags: int, data: str | None, what: str) -> None:
    encode = (lambda text: None if text is None else text.encode())
    _check(_libc.mount(encode(source), encode(target), encode(kind), ctypes.c_ulong(flags), encode(data)), what)


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def _enter(inside_uid: int, inside_gid: int, network: bool = True) -> None:
    """New user, mount and PID namespaces, this process's user and group mapped to `inside_uid`/`inside_gid`;
    with `network` False a network namespace too (only a loopback device, down: no network at all)."""
    uid, gid = os.geteuid(), os.getegid()
    flags = _CLONE_NEWUSER | _CLONE_NEWNS | _CLONE_NEWPID | (0 if network else _CLONE_NEWNET)
    _check(_libc.unshare(flags), "unshare (user namespaces)")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{inside_uid} {uid} 1\n")
    _write("/proc/self/gid_map", f"{inside_gid} {gid} 1\n")


def _read_only_everywhere(recursive_call: bool = True) -> None:
    """Every mount of this namespace read-only: mount_setattr(AT_RECURSIVE) where the kernel has it (5.12+),
    else (or with `recursive_call` False) a bind remount of each mount, keeping the flags it must keep."""
    if recursive_call:
        attr = _MountAttr(_MOUNT_ATTR_RDONLY, 0, 0, 0)
        result = _libc.syscall(ctypes.c_long(_SYS_MOUNT_SETATTR), ctypes.c_int(_AT_FDCWD), b"/",
                               ctypes.c_uint(_AT_RECURSIVE), ctypes.byref(attr),
                               ctypes.c_size_t(ctypes.sizeof(attr)))
        if result == 0:
            return
        if ctypes.get_errno() not in (errno.ENOSYS, errno.EINVAL):
            _check(result, "mount_setattr (read-only)")
    with open("/proc/self/mountinfo") as handle:
        mounts = [line.split() for line in handle]
    for fields in mounts:
        point = fields[4].encode().decode("unicode_escape")
        flags = _MS_BIND | _MS_REMOUNT | _MS_RDONLY
        for option in fields[5].split(","):
            flags |= _MNT_FLAGS.get(option, 0)
        try:
            _mount(None, point, None, flags, None, f"read-only remount of {point}")
        except OSError:
            if os.path.exists(point):  # a mount point hidden by a later mount cannot be reached: it is covered
                raise


def _set_up(home: str, size: int, inodes: int) -> None:
    """In the namespace's first process: the filesystem read-only, a fresh /proc, the tmpfs on `home`."""
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE, None, "making the mounts private")
    _read_only_everywhere()
    try:
        _mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None, "mounting /proc")
    except OSError:  # a /proc partly hidden (containers) cannot be mounted again: show none rather than the host's
        _mount("tmpfs", "/proc", "tmpfs", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC | _MS_RDONLY, "size=4k,mode=0555",
               "hiding /proc")
    options = f"size={size},nr_inodes={inodes},mode=0700"
    if os.path.isdir(_SHARED_MEMORY) and not os.path.islink(_SHARED_MEMORY):
        # One tmpfs for both: /dev/shm (POSIX semaphores and shared memory: multiprocessing's locks) and, bound
        # from a folder of it, the submission's folder. The budget is shared, and still exact.
        _mount("tmpfs", _SHARED_MEMORY, "tmpfs", _MS_NOSUID | _MS_NODEV, options, f"mounting {_SHARED_MEMORY}")
        inner = os.path.join(_SHARED_MEMORY, ".home")
        os.mkdir(inner, 0o700)
        _mount(inner, home, None, _MS_BIND, None, f"binding the submission's folder {home}")
    else:
        _mount("tmpfs", home, "tmpfs", _MS_NOSUID | _MS_NODEV, options, f"mounting the submission's folder {home}")
    os.chdir(home)


def _remove_tree(folder_fd: int) -> None:
    """Remove everything under the folder open as `folder_fd`, then what is left of it is the grader's to remove."""
    for entry in os.scandir(folder_fd):
        try:
            if entry.is_dir(follow_symlinks=False):
                inner = os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=folder_fd)
                try:
                    _remove_tree(inner)
                finally:
                    os.close(inner)
                os.rmdir(entry.name, dir_fd=folder_fd)
            else:
                os.unlink(entry.name, dir_fd=folder_fd)
        except OSError:
            continue


def _mirror(status: int) -> None:
    """End this process the way a process whose wait status is `status` ended."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def _fail(reason: object) -> None:
    if isinstance(reason, OSError) and reason.strerror:
        reason = f"{reason.filename}: {reason.strerror}" if reason.filename else reason.strerror
    sys.stderr.write(f"pacman-ai jail: the submission's namespace cannot be set up: {reason}\n")
    sys.stderr.flush()
    os._exit(SETUP_FAILED)


def main(argv: list[str]) -> None:
    mode, spec, command = argv[1], json.loads(argv[2]), argv[3:]
    grader = spec["grader"]
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != grader:  # the grader ended before the signal was set
        os._exit(1)
    scratch_fd = above_fd = -1
    if mode == "run":
        try:  # opened before they become read-only here: the way to remove the folder if the grader dies
            scratch_fd = os.open(spec["scratch"], os.O_RDONLY | os.O_DIRECTORY)
            above_fd = os.open(os.path.dirname(spec["scratch"]), os.O_RDONLY | os.O_DIRECTORY)
        except OSError:  # another user's folder (--sandbox-user): the grader's to remove
            pass
    status_read, status_write = os.pipe()
    try:
        _enter(spec["uid"], spec["gid"], spec.get("network", True))
    except OSError as exc:
        _fail(exc)
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)  # again: a change of credentials (unshare) clears it
    if os.getppid() != grader:
        os._exit(1)
    report_fd = spec.get("report_fd", -1)
    child = os.fork()
    if child == 0:
        os.close(status_read)
        for fd in (scratch_fd, above_fd, report_fd):
            if fd >= 0:
                os.close(fd)
        try:
            _set_up(spec["home"], spec["size"], spec["inodes"])
            _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
            _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except OSError as exc:
            _fail(exc)
        if mode == "probe":
            _probe(spec)
        os.set_inheritable(status_write, True)
        os.environ[STATUS_FD] = str(status_write)
        try:
            os.execv(command[0], command)
        except OSError as exc:
            _fail(f"cannot run {command[0]}: {exc}")
    os.close(status_write)
    os.closerange(0, 1)  # the job on stdin is the worker's
    for fd in range(3, 1024):
        if fd not in (status_read, scratch_fd, above_fd, report_fd):
            try:
                os.close(fd)
            except OSError:
                pass

    def grader_gone(number: int, frame: object) -> None:
        try:
            os.kill(child, signal.SIGKILL)  # the namespace's first process: every process in it dies with it
        except OSError:
            pass
        if scratch_fd >= 0:
            _libc.umount2(spec["home"].encode(), _MNT_DETACH)  # a mount point (here) cannot be removed
            _remove_tree(scratch_fd)
            if above_fd >= 0:
                try:
                    os.rmdir(os.path.basename(spec["scratch"]), dir_fd=above_fd)
                except OSError:
                    pass
        os._exit(1)

    signal.signal(signal.SIGTERM, grader_gone)
    if os.getppid() != grader:
        grader_gone(signal.SIGTERM, None)
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except InterruptedError:
            continue
    if report_fd >= 0:  # what the tmpfs holds at the end, for the grader (no process of the namespace has this pipe)
        try:
            space = os.statvfs(spec["home"])
            os.write(report_fd, f"{(space.f_blocks - space.f_bfree) * space.f_frsize} "
                                f"{space.f_blocks * space.f_frsize}\n".encode())
        except OSError:
            pass
        os.close(report_fd)
    reported = b""
    try:
        os.set_blocking(status_read, False)
        reported = os.read(status_read, 64)
    except OSError:
        pass
    try:
        status = int(reported.decode().strip() or status) if reported else status
    except ValueError:
        pass
    _mirror(status)


def _probe(spec: dict) -> None:
    try:
        with open(os.path.join(spec["home"], "probe"), "wb") as handle:
            handle.write(b"x" * 4096)
    except OSError as exc:
        _fail(f"its folder cannot be written: {exc}")
    outside = os.path.join(os.path.dirname(spec["home"]), "outside-probe")
    try:
        with open(outside, "wb"):
            pass
    except OSError as exc:
        if exc.errno == errno.EROFS:
            os._exit(0)
        _fail(f"writing beside its folder failed with {exc}, not 'read-only file system'")
    _fail("a file could be written beside its folder: the filesystem is not read-only")


if __name__ == "__main__":
    main(sys.argv)
