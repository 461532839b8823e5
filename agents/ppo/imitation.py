"""Imitation: a learner's network trained to play as a teacher agent plays (behaviour cloning).

``Recorder`` plays a seat with a teacher (the belief agent, say) and keeps, at
each of the teacher's decisions, what a learner in that seat would read (the
learner observation: the core's pieces and, with belief features, the belief
pieces), the legal actions, the teacher's action and its policy target: the
share of the root's visits of each candidate where an IS-MCTS teacher searched
(expert iteration's target, Anthony, Tian and Barber 2017), else the action.
``imitate`` fits a network to those decisions by maximum likelihood under the
network's own masked action distribution, of the actions or of the targets:
the start of a learner that then trains by PPO (``experiments/train_ppo.py``,
``init_from``), as AlphaStar's league starts from supervised play.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import torch

from agents.base import Agent
from agents.ppo.features import BeliefFeatures, learner_observation
from agents.ppo.network import ActorCritic
from agents.reasoners.ismcts import ISMCTSAgent
from cluedo_env import core

__all__ = ["Recorder", "imitate", "one_hot_targets", "search_targets", "stack_targets"]


def search_targets(teacher: Agent, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The policy targets of the teacher's last ``act``: ``(int64[n, k] actions, float32[n, k] weights)``.

    Where an IS-MCTS teacher searched, its root candidates weighted by their share of the visits
    (``SearchResult.policy``); elsewhere, and for any other teacher, the action taken with weight 1.
    Rows are padded with their action at weight 0.
    """
    if not isinstance(teacher, ISMCTSAgent):
        return one_hot_targets(actions)
    searches = teacher.searches
    target_actions, weights = one_hot_targets(actions, max([1] + [len(s.candidates) for s in searches if s]))
    for i, search in enumerate(searches):
        if search is not None:
            k = len(search.candidates)
            target_actions[i, :k], weights[i, :k], weights[i, k:] = search.candidates, search.policy(), 0.0
    return target_actions, weights


def one_hot_targets(actions: np.ndarray, width: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Targets that are the actions themselves: each row its action at weight 1, padded to ``width``
    columns with the action at weight 0."""
    target_actions = np.repeat(np.asarray(actions, dtype=np.int64)[:, None], width, axis=1)
    weights = np.zeros(target_actions.shape, dtype=np.float32)
    weights[:, 0] = 1.0
    return target_actions, weights


class Recorder(Agent):
    """Plays as ``teacher`` and records its decisions with the learner observation of its seat.

    Attributes:
        observations, masks, actions: per batch of decisions, ``float32[n, obs]``, ``bool[n, A]``,
            ``int64[n]`` (``decisions`` stacks them).
        targets: per batch, the policy targets (``search_targets``; ``policy_targets`` stacks them).
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
        self.targets: list[tuple[np.ndarray, np.ndarray]] = []

    @property
    def observes(self) -> bool:
        return True

    def check_config(self, config: core.GameConfig) -> None:
        """The teacher's: it plays the seat (ismcts, say, refuses ``auto_refute=True``)."""
        self.teacher.check_config(config)

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
        returned = self.teacher.act(state, games, mask)
        actions = np.asarray(returned)
        # not len(games) integers: passed on as the teacher gave them, for the table to refuse (not recorded)
        if actions.dtype.kind not in "iu" or actions.shape != (len(games),):
            return returned
        self.observations.append(learner_observation(state, self.seats, games, self.features))
        self.masks.append(np.array(mask, dtype=bool))
        self.actions.append(actions.astype(np.int64))
        self.targets.append(search_targets(self.teacher, actions))
        return actions

    def decisions(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every decision recorded so far: ``(observations, masks, actions)``."""
        return np.concatenate(self.observations), np.concatenate(self.masks), np.concatenate(self.actions)

    def policy_targets(self) -> tuple[np.ndarray, np.ndarray]:
        """The policy targets of every decision recorded so far, padded to one width (``search_targets``)."""
        return stack_targets(self.targets)

    def state_dict(self) -> dict[str, Any]:
        raise NotImplementedError("a Recorder is for collecting decisions, not for checkpointed runs")

    def load_state_dict(self, config: core.GameConfig, state: Mapping[str, Any]) -> None:
        raise NotImplementedError("a Recorder is for collecting decisions, not for checkpointed runs")

    def close(self) -> None:
        self.teacher.close()


def stack_targets(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Policy targets of several batches in one pair of arrays, each padded to the widest (its rows'
    actions at weight 0)."""
    width = max(actions.shape[1] for actions, _ in parts)
    padded = [
        (np.pad(actions, ((0, 0), (0, width - actions.shape[1])), mode="edge"),
         np.pad(weights, ((0, 0), (0, width - weights.shape[1]))))
        for actions, weights in parts
    ]  # fmt: skip
    return np.concatenate([a for a, _ in padded]), np.concatenate([w for _, w in padded])


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
    targets: tuple[np.ndarray, np.ndarray] | None = None,
) -> Iterator[dict[str, float]]:
    """Fit ``network``'s policy to the recorded decisions: the cross-entropy of the teacher's actions,
    or with ``targets`` (``(int64[n, k] actions, float32[n, k] weights)``, ``search_targets``) of
    those weighted actions (``-sum_k w_k log p(a_k)``: with an IS-MCTS teacher, its visit shares).

    The last ``holdout`` share of the decisions is kept apart: each epoch reports the training loss
    and, on the held-out decisions, the loss and how often the network's most likely action is
    the teacher's (decisions with one legal action included). The cut falls where the share does,
    not between games: the decisions of a batch are recorded step by step across its games, so
    the batch it cuts has early decisions of its games fitted and late ones held out. The value
    head is not trained (PPO fits it afterwards).

    Yields:
        After each epoch (the fit goes on as the caller takes them): ``epoch``, ``loss``,
        ``holdout_loss``, ``holdout_agreement``.
    """
    generator = torch.Generator().manual_seed(seed)
    obs, mask, action = (torch.as_tensor(x) for x in (observations, masks, actions))
    target_actions, weights = (torch.as_tensor(x) for x in (targets or one_hot_targets(actions)))

    def loss_of(distribution, rows) -> torch.Tensor:
        log_probs = torch.stack(
            [distribution.log_prob(column) for column in target_actions[rows].unbind(1)], dim=1
        )
        return -(weights[rows] * log_probs).sum(dim=1).mean()

    n_train = len(obs) - int(len(obs) * holdout)
    optimizer = torch.optim.Adam(network.parameters(), lr=learning_rate, eps=1e-5)
    for epoch in range(epochs):
        network.train()
        order = torch.randperm(n_train, generator=generator)
        total = 0.0
        for lo in range(0, n_train, batch_size):
            index = order[lo : lo + batch_size]
            distribution, _value = network.policy(obs[index], mask[index])
            loss = loss_of(distribution, index)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(network.parameters(), 0.5)
            optimizer.step()
            total += float(loss.detach()) * len(index)
        network.eval()
        with torch.no_grad():
            held = slice(n_train, len(obs))
            distribution, _value = network.policy(obs[held], mask[held])
            held_loss = float(loss_of(distribution, held)) if len(obs) > n_train else float("nan")
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
