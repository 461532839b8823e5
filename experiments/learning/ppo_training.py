"""PPO training on the batched Cluedo core, CleanRL's ``ppo.py`` in shape: the config, the rollout and
update loop.

``experiments/train_ppo.py`` is the command (its docstring documents the run: what one update does,
opponents, logs, files); ``experiments/benchmark/training.py`` times ``train``. ``TrainConfig`` declares
the settings and their types; every value, default included, is ``configs/train_ppo.yaml``'s (the YAML
starts from the schema ``train_ppo_schema``), and ``train_config`` composes it in code. What ``train``
stands on is in the modules beside this one: the league (``league``), advantages, reward shaping,
evaluation, checkpoints and resume.
"""

from __future__ import annotations

import itertools
import math
import os
import random
import shutil
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from hydra.core.config_store import ConfigStore
from omegaconf import MISSING, OmegaConf
from torch import nn, optim
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from agents.ppo.distributions import structured_kl
from agents.ppo.games import OUTCOMES, LearnerGames
from agents.ppo.model import load_model, model_record, save_model
from agents.ppo.network import PRECISIONS, ActorCritic
from agents.ppo.warm_start import warm_start
from cluedo_env.whole_files import write_whole
from experiments.common.folder_lock import lock_folder
from experiments.common.shipped_configs import SHIPPED_CONFIGS
from experiments.common.value_checks import ConfigError, check_all_set
from experiments.learning import league
from experiments.learning.advantages import Rollout, compute_gae
from experiments.learning.checkpoints import (
    restore_run,
    run_folder,
    save_checkpoint,
    set_aside_later,
    to_tensors,
)
from experiments.learning.evaluation import evaluate, final_evaluation
from experiments.learning.init_from import check_init_from
from experiments.learning.league import OpponentPool, OpponentSettings, check_opponents, check_pool_sampling
from experiments.learning.resume import IN_TRAINING, resume_run
from experiments.learning.run_logs import record_session, unique_run_folder
from experiments.learning.run_settings import PPOSettings
from experiments.learning.shaping import knowledge_potential

ENV_ID = "cluedo_v0"


@dataclass
class TrainConfig(PPOSettings):
    """PPO training on the batched core: the fields and their types (``PPOSettings``' and these);
    ``configs/train_ppo.yaml`` gives every value (``train_config`` composes it in code)."""

    update_threads: int | None = MISSING
    """torch.set_num_threads in the updates (null: torch_threads); more threads help only on idle cores"""
    compile: bool = MISSING
    """compile the updates' forward and backward passes with torch.compile (needs a C++ compiler; the first
    updates take about 20 s longer)"""
    precision: str = MISSING
    """the network's arithmetic in the updates: float32, or bfloat16 (``ActorCritic.forward``: the layers under
    torch.autocast, weights, optimizer, losses and the rollouts float32); bfloat16 is faster only on CPUs with
    native bfloat16 (AVX-512 BF16, AMX)"""

    # Algorithm
    anneal_lr: bool = MISSING
    """anneal the learning rate linearly to 0 over the updates"""
    num_envs: int = MISSING
    """games played at once on the batched core"""
    num_steps: int = MISSING
    """core steps per rollout (each one decision in every game)"""
    num_minibatches: int = MISSING
    """minibatches per epoch (the rollout's learner decisions are split into this many)"""
    update_epochs: int = MISSING
    """epochs of updates over each rollout"""
    norm_adv: bool = MISSING
    """normalize advantages per minibatch"""
    clip_coef: float = MISSING
    """the surrogate clipping coefficient"""
    clip_vloss: bool = MISSING
    """use a clipped value loss"""
    target_kl: float | None = MISSING
    """stop an update's epochs early past this approximate KL (null: never)"""

    # Rewards
    wrong_accusation_penalty: float = MISSING
    """added to the learner's reward when it accuses wrongly (shaping)"""
    end_episode_on_elimination: bool = MISSING
    """a wrong accusation ends the learner's episode with -1 and the game is dealt again; must be true
    (``TrainConfig.validate``: played on, the eliminated learner's result would often be lost)"""

    # Opponents
    opponents: list[OpponentSettings] = MISSING
    """the pool: kinds of opponent with weights and curriculum windows"""
    snapshot_every: int = MISSING
    """add a frozen copy of the learner to the pool every this many updates (0: never)"""
    snapshot_start: float = MISSING
    """fraction of training after which snapshots are taken"""
    max_snapshots: int = MISSING
    """snapshots kept in the pool (the latest)"""
    snapshot_weight: float = MISSING
    """pool weight shared by the snapshots"""
    pool_sampling: str = MISSING
    """how a newly dealt game's opponents are drawn: "weights" (proportional to the weights) or "pfsp"
    (the weights times max(pfsp_floor, (1 - learner's win rate against them) ** pfsp_power))"""
    pfsp_power: float = MISSING
    """p of pfsp: the larger, the more the opponents the learner beats least dominate"""
    pfsp_floor: float = MISSING
    """the smallest pfsp factor (keeps beaten opponents in the pool)"""
    pfsp_decay: float = MISSING
    """factor applied per update to the pool's win counts (the estimate's memory)"""

    # Evaluation, checkpoints
    eval_every: int = MISSING
    """updates between evaluations against eval_opponents (0: never)"""
    eval_opponents: list[OpponentSettings] = MISSING
    """the fixed evaluation set: the learner against num_players - 1 agents of each kind"""
    eval_deterministic: bool = MISSING
    """evaluate the most likely action instead of sampling"""
    checkpoint_every: int = MISSING
    """updates between checkpoints (0: only the last)"""
    keep_checkpoints: int = MISSING
    """checkpoints kept (the latest)"""
    resume: str | None = MISSING
    """a checkpoint, or a run folder (its latest checkpoint), to continue"""
    init_from: str | None = MISSING
    """a model file (or checkpoint), or the name of one in agents/ppo/shipped/, whose weights the network
    starts from (``agents.ppo.warm_start``: input columns it lacked, such as the belief pieces, start at zero)"""
    anchor_coef: float = MISSING
    """weight of the anchor ``KL(init_from's policy || learner's)`` in the loss (needs init_from; 0: none):
    the learner stays near the policy it started from while its critic and advantages are young"""
    anchor_until: float = MISSING
    """fraction of training at which the anchor's weight, falling linearly from anchor_coef, reaches 0"""
    critic_warmup: int = MISSING
    """first updates of a run in which only the value head learns (the policy plays as it started): a
    warm-started policy's value head knows nothing of it, and its advantages would be noise"""

    @property
    def num_updates(self) -> int:
        return self.total_timesteps // (self.num_envs * self.num_steps)

    def validate(self) -> None:
        """Raise ``ConfigError`` (a ``ValueError``) naming a bad field, its value and what is accepted."""
        self.check_run()
        self.check_learning()
        for name in ("num_envs", "num_steps", "num_minibatches", "update_epochs"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)!r}")
        if not 0 < self.clip_coef < math.inf:
            raise ConfigError(f"clip_coef must be a finite number > 0, got {self.clip_coef!r}")
        if self.target_kl is not None and not self.target_kl > 0:
            raise ConfigError(f"target_kl must be > 0 or null (never stop early), got {self.target_kl!r}")
        if not 0 <= self.snapshot_weight < math.inf or not 0 <= self.snapshot_start <= 1:
            raise ConfigError(
                "need snapshot_weight a finite number >= 0 and snapshot_start in [0, 1], got "
                f"{self.snapshot_weight!r} and {self.snapshot_start!r}"
            )
        if not -math.inf < self.wrong_accusation_penalty < math.inf:
            raise ConfigError(
                f"wrong_accusation_penalty must be a finite number, got {self.wrong_accusation_penalty!r}"
            )
        if not self.end_episode_on_elimination:
            # The eliminated learner's result (-1, or 0 if the game is truncated at max_turns) is not known
            # at its wrong accusation, and comes when the game ends, often rollouts after its last decision:
            # Rollout.record would have no decision to credit it to.
            raise ConfigError(
                "end_episode_on_elimination=false is not supported: after a wrong accusation the learner's "
                "result (-1, or 0 if the game is truncated at max_turns) is known only when the game ends, "
                "often in a later rollout than its last decision, where no decision receives it and its "
                "advantage would rest on the value of an eliminated learner's observation; set "
                "end_episode_on_elimination=true (the wrong accusation ends the learner's episode with -1)"
            )
        check_pool_sampling(self)
        if self.compile and cpp_compiler() is None:
            raise ConfigError(
                "compile=true needs a C++ compiler for torch.compile (the CXX variable, or c++, g++ or clang++ on "
                "the PATH); found none: install one (Debian: apt install g++) or set compile=false"
            )
        if self.precision not in PRECISIONS:
            raise ConfigError(f"precision must be one of {PRECISIONS}, got {self.precision!r}")
        if self.update_threads is not None and self.update_threads < 1:
            raise ConfigError(f"update_threads must be >= 1 or null, got {self.update_threads!r}")
        for name in ("snapshot_every", "eval_every", "checkpoint_every", "max_snapshots"):
            if getattr(self, name) < 0:
                raise ConfigError(f"{name} must be >= 0, got {getattr(self, name)!r}")
        check_init_from(self.init_from, self.game, self.network)
        if self.num_updates < 1:
            raise ConfigError(
                f"total_timesteps must be at least num_envs * num_steps = {self.num_envs * self.num_steps}, "
                f"got {self.total_timesteps}"
            )
        if not 0 <= self.anchor_coef < math.inf or not 0 < self.anchor_until <= 1 or self.critic_warmup < 0:
            raise ConfigError(
                "need anchor_coef >= 0 (a finite number), 0 < anchor_until <= 1 and critic_warmup >= 0, got "
                f"{self.anchor_coef!r}, {self.anchor_until!r}, {self.critic_warmup!r}"
            )
        if self.anchor_coef and self.init_from is None:
            raise ConfigError(
                f"anchor_coef={self.anchor_coef!r} needs init_from (the policy to stay near), got None"
            )
        if self.keep_checkpoints < 1:
            raise ConfigError(f"keep_checkpoints must be >= 1, got {self.keep_checkpoints!r}")
        check_opponents(self)


ConfigStore.instance().store(name="train_ppo_schema", node=TrainConfig)


def minibatch_starts(batch_size: int, minibatch_size: int) -> list[int]:
    """Where each minibatch of an update's ``batch_size`` decisions starts: every ``minibatch_size``, a
    last one of a single decision joined to the one before (a minibatch of one has no advantage spread
    to normalise by, and one such step turned every weight into NaN)."""
    starts = list(range(0, batch_size, max(minibatch_size, 1)))
    if len(starts) > 1 and batch_size - starts[-1] < 2:
        starts.pop()
    return starts


def cpp_compiler() -> str | None:
    """The C++ compiler ``torch.compile`` can build with on CPU (``CXX``, else ``c++``, ``g++`` or ``clang++`` on
    the PATH), or None where there is none."""
    if os.environ.get("CXX"):
        return shutil.which(os.environ["CXX"])
    return next(filter(None, map(shutil.which, ("c++", "g++", "clang++"))), None)


def train_config(overrides: Sequence[str] = (), config_name: str = "train_ppo", **values: Any) -> TrainConfig:
    """``configs/<config_name>.yaml`` composed with hydra ``overrides``, as the command composes it,
    then with ``values`` (Python objects: ``network=NetworkSettings(...)``) replacing its fields.

    Inside a hydra app (the benchmark's) its config folders are searched; elsewhere ``configs/``.
    """
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    if GlobalHydra.instance().is_initialized():
        cfg = compose(config_name, overrides=list(overrides))
    else:
        with initialize_config_dir(config_dir=str(SHIPPED_CONFIGS), version_base=None):
            cfg = compose(config_name, overrides=list(overrides))
    return replace(OmegaConf.to_object(cfg), **values)


def hyperparameter_table(config: dict[str, Any], prefix: str = "") -> list[str]:
    """The rows ``|key|value|`` of a config (nested keys dotted), for TensorBoard's text table."""
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
    ``args`` that differs). Only ``RESUMABLE`` ones may (``experiments.learning.resume``).

    ``on_update``, if given, is called after each update's logging (before snapshots, evaluation and
    checkpoints) with its timing: ``update``, ``agent_steps``, ``learner_decisions`` and the seconds
    ``rollout_s`` (pool, core steps, network inference), ``update_s`` (advantages, PPO epochs) and
    ``total_s`` (both and the logging). ``experiments/benchmark/training.py`` measures throughput with it.

    The run folder is locked from when it is known to the end (``experiments.common.folder_lock``, an OS
    lock that ends with the process): a resume of a folder that another process trains (the run, or another
    resume) raises ``FolderInUse`` before it changes anything.
    """
    with ExitStack() as held:
        return _train(args, on_update, resume_overrides, held)


def _train(
    args: TrainConfig, on_update: Callable | None, resume_overrides: Iterable | None, held: ExitStack
) -> Path:
    check_all_set(args, "experiments.learning.ppo_training.train_config(overrides, **values)")
    checkpoint = None
    if args.resume:
        args, checkpoint_path, checkpoint = resume_run(args, resume_overrides)
        run_dir = run_folder(checkpoint_path)
        held.enter_context(lock_folder(run_dir, advice=IN_TRAINING))
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
    anchor = None
    if args.anchor_coef:  # the policy the run started from, frozen (read again on a resume)
        anchor = warm_start(ActorCritic(game, args.network), load_model(args.init_from)).eval()
        anchor.requires_grad_(False)
    value_head = {id(p) for p in network.value_head.parameters()}

    def minibatch(obs: torch.Tensor, mask: torch.Tensor, actions: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """What an update differentiates: the actions' log-probabilities, the entropies, the values and the
        log-probability rows (the masks were checked in the rollout)."""
        dist, value = network.policy(obs, mask, check=False, precision=args.precision)
        return dist.log_prob(actions), dist.entropy(), value, dist.log_probs

    if args.compile:  # the update's forward and backward; the rollouts, evaluations and snapshots stay eager
        minibatch = torch.compile(minibatch)
    if checkpoint is None:
        if args.init_from:
            warm_start(network, load_model(args.init_from))
        envs.set_pool(*pool.kinds(network, 0.0))
        envs.start()
        start_update, global_step, elapsed_before = 1, 0, 0.0
    else:
        start_update, global_step, elapsed_before = restore_run(
            checkpoint, checkpoint_path, network, optimizer, generator, pool, envs
        )
        # restored (a refused resume moves nothing): the later checkpoints are no longer the run's latest
        for moved in set_aside_later(run_dir, checkpoint["update"]):
            print(f"resume: {moved.name} (after the update resumed from) set aside in {moved.parent}")

    if checkpoint is None:  # a new run's own folder, never another run's of the same second
        run_dir = unique_run_folder(args.runs_dir, f"{ENV_ID}__{args.exp_name}__{args.seed}")
        held.enter_context(lock_folder(run_dir))  # a resume of it while it runs is refused
    writer = SummaryWriter(str(run_dir), purge_step=global_step + 1 if checkpoint else None)
    if checkpoint is None:
        rows = "\n".join(hyperparameter_table(config_dict))
        writer.add_text("hyperparameters", f"|param|value|\n|-|-|\n{rows}")
    write_whole(run_dir / "config.yaml", OmegaConf.to_yaml(config_dict))  # as it goes on (a resume's budget)
    print(f"run folder: {run_dir}")
    record_session(run_dir, {"update": start_update - 1, "global_step": global_step})  # run.json: its code

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
        warming = update <= args.critic_warmup
        anchor_coef = args.anchor_coef * max(0.0, 1.0 - fraction / args.anchor_until)
        if anchor is not None and anchor_coef > 0 and not warming and rollout.size:
            with torch.no_grad():
                b_anchor = anchor.policy(b_obs, b_masks, check=False)[0].log_probs
        else:
            anchor_coef = 0.0
        anchor_kl = torch.zeros(())

        # Optimizing the policy and value network
        network.train()
        torch.set_num_threads(args.update_threads or args.torch_threads)
        batch_size = rollout.size
        if not batch_size:  # (few games and steps: the learner may have had no turn to decide in any)
            progress.write(
                f"update {update}: the rollout holds no decision of the learner ({args.num_envs} games, "
                f"{args.num_steps} steps); the network is not updated"
            )
        minibatch_size = -(-batch_size // args.num_minibatches)
        starts = minibatch_starts(batch_size, minibatch_size)
        clipfracs = []
        for _epoch in range(args.update_epochs if batch_size else 0):
            order = torch.randperm(batch_size, generator=generator)
            for start, end in itertools.pairwise([*starts, batch_size]):
                mb = order[start:end]
                newlogprob, entropy, newvalue, log_probs = minibatch(b_obs[mb], b_masks[mb], b_actions[mb])
                logratio = newlogprob - b_logprobs[mb]
                ratio = logratio.exp()

                with torch.no_grad():
                    # calculate approx_kl http://joschu.net/blog/kl-approx.html
                    old_approx_kl = (-logratio).mean()
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs += [((ratio - 1.0).abs() > args.clip_coef).float().mean().item()]

                mb_advantages = b_advantages[mb]
                if args.norm_adv and len(mb) > 1:  # (one decision has no spread: an update of one)
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
                if warming:  # the critic alone: the policy's parameters get no gradient below
                    loss = v_loss * args.vf_coef
                else:
                    loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef
                if anchor_coef:
                    anchor_kl = structured_kl(b_anchor[mb], log_probs, network.structure).mean()
                    loss = loss + anchor_coef * anchor_kl

                optimizer.zero_grad()
                loss.backward()
                if warming:
                    for parameter in network.parameters():
                        if id(parameter) not in value_head:
                            parameter.grad = None  # Adam leaves a parameter without a gradient as it is
                nn.utils.clip_grad_norm_(network.parameters(), args.max_grad_norm)
                optimizer.step()

            if args.target_kl is not None and approx_kl > args.target_kl:
                break
        if not all(torch.isfinite(parameter).all() for parameter in network.parameters()):
            raise FloatingPointError(
                f"update {update}: the network's weights are no longer finite (the losses diverged); the run "
                "stops before they reach a checkpoint or the model file: lower learning_rate, or resume from "
                "an earlier checkpoint"
            )

        update_end = time.perf_counter()

        # Logging
        elapsed = time.time() - start_time
        sps = int((global_step - start_step) / elapsed)
        writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], global_step)
        if batch_size:  # (no losses where there was no update)
            y_pred, y_true = values, b_returns.numpy()
            var_y = np.var(y_true)
            explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y
            writer.add_scalar("losses/value_loss", v_loss.item(), global_step)
            writer.add_scalar("losses/policy_loss", pg_loss.item(), global_step)
            writer.add_scalar("losses/entropy", entropy_loss.item(), global_step)
            writer.add_scalar("losses/old_approx_kl", old_approx_kl.item(), global_step)
            writer.add_scalar("losses/approx_kl", approx_kl.item(), global_step)
            writer.add_scalar("losses/clipfrac", np.mean(clipfracs), global_step)
            writer.add_scalar("losses/explained_variance", explained_var, global_step)
            writer.add_scalar("losses/anchor_kl", anchor_kl.item(), global_step)
        writer.add_scalar("charts/anchor_coef", anchor_coef, global_step)
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
        pool.log(writer, kinds, weights, global_step)
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
        if league.snapshot_due(args, update, num_updates):
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
                games=to_tensors(envs.state_dict()),
                config=config_dict,
                elapsed=elapsed_before + elapsed,
            )
            writer.flush()

    model_file = save_model(
        run_dir / "model.pt", network, update=num_updates, global_step=global_step, train_config=config_dict
    )
    print(f"model: {model_file}")
    if args.final_eval_games:
        final_evaluation(network, game, args, run_dir, writer, global_step)
    writer.close()
    return run_dir
