"""Each agent's gap to the exact optimum over many random small mazes.

For every maze the solver gives the optimal win probability (and expected
score, where it is finite) and `policy_value` the agent's own, both exact, so a
maze's gap has no sampling error. The intervals are over the mazes: a 95%
t-interval of the mean gap, and a bootstrap interval (seeded) of the mean of
the worst tenth.

Solutions are cached as JSON under a cache folder, keyed by the maze's text, so
that a set is solved once.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pacman.agents.ghosts import make_ghosts
from pacman.agent_specs import make_pacman_agent
from pacman.agents.registry import parse_agent_args
from pacman.agents.solver import SolverError, solve
from pacman.batch.stats import mean_interval
from pacman.files import write_json
from pacman.layout import Layout
from research.mazes import Maze
from research.policy import PolicyValue, policy_value

__all__ = ["AgentSpec", "Optimum", "optimum", "agent_value", "summarize", "GapSummary"]


@dataclass(frozen=True)
class AgentSpec:
    """An agent as the command line names it: ``expectimax:depth=2,evaluation=safe`` or ``greedy``."""

    name: str
    args: str = ""

    @classmethod
    def parse(cls, text: str) -> AgentSpec:
        name, _, args = text.partition(":")
        return cls(name.strip(), args.strip())

    def __str__(self) -> str:
        return f"{self.name}:{self.args}" if self.args else self.name

    def make(self) -> Any:
        """The agent, not yet reset for a maze: AgentSpecError names what is wrong with the spec."""
        return make_pacman_agent(self.name, parse_agent_args(self.args) if self.args else {})

    def build(self, layout: Layout, ghosts_kind: str = "random") -> Any:
        """The agent, reset for `layout` against ghosts of `ghosts_kind` (which a search agent models)."""
        agent = self.make()
        reset = getattr(agent, "reset", None)
        if reset is not None:
            ghosts = make_ghosts(ghosts_kind, layout.num_ghosts)
            try:
                reset(np.random.default_rng(0), ghosts, layout)
            except TypeError:
                reset(np.random.default_rng(0), ghosts)
        return agent


@dataclass(frozen=True)
class Optimum:
    """The solver's answer for one maze against its ghosts."""

    win: float
    score: float  # minus infinity when no policy surely ends the game
    nodes: int
    first_actions: tuple[str, ...]


def _key(layout: Layout) -> str:
    return hashlib.sha256(layout.text.encode()).hexdigest()[:20]


def optimum(layout: Layout, cache: Path | None, ghosts: str = "random") -> Optimum:
    """The optimal win probability and expected score of `layout` against `ghosts`, from `cache` when there (a
    kind other than random is cached under its own name)."""
    name = _key(layout) if ghosts == "random" else f"{_key(layout)}-{ghosts}"
    path = cache / f"{name}.json" if cache is not None else None
    if path is not None and path.exists():
        data = json.loads(path.read_text())
        return Optimum(data["win"], -math.inf if data["score"] is None else data["score"], data["nodes"],
                       tuple(data["first_actions"]))
    win = solve(layout, ghosts, "win", max_nodes=100_000_000)
    try:
        score = solve(layout, ghosts, "score", max_nodes=100_000_000).value
    except SolverError:
        score = -math.inf
    result = Optimum(win.value, score, win.nodes, tuple(a.value for a in win.best_actions))
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json(path, {"layout": layout.text, "win": result.win, "score": None if math.isinf(score) else score,
                          "nodes": result.nodes, "first_actions": list(result.first_actions)})
    return result


def agent_value(spec: AgentSpec, layout: Layout, ghosts: str = "random") -> PolicyValue:
    """The exact worth of the agent named by `spec` on `layout` against `ghosts` (a fresh agent, its policy walked
    whole)."""
    agent = spec.build(layout, ghosts)
    return policy_value(layout, agent.get_action, ghosts=ghosts)


@dataclass(frozen=True)
class GapSummary:
    """One agent over a set of mazes: gaps in percentage points of win probability (optimum minus agent's)."""

    agent: str
    mazes: int
    mean_win: float
    mean_optimum: float
    mean_gap: float
    mean_gap_interval: tuple[float, float]
    worst_tenth_gap: float
    worst_tenth_interval: tuple[float, float]
    over_3_points: int
    worst_gap: float
    worst_maze: str
    score_gap: float | None  # mean expected-score gap where both are finite
    score_mazes: int
    never_ends: int  # mazes where the agent's game may never end (its expected score is minus infinity)
    seconds: float


def summarize(agent: str, mazes: list[Maze], optima: list[Optimum], values: list[PolicyValue],
              seconds: float = 0.0, seed: int = 0) -> GapSummary:
    """The gaps of one agent over `mazes` (same order in all three lists)."""
    gaps = np.array([100.0 * (o.win - v.win) for o, v in zip(optima, values)])
    mean = float(gaps.mean())
    interval = mean_interval(list(gaps)) or (mean, mean)
    tenth = max(1, len(gaps) // 10)
    worst = float(np.sort(gaps)[-tenth:].mean())
    rng = np.random.default_rng(seed)
    samples = rng.choice(gaps, size=(2000, len(gaps)), replace=True)
    worst_samples = np.sort(samples, axis=1)[:, -tenth:].mean(axis=1)
    low, high = np.percentile(worst_samples, [2.5, 97.5])
    score_gaps = [o.score - v.score for o, v in zip(optima, values)
                  if math.isfinite(o.score) and math.isfinite(v.score)]
    never = sum(1 for o, v in zip(optima, values) if math.isfinite(o.score) and not math.isfinite(v.score))
    arg = int(np.argmax(gaps))
    return GapSummary(
        agent=agent, mazes=len(mazes), mean_win=float(np.mean([v.win for v in values])),
        mean_optimum=float(np.mean([o.win for o in optima])), mean_gap=mean,
        mean_gap_interval=(float(interval[0]), float(interval[1])), worst_tenth_gap=worst,
        worst_tenth_interval=(float(low), float(high)), over_3_points=int((gaps > 3.0).sum()),
        worst_gap=float(gaps[arg]), worst_maze=mazes[arg].layout.name,
        score_gap=float(np.mean(score_gaps)) if score_gaps else None, score_mazes=len(score_gaps),
        never_ends=never, seconds=seconds)


def default_cache() -> Path:
    """Where solutions are cached: $PACMAN_AI_RESEARCH_CACHE, else ~/.cache/pacman-ai/research."""
    return Path(os.environ.get("PACMAN_AI_RESEARCH_CACHE", Path.home() / ".cache" / "pacman-ai" / "research"))
