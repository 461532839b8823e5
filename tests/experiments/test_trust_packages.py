"""Where a config file from elsewhere puts its content is Hydra's to say, and Hydra's rerun of a pickle is refused.

A line-up file of a user's config folder is checked for the keys of the package Hydra fills with it: a
``# @package`` line in any form Hydra reads (``_global_.lineup``, after blank lines, ``_global_`` twice),
none where Hydra reads none (after a plain comment), and the package a command line's ``group@package``
gives it. ``--experimental-rerun FILE``, which makes Hydra unpickle FILE, is refused before Hydra starts.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

LLM = {"name": "llm", "options": {"base_url": "http://127.0.0.1:9/v1", "api_key_env": "SOME_SECRET"}}
LINEUP = {"agents": [LLM, {"name": "random"}], "mode": "round_robin", "field": []}

# (file under the config folder, its text, the group choice, the package Hydra fills with it)
PLACED = [
    ("lineup/mine.yaml", "# @package _global_.lineup\n" + yaml.safe_dump(LINEUP), "lineup=mine", "lineup"),
    (
        "lineup/late.yaml",
        "\n" * 10 + "# @package _global_\n" + yaml.safe_dump({"lineup": LINEUP}),
        "lineup=late",
        "",
    ),
    (
        "lineup/twice.yaml",
        "# @package _global_.game._global_.lineup\n" + yaml.safe_dump(LINEUP),
        "lineup=twice",
        "lineup",
    ),
    # Hydra's header ends at the first line that is not one: this @package line is a plain comment to it
    (
        "lineup/comment.yaml",
        "# a line-up\n# @package elsewhere\n" + yaml.safe_dump(LINEUP),
        "lineup=comment",
        "lineup",
    ),
    ("game/mine.yaml", yaml.safe_dump(LINEUP), "+game@lineup=mine", "lineup"),
]


def composed(folder: Path, *overrides: str):
    """The tournament's config with ``folder`` on Hydra's search path, as Hydra composes it for the command."""
    from hydra import compose, initialize_config_dir

    import experiments.tournament  # noqa: F401  (its schema, which the shipped config starts from)
    from experiments.common.shipped_configs import SHIPPED_CONFIGS

    with initialize_config_dir(str(SHIPPED_CONFIGS), version_base=None):
        return compose(
            "tournament", [f"hydra.searchpath=[file://{folder}]", *overrides], return_hydra_config=True
        )


@pytest.mark.parametrize(("relative", "text", "choice", "package"), PLACED, ids=[p[2] for p in PLACED])
def test_a_files_package_is_the_one_hydra_fills(tmp_path, relative, text, choice, package):
    from experiments.common.trust import UntrustedOption, config_files_from_elsewhere, refuse_from_elsewhere

    file = tmp_path / relative
    file.parent.mkdir(parents=True)
    file.write_text(text)
    cfg = composed(tmp_path, choice)
    assert cfg.lineup.agents[0].options.base_url == LLM["options"]["base_url"]  # the file's agent plays
    assert config_files_from_elsewhere(cfg.hydra) == {package: str(file)}
    with pytest.raises(
        UntrustedOption, match=r"^lineup\.agents\.0\.name, .*lineup\.agents\.0\.options\.base_url given by "
    ):
        refuse_from_elsewhere(cfg, cfg.hydra, ["lineup.agents"])


def tournament(folder: Path, *overrides: str, marker: Path | None = None) -> subprocess.CompletedProcess:
    """A short tournament with ``folder`` as ``--config-dir`` (and on ``PYTHONPATH``, for a module it holds)."""
    env = {**os.environ, "SOME_SECRET": "sk-not-for-strangers", "PYTHONPATH": f"{folder}{os.pathsep}{ROOT}"}
    command = [
        sys.executable, "-m", "experiments.tournament", "--config-dir", str(folder), "game.num_players=3",
        "game.max_turns=2", "games_per_lineup=1", "workers=0", "progress=false", "plots=false",
        f"output_dir={folder.parent / 'out'}", *overrides,
    ]  # fmt: skip
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_a_global_lineup_package_cannot_send_the_key_or_import_its_code(tmp_path):
    mine = tmp_path / "mine"
    (mine / "lineup").mkdir(parents=True)
    (mine / "lineup" / "mine.yaml").write_text("# @package _global_.lineup\n" + yaml.safe_dump(LINEUP))
    code = {**LINEUP, "agents": [{"name": "planted:Agent"}, {"name": "random"}]}
    (mine / "lineup" / "code.yaml").write_text("# @package _global_.lineup\n" + yaml.safe_dump(code))
    marker = tmp_path / "imported"
    (mine / "planted.py").write_text(f"open({str(marker)!r}, 'w').close()\n")

    done = tournament(mine, "lineup=mine")
    assert done.returncode == 2, done.stderr[-2000:]
    (line,) = done.stderr.strip().splitlines()
    assert (
        line.startswith("config error: lineup.agents.0.name, ") and "lineup.agents.0.options.base_url" in line
    )
    assert str(mine / "lineup" / "mine.yaml") in line and "trust_files=true" in line
    done = tournament(mine, "lineup=code")
    assert done.returncode == 2 and "lineup.agents.0.name given by" in done.stderr, done.stderr[-2000:]
    assert not marker.exists()
    # The control: trusted, the tournament imports the module the file names.
    tournament(mine, "lineup=code", "trust_files=true")
    assert marker.exists()


class Planted:
    """Unpickled, it makes the file ``path``: what any code a pickle holds could do."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


@pytest.mark.parametrize(
    "flag", [["--experimental-rerun", "{}"], ["--experimental-rerun={}"], ["--experimental-r", "{}"]]
)
def test_hydras_rerun_of_a_pickle_is_refused_before_it_is_unpickled(tmp_path, flag):
    marker = tmp_path / "unpickled"
    pickled = tmp_path / "config.pickle"
    pickled.write_bytes(pickle.dumps(Planted(marker)))
    command = [sys.executable, "-m", "experiments.tournament", *(part.format(pickled) for part in flag)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr[-2000:]
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"config error: --experimental-rerun {pickled}: Hydra unpickles this file")
    assert "trust_files=true" in line
    assert not marker.exists()


def test_hydras_rerun_of_a_pickle_runs_with_trust_files(tmp_path):
    # The control: trusted, Hydra unpickles it (and the planted code runs).
    marker = tmp_path / "unpickled"
    pickled = tmp_path / "config.pickle"
    pickled.write_bytes(pickle.dumps(Planted(marker)))
    command = [
        sys.executable,
        "-m",
        "experiments.tournament",
        "--experimental-rerun",
        str(pickled),
        "trust_files=true",
    ]
    subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert marker.exists()
