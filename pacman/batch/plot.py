"""Plots of a batch summary: win rate with its Wilson interval, and mean score with its t interval, per configuration.

matplotlib is an optional extra (``pip install -e '.[plot]'``), imported only
when a plot is drawn, with the non-interactive Agg backend (no window, no display).
"""

from __future__ import annotations

import os
from typing import Any, Mapping

from pacman.batch.config import BatchError
from pacman.batch.results import write_atomically

__all__ = ["require_matplotlib", "plot_summary"]


def require_matplotlib() -> None:
    """Raise BatchError with the install command if matplotlib is missing."""
    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:
        raise BatchError("--plot needs matplotlib: install the plot extra: pip install -e '.[plot]'")


def plot_summary(summary: Mapping[str, Any], path: str | os.PathLike[str]) -> None:
    """Draw the summary's configurations side by side into `path` (.png, .svg or .pdf), written atomically."""
    require_matplotlib()
    import matplotlib

    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure

    entries = list(summary["configurations"])
    labels = [entry["label"] for entry in entries]
    positions = list(range(len(entries)))
    figure = Figure(figsize=(max(6.0, 1.1 * len(entries) + 2), 6.5), layout="constrained")
    win_axes, score_axes = figure.subplots(2, 1, sharex=True)

    rates = [100 * (entry["win_rate"] or 0.0) for entry in entries]
    below = [rate - 100 * entry["win_rate_ci95"][0] for rate, entry in zip(rates, entries)]
    above = [100 * entry["win_rate_ci95"][1] - rate for rate, entry in zip(rates, entries)]
    win_axes.bar(positions, rates, color="#f2c500", edgecolor="#8a6d00")
    win_axes.errorbar(positions, rates, yerr=[below, above], fmt="none", ecolor="black", capsize=4)
    win_axes.set_ylabel("win rate (%)")
    win_axes.set_ylim(0, 105)
    win_axes.set_title(f"{summary['games_planned'] // max(1, len(entries))} games per configuration, "
                       f"seed {summary['seed']}; bars: 95% intervals (Wilson / t)", fontsize=10)

    means = [entry["mean_score"] or 0.0 for entry in entries]
    spans = [entry["score_ci95"] or [mean, mean] for entry, mean in zip(entries, means)]
    score_axes.bar(positions, means, color="#3b6fd6", edgecolor="#1d3c7a")
    score_axes.errorbar(positions, means, yerr=[[m - s[0] for m, s in zip(means, spans)],
                                                [s[1] - m for m, s in zip(means, spans)]],
                        fmt="none", ecolor="black", capsize=4)
    score_axes.set_ylabel("mean score")
    score_axes.axhline(0, color="grey", linewidth=0.8)
    crowded = sum(len(label) for label in labels) > 12 * len(labels)
    score_axes.set_xticks(positions, labels, rotation=25 if crowded else 0, ha="right" if crowded else "center")
    for axes in (win_axes, score_axes):
        axes.grid(axis="y", alpha=0.3)

    suffix = os.path.splitext(os.fspath(path))[1].lower().lstrip(".") or "png"

    def save(temporary: str) -> None:
        figure.savefig(temporary, format=suffix, dpi=110)

    try:
        write_atomically(path, save)
    except BatchError:
        raise
    except ValueError as exc:
        raise BatchError(f"--plot {os.fspath(path)}: {exc}") from None
