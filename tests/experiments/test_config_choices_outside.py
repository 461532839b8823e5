"""A config name or group option that leads out of the config folders is refused before Hydra reads it.

Hydra reads ``--config-name ../../x`` or ``lineup=../../x`` from wherever the ``..`` leads: the
shipped folder's source said it "has" the file, so the file counted as the project's own, and no check
of a ``--config-dir`` folder saw it. A downloaded line-up naming an agent by import path then had its
module imported, and a primary config's ``hydra.callbacks`` ran before any check. Such a name or
option (a ``..`` part, an absolute path, an interpolation) is now refused in one line naming it, by
every command (``checked_main``), and a file whose real path is outside ``configs/`` counts as one
from elsewhere (``config_files_from_elsewhere``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from experiments.common.shipped_configs import SHIPPED_CONFIGS
from tests.conftest import ROOT

CALLBACK = {"callbacks": {"made": {"_target_": "builtins.open", "file": "{marker}", "mode": "w"}}}


def downloaded(tmp_path: Path) -> tuple[Path, Path]:
    """A downloaded folder: a line-up and a tournament config naming its agent ``planted:Agent``, whose
    module makes the marker file when it is imported; returns the folder and the marker."""
    folder, marker = tmp_path / "downloaded", tmp_path / "imported"
    folder.mkdir()
    planted = f"open({str(marker)!r}, 'w').close()\n"
    (folder / "planted.py").write_text(
        planted + "from agents.baselines.random_agent import RandomAgent as Agent\n"
    )
    lineup = {"agents": [{"name": "random"}, {"name": "planted:Agent"}], "mode": "round_robin", "field": []}
    (folder / "mylineup.yaml").write_text(yaml.safe_dump(lineup))
    (folder / "evil.yaml").write_text(
        "# @package _global_\n" + yaml.safe_dump({"defaults": ["/tournament", "_self_"], "lineup": lineup})
    )
    return folder, marker


def command(tmp_path: Path, module: str, *args: str) -> subprocess.CompletedProcess:
    """``python -m experiments.<module> ARGS`` run in the downloaded folder (its modules importable)."""
    env = {**os.environ, "PYTHONPATH": f"{tmp_path / 'downloaded'}{os.pathsep}{ROOT}"}
    return subprocess.run(
        [sys.executable, "-m", f"experiments.{module}", *args],
        cwd=tmp_path / "downloaded",
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


SHORT = ("game.num_players=3", "game.max_turns=2", "games_per_lineup=1", "workers=0", "progress=false",
         "plots=false")  # fmt: skip


def relative(path: Path, start: Path) -> str:
    """``path`` as Hydra's file source reaches it from ``start`` (a shipped folder): through ``..``."""
    return os.path.relpath(path, start)


@pytest.mark.parametrize(
    "choice",
    [
        "--config-name {configs}/evil",
        "lineup={lineup}/mylineup",
        "-m lineup=baselines,{lineup}/mylineup",  # a sweep runs each choice
        "lineup=${{oc.env:MINE}}",  # Hydra resolves it to a file of its choosing
    ],
    ids=["config-name", "group option", "sweep", "interpolation"],
)
def test_a_tournament_refuses_a_config_outside_the_config_folders(tmp_path, monkeypatch, choice):
    folder, marker = downloaded(tmp_path)
    configs, lineup = relative(folder, SHIPPED_CONFIGS), relative(folder, SHIPPED_CONFIGS / "lineup")
    args = choice.format(configs=configs, lineup=lineup).split()
    monkeypatch.setenv("MINE", f"{lineup}/mylineup")
    done = command(tmp_path, "tournament", *args, *SHORT, f"output_dir={tmp_path / 'out'}")
    assert done.returncode == 2, done.stderr[-2000:]
    (line,) = done.stderr.strip().splitlines()
    named = f"--config-name {configs}/evil" if args[0] == "--config-name" else args[-1]
    assert line.startswith(f"config error: {named}: a config name or group option with a '..' part"), line
    assert "--config-dir" in line and "trust_files=true" in line
    assert not marker.exists() and not (tmp_path / "out").exists()


def test_the_same_file_runs_with_trust_files(tmp_path):
    # The control: trusted, the tournament reads the file and imports the module it names.
    folder, marker = downloaded(tmp_path)
    configs = relative(folder, SHIPPED_CONFIGS)
    done = command(tmp_path, "tournament", "--config-name", f"{configs}/evil", *SHORT,
                   f"output_dir={tmp_path / 'out'}", "trust_files=true")  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert marker.exists()


def test_another_command_refuses_a_config_name_outside_before_hydra_runs_its_callbacks(tmp_path):
    # The reasoning bench: a primary config read through ``..`` whose hydra.callbacks Hydra would make
    # (open a marker file) before any check of the command's own.
    folder, marker = downloaded(tmp_path)
    bench = {"defaults": ["/reasoning_bench", "_self_"], "hydra": CALLBACK}
    (folder / "bench.yaml").write_text(
        "# @package _global_\n" + yaml.safe_dump(bench).replace("{marker}", str(marker))
    )
    name = f"{relative(folder, SHIPPED_CONFIGS)}/bench"
    done = command(tmp_path, "reasoning_bench", "--config-name", name, "limit=1", "progress=false")
    assert done.returncode == 2, done.stderr[-2000:]
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"config error: --config-name {name}: a config name or group option"), line
    assert not marker.exists()


def test_hydras_own_groups_are_checked_too(tmp_path):
    # An option of Hydra's own group, read through ``..`` from the folder of Hydra's package.
    folder, marker = downloaded(tmp_path)
    logging = "# @package _global_\n" + yaml.safe_dump({"hydra": CALLBACK}).replace("{marker}", str(marker))
    (folder / "logging.yaml").write_text(logging)
    import hydra

    group = Path(hydra.__file__).parent / "conf" / "hydra" / "job_logging"  # (pkg://hydra.conf)
    option = f"hydra/job_logging={relative(folder, group)}/logging"
    done = command(tmp_path, "tournament", option, *SHORT, f"output_dir={tmp_path / 'out'}")
    assert done.returncode == 2 and done.stderr.startswith(f"config error: {option}: "), done.stderr[-2000:]
    assert not marker.exists()


def test_only_config_names_and_group_options_that_lead_out_are_named():
    from experiments.common.command_line import config_choices_outside

    fine = ["lineup=baselines", "game=classic6", "+game@lineup=duel", "lineup=glob(*)", "output_dir=../out",
            "init_from=/abs/model.pt", "lineup.agents=[{name: ../x}]", "-cn", "train_ppo_league"]  # fmt: skip
    assert config_choices_outside(fine) == []
    out = ["-cn", "../x", "lineup=/tmp/x", "+lineup@mine=a/../../x", "lineup=[baselines,../x]",
           "hydra/launcher=../x", "game=C:x"]  # fmt: skip
    assert config_choices_outside(out) == [
        "--config-name ../x", "lineup=/tmp/x", "+lineup@mine=a/../../x", "lineup=[baselines,../x]",
        "hydra/launcher=../x", "game=C:x",
    ]  # fmt: skip


def test_a_group_of_a_config_folder_of_the_command_line_is_a_group_too(tmp_path):
    from experiments.common.command_line import config_choices_outside

    (tmp_path / "mine" / "opponents").mkdir(parents=True)
    assert config_choices_outside(["opponents=../x"]) == []  # a plain value: no such group
    assert config_choices_outside(["opponents=../x"], [str(tmp_path / "mine")]) == ["opponents=../x"]


def test_a_file_read_through_dots_counts_as_one_from_elsewhere(tmp_path):
    # The second line of defence: what Hydra composed from a file outside configs/ is checked as a
    # --config-dir file is, whichever source found it.
    from hydra import compose, initialize_config_dir

    import experiments.tournament  # noqa: F401  (its schema, which the shipped config starts from)
    from experiments.common.trust import UntrustedOption, config_files_from_elsewhere, refuse_from_elsewhere

    folder, _ = downloaded(tmp_path)
    with initialize_config_dir(str(SHIPPED_CONFIGS), version_base=None):
        cfg = compose(
            "tournament",
            [f"lineup={relative(folder, SHIPPED_CONFIGS / 'lineup')}/mylineup"],
            return_hydra_config=True,
        )
        shipped = compose("tournament", ["lineup=baselines"], return_hydra_config=True)
    assert cfg.lineup.agents[1].name == "planted:Agent"  # Hydra read it
    assert config_files_from_elsewhere(cfg.hydra) == {"lineup": str(folder / "mylineup.yaml")}
    with pytest.raises(UntrustedOption, match=r"^lineup\.agents\.1\.name given by .*mylineup\.yaml"):
        refuse_from_elsewhere(cfg, cfg.hydra, ["lineup.agents"])
    assert config_files_from_elsewhere(shipped.hydra) == {}


@pytest.mark.parametrize("keyword", ["optional ", "override ", "optional  ", ""])
@pytest.mark.parametrize("where", ["group", "option"])
@pytest.mark.parametrize("depth", [1, 2])
def test_a_defaults_entry_with_hydras_keywords_cannot_lead_out_of_the_folder(tmp_path, keyword, where, depth):
    # A review's route: "optional ../evil@_global_: x" was read as the path "optional ../evil", whose parts
    # ("optional ..", "evil") hold no "..", so Hydra loaded the file beside the folder unchecked.
    from experiments.common.command_line import HYDRA_ACTIONS, hydra_actions_in

    mine = tmp_path / "a" / "mine"
    (mine / "lineup").mkdir(parents=True)
    up = "/".join([".."] * depth) + "/evil"
    entry = {f"{keyword}{up}@_global_": "x"} if where == "group" else {f"{keyword}/lineup": f"{up}/x"}
    (mine / "mine.yaml").write_text(yaml.safe_dump({"defaults": ["tournament", entry, "_self_"]}))
    (mine / "lineup" / "plain.yaml").write_text(yaml.safe_dump({"defaults": [{"optional /lineup": "x"}]}))
    assert hydra_actions_in(mine) == [f"{mine / 'mine.yaml'}: {HYDRA_ACTIONS['..']} (..)"]


def test_a_tournament_refuses_an_optional_config_beside_its_folder_before_hydra_runs_it(tmp_path):
    marker = tmp_path / "ran"
    (tmp_path / "evil").mkdir()
    callback = yaml.safe_dump({"hydra": CALLBACK}).replace("{marker}", str(marker))
    (tmp_path / "evil" / "x.yaml").write_text("# @package _global_\n" + callback)
    (tmp_path / "mine").mkdir()
    defaults = {"defaults": ["tournament", {"optional ../evil@_global_": "x"}, "_self_"]}
    (tmp_path / "mine" / "mine.yaml").write_text(yaml.safe_dump(defaults))
    done = subprocess.run(
        [sys.executable, "-m", "experiments.tournament", "--config-dir", str(tmp_path / "mine"), "--config-name",
         "mine", *SHORT, f"output_dir={tmp_path / 'out'}"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert not marker.exists()  # Hydra never made the callback of the file beside the folder
    assert done.returncode == 2, done.stderr[-2000:]
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"config error: {tmp_path / 'mine' / 'mine.yaml'}: a config outside the folder"), (
        line
    )
    assert not (tmp_path / "out").exists()
