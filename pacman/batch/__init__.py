"""Headless batches of games: parallel, reproducible, resumable.

A batch plays `games` games of each `GameConfig` with `run_batch`. Game *i*
gets the seed `game_seed(seed, i)` whatever the number of jobs or the executor,
so results are identical apart from their `TIMING_FIELDS` (times, worker id and
memory). Games run in our process pool, on a Dask cluster (`dask_executor`) or
on any `concurrent.futures.Executor`; each finished game is one JSON line of a
results file (`read_results`), which a later run can resume. This package never
imports pygame.

Modules, by topic:

- `config`: what to play (`GameConfig`), seeds, limits, checking a configuration;
- `worker`: one game in a worker (`play_game`) and the check a new worker answers;
- `results`: game lines and results files (reading, checking, resuming, writing);
- `pool`: our process pool, whose workers start without the caller's ``__main__``;
- `runner`: `run_batch` (retries, a batch that cannot run), `BatchResult`;
- `cluster`: `dask_executor`;
- `summary`, `stats`: the summary of a batch and its statistics (Wilson and t intervals);
- `sweep`, `plot`: comma lists of flags expanded to configurations, and plots of a summary.
"""

from pacman.batch.cluster import dask_executor
from pacman.batch.config import (
    MAX_CONFIGURATIONS,
    MAX_GAMES,
    BatchError,
    GameConfig,
    GameJob,
    game_seed,
    validate_config,
)
from pacman.batch.results import TIMING_FIELDS, deterministic_part, read_results
from pacman.batch.runner import BatchResult, run_batch
from pacman.batch.worker import play_game

# Importable from here as before the package was split (the one module's __all__ listed them); the command
# line takes them from their modules. `name as name` marks a re-export.
from pacman.batch.config import CONFIG_FIELDS as CONFIG_FIELDS
from pacman.batch.config import MAX_MOVE_TIME_LIMIT as MAX_MOVE_TIME_LIMIT
from pacman.batch.config import MAX_SEED as MAX_SEED
from pacman.batch.config import check_batch_numbers as check_batch_numbers
from pacman.batch.config import default_jobs as default_jobs
from pacman.batch.config import max_jobs as max_jobs
from pacman.batch.results import check_out as check_out
from pacman.batch.results import check_writable as check_writable
from pacman.batch.results import write_atomically as write_atomically
from pacman.batch.runner import FAILURE_WINDOW as FAILURE_WINDOW
from pacman.batch.runner import WORKER_START_TIMEOUT as WORKER_START_TIMEOUT

__all__ = [
    "GameConfig",
    "GameJob",
    "BatchResult",
    "BatchError",
    "run_batch",
    "play_game",
    "dask_executor",
    "read_results",
    "deterministic_part",
    "game_seed",
    "validate_config",
    "TIMING_FIELDS",
    "MAX_GAMES",
    "MAX_CONFIGURATIONS",
]
