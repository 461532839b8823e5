"""``PPOAgent``: a trained actor-critic network behind the batched agent interface (torch)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.base import Agent, option_switch
from agents.ppo.distributions import StructuredCategorical
from agents.ppo.model import SHIPPED, load_model
from agents.ppo.network import ActorCritic
from agents.ppo.network_agent import NetworkAgent
from cluedo_env import core

__all__ = ["DEFAULT_CHECKPOINT", "PPOAgent"]

DEFAULT_CHECKPOINT = SHIPPED / "cluedo_ppo_4p.pt"


class PPOAgent(NetworkAgent):
    """Plays by a trained PPO network: its own observation and the legal actions -> an action.

    Stateless between steps (the core's observation carries the knowledge
    planes), so it acts in any batch of games at once: ``core.observe`` of the
    deciding games, one forward pass, masked sampling (or the most likely
    action). A model trained with belief features (``NetworkSettings.belief_features``)
    also reads the events, to keep its ``agents.ppo.features.BeliefFeatures`` per game.

    The agent leaves torch's thread count to the program that plays it (the tournament
    gives each worker process one thread: small networks infer fastest single-threaded).

    Args:
        seed: Seeds the sampling generator (re-seeded by ``reset``).
        checkpoint: A model file (``model.pt`` of a training run), a training checkpoint, or
            the file name of a shipped model (``cluedo_learned_4p.pt``: the network of the
            learning agent, ``agents.ppo.learned``); default: the shipped 4-player classic PPO model.
        deterministic: Play the most likely legal action instead of sampling.
    """

    name = "ppo"

    def __init__(
        self,
        seed: int = 0,
        checkpoint: str | Path = DEFAULT_CHECKPOINT,
        deterministic: bool = False,
    ) -> None:
        super().__init__(seed)
        self.checkpoint = str(checkpoint)
        self.network = load_model(checkpoint).eval()
        self.deterministic = option_switch("deterministic", deterministic)
        # (an agent takes any int seed; torch's generator none past 2**64: --seed n deals seed n * 100 + k)
        self.generator = torch.Generator().manual_seed(seed % 2**63)

    @classmethod
    def from_network(cls, network: ActorCritic, seed: int = 0, deterministic: bool = False) -> PPOAgent:
        """An agent playing ``network`` as it is (shared, not copied; used for frozen snapshots)."""
        agent = cls.__new__(cls)
        Agent.__init__(agent, seed)
        agent.checkpoint = None
        agent.network = network.eval()
        agent.deterministic = deterministic
        agent.generator = torch.Generator().manual_seed(seed % 2**63)
        agent.beliefs = None
        return agent

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        super().reset(config, seats, seed)
        self.generator.manual_seed((self.seed if seed is None else seed) % 2**63)

    def state_dict(self) -> dict[str, Any]:
        return {**super().state_dict(), "generator": self.generator.get_state().numpy()}

    def load_state_dict(self, config: core.GameConfig, state: Mapping[str, Any]) -> None:
        super().load_state_dict(config, state)
        self.generator.set_state(torch.from_numpy(np.array(state["generator"], dtype=np.uint8)))

    def _distribution(self, obs: np.ndarray, mask: np.ndarray) -> StructuredCategorical:
        with torch.no_grad():
            dist, _value = self.network.policy(torch.from_numpy(obs), torch.from_numpy(mask))
        return dist

    def _mode(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self._distribution(obs, mask).mode().numpy()

    def _sample(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self._distribution(obs, mask).sample(self.generator).numpy()

    def _probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self._distribution(obs, mask).probs.numpy()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["generator"] = self.generator.get_state()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        generator = torch.Generator()
        generator.set_state(state["generator"])
        self.__dict__.update({**state, "generator": generator})

    def __repr__(self) -> str:
        return (
            f"PPOAgent(seed={self.seed}, checkpoint={self.checkpoint!r}, deterministic={self.deterministic})"
        )
