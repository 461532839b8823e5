"""The random baseline: a uniformly random legal action, accusing only rarely by default."""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.base import Agent, option_number
from cluedo_env.core import State, rules_for

__all__ = ["RandomAgent", "sample_legal"]


def sample_legal(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of ``mask``: with ``u = rng.random(len(mask))``,
    the ``floor(u[i] * count_i)``-th legal action of row ``i`` (from 0, in column order).

    Compiled (``_pick_legal``): it makes no array of the mask's size, where the same formula in numpy
    (a running count over every row) took most of a random player's time and memory at B = 1,024.
    """
    mask = np.ascontiguousarray(mask, dtype=bool)
    if mask.ndim != 2:
        raise ValueError(f"mask must be 2-D (games, actions), got shape {mask.shape}")
    actions = np.empty(len(mask), dtype=np.int64)
    if _pick_legal(mask, rng.random(len(mask)), actions) >= 0:
        empty = np.flatnonzero(~mask.any(axis=1))
        raise ValueError(f"a mask row has no legal action (rows {empty.tolist()})")
    return actions


@njit(cache=True, nogil=True)
def _pick_legal(mask, u, actions):  # pragma: no cover - compiled
    """``actions[i]``: the ``int(u[i] * count)``-th legal action of row ``i``; returns the first row
    without a legal action, or -1."""
    for i in range(mask.shape[0]):
        count = 0
        for a in range(mask.shape[1]):
            count += mask[i, a]
        if count == 0:
            return i
        pick = np.int64(u[i] * count)  # (truncated, as numpy's astype(int64))
        for a in range(mask.shape[1]):
            if mask[i, a]:
                if pick == 0:
                    actions[i] = a
                    break
                pick -= 1
    return -1


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
        if not 0.0 <= option_number("accuse_probability", accuse_probability) <= 1.0:
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
