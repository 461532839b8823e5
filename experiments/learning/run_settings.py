"""``RunSettings``: the settings every training command shares, declared once; ``PPOSettings``: those
the three PPO commands share besides.

``train_ppo``, ``imitate``, ``train_sb3`` and ``train_rllib`` each name a run, seed it, write its
folder under ``runs_dir``, play one game (``configs/game/*.yaml``) with a network of the project's
shape, evaluate it at the end and refuse options from files of elsewhere unless trusted. Their
settings classes extend this one with what is their own. ``train_ppo``, ``train_sb3`` and
``train_rllib`` also share PPO's budget, its hyperparameters of the same names and meaning, the
reward for seen cards and the evaluations' size (``PPOSettings``). Fields are declared only: each
command's YAML (``configs/<command>.yaml``) gives every value, the one place of the defaults.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from omegaconf import MISSING

from agents.ppo.wiring import NetworkSettings
from experiments.common.settings import MAX_SEED, GameSettings
from experiments.common.value_checks import ConfigError, check_run_name

__all__ = ["PPOSettings", "RunSettings"]


@dataclass
class RunSettings:
    """The fields every training command's settings begin with; ``check_run`` checks them."""

    exp_name: str = MISSING
    """the name of this experiment (part of the run folder's name)"""
    seed: int = MISSING
    """seed of the experiment: network init, sampling, deals, opponent draws"""
    runs_dir: str = MISSING
    """folder of the run folders"""
    progress: bool = MISSING
    """show a progress bar"""
    torch_threads: int = MISSING
    """torch.set_num_threads while playing: one thread is fastest for the network's small batches"""
    game: GameSettings = MISSING
    """the rules (configs/game/*.yaml)"""
    network: NetworkSettings = MISSING
    """sizes of the network"""
    final_eval_games: int = MISSING
    """games against each evaluation opponent after training (0: none)"""
    trust_files: bool = MISSING
    """use options that reach the network or files (agents' llm base_url, api_key_env, prompts, record_dir,
    model paths; the command's own folders and files, named in its module docstring) that a config file
    of a folder of the user's, or a resumed checkpoint, gives and the command line does not repeat (from
    the command line only, never saved; ``experiments.common.trust.refuse_untrusted_options``)"""

    def check_run(self) -> None:
        """Raise ``ConfigError`` (a ``ValueError``) naming a bad shared field, its value and what is accepted."""
        check_run_name("exp_name", self.exp_name)
        if not 0 <= self.seed <= MAX_SEED:
            raise ConfigError(
                f"seed must be an integer in [0, {MAX_SEED}] (deal seeds derive from it), got {self.seed!r}"
            )
        if self.torch_threads < 1:
            raise ConfigError(f"torch_threads must be >= 1, got {self.torch_threads!r}")
        if self.final_eval_games < 0:
            raise ConfigError(f"final_eval_games must be >= 0, got {self.final_eval_games!r}")


@dataclass
class PPOSettings(RunSettings):
    """``RunSettings``' fields and those ``train_ppo``, ``train_sb3`` and ``train_rllib`` share: the same
    names with the same meaning in the three (their values are each command's YAML's)."""

    total_timesteps: int = MISSING
    """agent-steps of the run: the decisions of every player (the opponents' included) in every game"""
    learning_rate: float = MISSING
    """the learning rate of the optimizer"""
    gamma: float = MISSING
    """discount per learner decision"""
    gae_lambda: float = MISSING
    """lambda of generalized advantage estimation"""
    ent_coef: float = MISSING
    """coefficient of the entropy bonus"""
    vf_coef: float = MISSING
    """coefficient of the value loss"""
    max_grad_norm: float = MISSING
    """maximum norm of the gradient"""
    knowledge_shaping: float = MISSING
    """c of the potential-based shaping gamma * phi(next) - phi(now), phi = -c * (unseen cards - 3) / (C - 3):
    a reward for each card seen; phi is 0 after the episode's end, so an episode's shaping sums (at gamma 1) to
    -phi of its first decision, a constant of the deal and seat (optimal policies unchanged; 0: none)"""
    eval_games: int = MISSING
    """games against each kind of evaluation opponent in each evaluation"""

    def check_learning(self) -> None:
        """Raise ``ConfigError`` (a ``ValueError``) naming a shared learning value out of its range."""
        ranges = {
            "learning_rate": (self.learning_rate, 0 < self.learning_rate < math.inf, "a finite number > 0"),
            "gamma": (self.gamma, 0 <= self.gamma <= 1, "in [0, 1]"),
            "gae_lambda": (self.gae_lambda, 0 <= self.gae_lambda <= 1, "in [0, 1]"),
            "ent_coef": (self.ent_coef, 0 <= self.ent_coef < math.inf, "a finite number >= 0"),
            "vf_coef": (self.vf_coef, 0 <= self.vf_coef < math.inf, "a finite number >= 0"),
            "max_grad_norm": (
                self.max_grad_norm,
                self.max_grad_norm > 0,
                "> 0 (a negative one flips the gradient)",
            ),
            "eval_games": (self.eval_games, self.eval_games >= 1, ">= 1"),
            "knowledge_shaping": (
                self.knowledge_shaping,
                -math.inf < self.knowledge_shaping < math.inf,
                "a finite number",
            ),
        }
        for name, (value, inside, accepted) in ranges.items():
            if not inside:
                raise ConfigError(f"{name} must be {accepted}, got {value!r}")
