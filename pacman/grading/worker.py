"""The submission's side of grading: a child process that runs one submission on a list of items.

Started by `pacman.grading.sandbox` only. It reads one JSON job from stdin (the
submission's source, the items, the limits, a random nonce and the number of a
pipe), sets its own resource limits, unloads and refuses the modules the
assignment forbids (`pacman.grading.forbidden.seal`), imports the submission and
runs the items one by one, reporting each on the pipe as a JSON line carrying the
nonce, with the forbidden imports the submission tried during it. It
reports observations only (actions, expanded nodes, game results); the parent
decides what they are worth. Whatever the submission prints goes to a pipe the
parent drains and never parses. While the submission is imported it says which
of its lines runs (`_ImportPlace`), so that an import stopped at its time limit
is reported with its line; once imported, which names the module defines.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import resource
import signal
import sys
import time
import traceback
import types
from typing import Any, Callable

import pacman.user_code

# Everything the items need is imported here, at module level: once the submission's
# forbidden modules are sealed off (`pacman.grading.forbidden.seal`), an import of one of
# them inside a function would be refused like the submission's own.
from pacman.agents.evaluation import EVALUATIONS
from pacman.agents.expectimax import ExpectimaxAgent
from pacman.agents.ghosts import make_ghosts
from pacman.agents.trees import parse_tree
from pacman.actions import Action
from pacman.game import replay_actions, run_game
from pacman.grading.forbidden import GUARD_REMOVED, ImportGuard, seal
from pacman.grading.jail import STATUS_FD
from pacman.grading.reaper import become_subreaper, end_children
from pacman.grading.states import CountingState, ExpansionLog, TreeState, tree_evaluation, tree_node_ids, unwrapping
from pacman.layout import parse_layout
from pacman.process_guard import set_parent_death_signal
from pacman.state import GameState
from pacman.user_code import IMPORT_SECONDS_VARIABLE, import_seconds

__all__ = ["main"]

_OUTPUT_LIMIT = 8 << 20  # bytes a submission may write to any file (its printed output goes to the grader's pipe)
#: Public names of the submission's module reported to the grader at most (it looks for the ones it grades).
_MAX_NAMES = 2000
#: Seconds the loader's own import timer waits beyond the grader's import limit (the grader's fires first).
_LOADER_GRACE_SECONDS = 5.0
#: CPU seconds between two looks at where the submission's import is.
_IMPORT_PLACE_EVERY = 0.2


class _Channel:
    """The pipe to the parent: one JSON object a line, each with the run's nonce."""

    def __init__(self, fd: int, nonce: str) -> None:
        self._fd = fd
        self._nonce = nonce

    def send(self, event: str, **fields: Any) -> None:
        fields.update(event=event, nonce=self._nonce)
        data = (json.dumps(fields, default=repr) + "\n").encode()
        while data:
            written = os.write(self._fd, data)
            data = data[written:]


def _limit(kind: int, value: int) -> None:
    try:
        soft, hard = resource.getrlimit(kind)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(kind, (value, value if hard == resource.RLIM_INFINITY else hard))
    except (ValueError, OSError):  # not allowed here: the parent's wall clock still applies
        pass


def _describe(exc: BaseException, submission_path: str) -> str:
    """One line for the exception plus the submission's own innermost frame, ``(at FILE:LINE in FUNCTION:
    SOURCE)`` (the grader's frames are left out). An unfinished method is ``not implemented: METHOD``, as the
    course says it; where it is, is `_where`'s."""
    if isinstance(exc, MemoryError):
        return "ran out of memory (MemoryError)"
    if isinstance(exc, RecursionError):
        return f"RecursionError: {exc}"
    method = _not_implemented(exc)
    if method is not None:
        return f"not implemented: {method}"
    if isinstance(exc, SystemExit):
        return f"called exit() / raised SystemExit({exc.code!r})"
    frame = _student_frame(exc, submission_path)
    where = f" (at {frame})" if frame else ""
    text = str(exc)
    if len(text) > 300:
        text = text[:300] + "..."
    return f"{type(exc).__name__}: {text}{where}"


def _student_frame(exc: BaseException, submission_path: str, caller_of: tuple[str, ...] = ()) -> str | None:
    """``FILE:LINE in FUNCTION: SOURCE`` of the innermost frame of `exc`'s traceback in the submission's file (the
    one that called a function of `caller_of`, if such a call is there), FILE its name only; None if none is."""
    frames = traceback.extract_tb(exc.__traceback__)
    chosen = None
    for caller, frame in zip(frames, frames[1:]):
        if frame.name in caller_of and caller.filename == submission_path:
            chosen = caller
    if chosen is None:
        own = [f for f in frames if f.filename == submission_path]
        chosen = own[-1] if own else None
    if chosen is None:
        return None
    source = (chosen.line or "").strip()[:80]
    inside = f" in {chosen.name}" if chosen.name != "<module>" else ""
    return f"{os.path.basename(submission_path)}:{chosen.lineno}{inside}" + (f": {source}" if source else "")


#: The course's ``util`` function that an unfinished method calls (both generations' spellings).
_NOT_DEFINED = ("raiseNotDefined", "raise_not_defined")


def _where(exc: BaseException, submission_path: str) -> str | None:
    """Where in the submission an error whose text does not say it came from: an unfinished method (the line that
    calls ``util.raiseNotDefined()``, as the course's own message names it), looked for in the exceptions it was
    raised from too (a game's wrapper of it); None for any other error (`_describe` says where)."""
    seen = 0
    while exc is not None and seen < 8:
        if _not_implemented(exc) is not None:
            return _student_frame(exc, submission_path, _NOT_DEFINED)
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return None


def _game_where(frames: Any, submission_path: str) -> str | None:
    """The innermost of a crashed game's user frames (`pacman.game.GameResult.error_frames`) in the submission's
    file, with the file's name only; None if none is."""
    if not isinstance(frames, (list, tuple)):
        return None
    name = os.path.basename(submission_path)
    for shown in (submission_path, os.path.relpath(submission_path)):
        for frame in reversed(frames):
            if isinstance(frame, str) and frame.startswith(shown + ":"):
                return (name + frame[len(shown):])[:300]
    return None


def _out_of_space(exc: BaseException) -> bool:
    """Whether `exc` is (or was raised while handling) a full disk: then the grader's disk line says why."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        exc, seen = exc.__context__, seen + 1
    return False


def _not_implemented(exc: BaseException) -> str | None:
    """The method that called the classic ``util.raiseNotDefined()``, if that is where `exc` came from."""
    frames = traceback.extract_tb(exc.__traceback__)
    for caller, frame in zip(frames, frames[1:]):
        if frame.name in _NOT_DEFINED:
            return caller.name
    return None


def _defined_names(module: types.ModuleType) -> list[str] | None:
    """The public names `module` defines (for the grader to tell a file that defines nothing it grades), None if
    there are too many to say."""
    try:
        names = [name for name in vars(module) if isinstance(name, str) and not name.startswith("_")]
    except BaseException:  # a module whose namespace cannot be listed: say nothing
        return None
    return sorted(names) if len(names) <= _MAX_NAMES else None


class _ImportPlace:
    """While the submission is imported: which of its lines runs, sent to the grader when it changes, so that an
    import the grader stops at its time limit is reported with the line it was on.

    A profiling timer (CPU time, `_IMPORT_PLACE_EVERY`) interrupts the import and the handler looks at the frame
    it interrupted: no thread (the submission's count of threads stays its own) and no clash with the wall-clock
    timer a loader may set (`pacman.user_code.import_user_file`). An import that waits without using CPU, or
    that loops inside C code, is not seen.
    """

    def __init__(self, channel: _Channel, path: str, source: str) -> None:
        self._channel = channel
        self._path = path
        self._real = os.path.realpath(path)
        self._lines = source.splitlines()
        self._files: dict[str, bool] = {}
        self._last: tuple[int, str] | None = None

    def _is_submission(self, filename: str) -> bool:
        known = self._files.get(filename)
        if known is None:
            known = filename == self._path or os.path.realpath(filename) == self._real
            self._files[filename] = known
        return known

    def _look(self, number: int, frame: Any) -> None:
        while frame is not None and not self._is_submission(frame.f_code.co_filename):
            frame = frame.f_back
        if frame is None:
            return
        place = (frame.f_lineno, frame.f_code.co_name)
        if place == self._last:
            return
        self._last = place
        line = frame.f_lineno or 0
        source = self._lines[line - 1].strip()[:120] if 0 < line <= len(self._lines) else ""
        self._channel.send("importing", line=line, function=frame.f_code.co_name, source=source)

    def __enter__(self) -> "_ImportPlace":
        try:
            signal.signal(signal.SIGPROF, self._look)
            signal.siginterrupt(signal.SIGPROF, False)  # the submission's system calls go on (SA_RESTART)
            signal.setitimer(signal.ITIMER_PROF, _IMPORT_PLACE_EVERY, _IMPORT_PLACE_EVERY)
        except (AttributeError, ValueError, OSError):  # no profiling timer here: the line is not known
            pass
        return self

    def __exit__(self, *exc_info: Any) -> None:
        with contextlib.suppress(AttributeError, ValueError, OSError):
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, signal.SIG_IGN)  # one still on its way must not end the process


def _load(source: str, path: str) -> types.ModuleType:
    module = types.ModuleType("submission")
    module.__file__ = path
    sys.modules["submission"] = module
    exec(compile(source, path, "exec"), module.__dict__)
    return module


def _action_text(action: Any) -> tuple[str, str]:
    """(text, type name) of what get_action returned, for the parent to compare."""
    if isinstance(action, Action):
        return action.value, "Action"
    if isinstance(action, str):
        return action, "str"
    return repr(action)[:100], type(action).__name__


def _make_agent(module: types.ModuleType, item: dict, evaluation: Callable | None) -> Any:
    """The submission's agent of the item's class: ``ReflexAgent()``, else ``Class(depth=..., evaluation=...)``."""
    name = item.get("agent_class", "ExpectimaxAgent")
    cls = getattr(module, name, None)
    if cls is None:
        raise AttributeError(f"the submission defines no {name}")
    if name == "ReflexAgent":
        return cls()
    return cls(depth=item["depth"], evaluation=evaluation)


def _run_tree(module: types.ModuleType, item: dict) -> dict:
    root = parse_tree(item["tree"], item.get("source", "<tree>"))
    log = ExpansionLog()
    state = TreeState(root, item["ghosts"], log, tree_node_ids(root))
    agent = _make_agent(module, item, tree_evaluation)
    action = agent.get_action(state)
    text, kind = _action_text(action)
    return {"action": text, "action_type": kind, "expanded": list(log.expanded), "terminal": log.terminal,
            "calls": log.calls}


def _run_position(module: types.ModuleType, item: dict) -> dict:
    layout = parse_layout(item["layout"], name=item["layout_name"])
    state = GameState.initial(layout, num_ghosts=item["ghosts"])
    for _, state in replay_actions(state, item["prefix"]):  # checked when the assignment was loaded
        pass
    log = ExpansionLog()
    agent = _make_agent(module, item, unwrapping(EVALUATIONS[item["evaluation"]]))
    action = agent.get_action(CountingState(state, log))
    text, kind = _action_text(action)
    return {"action": text, "action_type": kind, "expanded": list(log.expanded),
            "terminal": log.terminal, "calls": log.calls}


class _GameClock:
    """A display that ends a game (by raising) once it has run longer than its time limit."""

    class Expired(Exception):
        pass

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.started = time.perf_counter()
        self.actions: list[str] = []

    def start(self, state: Any) -> None:
        self.started = time.perf_counter()

    def update(self, state: Any, agent: int, action: Any) -> None:
        self.actions.append(action.value)
        if time.perf_counter() - self.started > self.limit:
            raise _GameClock.Expired

    def finish(self, state: Any, result: Any) -> None:
        pass


def _run_game(module: types.ModuleType, item: dict) -> dict:
    layout = parse_layout(item["layout"], name=item["layout_name"])
    reflex = item["agent"] == "submission" and item.get("agent_class") == "ReflexAgent"
    if reflex:
        evaluation = None  # ReflexAgent() scores its own moves
    elif item["evaluation"] == "submission":
        evaluation = getattr(module, "better_evaluation", None)
        if evaluation is None:
            raise AttributeError("the submission defines no better_evaluation")
    else:
        evaluation = EVALUATIONS[item["evaluation"]]
    if item["agent"] == "submission":
        agent = _make_agent(module, item, evaluation)
    else:
        agent = ExpectimaxAgent(depth=item["depth"], evaluation=evaluation)
    clock = _GameClock(item["game_time_limit"])
    try:
        result = run_game(layout, agent, make_ghosts(item["ghost_kind"], item["num_ghosts"]), seed=item["seed"],
                          max_moves=item["max_moves"], display=clock, move_time_limit=item["move_time_limit"])
    except _GameClock.Expired:
        return {"outcome": "timed-out", "actions": clock.actions,
                "error": f"the game took longer than its {item['game_time_limit']:g} s limit"}
    # The parent replays the actions itself: it takes neither the score nor the outcome from here.
    data = {"outcome": result.outcome, "actions": clock.actions, "error": result.error,
            "ms_per_move_max": round(1000 * max(result.move_times, default=0.0), 3)}
    where = _game_where(getattr(result, "error_frames", ()), module.__file__ or "")
    if where is not None:
        data["where"] = where
    return data


_RUNNERS = {"tree": _run_tree, "position": _run_position, "game": _run_game}


def _attempts(guard: ImportGuard) -> list[dict[str, Any]]:
    """The forbidden imports tried since the last report (the parent fails the item they happened in)."""
    try:
        return guard.take()
    except BaseException:  # a submission that broke sys.modules or sys.meta_path: say so rather than crash
        return [{"module": GUARD_REMOVED, "rule": "the import guard", "line": None}]


def _stand_between(fd: int, grader: int | None = None, scratch: str | None = None,
                   status_fd: int | None = None) -> None:
    """Fork: the submission runs in the child, so that its parent process is this one, not the grader.

    A submission that signals ``os.getppid()`` then hits this stand-in, and the
    grader carries on. The stand-in is a subreaper: when the child ends, it kills
    every process the submission left behind, those that left the session
    included. It then ends the way the child ended (the
    same exit status, or the same signal), which the grader reports.

    The stand-in dies with the grader (`grader`, its parent): when the grader ends,
    even killed with SIGKILL, the kernel sends the stand-in SIGTERM (Linux), and it
    kills the submission and everything it started, removes the grader's `scratch`
    folder where it may, and exits. The submission gets SIGKILL when the stand-in ends.

    In a namespace (`pacman.grading.jail`) the stand-in is the namespace's first process, whose parent is the
    jail (`grader` is None): the jail kills it if the grader dies, and every process of the namespace dies with
    it. A first process cannot end itself by a signal, so it reports how its child ended on `status_fd` (the
    jail's pipe), and the jail ends that way.
    """
    become_subreaper()  # processes the submission starts and orphans come back here, even from another session
    child = 0

    def grader_gone(number: int, frame: Any) -> None:
        if child:
            with contextlib.suppress(OSError):
                os.kill(child, signal.SIGKILL)
        end_children()
        if scratch:
            import shutil

            shutil.rmtree(scratch, ignore_errors=True)
        os._exit(1)

    signal.signal(signal.SIGTERM, grader_gone)
    if grader is not None:
        set_parent_death_signal(signal.SIGTERM)
        if os.getppid() != grader:  # it ended before the signal was set
            grader_gone(signal.SIGTERM, None)
    pid = os.fork()
    if pid == 0:
        if status_fd is not None:
            os.close(status_fd)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        set_parent_death_signal(signal.SIGKILL)  # the stand-in gone (killed by the submission?): so is this
        return
    child = pid
    os.close(fd)  # only the child talks to the grader
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    end_children()
    if status_fd is not None:
        with contextlib.suppress(OSError):
            os.write(status_fd, f"{status}\n".encode())
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def _keep_user_code_roots() -> None:
    """Where `pacman.user_code` looks for the project's agents (to leave their frames out of a crashed game's), found
    now, before the agents are sealed off: found later, the look would be a forbidden import of the submission's."""
    pacman.user_code._agents_root()  # looked up once, and kept


def main() -> None:
    """Run the job given on stdin; every outcome goes to the parent over the pipe."""
    job = json.loads(sys.stdin.readline())
    channel = _Channel(job["fd"], job["nonce"])
    sys.stdin.close()
    sys.stdin = open(os.devnull)
    # What the items need is imported (at module level) before the memory cap, so the cap is the submission's.
    classic = job.get("loader") == "classic"  # a classic CS188 file, graded on a classic test folder
    if classic:
        from pacman.cs188.grading.runner import RUNNERS as classic_runners, load_classic_submission, \
            local_copy, prepare_classic_api

        prepare_classic_api()
        runners = {**_RUNNERS, **classic_runners}
    else:
        runners = _RUNNERS

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # over-long output: writes fail, the process lives
    _limit(resource.RLIMIT_AS, job["memory_mb"] << 20)
    _limit(resource.RLIMIT_CPU, int(job["cpu_seconds"]) + 1)
    _limit(resource.RLIMIT_FSIZE, _OUTPUT_LIMIT)
    _limit(resource.RLIMIT_CORE, 0)
    if job.get("processes"):  # running as a dedicated user: cap that user's processes (fork bombs)
        _limit(resource.RLIMIT_NPROC, job["processes"])
    status_fd = os.environ.pop(STATUS_FD, None)
    if job.get("namespace"):  # the jail is the parent, and reads how the submission's process ended
        _stand_between(job["fd"], None, job.get("scratch"), int(status_fd) if status_fd else None)
    else:
        _stand_between(job["fd"], job.get("grader"), job.get("scratch"))
    path = job["path"]
    _keep_user_code_roots()
    loaded_from = local_copy(path) if classic else path
    # From here on the forbidden modules are neither loaded nor loadable (by name).
    guard = seal(job.get("forbid_imports") or (), loaded_from)
    # The grader stops an import at the limit and names the line it was on; the loader's own timer (a classic
    # submission's, `pacman.user_code.import_user_file`) waits longer, so that it never fires first under load.
    os.environ[IMPORT_SECONDS_VARIABLE] = repr(import_seconds() + _LOADER_GRACE_SECONDS)
    channel.send("loading")  # from here on, what happens is the submission's (its import time starts now)
    try:
        with _ImportPlace(channel, loaded_from, job["source"]):
            if classic:
                module, path = load_classic_submission(job["source"], path, [item for _, item in job["items"]])
            else:
                module = _load(job["source"], path)
    except BaseException as exc:  # anything at import, SystemExit included, fails every item
        channel.send("import_error", error=_describe(exc, loaded_from), violations=_attempts(guard))
        sys.stdout.flush()
        os._exit(0)
    attempts = _attempts(guard)
    if attempts:  # tried at import (even if it caught the ImportError): every item fails with it
        channel.send("import_error", error="forbidden import", violations=attempts)
        sys.stdout.flush()
        os._exit(0)
    channel.send("ready", defines=_defined_names(module))
    completed = False
    for index, item in job["items"]:
        channel.send("start", item=index)
        started = time.perf_counter()
        try:
            data = runners[item["kind"]](module, item)
        except BaseException as exc:  # the submission's failure is this item's, not the grader's
            channel.send("result", item=index, ok=False, error=_describe(exc, path), where=_where(exc, path),
                         seconds=time.perf_counter() - started, violations=_attempts(guard),
                         no_space=_out_of_space(exc))
            if isinstance(exc, MemoryError):
                break  # the process may be in a poor state; the parent starts a fresh one
            continue
        channel.send("result", item=index, ok=True, data=data, seconds=time.perf_counter() - started,
                     violations=_attempts(guard))
        if item["kind"] == "game" and data["outcome"] == "timed-out":
            break  # a move may still be running on its thread: let the parent start a fresh process
    else:
        completed = True
    try:  # before "done": the grader may end the process as soon as it reads it
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        pass
    if completed:
        channel.send("done")
    os._exit(0)


if __name__ == "__main__":
    main()
