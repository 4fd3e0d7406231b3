"""Paired statistics of two configurations played on the same seeds: exact tests and intervals, numpy only.

Game *i* of both configurations has the same seed, so the two results of a
seed form a pair, and what varies between configurations is measured on the
differences within pairs, from which the luck of the seed largely cancels.

- Wins: the paired difference in win rate, McNemar's exact test (a binomial
  test on the discordant pairs) and the Agresti-Min interval on the difference
  (the Wald interval after adding half a pair to each of the four cells); for
  contrast, `unpaired_difference_interval` is the Agresti-Caffo interval that
  treats the two sides as independent samples.
- Scores: the mean paired difference with its t interval and a percentile
  bootstrap interval, and the Wilcoxon signed-rank test (zeros dropped, ranks
  of ties averaged; exact null distribution for up to 50 differences without
  ties, else the normal approximation with the tie correction).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from pacman.batch.stats import Z95, mean_interval

__all__ = [
    "WinPairs",
    "mcnemar_exact",
    "paired_difference_interval",
    "unpaired_difference_interval",
    "mean_difference_interval",
    "bootstrap_interval",
    "wilcoxon_signed_rank",
    "normal_cdf",
    "SignedRank",
    "BOOTSTRAP_RESAMPLES",
]

#: Up to this many differences (zeros included), a sample with ties or zeros gets the exact p-value of its own
#: ranks by enumerating every sign pattern (2^13 = 8192 at most); beyond it, the normal approximation.
EXACT_WITH_TIES = 13
#: Resamples of the bootstrap interval (its percentiles are then good to about a tenth of the t interval's width).
BOOTSTRAP_RESAMPLES = 10_000


@dataclass(frozen=True)
class WinPairs:
    """The 2x2 table of paired wins: how many seeds each side won, alone or both."""

    both: int
    """Seeds won by both sides."""
    only_a: int
    """Seeds won by A alone (B did not win)."""
    only_b: int
    """Seeds won by B alone (A did not win)."""
    neither: int
    """Seeds won by neither side."""

    @classmethod
    def from_outcomes(cls, won_a: Sequence[bool], won_b: Sequence[bool]) -> "WinPairs":
        """Count the four cells from the two sides' wins, seed by seed."""
        if len(won_a) != len(won_b):
            raise ValueError(f"WinPairs: {len(won_a)} outcomes of A, {len(won_b)} of B; pairs need both")
        pairs = [(bool(a), bool(b)) for a, b in zip(won_a, won_b)]
        return cls(both=pairs.count((True, True)), only_a=pairs.count((True, False)),
                   only_b=pairs.count((False, True)), neither=pairs.count((False, False)))

    @property
    def pairs(self) -> int:
        """Seeds in the table."""
        return self.both + self.only_a + self.only_b + self.neither

    @property
    def difference(self) -> float | None:
        """B's win rate minus A's: (only_b - only_a) / pairs; None without pairs."""
        return (self.only_b - self.only_a) / self.pairs if self.pairs else None


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """McNemar's exact test: the two-sided p-value that the discordant pairs split evenly.

    Under H0 (equal win rates) each of the ``only_a + only_b`` discordant pairs
    goes either way with probability 1/2: the p-value is twice the smaller tail
    of Binomial(only_a + only_b, 1/2), at most 1. No discordant pair: 1.

    >>> round(mcnemar_exact(2, 10), 6)
    0.038574
    """
    if only_a < 0 or only_b < 0:
        raise ValueError(f"mcnemar_exact: counts must be >= 0, got {only_a} and {only_b}")
    n = only_a + only_b
    if n == 0:
        return 1.0
    k = min(only_a, only_b)
    # Exact integer arithmetic: no underflow at large n, no rounding in the tail sum.
    tail = sum(math.comb(n, i) for i in range(k + 1))
    return min(1.0, 2 * tail / 2**n) if 2 * k != n else 1.0


def paired_difference_interval(pairs: WinPairs, z: float = Z95) -> tuple[float, float] | None:
    """The Agresti-Min interval on B's win rate minus A's, from paired outcomes; None without pairs.

    Half a pair is added to each cell (n + 2 pairs in all), then the Wald
    interval of the difference of the two marginal proportions with the variance
    of a paired difference, ``((b + c) - (b - c)^2 / n) / n^2``, clipped to
    [-1, 1] (Agresti and Min, 2005).
    """
    n = pairs.pairs
    if n == 0:
        return None
    b, c, total = pairs.only_b + 0.5, pairs.only_a + 0.5, n + 2
    difference = (b - c) / total
    variance = ((b + c) / total - difference**2) / total
    half = z * math.sqrt(max(variance, 0.0))
    return (max(-1.0, difference - half), min(1.0, difference + half))


def unpaired_difference_interval(wins_a: int, wins_b: int, games: int, z: float = Z95
                                 ) -> tuple[float, float] | None:
    """The Agresti-Caffo interval on B's win rate minus A's as if the two samples were independent.

    One win and one loss are added to each side, then the Wald interval of a
    difference of independent proportions. Shown beside the paired interval to
    measure what pairing saves; None without games.
    """
    if games == 0:
        return None
    pa, pb = (wins_a + 1) / (games + 2), (wins_b + 1) / (games + 2)
    difference = pb - pa
    half = z * math.sqrt(pa * (1 - pa) / (games + 2) + pb * (1 - pb) / (games + 2))
    return (max(-1.0, difference - half), min(1.0, difference + half))


def mean_difference_interval(differences: Sequence[float], confidence: float = 0.95
                             ) -> tuple[float, float] | None:
    """The t interval of the mean paired difference (`pacman.batch.stats.mean_interval`); None under 2 pairs."""
    return mean_interval(list(differences), confidence)


def bootstrap_interval(differences: Sequence[float], confidence: float = 0.95, resamples: int = BOOTSTRAP_RESAMPLES,
                       seed: int = 0) -> tuple[float, float] | None:
    """The percentile bootstrap interval of the mean paired difference; None under 2 pairs.

    Pairs are resampled whole (the pairing is kept), `resamples` times, from a
    generator seeded with `seed`, so the same differences give the same interval.
    """
    values = np.asarray(differences, dtype=float)
    n = len(values)
    if n < 2:
        return None
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    chunk = max(1, min(resamples, 2_000_000 // n))  # at most ~16 MB of indices at a time
    for start in range(0, resamples, chunk):
        stop = min(resamples, start + chunk)
        means[start:stop] = values[rng.integers(0, n, size=(stop - start, n))].mean(axis=1)
    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return (float(low), float(high))


def normal_cdf(z: float) -> float:
    """The standard normal distribution function."""
    return 0.5 * math.erfc(-z / math.sqrt(2))


def _average_ranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ranks 1..n of `values` with ties given their average rank, and the sizes of the groups of ties."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    ranks = np.empty(len(values))
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ends = np.r_[starts[1:], len(values)]
    for start, end in zip(starts, ends):
        ranks[order[start:end]] = (start + 1 + end) / 2
    return ranks, ends - starts


def _signed_rank_counts(n: int) -> list[int]:
    """How many of the 2^n sign patterns give each rank sum W+ = 0..n(n+1)/2 (exact, integers)."""
    counts = [1] + [0] * (n * (n + 1) // 2)
    top = 0
    for rank in range(1, n + 1):
        top += rank
        for total in range(top, rank - 1, -1):
            counts[total] += counts[total - rank]
    return counts


@dataclass(frozen=True)
class SignedRank:
    """The Wilcoxon signed-rank test of paired differences."""

    statistic: float
    """The smaller of the two rank sums (positive and negative differences), zeros dropped."""
    p_value: float
    """Two-sided p-value that the differences are symmetric about 0."""
    nonzero: int
    """Differences left after dropping the zeros."""
    exact: bool
    """True when the p-value comes from the exact null distribution (no ties up to 50 differences, or up to 13)."""


def wilcoxon_signed_rank(differences: Sequence[float]) -> SignedRank | None:
    """The Wilcoxon signed-rank test, two-sided; None when every difference is 0 (nothing to rank).

    Zero differences are dropped (Wilcoxon's rule) and tied absolute values
    share their average rank. With no zero, no tie and at most 50 differences
    the p-value is exact (twice the smaller tail of the rank sum's null
    distribution); with ties or zeros among at most 13 differences it is exact
    too (every sign pattern of these ranks enumerated); otherwise it is the
    normal approximation with the tie correction of the variance, without
    continuity correction. These are the choices of ``scipy.stats.wilcoxon``'s
    default method.
    """
    values = np.asarray(differences, dtype=float)
    nonzero = values[values != 0]
    n = len(nonzero)
    if n == 0:
        return None
    ranks, ties = _average_ranks(np.abs(nonzero))
    r_plus = float(ranks[nonzero > 0].sum())
    r_minus = float(ranks[nonzero < 0].sum())
    statistic = min(r_plus, r_minus)
    has_ties = bool((ties > 1).any())
    if n <= 50 and not has_ties and n == len(values):
        counts = _signed_rank_counts(n)
        total = 2**n
        w = int(round(r_plus))
        lower = sum(counts[: w + 1])
        upper = sum(counts[w:])
        return SignedRank(statistic, min(1.0, 2 * min(lower, upper) / total), n, True)
    if len(values) <= EXACT_WITH_TIES:
        # Every sign pattern of the nonzero differences, each as likely under H0: the exact distribution
        # of the rank sum with these (tied, averaged) ranks.
        signs = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
        null = signs @ ranks
        tolerance = 1e-9 * max(1.0, abs(r_plus))
        lower = float(np.mean(null <= r_plus + tolerance))
        upper = float(np.mean(null >= r_plus - tolerance))
        return SignedRank(statistic, min(1.0, 2 * min(lower, upper)), n, True)
    mean = n * (n + 1) / 4
    variance = (n * (n + 1) * (2 * n + 1) - float((ties**3 - ties).sum()) / 2) / 24
    if variance <= 0:
        return SignedRank(statistic, 1.0, n, False)
    z = (r_plus - mean) / math.sqrt(variance)
    return SignedRank(statistic, min(1.0, 2 * normal_cdf(-abs(z))), n, False)
