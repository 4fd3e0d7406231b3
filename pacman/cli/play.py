"""`pacman-ai play`: play games on a layout and show them (a window, the terminal) or report them (--json).

It can save each game as a replay file (--save) and record it as a GIF, an MP4
or PNG frames (--record); outputs are checked before the first move.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
from typing import Any

from pacman.cli.args import (
    EXIT_GAMES_FAILED,
    UsageError,
    failed_games_report,
    bounded_int,
    check_output,
    max_moves,
    non_negative_int,
    numbered,
    report_stop,
)
from pacman.limits import DEFAULT, MAX_MOVES_HELP, resolve_max_moves
from pacman.user_code import IMPORT_SECONDS_HELP, VERBOSE_HELP, parse_import_seconds
from pacman.files import same_file
from pacman.cli.display import (DISPLAYS, add_web_arguments, check_frame_size, check_web_flags, check_window_flags,
                                display_choice, fps, text_display, web_view, zoom)

__all__ = ["add_parser", "run", "MAX_PLAY_GAMES", "MAX_MOVE_TIME_LIMIT", "REAL_TIME_BUDGET", "SLOW_SEARCH_LEAVES"]

MAX_PLAY_GAMES = 10_000
"""play --games: watching more games than this is a batch run."""
MAX_MOVE_TIME_LIMIT = 86_400.0
"""--move-time-limit: at most a day per move."""


REAL_TIME_BUDGET = 0.05
"""Seconds a move of the default search agent may take when its fixed-depth tree would be slow."""
SLOW_SEARCH_LEAVES = {"compiled": 2e6, "python": 2e5}
"""Estimated leaves per move (`estimated_leaves`) above which a fixed-depth search counts as slow, per engine:
about 12x (compiled) and 1.2x (Python) the largest shipped layout's at depth 2, so no shipped layout is touched."""


def _move_time_limit(text: str) -> float:
    """The --move-time-limit argument type: seconds above 0, at most a day."""
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not 0 < value <= MAX_MOVE_TIME_LIMIT:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds up to {MAX_MOVE_TIME_LIMIT:g}, "
                                         f"got {text!r}")
    return value


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the `play` subcommand to the subparsers of the `pacman-ai` parser."""
    from pacman.agents import GHOST_KINDS, PACMAN_AGENTS

    play = commands.add_parser("play", help="play games and watch them (terminal) or report them (--json)",
                               description="Play games on a layout and show or report them.")
    play.add_argument("--layout", default="medium", help="shipped layout name or .lay path (default: medium)")
    play.add_argument("--pacman", default="expectimax", metavar="NAME",
                      help=f"Pacman agent: {', '.join(PACMAN_AGENTS)}, keyboard, module:Class, file.py:Class or "
                           f"sb3:MODEL.zip (a policy saved by Stable-Baselines3; needs pacman-ai[rl]) "
                           f"(default: expectimax)")
    play.add_argument("--agent-args", default=None, metavar="K=V,...",
                      help="keyword arguments for the Pacman agent, e.g. depth=3,evaluation=better,time_limit=0.2 "
                           "(default for expectimax: depth=auto,evaluation=dots)")
    play.add_argument("--ghosts", default="random", choices=sorted(GHOST_KINDS),
                      help="ghost agent kind (default: random)")
    play.add_argument("--num-ghosts", type=non_negative_int, default=None, metavar="N",
                      help="keep the layout's first N ghosts (default: all)")
    play.add_argument("--seed", type=non_negative_int, default=None,
                      help="seed of the first game; the next games use seed + 1, seed + 2, ... (default: random, "
                           "reported)")
    play.add_argument("--games", type=bounded_int(1, MAX_PLAY_GAMES, " (use `pacman-ai batch` for more)"), default=1,
                      metavar="N", help=f"games to play, at most {MAX_PLAY_GAMES:,} (default: 1)")
    play.add_argument("--max-moves", type=max_moves, default=None, metavar="N|none", help=MAX_MOVES_HELP)
    play.add_argument("--move-time-limit", type=_move_time_limit, default=None, metavar="SECONDS",
                      help="an agent that thinks longer than this on one move ends its game, at most 86400 "
                           "(default: none)")
    play.add_argument("--display", choices=DISPLAYS, default=None,
                      help="how to show the game (default: a pygame window when a display exists, else the "
                           "terminal; none with --json); web: live in a web browser, served from this machine "
                           "(see --host, --port)")
    play.add_argument("--fps", type=fps, default=8.0,
                      help="rounds (Pacman's move and every ghost's) shown per second, 0.1 to 1000 (default: 8)")
    play.add_argument("--json", action="store_true",
                      help="print one JSON object per game on stdout (the board, if drawn, goes to stderr)")
    play.add_argument("--zoom", type=zoom, default=1.0,
                      help="scale of the pygame view and of --record, 0.1 to 8 (1: 32-pixel cells; the window can "
                           "also be resized); a frame may have at most 8,388,608 pixels")
    play.add_argument("--record", metavar="OUT", default=None,
                      help="record the game: OUT.gif, OUT.mp4 (needs the video extra) or a folder of PNG frames")
    play.add_argument("--force", action="store_true",
                      help="with --record FOLDER: replace the PNG frames a folder already holds (a folder that is "
                           "not empty is refused without it)")
    play.add_argument("--tree", action="store_true",
                      help="start with the tree panel shown (the key t toggles it): the top of each decision, "
                           "searched again for the panel (also in --record)")
    play.add_argument("--save", metavar="GAME.json", default=None,
                      help="write a replay file of the game, with what Pacman's search found at each move "
                           "(with --games N: GAME-0.json, GAME-1.json, ...)")
    play.add_argument("--html", metavar="OUT.html", default=None,
                      help="write the game as one self-contained web page that plays it, with the values panel "
                           "(with --games N: OUT-0.html, ...)")
    play.add_argument("--verbose", action="store_true", help=VERBOSE_HELP)
    play.add_argument("--import-seconds", type=parse_import_seconds, default=None, metavar="SECONDS",
                      help=IMPORT_SECONDS_HELP)
    add_web_arguments(play)
    return play


def _real_time_budget(args: argparse.Namespace, agent_args: dict[str, Any], layout: Any,
                      num_ghosts: int) -> float | None:
    """A time_limit for the default search agent where its fixed-depth tree would be slow, said once; else None.

    Only when the user chose neither `depth` nor `time_limit`: the agent then
    deepens iteratively up to its default depth within `REAL_TIME_BUDGET` (or what
    --move-time-limit allows), so that it answers in real time on a crowded maze.
    Where depth 2 is already fast (every shipped layout) nothing changes.
    """
    from pacman.agents import PACMAN_AGENTS
    from pacman.agents.compiled import core_status
    from pacman.agents.expectimax import estimated_leaves
    from pacman.game import agent_time_allowance

    if args.pacman not in PACMAN_AGENTS or "depth" in agent_args or "time_limit" in agent_args:
        return None
    from pacman.agent_specs import effective_agent_args

    defaults = effective_agent_args(args.pacman, agent_args, ghosts=args.ghosts)
    depth = defaults.get("depth")
    deepest = None
    budget = REAL_TIME_BUDGET
    if args.move_time_limit is not None:
        budget = min(budget, agent_time_allowance(args.move_time_limit))
    if depth == "auto" and "time_limit" in defaults and "node_limit" not in agent_args:
        hunted = _hunted_on_python(args, agent_args, layout, num_ghosts)
        if hunted is not None:
            print(f"pacman-ai: {args.pacman} depth auto against {args.ghosts} ghosts searches {hunted} a move, "
                  f"seconds a move on the Python engine: searching with time_limit={budget:g} (iterative "
                  f"deepening while the time lasts); give --agent-args depth=N or time_limit=S to choose",
                  file=sys.stderr, flush=True)
            return budget
    if depth == "auto":  # ExpectimaxAgent's default: depth 2 at least, its tree the one that could be slow
        from pacman.agents.expectimax import AUTO_DEPTH, is_small_maze
        depth = AUTO_DEPTH
        if is_small_maze(layout):  # there a time limit takes the place of auto's node budget: no depth cap
            deepest = "while the time lasts"
    if "time_limit" not in defaults or not isinstance(depth, int):
        return None
    engine = "compiled" if core_status()[0] and defaults.get("engine", "auto") != "python" else "python"
    leaves = estimated_leaves(layout, num_ghosts, depth)
    if leaves <= SLOW_SEARCH_LEAVES[engine]:
        return None
    print(f"pacman-ai: {args.pacman} depth {depth} on {layout.name!r} with {num_ghosts} ghosts could take seconds a "
          f"move (about {leaves:.1g} leaves): searching with time_limit={budget:g} (iterative deepening "
          f"{deepest or f'up to depth {depth}'}); give --agent-args depth=N or time_limit=S to choose",
          file=sys.stderr, flush=True)
    return budget


def _hunted_on_python(args: argparse.Namespace, agent_args: dict[str, Any], layout: Any,
                      num_ghosts: int) -> str | None:
    """What the default search agent searches a move against hunting ghosts on `layout` ("at most N nodes")
    when that search would run on the Python engine (no compiled core, or an evaluation it cannot run); else
    None. The agent decides both (`ExpectimaxAgent.hunted`, `.search_engine`)."""
    from pacman.agents import make_ghosts
    from pacman.agents.expectimax import Auto, is_small_maze
    from pacman.agent_specs import make_pacman_agent
    from pacman.errors import AgentSpecError

    if is_small_maze(layout):  # there the small maze's own budget: the slow-tree rule below
        return None
    agent = make_pacman_agent(args.pacman, agent_args)
    if not isinstance(getattr(agent, "budget", None), Auto) or not hasattr(agent, "hunted"):
        return None
    try:
        agent.reset(None, make_ghosts(args.ghosts, num_ghosts), layout)
    except AgentSpecError:  # a fixed-depth tree too large for the maze: the slow-tree rule's case
        return None
    if not agent.hunted(num_ghosts) or agent.search_engine(num_ghosts) != "python":
        return None
    nodes = agent.budget.deepening_nodes(layout, hunted=True)
    return None if nodes is None else f"at most {nodes:,} nodes"


def run(args: argparse.Namespace) -> int:
    """Run `pacman-ai play`; returns the exit status (130 after Ctrl-C, 128 + N after SIGTERM or SIGHUP).

    Stopped by Ctrl-C, SIGTERM or SIGHUP, it writes none of the game's outputs
    (each is written whole or not at all, an earlier file of that name left as it
    was), says so in one line and leaves no temporary file behind.
    """
    from pacman.process_guard import stop_on_signals
    from pacman.user_code import applied, current_options

    game_outputs = _GameOutputs()
    # --verbose and --import-seconds hold for the whole run: the agent's import as well as its games.
    with stop_on_signals(), applied(current_options(args.verbose, args.import_seconds)):
        try:
            with contextlib.ExitStack() as stack:  # the live web view's server, when there is one
                return _run(args, stack, game_outputs)
        except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM / SIGHUP (RunSignal)
            return report_stop(exc, game_outputs.unwritten)
        finally:
            game_outputs.abort()  # whatever stopped the game; nothing to do once its recording is finished


class _GameOutputs:
    """The outputs of the game being played: the files not written yet, and its recording, if any."""

    def __init__(self) -> None:
        self.unwritten: list[str] = []
        """The files of the game not written yet, in the order of the flags."""
        self.recorder: Any = None
        """The game's `FrameRecorder`, if it is recorded."""

    def abort(self) -> None:
        """Remove what the recording wrote so far and leave its target as it was (nothing once it is finished)."""
        if self.recorder is not None:
            self.recorder.abort()


def _run(args: argparse.Namespace, stack: contextlib.ExitStack, game_outputs: _GameOutputs) -> int:
    import numpy as np

    from pacman.agents import make_ghosts, parse_agent_args
    from pacman.agent_specs import effective_agent_args, make_pacman_agent
    from pacman.game import run_game, time_limit_problem
    from pacman.layout import load_layout

    check_web_flags(args, "play")
    check_window_flags(args, "play", args.record)
    if args.force and not args.record:
        raise UsageError("pacman-ai play: --force applies to --record FOLDER only (it replaces the frames a folder "
                         "holds): leave it out")
    layout = load_layout(args.layout)
    if args.save is not None:
        for game in range(args.games):
            check_output("play", "--save", args.save if args.games == 1 else numbered(args.save, game))
    if args.record is not None:
        suffix = os.path.splitext(args.record)[1].lower()
        if suffix not in ("", ".gif", ".mp4"):
            raise UsageError(f"pacman-ai play: --record {args.record}: expected a .gif, a .mp4 or a folder for PNG "
                             f"frames (no suffix)")
        for game in range(args.games):
            target = args.record if args.games == 1 else numbered(args.record, game)
            check_output("play", "--record", target, folder=not suffix)
            if not suffix:
                from pacman.view.record import frame_folder_problem

                problem = frame_folder_problem(target, replace=args.force)
                if problem is not None:
                    raise UsageError(f"pacman-ai play: --record {target}: {problem}")
    if args.html is not None:
        for game in range(args.games):
            check_output("play", "--html", args.html if args.games == 1 else numbered(args.html, game))
    outputs = [(flag, path) for flag, path in (("--save", args.save), ("--record", args.record),
                                               ("--html", args.html)) if path]

    def files_of(game: int) -> list[str]:
        """The files game number `game` writes, in the order of the flags."""
        return [path if args.games == 1 else numbered(path, game) for _, path in outputs]

    game_outputs.unwritten = files_of(0)  # stopped before the first game begins, none of them is written
    for i, (flag, path) in enumerate(outputs):
        for other_flag, other in outputs[i + 1:]:
            if same_file(path, other):
                raise UsageError(f"pacman-ai play: {flag} {path} and {other_flag} {other} name the same file; "
                                 f"give each its own")
    for flag, path in outputs:  # the maze read is never written over (--record's numbered files included)
        targets = [path] if args.games == 1 else [numbered(path, game) for game in range(args.games)]
        if layout.path is not None and any(same_file(target, layout.path) for target in targets):
            raise UsageError(f"pacman-ai play: {flag} {path} is the layout being played ({layout.path}); "
                             f"give the output a name of its own")
    num_ghosts = layout.num_ghosts if args.num_ghosts is None else args.num_ghosts
    if num_ghosts > layout.num_ghosts:
        raise UsageError(f"pacman-ai play: --num-ghosts {num_ghosts}: layout {layout.name!r} has only "
                         f"{layout.num_ghosts} ghost{'s' if layout.num_ghosts != 1 else ''}")
    agent_args = parse_agent_args(args.agent_args)
    limit = resolve_max_moves(layout, DEFAULT if args.max_moves is None else args.max_moves)
    if args.save is not None:
        from pacman.replay import MAX_REPLAY_BYTES, max_replay_moves

        most = max_replay_moves(layout, num_ghosts)
        if args.max_moves is None:
            limit = min(limit, most)
        elif limit is None or limit > most:
            raise UsageError(f"pacman-ai play: --save with --max-moves {args.max_moves}: a replay file of "
                             f"{layout.name!r} with {num_ghosts} ghost{'s' if num_ghosts != 1 else ''} holds at most "
                             f"{most:,} Pacman moves ({MAX_REPLAY_BYTES // 2**20} MB, what `pacman-ai replay` reads); "
                             f"give --max-moves {most} or fewer")
    if args.move_time_limit is not None:
        problem = time_limit_problem(agent_args.get("time_limit"), args.move_time_limit)
        if problem is not None:
            raise UsageError(f"pacman-ai play: {problem}")
    if args.pacman != "keyboard":
        budget = _real_time_budget(args, agent_args, layout, num_ghosts)
        if budget is not None:
            agent_args = {**agent_args, "time_limit": budget}
    choice = display_choice(args)
    if choice == "pygame" or args.record:
        check_frame_size("play", layout, args.zoom, panel=True, tree=args.tree)
    if args.pacman == "keyboard":
        if choice not in ("pygame", "web"):
            raise UsageError("pacman-ai play: --pacman keyboard needs the pygame window (--display pygame) or the "
                             "web page (--display web)")
        if agent_args:
            raise UsageError("pacman-ai play: --pacman keyboard takes no --agent-args")
        from pacman.view.window import KeyboardAgent

        pacman_agent = KeyboardAgent()
        recorded_args: dict[str, Any] = {}
    else:
        pacman_agent = make_pacman_agent(args.pacman, agent_args)
        recorded_args = effective_agent_args(args.pacman, agent_args, ghosts=args.ghosts)
    ghosts = make_ghosts(args.ghosts, num_ghosts)
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2**31)
    terminal = text_display(args) if choice == "text" else None
    web = stack.enter_context(web_view(args, "play", args.games)) if choice == "web" else None

    played = wins = 0
    first_failed: dict | None = None  # the first crashed or timed-out game's record, then only a count
    failed = 0
    scores: list[int] = []  # numbers only, so that memory stays small however many games
    total_moves = 0
    thinking = 0.0  # seconds Pacman's agent took over all its moves
    for game in range(args.games):
        game_outputs.unwritten = files_of(game)
        recorder = game_outputs.recorder = None
        if args.record:
            from pacman.view.record import FrameRecorder

            target = args.record if args.games == 1 else numbered(args.record, game)
            recorder = game_outputs.recorder = FrameRecorder(
                layout, target, fps=args.fps, zoom=args.zoom, agent=pacman_agent,
                show_values=args.pacman != "keyboard", show_tree=args.tree)

        search_log = writer = None
        searching = args.pacman != "keyboard"
        if args.html and searching:
            from pacman.replay import SearchLog

            search_log = SearchLog(pacman_agent)
        if args.save:
            from pacman.replay import ReplayWriter

            writer = ReplayWriter(pacman_agent if searching else None)

        def play(display: Any, game: int = game, recorder: Any = recorder, search_log: Any = search_log,
                 writer: Any = writer) -> Any:
            from pacman.view.record import TeeDisplay

            extra = [d for d in (recorder, search_log, writer) if d is not None]
            shown = TeeDisplay(display, *extra) if extra else display
            # Every action is kept only for the web page; a replay is streamed to disk by its writer.
            return run_game(layout, pacman_agent, ghosts, seed=seed + game, max_moves=limit,
                            display=shown, move_time_limit=args.move_time_limit, keep_moves=bool(args.html))

        if choice == "pygame":
            from pacman.view.window import WindowDisplay, real_display

            window = WindowDisplay(layout, agent=pacman_agent, fps=args.fps, zoom=args.zoom,
                                   hold_at_end=real_display() and game == args.games - 1, show_tree=args.tree)
            result = window.run(play)
            if result is None:  # the window was closed: stop here
                if recorder is not None:
                    recorder.abort()
                    print("pacman-ai: recording discarded: the window was closed before the game ended",
                          file=sys.stderr)
                break
        elif web is not None:
            result = play(web.display(layout, pacman_agent, game=game, seed=seed + game,
                                      agents={"pacman": args.pacman, "agent_args": recorded_args,
                                              "ghosts": args.ghosts}))
            if game < args.games - 1:
                web.hold()
        else:
            result = play(terminal)
        if recorder is not None:  # finished with the game
            game_outputs.unwritten.remove(target)
        played += 1
        wins += result.won
        if result.crashed or result.timed_out:
            failed += 1
            first_failed = first_failed or result.to_dict()
        scores.append(result.score)
        total_moves += result.moves
        thinking += result.total_thinking
        agents = {"pacman": args.pacman, "agent_args": recorded_args, "ghosts": args.ghosts}
        search = search_log.moves if search_log is not None else None
        if args.save:
            path = args.save if args.games == 1 else numbered(args.save, game)
            try:
                writer.save(path, layout, result, agents)
            finally:
                writer.close()
            game_outputs.unwritten.remove(path)
        if args.html:
            from pacman.view.web import replay_of, write_game_page

            path = args.html if args.games == 1 else numbered(args.html, game)
            write_game_page(path, replay_of(layout, result, agents, search), fps=args.fps)
            game_outputs.unwritten.remove(path)
        if args.json:
            record = result.to_dict()
            record.update(game=game, pacman=args.pacman, agent_args=recorded_args, ghosts=args.ghosts)
            print(json.dumps(record), flush=True)
        elif choice != "text":
            print(f"game {game + 1}: {result.outcome}, score {result.score}, {result.moves} moves, "
                  f"seed {result.seed}" + (f" - {result.error}" if result.error else ""), flush=True)
    if played > 1 and not args.json:
        print(f"{played} games: {wins} won ({100 * wins / played:.0f}%), "
              f"mean score {statistics.fmean(scores):.1f}, "
              f"mean moves {total_moves / played:.1f}, "
              f"{1000 * thinking / total_moves if total_moves else 0.0:.2f} ms per move")
    if failed:
        for line in failed_games_report(first_failed, failed, played):
            print(line, file=sys.stderr, flush=True)
        return EXIT_GAMES_FAILED
    return 0

