"""A comparison of six hand-made pairs, every statistic against its value worked out by hand (no scipy needed).

The pairs (A's game, B's game) of six seeds, as game lines:

    seed  A          B          B - A   wins
    0     lost   10  won   540   +530   B alone
    1     lost  -20  won   500   +520   B alone
    2     lost    0  won   510   +510   B alone
    3     won   600  won   580    -20   both
    4     lost   30  lost   70    +40   neither
    5     lost   50  lost   50      0   neither

So the 2x2 table is both 1, A alone 0, B alone 3, neither 2: the win rates
are 1/6 and 4/6, their difference 3/6, and McNemar's exact p is twice
P(Binomial(3, 1/2) = 0) = 2/8 = 0.25. The score differences have mean
1580/6; without the zero, their absolute values rank 5, 4, 3, 1, 2, so the
positive ranks sum to 14 and the negative to 1 (Wilcoxon's statistic is 1),
and the exact two-sided p is 2 * P(W- <= 1) = 2 * 2/32 = 0.125.
"""

from __future__ import annotations

import itertools
import math
import statistics

import pytest

from pacman.batch import GameConfig
from pacman.compare import (CompareError, Comparison, Sprt, SprtHypotheses, compare, sprt_path,
                            wilcoxon_signed_rank)
from pacman.compare.report import format_comparison

#: (won, score) of A and of B on each seed.
PAIRS = [((False, 10), (True, 540)), ((False, -20), (True, 500)), ((False, 0), (True, 510)),
         ((True, 600), (True, 580)), ((False, 30), (False, 70)), ((False, 50), (False, 50))]
DIFFERENCES = [530, 520, 510, -20, 40, 0]
#: The standard normal's 97.5% quantile, and Student's t with 5 degrees of freedom (printed tables).
Z975 = 1.959963984540054
T975_5 = 2.5705818356363146


def _line(index: int, won: bool, score: int) -> dict:
    return {"index": index, "won": won, "lost": not won, "score": score, "moves": 10}


def _comparison() -> Comparison:
    config = GameConfig.create("small", "expectimax", {"depth": 1})
    return Comparison(names=["A", "B"], configs=[config, config], games=6, seed=0,
                      records={"A": [_line(i, *a) for i, (a, _) in enumerate(PAIRS)],
                               "B": [_line(i, *b) for i, (_, b) in enumerate(PAIRS)]})


def test_the_win_statistics_of_the_hand_made_pairs():
    result = _comparison()
    assert (result.wins.both, result.wins.only_a, result.wins.only_b, result.wins.neither) == (1, 0, 3, 2)
    assert (result.win_rate_a, result.win_rate_b) == (1 / 6, 4 / 6)
    assert result.win_difference == 0.5
    assert result.mcnemar_p == 0.25
    # Agresti-Min: half a pair in each cell, 8 pairs; B alone 3.5, A alone 0.5.
    difference = (3.5 - 0.5) / 8
    half = Z975 * math.sqrt(((3.5 + 0.5) / 8 - difference**2) / 8)
    assert result.win_interval == (pytest.approx(difference - half, abs=1e-12), pytest.approx(difference + half))
    # Agresti-Caffo: one win and one loss added to each side, 8 games each.
    pa, pb = 2 / 8, 5 / 8
    half = Z975 * math.sqrt(pa * (1 - pa) / 8 + pb * (1 - pb) / 8)
    assert result.win_interval_unpaired == (pytest.approx(pb - pa - half), pytest.approx(pb - pa + half))


def test_the_score_statistics_of_the_hand_made_pairs():
    result = _comparison()
    assert result.score_pairs == 6 and result.score_difference == pytest.approx(1580 / 6, rel=1e-15)
    half = T975_5 * statistics.stdev(DIFFERENCES) / math.sqrt(6)
    low, high = result.score_interval_t
    assert (low, high) == (pytest.approx(1580 / 6 - half, rel=1e-9), pytest.approx(1580 / 6 + half, rel=1e-9))
    assert (result.b_better, result.a_better, result.equal) == (4, 1, 1)
    assert (result.wilcoxon.statistic, result.wilcoxon.p_value, result.wilcoxon.nonzero, result.wilcoxon.exact) \
        == (1.0, 0.125, 5, True)
    low, high = result.score_interval_bootstrap
    assert min(DIFFERENCES) <= low < 1580 / 6 < high <= max(DIFFERENCES)


def test_the_report_prints_the_hand_made_values():
    text = format_comparison(_comparison())
    assert "win rate: +50.0 points" in text
    assert "McNemar exact p = 0.25 (B alone won 3 seeds, A alone 0, both 1, neither 2)" in text
    assert "score: +263.3 mean" in text and "Wilcoxon signed-rank p = 0.125 (exact)" in text
    assert "seeds where B scored more: 4, A more: 1, the same: 1" in text


def _enumerated_wilcoxon_p(differences: list[float]) -> float:
    """The two-sided exact p-value by listing every sign pattern of the ranks (average ranks for ties)."""
    nonzero = [d for d in differences if d != 0]
    size = sorted(abs(d) for d in nonzero)
    rank = {v: (size.index(v) + 1 + len(size) - size[::-1].index(v)) / 2 for v in size}
    ranks = [rank[abs(d)] for d in nonzero]
    observed = sum(r for r, d in zip(ranks, nonzero) if d > 0)
    sums = [sum(r for r, sign in zip(ranks, signs) if sign) for signs in itertools.product((0, 1), repeat=len(ranks))]
    lower = sum(s <= observed for s in sums) / len(sums)
    upper = sum(s >= observed for s in sums) / len(sums)
    return min(1.0, 2 * min(lower, upper))


@pytest.mark.parametrize("differences, statistic, p_value", [
    (DIFFERENCES, 1.0, 0.125),
    # Ties and a zero: ranks 1.5, 1.5, 3.5, 3.5; W+ = 8.5, W- = 1.5; P(W- <= 1.5) = 3/16.
    ([10, -10, 20, 20, 0], 1.5, 0.375),
    # All one sign, no ties: W- = 0, p = 2 / 2^4.
    ([3, 1, 4, 2], 0.0, 0.125),
])
def test_wilcoxon_on_small_samples_is_the_enumerated_exact_test(differences, statistic, p_value):
    result = wilcoxon_signed_rank(differences)
    assert result.statistic == statistic and result.p_value == pytest.approx(p_value, rel=1e-12)
    assert _enumerated_wilcoxon_p(differences) == pytest.approx(p_value, rel=1e-12)


def test_the_sprt_llr_of_the_hand_made_pairs():
    # win-rate:0,0.1 over 3 seeds B alone and 3 ties: the best trinomial of mean 0 has p+ = p- = 1/4,
    # the best of mean 0.1 has p+ = 0.275, p- = 0.175; LLR = 3 log(0.275 * 0.55 / (0.25 * 0.5)) = 6 log 1.1.
    wins = [1.0 if b[0] and not a[0] else -1.0 if a[0] and not b[0] else 0.0 for a, b in PAIRS]
    test = Sprt(SprtHypotheses.parse("win-rate:0,0.1"))
    for x in wins:
        test.add(x)
    assert test.llr == pytest.approx(6 * math.log(1.1), rel=1e-12) and test.verdict is None  # < 10 pairs
    # score:0,100, the normal model: LLR = n/2 log(mean(x^2) / mean((x - 100)^2)).
    expected = 3 * math.log(sum(d * d for d in DIFFERENCES) / sum((d - 100) ** 2 for d in DIFFERENCES))
    assert sprt_path(SprtHypotheses.parse("score:0,100"), DIFFERENCES)[-1] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("extra, words", [(1, "; 1 finished game not paired"), (2, "; 2 finished games not paired")])
def test_the_report_counts_the_finished_games_without_a_partner_in_words(extra, words):
    result = _comparison()
    result.unpaired = extra  # what the runner counts: games in the file whose partner never finished
    assert format_comparison(result).endswith(words)


#: Two agents on the same 50 seeds: "steady" wins 49 games with 520 points each and loses one at -400; "hunter"
#: wins 45, eating scared ghosts (1,700 points a win), and loses 5 at -400. Hunter's mean score is higher
#: (1,490 against 501.6), steady's win rate is higher (98% against 90%).
STEADY = [(i != 7, 520 if i != 7 else -400) for i in range(50)]
HUNTER = [(i % 10 != 3, 1700 if i % 10 != 3 else -400) for i in range(50)]


def _ranked(names: list[str], sides: list[list[tuple[bool, int]]], rank_by: str | None = None) -> Comparison:
    config = GameConfig.create("small", "expectimax", {"depth": 1})
    extra = {} if rank_by is None else {"rank_by": rank_by}
    return Comparison(names=names, configs=[config] * len(names), games=len(sides[0]), seed=0,
                      records={name: [_line(i, *game) for i, game in enumerate(side)]
                               for name, side in zip(names, sides)}, **extra)


def test_the_table_ranks_the_higher_win_rate_first_even_with_the_lower_mean_score():
    result = _ranked(["hunter", "steady"], [HUNTER, STEADY])
    ranking = result.ranking()
    assert [(row["rank"], row["name"], row["win_rate"], row["mean_score"]) for row in ranking] == [
        (1, "steady", 0.98, pytest.approx(501.6)), (2, "hunter", 0.90, pytest.approx(1490.0))]
    # Bradley-Terry counts a seed won by the higher score: hunter is the better rated, and ranked second.
    assert ranking[1]["rating"] > ranking[0]["rating"]
    table = format_comparison(result).splitlines()
    assert table[4].split()[:2] == ["1", "steady"] and table[5].split()[:2] == ["2", "hunter"]
    assert result.to_dict()["rank_by"] == "win-rate"


def test_rank_by_score_puts_the_higher_mean_score_first():
    result = _ranked(["steady", "hunter"], [STEADY, HUNTER], rank_by="score")
    assert [(row["rank"], row["name"]) for row in result.ranking()] == [(1, "hunter"), (2, "steady")]
    assert result.to_dict()["rank_by"] == "score"
    # Equal mean scores: the win rate breaks the tie.
    tied = [(i < 25, 500) for i in range(50)], [(i < 40, 500) for i in range(50)]
    assert [row["name"] for row in _ranked(["fewer", "more"], list(tied), rank_by="score").ranking()] == \
        ["more", "fewer"]


def test_equal_win_rates_are_ordered_by_mean_score_and_equal_sides_share_a_rank():
    lower = [(won, score - 10) for won, score in STEADY]
    result = _ranked(["lower", "steady", "copy"], [lower, STEADY, list(STEADY)])
    assert [(row["rank"], row["name"]) for row in result.ranking()] == [(1, "steady"), (1, "copy"), (3, "lower")]


def test_the_command_line_orders_are_the_ranking_modules():
    from pacman.cli import build_parser
    from pacman.cli.compare import RANK_BY as CLI_RANK_BY
    from pacman.compare.ranking import DEFAULT_RANK_BY, RANK_BY

    assert CLI_RANK_BY == RANK_BY and CLI_RANK_BY[0] == DEFAULT_RANK_BY
    parser = build_parser()
    assert parser.parse_args(["compare", "--config", "a:", "--config", "b:"]).rank_by == "win-rate"
    assert parser.parse_args(["compare", "--config", "a:", "--config", "b:", "--rank-by", "score"]).rank_by == "score"
    with pytest.raises(CompareError, match="rank by 'wins': expected one of win-rate, score"):
        compare([GameConfig.create("small", "greedy")] * 2, games=2, rank_by="wins")
