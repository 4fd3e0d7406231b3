"""`GraphGameTreeTest`: a classic agent searched on an explicit graph of named states.

The ``.test`` file gives ``alg`` (the agent class), ``depth``, ``num_agents``,
``start_state``, ``win_states``, ``lose_states``, ``successors`` lines
``state action next`` and ``evaluation`` lines ``state value`` (``diagram`` is
for people). The ``.solution`` gives ``action`` and ``generated``. The agent is
built as ``alg(depth=depth)`` (so it uses its default evaluation, which calls
``getScore``) and asked for ``getAction`` on the start state; the test passes
when the action is the solution's and the generated states -- the start state
plus every state ``generateSuccessor`` returned -- sorted, are the solution's.

The grader's side (`GraphGameTreeTest`) reads and checks the files and judges;
the submission's side (`GraphTreeState`, `run_graph_tree`) runs in the sandbox.
"""

from __future__ import annotations

import math
from typing import Any

from pacman.cs188.grading.format import ClassicFile
from pacman.cs188.grading.kinds import ClassicTest, action_text, agent_class
from pacman.grading.sandbox import ItemOutcome

__all__ = ["GraphGameTreeTest", "GraphTreeState", "GraphTree", "run_graph_tree", "ITEM_KIND"]

ITEM_KIND = "classic-graph-tree"
#: Seconds the submission may take on one graph test.
TIME_LIMIT = 10.0
_SHOWN = 5


def _listed(states: list[str]) -> str:
    shown = " ".join(states[:_SHOWN])
    return shown + (f" and {len(states) - _SHOWN} more" if len(states) > _SHOWN else "")


class GraphGameTreeTest(ClassicTest):
    """A test of class ``GraphGameTreeTest``: read, checked and judged by the grader."""

    class_name = "GraphGameTreeTest"
    exceptions_escape = True  # the search is run outside any game
    test_keys = ("class", "disabled", "alg", "depth", "diagram", "num_agents", "start_state", "win_states",
                 "lose_states", "successors", "evaluation")
    solution_keys = ("action", "generated")

    def __init__(self, name: str, test: ClassicFile, solution: ClassicFile | None) -> None:
        super().__init__(name, test, solution)
        self.alg = test.class_name("alg")
        self.depth = test.whole("depth", 0)
        self.num_agents = test.whole("num_agents", 1)
        start = test.require("start_state").split()
        if len(start) != 1:
            raise test.error("start_state", f"expected one state name, got {test.require('start_state')!r}")
        self.start = start[0]
        self.win_states = (test.get("win_states") or "").split()
        self.lose_states = (test.get("lose_states") or "").split()
        self.successors: list[tuple[str, str, str]] = []
        seen: set[tuple[str, str]] = set()
        for offset, line in enumerate(test.require("successors").split("\n")):
            words = line.split()
            if not words:
                continue
            if len(words) != 3:
                raise test.error("successors", f"expected 'state action next', got {line.strip()!r}", offset)
            if (words[0], words[1]) in seen:
                raise test.error("successors", f"state {words[0]!r} has action {words[1]!r} twice", offset)
            seen.add((words[0], words[1]))
            self.successors.append((words[0], words[1], words[2]))
        self.evaluation: dict[str, float] = {}
        for offset, line in enumerate(test.require("evaluation").split("\n")):
            words = line.split()
            if not words:
                continue
            try:
                if len(words) != 2:
                    raise ValueError
                value = float(words[1])
                if not math.isfinite(value):
                    raise ValueError
            except ValueError:
                raise test.error("evaluation", f"expected 'state value' (a finite number), got {line.strip()!r}",
                                 offset) from None
            if words[0] in self.evaluation:
                raise test.error("evaluation", f"state {words[0]!r} has two values", offset)
            self.evaluation[words[0]] = value
        self.expected_action = solution.require("action").strip() if solution is not None else ""
        self.expected_generated = solution.require("generated").split() if solution is not None else []
        self.items = [{"kind": ITEM_KIND, "alg": self.alg, "depth": self.depth, "num_agents": self.num_agents,
                       "start": self.start, "successors": [list(s) for s in self.successors],
                       "evaluation": self.evaluation, "win": self.win_states, "lose": self.lose_states}]
        self.time_limits = [TIME_LIMIT]

    def judge(self, outcomes: list[ItemOutcome]) -> tuple[bool, float, list[str], dict[str, Any]]:
        outcome = outcomes[0]
        where = f"{self.alg}, depth {self.depth}, {self.num_agents} agent{'s' if self.num_agents != 1 else ''}"
        if not outcome.ok:
            return False, 0.0, [f"{where}: {outcome.error}"], {}
        data = outcome.data
        messages = []
        action, kind = data.get("action"), data.get("action_type")
        if kind != "str" or action != self.expected_action:
            got = repr(action) if kind == "str" else f"{action} (a {kind}, not a str)"
            messages.append(f"{where}: returned {got}, expected {self.expected_action!r}")
        generated = sorted(set(data.get("generated") or []))
        if generated != self.expected_generated:
            extra = [s for s in generated if s not in self.expected_generated]
            missing = [s for s in self.expected_generated if s not in generated]
            parts = []
            if extra:
                parts.append(f"generated states it should not have: {_listed(extra)}")
            if missing:
                parts.append(f"did not generate: {_listed(missing)}")
            if not parts:  # same states, but the solution's list is not sorted or has repeats
                parts.append(f"generated {' '.join(generated)}, the solution lists {' '.join(self.expected_generated)}")
            messages.append(f"{where}: " + "; ".join(parts))
        return not messages, 0.0, messages, {"action": action, "generated": generated}


    def solution_values(self, outcomes: list[ItemOutcome]) -> dict[str, str]:
        data = outcomes[0].data
        if data.get("action_type") != "str":
            raise ValueError(f"getAction returned {data.get('action')} (a {data.get('action_type')}), not a str")
        return {"action": data["action"], "generated": " ".join(sorted(set(data["generated"])))}


class GraphTree:
    """The graph a `GraphTreeState` walks, and the states generated so far."""

    def __init__(self, item: dict[str, Any]) -> None:
        self.num_agents = int(item["num_agents"])
        self.actions: dict[str, list[str]] = {}
        self.next: dict[tuple[str, str], str] = {}
        for state, action, following in item["successors"]:
            self.actions.setdefault(state, []).append(action)
            self.next[(state, action)] = following
        self.evaluation = {k: float(v) for k, v in item["evaluation"].items()}
        self.win = frozenset(item["win"])
        self.lose = frozenset(item["lose"])
        self.generated: set[str] = {item["start"]}


class GraphTreeState:
    """A named state of a graph test, offering the GameState methods a search agent uses (both generations' names).

    Every agent index has the same legal actions: those of the state's
    ``successors`` lines, in file order. ``getScore`` is the state's evaluation
    value, and an error on a state that has none.
    """

    __slots__ = ("name", "_tree")

    def __init__(self, name: str, tree: GraphTree) -> None:
        self.name = name
        self._tree = tree

    def getLegalActions(self, agentIndex: int = 0) -> list[str]:  # noqa: N802 (the classic API)
        return list(self._tree.actions.get(self.name, ()))

    def generateSuccessor(self, agentIndex: int, action: str) -> GraphTreeState:  # noqa: N802
        following = self._tree.next.get((self.name, action))
        if following is None:
            raise ValueError(f"state {self.name!r} has no successor by action {action!r} "
                             f"(its actions: {self.getLegalActions(agentIndex)})")
        self._tree.generated.add(following)
        return GraphTreeState(following, self._tree)

    def getNumAgents(self) -> int:  # noqa: N802
        return self._tree.num_agents

    def getScore(self) -> float:  # noqa: N802
        value = self._tree.evaluation.get(self.name)
        if value is None:
            raise ValueError(f"getScore() called on state {self.name!r}, which has no evaluation value "
                             f"(the search should not have evaluated it)")
        return value

    def isWin(self) -> bool:  # noqa: N802
        return self.name in self._tree.win

    def isLose(self) -> bool:  # noqa: N802
        return self.name in self._tree.lose

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GraphTreeState) and other.name == self.name and other._tree is self._tree

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    # The current (snake_case) generation's names of the same methods.
    def get_legal_actions(self, agent_index: int = 0) -> list[str]:
        return self.getLegalActions(agent_index)

    def generate_successor(self, agent_index: int, action: str) -> GraphTreeState:
        return self.generateSuccessor(agent_index, action)

    def get_num_agents(self) -> int:
        return self.getNumAgents()

    def get_score(self) -> float:
        return self.getScore()

    def is_win(self) -> bool:
        return self.isWin()

    def is_lose(self) -> bool:
        return self.isLose()


def run_graph_tree(module: Any, item: dict[str, Any]) -> dict[str, Any]:
    """The submission's side: build ``alg(depth=depth)``, ask for its action on the start state."""
    from pacman.cs188 import get_action

    tree = GraphTree(item)
    agent = agent_class(module, item["alg"])(depth=item["depth"])
    action = get_action(agent, GraphTreeState(item["start"], tree), item.get("generation") or "classic")
    text, kind = action_text(action)
    return {"action": text, "action_type": kind, "generated": sorted(tree.generated)}
