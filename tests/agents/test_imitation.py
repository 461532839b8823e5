"""Imitation (agents.ppo.imitation, experiments.imitate): the recorder plays exactly as its teacher and
keeps what a learner in its seat would read; fitting the decisions makes the network choose them; the
run writes its batches as they end and a second start reuses them."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.arena import play_batch  # noqa: E402
from agents.ppo.features import learner_observation_size  # noqa: E402
from agents.ppo.imitation import Recorder, imitate  # noqa: E402
from agents.ppo.network import ActorCritic, NetworkSettings  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from cluedo_env import core  # noqa: E402
from experiments.imitate import run  # noqa: E402
from experiments.learning.league import OpponentSettings  # noqa: E402
from experiments.learning.ppo_training import train_config  # noqa: E402

CONFIG = core.GameConfig()
SEEDS = np.arange(6)


def test_recorder_plays_as_its_teacher_and_records_each_decision():
    recorder = Recorder(make_agent("notepad", seed=3))
    alone = play_batch(
        CONFIG, [make_agent("notepad", seed=3), *[make_agent("random", seed=k) for k in (1, 2, 3)]], SEEDS
    )
    recorded = play_batch(CONFIG, [recorder, *[make_agent("random", seed=k) for k in (1, 2, 3)]], SEEDS)
    np.testing.assert_array_equal(recorded.winner, alone.winner)
    np.testing.assert_array_equal(recorded.turns, alone.turns)
    observations, masks, actions = recorder.decisions()
    assert observations.shape == (len(actions), learner_observation_size(CONFIG, True))
    assert masks[np.arange(len(actions)), actions].all()  # every recorded action was legal where taken


def test_imitation_learns_the_recorded_choices():
    recorder = Recorder(make_agent("notepad", seed=0))
    play_batch(CONFIG, [recorder, *[make_agent("random", seed=k) for k in (1, 2, 3)]], SEEDS)
    observations, masks, actions = recorder.decisions()
    torch.manual_seed(0)
    network = ActorCritic(CONFIG, NetworkSettings(hidden=[32, 32], card_hidden=8, belief_features=True))
    history = list(
        imitate(
            network, observations, masks, actions, epochs=40, batch_size=64, learning_rate=3e-3, holdout=0.0
        )
    )
    assert history[-1]["loss"] < 0.5 * history[0]["loss"]
    with torch.no_grad():
        chosen = network.policy(torch.as_tensor(observations), torch.as_tensor(masks))[0].mode().numpy()
    assert (chosen == actions).mean() > 0.8


def test_run_writes_batches_as_they_end_and_reuses_them(tmp_path):
    args = train_config(
        config_name="imitate", exp_name="t", runs_dir=str(tmp_path), progress=False, teacher=OpponentSettings("notepad"),
        opponents=[OpponentSettings("random")], games=8, batch=4, workers=1, init_from=None,
        network=NetworkSettings(hidden=[16], card_hidden=4, belief_features=True), epochs=1,
        eval_opponents=[OpponentSettings("random")], final_eval_games=4,
    )  # fmt: skip
    folder = run(args)
    batches = sorted((folder / "decisions").glob("batch_*.npz"))
    assert [path.name for path in batches] == ["batch_00000.npz", "batch_00001.npz"]
    report = json.loads((folder / "evaluation.json").read_text())
    assert report["teacher"]["games"] == 8 and report["evaluation"]["random"]["games"] == 4
    stamps = [path.stat().st_mtime_ns for path in batches]
    run(args)  # started again: the batches on disk are not played again
    assert [path.stat().st_mtime_ns for path in batches] == stamps
    assert (folder / "model.pt").is_file()
    with pytest.raises(ValueError, match="other teacher"):  # another teacher may not reuse these decisions
        run(dataclasses.replace(args, teacher=OpponentSettings("random")))
    assert [path.stat().st_mtime_ns for path in batches] == stamps


def test_bad_settings_are_refused_by_name():
    with pytest.raises(ValueError, match="games must be >= 1"):
        train_config(config_name="imitate", games=0).validate()
    with pytest.raises(ValueError, match="init_from"):
        train_config(config_name="imitate", init_from="no_such_model.pt").validate()


def test_the_shipped_learning_agent_loads_by_name_and_conforms():
    from agents.ppo.model import SHIPPED, model_path
    from agents.testing import check_agent

    torch.set_num_threads(1)
    assert model_path("cluedo_ppo_imitation_4p.pt") == SHIPPED / "cluedo_ppo_imitation_4p.pt"
    assert str(model_path("elsewhere/cluedo_ppo_imitation_4p.pt")) == "elsewhere/cluedo_ppo_imitation_4p.pt"
    agent = make_agent("ppo", checkpoint="cluedo_ppo_imitation_4p.pt", deterministic=True)
    assert agent.network.settings.belief_features
    check_agent("ppo", options={"checkpoint": "cluedo_ppo_imitation_4p.pt", "deterministic": True})
    with pytest.raises(FileNotFoundError, match="nor a shipped model of that name"):
        make_agent("ppo", checkpoint="no_such_model.pt")
