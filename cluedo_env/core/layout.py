"""The layout of the two byte buffers the compiled rules read, written once: the state's fields and the
config's rule tables, with their dtypes and shapes.

The compiled rules (``core/rules.py``) take a batch as two ``uint8`` buffers rather than dozens of arrays
(a compiled call costs about 50 ns per array argument, more than a step of one game):

- the state's ``State._buffer`` (``core/state.py``), which holds every field of ``STATE_FIELDS``;
- the config's rule tables, ``Rules.tables`` (``core/game.py``): the numbers ``NUMBERS``, then the
  tables of ``TABLE_FIELDS``.

A field's shape is a tuple of axes, each a number's name or a constant. ``pack`` lays a buffer out:
a header of ``int64`` words (the buffer's numbers, then the byte offset of each array), then the
arrays, each at a multiple of its item size. Python views the fields in the buffer as numpy arrays
(``pack`` returns them); the compiled rules view them as a ``Fields`` and a ``Tables`` tuple
(``g.location[i, s]``, ``t.passage_to[room]``), made from this spec and the headers by
``core/views.py``, each axis from its number. Nothing else says where a field lies.

numba caches compiled code by its own source file; code compiled for an earlier version of this spec
is recompiled all the same (``batched.check_cache``).
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

from cluedo_env.core.actions import RANGE_NAMES
from cluedo_env.core.board import ROWS

__all__ = [
    "BATCH",
    "NUMBERS",
    "STATE_FIELDS",
    "TABLE_FIELDS",
    "Field",
    "Fields",
    "Numbers",
    "Tables",
    "pack",
    "pack_tables",
]

# The config's numbers the compiled rules read (``t.S``, ``t.duel`` ...): ``Rules._numbers`` gives each.
# The last ones are sizes of axes of the tables: actions and the "no action" code (A + 1), suggestions
# (S * W), accusations (S * W * R), locations (rooms, then squares: R + N), those and "off the board"
# (R + N + 1), and a location with a roll (locations * (MAX_ROLL + 1)).
NUMBERS = (
    "S", "W", "R", "C", "P", "N", "A", "E", "num_doors", "classic", "dice", "max_turns", "duel",
    "auto_refute", "stay_in_room", "accuse_anywhere", "compact", "start_player", "num_face_down", "deal",
    "PASSAGE", "STAY", "NO_MOVE", "ENTER", "TOWARD", "SQUARE", "SHOW",
    "actions_and_none", "suggestions", "accusations", "locations", "locations_and_off_board", "location_rolls",
)  # fmt: skip
Numbers = namedtuple("Numbers", NUMBERS)
BATCH = "B"  # the state buffer's one number: its games, the first axis of every field


class Field(NamedTuple):
    """An array of a buffer: its name, its dtype, and its shape as axes, each the name of a number
    (of ``NUMBERS``) or a constant. A state field's shape is the one after the batch axis."""

    name: str
    dtype: type
    shape: tuple[str | int, ...]

    def shape_for(self, numbers: Mapping[str, int]) -> tuple[int, ...]:
        """The shape, each named axis's size taken from ``numbers``."""
        return tuple(numbers[axis] if isinstance(axis, str) else axis for axis in self.shape)


MOVE_KINDS = len(RANGE_NAMES)  # tables of the move kinds are indexed by an action's range index
MASK_ROWS = 12  # two legal-action rows per phase (``Rules._mask_rows``): may accuse or not

# The state's fields (every array of ``State``) in buffer order. Those starting with ``_`` are hidden
# information; the compiled rules name them without the ``_`` (``g.owner``).
STATE_FIELDS = (
    Field("_owner", np.int8, ("C",)),
    Field("_shown_to", np.int8, ("P", "C")),
    Field("_peeked", np.bool_, ("P", "C")),
    Field("passed", np.bool_, ("P", "C")),
    Field("showed", np.uint8, ("P", "C")),
    Field("accused", np.bool_, ("P", "C")),
    Field("eliminated", np.bool_, ("P",)),
    Field("location", np.int16, ("S",)),
    Field("weapon_room", np.int8, ("W",)),
    Field("phase", np.int8, ()),
    Field("turn_player", np.int8, ()),
    Field("current_player", np.int8, ()),
    Field("suggestion", np.int16, (3,)),
    Field("seed", np.int64, ()),
    Field("turn", np.int32, ()),
    Field("dice", np.int8, (2,)),
    Field("may_suggest", np.bool_, ()),
    Field("summoned", np.bool_, ("P",)),
    Field("reachable", np.bool_, ("N",)),
    Field("enterable", np.bool_, ("R",)),
    Field("terminated", np.bool_, ()),
    Field("truncated", np.bool_, ()),
    Field("winner", np.int8, ()),
    Field("rewards", np.float32, ("P",)),
    Field("events", np.int16, ("E", 7)),
    Field("num_events", np.int8, ()),
    Field("_key", np.uint64, ()),
    Field("_draws", np.uint32, ()),
    Field("_envelope", np.int16, (3,)),
    Field("_face_down", np.int16, ("R",)),
)

# The config's rule tables, in buffer order (``Rules._tables`` builds them).
TABLE_FIELDS = (
    Field("action_kind", np.int8, ("actions_and_none",)),  # range index of each action (-1: no action)
    Field("action_arg", np.int32, ("actions_and_none",)),  # index within its range
    Field("phase_bits", np.uint8, ("actions_and_none",)),  # bit p: the action's kind is played in phase p
    Field("move_how", np.int16, (MOVE_KINDS,)),  # per move kind: the MOVE event's "how"
    Field("move_phase", np.int8, (MOVE_KINDS,)),  # per move kind: the phase after it
    Field("suggest_cards", np.int64, ("suggestions", 2)),  # suspect, weapon card of each suggestion
    Field("accuse_cards", np.int64, ("accusations", 3)),  # the three cards of each accusation
    Field("passages", np.int8, ("R",)),  # where a room's secret passage leads (-1: none)
    Field("passage_to", np.int16, ("locations_and_off_board",)),  # the same by location (itself where none)
    Field("mask_rows", np.bool_, (MASK_ROWS, "A")),  # legal actions not depending on the game
    Field("weapon_start", np.int8, ("W",)),
    Field("pawn_start", np.int16, ("S",)),
    Field("corner_rooms", np.int64, (4,)),  # the duel's face-down cards lie on these rooms
    Field("stop_within", np.bool_, ("location_rolls", "N")),  # movement (core/movement.py)
    Field("enter_within", np.bool_, ("location_rolls", "R")),
    Field("distance_from", np.int16, ("locations", "N")),
    Field("distance_by_room", np.uint8, ("R", "N")),
    Field("corridor", np.int64, (ROWS,)),
    Field("room_doors", np.int64, ("R", ROWS)),
    Field("square_row", np.int64, ("N",)),
    Field("square_col", np.int64, ("N",)),
    Field("door_room", np.int64, ("num_doors",)),
    Field("door_square", np.int64, ("num_doors",)),
)

# What the compiled rules see: ``g`` (the state's fields) and ``t`` (the numbers, then the tables).
Fields = namedtuple("Fields", [field.name.lstrip("_") for field in STATE_FIELDS])
Tables = namedtuple("Tables", [*NUMBERS, *(field.name for field in TABLE_FIELDS)])


def pack(arrays: Sequence[np.ndarray], numbers: Sequence[int] = ()) -> tuple[np.ndarray, list[np.ndarray]]:
    """One ``uint8`` buffer holding ``numbers`` and copies of ``arrays``, and views of those copies.

    The buffer starts with a header of ``int64`` words: ``numbers``, then the byte offset of each
    array. The arrays follow in the order given, each at a multiple of its item size. Returns
    ``(buffer, views)``: ``views[k]`` is a view of ``arrays[k]``'s copy in the buffer, of its shape
    and dtype.
    """
    header_words = len(numbers) + len(arrays)
    offsets, end = [], 8 * header_words
    for array in arrays:
        end += -end % array.itemsize
        offsets.append(end)
        end += array.nbytes
    buffer = np.zeros(end, dtype=np.uint8)
    header = buffer[: 8 * header_words].view(np.int64)
    header[: len(numbers)] = numbers
    header[len(numbers) :] = offsets
    views = []
    for array, offset in zip(arrays, offsets):
        view = buffer[offset : offset + array.nbytes].view(array.dtype).reshape(array.shape)
        view[...] = array
        views.append(view)
    return buffer, views


def pack_tables(numbers: Mapping[str, int], tables: Mapping[str, np.ndarray]) -> np.ndarray:
    """The rule tables' buffer (``Rules.tables``): ``numbers`` (one per name of ``NUMBERS``) and
    ``tables`` (one per ``TABLE_FIELDS``, cast to its dtype), each checked against its shape."""
    values = Numbers(**numbers)
    arrays = []
    for field in TABLE_FIELDS:
        array = np.ascontiguousarray(tables[field.name], dtype=field.dtype)
        want = field.shape_for(numbers)
        if array.shape != want:
            raise ValueError(f"table {field.name} has shape {array.shape}, the compiled rules read {want}")
        arrays.append(array)
    return pack(arrays, values)[0]
