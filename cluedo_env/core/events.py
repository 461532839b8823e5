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
from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "EVENT_FIELDS",
    "EVENT_KINDS",
    "Event",
    "private_view",
    "public_view",
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


class _Field:
    """A field that some kinds of events have: the value of one column, an ``AttributeError``
    on an event of another kind (a descriptor, as ``property`` is)."""

    def __init__(self, column: int, kinds: tuple[int, ...], doc: str) -> None:
        self.column, self.kinds, self.__doc__ = column, kinds, doc

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, event: Event | None, owner: type | None = None) -> Any:
        if event is None:  # read on the class: the field itself, for help() and the docs
            return self
        event._only(self.name, self.kinds)
        return event[self.column]

    def __set__(self, event: Event, value: Any) -> None:
        raise AttributeError(f"an event is read-only: cannot set {self.name!r}")


class _Row(NamedTuple):
    kind: int
    player: int
    a: int = -1
    b: int = -1
    c: int = -1
    d: int = -1
    card: int = -1


class Event(_Row):
    """One event row with its fields by name: ``Event.of(state.events[b, i])``.

    A tuple of the row's seven columns (``kind, player, a, b, c, d, card``); the
    other fields name what ``player`` and ``a`` to ``d`` mean for the event's
    kind (the table in this module's documentation, whose columns they read),
    and raise ``AttributeError`` on a kind without that field, so that
    ``hasattr(event, "correct")`` holds for accusations only. A row of a private
    view has ``card = -1`` where the card is hidden.
    """

    __slots__ = ()  # a tuple, nothing more

    suspect = _Field(
        SUSPECT,
        (START, *_CARDS_NAMED),
        "``SUGGEST``, ``ACCUSE``, ``GAME_OVER``: the suspect's card id; ``START``: the first player's.",
    )
    weapon = _Field(
        WEAPON_CARD, _CARDS_NAMED, "``SUGGEST``, ``ACCUSE``, ``GAME_OVER``: the weapon's card id."
    )
    room = _Field(ROOM_CARD, _CARDS_NAMED, "``SUGGEST``, ``ACCUSE``, ``GAME_OVER``: the room's card id.")
    turn = _Field(TURN_NUMBER, (TURN,), "``TURN``: the number (0-based) of the turn that begins.")
    total = _Field(TOTAL, (ROLL,), "``ROLL``: the sum of the dice.")
    pawn = _Field(PAWN, (MOVE,), "``MOVE``: the suspect whose pawn moved.")
    token = _Field(TOKEN, (WEAPON,), "``WEAPON``: the weapon moved, 0-based among the weapons.")
    origin = _Field(
        ORIGIN, (MOVE, WEAPON), "``MOVE``, ``WEAPON``: the location left (a room, or R + a square)."
    )
    destination = _Field(DESTINATION, (MOVE, WEAPON), "``MOVE``, ``WEAPON``: the location reached.")
    how = _Field(HOW, (MOVE,), "``MOVE``: how the pawn moved, a ``MOVE_*`` (``MOVE_HOW`` names them).")
    refuter = _Field(PLAYER, (SHOW,), "``SHOW``: the player who showed a card.")
    peeked_room = _Field(PEEKED_ROOM, (PEEK,), "``PEEK``: the room whose face-down card the player saw.")
    winner = _Field(PLAYER, (GAME_OVER,), "``GAME_OVER``: the winner, or -1 when nobody won.")
    reason = _Field(
        REASON, (GAME_OVER,), "``GAME_OVER``: why the game ended, an ``END_*`` (``END_REASONS``)."
    )

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
    def cards(self) -> tuple[int, int, int]:
        """``SUGGEST``, ``ACCUSE``, ``GAME_OVER``: the suspect, weapon and room named (card ids)."""
        return (self.suspect, self.weapon, self.room)

    @property
    def correct(self) -> bool:
        """``ACCUSE``: the accusation named the envelope's three cards."""
        self._only("correct", (ACCUSE,))
        return self[CORRECT] == 1

    @property
    def suggester(self) -> int:
        """``SUGGEST``, ``WEAPON``, ``PASS``, ``SHOW``, ``NO_REFUTE``: who made the suggestion."""
        self._only("suggester", (SUGGEST, WEAPON, PASS, SHOW, NO_REFUTE))
        return self[SUGGESTER] if self.kind in (PASS, SHOW) else self.player

    @property
    def dice(self) -> tuple[int, ...]:
        """``ROLL``: the dice rolled (one or two)."""
        self._only("dice", (ROLL,))
        return (self[DIE_1],) if self[DIE_2] < 0 else (self[DIE_1], self[DIE_2])


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
            ``events.shape[:-1]``. One viewer per game of ``int16[B, E, 7]`` events is
            ``players[:, None]``: a 1-D array of more than one viewer is refused there
            (``ValueError``), as it would broadcast along the event axis where ``B == E``
            (one viewer in a 1-D array, of shape ``(1,)``, is that viewer's view, as a scalar).

    Returns:
        A copy in which the ``card`` field is kept only where the viewer may see
        it: its own ``DEAL`` and ``PEEK`` events, and ``SHOW`` events in which
        it is the refuter or the suggester.
    """
    player = np.asarray(player)
    if player.ndim == 1 and len(player) != 1 and events.ndim >= 3:
        raise ValueError(
            f"player must be one viewer, or viewers broadcasting against events.shape[:-1] = "
            f"{events.shape[:-1]} with one per game as players[:, None] (a 1-D array would broadcast along "
            f"the event axis), got a 1-D array of {len(player)} viewers"
        )
    kind, who = events[..., KIND], events[..., PLAYER]
    mine = who == player  # broadcast: the shape of the views
    own = (kind == DEAL) | (kind == PEEK)
    visible = (own & mine) | ((kind == SHOW) & (mine | (events[..., SUGGESTER] == player)))
    view = np.empty((*visible.shape, events.shape[-1]), dtype=events.dtype)
    view[...] = events
    view[..., CARD] = np.where(visible, events[..., CARD], -1)
    return view


def public_view(events: np.ndarray) -> np.ndarray:
    """Events as everyone sees them: a copy with the card of every ``DEAL``, ``PEEK`` and
    ``SHOW`` replaced by -1 (what a watcher who is no player sees; ``private_view`` of any player
    shows it at most its own cards more).

    Args:
        events: ``int16[..., 7]`` event rows (any leading shape).
    """
    kind = events[..., KIND]
    view = np.array(events, copy=True)
    view[..., CARD] = np.where((kind == DEAL) | (kind == PEEK) | (kind == SHOW), -1, events[..., CARD])
    return view
