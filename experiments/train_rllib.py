"""Ray RLlib PPO (current API stack: RLModule, Learner, env runners) on Cluedo, illegal actions masked.

    python -m experiments.train_rllib                                     # configs/train_rllib.yaml
    python -m experiments.train_rllib total_timesteps=200000 exp_name=smoke
    python -m experiments.train_rllib opponent=null snapshot_every=10    # self-play on cluedo_v0
    python -m experiments.train_rllib ray_address=auto num_env_runners=32  # on a running Ray cluster
    python -m experiments.train_rllib resume=runs/<run folder> trust_files=true  # continue your own run
    tensorboard --logdir runs

What a run is:

1. **Model.** ``agents.integrations.rllib_module.CluedoPPOModule``: the project's PPO
   network (``agents/ppo/network.py``, sizes from ``network``) as an RLModule;
   the logits of illegal actions are -1e9 inside the model, so RLlib's
   categorical distribution never samples one.
2. **Env.** With ``opponent`` set (default: three random players that never
   accuse), every env runner plays ``num_envs_per_env_runner`` single games of
   ``cluedo_env.gym_env.CluedoSingleAgentEnv``: the learner in a random seat,
   the opponent (any ``agents`` name: random, notepad, sat, ppo...) in the
   others, played inside the env. With ``opponent: null`` the env is the
   PettingZoo ``cluedo_v0`` through RLlib's ``PettingZooEnv`` (turn-based: only
   the player who decides gets an observation), every seat a learner:
   ``policies: shared`` (one module, ``shared``, for all seats: self-play) or
   ``per_seat`` (a module per seat). Self-play snapshots: every
   ``snapshot_every`` iterations (0: never) a frozen copy of ``shared`` joins
   (the latest ``max_snapshots`` are kept), and in each new game every seat
   plays a snapshot with probability ``snapshot_share``.
3. **Rewards.** ``reward_scheme`` (+1 win, -1 loss by default) on the game's
   end; with fixed opponents, ``elimination_reward`` ends the learner's
   episode at its wrong accusation, and ``knowledge_shaping`` adds
   ``train_ppo``'s potential-based reward for seen cards
   (``gamma * phi(next) - phi(now)``, phi 0 at the episode's end).
4. **Budget.** ``total_timesteps`` counts agent-steps as ``train_ppo`` does:
   every player's decisions, the opponents' included (counted in the envs).
   An iteration is ``algo.train()``: ``train_batch_size`` learner steps
   sampled, then ``num_epochs`` passes of minibatches of ``minibatch_size``.
5. **Evaluation.** Every ``eval_every`` agent-steps and at the end
   (``final_eval_games``), the policy is exported and played in the arena as
   ``train_ppo``'s evaluation does: ``num_players - 1`` of each
   ``eval_opponents`` kind, fixed deals, seats rotated, 95% Wilson intervals
   and game counts (``evaluations.json``, one line per evaluation).

Ray: ``ray_address: null`` starts Ray on this machine (``num_cpus`` of it, all
when null); ``ray_address=auto`` (on a cluster node) or
``ray://<head>:10001`` joins a running cluster; ``num_env_runners``,
``num_envs_per_env_runner``, ``num_cpus_per_env_runner``, ``num_learners`` and
``num_gpus_per_learner`` place the work; ``sample_timeout`` is how long an
iteration waits for samples (an iteration without any counts no agent-steps). The driver (this script) writes every
file, on the machine where it runs.

Files, in ``<runs_dir>/rllib__<exp_name>__<seed>__<time>``: ``config.yaml``; ``run.json`` (each
session, the run and each resume: its code and the ``iteration`` and ``agent_steps`` it went on from;
``experiments.learning.run_logs.record_session``, as ``train_ppo``'s);
TensorBoard events (``charts/SPS`` agent-steps/s, ``charts/agent_steps``,
``charts/episode_return``, ``losses/*``, ``eval/win_rate/<label>``);
``checkpoints/iteration_<n>/`` every ``checkpoint_every`` iterations (the
latest ``keep_checkpoints`` kept), each RLlib's own checkpoint
(``algo.save_to_path``: pickles, for ``resume`` of your own runs only) plus
``cluedo_model.pt`` (the trained module in the project's pickle-free model
format) and ``progress.json`` (agent-steps, iteration, snapshots); at the end
``model.pt`` (of the trained module; with ``policies: per_seat``, seat 0's; the same format: ``make_agent("rllib", path=<run folder>)`` or
``make_agent("ppo", checkpoint=<run>/model.pt)`` plays it, read with
``weights_only=True``) and ``evaluations.json``. ``resume=<run folder or
checkpoint folder> trust_files=true`` restores RLlib's checkpoint and continues
in the same run folder, with the run's own settings (its ``config.yaml``): the
command line may change only ``RESUMABLE`` (the budget, resources, logging,
checkpoints and evaluations). RLlib's checkpoint is
unpickled, so a resume is refused (in one line, before Ray starts) unless
the command line says ``trust_files=true``: resume only your own runs. One
process at a time resumes a run folder (``tournament.lock``, an OS lock that
ends with its process, ``experiments.common.folder_lock``, held by a new run
and a resume alike): a resume of a run another process is still training is
refused in one line, before Ray starts.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

try:  # modules of extras: a core-only install is told which extra to install
    import hydra
    from hydra.core.config_store import ConfigStore
    from omegaconf import MISSING, OmegaConf
    from torch.utils.tensorboard import SummaryWriter

    from agents.integrations.rllib_module import module_spec
    from experiments.learning.rllib_algorithm import (
        SHARED,
        decisions_sampled,
        network_of,
        register_envs,
        rllib_setup,
        snapshot_mapping,
        start_ray,
        trained_module_ids,
    )
except ModuleNotFoundError as error:
    from experiments.common.extras import missing_extra

    raise missing_extra(error, command=__name__ == "__main__") from error

from agents.ppo.model import save_model
from agents.ppo.network import ActorCritic
from cluedo_env.core.config import read_fields
from cluedo_env.intervals import wilson_interval
from experiments.common.folder_lock import FolderRefused, lock_folder
from experiments.common.labels import check_distinct_labels, label_refusal
from experiments.common.output_folders import refuse_unwritable
from experiments.common.settings import AgentSpec
from experiments.common.shipped_configs import SHIPPED_CONFIGS
from experiments.common.trust import checked_main, command_settings
from experiments.common.value_checks import ConfigError, check_agents, check_all_set, exit_on_config_error
from experiments.learning.evaluation import append_evaluation, evaluate, win_rate_line
from experiments.learning.resume import IN_TRAINING, resumed_config
from experiments.learning.run_logs import new_run_folder, record_session
from experiments.learning.run_settings import PPOSettings

POLICIES = ("shared", "per_seat")
# What a resume may change: the budget, resources, logging, checkpoints and evaluations, never what it learns from.
RESUMABLE = (
    "total_timesteps",
    "time_limit",
    "progress",
    "torch_threads",
    "runs_dir",
    "resume",
    "ray_address",
    "num_cpus",
    "num_env_runners",
    "num_envs_per_env_runner",
    "num_cpus_per_env_runner",
    "sample_timeout",
    "num_learners",
    "num_gpus_per_learner",
    "eval_every",
    "eval_games",
    "final_eval_games",
    "checkpoint_every",
    "keep_checkpoints",
    "trust_files",
)


@dataclass
class RLlibConfig(PPOSettings):
    """RLlib PPO training: ``PPOSettings``' fields and these; ``configs/train_rllib.yaml`` gives every value
    (see the module docstring)."""

    # Ray
    ray_address: str | None = MISSING
    """null: start Ray here; "auto" or "ray://<head>:10001": join a running cluster"""
    num_cpus: int | None = MISSING
    """CPUs of a local Ray (null: all); ignored on a cluster"""
    num_env_runners: int = MISSING
    """env runner actors playing games (0: the driver plays them)"""
    num_envs_per_env_runner: int = MISSING
    """single games each env runner plays at once"""
    num_cpus_per_env_runner: float = MISSING
    """CPUs Ray reserves for each env runner"""
    sample_timeout: float = MISSING
    """seconds an iteration waits for the env runners' samples (RLlib's 60 s is short on a busy machine)"""
    num_learners: int = MISSING
    """0: the learner runs in the driver; n: n remote learner actors"""
    num_gpus_per_learner: float = MISSING
    """GPUs Ray reserves for each learner (0: none)"""
    # Env
    opponent: AgentSpec | None = MISSING
    """the opponent in every other seat; null: self-play on cluedo_v0, every seat learns"""
    policies: str = MISSING
    """self-play: shared (one module for all seats) or per_seat"""
    snapshot_every: int = MISSING
    """self-play with shared: a frozen copy joins every this many iterations (0: never)"""
    max_snapshots: int = MISSING
    """frozen copies kept in the pool (the latest)"""
    snapshot_share: float = MISSING
    """probability that a seat of a new game plays a snapshot (when there are any)"""
    reward_scheme: str = MISSING
    """the game's rewards (``cluedo_env.rewards.REWARD_SCHEMES``): win_loss, win_only or zero_sum"""
    elimination_reward: float | None = MISSING
    """fixed opponents: a wrong accusation ends the learner's episode with this reward (null: it plays on)"""
    # PPO (the budget and the hyperparameters of train_ppo's names are PPOSettings')
    time_limit: float | None = MISSING
    """minutes of training after which the run ends as at its budget (null: none)"""
    train_batch_size: int = MISSING
    """learner steps per iteration"""
    minibatch_size: int = MISSING
    """learner steps per minibatch"""
    num_epochs: int = MISSING
    """passes over each iteration's batch"""
    clip_coef: float = MISSING
    """the surrogate clipping coefficient (RLlib's clip_param)"""
    vf_clip: float = MISSING
    """the value loss's clip (RLlib's vf_clip_param)"""
    # Evaluation and checkpoints
    eval_every: int = MISSING
    """agent-steps between evaluations (0: only the final one)"""
    eval_opponents: list[AgentSpec] = MISSING
    """the fixed evaluation set: the learner against num_players - 1 agents of each kind"""
    checkpoint_every: int = MISSING
    """iterations between checkpoints (the last iteration always gets one)"""
    keep_checkpoints: int = MISSING
    """checkpoints kept (the latest)"""
    resume: str | None = MISSING
    """a run folder to continue (its latest checkpoint; your own runs only: RLlib's checkpoints are pickles)"""

    def __post_init__(self) -> None:
        check_all_set(self, 'train_config(overrides, config_name="train_rllib", **values)')
        self.check_learning()
        if self.policies not in POLICIES:
            raise ConfigError(f"policies must be one of {POLICIES}, got {self.policies!r}")
        if self.snapshot_every and (self.opponent is not None or self.policies != "shared"):
            raise ConfigError(
                "snapshot_every needs self-play with one shared module (opponent=null policies=shared)"
            )
        if not 0.0 <= self.snapshot_share <= 1.0:
            raise ConfigError(f"snapshot_share must be in [0, 1], got {self.snapshot_share!r}")
        for name in (
            "total_timesteps",
            "train_batch_size",
            "minibatch_size",
            "num_epochs",
            "num_envs_per_env_runner",
        ):
            if int(getattr(self, name)) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)!r}")
        if self.num_env_runners < 0 or self.num_learners < 0:
            raise ConfigError("num_env_runners and num_learners must be >= 0")

    @property
    def self_play(self) -> bool:
        return self.opponent is None


ConfigStore.instance().store(name="train_rllib_schema", node=RLlibConfig)


# --- the run -------------------------------------------------------------------------------------


class Run:
    """One training run: the algorithm, its files and its counters (see the module docstring)."""

    def __init__(self, cfg: RLlibConfig, folder: Path | None = None) -> None:
        """``folder``: a new run's folder, made (default: ``new_run_folder``); a resume's is its checkpoint's."""
        self.cfg = cfg
        self.game = cfg.game.to_game_config()
        self.agent_steps = 0
        self.iteration = 0
        self.snapshots: list[str] = []
        self.snapshot_count = 0
        checkpoint = None
        if cfg.resume:
            refuse_untrusted_resume(cfg)  # before anything of it is read
            checkpoint = find_checkpoint(cfg.resume)
            progress = json.loads((checkpoint / "progress.json").read_text(encoding="utf-8"))
            self.agent_steps, self.iteration = progress["agent_steps"], progress["iteration"]
            self.snapshots, self.snapshot_count = progress["snapshots"], progress["snapshot_count"]
            self.run_dir = checkpoint.parent.parent
            _check_resumable(cfg, self.run_dir / "config.yaml")
            # The run's settings from now on (a budget raised, say), for the next resume to continue with.
            settings = dataclasses.replace(cfg, resume=None, trust_files=False, time_limit=None)
            (self.run_dir / "config.yaml").write_text(
                OmegaConf.to_yaml(OmegaConf.structured(settings)), encoding="utf-8"
            )
        else:
            self.run_dir = folder or new_run_folder(cfg, "rllib")
        register_envs()
        self.algo = rllib_setup(cfg, self.snapshots).build_algo()
        if checkpoint is not None:
            self.algo.restore_from_path(str(checkpoint.resolve()))
            tqdm.write(f"resumed from {checkpoint} at {self.agent_steps:,} agent-steps")
        record_session(self.run_dir, {"iteration": self.iteration, "agent_steps": self.agent_steps})
        self.writer = SummaryWriter(str(self.run_dir))
        self.start = time.perf_counter()
        self.steps_at_start = self.agent_steps

    def train(self) -> Path:
        """Iterate up to the budget, evaluating and checkpointing on the way; returns the run folder."""
        cfg = self.cfg
        bar = tqdm(
            total=cfg.total_timesteps,
            initial=self.agent_steps,
            unit="agent-step",
            unit_scale=True,
            disable=not cfg.progress,
        )
        next_eval = (self.agent_steps // cfg.eval_every + 1) * cfg.eval_every if cfg.eval_every > 0 else None
        deadline = None if cfg.time_limit is None else time.perf_counter() + 60 * cfg.time_limit
        while self.agent_steps < cfg.total_timesteps and (deadline is None or time.perf_counter() < deadline):
            began = time.perf_counter()
            result = self.algo.train()
            self.iteration += 1
            new = decisions_sampled(result)
            self.agent_steps += new
            bar.update(new)
            self.log(result, new, time.perf_counter() - began)
            if cfg.snapshot_every and self.iteration % cfg.snapshot_every == 0:
                self.add_snapshot()
            if next_eval is not None and next_eval <= self.agent_steps < cfg.total_timesteps:
                self.evaluate(cfg.eval_games)
                next_eval += cfg.eval_every * (1 + (self.agent_steps - next_eval) // cfg.eval_every)
            if self.iteration % cfg.checkpoint_every == 0:
                self.checkpoint()
        bar.close()
        self.checkpoint()
        model = save_model(self.run_dir / "model.pt", self.network())
        if cfg.final_eval_games > 0:
            self.evaluate(cfg.final_eval_games, final=True)
        self.writer.close()
        print(f"model: {model}")
        return self.run_dir

    def log(self, result: dict[str, Any], new_steps: int, seconds: float) -> None:
        """TensorBoard scalars of one iteration, at the agent-steps done."""
        step, write = self.agent_steps, self.writer.add_scalar
        write("charts/agent_steps", step, step)
        write("charts/iteration_SPS", new_steps / max(seconds, 1e-9), step)
        write("charts/SPS", (step - self.steps_at_start) / (time.perf_counter() - self.start), step)
        runners = result.get("env_runners", {})
        for key, name in (("episode_return_mean", "episode_return"), ("episode_len_mean", "episode_length")):
            if key in runners:
                write(f"charts/{name}", runners[key], step)
        for module_id, values in result.get("learners", {}).items():
            if not isinstance(values, dict) or module_id.startswith("__"):
                continue
            for key in ("policy_loss", "vf_loss", "entropy", "mean_kl_loss", "vf_explained_var"):
                if key in values:
                    write(f"losses/{module_id}/{key}", values[key], step)

    def add_snapshot(self) -> None:
        """A frozen copy of ``shared`` joins the self-play pool (the oldest leaves past ``max_snapshots``)."""
        cfg = self.cfg
        module_id = f"snapshot_{self.snapshot_count}"
        self.snapshot_count += 1
        weights = self.algo.learner_group.get_weights([SHARED])[SHARED]
        if len(self.snapshots) >= cfg.max_snapshots:
            oldest = self.snapshots.pop(0)
            self.algo.remove_module(
                oldest, new_agent_to_module_mapping_fn=snapshot_mapping(self.snapshots, cfg.snapshot_share)
            )
        self.snapshots.append(module_id)
        self.algo.add_module(
            module_id,
            module_spec(self.game, cfg.network),
            new_agent_to_module_mapping_fn=snapshot_mapping(self.snapshots, cfg.snapshot_share),
            new_should_module_be_updated=[SHARED],
        )
        self.algo.learner_group.set_weights({module_id: weights})
        self.algo.env_runner_group.sync_weights(
            from_worker_or_learner_group=self.algo.learner_group, policies=[module_id]
        )

    def checkpoint(self) -> Path:
        """RLlib's checkpoint, the exported model and the counters; old checkpoints beyond ``keep_checkpoints`` go."""
        path = self.run_dir / "checkpoints" / f"iteration_{self.iteration:06d}"
        self.algo.save_to_path(str(path.resolve()))
        save_model(path / "cluedo_model.pt", self.network())
        progress = {
            "agent_steps": self.agent_steps,
            "iteration": self.iteration,
            "snapshots": self.snapshots,
            "snapshot_count": self.snapshot_count,
        }
        (path / "progress.json").write_text(json.dumps(progress), encoding="utf-8")
        for old in sorted((self.run_dir / "checkpoints").glob("iteration_*"))[: -self.cfg.keep_checkpoints]:
            shutil.rmtree(old)
        return path

    def network(self) -> ActorCritic:
        """The learner's current network as a plain ``ActorCritic`` (seat 0's with per-seat policies)."""
        return network_of(self.algo, trained_module_ids(self.cfg)[0], self.cfg)

    def evaluate(self, games: int, final: bool = False) -> dict[str, dict[str, Any]]:
        """The trained module in the arena against each evaluation opponent (``evaluations.json``, TensorBoard)."""
        cfg = self.cfg
        results = evaluate(
            self.network(), self.game, cfg.eval_opponents, games, deterministic=False, seed=cfg.seed
        )
        for label, result in results.items():
            result["win_low"], result["win_high"] = wilson_interval(result["wins"], result["games"])
            self.writer.add_scalar(f"eval/win_rate/{label}", result["win_rate"], self.agent_steps)
            tqdm.write(win_rate_line(self.agent_steps, self.game.num_players - 1, label, result))
        line = {
            "agent_steps": self.agent_steps,
            "iteration": self.iteration,
            "seconds": time.perf_counter() - self.start,
            "agent_steps_per_second": (self.agent_steps - self.steps_at_start)
            / (time.perf_counter() - self.start),
            "final": final,
            "results": results,
        }
        append_evaluation(self.run_dir, line)
        return results


def _check_resumable(cfg: RLlibConfig, saved: Path) -> None:
    """Refuse a resume whose command line changes what the run learns from (anything but ``RESUMABLE``)."""
    before = OmegaConf.to_container(OmegaConf.load(saved))
    now = OmegaConf.to_container(OmegaConf.structured(cfg))
    if isinstance(before.get("game"), dict):  # a run saved before a rule field existed: at its value then
        before["game"] = read_fields(before["game"])
    changed = [key for key in now if key not in RESUMABLE and key in before and before[key] != now[key]]
    if changed:
        raise ValueError(
            f"resume of {saved.parent} with other values of {', '.join(changed)}: a resume may change only "
            f"{', '.join(RESUMABLE)} (start a new run for the rest)"
        )


def refuse_untrusted_resume(cfg: RLlibConfig) -> None:
    """Refuse a resume that the command line does not trust (``trust_files=true``): RLlib's checkpoint is
    pickles, and one from elsewhere can run code when restored. The command checks it before Ray starts.

    Raises:
        ConfigError: naming the resume and ``trust_files=true``.
    """
    if cfg.resume and not cfg.trust_files:
        raise ConfigError(
            f"resume={cfg.resume!r} restores RLlib's checkpoint, which unpickles its files (one from "
            "elsewhere can run code): resume only a run made on this machine, and say so with "
            "trust_files=true"
        )


def check_command(cfg: RLlibConfig) -> None:
    """The command's checks of its settings, before Ray starts: ``check_run``, ``refuse_untrusted_resume``
    and ``check_agents`` of ``opponent`` and ``eval_opponents``."""
    cfg.check_run()
    refuse_untrusted_resume(cfg)
    named = [("opponent", cfg.opponent)] if cfg.opponent is not None else []
    named += [(f"eval_opponents.{k}", spec) for k, spec in enumerate(cfg.eval_opponents)]
    if cfg.opponent is not None and (why := label_refusal(cfg.opponent.display)):
        raise ConfigError(f"opponent: {why}")
    check_distinct_labels("eval_opponents", cfg.eval_opponents)
    check_agents(((where, spec.name, spec.options) for where, spec in named), cfg.game.to_game_config())


def find_checkpoint(path: str | Path) -> Path:
    """A checkpoint folder (``checkpoints/iteration_<n>``), or the latest of a run folder."""
    path = Path(path)
    if (path / "progress.json").is_file():
        return path
    found = sorted(path.glob("checkpoints/iteration_*/progress.json"))
    if not found:
        raise FileNotFoundError(f"no RLlib checkpoint (checkpoints/iteration_*/progress.json) under {path}")
    return found[-1].parent


def train(cfg: RLlibConfig) -> Path:
    """Train as the module docstring says; returns the run folder.

    Raises:
        FolderInUse: A resume of a run folder another process trains (the run itself, or another resume).
    """
    refuse_untrusted_resume(cfg)  # before Ray starts
    folder = find_checkpoint(cfg.resume).parent.parent if cfg.resume else new_run_folder(cfg, "rllib")
    # a new run's too: a resume of it while it trains is refused
    with lock_folder(folder, advice=IN_TRAINING):
        start_ray(cfg)
        run = Run(cfg, None if cfg.resume else folder)
        try:
            return run.train()
        finally:
            run.algo.stop()


@checked_main
@hydra.main(config_path=str(SHIPPED_CONFIGS), config_name="train_rllib", version_base=None)
def main(cfg: RLlibConfig) -> None:
    settings = ["runs_dir", "resume", "ray_address"]
    args, hydra_config = command_settings(cfg, ["opponent", "eval_opponents"], settings, check=check_command)
    refuse_unwritable(
        {"resume": args.resume} if args.resume else {"runs_dir": args.runs_dir}, utf8_writers=True
    )  # before Ray
    if args.resume and args.trust_files:  # the run's own config, with the command line's resumable changes
        with exit_on_config_error():
            args = resumed_run(args, list(hydra_config.overrides.task))
    try:
        train(args)
    except FolderRefused as error:  # the run, or another resume of it, still going on
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)


def resumed_run(given: RLlibConfig, overrides: list[str]) -> RLlibConfig:
    """The config of the run that ``given.resume`` continues: its ``config.yaml``, with the values of
    ``overrides`` (the command line's keys) that a resume may change (``RESUMABLE``) changed.

    Raises:
        ConfigError: No checkpoint there, or a change a resume may not make (naming it).
    """
    try:
        run_dir = find_checkpoint(given.resume).parent.parent
    except FileNotFoundError as error:
        raise ConfigError(str(error)) from error
    try:
        saved = OmegaConf.to_container(OmegaConf.load(run_dir / "config.yaml"))
        run = resumed_config(saved, given, overrides, RESUMABLE, SHIPPED_CONFIGS / "train_rllib.yaml")
    except ConfigError:
        raise
    except Exception as error:  # a missing, unreadable or foreign config.yaml (OmegaConf's and YAML's errors)
        raise ConfigError(f"{run_dir / 'config.yaml'}: not the config of an RLlib run ({error})") from error
    run.resume, run.trust_files = given.resume, given.trust_files
    run.time_limit = given.time_limit  # this session's limit, not an earlier one's
    return run


if __name__ == "__main__":
    main()
