"""``LearnedAgent``: the shipped learning agent under one name, ``learned``, played with numpy (no torch).

The learning agent is a PPO network with belief features, fitted to the belief agent's play by
``experiments/imitate.py`` (the imitation model, ``shipped/cluedo_ppo_imitation_4p.pt``), then
trained further by PPO against SAT agents, belief agents, never-accusing random players and
snapshots of itself (``shipped/learned_from_imitation.yaml``, then ``shipped/learned_fine_tune.yaml``;
docs/results/2026-12-04-rl-from-imitation). It plays its most likely action, as it was evaluated.
It is read from ``shipped/cluedo_learned_4p.npz``, the weights of ``shipped/cluedo_learned_4p.pt``
exported for ``agents.ppo.numpy_network`` (the test suite checks that the two files hold the same
weights and choose the same actions), so it plays in an install without torch (the ``experiments``
extra alone). ``checkpoint="cluedo_ppo_imitation_4p.npz"`` plays the imitation model alone.
``make_agent("learned")``, ``python -m experiments.play --agents learned,sat,sat,sat`` and a
line-up's ``name: learned`` all give it; ``make_agent("ppo", checkpoint=...)`` plays a torch model
file of a training run (``agents.ppo.model.export_numpy_model`` writes one for this agent).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agents.base import option_switch
from agents.ppo.network_agent import NetworkAgent
from agents.ppo.numpy_network import read_numpy_model
from agents.ppo.wiring import SHIPPED, model_path

__all__ = ["LEARNED_CHECKPOINT", "LearnedAgent"]

LEARNED_CHECKPOINT = SHIPPED / "cluedo_learned_4p.npz"


class LearnedAgent(NetworkAgent):
    """The shipped learning agent: a network computed with numpy, most likely action by default.

    The shipped model was trained on the 4-player classic game. ``check_config`` refuses
    rules whose observation or action sizes differ from the model's (another player count,
    a 7-weapon edition, ...) and warns on other differences (another board, ``max_turns``,
    ...): it plays those, untested.

    Args:
        seed: Seeds the sampling generator (used only with ``deterministic=False``; re-seeded by
            ``reset``, as every agent's ``rng``).
        checkpoint: A numpy model file (``.npz``; default: the shipped learned model), as a path
            or by the file name of a shipped one.
        deterministic: Play the most likely legal action (default) instead of sampling.
    """

    name = "learned"

    def __init__(
        self, seed: int = 0, checkpoint: str | Path = LEARNED_CHECKPOINT, deterministic: bool = True
    ) -> None:
        super().__init__(seed)
        path = model_path(checkpoint)
        if path.suffix == ".pt":
            raise ValueError(
                f"the learned agent plays numpy model files (.npz), got the torch model {checkpoint}: play it "
                "with the ppo agent (make_agent('ppo', checkpoint=...)), or export it with "
                "agents.ppo.model.export_numpy_model"
            )
        self.checkpoint = str(checkpoint)
        self.network = read_numpy_model(path)
        self.deterministic = option_switch("deterministic", deterministic)

    def _mode(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self.network.mode(obs, mask)

    def _sample(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self.network.sample(obs, mask, self.rng)

    def _probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self.network.probabilities(obs, mask)

    def __repr__(self) -> str:
        return f"LearnedAgent(seed={self.seed}, checkpoint={self.checkpoint!r}, deterministic={self.deterministic})"
