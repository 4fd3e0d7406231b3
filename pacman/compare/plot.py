"""Plots of a comparison: the paired differences of two configurations, or the ratings of many.

matplotlib is an optional extra (``pip install -e '.[plot]'``), as for batch
plots, imported only when a plot is drawn, with the non-interactive Agg backend.
"""

from __future__ import annotations

import math
import os

import numpy as np

from pacman.batch.config import BatchError
from pacman.batch.plot import require_matplotlib
from pacman.batch.results import write_atomically
from pacman.compare.comparison import Comparison

__all__ = ["plot_comparison"]


def plot_comparison(comparison: Comparison, path: str | os.PathLike[str]) -> None:
    """Draw `comparison` into `path` (.png, .svg or .pdf), written atomically.

    Two configurations: the histogram of the paired score differences (B - A)
    with the mean and its t interval, the paired win outcomes, and the SPRT's
    LLR against its bounds when there was one. More: each configuration's
    Bradley-Terry rating with its interval, and the pairwise win probabilities.
    """
    require_matplotlib()
    import matplotlib

    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure

    if comparison.pairs == 0:
        raise BatchError(f"--plot {os.fspath(path)}: no seed compared yet, nothing to draw")
    if len(comparison.names) == 2:
        figure = _paired_figure(Figure, comparison)
    else:
        figure = _ranking_figure(Figure, comparison)
    suffix = os.path.splitext(os.fspath(path))[1].lower().lstrip(".") or "png"

    def save(temporary: str) -> None:
        figure.savefig(temporary, format=suffix, dpi=110)

    try:
        write_atomically(path, save)
    except BatchError:
        raise
    except ValueError as exc:
        raise BatchError(f"--plot {os.fspath(path)}: {exc}") from None


def _paired_figure(Figure: type, comparison: Comparison) -> object:
    a, b = comparison.names
    stats = comparison.paired
    panels = 3 if comparison.sprt is not None else 2
    figure = Figure(figsize=(5.0 * panels + 1, 4.8), layout="constrained")
    axes = figure.subplots(1, panels)
    differences = [rb["score"] - ra["score"] for ra, rb in zip(comparison.records[a], comparison.records[b])
                   if ra["score"] is not None and rb["score"] is not None]
    score_axes = axes[0]
    if differences:
        score_axes.hist(differences, bins=min(40, max(5, int(math.sqrt(len(differences))))), color="#3b6fd6",
                        edgecolor="#1d3c7a")
        score_axes.axvline(0, color="grey", linewidth=0.8)
        score_axes.axvline(stats.score_difference, color="black", linewidth=1.5, label="mean")
        if stats.score_interval_t is not None:
            score_axes.axvspan(*stats.score_interval_t, color="black", alpha=0.15, label="95% t interval")
        score_axes.legend(fontsize=8)
    score_axes.set_xlabel(f"score of {b} - score of {a}, same seed")
    score_axes.set_ylabel("seeds")
    win_axes = axes[1]
    counts = [stats.wins.only_a, stats.wins.both + stats.wins.neither, stats.wins.only_b]
    win_axes.bar([0, 1, 2], counts, color=["#d64b3b", "#9a9a9a", "#3bb273"])
    win_axes.set_xticks([0, 1, 2], [f"{a}\nalone won", "same\noutcome", f"{b}\nalone won"])
    low, high = stats.win_interval or (float("nan"), float("nan"))
    win_axes.set_title(f"win rate {b} - {a}: {100 * (stats.win_difference or 0):+.1f} points\n"
                       f"95% paired interval [{100 * low:+.1f}, {100 * high:+.1f}], McNemar p = "
                       f"{stats.mcnemar_p:.2g}", fontsize=9)
    win_axes.set_ylabel("seeds")
    if comparison.sprt is not None:
        sprt = comparison.sprt
        llr_axes = axes[2]
        llr_axes.plot(np.arange(1, len(sprt.path) + 1), sprt.path, color="black")
        llr_axes.axhline(sprt.hypotheses.upper, color="#3bb273", linestyle="--", label="accept H1")
        llr_axes.axhline(sprt.hypotheses.lower, color="#d64b3b", linestyle="--", label="accept H0")
        llr_axes.set_xlabel("pairs (seed order)")
        llr_axes.set_ylabel("log-likelihood ratio")
        llr_axes.set_title(f"SPRT {sprt.hypotheses.spec()}: {sprt.verdict or 'no verdict'} after "
                           f"{sprt.pairs} pairs", fontsize=9)
        llr_axes.legend(fontsize=8)
    for each in axes:
        each.grid(alpha=0.3)
    return figure


def _ranking_figure(Figure: type, comparison: Comparison) -> object:
    ranking = comparison.ranking()
    names = [row["name"] for row in ranking]
    figure = Figure(figsize=(max(9.0, 1.2 * len(names) + 6), 5), layout="constrained")
    rating_axes, matrix_axes = figure.subplots(1, 2)
    positions = np.arange(len(names))
    ratings = np.array([row["rating"] for row in ranking])
    low = np.array([row["rating_interval"][0] for row in ranking])
    high = np.array([row["rating_interval"][1] for row in ranking])
    rating_axes.errorbar(positions, ratings, yerr=[ratings - low, high - ratings], fmt="o", color="#3b6fd6",
                         ecolor="black", capsize=4)
    rating_axes.axhline(0, color="grey", linewidth=0.8)
    rating_axes.set_xticks(positions, names, rotation=25, ha="right")
    rating_axes.set_ylabel("Bradley-Terry rating (Elo scale)")
    rating_axes.set_title(f"{comparison.pairs} shared seeds; bars: 95% bootstrap intervals", fontsize=9)
    rating_axes.grid(alpha=0.3)
    probabilities = comparison.win_probabilities()
    order = [comparison.names.index(name) for name in names]
    matrix = probabilities[np.ix_(order, order)]
    image = matrix_axes.imshow(np.where(np.isnan(matrix), 0.5, matrix), vmin=0, vmax=1, cmap="RdYlGn")
    for i in range(len(names)):
        for j in range(len(names)):
            if i != j and not np.isnan(matrix[i, j]):
                matrix_axes.text(j, i, f"{100 * matrix[i, j]:.0f}%", ha="center", va="center", fontsize=8)
    matrix_axes.set_xticks(positions, names, rotation=25, ha="right")
    matrix_axes.set_yticks(positions, names)
    matrix_axes.set_title("P(row scores more than column on a seed)", fontsize=9)
    figure.colorbar(image, ax=matrix_axes)
    return figure
