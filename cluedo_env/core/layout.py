"""The layout of the two byte buffers the compiled rules read, written once: the state's fields and the
config's rule tables, with their dtypes and shapes.

The compiled rules (``core/rules.py``) take a batch as two ``uint8`` buffers rather than dozens of arrays
(a compiled call costs about 50 ns per array argument, more than a step of one game):

- the state's ``State._buffer`` (``core/state.py``), which holds every field of ``STATE_FIELDS``;
- the config's rule tables, ``Rules.tables`` (``core/game.py``): the numbers ``NUMBERS``, then the
  tables of ``TABLE_FIELDS``.

``pack`` lays a buffer out: a header of ``int64`` words (the numbers, then for each array its byte
offset and its shape, ``ENTRY`` words), then the arrays, each at a multiple of its item size. Python
views the fields in the buffer as numpy arrays (``pack`` returns them); the compiled rules view them
as a ``Fields`` and a ``Tables`` tuple (``g.location[i, s]``, ``t.passage_to[room]``), made from this
spec and the header by ``core/views.py``. Nothing else says where a field lies.

numba caches compiled code by its own source file; code compiled for an earlier version of this spec
is recompiled all the same (``batched.check_cache``).
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from cluedo_env.core.actions import RANGE_NAMES
from cluedo_env.core.board import ROWS
from cluedo_env.core.movement import MAX_ROLL

__all__ = [
    "ENTRY",
    "MAX_NDIM",
    "NUMBERS",
    "STATE_FIELDS",
    "TABLE_FIELDS",
    "Field",
    "Fields",
    "Numbers",
    "Tables",
    "ndim",
    "pack",
    "pack_tables",
]

# The config's numbers the compiled rules read (``t.S``, ``t.duel`` ...): ``Rules`` gives each.
NUMBERS = (
    "S", "W", "R", "C", "P", "N", "A", "E", "num_doors", "classic", "dice", "max_turns", "duel",
    "auto_refute", "stay_in_room", "accuse_anywhere", "compact", "start_player", "num_face_down",
    "PASSAGE", "STAY", "NO_MOVE", "ENTER", "TOWARD", "SQUARE", "SHOW",
)  # fmt: skip
Numbers = namedtuple("Numbers", NUMBERS)


class Field(NamedTuple):
    """An array of a buffer: its name, its dtype, and its shape as a function of the config's numbers
    (a ``Numbers``, or any object with those of them the function reads as attributes). A state field's
    shape is the one after the batch axis."""

    name: str
    dtype: type
    shape: Callable[[Numbers], tuple[int, ...]]


MOVE_KINDS = len(RANGE_NAMES)  # tables of the move kinds are indexed by an action's range index
MASK_ROWS = 12  # two legal-action rows per phase (``Rules._mask_rows``): may accuse or not
ROLLS = MAX_ROLL + 1

# The state's fields (every array of ``State``) in buffer order. Those starting with ``_`` are hidden
# information; the compiled rules name them without the ``_`` (``g.owner``).
STATE_FIELDS = (
    Field("_owner", np.int8, lambda n: (n.C,)),
    Field("_shown_to", np.int8, lambda n: (n.P, n.C)),
    Field("_peeked", np.bool_, lambda n: (n.P, n.C)),
    Field("passed", np.bool_, lambda n: (n.P, n.C)),
    Field("showed", np.uint8, lambda n: (n.P, n.C)),
    Field("accused", np.bool_, lambda n: (n.P, n.C)),
    Field("eliminated", np.bool_, lambda n: (n.P,)),
    Field("location", np.int16, lambda n: (n.S,)),
    Field("weapon_room", np.int8, lambda n: (n.W,)),
    Field("phase", np.int8, lambda n: ()),
    Field("turn_player", np.int8, lambda n: ()),
    Field("current_player", np.int8, lambda n: ()),
    Field("suggestion", np.int16, lambda n: (3,)),
    Field("seed", np.int64, lambda n: ()),
    Field("turn", np.int32, lambda n: ()),
    Field("dice", np.int8, lambda n: (2,)),
    Field("may_suggest", np.bool_, lambda n: ()),
    Field("summoned", np.bool_, lambda n: (n.P,)),
    Field("reachable", np.bool_, lambda n: (n.N,)),
    Field("enterable", np.bool_, lambda n: (n.R,)),
    Field("terminated", np.bool_, lambda n: ()),
    Field("truncated", np.bool_, lambda n: ()),
    Field("winner", np.int8, lambda n: ()),
    Field("rewards", np.float32, lambda n: (n.P,)),
    Field("events", np.int16, lambda n: (n.E, 7)),
    Field("num_events", np.int8, lambda n: ()),
    Field("_key", np.uint64, lambda n: ()),
    Field("_draws", np.uint32, lambda n: ()),
    Field("_envelope", np.int16, lambda n: (3,)),
    Field("_face_down", np.int16, lambda n: (n.R,)),
)

# The config's rule tables, in buffer order (``Rules._tables`` builds them).
TABLE_FIELDS = (
    Field("action_kind", np.int8, lambda n: (n.A + 1,)),  # range index of each action (-1: no action)
    Field("action_arg", np.int32, lambda n: (n.A + 1,)),  # index within its range
    Field("phase_bits", np.uint8, lambda n: (n.A + 1,)),  # bit p: the action's kind is played in phase p
    Field("move_how", np.int16, lambda n: (MOVE_KINDS,)),  # per move kind: the MOVE event's "how"
    Field("move_phase", np.int8, lambda n: (MOVE_KINDS,)),  # per move kind: the phase after it
    Field("suggest_cards", np.int64, lambda n: (n.S * n.W, 2)),  # suspect, weapon card of each suggestion
    Field("accuse_cards", np.int64, lambda n: (n.S * n.W * n.R, 3)),  # the three cards of each accusation
    Field("passages", np.int8, lambda n: (n.R,)),  # where a room's secret passage leads (-1: none)
    Field("passage_to", np.int16, lambda n: (n.R + n.N + 1,)),  # the same by location (itself where none)
    Field("mask_rows", np.bool_, lambda n: (MASK_ROWS, n.A)),  # legal actions not depending on the game
    Field("weapon_start", np.int8, lambda n: (n.W,)),
    Field("pawn_start", np.int16, lambda n: (n.S,)),
    Field("corner_rooms", np.int64, lambda n: (4,)),  # the duel's face-down cards lie on these rooms
    Field("stop_within", np.bool_, lambda n: ((n.R + n.N) * ROLLS, n.N)),  # movement (core/movement.py)
    Field("enter_within", np.bool_, lambda n: ((n.R + n.N) * ROLLS, n.R)),
    Field("distance_from", np.int16, lambda n: (n.R + n.N, n.N)),
    Field("distance_by_room", np.uint8, lambda n: (n.R, n.N)),
    Field("corridor", np.int64, lambda n: (ROWS,)),
    Field("room_doors", np.int64, lambda n: (n.R, ROWS)),
    Field("square_row", np.int64, lambda n: (n.N,)),
    Field("square_col", np.int64, lambda n: (n.N,)),
    Field("door_room", np.int64, lambda n: (n.num_doors,)),
    Field("door_square", np.int64, lambda n: (n.num_doors,)),
)

# What the compiled rules see: ``g`` (the state's fields) and ``t`` (the numbers, then the tables).
Fields = namedtuple("Fields", [field.name.lstrip("_") for field in STATE_FIELDS])
Tables = namedtuple("Tables", [*NUMBERS, *(field.name for field in TABLE_FIELDS)])

MAX_NDIM = 3  # axes of an array in a buffer, the batch axis included
ENTRY = 1 + MAX_NDIM  # header words per array: its byte offset, then its shape (unused axes 0)
_ONES = Numbers(*(1,) * len(NUMBERS))


def ndim(field: Field) -> int:
    """Axes of ``field``'s shape function (for a state field, those after the batch axis)."""
    return len(field.shape(_ONES))


def pack(arrays: Sequence[np.ndarray], numbers: Sequence[int] = ()) -> tuple[np.ndarray, list[np.ndarray]]:
    """One ``uint8`` buffer holding ``numbers`` and copies of ``arrays``, and views of those copies.

    The buffer starts with a header of ``int64`` words: ``numbers``, then for each array its byte
    offset and its shape (``ENTRY`` words, the unused axes 0). The arrays follow in the order given,
    each at a multiple of its item size. Returns ``(buffer, views)``: ``views[k]`` is a view of
    ``arrays[k]``'s copy in the buffer, of its shape and dtype.
    """
    header_words = len(numbers) + ENTRY * len(arrays)
    offsets, end = [], 8 * header_words
    for array in arrays:
        if array.ndim > MAX_NDIM:
            raise ValueError(f"a buffer holds arrays of at most {MAX_NDIM} axes, got shape {array.shape}")
        end += -end % array.itemsize
        offsets.append(end)
        end += array.nbytes
    buffer = np.zeros(end, dtype=np.uint8)
    header = buffer[: 8 * header_words].view(np.int64)
    header[: len(numbers)] = numbers
    views = []
    for k, (array, offset) in enumerate(zip(arrays, offsets)):
        entry = header[len(numbers) + ENTRY * k :][:ENTRY]
        entry[0] = offset
        entry[1 : 1 + array.ndim] = array.shape
        view = buffer[offset : offset + array.nbytes].view(array.dtype).reshape(array.shape)
        view[...] = array
        views.append(view)
    return buffer, views


def pack_tables(numbers: dict[str, int], tables: dict[str, np.ndarray]) -> np.ndarray:
    """The rule tables' buffer (``Rules.tables``): ``numbers`` (one per name of ``NUMBERS``) and
    ``tables`` (one per ``TABLE_FIELDS``, cast to its dtype), each checked against its shape."""
    values = Numbers(**numbers)
    arrays = []
    for field in TABLE_FIELDS:
        array = np.ascontiguousarray(tables[field.name], dtype=field.dtype)
        if array.shape != field.shape(values):
            raise ValueError(
                f"table {field.name} has shape {array.shape}, the compiled rules read {field.shape(values)}"
            )
        arrays.append(array)
    return pack(arrays, values)[0]
