"""The order of a ranked table: win rate first, then mean score (or, asked for, the other way round).

One rule for every table that ranks agents on the same games: `pacman-ai compare`'s
ranking (`Comparison.ranking`) and the class contest's (`pacman.grading.leaderboard`).
By default the higher win rate ranks first and the mean score only breaks its
ties, so that an agent winning 98% of the games ranks above one winning 93% however
many points the latter's wins bring (eating scared ghosts is worth 200 each). With
``by="score"`` the mean score ranks first and the win rate breaks its ties. A side
without games (no win rate, no score) ranks after every side that has them.
Equal keys share a rank: ``1, 1, 3``.

>>> rows = [{"win_rate": 0.93, "mean_score": 1600.0}, {"win_rate": 0.98, "mean_score": 1450.0}]
>>> [row["win_rate"] for row in sorted(rows, key=lambda r: rank_key(r["win_rate"], r["mean_score"]))]
[0.98, 0.93]
>>> competition_ranks([(0, 1), (0, 1), (1, 0)])
[1, 1, 3]
"""

from __future__ import annotations

import math
from typing import Hashable, Sequence

__all__ = ["RANK_BY", "DEFAULT_RANK_BY", "rank_key", "competition_ranks"]

#: The orders a ranked table may have: ``win-rate`` (then mean score) or ``score`` (then win rate).
RANK_BY = ("win-rate", "score")
#: The order of a ranked table unless one asks for the other.
DEFAULT_RANK_BY = "win-rate"


def rank_key(win_rate: float | None, mean_score: float | None, by: str = DEFAULT_RANK_BY) -> tuple[float, float]:
    """The sort key of a side (smaller sorts first): its win rate then its mean score, or the reverse for ``score``.

    A missing value (None: no game, no game with a score) sorts after every value.
    """
    if by not in RANK_BY:
        raise ValueError(f"rank by {by!r}: expected one of {', '.join(RANK_BY)}")
    wins = math.inf if win_rate is None else -float(win_rate)
    score = math.inf if mean_score is None else -float(mean_score)
    return (wins, score) if by == "win-rate" else (score, wins)


def competition_ranks(keys: Sequence[Hashable]) -> list[int]:
    """The ranks of sides whose `keys` are already in ranked order: equal keys share the rank of the first of them."""
    ranks: list[int] = []
    for position, key in enumerate(keys):
        ranks.append(ranks[-1] if position and key == keys[position - 1] else position + 1)
    return ranks
