"""Plot learning curves written by examples/rl/train.py (OUT.csv): win rate against environment steps.

    python examples/rl/plot.py small.csv --out small-curve.png [--title TEXT]
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("curves", nargs="+", type=Path, help="CSV files of train.py")
    parser.add_argument("--out", type=Path, required=True, help="the PNG to write")
    parser.add_argument("--title", default="MaskablePPO, features observation")
    args = parser.parse_args(argv)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(7, 4))
    for path in args.curves:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        if not rows:
            raise SystemExit(f"plot.py: {path}: no rows")
        steps = [int(row["timesteps"]) / 1e6 for row in rows]
        rates = [100 * float(row["win_rate"]) for row in rows]
        minutes = float(rows[-1]["minutes"])
        axis.plot(steps, rates, marker=".", label=f"{path.stem} ({minutes:.0f} min wall clock)")
    axis.axhline(90, color="grey", linestyle="--", linewidth=1, label="90%")
    axis.set_xlabel("environment steps (millions)")
    axis.set_ylabel("games won (%), deterministic policy")
    axis.set_ylim(0, 100)
    axis.set_title(args.title)
    axis.grid(alpha=0.3)
    axis.legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(args.out, dpi=100)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
