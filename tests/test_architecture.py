"""The layers of docs/architecture.md, checked: what each layer may import, and no import cycles.

Layers: the core (flat modules of `pacman`), the agents (`pacman.agents`, the folder
`agents/`), the
applications (subpackages of `pacman`). The core imports neither the agents,
nor pygame, nor any application; batch and grading never import pygame. Cycles
are found statically over every import statement, those inside functions
included (a function-level import hides a cycle from Python, not from a reader).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Each package's import name and its folder (pyproject's package-dir installs agents/ as pacman.agents).
PACKAGES = {"pacman": "pacman", "pacman.agents": "agents"}

#: The core: the flat modules of `pacman` that everything else builds on.
CORE = (
    "pacman",
    "pacman.actions",
    "pacman.distances",
    "pacman.errors",
    "pacman.files",
    "pacman.game",
    "pacman.hints",
    "pacman.layout",
    "pacman.limits",
    "pacman.memory",
    "pacman.replay",
    "pacman.resources",
    "pacman.rules",
    "pacman.state",
    "pacman.user_code",
)

#: Applications that must never load pygame.
HEADLESS = ("pacman.batch", "pacman.grading", "pacman.cli.batch", "pacman.cli.grade", "pacman.conformance",
            "pacman.compare", "pacman.compare.plot", "pacman.cli.compare")

#: Optional dependencies that only their own application packages load.
OPTIONAL = ("gymnasium", "pettingzoo")
#: What must never load them: the core (each module), the agents, batch runs and grading.
NO_OPTIONAL = (*CORE, "pacman.agents", "pacman.batch", "pacman.grading", "pacman.cli.batch", "pacman.cli.grade")


def _module_name(path: Path, package: str, folder: str) -> str:
    parts = [package, *path.relative_to(ROOT / folder).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_agents(module: str) -> bool:
    return module == "pacman.agents" or module.startswith("pacman.agents.")


def _project_modules() -> dict[str, Path]:
    modules = {}
    for package, folder in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "assignments" in path.parts:  # shipped assignment data (starter files), not modules of the project
                continue
            modules[_module_name(path, package, folder)] = path
    return modules


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(path: Path, name: str, modules: dict[str, Path]) -> set[str]:
    """Every project module `name` imports, at any depth of its code (not under `if TYPE_CHECKING:`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    found: set[str] = set()

    def target(dotted: str) -> str | None:
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                hit = target(alias.name)
                if hit:
                    found.add(hit)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name if is_package else name.rpartition(".")[0]
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                origin = f"{base}.{node.module}" if node.module else base
            else:
                origin = node.module or ""
            for alias in node.names:
                submodule = f"{origin}.{alias.name}"
                hit = submodule if submodule in modules else target(origin)
                if hit:
                    found.add(hit)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    found.discard(name)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _project_modules()
    return {name: _imports(path, name, modules) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))
    return components


def test_the_cycle_finder_finds_a_cycle_through_a_function_level_import(tmp_path):
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from pacman import game\n    import pacman.agents.search\n", encoding="utf-8")
    modules = {"pacman": Path(), "pacman.game": Path(), "pacman.agents.search": Path(), "m": source}
    assert _imports(source, "m", modules) == {"pacman.game", "pacman.agents.search"}


def test_there_is_no_import_cycle_not_even_through_imports_inside_functions():
    cycles = _cycles(_graph())
    assert cycles == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_the_core_imports_no_agent_and_no_application_statically():
    graph = _graph()
    for module in CORE:
        outside = sorted(m for m in graph[module] if m not in CORE)
        assert outside == [], f"{module} imports {outside}"


def test_agents_import_only_the_core_and_other_agents():
    graph = _graph()
    for module, imported in graph.items():
        if _is_agents(module):
            outside = sorted(m for m in imported if not _is_agents(m) and m not in CORE)
            assert outside == [], f"{module} imports {outside}"


def test_no_application_imports_the_command_line():
    graph = _graph()
    for module, imported in graph.items():
        if not module.startswith("pacman.cli") and module != "pacman.__main__":
            assert not any(m == "pacman.cli" or m.startswith("pacman.cli.") for m in imported), module


def _loaded_after_import(module: str) -> list[str]:
    code = (f"import json, sys; import {module}; "
            f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('pacman', 'agents', 'pygame'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         check=True).stdout
    return json.loads(out)


@pytest.mark.parametrize("module", CORE)
def test_each_core_module_loads_only_the_core_in_a_fresh_interpreter(module):
    loaded = _loaded_after_import(module)
    assert [m for m in loaded if m not in CORE] == []


@pytest.mark.parametrize("module", HEADLESS)
def test_batch_and_grading_load_no_pygame(module):
    modules = _project_modules()
    every = sorted(m for m in modules if m == module or m.startswith(module + "."))
    assert every, f"no module {module}"
    loaded = _loaded_after_import(", ".join(every))
    assert [m for m in loaded if m.split(".")[0] == "pygame" or m.startswith("pacman.view")] == []


#: The live web view's server: loaded only by `play`/`replay --display web`.
WEB_SERVER = ("http.server", "socketserver", "pacman.view.live")


@pytest.mark.parametrize("module", ("pacman", *HEADLESS, "pacman.cli"))
def test_the_web_server_is_loaded_only_for_the_live_view(module):
    modules = _project_modules()
    every = sorted(m for m in modules if m == module or m.startswith(module + ".")) if module != "pacman" else CORE
    code = (f"import json, sys; import {', '.join(every)}; "
            f"print(json.dumps(sorted(m for m in sys.modules if m in {WEB_SERVER!r})))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         check=True).stdout
    assert json.loads(out) == []


@pytest.mark.parametrize("module", NO_OPTIONAL)
def test_the_learning_environments_and_their_dependencies_stay_out_of_the_core_batch_and_grading(module):
    modules = _project_modules()
    every = [module] if module in CORE else sorted(m for m in modules if m == module or m.startswith(module + "."))
    code = (f"import json, sys; import {', '.join(every)}; "
            f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {OPTIONAL!r} "
            f"or m.startswith('pacman.envs'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         check=True).stdout
    assert json.loads(out) == []


def test_the_environments_load_no_pygame_until_they_render():
    loaded = _loaded_after_import("pacman.envs, pacman.envs.vector, pacman.envs.pettingzoo_env, pacman.envs.policies")
    assert [m for m in loaded if m.split(".")[0] == "pygame" or m.startswith("pacman.view")] == []


def _product_sources() -> list[Path]:
    """Every product module: the folders of pacman and agents (test support in tests/ is not product code)."""
    return sorted(p for top in ("pacman", "agents") for p in (ROOT / top).rglob("*.py"))


def test_no_module_outside_the_agents_imports_a_private_name_of_the_agents():
    reaches = []
    for path in _product_sources():
        if path.is_relative_to(ROOT / "agents"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pacman.agents"):
                reaches += [(str(path.relative_to(ROOT)), alias.name) for alias in node.names
                            if alias.name.startswith("_")]
            if isinstance(node, ast.Import):
                reaches += [(str(path.relative_to(ROOT)), alias.name) for alias in node.names
                            if alias.name.startswith("pacman.agents") and "._" in alias.name]
    assert reaches == []


def test_no_module_but_the_state_module_reads_a_state_by_tuple_index():
    """A state's fields are read by name (properties of GameState) everywhere but pacman/state.py."""
    reads = []
    for path in _product_sources():
        if path == ROOT / "pacman" / "state.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
                    and node.value.id in ("state", "child", "kid", "successor")
                    and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int)):
                reads.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert reads == []
