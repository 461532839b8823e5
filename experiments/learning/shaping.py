"""Potential-based reward shaping for cards seen (Ng et al. 1999: optimal policies unchanged).

``phi = -coef * (unseen cards - 3) / (C - 3)``, from the observation's ``unseen`` piece: 0 once
only the envelope is unseen. ``experiments/train_ppo.py`` adds ``gamma * phi(next) - phi(now)`` in
its advantages (``experiments.learning.advantages.compute_gae``), ``train_sb3`` and ``train_rllib``
in their envs' rewards.
"""

from __future__ import annotations

import numpy as np

from cluedo_env import core


def knowledge_potential(obs: np.ndarray, game: core.GameConfig, coef: float) -> np.ndarray:
    """``-coef * (unseen cards - 3) / (C - 3)`` from the observation's ``unseen`` piece (0: all known)."""
    _shape, offset = next(
        (shape, offset) for name, shape, offset in core.observation_pieces(game) if name == "unseen"
    )
    C = game.cards.num_cards
    unseen = obs[:, offset : offset + C].sum(axis=1)
    return (-coef * (unseen - 3) / (C - 3)).astype(np.float32)
