"""PPO from a trained policy: the critic learns alone first, a KL anchor holds the policy near its start, and
updates in bfloat16 or compiled move it as float32 eager ones do."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from agents.ppo.distributions import structured_kl  # noqa: E402
from agents.ppo.model import load_model, save_model  # noqa: E402
from agents.ppo.network import ActorCritic, NetworkSettings  # noqa: E402
from experiments.common.settings import GameSettings  # noqa: E402
from experiments.learning.league import OpponentSettings  # noqa: E402
from experiments.learning.ppo_training import TrainConfig, cpp_compiler, train, train_config  # noqa: E402
from tests.agents.test_ppo import playout_batch  # noqa: E402

SMALL_NET = NetworkSettings(hidden=[16, 16], card_hidden=8)
GAME = GameSettings(max_turns=12)


@pytest.fixture(scope="module")
def start_model(tmp_path_factory) -> Path:
    """A policy to start from: a small network with weights away from their initial values."""
    torch.manual_seed(3)
    network = ActorCritic(GAME.to_game_config(), SMALL_NET)
    with torch.no_grad():
        for parameter in network.parameters():
            parameter.add_(0.3 * torch.randn_like(parameter))
    return save_model(tmp_path_factory.mktemp("start") / "model.pt", network)


def tiny(runs: Path, start: Path, updates: int = 3, **changes) -> TrainConfig:
    """A run of a few updates of 16 games x 16 steps from ``start``, a high learning rate so that it moves."""
    values = dict(
        runs_dir=str(runs), exp_name="anchor", total_timesteps=updates * 16 * 16, num_envs=16, num_steps=16,
        num_minibatches=2, update_epochs=2, network=SMALL_NET, game=GAME, learning_rate=3e-3, anneal_lr=False,
        opponents=[OpponentSettings("random")], eval_every=0, final_eval_games=0, checkpoint_every=0,
        progress=False, init_from=str(start), snapshot_every=0,
    )  # fmt: skip
    return train_config(**{**values, **changes})


def trained(tmp_path: Path, start: Path, **changes) -> ActorCritic:
    return load_model(train(tiny(tmp_path, start, **changes)) / "model.pt")


@pytest.mark.parametrize("warmup, policy_moves", [(3, False), (0, True)], ids=["warmup", "control"])
def test_in_the_critic_warmup_only_the_value_head_learns(tmp_path, start_model, warmup, policy_moves):
    before = load_model(start_model).state_dict()
    after = trained(tmp_path, start_model, critic_warmup=warmup).state_dict()
    assert not torch.equal(after["value_head.weight"], before["value_head.weight"])
    moved = [
        name
        for name in before
        if not name.startswith("value_head.") and not torch.equal(after[name], before[name])
    ]
    assert bool(moved) == policy_moves, moved


def kl(p_network: ActorCritic, q_network: ActorCritic, obs: torch.Tensor, mask: torch.Tensor) -> float:
    """The mean ``KL(p || q)`` of two networks' policies over the observations."""
    with torch.no_grad():
        p, _ = p_network.policy(obs, mask)
        q, _ = q_network.policy(obs, mask)
        return float(structured_kl(p.log_probs, q.log_probs, p_network.structure).mean())


def test_the_anchor_keeps_the_policy_near_its_start(tmp_path, start_model):
    obs, mask = playout_batch(GAME.to_game_config(), games=32, steps=20)
    start = load_model(start_model)
    free = kl(start, trained(tmp_path / "free", start_model, anchor_coef=0.0), obs, mask)
    anchored = kl(
        start, trained(tmp_path / "anchored", start_model, anchor_coef=50.0, anchor_until=1.0), obs, mask
    )
    assert free > 0.01  # without the anchor the policy goes somewhere
    assert anchored < free / 3, (anchored, free)


def test_the_from_imitation_config_is_valid_and_bad_values_are_named():
    train_config(config_name="train_ppo_from_imitation").validate()
    with pytest.raises(ValueError, match=r"anchor_coef=0\.5 needs init_from"):
        train_config(anchor_coef=0.5).validate()
    for field, value in (("anchor_coef", -1.0), ("anchor_until", 0.0), ("critic_warmup", -1)):
        with pytest.raises(ValueError, match="need anchor_coef >= 0"):
            train_config(**{field: value}).validate()


def test_the_shipped_config_starts_from_the_imitation_policy():
    args = train_config(config_name="train_ppo_from_imitation")
    imitation = load_model(args.init_from)
    assert imitation.settings == args.network and imitation.game == args.game.to_game_config()
    assert args.anchor_coef > 0 and args.critic_warmup > 0
    assert {o.name for o in args.opponents} >= {"sat", "belief"}


@pytest.fixture(scope="module")
def float32_runs(tmp_path_factory, start_model) -> dict:
    """Observations to compare policies on, and the start, a float32 run from it and the same run with
    another seed (the distance two runs of one recipe end apart)."""
    runs = tmp_path_factory.mktemp("float32_runs")
    obs, mask = playout_batch(GAME.to_game_config(), games=32, steps=20)
    exact = trained(runs / "float32", start_model)
    return {
        "obs": obs,
        "mask": mask,
        "start": load_model(start_model),
        "float32": exact,
        "seed_apart": kl(exact, trained(runs / "seed", start_model, seed=2), obs, mask),
    }


def test_updates_in_bfloat16_move_the_policy_where_float32_ones_do(tmp_path, start_model, float32_runs):
    obs, mask, exact = float32_runs["obs"], float32_runs["mask"], float32_runs["float32"]
    fast = trained(tmp_path / "bfloat16", start_model, precision="bfloat16")
    moved, apart = kl(float32_runs["start"], exact, obs, mask), kl(exact, fast, obs, mask)
    assert moved > 0.01
    # bfloat16 moves it apart from float32 (above 0: it did run), less than another seed does
    assert 0 < apart < float32_runs["seed_apart"] / 4, (apart, float32_runs["seed_apart"], moved)


@pytest.mark.skipif(cpp_compiler() is None, reason="torch.compile needs a C++ compiler")
def test_compiled_updates_move_the_policy_where_eager_ones_do(tmp_path, start_model, float32_runs):
    obs, mask, exact = float32_runs["obs"], float32_runs["mask"], float32_runs["float32"]
    compiled = trained(tmp_path / "compiled", start_model, compile=True)
    assert kl(exact, compiled, obs, mask) < float32_runs["seed_apart"] / 20


def test_compile_without_a_cpp_compiler_is_refused_by_name(monkeypatch):
    monkeypatch.setenv("CXX", "no-such-compiler-here")
    with pytest.raises(ValueError, match=r"compile=true needs a C\+\+ compiler .* found none"):
        train_config(compile=True).validate()
    train_config(compile=False).validate()  # the default needs none
