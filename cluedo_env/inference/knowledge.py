"""Knowledge: what an observer surely knows, ``HELD``, ``NOT_HELD`` or ``UNKNOWN`` per (card, owner)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cluedo_env.inference.cards import Setup

HELD = 1
NOT_HELD = 0
UNKNOWN = -1


@dataclass(frozen=True, eq=False)
class Knowledge:
    """What is entailed about every (card, owner) pair.

    Attributes:
        setup: The game's set-up.
        status: ``int8[num_cards, num_owners]``: ``HELD`` (1) if the owner surely
            holds the card, ``NOT_HELD`` (0) if surely not, ``UNKNOWN`` (-1)
            otherwise; columns in ``Setup.owners`` order, so ``status[:, setup.envelope]``
            is the envelope's. Read-only. Owners returned are owner codes (``Setup``).
    """

    setup: Setup
    status: np.ndarray

    def __post_init__(self) -> None:
        status = np.array(self.status, dtype=np.int8)
        expected = (self.setup.deck.num_cards, self.setup.num_owners)
        if status.shape != expected:
            raise ValueError(f"status must have shape {expected}, got {status.shape}")
        status.setflags(write=False)
        object.__setattr__(self, "status", status)

    def owner_of(self, card: int) -> int | None:
        """The card's owner if it is known, else None."""
        self.setup.deck.category(card)
        owners = np.flatnonzero(self.status[card] == HELD)
        return self.setup.owners[owners[0]] if len(owners) else None

    def possible_owners(self, card: int) -> tuple[int, ...]:
        """The owners not ruled out for the card."""
        self.setup.deck.category(card)
        return tuple(self.setup.owners[o] for o in np.flatnonzero(self.status[card] != NOT_HELD))

    def envelope_candidates(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """The suspects, weapons and rooms not ruled out of the envelope."""
        in_envelope = self.status[:, self.setup.envelope] != NOT_HELD
        return tuple(tuple(c for c in cards if in_envelope[c]) for cards in self.setup.deck.categories)

    def solved(self) -> tuple[int, int, int] | None:
        """The envelope's (suspect, weapon, room) if entailed, else None."""
        candidates = self.envelope_candidates()
        if all(len(cards) == 1 for cards in candidates):
            return tuple(cards[0] for cards in candidates)
        return None

    def facts(self) -> list[tuple[int, int, bool]]:
        """Every entailed fact as ``(card, owner, holds)``, by card then owner (column order)."""
        cards, columns = np.nonzero(self.status != UNKNOWN)
        owners = self.setup.owners
        return [(int(c), owners[o], bool(self.status[c, o] == HELD)) for c, o in zip(cards, columns)]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Knowledge):
            return NotImplemented
        return self.setup == other.setup and np.array_equal(self.status, other.status)

    __hash__ = None  # type: ignore[assignment]
