"""Imports go one way: ``cluedo_env/core`` <- ``cluedo_env`` <- ``agents`` <- ``experiments`` (README, "Development")."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at the top or inside a function."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


@pytest.mark.parametrize(
    ("layer", "above"),
    [
        ("cluedo_env", {"agents", "experiments", "tests"}),
        ("agents", {"experiments", "tests"}),
        ("experiments", {"tests"}),
    ],
)
def test_a_layer_never_imports_the_layers_above_it(layer, above):
    for path in sorted((ROOT / layer).rglob("*.py")):
        for name in imported_modules(path):
            assert name.split(".")[0] not in above, f"{path.relative_to(ROOT)} imports {name}"


def test_the_statistics_and_the_tournament_do_not_import_each_other():
    # the tournament uses the statistics; both use the results file
    stats = imported_modules(ROOT / "experiments" / "common" / "stats.py")
    assert "experiments.tournament" not in stats
    assert {"experiments.common.games_file"} <= stats
