"""Card deduction: what one observer of a Cluedo game can know about who holds which card.

The deduction itself is independent of the rules core: it takes plain ints and
knows nothing of boards or turns; of the core it takes only the owner codes
(``ENVELOPE``, ``FACE_DOWN``), so that both speak of a card's owner alike. A SAT-reasoning agent keeps one ``Notepad``
per player; a reasoning benchmark calls ``deduce`` or ``deduce_named``; tests
check both against ``brute_force``.

Modules:

- ``cards`` (``Deck``, ``Setup``), ``records`` (what an observer notes, ``check_record``,
  and ``RecordBook``, the base of what is built from records), ``knowledge``
  (``Knowledge`` and its three values);
- ``deduction`` (``Notepad``, the incremental SAT knowledge, and ``deduce``),
  ``exhaustive`` (``brute_force``, and ``all_deals`` and ``consistent_with`` that it
  enumerates with) and ``names`` (``deduce_named``, and ``CardNames``,
  ``named_record`` and ``named_records`` that read a history written with card names);
- ``beliefs`` (``Beliefs``, ``Posterior``: exact probabilities), counted by
  ``constraints`` (the records as constraints, propagation), ``programme`` (the dynamic
  programme that deals the cards) and ``counting`` (the counting problem);
- ``from_events`` (a game's events to records, ``deduce_from_events``) and
  ``information`` (what the answer to a suggestion is worth).

The names below are importable from ``cluedo_env.inference``; every other name from
its module.

Cards and owners
    Card ids are suspects first, then weapons, then rooms (``Deck``). Every
    card lies in exactly one place, its *owner*:

    ============  ========================================================
    owner code    meaning (the rules core's codes, ``cluedo_env.core.state``)
    ============  ========================================================
    ``0..P-1``    the players, in seat order (clockwise)
    ``-2``        the cards lying face down on rooms in the duel variant
                  (``Setup.table``, ``core.FACE_DOWN``); only when
                  ``num_face_down > 0``
    ``-1``        the envelope (``Setup.envelope``, ``core.ENVELOPE``)
    ============  ========================================================

    Arrays over owners have one column per owner in that order
    (``Setup.owners``), so a code indexes its column directly: ``[:, -1]`` is
    the envelope, ``[:, -2]`` the table; ``Setup.column`` gives the
    non-negative index. Deals are arrays of owner codes, as in the core.

Records (what an observer may have noted)
    ============  ========================================================
    record        clauses added (docs/RULES.md, "Deductions the rules allow")
    ============  ========================================================
    ``OwnHand``   the observer holds exactly these cards
    ``Suggestion``  each player in ``passed`` holds none of the three;
                  ``shown_by`` holds at least one; ``shown_card``, when
                  known, is held by ``shown_by``. Nothing about the
                  suggester, who is never asked (seed 004's example).
    ``Accusation``  right: the envelope is these three cards; wrong: the
                  three are not all in the envelope
    ``Seen``      the card is held by that owner
    ============  ========================================================

    On top of the records, every deal obeys: each card has exactly one owner,
    the envelope holds exactly one card of each category, each player holds
    exactly their dealt number of cards and the table exactly
    ``num_face_down``.

Knowledge
    A fact "card c is held by owner o" is known when every deal consistent
    with the records agrees on it (entailment). ``Knowledge.status`` holds
    ``HELD`` (1), ``NOT_HELD`` (0) or ``UNKNOWN`` (-1) per (card, owner).
"""

from cluedo_env.inference.cards import CATEGORY_NAMES, Deck, Setup
from cluedo_env.inference.deduction import Notepad, deduce
from cluedo_env.inference.exhaustive import brute_force
from cluedo_env.inference.knowledge import HELD, NOT_HELD, UNKNOWN, Knowledge
from cluedo_env.inference.names import deduce_named
from cluedo_env.inference.records import (
    Accusation,
    OwnHand,
    Record,
    RecordBook,
    Seen,
    Suggestion,
    check_record,
)

__all__ = [
    "CATEGORY_NAMES",
    "HELD",
    "NOT_HELD",
    "UNKNOWN",
    "Accusation",
    "Deck",
    "Knowledge",
    "Notepad",
    "OwnHand",
    "Record",
    "RecordBook",
    "Seen",
    "Setup",
    "Suggestion",
    "brute_force",
    "check_record",
    "deduce",
    "deduce_named",
]
