"""Reward schemes: what the step that ends a game pays each player, in every env of the package.

The core's own rewards (``state.rewards``) are ``"win_loss"``: +1 to the winner and -1 to every
other player, -1 to each when everybody accused wrongly, 0 at truncation. The other schemes are
read from them and the winner (``cluedo_env.cluedo_v0``'s module docstring has the table).
"""

from __future__ import annotations

import numpy as np

__all__ = ["REWARD_SCHEMES", "final_rewards"]

REWARD_SCHEMES = ("win_loss", "win_only", "zero_sum")


def final_rewards(scheme: str, rewards: np.ndarray, winner: np.ndarray) -> np.ndarray:
    """Rewards of the step that ends a game, under a reward scheme.

    Args:
        scheme: One of ``REWARD_SCHEMES`` (see ``cluedo_env.cluedo_v0``'s module docstring).
        rewards: ``float32[B, P]`` the core's rewards of that step (``state.rewards``).
        winner: ``int[B]`` the winner of each game, or -1.

    Returns:
        ``float32[B, P]``.
    """
    if scheme == "win_loss":
        return rewards.astype(np.float32, copy=True)
    if scheme == "win_only":
        return np.maximum(rewards, 0).astype(np.float32)
    if scheme == "zero_sum":
        P = rewards.shape[1]
        winner = np.asarray(winner)[:, None]
        won = np.where(np.arange(P)[None, :] == winner, 1.0, -1.0 / (P - 1))
        return np.where(winner >= 0, won, 0.0).astype(np.float32)
    raise ValueError(f"reward_scheme must be one of {list(REWARD_SCHEMES)}, got {scheme!r}")
