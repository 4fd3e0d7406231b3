"""Memory stays flat across games: nothing in the engine grows per state or per game."""

import gc
import tracemalloc

import pytest

from pacman.agents import GreedyAgent, RandomAgent, make_ghosts
from pacman import load_layout, run_game


def _games(layout, count, start_seed):
    for seed in range(start_seed, start_seed + count):
        agent = GreedyAgent() if seed % 2 else RandomAgent()
        run_game(layout, agent, make_ghosts("directional", layout.num_ghosts), seed=seed, max_moves=300,
                 move_time_limit=10.0 if seed % 10 == 0 else None)


@pytest.mark.slow
def test_200_games_in_one_process_hold_memory_flat():
    layout = load_layout("small")
    _games(layout, 20, 0)  # warm up: tables, caches of the interpreter
    gc.collect()
    tracemalloc.start()
    try:
        _games(layout, 20, 20)
        gc.collect()
        after_warmup, _ = tracemalloc.get_traced_memory()
        _games(layout, 200, 40)
        gc.collect()
        after_200, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    growth = after_200 - after_warmup
    assert growth < 64 * 1024, f"memory grew by {growth} bytes over 200 games"


def test_loading_a_layout_by_name_per_game_does_not_accumulate_boards():
    import weakref

    refs = []
    for seed in range(5):
        layout = load_layout("tiny")
        refs.append(weakref.ref(layout))
        run_game(layout, GreedyAgent(), make_ghosts("random", layout.num_ghosts), seed=seed, max_moves=20)
        del layout
    gc.collect()
    assert all(ref() is None for ref in refs)  # each layout (with its tables) is freed after its game
