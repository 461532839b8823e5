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

import sys
import threading
from functools import cache, partial
from operator import attrgetter, itemgetter
from typing import NoReturn

import numpy as np

from cluedo_env.core.config import GameConfig
from cluedo_env.core.game import Rules, init, rules_for
from cluedo_env.core.state import BUFFERED, Phase, State, byte_offsets, pack

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


class _Plan:
    """Tables of one (config, kind), built once, so that ``observe`` only looks things up.

    ``observe`` writes every 0/1 piece (and the times shown, up to 4) into one byte array,
    copies it to the float32 output once, then writes the real-valued pieces. Attributes named
    after a piece are its column slice. The one-hot pieces (pawn and weapon rooms, phase, turn
    and current player, suggestion, and the seer's ``owner``) are one scatter: ``hot_cols[v, k,
    value + 2]`` is the column of the 1 that entry ``k`` of those state values puts in viewer
    ``v``'s row (values from -2: -1 for nobody or ``ENVELOPE``, -2 for ``FACE_DOWN``), stored
    flat. An absent entry (nobody decides, no suggestion) points at ``trash``, the ``turn``
    column, which is overwritten afterwards.
    """

    def __init__(self, rules: Rules, kind: str) -> None:
        config = rules.config
        C, P, S, W, R = rules.C, rules.P, rules.S, rules.W, rules.R
        pieces = observation_pieces(config, kind)
        for name, shape, offset in pieces:
            setattr(self, name, slice(offset, offset + int(np.prod(shape))))
        at = {name: offset for name, _shape, offset in pieces}
        self.C, self.P, self.S = C, P, S
        self.size = observation_size(config, kind)
        self.seer = kind == "seer"
        self.trash = trash = at["turn"]
        self.max_turns = float(config.max_turns)
        viewers = players = np.arange(P)
        # relative[v, j]: the player at index j of viewer v's player axes.
        self.relative = ((viewers[:, None] + players[None, :]) % P).astype(np.int8)
        # Real-valued pieces by location: rooms, squares, and R + N (off the board, board="none").
        locations = R + rules.N + 1
        self.xy_of = np.zeros((locations, 2), dtype=np.float32)
        self.distance_of = np.zeros((locations, R), dtype=np.float32)
        if rules.classic:
            self.xy_of[R : R + rules.N] = rules.square_xy
            self.distance_of[: R + rules.N] = rules.location_room_distance / rules.max_room_distance
        # dice_of[the two int8 dice viewed as one uint16]: the total / 12 (die -1: no die).
        pairs = np.stack(np.meshgrid(np.arange(-1, 7), np.arange(-1, 7), indexing="ij"), axis=-1)
        codes = pairs.astype(np.int8).reshape(-1, 2).view(np.uint16)[:, 0]
        self.dice_of = np.zeros(2**16, dtype=np.float32)
        self.dice_of[codes] = (np.maximum(pairs, 0).sum(axis=-1) / np.float32(12)).astype(np.float32).ravel()
        # hot_cols[v, k, value + 2] for entry k of the one-hot values (see ``observe``);
        # unused and absent values (-1: nobody) point at trash.
        cards = np.arange(C)
        to_relative = (players[None, :] - viewers[:, None]) % P  # [v, q]: index of player q for viewer v
        entries = [
            *[at["pawn_room"] + s * (R + 1) + np.minimum(np.arange(locations), R) for s in range(S)],
            *[at["weapon_room"] + w * R + np.arange(R) for w in range(W)],
            at["phase"] + np.arange(len(Phase.NAMES)),
            at["turn_player"] + to_relative,  # [v, q]
            at["current_player"] + to_relative,
            *[at["suggestion"] + cards] * 3,
        ]
        values = max(locations, C) + 2  # value + 2: from -2
        hot = np.full((P, len(entries) + self.seer * C, values), trash, dtype=np.int64)
        for k, cols in enumerate(entries):
            hot[:, k, 2 : 2 + cols.shape[-1]] = cols
        if self.seer:  # holder of card c: players by relative index, then P: envelope, P + 1: face down
            holder = np.concatenate([np.full((P, 1), P + 1), np.full((P, 1), P), to_relative], axis=1)
            for c in range(C):
                hot[:, len(entries) + c, : P + 2] = at["owner"] + c * (P + 2) + holder
        # As one flat table: hot_cols[v, k, value] is hot_flat[hot_base[v, k] + value].
        self.hot_flat = hot.reshape(-1)
        self.hot_base = np.arange(P * hot.shape[1]).reshape(P, -1) * values + 2
        self._local = threading.local()
        self._rules = rules
        self._one_game: _OneGame | None = None

    def one_game(self) -> _OneGame:
        """The tables of the single-game path (built on first use)."""
        if self._one_game is None:
            self._one_game = _OneGame(self, self._rules)
        return self._one_game

    def buffers(self, n: int) -> tuple[_Work, np.ndarray]:
        """The zeroed work buffer of ``n`` rows and a ``float32[n, size]`` output buffer.

        Both are kept (per thread) for the next call, but the output is reused only once nobody
        holds it any more (by its reference count); else a fresh one is allocated. Reusing the
        memory spares a large batch the page faults of a fresh array at every call.
        """
        local = self._local
        work = getattr(local, "work", None)
        if work is None or work.n != n:
            work = local.work = _Work(self, n)
            local.probe = np.empty(0)  # held by ``local`` only, to compare reference counts with
            local.out = np.empty((n, self.size), dtype=np.float32)
        else:
            work.bits.fill(0)
            if sys.getrefcount(local.out) > sys.getrefcount(local.probe):
                local.out = np.empty((n, self.size), dtype=np.float32)
        return work, local.out


class _OneGame:
    """``observe`` of one game by table lookup: one gather and one lookup for almost every piece.

    Every column except ``unseen``, ``dice`` and ``turn`` (written from Python numbers after
    the lookups) is a function of one byte of the game's fields ``BUFFERED``, which a batch
    of one keeps in one byte buffer (``State._buffer``; a field of two bytes is read by its
    low byte, as all its values lie in -2..253): column ``k`` of viewer ``v``'s row is
    ``lut[v, 256 * k + b]`` where ``b = buffer[gather[v, k]]``. The planes of the viewer's
    player axes are gathered in the viewer's order; a one-hot column is 1 where the byte
    holds its value.
    """

    def __init__(self, plan: _Plan, rules: Rules) -> None:
        C, P, S, W, R = rules.C, rules.P, rules.S, rules.W, rules.R
        fields = [getattr(init(rules.config, [0]), name) for name in BUFFERED]
        offsets, _size = byte_offsets(fields)
        low = 0 if sys.byteorder == "little" else 1  # the low byte of a two-byte value
        at = {}  # at[name](i): the byte holding element i of the field
        for name, field, offset in zip(BUFFERED, fields, offsets):
            at[name] = partial(_byte, offset, field.itemsize, low if field.itemsize == 2 else 0)
        byte = np.arange(256)
        signed = np.where(byte >= 254, byte - 256, byte)  # -2 and -1 of the signed fields
        x = {name: (signed if field.dtype.kind == "i" else byte) for name, field in zip(BUFFERED, fields)}
        place = np.clip(x["location"], 0, len(plan.xy_of) - 1)
        assert len(plan.xy_of) <= 254  # every location fits the low byte
        xy, distance = plan.xy_of[place], plan.distance_of[place]
        self.gather = np.zeros((P, plan.size), dtype=np.int64)
        lut = np.zeros((P, plan.size, 256), dtype=np.float32)
        for v in range(P):
            columns: list[tuple[int, int, np.ndarray]] = []  # (column, byte, lut row)

            def piece(name: str, rows: list[tuple[int, np.ndarray]], columns=columns) -> None:
                first = getattr(plan, name).start
                columns.extend((first + k, source, row) for k, (source, row) in enumerate(rows))

            relative = [(v + j) % P for j in range(P)]  # index j of the viewer's player axes
            owner, shown, location = x["_owner"], x["_shown_to"], x["location"]
            piece("hand", [(at["_owner"](c), owner == v) for c in range(C)])
            piece(
                "shown_to_me", [(at["_shown_to"](v * C + c), shown == q) for q in relative for c in range(C)]
            )
            piece("face_down_seen", [(at["_peeked"](v * C + c), byte == 1) for c in range(C)])
            for name, row in (
                ("passed", byte == 1),
                ("showed", np.minimum(byte, 4) / SHOWED_SCALE),
                ("accused", byte == 1),
            ):
                piece(name, [(at[name](q * C + c), row) for q in relative for c in range(C)])
            piece("eliminated", [(at["eliminated"](q), byte == 1) for q in relative])
            piece(
                "pawn_room",
                [(at["location"](s), np.minimum(location, R) == r) for s in range(S) for r in range(R + 1)],
            )
            piece("pawn_square", [(at["location"](s), xy[:, axis]) for s in range(S) for axis in range(2)])
            piece(
                "weapon_room",
                [(at["weapon_room"](w), x["weapon_room"] == r) for w in range(W) for r in range(R)],
            )
            piece("room_distance", [(at["location"](v), distance[:, r]) for r in range(R)])
            piece("phase", [(at["phase"](0), x["phase"] == k) for k in range(len(Phase.NAMES))])
            piece("turn_player", [(at["turn_player"](0), x["turn_player"] == q) for q in relative])
            piece("current_player", [(at["current_player"](0), x["current_player"] == q) for q in relative])
            category = np.searchsorted([S, S + W], np.arange(C), side="right")  # 0 suspect, 1 weapon, 2 room
            piece("suggestion", [(at["suggestion"](category[c]), x["suggestion"] == c) for c in range(C)])
            if plan.seer:  # holders by relative index, then the envelope, then face down
                holders = [*relative, -1, -2]
                piece("owner", [(at["_owner"](c), owner == h) for c in range(C) for h in holders])
            for column, source, row in columns:
                self.gather[v, column] = source
                lut[v, column] = row
        self.lut = lut.reshape(P, -1)
        self.base = np.arange(plan.size) * 256
        self.fields = attrgetter(*BUFFERED)
        # The columns written after the lookups, in one assignment: unseen, dice, turn.
        self.last_columns = np.r_[np.arange(plan.unseen.start, plan.unseen.stop), plan.dice.start, plan.trash]
        self.max_turns = plan.max_turns

    def observe(self, state: State, viewer: int) -> np.ndarray:
        """``float32[1, size]``: the observation of game 0 of a batch of one by ``viewer``."""
        buffer = state.__dict__.get("_buffer")
        fields = self.fields(state)
        if buffer is None or any(field.base is not buffer for field in fields):  # a field was replaced
            buffer = pack(list(fields))[0]
        out = self.lut[viewer].take(self.base + buffer.take(self.gather[viewer]))
        # Unseen: neither held, nor shown to the viewer, nor looked at.
        holders, shown, peeked = (
            state._owner[0].tolist(),
            state._shown_to[0, viewer].tolist(),
            state._peeked[0, viewer].tolist(),
        )
        first, second = state.dice[0].tolist()
        out[self.last_columns] = [
            *[holder != viewer and by < 0 and not seen for holder, by, seen in zip(holders, shown, peeked)],
            (max(first, 0) + max(second, 0)) / 12,
            state.turn.item() / self.max_turns,
        ]
        return out[None]


def _byte(offset: int, itemsize: int, low: int, i: int) -> int:
    """The buffer byte of element ``i`` of a field at ``offset`` (its low byte if two bytes)."""
    return offset + i * itemsize + low


class _Work:
    """A ``uint8[n, size]`` work buffer, views of its pieces, and row counters for ``n`` rows."""

    def __init__(self, plan: _Plan, n: int) -> None:
        P, C = plan.P, plan.C
        self.n = n
        self.bits = np.zeros((n, plan.size), dtype=np.uint8)
        self.flat = self.bits.reshape(-1)
        flags = self.bits.view(bool)  # for the 0/1 pieces
        self.hand = flags[:, plan.hand]
        self.unseen = flags[:, plan.unseen]
        self.shown_to_me = flags[:, plan.shown_to_me].reshape(n, P, C)
        self.face_down_seen = flags[:, plan.face_down_seen]
        self.passed = flags[:, plan.passed].reshape(n, P, C)
        self.showed = self.bits[:, plan.showed].reshape(n, P, C)  # times shown, up to 4
        self.accused = flags[:, plan.accused].reshape(n, P, C)
        self.eliminated = flags[:, plan.eliminated]
        self.games = np.arange(n)  # every game, in order
        self.first_plane = (self.games * P)[:, None]  # row of each game's first [P, C] plane row
        self.row_start = (self.games * plan.size)[:, None]  # of each row in the flat buffer


@cache
def _plan(rules: Rules, kind: str) -> _Plan:
    """The plan of a config's rules (hashed by identity: cheap) and an observation kind."""
    return _Plan(rules, kind)


def observe(
    state: State,
    players: np.ndarray | int,
    games: np.ndarray | None = None,
    kind: str = "player",
) -> np.ndarray:
    """Observations of a batch of (game, player) pairs.

    A fixed number of array calls whatever the number of pairs. A batch of one game with one
    viewer (the PettingZoo env) is read by table lookups instead (``_OneGame``), with the same
    result. The result belongs to the caller: its memory is reused by a later call only once
    every reference to it has been dropped.

    A finished game is observed like a running one by the viewer given: its final knowledge,
    with ``phase`` one-hot on "over", ``current_player`` all zeros (nobody decides) and ``turn``
    at the number of turns played. The solution is not added (the ``GAME_OVER`` event reveals
    it). ``state.current_player`` is -1 in a finished game, so it is no viewer there: pass an
    explicit viewer, or ``games=np.flatnonzero(~state.done)``.

    Args:
        state: The batch of games.
        players: The viewer of each selected game (an integer array), or one viewer for all (an
            int), in ``[0, P)``.
        games: Indices of the games to observe, a list or 1-D integer array (default: all, in
            order).
        kind: ``"player"`` (what the viewer may know) or ``"seer"`` (everything).

    Returns:
        ``float32[len(games), observation_size(config, kind)]``.

    Raises:
        ValueError: a viewer outside ``[0, P)`` (the message names the games) or a game index
            outside the batch.
        TypeError: viewers or games that are not integers (a bool mask for ``games``, floats).
    """
    plan = _plan(rules_for(state.config), kind)
    C, P = plan.C, plan.P
    if type(players) is int or isinstance(players, np.integer):  # one viewer for all
        if not 0 <= players < P:
            _bad_viewers(state, players, P, games)
        if games is None and len(state.seed) == 1:
            return plan.one_game().observe(state, int(players))  # one game: lookups
        viewer = column = int(players)  # kept a Python int (cheaper indexing)
    else:  # [n] or one for all: every use below broadcasts
        viewer = np.asarray(players)
        count = state.batch_size if games is None else len(games)
        if viewer.dtype.kind not in "iu" or viewer.shape not in ((), (count,)):
            raise TypeError(
                f"players must be an int or an integer array of shape ({count},) (one viewer per observed "
                f"game), got {viewer.dtype} of shape {viewer.shape}"
            )
        viewer = viewer.astype(np.int64, copy=False)
        if viewer.size and (viewer.min() < 0 or viewer.max() >= P):
            _bad_viewers(state, viewer, P, games)
        column = viewer[..., None]
    if games is None:
        work, out = plan.buffers(state.batch_size)
        index, first_plane = work.games, work.first_plane
        pick = _all
    else:
        index = games = _as_games(games, state.batch_size)
        work, out = plan.buffers(len(games))
        first_plane = (games * P)[:, None]
        pick = itemgetter(games)  # pick(field) = field[games]
    n = work.n

    # What the viewer holds and saw.
    hand = np.equal(pick(state._owner), column, out=work.hand)
    shown = state._shown_to[index, viewer]  # [n, C]: who showed the viewer card c (-1 nobody)
    peeked = state._peeked[index, viewer]
    work.face_down_seen[:] = peeked
    np.greater(shown < 0, hand | peeked, out=work.unseen)  # not shown, neither held nor seen
    relative = plan.relative[viewer]  # [(n,) P]: index j -> player
    np.equal(shown[:, None, :], relative[..., None], out=work.shown_to_me)
    # Public knowledge planes: rows of the [B * P, C] planes, viewer first.
    rows = first_plane + relative
    state.passed.reshape(-1, C).take(rows, axis=0, out=work.passed, mode="clip")
    state.accused.reshape(-1, C).take(rows, axis=0, out=work.accused, mode="clip")
    state.eliminated.reshape(-1).take(rows, out=work.eliminated, mode="clip")
    np.minimum(state.showed.reshape(-1, C).take(rows, axis=0), int(SHOWED_SCALE), out=work.showed)
    # The other one-hot pieces: one lookup of their columns, one scatter of 1s.
    location = pick(state.location)
    hot = [
        location,
        pick(state.weapon_room),
        pick(state.phase)[:, None],
        pick(state.turn_player)[:, None],
        pick(state.current_player)[:, None],
        pick(state.suggestion),
    ]
    if plan.seer:
        hot.append(pick(state._owner))
    cols = plan.hot_flat.take(plan.hot_base[viewer] + np.concatenate(hot, axis=1))
    work.flat[np.add(cols, work.row_start, out=cols)] = 1

    # To float32, then the other pieces (the trash column ``turn`` last). Every index below is in
    # range; ``mode="clip"`` only spares ``take`` its bounds-checking copy.
    np.copyto(out, work.bits)
    showed = out[:, plan.showed]
    np.multiply(showed, 1 / SHOWED_SCALE, out=showed)
    plan.xy_of.take(location, axis=0, out=out[:, plan.pawn_square].reshape(n, plan.S, 2), mode="clip")
    distance = out[:, plan.room_distance]
    plan.distance_of.take(state.location[index, viewer], axis=0, out=distance, mode="clip")
    plan.dice_of.take(pick(state.dice).view(np.uint16), out=out[:, plan.dice], mode="clip")
    out[:, plan.trash] = pick(state.turn) / plan.max_turns
    return out


def _bad_viewers(state: State, viewers: np.ndarray | int, P: int, games: object) -> NoReturn:
    """Raise the ``ValueError`` of viewers outside ``[0, P)``, naming the games and why."""
    viewers = np.broadcast_to(np.asarray(viewers), (state.batch_size if games is None else len(games),))
    observed = np.arange(state.batch_size) if games is None else np.asarray(games)
    bad = observed[(viewers < 0) | (viewers >= P)]
    over = ""
    if len(bad) and np.isin(bad, np.flatnonzero(state.done)).any():
        over = (
            " (a finished game has current_player -1: observe it with an explicit player in [0, P), "
            "or observe the running games only: games=np.flatnonzero(~state.done))"
        )
    raise ValueError(
        f"players must be in [0, {P}), got {viewers[(viewers < 0) | (viewers >= P)][:10].tolist()} "
        f"for games {bad[:10].tolist()}{over}"
    )


def _as_games(games: object, batch_size: int) -> np.ndarray:
    """``int64[n]`` of game indices in ``[0, batch_size)``, from a list or a 1-D integer array."""
    array = np.asarray(games)
    if array.ndim != 1 or (array.dtype.kind not in "iu" and array.size):
        raise TypeError(
            f"games must be a list or 1-D integer array of game indices (for a bool mask, pass "
            f"np.flatnonzero(mask)), got {array.dtype} of shape {array.shape}"
        )
    array = array.astype(np.int64, copy=False)
    if array.size and (array.min() < 0 or array.max() >= batch_size):
        raise ValueError(f"games must be indices in [0, {batch_size}), got {array[:10].tolist()}")
    return array


def _all(array: np.ndarray) -> np.ndarray:
    """Every game of a field (``observe`` without ``games``)."""
    return array
