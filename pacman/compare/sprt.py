"""The sequential probability ratio test of a paired comparison: stop as soon as the answer is clear.

The data are the paired differences ``x_i = B_i - A_i`` of seed *i*: for
``win-rate``, B's win minus A's (-1, 0 or +1: a trinomial, one game per side on
each seed, so no pentanomial is needed); for ``score``, B's score minus A's.
The hypotheses are about their mean, in the metric's own unit: H0: mean = h0
against H1: mean = h1 (h0 < h1), e.g. ``win-rate:0,0.02`` (B wins no more
often than A, against 2 points more often).

The test is Wald's SPRT with the generalized log-likelihood ratio (GSPRT),
as chess-engine testing uses it: the likelihood of the pairs so far under the
best-fitting model whose mean is h1, over the same under mean h0.

- win-rate: the model is the trinomial of the paired outcome (B alone won,
  both or neither, A alone won) with probabilities (p+, 1 - p+ - p-, p-);
  mean = p+ - p-. Each hypothesis's maximum-likelihood trinomial is found in
  closed form (a quadratic), so the LLR is exact for the counts, with no
  normal approximation.
- score: the model is normal with unknown variance; profiling the variance
  out under each hypothesis gives ``LLR = n/2 * log(s0^2 / s1^2)`` with
  ``sk^2 = mean((x_i - hk)^2)``. Each ``sk^2`` is floored at
  ``SPREAD_FLOOR * (h1 - h0)^2``, so that differences all exactly equal to
  h0 (two sides that play the same games: every difference 0) give a large
  but finite LLR, about -13.8 per pair, rather than minus infinity.

The test stops when LLR >= log((1 - beta) / alpha) (accept H1) or
LLR <= log(beta / (1 - alpha)) (accept H0), never before `MIN_PAIRS` pairs
(the fitted models need a few). The pairs are taken in the order of their seeds
(game index), whatever order the games finish in, so the verdict and the
number of games used do not depend on --jobs. The error rates (H1 accepted
when the mean is h0, H0 accepted when it is h1) are measured by simulation in
the tests: within alpha and beta plus Monte Carlo error.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from pacman.batch.stats import _normal_quantile
from pacman.errors import PacmanError

__all__ = ["SprtError", "SprtHypotheses", "Sprt", "sprt_path", "first_crossing", "fixed_sample_pairs", "METRICS",
           "MIN_PAIRS"]

#: The metrics a hypothesis may be stated in, with their unit.
METRICS = {"win-rate": "win rate (fraction of games; 0.02 is 2 points)", "score": "mean score (points)"}
#: The smallest spread of score differences about a hypothesis, as a fraction of (h1 - h0)^2 (keeps the LLR finite).
SPREAD_FLOOR = 1e-12
#: No verdict before this many pairs (the variance of the differences needs a few).
MIN_PAIRS = 10


class SprtError(PacmanError):
    """A --sprt specification that cannot be tested (unknown metric, h0 >= h1, alpha out of range)."""


@dataclass(frozen=True)
class SprtHypotheses:
    """H0: the mean paired difference (B - A) of `metric` is `h0`; H1: it is `h1`, with error rates alpha, beta."""

    metric: str
    """``win-rate`` or ``score``."""
    h0: float
    """The mean difference under H0 (win rate as a fraction, score in points)."""
    h1: float
    """The mean difference under H1, greater than h0."""
    alpha: float = 0.05
    """The largest accepted probability of accepting H1 when H0 holds."""
    beta: float = 0.05
    """The largest accepted probability of accepting H0 when H1 holds."""

    def __post_init__(self) -> None:
        if self.metric not in METRICS:
            raise SprtError(f"--sprt metric {self.metric!r}: expected one of {', '.join(METRICS)}")
        for name in ("h0", "h1"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise SprtError(f"--sprt {name} must be a finite number, got {value!r}")
            if self.metric == "win-rate" and not -1 < value < 1:
                raise SprtError(f"--sprt win-rate:{self.h0:g},{self.h1:g}: a difference of win rates is a fraction "
                                f"between -1 and 1 (0.02 is 2 points), got {value:g}")
        if not self.h0 < self.h1:
            raise SprtError(f"--sprt {self.metric}:{self.h0:g},{self.h1:g}: H1 must be greater than H0 "
                            f"(to test whether B is worse, swap the configurations)")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 0.5:
                raise SprtError(f"--{name} must be a number between 0 and 0.5, got {value!r}")

    @classmethod
    def parse(cls, text: str, alpha: float = 0.05, beta: float = 0.05) -> "SprtHypotheses":
        """``win-rate:0,0.02`` or ``score:0,20`` -> hypotheses; SprtError naming the text otherwise."""
        match = re.fullmatch(r"\s*([a-z-]+)\s*:\s*([^,]+),([^,]+)", text)
        if match is None:
            raise SprtError(f"--sprt {text!r}: expected METRIC:H0,H1 such as win-rate:0,0.02 or score:0,20")
        metric = match.group(1)
        try:
            h0, h1 = float(match.group(2)), float(match.group(3))
        except ValueError:
            raise SprtError(f"--sprt {text!r}: H0 and H1 must be numbers, as in win-rate:0,0.02") from None
        return cls(metric, h0, h1, alpha, beta)

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted: log(beta / (1 - alpha))."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted: log((1 - beta) / alpha)."""
        return math.log((1 - self.beta) / self.alpha)

    def spec(self) -> str:
        """The hypotheses as given on the command line: ``win-rate:0,0.02``."""
        return f"{self.metric}:{self.h0:g},{self.h1:g}"

    def describe(self, h: float) -> str:
        """A hypothesis in words: ``B's win rate is 2 points above A's``."""
        if self.metric == "win-rate":
            amount = f"{abs(100 * h):g} point{'s' if abs(100 * h) != 1 else ''}"
            what = "B's win rate"
        else:
            amount = f"{abs(h):g} point{'s' if abs(h) != 1 else ''}"
            what = "B's mean score"
        return f"{what} equals A's" if h == 0 else f"{what} is {amount} {'above' if h > 0 else 'below'} A's"


def _trinomial_log_likelihood(h: float, wins: np.ndarray, losses: np.ndarray, ties: np.ndarray) -> np.ndarray:
    """The largest log-likelihood of the counts among trinomials over (+1, -1, 0) whose mean is `h`.

    A trinomial with mean h is (t, t - h, 1 - 2t + h) for t in [max(0, h), (1 + h) / 2];
    its log-likelihood is concave in t, and its derivative vanishes where
    ``2n t^2 - ((1 + h)(wins + losses) + 2h (wins + ties)) t + wins h (1 + h) = 0``.
    The maximum is at a root clipped to the interval, or at an end of it.
    """
    n = wins + losses + ties
    s = 1.0 + h
    low, high = max(0.0, h), s / 2
    b = s * (wins + losses) + 2 * h * (wins + ties)
    root = np.sqrt(np.maximum(b * b - 8 * n * wins * h * s, 0.0))
    best = np.full(np.shape(n), -np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        for t in ((b + root) / (4 * n), (b - root) / (4 * n), np.full(np.shape(n), low), np.full(np.shape(n), high)):
            t = np.clip(np.nan_to_num(t, nan=low), low, high)
            value = (_xlogy(wins, t) + _xlogy(losses, t - h) + _xlogy(ties, 1 - 2 * t + h))
            best = np.maximum(best, value)
    return best


def _xlogy(count: np.ndarray, p: np.ndarray) -> np.ndarray:
    """count * log(p), with 0 * log(0) = 0 and count * log(0) = -inf."""
    p = np.maximum(p, 0.0)
    return np.where(count > 0, count * np.log(np.where(p > 0, p, 1.0)) + np.where(p > 0, 0.0, -np.inf), 0.0)


def _llr(hypotheses: SprtHypotheses, n: np.ndarray, total: np.ndarray, squares: np.ndarray) -> np.ndarray:
    """The generalized log-likelihood ratio after n pairs with this sum and sum of squares of differences."""
    h0, h1 = hypotheses.h0, hypotheses.h1
    if hypotheses.metric == "win-rate":
        wins = np.rint((squares + total) / 2)  # differences are -1, 0, +1: the counts follow from the sums
        losses = np.rint((squares - total) / 2)
        ties = n - wins - losses
        return (_trinomial_log_likelihood(h1, wins, losses, ties)
                - _trinomial_log_likelihood(h0, wins, losses, ties))
    with np.errstate(divide="ignore", invalid="ignore"):
        floor = SPREAD_FLOOR * (h1 - h0) ** 2
        spread0 = np.maximum(squares / n - 2 * h0 * total / n + h0 * h0, floor)
        spread1 = np.maximum(squares / n - 2 * h1 * total / n + h1 * h1, floor)
        return np.where(spread0 == spread1, 0.0, n / 2 * (np.log(spread0) - np.log(spread1)))


def sprt_path(hypotheses: SprtHypotheses, differences: Sequence[float]) -> np.ndarray:
    """The LLR after each of the paired differences, in order (a float array as long as `differences`)."""
    x = np.asarray(differences, dtype=float)
    if len(x) == 0:
        return np.zeros(0)
    n = np.arange(1, len(x) + 1, dtype=float)
    return _llr(hypotheses, n, np.cumsum(x), np.cumsum(x * x))


def fixed_sample_pairs(hypotheses: SprtHypotheses, variance: float) -> int:
    """Pairs a fixed-size one-sided test needs for the same alpha and beta at this variance of the differences.

    The z-test of H0: mean = h0 at level alpha has power 1 - beta at mean = h1
    with ``n = ((z_(1-alpha) + z_(1-beta)) * sd / (h1 - h0))^2`` pairs, rounded up.
    """
    z = _normal_quantile(1 - hypotheses.alpha) + _normal_quantile(1 - hypotheses.beta)
    delta = hypotheses.h1 - hypotheses.h0
    return max(1, math.ceil((z * math.sqrt(max(variance, 0.0)) / delta) ** 2))


class Sprt:
    """A running SPRT: feed paired differences in seed order with `add`; `verdict` is set once a bound is crossed.

    >>> test = Sprt(SprtHypotheses.parse("win-rate:0,0.05"))
    >>> for _ in range(100):
    ...     _ = test.add(1.0)
    >>> test.verdict, test.pairs
    ('H1', 61)
    """

    def __init__(self, hypotheses: SprtHypotheses) -> None:
        self.hypotheses = hypotheses
        self.n = 0
        self.total = 0.0
        self.squares = 0.0
        self.llr = 0.0
        self.verdict: str | None = None
        """``"H0"``, ``"H1"``, or None while the test goes on."""
        self.pairs: int | None = None
        """Pairs used when the verdict was reached."""

    def add(self, difference: float) -> str | None:
        """Take the next pair's difference (ignored once decided); returns the verdict, if any."""
        if self.verdict is not None:
            return self.verdict
        self.n += 1
        self.total += difference
        self.squares += difference * difference
        self.llr = float(_llr(self.hypotheses, np.float64(self.n), np.float64(self.total),
                              np.float64(self.squares)))
        if self.n >= MIN_PAIRS:
            if self.llr >= self.hypotheses.upper:
                self.verdict, self.pairs = "H1", self.n
            elif self.llr <= self.hypotheses.lower:
                self.verdict, self.pairs = "H0", self.n
        return self.verdict

    @property
    def variance(self) -> float:
        """The sample variance of the differences so far (population form; nan before the first pair)."""
        if self.n == 0:
            return float("nan")
        mean = self.total / self.n
        return max(self.squares / self.n - mean * mean, 0.0)


def first_crossing(hypotheses: SprtHypotheses, differences: Sequence[float]) -> tuple[str | None, int]:
    """(verdict, pairs used) of the SPRT over `differences` in order; (None, len) if no bound is crossed."""
    path = sprt_path(hypotheses, differences)
    eligible = np.arange(1, len(path) + 1) >= MIN_PAIRS
    crossed = np.flatnonzero(eligible & ((path >= hypotheses.upper) | (path <= hypotheses.lower)))
    if len(crossed) == 0:
        return None, len(path)
    at = int(crossed[0])
    return ("H1" if path[at] >= hypotheses.upper else "H0"), at + 1
