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
REWRITTEN_ELSEWHERE: set[str] = set()


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


# -- links to headings ------------------------------------------------------------------------------------

#: A Markdown link to a heading: ``[text](page.md#anchor)``, or ``[text](#anchor)`` on the same page.
_ANCHOR_LINK = re.compile(r"\]\((?P<page>[^()\s#]*)#(?P<anchor>[^()\s]+)\)")
#: An anchor a page sets itself: ``<a id="name"></a>``.
_HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")


def github_slug(heading: str) -> str:
    """A heading's anchor on GitHub: its text (no Markdown marks) in lower case, punctuation removed, each space
    a hyphen."""
    text = re.sub(r"[`*]", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def site_slug(heading: str) -> str:
    """A heading's anchor on the documentation site (Python-Markdown's toc: ASCII, punctuation removed, runs of
    spaces and hyphens one hyphen)."""
    import unicodedata

    text = unicodedata.normalize("NFKD", re.sub(r"[`*]", "", heading)).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", text).strip().lower())


def anchors(text: str) -> dict[str, str | None]:
    """The anchors a page gives: each heading's (outside code blocks; the first of equal ones only, whose anchor
    carries no number) and the page's own ``<a id>``, each mapped to None, or to why a link to it works on one
    renderer only (a heading whose anchor GitHub and the site make differently, as around ``--``)."""
    found: dict[str, str | None] = dict.fromkeys(_HTML_ANCHOR.findall(text))
    seen, fence = set(), None
    for line in text.splitlines():
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading and heading.group(1) not in seen:
            seen.add(heading.group(1))
            github, site = github_slug(heading.group(1)), site_slug(heading.group(1))
            why = None if github == site else (f"the heading {heading.group(1)!r} is #{github} on GitHub and "
                                               f"#{site} on the site: no one link works on both")
            found.setdefault(github, why)
            found.setdefault(site, why)
    return found


def anchor_links(text: str) -> list[tuple[int, str, str]]:
    """(line, page, anchor) of each link to a heading in Markdown `text`, outside code blocks and inline code."""
    found, fence = [], None
    for number, line in enumerate(text.splitlines(), 1):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        for link in _ANCHOR_LINK.finditer(re.sub(r"`[^`]*`", "``", line)):
            if link.group("page") == "" or link.group("page").endswith(".md"):
                found.append((number, link.group("page"), link.group("anchor")))
    return found


def test_the_slugs_are_githubs_and_the_sites():
    heading = 'Deeper on small mazes: `depth="auto"`, the default'
    assert github_slug(heading) == site_slug(heading) == "deeper-on-small-mazes-depthauto-the-default"
    assert github_slug("`forbid_imports`: modules a submission may not import") == (
        "forbid_imports-modules-a-submission-may-not-import")
    assert site_slug("The 99% claim: the `safe` evaluation") == "the-99-claim-the-safe-evaluation"
    assert github_slug("A -- B") == "a----b" and site_slug("A -- B") == "a-b"  # no anchor works on both
    assert anchors("# A\n\n```\n# not a heading\n```\n## The course's engine\n<a id=\"x\"></a>\n") == {
        "a": None, "the-courses-engine": None, "x": None}
    assert set(anchors("## A -- B\n")) == {"a----b", "a-b"} and anchors("## A -- B\n")["a-b"].endswith("on both")
    assert anchor_links("[a](b.md#c) [d](#e) `[f](g.md#h)` [i](https://j.org/#k) [l](m.png#n)\n") == [
        (1, "b.md", "c"), (1, "", "e")]


def test_every_link_to_a_heading_finds_it():
    """Every ``page.md#anchor`` link of the README and docs/ names a heading the page has today (a heading renamed
    or a page rewritten leaves links that open the page at its top, or fail the site's strict build)."""
    pages = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
    given = {page.resolve(): anchors(page.read_text(encoding="utf-8")) for page in pages}
    broken = []
    for page in pages:
        for line, target, anchor in anchor_links(page.read_text(encoding="utf-8")):
            linked = (page.parent / target).resolve() if target else page.resolve()
            where = f"{page.relative_to(ROOT)} line {line}: {target}#{anchor}"
            if linked not in given:
                broken.append(f"{where}: no such page")
            elif anchor not in given[linked]:
                broken.append(f"{where}: {linked.relative_to(ROOT)} has no heading with that anchor")
            elif given[linked][anchor] is not None:
                broken.append(f"{where}: {given[linked][anchor]}")
    assert broken == [], "links to headings that are not there:\n" + "\n".join(broken)
