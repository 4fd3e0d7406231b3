"""A long batch holds every worker's memory flat (the acceptance run: 1000 games of small at depth 2)."""

import statistics

import pytest

from pacman.batch import GameConfig, run_batch


@pytest.mark.slow
def test_1000_games_of_small_at_depth_2_keep_worker_memory_flat():
    result = run_batch(GameConfig.create("small", "expectimax", {"depth": 2}), games=1000, seed=0, jobs=2)
    summary = result.summary()
    assert summary["complete"] and summary["games"] == 1000 and summary["games_per_second"] > 0
    by_worker: dict[str, list[float]] = {}
    for record in result.records:  # by index, which is about the order each worker played them in
        by_worker.setdefault(record["worker"], []).append(record["worker_rss_mb"])
    assert len(by_worker) == 2
    for worker, rss in by_worker.items():
        assert len(rss) > 300, worker
        early = statistics.median(rss[50:150])  # after warm-up: tables, interpreter caches
        late = statistics.median(rss[-100:])
        assert late - early < 2.0, f"{worker}: median RSS {early:.1f} MB at games 50-150, {late:.1f} MB at the end"
        assert max(rss[50:]) - early < 8.0, f"{worker}: RSS peaked at {max(rss[50:]):.1f} MB from {early:.1f} MB"
