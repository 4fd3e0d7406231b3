"""`pacman-ai grade`: its flags and what it prints and writes.

Grading itself is `pacman.grading`'s; this module checks the flags and the
output paths before anything runs, and prints or writes the reports. Nothing
here imports pygame.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from pacman.cli import grade_class
from pacman.cli.args import UsageError
from pacman.files import output_problem
from pacman.user_code import IMPORT_SECONDS, IMPORT_SECONDS_VARIABLE, parse_import_seconds

__all__ = ["add_parser", "run"]

DEFAULT_ASSIGNMENT = "expectimax"
#: The exit status of a grading that ran but could not grade every question (a classic question naming a test
#: class pacman-ai does not know): the report and result files say which; the total is not the whole grade.
EXIT_INCOMPLETE = 3


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the `grade` subcommand to the subparsers of the `pacman-ai` parser."""
    grade = commands.add_parser(
        "grade", help="autograde a submission on an assignment (sandboxed), or print its starter",
        description="Grade SUBMISSION.py on ASSIGNMENT (a shipped id such as 'expectimax', a directory with "
                    "an assignment.toml, or a classic CS188 test folder: a directory with a CONFIG file, graded as "
                    "its own autograder grades it, on the engine its own game.py describes). Each test runs in a "
                    "separate process with time and memory limits, and (Linux, where user namespaces are allowed) "
                    "in a namespace of its own: a 32 MB writable folder, the rest read-only; elsewhere the report "
                    "says the write budget was only polled. "
                    "The report goes to stdout; --json and --gradescope write result files. A submission that "
                    "cannot be graded at all (it does not compile, its module-level code fails or takes longer than "
                    f"{IMPORT_SECONDS:g} s, --import-seconds, or it defines none of the classes and functions graded) is one line "
                    "naming the file and why, and nothing is graded. Exit status: 0 graded; 2 nothing graded (a "
                    "usage error, a mistake in the folder, or such a submission); "
                    f"{EXIT_INCOMPLETE} graded, but some question could not be (the report names it and why); "
                    f"for a class, {grade_class.EXIT_NOT_ALL_GRADED} when some student is not fully graded "
                    "(the gradebook says who).")
    grade.add_argument("assignment", nargs="?", metavar="ASSIGNMENT",
                       help="shipped assignment id, assignment directory, or classic test folder (test_cases)")
    grade.add_argument("submission", nargs="?", metavar="SUBMISSION.py|DIR",
                       help="the student's file, or a folder of a whole class's submissions")
    grade.add_argument("--question", action="append", default=None, metavar="ID",
                       help="grade only this question (repeat for several); in a classic folder, as its -q, only "
                            "that question and those it depends on are read")
    grade.add_argument("--json", default=None, metavar="OUT", help="write the full results as JSON to OUT ('-': stdout)")
    grade.add_argument("--gradescope", default=None, metavar="OUT",
                       help="write Gradescope's results.json to OUT")
    grade.add_argument("--verbose", action="store_true",
                       help="explain passing tests too, and show what the submission printed")
    grade.add_argument("--quiet", action="store_true",
                       help="no progress lines on stderr (by default a test prints its name, verdict and time as "
                            "it finishes: every test on a terminal or with --verbose, those of 1 s or more into a file "
                            "or pipe)")
    grade.add_argument("--sandbox-user", default=None, metavar="USER",
                       help="run the submission as USER (e.g. nobody; needs root, as on Gradescope), so that it "
                            "cannot touch the grader's files or processes")
    grade.add_argument("--starter", action="store_true",
                       help="print the assignment's starter file (e.g. > multi_agents.py) and exit")
    grade.add_argument("--write-solutions", action="store_true",
                       help="classic test folders only: run SUBMISSION.py (your reference solution) on every "
                            "enabled test and write each NAME.solution beside NAME.test; prints what changes, "
                            "leaves files with the same values as they are, and replaces none whose values "
                            "differ unless --force")
    grade.add_argument("--action-order", default=None, metavar="ORDER",
                       help="classic test folders only: list legal actions in ORDER instead of the order the "
                            "course's own game.py gives: classic (West,Stop,East,North,South), python3 "
                            "(North,South,East,West,Stop), sorted, or the five actions comma-separated (the "
                            "report's first line names the order a folder's alpha-beta solutions fit)")
    grade.add_argument("--force", action="store_true",
                       help="with --write-solutions: replace .solution files whose values differ; for a class: "
                            "overwrite an existing --out")
    grade.add_argument("--import-seconds", type=parse_import_seconds, default=None, metavar="SECONDS",
                       help=f"the time a submission's module-level code may take (default: {IMPORT_SECONDS:g})")
    grade.add_argument("--gradescope-package", default=None, metavar="DIR",
                       help="write Gradescope's autograder (setup.sh, run_autograder, wheels) for ASSIGNMENT "
                            f"(default: {DEFAULT_ASSIGNMENT}; a classic test folder is graded on the student's "
                            "multiAgents.py) into DIR (new, empty or a previous package) and exit")
    grade.add_argument("--requirement", default=None, metavar="SPEC",
                       help="with --gradescope-package: what setup.sh pip-installs instead of the bundled "
                            "wheels (default: a wheel of this pacman-ai and of its dependencies, in the package, "
                            "installed without the network; e.g. pacman-ai==0.1.0 or a git URL)")
    grade.add_argument("--python", default=None, metavar="VERSION",
                       help="with --gradescope-package: bundle dependency wheels for this CPython version on "
                            "Linux x86-64 (e.g. 3.10, the python3 of Gradescope's Ubuntu 22.04 image), "
                            "downloaded by pip, instead of repacking the ones installed here")
    grade_class.add_arguments(grade)
    return grade


def _usage(message: str) -> UsageError:
    return UsageError(f"pacman-ai grade: {message} (see pacman-ai grade --help)")


def run(args: argparse.Namespace) -> int:
    """Run `pacman-ai grade` with parsed arguments; returns the exit status."""
    from pacman.grading.assignment import load_assignment

    if args.gradescope_package is not None:
        return _package(args)
    if args.python is not None:
        raise _usage("--python is for --gradescope-package (the Python its bundled wheels are for)")
    if args.requirement is not None:
        raise _usage("--requirement is for --gradescope-package (what its setup.sh has pip install)")
    if args.assignment is None:
        raise _usage("give ASSIGNMENT (a shipped id such as 'expectimax', or a directory)")
    if args.submission is not None and os.path.isdir(args.submission) and not args.submission.endswith(".py"):
        return grade_class.run(args)  # a folder of submissions (a folder named x.py is refused as a submission)
    grade_class.refuse_class_flags(args)
    if args.import_seconds is not None:  # the sandbox reads the limit in force (pacman.user_code.import_seconds)
        os.environ[IMPORT_SECONDS_VARIABLE] = repr(args.import_seconds)
    if _is_classic(args.assignment):
        return _grade_classic(args)
    if args.write_solutions:
        raise _usage("--write-solutions is for classic test folders (a folder with a CONFIG file)")
    if args.action_order is not None:
        raise _usage("--action-order is for classic test folders (a folder with a CONFIG file)")
    if args.force:
        raise _usage("--force goes with --write-solutions only")
    assignment = load_assignment(args.assignment)
    if args.starter:
        if assignment.starter is None:
            raise _usage(f"assignment {assignment.id!r} has no starter file")
        sys.stdout.write(assignment.starter)
        return 0
    if args.submission is None:
        raise _usage("give SUBMISSION.py, the file to grade (or --starter for the starter file)")
    _check_outputs(args)
    if args.question:
        for question in args.question:
            assignment.question(question)  # an unknown id is an error before anything runs
    return _grade(args, assignment)


def _is_classic(assignment: str) -> bool:
    """Whether ASSIGNMENT is a classic CS188 test folder (a folder whose CONFIG gives ``order``)."""
    from pacman.cs188.grading import is_classic_course

    return os.path.isdir(assignment) and is_classic_course(assignment)


def _grade_classic(args: argparse.Namespace) -> int:
    """`pacman-ai grade path/to/test_cases multiAgents.py`: a classic course folder."""
    from pacman.cs188.grading import grade_course, load_course

    if args.starter:
        raise _usage(f"{args.assignment} is a classic test folder: it has no starter file")
    if args.write_solutions:
        return _write_solutions(args)
    if args.force:
        raise _usage("--force goes with --write-solutions only")
    order = _action_order(args)
    course = load_course(args.assignment, questions=args.question,  # only the questions asked for are read
                         action_order=order)
    if args.submission is None:
        raise _usage("give SUBMISSION.py, the file to grade (e.g. multiAgents.py)")
    _check_outputs(args)
    if args.question:
        for question in args.question:
            course.question(question)  # an unknown id is an error before anything runs
    return _grade(args, course, grade_course)


def _action_order(args: argparse.Namespace) -> tuple[str, ...] | None:
    from pacman.cs188.grading.order_fit import OrderError, parse_action_order

    if args.action_order is None:
        return None
    try:
        return parse_action_order(args.action_order)
    except OrderError as exc:
        raise _usage(str(exc)) from None


def _write_solutions(args: argparse.Namespace) -> int:
    """`--write-solutions`: the reference file's observations become the folder's .solution files."""
    from pacman.cs188.grading import load_course
    from pacman.cs188.grading.solutions import plan_solutions, write_planned
    from pacman.grading.reaper import become_subreaper

    if args.json or args.gradescope:
        raise _usage("--write-solutions writes .solution files only; leave out --json and --gradescope")
    if args.submission is None:
        raise _usage("--write-solutions: give the reference solution's .py file")
    if args.sandbox_user is not None and not args.sandbox_user.strip():
        raise _usage("--sandbox-user: expected a user name (e.g. nobody), got an empty string")
    course = load_course(args.assignment, solutions=False, questions=args.question, action_order=_action_order(args))
    if args.question:
        for question in args.question:
            course.question(question)
    become_subreaper()
    changes = plan_solutions(course, args.submission, questions=args.question, sandbox_user=args.sandbox_user)
    for change in changes:
        shown = "replaced" if change.status == "changed" and args.force else change.status
        print(f"{shown:<10} {change.path}")
        for line in change.differences:
            print(f"  {line}")
    written = write_planned(changes, force=args.force)
    counts = {status: sum(1 for c in changes if c.status == status) for status in ("new", "changed", "unchanged")}
    print(f"wrote {len(written)} .solution file{'s' if len(written) != 1 else ''} ({counts['new']} new, "
          f"{counts['changed']} replaced); {counts['unchanged']} unchanged", file=sys.stderr)
    return 0


def _check_outputs(args: argparse.Namespace) -> None:
    """The output files: writable, distinct, and not the submission; the sandbox user: not empty."""
    if args.gradescope == "-":
        raise _usage("--gradescope needs a file name (Gradescope reads /autograder/results/results.json)")
    outputs = {}
    for flag, target in (("--json", args.json), ("--gradescope", args.gradescope)):
        if target is not None and target != "-":
            _check_output(flag, target)
            key = os.path.realpath(target)
            if key == os.path.realpath(args.submission):
                raise _usage(f"{flag} {target}: is the submission itself; give another file name")
            if key in outputs:
                raise _usage(f"{flag} {target}: is also the {outputs[key]} file; give two different names")
            outputs[key] = flag
    if args.sandbox_user is not None and not args.sandbox_user.strip():
        raise _usage("--sandbox-user: expected a user name (e.g. nobody), got an empty string")


def _check_output(flag: str, target: str) -> None:
    """Refuse an output path that cannot take a whole new file (`pacman.files.output_problem`), before grading."""
    if not target.strip():
        raise _usage(f"{flag}: expected a file name, got an empty string")
    problem = output_problem(target)
    if problem is not None:
        raise _usage(f"{flag} {target}: {problem}")


def _write_result(flag: str, target: str, data: Any) -> None:
    from pacman.grading.report import write_json

    try:
        write_json(target, data)
    except OSError as exc:
        raise _usage(f"{flag} {target}: cannot write the results ({exc.strerror or exc})") from None


def _grade(args: argparse.Namespace, assignment: Any, grade: Any = None) -> int:
    """Grade with `grade` (our assignments' by default; `grade_course` for a classic folder) and report."""
    from pacman.grading.grader import SubmissionError
    from pacman.grading.reaper import become_subreaper

    # Processes a submission starts that outlive its stand-in parent come back to the grader,
    # which ends them before it writes any result (see pacman.grading.reaper).
    become_subreaper()
    from pacman.grading.report import format_report, gradescope_results

    if args.quiet and args.verbose:
        raise _usage("--quiet and --verbose contradict each other; give one")
    shown = None if args.quiet else _Progress(_test_count(assignment, args.question), sys.stderr,
                                              every_test=args.verbose)
    extra = {}
    ours = grade is None  # our assignments (a classic folder has no contest)
    if grade is None:  # our assignments' grader also says when a test starts (a classic folder's: when it ends)
        from pacman.grading.grader import grade

        extra = {"starting": shown.starting if shown is not None else None}
    try:
        report = grade(assignment, args.submission, questions=args.question,
                       progress=shown.finished if shown is not None else None, sandbox_user=args.sandbox_user,
                       **extra)
    except SubmissionError as exc:
        if shown is not None:
            shown.close()
        if args.gradescope:  # Gradescope still needs a whole results file that says why
            _write_result("--gradescope", args.gradescope,
                          {"score": 0.0, "output": f"Not graded: {exc}", "tests": [],
                           "stdout_visibility": "hidden", "execution_time": 0.0})
        raise
    finally:
        if shown is not None:
            shown.close()
    if args.gradescope:
        standing = _contest_standing(args, assignment) if ours else None
        _write_result("--gradescope", args.gradescope, gradescope_results(report, standing))
    if args.json == "-":
        print(json.dumps(report.to_dict(), indent=2))
    else:
        if args.json:
            _write_result("--json", args.json, report.to_dict())
        print(format_report(report, verbose=args.verbose))
    if report.incomplete:
        print(f"pacman-ai: incomplete: {', '.join(report.incomplete)} could not be graded (see the report); "
              f"exit status {EXIT_INCOMPLETE}", file=sys.stderr)
        return EXIT_INCOMPLETE
    return 0


def _contest_standing(args: argparse.Namespace, assignment: Any) -> Any:
    """The submission's place on the assignment's contest, for Gradescope's leaderboard; None without a contest."""
    if assignment.leaderboard is None:
        return None
    from pacman.grading.leaderboard import play_leaderboard

    if not args.quiet:
        print("pacman-ai: playing the contest for the leaderboard", file=sys.stderr)
    return play_leaderboard(assignment, {"submission": args.submission}, sandbox_user=args.sandbox_user)[0]


def _test_count(assignment: Any, questions: list[str] | None) -> int:
    """How many tests grading runs: those of the chosen questions (each question once)."""
    chosen = [assignment.question(q) for q in dict.fromkeys(questions)] if questions else assignment.questions
    return sum(len(question.tests) for question in chosen)


class _Progress:
    """Lines on stderr as tests finish: the test's number, question and name, verdict and time.

    On a terminal every test is shown, first while it runs (overwritten when it
    finishes), so a submission that loops is seen to be stopped test by test, not
    hung. Into a file or pipe (a log) a test gets its line when it took `SLOW`
    seconds or more, or when `EVERY` seconds passed since the last line, so a
    quick grading writes nothing there and a slow one says where it is
    (`every_test`, for --verbose: every test there too).
    """

    SLOW = 1.0
    EVERY = 10.0

    def __init__(self, total: int, stream: Any, every_test: bool = False) -> None:
        import time

        self.total = total
        self.stream = stream
        self.done = 0
        self.started = time.perf_counter()
        self.clock = time.perf_counter
        self.pending = False
        self.last_line = self.started
        self.terminal = hasattr(stream, "isatty") and stream.isatty()
        self.every_test = every_test or self.terminal
        # A dumb terminal cannot go back over a line: it gets the finished lines only.
        self.live = self.terminal and os.environ.get("TERM", "") != "dumb"
        # Into a log, a test that runs long is not silent: the shared heartbeat (pacman.progress) says which.
        from pacman.progress import Progress

        self.beat = None if self.live else Progress("grade", stream=stream, every=float("inf"))

    def _prefix(self) -> str:
        width = len(str(self.total))
        return f"[{self.done + 1:>{width}}/{self.total}, {self.clock() - self.started:5.1f} s]"

    def starting(self, question: str, test: str) -> None:
        if self.beat is not None:
            self.beat.hold(f"test {self.done + 1}/{self.total}, {question} / {test}: running")
        if self.live:
            self.stream.write(f"\r{self._prefix()} {question} / {test}: running...")
            self.stream.flush()
            self.pending = True

    def finished(self, question: str, test: Any) -> None:
        now = self.clock()
        if self.every_test or test.seconds >= self.SLOW or now - self.last_line >= self.EVERY:
            verdict = "pass" if test.passed else "FAIL"
            line = f"{self._prefix()} {question} / {test.name}: {verdict} ({test.seconds:.2f} s)"
            if self.pending:
                self.stream.write("\r\033[K")
                self.pending = False
            self.stream.write(line + "\n")
            self.stream.flush()
            self.last_line = now
        self.done += 1
        if self.beat is not None:
            self.beat.hold(f"{self.done}/{self.total} tests finished")

    def close(self) -> None:
        """Stop the heartbeat, and clear a test's "running..." line (grading that stops says why on stderr)."""
        if self.pending:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.pending = False
        if self.beat is not None:
            self.beat.close()


def _package(args: argparse.Namespace) -> int:
    from pacman.grading.assignment import load_assignment, shipped_directory
    from pacman.grading.gradescope import check_package_target, parse_python_version, write_gradescope_package

    if args.submission is not None or args.starter or args.json or args.gradescope or args.question \
            or args.sandbox_user or args.write_solutions or args.force:
        raise _usage("--gradescope-package takes only ASSIGNMENT (and --requirement or --python)")
    if args.requirement is not None and not args.requirement.strip():
        raise _usage("--requirement: expected what pip should install, got an empty string")
    if args.python is not None:
        if args.requirement is not None:
            raise _usage("--python chooses the bundled wheels; --requirement replaces them: give one")
        args.python = parse_python_version(args.python)
    check_package_target(args.gradescope_package)  # before the assignment is read: fail fast
    if args.assignment is not None and _is_classic(args.assignment):
        return _package_classic(args)
    name = args.assignment or DEFAULT_ASSIGNMENT
    assignment = load_assignment(name)
    shipped = assignment.directory.resolve() == (shipped_directory() / assignment.id).resolve()
    written = write_gradescope_package(args.gradescope_package, assignment.id, assignment.submission_file,
                                       requirement=args.requirement,
                                       assignment_files=None if shipped else Path(assignment.directory),
                                       python=args.python)
    for path in written:
        print(path)
    print(f"Zip the contents of {args.gradescope_package} and upload them as the Gradescope autograder; "
          f"students submit {assignment.submission_file}.", file=sys.stderr)
    return 0


def _package_classic(args: argparse.Namespace) -> int:
    """`--gradescope-package` for a classic test folder: copied (with layouts/ beside it) and graded on the
    student file of its generation (multiAgents.py, or multi_agents.py for a current-generation folder)."""
    from pacman.cs188.grading import load_course
    from pacman.cs188 import GENERATIONS
    from pacman.grading.gradescope import CLASSIC_SUBMISSION, classic_layouts, write_gradescope_package

    course = load_course(args.assignment)  # a mistake in the folder is reported now, not on Gradescope
    _check_mazes_travel(course, classic_layouts(args.assignment))
    for question in course.ungradable:  # packaged all the same (the others are graded), but said now
        print(f"pacman-ai: warning: {question.id} will not be graded on Gradescope (its results will say so): "
              f"{question.problem}", file=sys.stderr)
    student_file = GENERATIONS[course.generation].student_file if course.generation else CLASSIC_SUBMISSION
    written = write_gradescope_package(args.gradescope_package, course.id, student_file,
                                       requirement=args.requirement, assignment_files=Path(args.assignment),
                                       classic=True, python=args.python)
    for path in written:
        print(path)
    print(f"Zip the contents of {args.gradescope_package} and upload them as the Gradescope autograder; "
          f"students submit {student_file}.", file=sys.stderr)
    return 0


def _check_mazes_travel(course: Any, beside: Path | None) -> None:
    """Refuse a course whose EvalAgentTest found its maze only in the working directory's layouts/, not packaged."""
    from pacman.resources import resource_dir

    here = (Path.cwd() / "layouts").resolve()
    shipped_mazes = resource_dir("layouts")
    if beside is not None and beside.resolve() == here:
        return
    for question in course.questions:
        for test in question.tests:
            path = getattr(test, "layout_path", None)
            if not path or Path(path).resolve().parent != here:
                continue
            shipped = shipped_mazes / Path(path).name  # found here, but the same maze ships with pacman-ai
            try:
                is_shipped = shipped.is_file() and shipped.read_text(encoding="utf-8-sig") == test.layout_text
            except (OSError, UnicodeDecodeError):
                is_shipped = False
            if not is_shipped:
                raise _usage(f"--gradescope-package: {course.id}/{question.id}/{test.name}: its maze "
                             f"layouts/{Path(path).name} is found only in the working directory, whose layouts/ "
                             f"the package does not copy; put layouts/ beside {course.id}")
