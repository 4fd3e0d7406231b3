"""The .solution of a PacmanGameTreeTest, from searches of our own (the grader's definition of its columns).

Run as ``python tests/classic_course2/tree_solutions.py TEST`` to print the solution of
``TEST.test``; tests/test_classic_pacman_tests.py checks the committed file against it.

Columns, per Pacman move (each ``[[best actions, all ties], states explored]``):

- optimalActions: the search ``alg`` names at ``depth``, with Stop among Pacman's
  actions, then without Stop (at every Pacman node of the tree);
- altDepthActions: the best actions only (no count, as the course writes this
  block) of the same two at ``depth - 1`` (when ``depth > 1``), then at ``depth + 1``;
- partialPlyBugActions: the best actions only of the same two for a search that
  stops in the middle of the last ply: it evaluates right after Pacman's move
  there, before the ghosts move.
"""

from __future__ import annotations

import json
import sys

from pacman.cs188 import ClassicState
from pacman.cs188.grading.format import format_classic, read_classic_file
from pacman.cs188.grading.pacman_tree import play_pacman_tree


def _values(state, alg, depth, stop, partial):
    """{root action: value} of the search, the root's actions in the classic order."""
    agents = state.getNumAgents()

    def value(node, agent, ply):
        if agent == agents:
            agent, ply = 0, ply + 1
        if node.isWin() or node.isLose() or ply == depth or (partial and ply == depth - 1 and agent == 1):
            return node.getScore()
        actions = [a for a in node.getLegalActions(agent) if stop or agent != 0 or a != "Stop"]
        values = [value(node.generateSuccessor(agent, a), agent + 1, ply) for a in actions]
        if agent == 0:
            return max(values)
        return min(values) if alg != "ExpectimaxAgent" else sum(values) / float(len(values))

    actions = [a for a in state.getLegalActions(0) if stop or a != "Stop"]
    return {a: value(state.generateSuccessor(0, a), 1, 0) for a in actions}


def _column(state, alg, depth, stop, partial=False):
    ClassicState.getAndResetExplored()
    values = _values(state, alg, depth, stop, partial)
    explored = len(ClassicState.getAndResetExplored())
    best = max(values.values())
    return [[a for a, v in values.items() if v == best], explored]


def solution_text(test_path: str) -> str:
    test = read_classic_file(test_path)
    alg, depth = test.require("alg").strip(), int(test.require("depth"))
    item = {"seed": int(test.require("seed")), "layout": test.require("layout"), "layout_name": "layout"}

    def ask(view, step):
        optimal = [_column(view, alg, depth, True), _column(view, alg, depth, False)]
        alt = [_column(view, alg, d, s)[0] for d in (depth - 1, depth + 1) if d >= 1 for s in (True, False)]
        partial = [_column(view, alg, depth, s, partial=True)[0] for s in (True, False)]
        return optimal[0][0][0], (optimal, alt, partial)

    records, over = play_pacman_tree(item, ask)
    assert over
    keys = ("optimalActions", "altDepthActions", "partialPlyBugActions")
    values = {key: "\n".join(json.dumps(r[i]) for r in records) for i, key in enumerate(keys)}
    return format_classic(values, "Written by tests/classic_course2/tree_solutions.py (our own searches).")


if __name__ == "__main__":
    sys.stdout.write(solution_text(sys.argv[1]))
