"""Forbidden imports: an assignment's `forbid_imports`, found in the source and refused in the sandbox.

Hostile submissions live in tests/submissions/forbidden_*.py; each reaches the
library's evaluation, search or grader in another way. The shipped assignment
forbids them all; honest submissions keep their scores.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pacman.grading import (
    AssignmentError,
    format_report,
    grade,
    gradescope_results,
    load_assignment,
    shipped_assignments,
)
from pacman.cs188.grading import ClassicFormatError, grade_course, load_course
from pacman.grading.forbidden import (
    CLASSIC_FORBIDDEN_IMPORTS,
    DEFAULT_FORBIDDEN_IMPORTS,
    check_rules,
    find_violations,
    forbidding_rule,
)

ROOT = Path(__file__).resolve().parent.parent
SUBMISSIONS = Path(__file__).resolve().parent / "submissions"
SHIPPED = load_assignment("expectimax")
TREE = SHIPPED.directory / "trees" / "one-ghost-depth1.json"
CLASSIC_COURSE = Path(__file__).resolve().parent / "classic_course"


def submission(name: str) -> str:
    return str(SUBMISSIONS / f"{name}.py")


def scores(report) -> dict[str, float]:
    return {q.id: q.score for q in report.questions}


def violations(report) -> list[tuple]:
    return [(v.check, v.line, v.module, v.rule, v.questions) for v in report.violations]


SMALL_TOML = """
[assignment]
id = "small"
submission_file = "multi_agents.py"
{forbid}

[[questions]]
id = "tree"
points = 2

[[questions.tests]]
kind = "tree"
name = "one-ghost"
tree = "one.json"
ghosts = 1
depth = 1
time_limit = 20

[[questions]]
id = "games"
points = 2

[[questions.tests]]
kind = "games"
name = "test-games"
layout = "test"
seeds = [0]
agent = "project"
evaluation = "submission"
max_moves = 40
move_time_limit = 5
game_time_limit = 30
thresholds = [{{ measure = "timeouts", at_most = 0, points = 1 }}]
"""


def small(folder: Path, forbid: str = "") -> Path:
    """An assignment of one tree (the submission's agent) and one game (the project's agent, its evaluation)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "assignment.toml").write_text(SMALL_TOML.format(forbid=forbid))
    (folder / "one.json").write_text(TREE.read_text())
    return folder


@pytest.fixture(scope="module")
def default_rules(tmp_path_factory):
    return load_assignment(small(tmp_path_factory.mktemp("small")))


# -- the rule and the static check --------------------------------------------------------------------


def test_a_rule_forbids_its_module_and_submodules_only():
    rules = ("pacman.agents", "pacman.grading")
    assert forbidding_rule("pacman.agents", rules) == "pacman.agents"
    assert forbidding_rule("pacman.agents.search", rules) == "pacman.agents"
    assert forbidding_rule("pacman.grading.states", rules) == "pacman.grading"
    assert forbidding_rule("pacman.agentsmith", rules) is None
    assert forbidding_rule("pacman", rules) is None
    assert forbidding_rule("pacman.gradingx", rules) is None


@pytest.mark.parametrize("line, module", [
    ("import pacman.agents", "pacman.agents"),
    ("import pacman.agents.expectimax as e", "pacman.agents.expectimax"),
    ("import math, pacman.agents.search", "pacman.agents.search"),
    ("from pacman.agents.evaluation import better_evaluation", "pacman.agents.evaluation"),
    ("from pacman.agents import evaluation", "pacman.agents"),
    ("from pacman import grading", "pacman.grading"),
    ("from pacman import GameState, grading as g", "pacman.grading"),
    ("from pacman.grading.states import CountingState", "pacman.grading.states"),
    ("import pacman.batch.stats", "pacman.batch.stats"),
    ("importlib.import_module('pacman.agents.search')", "pacman.agents.search"),
    ("import_module('.evaluation', 'pacman.agents')", "pacman.agents.evaluation"),
    ("importlib.import_module('.evaluation', package='pacman.agents')", "pacman.agents.evaluation"),
    ("__import__('pacman.cli')", "pacman.cli"),
    ("__import__('pacman', fromlist=['grading'])", "pacman.grading"),
    ("__import__('pacman', None, None, ['conformance'])", "pacman.conformance"),
    ("importlib.__import__('pacman.batch')", "pacman.batch"),
    ("builtins.__import__('pacman.agents')", "pacman.agents"),
    ("importlib.util.find_spec('pacman.agents.trees')", "pacman.agents.trees"),
    ("pkgutil.resolve_name('pacman.agents.evaluation:better_evaluation')", "pacman.agents.evaluation"),
    ("sys.modules['pacman.agents.evaluation']", "pacman.agents.evaluation"),
    ("sys.modules.get('pacman.agents.expectimax')", "pacman.agents.expectimax"),
    ("def f():\n    from pacman.agents.search import Searcher", "pacman.agents.search"),
])
def test_the_static_check_finds_every_spelling_of_a_forbidden_import(line, module):
    source = f"import math\n\n{line}\n"
    found = find_violations(source, "multi_agents.py", DEFAULT_FORBIDDEN_IMPORTS)
    assert [(v.line, v.module) for v in found] == [(3 + line.count("\n"), module)]
    assert found[0].check == "static"
    assert found[0].message.startswith(f"multi_agents.py line {3 + line.count(chr(10))}: imports {module}, "
                                       f"which this assignment forbids")


@pytest.mark.parametrize("source", [
    "import pacman\nfrom pacman import Action, GameState\n",
    "import pacman.distances\nfrom pacman.state import GameState\nfrom pacman.actions import Action\n",
    "from pacman import *\n",
    "from . import pacman.agents\nfrom .agents import search\n",  # relative: fails by itself, outside a package
    "importlib.import_module(name)\n__import__('agen' + 'ts')\n",  # computed: the runtime guard's
    "import agentsmith\nsys.modules['pacman.state']\n",
    "def broken(:\n    import pacman.agents\n",  # a syntax error: loading it says so
])
def test_the_static_check_leaves_allowed_computed_and_unparsable_imports(source):
    assert find_violations(source, "multi_agents.py", DEFAULT_FORBIDDEN_IMPORTS) == []


def test_the_static_check_lists_each_import_once_in_line_order():
    source = "import pacman.agents.search\nfrom pacman import grading\nimport pacman.agents.search\nimport pacman.agents.search\n"
    found = find_violations(source, "m.py", DEFAULT_FORBIDDEN_IMPORTS)
    assert [(v.line, v.module, v.rule) for v in found] == [
        (1, "pacman.agents.search", "pacman.agents"), (2, "pacman.grading", "pacman.grading"),
        (3, "pacman.agents.search", "pacman.agents"), (4, "pacman.agents.search", "pacman.agents")]
    assert found[0].message == "m.py line 1: imports pacman.agents.search, which this assignment forbids " \
                               "(forbid_imports: pacman.agents)"
    assert found[1].message == "m.py line 2: imports pacman.grading, which this assignment forbids"
    assert find_violations(source, "m.py", ()) == []


# -- the assignment key and the classic CONFIG key ---------------------------------------------------------


def test_the_shipped_assignments_forbid_the_default_list_and_an_assignment_without_the_key_too(default_rules):
    assert shipped_assignments() == ["expectimax", "multiagent"]
    for shipped in shipped_assignments():
        assert load_assignment(shipped).forbid_imports == DEFAULT_FORBIDDEN_IMPORTS, shipped
    assert default_rules.forbid_imports == DEFAULT_FORBIDDEN_IMPORTS
    assert set(DEFAULT_FORBIDDEN_IMPORTS) - set(CLASSIC_FORBIDDEN_IMPORTS) == {"pacman.cs188"}
    assert set(CLASSIC_FORBIDDEN_IMPORTS) - set(DEFAULT_FORBIDDEN_IMPORTS) == {"pacman.cs188.grading"}


def test_an_assignment_names_its_own_list_or_none(tmp_path):
    chosen = load_assignment(small(tmp_path / "a", 'forbid_imports = ["pacman.agents", "pacman.distances", "numpy"]'))
    assert chosen.forbid_imports == ("pacman.agents", "pacman.distances", "numpy")
    assert load_assignment(small(tmp_path / "b", "forbid_imports = []")).forbid_imports == ()


@pytest.mark.parametrize("value, message", [
    ('"pacman.agents"', 'assignment.forbid_imports: expected a list of module names'),
    ('["pacman.agents", 3]', "assignment.forbid_imports[1]: expected a module name (dotted Python names, e.g. "
                      "pacman.agents.evaluation), got 3"),
    ('["pacman.agents", "pacman.agents..search"]', "assignment.forbid_imports[1]: expected a module name"),
    ('["pacman.agents", "pacman grading"]', "assignment.forbid_imports[1]: expected a module name"),
    ('["pacman.agents", "pacman.agents"]', "assignment.forbid_imports[1]: 'pacman.agents' is listed twice"),
    ('["pacman"]', "assignment.forbid_imports[0]: 'pacman' cannot be forbidden: submissions need its state API"),
    ('["pacman.agents.evaluaton"]', "assignment.forbid_imports[0]: 'pacman.agents.evaluaton' is not a module of pacman-ai "
                             "(misspelt?)"),
])
def test_a_bad_forbid_imports_names_the_key_and_the_entry(tmp_path, value, message):
    with pytest.raises(AssignmentError) as caught:
        load_assignment(small(tmp_path, f"forbid_imports = {value}"))
    assert str(caught.value).startswith(f"{tmp_path / 'assignment.toml'}: {message}")


def _classic_course(tmp_path: Path, forbid: str | None) -> Path:
    course = tmp_path / "course"
    shutil.copytree(CLASSIC_COURSE, course)
    if forbid is not None:
        config = course / "test_cases" / "CONFIG"
        config.write_text(config.read_text() + f"forbid_imports: \"{forbid}\"\n")
    return course


def test_a_classic_folder_forbids_the_classic_list_by_default_or_its_own(tmp_path):
    assert load_course(CLASSIC_COURSE / "test_cases").forbid_imports == CLASSIC_FORBIDDEN_IMPORTS
    assert "pacman.cs188" not in CLASSIC_FORBIDDEN_IMPORTS and "pacman.cs188.grading" in CLASSIC_FORBIDDEN_IMPORTS
    own = _classic_course(tmp_path / "own", "pacman.agents pacman.distances")
    assert load_course(own / "test_cases").forbid_imports == ("pacman.agents", "pacman.distances")
    assert load_course(_classic_course(tmp_path / "none", "") / "test_cases").forbid_imports == ()


@pytest.mark.parametrize("value, message", [
    ("pacman.agents pacman.cs188", "'pacman.cs188' cannot be forbidden: it is (or holds) the classic API"),
    ("pacman.cs188.state", "'pacman.cs188.state' cannot be forbidden: it is (or holds) the classic API"),
    ("util", "'util' cannot be forbidden: it is (or holds) the classic API"),
    ("pacman.agents 3rd", "expected a module name"),
])
def test_a_bad_classic_forbid_imports_names_the_config_line(tmp_path, value, message):
    course = _classic_course(tmp_path, value)
    with pytest.raises(ClassicFormatError) as caught:
        load_course(course / "test_cases")
    assert f"{course / 'test_cases' / 'CONFIG'}" in str(caught.value)
    assert "forbid_imports" in str(caught.value) and message in str(caught.value)


def test_check_rules_keeps_the_order_given():
    assert check_rules(["pacman.grading", "pacman.agents"]) == ("pacman.grading", "pacman.agents")


# -- nothing allowed leads to what is forbidden ---------------------------------------------------------------


def _project_modules() -> list[str]:
    names = []
    for package, folder in (("pacman", "pacman"), ("pacman.agents", "agents")):  # agents/ installs as pacman.agents
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "assignments" in path.parts or "classic" in path.relative_to(ROOT).parts[-2:-1]:
                continue  # starter files; the classic API's top-level modules (util, game) load by their own name
            parts = [package, *path.relative_to(ROOT / folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            names.append(".".join(parts))
    return names


_LOADS = """
import json, os, sys
forbidden = {forbidden!r}
found = {{}}
for name in {names!r}:
    pid = os.fork()
    if pid == 0:
        try:
            __import__(name)
        except ImportError:  # an optional dependency missing here: nothing was loaded through it
            pass
        loaded = [m for m in sys.modules if any(m == f or m.startswith(f + ".") for f in forbidden)]
        os.write(1, (json.dumps([name, loaded]) + "\\n").encode())
        os._exit(0)
    os.waitpid(pid, 0)
"""


@pytest.mark.parametrize("forbidden", [DEFAULT_FORBIDDEN_IMPORTS, CLASSIC_FORBIDDEN_IMPORTS],
                         ids=["ours", "classic"])
def test_no_allowed_module_loads_a_forbidden_one(forbidden):
    """A module left allowed that re-exported search or grading code would be a way around the rule."""
    allowed = [m for m in _project_modules() if forbidding_rule(m, forbidden) is None]
    assert "pacman.state" in allowed and "pacman.distances" in allowed
    done = subprocess.run([sys.executable, "-c", _LOADS.format(forbidden=forbidden, names=allowed)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    results = dict(json.loads(line) for line in done.stdout.splitlines())
    assert sorted(results) == sorted(allowed), done.stderr
    assert {name: loaded for name, loaded in results.items() if loaded} == {}


def _imports_inside_functions(path: Path) -> list[tuple[int, str]]:
    """Imports inside functions; the worker's `main` is left out: it imports the classic runners, then seals."""
    found = []
    for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and not (path.name == "worker.py" and function.name == "main"):
            for node in ast.walk(function):
                if isinstance(node, ast.Import):
                    found.extend((node.lineno, alias.name) for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module:
                    found.append((node.lineno, node.module))
    return found


@pytest.mark.parametrize("module", ["pacman/grading/worker.py", "pacman/grading/states.py",
                                    "pacman/grading/forbidden.py", *[
                                        f"pacman/cs188/grading/{name}.py" for name in
                                        ("runner", "eval_agent", "pacman_tree", "graph_tree", "kinds", "format")]])
def test_the_childs_own_code_imports_forbidden_modules_at_module_level_only(module):
    """After sealing, the child refuses forbidden modules to everyone, the grader's code included."""
    late = [(line, name) for line, name in _imports_inside_functions(ROOT / module)
            if forbidding_rule(name, DEFAULT_FORBIDDEN_IMPORTS if "cs188" not in module
                               else CLASSIC_FORBIDDEN_IMPORTS)]
    assert late == []


# -- the sealed process --------------------------------------------------------------------------------------------

_SEALED = """
import importlib, json, pkgutil, sys, types
import pacman.grading.worker  # everything the grader's child loads
from pacman.grading.forbidden import DEFAULT_FORBIDDEN_IMPORTS as RULES, forbidding_rule, seal

guard = seal(RULES, "/no/such/submission.py")
out = {}
def forbidden(name):
    return isinstance(name, str) and forbidding_rule(name, RULES) is not None
out["in_sys_modules"] = sorted(m for m in sys.modules if forbidden(m))
reachable = []
for name, module in list(sys.modules.items()):
    for key, value in list(vars(module).items()) if module is not None else ():
        if isinstance(value, types.ModuleType) and forbidden(value.__name__):
            reachable.append(f"{name}.{key}")
        elif forbidden(getattr(value, "__module__", None)) and name != "__main__":
            reachable.append(f"{name}.{key}")
out["reachable"] = reachable
def attempt(label, call):
    try:
        out[label] = repr(call())
    except ImportError as exc:
        out[label] = "ImportError: " + str(exc)
attempt("computed", lambda: importlib.import_module("pacman.agen" + "ts.evaluation"))
attempt("fromlist", lambda: __import__("pacman", fromlist=["grading"]))
attempt("find_spec", lambda: importlib.util.find_spec("pacman.conformance.textbook"))
import pacman
out["reload"] = hasattr(importlib.reload(pacman), "grading")
out["walk"] = [m.name for m in pkgutil.walk_packages(pacman.__path__, "pacman.", onerror=lambda name: None)
               if forbidden(m.name)]
out["attempts"] = guard.take()
out["after_take"] = guard.take()
sys.meta_path.remove(guard)
importlib.import_module("pacman.agents.search")
out["removed"] = guard.take()
out["still_loaded"] = sorted(m for m in sys.modules if forbidden(m))
print(json.dumps(out))
"""


def test_the_sealed_child_has_no_forbidden_module_and_refuses_them_by_any_name():
    done = subprocess.run([sys.executable, "-c", _SEALED], capture_output=True, text=True, timeout=60, cwd="/")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["in_sys_modules"] == [] and out["reachable"] == []
    assert out["computed"] == "ImportError: pacman.agents.evaluation: importing this module is forbidden by the " \
                              "assignment (forbid_imports: pacman.agents)"
    assert out["fromlist"].startswith("ImportError: pacman.grading: importing this module is forbidden")
    assert out["find_spec"].startswith("ImportError: pacman.conformance: importing this module is forbidden")
    assert out["reload"] is False
    # pkgutil lists the names of pacman's modules, but cannot import the forbidden packages to walk into them
    assert "pacman.grading" in out["walk"] and all(name.count(".") == 1 for name in out["walk"])
    modules = [a["module"] for a in out["attempts"]]
    assert modules[:3] == ["pacman.agents.evaluation", "pacman.grading", "pacman.conformance"]  # find_spec: the package
    assert {"pacman.batch", "pacman.cli", "pacman.grading"} <= set(modules[3:])  # the walk's attempts
    assert all(a["line"] is None for a in out["attempts"])  # no frame of the submission's file on the stack
    assert out["after_take"] == []
    assert out["removed"] == [{"module": "sys.meta_path", "rule": "the import guard", "line": None}]
    assert out["still_loaded"] == []  # take() unloaded what got in past the guard


# -- grading: hostile submissions on the shipped assignment ------------------------------------------------------

ALL = ("trees", "pacman", "evaluation")


@pytest.mark.parametrize("name, line, module", [
    ("forbidden_direct", 4, "pacman.agents.evaluation"),
    ("forbidden_search", 3, "pacman.agents.expectimax"),
    ("forbidden_grading", 3, "pacman.grading"),
    ("forbidden_sys_modules", 35, "pacman.agents.evaluation"),
])
def test_an_import_in_the_source_scores_zero_everywhere_without_running(name, line, module):
    report = grade(SHIPPED, submission(name))
    assert scores(report) == {"trees": 0, "pacman": 0, "evaluation": 0}
    assert violations(report) == [("static", line, module, forbidding_rule(module, DEFAULT_FORBIDDEN_IMPORTS), ALL)]
    assert all(q.tests == [] and "not run" in q.notes[0] for q in report.questions)
    text = format_report(report)
    assert f"{name}.py line {line}: imports {module}, which this assignment forbids" in text
    assert text.index("FORBIDDEN IMPORTS") < text.index("Question trees")


def test_a_computed_import_while_running_fails_the_question_it_happens_in(default_rules):
    report = grade(default_rules, submission("forbidden_computed"))
    assert scores(report) == {"tree": 2, "games": 0}, format_report(report)
    assert violations(report) == [("runtime", 35, "pacman.agents.evaluation", "pacman.agents", ("games",))]
    messages = report.questions[1].tests[0].messages[0]
    assert ("forbidden import: forbidden_computed.py line 35: tried to import pacman.agents.evaluation while running, "
            "which this assignment forbids (forbid_imports: pacman.agents)") in messages


def test_an_import_at_import_time_fails_every_test():
    report = grade(SHIPPED, submission("forbidden_dunder"), questions=["trees", "evaluation"])
    assert scores(report) == {"trees": 0, "evaluation": 0}
    assert violations(report) == [("runtime", 3, "pacman.agents.expectimax", "pacman.agents", ("trees", "evaluation"))]
    assert all(t.messages and "forbidden import: forbidden_dunder.py line 3" in t.messages[0]
               for q in report.questions for t in q.tests)


@pytest.mark.parametrize("name, expected", [
    ("forbidden_caught", [("runtime", 35, "pacman.agents.evaluation", "pacman.agents", ("games",))]),
    ("forbidden_unguard", [("runtime", None, "sys.meta_path", "the import guard", ("games",))]),
    ("forbidden_lookup", []),  # nothing to find: a KeyError naming the module
])
def test_trying_is_enough_and_what_is_not_there_cannot_be_found(default_rules, name, expected):
    report = grade(default_rules, submission(name))
    assert scores(report) == {"tree": 2, "games": 0}
    assert violations(report) == expected
    message = report.questions[1].tests[0].messages[0]
    if expected:
        assert "forbidden import: " in message
    else:
        assert "KeyError: 'pacman.agents.evaluation'" in message


def test_a_module_that_reexports_the_library_is_caught_by_what_it_imports(tmp_path):
    """With `pacman.agents` alone forbidden, pacman.agent_specs may be imported, but its agent builder reaches
    pacman.agents."""
    narrow = load_assignment(small(tmp_path, 'forbid_imports = ["pacman.agents"]'))
    report = grade(narrow, submission("forbidden_reexport"))
    assert scores(report) == {"tree": 0, "games": 2}  # the game plays the project's agent: no import there
    assert violations(report) == [("runtime", 13, "pacman.agents", "pacman.agents", ("tree",))]
    assert "forbidden_reexport.py line 13: tried to import pacman.agents while running" in \
        report.questions[0].tests[0].messages[0]


def test_honest_submissions_keep_their_scores_with_the_allowed_imports(tmp_path, default_rules):
    honest = tmp_path / "multi_agents.py"
    honest.write_text("import pacman.distances\nfrom pacman import Action, GameState\nfrom pacman.actions import "
                      "Action as A\n" + Path(submission("correct")).read_text())
    report = grade(default_rules, honest)
    assert scores(report) == {"tree": 2, "games": 2}
    assert report.violations == [] and report.to_dict()["violations"] == []
    assert "FORBIDDEN" not in format_report(report)


def test_nothing_forbidden_means_nothing_checked(tmp_path):
    free = load_assignment(small(tmp_path, "forbid_imports = []"))
    report = grade(free, submission("forbidden_direct"), questions=["games"])
    assert report.violations == []
    assert scores(report) == {"games": 2}  # the library's evaluation, unhindered


# -- the reports, through the command line ---------------------------------------------------------------------


def _grade_cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    return subprocess.run([sys.executable, "-m", "pacman", "grade", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env=env)


def test_the_reports_name_an_import_found_in_the_source(tmp_path):
    shutil.copy(submission("forbidden_direct"), tmp_path / "multi_agents.py")
    done = _grade_cli(tmp_path, "expectimax", "multi_agents.py", "--json", "out.json", "--gradescope", "gs.json")
    assert done.returncode == 0, done.stderr
    line = "multi_agents.py line 4: imports pacman.agents.evaluation, which this assignment forbids (forbid_imports: pacman.agents)"
    assert f"  {line}; questions: trees, pacman, evaluation" in done.stdout
    assert "Total: 0/24" in done.stdout
    data = json.loads((tmp_path / "out.json").read_text())
    assert data["score"] == 0 and data["violations"] == [
        {"file": "multi_agents.py", "line": 4, "import": "pacman.agents.evaluation", "rule": "pacman.agents", "check": "static",
         "questions": list(ALL), "message": line}]
    results = json.loads((tmp_path / "gs.json").read_text())
    assert line in results["output"]
    assert all(test["output"].startswith(f"FORBIDDEN IMPORT: {line}\n") for test in results["tests"])


def test_the_reports_name_an_import_tried_while_running(tmp_path):
    small(tmp_path / "small")
    shutil.copy(submission("forbidden_caught"), tmp_path / "multi_agents.py")
    done = _grade_cli(tmp_path, "small", "multi_agents.py", "--json", "-")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [(q["id"], q["score"]) for q in data["questions"]] == [("tree", 2), ("games", 0)]
    assert data["violations"] == [
        {"file": "multi_agents.py", "line": 35, "import": "pacman.agents.evaluation", "rule": "pacman.agents", "check": "runtime",
         "questions": ["games"], "message": "multi_agents.py line 35: tried to import pacman.agents.evaluation while "
                                            "running, which this assignment forbids (forbid_imports: pacman.agents)"}]
    terminal = _grade_cli(tmp_path, "small", "multi_agents.py")
    assert "FORBIDDEN IMPORTS" in terminal.stdout
    assert "multi_agents.py line 35: tried to import pacman.agents.evaluation while running" in terminal.stdout


def test_a_bad_forbid_imports_is_one_line_and_exit_status_2(tmp_path):
    small(tmp_path / "bad", 'forbid_imports = ["pacman.agents.serch"]')
    done = _grade_cli(tmp_path, "bad", submission("correct"))
    assert done.returncode == 2
    assert done.stderr.strip().endswith("assignment.forbid_imports[0]: 'pacman.agents.serch' is not a module of pacman-ai "
                                        "(misspelt?)")
    assert "Traceback" not in done.stderr


# -- classic test folders ----------------------------------------------------------------------------------------

CLASSIC_HOSTILE = {
    "static": ("from pacman.agents.expectimax import MinimaxAgent as _Library\n", "static", 3, "pacman.agents.expectimax"),
    "runtime": ("import importlib\n_search = importlib.import_module('pacman.agents' + '.search')\n", "runtime", 4,
                "pacman.agents.search"),
    # The commands' agent builder is forbidden by name, so found in the source.
    "agent_specs": ("from pacman.agent_specs import make_pacman_agent\n_agent = make_pacman_agent('expectimax')\n",
                    "static", 3, "pacman.agent_specs"),
}


@pytest.mark.parametrize("kind", sorted(CLASSIC_HOSTILE))
def test_a_classic_file_that_imports_the_library_scores_zero(tmp_path, kind):
    code, check, line, module = CLASSIC_HOSTILE[kind]
    text = (CLASSIC_COURSE / "multiAgents.py").read_text().splitlines(keepends=True)
    (tmp_path / "multiAgents.py").write_text("".join(text[:2]) + code + "".join(text[2:]))
    report = grade_course(load_course(CLASSIC_COURSE / "test_cases"), tmp_path / "multiAgents.py")
    assert report.score == 0
    questions = ("q1", "q2", "q3") if check == "static" else ("q1", "q2")  # q3 is skipped: it depends on q1
    rule = "pacman.agent_specs" if kind == "agent_specs" else "pacman.agents"
    assert violations(report) == [(check, line, module, rule, questions)]
    assert report.questions[2].notes[0].startswith("0 points, not run" if check == "static" else "skipped")
    results = gradescope_results(report)
    assert f"multiAgents.py line {line}:" in results["output"]


def test_honest_classic_files_import_the_classic_api_freely(tmp_path):
    """The classic API (util, game, pacman.GameState, pacman.cs188) is what classic files import."""
    text = (CLASSIC_COURSE / "multiAgents.py").read_text()
    (tmp_path / "multiAgents.py").write_text(
        "from pacman import GameState\nfrom pacman.cs188 import Directions as _D\n" + text)
    report = grade_course(load_course(CLASSIC_COURSE / "test_cases"), tmp_path / "multiAgents.py")
    assert [q.score for q in report.questions] == [4, 5, 3]
    assert report.violations == []


def test_a_classic_folder_can_forbid_more(tmp_path):
    course = _classic_course(tmp_path, " ".join((*CLASSIC_FORBIDDEN_IMPORTS, "pacman.distances")))
    student = course / "multiAgents.py"
    student.write_text("import pacman.distances\n" + student.read_text())
    done = _grade_cli(course, "test_cases", "multiAgents.py", "--json", "-")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["score"] == 0
    assert [(v["line"], v["import"], v["rule"]) for v in data["violations"]] == [
        (1, "pacman.distances", "pacman.distances")]


# -- the docs ----------------------------------------------------------------------------------------------------


def test_the_docs_list_the_default_rules():
    grading = (ROOT / "docs" / "grading.md").read_text()
    section = grading[grading.index("### `forbid_imports`"):]
    section = section[:section.index("\n## ")]
    for name in DEFAULT_FORBIDDEN_IMPORTS:
        assert f"`{name}`" in section
    cs188 = (ROOT / "docs" / "cs188.md").read_text()
    assert "forbid_imports" in cs188


def test_the_docs_example_of_the_key_loads(tmp_path):
    grading = (ROOT / "docs" / "grading.md").read_text()
    start = grading.index("```toml\n[assignment]\nforbid_imports") + len("```toml\n")
    example = grading[start:grading.index("```", start)]
    folder = small(tmp_path)
    questions = SMALL_TOML[SMALL_TOML.index("[[questions]]"):].replace("{{", "{").replace("}}", "}")
    (folder / "assignment.toml").write_text(example + questions)
    loaded = load_assignment(folder)
    assert loaded.forbid_imports == (*DEFAULT_FORBIDDEN_IMPORTS, "pacman.distances")


def test_the_cs188_docs_default_and_example_config_are_what_loads(tmp_path):
    cs188 = (ROOT / "docs" / "cs188.md").read_text()
    assert " ".join(CLASSIC_FORBIDDEN_IMPORTS) in cs188
    start = cs188.index('```text\norder: "q1 q2 q3"\nforbid_imports') + len("```text\n")
    example = cs188[start:cs188.index("```", start)]
    course = _classic_course(tmp_path, None)
    (course / "test_cases" / "CONFIG").write_text(example)
    assert load_course(course / "test_cases").forbid_imports == (*CLASSIC_FORBIDDEN_IMPORTS, "pacman.distances")
