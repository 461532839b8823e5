"""RLlib PPO on Cluedo: the masked RLModule, one training iteration, checkpoint restore, the exported policy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

import ray
import torch
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf
from ray.rllib.core.columns import Columns

from agents.baselines.random_agent import RandomAgent
from agents.integrations.rllib_agent import RLlibAgent, exported_model
from agents.integrations.rllib_module import module_spec
from agents.ppo.distributions import MASKED_LOGIT
from agents.ppo.model import load_model
from agents.ppo.network import ActorCritic, NetworkSettings
from agents.registry import make_agent
from cluedo_env import __version__, core
from cluedo_env.gym_env import CluedoSingleAgentEnv
from experiments.common.code_revision import git_revision
from experiments.common.folder_lock import FolderInUse, lock_folder
from experiments.common.settings import load_config
from experiments.common.tournament_run import run_tournament
from experiments.common.value_checks import ConfigError
from experiments.learning.rllib_algorithm import (
    DECISIONS,
    decisions_sampled,
    make_fixed_opponents_env,
    network_of,
)
from experiments.train_rllib import RLlibConfig, Run, train
from tests.conftest import ROOT, config_without_deal

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
SMALL_GAME = {"num_players": 3, "max_turns": 40}  # short games keep the tests quick
SMALL_NETWORK = NetworkSettings(hidden=[16], card_hidden=8, card_embedding=2)


@pytest.fixture(scope="module")
def local_ray():
    """One Ray session for the module (starting Ray takes seconds)."""
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def small_config(tmp_path: Path, *overrides: str) -> RLlibConfig:
    """The shipped config, made tiny: sampling in the driver, one small iteration at a time."""
    with initialize_config_dir(config_dir=str(CONFIGS), version_base=None):
        cfg = compose(
            "train_rllib",
            overrides=[
                "game.num_players=3",
                "game.max_turns=40",
                "network.hidden=[16]",
                "network.card_hidden=8",
                "network.card_embedding=2",
                "num_env_runners=0",
                "num_envs_per_env_runner=2",
                "train_batch_size=128",
                "minibatch_size=64",
                "num_epochs=1",
                "total_timesteps=1",  # one iteration
                "eval_every=0",
                "final_eval_games=3",
                "checkpoint_every=1",
                "progress=false",
                f"runs_dir={tmp_path}",
                *overrides,
            ],
        )
    return OmegaConf.to_object(cfg)


def observations(num: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``num`` observations and masks of the learner in real games against random players."""
    env = CluedoSingleAgentEnv(opponents=[RandomAgent(seed=k) for k in (1, 2)], **SMALL_GAME)
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    observation, _ = env.reset(seed=seed)
    while len(obs) < num:
        obs.append(observation["observation"])
        masks.append(observation["action_mask"])
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        observation, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            observation, _ = env.reset()
    return np.stack(obs), np.stack(masks)


# -- the masked module -----------------------------------------------------------------------------------


def test_the_module_refuses_belief_features_the_env_does_not_compute():
    with pytest.raises(ValueError, match="belief_features"):
        module_spec(core.GameConfig(**SMALL_GAME), NetworkSettings(belief_features=True))


def test_the_masked_module_never_samples_an_illegal_action():
    game = core.GameConfig(**SMALL_GAME)
    module = module_spec(game, SMALL_NETWORK).build()
    obs, masks = observations(200)
    batch = {Columns.OBS: {"observation": torch.from_numpy(obs), "action_mask": torch.from_numpy(masks)}}
    with torch.no_grad():
        logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    legal = torch.from_numpy(masks).bool()
    assert (logits[~legal] == MASKED_LOGIT).all() and (logits[legal] > MASKED_LOGIT / 2).all()
    distribution = module.get_exploration_action_dist_cls().from_logits(logits)
    torch.manual_seed(0)
    for _ in range(50):  # 10,000 draws from RLlib's own distribution class
        actions = distribution.sample()
        assert legal[torch.arange(len(actions)), actions].all()
    probs = torch.softmax(logits, dim=1)
    assert (probs[~legal] == 0).all()  # exactly 0, not merely small


def test_the_module_gives_the_pickle_free_networks_values_and_training_keeps_one_pass():
    game = core.GameConfig(**SMALL_GAME)
    module = module_spec(game, SMALL_NETWORK).build()
    obs, masks = observations(20, seed=3)
    batch = {Columns.OBS: {"observation": torch.from_numpy(obs), "action_mask": torch.from_numpy(masks)}}
    out = module.forward_train(batch)
    with torch.no_grad():
        values = module.compute_values(batch)
        expected = module.network(torch.from_numpy(obs))[1]
    assert torch.equal(values, expected) and torch.allclose(out[Columns.EMBEDDINGS], expected)


def test_the_module_refuses_an_action_space_of_other_rules():
    spec = module_spec(core.GameConfig(**SMALL_GAME), SMALL_NETWORK)
    spec.action_space = type(spec.action_space)(spec.action_space.n + 1)
    with pytest.raises(ValueError, match="does not fit the network's"):
        spec.build()


# -- the env -----------------------------------------------------------------------------------------------


def test_the_fixed_opponent_env_shapes_with_seen_cards_and_keeps_fixed_shape_infos():
    env_config = {
        "game": SMALL_GAME,
        "seed": 1,
        "reward_scheme": "win_loss",
        "elimination_reward": -1.0,
        "knowledge_shaping": 1.0,
        "gamma": 1.0,
        "opponent": {"name": "random", "options": {"accuse": "never"}},
    }
    env = make_fixed_opponents_env(env_config)
    observation, info = env.reset(seed=5)
    assert "events" not in info
    C = env.unwrapped.config.cards.num_cards
    start = env.potential
    total, done, rng = 0.0, False, np.random.default_rng(0)
    while not done:
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        observation, reward, terminated, truncated, info = env.step(action)
        total, done = total + reward, terminated or truncated
        assert "events" not in info
    # before any card is seen the potential is -(unseen - 3) / (C - 3), unseen = C - the hand's (C - 3) / P
    assert start == pytest.approx(-(C - (C - 3) // 3 - 3) / (C - 3))
    # with gamma 1 the shaping telescopes to -start (phi is 0 at the end): the game's reward is left
    assert round(total + start, 6) in (-1.0, 0.0, 1.0)


# -- training, checkpoints and resume ---------------------------------------------------------------------


def test_one_iteration_trains_checkpoints_and_resumes_where_it_stopped(local_ray, tmp_path):
    run_dir = train(small_config(tmp_path))
    checkpoint = run_dir / "checkpoints" / "iteration_000001"
    progress = json.loads((checkpoint / "progress.json").read_text())
    assert progress["iteration"] == 1 and progress["agent_steps"] >= 128  # the learner's and the opponents'
    final = [json.loads(line) for line in (run_dir / "evaluations.json").read_text().splitlines()]
    result = final[-1]["results"]["random_never"]
    assert (
        final[-1]["final"]
        and result["games"] == 3
        and result["win_low"] <= result["win_rate"] <= result["win_high"]
    )
    assert any(run_dir.glob("events.out.tfevents.*"))
    saved = load_model(checkpoint / "cluedo_model.pt").state_dict()

    resumed = Run(small_config(tmp_path, f"resume={run_dir}", "total_timesteps=100000", "trust_files=true"))
    written = OmegaConf.load(run_dir / "config.yaml")  # the budget raised, for the next resume to go on with
    assert (written.total_timesteps, written.resume, written.trust_files) == (100000, None, False)
    try:
        restored = network_of(resumed.algo, "default_policy", resumed.cfg).state_dict()
        assert all(torch.equal(saved[name], restored[name]) for name in saved)  # the weights, exactly
        assert (resumed.agent_steps, resumed.iteration, resumed.run_dir) == (
            progress["agent_steps"],
            1,
            run_dir,
        )
        resumed.cfg.total_timesteps = progress["agent_steps"] + 1  # one more iteration
        resumed.train()
    finally:
        resumed.algo.stop()
    with pytest.raises(ValueError, match="other values of learning_rate"):
        Run(small_config(tmp_path, f"resume={run_dir}", "learning_rate=0.1", "trust_files=true"))
    latest = json.loads((run_dir / "checkpoints" / "iteration_000002" / "progress.json").read_text())
    assert latest["iteration"] == 2 and latest["agent_steps"] > progress["agent_steps"]
    # the run and its resume record their code; the refused resume does not
    sessions = json.loads((run_dir / "run.json").read_text())["sessions"]
    assert [s["trained_before"] for s in sessions] == [
        {"iteration": 0, "agent_steps": 0},
        {"iteration": 1, "agent_steps": progress["agent_steps"]},
    ]
    assert all((s["version"], s["git"]) == (__version__, git_revision()) for s in sessions)


def test_a_resume_unpickles_nothing_unless_the_command_line_trusts_the_files(tmp_path):
    """RLlib's checkpoint is pickles: a run from elsewhere could run code when restored."""
    crafted = tmp_path / "run"  # (not even read: refused before)
    with pytest.raises(ConfigError, match=r"resume=.* unpickles its files .* trust_files=true"):
        Run(small_config(tmp_path, f"resume={crafted}"))


def test_a_resume_not_trusted_is_refused_before_ray_starts(monkeypatch, tmp_path):
    """It was refused by ``Run``, after a local Ray had started: the command printed Hydra's traceback
    (exit status 1) where every other refusal is one line ``config error: ...`` with exit status 2."""
    monkeypatch.setattr("experiments.train_rllib.start_ray", lambda cfg: pytest.fail("Ray started"))
    with pytest.raises(ConfigError, match=r"resume=.* unpickles its files .* trust_files=true"):
        train(small_config(tmp_path, f"resume={tmp_path / 'run'}"))
    done = subprocess.run(
        [sys.executable, "-m", "experiments.train_rllib", f"resume={tmp_path / 'run'}", "total_timesteps=8000",
         f"runs_dir={tmp_path / 'runs'}", "num_cpus=1", "progress=false"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.strip().splitlines() == [
        f"config error: resume='{tmp_path / 'run'}' restores RLlib's checkpoint, which unpickles its files "
        "(one from elsewhere can run code): resume only a run made on this machine, and say so with "
        "trust_files=true"
    ]  # one line: no Ray log, no traceback


def test_a_resume_of_a_run_another_process_trains_is_refused_before_ray_starts(monkeypatch, tmp_path):
    """Two resumes of one run folder both ran, each writing its config.yaml, checkpoints and curves there."""
    run = tmp_path / "run"
    checkpoint = run / "checkpoints" / "iteration_000001"
    checkpoint.mkdir(parents=True)
    (checkpoint / "progress.json").write_text("{}")
    monkeypatch.setattr("experiments.train_rllib.start_ray", lambda cfg: pytest.fail("Ray started"))
    with lock_folder(run), pytest.raises(FolderInUse, match=r"in use by another run .* before resuming"):
        train(small_config(tmp_path, f"resume={run}", "trust_files=true"))
    assert sorted(path.name for path in run.iterdir()) == ["checkpoints", "tournament.lock"]


def test_a_new_run_holds_its_folder_while_it_trains(monkeypatch, tmp_path):
    """Only resumes took the lock: a resume of a new run while it trained went on."""

    class Training:  # the run, held to its folder while it trains
        def __init__(self, cfg: RLlibConfig, folder: Path) -> None:
            self.run_dir, self.algo = folder, types.SimpleNamespace(stop=lambda: None)

        def train(self) -> Path:
            with pytest.raises(FolderInUse), lock_folder(self.run_dir):
                pass
            return self.run_dir

    monkeypatch.setattr("experiments.train_rllib.start_ray", lambda cfg: None)
    monkeypatch.setattr("experiments.train_rllib.Run", Training)
    assert train(small_config(tmp_path)).parent == tmp_path


def test_self_play_shares_one_module_and_adds_snapshots(local_ray, tmp_path):
    cfg = small_config(
        tmp_path, "opponent=null", "snapshot_every=1", "final_eval_games=0", "total_timesteps=300"
    )
    run = Run(cfg)
    try:
        run.train()
        assert run.iteration >= 2 and run.snapshots == [f"snapshot_{k}" for k in range(run.iteration)][-3:]
        shared = network_of(run.algo, "shared", cfg).state_dict()
        first = network_of(run.algo, run.snapshots[0], cfg).state_dict()
        assert set(shared) == set(first)
    finally:
        run.algo.stop()
    assert (run.run_dir / "model.pt").is_file()


def test_reading_the_learners_network_draws_nothing_from_torchs_global_generator(tmp_path):
    cfg = small_config(tmp_path)
    learned = ActorCritic(cfg.game.to_game_config(), cfg.network).state_dict()
    weights = {f"network.{name}": tensor.numpy() for name, tensor in learned.items()}  # as RLlib gives them
    algo = types.SimpleNamespace(
        learner_group=types.SimpleNamespace(get_weights=lambda ids: {ids[0]: weights})
    )
    before = torch.get_rng_state()
    network = network_of(algo, "default_policy", cfg)
    assert torch.equal(torch.get_rng_state(), before)  # an evaluation then samples as it would have
    assert all(torch.equal(network.state_dict()[name], tensor) for name, tensor in learned.items())


@pytest.mark.slow  # another algorithm build: the shared-module self-play test covers the multi-agent path
def test_per_seat_self_play_trains_a_module_for_every_seat(local_ray, tmp_path):
    cfg = small_config(tmp_path, "opponent=null", "policies=per_seat", "final_eval_games=0")
    run = Run(cfg)
    try:
        run.train()
        seats = [network_of(run.algo, f"player_{p}", cfg).state_dict() for p in range(3)]
    finally:
        run.algo.stop()
    # each seat's module starts from its own random weights and learns from its own decisions
    assert not torch.equal(seats[0]["trunk.0.weight"], seats[1]["trunk.0.weight"])


@pytest.mark.slow  # another algorithm build
def test_a_time_limit_ends_the_run_as_its_budget_would(local_ray, tmp_path):
    run = Run(small_config(tmp_path, "time_limit=0", "total_timesteps=1000000", "final_eval_games=0"))
    try:
        run.train()
    finally:
        run.algo.stop()
    assert run.iteration == 0 and (run.run_dir / "model.pt").is_file()
    assert (
        json.loads((run.run_dir / "checkpoints" / "iteration_000000" / "progress.json").read_text())[
            "agent_steps"
        ]
        == 0
    )


def test_an_iteration_without_samples_counts_no_agent_steps():
    # RLlib reports a metric no env runner logged (a sample timeout) as NaN
    assert decisions_sampled({"env_runners": {DECISIONS: float("nan")}}) == 0
    assert decisions_sampled({"env_runners": {}}) == decisions_sampled({}) == 0
    assert decisions_sampled({"env_runners": {DECISIONS: 4096.0}}) == 4096


def test_the_config_refuses_what_it_cannot_do(tmp_path):
    with pytest.raises(ValueError, match="policies must be one of"):
        small_config(tmp_path, "policies=every_other_seat")
    with pytest.raises(ValueError, match="snapshot_every needs self-play"):
        small_config(tmp_path, "snapshot_every=5")  # the shipped config has fixed opponents
    with pytest.raises(ValueError, match="snapshot_share must be in"):
        small_config(tmp_path, "opponent=null", "snapshot_share=1.5")
    with pytest.raises(
        ConfigError, match=r"RLlibConfig has no value for exp_name"
    ):  # built by hand, without the YAML's values
        RLlibConfig(policies="shared")
    with pytest.raises(FileNotFoundError, match="no RLlib checkpoint"):
        Run(small_config(tmp_path, f"resume={tmp_path}", "trust_files=true"))


# -- the exported policy in the arena ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def trained_run(local_ray, tmp_path_factory) -> Path:
    return train(small_config(tmp_path_factory.mktemp("rllib"), "final_eval_games=0"))


def test_the_rllib_agent_reads_only_the_pickle_free_export(trained_run):
    assert exported_model(trained_run) == trained_run / "model.pt"
    checkpoint = next((trained_run / "checkpoints").iterdir())
    assert exported_model(checkpoint) == checkpoint / "cluedo_model.pt"
    agent = make_agent("rllib", seed=3, path=str(trained_run))
    assert isinstance(agent, RLlibAgent) and agent.network.game == core.GameConfig(**SMALL_GAME)
    with pytest.raises(FileNotFoundError, match="no exported RLlib policy"):
        RLlibAgent(path=trained_run / "checkpoints")
    with pytest.raises(ValueError, match="needs path="):
        RLlibAgent()


def test_the_exported_policy_plays_a_tournament(trained_run, tmp_path):
    rllib = f"{{name: rllib, options: {{path: '{trained_run}'}}}}"
    small = {"game.num_players": 3, "game.max_turns": 40, "games_per_lineup": 3, "workers": 0}
    quiet = {"progress": "false", "plots": "false"}
    overrides = [f"{key}={value}" for key, value in {**small, **quiet}.items()]
    with initialize_config_dir(config_dir=str(CONFIGS), version_base=None):
        settings = load_config(
            compose("tournament", overrides=[*overrides, f"lineup.agents=[{rllib}, {{name: notepad}}]"])
        )
    summary = run_tournament(settings, tmp_path / "out")
    seats = [
        json.loads(line)["seats"] for line in (tmp_path / "out" / "games.jsonl").read_text().splitlines()
    ]
    assert summary["games"] == len(seats) > 0 and all("rllib" in names for names in seats)


@pytest.mark.parametrize(("deal", "refused"), [(None, False), ("uniform", True)])
def test_a_run_saved_before_the_deal_field_resumes_as_deal_keys(tmp_path, deal, refused):
    """A run's config.yaml written before ``GameConfig.deal`` existed has no ``game.deal``: it was dealt
    as "keys" is, so a resume of it is no change of rules (it was refused as "other values of game")."""
    from experiments.train_rllib import _check_resumable

    cfg = small_config(tmp_path)
    (tmp_path / "config.yaml").write_text(config_without_deal(cfg, deal))
    if refused:
        with pytest.raises(ValueError, match="other values of game"):
            _check_resumable(cfg, tmp_path / "config.yaml")
    else:
        _check_resumable(cfg, tmp_path / "config.yaml")


def test_the_command_line_resumes_with_the_runs_own_settings(tmp_path):
    """``train_rllib resume=<run> total_timesteps=... trust_files=true`` was refused ("other values of
    exp_name", of train_batch_size, ...) unless every setting the run began with was typed again."""
    from experiments.train_rllib import resumed_run

    run_dir = tmp_path / "run"
    (run_dir / "checkpoints" / "iteration_000001").mkdir(parents=True)
    (run_dir / "checkpoints" / "iteration_000001" / "progress.json").write_text("{}")
    began = small_config(tmp_path, "exp_name=main", "num_epochs=2")  # besides small_config's own
    (run_dir / "config.yaml").write_text(OmegaConf.to_yaml(OmegaConf.structured(began)))
    command = [f"resume={run_dir}", "total_timesteps=5000", "trust_files=true"]
    with initialize_config_dir(
        config_dir=str(CONFIGS), version_base=None
    ):  # as typed: the rest at its defaults
        given = OmegaConf.to_object(compose("train_rllib", overrides=command))
    run = resumed_run(given, command)
    assert (run.exp_name, run.num_epochs, run.train_batch_size, run.game) == (
        "main", 2, 128, began.game
    )  # fmt: skip
    (run_dir / "config.yaml").write_text("- a list, not a run's config\n")
    with pytest.raises(ConfigError, match=r"config.yaml: not the config of an RLlib run"):
        resumed_run(given, command)
    (run_dir / "config.yaml").write_text(OmegaConf.to_yaml(OmegaConf.structured(began)))
    assert (run.total_timesteps, run.resume, run.trust_files) == (5000, str(run_dir), True)
    with initialize_config_dir(config_dir=str(CONFIGS), version_base=None):
        given = OmegaConf.to_object(compose("train_rllib", overrides=[*command, "learning_rate=0.1"]))
    with pytest.raises(ConfigError, match=r"cannot change learning_rate"):
        resumed_run(given, [*command, "learning_rate=0.1"])
