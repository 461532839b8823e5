"""Imitation: a learner's network trained to play as a teacher agent plays (behaviour cloning).

``Recorder`` plays a seat with a teacher (the belief agent, say) and keeps, at
each of the teacher's decisions, what a learner in that seat would read (the
learner observation: the core's pieces and, with belief features, the belief
pieces), the legal actions and the teacher's action. ``imitate`` fits a
network to those decisions by maximum likelihood under the network's own
masked action distribution: the start of a learner that then trains by PPO
(``experiments/train_ppo.py``, ``init_from``), as AlphaStar's league starts
from supervised play.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import torch

from agents.base import Agent
from agents.ppo.features import BeliefFeatures, learner_observation
from agents.ppo.network import ActorCritic
from cluedo_env import core

__all__ = ["Recorder", "imitate"]


class Recorder(Agent):
    """Plays as ``teacher`` and records its decisions with the learner observation of its seat.

    Attributes:
        observations, masks, actions: per batch of decisions, ``float32[n, obs]``, ``bool[n, A]``,
            ``int64[n]`` (``decisions`` stacks them).
    """

    name = "recorder"

    def __init__(self, teacher: Agent, belief_features: bool = True) -> None:
        super().__init__(teacher.seed)  # play_batch reseeds it: the teacher gets the seed it would alone
        self.teacher = teacher
        self.belief_features = belief_features
        self.features: BeliefFeatures | None = None
        self.observations: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []
        self.actions: list[np.ndarray] = []

    @property
    def observes(self) -> bool:
        return True

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        super().reset(config, seats, seed)
        self.teacher.reset(config, seats, seed)
        self.features = BeliefFeatures(config, self.seats) if self.belief_features else None

    def reset_games(self, games: np.ndarray, seats: np.ndarray) -> None:
        super().reset_games(games, seats)
        self.teacher.reset_games(games, seats)
        if self.features is not None:
            self.features.reset_games(games, seats)

    def observe(self, state: core.State, events: np.ndarray) -> None:
        self.teacher.observe(state, events)
        if self.features is not None:
            self.features.observe(events)

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        actions = np.asarray(self.teacher.act(state, games, mask), dtype=np.int64)
        self.observations.append(learner_observation(state, self.seats, games, self.features))
        self.masks.append(np.array(mask, dtype=bool))
        self.actions.append(actions.copy())
        return actions

    def decisions(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every decision recorded so far: ``(observations, masks, actions)``."""
        return np.concatenate(self.observations), np.concatenate(self.masks), np.concatenate(self.actions)

    def state_dict(self) -> dict[str, Any]:
        raise NotImplementedError("a Recorder is for collecting decisions, not for checkpointed runs")

    def load_state_dict(self, config: core.GameConfig, state: Mapping[str, Any]) -> None:
        raise NotImplementedError("a Recorder is for collecting decisions, not for checkpointed runs")

    def close(self) -> None:
        self.teacher.close()


def imitate(
    network: ActorCritic,
    observations: np.ndarray,
    masks: np.ndarray,
    actions: np.ndarray,
    epochs: int,
    batch_size: int = 512,
    learning_rate: float = 3e-4,
    seed: int = 0,
    holdout: float = 0.1,
) -> Iterator[dict[str, float]]:
    """Fit ``network``'s policy to the recorded decisions (cross-entropy of the teacher's actions).

    The last ``holdout`` share of the decisions is kept apart: each epoch reports the training loss
    and, on the held-out decisions, the loss and how often the network's most likely action is
    the teacher's. The value head is not trained (PPO fits it afterwards).

    Yields:
        After each epoch (the fit goes on as the caller takes them): ``epoch``, ``loss``,
        ``holdout_loss``, ``holdout_agreement``.
    """
    generator = torch.Generator().manual_seed(seed)
    obs, mask, action = (torch.as_tensor(x) for x in (observations, masks, actions))
    n_train = len(obs) - int(len(obs) * holdout)
    optimizer = torch.optim.Adam(network.parameters(), lr=learning_rate, eps=1e-5)
    for epoch in range(epochs):
        network.train()
        order = torch.randperm(n_train, generator=generator)
        total = 0.0
        for lo in range(0, n_train, batch_size):
            index = order[lo : lo + batch_size]
            distribution, _value = network.policy(obs[index], mask[index])
            loss = -distribution.log_prob(action[index]).mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(network.parameters(), 0.5)
            optimizer.step()
            total += float(loss.detach()) * len(index)
        network.eval()
        with torch.no_grad():
            held = slice(n_train, len(obs))
            distribution, _value = network.policy(obs[held], mask[held])
            held_loss = (
                float(-distribution.log_prob(action[held]).mean()) if len(obs) > n_train else float("nan")
            )
            agreement = (
                float((distribution.mode() == action[held]).float().mean())
                if len(obs) > n_train
                else float("nan")
            )
        yield {
            "epoch": epoch + 1,
            "loss": total / n_train,
            "holdout_loss": held_loss,
            "holdout_agreement": agreement,
        }
