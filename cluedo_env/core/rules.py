"""The rules of one game, written once and compiled: deal, roll, move, suggest, show, accuse, next turn,
game over and the legal actions (docs/RULES.md).

Each rule is plain scalar code for game ``i`` of a batch, compiled by numba (``cache=True``:
compiled on the first use in an environment, then loaded from numba's cache). The entry
points at the bottom run a rule over the games of the batch, in parallel (``prange``) for
large batches. ``core/game.py`` checks the input and calls them.

They take two byte buffers rather than dozens of arrays (a compiled call costs about 50 ns
per array argument, which would dominate a step of one game):

- the state's ``State._buffer``, which holds every field of the batch (``state.py``);
  ``_fields`` views it back as a ``Fields`` tuple (``g.location[i, s]`` ...);
- the config's rule tables (``Rules.tables``, packed by ``pack_tables``); ``_tables`` views
  them as a ``Tables`` tuple (``t.passage_to[room]`` ...).

The views are made with ``carray`` and hold no reference to their buffer (``_at``). The entry
points view the buffers once per run of games (``_advance``, ``step_one``, ``deal_games``) and
inline the rules of a game (``play``, ``legal``) into their loop: handing a compiled rule the
two tuples copies them (about 4 KB), which costs more than most rules. A step writes each
game's legal actions right after its move, while the game is in the cache (``step_games``).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import carray, njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from cluedo_env.core import events as ev
from cluedo_env.core.actions import RANGE_NAMES
from cluedo_env.core.board import ROWS
from cluedo_env.core.movement import MAX_ROLL, reach
from cluedo_env.core.rng import GOLDEN, M1, M2
from cluedo_env.core.state import ENVELOPE, FACE_DOWN, NOBODY, Phase

__all__ = ["DIMS", "TABLES", "Fields", "Tables", "buffer_size", "pack_tables"]

# Draw counters: the cards' shuffle keys use 0..C-1, the starting rolls the next ones, turn dice
# count up from DICE_DRAWS.
DICE_DRAWS = 1024
START_ROLLS = 2  # rounds of starting rolls that nearly always settle who starts
START_ROLL_ROUNDS = 16  # rounds drawn when those leave a tie
START_PLAYERS = ("dice", "scarlet", "random")  # GameConfig.start_player, by its code here
START_DICE, START_SCARLET, START_RANDOM = range(3)
MAX_KEY = np.uint64(2**64 - 1)
KIND_ROLL, KIND_PASSAGE, KIND_STAY, KIND_NO_MOVE, KIND_ENTER, KIND_TOWARD, KIND_SQUARE = range(7)
KIND_SUGGEST, KIND_NO_SUGGESTION, KIND_SHOW, KIND_ACCUSE, KIND_END_TURN = range(7, 12)
assert RANGE_NAMES[KIND_END_TURN] == "end_turn" and RANGE_NAMES[KIND_SQUARE] == "square"
NO_ACTION = -1  # a game that does not move this step (over, or not selected)
TURN, MOVE, SUGGEST, REFUTE, ACCUSE, OVER = (
    Phase.TURN, Phase.MOVE, Phase.SUGGEST, Phase.REFUTE, Phase.ACCUSE, Phase.OVER
)  # fmt: skip

# The config's numbers, then its tables (name, dtype, shape in terms of the numbers).
DIMS = (
    "S", "W", "R", "C", "P", "N", "A", "E", "num_doors", "classic", "dice", "max_turns", "duel",
    "auto_refute", "stay_in_room", "accuse_anywhere", "compact", "start_player", "num_face_down",
    "PASSAGE", "STAY", "NO_MOVE", "ENTER", "TOWARD", "SQUARE", "SHOW",
)  # fmt: skip
TABLES = (
    ("action_kind", np.int8, "A + 1"),  # range index of each action (-1: no action)
    ("action_arg", np.int32, "A + 1"),  # index within its range
    ("phase_bits", np.uint8, "A + 1"),  # bit p: the action's kind is played in phase p
    ("move_how", np.int16, "12"),  # per move kind: the MOVE event's "how"
    ("move_phase", np.int8, "12"),  # per move kind: the phase after it
    ("suggest_cards", np.int64, "S * W, 2"),  # suspect, weapon card of each suggestion
    ("accuse_cards", np.int64, "S * W * R, 3"),  # the three cards of each accusation
    ("passages", np.int8, "R"),  # where a room's secret passage leads (-1: none)
    ("passage_to", np.int16, "R + N + 1"),  # the same by location (itself where none)
    ("mask_rows", np.bool_, "12, A"),  # legal actions of each phase that do not depend on the game
    ("weapon_start", np.int8, "W"),
    ("pawn_start", np.int16, "S"),
    ("corner_rooms", np.int64, "4"),  # the duel's face-down cards lie on these rooms
    ("stop_within", np.bool_, "(R + N) * 13, N"),  # movement tables (core/movement.py)
    ("enter_within", np.bool_, "(R + N) * 13, R"),
    ("distance_from", np.int16, "R + N, N"),
    ("distance_by_room", np.uint8, "R, N"),
    ("corridor", np.int64, "25"),
    ("room_doors", np.int64, "R, 25"),
    ("square_row", np.int64, "N"),
    ("square_col", np.int64, "N"),
    ("door_room", np.int64, "num_doors"),
    ("door_square", np.int64, "num_doors"),
)
assert len(RANGE_NAMES) == 12 and MAX_ROLL + 1 == 13 and ROWS == 25
Tables = namedtuple("Tables", [*DIMS, *(name for name, _, _ in TABLES)])

# The state's fields in buffer order (``state.STATE_FIELDS``): name, dtype, shape after the batch.
Fields = namedtuple(
    "Fields",
    "owner shown_to peeked passed showed accused eliminated location weapon_room phase turn_player "
    "current_player suggestion seed turn dice may_suggest summoned reachable enterable terminated "
    "truncated winner rewards events num_events key draws envelope face_down",
)


def pack_tables(dims: dict[str, int], tables: dict[str, np.ndarray]) -> np.ndarray:
    """The ``uint8`` buffer ``_tables`` reads: the numbers ``DIMS``, the byte offset of each
    table of ``TABLES``, then the tables (each cast to its dtype, checked against its shape)."""
    header = np.array([dims[name] for name in DIMS] + [0] * len(TABLES), dtype=np.int64)
    parts, end = [], header.nbytes
    for name, dtype, shape in TABLES:
        array = np.ascontiguousarray(tables[name], dtype=dtype)
        want = eval(f"({shape},)", {}, dict(dims))
        if array.shape != want:
            raise AssertionError(f"table {name} has shape {array.shape}, the compiled rules read {want}")
        end += -end % 8
        header[len(DIMS) + len(parts)] = end
        parts.append((end, array))
        end += array.nbytes
    buffer = np.zeros(end, dtype=np.uint8)
    buffer[: header.nbytes] = header.view(np.uint8)
    for offset, array in parts:
        buffer[offset : offset + array.nbytes] = array.reshape(-1).view(np.uint8)
    return buffer


# --- the two buffers, viewed ------------------------------------------------------------------


@intrinsic
def _address(typingctx, integer):
    """The ``void *`` of an integer address (for ``carray``)."""

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return types.voidptr(integer), codegen


@njit(cache=True, nogil=True, inline="always")
def _at(buffer, offset):
    """The address ``offset`` bytes into ``buffer``. Arrays made on it by ``carray`` hold no
    reference to the buffer: handing them from rule to rule costs no reference counting (an
    atomic operation per array and call, which shared by the threads of a parallel step would
    cost more than the rules). The caller keeps the buffer alive for the call."""
    return _address(buffer.ctypes.data + offset)


# _nrt=True, explicitly: numba compiles a function without reference counting when its first caller
# has none (_advance), and carray cannot be compiled so.
@njit(cache=True, nogil=True, _nrt=True)
def _tables(buffer):
    h = carray(_at(buffer, 0), len(DIMS) + len(TABLES), np.int64)
    S, W, R, N, A, doors = h[0], h[1], h[2], h[5], h[6], h[8]
    o = h[len(DIMS) :]
    return Tables(
        h[0],
        h[1],
        h[2],
        h[3],
        h[4],
        h[5],
        h[6],
        h[7],
        h[8],
        h[9],
        h[10],
        h[11],
        h[12],
        h[13],
        h[14],
        h[15],
        h[16],
        h[17],
        h[18],
        h[19],
        h[20],
        h[21],
        h[22],
        h[23],
        h[24],
        h[25],
        carray(_at(buffer, o[0]), A + 1, np.int8),
        carray(_at(buffer, o[1]), A + 1, np.int32),
        carray(_at(buffer, o[2]), A + 1, np.uint8),
        carray(_at(buffer, o[3]), 12, np.int16),
        carray(_at(buffer, o[4]), 12, np.int8),
        carray(_at(buffer, o[5]), (S * W, 2), np.int64),
        carray(_at(buffer, o[6]), (S * W * R, 3), np.int64),
        carray(_at(buffer, o[7]), R, np.int8),
        carray(_at(buffer, o[8]), R + N + 1, np.int16),
        carray(_at(buffer, o[9]), (12, A), np.bool_),
        carray(_at(buffer, o[10]), W, np.int8),
        carray(_at(buffer, o[11]), S, np.int16),
        carray(_at(buffer, o[12]), 4, np.int64),
        carray(_at(buffer, o[13]), ((R + N) * 13, N), np.bool_),
        carray(_at(buffer, o[14]), ((R + N) * 13, R), np.bool_),
        carray(_at(buffer, o[15]), (R + N, N), np.int16),
        carray(_at(buffer, o[16]), (R, N), np.uint8),
        carray(_at(buffer, o[17]), 25, np.int64),
        carray(_at(buffer, o[18]), (R, 25), np.int64),
        carray(_at(buffer, o[19]), N, np.int64),
        carray(_at(buffer, o[20]), N, np.int64),
        carray(_at(buffer, o[21]), doors, np.int64),
        carray(_at(buffer, o[22]), doors, np.int64),
    )


@njit(cache=True, nogil=True, inline="always")
def _next(end, count, itemsize):
    """The offset of a field of ``count`` items after ``end`` (aligned to its item size) and its end."""
    start = end + (-end % itemsize)
    return start, start + count * itemsize


@njit(cache=True, nogil=True, _nrt=True)  # (explicitly: see _tables)
def _fields(buffer, B, t):
    """The state's fields as views of its buffer (laid out as ``state.pack`` lays them out)."""
    P, C, S, W, R, N, E = t.P, t.C, t.S, t.W, t.R, t.N, t.E
    o0, e = _next(0, B * C, 1)
    o1, e = _next(e, B * P * C, 1)
    o2, e = _next(e, B * P * C, 1)
    o3, e = _next(e, B * P * C, 1)
    o4, e = _next(e, B * P * C, 1)
    o5, e = _next(e, B * P * C, 1)
    o6, e = _next(e, B * P, 1)
    o7, e = _next(e, B * S, 2)
    o8, e = _next(e, B * W, 1)
    o9, e = _next(e, B, 1)
    o10, e = _next(e, B, 1)
    o11, e = _next(e, B, 1)
    o12, e = _next(e, B * 3, 2)
    o13, e = _next(e, B, 8)
    o14, e = _next(e, B, 4)
    o15, e = _next(e, B * 2, 1)
    o16, e = _next(e, B, 1)
    o17, e = _next(e, B * P, 1)
    o18, e = _next(e, B * N, 1)
    o19, e = _next(e, B * R, 1)
    o20, e = _next(e, B, 1)
    o21, e = _next(e, B, 1)
    o22, e = _next(e, B, 1)
    o23, e = _next(e, B * P, 4)
    o24, e = _next(e, B * E * 7, 2)
    o25, e = _next(e, B, 1)
    o26, e = _next(e, B, 8)
    o27, e = _next(e, B, 4)
    o28, e = _next(e, B * 3, 2)
    o29, e = _next(e, B * R, 2)
    return Fields(
        carray(_at(buffer, o0), (B, C), np.int8),
        carray(_at(buffer, o1), (B, P, C), np.int8),
        carray(_at(buffer, o2), (B, P, C), np.bool_),
        carray(_at(buffer, o3), (B, P, C), np.bool_),
        carray(_at(buffer, o4), (B, P, C), np.uint8),
        carray(_at(buffer, o5), (B, P, C), np.bool_),
        carray(_at(buffer, o6), (B, P), np.bool_),
        carray(_at(buffer, o7), (B, S), np.int16),
        carray(_at(buffer, o8), (B, W), np.int8),
        carray(_at(buffer, o9), B, np.int8),
        carray(_at(buffer, o10), B, np.int8),
        carray(_at(buffer, o11), B, np.int8),
        carray(_at(buffer, o12), (B, 3), np.int16),
        carray(_at(buffer, o13), B * 8, np.int64),
        carray(_at(buffer, o14), B * 4, np.int32),
        carray(_at(buffer, o15), (B, 2), np.int8),
        carray(_at(buffer, o16), B, np.bool_),
        carray(_at(buffer, o17), (B, P), np.bool_),
        carray(_at(buffer, o18), (B, N), np.bool_),
        carray(_at(buffer, o19), (B, R), np.bool_),
        carray(_at(buffer, o20), B, np.bool_),
        carray(_at(buffer, o21), B, np.bool_),
        carray(_at(buffer, o22), B, np.int8),
        carray(_at(buffer, o23), (B, P), np.float32),
        carray(_at(buffer, o24), (B, E, 7), np.int16),
        carray(_at(buffer, o25), B, np.int8),
        carray(_at(buffer, o26), B * 8, np.uint64),
        carray(_at(buffer, o27), B * 4, np.uint32),
        carray(_at(buffer, o28), (B, 3), np.int16),
        carray(_at(buffer, o29), (B, R), np.int16),
    )


@njit(cache=True, nogil=True)
def buffer_size(B, tables):
    """Bytes of the state buffer of ``B`` games as ``_fields`` lays it out (``state.pack`` must agree)."""
    t = _tables(tables)
    P, C, S, W, R, N, E = t.P, t.C, t.S, t.W, t.R, t.N, t.E
    e = 0
    for count, itemsize in (
        (B * C, 1), (B * P * C, 1), (B * P * C, 1), (B * P * C, 1), (B * P * C, 1), (B * P * C, 1),
        (B * P, 1), (B * S, 2), (B * W, 1), (B, 1), (B, 1), (B, 1), (B * 3, 2), (B, 8), (B, 4),
        (B * 2, 1), (B, 1), (B * P, 1), (B * N, 1), (B * R, 1), (B, 1), (B, 1), (B, 1), (B * P, 4),
        (B * E * 7, 2), (B, 1), (B, 8), (B, 4), (B * 3, 2), (B * R, 2),
    ):  # fmt: skip
        _, e = _next(e, count, itemsize)
    return e


# --- randomness (core/rng.py, one draw at a time) ---------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * M1
    z = (z ^ (z >> np.uint64(27))) * M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True, inline="always")
def draw(key, counter):
    """``rng.draw`` of one game: the ``uint64`` draw number ``counter`` of the game's ``key``."""
    return _mix(np.uint64(key) + (np.uint64(counter) + np.uint64(1)) * GOLDEN)


@njit(cache=True, nogil=True, inline="always")
def _face(drawn):
    return np.int64(drawn % np.uint64(6)) + 1


# --- events -----------------------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def _event(events, num_events, i, kind, player, a=-1, b=-1, c=-1, d=-1, card=-1):
    """Add an event to game ``i``'s events of this step (see ``core/events.py``). (It takes the two
    arrays rather than the whole state: a compiled call copies every array it is handed.)"""
    row = events[i, num_events[i]]
    row[ev.KIND], row[ev.PLAYER], row[ev.CARD] = kind, player, card
    row[ev.A], row[ev.B], row[ev.C], row[ev.D] = a, b, c, d
    num_events[i] += 1


# --- the deal ----------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def deal(g, t, i, seed):
    """Game ``i`` becomes the game of ``seed``: the envelope, the hands, the first player."""
    C, P = t.C, t.P
    key = _mix(np.uint64(seed) * GOLDEN + GOLDEN)
    # Every card gets a random key: in each category the largest goes into the envelope (the
    # first of equal keys), the others are dealt in ascending order of their keys.
    card_key = np.empty(C, dtype=np.uint64)
    for card in range(C):
        card_key[card] = draw(key, card)
    first_card = (0, t.S, t.S + t.W, C)
    for category in range(3):
        best = first_card[category]
        for card in range(first_card[category], first_card[category + 1]):
            if card_key[card] > card_key[best]:
                best = card
        g.envelope[i, category] = best
    for category in range(3):
        card_key[g.envelope[i, category]] = MAX_KEY  # last, never dealt
    order = np.argsort(card_key, kind="mergesort")  # stable: equal keys in card order
    g.owner[i, :] = ENVELOPE
    g.face_down[i, :] = -1
    for k in range(t.num_face_down):  # the duel: cards face down on the corner rooms
        g.face_down[i, t.corner_rooms[k]] = order[k]
        g.owner[i, order[k]] = FACE_DOWN
    g.num_events[i] = 0
    g.events[i] = -1
    for k in range(C - 3 - t.num_face_down):  # dealt round the table from player 0
        card, player = order[t.num_face_down + k], k % P
        g.owner[i, card] = player
        _event(g.events, g.num_events, i, ev.DEAL, player, card=card)
    first = _first_player(t, key)
    _event(g.events, g.num_events, i, ev.START, first, first)
    _event(g.events, g.num_events, i, ev.TURN, first, 0)

    g.seed[i] = seed
    g.key[i] = key
    g.draws[i] = DICE_DRAWS
    g.phase[i] = TURN
    g.turn_player[i] = first
    g.current_player[i] = first
    g.turn[i] = 0
    g.location[i] = t.pawn_start
    g.weapon_room[i] = t.weapon_start
    g.dice[i] = -1
    g.suggestion[i] = -1
    g.may_suggest[i] = False
    g.summoned[i] = False
    g.eliminated[i] = False
    g.reachable[i] = False
    g.enterable[i] = False
    g.terminated[i] = False
    g.truncated[i] = False
    g.winner[i] = NOBODY
    g.rewards[i] = 0.0
    g.passed[i] = False
    g.showed[i] = 0
    g.accused[i] = False
    g.shown_to[i] = -1
    g.peeked[i] = False


@njit(cache=True, nogil=True)
def _first_player(t, key):
    """Who starts: player 0 (``"scarlet"``), a random player, or the highest roll (``"dice"``)."""
    P, C = t.P, t.C
    if t.start_player == START_SCARLET:
        return 0
    if t.start_player == START_RANDOM:
        return np.int64(draw(key, C) % np.uint64(P))
    # Highest roll starts; the tied players roll again. Round r, player p, die d uses counter
    # C + 2P r + 2p + d. The winner is the player whose sequence of rolls is largest (the
    # lowest-numbered of equals): two rounds nearly always settle it, sixteen otherwise.
    first, tied = _highest_rolls(t, key, START_ROLLS)
    if tied:
        first, tied = _highest_rolls(t, key, START_ROLL_ROUNDS)
    return first


@njit(cache=True, nogil=True)
def _highest_rolls(t, key, rounds):
    """The player with the largest sequence of ``rounds`` rolls, and whether another equals it."""
    P = t.P
    best, best_value, tied = 0, np.uint64(0), False
    for p in range(P):
        value = np.uint64(0)  # the rolls (faces less one, summed), 4 bits a round, first highest
        for r in range(rounds):
            roll = np.uint64(0)
            for d in range(t.dice):
                roll += draw(key, t.C + 2 * P * r + 2 * p + d) % np.uint64(6)
            value = value * np.uint64(16) + roll
        if p == 0 or value > best_value:
            best, best_value, tied = p, value, False
        elif value == best_value:
            tied = True
    return best, tied


# --- a turn ------------------------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def roll(g, t, i):
    """The turn player rolls the dice; the squares and rooms its pawn can reach are worked out."""
    player = g.turn_player[i]
    first = _face(draw(g.key[i], g.draws[i]))
    second = _face(draw(g.key[i], g.draws[i] + 1)) if t.dice == 2 else -1
    g.draws[i] += t.dice
    g.dice[i, 0], g.dice[i, 1] = first, second
    total = first + max(second, 0)
    _event(g.events, g.num_events, i, ev.ROLL, player, first, second, total)
    if t.classic:
        pawns = g.location[i]
        reach(
            t.stop_within, t.enter_within, t.distance_from, t.corridor, t.room_doors, t.square_row,
            t.square_col, t.door_room, t.door_square, pawns[player], total, pawns, g.reachable[i],
            g.enterable[i],
        )  # fmt: skip
    g.phase[i] = MOVE


@njit(cache=True, nogil=True, inline="always")
def move(g, t, i, kind, arg):
    """The turn player's own move: a passage, staying, entering a room, a square, or blocked.

    A move that ends in a room (by the passage, staying, entering) lets the player suggest there;
    the others go on to the accusation. In the duel, arriving in a corner room, the player looks
    at the card lying face down there.
    """
    player = g.turn_player[i]
    here = g.location[i, player]
    to = here
    if kind == KIND_PASSAGE:
        to = t.passage_to[here]
    elif kind == KIND_ENTER:
        to = arg
    elif kind == KIND_SQUARE:
        to = t.R + arg
    elif kind == KIND_TOWARD:  # the reachable square with the fewest moves into the room, lowest first
        best, fewest = 0, 256
        for square in range(t.N):
            moves = t.distance_by_room[arg, square] if g.reachable[i, square] else 255
            if moves < fewest:
                best, fewest = square, moves
        to = t.R + best
    g.location[i, player] = to
    _event(g.events, g.num_events, i, ev.MOVE, player, player, here, to, t.move_how[kind])
    phase = t.move_phase[kind]
    if to >= t.R and phase == SUGGEST:  # (an unchecked passage or stay from a square)
        phase = ACCUSE
    g.phase[i] = phase
    if phase == SUGGEST:
        g.may_suggest[i] = True
    if t.duel and (kind == KIND_PASSAGE or kind == KIND_ENTER) and to < t.R:  # noqa: SIM109 (numba)
        _peek(g, i, player, to)


@njit(cache=True, nogil=True, inline="always")
def _peek(g, i, player, room):
    """Duel: ``player`` arrives in ``room`` and looks at the card lying face down there, if any."""
    card = g.face_down[i, room]
    if card >= 0:
        _event(g.events, g.num_events, i, ev.PEEK, player, room, card=card)
        g.peeked[i, player, card] = True


@njit(cache=True, nogil=True, inline="always")
def suggest(g, t, i, arg):
    """The turn player names a suspect and a weapon in its room; both are moved there, and the
    players are asked clockwise: the first holding a named card refutes, those before pass."""
    P = t.P
    suggester = g.turn_player[i]
    room = g.location[i, suggester]
    suspect, weapon_card, room_card = t.suggest_cards[arg, 0], t.suggest_cards[arg, 1], t.S + t.W + room
    g.suggestion[i, 0], g.suggestion[i, 1], g.suggestion[i, 2] = suspect, weapon_card, room_card
    _event(g.events, g.num_events, i, ev.SUGGEST, suggester, suspect, weapon_card, room_card)

    pawn_from = g.location[i, suspect]
    if pawn_from != room:  # the named suspect's pawn is brought into the room
        g.location[i, suspect] = room
        _event(g.events, g.num_events, i, ev.MOVE, suggester, suspect, pawn_from, room, ev.MOVE_SUMMONED)
        if suspect < P:  # a player's pawn: it may suggest there on its next turn
            g.summoned[i, suspect] = True
            if t.duel:
                _peek(g, i, suspect, room)
    weapon = weapon_card - t.S
    weapon_from = g.weapon_room[i, weapon]
    if weapon_from != room:
        g.weapon_room[i, weapon] = room
        _event(g.events, g.num_events, i, ev.WEAPON, suggester, weapon, weapon_from, room)

    for k in range(1, P):
        asked = (suggester + k) % P
        held = 0
        for c in range(3):
            held += g.owner[i, g.suggestion[i, c]] == asked
        if held:
            g.current_player[i] = asked
            g.phase[i] = REFUTE
            if t.auto_refute and held == 1:  # only one card to show: shown without a decision
                for c in range(3):
                    if g.owner[i, g.suggestion[i, c]] == asked:
                        show(g, t, i, g.suggestion[i, c])
            return
        for c in range(3):
            g.passed[i, asked, g.suggestion[i, c]] = True
        _event(g.events, g.num_events, i, ev.PASS, asked, suggester)
    _event(g.events, g.num_events, i, ev.NO_REFUTE, suggester)
    g.phase[i] = ACCUSE


@njit(cache=True, nogil=True, inline="always")
def show(g, t, i, card):
    """The refuter shows ``card`` to the suggester (the others see that a card was shown)."""
    refuter, suggester = g.current_player[i], g.turn_player[i]
    _event(g.events, g.num_events, i, ev.SHOW, refuter, suggester, card=card)
    for c in range(3):
        named = g.suggestion[i, c]
        g.showed[i, refuter, named] = min(g.showed[i, refuter, named], 254) + 1
    g.shown_to[i, suggester, card] = refuter
    g.current_player[i] = suggester
    g.phase[i] = ACCUSE


@njit(cache=True, nogil=True, inline="always")
def accuse(g, t, i, arg):
    """The turn player names three cards: right wins the game; wrong puts the player out of
    moving, suggesting and accusing (it still refutes), and the game ends if everyone is out."""
    accuser = g.turn_player[i]
    right = True
    for c in range(3):
        right &= t.accuse_cards[arg, c] == g.envelope[i, c]
    cards = t.accuse_cards[arg]
    _event(g.events, g.num_events, i, ev.ACCUSE, accuser, cards[0], cards[1], cards[2], 1 if right else 0)
    if right:
        g.winner[i] = accuser
        g.rewards[i] = -1.0
        g.rewards[i, accuser] = 1.0
        _game_over(g, i, accuser, ev.END_WIN, True)
        return
    g.eliminated[i, accuser] = True
    for c in range(3):
        g.accused[i, accuser, t.accuse_cards[arg, c]] = True
    if g.eliminated[i].all():
        g.rewards[i] = -1.0
        _game_over(g, i, NOBODY, ev.END_ALL_WRONG, True)
        return
    next_turn(g, t, i)


@njit(cache=True, nogil=True, inline="always")
def next_turn(g, t, i):
    """The turn passes clockwise to the next player still in (eliminated players only refute);
    a game reaching ``max_turns`` turns is truncated instead."""
    player = g.turn_player[i]
    g.summoned[i, player] = False
    g.may_suggest[i] = False
    g.dice[i] = -1
    g.suggestion[i] = -1
    g.turn[i] += 1
    if g.turn[i] >= t.max_turns:
        _game_over(g, i, NOBODY, ev.END_TRUNCATED, False)
        return
    nxt = player
    for k in range(1, t.P + 1):  # (the player itself when all the others are out)
        nxt = (player + k) % t.P
        if not g.eliminated[i, nxt]:
            break
    g.turn_player[i] = nxt
    g.current_player[i] = nxt
    g.phase[i] = TURN
    _event(g.events, g.num_events, i, ev.TURN, nxt, g.turn[i])


@njit(cache=True, nogil=True, inline="always")
def _game_over(g, i, winner, reason, terminated):
    g.terminated[i] = terminated
    g.truncated[i] = not terminated
    g.phase[i] = OVER
    g.current_player[i] = NOBODY
    _event(
        g.events,
        g.num_events,
        i,
        ev.GAME_OVER,
        winner,
        g.envelope[i, 0],
        g.envelope[i, 1],
        g.envelope[i, 2],
        reason,
    )


@njit(cache=True, nogil=True, inline="always")
def play(g, t, i, action):
    """Game ``i`` plays ``action`` (checked by ``_first_bad``): a roll, a move, a suggestion, the
    choice not to suggest, a card shown, an accusation, or the end of the turn."""
    kind, arg = t.action_kind[action], t.action_arg[action]
    if kind == KIND_ROLL:
        roll(g, t, i)
    elif kind <= KIND_SQUARE:
        move(g, t, i, kind, arg)
    elif kind == KIND_SUGGEST:
        suggest(g, t, i, arg)
    elif kind == KIND_NO_SUGGESTION:
        g.phase[i] = ACCUSE
    elif kind == KIND_SHOW:
        show(g, t, i, arg)
    elif kind == KIND_ACCUSE:
        accuse(g, t, i, arg)
    else:  # end the turn
        next_turn(g, t, i)


@njit(cache=True, nogil=True, inline="always")
def legal(g, t, i, mask):
    """Write game ``i``'s legal actions into ``mask`` (``bool[A]``); none once the game is over."""
    phase = g.phase[i]
    player = g.turn_player[i]
    location = g.location[i, player]
    in_room = location < t.R
    may_accuse = 1 if in_room or t.accuse_anywhere else 0
    _copy(mask, t.mask_rows[2 * phase + may_accuse], 0)
    if phase == TURN and t.classic and in_room:
        mask[t.PASSAGE] = t.passages[location] >= 0
        mask[t.STAY] = t.stay_in_room != 0 or g.summoned[i, player]
    elif phase == MOVE:
        any_room = False
        for r in range(t.R):
            mask[t.ENTER + r] = g.enterable[i, r]
            any_room |= g.enterable[i, r]
        reachable = g.reachable[i]
        any_square = False
        for square in range(t.N):
            any_square |= reachable[square]
        if t.compact:
            if any_square:
                for r in range(t.R):
                    mask[t.TOWARD + r] = not g.enterable[i, r] and not (in_room and r == location)
        else:
            _copy(mask, reachable, t.SQUARE)
        mask[t.NO_MOVE] = not any_square and not any_room
    elif phase == REFUTE:
        for c in range(3):
            card = g.suggestion[i, c]
            mask[t.SHOW + card] = g.owner[i, card] == g.current_player[i]


@njit(cache=True, nogil=True, inline="always")
def _copy(to, source, start):
    """``to[start : start + len(source)] = source`` as a plain loop: numba's slice assignment of
    one array to another takes a general path that costs about 15 times more for a row of a few
    hundred entries (a mask row), which would be most of a step."""
    for k in range(len(source)):
        to[start + k] = source[k]


# --- over the batch --------------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def _moves(g, selected, i):
    """Whether game ``i`` plays its action this step: it is not over and it is ``selected`` (an
    empty ``selected``: every game is)."""
    return g.phase[i] != OVER and (len(selected) == 0 or selected[i])


@njit(cache=True, nogil=True, inline="always")
def _refused(g, t, i, action):
    """Whether game ``i`` refuses ``action`` even unchecked: out of range, or of a kind not played
    in its phase."""
    return not (0 <= action < t.A and (t.phase_bits[action] >> g.phase[i]) & 1 == 1)


@njit(cache=True, nogil=True, inline="always")
def _step_game(g, t, i, action, out):
    """Game ``i``'s step: its events and rewards cleared, then ``action`` played (``NO_ACTION``:
    none), then, with ``out`` (not empty), its legal actions written into ``out[i]`` while its
    state is in the cache."""
    g.events[i, : g.num_events[i]] = -1  # (the rows after them are unused: -1 already)
    g.num_events[i] = 0
    g.rewards[i] = 0.0
    if action != NO_ACTION:
        play(g, t, i, action)
    if len(out):
        legal(g, t, i, out[i])


@njit(cache=True, nogil=True, _nrt=False)
def _advance(state, tables, B, actions, selected, out, first, last):
    """Games ``first`` .. ``last - 1`` of a batch of ``B``: with ``actions`` (not empty), their
    step (``_step_game``); without, their legal actions into ``out``. (One call for a run of
    games: a compiled call copies the state's and the tables' tuples, which costs more than most
    rules.)

    Compiled without numba's reference counting (``_nrt=False``: the rules allocate nothing):
    with it, each rule inlined into the loop counts a reference to each of the tuples' fifty
    arrays on the way in and out, which cost about 80 ns per game, more than a whole step of
    most games (their views hold no reference to count, see ``_at``)."""
    t = _tables(tables)
    g = _fields(state, B, t)
    for i in range(first, last):
        if len(actions):
            _step_game(g, t, i, actions[i] if _moves(g, selected, i) else NO_ACTION, out)
        else:
            legal(g, t, i, out[i])


@njit(cache=True, nogil=True, _nrt=False)
def _first_refusing(state, tables, actions, selected, check, scratch):
    """The first game of ``step_games`` refusing its action, or -1 (``scratch``: ``bool[A]`` where a
    game's legal actions are worked out for the check)."""
    t = _tables(tables)
    g = _fields(state, len(actions), t)
    for i in range(len(actions)):
        if _moves(g, selected, i):
            if _refused(g, t, i, actions[i]):
                return i
            if check:
                legal(g, t, i, scratch)
                if not scratch[actions[i]]:
                    return i
    return -1


@njit(cache=True, nogil=True)
def step_games(state, tables, actions, selected, check, out):
    """Play ``actions[i]`` in game ``i`` (see ``_moves``), and with ``out`` (not empty) write the
    legal actions after the step into it, one game after the other on this thread. Returns -1, or
    the first game refusing its action (``_refused``, or with ``check`` not legal): then nothing
    has changed."""
    scratch = np.empty(_tables(tables).A if check else 0, dtype=np.bool_)
    bad = _first_refusing(state, tables, actions, selected, check, scratch)
    if bad < 0:
        _advance(state, tables, len(actions), actions, selected, out, 0, len(actions))
    return bad


# The parallel entries: only these hold a prange, and no compiled function calls them (game.py does).
# numba stores with a cached parallel function the call that starts its threads when it is loaded
# from the cache, but not with a function compiled to call it once it was itself loaded from the
# cache (numba#8578): that one, loaded by a later process, calls into threads never started (a
# crash, rc 139), and which of them a process compiles depends on what ran before in that cache.
# Each entry is therefore whole: its check, its loop over the runs of games.


@njit(cache=True, nogil=True, parallel=True)
def step_games_parallel(state, tables, actions, selected, check, out, runs):
    """``step_games`` over the cores, in ``runs`` equal runs of games (one per thread: each run
    views the buffers once, and a step's work varies little from game to game). (``runs`` comes
    from the caller: ``numba.get_num_threads`` here would keep this from the cache.)"""
    scratch = np.empty(_tables(tables).A if check else 0, dtype=np.bool_)
    bad = _first_refusing(state, tables, actions, selected, check, scratch)
    if bad < 0:
        B = len(actions)
        runs = max(1, min(B, runs))
        for r in prange(runs):
            _advance(state, tables, B, actions, selected, out, r * B // runs, (r + 1) * B // runs)
    return bad


@njit(cache=True, nogil=True, _nrt=False)
def step_one(state, tables, action, out):
    """``step_games`` of a batch of one game without the check, from its action as an integer, in
    one call (without reference counting, as ``_advance``)."""
    t = _tables(tables)
    g = _fields(state, 1, t)
    if g.phase[0] == OVER:
        action = NO_ACTION
    elif _refused(g, t, 0, action):
        return 0
    _step_game(g, t, 0, action, out)
    return -1


@njit(cache=True, nogil=True)
def legal_games(state, tables, out):
    """Every game's legal actions into ``out`` (``bool[B, A]``), one game after the other."""
    B = len(out)
    _advance(state, tables, B, np.empty(0, dtype=np.int64), np.empty(0, dtype=np.bool_), out, 0, B)


@njit(cache=True, nogil=True, parallel=True)
def legal_games_parallel(state, tables, out, runs):
    """``legal_games`` over the cores, in ``runs`` runs of games (as ``step_games_parallel``). (The
    empty arrays are made by ``np.empty``: ``np.zeros`` would be a parallel loop of its own.)"""
    B, no_actions, every_game = len(out), np.empty(0, dtype=np.int64), np.empty(0, dtype=np.bool_)
    runs = max(1, min(B, runs))
    for r in prange(runs):
        _advance(state, tables, B, no_actions, every_game, out, r * B // runs, (r + 1) * B // runs)


@njit(cache=True, nogil=True)
def deal_games(state, tables, B, games, seeds, out):
    """Deal game ``games[k]`` of a batch of ``B`` from ``seeds[k]``; with ``out`` (not empty)
    write the new games' legal actions into their rows of ``out``."""
    t = _tables(tables)
    g = _fields(state, B, t)
    for k in range(len(games)):
        deal(g, t, games[k], seeds[k])
        if len(out):
            legal(g, t, games[k], out[games[k]])
