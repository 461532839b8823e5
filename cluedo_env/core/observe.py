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


class _Tables:
    """Lookup tables that turn state fields into observation pieces in one gather each."""

    def __init__(self, config: GameConfig) -> None:
        rules = rules_for(config)
        R = rules.R
        locations = R + rules.N + 1  # rooms, squares, and R + N: no square (``board="none"``)
        self.xy_of = np.zeros((locations, 2), dtype=np.float32)
        self.distance_of = np.zeros((locations, R), dtype=np.float32)
        if rules.classic:
            self.xy_of[R : R + rules.N] = rules.square_xy
            self.distance_of[: R + rules.N] = rules.location_room_distance / rules.max_room_distance
        face = np.array([0, 1, 2, 3, 4, 5, 6, 0])  # by die value; value -1 (no die) reads index 7
        self.dice = ((face[:, None] + face[None, :]) / np.float32(12)).astype(np.float32)


@cache
def _tables(config: GameConfig) -> _Tables:
    return _Tables(config)


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

    tables = _tables(config)
    rows = np.arange(n)[:, None]
    relative = (viewer[:, None] + np.arange(P)[None, :]) % P  # [n, P]: axis j -> player
    planes = (games * P)[:, None] + relative  # rows of the [B * P, C] knowledge planes, viewer first
    owner = state._owner[games]
    hand = owner == viewer[:, None]
    put("hand", hand)
    shown = state._shown_to[games, viewer]  # [n, C]: who showed me card c
    peeked = state._peeked[games, viewer]
    put("unseen", ~hand & (shown < 0) & ~peeked)
    put("face_down_seen", peeked)
    C = rules.C
    put("passed", np.take(state.passed.reshape(-1, C), planes, axis=0))
    put("showed", _SHOWED[np.take(state.showed.reshape(-1, C), planes, axis=0)])
    put("accused", np.take(state.accused.reshape(-1, C), planes, axis=0))
    put("eliminated", np.take(state.eliminated.reshape(-1), planes))
    location = state.location[games]  # [n, S]
    put("pawn_square", tables.xy_of[location])
    put("room_distance", tables.distance_of[location[np.arange(n), viewer]])
    put("dice", tables.dice[state.dice[games, 0], state.dice[games, 1]])
    put("turn", state.turn[games] / np.float32(config.max_turns))
    # One-hot pieces: zeros, then a 1 where each entry points.
    for name in (
        "shown_to_me",
        "pawn_room",
        "weapon_room",
        "phase",
        "turn_player",
        "current_player",
        "suggestion",
    ):
        out[:, place[name]] = 0.0
    who, card = np.nonzero(shown >= 0)
    out[who, place["shown_to_me"].start + ((shown[who, card] - viewer[who]) % P) * C + card] = (
        1.0  # viewer: int64
    )
    out[rows, place["pawn_room"].start + np.arange(rules.S) * (R + 1) + np.minimum(location, R)] = 1.0
    out[
        rows, place["weapon_room"].start + np.arange(rules.W) * R + state.weapon_room[games].astype(np.int64)
    ] = 1.0
    out[rows[:, 0], place["phase"].start + state.phase[games].astype(np.int64)] = 1.0
    out[rows[:, 0], place["turn_player"].start + (state.turn_player[games] - viewer) % P] = 1.0
    current = state.current_player[games].astype(np.int64)
    deciding = np.flatnonzero(current >= 0)
    out[deciding, place["current_player"].start + (current[deciding] - viewer[deciding]) % P] = 1.0
    suggesting = np.flatnonzero(state.suggestion[games, 0] >= 0)
    out[suggesting[:, None], place["suggestion"].start + state.suggestion[games[suggesting]]] = 1.0
    if kind == "seer":
        holder = np.where(
            owner == ENVELOPE, P, np.where(owner == FACE_DOWN, P + 1, (owner - viewer[:, None]) % P)
        )
        put("owner", holder[:, :, None] == np.arange(P + 2)[None, None, :])
    return out
