"""Stable-Baselines3 on Cluedo: sb3-contrib's ``MaskablePPO`` against fixed opponents, evaluated in the arena.

    python -m experiments.train_sb3                                  # configs/train_sb3.yaml
    python -m experiments.train_sb3 total_timesteps=200000 exp_name=smoke
    tensorboard --logdir runs

The recipe, as a user of SB3 would write it, with nothing hidden:

1. **Env.** ``cluedo_env.sb3.CluedoSB3VecEnv``: ``num_envs`` games on the batched
   core, the learner in a random seat, ``opponent`` in the others (default: three
   random players that never accuse), wrapped in SB3's ``VecMonitor`` (which logs
   the games' own returns). The env's public ``action_masks()`` is where
   ``MaskablePPO`` finds the legal actions: no ``ActionMasker`` wrapper.
   ``elimination_reward`` ends the learner's episode on its wrong accusation
   (the env's documented option).
2. **Reward.** The game's (+1 win, -1 loss or wrong accusation) plus, with
   ``knowledge_shaping``, ``train_ppo``'s potential-based reward for newly seen
   cards (``KnowledgeShaping``, an SB3 ``VecEnvWrapper``): ``gamma * phi(next) -
   phi(now)`` with ``phi = -coef * (unseen cards - 3) / (C - 3)``, which leaves the
   best policy as it is and tells the learner early that seeing cards pays.
   ``gamma=0.999``: a game is 100 to 150 of the learner's decisions, and at 0.99
   a sure win 100 decisions away is worth no more than an accusation now that is
   right 68% of the time (``0.99**100 = 0.37 = 2 * 0.68 - 1``): the learner was paid
   for guessing (the README's curves).
3. **Policy.** ``MaskablePPO(policy, env, ...)`` with the config's
   hyperparameters. ``policy=card`` (default): ``agents.integrations.sb3_policy.CardPolicy``,
   the project's card-aware network (``agents.ppo.network.ActorCritic``, sized
   by ``network``) in sb3-contrib's masked policy; ``policy=MultiInputPolicy``:
   SB3's MLP on the flat observation (``net_arch``), which does not learn to win
   (README). TensorBoard logs in ``<runs_dir>/sb3__<exp_name>__<seed>__<time>``.
4. **Budget.** ``total_timesteps`` counts agent-steps as ``experiments/train_ppo.py``
   does: every player's decisions, the learner's and the opponents'
   (``CluedoVectorEnv.decisions``), so the two recipes compare at the same budget.
   SB3's own ``time/total_timesteps`` counts the learner's decisions only.
5. **Evaluation.** Every ``eval_every`` agent-steps (and at the end, with
   ``final_eval_games``) the model is saved (``checkpoints/agent_steps_<n>.zip``) and
   played through the project's arena (``agents.arena.play_batch``) as an
   ``agents.integrations.sb3_agent.SB3Agent`` against ``num_players - 1`` of each
   ``eval_opponents`` kind, on the fixed deals and rotated seats of
   ``train_ppo``'s evaluations. Win rates have 95% Wilson intervals and game
   counts; they go to TensorBoard (``eval/win_rate/<label>``) and to
   ``evaluations.json`` (one line per evaluation, with the agent-steps and the
   learner's steps).

Files: ``model.zip`` (SB3's ``model.save``; ``SB3Agent`` plays it without
unpickling, ``make_agent("sb3", path=...)`` or ``{name: sb3, options: {path: ...}}`` in a
tournament line-up), ``evaluations.json``, ``config.yaml``, ``run.json`` (the code that trained it:
package version, git revision and whether the tree had uncommitted changes;
``experiments.learning.run_logs.record_session``, as ``train_ppo``'s).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

try:  # modules of extras: a core-only install is told which extra to install
    import hydra
    from hydra.core.config_store import ConfigStore
    from omegaconf import MISSING
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper, VecMonitor
except ModuleNotFoundError as error:
    from experiments.common.extras import missing_extra

    raise missing_extra(error, command=__name__ == "__main__") from error

# After the guard: sb3's modules import torch, so an install without either is told of the sb3 extra
# alone (it installs torch too), not of the train extra first.
import torch

from agents.integrations.sb3_agent import SB3Agent
from agents.integrations.sb3_policy import POLICIES, card_policy_kwargs
from agents.registry import make_agent
from cluedo_env import core
from cluedo_env.rewards import REWARD_SCHEMES
from cluedo_env.sb3 import CluedoSB3VecEnv
from experiments.common.labels import check_distinct_labels, label_refusal
from experiments.common.output_folders import refuse_unwritable
from experiments.common.settings import AgentSpec
from experiments.common.shipped_configs import SHIPPED_CONFIGS
from experiments.common.trust import checked_main, command_settings
from experiments.common.value_checks import ConfigError, check_agents, check_all_set, exit_on_config_error
from experiments.learning.evaluation import append_evaluation, play_against, win_rate_line, with_intervals
from experiments.learning.run_logs import new_run_folder, record_session
from experiments.learning.run_settings import PPOSettings
from experiments.learning.shaping import knowledge_potential


@dataclass
class SB3Config(PPOSettings):
    """MaskablePPO training: ``PPOSettings``' fields and these; ``configs/train_sb3.yaml`` gives every value."""

    opponent: AgentSpec = MISSING
    """the opponent in every other seat (each seat its own agent, with its own seed)"""
    elimination_reward: float | None = MISSING
    """a wrong accusation ends the learner's episode with this reward (null: it plays on)"""
    reward_scheme: str = MISSING
    """the game's rewards (``cluedo_env.rewards.REWARD_SCHEMES``): win_loss, win_only or zero_sum"""
    num_envs: int = MISSING
    """games played at once on the batched core"""
    n_steps: int = MISSING
    """MaskablePPO's n_steps: steps of each game per rollout"""
    batch_size: int = MISSING
    """MaskablePPO's minibatch size"""
    n_epochs: int = MISSING
    """passes over each rollout"""
    clip_range: float = MISSING
    """the surrogate clipping coefficient"""
    policy: str = MISSING
    """``card``: ``agents.integrations.sb3_policy.CardPolicy`` (the project's card-aware network, sized by
    ``network``); ``MultiInputPolicy``: SB3's MLP on the flat observation (sized by ``net_arch``)"""
    net_arch: list[int] = MISSING
    """``MultiInputPolicy``'s hidden layer sizes"""
    eval_every: int = MISSING
    """agent-steps between evaluations (0: only the final one)"""
    eval_opponents: list[AgentSpec] = MISSING
    """the fixed evaluation set: the learner against num_players - 1 agents of each kind"""

    def validate(self) -> None:
        """Raise ``ConfigError`` (a ``ValueError``) naming a bad field: the shared ones (``check_run``), ``policy``,
        an agent (``check_agents``)."""
        self.check_run()
        self.check_learning()
        if self.policy not in POLICIES:
            raise ConfigError(f"policy must be one of {sorted(POLICIES)}, got {self.policy!r}")
        for name in ("num_envs", "n_steps", "batch_size", "n_epochs"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)!r}")
        if not 0 < self.clip_range < math.inf:
            raise ConfigError(f"clip_range must be a finite number > 0, got {self.clip_range!r}")
        if self.reward_scheme not in REWARD_SCHEMES:
            raise ConfigError(
                f"reward_scheme must be one of {list(REWARD_SCHEMES)}, got {self.reward_scheme!r}"
            )
        if why := label_refusal(self.opponent.display):
            raise ConfigError(f"opponent: {why}")
        check_distinct_labels("eval_opponents", self.eval_opponents)
        named = [
            ("opponent", self.opponent),
            *((f"eval_opponents.{k}", o) for k, o in enumerate(self.eval_opponents)),
        ]
        check_agents(((where, spec.name, spec.options) for where, spec in named), self.game.to_game_config())


ConfigStore.instance().store(name="train_sb3_schema", node=SB3Config)


def evaluate(
    model_path: Path, game: core.GameConfig, opponents: list[AgentSpec], num_games: int, seed: int = 0
) -> dict[str, dict[str, Any]]:
    """The model (as an ``SB3Agent``) against ``num_players - 1`` of each kind, fixed deals, seats rotated.

    As in ``train_ppo``'s evaluations (``experiments.learning.evaluation.play_against``), a game
    stops once the learner is out (its wrong accusation): it can no longer win, and against
    opponents that never accuse the rest would run to ``max_turns``.
    """
    played = play_against(lambda: SB3Agent(seed=seed, path=model_path), game, opponents, num_games, seed=seed)
    return with_intervals(played)  # counts, rates and their 95% intervals, as train_ppo's evaluations


class KnowledgeShaping(VecEnvWrapper):
    """Adds ``train_ppo``'s potential-based reward for newly seen cards: ``gamma * phi(next) - phi(now)``.

    ``phi = knowledge_potential`` (``-coef * (unseen cards - 3) / (C - 3)``, 0 once only the
    envelope is unseen), as ``experiments.train_ppo`` adds it in its advantages (Ng et al. 1999:
    the optimal policy stays the same). On the step that ends an episode ``phi(next)`` is 0
    (terminated) or that of ``terminal_observation`` (truncated: the episode is cut, not over),
    and the next game's first observation starts the next episode's potential.
    """

    def __init__(self, venv: VecEnv, game: core.GameConfig, coef: float, gamma: float) -> None:
        super().__init__(venv)
        self.game, self.coef, self.gamma = game, float(coef), float(gamma)
        self.potential = np.zeros(self.num_envs, dtype=np.float32)

    def _phi(self, observations: np.ndarray) -> np.ndarray:
        return knowledge_potential(observations, self.game, self.coef)

    def reset(self) -> dict[str, np.ndarray]:
        observations = self.venv.reset()
        self.potential = self._phi(observations["observation"])
        return observations

    def step_wait(self) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, list[dict[str, Any]]]:
        observations, rewards, dones, infos = self.venv.step_wait()
        upcoming = self._phi(observations["observation"])
        reached = upcoming.copy()
        for game in np.flatnonzero(dones).tolist():
            info = infos[game]
            truncated = info.get("TimeLimit.truncated", False)
            reached[game] = (
                self._phi(info["terminal_observation"]["observation"][None])[0] if truncated else 0.0
            )
        shaped = rewards + self.gamma * reached - self.potential
        self.potential = upcoming
        return observations, shaped.astype(np.float32), dones, infos


class AgentStepBudget(BaseCallback):
    """Stops learning at ``budget`` agent-steps and evaluates every ``every`` of them (see the module docstring)."""

    def __init__(self, cfg: SB3Config, env: CluedoSB3VecEnv, run_dir: Path) -> None:
        super().__init__()
        self.cfg, self.cluedo, self.run_dir = cfg, env, run_dir
        self.game = cfg.game.to_game_config()
        self.next_eval = cfg.eval_every if cfg.eval_every > 0 else None
        self.bar = tqdm(
            total=cfg.total_timesteps, unit="agent-step", unit_scale=True, disable=not cfg.progress
        )
        self.start = time.perf_counter()

    def _on_step(self) -> bool:
        steps = self.cluedo.vector_env.decisions
        self.bar.update(steps - self.bar.n)
        if self.next_eval is not None and steps >= self.next_eval and steps < self.cfg.total_timesteps:
            self.evaluate(self.cfg.eval_games)
            self.next_eval += self.cfg.eval_every
        return steps < self.cfg.total_timesteps

    def _on_rollout_end(self) -> None:
        self.logger.record("time/agent_steps", self.cluedo.vector_env.decisions)

    def evaluate(self, games: int, final: bool = False) -> dict[str, dict[str, Any]]:
        """Save the model at this point and play it in the arena; log and record the win rates."""
        steps = self.cluedo.vector_env.decisions
        path = (
            self.run_dir / "model.zip" if final else self.run_dir / "checkpoints" / f"agent_steps_{steps}.zip"
        )
        self.model.save(path)
        results = evaluate(path, self.game, self.cfg.eval_opponents, games, seed=self.cfg.seed)
        line = {
            "agent_steps": steps,
            "learner_steps": int(self.model.num_timesteps),
            "seconds": time.perf_counter() - self.start,
            "final": final,
            "results": results,
        }
        append_evaluation(self.run_dir, line)
        for label, result in results.items():
            self.logger.record(f"eval/win_rate/{label}", result["win_rate"])
            tqdm.write(win_rate_line(steps, self.game.num_players - 1, label, result, wrong_accusations=True))
        return results


def train(cfg: SB3Config) -> Path:
    """Train, evaluate and save as the module docstring says; returns the run folder."""
    check_all_set(cfg, 'train_config(overrides, config_name="train_sb3", **values)')
    cfg.validate()
    torch.set_num_threads(cfg.torch_threads)
    game = cfg.game.to_game_config()
    P = game.num_players
    spec = cfg.opponent
    opponents = [make_agent(spec.name, seed=cfg.seed * 100 + k, **spec.options) for k in range(1, P)]
    env = CluedoSB3VecEnv(
        num_envs=cfg.num_envs,
        opponents=opponents,
        reward_scheme=cfg.reward_scheme,
        elimination_reward=cfg.elimination_reward,
        config=game,
    )
    env.seed(cfg.seed)
    run_dir = new_run_folder(cfg, "sb3")
    record_session(run_dir, {"agent_steps": 0})  # run.json: the code
    if cfg.policy == "card":
        policy_kwargs = card_policy_kwargs(game, cfg.network)
    else:
        policy_kwargs = {"net_arch": list(cfg.net_arch)}
    # the monitor sees the game's rewards; the shaping is added for learning only
    venv: VecEnv = VecMonitor(env)
    if cfg.knowledge_shaping:
        venv = KnowledgeShaping(venv, game, cfg.knowledge_shaping, cfg.gamma)
    model = MaskablePPO(
        POLICIES[cfg.policy],
        venv,
        n_steps=cfg.n_steps,
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        learning_rate=cfg.learning_rate,
        gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda,
        clip_range=cfg.clip_range,
        ent_coef=cfg.ent_coef,
        vf_coef=cfg.vf_coef,
        max_grad_norm=cfg.max_grad_norm,
        policy_kwargs=policy_kwargs,
        tensorboard_log=str(run_dir),
        seed=cfg.seed,
        device="cpu",
    )
    budget = AgentStepBudget(cfg, env, run_dir)
    # SB3 counts the learner's steps; the callback stops at the agent-step budget long before this
    model.learn(total_timesteps=cfg.total_timesteps, callback=budget, tb_log_name="tensorboard")
    budget.bar.close()
    if cfg.final_eval_games > 0:
        budget.evaluate(cfg.final_eval_games, final=True)
    else:
        model.save(run_dir / "model.zip")
    print(f"model: {run_dir / 'model.zip'}")
    return run_dir


@checked_main
@hydra.main(config_path=str(SHIPPED_CONFIGS), config_name="train_sb3", version_base=None)
def main(cfg: SB3Config) -> None:
    args, _ = command_settings(cfg, ["opponent", "eval_opponents"], ["runs_dir"])
    refuse_unwritable({"runs_dir": args.runs_dir}, utf8_writers=True)  # before an env is built
    with exit_on_config_error():  # train() validates first, before anything is built or written
        train(args)


if __name__ == "__main__":
    main()
