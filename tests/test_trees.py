"""Explicit game trees: the JSON format, its errors, and solving with and without pruning."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pacman.agents.search import CHANCE, MAX, MIN, TERMINAL, Searcher
from pacman.agents.trees import (
    MAX_TREE_DEPTH,
    TreeGame,
    TreeNode,
    format_tree_result,
    load_tree,
    parse_tree,
    solve_tree,
    tree_report,
)
from pacman.errors import PacmanError, TreeError

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "trees"

MAX_OF_CHANCES = {"max": [{"chance": [10, 10]}, {"chance": [9, 100]}]}
WEIGHTED_CHANCE = {"chance": [8, 24, -12], "p": [0.5, 0.3333333333333333, 0.16666666666666666]}


def solve(data, depth=None, prune=False):
    return solve_tree(parse_tree(data), depth, prune)


# -- an independent solver over the raw JSON data -------------------------------------------


def _kind(data):
    if not isinstance(data, dict):
        return None
    for kind in ("max", "min", "chance"):
        if kind in data:
            return kind
    return None


def textbook_value(data, depth=math.inf):
    """A tree's value by the book, straight from its JSON: plain recursion, no pruning."""
    kind = _kind(data)
    if kind is None:
        return float(data["value"] if isinstance(data, dict) else data)
    if depth <= 0:
        return float(data["value"])
    values = [textbook_value(child, depth - 1) for child in data[kind]]
    if kind == "max":
        return max(values)
    if kind == "min":
        return min(values)
    probabilities = data.get("p", [1.0 / len(values)] * len(values))
    weight = math.fsum(probabilities)  # the format rescales probabilities to sum to 1
    if weight != 1.0:
        probabilities = [p / weight for p in probabilities]
    total = 0.0
    for p, v in zip(probabilities, values):
        total += p * v
    return total


def textbook_action(data, depth=math.inf):
    """The root's first best action by `textbook_value` (None below a chance root or at depth 0)."""
    kind = _kind(data)
    if kind not in ("max", "min") or depth <= 0:
        return None
    children = data[kind]
    values = [textbook_value(child, depth - 1) for child in children]
    best = max(values) if kind == "max" else min(values)
    index = values.index(best)  # the first best
    child = children[index]
    if isinstance(child, dict) and "action" in child:
        return child["action"]
    return str(index)


# -- the literature examples and the shipped files ----------------------------------------------


def test_max_of_chances():
    result = solve(MAX_OF_CHANCES)
    assert result.value == 54.5
    assert result.action == "1"
    assert result.action_values == {"0": 10.0, "1": 54.5}
    assert result.complete


def test_weighted_chance():
    assert math.fsum(WEIGHTED_CHANCE["p"]) == pytest.approx(1.0, abs=1e-9)
    result = solve(WEIGHTED_CHANCE)
    assert result.value == 10.0  # exactly, in floating point too
    assert result.action is None


@pytest.mark.parametrize(
    "name, value, action",
    [
        ("expectimax-max-of-chances.json", 54.5, "right"),
        ("expectimax-weighted-chance.json", 10.0, None),
        ("minimax-classic.json", 8.0, "0"),
        ("depth-limited.json", 7.0, "cautious"),
        ("minimax-max-of-mins.json", 10.0, "left"),
    ],
)
@pytest.mark.parametrize("prune", [False, True])
def test_example_files(name, value, action, prune):
    root = load_tree(EXAMPLES / name)
    result = solve_tree(root, prune=prune)
    assert result.value == pytest.approx(value, abs=1e-12)
    assert result.action == action
    assert tree_report(result) == {"value": pytest.approx(value, abs=1e-12), "action": action}
    data = json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
    assert result.value == pytest.approx(textbook_value(data), abs=1e-12)
    assert result.action == textbook_action(data)


def test_every_example_file_is_tested():
    assert {path.name for path in EXAMPLES.glob("*.json")} == {
        "expectimax-max-of-chances.json",
        "expectimax-weighted-chance.json",
        "minimax-classic.json",
        "depth-limited.json",
        "minimax-max-of-mins.json",
    }


@pytest.mark.parametrize(
    "depth, value, action",
    [(0, 6.0, None), (1, 5.0, "cautious"), (2, 6.0, "bold"), (3, 7.0, "cautious"), (4, 7.0, "cautious"),
     (None, 7.0, "cautious")],
)
@pytest.mark.parametrize("prune", [False, True])
def test_depth_limited_file(depth, value, action, prune):
    result = solve_tree(load_tree(EXAMPLES / "depth-limited.json"), depth, prune)
    assert (result.value, result.action) == (value, action)
    assert result.complete == (depth is None or depth >= 3)


def test_report_and_text():
    result = solve(MAX_OF_CHANCES)
    report = tree_report(result)
    assert report == {"value": 54.5, "action": "1"}
    assert isinstance(report["value"], float)
    assert json.loads(json.dumps(report)) == report
    assert format_tree_result(result) == "value: 54.5\naction: 1"
    chance = tree_report(solve(WEIGHTED_CHANCE))
    assert chance["action"] is None
    assert json.dumps({"value": 1.0, "action": None}) == '{"value": 1.0, "action": null}'


# -- semantics --------------------------------------------------------------------------------


def test_minimax_three_levels():
    data = {"max": [
        {"min": [{"max": [3, 12]}, {"max": [8, 2]}]},
        {"min": [{"max": [2, 4]}, {"max": [6, 14]}]},
        {"min": [{"max": [14, 5]}, {"max": [2, 1]}]},
    ]}
    result = solve(data)
    assert (result.value, result.action) == (8.0, "0")
    assert result.action_values == {"0": 8.0, "1": 4.0, "2": 2.0}


def test_min_root():
    result = solve({"min": [{"value": 4, "action": "a"}, {"action": "b", "max": [1, 3]}, 3]})
    assert (result.value, result.action) == (3.0, "b")


def test_default_labels_and_explicit_labels():
    root = parse_tree({"max": [1, {"value": 2, "action": "up"}, {"min": [3], "name": "third"}]})
    assert root.actions == ("0", "up", "2")
    assert [child.label for child in root.children] == ["0", "up", "2"]
    assert root.children[2].name == "third"
    assert TreeGame(root).actions(root) == ("0", "up", "2")


def test_first_best_action_on_ties():
    assert solve({"max": [1, 5, 5, 2]}).action == "1"
    assert solve({"min": [3, 0, 7, 0]}).action == "1"
    assert solve({"max": [{"chance": [4, 6]}, 5, {"value": 5}]}).action == "0"
    for prune in (False, True):
        assert solve({"max": [{"max": [2, 5]}, {"min": [5, 9]}, 5]}, prune=prune).action == "0"


def test_chance_root_has_no_action():
    result = solve({"chance": [1, 3]})
    assert (result.value, result.action) == (2.0, None)


def test_leaf_roots():
    for data in (7, 7.0, {"value": 7}, {"value": 7, "name": "just a leaf"}):
        result = solve(data)
        assert (result.value, result.action) == (7.0, None)
        assert result.complete
        assert solve(data, depth=0).value == 7.0


def test_uniform_chance_by_default():
    assert solve({"chance": [0, 3, 6, 9]}).value == pytest.approx(4.5)
    root = parse_tree({"chance": [0, 3, 6]})
    assert root.probabilities == pytest.approx((1 / 3, 1 / 3, 1 / 3))


def test_depth_cut_uses_heuristics():
    data = {"max": [
        {"value": 5, "chance": [{"value": 1, "max": [0, 100]}, 3]},
        {"value": 4, "min": [10, 20]},
    ], "value": -1}
    assert (solve(data, 0).value, solve(data, 0).action) == (-1.0, None)
    assert (solve(data, 1).value, solve(data, 1).action) == (5.0, "0")
    assert (solve(data, 2).value, solve(data, 2).action) == (10.0, "1")   # chance: (1 + 3) / 2 = 2
    assert (solve(data, 3).value, solve(data, 3).action) == (51.5, "0")   # chance: (100 + 3) / 2
    assert solve(data).value == 51.5
    assert not solve(data, 2).complete and solve(data, 3).complete


def test_depth_counts_edges_of_every_kind():
    # A chain chance -> min -> max -> leaf is three edges deep.
    data = {"chance": [{"value": 2, "min": [{"value": 3, "max": [4]}]}], "value": 1}
    assert [solve(data, depth).value for depth in (0, 1, 2, 3, 4)] == [1.0, 2.0, 3.0, 4.0, 4.0]


def test_depth_cut_without_heuristic_is_an_error():
    data = {"max": [{"value": 1, "min": [2]}, {"min": [{"max": [3]}, 4]}]}
    assert solve(data).value == 3.0
    assert solve(data, 3).value == 3.0
    for prune in (False, True):
        with pytest.raises(TreeError, match=r'\$\.max\[1\]\.min\[0\]: depth limit reached at an inner node '
                                            r'with no "value" heuristic'):
            solve(data, 2, prune)
        with pytest.raises(TreeError, match=r"<tree>: \$\.max\[1\]: depth limit reached"):
            solve(data, 1, prune)
        with pytest.raises(TreeError, match=r"\$: depth limit reached"):
            solve(data, 0, prune)


def test_depth_cut_error_from_evaluate_during_search():
    # Searching through the game directly (no pre-check) raises the same error from evaluate().
    root = parse_tree({"max": [{"min": [1]}]}, source="x.json")
    with pytest.raises(TreeError, match=r"^x\.json: \$\.max\[0\]: depth limit reached"):
        Searcher(TreeGame(root)).search(root, 1)


def test_depth_cut_error_names_the_file(tmp_path):
    path = tmp_path / "cut.json"
    path.write_text('{"max": [{"min": [1, 2]}]}', encoding="utf-8")
    with pytest.raises(TreeError, match=r"cut\.json: \$\.max\[0\]: depth limit reached"):
        solve_tree(load_tree(path), 1)


@pytest.mark.parametrize("depth", [-1, 1.5, True, "2", math.nan])
def test_bad_depth(depth):
    with pytest.raises(TreeError, match="depth"):
        solve(MAX_OF_CHANCES, depth)


def test_depth_inf_and_large_depth():
    assert solve(MAX_OF_CHANCES, math.inf).value == 54.5
    assert solve(MAX_OF_CHANCES, 10**6).value == 54.5


def test_parsed_node_shape():
    root = parse_tree({"name": "root", "value": 2, "max": [
        {"action": "a", "chance": [1, {"value": -4}], "p": [0.25, 0.75]},
        {"action": "b", "min": [9]},
    ]})
    assert isinstance(root, TreeNode)
    assert (root.kind, root.name, root.value, root.height, root.path) == (MAX, "root", 2.0, 2, "$")
    chance, low = root.children
    assert (chance.kind, chance.label, chance.probabilities, chance.path) == (CHANCE, "a", (0.25, 0.75), "$.max[0]")
    assert chance.value is None
    assert chance.children[1].kind == TERMINAL and chance.children[1].value == -4.0
    assert chance.children[1].path == "$.max[0].chance[1]"
    assert low.kind == MIN and low.children[0].path == "$.max[1].min[0]"
    assert TreeGame(root).bounds == (-4.0, 9.0)
    assert TreeGame(root).outcomes(chance) == ((0.25, chance.children[0]), (0.75, chance.children[1]))
    with pytest.raises(AttributeError):
        root.value = 3  # immutable
    assert "max" in repr(root)


def test_bounds_include_heuristics():
    root = parse_tree({"value": 50, "max": [{"value": -20, "min": [1, 2]}, 3]})
    assert TreeGame(root).bounds == (-20.0, 50.0)
    game = TreeGame(root)
    assert game.cost(root) == 1 and game.key(root) is None


def test_integers_and_floats_are_both_numbers():
    assert solve({"max": [1, 2.5, -3e2]}).value == 2.5


# -- errors -----------------------------------------------------------------------------------


BAD_TREES = [
    # (data, the expected start of the message after "<tree>: ")
    ({"max": [1, {"chance": [1, 2], "p": [0.5, 0.4]}]},
     "$.max[1].chance: probabilities sum to 0.9, expected 1 (within 1e-9)"),
    ({"max": [{"avg": [1, 2]}]},
     "$.max[0]: unknown node kind 'avg' (expected max, min, chance, or a leaf number / {\"value\": n})"),
    ({"chance": [1, 2], "p": [0.2, 0.3, 0.5]}, "$.chance.p: 3 probabilities for 2 children"),
    ({"chance": [1, 2], "p": [1.0]}, "$.chance.p: 1 probability for 2 children"),
    ({"chance": [1], "p": [0.5, 0.5]}, "$.chance.p: 2 probabilities for 1 child"),
    ({"max": []}, "$.max: empty child list"),
    ({"max": [1, {"min": []}]}, "$.max[1].min: empty child list"),
    ({"chance": [], "p": []}, "$.chance: empty child list"),
    ({"min": [1, 2, "abc"]}, "$.min[2]: value 'abc' is not a number"),
    ({"min": [1, {"value": "abc"}]}, "$.min[1].value: value 'abc' is not a number"),
    ({"max": [True]}, "$.max[0]: value true is not a number"),
    ({"max": [{"value": False}]}, "$.max[0].value: value false is not a number"),
    ({"max": [None]}, "$.max[0]: value null is not a number"),
    (True, "$: value true is not a number"),
    ("7", "$: value '7' is not a number"),
    ({"max": [math.nan]}, "$.max[0]: value NaN is not a finite number"),
    ({"max": [1, {"min": [math.inf]}]}, "$.max[1].min[0]: value Infinity is not a finite number"),
    ({"max": [-math.inf]}, "$.max[0]: value -Infinity is not a finite number"),
    ({"max": [10**400]}, "$.max[0]: value 1000"),
    ({"max": [1], "min": [2]}, "$: more than one node kind (max, min)"),
    ({"max": [{"chance": [1], "min": [2], "max": [3]}]}, "$.max[0]: more than one node kind (max, min, chance)"),
    ({"max": [1], "foo": 2}, "$: unknown key 'foo' in a max node"),
    ({"chance": [1], "p": [1], "weights": [1]}, "$: unknown key 'weights' in a chance node"),
    ({"value": 3, "children": [1]}, "$: unknown key 'children' in a leaf"),
    ({"max": [{"value": 3, "avg": [1]}]}, "$.max[0]: unknown key 'avg' in a leaf"),
    ({"value": 3, "p": [1]}, "$: 'p' is only allowed on a chance node, not on a leaf"),
    ({"max": [1], "p": [1]}, "$: 'p' is only allowed on a chance node, not on a max node"),
    ({}, "$: object has no node kind"),
    ({"max": [{"name": "x"}]}, "$.max[0]: object has no node kind"),
    ([1, 2], "$: a list is not a node"),
    ({"max": 5}, "$.max: expected a list of children, got 5"),
    ({"min": {"a": 1}}, "$.min: expected a list of children, got an object"),
    ({"chance": [1, 2], "p": "x"}, "$.chance.p: expected a list of probabilities, got 'x'"),
    ({"chance": [1, 2], "p": [0.5, -0.5]}, "$.chance.p[1]: probability -0.5 is negative"),
    ({"chance": [1, 2], "p": [1.5, -0.5]}, "$.chance.p[1]: probability -0.5 is negative"),
    ({"chance": [1, 2], "p": [0.5, True]}, "$.chance.p[1]: probability true is not a number"),
    ({"chance": [1, 2], "p": [0.5, "0.5"]}, "$.chance.p[1]: probability '0.5' is not a number"),
    ({"chance": [1, 2], "p": [math.nan, 0.5]}, "$.chance.p[0]: probability NaN is not a finite number"),
    ({"chance": [1, 2], "p": [0.5, 0.5 + 2e-9]}, "$.chance: probabilities sum to 1.000000002, expected 1"),
    ({"max": [{"chance": [1, 2], "p": [0.7, 0.7]}]}, "$.max[0].chance: probabilities sum to 1.4, expected 1"),
    ({"max": [{"action": "a", "value": 1}, {"action": "a", "value": 2}]},
     "$.max[1]: duplicate action 'a' (also the label of $.max[0])"),
    ({"max": [{"action": "1", "value": 1}, 2]}, "$.max[1]: duplicate action '1'"),
    ({"max": [{"action": 3, "value": 1}]}, "$.max[0].action: action 3 is not a string"),
    ({"action": 5, "max": [1, 2]}, "$.action: action 5 is not a string"),  # the root's labels nothing, still a string
    ({"action": ["up"], "value": 1}, '$.action: action ["up"] is not a string'),
    ({"max": [{"name": 3, "value": 1}]}, "$.max[0].name: name 3 is not a string"),
    ({"max": [1], "value": "x"}, "$.value: value 'x' is not a number"),
    ({"max": [1], "value": None}, "$.value: value null is not a number"),
    ({"max": [1, {"min": [2, {"chance": [3, {"max": ["deep"]}]}]}]},
     "$.max[1].min[1].chance[1].max[0]: value 'deep' is not a number"),
]


@pytest.mark.parametrize("data, message", BAD_TREES, ids=[m.split(":")[0] + " " + m.split(": ")[1][:30]
                                                         for _, m in BAD_TREES])
def test_bad_trees(data, message):
    with pytest.raises(TreeError) as info:
        parse_tree(data)
    text = str(info.value)
    assert text.startswith("<tree>: " + message), text
    assert "\n" not in text
    assert isinstance(info.value, PacmanError) and isinstance(info.value, ValueError)


def test_probabilities_within_tolerance_are_accepted():
    assert solve({"chance": [0, 1], "p": [0.5, 0.5 + 5e-10]}).value == pytest.approx(0.5)
    assert solve({"chance": [0, 1], "p": [0.5, 0.5 - 9e-10]}).value == pytest.approx(0.5)
    assert solve({"chance": [0, 1], "p": [0.3, 0.7]}).value == pytest.approx(0.7)
    assert solve({"chance": [0, 1, 2], "p": [1, 0, 0]}).value == 0.0  # integers and zeros are fine


def test_the_first_error_in_document_order_is_reported():
    data = {"max": [{"min": []}, {"avg": [1]}]}
    with pytest.raises(TreeError, match=r"\$\.max\[0\]\.min: empty child list"):
        parse_tree(data)


def test_source_prefix():
    with pytest.raises(TreeError, match=r"^my-tree: \$\.max: empty child list$"):
        parse_tree({"max": []}, source="my-tree")


# -- files ------------------------------------------------------------------------------------


def write(tmp_path, text, name="tree.json"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_load_tree_invalid_json(tmp_path):
    path = write(tmp_path, '{\n  "max": [1,\n    2,,\n  ]\n}')
    with pytest.raises(TreeError) as info:
        load_tree(path)
    assert str(info.value) == f"{path}: invalid JSON at line 3 column 7: Expecting value"


@pytest.mark.parametrize("text", ["", "   ", "[1", '{"max": [1]', "{max: [1]}"])
def test_load_tree_other_invalid_json(tmp_path, text):
    path = write(tmp_path, text)
    with pytest.raises(TreeError, match=r"tree\.json: invalid JSON at line \d+ column \d+: "):
        load_tree(path)


def test_load_tree_bad_tree_names_the_file(tmp_path):
    path = write(tmp_path, '{"max": [1, {"chance": [1, 2], "p": [0.5, 0.4]}]}')
    with pytest.raises(TreeError) as info:
        load_tree(path)
    assert str(info.value) == f"{path}: $.max[1].chance: probabilities sum to 0.9, expected 1 (within 1e-9)"


@pytest.mark.parametrize("literal, shown", [("NaN", "NaN"), ("Infinity", "Infinity"), ("-Infinity", "-Infinity"),
                                            ("1e999", "Infinity")])
def test_load_tree_non_finite(tmp_path, literal, shown):
    path = write(tmp_path, '{"max": [1, %s]}' % literal)
    with pytest.raises(TreeError, match=rf"\$\.max\[1\]: value {shown} is not a finite number"):
        load_tree(path)


def test_load_tree_unreadable(tmp_path):
    with pytest.raises(TreeError, match=r"missing\.json: cannot read"):
        load_tree(tmp_path / "missing.json")
    with pytest.raises(TreeError, match="is a directory, not a regular file"):
        load_tree(tmp_path)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe{")
    with pytest.raises(TreeError, match=r"binary\.json: not UTF-8"):
        load_tree(binary)


def test_load_tree_accepts_str_paths():
    root = load_tree(str(EXAMPLES / "minimax-classic.json"))
    assert root.source.endswith("minimax-classic.json")


# -- deep trees -------------------------------------------------------------------------------


def chain(levels, leaf=1):
    data = leaf
    for i in range(levels):
        data = {("max", "min", "chance")[i % 3]: [data]}
    return data


@pytest.mark.parametrize("prune", [False, True])
def test_deepest_allowed_chain_solves(prune):
    root = parse_tree(chain(MAX_TREE_DEPTH, leaf=4))
    assert root.height == MAX_TREE_DEPTH
    result = solve_tree(root, prune=prune)
    assert result.value == 4.0
    assert result.nodes == MAX_TREE_DEPTH + 1


@pytest.mark.parametrize("levels", [MAX_TREE_DEPTH + 1, 5000])
def test_too_deep_data(levels):
    with pytest.raises(TreeError, match="tree is too deep"):
        parse_tree(chain(levels))


def test_self_referencing_data_is_too_deep():
    data = {"max": [1]}
    data["max"].append(data)
    with pytest.raises(TreeError, match="tree is too deep"):
        parse_tree(data)


@pytest.mark.parametrize("levels, ok", [(MAX_TREE_DEPTH, True), (MAX_TREE_DEPTH + 1, False), (5000, False),
                                        (100_000, False)])
def test_deep_files(tmp_path, levels, ok):
    path = write(tmp_path, '{"max": [' * levels + '{"value": 2}' + "]}" * levels)
    if ok:
        assert solve_tree(load_tree(path), prune=True).value == 2.0
    else:
        with pytest.raises(TreeError, match=r"tree\.json: tree is too deep"):
            load_tree(path)


def test_wide_tree():
    data = {"chance": [{"max": list(range(i, i + 50))} for i in range(200)]}
    result = solve(data, prune=True)
    assert result.value == pytest.approx(sum(i + 49 for i in range(200)) / 200)


# -- pruning ----------------------------------------------------------------------------------


def test_star1_cuts_a_chance_node():
    # Inside the (only) root child, the first chance node is worth 10 = the upper bound, so the
    # second one is searched with alpha = 10: after its first outcome (0, probability 1/2) it can
    # be worth at most 0/2 + 10/2 = 5 < 10, and its second leaf is never visited.
    data = {"max": [{"max": [{"chance": [10, 10]}, {"chance": [0, 5]}]}]}
    plain = solve(data, prune=False)
    pruned = solve(data, prune=True)
    assert (plain.value, plain.action) == (pruned.value, pruned.action) == (10.0, "0")
    assert plain.nodes == 8
    assert pruned.nodes == 7


def test_alpha_beta_cuts_under_the_root():
    data = {"max": [{"max": [{"min": [5, 6]}, {"min": [1, 9, 9, 9]}]}]}
    plain = solve(data, prune=False)
    pruned = solve(data, prune=True)
    assert plain.value == pruned.value == 5.0
    assert pruned.nodes == plain.nodes - 3


def test_bounds_cover_rounded_chance_averages():
    # These probabilities sum to exactly 1, yet the average of three 3s rounds to
    # 3.0000000000000004. With bounds (-3, 3), alpha-beta would clamp a window to 3,
    # return 3 for the inner max node, and the pruned search would pick action "0".
    p = [0.1111111111111111, 0.7777777777777778, 0.11111111111111116]
    data = {"max": [0, {"min": [1, {"chance": [{"max": [3, {"chance": [3, 3, 3], "p": p}]}, -3]}]}]}
    root = parse_tree(data)
    low, high = TreeGame(root).bounds
    assert low == -3.0 and high > 3.0
    plain = solve_tree(root, prune=False)
    pruned = solve_tree(root, prune=True)
    assert plain.value == pruned.value == textbook_value(data) > 0.0
    assert plain.action == pruned.action == textbook_action(data) == "1"


def test_probabilities_are_rescaled_to_sum_to_one():
    root = parse_tree({"chance": [10, 10], "p": [0.5, 0.5 + 9e-10]})
    assert math.fsum(root.probabilities) == pytest.approx(1.0, abs=1e-15)
    assert root.probabilities[0] == pytest.approx(0.5 - 4.5e-10, abs=1e-15)
    assert solve_tree(root).value == pytest.approx(10.0, abs=1e-13)
    assert TreeGame(root).bounds[1] >= solve_tree(root).value
    # Probabilities whose exact sum rounds to 1 are kept as written.
    p = [0.5, 0.3333333333333333, 0.16666666666666666]
    assert parse_tree({"chance": [1, 2, 3], "p": p}).probabilities == tuple(p)


def test_pruning_is_exact_with_probabilities_off_by_rounding():
    # These probabilities sum to 1 + 2.06e-10 (accepted). Used as written, Star1's
    # "probability still to come" (1 minus those seen) would be off by that much,
    # and the pruned search returned -1.000000000041695 here instead of -1.
    data = {"max": [{"min": [-1, {"chance": [{"max": [0, 0.1]}, -2],
                                  "p": [0.5000000001854514, 0.5000000000208475]}]}]}
    plain = solve(data, prune=False)
    pruned = solve(data, prune=True)
    assert plain.value == pruned.value == -1.0
    assert pruned.nodes < plain.nodes


def test_pruning_never_costs_nodes_on_the_examples():
    for path in EXAMPLES.glob("*.json"):
        root = load_tree(path)
        assert solve_tree(root, prune=True).nodes <= solve_tree(root, prune=False).nodes


# -- random trees: pruned, unpruned and the textbook solver agree ----------------------------------


def _probabilities(weights):
    """Normalise integer weights; the last probability makes the sum 1 within the tolerance."""
    total = sum(weights)
    probabilities = [w / total for w in weights[:-1]]
    probabilities.append(max(0.0, 1.0 - math.fsum(probabilities)))
    assert abs(math.fsum(probabilities) - 1.0) <= 1e-9
    return probabilities


leaf_values = st.one_of(
    st.integers(-5, 5),
    st.floats(-100, 100, allow_nan=False, allow_infinity=False),
)
leaves = st.one_of(leaf_values, leaf_values.map(lambda v: {"value": v}))


@st.composite
def inner_nodes(draw, children):
    kind = draw(st.sampled_from(["max", "min", "chance"]))
    kids = draw(st.lists(children, min_size=1, max_size=4))
    node = {kind: kids, "value": draw(st.integers(-5, 5))}
    if kind == "chance" and draw(st.booleans()):
        weights = draw(st.lists(st.integers(0, 6), min_size=len(kids), max_size=len(kids)))
        if sum(weights) == 0:
            weights[0] = 1
        probabilities = _probabilities(weights)
        # Sometimes off by up to 5e-10 in total, as hand-written decimals may be (accepted, rescaled).
        offset = draw(st.sampled_from([0.0, 0.0, 5e-10, -5e-10]))
        first = next(i for i, w in enumerate(weights) if w > 0)
        probabilities[first] = max(0.0, probabilities[first] + offset)
        node["p"] = probabilities
    return node


trees = st.recursive(leaves, inner_nodes, max_leaves=40)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees, st.sampled_from([None, 0, 1, 2, 3]))
def test_random_trees_pruned_unpruned_textbook_agree(data, depth):
    root = parse_tree(data)
    plain = solve_tree(root, depth, prune=False)
    pruned = solve_tree(root, depth, prune=True)
    expected = textbook_value(data, math.inf if depth is None else depth)
    assert plain.value == pytest.approx(expected, abs=1e-9)
    assert pruned.value == pytest.approx(plain.value, abs=1e-9)
    assert plain.action == textbook_action(data, math.inf if depth is None else depth)
    assert pruned.action == plain.action
    assert pruned.nodes <= plain.nodes
    assert set(pruned.action_values) == set(plain.action_values)
    for label, value in plain.action_values.items():
        assert pruned.action_values[label] == pytest.approx(value, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(trees)
def test_random_trees_round_trip_through_files(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("trees") / "random.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert solve_tree(load_tree(path)).value == pytest.approx(textbook_value(data), abs=1e-9)


# -- hostile files through `pacman-ai tree`, as a user runs it ------------------------------------


def _tree_cli(tmp_path, *args, timeout=60):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "pacman", "tree", *args], cwd=tmp_path, capture_output=True,
                          text=True, timeout=timeout)


def _hostile(tmp_path, name, content):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return name


@pytest.mark.parametrize("name, content, message", [
    ("deep.json", '{"max": [' * 100_000 + "1" + "]}" * 100_000,
     "deep.json: tree is too deep (more than 1000 levels below the root)"),
    ("deep-list.json", "[" * 100_000 + "]" * 100_000, "deep-list.json: tree is too deep"),
    ("binary.json", b"\x00\x01\xff\xfe garbage", "binary.json: not UTF-8 text (byte 2)"),
    ("latin1.json", '{"max": [1, 2], "name": "caf\xe9"}'.encode("latin-1"), "latin1.json: not UTF-8 text"),
    ("empty.json", "", "empty.json: invalid JSON at line 1 column 1"),
    ("duplicate.json", '{"max": [1, 2], "max": [3]}', "duplicate.json: an object has the key 'max' twice"),
    ("digits.json", '{"max": [' + "9" * 5000 + "]}", "digits.json: invalid JSON: Exceeds the limit"),
    ("long.json", '{"max": [' + "9" * 400 + "]}", "long.json: $.max[0]: value 99999"),
    ("nan.json", '{"max": [NaN, 1]}', "nan.json: $.max[0]: value NaN is not a finite number"),
    ("inf.json", '{"max": [1, -Infinity]}', "inf.json: $.max[1]: value -Infinity is not a finite number"),
    ("overflow.json", '{"max": [1e999]}', "overflow.json: $.max[0]: value Infinity is not a finite number"),
    ("pnan.json", '{"chance": [1, 2], "p": [NaN, 0.5]}',
     "pnan.json: $.chance.p[0]: probability NaN is not a finite number"),
    ("pinf.json", '{"chance": [1, 2], "p": [Infinity, 0.5]}',
     "pinf.json: $.chance.p[0]: probability Infinity is not a finite number"),
    ("pstr.json", '{"chance": [1, 2], "p": ["0.5", "0.5"]}',
     "pstr.json: $.chance.p[0]: probability '0.5' is not a number"),
    ("pbool.json", '{"chance": [1, 2], "p": [true, false]}',
     "pbool.json: $.chance.p[0]: probability true is not a number"),
    ("vstr.json", '{"max": ["3"]}', "vstr.json: $.max[0]: value '3' is not a number"),
    ("wide.json", json.dumps({"max": [{"max": list(range(1000))} for _ in range(300)]}),
     "wide.json: tree has more than 200,000 nodes (the limit)"),
], ids=lambda value: value if isinstance(value, str) and value.endswith(".json") else "")
# (ids are the file names: pytest puts the test id in PYTEST_CURRENT_TEST, and a megabyte id is too long an environment)
def test_hostile_tree_files_are_one_line_errors(tmp_path, name, content, message):
    done = _tree_cli(tmp_path, _hostile(tmp_path, name, content))
    assert done.returncode == 2 and done.stdout == ""
    assert message in done.stderr and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr


def test_a_bom_is_allowed(tmp_path):
    done = _tree_cli(tmp_path, _hostile(tmp_path, "bom.json", b'\xef\xbb\xbf{"max": [1, 2]}'))
    assert done.returncode == 0 and done.stdout == "value: 2\naction: 1\n", done.stderr


@pytest.mark.parametrize("special", ["fifo", "/dev/zero", "/dev/null", "."])
def test_special_files_are_refused_without_reading(tmp_path, special):
    import os

    if special == "fifo":
        os.mkfifo(tmp_path / "fifo")
    done = _tree_cli(tmp_path, special, timeout=30)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    kind = {"fifo": "a FIFO", "/dev/zero": "a character device", "/dev/null": "a character device",
            ".": "a directory"}[special]
    assert f"{special}: is {kind}" in done.stderr and "not a regular file" in done.stderr, done.stderr


def test_the_node_limit_is_exact():
    from pacman.agents.trees import MAX_TREE_NODES

    assert solve({"max": list(range(MAX_TREE_NODES - 1))}).value == MAX_TREE_NODES - 2
    with pytest.raises(TreeError, match="more than 200,000 nodes"):
        parse_tree({"max": list(range(MAX_TREE_NODES))})
