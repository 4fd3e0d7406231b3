"""`pacman-ai replay`: show a game saved by `play --save` again, move for move, checked before it is shown.

It can also record the game as a GIF, an MP4 or PNG frames (--record), with the
recording code of `play --record` (`pacman.view.record.FrameRecorder`), and write
it as a web page (--html). It runs no code of the user's: no agent plays.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from pacman.actions import Action
from pacman.cli.args import UsageError, check_output, report_stop
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
    replay.add_argument("--zoom", type=zoom, default=1.0, help="scale of the pygame view and of --record, 0.1 to 8")
    replay.add_argument("--json", action="store_true", help="print the replayed game's result as JSON")
    replay.add_argument("--html", metavar="OUT.html", default=None,
                        help="write the game as one self-contained web page that plays it (no network needed); "
                             "shows nothing else unless --display is given")
    replay.add_argument("--tree", action="store_true",
                        help="in the window, start with the tree panel shown (the key t toggles it): each move's "
                             "decision searched again by the recorded agent (one of the project's own: code the "
                             "file names is never run)")
    replay.add_argument("--record", metavar="OUT", default=None,
                        help="record the game as play --record does: OUT.gif, OUT.mp4 (needs the video extra) or a "
                             "folder of PNG frames, with the values panel when the file has the search; shows "
                             "nothing else unless --display is given")
    replay.add_argument("--force", action="store_true",
                        help="with --record FOLDER: replace the PNG frames a folder already holds (a folder that is "
                             "not empty is refused without it)")
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


class _RecordedSearch:
    """What Pacman's search found at each of his moves, as the replay file keeps it, where a recording's values
    panel looks for it: in the place of the agent (its `last_search`, `evaluation_name`) of
    `pacman.view.record.FrameRecorder`. A Display shown the game before the recorder, it moves on at each
    Pacman move."""

    def __init__(self, replay: Any) -> None:
        self.search = replay.search
        args = replay.agents.get("agent_args")
        evaluation = args.get("evaluation") if isinstance(args, dict) else None
        self.evaluation_name = evaluation if isinstance(evaluation, str) else None
        self.last_search: Any = None
        self._move = 0

    def start(self, state: Any) -> None:
        self._move, self.last_search = 0, None

    def update(self, state: Any, agent: int, action: Action) -> None:
        if agent != 0:
            return
        self._move += 1
        found = self.search[self._move - 1] if self._move <= len(self.search) else None
        if found is None or found.action is not Action(action):
            self.last_search = None
            return
        self.last_search = found.as_last_search()

    def finish(self, state: Any, result: Any) -> None:
        pass


def run(args: argparse.Namespace) -> int:
    """Run `pacman-ai replay`; returns the exit status (130 after Ctrl-C, 128 + N after SIGTERM or SIGHUP).

    Stopped by Ctrl-C, SIGTERM or SIGHUP, it says so in one line, naming the
    --record and --html outputs not written yet (each is written whole or not at
    all, an earlier file of that name left as it was), and leaves no temporary
    file behind.
    """
    from pacman.process_guard import stop_on_signals

    unwritten = [path for path in (args.record, args.html) if path is not None]
    recording: list[Any] = []  # the recorder, once there is one
    with stop_on_signals():
        try:
            return _run(args, unwritten, recording)
        except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM / SIGHUP (RunSignal)
            return report_stop(exc, unwritten)
        finally:
            for recorder in recording:  # whatever stopped it; nothing to do once the recording is finished
                recorder.abort()


def _check_record(args: argparse.Namespace) -> None:
    """--record and --force as play takes them, checked before anything is shown."""
    if args.force and not args.record:
        raise UsageError("pacman-ai replay: --force applies to --record FOLDER only (it replaces the frames a "
                         "folder holds): leave it out")
    if args.record is None:
        return
    suffix = os.path.splitext(args.record)[1].lower()
    if suffix not in ("", ".gif", ".mp4"):
        raise UsageError(f"pacman-ai replay: --record {args.record}: expected a .gif, a .mp4 or a folder for PNG "
                         f"frames (no suffix)")
    check_output("replay", "--record", args.record, folder=not suffix)
    if not suffix:
        from pacman.view.record import frame_folder_problem

        problem = frame_folder_problem(args.record, replace=args.force)
        if problem is not None:
            raise UsageError(f"pacman-ai replay: --record {args.record}: {problem}")


def _run(args: argparse.Namespace, unwritten: list[str], recording: list[Any]) -> int:
    from pacman.files import same_file
    from pacman.game import GameResult
    from pacman.replay import ReplayError, load_replay

    check_web_flags(args, "replay")
    if args.tree and args.display in ("text", "none", "web"):  # --record or not: its frames have no tree
        raise UsageError(f"pacman-ai replay: --tree applies to the pygame window only, not to --display "
                         f"{args.display}: leave it out")
    if args.tree and args.record and args.display is None:
        raise UsageError("pacman-ai replay: --tree applies to the pygame window only; a replay's --record has no "
                         "tree panel: leave it out (or add --display pygame)")
    check_window_flags(args, "replay", args.record)  # --zoom: the window's and the recording's
    _check_record(args)
    if args.html is not None:
        check_output("replay", "--html", args.html)
    for flag, path in (("--record", args.record), ("--html", args.html)):
        if path is not None and same_file(path, args.file):
            raise UsageError(f"pacman-ai replay: {flag} {path} is the replay being read; give the output a name "
                             f"of its own")
    if args.record is not None and args.html is not None and same_file(args.record, args.html):
        raise UsageError(f"pacman-ai replay: --record {args.record} and --html {args.html} name the same file; give "
                         f"each its own")
    replay = load_replay(args.file)
    writes = args.html is not None or args.record is not None
    choice = "none" if writes and args.display is None else display_choice(args)
    if choice == "pygame":
        check_frame_size("replay", replay.layout, args.zoom, panel=False, tree=args.tree)
    if args.record is not None:
        check_frame_size("replay", replay.layout, args.zoom, panel=bool(replay.search))
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

    recorders: list[Any] = []  # the recording, shown the game beside the display (and its search before it)
    if args.record is not None:
        from pacman.view.record import FrameRecorder

        searched = _RecordedSearch(replay) if replay.search else None
        recorder = FrameRecorder(replay.layout, args.record, fps=args.fps, zoom=args.zoom, agent=searched,
                                 show_values=searched is not None)
        if searched is not None and searched.evaluation_name is None:
            recorder.renderer.agent = f"agent: {replay.agents.get('pacman')}"
        recording.append(recorder)
        recorders = [display for display in (searched, recorder) if display is not None]

    def show(display: Any) -> GameResult:
        from pacman.view.record import TeeDisplay

        shown = TeeDisplay(*recorders, display) if recorders else display
        for state, agent, action in replay.states():
            if agent is None:
                shown.start(state)
            else:
                shown.update(state, agent, action)
        shown.finish(final, result)
        if args.record is not None:  # finished: the recording has its name
            unwritten.remove(args.record)
            recorders.clear()
        return result

    if args.html is not None:
        from pacman.view.web import write_game_page

        size = write_game_page(args.html, replay, fps=args.fps)
        unwritten.remove(args.html)
        print(f"wrote {args.html} ({size:,} bytes): open it in a web browser", file=sys.stderr)
    if choice == "pygame":
        from pacman.view.window import ReplayWindow, real_display, replay_rounds

        if recorders:  # recorded first, at full speed: the window steps back and forth at the user's pace
            show(None)
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
    elif recorders:
        show(None)
    if args.json:
        record = result.to_dict()
        record.update(replay.agents)
        print(json.dumps(record))
    elif choice != "text":  # the terminal view ends with its own result line
        print(f"{result.outcome}: score {result.score} after {result.moves} moves (seed {result.seed})"
              + (f" - {result.error}" if result.error else ""))
    return 0
