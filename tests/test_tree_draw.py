"""`pacman-ai tree --draw`: explicit trees drawn as lecture slides, in SVG, PNG and PDF."""

from __future__ import annotations

import math
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PIL import Image

from pacman.agents.search import Searcher
from pacman.agents.trees import TreeGame, load_tree, parse_tree, solve_tree
from pacman.draw import tree_figure, write_figure
from pacman.draw.layout import Figure, format_probability, format_value
from pacman.draw.raster import image_size
from pacman.draw.svg import figure_svg
from pacman.draw.trees import MAX_DRAWN_NODES, explicit_tree
from tree_shapes import SHAPES, random_tree

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "trees"
SVG = "{http://www.w3.org/2000/svg}"


def pacman_ai(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pacman", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def overlapping(figure: Figure) -> list[tuple[str, str]]:
    """Pairs of node shapes and texts whose boxes overlap (a sweep over x)."""
    boxes = sorted(figure.boxes(), key=lambda item: item[1].x)
    found = []
    active: list[tuple[str, object]] = []
    for name, box in boxes:
        active = [(n, b) for n, b in active if b.right > box.x]
        found.extend((n, name) for n, b in active if b.overlaps(box))
        active.append((name, box))
    return found


# -- the command, as a user runs it ------------------------------------------------------


@pytest.mark.parametrize("suffix", [".svg", ".png", ".pdf"])
def test_draw_writes_each_format_and_still_prints_the_result(tmp_path, suffix):
    out = tmp_path / f"tree{suffix}"
    done = pacman_ai("tree", str(EXAMPLES / "expectimax-max-of-chances.json"), "--draw", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "value: 54.5\naction: right\n"
    assert out.is_file() and out.stat().st_size > 500
    figure, _ = tree_figure(load_tree(EXAMPLES / "expectimax-max-of-chances.json"))
    if suffix == ".png":
        with Image.open(out) as image:
            image.load()
            assert image.format == "PNG" and image.size == image_size(figure)
    elif suffix == ".pdf":
        assert out.read_bytes().startswith(b"%PDF")
    else:
        root = ET.parse(out).getroot()
        assert root.tag == f"{SVG}svg" and float(root.get("width")) == pytest.approx(figure.width, abs=0.01)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary file left


def _svg_texts(root: ET.Element) -> list[str]:
    return [element.text or "" for element in root.iter(f"{SVG}text")]


@pytest.mark.parametrize("name,depth", [("expectimax-max-of-chances", None), ("minimax-classic", None),
                                        ("depth-limited", 1), ("depth-limited", 2), ("depth-limited", None),
                                        ("expectimax-weighted-chance", None)])
def test_svg_shows_every_value_label_and_probability_and_marks_the_reported_path(tmp_path, name, depth):
    out = tmp_path / "tree.svg"
    args = ["tree", str(EXAMPLES / f"{name}.json"), "--draw", str(out), "--json"]
    if depth is not None:
        args += ["--depth", str(depth)]
    done = pacman_ai(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    reported = __import__("json").loads(done.stdout)
    root = ET.parse(out).getroot()
    texts = _svg_texts(root)

    tree = load_tree(EXAMPLES / f"{name}.json")
    limit = math.inf if depth is None else depth
    searcher = Searcher(TreeGame(tree))
    nodes = {int(g.get("data-id")): g for g in root.iter(f"{SVG}g") if g.get("data-id") is not None}
    # Walk the tree in the drawing's order (preorder, nothing below a cut) and check each node.
    stack = [(tree, 0, None)]
    ident = 0
    on_path = []
    while stack:
        node, level, parent = stack.pop()
        group = nodes[ident]
        value = searcher.value(node, limit - level)
        cut = not node.is_leaf and level >= limit
        shown = group.find(f"{SVG}text").text
        assert shown == ("h=" if cut else "") + format_value(value)
        assert ("cut" in group.get("class").split()) == cut
        kind = "leaf" if node.is_leaf else node.kind
        assert kind in group.get("class").split()
        if parent is not None:
            assert node.label in texts
            if parent.kind == "chance":
                assert format_probability(parent.probabilities[parent.children.index(node)]) in texts
        if "on-path" in group.get("class").split():
            on_path.append(node)
        ident += 1
        if not cut:
            stack.extend((child, level + 1, node) for child in reversed(node.children))
    assert ident == len(nodes)
    # The highlighted path starts with the action `pacman-ai tree` reports.
    if reported["action"] is None:
        assert on_path == []
    else:
        assert on_path[0] is tree and on_path[1].label == reported["action"]
        assert nodes[0].find(f"{SVG}text").text == format_value(reported["value"])
        edges = [e for e in root.iter(f"{SVG}path") if "on-path" in e.get("class", "")]
        assert len(edges) == len(on_path) - 1
        for parent, child in zip(on_path, on_path[1:]):  # each step is the first best child
            values = [searcher.value(c, limit - 1 - on_path.index(parent)) for c in parent.children]
            best = max(values) if parent.kind == "max" else min(values)
            assert child is parent.children[values.index(best)]


def test_the_shipped_examples_are_drawn_as_lectures_draw_them(tmp_path):
    out = tmp_path / "tree.svg"
    assert pacman_ai("tree", str(EXAMPLES / "depth-limited.json"), "--depth", "2", "--draw", str(out),
                     cwd=tmp_path).returncode == 0
    root = ET.parse(out).getroot()
    groups = [g for g in root.iter(f"{SVG}g") if g.get("data-id") is not None]
    shapes = {g.get("class").split()[1]: g[1].tag.replace(SVG, "") for g in groups}
    assert shapes == {"max": "polygon", "min": "polygon", "chance": "circle"}
    up = next(g for g in groups if "max" in g.get("class").split())[1].get("points").split()
    down = next(g for g in groups if "min" in g.get("class").split())[1].get("points").split()
    assert float(up[2].split(",")[1]) < float(up[0].split(",")[1])  # the apex above the base: pointing up
    assert float(down[2].split(",")[1]) > float(down[0].split(",")[1])  # pointing down
    cut = [g for g in groups if "cut" in g.get("class").split()]
    assert [g.find(f"{SVG}text").text for g in cut] == ["h=6", "h=4", "h=2", "h=10"]
    assert all(g[1].get("stroke-dasharray") for g in cut)


# -- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize("target,expected", [
    ("tree.jpg", "expected a file name ending in .svg, .png or .pdf"),
    ("tree", "expected a file name ending in .svg, .png or .pdf"),
    ("missing/tree.svg", "does not exist"),
    (".", "is a folder"),
])
def test_bad_draw_paths_are_one_line_errors_with_status_2(tmp_path, target, expected):
    done = pacman_ai("tree", str(EXAMPLES / "minimax-classic.json"), "--draw", target, cwd=tmp_path)
    assert done.returncode == 2
    assert expected in done.stderr and "--draw" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_a_bad_tree_or_cut_writes_nothing(tmp_path):
    out = tmp_path / "tree.png"
    done = pacman_ai("tree", str(EXAMPLES / "minimax-classic.json"), "--depth", "1", "--draw", str(out), cwd=tmp_path)
    assert done.returncode == 2 and 'no "value" heuristic' in done.stderr
    out.write_bytes(b"old")
    bad = tmp_path / "bad.json"
    bad.write_text('{"chance": [1, 2], "p": [0.5, 0.6]}')
    done = pacman_ai("tree", str(bad), "--draw", str(out), cwd=tmp_path)
    assert done.returncode == 2 and "probabilities sum to 1.1" in done.stderr
    assert out.read_bytes() == b"old"


def test_a_tree_too_large_to_draw_is_refused_by_name(tmp_path):
    big = tmp_path / "big.json"
    big.write_text('{"max": [' + ",".join(["1"] * MAX_DRAWN_NODES) + "]}")
    done = pacman_ai("tree", str(big), "--draw", str(tmp_path / "big.svg"), cwd=tmp_path)
    assert done.returncode == 2 and "big.json" in done.stderr and "nodes to draw" in done.stderr
    assert not (tmp_path / "big.svg").exists()
    # A depth cut leaves few nodes to draw: then it is drawn.
    big.write_text('{"max": [{"value": 3, "max": [' + ",".join(["1"] * MAX_DRAWN_NODES) + "]}]}")
    assert pacman_ai("tree", str(big), "--depth", "1", "--draw", str(tmp_path / "big.svg"),
                     cwd=tmp_path).returncode == 0


# -- the layout, over many shapes -----------------------------------------------------------


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("seed", [0, 1])
def test_nothing_overlaps_on_trees_of_many_shapes(shape, seed):
    tree = parse_tree(random_tree(shape, seed))
    figure, result = tree_figure(tree)
    assert overlapping(figure) == []
    for node in figure.nodes:  # inside the picture, and each value inside its own shape's box
        assert 0 <= node.box.x and node.box.right <= figure.width and 0 <= node.box.y
        assert node.box.bottom <= figure.height
        v = node.value.box
        assert node.box.x <= v.x and v.right <= node.box.right and node.box.y <= v.y and v.bottom <= node.box.bottom
    for text in figure.texts:
        assert 0 <= text.box.x and text.box.right <= figure.width and text.box.bottom <= figure.height
    # Every node is drawn (exactly once, or once per part of a node whose children are split in parts).
    drawn = {node.ident for node in figure.nodes}
    assert drawn == set(range(len(drawn)))
    assert len(drawn) == sum(1 for _ in _preorder(tree))
    # The root's value is the search's, to the last digit shown.
    assert figure.nodes[0].value.text == format_value(result.value)
    # Blocks stay within the width where they can (a star's parts, a binary tree's continuations).
    assert figure.width <= 1600 + 2 * 16 + 1


def _preorder(tree):
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


@pytest.mark.parametrize("shape", ["binary-8", "star-399", "bushy-random"])
def test_every_value_in_the_search_matches_the_drawing(shape):
    tree = parse_tree(random_tree(shape, 3))
    drawing, result = explicit_tree(tree)
    assert result.value == solve_tree(tree).value
    searcher = Searcher(TreeGame(tree))
    stack = [(drawing, tree)]
    while stack:
        drawn, node = stack.pop()
        assert drawn.value == format_value(searcher.value(node))
        stack.extend(zip(drawn.children, node.children))


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_depth_cuts_are_dashed_with_their_heuristic(depth):
    data = random_tree("ternary-5", 7)

    def give_values(node):  # every inner node gets a heuristic, so any depth may cut
        if isinstance(node, dict):
            for kind in ("max", "min", "chance"):
                for child in node.get(kind, []):
                    give_values(child)
            if any(kind in node for kind in ("max", "min", "chance")):
                node.setdefault("value", 1.5)

    give_values(data)
    tree = parse_tree(data)
    figure, result = tree_figure(tree, depth)
    assert result.value == solve_tree(tree, depth).value
    cut = [n for n in figure.nodes if n.node.cut]
    assert cut and all(n.node.value.startswith("h=") for n in cut)
    assert max(n.box.y for n in figure.nodes) <= max(n.box.y for n in cut)  # nothing drawn below a cut
    assert overlapping(figure) == []


def test_svg_and_png_come_from_one_layout(tmp_path):
    tree = parse_tree(random_tree("quaternary-4", 2))
    figure, _ = tree_figure(tree)
    write_figure(figure, tmp_path / "t.svg")
    write_figure(figure, tmp_path / "t.png")
    root = ET.parse(tmp_path / "t.svg").getroot()
    with Image.open(tmp_path / "t.png") as image:
        width, height = image.size
        assert (width, height) == image_size(figure)
        # Every node's centre is painted (not background white) in the PNG where the SVG puts it.
        scale = width / figure.width
        pixels = image.convert("RGB").load()
        for node in figure.nodes[:50]:
            x = (node.box.x + node.box.w / 2) * scale
            y = (node.box.y + node.box.h * (0.8 if node.node.kind == "max" else 0.2 if node.node.kind == "min" else 0.5)) * scale
            assert pixels[int(x), int(y)] != (255, 255, 255) or node.node.kind == "leaf"
    assert float(root.get("height")) == pytest.approx(figure.height, abs=0.01)
    assert figure_svg(figure) == (tmp_path / "t.svg").read_text(encoding="utf-8")


def test_drawing_loads_no_pygame():
    code = ("import sys, pacman.draw, pacman.draw.svg, pacman.draw.raster, pacman.draw.trees, pacman.cli.tree; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pygame'))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "[]"


@pytest.mark.parametrize("p,text", [(0.5, "1/2"), (1 / 3, "1/3"), (0.16666666666666666, "1/6"), (1.0, "1"),
                                    (0.0, "0"), (0.27, "0.27"), (0.25, "1/4"), (1e-5, "1.0e-05")])
def test_probabilities_are_written_as_small_fractions_when_they_are_one(p, text):
    assert format_probability(p) == text


@pytest.mark.parametrize("value,compact,text", [(54.5, False, "54.5"), (10.0, False, "10"), (10 / 3, False, "3.33"),
                                                (-0.001, False, "0"), (-4638.5, False, "-4638.5"),
                                                (-4638.5, True, "-4638"), (99.5, True, "99.5"),
                                                (math.inf, False, "inf"), (2.5e12, False, "2.5e+12")])
def test_values_are_written_short(value, compact, text):
    assert format_value(value, compact=compact) == text
