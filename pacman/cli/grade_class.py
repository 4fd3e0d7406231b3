"""`pacman-ai grade ASSIGNMENT DIR`: a whole class, its flags and its outputs.

Grading is `pacman.grading.classroom`'s (each student graded by ``pacman-ai
grade`` in a process of its own); this module checks the flags and outputs
before any student is graded, shows the progress, and writes the gradebook,
the reports, the feedback, the plot, the similarity report and the summary.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from pacman.cli.args import UsageError, report_stop
from pacman.files import output_problem

__all__ = ["add_arguments", "run", "CLASS_FLAGS", "EXIT_NOT_ALL_GRADED"]

#: The exit status of a class grading where some student is incomplete or an error (the gradebook says who).
EXIT_NOT_ALL_GRADED = 3
#: The flags that only a class grading takes (their `argparse` destinations).
CLASS_FLAGS = ("jobs", "dask", "out", "resume", "gradebook", "feedback", "plot", "similarity",
               "similarity_threshold", "leaderboard")
#: Standings the summary shows (the --leaderboard file has every student).
SHOWN_STANDINGS = 10


def add_arguments(grade: argparse.ArgumentParser) -> None:
    """The class flags of `pacman-ai grade` (with DIR for SUBMISSION)."""
    from pacman.cli.args import positive_int
    from pacman.grading.similarity import DEFAULT_THRESHOLD

    group = grade.add_argument_group(
        "grading a class (SUBMISSION is a folder DIR of every student's submission: one .py or one folder per "
        "student, a Canvas or Moodle download, or a Gradescope export)")
    group.add_argument("--jobs", type=positive_int, default=None, metavar="N",
                       help="students graded at once (default: the number of cores; with --dask local, Dask "
                            "workers)")
    group.add_argument("--dask", default=None, metavar="ADDRESS",
                       help="grade on the Dask scheduler at ADDRESS (tcp://host:8786), or 'local' (needs the dask "
                            "extra; each worker needs pacman-ai, and an assignment folder at the same path)")
    group.add_argument("--out", default=None, metavar="FILE.jsonl",
                       help="append each student's record to FILE as they finish (default: DIR-grades.jsonl "
                            "beside DIR)")
    group.add_argument("--resume", action="store_true",
                       help="continue --out: grade only the students it does not have")
    group.add_argument("--gradebook", default=None, metavar="FILE.csv",
                       help="write one row per student: name, sid, email, points per question, total, max, status")
    group.add_argument("--feedback", default=None, metavar="DIR",
                       help="write each student's report to DIR/STUDENT.txt, to hand back")
    group.add_argument("--plot", default=None, metavar="FILE.png",
                       help="draw the histogram of each question's points and of the total (needs the plot extra)")
    group.add_argument("--similarity", default=None, metavar="REPORT.html",
                       help="compare every pair of submissions (copydetect, the starter left out; needs the "
                            "class extra) and write its HTML report")
    group.add_argument("--similarity-threshold", type=_share, default=None, metavar="SHARE",
                       help="with --similarity: list the pairs sharing more than SHARE of their code (0 to 1; "
                            f"default: {DEFAULT_THRESHOLD:g})")
    group.add_argument("--leaderboard", default=None, metavar="FILE.csv",
                       help="play every student's code on the assignment's contest (its [leaderboard] table: the "
                            "same seeded games for all, in the sandbox) and write the ranking by win rate, then "
                            "mean score, with intervals")


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a share between 0 and 1, got {text!r}") from None
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a share from 0 up to (not including) 1, got {text!r}")
    return value


def _usage(message: str) -> UsageError:
    return UsageError(f"pacman-ai grade: {message} (see pacman-ai grade --help)")


def refuse_class_flags(args: argparse.Namespace) -> None:
    """A class flag given with one SUBMISSION.py is a usage error naming it."""
    for name in CLASS_FLAGS:
        value = getattr(args, name, None)
        if value not in (None, False):
            raise _usage(f"--{name.replace('_', '-')} is for grading a class (SUBMISSION a folder of submissions)")


def run(args: argparse.Namespace) -> int:
    """Grade every student of the folder ``args.submission`` on ``args.assignment``; the exit status."""
    from pacman.grading.classroom import ClassError, class_setup, grade_class, read_finished, records_kept
    from pacman.grading.reaper import become_subreaper
    from pacman.grading.roster import read_roster

    for flag, value in (("--gradescope", args.gradescope), ("--write-solutions", args.write_solutions),
                        ("--starter", args.starter)):
        if value:
            raise _usage(f"{flag} is for one submission, not a class")
    if args.verbose:
        raise _usage("--verbose is for one submission; a class's reports go to --feedback and --json")
    if args.similarity_threshold is not None and args.similarity is None:
        raise _usage("--similarity-threshold goes with --similarity")
    setup = class_setup(args.assignment, chosen=args.question or (), sandbox_user=args.sandbox_user,
                        import_seconds=args.import_seconds, action_order=args.action_order)
    contest = _contest(args, setup) if args.leaderboard is not None else None
    folder = Path(args.submission)
    out = args.out or f"{os.path.normpath(folder)}-grades.jsonl"
    _check_outputs(args, out)
    roster = read_roster(folder, setup.submission_file)
    for entry, reason in roster.skipped:
        print(f"pacman-ai: skipped {entry}: {reason}", file=sys.stderr)
    exists = os.path.exists(out) and os.path.getsize(out) > 0
    if args.resume and args.force:
        raise _usage("--resume continues --out, --force overwrites it: give one")
    if exists and not args.resume and not args.force:
        raise _usage(f"--out {out}: file exists; --resume continues it, --force overwrites it")
    finished = read_finished(out, setup, roster) if args.resume and os.path.exists(out) else []
    done_students = {record.student for record in finished}
    todo = [s for s in roster.submissions if s.student not in done_students]
    jobs = args.jobs or _default_jobs()
    become_subreaper()
    shown = None if args.quiet else _ClassProgress(len(roster.submissions), len(finished), sys.stderr)
    if shown is not None:
        shown.start(f"{len(roster.submissions)} students ({roster.shape}) on {setup.assignment_id}, "
                    f"{len(todo)} to grade, {jobs} at a time; records in {out}")
    from pacman.process_guard import stop_on_signals

    try:
        with stop_on_signals():
            new = grade_class(setup, todo, out, jobs=jobs, truncate=not args.resume, dask=args.dask,
                              done=shown.finished if shown is not None else None)
    except KeyboardInterrupt as exc:
        if shown is not None:
            shown.close()
        kept = records_kept(out)
        if isinstance(kept, str):
            print(f"pacman-ai: cannot count the students in {out} ({kept}); --resume grades the rest",
                  file=sys.stderr)
        else:
            print(f"pacman-ai: {kept} of {len(roster.submissions)} students are in {out}; "
                  "--resume grades the rest", file=sys.stderr)
        return report_stop(exc, [])
    except ClassError:
        if shown is not None:
            shown.close()
        raise
    if shown is not None:
        shown.close()
    by_student = {record.student: record for record in [*finished, *new]}
    records = [by_student[s.student] for s in roster.submissions if s.student in by_student]
    _write_outputs(args, setup, roster, records)
    if contest is not None:
        _play_contest(args, contest, roster, jobs)
    not_graded = [r for r in records if r.status != "graded"]
    return EXIT_NOT_ALL_GRADED if not_graded else 0


def _default_jobs() -> int:
    from pacman.batch.config import default_jobs

    return default_jobs()


def _check_outputs(args: argparse.Namespace, out: str) -> None:
    """Every output can take a whole new file, no two are one file, none is inside DIR; before any grading."""
    seen: dict[str, str] = {}
    folder = os.path.realpath(args.submission)
    for flag, target, is_folder in (("--out", out, False), ("--gradebook", args.gradebook, False),
                                    ("--json", args.json, False), ("--plot", args.plot, False),
                                    ("--similarity", args.similarity, False), ("--feedback", args.feedback, True),
                                    ("--leaderboard", args.leaderboard, False)):
        if target is None or target == "-":
            continue
        if not target.strip():
            raise _usage(f"{flag}: expected a file name, got an empty string")
        problem = output_problem(target, folder=is_folder)
        if problem is not None:
            raise _usage(f"{flag} {target}: {problem}")
        key = os.path.realpath(target)
        if key == folder or key.startswith(folder + os.sep):
            raise _usage(f"{flag} {target}: is inside the folder of submissions; write it elsewhere")
        if key in seen:
            raise _usage(f"{flag} {target}: is also the {seen[key]} file; give two different names")
        seen[key] = flag
    if args.plot is not None and not args.plot.lower().endswith(".png"):
        raise _usage(f"--plot {args.plot}: expected a .png file")


def _write_outputs(args: argparse.Namespace, setup: Any, roster: Any, records: list) -> None:
    """The gradebook, the reports, the feedback, the plot, the similarity report; then the summary on stdout."""
    from pacman.grading import gradebook

    questions = list(setup.questions)
    if args.gradebook:
        gradebook.write_gradebook(records, questions, args.gradebook)
    if args.json:
        data = {"assignment": setup.assignment_id, "shape": roster.shape,
                "skipped": [{"entry": entry, "reason": reason} for entry, reason in roster.skipped],
                "students": [record.to_json() for record in records]}
        if args.json == "-":
            print(json.dumps(data, indent=2))
        else:
            from pacman.files import write_json

            write_json(args.json, data)
    if args.feedback:
        gradebook.write_feedback(records, args.feedback)
    if args.plot:
        gradebook.plot_histograms(records, questions, args.plot)
    pairs = _similar_pairs(args, setup, roster) if args.similarity else None
    if args.json == "-":
        return
    print(gradebook.summary_text(records, questions))
    if pairs is not None:
        print(_pairs_text(pairs, args))
    for flag, target in (("gradebook", args.gradebook), ("reports", args.json), ("feedback", args.feedback),
                         ("plot", args.plot), ("similarity report", args.similarity)):
        if target:
            print(f"{flag}: {target}")


def _contest(args: argparse.Namespace, setup: Any) -> Any:
    """The assignment whose contest --leaderboard plays; a usage error when it has none."""
    from pacman.cs188.grading import is_classic_course

    if os.path.isdir(setup.assignment) and is_classic_course(setup.assignment):
        raise _usage("--leaderboard: a CS188 course folder has no contest; an assignment.toml declares one in "
                     "its [leaderboard] table")
    from pacman.grading.assignment import load_assignment

    assignment = load_assignment(setup.assignment)
    if assignment.leaderboard is None:
        raise _usage(f"--leaderboard: assignment {assignment.id!r} has no contest (no [leaderboard] table in its "
                     f"assignment.toml)")
    return assignment


def _play_contest(args: argparse.Namespace, assignment: Any, roster: Any, jobs: int) -> None:
    """Every student on the contest's games; the ranking written to --leaderboard and its top on stdout."""
    from pacman.grading.leaderboard import play_leaderboard, write_leaderboard_csv
    from pacman.progress import progress_for

    line = progress_for("grade", args.quiet)
    played = 0

    def shown(standing: Any) -> None:
        nonlocal played
        played += 1
        if line is not None:
            line(f"contest: {played}/{len(roster.submissions)} students played")

    try:
        standings = play_leaderboard(assignment, {s.student: s.path for s in roster.submissions}, jobs,
                                     sandbox_user=args.sandbox_user, on_standing=shown)
    finally:
        if line is not None:
            line.close()
    write_leaderboard_csv(standings, args.leaderboard)
    if args.json == "-":
        return
    contest = assignment.leaderboard
    print(f"Leaderboard ({len(contest.layouts)} layout{'s' if len(contest.layouts) != 1 else ''}, the same "
          f"seeded games for everyone; all {len(standings)} in {args.leaderboard}):")
    width = max(len(s.student) for s in standings)
    for standing in standings[:SHOWN_STANDINGS]:
        if standing.status == "failed":
            print(f"  {standing.rank:>3}  {standing.student:<{width}}  not ranked: {standing.failure}")
            continue
        low, high = standing.win_interval or (0.0, 0.0)
        print(f"  {standing.rank:>3}  {standing.student:<{width}}  won {standing.wins} of {len(standing.games)} "
              f"({standing.win_rate:.0%}, 95% {low:.0%}-{high:.0%}), mean score {standing.mean_score:.1f}")


def _similar_pairs(args: argparse.Namespace, setup: Any, roster: Any) -> list:
    """The pairs over the threshold, the starter left out; the HTML report written."""
    from pacman.grading import similarity

    threshold = similarity.DEFAULT_THRESHOLD if args.similarity_threshold is None else args.similarity_threshold
    files = {s.student: s.path for s in roster.submissions}
    starter_text = _starter_text(setup)
    with tempfile.TemporaryDirectory(prefix="pacman-ai-starter-") as folder:
        starter = None
        if starter_text is not None:
            starter = Path(folder) / setup.submission_file
            starter.write_text(starter_text, encoding="utf-8")
        return similarity.compare_submissions(files, starter, threshold=threshold, report=Path(args.similarity))


def _starter_text(setup: Any) -> str | None:
    """The assignment's starter file (our assignments'), or None (a classic folder has none)."""
    from pacman.cs188.grading import is_classic_course

    if os.path.isdir(setup.assignment) and is_classic_course(setup.assignment):
        return None
    from pacman.grading.assignment import load_assignment

    return load_assignment(setup.assignment).starter


def _pairs_text(pairs: list, args: argparse.Namespace) -> str:
    from pacman.grading import similarity

    threshold = similarity.DEFAULT_THRESHOLD if args.similarity_threshold is None else args.similarity_threshold
    if not pairs:
        return f"Similarity: no pair shares more than {threshold:.0%} of its code (the starter left out)."
    lines = [f"Similarity: {len(pairs)} pair{'s' if len(pairs) != 1 else ''} sharing more than {threshold:.0%} of "
             f"their code (the starter left out):"]
    width = max(len(p.first) for p in pairs)
    for pair in pairs:
        lines.append(f"  {pair.first:<{width}}  {pair.second}  {pair.share:.0%} "
                     f"({pair.share_first:.0%} of {pair.first}'s, {pair.share_second:.0%} of {pair.second}'s)")
    return "\n".join(lines)


class _ClassProgress:
    """Students graded so far, the errors and the time left, on one line (`pacman.progress.Progress`)."""

    def __init__(self, total: int, already: int, stream: Any) -> None:
        from pacman.progress import Progress

        self.total = total
        self.already = already
        self.graded = 0
        self.problems = 0
        self.line = Progress("grade", stream=stream)

    def start(self, text: str) -> None:
        self.line.note(text)

    def finished(self, record: Any) -> None:
        self.graded += 1
        if record.status != "graded":
            self.problems += 1
        done = self.already + self.graded
        status = "" if record.status == "graded" else f" ({record.status})"
        self.line(f"{done}/{self.total} students graded, {self.problems} not fully; last {record.student}{status}",
                  force=record.status != "graded")

    def close(self) -> None:
        self.line.close()
