"""A comparison as text: the paired statistics of two configurations, or the ranked table of many."""

from __future__ import annotations

import math
from typing import Any, Sequence

from pacman.compare.comparison import Comparison, SprtResult

__all__ = ["format_comparison", "format_sprt_progress"]


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _points(value: float | None, digits: int = 1) -> str:
    """A difference of win rates in points, signed: ``+12.5``."""
    return "-" if value is None else f"{100 * value:+.{digits}f}"


def _interval(interval: Sequence[float] | None, show: Any) -> str:
    return "-" if interval is None else f"[{show(interval[0])}, {show(interval[1])}]"


def _p(value: float) -> str:
    return f"{value:.3g}" if value >= 1e-4 else f"{value:.1e}"


def _table(rows: list[list[str]], left: int = 1) -> list[str]:
    """Rows as aligned text: the first `left` columns to the left, the others to the right."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(width) if i < left else cell.rjust(width) for i, (cell, width)
                      in enumerate(zip(row, widths))).rstrip() for row in rows]


def format_sprt(sprt: SprtResult, a: str, b: str) -> str:
    """The sequential test in one line: hypotheses, LLR and bounds, pairs used, verdict, the fixed-size equivalent."""
    h = sprt.hypotheses
    text = (f"SPRT {h.spec()} (alpha {h.alpha:g}, beta {h.beta:g}): LLR {sprt.llr:.3f} in bounds "
            f"[{h.lower:.3f}, {h.upper:.3f}] after {sprt.pairs} pairs ({sprt.games} games): "
            f"{sprt.conclusion(a, b)}")
    if sprt.fixed_pairs is not None:
        text += (f"; a fixed-size test of the same alpha and power needs {sprt.fixed_pairs} pairs "
                 f"({2 * sprt.fixed_pairs} games) at the variance seen")
    return text


def format_sprt_progress(pairs: int, sprt: SprtResult) -> str:
    """One progress line of the sequential test."""
    h = sprt.hypotheses
    return f"sprt: {pairs} pairs, LLR {sprt.llr:+.3f} (H0 at {h.lower:.3f}, H1 at {h.upper:.3f})"


def format_comparison(comparison: Comparison) -> str:
    """The report printed by ``pacman-ai compare``: a table per configuration, then the paired statistics."""
    names = comparison.names
    if comparison.pairs == 0:
        return "no seed has been played by every configuration yet: nothing to compare"
    lines = []
    if len(names) == 2:
        lines.append(f"A = {names[0]}: {comparison.configs[0].label()}")
        lines.append(f"B = {names[1]}: {comparison.configs[1].label()}")
        lines.append("")
    ranking = comparison.ranking()
    rows = [["rank", "configuration", "games", "won", "win rate", "95% interval", "mean score", "rating",
             "95% interval"]]
    for row in ranking:
        rows.append([str(row["rank"]), row["name"], str(row["games"]), str(row["wins"]), _percent(row["win_rate"]),
                     _interval(row["win_interval"], _percent),
                     "-" if row["mean_score"] is None else f"{row['mean_score']:.1f}",
                     f"{row['rating']:+.0f}", _interval(row["rating_interval"], lambda v: f"{v:+.0f}")])
    lines.extend(_table(rows, left=2))
    lines.append("")
    probabilities = comparison.win_probabilities()
    order = [names.index(row["name"]) for row in ranking]
    matrix = [["P(row beats column)", *[names[j] for j in order]]]
    for i in order:
        matrix.append([names[i], *["-" if i == j or math.isnan(probabilities[i, j]) else
                                   f"{100 * probabilities[i, j]:.1f}%" for j in order]])
    lines.extend(_table(matrix))
    if len(names) == 2:
        s = comparison.paired
        lines.append("")
        lines.append(f"paired over {s.pairs} seeds, B - A:")
        lines.append(f"  win rate: {_points(s.win_difference)} points, 95% paired interval "
                     f"{_interval(s.win_interval, _points)} (unpaired {_interval(s.win_interval_unpaired, _points)}); "
                     f"McNemar exact p = {_p(s.mcnemar_p)} (B alone won {s.wins.only_b} seeds, A alone "
                     f"{s.wins.only_a}, both {s.wins.both}, neither {s.wins.neither})")
        if s.score_difference is None:
            lines.append("  score: no seed where both games have a score")
        else:
            def score(value: float) -> str:
                return f"{value:+.1f}"
            wilcoxon = ("Wilcoxon signed-rank: every difference is 0" if s.wilcoxon is None else
                        f"Wilcoxon signed-rank p = {_p(s.wilcoxon.p_value)}"
                        f"{' (exact)' if s.wilcoxon.exact else ' (normal approximation)'}")
            lines.append(f"  score: {s.score_difference:+.1f} mean, 95% t interval "
                         f"{_interval(s.score_interval_t, score)}, bootstrap "
                         f"{_interval(s.score_interval_bootstrap, score)}; {wilcoxon}")
            lines.append(f"  seeds where B scored more: {s.b_better}, A more: {s.a_better}, the same: {s.equal}"
                         + (f" ({s.pairs - s.score_pairs} without a score)" if s.score_pairs != s.pairs else ""))
    if comparison.sprt is not None:
        lines.append("")
        lines.append(format_sprt(comparison.sprt, names[0], names[1]))
    state = "interrupted: " if comparison.interrupted else ""
    lines.append(f"{state}{comparison.pairs} seeds compared (seed {comparison.seed}, at most {comparison.games}), "
                 f"{comparison.played} games played in {comparison.seconds:.1f} s on {comparison.executor}"
                 + (f"; {comparison.unpaired} finished game{'' if comparison.unpaired == 1 else 's'} not paired"
                    if comparison.unpaired else ""))
    return "\n".join(lines)
