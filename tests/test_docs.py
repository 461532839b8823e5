"""The guides' python blocks (``docs/index.md``, ``docs/guides/*.md``) run as printed, the README's way.

Each block runs in a fresh namespace; a few are checked further (the core loop plays games to a
winner). ``docs/simulation.md``'s example runs in ``tests/core/test_simulate.py``.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import shlex

import pytest

from tests.test_readme import ROOT, page_block, python_blocks

PAGES = [ROOT / "docs" / "index.md", *sorted((ROOT / "docs" / "guides").glob("*.md"))]
BLOCKS = [(page, i, code) for page in PAGES for i, code in enumerate(python_blocks(page))]
# Blocks that need an extra the default install may lack: the module each imports first.
NEEDS = {"sb3_contrib": "sb3", "pyspiel": "openspiel", "fastapi": "web", "datasets": "dataset"}
# Budgets cut for the suite (the rest of the block runs as printed): SB3's default rollout of 2,048
# steps and 10,000 steps of learning took 14 minutes on the shared 2-core machine.
SHORTER = {
    'MaskablePPO("MultiInputPolicy", env).learn(10_000)': 'MaskablePPO("MultiInputPolicy", env, n_steps=64).learn(64)',
}


def test_the_guides_hold_python_blocks():
    assert {page.name for page, _i, _code in BLOCKS} >= {"core.md", "beliefs.md", "reasoning.md", "sb3.md"}


@pytest.mark.parametrize(
    "code", [code for _p, _i, code in BLOCKS], ids=[f"{page.stem}-{i}" for page, i, _c in BLOCKS]
)
def test_guide_block_runs(code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # what a block writes (results/web, runs/) stays out of the checkout
    for module, extra in NEEDS.items():
        named = f"import {module}" in code or f"from {module}" in code
        if named and importlib.util.find_spec(module) is None:
            pytest.skip(f"needs the {extra} extra")
    for printed, short in SHORTER.items():
        code = code.replace(printed, short)
    exec(compile(code, "<guide block>", "exec"), {"__name__": "guide_block"})


def test_every_shortened_budget_is_in_a_guide():
    assert all(any(printed in code for _p, _i, code in BLOCKS) for printed in SHORTER)


def test_core_loop_ends_with_a_winner_in_most_games(capsys):
    namespace: dict = {}
    exec(page_block(ROOT / "docs" / "guides" / "core.md", "core.init(config"), namespace)
    state = namespace["state"]
    assert state.done.all()
    assert (state.winner >= 0).mean() > 0.9
    assert not state.eliminated.any()  # it accuses only the envelope its observation pins down
    assert "of the games have a winner" in capsys.readouterr().out


def test_reasoning_example_solver_is_scored():
    """The guide's home-made solver answers a real task and the scorer takes its answer."""
    from cluedo_env.reasoning.score import public_view, score_answer
    from cluedo_env.reasoning.splits import load_split

    namespace: dict = {}
    exec(page_block(ROOT / "docs" / "guides" / "reasoning.md", "def solve(task)"), namespace)
    task = load_split("v2", "dev", progress=False)[0]
    score = score_answer(task, namespace["solve"](public_view(task)))
    assert score["problems"] == []  # a well-formed answer: every part scored
    assert score["tp"] == score["claimed"]  # it claims only its own hand, which is certain


def test_every_install_line_works_from_a_checkout():
    """Each ``pip install`` of the README and the site installs this checkout (the package is on no
    index) with extras that pyproject.toml declares."""
    import re
    import tomllib

    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    lines = [
        (page, line)
        for page in [ROOT / "README.md", *PAGES]
        for line in page.read_text().splitlines()
        if "pip install" in line
    ]
    assert len(lines) >= 5
    for page, line in lines:
        for target in re.findall(r"pip install (?:-e )?[\"'`]?([^\s\"'`;)]+)", line):
            path, _, named = target.partition("[")
            assert path == ".", f"{page.name}: {line!r} installs {target!r}, not this checkout"
            for extra in filter(None, named.rstrip("]").split(",")):
                assert extra in extras, (
                    f"{page.name}: {line!r} names the extra {extra!r}; pyproject has {sorted(extras)}"
                )


# -- the commands in the docs compose ---------------------------------------------------------------

HYDRA_COMMANDS = (
    "tournament",
    "train_ppo",
    "imitate",
    "train_sb3",
    "train_rllib",
    "reasoning_bench",
    "benchmark",
)


def documented_commands() -> list[tuple[str, str, list[str]]]:
    """``(place, command, overrides)`` of every ``python -m experiments.<hydra command> key=value ...``
    in the README, the site and the commands' docstrings: inline code (which may wrap a line) and code
    lines (with backslash continuations); ``<placeholders>`` become a word, the rest stops at a shell
    operator or an option."""
    places = [
        ROOT / "README.md",
        *sorted((ROOT / "docs").rglob("*.md")),
        *sorted((ROOT / "experiments").rglob("*.py")),
    ]
    found = []
    for place in places:
        text = re.sub(r"<[^<>\n]*>", "PLACEHOLDER", place.read_text())
        spans = [
            m.group(1).replace("\n", " ") for m in re.finditer(r"`([^`]+)`", text) if "\n\n" not in m.group(1)
        ]
        lines = [
            line
            for line in re.sub(r"\\{1,2}\n\s*", " ", text).splitlines()
            if line.lstrip().startswith("python -m ")
        ]
        for match in (
            m for t in spans + lines for m in re.finditer(r"python -m experiments\.(\w+)([^`\n]*)", t)
        ):
            if match.group(1) not in HYDRA_COMMANDS:
                continue
            overrides = []
            for word in shlex.split(match.group(2), comments=True):
                if word in ("&&", "|", ";", ">") or word.startswith(("-", ">")):
                    break
                overrides.append(word)
            found.append((place.relative_to(ROOT).as_posix(), match.group(1), overrides))
    return found


COMMANDS = documented_commands()


def test_the_docs_hold_commands_of_every_kind():
    assert len(COMMANDS) > 80 and {command for _p, command, _o in COMMANDS} >= set(HYDRA_COMMANDS) - {
        "imitate"
    }


@pytest.mark.parametrize("place, command, overrides", COMMANDS, ids=[f"{p}:{c}" for p, c, _o in COMMANDS])
def test_every_documented_command_composes(place, command, overrides):
    """Each documented command line is a valid override list for its config (Hydra's own composition),
    so a renamed key or a ``+`` where the key exists is caught here, not by a reader."""
    pytest.importorskip("hydra")
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    from experiments.common.shipped_configs import SHIPPED_CONFIGS

    for module, extra in {"stable_baselines3": "sb3", "ray": "ray"}.items():
        if command.endswith(extra) and importlib.util.find_spec(module) is None:
            pytest.skip(f"needs the {extra} extra")
    importlib.import_module(f"experiments.{command}")  # registers the command's schema
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(SHIPPED_CONFIGS), version_base=None):
        # a value in capitals (limit=N) is a metavariable, as <placeholders> are
        kept = [o for o in overrides if "=" in o and not re.fullmatch(r"[A-Z]+", o.partition("=")[2])]
        compose(config_name=command, overrides=kept)
