"""PPO on the batched Cluedo core, in one readable script (CleanRL's ``ppo.py`` is the model).

    python -m experiments.train_ppo                                          # configs/train_ppo.yaml
    python -m experiments.train_ppo total_timesteps=400000 num_envs=128 final_eval_games=200 exp_name=smoke
    python -m experiments.train_ppo resume=runs/cluedo_v0__ppo__1__1764540000  # continue a killed run
    tensorboard --logdir runs

What one update does:

1. **Rollout.** ``num_envs`` games run on the batched core (``agents.ppo.games``):
   in each the learner holds one seat (rotated from deal to deal), the other
   seats are opponents of one kind drawn from the pool, and a game is dealt
   again as soon as it ends. ``num_steps`` core steps are taken; every step is
   one decision in every game (``num_envs`` agent-steps, the unit of
   ``total_timesteps`` and ``global_step``). Where the learner decides, the
   network acts on the batch of its observations and legal-action masks
   (the mask is stored with the sample); the opponents' decisions in
   between are part of the environment's transition.
2. **Advantages.** A learner step is one of its own decisions. GAE runs
   backwards over each game's decisions within the rollout; a game's last
   decision is bootstrapped with the value of the learner's observation at the
   rollout's end. Rewards are the learner's only: +1 win, -1 loss (someone
   else wins, or everyone accused wrongly), 0 truncated at ``max_turns``, given
   on its last decision before the game ends. Shaping (documented in
   ``agents.ppo.games``): ``wrong_accusation_penalty`` is added on a wrong
   accusation, and with ``end_episode_on_elimination`` the wrong accusation
   ends the learner's episode at once with -1.
3. **Update.** Clipped PPO over ``update_epochs`` passes of ``num_minibatches``
   minibatches, with the stored masks, advantage normalisation, clipped value
   loss, entropy bonus, gradient clipping and linear learning-rate annealing by
   update index.

Opponents (``opponents``): kinds of the agent registry with a weight and a
curriculum window (``start``/``stop`` as fractions of training), plus, from
``snapshot_start`` on, frozen snapshots of the learner taken every
``snapshot_every`` updates (the latest ``max_snapshots``, sharing
``snapshot_weight``). A newly dealt game's opponents are drawn by
``pool_sampling``:

- ``weights`` (default): with probability proportional to the weights.
- ``pfsp`` (league self-play, prioritised fictitious self-play as in AlphaStar):
  proportional to ``weight * max(pfsp_floor, (1 - x) ** pfsp_power)``, where ``x``
  is the learner's win rate against that opponent (each kind, each snapshot):
  ``(wins + 1/P) / (games + 1)`` over its games so far, counts decayed by
  ``pfsp_decay`` per update (about the last ``1 / (1 - pfsp_decay)`` updates'
  games; 1/P, the fair share, is the estimate before any game). The opponents the
  learner beats least are met most; the floor keeps those it beats in the pool,
  so that it does not forget them.

The estimates are kept (and logged, ``league/win_rate/<opponent>`` and
``league/probability/<opponent>``, the chance that a newly dealt game is against
it) with either rule. With ``network.belief_features`` the learner observes the
belief pieces too (``agents.ppo.features``: exact marginals and entailed facts
of every card's place), and so do its snapshots.

Logs (TensorBoard, ``<runs_dir>/cluedo_v0__<exp_name>__<seed>__<time>``):
``charts/episodic_return``, ``charts/episodic_length`` (learner decisions),
``charts/game_turns``, ``charts/SPS`` (agent-steps/s), ``charts/learner_SPS``,
``charts/learning_rate``, ``charts/win_rate/<opponent>``,
``charts/wrong_accusation_rate``, ``league/*`` (above), ``losses/*`` as in CleanRL, and the rating:
``eval/win_rate/<opponent>`` every ``eval_every`` updates against the fixed
evaluation set (``eval_opponents``, ``eval_games`` games each on fixed deals,
seats rotated). Hyperparameters are logged as a text table.

Files: ``checkpoints/update_<n>.pt`` every ``checkpoint_every`` updates
(network, optimizer, update index, global step, generator states, the pool's
snapshots and win-rate estimates, the games in progress with their opponents' memory
and the learner's records, the config), all
tensors, numbers, strings, lists and dicts, read back with torch's
``weights_only=True``: a checkpoint runs no code, whoever made it.
``resume=<checkpoint or run dir>`` continues from one exactly as the run would
have gone on (a run folder's latest checkpoint that cannot be read is skipped
for the one before, with a warning). The run's config comes from the
checkpoint; of the command line's other values only those that change how the
run goes on, not what it learns, are applied (``RESUMABLE``: the budget
``total_timesteps``, threads, logging, checkpoints and evaluations); any other
changed value stops the resume with a message. ``init_from=<model file or shipped
model name>`` starts a new run's network from a trained one (``agents.ppo.warm_start``:
input columns it lacked, the belief pieces, start at zero), e.g. the learning agent
of ``experiments/imitate.py``. ``model.pt`` at the end (weights, network settings, game config,
sizes: what ``agents.ppo.PPOAgent`` loads); with ``final_eval_games`` > 0 also
``evaluation.json`` (win rates with 95% Wilson intervals).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

try:  # modules of an extra: a core-only install is told which extra to install
    import hydra
    import torch
    from hydra.core.config_store import ConfigStore
    from omegaconf import OmegaConf
    from torch import nn, optim
    from torch.utils.tensorboard import SummaryWriter
except ModuleNotFoundError as error:
    from experiments.common.extras import missing_extra

    raise missing_extra(error) from error

from agents.arena import play_batch
from agents.ppo.agent import PPOAgent
from agents.ppo.games import OUTCOMES, RETIRED, LearnerGames, OpponentKind
from agents.ppo.model import SHIPPED, check_weights, load_model, model_path
from agents.ppo.network import ActorCritic, NetworkSettings, model_record, save_model
from agents.ppo.warm_start import warm_start
from agents.registry import make_agent
from cluedo_env import core
from experiments.common.settings import (
    MAX_SEED,
    SHIPPED_CONFIGS,
    ConfigError,
    GameSettings,
    check_run_name,
    checked_main,
    refuse_from_elsewhere,
    refuse_untrusted_options,
    refuse_unwritable,
    trusted_by_command_line,
)

ENV_ID = "cluedo_v0"
CHECKPOINT_FORMAT = "cluedo-ppo-checkpoint-v2"  # v2: the games as arrays and plain data, no pickle
# What a resume may change: how the run goes on (budget, threads, logging, checkpoints, evaluations),
# never what it learns from (every other field is the checkpoint's).
RESUMABLE = (
    "total_timesteps",
    "progress",
    "torch_threads",
    "update_threads",
    "checkpoint_every",
    "keep_checkpoints",
    "eval_every",
    "eval_games",
    "final_eval_games",
)
POOL_SAMPLING = ("weights", "pfsp")
EVAL_SEED_BASE = 10**15  # evaluation deals: far from every training deal
EVAL_BATCH = 500


@dataclass
class OpponentSettings:
    """One kind of opponent, in the training pool or in the evaluation set."""

    name: str = "random"
    """agents.registry name (random, notepad, sat) or "module:Class\""""
    options: dict[str, Any] = field(default_factory=dict)
    """constructor options of the agent, e.g. {accuse: never}"""
    label: str | None = None
    """name in the logs (default: name)"""
    weight: float = 1.0
    """relative probability that a newly dealt game's opponents are of this kind"""
    start: float = 0.0
    """fraction of training after which this kind joins the pool (a curriculum)"""
    stop: float = 1.0
    """fraction of training after which this kind leaves the pool"""

    @property
    def display(self) -> str:
        return self.label or self.name


def _default_opponents() -> list[OpponentSettings]:
    return [OpponentSettings("random", {"accuse": "never"}, "random_never"), OpponentSettings("notepad")]


@dataclass
class TrainConfig:
    """PPO training on the batched core (``configs/train_ppo.yaml`` fills it)."""

    exp_name: str = "ppo"
    """the name of this experiment (part of the run name)"""
    seed: int = 1
    """seed of the experiment: network init, sampling, deals, opponent draws"""
    torch_threads: int = 1
    """torch.set_num_threads in the rollouts: one thread is fastest for the small batches of the net"""
    update_threads: int | None = None
    """torch.set_num_threads in the updates (null: torch_threads); more threads help only on idle cores"""
    runs_dir: str = "runs"
    """folder of the run folders"""
    progress: bool = True
    """show a tqdm progress bar"""
    game: GameSettings = field(default_factory=GameSettings)
    """the rules (configs/game/*.yaml)"""
    network: NetworkSettings = field(default_factory=NetworkSettings)
    """sizes of the actor-critic network"""

    # Algorithm
    total_timesteps: int = 20_000_000
    """total agent-steps (decisions of every player in every game) of the experiment"""
    learning_rate: float = 2.5e-4
    """the learning rate of the optimizer"""
    anneal_lr: bool = True
    """anneal the learning rate linearly to 0 over the updates"""
    num_envs: int = 1024
    """games played at once on the batched core"""
    num_steps: int = 64
    """core steps per rollout (each one decision in every game)"""
    gamma: float = 0.99
    """discount per learner decision"""
    gae_lambda: float = 0.95
    """lambda of generalized advantage estimation"""
    num_minibatches: int = 4
    """minibatches per epoch (the rollout's learner decisions are split into this many)"""
    update_epochs: int = 4
    """epochs of updates over each rollout"""
    norm_adv: bool = True
    """normalize advantages per minibatch"""
    clip_coef: float = 0.2
    """the surrogate clipping coefficient"""
    clip_vloss: bool = True
    """use a clipped value loss"""
    ent_coef: float = 0.01
    """coefficient of the entropy bonus"""
    vf_coef: float = 0.5
    """coefficient of the value loss"""
    max_grad_norm: float = 0.5
    """maximum norm of the gradient"""
    target_kl: float | None = None
    """stop an update's epochs early past this approximate KL (null: never)"""

    # Rewards
    wrong_accusation_penalty: float = 0.0
    """added to the learner's reward when it accuses wrongly (shaping)"""
    end_episode_on_elimination: bool = True
    """a wrong accusation ends the learner's episode with -1 and the game is dealt again"""
    knowledge_shaping: float = 1.0
    """c of the potential-based shaping gamma * phi(next) - phi(now), phi = -c * (unseen cards - 3) / (C - 3):
    a reward for each card seen, returned at the episode's end (optimal policies unchanged)"""

    # Opponents
    opponents: list[OpponentSettings] = field(default_factory=_default_opponents)
    """the pool: kinds of opponent with weights and curriculum windows"""
    snapshot_every: int = 0
    """add a frozen copy of the learner to the pool every this many updates (0: never)"""
    snapshot_start: float = 0.5
    """fraction of training after which snapshots are taken"""
    max_snapshots: int = 3
    """snapshots kept in the pool (the latest)"""
    snapshot_weight: float = 1.0
    """pool weight shared by the snapshots"""
    pool_sampling: str = "weights"
    """how a newly dealt game's opponents are drawn: "weights" (proportional to the weights) or "pfsp"
    (the weights times max(pfsp_floor, (1 - learner's win rate against them) ** pfsp_power))"""
    pfsp_power: float = 2.0
    """p of pfsp: the larger, the more the opponents the learner beats least dominate"""
    pfsp_floor: float = 0.05
    """the smallest pfsp factor (keeps beaten opponents in the pool)"""
    pfsp_decay: float = 0.95
    """factor applied per update to the pool's win counts (the estimate's memory)"""

    # Evaluation, checkpoints
    eval_every: int = 10
    """updates between evaluations against eval_opponents (0: never)"""
    eval_games: int = 100
    """games per opponent kind in each evaluation"""
    eval_opponents: list[OpponentSettings] = field(default_factory=_default_opponents)
    """the fixed evaluation set: the learner against num_players - 1 agents of each kind"""
    eval_deterministic: bool = False
    """evaluate the most likely action instead of sampling"""
    final_eval_games: int = 0
    """games per evaluation opponent after training, written to evaluation.json (0: none)"""
    checkpoint_every: int = 10
    """updates between checkpoints (0: only the last)"""
    keep_checkpoints: int = 3
    """checkpoints kept (the latest)"""
    resume: str | None = None
    """a checkpoint, or a run folder (its latest checkpoint), to continue"""
    trust_files: bool = False
    """use options that reach the network or files (agents' llm base_url, api_key_env, prompts, record_dir,
    model paths; init_from, runs_dir, resume) that a resumed checkpoint, or a config file of a folder of
    the user's, gives and the command line does not repeat; from the command line only, never saved"""
    init_from: str | None = None
    """a model file (or checkpoint), or the name of one in agents/ppo/shipped/, whose weights the network
    starts from (``agents.ppo.warm_start``: input columns it lacked, such as the belief pieces, start at zero)"""

    @property
    def num_updates(self) -> int:
        return self.total_timesteps // (self.num_envs * self.num_steps)

    def validate(self) -> None:
        """Raise ``ValueError`` naming a bad field, its value and what is accepted."""
        check_run_name("exp_name", self.exp_name)
        for name in (
            "num_envs",
            "num_steps",
            "num_minibatches",
            "update_epochs",
            "torch_threads",
            "eval_games",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)!r}")
        if not 0 <= self.seed <= MAX_SEED:
            raise ValueError(
                f"seed must be an integer in [0, {MAX_SEED}] (deal seeds derive from it), got {self.seed!r}"
            )
        if self.pool_sampling not in POOL_SAMPLING:
            raise ValueError(
                f"pool_sampling must be one of {list(POOL_SAMPLING)}, got {self.pool_sampling!r}"
            )
        if not self.pfsp_power >= 0 or not 0 <= self.pfsp_floor <= 1 or not 0 <= self.pfsp_decay <= 1:
            raise ValueError(
                "need pfsp_power >= 0, 0 <= pfsp_floor <= 1 and 0 <= pfsp_decay <= 1, got "
                f"{self.pfsp_power!r}, {self.pfsp_floor!r}, {self.pfsp_decay!r}"
            )
        if self.update_threads is not None and self.update_threads < 1:
            raise ValueError(f"update_threads must be >= 1 or null, got {self.update_threads!r}")
        for name in ("snapshot_every", "eval_every", "checkpoint_every", "final_eval_games", "max_snapshots"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)!r}")
        if self.init_from is not None and not model_path(self.init_from).is_file():
            shipped = sorted(path.name for path in SHIPPED.glob("*.pt"))
            raise ValueError(
                f"init_from must be a model file or one of the shipped models {shipped}, got {self.init_from!r}"
            )
        if self.num_updates < 1:
            raise ValueError(
                f"total_timesteps must be at least num_envs * num_steps = {self.num_envs * self.num_steps}, "
                f"got {self.total_timesteps}"
            )
        if self.keep_checkpoints < 1:
            raise ValueError(f"keep_checkpoints must be >= 1, got {self.keep_checkpoints!r}")
        labels = [o.display for o in self.opponents]
        if len(set(labels)) != len(labels) or any(label.startswith("snapshot") for label in labels):
            raise ValueError(f"opponents need distinct labels not starting with 'snapshot', got {labels}")
        for o in [*self.opponents, *self.eval_opponents]:
            if o.weight < 0 or not 0.0 <= o.start <= o.stop <= 1.0:
                raise ValueError(
                    f"opponent {o.display}: need weight >= 0 and 0 <= start <= stop <= 1, got {o}"
                )
            make_agent(o.name, seed=0, **o.options)  # an unknown agent or option fails here
        if not any(o.start == 0.0 and o.weight > 0 for o in self.opponents):
            raise ValueError("opponents: at least one kind needs start: 0 and a positive weight")


ConfigStore.instance().store(name="train_ppo_schema", node=TrainConfig)


# --- the pool of opponents --------------------------------------------------------------


def snapshot_network(
    network: ActorCritic, weights: Mapping[str, Any], source: str = "a snapshot"
) -> ActorCritic:
    """A frozen copy of ``network`` with other weights (tensors or numpy arrays): a snapshot.

    Raises:
        ValueError: the weights do not fit ``network`` or are not finite, naming ``source`` and the
            tensor (``agents.ppo.model.check_weights``).
    """
    expected = network.state_dict()
    if isinstance(weights, Mapping):
        # A scalar weight may be stored as one element (torch's load_state_dict takes both).
        weights = {
            k: torch.as_tensor(v).reshape(()) if k in expected and expected[k].dim() == 0 and np.size(v) == 1
            else torch.as_tensor(v)
            for k, v in weights.items()
        }  # fmt: skip
    check_weights(weights, expected, source, "the run's network settings and game")
    copied = copy.deepcopy(network).eval()
    copied.load_state_dict(weights)
    return copied


class OpponentPool:
    """The configured kinds (each in its curriculum window), the learner's snapshots, and the learner's
    win rate against each (the league's estimates, which ``pool_sampling="pfsp"`` samples by)."""

    def __init__(self, args: TrainConfig) -> None:
        self.args = args
        self.configured = [
            OpponentKind(o.display, o.name, dict(o.options), group=o.display) for o in args.opponents
        ]
        self.snapshots: list[dict[str, Any]] = []  # {"label", "update", "state_dict"}
        self._networks: dict[str, ActorCritic] = {}
        self.wins: dict[str, float] = {}  # decayed win and game counts per opponent label
        self.games: dict[str, float] = {}

    def add_snapshot(self, network: ActorCritic, update: int) -> None:
        state_dict = {k: v.detach().clone() for k, v in network.state_dict().items()}
        self.snapshots.append({"label": f"snapshot_{update}", "update": update, "state_dict": state_dict})
        self.snapshots = self.snapshots[-self.args.max_snapshots :] if self.args.max_snapshots else []

    def record(self, labels: np.ndarray, won: np.ndarray) -> None:
        """Count one update's finished games: ``labels[i]`` the opponent of game i, ``won[i]`` the learner won."""
        for label in self.games:
            self.wins[label] *= self.args.pfsp_decay
            self.games[label] *= self.args.pfsp_decay
        for label in set(labels.tolist()):
            mine = labels == label
            self.wins[label] = self.wins.get(label, 0.0) + float(won[mine].sum())
            self.games[label] = self.games.get(label, 0.0) + float(mine.sum())

    def win_rate(self, label: str) -> float:
        """The learner's estimated win rate against ``label``: ``(wins + 1/P) / (games + 1)``."""
        fair = 1.0 / self.args.game.num_players
        return (self.wins.get(label, 0.0) + fair) / (self.games.get(label, 0.0) + 1.0)

    def priority(self, label: str) -> float:
        """The factor ``pool_sampling`` multiplies ``label``'s weight by (1 with "weights")."""
        if self.args.pool_sampling == "weights":
            return 1.0
        return max(self.args.pfsp_floor, (1.0 - self.win_rate(label)) ** self.args.pfsp_power)

    def kinds(self, network: ActorCritic, fraction: float) -> tuple[list[OpponentKind], list[float]]:
        """The kinds in the pool at this fraction of training, and their weights (priorities applied)."""
        chosen = [
            (k, o.weight)
            for k, o in zip(self.configured, self.args.opponents)
            if o.start <= fraction < o.stop
        ]
        chosen = [(k, w) for k, w in chosen if w > 0] or [(self.configured[0], 1.0)]
        for snap in self.snapshots:
            if snap["label"] not in self._networks:
                self._networks[snap["label"]] = snapshot_network(network, snap["state_dict"])
            kind = OpponentKind(snap["label"], network=self._networks[snap["label"]], group="snapshot")
            chosen.append((kind, self.args.snapshot_weight / len(self.snapshots)))
        live = {s["label"] for s in self.snapshots}
        self._networks = {k: v for k, v in self._networks.items() if k in live}
        return [k for k, _ in chosen], [w * self.priority(k.label) for k, w in chosen]

    def state_dict(self) -> dict[str, Any]:
        """The league's estimates (the snapshots are saved apart)."""
        return {"wins": dict(self.wins), "games": dict(self.games)}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.wins = {str(k): float(v) for k, v in state["wins"].items()}
        self.games = {str(k): float(v) for k, v in state["games"].items()}


# --- rollout storage and advantages -----------------------------------------------------


class Rollout:
    """The learner's decisions of one rollout, with the game and position of each."""

    def __init__(self, num_envs: int, capacity: int) -> None:
        self.obs: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []
        self.actions: list[torch.Tensor] = []
        self.logprobs: list[torch.Tensor] = []
        self.values: list[torch.Tensor] = []
        self.games = np.zeros(capacity, dtype=np.int64)
        self.positions = np.zeros(capacity, dtype=np.int64)
        self.rewards = np.zeros(capacity, dtype=np.float32)
        self.dones = np.zeros(capacity, dtype=bool)
        self.last = np.full(num_envs, -1, dtype=np.int64)  # each game's latest decision in this rollout
        self.count = np.zeros(num_envs, dtype=np.int64)
        self.size = 0

    def add(self, games: np.ndarray, obs: np.ndarray, mask: np.ndarray, action, logprob, value) -> None:
        index = self.size + np.arange(len(games))
        self.games[index] = games
        self.positions[index] = self.count[games]
        self.count[games] += 1
        self.last[games] = index
        self.size += len(games)
        self.obs.append(obs)
        self.masks.append(mask)
        self.actions.append(action)
        self.logprobs.append(logprob)
        self.values.append(value)

    def record(self, reward: np.ndarray, over: np.ndarray) -> None:
        """Credit a step's rewards and episode ends to each game's latest learner decision.

        A reward with no decision of its episode in this rollout (the decision was
        in the previous rollout, or the new game ended before the learner's first
        decision) has nothing to credit here and is dropped.
        """
        games = np.flatnonzero((self.last >= 0) & ((reward != 0) | over))
        self.rewards[self.last[games]] += reward[games]
        self.dones[self.last[games]] |= over[games]
        self.last[over] = -1  # the next episode of these games starts without a decision yet


def compute_gae(
    rollout: Rollout,
    values: np.ndarray,
    bootstrap: np.ndarray,
    gamma: float,
    gae_lambda: float,
    potential: np.ndarray | None = None,
    bootstrap_potential: np.ndarray | None = None,
) -> np.ndarray:
    """Advantages by GAE over each game's chain of learner decisions (vectorised over games).

    Decision ``k`` of game ``b`` is followed by decision ``k + 1`` of that game,
    or, for its last decision, by ``bootstrap[b]`` (the value at the rollout's end).
    With a ``potential`` per decision (and ``bootstrap_potential`` per game), the
    reward is shaped by ``gamma * potential(next) - potential(now)``, with 0 after
    an episode's end.
    """
    n = rollout.size
    games, positions = rollout.games[:n], rollout.positions[:n]
    rewards, dones = rollout.rewards[:n], rollout.dones[:n]
    if potential is None:
        potential, bootstrap_potential = np.zeros(n, np.float32), np.zeros(len(bootstrap), np.float32)
    length = int(positions.max()) + 1
    index = np.full((length + 1, len(bootstrap)), -1, dtype=np.int64)
    index[positions, games] = np.arange(n)
    advantages = np.zeros(n, dtype=np.float32)
    for k in reversed(range(length)):
        here = np.flatnonzero(index[k] >= 0)
        i, after = index[k, here], index[k + 1, here]
        has_next = after >= 0
        next_value = np.where(has_next, values[after], bootstrap[here])
        next_potential = np.where(has_next, potential[after], bootstrap_potential[here])
        next_advantage = np.where(has_next, advantages[after], 0.0)
        nonterminal = 1.0 - dones[i]
        reward = rewards[i] + gamma * next_potential * nonterminal - potential[i]
        delta = reward + gamma * next_value * nonterminal - values[i]
        advantages[i] = delta + gamma * gae_lambda * nonterminal * next_advantage
    return advantages


def knowledge_potential(obs: np.ndarray, game: core.GameConfig, coef: float) -> np.ndarray:
    """``-coef * (unseen cards - 3) / (C - 3)`` from the observation's ``unseen`` piece (0: all known)."""
    _shape, offset = next(
        (shape, offset) for name, shape, offset in core.observation_pieces(game) if name == "unseen"
    )
    C = game.cards.num_cards
    unseen = obs[:, offset : offset + C].sum(axis=1)
    return (-coef * (unseen - 3) / (C - 3)).astype(np.float32)


# --- evaluation -------------------------------------------------------------------------


def evaluate(
    network: ActorCritic,
    game: core.GameConfig,
    opponents: list[OpponentSettings],
    num_games: int,
    deterministic: bool,
    seed: int = 0,
    progress: bool = False,
) -> dict[str, dict[str, float]]:
    """The learner against num_players - 1 agents of each kind, on fixed deals, seats rotated.

    A game is played until the learner's result is known: it stops as soon as the learner is
    out (a wrong accusation), since it can no longer win. Against opponents that never
    accuse, the rest of such a game would run to ``max_turns`` and cost most of the time.
    """
    P = game.num_players
    frozen = copy.deepcopy(network).eval()
    results = {}
    bar = tqdm(total=num_games * len(opponents), disable=not progress, unit=" games", desc="evaluation")
    for spec in opponents:
        wins = wrong = truncated = turns = stopped = 0
        for lo in range(0, num_games, EVAL_BATCH):
            n = min(EVAL_BATCH, num_games - lo)
            learner = PPOAgent.from_network(frozen, seed=seed, deterministic=deterministic)
            others = [make_agent(spec.name, seed=seed + k, **spec.options) for k in range(1, P)]
            result = play_batch(
                game,
                [learner, *others],
                EVAL_SEED_BASE + lo + np.arange(n),
                rotation=(lo + np.arange(n)) % P,
                stop=learner_out,
            )
            wins += int((result.winner == 0).sum())
            wrong += int((result.wrong_accusations[:, 0] > 0).sum())
            truncated += int(result.truncated.sum())
            turns += int(result.turns[~result.stopped].sum())
            stopped += int(result.stopped.sum())
            bar.update(n)
        finished = num_games - stopped
        results[spec.display] = {
            "games": num_games,
            "wins": wins,
            "win_rate": wins / num_games,
            "wrong_accusations": wrong,
            "wrong_accusation_rate": wrong / num_games,
            "truncated": truncated,
            "mean_turns": turns / finished if finished else None,  # of the games played to their end
        }
    bar.close()
    return results


def learner_out(state: core.State, seats: np.ndarray) -> np.ndarray:
    """Games where the learner (agent 0) accused wrongly: its result is known, a loss."""
    return state.eliminated[np.arange(len(seats)), seats[:, 0]]


# --- checkpoints ------------------------------------------------------------------------


def find_checkpoint(path: str | Path) -> Path:
    """A checkpoint file, or the latest checkpoint of a run folder."""
    return _checkpoint_candidates(path)[-1]


def _checkpoint_candidates(path: str | Path) -> list[Path]:
    path = Path(path)
    if path.is_dir():
        found = sorted((path / "checkpoints").glob("update_*.pt")) or sorted(path.glob("update_*.pt"))
        if not found:
            raise FileNotFoundError(f"no checkpoints/update_*.pt under {path}")
        return found
    if not path.is_file():
        raise FileNotFoundError(f"resume: no checkpoint or run folder at {path}")
    return [path]


def load_checkpoint(path: str | Path) -> tuple[Path, dict[str, Any]]:
    """A checkpoint file, or the latest readable checkpoint of a run folder, and its contents.

    Only tensors and plain data are read (torch's ``weights_only``): a crafted file cannot run
    code. A run folder's latest checkpoint that cannot be read (cut short by a full disk, say)
    is skipped for the one before, with a warning.

    Raises:
        FileNotFoundError: Nothing at ``path``, or a folder without checkpoints.
        ValueError: The file (or no checkpoint of the folder) is a readable training checkpoint.
    """
    candidates = _checkpoint_candidates(path)
    errors = []
    for candidate in reversed(candidates):
        try:
            return candidate, _read_checkpoint(candidate)
        except ValueError as error:
            errors.append(str(error))
            if candidate != candidates[0]:
                warnings.warn(
                    f"{error}; resuming from the checkpoint before it", RuntimeWarning, stacklevel=2
                )
    raise ValueError("; ".join(errors))


def _read_checkpoint(path: Path) -> dict[str, Any]:
    try:
        checkpoint = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # a cut file, or one holding more than tensors and plain data
        raise ValueError(f"{path} cannot be read as a checkpoint ({type(error).__name__}: {error})") from None
    if not isinstance(checkpoint, dict) or checkpoint.get("format") != CHECKPOINT_FORMAT:
        found = checkpoint.get("format") if isinstance(checkpoint, dict) else type(checkpoint).__name__
        raise ValueError(
            f"{path} is not a training checkpoint of format {CHECKPOINT_FORMAT} (found {found!r})"
        )
    if not isinstance(checkpoint.get("games"), dict):
        raise ValueError(
            f"{path}: its games are not plain data (format {CHECKPOINT_FORMAT} stores no pickle)"
        )
    return checkpoint


def _refuse_interpolations(value: Any, key: str) -> None:
    """Raise ``ValueError`` naming the first string of ``value`` (a checkpoint's plain data) that
    OmegaConf would resolve as an interpolation."""
    if isinstance(value, Mapping):
        for name, item in value.items():
            _refuse_interpolations(item, f"{key}.{name}")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            _refuse_interpolations(item, f"{key}[{index}]")
    elif isinstance(value, str) and "${" in value:
        raise ValueError(
            f"the checkpoint's {key} is an interpolation ({value[:80]!r}): a saved config holds only "
            "resolved values, so this one was not saved by train_ppo"
        )


def resumed_config(
    saved: Mapping[str, Any], args: TrainConfig, overrides: Iterable[str] | None
) -> TrainConfig:
    """The config of a resumed run: the checkpoint's, with the overrides that may change applied.

    Args:
        saved: The checkpoint's config.
        args: The config given now.
        overrides: The keys (dotted, as on the command line) whose values in ``args`` are meant;
            None: every value where ``args`` differs from ``saved``.

    Raises:
        ValueError: An override of a value that would change what the run learns (not in
            ``RESUMABLE``), naming it, both values and what may change; or an interpolation
            (``${...}``) in the checkpoint's config, which a saved config never holds (it is saved
            resolved) and which could read an environment variable (``oc.env``).
    """
    _refuse_interpolations(saved, "config")
    run = OmegaConf.merge(OmegaConf.structured(TrainConfig), saved)
    given = OmegaConf.structured(args)
    if overrides is None:
        keys = [f.name for f in dataclasses.fields(TrainConfig)]
    else:
        keys = [o.partition("=")[0].lstrip("+~") for o in overrides]
    changes, refused = {}, []
    for key in keys:
        if key in ("resume", "trust_files"):  # about this command, not the run
            continue
        before, after = _plain(OmegaConf.select(run, key)), _plain(OmegaConf.select(given, key))
        if before == after:
            continue
        if key in RESUMABLE:
            changes[key] = after
        else:
            refused.append(f"{key} (the run has {before!r}, got {after!r})")
    if refused:
        raise ValueError(
            f"resume: cannot change {', '.join(refused)}: the run would no longer be the one checkpointed. "
            f"A resume may change only {', '.join(RESUMABLE)}; start a new run to change the rest"
        )
    for key, value in changes.items():
        print(f"resume: {key} {_plain(OmegaConf.select(run, key))!r} -> {value!r}")
        OmegaConf.update(run, key, value)
    return OmegaConf.to_object(run)


def check_named_code(run: TrainConfig, given: TrainConfig, games: Mapping[str, Any]) -> None:
    """Refuse to import code that only a checkpoint names (an agent given as ``module:Class``).

    Tensors and plain data cannot run code, but an opponent named by import path is imported
    and run: a checkpoint's config may name one only if the config given now names it too, and
    its games may hold opponents of the configured kinds (and snapshots of the learner) only.

    Raises:
        ValueError: Naming the agents that only the checkpoint names.
    """
    named = {o.name for o in [*given.opponents, *given.eval_opponents]}
    unconfirmed = sorted({o.name for o in [*run.opponents, *run.eval_opponents] if ":" in o.name} - named)
    if unconfirmed:
        raise ValueError(
            f"resume: the checkpoint's config names agents by import path {unconfirmed}; resuming would "
            "import and run that code. If you trust the checkpoint, give the same opponents and "
            "eval_opponents on the command line"
        )
    configured = {o.display: (o.name, dict(o.options)) for o in run.opponents}
    for kind in games["table"]["kinds"]:
        if (
            kind["network"] is None
            and kind["name"] != RETIRED
            and configured.get(kind["label"])
            != (
                kind["name"],
                dict(kind["options"]),
            )
        ):
            raise ValueError(
                f"resume: the checkpoint's games hold opponents {kind['label']!r} ({kind['name']!r} with "
                f"{kind['options']}) that its config does not name"
            )


def checkpoint_agents(run: TrainConfig, games: Mapping[str, Any]) -> list[tuple[str, str, dict]]:
    """``(where, name, options)`` of every agent a checkpoint names: its config's opponents and
    evaluation opponents, and the kinds of its games' opponent table (snapshots aside)."""
    agents = [
        (f"{group}.{index}", o.name, dict(o.options))
        for group in ("opponents", "eval_opponents")
        for index, o in enumerate(getattr(run, group))
    ]
    agents += [
        (f"games.table.kinds.{kind['label']}", kind["name"], dict(kind["options"]))
        for kind in games["table"]["kinds"]
        if kind["network"] is None and kind["name"] != RETIRED
    ]
    return agents


def named_by(given: TrainConfig) -> Callable[[str, str, str, Any], bool]:
    """Whether the config given now (the command line's) names an agent's value: the same agent with
    the same option (``experiments.common.settings.refuse_untrusted_options``'s ``confirmed``)."""
    named = [*given.opponents, *given.eval_opponents]

    def confirmed(where: str, name: str, key: str, value: Any) -> bool:
        option = key.partition(".")[2]
        return any(
            o.name == name and (key == "name" or (option in o.options and _plain(o.options[option]) == value))
            for o in named
        )

    return confirmed


def check_checkpoint_weights(checkpoint: Mapping[str, Any], network: ActorCritic, path: Path) -> None:
    """Refuse a checkpoint whose learner or snapshot weights do not fit the run's network or are not finite.

    Args:
        checkpoint: The checkpoint read (``load_checkpoint``).
        network: The run's network, built from the checkpoint's settings (the shapes the weights need).
        path: The checkpoint file, for messages.

    Raises:
        ValueError: naming the file, the snapshot and the tensor (``agents.ppo.model.check_weights``).
    """
    model = checkpoint.get("model")
    declared = "the run's network settings and game"
    check_weights(model.get("state_dict") if isinstance(model, dict) else model, network.state_dict(),
                  f"{path}: the learner", declared)  # fmt: skip
    snapshots = checkpoint.get("snapshots")
    if not isinstance(snapshots, list) or not all(isinstance(s, dict) for s in snapshots):
        raise ValueError(f"{path}: its snapshots must be a list of dicts, got {type(snapshots).__name__}")
    for index, snapshot in enumerate(snapshots):
        label = snapshot.get("label")
        if not isinstance(label, str) or not isinstance(snapshot.get("update"), int):
            raise ValueError(f"{path}: snapshots.{index} needs a label (str) and an update (int)")
        check_weights(
            snapshot.get("state_dict"), network.state_dict(), f"{path}: snapshot {label!r}", declared
        )


def _plain(value: Any) -> Any:
    return OmegaConf.to_container(value, resolve=True) if OmegaConf.is_config(value) else value


def _tensors(value: Any) -> Any:
    """Plain data with numpy arrays as tensors (what ``torch.load(weights_only=True)`` reads back)."""
    if isinstance(value, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(value))
    if isinstance(value, dict):
        return {k: _tensors(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_tensors(v) for v in value)
    return value


def _arrays(value: Any) -> Any:
    """The inverse of ``_tensors``."""
    if isinstance(value, torch.Tensor):
        return value.numpy()
    if isinstance(value, dict):
        return {k: _arrays(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_arrays(v) for v in value)
    return value


def save_checkpoint(run_dir: Path, keep: int, **contents: Any) -> Path:
    folder = run_dir / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"update_{contents['update']:06d}.pt"
    partial = path.with_suffix(".partial")
    torch.save({"format": CHECKPOINT_FORMAT, **contents}, partial)
    partial.replace(path)  # a run killed while writing leaves the previous checkpoints intact
    for old in sorted(folder.glob("update_*.pt"))[:-keep]:
        old.unlink()
    return path


def hyperparameter_table(config: dict[str, Any], prefix: str = "") -> list[str]:
    rows = []
    for key, value in config.items():
        if isinstance(value, dict):
            rows += hyperparameter_table(value, f"{prefix}{key}.")
        else:
            rows.append(f"|{prefix}{key}|{value}|")
    return rows


# --- training ---------------------------------------------------------------------------


def train(
    args: TrainConfig,
    on_update: Callable[[dict[str, Any]], None] | None = None,
    resume_overrides: Iterable[str] | None = None,
) -> Path:
    """Train (or resume) a run; returns its folder.

    With ``args.resume`` the run's config is the checkpoint's; ``resume_overrides`` names the
    values of ``args`` meant to replace it (the command line's keys; None: every value of
    ``args`` that differs). Only ``RESUMABLE`` ones may (``resumed_config``).

    ``on_update``, if given, is called after each update's logging (before snapshots, evaluation and
    checkpoints) with its timing: ``update``, ``agent_steps``, ``learner_decisions`` and the seconds
    ``rollout_s`` (pool, core steps, network inference), ``update_s`` (advantages, PPO epochs) and
    ``total_s`` (both and the logging). ``experiments/benchmark.py`` measures throughput with it.
    """
    checkpoint = None
    if args.resume:
        checkpoint_path, checkpoint = load_checkpoint(args.resume)
        given = args
        args = resumed_config(checkpoint["config"], args, resume_overrides)
        check_named_code(args, given, checkpoint["games"])
        if not given.trust_files:
            refuse_untrusted_options(
                checkpoint_agents(args, checkpoint["games"]),
                checkpoint_path,
                confirmed=named_by(given),
                how="give the same opponents and eval_opponents on the command line",
            )
        args.trust_files = given.trust_files
        args.resume = str(checkpoint_path)
        if args.num_updates < checkpoint["update"]:
            raise ValueError(
                f"resume: total_timesteps={args.total_timesteps} makes {args.num_updates} updates, "
                f"but the checkpoint is at update {checkpoint['update']}"
            )
        run_dir = checkpoint_path.parent.parent
    else:
        run_name = f"{ENV_ID}__{args.exp_name}__{args.seed}__{int(time.time())}"
        run_dir = Path(args.runs_dir) / run_name
    args.validate()
    config_dict = OmegaConf.to_container(OmegaConf.structured(args), resolve=True)
    config_dict["resume"] = None  # a checkpoint's config starts like the original run
    config_dict["trust_files"] = False  # a checkpoint never vouches for itself

    # Seeding
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    generator = torch.Generator().manual_seed(args.seed)

    game = args.game.to_game_config()
    network = ActorCritic(game, args.network)
    optimizer = optim.Adam(network.parameters(), lr=args.learning_rate, eps=1e-5)
    pool = OpponentPool(args)
    num_updates = args.num_updates
    envs = LearnerGames(
        game,
        args.num_envs,
        args.seed,
        args.wrong_accusation_penalty,
        args.end_episode_on_elimination,
        belief_features=args.network.belief_features,
    )
    if checkpoint is None:
        if args.init_from:
            warm_start(network, load_model(args.init_from))
        envs.set_pool(*pool.kinds(network, 0.0))
        envs.start()
        start_update, global_step, elapsed_before = 1, 0, 0.0
    else:
        check_checkpoint_weights(checkpoint, network, checkpoint_path)
        network.load_state_dict(checkpoint["model"]["state_dict"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        generator.set_state(checkpoint["torch_rng"])
        torch.set_rng_state(checkpoint["torch_global_rng"])
        pool.snapshots = checkpoint["snapshots"]
        if "league" in checkpoint:  # checkpoints of before the league have no estimates
            pool.load_state_dict(checkpoint["league"])
        envs.load_state_dict(
            _arrays(checkpoint["games"]),
            network=lambda weights: snapshot_network(
                network, weights, f"{checkpoint_path}: a snapshot among its games' opponents"
            ),
        )
        start_update, global_step = checkpoint["update"] + 1, checkpoint["global_step"]
        elapsed_before = checkpoint["elapsed"]

    writer = SummaryWriter(str(run_dir), purge_step=global_step + 1 if checkpoint else None)
    if checkpoint is None:
        rows = "\n".join(hyperparameter_table(config_dict))
        writer.add_text("hyperparameters", f"|param|value|\n|-|-|\n{rows}")
        (run_dir / "config.yaml").write_text(OmegaConf.to_yaml(config_dict))
    print(f"run folder: {run_dir}")

    start_time, start_step = time.time(), global_step
    learner_decisions = 0
    progress = tqdm(
        range(start_update, num_updates + 1),
        initial=start_update - 1,
        total=num_updates,
        disable=not args.progress,
        unit="update",
    )
    for update in progress:
        update_start = time.perf_counter()
        fraction = (update - 1) / num_updates
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = (1.0 - fraction) * args.learning_rate
        kinds, weights = pool.kinds(network, fraction)
        envs.set_pool(kinds, weights)

        # Rollout: num_steps core steps of every game; the learner decides where it is to act.
        rollout = Rollout(args.num_envs, args.num_envs * args.num_steps)
        network.eval()
        torch.set_num_threads(args.torch_threads)
        for _ in range(args.num_steps):
            games, obs, mask = envs.learner_turn()
            with torch.no_grad():
                dist, value = network.policy(torch.from_numpy(obs), torch.from_numpy(mask))
                action = dist.sample(generator)
            rollout.add(games, obs, mask, action, dist.log_prob(action), value)
            reward, over = envs.step(action.numpy())
            rollout.record(reward, over)
            global_step += args.num_envs
        final_obs = envs.observe_learner()
        with torch.no_grad():
            bootstrap = network(torch.from_numpy(final_obs))[1].numpy()
        learner_decisions += rollout.size
        rollout_end = time.perf_counter()

        b_obs = torch.from_numpy(np.concatenate(rollout.obs))
        b_masks = torch.from_numpy(np.concatenate(rollout.masks))
        b_actions = torch.cat(rollout.actions)
        b_logprobs = torch.cat(rollout.logprobs)
        values = torch.cat(rollout.values).numpy()
        if args.knowledge_shaping:
            potential = knowledge_potential(b_obs.numpy(), game, args.knowledge_shaping)
            bootstrap_potential = knowledge_potential(final_obs, game, args.knowledge_shaping)
        else:
            potential = bootstrap_potential = None
        advantages = compute_gae(
            rollout, values, bootstrap, args.gamma, args.gae_lambda, potential, bootstrap_potential
        )
        b_advantages = torch.from_numpy(advantages)
        b_returns = torch.from_numpy(advantages + values)
        b_values = torch.from_numpy(values)

        # Optimizing the policy and value network
        network.train()
        torch.set_num_threads(args.update_threads or args.torch_threads)
        batch_size = rollout.size
        minibatch_size = -(-batch_size // args.num_minibatches)
        clipfracs = []
        for _epoch in range(args.update_epochs):
            order = torch.randperm(batch_size, generator=generator)
            for start in range(0, batch_size, minibatch_size):
                mb = order[start : start + minibatch_size]
                dist, newvalue = network.policy(b_obs[mb], b_masks[mb], check=False)  # checked in the rollout
                newlogprob = dist.log_prob(b_actions[mb])
                entropy = dist.entropy()
                logratio = newlogprob - b_logprobs[mb]
                ratio = logratio.exp()

                with torch.no_grad():
                    # calculate approx_kl http://joschu.net/blog/kl-approx.html
                    old_approx_kl = (-logratio).mean()
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs += [((ratio - 1.0).abs() > args.clip_coef).float().mean().item()]

                mb_advantages = b_advantages[mb]
                if args.norm_adv:
                    mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)

                # Policy loss
                pg_loss1 = -mb_advantages * ratio
                pg_loss2 = -mb_advantages * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
                pg_loss = torch.max(pg_loss1, pg_loss2).mean()

                # Value loss
                if args.clip_vloss:
                    v_loss_unclipped = (newvalue - b_returns[mb]) ** 2
                    v_clipped = b_values[mb] + torch.clamp(
                        newvalue - b_values[mb], -args.clip_coef, args.clip_coef
                    )
                    v_loss_clipped = (v_clipped - b_returns[mb]) ** 2
                    v_loss = 0.5 * torch.max(v_loss_unclipped, v_loss_clipped).mean()
                else:
                    v_loss = 0.5 * ((newvalue - b_returns[mb]) ** 2).mean()

                entropy_loss = entropy.mean()
                loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef

                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(network.parameters(), args.max_grad_norm)
                optimizer.step()

            if args.target_kl is not None and approx_kl > args.target_kl:
                break

        y_pred, y_true = values, b_returns.numpy()
        var_y = np.var(y_true)
        explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y
        update_end = time.perf_counter()

        # Logging
        elapsed = time.time() - start_time
        sps = int((global_step - start_step) / elapsed)
        writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], global_step)
        writer.add_scalar("losses/value_loss", v_loss.item(), global_step)
        writer.add_scalar("losses/policy_loss", pg_loss.item(), global_step)
        writer.add_scalar("losses/entropy", entropy_loss.item(), global_step)
        writer.add_scalar("losses/old_approx_kl", old_approx_kl.item(), global_step)
        writer.add_scalar("losses/approx_kl", approx_kl.item(), global_step)
        writer.add_scalar("losses/clipfrac", np.mean(clipfracs), global_step)
        writer.add_scalar("losses/explained_variance", explained_var, global_step)
        writer.add_scalar("charts/SPS", sps, global_step)
        writer.add_scalar("charts/learner_SPS", int(learner_decisions / elapsed), global_step)
        writer.add_scalar("charts/learner_decisions_per_update", batch_size, global_step)
        episodes = envs.pop_finished()
        postfix = {"SPS": sps}
        if len(episodes["outcome"]):
            outcome = episodes["outcome"]
            writer.add_scalar("charts/episodic_return", episodes["return"].mean(), global_step)
            writer.add_scalar("charts/episodic_length", episodes["length"].mean(), global_step)
            writer.add_scalar("charts/game_turns", episodes["turns"].mean(), global_step)
            writer.add_scalar("charts/episodes", len(outcome), global_step)
            wrong = float((outcome == OUTCOMES.index("wrong_accusation")).mean())
            writer.add_scalar("charts/wrong_accusation_rate", wrong, global_step)
            postfix["wrong"] = f"{wrong:.2f}"
            for group in sorted(set(episodes["group"])):
                won = outcome[episodes["group"] == group] == OUTCOMES.index("win")
                writer.add_scalar(f"charts/win_rate/{group}", won.mean(), global_step)
                postfix[group] = f"{won.mean():.2f}"
        pool.record(episodes["kind"], episodes["outcome"] == OUTCOMES.index("win"))
        total_weight = sum(weights)
        for kind, weight in zip(kinds, weights, strict=True):
            writer.add_scalar(f"league/win_rate/{kind.label}", pool.win_rate(kind.label), global_step)
            writer.add_scalar(f"league/probability/{kind.label}", weight / total_weight, global_step)
        progress.set_postfix(postfix)
        if on_update is not None:
            on_update(
                {
                    "update": update,
                    "agent_steps": args.num_envs * args.num_steps,
                    "learner_decisions": batch_size,
                    "rollout_s": rollout_end - update_start,
                    "update_s": update_end - rollout_end,
                    "total_s": time.perf_counter() - update_start,
                }
            )

        # Snapshots of the learner join the pool
        if (
            args.snapshot_every
            and update % args.snapshot_every == 0
            and update / num_updates >= args.snapshot_start
        ):
            pool.add_snapshot(network, update)
        # Rating: win rates against the fixed evaluation set
        if args.eval_every and (update % args.eval_every == 0 or update == num_updates):
            results = evaluate(network, game, args.eval_opponents, args.eval_games, args.eval_deterministic)
            for label, result in results.items():
                writer.add_scalar(f"eval/win_rate/{label}", result["win_rate"], global_step)
                writer.add_scalar(
                    f"eval/wrong_accusation_rate/{label}", result["wrong_accusation_rate"], global_step
                )
        if (args.checkpoint_every and update % args.checkpoint_every == 0) or update == num_updates:
            save_checkpoint(
                run_dir,
                args.keep_checkpoints,
                update=update,
                global_step=global_step,
                model=model_record(network),
                optimizer=optimizer.state_dict(),
                torch_rng=generator.get_state(),
                torch_global_rng=torch.get_rng_state(),
                snapshots=pool.snapshots,
                league=pool.state_dict(),
                games=_tensors(envs.state_dict()),
                config=config_dict,
                elapsed=elapsed_before + elapsed,
            )
            writer.flush()

    model_path = save_model(
        run_dir / "model.pt", network, update=num_updates, global_step=global_step, train_config=config_dict
    )
    print(f"model: {model_path}")
    if args.final_eval_games:
        final_evaluation(network, game, args, run_dir, writer, global_step)
    writer.close()
    return run_dir


def with_intervals(results: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """``evaluate``'s results (updated in place; returned) with 95% Wilson intervals of the win and
    wrong-accusation rates: ``win_low``, ``win_high``, ``wrong_accusation_low``, ``wrong_accusation_high``."""
    from experiments.common.stats import wilson_interval

    for result in results.values():
        low, high = wilson_interval(result["wins"], result["games"])
        result.update(win_low=low, win_high=high)
        low, high = wilson_interval(result["wrong_accusations"], result["games"])
        result.update(wrong_accusation_low=low, wrong_accusation_high=high)
    return results


def final_evaluation(
    network: ActorCritic,
    game: core.GameConfig,
    args: TrainConfig,
    run_dir: Path,
    writer: SummaryWriter,
    step: int,
) -> dict[str, Any]:
    """``final_eval_games`` games against each evaluation opponent -> ``evaluation.json`` with Wilson intervals."""
    results = evaluate(
        network,
        game,
        args.eval_opponents,
        args.final_eval_games,
        args.eval_deterministic,
        seed=1,
        progress=args.progress,
    )
    for label, result in with_intervals(results).items():
        writer.add_scalar(f"eval/final_win_rate/{label}", result["win_rate"], step)
        print(
            f"  vs {game.num_players - 1} x {label:14s} win rate {result['win_rate']:.3f} "
            f"[{result['win_low']:.3f}, {result['win_high']:.3f}] over {result['games']} games; "
            f"wrong accusations {result['wrong_accusation_rate']:.3f}; mean turns {result['mean_turns'] or 0:.1f}"
        )
    (run_dir / "evaluation.json").write_text(
        json.dumps({"game": asdict(args.game), "results": results}, indent=2)
    )
    return results


@checked_main
@hydra.main(config_path=str(SHIPPED_CONFIGS), config_name="train_ppo", version_base=None)
def main(cfg: TrainConfig) -> None:
    from hydra.core.hydra_config import HydraConfig

    hydra_config = HydraConfig.get()
    args = OmegaConf.to_object(cfg)
    args.trust_files = trusted_by_command_line(cfg, hydra_config)
    try:  # before any agent or file: what a user's config file names that reads or writes files
        refuse_from_elsewhere(
            cfg, hydra_config, ["opponents", "eval_opponents"], ["init_from", "runs_dir", "resume"]
        )
    except ConfigError as error:
        print(f"config error: {error}", file=sys.stderr)
        sys.exit(2)
    refuse_unwritable({"resume": _run_folder(args.resume)} if args.resume else {"runs_dir": args.runs_dir})
    try:
        train(args, resume_overrides=list(hydra_config.overrides.task))
    except ConfigError as error:
        print(f"config error: {error}", file=sys.stderr)
        sys.exit(2)


def _run_folder(resume: str) -> Path:
    """The folder a resume writes to: a run folder, or a checkpoint file's run folder."""
    path = Path(resume)
    return path if path.is_dir() or not path.exists() else path.parent.parent


if __name__ == "__main__":
    main()
