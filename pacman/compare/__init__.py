"""Is B better than A? Configurations played on the same seeds, compared pair by pair.

`compare` plays every configuration's game *i* on the same seed with
`pacman.batch.run_batch` (so the games run in parallel, on Dask or any
executor, and stream to a results file that resumes, survives Ctrl-C and
refuses a file of other configurations), then pairs the lines by seed. Its
`Comparison` has the paired statistics of the second configuration against
the first as attributes, the sequential test's verdict (`sprt`), and, for any
number of configurations, pairwise win probabilities and Bradley-Terry
ratings. This package never imports pygame.

Modules, by topic:

- `paired`: McNemar's exact test, paired and unpaired intervals on a win-rate
  difference, t and bootstrap intervals, the Wilcoxon signed-rank test;
- `sprt`: the sequential probability ratio test (hypotheses, LLR, bounds);
- `rating`: pairwise win probabilities and Bradley-Terry ratings;
- `ranking`: the order of a ranked table (win rate, then mean score, or ``--rank-by score``),
  shared with the class contest of `pacman.grading.leaderboard`;
- `comparison`: `compare` and `Comparison`;
- `report`, `plot`: the text report and the plots.

>>> from pacman.batch import GameConfig
>>> result = compare({"score": GameConfig.create("small", "expectimax", {"depth": 1, "evaluation": "score"}),
...                   "better": GameConfig.create("small", "expectimax", {"depth": 1, "evaluation": "better"})},
...                  games=20, jobs=1)                                                         # doctest: +SKIP
>>> result.win_difference > 0, result.mcnemar_p < 0.05                                          # doctest: +SKIP
(True, True)
"""

from pacman.compare.comparison import MAX_COMPARED, CompareError, Comparison, PairedStats, SprtResult, compare
from pacman.compare.paired import (
    SignedRank,
    WinPairs,
    bootstrap_interval,
    mcnemar_exact,
    paired_difference_interval,
    unpaired_difference_interval,
    wilcoxon_signed_rank,
)
from pacman.compare.ranking import DEFAULT_RANK_BY, RANK_BY, competition_ranks, rank_key
from pacman.compare.rating import Rating, bradley_terry, pairwise
from pacman.compare.sprt import MIN_PAIRS, Sprt, SprtError, SprtHypotheses, fixed_sample_pairs, sprt_path

__all__ = [
    "compare",
    "Comparison",
    "PairedStats",
    "SprtResult",
    "CompareError",
    "SprtHypotheses",
    "SprtError",
    "Sprt",
    "sprt_path",
    "fixed_sample_pairs",
    "WinPairs",
    "SignedRank",
    "mcnemar_exact",
    "paired_difference_interval",
    "unpaired_difference_interval",
    "bootstrap_interval",
    "wilcoxon_signed_rank",
    "Rating",
    "bradley_terry",
    "pairwise",
    "MIN_PAIRS",
    "MAX_COMPARED",
    "RANK_BY",
    "DEFAULT_RANK_BY",
    "rank_key",
    "competition_ranks",
]
