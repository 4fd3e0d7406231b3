"""Research tools: how far the shipped agents are from the exact optimum, on random small mazes.

Not part of the game or of the agents: `mazes` draws random small mazes (seeded;
a held-out set that no weight was tuned on), `policy` computes the exact win
probability and expected score of a deterministic agent's policy on a maze,
`gap` compares agents with the solver's optimum over many mazes, `regret` splits
an agent's gap over its decisions, and `pictures` draws positions with the moves
agents make there. `scripts/optimality_gap.py` runs them (docs/search-strength.md,
"Measuring the gap: the research harness"). `policy` needs scipy (the ``test`` extra).
"""
