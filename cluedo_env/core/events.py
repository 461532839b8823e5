"""Events emitted by every step, their fields by name, and each player's private view of them.

A step writes its events into ``state.events``, an ``int16[B, E, 7]`` array
(unused rows have kind ``-1``), ``state.num_events[b]`` of them for game b.
Each row is ``(kind, player, a, b, c, d, card)``; what ``player`` and ``a``
to ``d`` mean depends on the kind. Python code reads a row by name through
``Event`` (``Event.of(row).correct``, ``read_events(rows)``); array code names
the columns with the constants in the table (``events[..., CORRECT] == 0``):
aliases of ``A`` to ``D`` that numba code reads as plain integers.

==============  =========================  ==================================================
kind            player                     a, b, c, d / card (``Event`` field, column)
==============  =========================  ==================================================
``DEAL``        who gets the card          card: the card, private to player
``START``       first player               a: its suspect (``suspect``, ``SUSPECT``)
``TURN``        whose turn begins          a: turn number, 0-based (``turn``, ``TURN_NUMBER``)
``ROLL``        roller                     a, b: dice, b = -1 with one die (``dice``,
                                           ``DIE_1``, ``DIE_2``); c: total (``total``, ``TOTAL``)
``MOVE``        who moved it               a: suspect pawn (``pawn``, ``PAWN``); b, c: from, to
                                           locations (``origin``, ``destination``, ``ORIGIN``,
                                           ``DESTINATION``); d: how, a ``MOVE_*`` (``how``, ``HOW``)
``WEAPON``      suggester                  a: weapon, 0-based among the weapons (``token``,
                                           ``TOKEN``); b, c: from, to rooms (``origin``,
                                           ``destination``)
``SUGGEST``     suggester                  a, b, c: suspect, weapon, room card ids (``suspect``,
                                           ``weapon``, ``room``, ``cards``; ``SUSPECT``,
                                           ``WEAPON_CARD``, ``ROOM_CARD``)
``PASS``        player asked, holds none   a: suggester (``suggester``, ``SUGGESTER``)
``SHOW``        refuter (``refuter``)      a: suggester (``suggester``, ``SUGGESTER``); card: the
                                           card shown, private to refuter and suggester
``NO_REFUTE``   suggester                  nobody else could refute
``ACCUSE``      accuser                    a, b, c: suspect, weapon, room card ids (as
                                           ``SUGGEST``); d: 1 if right, 0 if wrong (``correct``,
                                           ``CORRECT``)
``PEEK``        who looked (duel)          a: room index (``peeked_room``, ``PEEKED_ROOM``);
                                           card: the face-down card, private to player
``GAME_OVER``   winner or -1 (``winner``)  a, b, c: the envelope, revealed at the end (as
                                           ``SUGGEST``); d: why, an ``END_*`` (``reason``,
                                           ``REASON``)
==============  =========================  ==================================================

Card ids are edition card ids (suspects first, then weapons, then rooms); a
suspect's card id is its suspect index, so ``START``'s and ``MOVE``'s suspects
are card ids too. ``WEAPON``'s ``a`` and ``PEEK``'s ``a`` are indices among the
weapons and the rooms, not card ids. Fields a kind does not have are -1.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

__all__ = [
    "EVENT_FIELDS",
    "EVENT_KINDS",
    "Event",
    "private_view",
    "read_events",
]

EVENT_FIELDS = ("kind", "player", "a", "b", "c", "d", "card")
KIND, PLAYER, A, B, C, D, CARD = range(7)

# The columns by meaning, kind by kind (see the table above): aliases of A to D.
SUSPECT, WEAPON_CARD, ROOM_CARD = A, B, C  # SUGGEST, ACCUSE, GAME_OVER (START: SUSPECT)
TURN_NUMBER = A  # TURN
DIE_1, DIE_2, TOTAL = A, B, C  # ROLL
PAWN, TOKEN = A, A  # MOVE, WEAPON
ORIGIN, DESTINATION, HOW = B, C, D  # MOVE, WEAPON (HOW: MOVE only)
SUGGESTER = A  # PASS, SHOW
CORRECT = D  # ACCUSE
PEEKED_ROOM = A  # PEEK
REASON = D  # GAME_OVER

EVENT_KINDS = (
    "DEAL",
    "START",
    "TURN",
    "ROLL",
    "MOVE",
    "WEAPON",
    "SUGGEST",
    "PASS",
    "SHOW",
    "NO_REFUTE",
    "ACCUSE",
    "PEEK",
    "GAME_OVER",
)
(
    DEAL,
    START,
    TURN,
    ROLL,
    MOVE,
    WEAPON,
    SUGGEST,
    PASS,
    SHOW,
    NO_REFUTE,
    ACCUSE,
    PEEK,
    GAME_OVER,
) = range(len(EVENT_KINDS))

# How a pawn moved (column HOW of MOVE).
MOVE_WALK, MOVE_PASSAGE, MOVE_SUMMONED, MOVE_STAY, MOVE_BLOCKED, MOVE_CHOOSE_ROOM = range(6)
MOVE_HOW = ("walk", "passage", "summoned", "stay", "blocked", "choose room")

# Why a game ended (column REASON of GAME_OVER).
END_WIN, END_ALL_WRONG, END_TRUNCATED = range(3)
END_REASONS = ("win", "all accused wrongly", "truncated")


_CARDS_NAMED = (SUGGEST, ACCUSE, GAME_OVER)


class Event(NamedTuple):
    """One event row with its fields by name: ``Event.of(state.events[b, i])``.

    The seven fields are the row's columns; the properties name what ``player``
    and ``a`` to ``d`` mean for the event's kind (the table in this module's
    documentation), and raise ``AttributeError`` on a kind without that field,
    so that ``hasattr(event, "correct")`` holds for accusations only. A row of a
    private view has ``card = -1`` where the card is hidden.
    """

    kind: int
    player: int
    a: int = -1
    b: int = -1
    c: int = -1
    d: int = -1
    card: int = -1

    @classmethod
    def of(cls, row: Iterable[int]) -> Event:
        """The event of one row (``int[7]``, any integer type)."""
        return cls(*(int(x) for x in row))

    def _only(self, field: str, kinds: tuple[int, ...]) -> None:
        if self.kind not in kinds:
            having = ", ".join(EVENT_KINDS[k] for k in kinds)
            raise AttributeError(f"a {self.name} event has no {field!r} (only {having})")

    @property
    def name(self) -> str:
        """The kind's name, e.g. ``"SUGGEST"`` (``"UNUSED"`` for an unused row)."""
        return EVENT_KINDS[self.kind] if 0 <= self.kind < len(EVENT_KINDS) else "UNUSED"

    @property
    def suspect(self) -> int:
        """``SUGGEST``, ``ACCUSE``, ``GAME_OVER``: the suspect's card id; ``START``: the first player's."""
        self._only("suspect", (START, *_CARDS_NAMED))
        return self.a

    @property
    def weapon(self) -> int:
        """``SUGGEST``, ``ACCUSE``, ``GAME_OVER``: the weapon's card id."""
        self._only("weapon", _CARDS_NAMED)
        return self.b

    @property
    def room(self) -> int:
        """``SUGGEST``, ``ACCUSE``, ``GAME_OVER``: the room's card id."""
        self._only("room", _CARDS_NAMED)
        return self.c

    @property
    def cards(self) -> tuple[int, int, int]:
        """``SUGGEST``, ``ACCUSE``, ``GAME_OVER``: the suspect, weapon and room named (card ids)."""
        self._only("cards", _CARDS_NAMED)
        return (self.a, self.b, self.c)

    @property
    def correct(self) -> bool:
        """``ACCUSE``: the accusation named the envelope's three cards."""
        self._only("correct", (ACCUSE,))
        return self.d == 1

    @property
    def suggester(self) -> int:
        """``SUGGEST``, ``WEAPON``, ``PASS``, ``SHOW``, ``NO_REFUTE``: who made the suggestion."""
        self._only("suggester", (SUGGEST, WEAPON, PASS, SHOW, NO_REFUTE))
        return self.a if self.kind in (PASS, SHOW) else self.player

    @property
    def refuter(self) -> int:
        """``SHOW``: the player who showed a card."""
        self._only("refuter", (SHOW,))
        return self.player

    @property
    def turn(self) -> int:
        """``TURN``: the turn number (0-based) of the turn that begins."""
        self._only("turn", (TURN,))
        return self.a

    @property
    def dice(self) -> tuple[int, ...]:
        """``ROLL``: the dice rolled (one or two)."""
        self._only("dice", (ROLL,))
        return (self.a,) if self.b < 0 else (self.a, self.b)

    @property
    def total(self) -> int:
        """``ROLL``: the sum of the dice."""
        self._only("total", (ROLL,))
        return self.c

    @property
    def pawn(self) -> int:
        """``MOVE``: the suspect whose pawn moved."""
        self._only("pawn", (MOVE,))
        return self.a

    @property
    def token(self) -> int:
        """``WEAPON``: the weapon moved, 0-based among the weapons (its card id less the suspects)."""
        self._only("token", (WEAPON,))
        return self.a

    @property
    def origin(self) -> int:
        """``MOVE``, ``WEAPON``: the location it left (a room index, or ``R +`` a square)."""
        self._only("origin", (MOVE, WEAPON))
        return self.b

    @property
    def destination(self) -> int:
        """``MOVE``, ``WEAPON``: the location it reached (the same as ``origin`` when it stayed)."""
        self._only("destination", (MOVE, WEAPON))
        return self.c

    @property
    def how(self) -> int:
        """``MOVE``: how the pawn moved, a ``MOVE_*`` value (``MOVE_HOW`` names them)."""
        self._only("how", (MOVE,))
        return self.d

    @property
    def peeked_room(self) -> int:
        """``PEEK``: the room (0-based among the rooms) whose face-down card the player looked at."""
        self._only("peeked_room", (PEEK,))
        return self.a

    @property
    def winner(self) -> int:
        """``GAME_OVER``: the winner, or -1 when nobody won."""
        self._only("winner", (GAME_OVER,))
        return self.player

    @property
    def reason(self) -> int:
        """``GAME_OVER``: why the game ended, an ``END_*`` value (``END_REASONS`` names them)."""
        self._only("reason", (GAME_OVER,))
        return self.d


def read_events(rows: np.ndarray) -> list[Event]:
    """The used rows (kind >= 0) of one game's events, in order, as ``Event`` s.

    Args:
        rows: ``int[n, 7]``: e.g. ``state.events[b, : state.num_events[b]]``, a
            game's log, or a private view of either.
    """
    return [Event(*row) for row in np.asarray(rows).tolist() if row[KIND] >= 0]


def private_view(events: np.ndarray, player: int | np.ndarray) -> np.ndarray:
    """Events as ``player`` sees them: hidden cards replaced by -1.

    Args:
        events: ``int16[..., 7]`` event rows (any leading shape).
        player: The viewer, a scalar or an array broadcasting against
            ``events.shape[:-1]``.

    Returns:
        A copy in which the ``card`` field is kept only where the viewer may see
        it: its own ``DEAL`` and ``PEEK`` events, and ``SHOW`` events in which
        it is the refuter or the suggester.
    """
    player = np.asarray(player)
    kind, who = events[..., KIND], events[..., PLAYER]
    mine = who == player  # broadcast: the shape of the views
    own = (kind == DEAL) | (kind == PEEK)
    visible = (own & mine) | ((kind == SHOW) & (mine | (events[..., SUGGESTER] == player)))
    view = np.empty((*visible.shape, events.shape[-1]), dtype=events.dtype)
    view[...] = events
    view[..., CARD] = np.where(visible, events[..., CARD], -1)
    return view
