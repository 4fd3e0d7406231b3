"""The summary of a batch: per configuration, win rate and scores with their intervals, and the run's figures.

The figures of each configuration come from its game lines alone
(`pacman.batch.stats.summarize_games`), so a summary can be recomputed from a
results file.
"""

from __future__ import annotations

from typing import Any, Sequence

from pacman.batch.config import CONFIG_FIELDS, GameConfig, GameJob, base_record, config_key
from pacman.batch.stats import summarize_games

__all__ = ["summarize_batch", "varying_fields"]


def summarize_batch(result: Any) -> dict[str, Any]:
    """`BatchResult.summary` of `result` (a `pacman.batch.runner.BatchResult`, not imported here: runner uses this)."""
    by_key: dict[str, list[dict[str, Any]]] = {}
    for record in result.records:
        by_key.setdefault(config_key(record), []).append(record)
    configurations = []
    varying = varying_fields(result.configs)
    for number, config in enumerate(result.configs):
        entry = config.to_dict()
        entry["label"] = config.label(varying)
        key = config_key(base_record(GameJob(number, config, 0, result.seed)))
        entry.update(summarize_games(by_key.get(key, [])))
        configurations.append(entry)
    top: dict[str, Any] = {}
    if len(configurations) == 1:
        top.update(configurations[0])
    top.update(
        complete=result.complete, games_planned=result.games * len(result.configs), seed=result.seed,
        games=len(result.records), played=result.played, seconds=round(result.seconds, 3),
        games_per_second=round(result.played / result.seconds, 3) if result.seconds > 0 else None,
        executor=result.executor, retried=result.retried, configurations=configurations,
    )
    return top


def varying_fields(configs: Sequence[GameConfig]) -> list[str]:
    """The config fields that differ across a sweep (all that name something if there is one config)."""
    fields = [name for name in CONFIG_FIELDS[:-1] if len({repr(getattr(c, name)) for c in configs}) > 1]
    if "num_ghosts" in fields and "layout" in fields:
        # different layouts have different ghost counts: only a count chosen within one layout is news
        by_layout = {(c.layout, c.num_ghosts) for c in configs}
        if len(by_layout) == len({c.layout for c in configs}):
            fields.remove("num_ghosts")
    if fields:
        return fields
    return ["layout", "pacman", "agent_args", "ghosts", "num_ghosts", "max_moves", "move_time_limit"]
