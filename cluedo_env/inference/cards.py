"""Cards and the set-up of a game: the ``Deck`` of card ids and the ``Setup`` (players, hands, envelope, duel table)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cluedo_env.core.state import ENVELOPE, FACE_DOWN

CATEGORY_NAMES = ("suspects", "weapons", "rooms")


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
            if not is_whole(value) or value < 1:
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
        if not is_whole(card) or not 0 <= card < self.num_cards:
            raise ValueError(f"card must be an int in [0, {self.num_cards}), got {card!r}")
        return int(card >= self.num_suspects) + int(card >= self.num_suspects + self.num_weapons)


@dataclass(frozen=True)
class Setup:
    """Who holds how many cards in one game.

    Owners are coded as in the rules core (``cluedo_env.core.state``): players
    ``0 .. P-1``, the envelope ``-1`` (``core.ENVELOPE``, ``Setup.envelope``)
    and the cards face down on the table ``-2`` (``core.FACE_DOWN``,
    ``Setup.table``; None when the variant has none). Arrays over owners
    (``int8[cards, num_owners]`` and the like) have their columns in the order
    ``Setup.owners``: the players, then the table if there is one, then the
    envelope, so that every owner code is also a valid index on that axis
    (``status[:, -1]`` is the envelope's column), and deals (``Posterior.sample_deals``,
    ``all_deals``) are in the core's own codes, ready for ``core.simulate``.
    ``Setup.column`` gives the non-negative column of a code.

    Why this code and not the former ``P`` for the envelope, ``P + 1`` for the
    table: one code from the compiled rules to the deduction, with no
    conversion between them; putting the envelope last keeps it at ``-1``
    whether or not there is a table, and keeps the players and the table in
    the order they had. (The observation vectors of ``core.observe`` are a
    layout of their own, with the envelope at ``P`` and the face-down cards at
    ``P + 1``; they are not owner codes.)

    Attributes:
        deck: The cards.
        num_players: Number of players ``P``.
        hand_sizes: Number of cards dealt to each player.
        num_face_down: Cards lying face down on rooms (duel variant); when
            positive, the table (owner ``-2``) holds them.
    """

    deck: Deck
    num_players: int
    hand_sizes: tuple[int, ...]
    num_face_down: int = 0

    def __post_init__(self) -> None:
        if not is_whole(self.num_players) or self.num_players < 1:
            raise ValueError(f"num_players must be an int >= 1, got {self.num_players!r}")
        if not is_whole(self.num_face_down) or self.num_face_down < 0:
            raise ValueError(f"num_face_down must be an int >= 0, got {self.num_face_down!r}")
        object.__setattr__(self, "num_players", int(self.num_players))
        object.__setattr__(self, "num_face_down", int(self.num_face_down))
        sizes = tuple(self.hand_sizes)
        if not all(is_whole(h) for h in sizes):
            raise ValueError(f"hand_sizes must be ints (cards per player), got {list(sizes)}")
        object.__setattr__(self, "hand_sizes", tuple(int(h) for h in sizes))
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
        if not is_whole(num_players) or num_players < 1:
            raise ValueError(f"num_players must be an int >= 1, got {num_players!r}")
        if not is_whole(num_face_down) or num_face_down < 0:
            raise ValueError(f"num_face_down must be an int >= 0, got {num_face_down!r}")
        rest = deck.num_cards - len(CATEGORY_NAMES) - num_face_down
        if rest < 0:
            raise ValueError(
                f"num_face_down={num_face_down} is more than the {deck.num_cards - len(CATEGORY_NAMES)} cards "
                "left after the envelope's 3"
            )
        base, extra = divmod(rest, num_players)
        hands = tuple(base + (p < extra) for p in range(num_players))
        return cls(deck, num_players, hands, num_face_down)

    @property
    def envelope(self) -> int:
        """Owner code of the envelope: ``-1`` (``core.ENVELOPE``), its column's index from the end."""
        return ENVELOPE

    @property
    def table(self) -> int | None:
        """Owner code of the face-down cards, ``-2`` (``core.FACE_DOWN``), or None when there are none."""
        return FACE_DOWN if self.num_face_down > 0 else None

    @property
    def num_owners(self) -> int:
        """Players, the table when there is one, and the envelope."""
        return self.num_players + 1 + (self.num_face_down > 0)

    @property
    def owners(self) -> tuple[int, ...]:
        """The owner codes in column order: the players, the table (``-2``) if any, the envelope (``-1``)."""
        table = (FACE_DOWN,) if self.num_face_down > 0 else ()
        return (*range(self.num_players), *table, ENVELOPE)

    def column(self, owner: int) -> int:
        """The non-negative column of an owner code on the owner axis (``num_owners - 1`` for the envelope)."""
        self.check_owner(owner)
        return int(owner) % self.num_owners

    def owner_name(self, owner: int) -> str:
        """``"player 2"``, ``"envelope"`` or ``"table"``."""
        self.check_owner(owner)
        if owner >= 0:
            return f"player {owner}"
        return "envelope" if owner == ENVELOPE else "table"

    def owner_size(self, owner: int) -> int:
        """How many cards the owner holds."""
        self.check_owner(owner)
        if owner >= 0:
            return self.hand_sizes[owner]
        return len(CATEGORY_NAMES) if owner == ENVELOPE else self.num_face_down

    def check_player(self, player: int, what: str = "player") -> None:
        """Raises ValueError unless ``player`` is a player index."""
        if not is_whole(player) or not 0 <= player < self.num_players:
            raise ValueError(f"{what} must be a player in [0, {self.num_players}), got {player!r}")

    def check_owner(self, owner: int) -> None:
        """Raises ValueError unless ``owner`` is an owner code (``Setup.owners``)."""
        if not is_whole(owner) or int(owner) not in self.owners:
            raise ValueError(
                f"owner must be a player in [0, {self.num_players}), {ENVELOPE} = envelope"
                + (f" or {FACE_DOWN} = table" if self.table is not None else "")
                + f", got {owner!r}"
            )


def is_whole(value: object) -> bool:
    """Whether ``value`` is an integer (a Python or numpy one), not a bool."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)
