"""``PPOAgent``: a trained actor-critic network behind the batched agent interface."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.base import Agent
from agents.ppo.distributions import StructuredCategorical
from agents.ppo.features import BeliefFeatures, learner_observation, learner_observation_size
from agents.ppo.model import SHIPPED, load_model
from agents.ppo.network import ActorCritic
from cluedo_env import core

__all__ = ["DEFAULT_CHECKPOINT", "PPOAgent"]

DEFAULT_CHECKPOINT = SHIPPED / "cluedo_ppo_4p.pt"


class PPOAgent(Agent):
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
            the file name of a shipped model (``cluedo_ppo_imitation_4p.pt``: the learning agent
            that beats the SAT agent, best played with ``deterministic=True``); default: the
            shipped 4-player classic PPO model.
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
        self.deterministic = bool(deterministic)
        self.generator = torch.Generator().manual_seed(seed)
        self.beliefs: BeliefFeatures | None = None  # with belief features: the batch's, from reset on

    @classmethod
    def from_network(cls, network: ActorCritic, seed: int = 0, deterministic: bool = False) -> PPOAgent:
        """An agent playing ``network`` as it is (shared, not copied; used for frozen snapshots)."""
        agent = cls.__new__(cls)
        Agent.__init__(agent, seed)
        agent.checkpoint = None
        agent.network = network.eval()
        agent.deterministic = deterministic
        agent.generator = torch.Generator().manual_seed(seed)
        agent.beliefs = None
        return agent

    @property
    def observes(self) -> bool:
        """Only a model with belief features reads the events."""
        return self.network.settings.belief_features

    def observe(self, state: core.State, events: np.ndarray) -> None:
        if self.beliefs is not None:
            self.beliefs.observe(events)

    def check_config(self, config: core.GameConfig) -> None:
        """Refuse rules whose observation or action sizes differ from the model's; warn on other differences.

        Raises:
            ValueError: the model cannot read these observations or score these actions
                (another player count, a 7-weapon edition, ``movement="squares"``, ...).

        Warns:
            UserWarning: the sizes fit but some rules differ from those the model was
                trained on (another edition, board, ``max_turns``, ...): it plays, untested.
        """
        self._check_sizes(config)
        differ = self._differences(config)
        if differ:
            warnings.warn(
                f"PPO model {self.checkpoint or '(in memory)'} was trained on other rules; it plays "
                f"these untested: {', '.join(differ)}",
                UserWarning,
                stacklevel=2,
            )

    def _differences(self, config: core.GameConfig) -> list[str]:
        """``field=value (trained: value)`` for each rule where ``config`` differs from the model's game."""
        trained = self.network.game
        return [
            f"{f.name}={getattr(config, f.name)!r} (trained: {getattr(trained, f.name)!r})"
            for f in fields(config)
            if f.init and getattr(config, f.name) != getattr(trained, f.name)
        ]

    def _check_sizes(self, config: core.GameConfig) -> None:
        belief_features = self.network.settings.belief_features
        obs_size, num_actions = learner_observation_size(config, belief_features), core.rules_for(config).A
        if (obs_size, num_actions) != (self.network.obs_size, self.network.num_actions):
            raise ValueError(
                f"PPO model {self.checkpoint or '(in memory)'} reads observations of "
                f"{self.network.obs_size} and scores {self.network.num_actions} actions; these rules "
                f"({', '.join(self._differences(config))}) have {obs_size} and {num_actions}: "
                "use a model trained for them (python -m experiments.train_ppo game=...)"
            )

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        self._check_sizes(config)
        super().reset(config, seats, seed)
        self.generator.manual_seed((self.seed if seed is None else seed) % 2**63)
        if self.network.settings.belief_features:
            self.beliefs = BeliefFeatures(config, self.seats)

    def reset_games(self, games: np.ndarray, seats: np.ndarray) -> None:
        super().reset_games(games, seats)
        if self.beliefs is not None:
            self.beliefs.reset_games(games, seats)

    def state_dict(self) -> dict[str, Any]:
        state = {**super().state_dict(), "generator": self.generator.get_state().numpy()}
        if self.beliefs is not None:
            state["beliefs"] = self.beliefs.state_dict()
        return state

    def load_state_dict(self, config: core.GameConfig, state: Mapping[str, Any]) -> None:
        super().load_state_dict(config, state)
        self.generator.set_state(torch.from_numpy(np.array(state["generator"], dtype=np.uint8)))
        if self.beliefs is not None:
            self.beliefs.load_state_dict(state["beliefs"])

    def observation(self, state: core.State, games: np.ndarray) -> np.ndarray:
        """``float32[len(games), obs]``: the network's input, the core's observation (and the belief pieces)."""
        return learner_observation(state, self.seats, games, self.beliefs)

    def _distribution(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> StructuredCategorical:
        obs = self.observation(state, games)
        with torch.no_grad():
            dist, _value = self.network.policy(
                torch.from_numpy(obs), torch.from_numpy(np.ascontiguousarray(mask))
            )
        return dist

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        if len(games) == 0:
            return np.zeros(0, dtype=np.int64)
        dist = self._distribution(state, games, mask)
        action = dist.mode() if self.deterministic else dist.sample(self.generator)
        return action.numpy().astype(np.int64)

    def action_probabilities(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``float[len(games), A]``: the policy's probabilities (one-hot when ``deterministic``)."""
        games = np.asarray(games, dtype=np.int64)
        if len(games) == 0:
            return np.zeros(mask.shape, dtype=np.float32)
        dist = self._distribution(state, games, mask)
        if self.deterministic:
            probs = np.zeros(mask.shape, dtype=np.float32)
            probs[np.arange(len(games)), dist.mode().numpy()] = 1.0
            return probs
        return dist.probs.numpy()

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
