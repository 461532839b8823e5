"""Records: what an observer may have noted (``OwnHand``, ``Suggestion``, ``Accusation``, ``Seen``) and ``check_record``.

A record's players and cards must be integers, Python or numpy ones (not bools), kept as Python
ints; its constructor raises ``ValueError`` naming the field and the value otherwise (a float or a
string is not rounded or read into a card id). ``check_record`` checks them against a ``Setup``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from cluedo_env.inference.cards import CATEGORY_NAMES, Setup, is_whole


def _int(value: int, field: str, meaning: str) -> int:
    """``value`` as a Python int; a ValueError naming ``field`` if it is no integer (a float, a
    string, a bool), which ``int()`` would have turned silently into another card or player."""
    if not is_whole(value):
        raise ValueError(f"{field} must be an int ({meaning}), got {value!r}")
    return int(value)


def _ints(values: Iterable[int], field: str, meaning: str) -> tuple[int, ...]:
    """``values`` as a tuple of Python ints, each checked as ``_int`` checks one."""
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise ValueError(f"{field} must be a sequence of ints ({meaning}), got {values!r}")
    values = tuple(values)
    for value in values:
        if not is_whole(value):
            raise ValueError(f"{field} must hold ints ({meaning}), got {value!r} in {values!r}")
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
        object.__setattr__(self, "player", _int(self.player, "OwnHand.player", "a player"))
        object.__setattr__(self, "cards", _ints(self.cards, "OwnHand.cards", "card ids"))


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
        object.__setattr__(self, "suggester", _int(self.suggester, "Suggestion.suggester", "a player"))
        object.__setattr__(self, "cards", _ints(self.cards, "Suggestion.cards", "card ids"))
        object.__setattr__(self, "passed", _ints(self.passed, "Suggestion.passed", "players"))
        if self.shown_by is not None:
            shown_by = _int(self.shown_by, "Suggestion.shown_by", "a player or None")
            object.__setattr__(self, "shown_by", shown_by)
        if self.shown_card is not None:
            shown = _int(self.shown_card, "Suggestion.shown_card", "a card id or None")
            object.__setattr__(self, "shown_card", shown)


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
        object.__setattr__(self, "player", _int(self.player, "Accusation.player", "a player"))
        object.__setattr__(self, "cards", _ints(self.cards, "Accusation.cards", "card ids"))
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
        owner: Its owner code: a player who showed it, ``Setup.table`` (-2) for a
            face-down card looked at (duel), ``Setup.envelope`` (-1) for a solution
            revealed.
    """

    card: int
    owner: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "card", _int(self.card, "Seen.card", "a card id"))
        object.__setattr__(self, "owner", _int(self.owner, "Seen.owner", "an owner code"))


Record = OwnHand | Suggestion | Accusation | Seen
RECORD_TYPES = (OwnHand, Suggestion, Accusation, Seen)


class RecordBook:
    """The records one observer has noted of one game, with the game's set-up.

    The base of what is built from records: ``Notepad`` (entailed knowledge) and
    ``cluedo_env.inference.beliefs.Beliefs`` (the posterior).

    Args:
        setup: The game's set-up.
        observer: The player who noted the records.

    Raises:
        ValueError: If ``observer`` is not a player of ``setup``.
    """

    def __init__(self, setup: Setup, observer: int) -> None:
        setup.check_player(observer, "observer")
        self._setup = setup
        self._observer = int(observer)
        self._records: list[Record] = []

    @property
    def setup(self) -> Setup:
        """The game's set-up."""
        return self._setup

    @property
    def observer(self) -> int:
        """The player who noted the records."""
        return self._observer

    @property
    def records(self) -> tuple[Record, ...]:
        """The records added so far, in order."""
        return tuple(self._records)


# How a message names cards: by their names where the caller has them (``check_record``'s ``names``).
_Said = Callable[[int | tuple[int, ...]], str]


def _naming(names: Sequence[str] | None) -> _Said:
    """How messages name a card or cards: by id (``12``, ``(1, 9, 13)``), or with ``names`` by name
    (``'Kitchen'``, ``['Colonel Mustard', 'Rope', 'Study']``; an id out of their range as it is)."""

    def name(card: object) -> object:
        return names[card] if is_whole(card) and 0 <= card < len(names) else card

    def said(cards: int | tuple[int, ...]) -> str:
        return repr(name(cards)) if is_whole(cards) else str([name(c) for c in cards])

    return str if names is None else said


def _check_triple(setup: Setup, cards: tuple[int, ...], what: str, said: _Said) -> None:
    if len(cards) != len(CATEGORY_NAMES):
        raise ValueError(f"{what} must name 3 cards, got {said(cards)}")
    categories = sorted(setup.deck.category(c) for c in cards)
    if categories != [0, 1, 2]:
        raise ValueError(f"{what} must name one suspect, one weapon and one room, got cards {said(cards)}")


def asking_order(setup: Setup, suggester: int) -> tuple[int, ...]:
    """The players asked to refute a suggestion, in order: clockwise from the suggester's left."""
    return tuple((suggester + k) % setup.num_players for k in range(1, setup.num_players))


def _check_refutation_order(setup: Setup, record: Suggestion) -> None:
    """Players are asked clockwise from the suggester's left; the first who can refute shows, the rest are not asked."""
    order = asking_order(setup, record.suggester)
    asked = record.passed + (() if record.shown_by is None else (record.shown_by,))
    if asked != order[: len(asked)]:
        raise ValueError(
            f"impossible refutation order for a suggestion by player {record.suggester}: "
            f"passed={record.passed}, shown_by={record.shown_by}; players are asked in the order "
            f"{order}, so passed must be the first of them in that order and shown_by the one asked next"
        )


def check_record(setup: Setup, observer: int, record: Record, names: Sequence[str] | None = None) -> None:
    """Checks that ``record`` is one that ``observer`` may have in this set-up.

    Args:
        names: The deck's card names, by id (``CardNames.names``): messages name cards by them (by id
            without).

    Raises:
        ValueError: Naming the bad field and what would be accepted.
        TypeError: If ``record`` is not one of ``RECORD_TYPES``.
    """
    setup.check_player(observer, "observer")
    check = next((check for kind, check in _CHECKS.items() if isinstance(record, kind)), None)
    if check is None:
        raise TypeError(f"unknown record {record!r}; records are {[t.__name__ for t in RECORD_TYPES]}")
    check(setup, observer, record, _naming(names))


def _check_accusation(setup: Setup, observer: int, record: Accusation, said: _Said) -> None:
    setup.check_player(record.player, "accuser")
    _check_triple(setup, record.cards, "an accusation", said)


def _check_seen(setup: Setup, observer: int, record: Seen, said: _Said) -> None:
    setup.deck.category(record.card)
    setup.check_owner(record.owner)


def _check_own_hand(setup: Setup, observer: int, record: OwnHand, said: _Said) -> None:
    if record.player != observer:
        raise ValueError(
            f"OwnHand of player {record.player} given to observer {observer}; "
            "another player's card is a Seen record"
        )
    for card in record.cards:
        setup.deck.category(card)
    if len(set(record.cards)) != len(record.cards):
        raise ValueError(f"OwnHand cards must be distinct, got {said(record.cards)}")
    if len(record.cards) != setup.hand_sizes[observer]:
        raise ValueError(
            f"player {observer} was dealt {setup.hand_sizes[observer]} cards, "
            f"OwnHand lists {len(record.cards)}: {said(record.cards)}"
        )


def _check_suggestion(setup: Setup, observer: int, record: Suggestion, said: _Said) -> None:
    setup.check_player(record.suggester, "suggester")
    _check_triple(setup, record.cards, "a suggestion", said)
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
    if record.shown_card is None:
        return
    if record.shown_by is None:
        raise ValueError(f"shown_card {said(record.shown_card)} given without shown_by")
    if record.shown_card not in record.cards:
        raise ValueError(f"shown_card {said(record.shown_card)} is not one of the named {said(record.cards)}")
    if observer not in (record.suggester, record.shown_by):
        raise ValueError(
            f"observer {observer} cannot know the card shown by {record.shown_by} to "
            f"{record.suggester}; give shown_card=None"
        )


_CHECKS = {
    Accusation: _check_accusation,
    Seen: _check_seen,
    OwnHand: _check_own_hand,
    Suggestion: _check_suggestion,
}
