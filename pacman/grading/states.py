"""The states a submission searches: GameState look-alikes that record what the submission expands.

Definition used by every expansion check: a state is **expanded** when the
submission calls ``successor()`` (or ``successors()``) on it, whatever the action
and however many times. Expectimax searched to depth *d* (plies: Pacman's move
and one move of every ghost) expands exactly the states that are not terminal and
lie fewer than *d* plies below the root; it values the others (terminal states
and those at the depth limit) with the evaluation function.

- `CountingState` wraps a real `GameState` and offers its whole API.
- `TreeState` makes an explicit game tree look like a Pacman game: agent 0 moves
  at max nodes, agents 1..k at the chance levels below, then agent 0 again; a
  leaf is a finished game (``is_win()`` for a value >= 0, ``is_lose()`` below 0)
  whose ``score`` is its value; an inner node's ``score`` is its heuristic value.

Both record into an `ExpansionLog`; asking a terminal state for a successor
raises `TerminalStateError`, as a real state does, and is logged as well.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable, Iterable

from pacman.agents.search import MAX, TERMINAL
from pacman.agents.trees import TreeNode
from pacman.errors import IllegalActionError, TerminalStateError, TreeError
from pacman.state import GameState

__all__ = [
    "ExpansionLog",
    "CountingState",
    "TreeState",
    "tree_node_ids",
    "tree_evaluation",
    "state_key",
    "unwrap",
    "unwrapping",
]


class ExpansionLog:
    """What a search expanded: keys in order of first expansion, and successor calls on terminal states."""

    def __init__(self) -> None:
        self.expanded: dict[Hashable, int] = {}
        """Key -> number of successor calls on it, in order of first expansion."""
        self.terminal: list[Hashable] = []
        """Keys of terminal states whose successor was asked for (each time)."""
        self.calls = 0

    def expand(self, key: Hashable, terminal: bool) -> None:
        self.calls += 1
        self.expanded[key] = self.expanded.get(key, 0) + 1
        if terminal:
            self.terminal.append(key)


def state_key(state: GameState, agent: int) -> tuple:
    """A JSON-friendly key of (state, agent to move): the state's fields without its layout tables."""
    return (agent, *state.position_key)


def unwrap(state: Any) -> Any:
    """The real GameState inside a `CountingState` (anything else is returned as is)."""
    return state._state if type(state) is CountingState else state


class CountingState:
    """A `GameState` that logs its expansions. Everything but successor generation is passed through.

    It compares and hashes like the state it wraps, so submissions may keep
    dictionaries of states.
    """

    __slots__ = ("_state", "_log")

    def __init__(self, state: GameState, log: ExpansionLog) -> None:
        object.__setattr__(self, "_state", state)
        object.__setattr__(self, "_log", log)

    def successor(self, agent: int, action: Any) -> CountingState:
        """The state after `agent` takes `action` (logged as an expansion of this state)."""
        state = self._state
        self._log.expand(state_key(state, agent), state.is_terminal())
        return CountingState(state.successor(agent, action), self._log)

    def successors(self, agent: int, actions: Iterable[Any] | None = None) -> list[CountingState]:
        """Every successor for `actions` (default: all legal ones, [] when terminal); logged as one expansion."""
        state = self._state
        self._log.expand(state_key(state, agent), state.is_terminal())
        return [CountingState(s, self._log) for s in state.successors(agent, actions)]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._state, name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("game states are immutable")

    def __eq__(self, other: object) -> bool:
        return self._state == unwrap(other)

    def __hash__(self) -> int:
        return hash(self._state)

    def __str__(self) -> str:
        return str(self._state)

    def __repr__(self) -> str:
        return repr(self._state)


def tree_node_ids(root: TreeNode) -> dict[int, int]:
    """``id(node) -> preorder number`` of every node: the names both processes use for tree nodes."""
    ids: dict[int, int] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        ids[id(node)] = len(ids)
        stack.extend(reversed(node.children))
    return ids


class TreeState:
    """A node of an explicit, layered game tree, offering the GameState API a search needs.

    Actions are the tree's edge labels (strings). `ghosts` is the number of chance
    levels below every max level.
    """

    __slots__ = ("_node", "_level", "_ghosts", "_ids", "_log")

    def __init__(self, node: TreeNode, ghosts: int, log: ExpansionLog, ids: dict[int, int] | None = None,
                 level: int = 0) -> None:
        object.__setattr__(self, "_node", node)
        object.__setattr__(self, "_level", level)
        object.__setattr__(self, "_ghosts", ghosts)
        object.__setattr__(self, "_ids", ids if ids is not None else tree_node_ids(node))
        object.__setattr__(self, "_log", log)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("game states are immutable")

    # -- the GameState API -----------------------------------------------------------

    @property
    def num_agents(self) -> int:
        """1 + the number of ghosts: Pacman is agent 0."""
        return self._ghosts + 1

    @property
    def num_ghosts(self) -> int:
        return self._ghosts

    @property
    def agent_to_move(self) -> int:
        """The agent whose level this is (a tree knows whose turn it is; a GameState does not)."""
        return self._level % (self._ghosts + 1)

    def legal_actions(self, agent: int) -> tuple[str, ...]:
        """The labels of this node's children; () at a leaf."""
        node = self._node
        if node.kind == TERMINAL:
            return ()
        self._check_agent(agent)
        return tuple(node.actions)

    def successor(self, agent: int, action: Any) -> TreeState:
        """The child reached by `action` (logged as an expansion of this node)."""
        node = self._node
        self._log.expand(self._ids[id(node)], node.kind == TERMINAL)
        if node.kind == TERMINAL:
            raise TerminalStateError(f"no successor of a terminal state (leaf {node.path} of value "
                                     f"{_number(node.value)}): agent {agent} cannot take {action!r}")
        self._check_agent(agent)
        for label, child in zip(node.actions, node.children):
            if label == action:
                return TreeState(child, self._ghosts, self._log, self._ids, self._level + 1)
        raise IllegalActionError(f"illegal action {action!r} at {node.path}; legal: {', '.join(node.actions)}")

    def successors(self, agent: int, actions: Iterable[Any] | None = None) -> list[TreeState]:
        """The children for `actions` (default: all); logged as one expansion."""
        node = self._node
        if actions is None:
            self._log.expand(self._ids[id(node)], node.kind == TERMINAL)
            if node.kind == TERMINAL:
                return []  # as GameState.successors does
            self._check_agent(agent)
            return [TreeState(c, self._ghosts, self._log, self._ids, self._level + 1) for c in node.children]
        return [self.successor(agent, a) for a in actions]

    @property
    def score(self) -> float:
        """A leaf's value, or an inner node's heuristic value (0 if it has none)."""
        value = self._node.value
        return value if value is not None else 0.0

    def is_terminal(self) -> bool:
        return self._node.kind == TERMINAL

    def is_win(self) -> bool:
        return self._node.kind == TERMINAL and self._node.value >= 0

    def is_lose(self) -> bool:
        return self._node.kind == TERMINAL and self._node.value < 0

    # -- identity ------------------------------------------------------------------------

    @property
    def path(self) -> str:
        """The node's JSON path in the tree file, e.g. ``$.max[1].chance[0]``."""
        return self._node.path

    def __eq__(self, other: object) -> bool:
        return type(other) is TreeState and other._node is self._node

    def __hash__(self) -> int:
        return id(self._node)

    def __repr__(self) -> str:
        return f"TreeState({self._node.path}, agent {self.agent_to_move})"

    def _check_agent(self, agent: Any) -> None:
        if agent != self.agent_to_move:
            who = "Pacman (agent 0)" if self._node.kind == MAX else f"ghost {self.agent_to_move}"
            raise IllegalActionError(f"at {self._node.path} it is {who}'s turn, not agent {agent!r}'s")


def tree_evaluation(state: Any) -> float:
    """The evaluation a tree test gives the submission: a leaf's value or a cut node's heuristic."""
    if type(state) is not TreeState:
        raise TypeError(f"the tree's evaluation expects a state of the tree, got {type(state).__name__}")
    node = state._node
    if node.value is None:
        raise TreeError(f"{node.path} was evaluated, but it is above the depth limit and has no value "
                        f"(is the depth counted in plies: Pacman and every ghost?)")
    return float(node.value)


def unwrapping(evaluation: Callable[[GameState], float]) -> Callable[[Any], float]:
    """`evaluation` made to accept `CountingState`s (it sees the real state)."""

    def evaluate(state: Any) -> float:
        return evaluation(unwrap(state))

    evaluate.__name__ = getattr(evaluation, "__name__", "evaluation")
    return evaluate


def _number(value: float | None) -> str:
    if value is None:
        return "none"
    return str(int(value)) if float(value).is_integer() else repr(value)
