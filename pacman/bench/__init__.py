"""Benchmarks behind `pacman-ai bench`: the engine, the search, and recording, one module each.

`engine_benchmark` counts successors per second of the fast engine next to the
simple engine (`pacman.conformance`); `search_benchmark` times `ExpectimaxAgent`
decisions next to the textbook expectimax, and `engine_comparison` sets the
Python engine and the compiled core side by side, `pruning_comparison` the nodes of plain
expectimax, Star1, Star2 and Star2 with move ordering, `auto_benchmark` the default agent's time a move
(``depth="auto"``) on each engine; `record_benchmark` times recording a
game to GIF with each encoder. Each returns a dict, the `--json` report of its part.
"""

from pacman.bench.engine import engine_benchmark
from pacman.bench.record import record_benchmark
from pacman.bench.search import auto_benchmark, engine_comparison, pruning_comparison, search_benchmark

__all__ = ["engine_benchmark", "search_benchmark", "engine_comparison", "pruning_comparison", "auto_benchmark",
           "record_benchmark"]
