"""``experiments/train_rllib.py``'s RLlib plumbing: the envs its env runners build, the agent-step
counter, the module mappings of self-play and the ``PPOConfig`` of a run.

The envs are registered by name (``register_envs``) and built in every env runner from plain-data
``env_config`` (``rllib_setup``): against fixed opponents, ``cluedo_env.gym_env.CluedoSingleAgentEnv``
in ``RLlibSeat`` (with ``train_ppo``'s knowledge shaping); in self-play, ``cluedo_v0`` through RLlib's
``PettingZooEnv``. ``cfg`` is always the run's ``experiments.train_rllib.RLlibConfig``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import gymnasium
import numpy as np
import ray
import torch
from ray.rllib.algorithms.algorithm import Algorithm
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.tune.registry import register_env

from agents.integrations.rllib_module import module_spec
from agents.ppo.network import ActorCritic
from agents.registry import make_agent
from cluedo_env import cluedo_v0, core
from cluedo_env.gym_env import CluedoSingleAgentEnv
from experiments.learning.shaping import knowledge_potential

FIXED_ENV = "cluedo_rllib_fixed_opponents"
SELF_PLAY_ENV = "cluedo_rllib_self_play"
LEARNER = "default_policy"  # RLlib's module id of a single-agent run
SHARED = "shared"  # the module of every seat in self-play
DECISIONS = "cluedo_decisions"  # the env runners' metric: every player's decisions sampled (agent-steps)


class RLlibSeat(gymnasium.Wrapper):
    """The learner's seat as RLlib's vector env needs it, with ``train_ppo``'s knowledge shaping.

    Infos keep only their fixed-shape entries (Gymnasium's ``SyncVectorEnv`` stacks them; the
    ``events`` rows vary in number). With ``coef`` > 0 the reward gets ``gamma * phi(next) -
    phi(now)``, ``phi = experiments.learning.shaping.knowledge_potential`` (a reward for each card seen), phi 0 at
    the episode's end.
    """

    def __init__(self, env: CluedoSingleAgentEnv, coef: float, gamma: float) -> None:
        super().__init__(env)
        self.coef, self.gamma = float(coef), float(gamma)
        self.potential = 0.0

    def _phi(self, observation: dict[str, np.ndarray]) -> float:
        if not self.coef:
            return 0.0
        game = self.env.unwrapped.config
        return float(knowledge_potential(observation["observation"][None], game, self.coef)[0])

    @staticmethod
    def _info(info: dict[str, Any]) -> dict[str, Any]:
        return {key: value for key, value in info.items() if key not in ("events", "action_mask")}

    def reset(self, **kwargs: Any) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        observation, info = self.env.reset(**kwargs)
        self.potential = self._phi(observation)
        return observation, self._info(info)

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        after = 0.0 if terminated or truncated else self._phi(observation)
        reward += self.gamma * after - self.potential
        self.potential = after
        return observation, reward, terminated, truncated, self._info(info)


def make_fixed_opponents_env(env_config: dict[str, Any]) -> RLlibSeat:
    """One game against fixed opponents (``env_config``: game, opponent, rewards, seed; see ``rllib_setup``)."""
    game = core.GameConfig(**env_config["game"])
    seed = int(env_config["seed"]) * 10_000 + 100 * getattr(env_config, "worker_index", 0)
    opponent = env_config["opponent"]
    opponents = [
        make_agent(opponent["name"], seed=seed + k, **opponent["options"]) for k in range(1, game.num_players)
    ]
    env = CluedoSingleAgentEnv(
        opponents=opponents,
        reward_scheme=env_config["reward_scheme"],
        elimination_reward=env_config["elimination_reward"],
        config=game,
    )
    return RLlibSeat(env, env_config["knowledge_shaping"], env_config["gamma"])


def make_self_play_env(env_config: dict[str, Any]) -> PettingZooEnv:
    """``cluedo_v0`` through RLlib's PettingZoo wrapper: each step, only the deciding player observes."""
    return PettingZooEnv(cluedo_v0.env(**env_config["game"], reward_scheme=env_config["reward_scheme"]))


class CountAgentSteps(RLlibCallback):
    """Logs every player's decisions sampled (``cluedo_decisions``, the agent-steps): from the fixed-opponent envs' counters,
    or RLlib's env steps in self-play (each step of ``cluedo_v0`` is one decision)."""

    def __init__(self) -> None:
        super().__init__()
        self.counted = 0

    def on_sample_end(
        self, *, env_runner: Any = None, metrics_logger: Any = None, samples: Any = None, **kwargs: Any
    ) -> None:
        envs = getattr(env_runner.env.unwrapped, "envs", None)
        if envs and isinstance(envs[0].unwrapped, CluedoSingleAgentEnv):
            total = sum(env.unwrapped.table.decisions for env in envs)
            new, self.counted = total - self.counted, total
        else:
            new = sum(len(episode) for episode in samples)
        metrics_logger.log_value(DECISIONS, new, reduce="sum")


def snapshot_mapping(snapshots: list[str], share: float) -> Callable[..., str]:
    """Seats to modules in self-play: each seat of a game a random snapshot with probability ``share``."""

    def mapping(agent_id: str, episode: Any, **kwargs: Any) -> str:
        draw = random.Random(f"{episode.id_}/{agent_id}")  # one draw per seat and game, on every runner alike
        if snapshots and draw.random() < share:
            return draw.choice(snapshots)
        return SHARED

    return mapping


def _per_seat(agent_id: str, episode: Any, **kwargs: Any) -> str:
    return agent_id


def rllib_setup(cfg: Any, snapshots: list[str] | None = None) -> PPOConfig:
    """The ``PPOConfig`` of a run (env, module(s), resources, PPO hyperparameters)."""
    game = cfg.game.to_game_config()
    env_config = {
        "game": asdict(cfg.game),
        "seed": cfg.seed,
        "reward_scheme": cfg.reward_scheme,
        "elimination_reward": cfg.elimination_reward,
        "knowledge_shaping": cfg.knowledge_shaping,
        "gamma": cfg.gamma,
        "opponent": None
        if cfg.opponent is None
        else {"name": cfg.opponent.name, "options": dict(cfg.opponent.options)},
    }
    spec = module_spec(game, cfg.network)
    config = (
        PPOConfig()
        .environment(SELF_PLAY_ENV if cfg.self_play else FIXED_ENV, env_config=env_config)
        .env_runners(
            num_env_runners=cfg.num_env_runners,
            num_envs_per_env_runner=cfg.num_envs_per_env_runner,
            num_cpus_per_env_runner=cfg.num_cpus_per_env_runner,
            rollout_fragment_length="auto",
            sample_timeout_s=cfg.sample_timeout,
        )
        .learners(num_learners=cfg.num_learners, num_gpus_per_learner=cfg.num_gpus_per_learner)
        .training(
            train_batch_size_per_learner=cfg.train_batch_size // max(cfg.num_learners, 1),
            minibatch_size=cfg.minibatch_size,
            num_epochs=cfg.num_epochs,
            lr=cfg.learning_rate,
            gamma=cfg.gamma,
            lambda_=cfg.gae_lambda,
            clip_param=cfg.clip_coef,
            vf_clip_param=cfg.vf_clip,
            entropy_coeff=cfg.ent_coef,
            vf_loss_coeff=cfg.vf_coef,
            grad_clip=cfg.max_grad_norm,
            use_kl_loss=False,
        )
        .callbacks(CountAgentSteps)
        .fault_tolerance(restart_failed_env_runners=False)  # an env's error stops the run with its message
        .debugging(seed=cfg.seed)
    )
    if not cfg.self_play:
        return config.rl_module(rl_module_spec=spec)
    if cfg.policies == "per_seat":
        seats = [f"player_{p}" for p in range(game.num_players)]
        return config.multi_agent(policies=set(seats), policy_mapping_fn=_per_seat).rl_module(
            rl_module_spec=MultiRLModuleSpec(rl_module_specs=dict.fromkeys(seats, spec))
        )
    snapshots = snapshots or []
    modules = dict.fromkeys([SHARED, *snapshots], spec)
    return config.multi_agent(
        policies=set(modules),
        policy_mapping_fn=snapshot_mapping(snapshots, cfg.snapshot_share),
        policies_to_train=[SHARED],
    ).rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=modules))


def trained_module_ids(cfg: Any) -> list[str]:
    """The modules that learn: one, or one per seat."""
    if not cfg.self_play:
        return [LEARNER]
    if cfg.policies == "per_seat":
        return [f"player_{p}" for p in range(cfg.game.num_players)]
    return [SHARED]


def network_of(algo: Algorithm, module_id: str, cfg: Any) -> ActorCritic:
    """The learner's current network of ``module_id``, as a plain ``ActorCritic`` (a copy).

    Draws nothing from torch's global random generator: what the caller samples next (an evaluation's
    actions) does not depend on how often it read the network.
    """
    weights = algo.learner_group.get_weights([module_id])[module_id]
    with torch.random.fork_rng(devices=[]):  # its initial weights are replaced: draw none of the caller's
        network = ActorCritic(cfg.game.to_game_config(), cfg.network)
    network.load_state_dict(
        {k.removeprefix("network."): torch.as_tensor(np.asarray(v)) for k, v in weights.items()}
    )
    return network.eval()


def register_envs() -> None:
    """Register the two envs by name, for the env runners."""
    register_env(FIXED_ENV, make_fixed_opponents_env)
    register_env(SELF_PLAY_ENV, make_self_play_env)


def decisions_sampled(result: dict[str, Any]) -> int:
    """The agent-steps an iteration sampled (0 when no env runner returned samples: RLlib gives NaN)."""
    value = result.get("env_runners", {}).get(DECISIONS, 0)
    return 0 if value is None or math.isnan(value) else int(value)


def start_ray(cfg: Any) -> None:
    """Ray on this machine (``ray_address`` null) or a running cluster."""
    torch.set_num_threads(cfg.torch_threads)
    if not ray.is_initialized():
        if cfg.ray_address is None:
            ray.init(num_cpus=cfg.num_cpus, include_dashboard=False)
        else:
            ray.init(address=cfg.ray_address)
