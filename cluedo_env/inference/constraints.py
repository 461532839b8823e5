"""The records as constraints on the deal, reduced by unit propagation: step 1 of exact counting.

``ConstraintStore`` holds, per card, the owners it may have; the open "player holds at least
one of these cards" clauses (shows the observer did not see); the wrong accusations ("not all
three in the envelope"); and the shows the observer saw (their weights, in the weighted model).
``apply_record`` adds one record; ``propagate`` applies the unit rules until nothing changes.
``cluedo_env.inference.counting`` counts the deals of a propagated store (its docstring
describes the whole method).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cluedo_env.inference.cards import Setup
from cluedo_env.inference.records import Accusation, OwnHand, Record, Suggestion

__all__ = ["ConstraintStore", "SeenShow", "apply_record", "propagate"]


@dataclass(frozen=True)
class SeenShow:
    """A show whose card the observer saw: weight ``1 / (number of the named cards the refuter holds)``."""

    player: int
    card: int
    named: tuple[int, int, int]


@dataclass
class ConstraintStore:
    """The records as constraints on the deal.

    Attributes:
        allowed: ``bool[cards, owners]``: the owners each card may have.
        clauses: ``(player, cards)``: the player holds at least one of the cards.
        wrong: Triples not all in the envelope (wrong accusations).
        shows: Shows seen (weights of the weighted model; as facts they are in ``allowed``).
    """

    allowed: np.ndarray
    clauses: set[tuple[int, frozenset[int]]] = field(default_factory=set)
    wrong: set[tuple[int, int, int]] = field(default_factory=set)
    shows: list[SeenShow] = field(default_factory=list)

    def copy(self) -> ConstraintStore:
        """A copy that can be changed without changing this store."""
        return ConstraintStore(self.allowed.copy(), set(self.clauses), set(self.wrong), list(self.shows))

    def key(self, weighted: bool) -> tuple:
        """What the posterior depends on (shows only weigh in the weighted model)."""
        shows = tuple(self.shows) if weighted else ()
        return (self.allowed.tobytes(), frozenset(self.clauses), frozenset(self.wrong), shows)


def apply_record(store: ConstraintStore, setup: Setup, record: Record) -> None:
    """Adds one (checked) record's constraints to the store."""
    allowed = store.allowed
    if isinstance(record, OwnHand):
        mine = np.zeros(setup.deck.num_cards, dtype=bool)
        mine[list(record.cards)] = True
        allowed[mine, : record.player] = False
        allowed[mine, record.player + 1 :] = False
        allowed[~mine, record.player] = False
    elif isinstance(record, Suggestion):
        cards = list(record.cards)
        for player in record.passed:
            allowed[cards, player] = False
        if record.shown_card is not None:
            _only_with(allowed, [record.shown_card], record.shown_by)
            store.shows.append(SeenShow(record.shown_by, record.shown_card, record.cards))
        elif record.shown_by is not None:
            store.clauses.add((record.shown_by, frozenset(cards)))
    elif isinstance(record, Accusation):
        if record.correct:
            _only_with(allowed, list(record.cards), setup.envelope)
        else:
            store.wrong.add(tuple(sorted(record.cards)))
    else:  # Seen
        _only_with(allowed, [record.card], record.owner)


def _only_with(allowed: np.ndarray, cards: list[int], owner: int) -> None:
    """Rules out every owner of ``cards`` but ``owner``, keeping what was known: a card already ruled
    out for ``owner`` is left with no owner, the contradiction ``propagate`` reports."""
    keep = allowed[cards, owner].copy()
    allowed[cards] = False
    allowed[cards, owner] = keep


def propagate(store: ConstraintStore, setup: Setup) -> bool:
    """Applies the unit rules until nothing changes; False if a contradiction shows up."""
    allowed = store.allowed
    envelope = setup.envelope
    sizes = [setup.owner_size(o) for o in setup.owners]  # in column order: indexed by owner code
    categories = [list(cards) for cards in setup.deck.categories]
    changed = True
    while changed:
        changed = False
        options = allowed.sum(axis=1)
        if (options == 0).any():
            return False
        fixed = options == 1
        for owner in setup.owners:
            if owner == envelope:
                continue
            held = fixed & allowed[:, owner]
            possible = allowed[:, owner].copy()
            num_held, num_possible = int(held.sum()), int(possible.sum())
            if num_held > sizes[owner] or num_possible < sizes[owner]:
                return False
            if num_held == sizes[owner] and num_possible > num_held:
                allowed[possible & ~held, owner] = False  # the hand is full
                changed = True
            elif num_possible == sizes[owner] and num_held < num_possible:
                allowed[possible] = False  # the candidates exactly fill the hand
                allowed[possible, owner] = True
                changed = True
        if changed:
            continue
        for cards in categories:
            in_envelope = allowed[cards, envelope]
            held = fixed[cards] & in_envelope
            if held.sum() > 1 or not in_envelope.any():
                return False
            if held.sum() == 1 and in_envelope.sum() > 1:
                allowed[[c for c, h in zip(cards, held) if not h], envelope] = False
                changed = True
            elif in_envelope.sum() == 1 and not held.any():
                card = cards[int(np.argmax(in_envelope))]
                allowed[card] = False
                allowed[card, envelope] = True
                changed = True
        if changed:
            continue
        clauses = set()
        for player, cards in store.clauses:
            possible = frozenset(c for c in cards if allowed[c, player])
            if any(fixed[c] for c in possible):
                continue  # satisfied
            if not possible:
                return False
            if len(possible) == 1:
                (card,) = possible
                allowed[card] = False
                allowed[card, player] = True
                changed = True
                continue
            clauses.add((player, possible))
        # A clause whose cards include all of another's (same player) says nothing more.
        store.clauses = {(p, s) for p, s in clauses if not any(q == p and t < s for q, t in clauses)}
        if changed:
            continue
        wrong = set()
        for triple in store.wrong:
            if not allowed[list(triple), envelope].all():
                continue  # some card is not in the envelope: satisfied
            in_envelope = [c for c in triple if fixed[c]]
            if len(in_envelope) == 3:
                return False
            if len(in_envelope) == 2:
                (card,) = set(triple) - set(in_envelope)
                allowed[card, envelope] = False
                changed = True
                continue
            wrong.add(triple)
        store.wrong = wrong
    return True
