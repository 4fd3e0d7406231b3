"""`pacman-ai replay`: show a game saved by `play --save` again, move for move, checked before it is shown."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from pacman.cli.args import check_output, report_stop
from pacman.cli.display import (DISPLAYS, add_web_arguments, check_frame_size, check_web_flags, check_window_flags,
                                display_choice, fps, text_display, web_view, zoom)

__all__ = ["add_parser", "run", "recorded_agent"]


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the `replay` subcommand to the subparsers of the `pacman-ai` parser."""
    replay = commands.add_parser("replay", help="replay a saved game exactly",
                                 description="Replay a game saved with `play --save`: the same moves, the same "
                                             "outcome, checked.")
    replay.add_argument("file", metavar="GAME.json", help="a replay file written by `pacman-ai play --save`")
    replay.add_argument("--display", choices=DISPLAYS, default=None,
                        help="how to show the game (default: a pygame window when a display exists, else the "
                             "terminal; none with --json or --html); web: live in a web browser, served from "
                             "this machine (see --host, --port)")
    replay.add_argument("--fps", type=fps, default=8.0,
                        help="rounds shown per second, 0.1 to 1000 (default: 8)")
    replay.add_argument("--zoom", type=zoom, default=1.0, help="scale of the pygame view, 0.1 to 8")
    replay.add_argument("--json", action="store_true", help="print the replayed game's result as JSON")
    replay.add_argument("--html", metavar="OUT.html", default=None,
                        help="write the game as one self-contained web page that plays it (no network needed); "
                             "shows nothing else unless --display is given")
    replay.add_argument("--tree", action="store_true",
                        help="in the window, start with the tree panel shown (the key t toggles it): each move's "
                             "decision searched again by the recorded agent (one of the project's own: code the "
                             "file names is never run)")
    add_web_arguments(replay)
    return replay


def recorded_agent(replay: Any) -> Any:
    """The replay's Pacman agent made again from its recorded name and arguments, told about the recorded
    ghosts (so that its ghost model is the one it played with); a sentence instead if it cannot be made."""
    from pacman.agents import make_ghosts
    from pacman.agents.evaluation import EVALUATIONS
    from pacman.agents.registry import PACMAN_AGENTS
    from pacman.agent_specs import make_pacman_agent
    from pacman.errors import PacmanError

    spec = replay.agents
    name = spec.get("pacman")
    if name == "keyboard":
        return "Pacman was steered from the keyboard: no search tree to show"
    args = spec.get("agent_args") or {}
    evaluation = args.get("evaluation") if isinstance(args, dict) else None
    code = next((named for named in (name, evaluation) if isinstance(named, str) and ":" in named
                 and named not in PACMAN_AGENTS and named not in EVALUATIONS), None)
    if code is not None:
        # A replay is a file anyone may send: making its agent again must not import the code it names.
        return (f"the recorded agent uses {code!r}, code the replay names, and replay runs none; to see its "
                f"tree, play the game again: pacman-ai play --layout FILE --seed {replay.seed} --tree ...")
    try:
        agent = make_pacman_agent(name, args)
        ghosts = make_ghosts(spec.get("ghosts", "random"), replay.num_ghosts)
        if hasattr(agent, "reset"):
            agent.reset(ghost_agents=ghosts, layout=replay.layout)
    except (PacmanError, ImportError, OSError, TypeError) as exc:
        return f"cannot make the recorded agent {name!r} again: {exc}"
    return agent


def run(args: argparse.Namespace) -> int:
    """Run `pacman-ai replay`; returns the exit status (130 after Ctrl-C, 128 + N after SIGTERM or SIGHUP).

    Stopped by Ctrl-C, SIGTERM or SIGHUP, it says so in one line, naming the
    --html page if it was not written yet (it is written whole or not at all).
    """
    from pacman.process_guard import stop_on_signals

    unwritten = [] if args.html is None else [args.html]
    with stop_on_signals():
        try:
            return _run(args, unwritten)
        except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM / SIGHUP (RunSignal)
            return report_stop(exc, unwritten)


def _run(args: argparse.Namespace, unwritten: list[str]) -> int:
    from pacman.game import GameResult
    from pacman.replay import ReplayError, load_replay

    check_web_flags(args, "replay")
    check_window_flags(args, "replay")
    if args.html is not None:
        check_output("replay", "--html", args.html)
    replay = load_replay(args.file)
    choice = "none" if args.html is not None and args.display is None else display_choice(args)
    if choice == "pygame":
        check_frame_size("replay", replay.layout, args.zoom, panel=False, tree=args.tree)
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

    if args.html is not None:
        from pacman.view.web import write_game_page

        size = write_game_page(args.html, replay, fps=args.fps)
        unwritten.clear()
        print(f"wrote {args.html} ({size:,} bytes): open it in a web browser", file=sys.stderr)
    if choice == "pygame":
        from pacman.view.window import ReplayWindow, real_display, replay_rounds

        banner = "You win!" if result.won else "Game over" if result.lost else result.outcome
        ReplayWindow(replay.layout, replay_rounds(replay.states()), fps=args.fps, zoom=args.zoom,
                     banner=banner, hold_at_end=real_display(), make_agent=lambda: recorded_agent(replay), show_tree=args.tree).run()
    elif choice == "text":
        show(text_display(args))
    elif choice == "web":
        with web_view(args, "replay") as web:
            search = replay.search
            show(web.display(replay.layout, None, agents=replay.agents, seed=replay.seed,
                             search_of=lambda move: search[move - 1] if 0 < move <= len(search) else None))
    if args.json:
        record = result.to_dict()
        record.update(replay.agents)
        print(json.dumps(record))
    elif choice != "text":  # the terminal view ends with its own result line
        print(f"{result.outcome}: score {result.score} after {result.moves} moves (seed {result.seed})"
              + (f" - {result.error}" if result.error else ""))
    return 0
