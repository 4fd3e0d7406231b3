"""Batch statistics: Wilson intervals, t quantiles and the per-game summary, against independent computations."""

import math
import statistics

import numpy as np
import pytest

from pacman.batch.stats import Z95, mean_interval, percentile, summarize_games, t_quantile, wilson_interval


def _wilson_by_quadratic(successes, trials, z=Z95):
    """The Wilson bounds as the roots in p of (p_hat - p)^2 = z^2 p (1 - p) / n."""
    p_hat = successes / trials
    k = z * z / trials
    roots = np.roots([1 + k, -(2 * p_hat + k), p_hat * p_hat])
    return tuple(sorted(float(r.real) for r in roots))


@pytest.mark.parametrize("successes,trials", [(1, 10), (5, 10), (97, 100), (50, 100), (3, 1000), (999, 1000),
                                              (1, 2), (17, 23)])
def test_wilson_interval_is_the_root_pair_of_the_score_equation(successes, trials):
    low, high = wilson_interval(successes, trials)
    expected_low, expected_high = _wilson_by_quadratic(successes, trials)
    assert low == pytest.approx(expected_low, abs=1e-12)
    assert high == pytest.approx(expected_high, abs=1e-12)
    assert low < successes / trials < high


def test_wilson_interval_edges():
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    assert wilson_interval(0, 10)[1] == pytest.approx(_wilson_by_quadratic(0, 10)[1], abs=1e-12)
    assert wilson_interval(10, 10)[0] == pytest.approx(_wilson_by_quadratic(10, 10)[0], abs=1e-12)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match="11 of 10"):
        wilson_interval(11, 10)


@pytest.mark.parametrize("df,expected", [(1, 12.7062047362), (2, 4.3026527297), (3, 3.1824463053),
                                         (4, 2.7764451052), (9, 2.2621571628), (10, 2.2281388520),
                                         (29, 2.0452296421), (99, 1.9842169516), (200, 1.9718962236),
                                         (1000, 1.9623390808), (10**6, 1.9599663)])
def test_t_quantile_matches_published_values(df, expected):
    assert t_quantile(df) == pytest.approx(expected, abs=2e-7)


def test_t_quantile_other_confidence_and_bad_input():
    assert t_quantile(5, 0.90) == pytest.approx(2.0150483733, abs=1e-8)
    with pytest.raises(ValueError):
        t_quantile(0)


def test_mean_interval_is_mean_plus_minus_t_times_standard_error():
    values = [3, 9, 4, 10, 7, 1, 8]
    low, high = mean_interval(values)
    half = 2.4469118511 * statistics.stdev(values) / math.sqrt(len(values))
    assert low == pytest.approx(statistics.fmean(values) - half, abs=1e-8)
    assert high == pytest.approx(statistics.fmean(values) + half, abs=1e-8)
    assert mean_interval([5]) is None and mean_interval([]) is None
    assert mean_interval([4, 4, 4]) == (4.0, 4.0)


def test_percentile_matches_numpy_linear():
    values = [0.3, 5.0, 1.2, 9.9, 2.2, 2.2, 7.1, 0.01]
    for q in (0, 25, 50, 95, 100):
        assert percentile(values, q) == pytest.approx(float(np.percentile(values, q)))
    assert percentile([], 50) is None


def test_summarize_games_counts_every_game_and_scores_only_scored_ones():
    records = [
        {"won": True, "lost": False, "score": 500, "moves": 10, "move_ms": [1.0, 3.0], "seconds": 0.5},
        {"won": False, "lost": True, "score": -300, "moves": 4, "move_ms": [2.0], "seconds": 0.25},
        {"won": False, "crashed": True, "score": 40, "moves": 2, "move_ms": [4.0], "seconds": 0.25},
        {"won": False, "crashed": True, "score": None, "moves": None, "move_ms": [], "seconds": 0.0},
        {"won": False, "timed_out": True, "score": 10, "moves": 1, "move_ms": [], "seconds": 1.0},
        {"won": False, "cut_off": True, "score": 90, "moves": 50, "move_ms": [5.0], "seconds": 1.0},
    ]
    summary = summarize_games(records)
    scores = [500, -300, 40, 10, 90]
    assert summary["games"] == 6 and summary["wins"] == 1 and summary["losses"] == 1
    assert summary["win_rate"] == pytest.approx(1 / 6)
    assert summary["win_rate_ci95"] == list(wilson_interval(1, 6))
    assert summary["mean_score"] == pytest.approx(statistics.fmean(scores))
    assert summary["score_sd"] == pytest.approx(statistics.stdev(scores))
    assert summary["score_ci95"] == list(mean_interval(scores))
    assert summary["mean_moves"] == pytest.approx(statistics.fmean([10, 4, 2, 1, 50]))
    assert summary["ms_per_move_p50"] == pytest.approx(3.0)
    assert summary["ms_per_move_p95"] == pytest.approx(float(np.percentile([1, 3, 2, 4, 5], 95)))
    assert summary["ms_per_move_p99"] == pytest.approx(float(np.percentile([1, 3, 2, 4, 5], 99)))
    assert summary["ms_per_move_p99"] == pytest.approx(4.96)  # 4 + 0.96 x (5 - 4): interpolated, not the largest
    assert (summary["crashes"], summary["timeouts"], summary["cut_offs"]) == (2, 1, 1)
    assert summary["game_seconds"] == pytest.approx(3.0)


def test_summary_of_no_games():
    summary = summarize_games([])
    assert summary["games"] == 0 and summary["win_rate"] is None and summary["win_rate_ci95"] == [0.0, 1.0]
    assert summary["mean_score"] is None and summary["score_ci95"] is None
