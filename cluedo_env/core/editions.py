"""Card sets of the editions the project supports.

An edition names its suspects, weapons and rooms. Card ids are laid out
suspects first, then weapons, then rooms, so card ``c`` of an edition with
``S`` suspects and ``W`` weapons is a suspect when ``c < S``, a weapon when
``S <= c < S + W`` and a room otherwise. ``EDITIONS`` holds the shipped ones by name and is
read-only, so that a name means one deck; a deck of your own is an ``Edition`` given as a
config's ``edition``.

Suspects are listed in the order of their start squares around the classic
board (Scarlet, Mustard, White, Green, Peacock, Plum) and rooms in the order
of the classic board's rooms (Kitchen, Ballroom, Conservatory, Dining Room,
Billiard Room, Library, Lounge, Hall, Study), so every edition plays on the
same board. Nothing in the core assumes 6 suspects, 6 weapons or 9 rooms; the
classic board does need 6 suspects and 9 rooms, which ``GameConfig`` checks.

An ``Edition`` is checked when it is built (a custom one, or one read from a
replay): the compiled rules index arrays with its numbers without bounds checks,
so every name, count and room index is refused here, by name, before it can
reach them. Its names are printed as they are (transcripts, the replay, a language
model's text), so a name holding a control character (a newline, a tab, a terminal
escape, a bidi override) is refused too: it could forge a line or clear a screen.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

__all__ = ["CATEGORIES", "EDITIONS", "MAX_CARDS", "Edition", "control_character", "get_edition"]

CATEGORIES = ("suspects", "weapons", "rooms")
# The state counts a step's events (up to one per card: the deal's) and holds a weapon's room in
# int8 fields (``core/state.py``): an edition has at most 127 cards.
MAX_CARDS = 127
# What a printed name may not hold (``control_character``): the controls (Unicode category Cc, C0 and
# C1: newline, tab, escape), the format characters (Cf: bidi overrides and marks, zero-width spaces,
# tags, which turn text round or hide it) but the joiners and the soft hyphen that scripts need,
# lone surrogates (Cs), and the line and paragraph separators (Zl, Zp: ``str.splitlines`` breaks a
# line there).
_CONTROL_CATEGORIES = ("Cc", "Cf", "Cs", "Zl", "Zp")
_WRITING = frozenset("\u200c\u200d\u00ad")  # zero-width non-joiner and joiner, soft hyphen


@dataclass(frozen=True)
class Edition:
    """The cards of one edition of the game.

    Attributes:
        name: Key of the edition in ``EDITIONS``.
        suspects: Suspect names, in start-square order round the board.
        weapons: Weapon names.
        rooms: Room names, in the classic board's room order.
        weapon_start_rooms: For each weapon, the index of the room it starts in.

    Lists are taken for tuples (and numpy integers for ints). Anything the rules cannot play
    raises ``ValueError`` naming the field and the value: a name (the edition's or a card's)
    that is not a non-empty string or that holds a control character (``control_character``: a
    newline, a tab, an escape, a line separator, a bidi override; accented letters, other scripts
    and their zero-width joiners are fine), a
    category without cards (the envelope holds one of each), two cards of the same name
    (``card_id`` ignores case), more than ``MAX_CARDS`` cards, or ``weapon_start_rooms`` not
    one room index in ``[0, num_rooms)`` per weapon.
    """

    name: str
    suspects: tuple[str, ...]
    weapons: tuple[str, ...]
    rooms: tuple[str, ...]
    weapon_start_rooms: tuple[int, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"Edition name must be a non-empty string, got {self.name!r}")
        _check_printable("Edition name", self.name)
        where = f"Edition {self.name!r}"
        for category in CATEGORIES:
            names = _as_tuple(where, category, getattr(self, category))
            if not names:
                raise ValueError(
                    f"{where}: {category} must name at least one card (the envelope holds one of "
                    f"each category), got {names!r}"
                )
            for k, name in enumerate(names):
                if not isinstance(name, str) or not name.strip():
                    raise ValueError(f"{where}: {category}[{k}] must be a non-empty string, got {name!r}")
                _check_printable(f"{where}: {category}[{k}]", name)
            object.__setattr__(self, category, tuple(str(name) for name in names))
        if self.num_cards > MAX_CARDS:
            raise ValueError(
                f"{where}: an edition has at most {MAX_CARDS} cards, got {self.num_cards} "
                f"({self.num_suspects} suspects, {self.num_weapons} weapons, {self.num_rooms} rooms)"
            )
        first: dict[str, str] = {}
        for card in self.cards:
            if card.casefold() in first:
                raise ValueError(
                    f"{where}: card names must differ (ignoring case: card_id looks them up so), "
                    f"got {first[card.casefold()]!r} and {card!r}"
                )
            first[card.casefold()] = card
        starts = _as_tuple(where, "weapon_start_rooms", self.weapon_start_rooms)
        if len(starts) != self.num_weapons:
            raise ValueError(
                f"{where}: weapon_start_rooms must give one room per weapon ({self.num_weapons}), "
                f"got {len(starts)}: {starts!r}"
            )
        for k, room in enumerate(starts):
            if not isinstance(room, int | np.integer) or isinstance(room, bool):
                raise ValueError(
                    f"{where}: weapon_start_rooms[{k}] must be an integer room index, got {room!r}"
                )
            if not 0 <= room < self.num_rooms:
                raise ValueError(
                    f"{where}: weapon_start_rooms[{k}] (the {self.weapons[k]}) must be a room index "
                    f"in [0, {self.num_rooms}), got {room!r}"
                )
        object.__setattr__(self, "weapon_start_rooms", tuple(int(room) for room in starts))

    @property
    def num_suspects(self) -> int:
        return len(self.suspects)

    @property
    def num_weapons(self) -> int:
        return len(self.weapons)

    @property
    def num_rooms(self) -> int:
        return len(self.rooms)

    @property
    def num_cards(self) -> int:
        return len(self.cards)

    @property
    def cards(self) -> tuple[str, ...]:
        """All card names: suspects, then weapons, then rooms."""
        return self.suspects + self.weapons + self.rooms

    def category(self, card: int) -> int:
        """0 for a suspect card, 1 for a weapon card, 2 for a room card."""
        if not 0 <= card < self.num_cards:
            raise ValueError(f"card must be in [0, {self.num_cards}), got {card}")
        return int(card >= self.num_suspects) + int(card >= self.num_suspects + self.num_weapons)

    def card_id(self, name: str) -> int:
        """The id of the card called ``name`` (case-insensitive)."""
        lowered = [c.casefold() for c in self.cards]
        try:
            return lowered.index(name.casefold())
        except ValueError:
            raise ValueError(
                f"unknown card {name!r} in edition {self.name!r}; cards are {list(self.cards)}"
            ) from None


def control_character(text: str) -> int | None:
    """The position of the first character of ``text`` that would act or hide where it is printed (a
    control such as a newline, a tab or an escape; a format character such as a bidi override or mark, a
    zero-width space or a tag, but the zero-width joiners and the soft hyphen that scripts need; a lone
    surrogate; a line or paragraph separator), or None: the names of editions and the labels of agents
    hold none."""
    for position, char in enumerate(text):
        if unicodedata.category(char) in _CONTROL_CATEGORIES and char not in _WRITING:
            return position
    return None


def _check_printable(field: str, name: str) -> None:
    """``ValueError`` naming ``field``, ``name`` and its first ``control_character``."""
    position = control_character(name)
    if position is not None:
        raise ValueError(
            f"{field} must hold no control character (a newline, tab, escape, line separator or bidi "
            f"override), got {name!r} (U+{ord(name[position]):04X} at character {position})"
        )


def _as_tuple(where: str, field: str, value: object) -> tuple:
    """``value`` as a tuple if it is a tuple or a list (a string is refused: it is no list of names)."""
    if isinstance(value, tuple | list):
        return tuple(value)
    raise ValueError(f"{where}: {field} must be a tuple (or list), got {value!r}")


# Rooms of the classic board, in board order (see data/classic_board.txt).
_CLASSIC_ROOMS = (
    "Kitchen",
    "Ballroom",
    "Conservatory",
    "Dining Room",
    "Billiard Room",
    "Library",
    "Lounge",
    "Hall",
    "Study",
)
_FRENCH_ROOMS = (
    "Cuisine",
    "Salle de bal",
    "Véranda",
    "Salle à manger",
    "Salle de billard",
    "Bibliothèque",
    "Salon",
    "Hall",
    "Bureau",
)
# 1996 booklet: dagger Lounge, candlestick Dining Room, revolver Study,
# rope Ballroom, lead pipe Conservatory, wrench Kitchen.
_KITCHEN, _BALLROOM, _CONSERVATORY, _DINING, _BILLIARD, _LIBRARY, _LOUNGE, _HALL, _STUDY = range(9)

_CLASSIC = Edition(
    name="classic",
    suspects=(
        "Miss Scarlet",
        "Colonel Mustard",
        "Mrs White",
        "Reverend Green",
        "Mrs Peacock",
        "Professor Plum",
    ),
    weapons=("Candlestick", "Dagger", "Lead Pipe", "Revolver", "Rope", "Wrench"),
    rooms=_CLASSIC_ROOMS,
    weapon_start_rooms=(_DINING, _LOUNGE, _CONSERVATORY, _STUDY, _BALLROOM, _KITCHEN),
)

_FR_SUSPECTS = (
    "Mademoiselle Rose",
    "Colonel Moutarde",
    "Madame Leblanc",
    "Révérend Olive",
    "Madame Pervenche",
    "Professeur Violet",
)
_FR_WEAPONS = ("Poignard", "Revolver", "Matraque", "Chandelier", "Corde", "Clé anglaise")
_FR_WEAPON_ROOMS = (_LOUNGE, _STUDY, _CONSERVATORY, _DINING, _BALLROOM, _KITCHEN)

_CLASSIC_FR = Edition(
    name="classic_fr",
    suspects=_FR_SUSPECTS,
    weapons=_FR_WEAPONS,
    rooms=_FRENCH_ROOMS,
    weapon_start_rooms=_FR_WEAPON_ROOMS,
)
# The 1999 and 2000 French editions add a 7th weapon; it starts in the Library,
# the one room the booklet leaves without a weapon that is not the Hall or Billiard Room.
_CLASSIC_FR_1999 = Edition(
    name="classic_fr_1999",
    suspects=_FR_SUSPECTS,
    weapons=_FR_WEAPONS + ("Flacon de poison",),
    rooms=_FRENCH_ROOMS,
    weapon_start_rooms=_FR_WEAPON_ROOMS + (_LIBRARY,),
)
_CLASSIC_FR_2000 = Edition(
    name="classic_fr_2000",
    suspects=_FR_SUSPECTS,
    weapons=_FR_WEAPONS + ("Fer à cheval",),
    rooms=_FRENCH_ROOMS,
    weapon_start_rooms=_FR_WEAPON_ROOMS + (_LIBRARY,),
)
# 2023 German edition; its rooms are mapped onto the classic board's rooms.
_DE_2023 = Edition(
    name="de_2023",
    suspects=(
        "Lady Gloria",
        "Oberst von Gatow",
        "Köchin Weiß",
        "Bürgermeister Grün",
        "Anwältin Porz",
        "Professor Bloom",
    ),
    weapons=("Leuchter", "Heizungsrohr", "Rohrzange", "Pistole", "Seil", "Dolch"),
    rooms=(
        "Küche",
        "Musikzimmer",
        "Wintergarten",
        "Speisezimmer",
        "Billardzimmer",
        "Bibliothek",
        "Salon",
        "Halle",
        "Arbeitszimmer",
    ),
    weapon_start_rooms=(_DINING, _CONSERVATORY, _KITCHEN, _STUDY, _BALLROOM, _LOUNGE),
)

# Read-only: configs, tasks, records and reports name an edition by its name, and configs of one name
# compare equal (and share their rule tables), so a name means one deck for good.
EDITIONS: Mapping[str, Edition] = MappingProxyType(
    {e.name: e for e in (_CLASSIC, _CLASSIC_FR, _CLASSIC_FR_1999, _CLASSIC_FR_2000, _DE_2023)}
)


def get_edition(name: str) -> Edition:
    """The edition called ``name``; a ``ValueError`` lists the known ones otherwise."""
    try:
        return EDITIONS[name]
    except KeyError:
        raise ValueError(f"edition must be one of {sorted(EDITIONS)}, got {name!r}") from None
