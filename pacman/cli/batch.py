"""`pacman-ai batch`: its flags, its progress display and its report.

The games themselves are `pacman.batch`'s; this module turns flags into
configurations, shows progress on stderr and prints or writes the summary.
Nothing here imports pygame.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from typing import Any

from pacman.agents.ghosts import GHOST_KINDS
from pacman.cli.args import (
    EXIT_GAMES_FAILED,
    check_run_flags,
    failed_games_report,
    is_failed_game,
    stop_status,
    stop_words,
    NO_MOVE_LIMIT,
    UsageError,
    max_moves,
    non_negative_int,
    non_negative_int_list,
    positive_float,
    positive_int,
)
from pacman.limits import MAX_MOVES_HELP
from pacman.files import same_file
from pacman.memory import batch_bytes, check_memory
from pacman.progress import GameProgress, stopped_run_note
from pacman.user_code import IMPORT_SECONDS_HELP, VERBOSE_HELP, parse_import_seconds

__all__ = ["add_parser", "run", "Progress"]


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the `batch` subcommand to the subparsers of the `pacman-ai` parser."""
    batch = commands.add_parser(
        "batch", help="play many games headless, in parallel; JSONL results and a summary",
        description="Play N games per configuration without a display, in parallel, seeded, streaming one JSON "
                    "line per game; comma lists in --layout, --pacman, --agent-args, --ghosts and --num-ghosts "
                    "sweep every combination (at most 1000). Summary table on stdout.")
    batch.add_argument("--layout", default="medium", metavar="NAME[,NAME...]",
                       help="layouts (names or .lay paths), comma-separated to sweep (default: medium)")
    batch.add_argument("--pacman", default="expectimax", metavar="NAME[,NAME...]",
                       help="Pacman agents as in play, comma-separated to sweep (default: expectimax)")
    batch.add_argument("--agent-args", default=None, metavar="K=V[,V...],...",
                       help="agent arguments as in play; several values of a key sweep them: depth=1,2,3")
    batch.add_argument("--ghosts", default="random", metavar="KIND[,KIND]",
                       help=f"ghost kinds, comma-separated to sweep: {', '.join(GHOST_KINDS)} (default: random)")
    batch.add_argument("--num-ghosts", type=non_negative_int_list, default=None, metavar="N[,N...]",
                       help="keep the layout's first N ghosts; comma-separated to sweep (default: all)")
    batch.add_argument("--games", type=positive_int, default=100, metavar="N",
                       help="games per configuration (default: 100; at most 10^9 games in all)")
    batch.add_argument("--seed", type=non_negative_int, default=0,
                       help="batch seed, 0 to 2^64-1; game i's seed is derived from it and i (default: 0)")
    batch.add_argument("--max-moves", type=max_moves, default=None, metavar="N|none", help=MAX_MOVES_HELP)
    batch.add_argument("--move-time-limit", type=positive_float, default=None, metavar="SECONDS",
                       help="an agent that thinks longer than this on one move ends its game as timed out "
                            "(at most 86400)")
    batch.add_argument("--jobs", type=positive_int, default=None, metavar="N",
                       help="worker processes (default: the number of cores; at most 16 or twice the cores); with "
                            "--dask local, Dask workers")
    batch.add_argument("--dask", default=None, metavar="ADDRESS",
                       help="run the games on the Dask scheduler at ADDRESS (tcp://host:8786), or 'local' for a "
                            "LocalCluster on this machine (needs the dask extra)")
    batch.add_argument("--stall-timeout", type=positive_float, default=None, metavar="SECONDS",
                       help="a worker process that gives no sign of life this long (stopped, or hung) is killed and "
                            "its games are played again (default: 60; process pool only)")
    batch.add_argument("--out", default=None, metavar="FILE.jsonl",
                       help="append one JSON line per game to FILE as each game ends")
    batch.add_argument("--resume", action="store_true",
                       help="continue --out: play only the games it does not have (its flags must match)")
    batch.add_argument("--force", action="store_true", help="overwrite an existing --out file")
    batch.add_argument("--summary", default=None, metavar="FILE.json", help="write the summary as JSON")
    batch.add_argument("--plot", default=None, metavar="FILE.png",
                       help="draw win rate (with its 95%% interval) and mean score per configuration "
                            "(.png, .svg or .pdf; needs the plot extra)")
    batch.add_argument("--json", action="store_true", help="print the summary as JSON instead of a table")
    batch.add_argument("--quiet", action="store_true", help="no progress display on stderr")
    batch.add_argument("--verbose", action="store_true", help=VERBOSE_HELP)
    batch.add_argument("--import-seconds", type=parse_import_seconds, default=None, metavar="SECONDS",
                       help=IMPORT_SECONDS_HELP)
    return batch


Progress = GameProgress
"""The games-done display (`pacman.progress.GameProgress`), under the name this module always gave it."""


def _say(text: str) -> None:
    """One line on stderr; nothing if stderr is gone (a closed terminal)."""
    try:
        print(text, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def run(args: argparse.Namespace) -> int:
    """Run `pacman-ai batch`; returns the exit status (130 after Ctrl-C, 128 + N after signal N, 3 when stopped)."""
    from pacman.user_code import applied, current_options

    # --verbose and --import-seconds hold for the whole run: the imports here, and every game's job to a worker.
    with applied(current_options(args.verbose, args.import_seconds)):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from pacman.batch.cluster import dask_executor
    from pacman.batch.config import check_batch_numbers, default_jobs, validate_config, with_default_max_moves
    from pacman.batch.results import check_out, check_writable
    from pacman.batch.runner import STALL_TIMEOUT, run_batch, stop_on_signals
    from pacman.batch.sweep import expand_sweep, format_table, parse_agent_args_sweep, split_list

    prog = "pacman-ai batch"
    check_run_flags(prog, args)
    if args.dask and args.stall_timeout is not None:
        raise UsageError(f"{prog}: --stall-timeout applies to the process pool; Dask watches its own workers "
                         f"(its distributed.scheduler.worker-ttl setting)")
    if args.plot is not None and os.path.splitext(args.plot)[1].lower() not in (".png", ".svg", ".pdf"):
        raise UsageError(f"{prog}: --plot {args.plot}: expected a .png, .svg or .pdf file")
    outputs = [(flag, path) for flag, path in (("--out", args.out), ("--summary", args.summary),
                                                ("--plot", args.plot)) if path is not None]
    for number, (flag, path) in enumerate(outputs):
        for other_flag, other in outputs[:number]:
            if same_file(path, other):
                raise UsageError(f"{prog}: {other_flag} and {flag} name the same file {path}: one would "
                                 f"overwrite the other")
    if args.out is not None:
        check_out(args.out, resume=args.resume, overwrite=args.force)
    for flag, path in (("--summary", args.summary), ("--plot", args.plot)):
        if path is not None:
            check_writable(path, flag)
    if args.plot is not None:
        from pacman.batch.plot import require_matplotlib

        require_matplotlib()
    check_batch_numbers(args.games, args.seed, args.jobs)
    configs = expand_sweep(
        split_list(args.layout, "--layout"), split_list(args.pacman, "--pacman"),
        parse_agent_args_sweep(args.agent_args), split_list(args.ghosts, "--ghosts"),
        args.num_ghosts or [None], max_moves=None if args.max_moves == NO_MOVE_LIMIT else args.max_moves,
        move_time_limit=args.move_time_limit)
    if args.max_moves is None:  # the default: each layout's own bound, so that no game runs forever
        configs = [with_default_max_moves(config) for config in configs]
    check_batch_numbers(args.games, args.seed, args.jobs, len(configs))
    for config in configs:  # before a cluster is started for nothing
        validate_config(config)
    total = args.games * len(configs)
    check_memory(f"a batch of {total:,} game{'s' if total != 1 else ''}",
                 batch_bytes(args.games, [config.max_moves for config in configs],
                             0 if args.dask and args.dask != "local" else args.jobs or default_jobs()),
                 "every game's line is kept until the summary")
    progress = None if args.quiet else Progress(total, workers=args.jobs or default_jobs())
    stall = STALL_TIMEOUT if args.stall_timeout is None else args.stall_timeout
    with stop_on_signals(), contextlib.ExitStack() as stack:  # SIGTERM and SIGHUP stop the run as Ctrl-C does
        if progress is not None:
            stack.callback(progress.close)
            progress.start(f"{total:,} game{'s' if total != 1 else ''} of {len(configs)} configuration"
                           f"{'s' if len(configs) != 1 else ''}, seed {args.seed}")
        executor, jobs = None, args.jobs
        if args.dask:
            executor, jobs, description = stack.enter_context(dask_executor(args.dask, workers=args.jobs))
            if progress is not None and jobs:
                progress.workers = max(1, int(jobs))
        result = run_batch(configs, args.games, args.seed, jobs=jobs, executor=executor, out=args.out,
                           resume=args.resume, overwrite=args.force, on_game=progress,
                           on_resume=None if progress is None else progress.resumed,
                           on_note=lambda note: _say(f"pacman-ai: {note}"), stall_timeout=stall)
        if args.dask:
            result.executor = description
    if progress is not None:
        progress.close()
    summary = result.summary()
    try:  # after SIGHUP the terminal may be gone: the file is what counts, and it is complete
        if args.json:
            print(json.dumps(summary, indent=2))
        else:
            print(format_table(summary))
            state = "interrupted: " if result.interrupted else ""
            speed = f", {summary['games_per_second']:.1f} games/s" if summary["games_per_second"] else ""
            print(f"{state}{summary['games']} of {summary['games_planned']} games (seed {args.seed}), "
                  f"{summary['played']} played in {summary['seconds']:.1f} s{speed} on {summary['executor']}"
                  + (f"; {summary['retried']} replayed after a worker died or stalled" if summary["retried"] else ""),
                  flush=True)
    except BrokenPipeError:  # the reader went away (`| head`): the command's usual quiet ending
        raise
    except (OSError, ValueError):
        pass
    if result.interrupted:
        why = stop_words(result.stop_signal, result.stopped_by)
        note = stopped_run_note(args.out, args.resume, result.played, why)
        _say(note if note is not None else f"pacman-ai: {why}; no --out file: the games played are in the table only")
        return stop_status(result.stop_signal, result.stopped_by)
    if args.summary is not None:
        from pacman.batch.results import write_summary

        write_summary(args.summary, summary)
    if args.plot is not None:
        from pacman.batch.plot import plot_summary

        plot_summary(summary, args.plot)
    failed = [record for record in result.records if is_failed_game(record)]
    if failed:
        for line in failed_games_report(failed[0], len(failed), len(result.records)):
            _say(line)
        return EXIT_GAMES_FAILED
    return 0
