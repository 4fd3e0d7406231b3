"""Statistics of a batch of games: Wilson intervals for win rates, t intervals for mean scores.

Everything here is plain arithmetic on counts and lists of numbers, so that a
summary can be recomputed by anyone from the per-game lines of a batch file.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Sequence

__all__ = ["Z95", "wilson_interval", "t_quantile", "mean_interval", "percentile", "summarize_games"]

#: The two-sided 95% quantile of the standard normal distribution.
Z95 = 1.959963984540054


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion, `(low, high)`.

    Unlike the textbook `p ± z·sqrt(p(1-p)/n)`, it stays inside [0, 1] and keeps
    its coverage near 0% and 100%, where win rates of good agents live. With no
    trials the interval is the whole of [0, 1].

    >>> [round(x, 4) for x in wilson_interval(97, 100)]
    [0.9155, 0.9897]
    """
    if trials < 0 or not 0 <= successes <= trials:
        raise ValueError(f"wilson_interval: need 0 <= successes <= trials, got {successes} of {trials}")
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return (low, high)


def _t_two_sided_mass(t: float, df: int) -> float:
    """P(|T| < t) for Student's t with `df` degrees of freedom (t >= 0), by the finite series for integer df."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2 == 1:
        total, term = 0.0, 1.0
        if df > 1:
            total = 1.0
            for k in range(1, (df - 3) // 2 + 1):
                term *= c2 * (2 * k) / (2 * k + 1)
                total += term
        return 2 / math.pi * (theta + math.sin(theta) * math.cos(theta) * total)
    total, term = 1.0, 1.0
    for k in range(1, (df - 2) // 2 + 1):
        term *= c2 * (2 * k - 1) / (2 * k)
        total += term
    return math.sin(theta) * total


def t_quantile(df: int, confidence: float = 0.95) -> float:
    """The two-sided critical value of Student's t: P(|T| < t) = `confidence`.

    Exact (to 1e-10) for df <= 200 by bisection on the closed-form distribution;
    above that the Cornish-Fisher expansion around the normal quantile, whose
    error there is below 1e-7.

    >>> round(t_quantile(10), 4)
    2.2281
    """
    if df < 1:
        raise ValueError(f"t_quantile: degrees of freedom must be >= 1, got {df}")
    if not 0 < confidence < 1:
        raise ValueError(f"t_quantile: confidence must be in (0, 1), got {confidence}")
    if df > 200:
        z = _normal_quantile(0.5 + confidence / 2)
        z3, z5 = z ** 3, z ** 5
        return (z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2)
                + (3 * z ** 7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3))
    low, high = 0.0, 1.0
    while _t_two_sided_mass(high, df) < confidence:
        high *= 2
    for _ in range(200):
        middle = (low + high) / 2
        if _t_two_sided_mass(middle, df) < confidence:
            low = middle
        else:
            high = middle
        if high - low < 1e-12:
            break
    return (low + high) / 2


def _normal_quantile(p: float) -> float:
    """The standard normal quantile, by bisection on math.erf (plenty fast for a handful of calls)."""
    low, high = -40.0, 40.0
    for _ in range(200):
        middle = (low + high) / 2
        if 0.5 * (1 + math.erf(middle / math.sqrt(2))) < p:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float] | None:
    """The t interval of the mean of `values`; None for fewer than two values (no spread to measure)."""
    n = len(values)
    if n < 2:
        return None
    mean = math.fsum(values) / n
    sd = _sample_sd(values, mean)
    half = t_quantile(n - 1, confidence) * sd / math.sqrt(n)
    return (mean - half, mean + half)


def _sample_sd(values: Sequence[float], mean: float) -> float:
    return math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1))


def percentile(values: Sequence[float], q: float) -> float | None:
    """The `q`-th percentile (0-100) with linear interpolation between order statistics; None if empty."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def summarize_games(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Counts, rates and intervals of a set of per-game records (the lines of a batch file).

    Every game counts in `games`, so a crash or a time-out is a game not won.
    Score and move statistics are over the games that have a score (a game whose
    worker process died has none). `ms_per_move_p50/p95/p99` are over every
    Pacman move of every game (the `move_ms` lists).
    """
    records = list(records)
    games = len(records)
    wins = sum(1 for r in records if r.get("won"))
    scored = [r for r in records if r.get("score") is not None]
    scores = [float(r["score"]) for r in scored]
    move_ms = [ms for r in records for ms in (r.get("move_ms") or ())]
    mean_score = math.fsum(scores) / len(scores) if scores else None
    interval = mean_interval(scores)
    return {
        "games": games,
        "wins": wins,
        "losses": sum(1 for r in records if r.get("lost")),
        "win_rate": wins / games if games else None,
        "win_rate_ci95": list(wilson_interval(wins, games)),
        "mean_score": mean_score,
        "score_sd": _sample_sd(scores, mean_score) if mean_score is not None and len(scores) > 1 else None,
        "score_ci95": list(interval) if interval else None,
        "mean_moves": math.fsum(r["moves"] for r in scored) / len(scored) if scored else None,
        "ms_per_move_p50": percentile(move_ms, 50),
        "ms_per_move_p95": percentile(move_ms, 95),
        "ms_per_move_p99": percentile(move_ms, 99),
        "crashes": sum(1 for r in records if r.get("crashed")),
        "timeouts": sum(1 for r in records if r.get("timed_out")),
        "cut_offs": sum(1 for r in records if r.get("cut_off")),
        "game_seconds": math.fsum(r.get("seconds") or 0.0 for r in records),
    }
