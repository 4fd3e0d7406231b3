#!/usr/bin/env python3
"""A class of made-up students for the shipped `expectimax` assignment: one ``.py`` per student.

The students' files are drawn, by a seed, from the project's own test
submissions (tests/submissions/: a correct one and the wrong ones, each with one
known mistake) and the assignment's starter, each renamed and given a header
comment of its own. The folder is what `pacman-ai grade expectimax DIR` takes.
docs/guide/grade.md ("Grading a class") and its benchmark use it.

Usage:

    python scripts/make_class.py OUT [--students 30] [--seed 0]

OUT must not exist, or be an empty folder.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUBMISSIONS = ROOT / "tests" / "submissions"
#: What a student hands in, and how many of a class hand it in (weights): most finish, some make one mistake.
KINDS = {"correct": 12, "minimax": 4, "depth_per_agent": 4, "no_terminal": 3, "pruning": 3, "starter": 4}
FIRST = ("ada", "ben", "cleo", "dev", "emil", "fay", "gus", "hana", "ivo", "jun", "kai", "lena", "milo", "nia",
         "omar", "pia", "quin", "rosa", "sam", "tess", "uma", "vik", "wen", "xia", "yuri", "zoe")
LAST = ("alvarez", "brooks", "chen", "diallo", "evans", "fischer", "garcia", "haddad", "ito", "jensen", "kim",
        "lopez", "moreau", "nakamura", "okafor", "petrov", "quist", "rossi", "silva", "tanaka")


def _source(kind: str) -> str:
    if kind == "starter":
        from pacman.grading.assignment import load_assignment

        starter = load_assignment("expectimax").starter
        assert starter is not None
        return starter
    return (SUBMISSIONS / f"{kind}.py").read_text(encoding="utf-8")


def make_class(out: Path, students: int, seed: int) -> dict[str, str]:
    """Write `students` files into `out`; returns each student's kind."""
    rng = random.Random(seed)
    names = sorted({f"{rng.choice(FIRST)}_{rng.choice(LAST)}" for _ in range(students * 4)})
    rng.shuffle(names)
    if len(names) < students:
        raise SystemExit(f"make_class.py: at most {len(names)} students")
    kinds = {}
    for name in sorted(names[:students]):
        kind = rng.choices(list(KINDS), weights=list(KINDS.values()))[0]
        text = f"# {name.replace('_', ' ').title()}, expectimax assignment\n" + _source(kind)
        (out / f"{name}.py").write_text(text, encoding="utf-8")
        kinds[name] = kind
    return kinds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the folder to write (new, or empty)")
    parser.add_argument("--students", type=int, default=30, help="how many (default: 30)")
    parser.add_argument("--seed", type=int, default=0, help="which class (default: 0)")
    args = parser.parse_args(argv)
    if args.students < 1:
        parser.error("--students: expected at least 1")
    if args.out.exists() and (not args.out.is_dir() or any(args.out.iterdir())):
        parser.error(f"{args.out}: exists and is not an empty folder")
    args.out.mkdir(parents=True, exist_ok=True)
    kinds = make_class(args.out, args.students, args.seed)
    counts = {kind: sum(1 for k in kinds.values() if k == kind) for kind in KINDS}
    print(f"{len(kinds)} students in {args.out}: " + ", ".join(f"{n} {k}" for k, n in counts.items() if n),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
