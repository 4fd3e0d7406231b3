"""`compare`: play configurations on the same seeds with `pacman.batch.run_batch` and compare them pair by pair.

The games are a batch's: `run_batch` plays game *i* of every configuration on
seed ``game_seed(seed, i)``, in parallel (our pool, Dask or any executor),
streaming one line per game to the results file, which resumes, survives
Ctrl-C and refuses a file of other configurations exactly as a batch's does.
This module pairs the lines by seed, runs the sequential test on the pairs in
seed order (and stops the batch when it decides), and computes the statistics.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import functools
import math
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from pacman.batch.config import (
    BatchError,
    GameConfig,
    GameJob,
    base_record,
    config_key,
    default_jobs,
    validate_config,
)
from pacman.batch.runner import run_batch
from pacman.batch.stats import wilson_interval
from pacman.compare.paired import (
    SignedRank,
    WinPairs,
    bootstrap_interval,
    mcnemar_exact,
    mean_difference_interval,
    paired_difference_interval,
    unpaired_difference_interval,
    wilcoxon_signed_rank,
)
from pacman.compare.ranking import DEFAULT_RANK_BY, RANK_BY, competition_ranks, rank_key
from pacman.compare.rating import Rating, bradley_terry_ratings, pairwise, win_probabilities
from pacman.compare.sprt import Sprt, SprtHypotheses, fixed_sample_pairs

__all__ = ["compare", "Comparison", "PairedStats", "SprtResult", "CompareError", "MAX_COMPARED"]

#: Most configurations one comparison may have (a ranked table, a matrix of pairwise probabilities).
MAX_COMPARED = 50


class CompareError(BatchError):
    """A comparison that cannot run: fewer than two configurations, a name given twice, SPRT on more than two."""


@dataclass(frozen=True)
class PairedStats:
    """Paired statistics of B against A over the seeds both played: every difference is B minus A."""

    a: str
    """The name of configuration A."""
    b: str
    """The name of configuration B."""
    pairs: int
    """Seeds played by both."""
    wins: WinPairs
    """The 2x2 table of wins."""
    win_rate_a: float | None
    """A's win rate over these seeds."""
    win_rate_b: float | None
    """B's win rate over these seeds."""
    win_difference: float | None
    """B's win rate minus A's."""
    win_interval: tuple[float, float] | None
    """95% paired (Agresti-Min) interval on the win-rate difference."""
    win_interval_unpaired: tuple[float, float] | None
    """95% interval on the same difference if the seeds were not shared (Agresti-Caffo), for contrast."""
    mcnemar_p: float
    """McNemar's exact two-sided p-value (H0: equal win rates)."""
    score_pairs: int
    """Seeds where both games have a score (a game that could not be played has none)."""
    score_difference: float | None
    """Mean of B's score minus A's."""
    score_interval_t: tuple[float, float] | None
    """95% t interval of the mean score difference."""
    score_interval_bootstrap: tuple[float, float] | None
    """95% percentile bootstrap interval of the mean score difference (10,000 resamples, seeded)."""
    wilcoxon: SignedRank | None
    """The Wilcoxon signed-rank test of the score differences (None if all are 0)."""
    b_better: int
    """Seeds where B scored more than A."""
    a_better: int
    """Seeds where A scored more than B."""
    equal: int
    """Seeds where both scored the same."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (intervals as [low, high] lists)."""
        data = {name: getattr(self, name) for name in self.__dataclass_fields__}
        data["wins"] = {"both": self.wins.both, "only_a": self.wins.only_a, "only_b": self.wins.only_b,
                        "neither": self.wins.neither}
        data["wilcoxon"] = None if self.wilcoxon is None else {
            "statistic": self.wilcoxon.statistic, "p_value": self.wilcoxon.p_value,
            "nonzero": self.wilcoxon.nonzero, "exact": self.wilcoxon.exact}
        for name in ("win_interval", "win_interval_unpaired", "score_interval_t", "score_interval_bootstrap"):
            data[name] = None if data[name] is None else list(data[name])
        return data


def paired_stats(a: str, b: str, records_a: Sequence[Mapping[str, Any]], records_b: Sequence[Mapping[str, Any]]
                 ) -> PairedStats:
    """The paired statistics of two lists of game lines, seed by seed (equal lengths, same seeds in order)."""
    if len(records_a) != len(records_b):
        raise ValueError(f"paired_stats: {len(records_a)} games of {a}, {len(records_b)} of {b}")
    won_a = [bool(r["won"]) for r in records_a]
    won_b = [bool(r["won"]) for r in records_b]
    table = WinPairs.from_outcomes(won_a, won_b)
    n = table.pairs
    wins_a, wins_b = sum(won_a), sum(won_b)
    differences = [rb["score"] - ra["score"] for ra, rb in zip(records_a, records_b)
                   if ra["score"] is not None and rb["score"] is not None]
    mean = math.fsum(differences) / len(differences) if differences else None
    return PairedStats(
        a=a, b=b, pairs=n, wins=table,
        win_rate_a=wins_a / n if n else None, win_rate_b=wins_b / n if n else None,
        win_difference=table.difference, win_interval=paired_difference_interval(table),
        win_interval_unpaired=unpaired_difference_interval(wins_a, wins_b, n),
        mcnemar_p=mcnemar_exact(table.only_a, table.only_b),
        score_pairs=len(differences), score_difference=mean,
        score_interval_t=mean_difference_interval(differences),
        score_interval_bootstrap=bootstrap_interval(differences),
        wilcoxon=wilcoxon_signed_rank(differences),
        b_better=sum(d > 0 for d in differences), a_better=sum(d < 0 for d in differences),
        equal=sum(d == 0 for d in differences),
    )


@dataclass(frozen=True)
class SprtResult:
    """Where the sequential test stands: its hypotheses, LLR, bounds, verdict and the pairs it used."""

    hypotheses: SprtHypotheses
    """H0, H1, alpha, beta."""
    llr: float
    """The log-likelihood ratio after the pairs used."""
    pairs: int
    """Pairs (seeds) taken by the test: up to its verdict, or all it had."""
    verdict: str | None
    """``"H1"`` (B is better by h1), ``"H0"`` (it is not), or None (no bound crossed)."""
    fixed_pairs: int | None
    """Pairs a fixed-size test of the same alpha and power would need, at the variance observed."""
    path: tuple[float, ...]
    """The LLR after each pair, in seed order."""

    @property
    def games(self) -> int:
        """Games behind the test: two per pair."""
        return 2 * self.pairs

    def conclusion(self, a: str, b: str) -> str:
        """The verdict in words, naming the configurations."""
        h = self.hypotheses
        if self.verdict == "H1":
            return f"H1 accepted: {h.describe(h.h1).replace('B', b, 1).replace('A', a)} or more"
        if self.verdict == "H0":
            return f"H0 accepted: {h.describe(h.h0).replace('B', b, 1).replace('A', a)} (or less)"
        return "no verdict yet: neither bound crossed"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        h = self.hypotheses
        return {"metric": h.metric, "h0": h.h0, "h1": h.h1, "alpha": h.alpha, "beta": h.beta,
                "lower_bound": h.lower, "upper_bound": h.upper, "llr": self.llr, "pairs": self.pairs,
                "games": self.games, "verdict": self.verdict, "fixed_pairs": self.fixed_pairs}


@dataclass
class Comparison:
    """Configurations played on the same seeds, and what the pairs say. Differences are B minus A (second minus first).

    With two configurations the paired statistics are attributes
    (`win_difference`, `mcnemar_p`, `score_interval_t`, ...); with more, `pair(a, b)`
    gives them for any two, and `ranking` orders all of them.
    """

    names: list[str]
    """The configurations' names, in the order given."""
    configs: list[GameConfig]
    """The configurations, validated."""
    games: int
    """Games planned per configuration (with --sprt, the most the test may use)."""
    seed: int
    """The batch seed: game i of every configuration has seed game_seed(seed, i)."""
    records: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Each configuration's game lines over the seeds compared, in seed order."""
    sprt: SprtResult | None = None
    """The sequential test, if one was asked for."""
    played: int = 0
    """Games played by this run (not read back from a resumed file)."""
    seconds: float = 0.0
    """Wall-clock seconds of this run."""
    interrupted: bool = False
    """True when the run stopped before its end: Ctrl-C, SIGTERM or SIGHUP (`stop_signal`), or a lost executor
    (`stopped_by`)."""
    stop_signal: int | None = None
    """The signal that stopped the run, if one did."""
    stopped_by: str = ""
    """What stopped the run: a signal's name or what its executor did."""
    rank_by: str = DEFAULT_RANK_BY
    """The order of `ranking`: ``"win-rate"`` (then mean score) or ``"score"`` (then win rate);
    `pacman.compare.ranking`."""
    executor: str = ""
    """What ran the games."""
    unpaired: int = 0
    """Finished games left out because the other side's game of that seed had not finished (or came after the
    sequential test's verdict)."""

    @property
    def pairs(self) -> int:
        """Seeds compared: each configuration's game on every one of them is in."""
        return len(self.records[self.names[0]]) if self.names else 0

    def pair(self, a: str, b: str) -> PairedStats:
        """The paired statistics of configuration `b` against `a` (differences are b minus a)."""
        for name in (a, b):
            if name not in self.records:
                raise KeyError(f"no configuration named {name!r}; the names are {', '.join(self.names)}")
        return paired_stats(a, b, self.records[a], self.records[b])

    @functools.cached_property
    def paired(self) -> PairedStats:
        """The paired statistics of the second configuration against the first (computed once)."""
        return self.pair(self.names[0], self.names[1])

    def __getattr__(self, name: str) -> Any:
        # The paired statistics of B against A read as attributes: result.win_difference, result.mcnemar_p...
        if name in _PAIRED_ATTRIBUTES and "names" in self.__dict__:
            return getattr(self.paired, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | _PAIRED_ATTRIBUTES)

    def scores(self) -> np.ndarray:
        """Configurations x seeds scores (NaN for a game without a score)."""
        return np.array([[np.nan if r["score"] is None else float(r["score"]) for r in self.records[name]]
                         for name in self.names], dtype=float).reshape(len(self.names), self.pairs)

    def win_probabilities(self) -> np.ndarray:
        """``P[i, j]``: the share of seeds on which configuration i scored more than j (ties count half)."""
        return win_probabilities(*pairwise(self.scores()))

    def ratings(self) -> list[Rating]:
        """Each configuration's Bradley-Terry rating (Elo scale, mean 0) with its 95% bootstrap interval."""
        return bradley_terry_ratings(self.scores(), seed=self.seed % 2**32)

    def ranking(self) -> list[dict[str, Any]]:
        """One row per configuration, best first in the order `rank_by` names (by default the win rate, then the mean
        score): rank (equal win rate and mean score share one), name, label, win rate and interval, mean score,
        rating."""
        ratings = self.ratings()
        rows = []
        for number, name in enumerate(self.names):
            records = self.records[name]
            wins = sum(bool(r["won"]) for r in records)
            scores = [r["score"] for r in records if r["score"] is not None]
            rows.append({"name": name, "label": self.configs[number].label(), "games": len(records),
                         "wins": wins, "win_rate": wins / len(records) if records else None,
                         "win_interval": list(wilson_interval(wins, len(records))),
                         "mean_score": math.fsum(scores) / len(scores) if scores else None,
                         "rating": ratings[number].rating, "rating_interval": [ratings[number].low,
                                                                               ratings[number].high]})
        # Stable: sides with equal keys keep the order they were given in.
        rows.sort(key=lambda row: rank_key(row["win_rate"], row["mean_score"], self.rank_by))
        keys = [rank_key(row["win_rate"], row["mean_score"], self.rank_by) for row in rows]
        return [{"rank": rank, **row} for rank, row in zip(competition_ranks(keys), rows)]

    def to_dict(self) -> dict[str, Any]:
        """Everything as JSON-ready data: the configurations, the ranking, pairwise probabilities, paired stats."""
        probabilities = self.win_probabilities()
        data: dict[str, Any] = {
            "configurations": [{"name": n, **c.to_dict(), "label": c.label()} for n, c in zip(self.names,
                                                                                          self.configs)],
            "seed": self.seed, "games_planned": self.games, "pairs": self.pairs, "unpaired": self.unpaired,
            "played": self.played, "seconds": round(self.seconds, 3), "interrupted": self.interrupted,
            "executor": self.executor, "rank_by": self.rank_by,
            "ranking": self.ranking() if self.pairs else [],
            "win_probabilities": {a: {b: (None if i == j or math.isnan(probabilities[i, j])
                                          else float(probabilities[i, j]))
                                      for j, b in enumerate(self.names) if j != i}
                                  for i, a in enumerate(self.names)},
        }
        if len(self.names) == 2:
            data["paired"] = self.paired.to_dict()
        data["sprt"] = None if self.sprt is None else self.sprt.to_dict()
        return data


#: The attributes of `PairedStats` a `Comparison` answers for its first two configurations.
_PAIRED_ATTRIBUTES = frozenset(PairedStats.__dataclass_fields__) - {"a", "b", "pairs"}


class _Decided(Exception):
    """Raised from the batch's line callback when the sequential test has its verdict: the batch stops there."""


def _named_configs(configs: Mapping[str, GameConfig] | Sequence[tuple[str, GameConfig]] | Sequence[GameConfig]
                   ) -> list[tuple[str, GameConfig]]:
    if isinstance(configs, Mapping):
        items = list(configs.items())
    else:
        items = [item if isinstance(item, tuple) else (chr(ord("A") + number) if number < 26 else f"C{number}",
                                                       item)
                 for number, item in enumerate(configs)]
    if len(items) < 2:
        raise CompareError(f"a comparison needs at least two configurations, got {len(items)}")
    if len(items) > MAX_COMPARED:
        raise CompareError(f"{len(items)} configurations: a comparison has at most {MAX_COMPARED}")
    seen: set[str] = set()
    for name, config in items:
        if not isinstance(name, str) or not name:
            raise CompareError(f"a configuration's name must be a non-empty string, got {name!r}")
        if name in seen:
            raise CompareError(f"the name {name!r} is given to two configurations")
        if not isinstance(config, GameConfig):
            raise CompareError(f"configuration {name!r}: expected a GameConfig, got {type(config).__name__}")
        seen.add(name)
    return items


def compare(
    configs: Mapping[str, GameConfig] | Sequence[tuple[str, GameConfig]] | Sequence[GameConfig],
    games: int,
    seed: int = 0,
    *,
    sprt: SprtHypotheses | str | None = None,
    jobs: int | None = None,
    executor: cf.Executor | None = None,
    out: str | os.PathLike[str] | None = None,
    resume: bool = False,
    overwrite: bool = False,
    on_game: Callable[[dict[str, Any]], None] | None = None,
    on_resume: Callable[[Sequence[dict[str, Any]]], None] | None = None,
    on_pair: Callable[[int, SprtResult | None], None] | None = None,
    rank_by: str = DEFAULT_RANK_BY,
) -> Comparison:
    """Play `games` games of each configuration on the same seeds and compare them pair by pair.

    `configs` is a mapping of names to `GameConfig`s, a list of (name, config),
    or a list of configs (named A, B, ...). Each is played under its name
    (`GameConfig.name`, in every line), so two configurations may be the same
    game setup: both are played, and on every seed they play the same game. The
    games, `jobs`, `executor`, `out`, `resume` and `overwrite` are
    `pacman.batch.run_batch`'s (a results file of a comparison is a batch's of
    named configurations). With `sprt` (two configurations only; hypotheses or
    their text, e.g. ``"win-rate:0,0.05"``) the pairs are fed to the sequential
    test in seed order and the run stops at its verdict; `games` is then the most
    it may play. `on_game` is called with every new line, `on_resume` once with
    the lines read back from a resumed file (as `run_batch` calls them), and
    `on_pair` with the number of seeds complete (in order) and the test's state,
    whenever it grows. `rank_by` is the order of the ranked table
    (`Comparison.ranking`): ``"win-rate"`` (then mean score, the default) or
    ``"score"`` (then win rate).

    >>> result = compare({"d1": GameConfig.create("test", "expectimax", {"depth": 1}),   # doctest: +SKIP
    ...                   "d2": GameConfig.create("test", "expectimax", {"depth": 2})}, games=20)
    >>> result.win_difference, result.mcnemar_p                                         # doctest: +SKIP
    """
    named = _named_configs(configs)
    if rank_by not in RANK_BY:
        raise CompareError(f"rank by {rank_by!r}: expected one of {', '.join(RANK_BY)}")
    if isinstance(sprt, str):
        sprt = SprtHypotheses.parse(sprt)
    if sprt is not None and len(named) != 2:
        raise CompareError(f"--sprt tests B against A: it needs exactly two configurations, got {len(named)}")
    names = [name for name, _ in named]
    # Each side is played under its name, which is in its lines and their key: two sides that are the same
    # game setup are still two configurations, both played and stored, told apart on resume.
    validated = [validate_config(dataclasses.replace(config, name=name)) for name, config in named]
    keys = [config_key(base_record(GameJob(number, config, 0, seed))) for number, config in enumerate(validated)]
    by_key = {key: number for number, key in enumerate(keys)}
    lines: list[dict[int, dict[str, Any]]] = [{} for _ in names]
    test = None if sprt is None else Sprt(sprt)
    path: list[float] = []
    state = {"complete": 0, "played": 0}

    def sprt_result() -> SprtResult | None:
        if test is None:
            return None
        fixed = None
        if test.n >= 2 and test.variance > 0:
            fixed = fixed_sample_pairs(test.hypotheses, test.variance)
        return SprtResult(hypotheses=test.hypotheses, llr=test.llr, pairs=test.pairs or test.n,
                          verdict=test.verdict, fixed_pairs=fixed, path=tuple(path))

    def advance() -> None:
        """Feed the seeds now complete in order to the test; _Decided once it has its verdict."""
        before = state["complete"]
        while state["complete"] < games and all(state["complete"] in side for side in lines):
            index = state["complete"]
            state["complete"] += 1
            if test is not None:
                a, b = lines[0][index], lines[1][index]
                if sprt.metric == "win-rate":
                    test.add(float(bool(b["won"])) - float(bool(a["won"])))
                elif a["score"] is not None and b["score"] is not None:
                    test.add(float(b["score"] - a["score"]))
                else:
                    continue  # a game without a score: not a pair for the score test
                path.append(test.llr)
                if test.verdict is not None:
                    break
        if state["complete"] != before and on_pair is not None:
            on_pair(state["complete"], sprt_result())
        if test is not None and test.verdict is not None:
            raise _Decided

    def take(record: dict[str, Any]) -> None:
        number = by_key.get(config_key(record))
        if number is not None:  # run_batch wrote and checked it; the key always matches
            lines[number][record["index"]] = record

    def resumed(records: Sequence[dict[str, Any]]) -> None:
        for record in records:
            take(record)
        if on_resume is not None:
            on_resume(records)
        advance()

    def new_line(record: dict[str, Any]) -> None:
        state["played"] += 1
        take(record)
        if on_game is not None:
            on_game(record)
        advance()

    comparison = Comparison(names=names, configs=validated, games=games, seed=seed, rank_by=rank_by)
    started = time.perf_counter()
    try:
        batch = run_batch(validated, games, seed, jobs=jobs, executor=executor, out=out, resume=resume,
                          overwrite=overwrite, on_game=new_line, on_resume=resumed)
        comparison.played, comparison.seconds = batch.played, batch.seconds
        comparison.interrupted, comparison.executor = batch.interrupted, batch.executor
        comparison.stop_signal, comparison.stopped_by = batch.stop_signal, batch.stopped_by
    except _Decided:  # the batch stopped its workers; every line written so far stays in the file
        comparison.played, comparison.seconds = state["played"], time.perf_counter() - started
        comparison.executor = ("stopped at the verdict" if not state["played"] else
                               f"process pool, {jobs or default_jobs()} workers" if executor is None
                               else type(executor).__name__)
    complete = state["complete"]
    comparison.records = {name: [lines[number][index] for index in range(complete)]
                          for number, name in enumerate(names)}
    comparison.unpaired = sum(len(side) for side in lines) - complete * len(names)
    comparison.sprt = sprt_result()
    return comparison
