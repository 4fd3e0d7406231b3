"""`pacman-ai compare`: configurations on the same seeds, paired statistics, a sequential test, a ranked table.

Each configuration is a repeated ``--config NAME:FLAGS``, FLAGS being the
batch's per-configuration flags (``--layout``, ``--pacman``, ``--agent-args``,
``--ghosts``, ``--num-ghosts``) with single values; the same flags given
outside any --config are shared by every configuration, and a configuration's
own flags override them (its agent arguments key by key). The games are
`pacman.batch`'s, so the results file has a batch's guarantees. Nothing here
imports pygame.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import sys
from typing import Any

from pacman.cli.args import (EXIT_GAMES_FAILED, UsageError, check_run_flags, failed_games_report, is_failed_game,
                              max_moves, non_negative_int, positive_float, positive_int, stop_status, stop_words)
from pacman.errors import PacmanError
from pacman.limits import MAX_MOVES_HELP, NO_LIMIT
from pacman.user_code import IMPORT_SECONDS_HELP, VERBOSE_HELP, parse_import_seconds

__all__ = ["add_parser", "run", "parse_config", "DEFAULT_GAMES", "DEFAULT_SPRT_GAMES"]

#: Games per configuration without --sprt.
DEFAULT_GAMES = 100
#: The most games per configuration a sequential test may use unless --games says otherwise.
DEFAULT_SPRT_GAMES = 5000

#: The flags a --config may set, and the GameConfig field each sets.
SIDE_FLAGS = {"--layout": "layout", "--pacman": "pacman", "--agent-args": "agent_args", "--ghosts": "ghosts",
              "--num-ghosts": "num_ghosts"}
#: The orders of --rank-by, the default first: `pacman.compare.ranking.RANK_BY` (not imported to build the parser,
#: which would load the batch machinery into every command; tests/test_compare_exact.py checks they agree).
RANK_BY = ("win-rate", "score")


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the `compare` subcommand to the subparsers of the `pacman-ai` parser."""
    compare = commands.add_parser(
        "compare", help="is B better than A? configurations on the same seeds: paired statistics, SPRT, ratings",
        description="Play two or more configurations on the same seeds (game i of each has the same seed), in "
                    "parallel, and compare them seed by seed: paired win-rate difference with McNemar's exact test, "
                    "mean score difference with t and bootstrap intervals and the Wilcoxon signed-rank test; with "
                    "--sprt, a sequential test that stops as soon as the answer is clear; a table ranked by win "
                    "rate, then mean score (--rank-by score for the other order), with pairwise win probabilities "
                    "and Bradley-Terry ratings. Each configuration is "
                    "--config NAME:FLAGS, e.g. --config d2:'--agent-args depth=2'; flags outside --config are "
                    "shared.",
        epilog="example: pacman-ai compare --layout tricky --config d2:'--agent-args depth=2' "
               "--config d3:'--agent-args depth=3' --sprt win-rate:0,0.1 --out d2-d3.jsonl")
    compare.add_argument("--config", action="append", default=[], metavar="NAME:FLAGS", dest="configs",
                         help="a configuration: a name, a colon, and its own --layout, --pacman, --agent-args, "
                              "--ghosts, --num-ghosts (one value each); give it two or more times. The first is A, "
                              "the second B; differences are B - A. Each is played under its name (in every line "
                              "of --out), so two may have the same flags")
    compare.add_argument("--layout", default="medium", metavar="NAME",
                         help="layout of every configuration that does not set its own (default: medium)")
    compare.add_argument("--pacman", default="expectimax", metavar="NAME",
                         help="Pacman agent shared by the configurations (default: expectimax)")
    compare.add_argument("--agent-args", default=None, metavar="K=V,...",
                         help="agent arguments shared by the configurations; a configuration's own override "
                              "them key by key")
    compare.add_argument("--ghosts", default="random", metavar="KIND",
                         help="ghost kind shared by the configurations: random or directional (default: random)")
    compare.add_argument("--num-ghosts", type=non_negative_int, default=None, metavar="N",
                         help="keep the layout's first N ghosts (default: all)")
    compare.add_argument("--games", type=positive_int, default=None, metavar="N",
                         help=f"games per configuration, i.e. seeds (default: {DEFAULT_GAMES}; with --sprt the most "
                              f"the test may use, default {DEFAULT_SPRT_GAMES})")
    compare.add_argument("--seed", type=non_negative_int, default=0,
                         help="batch seed, 0 to 2^64-1; game i of every configuration has the seed derived from it "
                              "and i (default: 0)")
    compare.add_argument("--max-moves", type=max_moves, default=None, metavar="N|none", help=MAX_MOVES_HELP)
    compare.add_argument("--move-time-limit", type=positive_float, default=None, metavar="SECONDS",
                         help="an agent that thinks longer than this on one move ends its game as timed out")
    compare.add_argument("--sprt", default=None, metavar="METRIC:H0,H1",
                         help="sequential test of B against A, stopping at its verdict: win-rate:0,0.02 (H0: B's "
                              "win rate is A's, H1: 2 points above) or score:0,20 (mean score difference in points)")
    compare.add_argument("--alpha", type=float, default=0.05,
                         help="with --sprt: the largest probability of accepting H1 when H0 holds (default: 0.05)")
    compare.add_argument("--beta", type=float, default=0.05,
                         help="with --sprt: the largest probability of accepting H0 when H1 holds (default: 0.05)")
    compare.add_argument("--jobs", type=positive_int, default=None, metavar="N",
                         help="worker processes (default: the number of cores); with --dask local, Dask workers")
    compare.add_argument("--dask", default=None, metavar="ADDRESS",
                         help="run the games on the Dask scheduler at ADDRESS, or 'local' (needs the dask extra)")
    compare.add_argument("--out", default=None, metavar="FILE.jsonl",
                         help="append one JSON line per game to FILE as each game ends (a batch's results file)")
    compare.add_argument("--resume", action="store_true",
                         help="continue --out: play only the games it does not have (the configurations must match)")
    compare.add_argument("--force", action="store_true", help="overwrite an existing --out file")
    compare.add_argument("--plot", default=None, metavar="FILE.png",
                         help="draw the paired differences (two configurations) or the ratings and pairwise "
                              "probabilities (more) (.png, .svg or .pdf; needs the plot extra)")
    compare.add_argument("--summary", default=None, metavar="FILE.json",
                         help="write the comparison as JSON (what --json prints: the configurations, the paired "
                              "statistics, the ranking, the sequential test) to FILE, replaced whole when the run "
                              "ends (not when it is interrupted)")
    compare.add_argument("--rank-by", choices=RANK_BY, default=RANK_BY[0],
                         help="the order of the ranked table: win-rate (the higher win rate first, the mean score "
                              "breaking ties; the default) or score (the higher mean score first, the win rate "
                              "breaking ties)")
    compare.add_argument("--json", action="store_true", help="print the comparison as JSON instead of a table")
    compare.add_argument("--quiet", action="store_true", help="no progress display on stderr")
    compare.add_argument("--verbose", action="store_true", help=VERBOSE_HELP)
    compare.add_argument("--import-seconds", type=parse_import_seconds, default=None, metavar="SECONDS",
                         help=IMPORT_SECONDS_HELP)
    return compare


def _side_flags(name: str, text: str, spec: str) -> dict[str, str]:
    """The flags of one --config, as {flag: value}; UsageError naming the --config otherwise."""
    where = f"pacman-ai compare: --config {spec}"
    try:
        tokens = shlex.split(text)
    except ValueError as exc:
        raise UsageError(f"{where}: cannot split its flags: {exc}") from None
    flags: dict[str, str] = {}
    position = 0
    while position < len(tokens):
        token = tokens[position]
        flag, equals, value = token.partition("=")
        if flag not in SIDE_FLAGS:
            raise UsageError(f"{where}: {token!r} is not one of its flags ({', '.join(SIDE_FLAGS)})")
        if not equals:
            if position + 1 >= len(tokens):
                raise UsageError(f"{where}: {flag} needs a value")
            position += 1
            value = tokens[position]
        if flag in flags:
            raise UsageError(f"{where}: {flag} given twice")
        if flag != "--agent-args" and "," in value:
            raise UsageError(f"{where}: {flag} {value!r}: one value per configuration (a comparison is not a "
                             f"sweep; give each value its own --config)")
        flags[flag] = value
        position += 1
    return flags


def parse_config(spec: str, shared: argparse.Namespace) -> tuple[str, Any]:
    """``d3:--agent-args depth=3`` -> (``"d3"``, its GameConfig): the shared flags overridden by its own."""
    from pacman.batch.config import MAX_NAME_LENGTH

    name, colon, text = spec.partition(":")
    name = name.strip()
    if not colon or not name:
        raise UsageError(f"pacman-ai compare: --config {spec!r}: expected NAME:FLAGS, e.g. "
                         f"d3:'--agent-args depth=3'")
    if not name.isprintable() or len(name) > MAX_NAME_LENGTH:
        raise UsageError(f"pacman-ai compare: --config {spec!r}: a name is printable and at most "
                         f"{MAX_NAME_LENGTH} characters (it is written in every line of --out)")
    flags = _side_flags(name, text, spec)
    try:
        return name, _config_of(flags, shared, spec)
    except PacmanError as exc:  # which configuration is wrong, not only what
        raise UsageError(f"pacman-ai compare: --config {spec}: {exc}") from None


def _config_of(flags: dict[str, str], shared: argparse.Namespace, spec: str) -> Any:
    from pacman.agents import parse_agent_args
    from pacman.batch.config import GameConfig, with_default_max_moves

    args = parse_agent_args(shared.agent_args)
    args.update(parse_agent_args(flags.get("--agent-args")))
    num_ghosts = shared.num_ghosts
    if "--num-ghosts" in flags:
        try:
            num_ghosts = non_negative_int(flags["--num-ghosts"])
        except argparse.ArgumentTypeError as exc:
            raise UsageError(f"pacman-ai compare: --config {spec}: --num-ghosts: {exc}") from None
    config = GameConfig.create(flags.get("--layout", shared.layout), flags.get("--pacman", shared.pacman), args,
                               ghosts=flags.get("--ghosts", shared.ghosts), num_ghosts=num_ghosts,
                               max_moves=None if shared.max_moves == NO_LIMIT else shared.max_moves,
                               move_time_limit=shared.move_time_limit)
    if shared.max_moves is None:  # the default, as batch plays it: the layout's own limit, recorded in every line
        config = with_default_max_moves(config)
    return config


class _SprtProgress:
    """The sequential test's LLR as pairs come in, through the shared progress line (`pacman.progress`): rate-
    limited, with its heartbeat, and always the line of the verdict."""

    def __init__(self) -> None:
        from pacman.progress import Progress

        self.line = Progress("compare")

    def start(self, what: str) -> None:
        self.line.note(what)
        self.line.hold("sprt: waiting for the first pair")

    def __call__(self, pairs: int, sprt: Any) -> None:
        from pacman.compare.report import format_sprt_progress

        if sprt is None:
            return
        verdict = f": {sprt.verdict} accepted" if sprt.verdict else ""
        self.line(format_sprt_progress(pairs, sprt) + verdict, force=bool(sprt.verdict))

    def close(self) -> None:
        self.line.close()


def run(args: argparse.Namespace) -> int:
    """Run `pacman-ai compare`; returns the exit status (130 when interrupted)."""
    from pacman.user_code import applied, current_options

    # --verbose and --import-seconds hold for the whole run: the imports here, and every game's job to a worker.
    with applied(current_options(args.verbose, args.import_seconds)):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from pacman.batch.cluster import dask_executor
    from pacman.batch.config import check_batch_numbers, default_jobs, validate_config
    from pacman.batch.results import check_out, check_writable
    from pacman.files import same_file
    from pacman.compare.comparison import CompareError, compare
    from pacman.compare.sprt import SprtHypotheses
    from pacman.memory import batch_bytes, check_memory
    from pacman.progress import GameProgress, stopped_run_note
    from pacman.process_guard import stop_on_signals

    prog = "pacman-ai compare"
    if len(args.configs) < 2:
        raise UsageError(f"{prog}: give at least two configurations, each as --config NAME:FLAGS "
                         f"(e.g. --config d2:'--agent-args depth=2' --config d3:'--agent-args depth=3')")
    check_run_flags(prog, args)
    if args.plot is not None and os.path.splitext(args.plot)[1].lower() not in (".png", ".svg", ".pdf"):
        raise UsageError(f"{prog}: --plot {args.plot}: expected a .png, .svg or .pdf file")
    if args.sprt is None and (args.alpha != 0.05 or args.beta != 0.05):
        raise UsageError(f"{prog}: --alpha and --beta are the sequential test's: they need --sprt")
    outputs = [(flag, path) for flag, path in (("--out", args.out), ("--summary", args.summary),
                                                ("--plot", args.plot)) if path is not None]
    for number, (flag, path) in enumerate(outputs):
        for other_flag, other in outputs[:number]:
            if same_file(path, other):
                raise UsageError(f"{prog}: {other_flag} and {flag} name the same file {path}: one would "
                                 f"overwrite the other")
    sprt = None if args.sprt is None else SprtHypotheses.parse(args.sprt, args.alpha, args.beta)
    games = args.games if args.games is not None else DEFAULT_SPRT_GAMES if sprt is not None else DEFAULT_GAMES
    named = [parse_config(spec, args) for spec in args.configs]
    if sprt is not None and len(named) != 2:
        raise CompareError(f"--sprt tests B against A: it needs exactly two configurations, got {len(named)}")
    if args.out is not None:
        check_out(args.out, resume=args.resume, overwrite=args.force)
    for flag, path in (("--summary", args.summary), ("--plot", args.plot)):
        if path is not None:
            check_writable(path, flag)
    if args.plot is not None:
        from pacman.batch.plot import require_matplotlib

        require_matplotlib()
    check_batch_numbers(games, args.seed, args.jobs, len(named))
    for (_, config), spec in zip(named, args.configs):  # before a cluster is started for nothing
        try:
            validate_config(config)
        except PacmanError as exc:
            raise UsageError(f"{prog}: --config {spec}: {exc}") from None
    total = games * len(named)
    check_memory(f"a comparison of {total:,} games", batch_bytes(
        games, [config.max_moves for _, config in named],
        0 if args.dask and args.dask != "local" else args.jobs or default_jobs()),
        "every game's line is kept until the statistics")
    # One display: games done, or with --sprt the test's LLR pair by pair.
    progress = None if args.quiet or sprt is not None else GameProgress(
        games * len(named), command="compare", workers=args.jobs or default_jobs())
    sprt_progress = None if args.quiet or sprt is None else _SprtProgress()
    with stop_on_signals(), contextlib.ExitStack() as stack:  # SIGTERM and SIGHUP stop the run as Ctrl-C does
        for display in (progress, sprt_progress):
            if display is not None:  # said at once: the first pair can take minutes
                stack.callback(display.close)
                most = "at most " if sprt is not None else ""
                display.start(f"{len(named)} configurations x {most}{games:,} game{'s' if games != 1 else ''} "
                              f"(seed {args.seed}): {', '.join(name for name, _ in named)}")
        executor, jobs, description = None, args.jobs, None
        if args.dask:
            executor, jobs, description = stack.enter_context(dask_executor(args.dask, workers=args.jobs))
            if progress is not None and jobs:
                progress.workers = max(1, int(jobs))
        result = compare(named, games, args.seed, sprt=sprt, jobs=jobs, executor=executor, out=args.out,
                         resume=args.resume, overwrite=args.force,
                         on_game=progress, on_resume=None if progress is None else progress.resumed,
                         on_pair=sprt_progress, rank_by=args.rank_by)
        if description is not None:
            result.executor = description
    for display in (progress, sprt_progress):
        if display is not None:
            display.close()
    data = result.to_dict()
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        from pacman.compare.report import format_comparison

        print(format_comparison(result))
    if result.interrupted:
        why = stop_words(result.stop_signal, result.stopped_by)
        note = stopped_run_note(args.out, args.resume, result.played, why)
        if note is not None:
            print(note, file=sys.stderr)
        return stop_status(result.stop_signal, result.stopped_by)
    if args.summary is not None:
        from pacman.batch.results import write_summary

        write_summary(args.summary, data)
    if args.plot is not None and result.pairs:
        from pacman.compare.plot import plot_comparison

        plot_comparison(result, args.plot)
    records = [record for lines in result.records.values() for record in lines]
    failed = [record for record in records if is_failed_game(record)]
    if failed:
        for line in failed_games_report(failed[0], len(failed), len(records)):
            print(line, file=sys.stderr)
        return EXIT_GAMES_FAILED
    return 0
