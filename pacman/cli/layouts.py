"""`pacman-ai layouts`: the shipped layouts, with their size, ghosts, food and capsules."""

from __future__ import annotations

import argparse
import json
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the `layouts` subcommand to the subparsers of the `pacman-ai` parser."""
    layouts = commands.add_parser("layouts", help="list the shipped layouts",
                                  description="List the shipped layouts: name, size, ghosts, food, capsules.")
    layouts.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    return layouts


def run(args: argparse.Namespace) -> int:
    """Run `pacman-ai layouts`; returns the exit status."""
    from pacman.layout import layout_names, load_layout

    rows = []
    for name in layout_names():
        layout = load_layout(name)
        rows.append({"name": name, "width": layout.width, "height": layout.height,
                     "ghosts": layout.num_ghosts, "food": layout.food_count,
                     "capsules": len(layout.capsules)})
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'name':<10} {'size':>6} {'ghosts':>6} {'food':>5} {'capsules':>8}")
    for row in rows:
        size = f"{row['width']}x{row['height']}"
        print(f"{row['name']:<10} {size:>6} {row['ghosts']:>6} {row['food']:>5} {row['capsules']:>8}")
    return 0
