"""What to show when refuting: the card that reveals least.

The card already shown to the suggester (it learns nothing new), else a card
already shown to anybody (more players may know it already), else any
matching card, at random among equals. The reasoning agents (SAT, belief)
refute this way; each remembers what it showed to whom (``bool[P, C]`` per
game, from the ``SHOW`` events it made).
"""

from __future__ import annotations

import numpy as np

__all__ = ["least_revealing"]


def least_revealing(cards: np.ndarray, shown_to: np.ndarray, suggester: int, rng: np.random.Generator) -> int:
    """The card to show among ``cards`` (the matching ones, non-empty).

    Args:
        cards: ``int[k]``, the cards the refuter may show.
        shown_to: ``bool[P, C]``, the cards the refuter has shown to each player in this game.
        suggester: The player to show to.
        rng: Draws among equals.
    """
    to_them = cards[shown_to[suggester, cards]]
    to_anyone = cards[shown_to[:, cards].any(axis=0)]
    pool = to_them if len(to_them) else to_anyone if len(to_anyone) else cards
    return int(pool[rng.integers(len(pool))])
