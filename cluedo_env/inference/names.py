"""Card names: records written with names ("Colonel Mustard") for ``deduce_named``."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from cluedo_env.inference.cards import CATEGORY_NAMES, Deck, Setup
from cluedo_env.inference.deduction import deduce
from cluedo_env.inference.knowledge import NOT_HELD
from cluedo_env.inference.records import (
    Accusation,
    OwnHand,
    Record,
    Seen,
    Suggestion,
    asking_order,
    check_record,
)


def _fold(name: str) -> str:
    """Case-, accent- and spacing-insensitive form of a card name ("Clé anglaise" ~ "cle  ANGLAISE")."""
    decomposed = unicodedata.normalize("NFKD", name)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(bare.casefold().split())


class CardNames:
    """Card names of one edition <-> card ids.

    Args:
        suspects: Suspect names (card ids follow this order).
        weapons: Weapon names.
        rooms: Room names.

    Attributes:
        deck: The ``Deck`` of these cards.
        names: Every card's name, by card id.

    Raises:
        ValueError: If two names are the same once folded (case, accents, spacing).
    """

    def __init__(self, suspects: Sequence[str], weapons: Sequence[str], rooms: Sequence[str]) -> None:
        self.deck = Deck(len(suspects), len(weapons), len(rooms))
        self.names = tuple(suspects) + tuple(weapons) + tuple(rooms)
        self._ids: dict[str, int] = {}
        for card, name in enumerate(self.names):
            key = _fold(name)
            if key in self._ids:
                raise ValueError(f"card names {self.names[self._ids[key]]!r} and {name!r} are the same name")
            self._ids[key] = card
        self._exact = {name: card for card, name in enumerate(self.names)}  # the common case, unfolded

    def card(self, name: str) -> int:
        """The id of the card of this name (matched case-, accent- and spacing-insensitively).

        Raises:
            ValueError: If no card has this name, listing the accepted names.
        """
        if isinstance(name, str) and name in self._exact:
            return self._exact[name]
        if not isinstance(name, str) or _fold(name) not in self._ids:
            raise ValueError(f"unknown card name {name!r}; accepted names are {list(self.names)}")
        return self._ids[_fold(name)]

    def triple(self, names: Sequence[str], what: str) -> tuple[int, int, int]:
        """The sorted ids of three named cards (``what`` names them in errors: "a suggestion").

        Raises:
            ValueError: If ``names`` is not three card names.
        """
        if isinstance(names, str) or len(names) != len(CATEGORY_NAMES):
            raise ValueError(f"{what} must name a suspect, a weapon and a room, got {names!r}")
        return tuple(sorted(self.card(n) for n in names))


def _owner_index(setup: Setup, owner: int | str) -> int:
    if isinstance(owner, str):
        names = {_fold(setup.owner_name(o)): o for o in setup.owners}
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


def named_record(entry: Any, cards: CardNames, setup: Setup, observer: int) -> Record:
    """The record of one history entry of ``deduce_named``, its schema checked strictly.

    The entry is not checked against the set-up's rules (``check_record`` does that;
    ``named_records`` does both).

    Raises:
        TypeError: If the entry is not a dict or a value has the wrong type.
        ValueError: For a bad kind, key, card name or answer, naming what is accepted.
    """
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
        order = asking_order(setup, suggester)
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


def named_records(cards: CardNames, setup: Setup, observer: int, history: Any) -> list[Record]:
    """The records of a history written with card names (``deduce_named``'s), each checked.

    Raises:
        TypeError, ValueError: As ``named_record`` and ``check_record``, naming the entry's
            index and content.
    """
    setup.check_player(observer, "observer")
    if isinstance(history, (str, bytes, Mapping)) or not isinstance(history, Iterable):
        raise TypeError(f"history must be a list of entries (dicts), got {history!r}")
    records = []
    for index, entry in enumerate(history):
        try:
            record = named_record(entry, cards, setup, observer)
            check_record(setup, observer, record, cards.names)
        except (TypeError, ValueError) as error:
            raise type(error)(f"history entry {index} {entry!r}: {error}") from None
        records.append(record)
    return records


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
    cards = CardNames(suspects, weapons, rooms)
    setup = Setup(cards.deck, num_players, tuple(hand_sizes), num_face_down)
    records = named_records(cards, setup, observer, history)
    knowledge = deduce(setup, observer, records)
    holds, not_held = {}, {}
    for card, name in enumerate(cards.names):
        owner = knowledge.owner_of(card)
        if owner is not None:
            holds[name] = setup.owner_name(owner)
        else:
            ruled_out = np.flatnonzero(knowledge.status[card] == NOT_HELD)
            if len(ruled_out):
                not_held[name] = [setup.owner_name(setup.owners[o]) for o in ruled_out]
    candidates = knowledge.envelope_candidates()
    solution = knowledge.solved()
    return {
        "holds": holds,
        "not_held": not_held,
        "envelope": {field: [cards.names[c] for c in ids] for field, ids in zip(CATEGORY_NAMES, candidates)},
        "solution": None if solution is None else [cards.names[c] for c in solution],
    }
