"""Every command prints "?" for a character its output's encoding cannot hold, instead of stopping.

Output to a file, a pipe or CI on Windows is cp1252; a label ("Zufällig—α") or a path outside it made
``compare`` stop with a ``UnicodeEncodeError`` traceback after its first line, and ``expert_dataset`` exit
with status 1 after it had written a whole dataset. Only four commands had their own copy of the
remedy; each command now calls ``cluedo_env.console.replace_unencodable`` first (a Hydra command
through ``experiments.common.trust.checked_main``), which the first test checks, read from the source
with ``ast``.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.experiments.test_compare import FIELD, OUTCOMES, game

PACKAGES = ("cluedo_env", "agents", "experiments")
HELPER = "replace_unencodable"
# Not a command of a user: the benchmark's worker runs an earlier revision's cluedo_env (which may lack
# the helper) and prints JSON, which is ASCII.
NOT_COMMANDS = {"experiments.benchmark.baseline_worker"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_tree(name: str) -> ast.Module:
    package = ROOT.joinpath(*name.split("."))
    path = package / "__init__.py" if package.is_dir() else package.with_suffix(".py")
    return ast.parse(path.read_text(encoding="utf-8"))


def main_guard(tree: ast.Module) -> ast.If | None:
    """The module's ``if __name__ == "__main__":`` block, if any."""
    for node in tree.body:
        test = node.test if isinstance(node, ast.If) else None
        if isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__":
            return node
    return None


def calls_helper(node: ast.AST) -> bool:
    return any(
        isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == HELPER
        for call in ast.walk(node)
    )


def function_of(module: str, name: str) -> ast.FunctionDef:
    """The definition of ``module``'s ``name``, followed through a ``from X import name``."""
    tree = module_tree(module)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
        if isinstance(node, ast.ImportFrom) and any(alias.name == name for alias in node.names):
            return function_of(node.module, name)
    raise LookupError(f"{module} defines no {name}")


def goes_through_helper(function: ast.FunctionDef) -> bool:
    """Whether ``function`` calls the helper, or is a Hydra command that ``checked_main`` wraps."""
    wrapped = any(isinstance(d, ast.Name) and d.id == "checked_main" for d in function.decorator_list)
    return calls_helper(function_of("experiments.common.trust", "checked_main") if wrapped else function)


def commands() -> dict[str, tuple[str, str | None]]:
    """Each command -> its module and the function it runs (None: its ``__main__`` block does the work
    itself): the modules with a ``__main__`` block, and the console scripts of pyproject.toml."""
    found: dict[str, tuple[str, str | None]] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            name = module_name(path)
            guard = main_guard(ast.parse(path.read_text(encoding="utf-8")))
            if guard is not None and name not in NOT_COMMANDS:
                runs_main = any(isinstance(n, ast.Name) and n.id == "main" for n in ast.walk(guard))
                found[f"python -m {name}"] = (name, "main" if runs_main else None)
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    for script, target in scripts.items():
        module, _, function = target.partition(":")
        found[script] = (module, function)
    return found


COMMANDS = commands()


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_prints_what_its_output_cannot_encode_as_a_question_mark(command):
    module, function = COMMANDS[command]
    if function is None:
        assert calls_helper(main_guard(module_tree(module))), (
            f"{command}: its __main__ block calls no {HELPER}()"
        )
    else:
        assert goes_through_helper(function_of(module, function)), (
            f"{command}: {module}.{function} calls no {HELPER}()"
        )


def cp1252_run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``python ARGS`` with its output in Windows' cp1252, strict as Python makes it for a file or pipe."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env |= {"PYTHONIOENCODING": "cp1252", "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, timeout=300)


def test_compare_prints_labels_outside_cp1252_with_question_marks(tmp_path):
    for run, label in (("a", "Zufällig—α"), ("b", "Sätze—β")):
        records = [game(d, r, [label, *FIELD], winner[0]) for (d, r), winner in OUTCOMES.items()]
        (tmp_path / run).mkdir()
        (tmp_path / run / "games.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8"
        )
    done = cp1252_run(["-m", "experiments.compare", str(tmp_path / "a"), str(tmp_path / "b")], tmp_path)
    assert done.returncode == 0, done.stderr.decode("cp1252")
    out = done.stdout.decode("cp1252")
    assert "6 pairs of games" in out
    assert "a (Zufällig—?): " in out and "b (Sätze—?): " in out  # "ä" and "—" are cp1252's, not "α", "β"


def test_expert_dataset_names_an_output_folder_outside_cp1252_with_a_question_mark(tmp_path):
    for module in ("torch", "pyarrow", "minari"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"the dataset needs {module}")
    out = tmp_path / "Sätze—α"
    done = cp1252_run(
        ["-m", "experiments.expert_dataset", "--out", str(out), "--games", "2", "--shard-games", "2",
         "--minari-episodes", "1", "--workers", "1", "--no-progress", "--agents", "notepad,notepad,random"],
        tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode("cp1252")
    assert f"{tmp_path}{os.sep}Sätze—?: 2 games" in done.stdout.decode("cp1252")
    assert (out / "dataset.json").is_file()
