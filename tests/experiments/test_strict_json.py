"""The JSON files the commands write are strict JSON: a figure that is not a number is ``null``, never
``NaN`` (which Python writes and reads, but JavaScript's ``JSON.parse`` and strict parsers refuse).

- ``imitate`` with ``holdout=0`` has no held-out loss or agreement: ``history.json`` and
  ``evaluation.json`` held ``NaN``; ``plot_imitation`` draws such a run.
- ``train_ppo``'s explained variance of an update of one learner decision is NaN, and
  ``plot_training``'s exported curves (``training_curves.json``) held it.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

pytest.importorskip("torch")

from agents.ppo.network import NetworkSettings
from experiments.common.settings import GameSettings
from experiments.imitate import run
from experiments.learning.league import OpponentSettings
from experiments.learning.ppo_training import train, train_config
from experiments.learning.run_logs import CURVES_FILE, scalars
from experiments.plot_imitation import main as plot_imitation
from experiments.plot_training import export


def strict(path: Path) -> object:
    """``path``'s JSON, read as a strict parser reads it: ``NaN`` and ``Infinity`` are errors."""

    def refuse(constant: str) -> None:
        raise ValueError(f"{path.name} holds {constant}: not JSON")

    return json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)


def test_imitate_without_a_holdout_writes_null_where_it_has_no_held_out_figures(tmp_path):
    args = train_config(
        config_name="imitate", exp_name="all", runs_dir=str(tmp_path), progress=False, init_from=None,
        teacher=OpponentSettings("notepad"), opponents=[OpponentSettings("random")], games=4, batch=4, workers=1,
        network=NetworkSettings(hidden=[16], card_hidden=8), epochs=2, holdout=0.0,
        eval_opponents=[OpponentSettings("random")], final_eval_games=2,
    )  # fmt: skip
    folder = run(args)
    history = strict(folder / "history.json")
    assert [(row["holdout_loss"], row["holdout_agreement"]) for row in history] == [(None, None)] * 2
    assert all(math.isfinite(row["loss"]) for row in history)  # the fit's own loss is there
    report = strict(folder / "evaluation.json")
    assert report["imitation"]["holdout_loss"] is None and report["evaluation"]["random"]["games"] == 2
    plot_imitation([str(folder), "--png", str(tmp_path / "imitation.png")])
    assert (tmp_path / "imitation.png").stat().st_size > 0


def test_exported_curves_write_an_explained_variance_of_one_decision_as_null(tmp_path):
    """One game and one step an update: an update holds one learner decision or none, and the explained
    variance of one decision (no spread of the returns) is NaN."""
    args = train_config(
        runs_dir=str(tmp_path), exp_name="one", total_timesteps=3, num_envs=1, num_steps=1, num_minibatches=1,
        update_epochs=1, network=NetworkSettings(hidden=[16], card_hidden=8), game=GameSettings(max_turns=12),
        eval_every=0, final_eval_games=0, checkpoint_every=0, progress=False,
    )  # fmt: skip
    run_dir = train(args)
    steps, values = scalars(run_dir)["losses/explained_variance"]
    assert len(values) and all(math.isnan(v) for v in values)
    exported = tmp_path / "exported"
    export(scalars(run_dir), exported / CURVES_FILE)
    written = strict(exported / CURVES_FILE)["losses/explained_variance"]
    assert written == [steps.tolist(), [None] * len(values)]
    read_back = scalars(exported)  # (as plot_training reads a shipped model's curves)
    assert read_back["losses/explained_variance"][1].dtype == float
    assert all(math.isnan(v) for v in read_back["losses/explained_variance"][1])
