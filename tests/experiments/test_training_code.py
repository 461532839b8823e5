"""A training run records its code: each session of a ``train_ppo`` run (the run, and each resume) adds
itself to the run folder's ``run.json`` (its start, package version, git revision, and the update it went
on from), a resume on other code than the run's earlier sessions says so in one warning line, and
``evaluation.json`` carries the package version. (``train_sb3``'s and ``train_rllib``'s ``run.json``:
tests/agents/test_sb3.py and test_rllib.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")

from agents.ppo.network import NetworkSettings
from cluedo_env import __version__
from experiments.common.code_revision import git_revision
from experiments.common.settings import GameSettings
from experiments.learning import run_logs
from experiments.learning.ppo_training import TrainConfig, train, train_config

A, B = "a" * 40, "b" * 40
UNRECORDED = "unrecorded code (no readable run.json names it: a run older than run.json wrote none)"


def tiny(runs: Path, updates: int = 1, **changes) -> TrainConfig:
    """A run of a few updates of 8 games x 16 steps, checkpointed after each update."""
    values = dict(
        runs_dir=str(runs), exp_name="code", total_timesteps=updates * 8 * 16, num_envs=8, num_steps=16,
        num_minibatches=2, update_epochs=1, network=NetworkSettings(hidden=[16], card_hidden=8),
        game=GameSettings(max_turns=12), eval_every=0, final_eval_games=0, checkpoint_every=1, progress=False,
    )  # fmt: skip
    return train_config(**{**values, **changes})


def on_revision(monkeypatch, revision: str) -> None:
    """Sessions started from now on see the code at ``revision`` (a clean tree)."""
    monkeypatch.setattr(run_logs, "git_revision", lambda: {"revision": revision, "dirty": False})


def sessions(run_dir: Path) -> list[dict]:
    return json.loads((run_dir / "run.json").read_text())["sessions"]


def warnings(said: str) -> list[str]:
    return [line for line in said.splitlines() if line.startswith("warning")]


def test_a_run_and_each_resume_record_their_code_in_run_json(tmp_path, capsys):
    run_dir = train(tiny(tmp_path, final_eval_games=2))
    (first,) = sessions(run_dir)
    assert first["version"] == __version__ and first["git"] == git_revision()  # this checkout's
    assert first["trained_before"] == {"update": 0, "global_step": 0} and first["started"]
    assert json.loads((run_dir / "evaluation.json").read_text())["cluedo_env_version"] == __version__

    train(tiny(tmp_path, updates=2, resume=str(run_dir)))
    assert [s["trained_before"] for s in sessions(run_dir)] == [
        {"update": 0, "global_step": 0},
        {"update": 1, "global_step": 8 * 16},
    ]
    assert warnings(capsys.readouterr().out) == []  # one code throughout


def test_a_resume_on_other_code_says_so_in_one_warning_line(tmp_path, monkeypatch, capsys):
    on_revision(monkeypatch, A)
    run_dir = train(tiny(tmp_path))
    assert warnings(capsys.readouterr().out) == []
    on_revision(monkeypatch, B)
    train(tiny(tmp_path, updates=2, resume=str(run_dir)))
    (line,) = warnings(capsys.readouterr().out)
    assert line == (
        f"warning: {run_dir} was trained by other code than this session's: 1 session by revision {A}; this "
        f"session is revision {B}. What a run learns can change with the code; start a new run to train under "
        "this code alone"
    )
    assert [s["git"]["revision"] for s in sessions(run_dir)] == [A, B]


@pytest.mark.parametrize("run_json", [None, "not JSON", {"sessions": [{"version": "x\x1b[2J", "git": {}}]}])
def test_a_resume_of_a_run_that_recorded_no_code_says_so(tmp_path, monkeypatch, capsys, run_json):
    """A run of a train_ppo older than run.json (0.1.0's), or whose run.json is lost or not one this code
    writes: the training before this session is of unrecorded code, and stays so for the next resume."""
    on_revision(monkeypatch, A)
    run_dir = train(tiny(tmp_path))
    (run_dir / "run.json").unlink()
    if run_json is not None:
        (run_dir / "run.json").write_text(run_json if isinstance(run_json, str) else json.dumps(run_json))
    train(tiny(tmp_path, updates=2, resume=str(run_dir)))
    (line,) = warnings(capsys.readouterr().out)
    assert f"than this session's: the training before this session by {UNRECORDED}; this session is " in line
    train(tiny(tmp_path, updates=3, resume=str(run_dir)))
    (line,) = warnings(capsys.readouterr().out)
    assert (
        f"than this session's: the training before its first recorded session by {UNRECORDED}; 1 session by "
        f"revision {A}; this session is revision {A}." in line
    )
    assert [s["trained_before"]["update"] for s in sessions(run_dir)] == [1, 2]
