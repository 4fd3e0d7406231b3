"""Sweeps: comma lists of layouts, agents, agent arguments, ghost kinds and counts, expanded to every combination.

``--layout small,medium --agent-args depth=1,2,3,evaluation=score,better`` is
2 x 3 x 2 = 12 configurations. Every configuration plays the same game seeds,
so differences between them are not noise of different games.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Mapping, Sequence

from pacman.batch.config import MAX_CONFIGURATIONS, BatchError, GameConfig
from pacman.errors import AgentSpecError

__all__ = ["split_list", "parse_agent_args_sweep", "expand_sweep", "format_table"]


def _check_count(count: int, what: str) -> None:
    """Refuse a sweep of more than MAX_CONFIGURATIONS before any of its configurations is made."""
    if count > MAX_CONFIGURATIONS:
        raise BatchError(f"{what}: {count:,} configurations; a sweep has at most {MAX_CONFIGURATIONS:,}")


def _shown(text: str, limit: int = 60) -> str:
    """`text` quoted for a one-line error, shortened in the middle when long."""
    return repr(text) if len(text) <= limit else repr(text[: limit // 2] + "..." + text[-limit // 2:])


def split_list(text: str, flag: str) -> list[str]:
    """``"small,medium"`` -> ``["small", "medium"]``; an empty item or a repeated one is an error naming `flag`."""
    items = [item.strip() for item in text.split(",")]
    if not all(items):
        raise AgentSpecError(f"{flag} {_shown(text)}: empty item in the comma list")
    if len(set(items)) != len(items):
        raise AgentSpecError(f"{flag} {_shown(text)}: an item is listed twice")
    return items


def parse_agent_args_sweep(text: str | None) -> list[dict[str, Any]]:
    """Agent arguments where a key may take several values: every combination, in order.

    A comma item without ``=`` is one more value of the key before it.

    >>> parse_agent_args_sweep("depth=1,2,evaluation=score")
    [{'depth': 1, 'evaluation': 'score'}, {'depth': 2, 'evaluation': 'score'}]
    """
    from pacman.agents import parse_agent_args

    if text is None or not text.strip():
        return [{}]
    values: dict[str, list[Any]] = {}
    key = None
    for item in text.split(","):
        item = item.strip()
        if not item:
            raise AgentSpecError(f"--agent-args {_shown(text)}: empty item in the comma list")
        name, sep, value = item.partition("=")
        if sep:
            key = name.strip()
            if key in values:
                raise AgentSpecError(f"--agent-args {_shown(text)}: {key!r} given twice")
            values[key] = []
        elif key is None:
            raise AgentSpecError(f"--agent-args {_shown(text)}: {item!r} comes before any key=value")
        else:
            value = item
        parsed = parse_agent_args(f"{key}={value.strip()}")[key]
        if parsed in values[key] and type(parsed) in {type(v) for v in values[key]}:
            raise AgentSpecError(f"--agent-args {_shown(text)}: {key}={value.strip()} is listed twice")
        values[key].append(parsed)
    keys = list(values)
    _check_count(math.prod(len(v) for v in values.values()), f"--agent-args {_shown(text)}")
    return [dict(zip(keys, combination)) for combination in itertools.product(*(values[k] for k in keys))]


def expand_sweep(
    layouts: Sequence[str],
    pacmen: Sequence[str],
    agent_args: Sequence[Mapping[str, Any]],
    ghosts: Sequence[str],
    num_ghosts: Sequence[int | None],
    *,
    max_moves: int | None = None,
    move_time_limit: float | None = None,
) -> list[GameConfig]:
    """Every combination, varying the last axis fastest: layout, agent, agent arguments, ghost kind, ghost count.

    More than MAX_CONFIGURATIONS combinations is a BatchError, raised before any is made.
    """
    sizes = [len(layouts), len(pacmen), len(agent_args), len(ghosts), len(num_ghosts)]
    _check_count(math.prod(sizes), "the sweep " + " x ".join(
        f"{flag} {size}" for flag, size in zip(("--layout", "--pacman", "--agent-args", "--ghosts", "--num-ghosts"),
                                               sizes) if size > 1))
    return [
        GameConfig.create(layout, pacman, args, ghosts=kind, num_ghosts=count, max_moves=max_moves,
                          move_time_limit=move_time_limit)
        for layout, pacman, args, kind, count in itertools.product(layouts, pacmen, agent_args, ghosts, num_ghosts)
    ]


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _number(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def format_table(summary: Mapping[str, Any]) -> str:
    """The comparison table of a batch summary (`BatchResult.summary()`): one row per configuration."""
    header = ["configuration", "games", "won", "win rate", "95% CI", "mean score", "95% CI", "moves",
              "ms/move p50", "p95", "p99", "crashed", "timed out", "cut off"]
    rows = []
    for entry in summary["configurations"]:
        low, high = entry["win_rate_ci95"]
        score_ci = entry["score_ci95"]
        rows.append([
            entry["label"], str(entry["games"]), str(entry["wins"]), _percent(entry["win_rate"]),
            f"{100 * low:.1f}-{100 * high:.1f}%" if entry["games"] else "-",
            _number(entry["mean_score"]),
            f"{score_ci[0]:,.0f} to {score_ci[1]:,.0f}" if score_ci else "-",
            _number(entry["mean_moves"]),
            *(_number(entry[f"ms_per_move_{q}"], 2) for q in ("p50", "p95", "p99")),
            str(entry["crashes"]), str(entry["timeouts"]), str(entry["cut_offs"]),
        ])
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [row[0].ljust(widths[0])] + [cell.rjust(width) for cell, width in zip(row[1:], widths[1:])]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)
