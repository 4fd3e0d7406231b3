"""Moved to `pacman.batch.stats` (the statistics of a batch live with the batch); this name keeps working."""

from pacman.batch.stats import Z95, mean_interval, percentile, summarize_games, t_quantile, wilson_interval

__all__ = ["Z95", "wilson_interval", "t_quantile", "mean_interval", "percentile", "summarize_games"]
