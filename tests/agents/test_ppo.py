"""PPO: the masked distributions, the learner's games, the training script end to end, the agent."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
import yaml

torch = pytest.importorskip("torch")

from agents.arena import play_batch  # noqa: E402
from agents.baselines.random_agent import sample_legal  # noqa: E402
from agents.ppo.agent import DEFAULT_CHECKPOINT, PPOAgent  # noqa: E402
from agents.ppo.distributions import (  # noqa: E402
    MaskedCategorical,
    PolicyParts,
    StructuredCategorical,
    structured_kl,
)
from agents.ppo.games import OUTCOMES, LearnerGames, OpponentKind  # noqa: E402
from agents.ppo.model import load_model, save_model  # noqa: E402
from agents.ppo.network import GLOBAL_OUTPUTS, ActorCritic, NetworkSettings  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from cluedo_env import core  # noqa: E402
from tests.conftest import ROOT  # noqa: E402

CLASSIC = core.GameConfig(num_players=4)
SMALL = NetworkSettings(hidden=[32, 32], card_hidden=8, card_embedding=4)


def playout_batch(config: core.GameConfig, games: int = 64, steps: int = 30, seed: int = 0):
    """Observations (of the acting player) and masks along random playouts without accusations."""
    rules = core.rules_for(config)
    accuse = slice(rules.layout.ACCUSE, rules.layout.ACCUSE + rules.layout.sizes["accuse"])
    rng = np.random.default_rng(seed)
    state = core.init(config, np.arange(games) + seed)
    obs, masks = [], []
    for _ in range(steps):
        live = np.flatnonzero(~state.done)
        mask = core.legal_action_mask(state)
        obs.append(core.observe(state, state.current_player[live], live))
        masks.append(mask[live])
        calm = mask.copy()
        calm[:, accuse] = False
        calm |= mask & ~calm.any(axis=1, keepdims=True)
        actions = np.zeros(games, dtype=np.int64)
        actions[live] = sample_legal(rng, calm[live])
        core.step(state, actions)
    return torch.from_numpy(np.concatenate(obs)), torch.from_numpy(np.concatenate(masks))


def random_network(config: core.GameConfig = CLASSIC, settings: NetworkSettings = SMALL) -> ActorCritic:
    torch.manual_seed(0)
    network = ActorCritic(config, settings)
    with torch.no_grad():  # away from the near-uniform initial policy
        for parameter in network.parameters():
            parameter.add_(0.5 * torch.randn_like(parameter))
    return network


# --- distributions ----------------------------------------------------------------------


def test_masked_categorical_gives_illegal_actions_no_probability_no_samples_no_gradient():
    generator = torch.Generator().manual_seed(0)
    logits = (3 * torch.randn(200, 40, generator=generator)).requires_grad_()
    mask = torch.rand(200, 40, generator=generator) < 0.2
    at_least_one = torch.randint(0, 40, (200,), generator=generator)
    mask[torch.arange(200), at_least_one] = True
    dist = MaskedCategorical(logits, mask)
    assert torch.all(dist.probs[~mask] == 0)
    assert torch.allclose(dist.probs.sum(dim=1), torch.ones(200))
    samples = torch.stack([dist.sample(generator) for _ in range(300)], dim=1)  # [200, 300]
    assert mask.gather(1, samples).all()
    (dist.log_prob(samples[:, 0]).sum() + dist.entropy().sum()).backward()
    assert torch.all(logits.grad[~mask] == 0)
    assert torch.isfinite(logits.grad).all() and logits.grad[mask].abs().sum() > 0
    assert torch.equal(mask.gather(1, dist.mode()[:, None]).squeeze(1), torch.ones(200, dtype=torch.bool))


@pytest.mark.parametrize(
    "config",
    [
        CLASSIC,
        core.GameConfig(num_players=3, board="none"),
        core.GameConfig(num_players=6, movement="squares"),
    ],
    ids=["classic4", "none3", "squares6"],
)
def test_structured_distribution_equals_the_masked_one_on_the_flat_logits(config):
    network = random_network(config)
    obs, mask = playout_batch(config)
    with torch.no_grad():
        dist, _value = network.policy(obs, mask)
        flat = MaskedCategorical(network.logits(obs), mask)
        actions = flat.sample(torch.Generator().manual_seed(1))
        assert torch.allclose(dist.probs, flat.probs, atol=1e-6)
        assert torch.all(dist.probs[~mask] == 0)
        assert torch.allclose(dist.log_prob(actions), flat.log_prob(actions), atol=1e-4)
        assert torch.allclose(dist.entropy(), flat.entropy(), atol=1e-4)
        assert torch.equal(dist.mode(), flat.mode())
        generator = torch.Generator().manual_seed(2)
        samples = torch.stack([dist.sample(generator) for _ in range(50)], dim=1)
        assert mask.gather(1, samples).all()


@pytest.mark.parametrize(
    "config", [CLASSIC, core.GameConfig(num_players=3, board="none")], ids=["classic4", "none3"]
)
def test_structured_kl_equals_the_kl_of_the_flat_distributions(config):
    """PPO's anchor: KL(p || q) by parts is the sum over the legal flat actions of p log(p / q)."""
    obs, mask = playout_batch(config)
    p_network = random_network(config)
    torch.manual_seed(1)
    q_network = ActorCritic(config, SMALL)
    with torch.no_grad():
        p, _ = p_network.policy(obs, mask)
        q, _ = q_network.policy(obs, mask)
        flat_p = MaskedCategorical(p_network.logits(obs), mask).log_probs.double()
        flat_q = MaskedCategorical(q_network.logits(obs), mask).log_probs.double()
        flat = torch.where(mask, flat_p.exp() * (flat_p - flat_q), 0.0).sum(dim=1)
        kl = structured_kl(p.log_probs, q.log_probs, p_network.structure)
    assert torch.allclose(kl.double(), flat, atol=1e-4, rtol=1e-3)
    assert flat.mean() > 0.1  # two different policies: the comparison says something
    assert torch.allclose(structured_kl(p.log_probs, p.log_probs, p_network.structure), torch.zeros(len(obs)))


def test_structured_distribution_samples_with_the_right_frequencies():
    network = random_network()
    obs, mask = playout_batch(CLASSIC, games=16, steps=10)
    row = int(torch.nonzero(mask[:, core.rules_for(CLASSIC).layout.ACCUSE])[0, 0])  # accusations legal here
    with torch.no_grad():
        dist, _ = network.policy(obs[row : row + 1].expand(40000, -1), mask[row : row + 1].expand(40000, -1))
        counts = torch.bincount(dist.sample(torch.Generator().manual_seed(0)), minlength=mask.shape[1])
    assert torch.allclose(counts / 40000, dist.probs[0], atol=0.01)


def test_structured_distribution_gives_masked_blocks_and_atoms_zero_gradient():
    network = random_network()
    obs, mask = playout_batch(CLASSIC)
    structure = network.structure
    K = structure.K
    # Leaf tensors for the parts, so that their gradients can be read.
    with torch.no_grad():
        parts, _ = network(obs)
    top = parts.top.clone().requires_grad_()
    suggest = [lp.clone().requires_grad_() for lp in parts.suggest]
    accuse = [lp.clone().requires_grad_() for lp in parts.accuse]
    dist = StructuredCategorical(PolicyParts(top, tuple(suggest), tuple(accuse)), mask, structure)
    actions = dist.sample(torch.Generator().manual_seed(0))
    assert mask.gather(1, actions[:, None]).all()
    (dist.log_prob(actions).sum() + dist.entropy().sum()).backward()
    top_mask = dist.top_mask
    assert torch.all(top.grad[~top_mask] == 0) and top.grad[top_mask].abs().sum() > 0
    no_accusation = ~top_mask[:, K + 1]
    no_suggestion = ~top_mask[:, K]
    assert no_accusation.any() and no_suggestion.any()
    for grad in (lp.grad for lp in accuse):
        assert torch.all(grad[no_accusation] == 0)
    for grad in (lp.grad for lp in suggest):
        assert torch.all(grad[no_suggestion] == 0)
    # Through the network: an action masked in every row (no_move here) gets no gradient in its weights.
    mask = mask.clone()
    mask[:, core.rules_for(CLASSIC).layout.NO_MOVE] = False
    mask[~mask.any(dim=1), core.rules_for(CLASSIC).layout.ROLL] = True
    network.zero_grad()
    dist, _ = network.policy(obs, mask)
    (dist.log_prob(dist.sample()).sum() + dist.entropy().sum()).backward()
    row = GLOBAL_OUTPUTS.index("no_move")
    assert torch.all(network.global_head.weight.grad[row] == 0) and network.global_head.bias.grad[row] == 0
    assert network.global_head.weight.grad[GLOBAL_OUTPUTS.index("roll")].abs().sum() > 0


def test_structured_distribution_refuses_a_partly_legal_block():
    network = random_network()
    obs, mask = playout_batch(CLASSIC, games=4, steps=2)
    mask = mask.clone()
    mask[0, core.rules_for(CLASSIC).layout.ACCUSE] = ~mask[0, core.rules_for(CLASSIC).layout.ACCUSE]
    with pytest.raises(ValueError, match="partly legal"):
        network.policy(obs, mask)


# --- the learner's games ------------------------------------------------------------------


def test_learner_games_reward_and_redeal_and_opponents_forget_old_games():
    config = CLASSIC.replace(max_turns=40)
    games = LearnerGames(config, num_games=16, seed=3)
    games.set_pool([OpponentKind("notepad", "notepad")], [1.0])
    games.start()
    layout = core.rules_for(config).layout
    rng = np.random.default_rng(0)
    episodes = []
    for _ in range(400):
        ids, obs, mask = games.learner_turn()
        # the legal actions the table kept through its fused steps and deals are the core's
        assert np.array_equal(mask, core.legal_action_mask(games.state)[ids])
        assert obs.shape == (len(ids), core.observation_size(config))
        assert (games.state.current_player[ids] == games.learner_seat[ids]).all()
        assert (mask.sum(axis=1) > 1).all()  # forced decisions are played by the games
        # The learner accuses (at random) whenever it may: it is often wrong.
        accuse = mask[:, layout.ACCUSE]
        actions = sample_legal(rng, mask)
        actions[accuse] = layout.ACCUSE + rng.integers(0, layout.sizes["accuse"], accuse.sum())
        reward, over = games.step(actions)
        assert set(np.unique(reward[over])) <= {-1.0, 0.0, 1.0} and (reward[~over] == 0).all()
        for slot, agent in enumerate(games.table.agents["notepad"]):
            assert np.array_equal(agent.seats, (games.learner_seat + 1 + slot) % 4)
            # A game dealt this step: the notepad knows its own hand and nothing else.
            fresh = np.flatnonzero(over)
            hand = games.state._owner[fresh] == agent.seats[fresh, None]
            assert np.array_equal(agent.crossed[fresh], hand)
        episodes.append(games.pop_finished())
    outcome = np.concatenate([e["outcome"] for e in episodes])
    assert {OUTCOMES.index("wrong_accusation"), OUTCOMES.index("loss")} <= set(outcome.tolist())
    assert games.next_deal == 16 + len(outcome)
    assert set(np.concatenate([e["kind"] for e in episodes])) == {"notepad"}


def test_gae_follows_each_games_own_decisions():
    from experiments.learning.advantages import Rollout, compute_gae

    rollout = Rollout(num_envs=2, capacity=8)
    zeros = torch.zeros(1)
    # game 0 decides at steps 0, 2, 3 (its episode ends after step 2); game 1 at steps 1, 3
    for game in (0, 1, 0, 0, 1):
        rollout.add(np.array([game]), np.zeros((1, 1)), np.zeros((1, 1)), zeros, zeros, zeros)
        if rollout.size == 3:
            rollout.record(np.array([1.0, 0.0], dtype=np.float32), np.array([True, False]))
    values = np.array([0.1, 0.2, 0.3, 0.4, 0.5], dtype=np.float32)
    bootstrap = np.array([0.6, 0.7], dtype=np.float32)
    gamma, lam = 0.9, 0.5
    advantages = compute_gae(rollout, values, bootstrap, gamma, lam)
    # game 0: decisions 0 -> 2 (terminal, reward 1), then 3 -> bootstrap
    a3 = 0 + gamma * 0.6 - 0.4
    a2 = 1.0 - 0.3
    a0 = (0 + gamma * 0.3 - 0.1) + gamma * lam * a2
    # game 1: decisions 1 -> 4 -> bootstrap
    a4 = gamma * 0.7 - 0.5
    a1 = (gamma * 0.5 - 0.2) + gamma * lam * a4
    assert np.allclose(advantages, [a0, a1, a2, a3, a4], atol=1e-6)


# --- the agent ------------------------------------------------------------------------------


def test_ppo_agent_loads_a_model_and_plays_complete_games(tmp_path):
    path = save_model(tmp_path / "model.pt", random_network())
    config = CLASSIC.replace(max_turns=60)
    for deterministic in (False, True):
        agent = make_agent("ppo", seed=1, checkpoint=str(path), deterministic=deterministic)
        assert isinstance(agent, PPOAgent)
        others = [make_agent(name, seed=k) for k, name in enumerate(["random", "notepad", "random"], start=1)]
        # play_batch steps the core with check=True: an illegal action would raise
        result = play_batch(config, [agent, *others], np.arange(12), rotation=np.arange(12))
        assert len(result.winner) == 12 and (result.decisions > 0).all()
    state = core.init(config, np.arange(4))
    agent.reset(config, state.current_player.astype(np.int64))
    mask = core.legal_action_mask(state)
    probs = agent.action_probabilities(state, np.arange(4), mask)
    assert np.allclose(probs.sum(axis=1), 1) and (probs[~mask] == 0).all()
    with pytest.raises(ValueError, match="trained for"):
        agent.reset(core.GameConfig(num_players=5), np.zeros(2, dtype=np.int64))
    with pytest.raises(FileNotFoundError):
        PPOAgent(checkpoint=tmp_path / "missing.pt")


@pytest.mark.skipif(not DEFAULT_CHECKPOINT.exists(), reason="no shipped model")
def test_shipped_model_plays():
    agent = make_agent("ppo", seed=0)
    assert load_model(DEFAULT_CHECKPOINT).game == CLASSIC
    others = [make_agent("random", seed=k, accuse="never") for k in range(1, 4)]
    result = play_batch(CLASSIC, [agent, *others], np.arange(8), rotation=np.arange(8))
    assert len(result.winner) == 8


@pytest.mark.skipif(not DEFAULT_CHECKPOINT.exists(), reason="no shipped model")
@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("ppo", {}),
        ("ppo", {"checkpoint": "cluedo_learned_4p.pt"}),  # with belief features
        ("rllib", {"path": str(DEFAULT_CHECKPOINT)}),
        ("learned", {}),
    ],
    ids=["ppo", "ppo-learned-model", "rllib", "learned"],
)
def test_loading_a_network_agent_and_playing_it_leave_torchs_random_stream_as_it_was(name, options):
    torch.manual_seed(0)
    alone = torch.rand(8)
    torch.manual_seed(0)
    agent = make_agent(name, seed=1, **options)
    state = core.init(CLASSIC, np.arange(4))
    agent.reset(CLASSIC, state.current_player.astype(np.int64))
    agent.act(state, np.arange(4), core.legal_action_mask(state))
    assert torch.equal(torch.rand(8), alone)


@pytest.mark.skipif(not DEFAULT_CHECKPOINT.exists(), reason="no shipped model")
@pytest.mark.parametrize("checkpoint", ["cluedo_ppo_4p.pt", "cluedo_learned_4p.pt"])
def test_a_loaded_model_holds_the_files_weights_and_decides_as_a_network_loaded_over_its_own(checkpoint):
    stored = torch.load(DEFAULT_CHECKPOINT.parent / checkpoint, map_location="cpu", weights_only=True)
    agent = make_agent("ppo", seed=1, checkpoint=checkpoint)
    loaded = agent.network.state_dict()
    assert loaded.keys() == stored["state_dict"].keys()
    assert all(torch.equal(loaded[name], tensor) for name, tensor in stored["state_dict"].items())
    reference = ActorCritic(agent.network.game, agent.network.settings)
    reference.load_state_dict(stored["state_dict"])
    buffers = dict(reference.named_buffers())  # (those the file does not hold too)
    assert all(torch.equal(buffer, buffers[name]) for name, buffer in agent.network.named_buffers())
    state = core.init(CLASSIC, np.arange(4))
    seats, mask = state.current_player.astype(np.int64), core.legal_action_mask(state)
    expected = PPOAgent.from_network(reference, seed=1)
    for player in (agent, expected):
        player.reset(CLASSIC, seats)
    assert np.array_equal(
        agent.action_probabilities(state, np.arange(4), mask),
        expected.action_probabilities(state, np.arange(4), mask),
    )
    assert np.array_equal(agent.act(state, np.arange(4), mask), expected.act(state, np.arange(4), mask))


@pytest.mark.skipif(not DEFAULT_CHECKPOINT.exists(), reason="no shipped model")
def test_bfloat16_gives_float32_outputs_and_gradients_close_to_float32():
    """``precision="bfloat16"`` (training's ``precision``): the layers run in bfloat16, what comes out and
    the gradients are float32, and on the shipped model's decisions the probabilities stay within a few
    percent of float32's, well inside PPO's clipped ratio (0.2)."""
    network = load_model(DEFAULT_CHECKPOINT)
    obs, mask = playout_batch(network.game, games=32, steps=30)
    actions = network.policy(obs, mask)[0].sample(torch.Generator().manual_seed(0))
    results = {}
    for precision in ("float32", "bfloat16"):
        network.zero_grad()
        dist, value = network.policy(obs, mask, precision=precision)
        log_prob = dist.log_prob(actions)
        (log_prob.mean() + dist.entropy().mean() + value.pow(2).mean()).backward()
        grads = [p.grad for p in network.parameters() if p.grad is not None]
        assert log_prob.dtype == value.dtype == torch.float32 and all(g.dtype == torch.float32 for g in grads)
        results[precision] = log_prob.detach(), value.detach(), torch.cat([g.flatten() for g in grads])
    (exact, exact_value, exact_grad), (fast, fast_value, fast_grad) = results.values()
    gap = (exact - fast).abs()
    assert 1e-5 < gap.max() < 0.1, gap.max()  # above 0: bfloat16 did run
    assert gap.mean() < 0.01
    assert (exact_value - fast_value).abs().max() < 0.05
    assert torch.nn.functional.cosine_similarity(exact_grad, fast_grad, dim=0) > 0.999
    with pytest.raises(
        ValueError, match=r"precision must be one of \('float32', 'bfloat16'\), got 'float16'"
    ):
        network(obs, "float16")


# --- the training script ------------------------------------------------------------------


def run_training(*overrides: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "experiments.train_ppo", *overrides]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def test_training_script_runs_writes_logs_checkpoints_and_resumes_identically(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from experiments.learning.checkpoints import find_checkpoint

    runs = tmp_path / "runs"
    tiny = [
        f"runs_dir={runs}",
        "exp_name=tiny",
        "total_timesteps=3072",  # 4 updates of 16 games x 48 steps
        "num_envs=16",
        "num_steps=48",
        "num_minibatches=2",
        "update_epochs=2",
        "network.hidden=[32,32]",
        "network.card_hidden=8",
        "game.max_turns=12",  # games end (truncated at the latest) within each update
        "snapshot_every=1",
        "snapshot_start=0.5",
        "eval_every=2",
        "eval_games=4",
        "checkpoint_every=1",
        "keep_checkpoints=10",
        "final_eval_games=4",
        "progress=false",
        "knowledge_shaping=0.5",
    ]
    run_training(*tiny)
    (run_dir,) = runs.iterdir()
    assert run_dir.name.startswith("cluedo_v0__tiny__1__")
    checkpoints = sorted(p.name for p in (run_dir / "checkpoints").glob("update_*.pt"))
    assert checkpoints == [f"update_{u:06d}.pt" for u in (1, 2, 3, 4)]
    assert (run_dir / "model.pt").stat().st_size < 5_000_000
    assert (run_dir / "evaluation.json").exists()
    events = EventAccumulator(str(run_dir))
    events.Reload()
    scalars = set(events.Tags()["scalars"])
    for tag in (
        "charts/episodic_return",
        "charts/episodic_length",
        "charts/SPS",
        "charts/learning_rate",
        "charts/wrong_accusation_rate",
        "losses/policy_loss",
        "losses/value_loss",
        "losses/entropy",
        "losses/approx_kl",
        "losses/old_approx_kl",
        "losses/clipfrac",
        "losses/explained_variance",
        "eval/win_rate/random_never",
        "eval/win_rate/notepad",
    ):
        assert tag in scalars, tag
    assert any(tag.startswith("charts/win_rate/") for tag in scalars)
    assert "hyperparameters/text_summary" in events.Tags()["tensors"]

    # The learning-curve figure and the exported curves of the run.
    from experiments import plot_training

    plot_training.main([str(run_dir), "--json", str(tmp_path / "curves.json")])
    assert (run_dir / "learning_curve.png").stat().st_size > 10_000
    curves = json.loads((tmp_path / "curves.json").read_text())
    assert curves["eval/win_rate/notepad"][0] == [1536, 3072]  # evaluated every 2 updates of 768 agent-steps
    assert "losses/policy_loss" not in curves
    # Runs compared side by side (here the run with itself): one panel per evaluation opponent.
    plot_training.main(
        [str(run_dir), str(run_dir), "--labels", "a", "b", "--png", str(tmp_path / "both.png")]
    )
    assert (tmp_path / "both.png").stat().st_size > 10_000
    with pytest.raises(SystemExit):
        plot_training.main([str(run_dir), str(run_dir), "--labels", "a", "--png", str(tmp_path / "x.png")])
    # A folder that is not a run, a run's evaluation that is not one: one line each, no traceback.
    spoilt = tmp_path / "spoilt"
    shutil.copytree(run_dir, spoilt)
    for folder, content in (
        (tmp_path / "absent", None),
        (spoilt, "{bad"),
        (spoilt, '{"results": {"x": {"games": 0}}}'),
    ):
        if content is not None:
            (folder / "evaluation.json").write_text(content)
        with pytest.raises(SystemExit) as stop:
            plot_training.main([str(folder), "--png", str(tmp_path / "never.png")])
        assert stop.value.code == 2
    assert not (tmp_path / "never.png").exists()
    (spoilt / "evaluation.json").unlink()
    (spoilt / "config.yaml").write_text("seed: 1\n")  # a mapping, but not a training run's settings
    with pytest.raises(SystemExit) as stop:
        plot_training.main([str(spoilt), "--png", str(tmp_path / "never.png")])
    assert stop.value.code == 2 and not (tmp_path / "never.png").exists()

    # Resume a copy from update 2: the update counter goes on, and the run ends where the first one did.
    # The checkpoints of updates 3 and 4 are set aside, kept but no longer the run's latest (the new ones
    # were pruned before them, and resume=<run folder> took them after a stop).
    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    (copy / "model.pt").unlink()
    refused = subprocess.run(  # a resume refused after reading its checkpoint moves nothing
        [sys.executable, "-m", "experiments.train_ppo", f"resume={copy / 'checkpoints' / 'update_000002.pt'}",
         "keep_checkpoints=0", "progress=false"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert refused.returncode == 2 and "keep_checkpoints must be >= 1" in refused.stderr
    assert not list((copy / "checkpoints").glob("superseded_*"))
    result = run_training(f"resume={copy / 'checkpoints' / 'update_000002.pt'}", "progress=false")
    assert (
        str(copy) in result.stdout
        and "update_000004.pt (after the update resumed from) set aside" in result.stdout
    )
    aside = sorted(p.name for p in (copy / "checkpoints").glob("superseded_*/update_*.pt"))
    assert aside == ["update_000003.pt", "update_000004.pt"]
    assert sorted(p.name for p in (copy / "checkpoints").glob("update_*.pt"))[-1] == "update_000004.pt"
    resumed = torch.load(copy / "checkpoints" / "update_000004.pt", weights_only=True)
    original = torch.load(run_dir / "checkpoints" / "update_000004.pt", weights_only=True)
    assert resumed["update"] == 4 and resumed["global_step"] == original["global_step"] == 3072
    for name, tensor in original["model"]["state_dict"].items():
        assert torch.equal(tensor, resumed["model"]["state_dict"][name]), name
    assert [s["label"] for s in resumed["snapshots"]] == [s["label"] for s in original["snapshots"]]
    assert isinstance(make_agent("ppo", checkpoint=str(copy / "model.pt")), PPOAgent)
    assert find_checkpoint(copy) == copy / "checkpoints" / "update_000004.pt"  # resume=<run folder>


def test_a_checkpoint_file_outside_a_run_folder_is_refused(tmp_path):
    """Its run's events, model and checkpoints went to the folder above it, without a config.yaml."""
    from experiments.learning.checkpoints import run_folder

    loose = tmp_path / "saved" / "best" / "update_000002.pt"
    loose.parent.mkdir(parents=True)
    loose.write_bytes(b"")
    with pytest.raises(ValueError, match=r"not in a run folder's checkpoints/"):
        run_folder(loose)
    (tmp_path / "run" / "checkpoints").mkdir(parents=True)
    kept = tmp_path / "run" / "checkpoints" / "update_000002.pt"
    kept.write_bytes(b"")
    assert run_folder(kept) == tmp_path / "run" and run_folder(tmp_path / "run") == tmp_path / "run"


def test_training_config_errors_name_the_field():
    from experiments.learning.ppo_training import train_config

    with pytest.raises(ValueError, match="total_timesteps must be at least"):
        train_config(total_timesteps=10).validate()
    with pytest.raises(ValueError, match="num_envs must be >= 1"):
        train_config(num_envs=0).validate()
    with pytest.raises(ValueError, match=r"precision must be one of \('float32', 'bfloat16'\), got 'half'"):
        train_config(precision="half").validate()
    # not finite: they failed later, under other names (numpy's "Probabilities contain NaN", a diverged update)
    for name, said in (
        ("snapshot_weight", "snapshot_weight a finite number >= 0"),
        ("knowledge_shaping", "knowledge_shaping must be a finite number, got nan"),
        ("wrong_accusation_penalty", "wrong_accusation_penalty must be a finite number, got nan"),
    ):
        with pytest.raises(ValueError, match=said):
            train_config(**{name: float("nan")}).validate()
    kinds = train_config().opponents
    with pytest.raises(ValueError, match="need a finite weight >= 0"):
        train_config(opponents=[dataclasses.replace(kinds[0], weight=float("inf")), *kinds[1:]]).validate()


@pytest.mark.parametrize(
    ("change", "named"),
    [(lambda c: c["eval_opponents"][0].update(options=["x"]), "eval_opponents"),
     (lambda c: c["game"].update(num_players=0), "game.num_players"),
     (lambda c: c.update(eval_games=0), "eval_games"),
     (lambda c: c.pop("total_timesteps"), "total_timesteps"),
     (lambda c: c.update(total_timesteps=10**400), "total_timesteps")],
)  # fmt: skip
def test_plot_training_refuses_a_config_that_is_not_a_training_runs_by_name(tmp_path, change, named):
    """They raised AttributeError, ZeroDivisionError or KeyError while the figure was drawn."""
    from experiments import plot_training

    config = yaml.safe_load(
        (ROOT / "docs/results/2026-12-04-rl-from-imitation/anchor/config.yaml").read_text()
    )
    assert plot_training.run_config(ROOT / "docs/results/2026-12-04-rl-from-imitation/anchor") == config
    change(config)
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    with pytest.raises(ValueError, match=rf"not a PPO training config \({re.escape(named)} missing"):
        plot_training.run_config(tmp_path)
