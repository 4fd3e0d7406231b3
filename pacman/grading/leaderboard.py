"""The class contest: every student's code on the same seeded games of the assignment's contest, ranked.

The contest is the assignment's ``[leaderboard]`` table (`pacman.grading.assignment.Contest`):
its layouts, games per layout, first seed, ghosts, and the question whose code plays
(the student's ``better_evaluation`` inside the project's expectimax for an
evaluation question, the student's agent class for an agent question). Every student
plays game *i* of a layout on the same seed, ``seed + i``, with the ghosts drawn
from that seed, so everyone meets the same games.

Each student's games are played as a games test plays them (`pacman.grading.checks`,
`pacman.grading.sandbox.run_items`): in a sandboxed child process with the assignment's
memory cap and forbidden imports, each game under its move and game time limits, the
grader replaying every game from the actions the child reports and taking the score
and the outcome from its own replay. So a student whose code loops, crashes or
exits costs only their own row; with ``jobs > 1`` the students are played in parallel,
each in a worker process of its own (`pacman.batch.pool`), never two sandboxes under one
process.

The ranking is `pacman.compare.ranking`'s, the one ``pacman-ai compare`` uses: the higher
win rate first, the mean score breaking ties, equal standings sharing a rank; win rates
carry their Wilson interval and mean scores their t interval (`pacman.batch.stats`). A
student whose games failed (the file could not be loaded, imports a forbidden module,
defines nothing that plays, or a game crashed or timed out) is ranked last, with the
reason; a failed game counts as not won.

>>> standings = play_leaderboard(load_assignment("expectimax"), {"ada": Path("ada.py")}, jobs=2)  # doctest: +SKIP
>>> write_leaderboard_csv(standings, "leaderboard.csv")                                          # doctest: +SKIP
"""

from __future__ import annotations

import concurrent.futures as cf
import csv
import math
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from pacman.batch.stats import mean_interval, wilson_interval
from pacman.compare.ranking import competition_ranks, rank_key
from pacman.files import write_atomically
from pacman.grading.assignment import Assignment, AssignmentError, Contest
from pacman.grading.checks import Check, prepare
from pacman.grading.forbidden import Violation, find_violations
from pacman.grading.grader import SubmissionError, check_syntax, graded_names, read_submission
from pacman.grading.sandbox import SandboxRun, run_items

__all__ = ["LeaderboardError", "ContestGame", "Standing", "play_leaderboard", "rank_standings",
           "write_leaderboard_csv", "gradescope_leaderboard", "CSV_COLUMNS", "FAILED_OUTCOMES"]

#: The outcomes of a game that did not finish: a standing with any of them is failed (ranked last).
FAILED_OUTCOMES = ("crashed", "timed-out")
#: The columns of `write_leaderboard_csv`, in order.
CSV_COLUMNS = ("rank", "student", "status", "games", "wins", "win_rate", "win_rate_low", "win_rate_high",
               "mean_score", "score_low", "score_high", "layouts", "seeds", "reason")
#: A failed game's reason: how many more there were is said after the first.
_SHOWN = 1


class LeaderboardError(AssignmentError):
    """A contest that cannot be played as asked: no [leaderboard] table, no students, a bad student name or jobs."""


@dataclass(frozen=True)
class ContestGame:
    """One game of a student's contest, as the grader's replay of it says."""

    layout: str
    """The layout's name."""
    seed: int
    """The game's seed (the same for every student)."""
    outcome: str
    """"won", "lost", "cut-off" (the move limit), "timed-out" or "crashed"."""
    score: int | None
    """The replay's score; None for a game that did not finish (timed out, crashed)."""
    moves: int
    """Pacman moves played."""
    error: str | None = None
    """Why the game did not finish, if it did not."""

    @property
    def is_failed(self) -> bool:
        """Whether the game did not finish (`FAILED_OUTCOMES`)."""
        return self.outcome in FAILED_OUTCOMES

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; `from_dict` reads it back."""
        data = {"layout": self.layout, "seed": self.seed, "outcome": self.outcome, "score": self.score,
                "moves": self.moves}
        if self.error is not None:
            data["error"] = self.error
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ContestGame:
        """The game `to_dict` wrote."""
        return cls(data["layout"], data["seed"], data["outcome"], data["score"], data["moves"], data.get("error"))


@dataclass(frozen=True)
class Standing:
    """A student's row of the contest: rank, games, win rate and mean score with their intervals, or why it failed."""

    student: str
    """The student's key (the submissions mapping's)."""
    rank: int
    """1 for the best; equal standings share a rank; every failed standing has the rank after the last ranked one."""
    planned: int
    """The contest's games (every layout's)."""
    games: tuple[ContestGame, ...]
    """The games played, layout by layout, in seed order (none when the submission could not play)."""
    failure: str | None = None
    """Why the student's games failed (ranked last); None when every game finished."""

    @property
    def status(self) -> str:
        """``"ranked"``, or ``"failed"`` (see `failure`)."""
        return "ranked" if self.failure is None else "failed"

    @property
    def wins(self) -> int:
        """Games won."""
        return sum(1 for game in self.games if game.outcome == "won")

    @property
    def win_rate(self) -> float | None:
        """Wins over the contest's games (a game that failed is not won); None when no game was played."""
        return self.wins / self.planned if self.games else None

    @property
    def win_interval(self) -> tuple[float, float] | None:
        """The 95% Wilson interval of the win rate; None when no game was played."""
        return wilson_interval(self.wins, self.planned) if self.games else None

    @property
    def scores(self) -> list[int]:
        """The scores of the games that finished."""
        return [game.score for game in self.games if game.score is not None]

    @property
    def mean_score(self) -> float | None:
        """The mean score of the games that finished; None if none did."""
        scores = self.scores
        return math.fsum(scores) / len(scores) if scores else None

    @property
    def score_interval(self) -> tuple[float, float] | None:
        """The 95% t interval of the mean score; None for fewer than two finished games."""
        return mean_interval([float(score) for score in self.scores])

    @property
    def seeds(self) -> tuple[tuple[str, int], ...]:
        """(layout, seed) of every game played, in order: the same for every student who played them all."""
        return tuple((game.layout, game.seed) for game in self.games)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with every game (the statistics too, for readers; `from_dict` recomputes them)."""
        wins, scores = self.win_interval, self.score_interval
        return {"rank": self.rank, "student": self.student, "status": self.status, "games": self.planned,
                "wins": self.wins, "win_rate": self.win_rate, "win_interval": None if wins is None else list(wins),
                "mean_score": self.mean_score, "score_interval": None if scores is None else list(scores),
                "failure": self.failure, "played": [game.to_dict() for game in self.games]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Standing:
        """The standing `to_dict` wrote (a class's records read back, to rank them with others: `rank_standings`)."""
        return cls(data["student"], data["rank"], data["games"],
                   tuple(ContestGame.from_dict(game) for game in data["played"]), data.get("failure"))


# -- playing -----------------------------------------------------------------------------------------------


@dataclass
class _Plan:
    """One student's contest made ready: the source and what the sandbox runs, or why nothing can run."""

    student: str
    path: str
    source: str = ""
    failure: str | None = None


def _contest_of(assignment: Assignment) -> Contest:
    if assignment.leaderboard is None:
        raise LeaderboardError(f"assignment {assignment.id!r} has no contest: add a [leaderboard] table to its "
                               f"assignment.toml")
    return assignment.leaderboard


def _plan(assignment: Assignment, student: str, path: Path) -> _Plan:
    """Read and check the student's file as `grade` does before any of it runs (none of it runs here)."""
    from pacman.cs188.grading.detect import classic_hint, classic_imports

    plan = _Plan(student, str(path))
    try:
        source = read_submission(path)
        modules = classic_imports(source)
        if modules:
            raise SubmissionError(classic_hint(str(path), assignment.id, modules))
        check_syntax(source, path)
    except SubmissionError as exc:
        plan.failure = str(exc)
        return plan
    static = find_violations(source, path.name, assignment.forbid_imports)
    if static:
        more = f" (and {len(static) - 1} more)" if len(static) > 1 else ""
        plan.failure = f"forbidden import: {static[0].message}{more}"
        return plan
    plan.source, plan.path = source, str(path.resolve())
    return plan


def _sandbox_run(source: str, path: str, items: list[dict[str, Any]], time_limits: list[float], memory_mb: int,
                 user: str | None, forbid_imports: tuple[str, ...]) -> SandboxRun:
    """The student's contest games in the grading sandbox (run in a worker process of its own when parallel)."""
    return run_items(source, path, items, time_limits, memory_mb=memory_mb, user=user, forbid_imports=forbid_imports)


def _worker_run(*args: Any) -> SandboxRun:
    """`_sandbox_run` in a pool worker: orphans of the student's processes come back to the worker, which ends them."""
    from pacman.grading.reaper import become_subreaper

    become_subreaper()
    return _sandbox_run(*args)


def _not_played(run: SandboxRun, names: list[str]) -> str | None:
    """Why none of the student's code could play (it could not be loaded, or defines none of `names`); None if it
    could."""
    if run.import_error is not None:
        return run.import_error
    if run.defines is not None and names and not any(name in run.defines for name in names):
        return f"the submission defines nothing that plays the contest (no {', no '.join(names)})"
    return None


def _rule_broken(run: SandboxRun, file: str, rules: tuple[str, ...]) -> str | None:
    """A forbidden import tried, or a grading limit hit, while the student's games were played; None if neither."""
    for outcome in run.outcomes:
        for attempt in outcome.violations:
            violation = Violation.from_attempt(attempt, file, rules)
            if violation is not None:
                return f"forbidden import: {violation.message}"
    if run.limits:
        return f"a grading limit: {run.limits[0]}"
    return None


def _games(checks: list[Check], run: SandboxRun) -> list[ContestGame]:
    """Every game of the run as the grader's replay says (each check judges its layout's outcomes)."""
    games: list[ContestGame] = []
    start = 0
    for check in checks:
        outcomes = run.outcomes[start:start + len(check.items)]
        start += len(check.items)
        for game in check.judge(outcomes).items:
            failed = game["outcome"] in FAILED_OUTCOMES
            games.append(ContestGame(check.test.layout.name, int(game["seed"]), str(game["outcome"]),
                                     None if failed else int(game["score"]), int(game.get("moves") or 0),
                                     game.get("error") if failed else None))
    return games


def _failed_games_reason(games: list[ContestGame]) -> str | None:
    failed = [game for game in games if game.is_failed]
    if not failed:
        return None
    first = failed[0]
    what = "timed out" if first.outcome == "timed-out" else "crashed"
    return (f"{len(failed)} of {len(games)} games did not finish; the first, {first.layout} seed {first.seed}, "
            f"{what}: {first.error or 'no reason given'}")


def _check_inputs(submissions: Mapping[str, Path | str], jobs: int) -> None:
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise LeaderboardError(f"jobs: expected a whole number >= 1, got {jobs!r}")
    for student in submissions:
        if not isinstance(student, str) or not student.strip() or not student.isprintable():
            raise LeaderboardError(f"a student's key must be a printable, non-blank string, got {student!r}")


def play_leaderboard(
    assignment: Assignment,
    submissions: Mapping[str, Path | str],
    jobs: int = 1,
    *,
    sandbox_user: str | None = None,
    on_standing: Callable[[Standing], None] | None = None,
) -> list[Standing]:
    """Play every student's code on the assignment's contest and rank them: the standings, best first.

    `submissions` maps each student's key to their submission file. Every
    student's games run in the grading sandbox (as `sandbox_user`, if given: needs
    root), `jobs` students at a time, each in a worker process of its own when
    `jobs` > 1. A submission that cannot be read, compiled, loaded, or imports a
    forbidden module, or whose games crash or time out, gets a failed standing
    naming why, ranked last; nothing a submission does raises here. The standings
    are `rank_standings`'. `on_standing` is called with each student's standing as
    it is known (its rank not yet given: 0). Students played in separate calls (a
    class graded in parts, resumed) are ranked together by `rank_standings` over all
    their standings. Raises `LeaderboardError` when the assignment has no contest or
    an input is bad.
    """
    contest = _contest_of(assignment)
    _check_inputs(submissions, jobs)
    checks = [prepare(test) for test in contest.games_tests()]
    items = [item for check in checks for item in check.items]
    time_limits = [limit for check in checks for limit in check.time_limits]
    names = graded_names(items)
    planned = len(items)
    plans = [_plan(assignment, student, Path(path)) for student, path in submissions.items()]
    standings: list[Standing] = []

    def finish(plan: _Plan, run: SandboxRun | None) -> None:
        if run is None:
            standing = Standing(plan.student, 0, planned, (), plan.failure)
        else:
            failure = _not_played(run, names)
            games = [] if failure is not None else _games(checks, run)
            failure = failure or _rule_broken(run, Path(plan.path).name, assignment.forbid_imports) \
                or _failed_games_reason(games)
            standing = Standing(plan.student, 0, planned, tuple(games), failure)
        standings.append(standing)
        if on_standing is not None:
            on_standing(standing)

    runnable = [plan for plan in plans if plan.failure is None]
    for plan in plans:
        if plan.failure is not None:
            finish(plan, None)
    arguments = {plan.student: (plan.source, plan.path, items, time_limits, assignment.memory_mb, sandbox_user,
                                assignment.forbid_imports) for plan in runnable}
    if jobs == 1 or len(runnable) <= 1:
        for plan in runnable:
            finish(plan, _sandbox_run(*arguments[plan.student]))
    else:
        from pacman.batch.pool import process_pool, stop_pool

        pool = process_pool(min(jobs, len(runnable)))
        try:
            futures = {pool.submit(_worker_run, *arguments[plan.student]): plan for plan in runnable}
            for future in cf.as_completed(futures):
                plan = futures[future]
                try:
                    run = future.result()
                except Exception as exc:  # the worker itself died (killed, out of memory): this student's row only
                    plan.failure = f"the grader's worker process for the submission failed: {exc!r}"
                    run = None
                finish(plan, run)
        except BaseException:
            stop_pool(pool)
            raise
        pool.shutdown(wait=True)
    return rank_standings(standings)


def rank_standings(standings: Sequence[Standing]) -> list[Standing]:
    """The standings best first, each with its rank (whatever rank it had is replaced).

    By win rate, then mean score (`pacman.compare.ranking.rank_key`, the order of
    ``pacman-ai compare``); equal standings share a rank (``1, 1, 3``) and are listed
    by student key. Failed standings come last, listed by key, all with the rank
    after the last ranked one.
    """
    ranked = sorted((s for s in standings if s.failure is None),
                    key=lambda s: (rank_key(s.win_rate, s.mean_score), s.student))
    failed = sorted((s for s in standings if s.failure is not None), key=lambda s: s.student)
    ranks = competition_ranks([rank_key(s.win_rate, s.mean_score) for s in ranked])
    return ([replace(s, rank=rank) for s, rank in zip(ranked, ranks)]
            + [replace(s, rank=len(ranked) + 1) for s in failed])


# -- outputs -----------------------------------------------------------------------------------------------


def _number(value: float | None, digits: int = 6) -> str:
    """A CSV cell: blank for None, a whole number without ``.0``, else at most `digits` decimals."""
    if value is None:
        return ""
    rounded = round(float(value), digits)
    return str(int(rounded)) if rounded.is_integer() else f"{rounded:.{digits}f}".rstrip("0")


def write_leaderboard_csv(standings: Sequence[Standing], path: str | os.PathLike[str]) -> None:
    """Write the standings as a CSV file (`CSV_COLUMNS`, one row each, in the order given), atomically.

    ``win_rate`` and its interval are fractions (0 to 1); ``layouts`` lists the
    contest layouts played and ``seeds`` their seeds (``first-last``); a failed
    row's ``reason`` says why, and its mean score is over the games that finished
    (blank if none did).
    """
    rows = []
    for standing in standings:
        low, high = standing.win_interval or (None, None)
        interval = standing.score_interval
        seeds = sorted({seed for _, seed in standing.seeds})
        rows.append({"rank": standing.rank, "student": standing.student, "status": standing.status,
                     "games": standing.planned, "wins": standing.wins, "win_rate": _number(standing.win_rate),
                     "win_rate_low": _number(low), "win_rate_high": _number(high),
                     "mean_score": _number(standing.mean_score, 3),
                     "score_low": _number(None if interval is None else interval[0], 3),
                     "score_high": _number(None if interval is None else interval[1], 3),
                     "layouts": " ".join(dict.fromkeys(layout for layout, _ in standing.seeds)),
                     "seeds": "" if not seeds else f"{seeds[0]}-{seeds[-1]}" if len(seeds) > 1 else str(seeds[0]),
                     "reason": standing.failure or ""})

    def write(temporary: str) -> None:
        with open(temporary, "w", encoding="utf-8", newline="") as out:
            writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS)
            writer.writeheader()
            writer.writerows(rows)

    write_atomically(path, write)


def gradescope_leaderboard(standing: Standing) -> list[dict[str, Any]]:
    """The student's entries of Gradescope's ``leaderboard`` list: ``{name, value, order}`` each, higher is better.

    The win rate is in percent (failed games count as not won) and the mean score
    is over the games that finished; both are 0 when no game was played or
    finished (Gradescope sorts numbers).
    """
    mean = standing.mean_score
    return [{"name": "Win rate (%)", "value": round(100 * (standing.win_rate or 0.0), 2), "order": "desc"},
            {"name": "Mean score", "value": round(mean if mean is not None else 0.0, 2), "order": "desc"}]
