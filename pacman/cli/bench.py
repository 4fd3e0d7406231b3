"""`pacman-ai bench`: measure speed (engine successors per second, expectimax ms per move, ms per GIF frame)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from pacman.cli.args import UsageError, bounded_int, non_negative_int

__all__ = ["add_parser", "run", "check_part_flags", "MAX_BENCH_DEPTH", "AUTO_LAYOUTS", "PART_FLAGS"]

MAX_BENCH_DEPTH = 4
"""bench --depths: deeper searches take minutes per decision with the Python engine."""

AUTO_LAYOUTS = ("trapped", "minimax")
"""bench --small-mazes: the shipped small mazes on which the default agent deepens and searches the most
(docs/search-strength.md, "Time a move")."""


def _depth_list(text: str) -> tuple[int, ...]:
    """The --depths argument type: search depths from 1 to MAX_BENCH_DEPTH, ``2,3,4``."""
    try:
        depths = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected depths like 2,3,4, got {text!r}") from None
    if not depths or min(depths) < 1 or max(depths) > MAX_BENCH_DEPTH:
        raise argparse.ArgumentTypeError(f"expected depths from 1 to {MAX_BENCH_DEPTH} like 2,3,4, got {text!r}")
    _once(depths, text)
    return depths


def _once(items: tuple, text: str) -> None:
    """A list argument names each item once: a second would be measured, and printed, twice."""
    twice = next((item for i, item in enumerate(items) if item in items[:i]), None)
    if twice is not None:
        raise argparse.ArgumentTypeError(f"{twice} is listed twice in {text!r}")


def _layout_list(text: str) -> tuple[str, ...]:
    """The --compare argument type: layout names or paths separated by commas, ``medium,tricky``."""
    names = tuple(part.strip() for part in text.split(","))
    if not names or not all(names):
        raise argparse.ArgumentTypeError(f"expected layouts like medium,tricky, got {text!r}")
    _once(names, text)
    return names


#: The flags only some parts use: (the parts, the default). A flag given to a --part that does not use it is
#: refused by name rather than ignored.
PART_FLAGS: dict[str, tuple[tuple[str, ...], Any]] = {
    "layout": (("engine", "search", "record", "env"), "medium"),
    "successors": (("engine",), 200_000),
    "moves": (("record",), 150),
    "depths": (("search",), (2, 3, 4)),
    "positions": (("search", "auto"), 20),
    "compare": (("search",), ("medium", "tricky")),
    "small_mazes": (("search", "auto"), AUTO_LAYOUTS),
    "num_envs": (("env",), 1024),
    "no_jumanji": (("env",), False),
}


def check_part_flags(args: argparse.Namespace) -> None:
    """Refuse a flag the chosen --part does not use (UsageError), then give every flag not given its default."""
    for dest, (parts, default) in PART_FLAGS.items():
        given = getattr(args, dest)
        if given is not None and given is not False and args.part != "all" and args.part not in parts:
            flag = "--" + dest.replace("_", "-")
            raise UsageError(f"bench: {flag} applies to --part {' or '.join(parts)} (or all); --part {args.part} "
                             f"does not use it")
        if given is None:
            setattr(args, dest, default)


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the `bench` subcommand to the subparsers of the `pacman-ai` parser."""
    bench = commands.add_parser("bench", help="measure speed: successors per second, ms per move, ms per recorded frame",
                                description="Successors per second of random-walk expansion, fast engine "
                                            "against the simple engine (pacman.conformance); expectimax ms per decision; ms per "
                                            "frame of recording a game to GIF; medians of several runs.")
    bench.add_argument("--layout", default=None, help=f"layout to walk (default: {PART_FLAGS['layout'][1]})")
    bench.add_argument("--runs", type=bounded_int(1, 100), default=5, help="runs per figure, at most 100 (default: 5)")
    bench.add_argument("--successors", type=bounded_int(20, 100_000_000), default=None, metavar="N",
                       help=f"successors per fast-engine run, at most 100,000,000 (default: {PART_FLAGS['successors'][1]})")
    bench.add_argument("--seed", type=non_negative_int, default=0, help="random-walk and game seed (default: 0)")
    bench.add_argument("--part", choices=("all", "engine", "search", "auto", "record", "env"), default="all",
                       help="engine: successors per second; search: expectimax per decision (fixed depths, both "
                            "engines, the pruning; and auto's); auto: the default agent's ms per move (depth "
                            "'auto') on the --small-mazes, both engines; record: ms per GIF frame, Pillow's encoder "
                            "against the pure-Python one; env: steps per second of the Gymnasium environments, "
                            "needs the gym extra (default: all)")
    bench.add_argument("--moves", type=bounded_int(1, 5000), default=None, metavar="N",
                       help=f"moves of the game recorded by --part record, at most 5000 (default: {PART_FLAGS['moves'][1]})")
    bench.add_argument("--depths", type=_depth_list, default=None, metavar="D,D,...",
                       help=f"search depths to measure (default: {','.join(map(str, PART_FLAGS['depths'][1]))})")
    bench.add_argument("--positions", type=bounded_int(1, 1000), default=None, metavar="N",
                       help=f"positions each search figure is the median over, at most 1000 (default: {PART_FLAGS['positions'][1]})")
    bench.add_argument("--compare", type=_layout_list, default=None, metavar="L,L,...",
                       help="layouts on which --part search sets the Python engine and the compiled core side by "
                            f"side (default: {','.join(PART_FLAGS['compare'][1])})")
    bench.add_argument("--small-mazes", type=_layout_list, default=None, metavar="L,L,...",
                       help="layouts on which --part search and --part auto time the default agent (depth 'auto': "
                            "deeper on a maze of fewer than 64 cells) on both engines (default: "
                            f"{','.join(AUTO_LAYOUTS)})")
    bench.add_argument("--num-envs", type=bounded_int(1, 65536), default=None, metavar="N",
                       help=f"games in the vector environment of --part env, at most 65536 (default: {PART_FLAGS['num_envs'][1]})")
    bench.add_argument("--no-jumanji", action="store_true",
                       help="skip the comparison with Jumanji's PacMan in --part env (it runs when jax and jumanji "
                            "import; compiling it takes tens of seconds)")
    bench.add_argument("--json", action="store_true", help="print the figures as JSON")
    bench.add_argument("--quiet", action="store_true",
                       help="no progress lines on stderr (by default each part says when it starts and how long "
                            "it took)")
    return bench


class _Parts:
    """Progress on stderr (`pacman.progress`): a line when each part of the benchmark starts, its time when it
    ends, and the heartbeat's line while a long part runs."""

    def __init__(self, names: list[str], quiet: bool) -> None:
        from pacman.progress import progress_for

        self.names = names
        self.progress = progress_for("bench", quiet)

    def run(self, name: str, what: str, measure: Any) -> Any:
        """Run `measure()` as part `name` (described by `what`); returns what it returns."""
        import time


        number = f"[{self.names.index(name) + 1}/{len(self.names)}]"
        if self.progress is None:
            return measure()
        self.progress.note(f"{number} {name}: {what} ...")
        began = time.monotonic()
        try:
            value = measure()
        except BaseException:
            self.progress.close()
            raise
        self.progress.note(f"{number} {name}: done in {time.monotonic() - began:.1f} s "
                           f"({self.progress.elapsed():.1f} s so far)")
        if name == self.names[-1]:
            self.progress.close()
        return value


def run(args: argparse.Namespace) -> int:
    """Run `pacman-ai bench`; returns the exit status."""
    from pacman.bench import (auto_benchmark, engine_benchmark, engine_comparison, pruning_comparison,
                              record_benchmark, search_benchmark)
    from pacman.bench.search import engine_line
    from pacman.layout import load_layout

    check_part_flags(args)
    layout = load_layout(args.layout)
    compared = [load_layout(name) for name in args.compare] if args.part in ("all", "search") else []
    small = [load_layout(name) for name in args.small_mazes] if args.part in ("all", "search", "auto") else []
    report: dict[str, Any] = {}
    names = [name for name, parts_of in (("engine", ("engine",)), ("search", ("search",)), ("engines", ("search",)),
                                         ("pruning", ("search",)), ("auto", ("search", "auto")),
                                         ("record", ("record",)), ("env", ("env",)))
             if args.part == "all" or args.part in parts_of]
    parts = _Parts(names, args.quiet)
    if not args.json:
        print(engine_line())
    depths = ",".join(map(str, args.depths))
    if args.part in ("all", "engine"):
        report["engine"] = parts.run(
            "engine", f"successors per second on {layout.name}, {args.runs} runs",
            lambda: engine_benchmark(layout, runs=args.runs, successors=args.successors, seed=args.seed))
    if args.part in ("all", "search"):
        textbook = tuple(d for d in args.depths if d <= 3)
        report["search"] = parts.run(
            "search", f"expectimax ms per decision on {layout.name}, depths {depths}, {args.positions} positions",
            lambda: search_benchmark(layout, depths=args.depths, positions=args.positions, seed=args.seed,
                                     textbook_depths=textbook))
        report["engines"] = parts.run(
            "engines", f"Python engine and compiled core side by side on {', '.join(l.name for l in compared)}, "
                       f"depths {depths}",
            lambda: engine_comparison(compared, depths=args.depths, positions=args.positions, seed=args.seed,
                                      runs=min(args.runs, 3)))
        report["pruning"] = parts.run(
            "pruning", f"nodes per move with plain, Star1, Star2 and Star2 with ordering on "
                       f"{', '.join(l.name for l in compared)}, depths {depths}",
            lambda: pruning_comparison(compared, depths=args.depths, positions=args.positions, seed=args.seed))
    if args.part in ("all", "search", "auto"):
        report["auto"] = parts.run(
            "auto", f"the default agent's ms per move (depth 'auto') on {', '.join(l.name for l in small)}",
            lambda: auto_benchmark(small, positions=args.positions, seed=args.seed, runs=min(args.runs, 3)))
    if args.part in ("all", "record"):
        report["record"] = parts.run(
            "record", f"ms per frame of a {args.moves}-move game recorded to GIF",
            lambda: record_benchmark(layout, runs=min(args.runs, 3) if args.part == "all" else args.runs,
                                     moves=args.moves, seed=args.seed))
    if args.part in ("all", "env"):
        report["env"] = parts.run("env", f"steps per second of the learning environments on {layout.name}",
                                  lambda: _env_report(layout, args))
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
        print(f"  simple engine (successor()):              {rates['reference']:>12,}")
        print(f"  ratio fast / simple:                      {engine['ratio_fast_to_reference']:>12}x")
        print(f"  ratio step by step / simple:              {engine['ratio_stepwise_to_reference']:>12}x")
    if "search" in report:
        search = report["search"]
        print(f"expectimax decisions on {search['layout']}, {layout.num_ghosts} random ghosts, Python engine, "
              f"median over {search['positions']} positions")
        print(f"  {'depth':>5} {'evaluation':<10} {'table':<5} {'prune':<5} {'ms/move':>9} {'nodes/move':>10} "
              f"{'nodes/s':>10}")
        for row in search["agent"]:
            prune = "-" if row.get("pruning") is None else "on" if row["pruning"] else "off"
            print(f"  {row['depth']:>5} {row['evaluation']:<10} {'on' if row['transposition'] else 'off':<5} "
                  f"{prune:<5} {row['ms_per_move_median']:>9.3f} {row['nodes_per_move_mean']:>10,.1f} "
                  f"{row['nodes_per_second']:>10,}")
        print("  (prune: Star1 and Star2 pruning, which need an evaluation that declares bounds: `better` does, "
              "`score` does not)")
        for row in search["textbook"]:
            print(f"  textbook expectimax on the simple engine, depth {row['depth']}, score: "
                  f"{row['ms_per_move_median']:.3f} ms/move; the agent is {row['speedup_of_expectimax_agent']}x faster")
    if "engines" in report:
        _print_engines(report["engines"])
    if "pruning" in report:
        _print_pruning(report["pruning"])
    if "auto" in report:
        _print_auto(report["auto"])
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
    if "env" in report:
        _print_env(report["env"])
    return 0


def _env_report(layout: Any, args: argparse.Namespace) -> dict[str, Any]:
    """--part env's figures, or why there are none (the gym extra is not installed)."""
    try:
        from pacman.bench.env import env_benchmark
    except ImportError as exc:  # pacman.envs names the pip command
        return {"unavailable": str(exc)}
    return env_benchmark(layout, runs=args.runs, num_envs=args.num_envs, seed=args.seed, jumanji=not args.no_jumanji)


def _print_env(env: dict[str, Any]) -> None:
    """The steps-per-second table of --part env."""
    if "unavailable" in env:
        print(f"environments: not measured ({env['unavailable']})")
        return
    print(f"environment steps per second on {env['layout']}, {env['ghosts']} ghosts, grid observations, random "
          f"actions (median of {env['runs']} runs{', one CPU' if env['one_core'] else ''})")
    engine = env["single_engine"]
    print(f"  single env, gymnasium.make (benchmark_step), {engine + ' engine:':<17} {env['single_make']:>12,}")
    print(f"  single env, unwrapped (benchmark_step), {engine + ' engine:':<22} {env['single_unwrapped']:>12,}")
    if "single_make_python" in env:
        print(f"  single env, gymnasium.make (benchmark_step), python engine:    {env['single_make_python']:>12,}")
        print(f"  single env, unwrapped (benchmark_step), python engine:         {env['single_unwrapped_python']:>12,}")
    if "vector_unavailable" in env:
        print(f"  vector env: not measured ({env['vector_unavailable']})")
    else:
        print(f"  vector env, {env['num_envs']:,} games (compiled core):{'':<22} {env['vector']:>12,}")
        print(f"  vector env, {env['num_envs']:,} games, copy=False:{'':<26} {env['vector_shared']:>12,}")
        print(f"  vector env, {env['num_envs']:,} games, SAME_STEP autoreset:{'':<17} {env['vector_same_step']:>12,}")
        if "sb3_unavailable" in env:
            print(f"  SB3 VecEnv (pacman.envs.sb3): not measured ({env['sb3_unavailable']})")
        else:
            print(f"  SB3 VecEnv (pacman.envs.sb3), {env['num_envs']:,} games:{'':<19} {env['sb3']:>12,}")
    if "jumanji_unavailable" in env:
        print(f"  Jumanji's PacMan: not measured ({env['jumanji_unavailable']})")
        return
    jumanji = env["jumanji"]
    print(f"  Jumanji {jumanji['env']} (jax {jumanji['jax']}, jumanji {jumanji['jumanji']}, CPU), its own maze, "
          f"{jumanji['num_envs']:,} envs:")
    print(f"    jitted vmap step:{'':<45} {jumanji['step']:>12,}")
    print(f"    jitted vmap step in lax.scan:{'':<33} {jumanji['scan']:>12,}")
    if "ratio_vector_to_jumanji" in env:
        print(f"  ratio vector env / Jumanji's best (copy=True, copy=False):{'':<4} {env['ratio_vector_to_jumanji']:>6}x "
              f"{env['ratio_vector_shared_to_jumanji']:>6}x")


def _print_engines(engines: dict[str, Any]) -> None:
    """The side-by-side table of `engine_comparison`."""
    print(f"Python engine and compiled core, the same decisions on the same {engines['positions']} positions "
          f"(random ghosts, an empty table each; each position the median of "
          f"{engines['runs']} runs)")
    print(f"  {'layout':<10} {'ghosts':>6} {'depth':>5} {'evaluation':<10} {'engine':<8} {'median ms':>10} "
          f"{'p95 ms':>9} {'max ms':>9} {'nodes/move':>11} {'nodes/s':>12} {'ratio':>7}")
    for row in engines["rows"]:
        ratio = f"{row['ratio_nodes_per_second']}x" if "ratio_nodes_per_second" in row else ""
        if row.get("same_answers") is False:
            ratio += " DIFFERENT ANSWERS"
        print(f"  {row['layout']:<10} {row['ghosts']:>6} {row['depth']:>5} {row['evaluation']:<10} {row['engine']:<8} "
              f"{row['ms_per_move_median']:>10.3f} {row['ms_per_move_p95']:>9.3f} {row['ms_per_move_max']:>9.3f} "
              f"{row['nodes_per_move_mean']:>11,.1f} {row['nodes_per_second']:>12,} {ratio:>7}")
    for evaluation, overall in engines["overall"].items():
        print(f"  {evaluation}, every search both engines ran: Python {overall['python_nodes_per_second']:,} nodes/s, "
              f"compiled {overall['compiled_nodes_per_second']:,} nodes/s, ratio {overall['ratio_nodes_per_second']}x")
    print("  (ratio: compiled nodes per second over the Python engine's, measured in this run; the Python engine "
          "is left out of searches larger than agents accept)")


def _print_pruning(pruning: dict[str, Any]) -> None:
    """The side-by-side table of `pruning_comparison`."""
    print(f"nodes per move by pruning, {pruning['engine']} engine, `better`, random ghosts, the same "
          f"{pruning['positions']} positions (an empty table each)")
    names = {"plain": "plain", "star1": "Star1", "star2": "Star2", "star2_ordering": "Star2+ordering"}
    print(f"  {'layout':<10} {'ghosts':>6} {'depth':>5} {'pruning':<15} {'nodes/move':>12} {'max nodes':>11} "
          f"{'/ Star1':>8} {'median ms':>10} {'p95 ms':>9} {'max ms':>9}")
    for row in pruning["rows"]:
        for mode, figures in row["modes"].items():
            print(f"  {row['layout']:<10} {row['ghosts']:>6} {row['depth']:>5} {names[mode]:<15} "
                  f"{figures['nodes_per_move_mean']:>12,.1f} {figures['nodes_per_move_max']:>11,} "
                  f"{figures['nodes_over_star1']:>8.3f} {figures['ms_per_move_median']:>10.3f} "
                  f"{figures['ms_per_move_p95']:>9.3f} {figures['ms_per_move_max']:>9.3f}")
        if not row["same_answers"]:
            print(f"  {row['layout']} depth {row['depth']}: DIFFERENT ANSWERS")
    print("  (plain is left out of trees estimated at more than 1e7 leaves; every mode gave the same actions and "
          "values unless a line says the answers differ)")


def _print_auto(auto: dict[str, Any]) -> None:
    """The table of `auto_benchmark`: the default agent's time a move on each engine."""
    print(f"the default agent (depth 'auto', dots) a move, the same {auto['positions']} positions on each engine "
          f"(random ghosts, an empty table each; each position the median of {auto['runs']} runs)")
    print(f"  {'layout':<10} {'ghosts':>6} {'cells':>5} {'depths':<7} {'engine':<8} {'median ms':>10} {'p99 ms':>9} "
          f"{'max ms':>9} {'nodes/move':>11} {'max nodes':>10}")
    for row in auto["rows"]:
        depths = f"{row['depth_min']}-{row['depth_max']}" if row["depth_min"] != row["depth_max"] else \
            str(row["depth_min"])
        flags = "" if row["repeatable"] else " NOT REPEATABLE"
        if row.get("same_answers") is False:
            flags += " DIFFERENT ANSWERS"
        print(f"  {row['layout']:<10} {row['ghosts']:>6} {row['cells']:>5} {depths:<7} {row['engine']:<8} "
              f"{row['ms_per_move_median']:>10.3f} {row['ms_per_move_p99']:>9.3f} {row['ms_per_move_max']:>9.3f} "
              f"{row['nodes_per_move_mean']:>11,.1f} {row['nodes_per_move_max']:>10,}{flags}")
    print(f"  (on a maze of fewer than 64 cells 'auto' deepens from depth 2 while a move's searches count at most "
          f"{auto['budget']:,} nodes; on a bigger one it is depth 2, and deepens within {auto['near_budget']:,} "
          f"nodes when a ghost is at most {auto['near_steps']} steps away; both engines count the same nodes, so "
          f"they give the same moves unless a line says the answers differ)")
