"""The docs stay readable: a reference page of results, not a record; no results or patches among the pages;
guides in short paragraphs.

History goes to CHANGELOG.md, a results file beside the script that reads it (scripts/figures-data/), an
experiment's patch to git history.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

#: The most lines docs/search-strength.md may have: a page of current results, not the research record.
MAX_STRENGTH_LINES = 420
#: The most words a paragraph of a guide may have (one bullet of a list counts as a paragraph).
MAX_PARAGRAPH_WORDS = 130
#: Kinds of file that are results or experiments, not pages or their assets.
NOT_DOCS = (".patch", ".json", ".jsonl", ".diff")
_FENCE = re.compile(r"^\s*(```+|~~~+)")
_ITEM = re.compile(r"^\s*([-*+]|\d+\.)\s")


def paragraphs(text: str) -> list[tuple[int, str]]:
    """(first line, text) of each paragraph of Markdown `text`: a block of non-empty lines that is not a table,
    a code block or a heading; each item of a list is a paragraph of its own."""
    found: list[tuple[int, str]] = []
    block: list[str] = []
    start, fence = 0, None

    def close() -> None:
        if block:
            found.append((start, " ".join(block)))
            block.clear()

    for number, line in enumerate(text.splitlines(), 1):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        if opened:
            close()
            fence = opened.group(1)
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "|")):
            close()
            continue
        if _ITEM.match(line):
            close()
        if not block:
            start = number
        block.append(stripped)
    close()
    return found


def test_the_paragraph_finder_counts_prose_only():
    text = ("# Title\n\nOne two three\nfour.\n\n- an item\n  of two lines\n- another\n\n"
            "| a | b |\n|---|---|\n| c | d |\n\n```\nnot prose\n```\n")
    assert paragraphs(text) == [(3, "One two three four."), (6, "- an item of two lines"), (8, "- another")]


def test_the_search_strength_page_is_a_reference_of_current_results():
    lines = (DOCS / "search-strength.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_STRENGTH_LINES, (
        f"docs/search-strength.md has {len(lines)} lines (at most {MAX_STRENGTH_LINES}): it gives the current "
        "results; how they were found goes to CHANGELOG.md")


def test_no_results_file_or_patch_lives_among_the_pages():
    found = sorted(str(path.relative_to(ROOT)) for path in DOCS.rglob("*")
                   if path.is_file() and path.name.endswith(NOT_DOCS))
    assert found == [], ("a results file goes beside the script that reads it (scripts/figures-data/), "
                         f"a patch to git history: {found}")


#: Pages being rewritten in another change; remove a page's mark when its change lands.
REWRITTEN_ELSEWHERE = {"grade.md"}


@pytest.mark.parametrize("page", [
    pytest.param(path, marks=pytest.mark.xfail(strict=True, reason=f"{path.name} is being rewritten elsewhere; "
                                                                   "remove it from REWRITTEN_ELSEWHERE once it "
                                                                   "passes"))
    if path.name in REWRITTEN_ELSEWHERE else path
    for path in sorted((DOCS / "guide").glob("*.md"))], ids=lambda path: path.name)
def test_no_paragraph_of_a_guide_is_long(page):
    long = [f"{page.name} line {line}: {len(text.split())} words: {text[:60]}..."
            for line, text in paragraphs(page.read_text(encoding="utf-8"))
            if len(text.split()) > MAX_PARAGRAPH_WORDS]
    assert long == [], f"split these into paragraphs, a table or a list (at most {MAX_PARAGRAPH_WORDS} words):\n" + (
        "\n".join(long))
