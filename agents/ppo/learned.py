"""``LearnedAgent``: the shipped learning agent under one name, ``learned``.

The learning agent is the shipped imitation model (``shipped/cluedo_ppo_imitation_4p.pt``: a
PPO network with belief features fitted to the belief agent's play by ``experiments/imitate.py``),
played by its most likely action, as it was evaluated. ``make_agent("learned")``,
``python -m experiments.play --agents learned,sat,sat,sat`` and a line-up's ``name: learned`` all
give it; ``make_agent("ppo", checkpoint=...)`` plays any other model file.
"""

from __future__ import annotations

from pathlib import Path

from agents.ppo.agent import PPOAgent
from agents.ppo.model import SHIPPED

__all__ = ["LEARNED_CHECKPOINT", "LearnedAgent"]

LEARNED_CHECKPOINT = SHIPPED / "cluedo_ppo_imitation_4p.pt"


class LearnedAgent(PPOAgent):
    """The shipped learning agent: ``PPOAgent`` with the imitation model, most likely action by default.

    It plays the 4-player classic game (the model's rules; ``check_config`` refuses others).

    Args:
        seed: Seeds the sampling generator (used only with ``deterministic=False``).
        checkpoint: The model (default: the shipped imitation model).
        deterministic: Play the most likely legal action (default) instead of sampling.
    """

    name = "learned"

    def __init__(
        self, seed: int = 0, checkpoint: str | Path = LEARNED_CHECKPOINT, deterministic: bool = True
    ) -> None:
        super().__init__(seed, checkpoint=checkpoint, deterministic=deterministic)
