"""The recording benchmark: milliseconds per frame of recording a game to GIF, per encoder."""

from __future__ import annotations

import os
import platform
import statistics
import tempfile
import time
from typing import Any

from pacman.agents import ExpectimaxAgent, make_ghosts
from pacman.game import run_game
from pacman.layout import Layout
from pacman.state import GameState

__all__ = ["record_benchmark"]


class _Tape:
    """A Display that keeps a game's calls, with what the agent's panel showed at each, to play them again."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.calls: list[tuple[str, tuple[Any, ...], Any]] = []

    def start(self, state: GameState) -> None:
        self.calls.append(("start", (state,), getattr(self.agent, "last_search", None)))

    def update(self, state: GameState, agent: int, action: Any) -> None:
        self.calls.append(("update", (state, agent, action), getattr(self.agent, "last_search", None)))

    def finish(self, state: GameState, result: Any) -> None:
        self.calls.append(("finish", (state, result), getattr(self.agent, "last_search", None)))


class _Shown:
    """Stands in for the agent while a tape plays: the values panel reads `last_search` from it."""

    evaluation_name = "better"
    last_search: Any = None


def record_benchmark(layout: Layout, runs: int = 3, moves: int = 150, seed: int = 0, zoom: float = 1.0,
                     encoders: tuple[str, ...] = ("pillow", "python")) -> dict[str, Any]:
    """Milliseconds per frame of recording a game to GIF (rendering, quantising, encoding, writing), per encoder.

    Wall-clock and CPU (process time: steadier on a busy machine) medians.
    One game of expectimax (depth 2, `better`, random ghosts) is
    played once, its calls kept; each run records them again to a temporary GIF
    with each encoder, interleaved. Figures are medians over `runs`; "render" is
    the drawing alone (frames made and dropped), the floor any encoder adds to.
    """
    # The views need pygame, an optional dependency: imported only when recording is measured.
    from pacman.view.gif import has_pillow
    from pacman.view.record import FrameRecorder

    agent = ExpectimaxAgent(depth=2, evaluation="better")
    agent.explain = True
    tape = _Tape(agent)
    result = run_game(layout, agent, make_ghosts("random", layout.num_ghosts), seed=seed, max_moves=moves,
                      display=tape)
    available = tuple(e for e in encoders if e != "pillow" or has_pillow())

    def record(target: str | None, encoder: str) -> tuple[float, float, int, int]:
        shown = _Shown()
        if target is None:
            recorder = FrameRecorder(layout, os.devnull + ".gif", zoom=zoom, agent=shown, show_values=True,
                                     open_writer=False)
        else:
            recorder = FrameRecorder(layout, target, zoom=zoom, agent=shown, show_values=True, encoder=encoder)
        started, cpu = time.perf_counter(), time.process_time()
        for method, args, search in tape.calls:
            shown.last_search = search
            getattr(recorder, method)(*args)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        size = os.path.getsize(target) if target is not None else 0
        return elapsed, cpu, recorder.frames, size

    samples: dict[str, list[float]] = {name: [] for name in ("render", *available)}
    cpu_samples: dict[str, list[float]] = {name: [] for name in samples}
    frames = 0
    sizes: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="pacman-bench-") as folder:
        for run in range(runs):
            for encoder in ("render", *available):
                target = None if encoder == "render" else os.path.join(folder, f"{encoder}-{run}.gif")
                elapsed, cpu, frames, size = record(target, encoder)
                samples[encoder].append(1000 * elapsed / frames)
                cpu_samples[encoder].append(1000 * cpu / frames)
                if target is not None:
                    sizes[encoder] = size
                    os.remove(target)
    medians = {name: round(statistics.median(values), 3) for name, values in samples.items()}
    cpu_medians = {name: round(statistics.median(values), 3) for name, values in cpu_samples.items()}
    report: dict[str, Any] = {
        "layout": layout.name, "moves": result.moves, "frames": frames, "zoom": zoom, "runs": runs,
        "frame_size": list(FrameRecorder(layout, os.devnull + ".gif", zoom=zoom, show_values=True,
                                         open_writer=False).renderer.size),
        "ms_per_frame": medians,
        "cpu_ms_per_frame": cpu_medians,
        "samples": {name: [round(v, 3) for v in values] for name, values in samples.items()},
        "gif_bytes": sizes,
        "python": platform.python_version(),
    }
    if "pillow" in medians and "python" in medians:
        report["speedup_pillow_to_python"] = round(medians["python"] / medians["pillow"], 1)
        report["cpu_speedup_pillow_to_python"] = round(cpu_medians["python"] / cpu_medians["pillow"], 1)
    return report
