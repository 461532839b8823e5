"""The architecture's rules, read from the source (README, "Development").

Imports go one way: ``cluedo_env/core`` <- ``cluedo_env`` <- ``agents`` <- ``experiments``, not even
through a string that names a module; no module imports itself through others (a cycle); no module
imports a script; no ``eval(``/``exec(``; one module per file name; no source file over 600 lines.
Each rule is read with ``ast`` (nothing is imported) and reported by file, line and what breaks it;
each checker is also run on a small bad source of its own, to show it can fail.
"""

from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGES = ("cluedo_env", "agents", "experiments")
# and the standard library, and the core itself. llvmlite is numba's own IR builder, which numba's
# extension API (numba.extending.intrinsic: the layout's views, core/views.py) is written in.
CORE_MAY_IMPORT = {"numpy", "numba", "llvmlite"}
MAX_LINES = 600


# -- reading the source ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Import:
    """One module that one import statement names, resolved to an absolute module name."""

    name: str
    line: int
    at_import_time: bool  # at module level (a class body counts), not in a function nor under TYPE_CHECKING


def module_name(path: Path) -> str:
    """``agents/llm/chat.py`` -> ``agents.llm.chat``; a package's ``__init__.py`` -> the package."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_files(*packages: str) -> list[Path]:
    return sorted(path for package in packages for path in (ROOT / package).rglob("*.py"))


MODULES = {module_name(path): path for path in project_files(*PACKAGES)}


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(source: str, name: str, is_package: bool = False) -> list[Import]:
    """Every module that ``source``, module ``name``, imports, anywhere in it.

    ``from package import thing`` names ``package.thing`` where that is a project module, else
    ``package``; relative imports are resolved against ``name``.
    """
    found: list[Import] = []
    package = name if is_package else name.rpartition(".")[0]

    def visit(node: ast.AST, at_import_time: bool) -> None:
        if isinstance(node, ast.Import):
            found.extend(Import(alias.name, node.lineno, at_import_time) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            for alias in node.names:
                target = f"{base}.{alias.name}"
                found.append(Import(target if target in MODULES else base, node.lineno, at_import_time))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            at_import_time = False
        if isinstance(node, ast.If) and is_type_checking(node.test):
            for child in node.body:
                visit(child, False)
            for child in node.orelse:
                visit(child, at_import_time)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, at_import_time)

    visit(ast.parse(source), True)
    return list(dict.fromkeys(found))  # "from m import a, b" names m once


def imports(path: Path) -> list[Import]:
    return imports_of(path.read_text(), module_name(path), path.name == "__init__.py")


def where(path: Path, line: int) -> str:
    return f"{path.relative_to(ROOT)}:{line}"


MODULE_PATH = re.compile(r"(?P<top>[A-Za-z_]\w*)[.:][\w.:]*")


def modules_named_in_strings(source: str, tops: Iterable[str]) -> list[tuple[int, str]]:
    """The string literals of ``source`` that are a module path into ``tops``, with their lines.

    A module path is the whole string: ``"agents.registry"``, ``"agents.registry:make_agent"`` (a
    ``module:name`` target), or the start of an f-string, ``f"agents.{name}"``; prose that names a
    module (a docstring) is not one.
    """
    tops = set(tops)
    return [
        (node.lineno, node.value)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and (match := MODULE_PATH.fullmatch(node.value))
        and match["top"] in tops
    ]


def eval_or_exec_calls(source: str) -> list[tuple[int, str]]:
    """The calls of ``eval``/``exec`` in ``source`` (also as ``builtins.eval``), with their lines."""
    calls = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        if isinstance(function, ast.Name) and function.id in {"eval", "exec"}:
            calls.append((node.lineno, function.id))
        elif (
            isinstance(function, ast.Attribute)
            and function.attr in {"eval", "exec"}
            and isinstance(function.value, ast.Name)
            and function.value.id in {"builtins", "__builtins__"}
        ):
            calls.append((node.lineno, f"{function.value.id}.{function.attr}"))
    return calls


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """One cycle, as the list of its modules, for each group of modules that import each other."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def connect(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph.get(node, ()):
            if other not in index:
                connect(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                other = stack.pop()
                group.append(other)
                if other == node:
                    break
            if len(group) > 1 or node in graph.get(node, ()):
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return sorted(one_cycle(graph, group) for group in groups)


def one_cycle(graph: Mapping[str, Iterable[str]], group: list[str]) -> list[str]:
    """A path from the group's first module back to it, through the group (breadth first: short)."""
    start, members = group[0], set(group)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for other in sorted(set(graph.get(node, ())) & members):
                if other == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if other not in came_from:
                    came_from[other] = node
                    following.append(other)
        frontier = following
    raise AssertionError(f"no cycle through {group}")


# -- the layers -----------------------------------------------------------------------------------


def test_the_core_imports_only_the_standard_library_numpy_numba_and_itself():
    wrong = [
        f"{where(path, i.line)} imports {i.name}"
        for path in project_files("cluedo_env/core")
        for i in imports(path)
        if not (
            i.name.split(".")[0] in sys.stdlib_module_names | CORE_MAY_IMPORT
            or i.name == "cluedo_env.core"
            or i.name.startswith("cluedo_env.core.")
        )
    ]
    assert wrong == [], "\n".join(wrong)


LAYERS = [
    ("cluedo_env", {"agents", "experiments", "tests"}),
    ("agents", {"experiments", "tests"}),
    ("experiments", {"tests"}),
]


@pytest.mark.parametrize(("layer", "above"), LAYERS)
def test_a_layer_never_imports_the_layers_above_it(layer, above):
    wrong = [
        f"{where(path, i.line)} imports {i.name}"
        for path in project_files(layer)
        for i in imports(path)
        if i.name.split(".")[0] in above
    ]
    assert wrong == [], "\n".join(wrong)


@pytest.mark.parametrize(("layer", "above"), LAYERS)
def test_a_layer_never_names_a_module_above_it_in_a_string(layer, above):
    # "module:Class" targets and import_module("...") arguments are imports too
    wrong = [
        f"{where(path, line)} names {value!r}, a module above {layer}"
        for path in project_files(layer)
        for line, value in modules_named_in_strings(path.read_text(), above)
    ]
    assert wrong == [], "\n".join(wrong)


def test_a_module_path_in_a_string_is_caught():
    source = '''"""Players come from agents.registry, see ``agents.base``."""
PLAYERS = "agents.registry:make_agent"
module = f"experiments.{name}"
NAME = "agents"
'''
    assert modules_named_in_strings(source, {"agents", "experiments"}) == [
        (2, "agents.registry:make_agent"),
        (3, "experiments."),
    ]


def assigned(node: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    return node.targets if isinstance(node, ast.Assign) else [node.target]


def registered_players() -> dict[str, str]:
    """agents/registry.py's ``AGENTS``, name -> ``"module:Class"``, read from its source."""
    (value,) = [
        node.value
        for node in ast.parse((ROOT / "agents" / "registry.py").read_text()).body
        if isinstance(node, ast.Assign | ast.AnnAssign)
        and any(isinstance(t, ast.Name) and t.id == "AGENTS" for t in assigned(node))
    ]
    return ast.literal_eval(value)


def test_every_registered_player_is_a_class_defined_in_agents():
    wrong = []
    for name, target in registered_players().items():
        module, _, cls = target.partition(":")
        path = MODULES.get(module)
        if module.split(".")[0] != "agents" or path is None:
            wrong.append(f"agents/registry.py: AGENTS[{name!r}] = {target!r} is not a module of agents")
        elif cls not in {n.name for n in ast.parse(path.read_text()).body if isinstance(n, ast.ClassDef)}:
            wrong.append(f"agents/registry.py: AGENTS[{name!r}] = {target!r}: {path.name} defines no {cls}")
    assert wrong == [], "\n".join(wrong)


def test_the_statistics_and_the_tournament_do_not_import_each_other():
    # the tournament's run uses the statistics (its report); both use the results file
    common = ROOT / "experiments" / "common"
    run = {"experiments.tournament"} | {f"experiments.common.{m}" for m in ("tournament_run", "chunks")}
    for name in ("stats", "summary", "report", "report_tables", "report_plots"):
        found = {i.name for i in imports(common / f"{name}.py")}
        assert not found & run, f"experiments/common/{name}.py imports {sorted(found & run)}"
    for name in ("stats", "tournament_run"):
        assert "experiments.common.games_file" in {i.name for i in imports(common / f"{name}.py")}


# -- cycles ---------------------------------------------------------------------------------------


def test_no_module_imports_itself_through_others():
    """No cycle of imports run when a module is imported.

    The graph: an edge from each module of cluedo_env, agents and experiments to each project
    module it imports at module level (a package's ``__init__`` importing its submodules is one);
    an import inside a function or under ``if TYPE_CHECKING:`` runs later or never, and is left out.
    ``import a.b`` is an edge to ``a.b`` only, not to the package ``a`` that Python loads first.
    """
    graph = {
        name: {i.name for i in imports(path) if i.at_import_time and i.name in MODULES}
        for name, path in MODULES.items()
    }
    found = cycles(graph)
    assert found == [], "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in found)


def test_a_cycle_is_reported_as_its_modules():
    graph = {"a": {"b"}, "b": {"c", "d"}, "c": {"a"}, "d": set(), "e": {"e"}}
    assert cycles(graph) == [["a", "b", "c", "a"], ["e", "e"]]
    source = "import typing\nif typing.TYPE_CHECKING:\n    import x\nimport y\ndef f():\n    import z\n"
    assert [(i.name, i.at_import_time) for i in imports_of(source, "m")] == [
        ("typing", True),
        ("x", False),
        ("y", True),
        ("z", False),
    ]
    relative = "from .. import y\nfrom .c import z\n"
    assert [i.name for i in imports_of(relative, "a.b.m")] == ["a", "a.b.c"]


# -- scripts --------------------------------------------------------------------------------------


def defines_main(path: Path) -> bool:
    """Whether the module binds ``main`` at its top level (a ``def``, an assignment or an import)."""
    bound = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            bound.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            bound.update(t.id for t in assigned(node) if isinstance(t, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            bound.update(alias.asname or alias.name for alias in node.names)
    return "main" in bound


SCRIPTS = sorted(
    module_name(path)
    for path in (ROOT / "experiments").glob("*.py")
    if path.name != "__init__.py" and defines_main(path)
)


def test_the_scripts_are_found():
    assert {"experiments.tournament", "experiments.train_ppo", "experiments.play"} <= set(SCRIPTS)


def test_no_module_imports_a_script():
    """A script (a module directly in experiments/ with a ``main``) is run, never imported.

    Not by another script (what two scripts share lives in experiments/common), nor by any module of
    cluedo_env, agents or experiments; only tests, which run the scripts' functions, import them.
    Imports inside functions count.
    """
    wrong = [
        f"{where(path, i.line)} imports the script {i.name}"
        for path in project_files(*PACKAGES)
        for i in imports(path)
        if i.name in SCRIPTS and module_name(path) != i.name
    ]
    assert wrong == [], "\n".join(wrong)


# -- the source itself ----------------------------------------------------------------------------


def test_no_eval_or_exec():
    wrong = [
        f"{where(path, line)} calls {call}("
        for path in project_files(*PACKAGES)
        for line, call in eval_or_exec_calls(path.read_text())
    ]
    assert wrong == [], "\n".join(wrong)


def test_eval_and_exec_calls_are_caught():
    source = "x = eval('1')\nbuiltins.exec('y = 2')\nframe.eval()\nevaluate(x)\n"
    assert eval_or_exec_calls(source) == [(1, "eval"), (2, "builtins.exec")]


def test_no_two_modules_share_a_file_name():
    by_name = defaultdict(list)
    for path in project_files(*PACKAGES):
        if path.name not in {"__init__.py", "__main__.py"}:
            by_name[path.name].append(str(path.relative_to(ROOT)))
    shared = [f"{name}: {', '.join(paths)}" for name, paths in sorted(by_name.items()) if len(paths) > 1]
    assert shared == [], "\n".join(shared)


def test_no_source_file_is_over_600_lines():
    """Every ``.py`` file of cluedo_env, agents and experiments (tests/ and data files are not read)."""
    long = [
        f"{path.relative_to(ROOT)}: {lines} lines"
        for path in project_files(*PACKAGES)
        if (lines := len(path.read_text().splitlines())) > MAX_LINES
    ]
    assert long == [], f"over {MAX_LINES} lines:\n" + "\n".join(long)
