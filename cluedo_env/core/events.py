"""Events emitted by every step, and each player's private view of them.

A step writes its events into ``state.events``, an ``int16[B, E, 7]`` array
(unused rows have kind ``-1``), ``state.num_events[b]`` of them for game b.
Each row is ``(kind, player, a, b, c, d, card)``:

==============  ========================  ===========================================
kind            player                    a, b, c, d / card
==============  ========================  ===========================================
``DEAL``        who gets the card         card: the card (private to player)
``START``       first player              a: first player's suspect
``TURN``        whose turn begins         a: turn number (0-based)
``ROLL``        roller                    a, b: dice (b = -1 with one die), c: total
``MOVE``        who moved it              a: suspect pawn, b: from, c: to (locations),
                                          d: how (see ``MOVE_*``)
``WEAPON``      suggester                 a: weapon, b: from room, c: to room
``SUGGEST``     suggester                 a, b, c: suspect, weapon, room (card ids)
``PASS``        player asked, holds none  a: suggester
``SHOW``        refuter                   a: suggester; card: shown card (private to
                                          refuter and suggester)
``NO_REFUTE``   suggester                 nobody else could refute
``ACCUSE``      accuser                   a, b, c: suspect, weapon, room (card ids);
                                          d: 1 if right, 0 if wrong
``PEEK``        who looked (duel)         a: room; card: the face-down card (private)
``GAME_OVER``   winner or -1              a, b, c: the envelope (revealed at the end);
                                          d: ``END_*`` reason
==============  ========================  ===========================================

Card ids in ``a, b, c`` of ``SUGGEST``/``ACCUSE``/``GAME_OVER`` are edition
card ids (suspects first, then weapons, then rooms).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "EVENT_FIELDS",
    "EVENT_KINDS",
    "private_view",
]

EVENT_FIELDS = ("kind", "player", "a", "b", "c", "d", "card")
KIND, PLAYER, A, B, C, D, CARD = range(7)

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

# How a pawn moved (field d of MOVE).
MOVE_WALK, MOVE_PASSAGE, MOVE_SUMMONED, MOVE_STAY, MOVE_BLOCKED, MOVE_CHOOSE_ROOM = range(6)
MOVE_HOW = ("walk", "passage", "summoned", "stay", "blocked", "choose room")

# Why a game ended (field d of GAME_OVER).
END_WIN, END_ALL_WRONG, END_TRUNCATED = range(3)
END_REASONS = ("win", "all accused wrongly", "truncated")


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
    visible = (own & mine) | ((kind == SHOW) & (mine | (events[..., A] == player)))
    view = np.empty((*visible.shape, events.shape[-1]), dtype=events.dtype)
    view[...] = events
    view[..., CARD] = np.where(visible, events[..., CARD], -1)
    return view
