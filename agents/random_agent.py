"""The random baseline: a uniformly random legal action, accusing only rarely by default."""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from cluedo_env.core import State, rules_for

__all__ = ["RandomAgent", "sample_legal"]


def sample_legal(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of ``mask``."""
    counts = mask.sum(axis=1)
    if (counts == 0).any():
        raise ValueError(f"a mask row has no legal action (rows {np.flatnonzero(counts == 0).tolist()})")
    pick = (rng.random(len(mask)) * counts).astype(np.int64)
    # The pick-th legal action of each row: first column where the running count exceeds pick.
    return np.argmax(np.cumsum(mask, axis=1) > pick[:, None], axis=1)


class RandomAgent(Agent):
    """Picks a uniformly random legal action; by default an accusation only rarely (see ``accuse``).

    Args:
        seed: Seed of the agent's own generator.
        accuse: ``"uniform"``: accusations are legal actions like any other (it
            is then usually out on its first turn: a turn offers 324
            accusations next to one roll). ``"never"``: it never accuses,
            a baseline that cannot lose by a wrong accusation and never wins.
            ``"rarely"`` (default): it accuses with probability
            ``accuse_probability`` when it may, choosing the triple at random.
        accuse_probability: See ``accuse``.
    """

    name = "random"
    MODES = ("uniform", "never", "rarely")

    def __init__(self, seed: int = 0, accuse: str = "rarely", accuse_probability: float = 0.01) -> None:
        super().__init__(seed)
        if accuse not in self.MODES:
            raise ValueError(f"accuse must be one of {list(self.MODES)}, got {accuse!r}")
        if not 0.0 <= accuse_probability <= 1.0:
            raise ValueError(f"accuse_probability must be in [0, 1], got {accuse_probability!r}")
        self.accuse = accuse
        self.accuse_probability = accuse_probability

    def act(self, state: State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if self.accuse == "uniform":
            return sample_legal(self.rng, mask)
        layout = rules_for(state.config).layout
        accusations = slice(layout.ACCUSE, layout.ACCUSE + layout.sizes["accuse"])
        other = mask.copy()
        other[:, accusations] = False
        accuse = mask[:, accusations].any(axis=1)
        if self.accuse == "rarely":
            accuse &= self.rng.random(len(games)) < self.accuse_probability
        else:
            accuse[:] = False
        accuse |= ~other.any(axis=1)  # only accusations left
        choice = np.where(accuse[:, None], mask & ~other, other)
        return sample_legal(self.rng, choice)
