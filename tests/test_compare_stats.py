"""The paired statistics and ratings of `pacman.compare`, each against an independent computation (scipy)."""

from __future__ import annotations

import math

import numpy as np
import pytest

scipy_stats = pytest.importorskip("scipy.stats")
scipy_optimize = pytest.importorskip("scipy.optimize")

from pacman.compare.paired import (  # noqa: E402
    WinPairs,
    bootstrap_interval,
    mcnemar_exact,
    mean_difference_interval,
    paired_difference_interval,
    unpaired_difference_interval,
    wilcoxon_signed_rank,
)
from pacman.compare.rating import bradley_terry, bradley_terry_ratings, pairwise, win_probabilities  # noqa: E402


@pytest.mark.parametrize("only_a, only_b", [(0, 0), (0, 1), (2, 10), (10, 2), (7, 7), (30, 41), (0, 60), (333, 290)])
def test_mcnemar_exact_is_the_two_sided_binomial_test_of_the_discordant_pairs(only_a, only_b):
    expected = 1.0 if only_a + only_b == 0 else scipy_stats.binomtest(only_b, only_a + only_b, 0.5).pvalue
    assert mcnemar_exact(only_a, only_b) == pytest.approx(expected, rel=1e-9, abs=1e-300)


def test_mcnemar_exact_known_value_and_symmetry():
    # 2 against 10 discordant pairs: 2 * (1 + 12 + 66) / 4096
    assert mcnemar_exact(2, 10) == 2 * (1 + 12 + 66) / 4096
    assert mcnemar_exact(10, 2) == mcnemar_exact(2, 10)
    with pytest.raises(ValueError, match="counts must be >= 0"):
        mcnemar_exact(-1, 3)


def test_win_pairs_count_the_four_cells_seed_by_seed():
    a = [True, True, False, False, True, False]
    b = [True, False, True, False, True, True]
    table = WinPairs.from_outcomes(a, b)
    assert (table.both, table.only_a, table.only_b, table.neither) == (2, 1, 2, 1)
    assert table.pairs == 6 and table.difference == pytest.approx((4 - 3) / 6)
    with pytest.raises(ValueError, match="pairs need both"):
        WinPairs.from_outcomes([True], [True, False])


def test_paired_interval_is_agresti_min_computed_from_the_augmented_differences():
    rng = np.random.default_rng(3)
    won_a = rng.random(80) < 0.5
    won_b = won_a | (rng.random(80) < 0.2)
    table = WinPairs.from_outcomes(won_a, won_b)
    # Independently: half a pair in each cell, as weighted observations of d = won_b - won_a in {-1, 0, 1}.
    values = np.array([1.0, -1.0, 0.0, 0.0])
    weights = np.array([table.only_b, table.only_a, table.both, table.neither]) + 0.5
    n = weights.sum()
    mean = (weights * values).sum() / n
    variance = ((weights * (values - mean) ** 2).sum() / n) / n
    z = scipy_stats.norm.ppf(0.975)
    low, high = paired_difference_interval(table)
    assert low == pytest.approx(mean - z * math.sqrt(variance), rel=1e-9)
    assert high == pytest.approx(mean + z * math.sqrt(variance), rel=1e-9)
    assert paired_difference_interval(WinPairs(0, 0, 0, 0)) is None


def test_unpaired_interval_is_agresti_caffo():
    z = scipy_stats.norm.ppf(0.975)
    pa, pb = (30 + 1) / 102, (45 + 1) / 102
    half = z * math.sqrt(pa * (1 - pa) / 102 + pb * (1 - pb) / 102)
    low, high = unpaired_difference_interval(30, 45, 100)
    assert (low, high) == (pytest.approx(pb - pa - half), pytest.approx(pb - pa + half))


def test_pairing_narrows_the_win_interval_when_outcomes_go_together():
    # Both sides win mostly on the same seeds (the seed's luck), B a little more often.
    rng = np.random.default_rng(5)
    easy = rng.random(400) < 0.6
    won_a = easy & (rng.random(400) < 0.9)
    won_b = easy | (rng.random(400) < 0.1)
    table = WinPairs.from_outcomes(won_a, won_b)
    paired = paired_difference_interval(table)
    unpaired = unpaired_difference_interval(int(won_a.sum()), int(won_b.sum()), 400)
    assert paired[1] - paired[0] < 0.75 * (unpaired[1] - unpaired[0])


def test_t_interval_of_the_mean_difference_equals_scipys_paired_t_test():
    rng = np.random.default_rng(7)
    a = rng.normal(500, 300, 37)
    b = a + rng.normal(40, 120, 37)
    low, high = mean_difference_interval(list(b - a))
    expected = scipy_stats.ttest_rel(b, a).confidence_interval(0.95)
    assert (low, high) == (pytest.approx(expected.low, rel=1e-7), pytest.approx(expected.high, rel=1e-7))


def test_bootstrap_interval_is_seeded_and_agrees_with_scipys_percentile_bootstrap():
    rng = np.random.default_rng(11)
    differences = rng.normal(30, 100, 200)
    first = bootstrap_interval(differences, seed=4)
    assert first == bootstrap_interval(differences, seed=4)
    expected = scipy_stats.bootstrap((differences,), np.mean, method="percentile", n_resamples=10_000,
                                     random_state=np.random.default_rng(99)).confidence_interval
    width = expected.high - expected.low
    # Two Monte Carlo estimates of the same percentiles: equal to a few percent of the width.
    assert abs(first[0] - expected.low) < 0.08 * width and abs(first[1] - expected.high) < 0.08 * width
    assert bootstrap_interval([5.0]) is None


@pytest.mark.parametrize("seed", range(6))
def test_wilcoxon_exact_p_value_equals_scipy_without_ties(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 51))
    differences = rng.normal(rng.normal(0, 0.5), 1, n)
    mine = wilcoxon_signed_rank(differences)
    theirs = scipy_stats.wilcoxon(differences, method="exact")
    assert mine.exact and mine.nonzero == n
    assert mine.statistic == pytest.approx(theirs.statistic)
    assert mine.p_value == pytest.approx(theirs.pvalue, rel=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_wilcoxon_with_ties_and_zeros_is_scipys_normal_approximation(seed):
    rng = np.random.default_rng(seed)
    differences = rng.integers(-6, 9, 120).astype(float) * 10  # scores move in steps: ties and zeros
    mine = wilcoxon_signed_rank(differences)
    theirs = scipy_stats.wilcoxon(differences, method="asymptotic", zero_method="wilcox", correction=False)
    assert not mine.exact and mine.nonzero == int((differences != 0).sum())
    assert mine.statistic == pytest.approx(theirs.statistic)
    assert mine.p_value == pytest.approx(theirs.pvalue, rel=1e-9)


@pytest.mark.parametrize("differences", [[10, -10, 20, 0, 30, 30, -5], [1, 1, 1, 1, -1, 2, 2, 0, 0, 3, -3, 4, 5],
                                         [0, 0, 7, 7], [500, -500]])
def test_wilcoxon_small_samples_with_ties_or_zeros_are_exact_as_scipys_default(differences):
    mine = wilcoxon_signed_rank(differences)
    theirs = scipy_stats.wilcoxon(differences)  # its default: a complete permutation test up to 13 values
    assert mine.exact and mine.statistic == pytest.approx(theirs.statistic)
    assert mine.p_value == pytest.approx(theirs.pvalue, rel=1e-9)


def test_wilcoxon_of_all_zero_differences_is_none():
    assert wilcoxon_signed_rank([0.0, 0.0, 0.0]) is None


def test_pairwise_counts_meetings_and_half_wins_for_equal_scores():
    scores = np.array([[10.0, 5.0, np.nan, 7.0],
                       [3.0, 5.0, 1.0, 8.0],
                       [10.0, 2.0, 4.0, np.nan]])
    wins, meetings = pairwise(scores)
    assert wins[0, 1] == 1.5 and wins[1, 0] == 1.5 and meetings[0, 1] == 3
    assert wins[0, 2] == 1.5 and wins[2, 0] == 0.5 and meetings[0, 2] == 2
    assert wins[1, 2] == 1 and wins[2, 1] == 2 and meetings[1, 2] == 3
    probabilities = win_probabilities(wins, meetings)
    assert probabilities[2, 1] == pytest.approx(2 / 3) and math.isnan(probabilities[0, 0])


def test_bradley_terry_maximizes_its_likelihood_as_a_general_optimizer_finds():
    wins = np.array([[0, 30, 40, 25], [10, 0, 22, 18], [5, 18, 0, 20], [15, 22, 20, 0]], dtype=float)
    meetings = wins + wins.T
    ratings = bradley_terry(wins, meetings)
    prior_wins = wins + 0.5 * (1 - np.eye(4))

    def negative_log_likelihood(free):
        theta = np.r_[0.0, free]
        difference = theta[:, None] - theta[None, :]
        return -(prior_wins * -np.logaddexp(0, -difference)).sum()

    found = scipy_optimize.minimize(negative_log_likelihood, np.zeros(3), method="BFGS", options={"gtol": 1e-10}).x
    theta = np.r_[0.0, found]
    expected = 400 / math.log(10) * (theta - theta.mean())
    assert ratings == pytest.approx(expected, abs=1e-3)
    assert ratings.sum() == pytest.approx(0.0, abs=1e-9)


def test_ratings_are_ordered_by_strength_with_intervals_around_them():
    rng = np.random.default_rng(2)
    luck = rng.normal(0, 200, 150)  # the seed's luck, shared by every configuration
    scores = np.array([luck + rng.normal(shift, 100, 150) for shift in (0, 80, 160)])
    ratings = bradley_terry_ratings(scores, seed=1, fits=100)
    values = [r.rating for r in ratings]
    assert values == sorted(values)
    assert all(r.low < r.rating < r.high for r in ratings)
    assert ratings == bradley_terry_ratings(scores, seed=1, fits=100)
