"""The depth the default agent's search reaches on random small mazes, with the table's score-free keys (the
default) and without them (docs/search-strength.md, "Deeper on small mazes").

    python scripts/search_depths.py [--mazes 20] [--positions 14] [--first 0] [--seed 5]

Positions: the first `--positions` Pacman turns of a game on each of `--mazes` random mazes from seed `--first`
(the tuning set's seeds by default), Pacman and the ghosts moving at random (`--seed`). Each position is
searched from scratch by the compiled core at the default's budget, both ways; the report gives the mean depth
reached and the nodes counted. Needs the compiled core.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from pacman.agents import ExpectimaxAgent
from pacman.agents.compiled import CompiledSearcher, core_status
from pacman.agents.expectimax import DEFAULT_TABLE_SIZE, MAX_DEPTH, SMALL_MAZE_NODES, PacmanGame, deepening_step
from pacman.agents.search import iterative_search
from research.mazes import TUNING_SEED, random_maze
from pacman.state import GameState


def positions(mazes: int, per_maze: int, first: int, seed: int) -> list[GameState]:
    rng = random.Random(seed)
    found = []
    for maze in range(first, first + mazes):
        state = GameState.initial(random_maze(maze).layout)
        for _ in range(per_maze):
            if state.is_terminal():
                break
            found.append(state)
            state = state.successor(0, rng.choice(state.legal_actions(0)))
            for ghost in range(1, state.num_agents):
                if state.is_terminal():
                    break
                state = state.successor(ghost, rng.choice(state.legal_actions(ghost)))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mazes", type=int, default=20)
    parser.add_argument("--positions", type=int, default=14, help="Pacman turns a maze (default 14)")
    parser.add_argument("--first", type=int, default=TUNING_SEED, help="the first maze's seed (default 0)")
    parser.add_argument("--seed", type=int, default=5, help="the random moves' seed (default 5)")
    args = parser.parse_args(argv)
    if args.mazes < 1 or args.positions < 1:
        parser.error("--mazes and --positions must be at least 1")
    if args.first < 0 or args.seed < 0:
        parser.error(f"--first and --seed must be >= 0, got {args.first} and {args.seed}")
    if not core_status()[0]:
        print(f"search_depths.py: the compiled core is not in use here: {core_status()[1]}", file=sys.stderr)
        return 2
    states = positions(args.mazes, args.positions, args.first, args.seed)
    rows = {"score-free keys (the default)": ([], [], 0.0), "the score in the keys": ([], [], 0.0)}
    for label in rows:
        depths, nodes, seconds = rows[label]
        for state in states:
            agent = ExpectimaxAgent(engine="compiled")
            started = time.perf_counter()
            if label.startswith("score-free"):
                agent.get_action(state)
                depths.append(agent.last_search.depth)
                nodes.append(agent.last_search.nodes)
            else:
                game = agent._searcher_for(state).game
                keyed = CompiledSearcher(state.layout, state.num_agents, PacmanGame(game.num_agents, game.evaluation),
                                         True, DEFAULT_TABLE_SIZE, star2=True)
                result = iterative_search(keyed, (state, 0), MAX_DEPTH, None, all_values=False,
                                          node_limit=SMALL_MAZE_NODES, min_depth=agent.depth,
                                          step=deepening_step(state.layout))
                depths.append(result.depth)
                nodes.append(result.nodes)
            seconds += time.perf_counter() - started
        rows[label] = (depths, nodes, seconds)
    print(f"{len(states)} positions of {args.mazes} random mazes from seed {args.first}, "
          f"a budget of {SMALL_MAZE_NODES:,} nodes")
    for label, (depths, nodes, seconds) in rows.items():
        print(f"{label:32s} mean depth {statistics.mean(depths):6.2f}  at depth {MAX_DEPTH}: "
              f"{sum(d >= MAX_DEPTH for d in depths):4d}  nodes {sum(nodes):>12,}  {seconds:6.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
