"""A training checkpoint's weights are checked before a resume uses them.

``experiments.train_ppo`` loaded the learner's weights and its league snapshots from a checkpoint
without the checks a model file gets (``agents.ppo.model.check_weights``): a snapshot with a NaN
weight joined the pool of opponents and played. Now a resume refuses it, naming the checkpoint,
the snapshot and the tensor. The RLlib module's ``model_config`` gets the checks of a model file's
network settings too, before anything is allocated.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from agents.ppo.network import NetworkSettings  # noqa: E402
from experiments.common.settings import GameSettings  # noqa: E402
from experiments.learning.checkpoints import load_checkpoint  # noqa: E402
from experiments.learning.ppo_training import TrainConfig, train, train_config  # noqa: E402


def tiny(runs: Path, updates: int, **changes) -> TrainConfig:
    """A run of a few updates of 4 games, a snapshot of the learner after each update."""
    values = dict(
        runs_dir=str(runs), exp_name="tiny", total_timesteps=updates * 4 * 8, num_envs=4, num_steps=8,
        num_minibatches=1, update_epochs=1, network=NetworkSettings(hidden=[16], card_hidden=8),
        game=GameSettings(max_turns=3), eval_every=0, final_eval_games=0, checkpoint_every=1, progress=False,
        snapshot_every=1, snapshot_start=0.0,
    )  # fmt: skip
    return train_config(**{**values, **changes})


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    return train(tiny(tmp_path_factory.mktemp("runs"), updates=2))


def altered(run: Path, folder: Path, change) -> Path:
    """A copy of the run's latest checkpoint, changed by ``change(checkpoint)``, in a run folder of its own."""
    _, checkpoint = load_checkpoint(run)
    change(checkpoint)
    path = folder / "run" / "checkpoints" / "update_000002.pt"
    path.parent.mkdir(parents=True)
    torch.save(checkpoint, path)
    return path


def resume(path: Path, runs: Path) -> Path:
    return train(
        tiny(runs, updates=3, resume=str(path)), resume_overrides=[f"resume={path}", "total_timesteps=96"]
    )


def test_the_genuine_checkpoint_resumes(run, tmp_path):
    path = altered(run, tmp_path, lambda checkpoint: None)
    assert load_checkpoint(path)[1]["snapshots"], "the run took snapshots"
    resume(path, tmp_path)
    assert load_checkpoint(path.parent.parent)[1]["update"] == 3


def test_a_snapshot_with_a_nan_weight_is_refused_by_its_tensor(run, tmp_path):
    def poison(checkpoint: dict) -> None:
        snapshot = checkpoint["snapshots"][-1]
        name = sorted(snapshot["state_dict"])[0]
        snapshot["state_dict"][name].view(-1)[0] = math.nan

    path = altered(run, tmp_path, poison)
    _, checkpoint = load_checkpoint(path)
    snapshot = checkpoint["snapshots"][-1]
    name = sorted(snapshot["state_dict"])[0]
    with pytest.raises(ValueError) as error:
        resume(path, tmp_path)
    message = str(error.value)
    assert str(path) in message and f"snapshot {snapshot['label']!r}" in message
    assert f"tensor {name!r} holds 1 NaN or infinite values" in message
    assert load_checkpoint(path.parent.parent)[1]["update"] == 2  # nothing was written


def test_a_learner_weight_of_another_shape_or_infinite_is_refused(run, tmp_path):
    def widen(checkpoint: dict) -> None:
        weights = checkpoint["model"]["state_dict"]
        name = next(k for k, v in weights.items() if v.ndim == 2)
        weights[name] = torch.zeros(weights[name].shape[0] + 1, weights[name].shape[1])

    with pytest.raises(ValueError, match=r"the learner: the model does not fit .* has shape"):
        resume(altered(run, tmp_path / "wide", widen), tmp_path)

    def infinite(checkpoint: dict) -> None:
        weights = checkpoint["model"]["state_dict"]
        weights[sorted(weights)[-1]].view(-1)[0] = math.inf

    with pytest.raises(ValueError, match=r"the learner: tensor .* holds 1 NaN or infinite values"):
        resume(altered(run, tmp_path / "inf", infinite), tmp_path)


def test_snapshots_that_are_not_a_list_of_snapshots_are_refused(run, tmp_path):
    def scramble(checkpoint: dict) -> None:
        checkpoint["snapshots"] = {"snapshot_1": 3}

    with pytest.raises(ValueError, match=r"its snapshots must be a list of dicts, got dict"):
        resume(altered(run, tmp_path, scramble), tmp_path)


# -- the RLlib module ------------------------------------------------------------------------------


def test_the_rllib_modules_network_settings_are_checked_before_allocation():
    pytest.importorskip("ray.rllib")
    from agents.integrations.rllib_module import checked_model_config
    from agents.ppo.model import MAX_PARAMETERS, game_config_to_dict
    from cluedo_env import core

    game = game_config_to_dict(core.GameConfig(num_players=3))
    assert checked_model_config({"game": game, "network": {"hidden": [16]}})[1].hidden == [16]
    with pytest.raises(ValueError, match=r"model_config\['network'\]: hidden must be a list of 1 to 64"):
        checked_model_config({"game": game, "network": {"hidden": [0]}})
    with pytest.raises(ValueError, match=r"model_config\['network'\]: .*unexpected keyword argument 'depth'"):
        checked_model_config({"game": game, "network": {"depth": 3}})
    with pytest.raises(ValueError, match=r"model_config\['network'\]: accuse_prior must be a finite number"):
        checked_model_config({"game": game, "network": {"accuse_prior": math.nan}})
    with pytest.raises(ValueError, match=rf"more than the {MAX_PARAMETERS:,} a model may have"):
        checked_model_config({"game": game, "network": {"hidden": [65_536, 65_536]}})  # 4.3e9 weights
    with pytest.raises(ValueError, match=r"model_config\['game'\]"):
        checked_model_config({"game": {**game, "num_players": 99}, "network": {}})
