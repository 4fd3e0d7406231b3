"""No page, starter file or docstring names a default other than the code's.

The default evaluation and the default agent's budget are facts of the code (`DEFAULT_EVALUATION`,
`SMALL_MAZE_NODES`). Where prose says which evaluation is the default, it must be that one; where it gives
the default agent's node budget, it must be that number. History ("the default was `scaled`", "the default
before `dots`") is allowed: it says what was. docs/search-strength.md is the research record of how the
default was chosen, and is read for its current-tense claims only ("the default is").
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pacman.agents.evaluation import DEFAULT_EVALUATION, EVALUATIONS
from pacman.agents.expectimax import HUNTED_NODES, NEAR_GHOST_NODES, NEAR_GHOST_STEPS, SMALL_MAZE_NODES

ROOT = Path(__file__).resolve().parent.parent
NAMES = "|".join(EVALUATIONS)
#: Sentences that name a default evaluation: "the default, `x`", "`x` (the default)", "none given means `x`",
#: "the project's `x`", "default evaluation is `x`".
#: A space in a claim may be any run of white space: prose wraps its lines anywhere.
CLAIMS = re.compile(
    rf"(?:default(?:\s+evaluation)?(?:,|\s+is|:)?\s+`(?P<a>{NAMES})`(?!'s)"
    rf"|`(?P<b>{NAMES})`,?\s+\(?the\s+default\b(?!\s+agent)"
    rf"|none\s+given\s+means\s+`(?P<c>{NAMES})`"
    rf"|the\s+project's\s+`(?P<d>{NAMES})`)", re.I)
#: Words that make a claim history, not a statement of the present.
HISTORY = re.compile(r"\b(was|were|then|before|when it|had been|used to|until|earlier)\b", re.I)
#: "at most N nodes a move" is the small mazes' budget; "... nodes a move there", against hunters, HUNTED_NODES;
#: "... nodes a move when a ghost is within S steps and H against ghosts that hunt", the bigger mazes' budgets
BUDGET = re.compile(r"at most ([\d,]+) nodes a move( there)?")
NEAR_BUDGET = re.compile(r"at most ([\d,]+) nodes a move when a ghost is within (\d+) steps and ([\d,]+) against "
                         r"ghosts that hunt")


def _pages() -> list[Path]:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    code = [*sorted((ROOT / "pacman").rglob("*.py")), *sorted((ROOT / "agents").rglob("*.py"))]
    return [p for p in pages + code if "__pycache__" not in p.parts]


def _claims(text: str) -> list[tuple[int, str, str]]:
    found = []
    for match in CLAIMS.finditer(text):
        name = next(group for group in match.groups() if group)
        line_start = text.rfind("\n", 0, match.start()) + 1
        line_end = text.find("\n", match.end())
        line = text[line_start:line_end if line_end >= 0 else None]
        if HISTORY.search(match.group(0)) or HISTORY.search(text[match.end():match.end() + 25]):
            continue
        found.append((text.count("\n", 0, match.start()) + 1, name, line.strip()))
    return found


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_page_names_the_codes_default_evaluation(page):
    text = page.read_text(encoding="utf-8")
    if page.name == "search-strength.md":  # the research record: only what it says is the default now
        text = "\n".join(line for line in text.splitlines() if re.search(r"default (is|evaluation is)", line))
    wrong = [f"{page.relative_to(ROOT)}:{number}: names `{name}`: {line[:100]}"
             for number, name, line in _claims(text) if name != DEFAULT_EVALUATION]
    assert wrong == []


@pytest.mark.parametrize("page", [ROOT / "README.md", *sorted((ROOT / "docs" / "guide").glob("*.md"))],
                         ids=lambda p: p.name)
def test_the_default_agents_node_budget_is_the_codes(page):
    text = " ".join(page.read_text(encoding="utf-8").split())
    near = NEAR_BUDGET.findall(text)
    assert all((int(n.replace(",", "")), int(steps), int(h.replace(",", ""))) ==
               (NEAR_GHOST_NODES, NEAR_GHOST_STEPS, HUNTED_NODES) for n, steps, h in near)
    text = NEAR_BUDGET.sub("", text)
    assert all(int(n.replace(",", "")) == (HUNTED_NODES if there else SMALL_MAZE_NODES)
               for n, there in BUDGET.findall(text))
    if page.name == "README.md":  # the default agent's phrase names all three
        assert len(near) == 1 and BUDGET.search(text)


def test_the_claim_finder_finds_what_it_must():
    """The finder itself: a wrong default is caught, history is not."""
    assert [name for _, name, _ in _claims("The default, `scaled`, wins.")] == ["scaled"]
    assert [name for _, name, _ in _claims("and none given means `better`.")] == ["better"]
    assert [name for _, name, _ in _claims("`safe` (the default) declares them")] == ["safe"]
    assert _claims("the default evaluation was `scaled` then") == []
    assert _claims("`scaled` (the default before `dots`)") == []
    assert [name for _, name, _ in _claims("with the\nproject's `better` evaluation")] == ["better"]  # wrapped


def test_the_starter_files_name_the_default_evaluation():
    for starter in sorted((ROOT / "pacman" / "grading" / "assignments").glob("*/starter.py")):
        text = starter.read_text(encoding="utf-8")
        assert f"the project's default evaluation, `{DEFAULT_EVALUATION}`" in text or \
               f"the project's default, `{DEFAULT_EVALUATION}`" in text, starter
