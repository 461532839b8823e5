"""Observations: one flat float32 vector per (game, player), built from named pieces.

Player axes are relative to the viewer: index ``j`` of a player axis is player
``(viewer + j) % P``, so index 0 is always the viewer itself. The pieces, in
order (``observation_pieces(config, kind)`` gives names, shapes and offsets):

=====================  ==========  ===============================================
piece                  shape       meaning
=====================  ==========  ===============================================
``hand``               C           1 for each card the viewer holds
``unseen``             C           1 for each card the viewer has not seen (not in
                                   its hand, not shown to it, not looked at):
                                   the notepad's open lines
``shown_to_me``        P x C       player j showed the viewer card c
``face_down_seen``     C           face-down cards the viewer looked at (duel)
``passed``             P x C       player j passed on a suggestion naming c
``showed``             P x C       times (/4, at most 1) player j showed a card
                                   for a suggestion naming c
``accused``            P x C       player j accused wrongly naming card c
``eliminated``         P           player j is out (accused wrongly)
``pawn_room``          S x (R+1)   room of each suspect's pawn (last: in no room)
``pawn_square``        S x 2       (row / 24, col / 23) of a pawn on a square
``weapon_room``        W x R       room of each weapon
``room_distance``      R           moves from the viewer's pawn into each room
                                   (/ the board's largest such distance; 0 in that
                                   room or with ``board="none"``)
``phase``              6           one-hot ``Phase``
``dice``               1           the roll's total / 12 (0 before a roll)
``turn_player``        P           whose turn it is
``current_player``     P           who decides now (the refuter while refuting)
``suggestion``         C           the three cards of the current suggestion
``turn``               1           turn / max_turns
``owner`` (seer only)  C x (P+2)   who holds each card: players, envelope, face down
=====================  ==========  ===============================================

``"player"`` is the default observation: only what the viewer may know. ``"seer"``
adds ``owner`` (everything), for debugging and oracle baselines.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from cluedo_env.core.config import GameConfig
from cluedo_env.core.game import rules_for
from cluedo_env.core.state import ENVELOPE, FACE_DOWN, Phase, State

__all__ = ["OBSERVATION_KINDS", "observation_pieces", "observation_size", "observe"]

OBSERVATION_KINDS = ("player", "seer")
SHOWED_SCALE = 4.0


@cache
def observation_pieces(
    config: GameConfig, kind: str = "player"
) -> tuple[tuple[str, tuple[int, ...], int], ...]:
    """``(name, shape, offset)`` of each piece of the flat observation."""
    if kind not in OBSERVATION_KINDS:
        raise ValueError(f"observation kind must be one of {list(OBSERVATION_KINDS)}, got {kind!r}")
    e = config.cards
    C, P, S, W, R = e.num_cards, config.num_players, e.num_suspects, e.num_weapons, e.num_rooms
    shapes = [
        ("hand", (C,)),
        ("unseen", (C,)),
        ("shown_to_me", (P, C)),
        ("face_down_seen", (C,)),
        ("passed", (P, C)),
        ("showed", (P, C)),
        ("accused", (P, C)),
        ("eliminated", (P,)),
        ("pawn_room", (S, R + 1)),
        ("pawn_square", (S, 2)),
        ("weapon_room", (W, R)),
        ("room_distance", (R,)),
        ("phase", (len(Phase.NAMES),)),
        ("dice", (1,)),
        ("turn_player", (P,)),
        ("current_player", (P,)),
        ("suggestion", (C,)),
        ("turn", (1,)),
    ]
    if kind == "seer":
        shapes.append(("owner", (C, P + 2)))
    pieces, offset = [], 0
    for name, shape in shapes:
        pieces.append((name, shape, offset))
        offset += int(np.prod(shape))
    return tuple(pieces)


def observation_size(config: GameConfig, kind: str = "player") -> int:
    """Length of the flat observation vector."""
    _name, shape, offset = observation_pieces(config, kind)[-1]
    return offset + int(np.prod(shape))


@cache
def _slices(config: GameConfig, kind: str) -> dict[str, slice]:
    return {
        name: slice(offset, offset + int(np.prod(shape)))
        for name, shape, offset in observation_pieces(config, kind)
    }


# times shown -> observed value, as a lookup table
_SHOWED = np.minimum(np.arange(256, dtype=np.float32) / SHOWED_SCALE, 1.0).astype(np.float32)


def observe(
    state: State,
    players: np.ndarray | int,
    games: np.ndarray | None = None,
    kind: str = "player",
) -> np.ndarray:
    """Observations of a batch of (game, player) pairs.

    Args:
        state: The batch of games.
        players: The viewer of each selected game (or one viewer for all).
        games: Indices of the games to observe (default: all, in order).
        kind: ``"player"`` (what the viewer may know) or ``"seer"`` (everything).

    Returns:
        ``float32[len(games), observation_size(config, kind)]``.
    """
    config = state.config
    rules = rules_for(config)
    place = _slices(config, kind)
    games = np.arange(state.batch_size) if games is None else np.asarray(games, dtype=np.int64)
    n = len(games)
    viewer = np.broadcast_to(np.asarray(players, dtype=np.int64), (n,))
    P, R = rules.P, rules.R
    out = np.empty((n, observation_size(config, kind)), dtype=np.float32)

    def put(name: str, values: np.ndarray | float) -> None:
        out[:, place[name]] = values.reshape(n, -1) if isinstance(values, np.ndarray) else values

    g = games[:, None]
    relative = (viewer[:, None] + np.arange(P)[None, :]) % P  # [n, P]: axis j -> player
    owner = state._owner[games]
    hand = owner == viewer[:, None]
    put("hand", hand)
    shown = state._shown_to[games, viewer]  # [n, C]: who showed me card c
    put("unseen", ~hand & (shown < 0) & ~state._peeked[games, viewer])
    put("shown_to_me", shown[:, None, :] == relative[:, :, None])
    put("face_down_seen", state._peeked[games, viewer])
    put("passed", state.passed[g, relative])
    put("showed", _SHOWED[state.showed[g, relative]])
    put("accused", state.accused[g, relative])
    put("eliminated", state.eliminated[g, relative])

    location = state.location[games]  # [n, S]
    in_room = location < R
    pawn_room = np.zeros((n, rules.S, R + 1), dtype=np.float32)
    rows, pawns = np.nonzero(np.ones_like(location, dtype=bool))
    pawn_room[rows, pawns, np.where(in_room, location, R).reshape(-1)] = 1.0
    put("pawn_room", pawn_room)
    if rules.classic:
        xy = rules.square_xy[np.where(in_room, 0, location - R)]  # [n, S, 2]
        put("pawn_square", np.where(in_room[:, :, None], 0.0, xy))
        mine = location[np.arange(n), viewer]
        put("room_distance", rules.location_room_distance[mine] / rules.max_room_distance)
    else:
        put("pawn_square", 0.0)
        put("room_distance", 0.0)
    weapon_room = np.zeros((n, rules.W, R), dtype=np.float32)
    rows, weapons = np.nonzero(np.ones_like(state.weapon_room[games], dtype=bool))
    weapon_room[rows, weapons, state.weapon_room[games].reshape(-1)] = 1.0
    put("weapon_room", weapon_room)

    put("phase", state.phase[games, None] == np.arange(len(Phase.NAMES))[None, :])
    put("dice", np.maximum(state.dice[games], 0).sum(axis=1, dtype=np.float32) / np.float32(12))
    put("turn_player", relative == state.turn_player[games, None])
    put("current_player", relative == state.current_player[games, None])
    suggestion = np.zeros((n, rules.C), dtype=np.float32)
    active = np.flatnonzero(state.suggestion[games, 0] >= 0)
    suggestion[active[:, None], state.suggestion[games[active]]] = 1.0
    put("suggestion", suggestion)
    put("turn", state.turn[games] / config.max_turns)
    if kind == "seer":
        holder = np.where(
            owner == ENVELOPE, P, np.where(owner == FACE_DOWN, P + 1, (owner - viewer[:, None]) % P)
        )
        put("owner", holder[:, :, None] == np.arange(P + 2)[None, None, :])
    return out
