"""Card deduction: what one observer of a Cluedo game can know about who holds which card.

The library is independent of the rules core: it takes plain ints and knows
nothing of boards, turns or ``cluedo_env``. A SAT-reasoning agent keeps one
``Notepad`` per player; a reasoning benchmark calls ``deduce`` or
``deduce_named``; tests check both against ``brute_force``.

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

from __future__ import annotations

import itertools
import math
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Self

import numpy as np
from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver

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
    "Seen",
    "Setup",
    "Suggestion",
    "brute_force",
    "check_record",
    "deduce",
    "deduce_named",
]

HELD = 1
NOT_HELD = 0
UNKNOWN = -1

CATEGORY_NAMES = ("suspects", "weapons", "rooms")

# Minicard takes the cardinality constraints natively (no auxiliary variables):
# of pysat's solvers it was the fastest here, about 3x minisat22 and cadical153
# on knowledge() of a classic 4-player game.
DEFAULT_SOLVER = "minicard"

# brute_force enumerates every deal; past these sizes it would take minutes.
BRUTE_FORCE_MAX_CARDS = 12
BRUTE_FORCE_MAX_DEALS = 2_000_000


# ---------------------------------------------------------------------------
# Deck and set-up
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Deck:
    """The three categories of cards, as counts.

    Attributes:
        num_suspects: Number of suspect cards (ids ``0 .. S-1``).
        num_weapons: Number of weapon cards (ids ``S .. S+W-1``).
        num_rooms: Number of room cards (ids ``S+W .. S+W+R-1``).
    """

    num_suspects: int
    num_weapons: int
    num_rooms: int

    def __post_init__(self) -> None:
        for field, value in zip(CATEGORY_NAMES, self.sizes):
            if not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"number of {field} must be an int >= 1, got {value!r}")
            object.__setattr__(self, f"num_{field}", int(value))

    @property
    def sizes(self) -> tuple[int, int, int]:
        """Number of cards in each category."""
        return (self.num_suspects, self.num_weapons, self.num_rooms)

    @property
    def num_cards(self) -> int:
        """Number of cards in the deck."""
        return self.num_suspects + self.num_weapons + self.num_rooms

    @property
    def categories(self) -> tuple[range, range, range]:
        """Card ids of the suspects, the weapons and the rooms."""
        s, w = self.num_suspects, self.num_weapons
        return (range(s), range(s, s + w), range(s + w, self.num_cards))

    def category(self, card: int) -> int:
        """0 for a suspect card, 1 for a weapon card, 2 for a room card.

        Raises:
            ValueError: If ``card`` is not a card id of this deck.
        """
        if not isinstance(card, (int, np.integer)) or not 0 <= card < self.num_cards:
            raise ValueError(f"card must be an int in [0, {self.num_cards}), got {card!r}")
        return int(card >= self.num_suspects) + int(card >= self.num_suspects + self.num_weapons)


@dataclass(frozen=True)
class Setup:
    """Who holds how many cards in one game.

    Attributes:
        deck: The cards.
        num_players: Number of players ``P``; owner ``P`` is the envelope.
        hand_sizes: Number of cards dealt to each player.
        num_face_down: Cards lying face down on rooms (duel variant); when
            positive, owner ``P + 1`` is this table.
    """

    deck: Deck
    num_players: int
    hand_sizes: tuple[int, ...]
    num_face_down: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.num_players, (int, np.integer)) or self.num_players < 1:
            raise ValueError(f"num_players must be an int >= 1, got {self.num_players!r}")
        if not isinstance(self.num_face_down, (int, np.integer)) or self.num_face_down < 0:
            raise ValueError(f"num_face_down must be an int >= 0, got {self.num_face_down!r}")
        object.__setattr__(self, "num_players", int(self.num_players))
        object.__setattr__(self, "num_face_down", int(self.num_face_down))
        object.__setattr__(self, "hand_sizes", tuple(int(h) for h in self.hand_sizes))
        if len(self.hand_sizes) != self.num_players:
            raise ValueError(
                f"hand_sizes must have one entry per player ({self.num_players}), got {self.hand_sizes}"
            )
        if min(self.hand_sizes) < 0:
            raise ValueError(f"hand_sizes must be >= 0, got {self.hand_sizes}")
        dealt = sum(self.hand_sizes) + self.num_face_down + len(CATEGORY_NAMES)
        if dealt != self.deck.num_cards:
            raise ValueError(
                f"hand_sizes {self.hand_sizes} + {self.num_face_down} face down + 3 in the envelope "
                f"= {dealt} cards, but the deck has {self.deck.num_cards}"
            )

    @classmethod
    def dealt(cls, deck: Deck, num_players: int, num_face_down: int = 0) -> Setup:
        """The set-up of dealing one by one from player 0: the first players may get one card more.

        Args:
            deck: The cards.
            num_players: Number of players.
            num_face_down: Cards put face down on rooms before the deal (duel variant).
        """
        if not isinstance(num_players, int) or num_players < 1:
            raise ValueError(f"num_players must be an int >= 1, got {num_players!r}")
        rest = deck.num_cards - len(CATEGORY_NAMES) - num_face_down
        base, extra = divmod(rest, num_players)
        hands = tuple(base + (p < extra) for p in range(num_players))
        return cls(deck, num_players, hands, num_face_down)

    @property
    def envelope(self) -> int:
        """Owner index of the envelope."""
        return self.num_players

    @property
    def table(self) -> int | None:
        """Owner index of the face-down cards, or None when there are none."""
        return self.num_players + 1 if self.num_face_down > 0 else None

    @property
    def num_owners(self) -> int:
        """Players, the envelope, and the table when there is one."""
        return self.num_players + 1 + (self.num_face_down > 0)

    def owner_name(self, owner: int) -> str:
        """``"player 2"``, ``"envelope"`` or ``"table"``."""
        self.check_owner(owner)
        if owner < self.num_players:
            return f"player {owner}"
        return "envelope" if owner == self.envelope else "table"

    def owner_size(self, owner: int) -> int:
        """How many cards the owner holds."""
        self.check_owner(owner)
        if owner < self.num_players:
            return self.hand_sizes[owner]
        return len(CATEGORY_NAMES) if owner == self.envelope else self.num_face_down

    def check_player(self, player: int, what: str = "player") -> None:
        """Raises ValueError unless ``player`` is a player index."""
        if not isinstance(player, (int, np.integer)) or not 0 <= player < self.num_players:
            raise ValueError(f"{what} must be a player in [0, {self.num_players}), got {player!r}")

    def check_owner(self, owner: int) -> None:
        """Raises ValueError unless ``owner`` is an owner index."""
        if not isinstance(owner, (int, np.integer)) or not 0 <= owner < self.num_owners:
            raise ValueError(
                f"owner must be in [0, {self.num_owners}) (players, {self.envelope} = envelope"
                + (f", {self.table} = table" if self.table is not None else "")
                + f"), got {owner!r}"
            )


# ---------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------


def _ints(values: Iterable[int]) -> tuple[int, ...]:
    return tuple(int(v) for v in values)


@dataclass(frozen=True)
class OwnHand:
    """The observer's own hand.

    Attributes:
        player: The observer.
        cards: All the cards dealt to them.
    """

    player: int
    cards: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", _ints(self.cards))


@dataclass(frozen=True)
class Suggestion:
    """A suggestion and the answers to it.

    Attributes:
        suggester: The player who suggested.
        cards: The suspect, weapon and room named (one of each category).
        passed: The players asked who said they hold none, in the order asked:
            clockwise from the suggester's left, so ``suggester + 1, suggester
            + 2, ...`` (mod the number of players). Never the suggester, who is
            not asked.
        shown_by: The player who showed a card: the one asked right after the
            last in ``passed``. None if nobody showed (``passed`` then lists
            every other player), or while the answer is still pending (the
            refuter is deciding; ``passed`` lists the passes announced so far,
            which are facts already).
        shown_card: The card shown, when the observer saw it (the observer is
            the suggester or the refuter); None otherwise.
    """

    suggester: int
    cards: tuple[int, int, int]
    passed: tuple[int, ...] = ()
    shown_by: int | None = None
    shown_card: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", _ints(self.cards))
        object.__setattr__(self, "passed", _ints(self.passed))
        if self.shown_by is not None:
            object.__setattr__(self, "shown_by", int(self.shown_by))
        if self.shown_card is not None:
            object.__setattr__(self, "shown_card", int(self.shown_card))


@dataclass(frozen=True)
class Accusation:
    """An accusation and whether it was right.

    Attributes:
        player: The accuser.
        cards: The suspect, weapon and room named (one of each category).
        correct: Whether they are the envelope's three cards.
    """

    player: int
    cards: tuple[int, int, int]
    correct: bool

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", _ints(self.cards))
        # bool("false") is True: only a boolean (or the 0/1 of an event row) says which.
        flag = self.correct
        if not isinstance(flag, (bool, np.bool_)) and not (
            isinstance(flag, (int, np.integer)) and flag in (0, 1)
        ):
            raise TypeError(f"correct must be True or False (or 1 or 0), got {flag!r}")
        object.__setattr__(self, "correct", bool(flag))


@dataclass(frozen=True)
class Seen:
    """The observer saw where a card lies.

    Attributes:
        card: The card.
        owner: Its owner: a player who showed it, ``Setup.table`` for a
            face-down card looked at (duel), ``Setup.envelope`` for a solution
            revealed.
    """

    card: int
    owner: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "card", int(self.card))
        object.__setattr__(self, "owner", int(self.owner))


Record = OwnHand | Suggestion | Accusation | Seen
RECORD_TYPES = (OwnHand, Suggestion, Accusation, Seen)


def _check_triple(setup: Setup, cards: tuple[int, ...], what: str) -> None:
    if len(cards) != len(CATEGORY_NAMES):
        raise ValueError(f"{what} must name 3 cards, got {cards}")
    categories = sorted(setup.deck.category(c) for c in cards)
    if categories != [0, 1, 2]:
        raise ValueError(f"{what} must name one suspect, one weapon and one room, got cards {cards}")


def _asking_order(setup: Setup, suggester: int) -> tuple[int, ...]:
    """The players asked to refute a suggestion, in order: clockwise from the suggester's left."""
    return tuple((suggester + k) % setup.num_players for k in range(1, setup.num_players))


def _check_refutation_order(setup: Setup, record: Suggestion) -> None:
    """Players are asked clockwise from the suggester's left; the first who can refute shows, the rest are not asked."""
    order = _asking_order(setup, record.suggester)
    asked = record.passed + (() if record.shown_by is None else (record.shown_by,))
    if asked != order[: len(asked)]:
        raise ValueError(
            f"impossible refutation order for a suggestion by player {record.suggester}: "
            f"passed={record.passed}, shown_by={record.shown_by}; players are asked in the order "
            f"{order}, so passed must be the first of them in that order and shown_by the one asked next"
        )


def check_record(setup: Setup, observer: int, record: Record) -> None:
    """Checks that ``record`` is one that ``observer`` may have in this set-up.

    Raises:
        ValueError: Naming the bad field and what would be accepted.
        TypeError: If ``record`` is not one of ``RECORD_TYPES``.
    """
    setup.check_player(observer, "observer")
    if isinstance(record, OwnHand):
        if record.player != observer:
            raise ValueError(
                f"OwnHand of player {record.player} given to observer {observer}; "
                "another player's card is a Seen record"
            )
        for card in record.cards:
            setup.deck.category(card)
        if len(set(record.cards)) != len(record.cards):
            raise ValueError(f"OwnHand cards must be distinct, got {record.cards}")
        if len(record.cards) != setup.hand_sizes[observer]:
            raise ValueError(
                f"player {observer} was dealt {setup.hand_sizes[observer]} cards, "
                f"OwnHand lists {len(record.cards)}: {record.cards}"
            )
    elif isinstance(record, Suggestion):
        setup.check_player(record.suggester, "suggester")
        _check_triple(setup, record.cards, "a suggestion")
        for player in record.passed:
            setup.check_player(player, "a passing player")
        if len(set(record.passed)) != len(record.passed):
            raise ValueError(f"passed lists a player twice: {record.passed}")
        if record.suggester in record.passed:
            raise ValueError(
                f"the suggester ({record.suggester}) is not asked, so cannot pass; passed={record.passed}"
            )
        if record.shown_by is not None:
            setup.check_player(record.shown_by, "shown_by")
            if record.shown_by == record.suggester or record.shown_by in record.passed:
                raise ValueError(
                    f"shown_by ({record.shown_by}) must be a player asked who did not pass, "
                    f"not the suggester {record.suggester} or one of passed={record.passed}"
                )
        _check_refutation_order(setup, record)
        if record.shown_card is not None:
            if record.shown_by is None:
                raise ValueError(f"shown_card {record.shown_card} given without shown_by")
            if record.shown_card not in record.cards:
                raise ValueError(f"shown_card {record.shown_card} is not one of the named {record.cards}")
            if observer not in (record.suggester, record.shown_by):
                raise ValueError(
                    f"observer {observer} cannot know the card shown by {record.shown_by} to "
                    f"{record.suggester}; give shown_card=None"
                )
    elif isinstance(record, Accusation):
        setup.check_player(record.player, "accuser")
        _check_triple(setup, record.cards, "an accusation")
    elif isinstance(record, Seen):
        setup.deck.category(record.card)
        setup.check_owner(record.owner)
    else:
        raise TypeError(f"unknown record {record!r}; records are {[t.__name__ for t in RECORD_TYPES]}")


# ---------------------------------------------------------------------------
# Knowledge
# ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Knowledge:
    """What is entailed about every (card, owner) pair.

    Attributes:
        setup: The game's set-up.
        status: ``int8[num_cards, num_owners]``: ``HELD`` (1) if the owner surely
            holds the card, ``NOT_HELD`` (0) if surely not, ``UNKNOWN`` (-1)
            otherwise. Read-only.
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
        return int(owners[0]) if len(owners) else None

    def possible_owners(self, card: int) -> tuple[int, ...]:
        """The owners not ruled out for the card."""
        self.setup.deck.category(card)
        return tuple(int(o) for o in np.flatnonzero(self.status[card] != NOT_HELD))

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
        """Every entailed fact as ``(card, owner, holds)``, by card then owner."""
        cards, owners = np.nonzero(self.status != UNKNOWN)
        return [(int(c), int(o), bool(self.status[c, o] == HELD)) for c, o in zip(cards, owners)]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Knowledge):
            return NotImplemented
        return self.setup == other.setup and np.array_equal(self.status, other.status)

    __hash__ = None  # type: ignore[assignment]


# ---------------------------------------------------------------------------
# Notepad: incremental SAT knowledge of one observer
# ---------------------------------------------------------------------------


class Notepad:
    """The incremental SAT knowledge of one observer.

    One boolean variable per (card, owner), keyed ``("holds", card, owner)`` in
    an ``IDPool``; these take ids ``1 .. num_cards * num_owners`` in card-major
    order. The solver is kept between records: ``add`` only adds clauses, and
    facts once entailed stay entailed, so they are cached and fed back to the
    solver as unit clauses.

    Use as a context manager, or call ``close`` to free the solver. Pickling
    keeps the set-up, the observer and the records and rebuilds the solver.

    Example:
        >>> setup = Setup.dealt(Deck(6, 6, 9), num_players=4)
        >>> with Notepad(setup, observer=0) as pad:
        ...     pad.add(OwnHand(0, (0, 6, 12, 13, 14)))
        ...     pad.knowledge().owner_of(6)
        0
    """

    def __init__(
        self,
        setup: Setup,
        observer: int,
        records: Iterable[Record] = (),
        solver: str = DEFAULT_SOLVER,
    ) -> None:
        """Builds the notepad of ``observer``, knowing only the set-up, then adds ``records``.

        Args:
            setup: The game's set-up.
            observer: The player whose knowledge this is.
            records: Records to add at once.
            solver: A pysat solver name. Solvers with native cardinality constraints
                (minicard, gluecard3, gluecard4) take them as such; for the others
                they are encoded into clauses with ``CardEnc``.
        """
        setup.check_player(observer, "observer")
        self._setup = setup
        self._observer = int(observer)
        self._solver_name = solver
        self._records: list[Record] = []
        num_cards, num_owners = setup.deck.num_cards, setup.num_owners
        self._pool = IDPool()
        self._var = np.array(
            [[self._pool.id(("holds", c, o)) for o in range(num_owners)] for c in range(num_cards)],
            dtype=np.int64,
        )
        self._status = np.full((num_cards, num_owners), UNKNOWN, dtype=np.int8)
        self._knowledge: Knowledge | None = None
        self._solver: Solver | None = Solver(name=solver)
        self._add_deal_constraints(self._solver)
        for record in records:
            self.add(record)

    # -- clauses -------------------------------------------------------------

    def variable(self, card: int, owner: int) -> int:
        """The solver variable of "``owner`` holds ``card``"."""
        return int(self._var[card, owner])

    def _add_exactly(self, solver: Solver, variables: np.ndarray, bound: int) -> None:
        """Exactly ``bound`` of ``variables`` are true: native cardinality if the solver has it."""
        lits = [int(v) for v in variables]
        if solver.supports_atmost():
            solver.add_atmost(lits, bound)
            solver.add_atmost([-v for v in lits], len(lits) - bound)
            return
        encoding = EncType.pairwise if bound == 1 and len(lits) <= 8 else EncType.seqcounter
        for clause in CardEnc.equals(lits, bound, vpool=self._pool, encoding=encoding).clauses:
            solver.add_clause(clause)

    def _add_deal_constraints(self, solver: Solver) -> None:
        """What every deal satisfies, whatever was observed."""
        setup = self._setup
        for card in range(setup.deck.num_cards):  # each card in exactly one place
            self._add_exactly(solver, self._var[card], 1)
        for cards in setup.deck.categories:  # one card of each category in the envelope
            self._add_exactly(solver, self._var[list(cards), setup.envelope], 1)
        for owner in range(setup.num_owners):  # exact hand sizes (and table size)
            if owner != setup.envelope:
                self._add_exactly(solver, self._var[:, owner], setup.owner_size(owner))

    def _record_clauses(self, record: Record) -> list[list[int]]:
        var = self._var
        if isinstance(record, OwnHand):
            hand = set(record.cards)
            return [[int(var[c, record.player]) * (1 if c in hand else -1)] for c in range(len(var))]
        if isinstance(record, Suggestion):
            # Only the players asked answer: nothing is said about the suggester's cards.
            clauses = [[-int(var[c, p])] for p in record.passed for c in record.cards]
            if record.shown_by is not None:
                clauses.append([int(var[c, record.shown_by]) for c in record.cards])
            if record.shown_card is not None:
                clauses.append([int(var[record.shown_card, record.shown_by])])
            return clauses
        if isinstance(record, Accusation):
            envelope = self._setup.envelope
            if record.correct:
                return [[int(var[c, envelope])] for c in record.cards]
            return [[-int(var[c, envelope]) for c in record.cards]]
        return [[int(var[record.card, record.owner])]]  # Seen

    # -- public API ----------------------------------------------------------

    @property
    def setup(self) -> Setup:
        """The game's set-up."""
        return self._setup

    @property
    def observer(self) -> int:
        """The player whose knowledge this is."""
        return self._observer

    @property
    def records(self) -> tuple[Record, ...]:
        """The records added so far, in order."""
        return tuple(self._records)

    def add(self, record: Record) -> None:
        """Adds one record's clauses.

        Raises:
            ValueError: If the record is malformed or one the observer cannot have.
        """
        solver = self._open_solver()
        check_record(self._setup, self._observer, record)
        for clause in self._record_clauses(record):
            solver.add_clause(clause)
        self._records.append(record)
        self._knowledge = None

    def knowledge(self) -> Knowledge:
        """Every fact entailed by the set-up and the records so far (cached until the next ``add``).

        Raises:
            ValueError: If no deal is consistent with the records.
        """
        if self._knowledge is None:
            self._knowledge = Knowledge(self._setup, self._entail())
        return self._knowledge

    def close(self) -> None:
        """Frees the solver; the notepad cannot be used afterwards."""
        solver = getattr(self, "_solver", None)  # None also when __init__ failed early
        if solver is not None:
            solver.delete()
            self._solver = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:
        return {
            "setup": self._setup,
            "observer": self._observer,
            "records": tuple(self._records),
            "solver": self._solver_name,
        }

    def __setstate__(self, state: Mapping[str, Any]) -> None:
        self.__init__(state["setup"], state["observer"], state["records"], state["solver"])

    def __repr__(self) -> str:
        return f"Notepad(observer={self._observer}, records={len(self._records)}, setup={self._setup})"

    # -- entailment ----------------------------------------------------------

    def _open_solver(self) -> Solver:
        if self._solver is None:
            raise ValueError("this Notepad is closed")
        return self._solver

    def _learn(self, solver: Solver, literal: int, candidates: set[int]) -> None:
        """Records an entailed literal, and feeds it back to the solver to prune later searches."""
        num_owners = self._setup.num_owners
        card, owner = divmod(abs(literal) - 1, num_owners)
        if literal > 0:
            self._status[card] = NOT_HELD
            self._status[card, owner] = HELD
            candidates.difference_update(-int(v) for v in self._var[card])
        else:
            self._status[card, owner] = NOT_HELD
        candidates.discard(literal)
        solver.add_clause([literal])

    def _entail(self) -> np.ndarray:
        """Backbone of the formula restricted to the (card, owner) variables.

        A literal false in some model cannot be entailed, so the candidates
        are the literals true in every model found so far; each is tested by
        one solve under the negating assumption. The solver is told to prefer
        falsifying the candidates, so that every model found on the way rules
        out as many as it can. "Holds" candidates go first: one entailed owner
        also settles the card's other owners.
        """
        solver = self._open_solver()
        if not solver.solve():
            raise ValueError(
                f"no deal is consistent with the {len(self._records)} records of observer {self._observer}"
            )
        model = solver.get_model()
        unknown = np.flatnonzero(self._status.reshape(-1) == UNKNOWN)
        candidates = {
            model[i] for i in unknown.tolist()
        }  # holds variables are ids 1..n, so model[i] = +-(i+1)
        while candidates:
            literal = max(candidates)
            solver.set_phases([-lit for lit in candidates])
            if solver.solve(assumptions=[-literal]):
                model = solver.get_model()
                candidates = {lit for lit in candidates if model[abs(lit) - 1] == lit}
            else:
                self._learn(solver, literal, candidates)
        return self._status.copy()


def deduce(setup: Setup, observer: int, records: Iterable[Record]) -> Knowledge:
    """Everything ``observer`` can deduce from ``records`` (a one-shot ``Notepad``).

    Raises:
        ValueError: If a record is malformed or no deal is consistent with them.
    """
    with Notepad(setup, observer, records) as pad:
        return pad.knowledge()


# ---------------------------------------------------------------------------
# Brute force: the reference that tests compare the Notepad against
# ---------------------------------------------------------------------------


def _count_deals(setup: Setup) -> int:
    envelopes = math.prod(setup.deck.sizes)
    rest = setup.deck.num_cards - len(CATEGORY_NAMES)
    hands = math.factorial(rest)
    for owner in range(setup.num_owners):
        if owner != setup.envelope:
            hands //= math.factorial(setup.owner_size(owner))
    return envelopes * hands


@lru_cache(maxsize=8)
def _all_deals(setup: Setup) -> np.ndarray:
    """``int8[deals, cards]``: the owner of every card, for every possible deal."""
    others = [o for o in range(setup.num_owners) if o != setup.envelope]

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


def _agrees(deals: np.ndarray, setup: Setup, record: Record) -> np.ndarray:
    """``bool[deals]``: which deals could have produced the record."""
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
    deals = _all_deals(setup)
    for record in records:
        deals = deals[_agrees(deals, setup, record)]
    if len(deals) == 0:
        raise ValueError(f"no deal is consistent with the {len(records)} records of observer {observer}")
    status = np.full((setup.deck.num_cards, setup.num_owners), UNKNOWN, dtype=np.int8)
    for owner in range(setup.num_owners):
        holds = deals == owner
        status[holds.all(axis=0), owner] = HELD
        status[~holds.any(axis=0), owner] = NOT_HELD
    return Knowledge(setup, status)


# ---------------------------------------------------------------------------
# Card names
# ---------------------------------------------------------------------------


def _fold(name: str) -> str:
    """Case-, accent- and spacing-insensitive form of a card name ("Clé anglaise" ~ "cle  ANGLAISE")."""
    decomposed = unicodedata.normalize("NFKD", name)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(bare.casefold().split())


class _CardNames:
    """Card names of one edition <-> card ids."""

    def __init__(self, suspects: Sequence[str], weapons: Sequence[str], rooms: Sequence[str]) -> None:
        self.deck = Deck(len(suspects), len(weapons), len(rooms))
        self.names = tuple(suspects) + tuple(weapons) + tuple(rooms)
        self._ids: dict[str, int] = {}
        for card, name in enumerate(self.names):
            key = _fold(name)
            if key in self._ids:
                raise ValueError(f"card names {self.names[self._ids[key]]!r} and {name!r} are the same name")
            self._ids[key] = card

    def card(self, name: str) -> int:
        if not isinstance(name, str) or _fold(name) not in self._ids:
            raise ValueError(f"unknown card name {name!r}; accepted names are {list(self.names)}")
        return self._ids[_fold(name)]

    def triple(self, names: Sequence[str], what: str) -> tuple[int, int, int]:
        if isinstance(names, str) or len(names) != len(CATEGORY_NAMES):
            raise ValueError(f"{what} must name a suspect, a weapon and a room, got {names!r}")
        return tuple(sorted(self.card(n) for n in names))


def _owner_index(setup: Setup, owner: int | str) -> int:
    if isinstance(owner, str):
        names = {_fold(setup.owner_name(o)): o for o in range(setup.num_owners)}
        if _fold(owner) not in names:
            raise ValueError(
                f"unknown owner {owner!r}; owners are {[setup.owner_name(o) for o in names.values()]}"
            )
        return names[_fold(owner)]
    setup.check_owner(owner)
    return int(owner)


# The history schema of ``deduce_named``: per kind of entry, its required keys (the kind's own
# key first) and its optional ones. Anything else in an entry is an error, never ignored.
_HISTORY_KEYS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "hand": (("hand",), ()),
    "suggest": (("suggest", "by"), ("passed", "shown_by", "card")),
    "accuse": (("accuse", "by", "correct"), ()),
    "seen": (("seen", "owner"), ()),
}
_HISTORY_FORMS = {
    "hand": '{"hand": [names]}',
    "suggest": '{"suggest": [suspect, weapon, room], "by": p, "passed": [players], "shown_by": q | None, '
    '"card": name | None}',
    "accuse": '{"accuse": [suspect, weapon, room], "by": p, "correct": true | false}',
    "seen": '{"seen": name, "owner": p | "player 2" | "envelope" | "table"}',
}


def _player(setup: Setup, value: Any, what: str) -> int:
    """A player index written in a history: an int (not a bool) in ``[0, num_players)``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be a player index (an int in [0, {setup.num_players})), got {value!r}")
    setup.check_player(value, what)
    return int(value)


def _list(value: Any, what: str) -> list[Any]:
    """A list written in a history (a JSON array; a tuple is fine too, a string is not)."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        raise TypeError(f"{what} must be a list, got {value!r}")
    return list(value)


def _named_record(entry: Any, cards: _CardNames, setup: Setup, observer: int) -> Record:
    """The record of one history entry of ``deduce_named``, its schema checked strictly."""
    if not isinstance(entry, Mapping):
        raise TypeError(f"an entry must be a dict; accepted forms: {list(_HISTORY_FORMS.values())}")
    kinds = [kind for kind in _HISTORY_KEYS if kind in entry]
    if len(kinds) != 1:
        found = f"several kinds {kinds}" if kinds else "no kind"
        raise ValueError(
            f"an entry must be exactly one of {list(_HISTORY_KEYS)}, found {found}; "
            f"accepted forms: {list(_HISTORY_FORMS.values())}"
        )
    kind = kinds[0]
    required, optional = _HISTORY_KEYS[kind]
    unknown = [key for key in entry if key not in required + optional]
    missing = [key for key in required if key not in entry]
    if unknown or missing:
        problem = f"unknown keys {unknown}" if unknown else f"missing keys {missing}"
        raise ValueError(
            f"{problem} in a {kind!r} entry; it takes {list(required)}"
            + (f" and optionally {list(optional)}" if optional else "")
            + f": {_HISTORY_FORMS[kind]}"
        )
    if kind == "hand":
        return OwnHand(observer, tuple(cards.card(name) for name in _list(entry["hand"], '"hand"')))
    if kind == "suggest":
        suggester = _player(setup, entry["by"], '"by"')
        passed = tuple(
            _player(setup, p, 'a player in "passed"') for p in _list(entry.get("passed", []), '"passed"')
        )
        shown_by = entry.get("shown_by")
        shown_by = None if shown_by is None else _player(setup, shown_by, '"shown_by"')
        order = _asking_order(setup, suggester)
        if shown_by is None and passed != order:
            raise ValueError(
                f'nobody showed a card ("shown_by" is None), so every other player was asked and passed: '
                f'"passed" must be {list(order)} (asked clockwise from player {suggester}), got {list(passed)}'
            )
        shown = entry.get("card")
        return Suggestion(
            suggester=suggester,
            cards=cards.triple(entry["suggest"], "a suggestion"),
            passed=passed,
            shown_by=shown_by,
            shown_card=None if shown is None else cards.card(shown),
        )
    if kind == "accuse":
        correct = entry["correct"]
        if not isinstance(correct, (bool, np.bool_)):
            raise TypeError(f'"correct" must be true or false, got {correct!r}')
        return Accusation(
            _player(setup, entry["by"], '"by"'), cards.triple(entry["accuse"], "an accusation"), correct
        )
    owner = entry["owner"]
    if isinstance(owner, (bool, np.bool_)):
        raise TypeError(f'"owner" must be an owner index or name, got {owner!r}')
    return Seen(cards.card(entry["seen"]), _owner_index(setup, owner))


def deduce_named(
    suspects: Sequence[str],
    weapons: Sequence[str],
    rooms: Sequence[str],
    num_players: int,
    hand_sizes: Sequence[int],
    observer: int,
    history: Iterable[Mapping[str, Any]],
    *,
    num_face_down: int = 0,
) -> dict[str, Any]:
    """What ``observer`` can deduce from a history written with card names (any edition).

    The history is a list of entries (JSON-ready dicts), each of exactly one kind:

    =============================================  ===============================================
    entry                                          meaning
    =============================================  ===============================================
    ``{"hand": [names]}``                          the observer's own hand, all of it
    ``{"suggest": [suspect, weapon, room],``       player ``p`` suggested these three cards;
    ``"by": p, "passed": [players],``              ``passed``: the players asked who held none,
    ``"shown_by": q, "card": name}``               in the order asked; ``shown_by``: who showed
                                                   a card; ``card``: the card shown, when the
                                                   observer saw it (it is ``p`` or ``q``)
    ``{"accuse": [suspect, weapon, room],``        player ``p`` accused; ``correct`` is JSON
    ``"by": p, "correct": true | false}``          ``true`` or ``false`` (not a string)
    ``{"seen": name, "owner": o}``                 the observer saw where the card lies; ``o``
                                                   is a player index or ``"player 2"``,
                                                   ``"envelope"`` or ``"table"``
    =============================================  ===============================================

    Players are indices ``0 .. num_players - 1`` in seat order (clockwise).
    In a suggestion, ``passed`` (default ``[]``), ``shown_by`` and ``card``
    (default ``None``) are optional, and the answers follow the rules: players
    are asked clockwise from the suggester's left, so ``passed`` is ``p + 1, p
    + 2, ...`` (mod ``num_players``) up to the player before ``shown_by``; when
    nobody showed (``shown_by`` is ``None``), every other player passed and
    ``passed`` lists them all. Card names match case-, accent- and
    spacing-insensitively. Any other key, a missing key, two kinds in one entry,
    a value of the wrong type or an impossible answer is an error naming the
    entry; nothing is ignored.

    Args:
        suspects: Suspect names (card ids follow this order).
        weapons: Weapon names.
        rooms: Room names.
        num_players: Number of players.
        hand_sizes: Cards dealt to each player.
        observer: The player whose knowledge is asked for.
        history: The observer's records, as above, in the order they happened.
        num_face_down: Cards face down on rooms (duel variant).

    Returns:
        ``{"holds": {card: owner}, "not_held": {card: [owners]}, "envelope":
        {"suspects": [...], "weapons": [...], "rooms": [...]}, "solution":
        [suspect, weapon, room] or None}``. Owners are named ``"player 2"``,
        ``"envelope"`` or ``"table"``; ``holds`` lists the cards whose owner is
        known, ``not_held`` the owners ruled out for the other cards, and
        ``envelope`` the candidates left in each category.

    Raises:
        ValueError: Naming a bad card name (and the accepted ones), or the
            index and content of a bad entry and what is accepted; also when no
            deal is consistent with the history.
        TypeError: If the history is not a list of dicts, or a value of an
            entry has the wrong type (naming the entry).

    Example:
        >>> result = deduce_named(
        ...     ["Scarlet", "Mustard", "White"], ["Rope", "Knife"], ["Hall", "Den", "Attic"],
        ...     num_players=3, hand_sizes=[2, 2, 1], observer=0,
        ...     history=[
        ...         {"hand": ["Scarlet", "Rope"]},
        ...         {"suggest": ["Mustard", "Rope", "Hall"], "by": 0, "passed": [1, 2]},
        ...     ],
        ... )
        >>> result["holds"]["Mustard"], result["solution"]
        ('envelope', ['Mustard', 'Knife', 'Hall'])
    """
    cards = _CardNames(suspects, weapons, rooms)
    setup = Setup(cards.deck, num_players, tuple(hand_sizes), num_face_down)
    setup.check_player(observer, "observer")
    if isinstance(history, (str, bytes, Mapping)) or not isinstance(history, Iterable):
        raise TypeError(f"history must be a list of entries (dicts), got {history!r}")
    records = []
    for index, entry in enumerate(history):
        try:
            record = _named_record(entry, cards, setup, observer)
            check_record(setup, observer, record)
        except (TypeError, ValueError) as error:
            raise type(error)(f"history entry {index} {entry!r}: {error}") from None
        records.append(record)
    knowledge = deduce(setup, observer, records)
    holds, not_held = {}, {}
    for card, name in enumerate(cards.names):
        owner = knowledge.owner_of(card)
        if owner is not None:
            holds[name] = setup.owner_name(owner)
        else:
            ruled_out = np.flatnonzero(knowledge.status[card] == NOT_HELD)
            if len(ruled_out):
                not_held[name] = [setup.owner_name(int(o)) for o in ruled_out]
    candidates = knowledge.envelope_candidates()
    solution = knowledge.solved()
    return {
        "holds": holds,
        "not_held": not_held,
        "envelope": {field: [cards.names[c] for c in ids] for field, ids in zip(CATEGORY_NAMES, candidates)},
        "solution": None if solution is None else [cards.names[c] for c in solution],
    }
