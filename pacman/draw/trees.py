"""What to draw for an explicit game tree and for a Pacman decision: values, labels, the chosen path, cuts.

`explicit_tree` turns a parsed `TreeNode` and a depth into `DrawNode`s whose
values are those the search computes at every node (the same operations in the
same order as `pacman.agents.search.Searcher`, so the root's value is `solve_tree`'s to
the last bit), with the path `pacman-ai tree` reports highlighted: the root's
best action, then, below it, each max or min node's first best child, down to a
chance node, a leaf or a node cut by the depth. Nodes where `--depth` cuts the
tree show their heuristic ("h=5", dashed); what lies below them is not drawn.

`decision_top` does the same for the top of a Pacman agent's decision
(`pacman.agents.decision.DecisionNode`).
"""

from __future__ import annotations

import math
from typing import Any

from pacman.agents.search import CHANCE as S_CHANCE
from pacman.agents.search import MAX as S_MAX
from pacman.agents.search import MIN as S_MIN
from pacman.agents.search import TERMINAL
from pacman.agents.trees import TreeNode, solve_tree
from pacman.draw.layout import CHANCE, LEAF, MAX, MIN, DrawNode, format_probability, format_value
from pacman.errors import PacmanError

__all__ = ["DrawError", "MAX_DRAWN_NODES", "explicit_tree", "tree_caption", "decision_top"]

#: The most nodes a drawing may have (what the depth leaves of the tree); more is no longer a picture to read.
MAX_DRAWN_NODES = 5_000

_KIND = {S_MAX: MAX, S_MIN: MIN, S_CHANCE: CHANCE, TERMINAL: LEAF}


class DrawError(PacmanError):
    """A tree that cannot be drawn (too many nodes), or a drawing that cannot be written."""


def _search_values(root: TreeNode, limit: float) -> tuple[list[TreeNode], dict[int, float], set[int]]:
    """The drawn nodes in preorder, each one's search value (by id), and the ids of nodes cut by the depth."""
    order: list[tuple[TreeNode, int]] = []
    stack = [(root, 0)]
    cut: set[int] = set()
    while stack:
        node, level = stack.pop()
        order.append((node, level))
        if len(order) > MAX_DRAWN_NODES:
            raise DrawError(f"{root.source}: the tree has more than {MAX_DRAWN_NODES:,} nodes to draw; "
                            f"draw a smaller one or cut it with --depth")
        if node.kind == TERMINAL:
            continue
        if level >= limit:
            cut.add(id(node))
            continue
        stack.extend((child, level + 1) for child in reversed(node.children))
    values: dict[int, float] = {}
    for node, _ in reversed(order):
        if node.kind == TERMINAL or id(node) in cut:
            values[id(node)] = float(node.value)
        elif node.kind == S_MAX:
            best = -math.inf
            for child in node.children:
                v = values[id(child)]
                if v > best:
                    best = v
            values[id(node)] = best
        elif node.kind == S_MIN:
            best = math.inf
            for child in node.children:
                v = values[id(child)]
                if v < best:
                    best = v
            values[id(node)] = best
        else:
            total = 0.0
            for p, child in zip(node.probabilities, node.children):
                total += p * values[id(child)]
            values[id(node)] = total
    return [node for node, _ in order], values, cut


def _first_best(node: TreeNode, values: dict[int, float]) -> TreeNode:
    """The child a max (min) node picks: the first with the highest (lowest) value, as the search breaks ties."""
    best_child = node.children[0]
    best = values[id(best_child)]
    for child in node.children[1:]:
        v = values[id(child)]
        if (v > best) if node.kind == S_MAX else (v < best):
            best, best_child = v, child
    return best_child


def explicit_tree(root: TreeNode, depth: int | None = None) -> tuple[DrawNode, Any]:
    """The drawing of `root` searched `depth` edges deep (None: the whole tree), and `solve_tree`'s result.

    Raises `TreeError` as `solve_tree` does (a cut at an inner node without a heuristic)
    and `DrawError` for a tree of more than `MAX_DRAWN_NODES` drawn nodes.
    """
    result = solve_tree(root, depth=depth)
    limit = math.inf if depth is None else depth
    order, values, cut = _search_values(root, limit)

    path: set[int] = set()
    if result.action is not None:
        path.add(id(root))
        node = next(child for child in root.children if child.label == result.action)
        while True:
            path.add(id(node))
            if node.kind not in (S_MAX, S_MIN) or id(node) in cut:
                break
            node = _first_best(node, values)

    drawn: dict[int, DrawNode] = {}
    parents: dict[int, TreeNode] = {}
    for node in order:
        if id(node) not in cut:
            for child in node.children:
                parents[id(child)] = node
    for node in reversed(order):
        is_cut = id(node) in cut
        value = values[id(node)]
        text = ("h=" if is_cut else "") + format_value(value)
        parent = parents.get(id(node))
        probability = ""
        if parent is not None and parent.kind == S_CHANCE:
            probability = format_probability(parent.probabilities[parent.children.index(node)])
        label = node.label if parent is not None else ""
        what = "leaf" if node.kind == TERMINAL else f"{node.kind} node"
        title = f"{node.path}" + (f" ({label})" if label else "") + f": {what}, value {value!r}" + \
            (" (heuristic: the depth limit cuts here)" if is_cut else "") + (f", name {node.name}" if node.name else "")
        children = [] if is_cut else [drawn.pop(id(child)) for child in node.children]
        drawn[id(node)] = DrawNode(_KIND[node.kind], text, children, label=label, probability=probability,
                                   on_path=id(node) in path, cut=is_cut, title=title)
    return drawn[id(root)], result


def tree_caption(root: TreeNode, result: Any, depth: int | None) -> tuple[list[str], str]:
    """The caption lines (the tree's name) and the summary line of a drawing."""
    caption = [root.name] if root.name else []
    action = "none" if result.action is None else result.action
    depth_text = "whole tree" if depth is None else f"depth {depth}"
    return caption, f"value {format_value(float(result.value))}  ·  action {action}  ·  {depth_text}"


def decision_top(decision: Any) -> DrawNode:
    """The drawing of a Pacman decision's top (`pacman.agents.decision.DecisionNode`): Pacman's actions under a max
    node, each first ghost's outcomes with their probabilities, deeper layers summarised as one value.
    Values of 100 or more are rounded to whole numbers, to keep the panel narrow (titles keep them exact)."""
    children = []
    for branch in decision.branches:
        outcomes = [DrawNode(_KIND[o.kind], format_value(o.value, compact=True), label=_short(o.action),
                             probability=format_probability(o.probability) if branch.kind == S_CHANCE else "",
                             on_path=False, cut=o.cut, title=f"ghost {o.action.value}: value {o.value!r}")
                    for o in branch.outcomes]
        children.append(DrawNode(_KIND[branch.kind], format_value(branch.value, compact=True), outcomes,
                                 label=branch.action.value,
                                 on_path=branch.action is decision.action,
                                 title=f"Pacman {branch.action.value}: value {branch.value!r}"))
    return DrawNode(MAX, format_value(decision.value, compact=True), children, on_path=True,
                    title=f"Pacman's decision: {decision.action.value}, value {decision.value!r}")


def _short(action: Any) -> str:
    """A ghost's action as one letter (N, S, E, W), to keep the panel narrow."""
    return action.value[0]
