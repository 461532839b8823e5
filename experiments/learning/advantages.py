"""A rollout's learner decisions and their advantages (GAE over each game's chain of decisions).

A learner step is one of its own decisions. GAE runs backwards over each game's decisions within
the rollout; a game's last decision is bootstrapped with the value of the learner's observation at
the rollout's end (``experiments/train_ppo.py``'s loop).
"""

from __future__ import annotations

import numpy as np
import torch


class Rollout:
    """The learner's decisions of one rollout, with the game and position of each."""

    def __init__(self, num_envs: int, capacity: int) -> None:
        self.obs: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []
        self.actions: list[torch.Tensor] = []
        self.logprobs: list[torch.Tensor] = []
        self.values: list[torch.Tensor] = []
        self.games = np.zeros(capacity, dtype=np.int64)
        self.positions = np.zeros(capacity, dtype=np.int64)
        self.rewards = np.zeros(capacity, dtype=np.float32)
        self.dones = np.zeros(capacity, dtype=bool)
        self.last = np.full(num_envs, -1, dtype=np.int64)  # each game's latest decision in this rollout
        self.count = np.zeros(num_envs, dtype=np.int64)
        self.size = 0

    def add(self, games: np.ndarray, obs: np.ndarray, mask: np.ndarray, action, logprob, value) -> None:
        index = self.size + np.arange(len(games))
        self.games[index] = games
        self.positions[index] = self.count[games]
        self.count[games] += 1
        self.last[games] = index
        self.size += len(games)
        self.obs.append(obs)
        self.masks.append(mask)
        self.actions.append(action)
        self.logprobs.append(logprob)
        self.values.append(value)

    def record(self, reward: np.ndarray, over: np.ndarray) -> None:
        """Credit a step's rewards and episode ends to each game's latest learner decision.

        A reward with no decision of its episode in this rollout (the decision was
        in the previous rollout, or the new game ended before the learner's first
        decision) has nothing to credit here and is dropped.
        """
        games = np.flatnonzero((self.last >= 0) & ((reward != 0) | over))
        self.rewards[self.last[games]] += reward[games]
        self.dones[self.last[games]] |= over[games]
        self.last[over] = -1  # the next episode of these games starts without a decision yet


def compute_gae(
    rollout: Rollout,
    values: np.ndarray,
    bootstrap: np.ndarray,
    gamma: float,
    gae_lambda: float,
    potential: np.ndarray | None = None,
    bootstrap_potential: np.ndarray | None = None,
) -> np.ndarray:
    """Advantages by GAE over each game's chain of learner decisions (vectorised over games).

    Decision ``k`` of game ``b`` is followed by decision ``k + 1`` of that game,
    or, for its last decision, by ``bootstrap[b]`` (the value at the rollout's end).
    With a ``potential`` per decision (and ``bootstrap_potential`` per game), the
    reward is shaped by ``gamma * potential(next) - potential(now)``, with 0 after
    an episode's end. A rollout with no decision has no advantages (an empty array).
    """
    n = rollout.size
    games, positions = rollout.games[:n], rollout.positions[:n]
    rewards, dones = rollout.rewards[:n], rollout.dones[:n]
    if potential is None:
        potential, bootstrap_potential = np.zeros(n, np.float32), np.zeros(len(bootstrap), np.float32)
    length = int(positions.max()) + 1 if n else 0
    index = np.full((length + 1, len(bootstrap)), -1, dtype=np.int64)
    index[positions, games] = np.arange(n)
    advantages = np.zeros(n, dtype=np.float32)
    for k in reversed(range(length)):
        here = np.flatnonzero(index[k] >= 0)
        i, after = index[k, here], index[k + 1, here]
        has_next = after >= 0
        next_value = np.where(has_next, values[after], bootstrap[here])
        next_potential = np.where(has_next, potential[after], bootstrap_potential[here])
        next_advantage = np.where(has_next, advantages[after], 0.0)
        nonterminal = 1.0 - dones[i]
        reward = rewards[i] + gamma * next_potential * nonterminal - potential[i]
        delta = reward + gamma * next_value * nonterminal - values[i]
        advantages[i] = delta + gamma * gae_lambda * nonterminal * next_advantage
    return advantages
