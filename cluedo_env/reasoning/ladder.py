"""The reasoning ladder: progressively stronger reasoners, to label each certain fact by the weakest that finds it.

Each rung adds rules to the rungs below it and propagates them all to a fixed
point over the (card, owner) grid of ``cluedo_env.inference`` (``HELD``,
``NOT_HELD``, ``UNKNOWN``). Every rule is a valid entailment, so every rung
finds a subset of what the SAT library (``deduce``) finds; the last rung is
``deduce`` itself.

=====================  ==================================================
label                  what the rung adds
=====================  ==================================================
``seen``               the observer's own hand (and that it holds nothing
                       else), cards shown to it or looked at, a right
                       accusation; a card held by one owner is held by no
                       other, and the envelope holds one card per category
``crossing_off``       a player who passed holds none of the three named
                       cards
``nobody_could_show``  a card with one possible owner left lies there; the
                       last envelope candidate of a category is in the
                       envelope (the classic "nobody could show" inference)
``one_of``             a player who showed an unseen card holds one of the
                       three named: when two are ruled out, the third; a
                       wrong accusation with two cards known in the envelope
                       rules the third out of it
``counting``           hand sizes: a player whose known cards fill the hand
                       holds nothing else; a player whose possible cards
                       just fill the hand holds them all
``sat``                full propositional reasoning (``deduce``): what only
                       the SAT library finds
=====================  ==================================================
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cluedo_env.inference import (
    HELD,
    NOT_HELD,
    UNKNOWN,
    Accusation,
    OwnHand,
    Record,
    Seen,
    Setup,
    Suggestion,
    deduce,
)

__all__ = ["LABELS", "label_facts", "rung_status"]

LABELS = ("seen", "crossing_off", "nobody_could_show", "one_of", "counting", "sat")


def _hold(status: np.ndarray, card: int, owner: int) -> None:
    if status[card, owner] == NOT_HELD:
        raise ValueError(
            f"records contradict each other: card {card} both held and not held by owner {owner}"
        )
    status[card, owner] = HELD


def _rule_out(status: np.ndarray, card: int, owner: int) -> None:
    if status[card, owner] == HELD:
        raise ValueError(
            f"records contradict each other: card {card} both held and not held by owner {owner}"
        )
    status[card, owner] = NOT_HELD


def rung_status(setup: Setup, observer: int, records: Sequence[Record], rung: int) -> np.ndarray:
    """The ``int8[cards, owners]`` grid the reasoner of ``LABELS[rung]`` reaches.

    Args:
        setup: The game's set-up.
        observer: Whose records these are.
        records: The observer's records, in order.
        rung: Index into ``LABELS``; the last (``sat``) calls ``deduce``.

    Raises:
        ValueError: for a rung outside ``LABELS`` or contradictory records.
    """
    if not isinstance(rung, int) or not 0 <= rung < len(LABELS):
        raise ValueError(f"rung must be an int in [0, {len(LABELS)}), got {rung!r}")
    if rung == len(LABELS) - 1:
        return deduce(setup, observer, records).status.copy()
    deck, env = setup.deck, setup.envelope
    status = np.full((deck.num_cards, setup.num_owners), UNKNOWN, dtype=np.int8)
    shows: list[tuple[int, tuple[int, ...]]] = []
    wrong: list[tuple[int, ...]] = []
    for record in records:
        if isinstance(record, OwnHand):
            for card in range(deck.num_cards):
                (_hold if card in record.cards else _rule_out)(status, card, record.player)
        elif isinstance(record, Seen):
            _hold(status, record.card, record.owner)
        elif isinstance(record, Accusation):
            if record.correct:
                for card in record.cards:
                    _hold(status, card, env)
            else:
                wrong.append(tuple(record.cards))
        elif isinstance(record, Suggestion):
            if record.shown_card is not None:
                _hold(status, record.shown_card, record.shown_by)
            elif record.shown_by is not None:
                shows.append((record.shown_by, tuple(record.cards)))
            if rung >= 1:
                for player in record.passed:
                    for card in record.cards:
                        _rule_out(status, card, player)
    categories = [np.array(list(c)) for c in deck.categories]
    while True:
        before = status.copy()
        # A card has one owner; the envelope one card per category.
        for card, owner in zip(*np.nonzero(status == HELD)):
            for other in range(setup.num_owners):
                if other != owner:
                    _rule_out(status, card, other)
        for cards in categories:
            held = cards[status[cards, env] == HELD]
            if len(held):
                for card in cards:
                    if card != held[0]:
                        _rule_out(status, card, env)
        if rung >= 2:
            for card in range(deck.num_cards):
                possible = np.flatnonzero(status[card] != NOT_HELD)
                if len(possible) == 1:
                    _hold(status, card, int(possible[0]))
            for cards in categories:
                possible = cards[status[cards, env] != NOT_HELD]
                if len(possible) == 1:
                    _hold(status, int(possible[0]), env)
        if rung >= 3:
            for player, cards in shows:
                open_cards = [c for c in cards if status[c, player] != NOT_HELD]
                if len(open_cards) == 1:
                    _hold(status, open_cards[0], player)
            for cards in wrong:
                open_cards = [c for c in cards if status[c, env] != HELD]
                if len(open_cards) == 1:
                    _rule_out(status, open_cards[0], env)
        if rung >= 4:
            for owner in setup.owners:
                size = setup.owner_size(owner)
                column = status[:, owner]
                if (column == HELD).sum() == size:
                    column[column == UNKNOWN] = NOT_HELD
                elif (column != NOT_HELD).sum() == size:
                    column[column == UNKNOWN] = HELD
        if np.array_equal(before, status):
            return status


def label_facts(setup: Setup, observer: int, records: Sequence[Record]) -> tuple[np.ndarray, np.ndarray]:
    """The entailed grid and, for each certain fact, the index in ``LABELS`` of the weakest rung finding it.

    Returns:
        ``(status, label)``: ``status`` is ``deduce``'s grid; ``label`` is
        ``int8[cards, owners]``, ``-1`` where the fact is not certain.

    Raises:
        ValueError: if a weaker rung finds a fact the SAT library does not (a bug).
    """
    status = rung_status(setup, observer, records, len(LABELS) - 1)
    label = np.full(status.shape, -1, dtype=np.int8)
    for rung in range(len(LABELS) - 1):
        found = rung_status(setup, observer, records, rung)
        known = found != UNKNOWN
        if (found[known] != status[known]).any():
            raise ValueError(f"rung {LABELS[rung]} finds a fact deduce does not: a bug in the ladder")
        label[known & (label < 0)] = rung
    label[(status != UNKNOWN) & (label < 0)] = len(LABELS) - 1
    return status, label
