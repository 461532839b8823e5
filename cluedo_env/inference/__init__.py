"""Card deduction: what one observer of a Cluedo game can know about who holds which card.

The library is independent of the rules core: it takes plain ints and knows
nothing of boards, turns or ``cluedo_env``. A SAT-reasoning agent keeps one
``Notepad`` per player; a reasoning benchmark calls ``deduce`` or
``deduce_named``; tests check both against ``brute_force``.

Modules: ``cards`` (``Deck``, ``Setup``), ``records`` (what an observer notes, ``check_record``,
and ``RecordBook``, the base of what is built from records), ``knowledge`` (``Knowledge`` and its three values), ``notepad``
(``Notepad``, the incremental SAT knowledge, and ``deduce``), ``exhaustive``
(``brute_force``) and ``names`` (``deduce_named``). Import the names from
``cluedo_env.inference``.

Cards and owners
    Card ids are suspects first, then weapons, then rooms (``Deck``). Every
    card lies in exactly one place, its *owner*:

    ============  ========================================================
    owner index   meaning
    ============  ========================================================
    ``0..P-1``    the players, in seat order (clockwise)
    ``P``         the envelope (``Setup.envelope``)
    ``P + 1``     the cards lying face down on rooms in the duel variant
                  (``Setup.table``); only when ``num_face_down > 0``
    ============  ========================================================

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
from cluedo_env.inference.exhaustive import _agrees as _agrees
from cluedo_env.inference.exhaustive import _all_deals as _all_deals
from cluedo_env.inference.exhaustive import brute_force
from cluedo_env.inference.knowledge import HELD, NOT_HELD, UNKNOWN, Knowledge
from cluedo_env.inference.names import _CardNames as _CardNames
from cluedo_env.inference.names import _named_record as _named_record
from cluedo_env.inference.names import _named_records as _named_records
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

# The underscored names (imported "as" themselves) are shared with cluedo_env.inference.beliefs,
# cluedo_env.reasoning and the tests, which read them here since before the package.
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
