"""Many configurations on shared seeds: pairwise win probabilities and Bradley-Terry ratings with intervals.

On each seed every configuration played the same game start, so every two
configurations met once: the one with the higher score on that seed beat the
other (a won game scores at least 500 more than it would have lost, so a win
beats a loss), equal scores are half a win each. `pairwise` counts these
meetings; `bradley_terry` fits strengths ``s_i`` with
``P(i beats j) = s_i / (s_i + s_j)`` by the minorization-maximization
iteration (Hunter, 2004), after adding one drawn pseudo-meeting (half a win
each way) to every pair, so that a configuration that beat every other on
every seed still gets a finite rating. Ratings are on the Elo scale,
``400 * log10(s_i)``, centred on their mean; their intervals are percentile
bootstrap intervals over seeds (seeds resampled whole, the fit repeated).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
import numpy as np

__all__ = ["Rating", "pairwise", "bradley_terry", "bradley_terry_ratings", "win_probabilities", "BOOTSTRAP_FITS"]

#: Bootstrap fits behind a rating's interval.
BOOTSTRAP_FITS = 400


@dataclass(frozen=True)
class Rating:
    """A configuration's Bradley-Terry rating on the Elo scale, with its 95% bootstrap interval."""

    rating: float
    """400 * log10(strength), the ratings centred on their mean."""
    low: float
    """The interval's lower end."""
    high: float
    """The interval's upper end."""


def pairwise(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(wins, meetings) from a configurations x seeds array of scores; NaN marks a game without a score.

    ``wins[i, j]`` counts the seeds where i scored more than j, plus half the
    seeds where they scored the same; ``meetings[i, j]`` the seeds where both
    have a score.
    """
    scores = np.asarray(scores, dtype=float)
    valid = ~np.isnan(scores)
    a, b = scores[:, None, :], scores[None, :, :]
    both = valid[:, None, :] & valid[None, :, :]
    with np.errstate(invalid="ignore"):
        wins = np.where(both, (a > b) + 0.5 * (a == b), 0.0).sum(axis=2)
    meetings = both.sum(axis=2).astype(float)
    np.fill_diagonal(wins, 0.0)
    np.fill_diagonal(meetings, 0.0)
    return wins, meetings


def bradley_terry(wins: np.ndarray, meetings: np.ndarray, iterations: int = 10_000,
                  tolerance: float = 1e-10) -> np.ndarray:
    """Bradley-Terry ratings (Elo scale, mean 0) from pairwise wins, with half a win added each way per pair."""
    k = len(wins)
    prior = 0.5 * (1 - np.eye(k))
    w = wins + prior
    m = meetings + 2 * prior
    total_wins = w.sum(axis=1)
    strength = np.ones(k)
    for _ in range(iterations):
        denominator = (m / (strength[:, None] + strength[None, :])).sum(axis=1)
        updated = total_wins / denominator
        updated /= math.exp(np.log(updated).mean())
        if np.max(np.abs(np.log(updated) - np.log(strength))) < tolerance:
            strength = updated
            break
        strength = updated
    ratings = 400 * np.log10(strength)
    return ratings - ratings.mean()


def bradley_terry_ratings(scores: np.ndarray, seed: int = 0, fits: int = BOOTSTRAP_FITS) -> list[Rating]:
    """The ratings of each configuration (rows of `scores`, seeds in columns) with 95% bootstrap intervals."""
    scores = np.asarray(scores, dtype=float)
    wins, meetings = pairwise(scores)
    point = bradley_terry(wins, meetings)
    seeds = scores.shape[1]
    if seeds < 2:
        return [Rating(float(r), float("-inf"), float("inf")) for r in point]
    rng = np.random.default_rng(seed)
    samples = np.empty((fits, len(point)))
    for fit in range(fits):
        columns = rng.integers(0, seeds, size=seeds)
        samples[fit] = bradley_terry(*pairwise(scores[:, columns]), tolerance=1e-8)
    low, high = np.quantile(samples, [0.025, 0.975], axis=0)
    return [Rating(float(r), float(lo), float(hi)) for r, lo, hi in zip(point, low, high)]


def win_probabilities(wins: np.ndarray, meetings: np.ndarray) -> np.ndarray:
    """``P[i, j]``: the share of their common seeds on which i beat j (NaN on the diagonal or without seeds)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        probabilities = np.where(meetings > 0, wins / np.where(meetings > 0, meetings, 1), np.nan)
    np.fill_diagonal(probabilities, np.nan)
    return probabilities

