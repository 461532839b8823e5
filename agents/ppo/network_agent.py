"""``NetworkAgent``: what every player by a trained actor-critic network does, whatever computes the network.

The network reads the learner's observation (``agents.ppo.features.learner_observation``: the
core's observation, and with belief features the seat's exact beliefs, kept per game from the
events) and scores the legal actions. This base class keeps the seats, the beliefs and the rule
checks; ``agents.ppo.agent.PPOAgent`` computes the network with torch (any model of a training
run), ``agents.ppo.learned.LearnedAgent`` with numpy (the shipped learning agent, no torch).
"""

from __future__ import annotations

import warnings
from abc import abstractmethod
from collections.abc import Mapping
from dataclasses import fields
from typing import Any

import numpy as np

from agents.base import Agent
from agents.ppo.features import BeliefFeatures, learner_observation, learner_observation_size
from cluedo_env import core

__all__ = ["NetworkAgent"]


class NetworkAgent(Agent):
    """A player by a network with ``game``, ``settings``, ``obs_size`` and ``num_actions``.

    Subclasses set ``self.network``, ``self.checkpoint`` (the model file, or None) and
    ``self.deterministic``, and implement ``_mode`` and ``_sample`` (and ``_probabilities``) of
    the masked policy on a batch of observations.
    """

    network: Any
    checkpoint: str | None
    deterministic: bool
    beliefs: BeliefFeatures | None = None  # with belief features: the batch's, from reset on

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
        self.beliefs = BeliefFeatures(config, self.seats) if self.network.settings.belief_features else None

    def reset_games(self, games: np.ndarray, seats: np.ndarray) -> None:
        super().reset_games(games, seats)
        if self.beliefs is not None:
            self.beliefs.reset_games(games, seats)

    def state_dict(self) -> dict[str, Any]:
        state = super().state_dict()
        if self.beliefs is not None:
            state["beliefs"] = self.beliefs.state_dict()
        return state

    def load_state_dict(self, config: core.GameConfig, state: Mapping[str, Any]) -> None:
        super().load_state_dict(config, state)
        if self.beliefs is not None:
            self.beliefs.load_state_dict(state["beliefs"])

    def observation(self, state: core.State, games: np.ndarray) -> np.ndarray:
        """``float32[len(games), obs]``: the network's input, the core's observation (and the belief pieces)."""
        return learner_observation(state, self.seats, games, self.beliefs)

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        if len(games) == 0:
            return np.zeros(0, dtype=np.int64)
        obs, mask = self.observation(state, games), np.ascontiguousarray(mask)
        action = self._mode(obs, mask) if self.deterministic else self._sample(obs, mask)
        return np.asarray(action, dtype=np.int64)

    def action_probabilities(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``float[len(games), A]``: the policy's probabilities (one-hot when ``deterministic``)."""
        games = np.asarray(games, dtype=np.int64)
        if len(games) == 0:
            return np.zeros(mask.shape, dtype=np.float32)
        obs, mask = self.observation(state, games), np.ascontiguousarray(mask)
        if self.deterministic:
            probs = np.zeros(mask.shape, dtype=np.float32)
            probs[np.arange(len(games)), self._mode(obs, mask)] = 1.0
            return probs
        return self._probabilities(obs, mask)

    @abstractmethod
    def _mode(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``int[n]``: the most likely legal action of each observation."""

    @abstractmethod
    def _sample(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``int[n]``: a legal action drawn from the policy for each observation."""

    @abstractmethod
    def _probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``float[n, A]``: the policy's probabilities."""
