"""The `pacman-ai` command line: play, replay, layouts, tree, bench, batch, grade.

Usage errors (a bad flag, layout, agent spec) print one line and exit with status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from typing import Any, NoReturn, Sequence

from pacman.errors import PacmanError

__all__ = ["main", "build_parser"]

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A command-line mistake: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line, not a usage block."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not value > 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def _bounded_int(low: int, high: int, why: str = "") -> Any:
    """An argparse type: an integer from `low` to `high` (the error names the range and `why`)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected an integer from {low:,} to {high:,}{why}, got {text!r}")
        return value

    return parse


def _bounded_float(low: float, high: float, why: str = "") -> Any:
    """An argparse type: a number from `low` to `high`."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:  # NaN fails both
            raise argparse.ArgumentTypeError(f"expected a number from {low:g} to {high:g}{why}, got {text!r}")
        return value

    return parse


FPS_RANGE = (0.1, 1000.0)
"""--fps: rounds shown per second."""
MAX_PLAY_GAMES = 10_000
"""play --games: watching more games than this is a batch run."""
MAX_MOVE_TIME_LIMIT = 86_400.0
"""--move-time-limit: at most a day per move."""
MAX_BENCH_DEPTH = 4
"""bench --depths: deeper searches take minutes per decision with the Python engine."""

_fps = _bounded_float(*FPS_RANGE)


def _move_time_limit(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not 0 < value <= MAX_MOVE_TIME_LIMIT:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds up to {MAX_MOVE_TIME_LIMIT:g}, "
                                         f"got {text!r}")
    return value


def _zoom(text: str) -> float:
    from pacman.view.renderer import MAX_ZOOM, MIN_ZOOM

    return _bounded_float(MIN_ZOOM, MAX_ZOOM)(text)


def _depth_list(text: str) -> tuple[int, ...]:
    try:
        depths = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected depths like 2,3,4, got {text!r}") from None
    if not depths or min(depths) < 1 or max(depths) > MAX_BENCH_DEPTH:
        raise argparse.ArgumentTypeError(f"expected depths from 1 to {MAX_BENCH_DEPTH} like 2,3,4, got {text!r}")
    return depths


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    from agents import GHOST_KINDS, PACMAN_AGENTS

    parser = _Parser(
        prog="pacman-ai",
        description="Pacman with expectimax agents: watch games, replay them, run headless batches, "
                    "solve game trees, grade assignments, list layouts, measure speed.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    play = commands.add_parser("play", help="play games and watch them (terminal) or report them (--json)",
                               description="Play games on a layout and show or report them.")
    play.add_argument("--layout", default="medium", help="shipped layout name or .lay path (default: medium)")
    play.add_argument("--pacman", default="expectimax", metavar="NAME",
                      help=f"Pacman agent: {', '.join(PACMAN_AGENTS)}, keyboard, module:Class or file.py:Class "
                           f"(default: expectimax)")
    play.add_argument("--agent-args", default=None, metavar="K=V,...",
                      help="keyword arguments for the Pacman agent, e.g. depth=3,evaluation=better,time_limit=0.2 "
                           "(default for expectimax: depth=2,evaluation=better)")
    play.add_argument("--ghosts", default="random", choices=sorted(GHOST_KINDS),
                      help="ghost agent kind (default: random)")
    play.add_argument("--num-ghosts", type=_non_negative_int, default=None, metavar="N",
                      help="keep the layout's first N ghosts (default: all)")
    play.add_argument("--seed", type=_non_negative_int, default=None,
                      help="seed of the first game; game k uses seed + k (default: random, reported)")
    play.add_argument("--games", type=_bounded_int(1, MAX_PLAY_GAMES, " (use `pacman-ai batch` for more)"), default=1,
                      metavar="N", help=f"games to play, at most {MAX_PLAY_GAMES:,} (default: 1)")
    play.add_argument("--max-moves", type=_positive_int, default=None, metavar="N",
                      help="cut a game off after N Pacman moves (default: no limit)")
    play.add_argument("--move-time-limit", type=_move_time_limit, default=None, metavar="SECONDS",
                      help="an agent that thinks longer than this on one move ends its game, at most 86400 "
                           "(default: none)")
    play.add_argument("--display", choices=("pygame", "text", "none"), default=None,
                      help="how to show the game (default: a pygame window when a display exists, else the "
                           "terminal; none with --json)")
    play.add_argument("--fps", type=_fps, default=8.0,
                      help="rounds (Pacman's move and every ghost's) shown per second, 0.1 to 1000 (default: 8)")
    play.add_argument("--json", action="store_true",
                      help="print one JSON object per game on stdout (the board, if drawn, goes to stderr)")
    play.add_argument("--zoom", type=_zoom, default=1.0,
                      help="scale of the pygame view and of --record, 0.1 to 8 (1: 32-pixel cells; the window can "
                           "also be resized); a frame may have at most 8,388,608 pixels")
    play.add_argument("--record", metavar="OUT", default=None,
                      help="record the game: OUT.gif, OUT.mp4 (needs the video extra) or a folder of PNG frames")
    play.add_argument("--save", metavar="GAME.json", default=None,
                      help="write a replay file of the game (with --games N: GAME-0.json, GAME-1.json, ...)")

    replay = commands.add_parser("replay", help="replay a saved game exactly",
                                 description="Replay a game saved with `play --save`: the same moves, the same "
                                             "outcome, checked.")
    replay.add_argument("file", metavar="GAME.json", help="a replay file written by `pacman-ai play --save`")
    replay.add_argument("--display", choices=("pygame", "text", "none"), default=None,
                        help="how to show the game (default: text, or none with --json)")
    replay.add_argument("--fps", type=_fps, default=8.0,
                        help="rounds shown per second, 0.1 to 1000 (default: 8)")
    replay.add_argument("--zoom", type=_zoom, default=1.0, help="scale of the pygame view, 0.1 to 8")
    replay.add_argument("--json", action="store_true", help="print the replayed game's result as JSON")

    layouts = commands.add_parser("layouts", help="list the shipped layouts",
                                  description="List the shipped layouts: name, size, ghosts, food, capsules.")
    layouts.add_argument("--json", action="store_true", help="print a JSON list instead of a table")

    tree = commands.add_parser("tree", help="solve an explicit game tree (JSON)",
                               description="Solve an explicit max/min/chance game tree given as JSON: print "
                                           "its value and the best root action.")
    tree.add_argument("file", metavar="FILE.json", help="the tree (see README: 'Explicit game trees')")
    tree.add_argument("--depth", type=_non_negative_int, default=None, metavar="N",
                      help="cut the search N edges below the root, using inner nodes' \"value\" (default: whole tree)")
    tree.add_argument("--json", action="store_true", help='print {"value": ..., "action": ...}')

    bench = commands.add_parser("bench", help="measure speed: successors per second, ms per move, ms per recorded frame",
                                description="Successors per second of random-walk expansion, fast engine "
                                            "against the reference engine; expectimax ms per decision; ms per "
                                            "frame of recording a game to GIF; medians of several runs.")
    bench.add_argument("--layout", default="medium", help="layout to walk (default: medium)")
    bench.add_argument("--runs", type=_bounded_int(1, 100), default=5, help="runs per figure, at most 100 (default: 5)")
    bench.add_argument("--successors", type=_bounded_int(20, 100_000_000), default=200_000, metavar="N",
                       help="successors per fast-engine run, at most 100,000,000 (default: 200000)")
    bench.add_argument("--seed", type=_non_negative_int, default=0, help="random-walk and game seed (default: 0)")
    bench.add_argument("--part", choices=("all", "engine", "search", "record"), default="all",
                       help="engine: successors per second; search: expectimax per decision; record: ms per GIF "
                            "frame, Pillow's encoder against the pure-Python one (default: all)")
    bench.add_argument("--moves", type=_bounded_int(1, 5000), default=150, metavar="N",
                       help="moves of the game recorded by --part record, at most 5000 (default: 150)")
    bench.add_argument("--depths", type=_depth_list, default=(2, 3, 4), metavar="D,D,...",
                       help="search depths to measure (default: 2,3,4)")
    bench.add_argument("--positions", type=_bounded_int(1, 1000), default=20, metavar="N",
                       help="positions each search figure is the median over, at most 1000 (default: 20)")
    bench.add_argument("--json", action="store_true", help="print the figures as JSON")

    from pacman.batch_cli import add_batch_parser

    add_batch_parser(commands)

    from pacman.grading.command import add_grade_parser

    add_grade_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
        handler = {"play": _play, "replay": _replay, "layouts": _layouts, "tree": _tree,
                   "bench": _bench, "batch": _batch, "grade": _grade}[args.command]
        return handler(args)
    except UsageError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    except PacmanError as exc:
        print(f"pacman-ai: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("pacman-ai: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def _play(args: argparse.Namespace) -> int:
    import numpy as np

    from agents import make_ghosts, make_pacman_agent, parse_agent_args
    from agents.registry import effective_agent_args
    from pacman.game import run_game
    from pacman.layout import load_layout

    layout = load_layout(args.layout)
    if args.save is not None:
        for game in range(args.games):
            _check_output("play", "--save", args.save if args.games == 1 else _numbered(args.save, game), "file")
    if args.record is not None:
        suffix = os.path.splitext(args.record)[1].lower()
        if suffix not in ("", ".gif", ".mp4"):
            raise UsageError(f"pacman-ai play: --record {args.record}: expected a .gif, a .mp4 or a folder for PNG "
                             f"frames (no suffix)")
        for game in range(args.games):
            _check_output("play", "--record", args.record if args.games == 1 else _numbered(args.record, game),
                          "file" if suffix else "folder")
    if args.save and args.record and os.path.abspath(args.save) == os.path.abspath(args.record):
        raise UsageError(f"pacman-ai play: --save {args.save} and --record {args.record} name the same file; "
                         f"give each its own")
    num_ghosts = layout.num_ghosts if args.num_ghosts is None else args.num_ghosts
    if num_ghosts > layout.num_ghosts:
        raise UsageError(f"pacman-ai play: --num-ghosts {num_ghosts}: layout {layout.name!r} has only "
                         f"{layout.num_ghosts} ghost{'s' if layout.num_ghosts != 1 else ''}")
    agent_args = parse_agent_args(args.agent_args)
    choice = _display_choice(args)
    if choice == "pygame" or args.record:
        _check_frame_size("play", layout, args.zoom, panel=True)
    if args.pacman == "keyboard":
        if choice != "pygame":
            raise UsageError("pacman-ai play: --pacman keyboard needs the pygame window (--display pygame)")
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
    text_display = _text_display(args) if choice == "text" else None

    played = wins = 0
    scores: list[int] = []  # numbers only, so that memory stays small however many games
    total_moves = 0
    thinking = 0.0  # seconds Pacman's agent took over all its moves
    for game in range(args.games):
        recorder = None
        if args.record:
            from pacman.view.record import FrameRecorder

            target = args.record if args.games == 1 else _numbered(args.record, game)
            recorder = FrameRecorder(layout, target, fps=args.fps, zoom=args.zoom, agent=pacman_agent,
                                     show_values=args.pacman != "keyboard")

        def play(display: Any, game: int = game, recorder: Any = recorder) -> Any:
            from pacman.view.record import TeeDisplay

            shown = TeeDisplay(display, recorder) if recorder is not None else display
            return run_game(layout, pacman_agent, ghosts, seed=seed + game, max_moves=args.max_moves,
                            display=shown, move_time_limit=args.move_time_limit)

        if choice == "pygame":
            from pacman.view.window import WindowDisplay, real_display

            window = WindowDisplay(layout, agent=pacman_agent, fps=args.fps, zoom=args.zoom,
                                   hold_at_end=real_display() and game == args.games - 1)
            result = window.run(play)
            if result is None:  # the window was closed: stop here
                if recorder is not None:
                    recorder.abort()
                    print("pacman-ai: recording discarded: the window was closed before the game ended",
                          file=sys.stderr)
                break
        else:
            result = play(text_display)
        played += 1
        wins += result.won
        scores.append(result.score)
        total_moves += result.moves
        thinking += sum(result.move_times)
        if args.save:
            from pacman.replay import save_replay

            path = args.save if args.games == 1 else _numbered(args.save, game)
            save_replay(path, layout, result, {"pacman": args.pacman, "agent_args": recorded_args,
                                               "ghosts": args.ghosts})
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
    return 0


def _check_output(command: str, flag: str, target: str, kind: str) -> None:
    """Refuse an output path before anything runs: no folder, a folder or special file where a file goes, read-only."""
    import stat

    where = f"pacman-ai {command}: {flag} {target!r}"
    if not target:
        raise UsageError(f"pacman-ai {command}: {flag}: expected a file name, got an empty string")
    try:
        info = os.stat(target)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise UsageError(f"{where}: cannot write there ({exc.strerror or exc})") from None
    if info is not None:
        if kind == "folder":
            if not stat.S_ISDIR(info.st_mode):
                raise UsageError(f"{where}: exists and is not a folder (PNG frames go into a folder)")
            if not os.access(target, os.W_OK | os.X_OK):
                raise UsageError(f"{where}: folder is not writable")
            return
        if stat.S_ISDIR(info.st_mode):
            raise UsageError(f"{where}: is a folder, expected a file name")
        if not stat.S_ISREG(info.st_mode):
            raise UsageError(f"{where}: exists and is not a regular file (a FIFO, a device or a socket)")
        if not os.access(target, os.W_OK):
            raise UsageError(f"{where}: the file exists and is not writable")
    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(folder) or not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"{where}: folder {folder} does not exist or is not writable")


def _check_frame_size(command: str, layout: Any, zoom: float, panel: bool) -> None:
    """Refuse a zoom whose frames would be too large for this layout, before any window or frame exists."""
    from pacman.view.renderer import MAX_FRAME_PIXELS, MAX_FRAME_SIDE, cell_pixels, frame_size

    width, height = frame_size(layout, cell_pixels(zoom), panel=panel)
    if width * height > MAX_FRAME_PIXELS or max(width, height) > MAX_FRAME_SIDE:
        raise UsageError(f"pacman-ai {command}: --zoom {zoom:g}: layout {layout.name!r} ({layout.width}x"
                         f"{layout.height}) would make {width}x{height}-pixel frames; the limit is "
                         f"{MAX_FRAME_PIXELS:,} pixels and {MAX_FRAME_SIDE:,} per side (use a smaller --zoom)")


def _numbered(path: str, index: int) -> str:
    stem, dot, suffix = path.rpartition(".")
    return f"{stem}-{index}.{suffix}" if dot and "/" not in suffix else f"{path}-{index}"


def _replay(args: argparse.Namespace) -> int:
    from pacman.game import GameResult
    from pacman.replay import ReplayError, load_replay

    replay = load_replay(args.file)
    choice = _display_choice(args)
    if choice == "pygame":
        _check_frame_size("replay", replay.layout, args.zoom, panel=False)
    try:
        final = replay.final_state()  # checks the whole replay before showing any of it
    except ReplayError as exc:
        raise ReplayError(f"{args.file}: {exc}") from None
    recorded = replay.result
    moves = sum(1 for turn in range(len(replay.actions)) if turn % final.num_agents == 0)
    result = GameResult(
        layout=replay.layout.name, seed=replay.seed, won=final.is_win(), lost=final.is_lose(), score=final.score,
        moves=moves, cut_off=bool(recorded.get("cut_off")), crashed=bool(recorded.get("crashed")),
        timed_out=bool(recorded.get("timed_out")), failed_agent=recorded.get("failed_agent"),
        error=recorded.get("error"), actions=replay.actions, num_agents=final.num_agents,
    )

    def show(display: Any) -> GameResult:
        for state, agent, action in replay.states():
            if agent is None:
                display.start(state)
            else:
                display.update(state, agent, action)
        display.finish(final, result)
        return result

    if choice == "pygame":
        from pacman.view.window import ReplayWindow, real_display, replay_rounds

        banner = "You win!" if result.won else "Game over" if result.lost else result.outcome
        ReplayWindow(replay.layout, replay_rounds(replay.states()), fps=args.fps, zoom=args.zoom,
                     banner=banner, hold_at_end=real_display()).run()
    elif choice == "text":
        show(_text_display(args))
    if args.json:
        record = result.to_dict()
        record.update(replay.agents)
        print(json.dumps(record))
    elif choice != "text":  # the terminal view ends with its own result line
        print(f"{result.outcome}: score {result.score} after {result.moves} moves (seed {result.seed})")
    return 0


def _display_choice(args: argparse.Namespace) -> str:
    """pygame when asked for or when a screen exists, else the terminal; none by default with --json."""
    from pacman.view.window import display_available, real_display

    choice = args.display
    if choice is None:
        if args.json:
            return "none"
        choice = "pygame" if real_display() and _has_pygame() else "text"
    if choice == "pygame" and not (display_available() and _has_pygame()):
        why = "pygame is not installed" if not _has_pygame() else "no display is available"
        print(f"pacman-ai: {why}; drawing in the terminal instead", file=sys.stderr)
        return "text"
    return choice


def _has_pygame() -> bool:
    import importlib.util

    return importlib.util.find_spec("pygame") is not None


def _text_display(args: argparse.Namespace) -> Any:
    from pacman.textview import TextDisplay

    return TextDisplay(stream=sys.stderr if args.json else sys.stdout, fps=args.fps)


def _layouts(args: argparse.Namespace) -> int:
    from pacman.layout import LAYOUT_ALIASES, layout_names, load_layout

    aliases: dict[str, list[str]] = {}
    for alias, name in LAYOUT_ALIASES.items():
        aliases.setdefault(name, []).append(alias)
    rows = []
    for name in layout_names():
        layout = load_layout(name)
        rows.append({"name": name, "width": layout.width, "height": layout.height,
                     "ghosts": layout.num_ghosts, "food": layout.food_count,
                     "capsules": len(layout.capsules), "aliases": aliases.get(name, [])})
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'name':<10} {'size':>6} {'ghosts':>6} {'food':>5} {'capsules':>8}  also known as")
    for row in rows:
        size = f"{row['width']}x{row['height']}"
        print(f"{row['name']:<10} {size:>6} {row['ghosts']:>6} {row['food']:>5} {row['capsules']:>8}  "
              f"{', '.join(row['aliases'])}".rstrip())
    return 0


def _tree(args: argparse.Namespace) -> int:
    from agents.trees import format_tree_result, load_tree, solve_tree, tree_report

    result = solve_tree(load_tree(args.file), depth=args.depth)
    print(json.dumps(tree_report(result)) if args.json else format_tree_result(result))
    return 0


def _batch(args: argparse.Namespace) -> int:
    from pacman.batch_cli import run_batch_command

    return run_batch_command(args)


def _grade(args: argparse.Namespace) -> int:
    from pacman.grading.command import run_grade_command

    return run_grade_command(args)


def _bench(args: argparse.Namespace) -> int:
    from pacman.bench import engine_benchmark, record_benchmark, search_benchmark
    from pacman.layout import load_layout

    layout = load_layout(args.layout)
    report: dict[str, Any] = {}
    if not args.json:
        print(f"benchmarking on {layout.name} ...", file=sys.stderr, flush=True)
    if args.part in ("all", "engine"):
        report["engine"] = engine_benchmark(layout, runs=args.runs, successors=args.successors, seed=args.seed)
    if args.part in ("all", "search"):
        textbook = tuple(d for d in args.depths if d <= 3)
        report["search"] = search_benchmark(layout, depths=args.depths, positions=args.positions,
                                            seed=args.seed, textbook_depths=textbook)
    if args.part in ("all", "record"):
        report["record"] = record_benchmark(layout, runs=min(args.runs, 3) if args.part == "all" else args.runs,
                                            moves=args.moves, seed=args.seed)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    if "engine" in report:
        engine = report["engine"]
        rates = engine["successors_per_second"]
        print(f"successors per second on {engine['layout']} (median of {engine['runs']} runs, "
              f"Python {engine['python']})")
        print(f"  fast engine, whole nodes (successors()):  {rates['fast']:>12,}")
        print(f"  fast engine, step by step (successor()):  {rates['fast_stepwise']:>12,}")
        print(f"  reference engine (successor()):           {rates['reference']:>12,}")
        print(f"  ratio fast / reference:                   {engine['ratio_fast_to_reference']:>12}x")
        print(f"  ratio step by step / reference:           {engine['ratio_stepwise_to_reference']:>12}x")
    if "search" in report:
        search = report["search"]
        print(f"expectimax decisions on {search['layout']}, {layout.num_ghosts} random ghosts, "
              f"median over {search['positions']} positions")
        print(f"  {'depth':>5} {'evaluation':<10} {'table':<5} {'ms/move':>9} {'nodes/s':>10}")
        for row in search["agent"]:
            print(f"  {row['depth']:>5} {row['evaluation']:<10} {'on' if row['transposition'] else 'off':<5} "
                  f"{row['ms_per_move_median']:>9.3f} {row['nodes_per_second']:>10,}")
        for row in search["textbook"]:
            print(f"  textbook expectimax on the reference engine, depth {row['depth']}, score: "
                  f"{row['ms_per_move_median']:.3f} ms/move; the agent is {row['speedup_of_expectimax_agent']}x faster")
    if "record" in report:
        record = report["record"]
        width, height = record["frame_size"]
        print(f"recording a {record['moves']}-move game on {record['layout']} to GIF: {record['frames']} frames of "
              f"{width}x{height} pixels, ms per frame (wall, CPU), median of {record['runs']} runs")
        names = {"render": "drawing alone", "pillow": "GIF, Pillow's C encoder", "python": "GIF, pure-Python encoder"}
        for name, value in record["ms_per_frame"].items():
            print(f"  {names.get(name, name) + ':':<36} {value:>9.2f} {record['cpu_ms_per_frame'][name]:>9.2f}")
        if "speedup_pillow_to_python" in record:
            print(f"  {'ratio pure-Python / Pillow:':<36} {record['speedup_pillow_to_python']:>8}x "
                  f"{record['cpu_speedup_pillow_to_python']:>8}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
