"""Edges of the learning commands: settings refused before anything is played, rollouts without a
learner decision, the evaluation's labels, and what the plots and guides say of the shipped runs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import experiments.imitate  # noqa: E402, F401  (registers imitate_schema)
from agents.ppo.model import load_model, save_model  # noqa: E402
from agents.ppo.network import ActorCritic, NetworkSettings  # noqa: E402
from experiments.common.settings import GameSettings  # noqa: E402
from experiments.common.value_checks import ConfigError  # noqa: E402
from experiments.learning.advantages import Rollout, compute_gae  # noqa: E402
from experiments.learning.evaluation import evaluate  # noqa: E402
from experiments.learning.league import OpponentSettings  # noqa: E402
from experiments.learning.ppo_training import TrainConfig, train, train_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SMALL_NET = NetworkSettings(hidden=[16], card_hidden=8)
TWO_RANDOMS = [OpponentSettings("random"), OpponentSettings("random", {"accuse": "never"})]


def tiny(runs: Path, updates: int, **changes) -> TrainConfig:
    """A run of ``updates`` updates of one game x 8 steps: some rollouts hold no decision of the learner."""
    values = dict(
        runs_dir=str(runs), exp_name="edges", total_timesteps=updates * 8, num_envs=1, num_steps=8,
        num_minibatches=1, update_epochs=1, network=SMALL_NET, eval_every=0, final_eval_games=0,
        checkpoint_every=1, keep_checkpoints=100, progress=False, seed=1,
    )  # fmt: skip
    return train_config(**{**values, **changes})


def test_train_ppo_refuses_to_play_on_after_the_learners_elimination():
    # its result would come when the game ends, mostly in a later rollout with no decision of its own
    train_config().validate()
    with pytest.raises(ConfigError, match="end_episode_on_elimination=false is not supported"):
        train_config(end_episode_on_elimination=False).validate()


def test_eval_opponents_need_distinct_labels_in_train_ppo_and_imitate():
    for config in (train_config(eval_opponents=TWO_RANDOMS),
                   train_config(config_name="imitate", eval_opponents=TWO_RANDOMS)):  # fmt: skip
        with pytest.raises(
            ConfigError, match=r"eval_opponents need distinct labels .*\['random'\] more than once"
        ):
            config.validate()
    labelled = [TWO_RANDOMS[0], OpponentSettings("random", {"accuse": "never"}, label="random_never")]
    train_config(eval_opponents=labelled).validate()
    # evaluate itself keeps no two kinds under one label (one's results replaced the other's)
    network = ActorCritic(GameSettings(max_turns=6).to_game_config(), SMALL_NET)
    with pytest.raises(ValueError, match="distinct labels"):
        evaluate(network, network.game, TWO_RANDOMS, 2, deterministic=True)
    assert set(evaluate(network, network.game, labelled, 2, deterministic=True)) == {"random", "random_never"}


@pytest.mark.parametrize(
    "model_game, model_net, named",
    [
        (GameSettings(), NetworkSettings(hidden=[24, 24]), "network.hidden"),
        (GameSettings(num_players=3), None, "num_players"),
    ],
    ids=["hidden", "players"],
)
def test_an_init_from_of_another_network_is_refused_before_any_game(tmp_path, model_game, model_net, named):
    def network_settings(config):
        return model_net or config.network

    for config_name in ("train_ppo", "imitate"):
        config = train_config(config_name=config_name, runs_dir=str(tmp_path / "runs"))
        model = ActorCritic(model_game.to_game_config(), network_settings(config))
        path = save_model(tmp_path / f"{config_name}.pt", model)
        with pytest.raises(ConfigError, match=rf"init_from='.*{config_name}\.pt' cannot start .*{named}"):
            train_config(config_name=config_name, init_from=str(path)).validate()
        assert not (tmp_path / "runs").exists()  # nothing played, nothing written
    # the same network (belief features aside) is accepted
    config = train_config(init_from=None)
    fitting = save_model(tmp_path / "fits.pt", ActorCritic(config.game.to_game_config(), config.network))
    train_config(init_from=str(fitting)).validate()


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_anchor_coef_must_be_finite(tmp_path, value):
    config = train_config(config_name="train_ppo_from_imitation")
    config.validate()
    config.anchor_coef = value
    with pytest.raises(ConfigError, match=r"need anchor_coef >= 0 \(a finite number\)"):
        config.validate()


def test_a_rollout_without_a_learner_decision_has_no_advantages():
    rollout = Rollout(num_envs=3, capacity=6)
    rollout.record(np.zeros(3, np.float32), np.array([False, True, False]))
    advantages = compute_gae(rollout, np.zeros(0, np.float32), np.zeros(3, np.float32), 0.99, 0.95)
    assert advantages.shape == (0,)


def test_a_run_goes_on_past_rollouts_without_a_learner_decision_and_resumes_exactly(tmp_path, capsys):
    run = train(tiny(tmp_path / "runs", updates=10))
    skipped = [
        line for line in capsys.readouterr().out.splitlines() if "holds no decision of the learner" in line
    ]
    assert skipped  # (seed 1: some of its rollouts of 8 core steps have no turn of the learner)
    whole = load_model(run / "model.pt").state_dict()
    # resumed from the checkpoint of a skipped update, it ends where the whole run did
    update = int(skipped[0].split()[1].rstrip(":"))
    checkpoint = run / "checkpoints" / f"update_{update:06d}.pt"
    again = train(tiny(tmp_path / "runs", updates=10, resume=str(checkpoint)), resume_overrides=[])
    resumed = load_model(again / "model.pt").state_dict()
    assert all(torch.equal(whole[name], resumed[name]) for name in whole)


def test_the_snapshots_line_and_the_guides_agree_with_the_shipped_runs():
    from experiments.plot_training import curriculum_events, first_snapshot, run_config

    config = run_config(ROOT / "agents/ppo/shipped")
    # snapshots join after update 400 of 763 (the first multiple of 25 from half the updates on)
    assert first_snapshot(config) == 400 * 1024 * 64
    assert (400 * 1024 * 64, "snapshots of the learner join") in curriculum_events(config)
    # a pool that keeps no snapshot, or never draws one, has none joining
    assert first_snapshot(config | {"max_snapshots": 0}) is None
    assert first_snapshot(config | {"snapshot_weight": 0.0}) is None
    assert "the smaller dip at 26.2M is its own snapshots" in (ROOT / "docs/guides/ppo.md").read_text()
    history = json.loads((ROOT / "agents/ppo/shipped/imitation_history.json").read_text())
    loss = f"{history[-1]['holdout_loss']:.3f}"
    guide = (ROOT / "docs/guides/imitation.md").read_text()
    assert f"at the end {loss} nats per decision" in guide
    assert f"| the recipe (`imitate`) | {loss} / " in guide


def test_imitate_started_again_sets_the_earlier_runs_curves_aside(tmp_path, capsys):
    """A run started again under the same exp_name wrote its events beside the earlier run's: TensorBoard
    showed both runs' curves in one (imitation/loss at epochs 1, 2, 1) and the earlier final evaluation."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from experiments.imitate import run

    def curves(folder: Path) -> dict[str, list[int]]:
        events = EventAccumulator(str(folder), size_guidance={"scalars": 0})
        events.Reload()
        return {tag: [e.step for e in events.Scalars(tag)] for tag in events.Tags()["scalars"]}

    args = train_config(
        config_name="imitate", exp_name="again", runs_dir=str(tmp_path), progress=False, init_from=None,
        teacher=OpponentSettings("notepad"), opponents=[OpponentSettings("random")], games=4, batch=4, workers=1,
        network=SMALL_NET, epochs=2, eval_opponents=[OpponentSettings("random")], final_eval_games=2,
    )  # fmt: skip
    folder = run(args)
    assert "set aside" not in capsys.readouterr().out  # nothing earlier to move
    run(dataclasses.replace(args, epochs=1, final_eval_games=0))
    assert curves(folder) == {f"imitation/{k}": [1] for k in ("loss", "holdout_loss", "holdout_agreement")}
    assert len(json.loads((folder / "history.json").read_text())) == 1
    (aside,) = folder.glob("superseded_*")  # the earlier run's curves, kept: a run of their own
    assert curves(aside)["imitation/loss"] == [1, 2] and curves(aside)["final_eval/win_rate/random"] == [2]
    assert f"set aside in {aside}" in capsys.readouterr().out
    assert (
        "TensorBoard events into `superseded_<time>_<random>/`"
        in (ROOT / "docs/guides/imitation.md").read_text()
    )


def test_a_warm_start_names_the_first_difference_in_a_short_message(tmp_path):
    """It listed the columns the network lacked (1,283 characters for the imitation model) and the two
    game configs whole."""
    from agents.ppo.warm_start import _column_sources, warm_start

    with pytest.raises(ConfigError) as refused:  # the shipped imitation model reads belief features
        train_config(init_from="cluedo_ppo_imitation_4p.pt").validate()
    said = str(refused.value)
    assert "model was trained with belief features" in said and "set network.belief_features=true" in said
    assert len(said) < 300, said
    four, three = GameSettings().to_game_config(), GameSettings(num_players=3).to_game_config()
    with pytest.raises(ValueError) as refused:
        warm_start(ActorCritic(three, SMALL_NET), ActorCritic(four, SMALL_NET))
    assert str(refused.value) == (
        "warm start: the trained network plays num_players=4, this one num_players=3; the game must agree"
    )
    with pytest.raises(ValueError) as refused:
        _column_sources([("core", 0), ("belief", 700), ("belief", 701)], [("core", 0)], "trunk")
    assert str(refused.value) == (
        "warm start: the trained network's trunk layer reads observation column 700 (a belief piece), "
        "which this network's does not (2 such input columns)"
    )


def test_the_final_evaluation_prints_no_mean_turns_where_no_game_ended(tmp_path, monkeypatch, capsys):
    """Every game stopped at the learner's wrong accusation: mean_turns is None, and the line said 0.0."""
    from types import SimpleNamespace

    from experiments.learning import evaluation

    result = {"games": 2, "wins": 0, "win_rate": 0.0, "wrong_accusations": 2, "wrong_accusation_rate": 1.0,
              "truncated": 0, "mean_turns": None}  # fmt: skip
    monkeypatch.setattr(evaluation, "evaluate", lambda *args, **kwargs: {"random": result})
    args = SimpleNamespace(eval_opponents=[OpponentSettings("random")], final_eval_games=2,
                           eval_deterministic=True, progress=False, game=GameSettings())  # fmt: skip
    writer = SimpleNamespace(add_scalar=lambda *args: None)
    evaluation.final_evaluation(None, GameSettings().to_game_config(), args, tmp_path, writer, step=8)
    assert capsys.readouterr().out.rstrip().endswith("wrong accusations 1.000; mean turns n/a")
    assert json.loads((tmp_path / "evaluation.json").read_text())["results"]["random"]["mean_turns"] is None
