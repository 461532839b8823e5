"""Brute force: every deal enumerated, the reference that tests compare the ``Notepad`` against."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator
from functools import lru_cache

import numpy as np

from cluedo_env.inference.cards import CATEGORY_NAMES, Setup
from cluedo_env.inference.knowledge import HELD, NOT_HELD, UNKNOWN, Knowledge
from cluedo_env.inference.records import (
    Accusation,
    OwnHand,
    Record,
    Suggestion,
    check_record,
)

# brute_force enumerates every deal; past these sizes it would take minutes.
BRUTE_FORCE_MAX_CARDS = 12
BRUTE_FORCE_MAX_DEALS = 2_000_000


def _count_deals(setup: Setup) -> int:
    envelopes = math.prod(setup.deck.sizes)
    rest = setup.deck.num_cards - len(CATEGORY_NAMES)
    hands = math.factorial(rest)
    for owner in setup.owners:
        if owner != setup.envelope:
            hands //= math.factorial(setup.owner_size(owner))
    return envelopes * hands


@lru_cache(maxsize=8)
def all_deals(setup: Setup) -> np.ndarray:
    """``int8[deals, cards]``: the owner of every card, for every possible deal (small decks only).

    Owners are the codes of ``Setup`` (the core's: players, ``-1`` the envelope, ``-2``
    the table); the result is cached (do not modify it).
    """
    others = [o for o in setup.owners if o != setup.envelope]

    def hands(cards: frozenset[int], owners: list[int]) -> Iterator[dict[int, int]]:
        if not owners:
            yield {}
            return
        owner, rest = owners[0], owners[1:]
        for hand in itertools.combinations(sorted(cards), setup.owner_size(owner)):
            for deal in hands(cards - set(hand), rest):
                yield {**deal, **{c: owner for c in hand}}

    deals = []
    for envelope in itertools.product(*setup.deck.categories):
        remaining = frozenset(range(setup.deck.num_cards)) - set(envelope)
        for deal in hands(remaining, others):
            deal.update({c: setup.envelope for c in envelope})
            deals.append([deal[c] for c in range(setup.deck.num_cards)])
    return np.array(deals, dtype=np.int8).reshape(-1, setup.deck.num_cards)


def consistent_with(deals: np.ndarray, setup: Setup, record: Record) -> np.ndarray:
    """``bool[deals]``: which deals (rows of ``all_deals``) could have produced the record."""
    if isinstance(record, OwnHand):
        mine = deals == record.player
        return mine[:, list(record.cards)].all(axis=1) & (mine.sum(axis=1) == len(record.cards))
    if isinstance(record, Suggestion):
        named = deals[:, list(record.cards)]
        ok = np.ones(len(deals), dtype=bool)
        for player in record.passed:
            ok &= (named != player).all(axis=1)
        if record.shown_by is not None:
            ok &= (named == record.shown_by).any(axis=1)
        if record.shown_card is not None:
            ok &= deals[:, record.shown_card] == record.shown_by
        return ok
    if isinstance(record, Accusation):
        return (deals[:, list(record.cards)] == setup.envelope).all(axis=1) == record.correct
    return deals[:, record.card] == record.owner  # Seen


def brute_force(setup: Setup, observer: int, records: Iterable[Record]) -> Knowledge:
    """Everything ``observer`` can deduce, by enumerating every deal (for tests; small decks only).

    A deal is an envelope triple plus an assignment of the other cards to the
    players (and the table) with the exact hand sizes. The facts returned are
    those true in every deal that agrees with all the records.

    Raises:
        ValueError: If the deck has more than ``BRUTE_FORCE_MAX_CARDS`` cards or
            more than ``BRUTE_FORCE_MAX_DEALS`` deals, a record is malformed, or
            no deal agrees with the records.
    """
    if setup.deck.num_cards > BRUTE_FORCE_MAX_CARDS:
        raise ValueError(
            f"brute_force enumerates every deal: at most {BRUTE_FORCE_MAX_CARDS} cards, "
            f"got {setup.deck.num_cards}"
        )
    if _count_deals(setup) > BRUTE_FORCE_MAX_DEALS:
        raise ValueError(
            f"brute_force enumerates every deal: at most {BRUTE_FORCE_MAX_DEALS}, got {_count_deals(setup)}"
        )
    records = list(records)
    for record in records:
        check_record(setup, observer, record)
    deals = all_deals(setup)
    for record in records:
        deals = deals[consistent_with(deals, setup, record)]
    if len(deals) == 0:
        raise ValueError(f"no deal is consistent with the {len(records)} records of observer {observer}")
    status = np.full((setup.deck.num_cards, setup.num_owners), UNKNOWN, dtype=np.int8)
    for owner in setup.owners:
        holds = deals == owner
        status[holds.all(axis=0), owner] = HELD
        status[~holds.any(axis=0), owner] = NOT_HELD
    return Knowledge(setup, status)
