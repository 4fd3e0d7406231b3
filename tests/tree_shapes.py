"""Test support: explicit game trees of many shapes and sizes, as JSON data, made from a seed."""

from __future__ import annotations

import random
from typing import Any

#: name -> (depth, children per inner node: a number, or a (low, high) range drawn per node)
SHAPES = {
    "two-leaves": (1, 2),
    "binary-8": (8, 2),
    "ternary-5": (5, 3),
    "quaternary-4": (4, 4),
    "star-399": (1, 399),
    "chain-300": (300, 1),
    "bushy-random": (6, (1, 4)),
    "deep-random": (12, (1, 2)),
}

_LABELS = ["North", "South", "East", "West", "Stop", "left", "right", "a long action label that wraps",
           "x" * 30, "go"]


def random_tree(shape: str, seed: int, labels: bool = True) -> Any:
    """A tree of `shape` (see SHAPES): kinds cycle max, min, chance (or are random for "...random"), leaves are
    whole or fractional numbers, some chance nodes have uneven probabilities, some children carry labels."""
    depth, branching = SHAPES[shape]
    rng = random.Random(f"{shape}-{seed}")
    kinds = ["max", "min", "chance"]

    def leaf() -> Any:
        return rng.choice([rng.randint(-20, 100), round(rng.uniform(-1000, 1000), 3)])

    def node(level: int) -> Any:
        if level == depth or (isinstance(branching, tuple) and level > 1 and rng.random() < 0.15):
            return leaf()
        kind = rng.choice(kinds) if shape.endswith("random") else kinds[level % 3]
        count = branching if isinstance(branching, int) else rng.randint(*branching)
        children = [node(level + 1) for _ in range(count)]
        data: dict[str, Any] = {kind: children}
        if kind == "chance" and rng.random() < 0.5:
            weights = [rng.random() + 0.01 for _ in children]
            total = sum(weights)
            data["p"] = [w / total for w in weights]
        if labels and rng.random() < 0.4:
            for i, child in enumerate(children):
                label = f"{rng.choice(_LABELS)}{i}"
                children[i] = dict(child, action=label) if isinstance(child, dict) else {"value": child,
                                                                                       "action": label}
        if rng.random() < 0.3:
            data["value"] = leaf()
        return data

    return node(0)
