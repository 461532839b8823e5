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

from functools import lru_cache
from typing import NoReturn

import numpy as np
from numba import njit, prange

from cluedo_env.core.batched import recompiled_with_the_rules
from cluedo_env.core.config import CONFIGS_KEPT, GameConfig
from cluedo_env.core.game import PARALLEL_BATCH, Rules, rules_for
from cluedo_env.core.state import ENVELOPE, FACE_DOWN, NOBODY, Phase, State, game_indices
from cluedo_env.core.views import flat_view, state_views, table_views

__all__ = ["OBSERVATION_KINDS", "observation_pieces", "observation_size", "observe"]

OBSERVATION_KINDS = ("player", "seer")
SHOWED_SCALE = 4  # times shown are counted up to 4 (then read as 1)
# From this many observations at once the games are shared among numba's threads (below, starting
# the threads costs about what they save).
PARALLEL_FROM = PARALLEL_BATCH  # the same threshold as the rules' parallel step
_CHUNK = 32  # games per parallel task
_PHASES = len(Phase.NAMES)  # columns of the phase piece

# The pieces in their order. The compiled writer finds piece k at column ``at[k]`` of a row
# (``at[OWNER]`` is -1 in the "player" kind), with k named by the constants below.
_PIECES = (
    "hand",
    "unseen",
    "shown_to_me",
    "face_down_seen",
    "passed",
    "showed",
    "accused",
    "eliminated",
    "pawn_room",
    "pawn_square",
    "weapon_room",
    "room_distance",
    "phase",
    "dice",
    "turn_player",
    "current_player",
    "suggestion",
    "turn",
    "owner",
)
(
    HAND,
    UNSEEN,
    SHOWN_TO_ME,
    FACE_DOWN_SEEN,
    PASSED,
    SHOWED,
    ACCUSED,
    ELIMINATED,
    PAWN_ROOM,
    PAWN_SQUARE,
    WEAPON_ROOM,
    ROOM_DISTANCE,
    PHASE,
    DICE,
    TURN_PLAYER,
    CURRENT_PLAYER,
    SUGGESTION,
    TURN,
    OWNER,
) = range(len(_PIECES))


@lru_cache(maxsize=CONFIGS_KEPT)
def observation_pieces(
    config: GameConfig, kind: str = "player"
) -> tuple[tuple[str, tuple[int, ...], int], ...]:
    """``(name, shape, offset)`` of each piece of the flat observation."""
    if kind not in OBSERVATION_KINDS:
        raise ValueError(f"observation kind must be one of {list(OBSERVATION_KINDS)}, got {kind!r}")
    e = config.cards
    C, P, S, W, R = e.num_cards, config.num_players, e.num_suspects, e.num_weapons, e.num_rooms
    shapes = {
        "hand": (C,),
        "unseen": (C,),
        "shown_to_me": (P, C),
        "face_down_seen": (C,),
        "passed": (P, C),
        "showed": (P, C),
        "accused": (P, C),
        "eliminated": (P,),
        "pawn_room": (S, R + 1),
        "pawn_square": (S, 2),
        "weapon_room": (W, R),
        "room_distance": (R,),
        "phase": (len(Phase.NAMES),),
        "dice": (1,),
        "turn_player": (P,),
        "current_player": (P,),
        "suggestion": (C,),
        "turn": (1,),
        "owner": (C, P + 2),
    }
    pieces, offset = [], 0
    for name in _PIECES if kind == "seer" else _PIECES[:OWNER]:
        pieces.append((name, shapes[name], offset))
        offset += int(np.prod(shapes[name]))
    return tuple(pieces)


def observation_size(config: GameConfig, kind: str = "player") -> int:
    """Length of the flat observation vector."""
    _name, shape, offset = observation_pieces(config, kind)[-1]
    return offset + int(np.prod(shape))


class _Tables:
    """What the compiled writer needs of one (config, kind) besides the state and the rules' tables,
    built once.

    Attributes:
        at: ``int64[len(_PIECES)]`` the first column of each piece (-1: not in this kind).
        size: The length of a row.
        square_xy: ``float32[R + N + 1, 2]`` the ``pawn_square`` values of each location
            (rooms, squares, and ``R + N``: off the board with ``board="none"``): 0 but on a square.
        room_distance: ``float32[R + N + 1, R]`` the ``room_distance`` values of each location.
        max_turns: ``float(config.max_turns)``.
        compiled: ``(at, square_xy, room_distance, max_turns)``, as the compiled writer takes them.
    """

    def __init__(self, rules: Rules, kind: str) -> None:
        pieces = observation_pieces(rules.config, kind)
        self.at = np.full(len(_PIECES), -1, dtype=np.int64)
        for name, _shape, offset in pieces:
            self.at[_PIECES.index(name)] = offset
        self.size = observation_size(rules.config, kind)
        locations = rules.R + rules.N + 1
        self.square_xy = np.zeros((locations, 2), dtype=np.float32)
        self.room_distance = np.zeros((locations, rules.R), dtype=np.float32)
        if rules.classic:
            squares = slice(rules.R, rules.R + rules.N)
            self.square_xy[squares] = rules.square_xy
            self.room_distance[: rules.R + rules.N] = rules.location_room_distance / rules.max_room_distance
        self.max_turns = float(rules.config.max_turns)
        self.compiled = (self.at, self.square_xy, self.room_distance, self.max_turns)


def _tables(rules: Rules, kind: str) -> _Tables:
    """The tables of a config's rules and an observation kind, built once and kept on the rules (they
    live as long as the rules do: ``rules_for``)."""
    tables = rules.observation_tables.get(kind)
    if tables is None:
        tables = rules.observation_tables[kind] = _Tables(rules, kind)
    return tables


@njit(cache=True, inline="always")  # inlined into the loop over the games: no call per row
def _write_observation(row, g, t, i, viewer, tables):  # pragma: no cover - compiled
    """Write into ``row`` the observation of game ``i`` by ``viewer``: the table of the module docstring.

    ``g`` and ``t`` are the state's fields and the rules' numbers (``views.state_views``,
    ``views.table_views``); ``tables`` is ``_Tables.compiled``. Each piece is written through a
    view of its own columns (``_piece``) by loops over contiguous runs of columns and of a field,
    which the compiler turns into vector instructions: a piece of every player's cards is two
    runs (the players from the viewer on, then those before it: the player axis starts at the
    viewer). The one-hot pieces are cleared, then get their ones.
    """
    at, square_xy, room_distance, max_turns = tables
    C, P, S, W, R = t.C, t.P, t.S, t.W, t.R
    owner, shown, peeked = g.owner[i], g.shown_to[i, viewer], g.peeked[i, viewer]
    hand, unseen = _piece(row, at, HAND, C), _piece(row, at, UNSEEN, C)
    for c in range(C):
        hand[c] = owner[c] == viewer
    for c in range(C):  # (& rather than "and": no branch per card)
        unseen[c] = (owner[c] != viewer) & (shown[c] == NOBODY) & (peeked[c] == 0)
    _copy(_piece(row, at, FACE_DOWN_SEEN, C), peeked)
    shown_to_me = _cleared(row, at, SHOWN_TO_ME, P * C)
    for c in range(C):  # the one of each card shown to the viewer, on the axis of the player who showed it
        if shown[c] != NOBODY:
            shown_to_me[_player_at(shown[c], -viewer, P) * C + c] = 1.0
    later, earlier = (P - viewer) * C, viewer * C  # cards of the players from the viewer on, before it
    for piece, field in ((PASSED, g.passed), (ACCUSED, g.accused)):
        cards, columns = flat_view(field[i]), _piece(row, at, piece, P * C)
        _copy(columns[:later], cards[earlier:])
        _copy(columns[later:], cards[:earlier])
    showed, columns = flat_view(g.showed[i]), _piece(row, at, SHOWED, P * C)
    for piece_columns, times in ((columns[:later], showed[earlier:]), (columns[later:], showed[:earlier])):
        for c in range(len(piece_columns)):
            piece_columns[c] = min(times[c], SHOWED_SCALE) / SHOWED_SCALE
    eliminated, turn_player = _piece(row, at, ELIMINATED, P), _piece(row, at, TURN_PLAYER, P)
    current_player = _piece(row, at, CURRENT_PLAYER, P)
    for j in range(P):  # index j of a player axis
        player = _player_at(viewer, j, P)
        eliminated[j] = g.eliminated[i, player]
        turn_player[j] = player == g.turn_player[i]
        current_player[j] = player == g.current_player[i]  # nobody once the game is over
    pawn_room, pawn_square = _cleared(row, at, PAWN_ROOM, S * (R + 1)), _piece(row, at, PAWN_SQUARE, 2 * S)
    for s in range(S):
        where = g.location[i, s]
        pawn_room[s * (R + 1) + min(where, R)] = 1.0  # column R: in no room
        pawn_square[2 * s] = square_xy[where, 0]
        pawn_square[2 * s + 1] = square_xy[where, 1]
    weapon_room = _cleared(row, at, WEAPON_ROOM, W * R)
    for w in range(W):
        weapon_room[w * R + g.weapon_room[i, w]] = 1.0
    # from the viewer's pawn: player p plays suspect p
    _copy(_piece(row, at, ROOM_DISTANCE, R), room_distance[g.location[i, viewer]])
    _cleared(row, at, PHASE, _PHASES)[g.phase[i]] = 1.0
    row[at[DICE]] = (max(g.dice[i, 0], 0) + max(g.dice[i, 1], 0)) / 12  # a die of -1: not rolled
    suggestion = _cleared(row, at, SUGGESTION, C)
    for card in g.suggestion[i]:
        if card != NOBODY:
            suggestion[card] = 1.0
    row[at[TURN]] = g.turn[i] / max_turns
    if at[OWNER] >= 0:  # seer: holders by the viewer's player axis, then the envelope, then face down
        holders = _cleared(row, at, OWNER, C * (P + 2))
        for c in range(C):
            holder = owner[c]
            column = (
                P if holder == ENVELOPE else P + 1 if holder == FACE_DOWN else _player_at(holder, -viewer, P)
            )
            holders[c * (P + 2) + column] = 1.0


@njit(cache=True, inline="always")
def _player_at(player, steps, P):  # pragma: no cover - compiled
    """``(player + steps) % P`` for ``player`` in ``[0, P)`` and ``steps`` in ``(-P, P)``, without a
    division (a division per player axis costs more than the axis's columns)."""
    k = player + steps
    return k - P if k >= P else k + P if k < 0 else k


@njit(cache=True, inline="always")
def _piece(row, at, piece, size):  # pragma: no cover - compiled
    """The ``size`` columns of ``piece`` in ``row``, a view indexed from 0: a loop's index into it is
    known not negative, so the compiler drops the check for an index from the end (which a column
    worked out as ``at[piece] + k`` keeps at every write)."""
    return row[at[piece] : at[piece] + size]


@njit(cache=True, inline="always")
def _cleared(row, at, piece, size):  # pragma: no cover - compiled
    """``_piece``, its columns set to 0 (a one-hot piece, before its ones)."""
    columns = row[at[piece] : at[piece] + size]
    for k in range(size):
        columns[k] = 0.0
    return columns


@njit(cache=True, inline="always")
def _copy(columns, values):  # pragma: no cover - compiled
    """``columns[k] = values[k]`` (as float32) for every column: one loop over contiguous runs."""
    for k in range(len(columns)):
        columns[k] = values[k]


@njit(cache=True, _nrt=False)
def _write_rows(out, games, viewers, tables, state, rules):  # pragma: no cover - compiled
    """Row ``k`` of ``out``: game ``games[k]`` observed by ``viewers[k]``, one game after the other.

    ``state`` and ``rules`` are the two byte buffers of ``core/layout.py`` (``State._buffer``,
    ``Rules.tables``), viewed here as the compiled rules view them: one argument each, where the
    fields as arrays cost numba's dispatch about 50 ns apiece at every call. Compiled without
    reference counting (it allocates nothing): with it, every view of a row and every field
    handed to the inlined writer counts a reference, shared by the threads."""
    t = table_views(rules)
    g = state_views(state, t)
    for k in range(len(games)):
        _write_observation(out[k], g, t, games[k], viewers[k], tables)


@njit(cache=True, parallel=True)
def _write_rows_in_parallel(out, games, viewers, tables, state, rules):  # pragma: no cover - compiled
    """``_write_rows`` over chunks of ``_CHUNK`` rows shared among the threads."""
    n = len(games)
    for chunk in prange((n + _CHUNK - 1) // _CHUNK):
        rows = slice(chunk * _CHUNK, min(n, (chunk + 1) * _CHUNK))
        _write_rows(out[rows], games[rows], viewers[rows], tables, state, rules)


# The writer views the state through core/views.py and core/layout.py, whose changes numba's cache
# does not see: the rules' cache check recompiles it with them.
recompiled_with_the_rules(_write_rows, _write_rows_in_parallel)


def observe(
    state: State,
    players: np.ndarray | int,
    games: np.ndarray | None = None,
    kind: str = "player",
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Observations of a batch of (game, player) pairs.

    Each row is written by compiled code for one game and one viewer (``_write_observation``),
    the rows shared among numba's threads from ``PARALLEL_FROM`` rows (``NUMBA_NUM_THREADS``
    sets how many; ``core/threading_layer.py`` which layer runs them). The result is a new array unless
    ``out`` is given: a caller observing the same number of games again and again (a training
    loop) may pass the same array each time, which spares the allocation.

    A finished game is observed like a running one by the viewer given: its final knowledge,
    with ``phase`` one-hot on "over", ``current_player`` all zeros (nobody decides) and ``turn``
    as in its last turn (``state.turn``: the turns before it; 1 in a game truncated at ``max_turns``).
    The solution is not added (the ``GAME_OVER`` event reveals it). ``state.current_player`` is -1
    in a finished game, so it is no viewer there: pass an explicit viewer, or
    ``games=np.flatnonzero(~state.done)``.

    Args:
        state: The batch of games.
        players: The viewer of each selected game (an integer array), or one viewer for all (an
            int), in ``[0, P)``.
        games: Indices of the games to observe, a list or 1-D integer array (default: all, in
            order; a game may be observed more than once). A bool mask is refused: pass
            ``np.flatnonzero(mask)``.
        kind: ``"player"`` (what the viewer may know) or ``"seer"`` (everything).
        out: Where to write the result: a C-contiguous, writeable ``float32[len(games),
            observation_size(config, kind)]`` array (its contents are overwritten), or ``None``
            for a new array.

    Returns:
        ``float32[len(games), observation_size(config, kind)]``: ``out`` when given.

    Raises:
        ValueError: a viewer outside ``[0, P)`` (the message names the games), a game index
            outside the batch, or an ``out`` of the wrong shape.
        TypeError: viewers or games that are not integers (a bool mask for ``games``, floats),
            ``games`` that is no list or 1-D array (checked before ``players``, whose shape it
            sets), or an ``out`` that is no writeable C-contiguous float32 array.
    """
    rules = rules_for(state.config)
    tables = _tables(rules, kind)
    P = state.config.num_players
    if games is not None:  # checked first: the viewers' shape is read from it
        games = game_indices(games, state.batch_size)
    n = state.batch_size if games is None else len(games)
    if type(players) is int or isinstance(players, np.integer):  # one viewer for all
        if not 0 <= players < P:
            _bad_viewers(state, players, P, games)
        viewers = np.empty(n, dtype=np.int64)
        viewers.fill(players)
    else:
        viewers = np.asarray(players)
        if viewers.dtype.kind not in "iu" or viewers.shape not in ((), (n,)):
            raise TypeError(
                f"players must be an int or an integer array of shape ({n},) (one viewer per observed "
                f"game), got {viewers.dtype} of shape {viewers.shape}"
            )
        if viewers.size and (viewers.min() < 0 or viewers.max() >= P):
            _bad_viewers(state, viewers, P, games)
        viewers = np.ascontiguousarray(np.broadcast_to(viewers, (n,)), dtype=np.int64)
    if games is None:
        games = np.arange(n)
    if out is None:
        out = np.empty((n, tables.size), dtype=np.float32)
    else:
        _check_out(out, (n, tables.size))
    write = _write_rows_in_parallel if n >= PARALLEL_FROM else _write_rows
    write(out, games, viewers, tables.compiled, state._buffer, rules.tables)
    return out


def _check_out(out: object, shape: tuple[int, int]) -> None:
    """Refuse an ``out`` the writer cannot fill row by row: the wrong type, dtype, layout or shape."""
    if not isinstance(out, np.ndarray) or out.dtype != np.float32:
        what = f"{out.dtype} array" if isinstance(out, np.ndarray) else type(out).__name__
        raise TypeError(f"out must be a float32 numpy array, got a {what}")
    if out.shape != shape:
        raise ValueError(f"out must have shape {shape} (games observed, observation size), got {out.shape}")
    if not (out.flags.c_contiguous and out.flags.writeable):
        raise TypeError("out must be a C-contiguous, writeable array (np.empty(shape, dtype=np.float32))")


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
